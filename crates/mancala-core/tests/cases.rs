//! Cases with known answers: published perft counts of Kalah(6,4) and the records printed on
//! the source pages (Ralf Gering's *Dracala* and *Kauri* pages), replayed to their scores.

use mancala_core::notation::{self, Check};
use mancala_core::perft::{perft, perft_full_depth, perft_turns};
use mancala_core::{Game, KalahPos, KalahRules, Position, Rules, Side};

fn kalah(rules: &str) -> KalahPos {
    KalahPos::<u8>::start(&KalahRules::new(&rules.parse().unwrap()).unwrap())
}

#[test]
fn kalah_6_4_ply_perft() {
    let p = kalah("kalah,seeds=4");
    let want = [6, 35, 185, 942, 4_690, 23_233, 114_430, 563_055];
    for (d, &n) in want.iter().enumerate() {
        assert_eq!(perft(&p, d as u32 + 1), n, "depth {}", d + 1);
        assert_eq!(perft_full_depth(&p, d as u32 + 1), n, "depth {}", d + 1);
    }
    // The first depth where games have ended: the two conventions part (checked against an
    // independent C counter).
    assert_eq!(perft(&p, 10), 13_519_608);
    assert_eq!(perft_full_depth(&p, 10), 13_519_607);
}

/// The published figure, 318,739,550, counts only full-depth paths; the cases' convention (a game
/// that ends early counts once) gives 318,739,906. About 2 s in release, minutes in debug.
#[test]
#[ignore]
fn kalah_6_4_perft_depth_12() {
    let p = kalah("kalah,seeds=4");
    assert_eq!(perft_full_depth(&p, 12), 318_739_550);
    assert_eq!(perft(&p, 12), 318_739_906);
}

/// Tavares (South) vs Gering (North), as printed on Ralf Gering's *Dracala* page.
const DRACALA: &str = "\
- 1-6 (-2)....5 (-1)
- 5 (-1).......2 (-1)
- 6-2 (-2)....5-3 (-2)
- 5-3 (-2).....6 (-7)
- 5-6 (-2)....1 (-1)
- 4 (-7).......4-2 (-3)
- 3-6 (-2)....5 (-1)
- 6-1 (-6)....6 (-1)
- 4 (-1).......3 (-2)
- 6-3 (-3)....4-6-5-6-2 (-4)
- 5 (-3).......1
- 4 (-3).......3
- 6-2 (-2)....5-6-4 (-3)
- 1 (-2)
Tavares perde por 38 : 26 pontos.";

fn dracala_movetext() -> String {
    DRACALA
        .replace("Tavares perde por", "")
        .replace("pontos.", "")
}

#[test]
fn dracala_first_game_replays_to_38_26() {
    let mut game = Game::from_rules(&"dracala".parse().unwrap()).unwrap();
    notation::replay(&mut game, &dracala_movetext(), Check::Strict).unwrap();
    assert!(game.is_over());
    assert_eq!(game.position().scores(), [38, 26]);
    assert_eq!(game.position().board_seeds(), 8);
    assert_eq!(
        game.outcome().unwrap().winner(),
        Some(Side::North),
        "misere: South loses"
    );
    assert_eq!(game.turns().len(), 27);
}

#[test]
fn dracala_forced_moves_are_the_ones_played() {
    // Wherever the filter leaves one pit, it is the pit the record plays (replay checks
    // legality; here we also count how often the rule decided alone).
    let mut game = Game::from_rules(&"dracala".parse().unwrap()).unwrap();
    let parsed = notation::parse(notation::Notation::Digits, &dracala_movetext()).unwrap();
    let mut forced = 0;
    for turn in &parsed.turns {
        for mv in &turn.moves {
            let legal = game.legal_moves();
            assert!(legal.contains(mv.pit));
            if legal.len() == 1 {
                forced += 1;
            }
            game.play(mv.pit).unwrap();
        }
    }
    assert!(
        forced > 10,
        "the capture rule decides many moves alone ({forced})"
    );
}

#[test]
fn dracala_other_capture_readings_do_not_reproduce_the_game() {
    for rules in ["dracala,capture=empty", "dracala,capture=opposite-only"] {
        let mut game = Game::from_rules(&rules.parse().unwrap()).unwrap();
        let r = notation::replay(&mut game, &dracala_movetext(), Check::Strict);
        assert!(r.is_err(), "{rules} must not reproduce the record");
    }
    // Maximum capture over a whole turn instead of each move: some turn of the record is not
    // among the turns of largest total capture.
    let mut game = Game::from_rules(&"dracala".parse().unwrap()).unwrap();
    let parsed = notation::parse(notation::Notation::Digits, &dracala_movetext()).unwrap();
    let mut violated = false;
    for turn in &parsed.turns {
        let KalahPosOf(p) = KalahPosOf::of(game.position());
        let best = best_turn_capture(&p, p.to_move());
        let before = game.position().scores()[game.to_move().index()];
        for mv in &turn.moves {
            game.play(mv.pit).unwrap();
        }
        let side = if game.moves().last().unwrap().side == Side::South {
            0
        } else {
            1
        };
        let got = game.position().scores()[side] - before;
        if got < u16::from(best) {
            violated = true;
        }
        if game.is_over() {
            break;
        }
    }
    assert!(
        violated,
        "the per-turn reading would have forced other turns"
    );
}

struct KalahPosOf(KalahPos);
impl KalahPosOf {
    fn of(p: &Position) -> KalahPosOf {
        match p.state() {
            mancala_core::position::State::Kalah(k) => KalahPosOf(*k),
            _ => unreachable!(),
        }
    }
}

/// Largest store growth over a whole turn, any legal sowing order (Kalah rules, no filter).
fn best_turn_capture(p: &KalahPos, side: Side) -> u8 {
    let mut best = 0;
    let start = p.store(side);
    for pit in 0..p.pits() as u8 {
        if p.pit(side, pit as usize) == 0 {
            continue;
        }
        let mut c = *p;
        let e = c.play_unchecked(pit);
        let got = if e.again {
            best_turn_capture(&c, side) + (c.store(side) - start)
        } else {
            c.store(side) - start
        };
        best = best.max(got);
    }
    best
}

#[test]
fn kauri_game_2_matches_every_annotation() {
    let text = "1. d B; 2. e F; 3. f B; 4. b D; 5. a (-1) A; 6. c (-1) B; 7. d (-1) A; 8. c C (+1;-1); 9. d D (-1); 10. c E (+9); 11. c A?; 12. e D (+9); 13. f B (-1); 14. b (+17) E; 15. d (+9) E; 16. b D; 17. c (+4)";
    let mut game = Game::from_rules(&"kauri".parse().unwrap()).unwrap();
    notation::replay(&mut game, text, Check::Strict).unwrap();
    assert!(game.is_over());
    assert_eq!(game.position().scores(), [33, 22]);
    assert_eq!(game.outcome().unwrap().winner(), Some(Side::South));
}

#[test]
fn kauri_game_3_ends_with_three_sowings_in_a_row() {
    let text = "1. e E; 2. e F; 3. b C (+2); 4. e D; 5. c A (+2); 6. e B; 7. d-a-f (+34)";
    let mut game = Game::from_rules(&"kauri".parse().unwrap()).unwrap();
    notation::replay(&mut game, text, Check::Strict).unwrap();
    assert_eq!(game.position().scores(), [34, 4]);
    assert_eq!(game.outcome().unwrap().winner(), Some(Side::South));
    let last = game.moves().last().unwrap();
    assert_eq!(last.effect.captured, 34);
}

#[test]
fn kauri_game_1_reaches_8_31_with_its_known_slip() {
    let text = "1. f D; 2. e F; 3. b (+1) D; 4. d E; 5. c C (+1); 6. a (+6) B (-1); 7. a B; 8. b D! (+25); 9. d F (+5)";
    let rules: Rules = "kauri".parse().unwrap();
    let mut strict = Game::from_rules(&rules).unwrap();
    let err = notation::replay(&mut strict, text, Check::Strict)
        .unwrap_err()
        .to_string();
    assert!(err.contains("turn 10 (North) `C`"), "{err}");
    let mut game = Game::from_rules(&rules).unwrap();
    notation::replay(&mut game, text, Check::MovesOnly).unwrap();
    assert_eq!(game.position().scores(), [8, 31]);
    assert_eq!(game.outcome().unwrap().winner(), Some(Side::North));
}

#[test]
fn turn_perft_counts_whole_turns() {
    let p = kalah("kalah,seeds=4");
    // Ten distinct first turns of Kalah(6,4): pit 3 ends in the store and chains.
    assert_eq!(perft_turns(&p, 1), 10);
    assert!(perft_turns(&p, 2) > perft(&p, 2));
}
