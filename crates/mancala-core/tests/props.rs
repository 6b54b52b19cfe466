//! Property tests over random legal games of every preset (and a few option combinations),
//! plus "parsers never panic" properties and the repetition rule.
//!
//! The end rule, the outcome and the conservation laws are written here again from the rules
//! as docs/rules.md states them, independently of the rules code, and every position a random game
//! reaches is held to them.

use std::collections::HashSet;

use mancala_core::notation::{self, Check, Notation};
use mancala_core::position::State;
use mancala_core::record::Players;
use mancala_core::{
    EndCheck, Game, Leftovers, MoveEffect, Opening, Outcome, Position, Preset, Record, Rules,
    Setup, Side, SWAP,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Rule sets every random-game property runs over: every preset with its defaults, then
/// option combinations that reach the other branches of the rules code.
fn variants() -> Vec<Rules> {
    let mut v: Vec<Rules> = Preset::ALL.iter().map(|p| p.rules()).collect();
    for s in [
        "kalah,seeds=4",
        "kalah,seeds=4,capture=empty",
        "kalah,seeds=5,end=mover-empty,leftovers=last-mover",
        "kalah,pits=4,seeds=3,capture=opposite-only,stop-when-decided",
        "kalah,pits=8,seeds=1,leftovers=not-counted",
        "kalah,pits=1,seeds=20,capture=empty",
        "kalah,pits=7,seeds=7,first-move-extra-turn=false,pie",
        "kalah,pits=3,seeds=2,pie",
        "kalah,pits=8,seeds=1,pie,leftovers=last-capturer",
        "vaccean,first-move-extra-turn=false",
        "kalah-brazil,stage=basic",
        "kalah-brazil,stage=extra-turn",
        "vaccean,leftovers=last-capturer,end=mover-empty",
        "cross-kalah,seeds=3",
        "cross-kalah,pits=3,seeds=2,stop-when-decided",
        "dracala,leftovers=last-capturer",
        "dracala,stop-when-decided=false,capture=empty",
        "kauri,stop-when-decided=false",
        "kauri,pits=2,seeds=1",
        "kauri,pits=8,seeds=15",
        "oware,grand-slam=forbidden,repetition=split",
        "oware,grand-slam=capture-all,stop-when-decided=false",
        "oware,pits=3,seeds=2",
        "oware,decided-leftovers=to-owner",
        "oware,pits=2,seeds=1,repetition=split",
        // Boards beyond 8 pits: a row no longer fits one 64-bit word.
        "kalah,pits=10,seeds=10,stop-when-decided",
        "kalah,pits=12,seeds=10",
        "kalah,pits=12,seeds=1,leftovers=not-counted,pie",
        "kalah,pits=9,seeds=2,end=mover-empty",
        "cross-kalah,pits=11,seeds=4",
        "dracala,pits=9,seeds=3",
        "kauri,pits=12,seeds=3",
        "oware,pits=12,seeds=4",
        // More seeds than bytes hold: `u16` counts.
        "kalah,pits=12,seeds=12,stop-when-decided",
        "kalah,pits=12,seeds=20,leftovers=last-capturer,pie",
        "kalah-brazil,pits=11,seeds=20",
        "cross-kalah,pits=7,seeds=20",
        "dracala,pits=9,seeds=20",
    ] {
        v.push(s.parse().unwrap_or_else(|e| panic!("{s}: {e}")));
    }
    v
}

/// Plays a game of `rules`: each pick chooses one of the legal moves (by index, modulo their
/// number) until the picks run out or the game (with its repetition rule) is over.
fn play(rules: &Rules, picks: &[u16]) -> Game {
    let mut game = Game::from_rules(rules).unwrap();
    for &k in picks {
        let legal = game.legal_moves();
        if legal.is_empty() {
            break;
        }
        let pit = legal.as_slice()[k as usize % legal.len()];
        game.play(pit).unwrap();
    }
    game
}

fn row_seeds(p: &Position, side: Side) -> u32 {
    (0..p.pits()).map(|i| p.seeds(side, i) as u32).sum()
}

fn has_cowrie(p: &Position, side: Side) -> bool {
    (0..p.pits()).any(|i| p.cowries(side, i) > 0)
}

/// The end rule, from the stated rules alone: does the game end in this position? `next` is
/// the side that is (or, once the game is over, would have been) to move, where it is known: a
/// finished position's string names no side.
fn end_rule_holds(p: &Position, next: Option<Side>) -> bool {
    let r = p.rules();
    let half = r.total_seeds() / 2;
    let [s, n] = p.scores().map(u32::from);
    let decided = r.stop_when_decided && (s > half || n > half);
    let rows = [row_seeds(p, Side::South), row_seeds(p, Side::North)];
    if r.preset == Preset::Oware {
        // Over when decided or swept; a live side to move has seeds, and can feed an empty
        // opposing row.
        let m = p.pits();
        let stuck = next.is_some_and(|side| {
            let feeds = (0..m).any(|i| p.seeds(side, i) as usize >= m - i);
            rows[side.index()] == 0 || (rows[side.other().index()] == 0 && !feeds)
        });
        return decided || rows == [0, 0] || stuck;
    }
    if r.preset == Preset::Kauri {
        let no_seeds = rows == [0, 0];
        // No seeds left: more captured seeds wins; at a tie, the player to move without a
        // cowrie loses (while he has one the game goes on).
        decided || (no_seeds && (s != n || !has_cowrie(p, p.to_move())))
    } else {
        decided
            || match (r.end, next) {
                (EndCheck::AnyRowEmpty, _) | (EndCheck::MoverEmpty, None) => rows.contains(&0),
                (EndCheck::MoverEmpty, Some(side)) => rows[side.index()] == 0,
            }
    }
}

/// The result of a finished position, from the stated rules alone.
fn expected_outcome(p: &Position) -> Outcome {
    let [s, n] = p.scores();
    let more = match s.cmp(&n) {
        core::cmp::Ordering::Greater => Some(Side::South),
        core::cmp::Ordering::Less => Some(Side::North),
        core::cmp::Ordering::Equal => None,
    };
    match (p.rules().preset, more) {
        // Kauri: at a tie the player to move has no cowrie and loses.
        (Preset::Kauri, None) => Outcome::Win(p.to_move().other()),
        (Preset::Dracala, Some(w)) => Outcome::Win(w.other()),
        (_, Some(w)) => Outcome::Win(w),
        (_, None) => Outcome::Draw,
    }
}

/// Checks that hold in every position, live or finished. `played`: reached by play, so that a
/// finished position's `to_move` is the side that would have moved next.
fn check_position(p: &Position, played: bool) -> Result<(), TestCaseError> {
    let r = p.rules();
    let [s, n] = p.scores().map(u32::from);
    prop_assert_eq!(
        p.board_seeds() + s + n,
        r.total_seeds(),
        "seeds conserved in {}",
        p
    );
    prop_assert_eq!(
        p.board_seeds(),
        row_seeds(p, Side::South) + row_seeds(p, Side::North)
    );
    if r.preset == Preset::Kauri {
        let cowries: u32 = Side::BOTH
            .iter()
            .flat_map(|&side| (0..p.pits()).map(move |i| p.cowries(side, i) as u32))
            .sum();
        prop_assert_eq!(cowries, 2 * r.pits as u32, "cowries in {}", p);
    }
    let next = (played || !p.is_over()).then(|| p.to_move());
    prop_assert_eq!(p.is_over(), end_rule_holds(p, next), "end rule in {}", p);
    let decided = r.stop_when_decided && (s > r.total_seeds() / 2 || n > r.total_seeds() / 2);
    if p.is_over() && r.preset.is_kalah_family() && !decided && r.leftovers != Leftovers::NotCounted
    {
        prop_assert_eq!(p.board_seeds(), 0, "the end sweeps the board in {}", p);
    }
    if p.is_over() && r.decided_leftovers == mancala_core::DecidedLeftovers::ToOwner {
        prop_assert_eq!(p.board_seeds(), 0, "each row to its owner in {}", p);
    }
    if p.is_over() && !r.preset.is_kalah_family() && !decided {
        prop_assert_eq!(
            p.board_seeds(),
            0,
            "Kauri ends early only when decided: {}",
            p
        );
    }
    prop_assert_eq!(
        p.legal_moves().is_empty(),
        p.is_over(),
        "legal moves in {}",
        p
    );
    let opening = p.setup().opening;
    prop_assert!(opening == Opening::None || (r.pie || !r.first_move_extra_turn));
    for pit in &p.legal_moves() {
        if pit == SWAP {
            // The swap: North's first action, under the pie rule only.
            prop_assert!(r.pie && opening == Opening::Swap && p.to_move() == Side::North);
            continue;
        }
        prop_assert!((pit as usize) < p.pits());
        prop_assert!(p.seeds(p.to_move(), pit as usize) > 0 || r.preset == Preset::Kauri);
        prop_assert!(p.cowries(p.to_move(), pit as usize) > 0 || r.preset != Preset::Kauri);
        if r.preset == Preset::Oware && row_seeds(p, p.to_move().other()) == 0 {
            // Must-feed.
            prop_assert!(p.seeds(p.to_move(), pit as usize) as usize >= p.pits() - pit as usize);
        }
    }
    match p.outcome() {
        None => prop_assert!(!p.is_over()),
        Some(o) => {
            prop_assert!(p.is_over());
            prop_assert_eq!(o, expected_outcome(p), "outcome of {}", p);
        }
    }
    // The position string and its JSON form round-trip exactly.
    let text = p.to_string();
    let back: Position = text
        .parse()
        .map_err(|e| TestCaseError::fail(format!("`{text}` does not parse back: {e}")))?;
    prop_assert_eq!(back, *p, "`{}` parses to another position", text);
    prop_assert_eq!(back.to_string(), text);
    let json = serde_json::to_string(p).unwrap();
    prop_assert_eq!(serde_json::from_str::<Position>(&json).unwrap(), *p);
    Ok(())
}

/// Dracala's first-move exception looks at the rules' start layout with South to move; its
/// mirror (North to move) is not a first move, so there the legal moves may differ.
fn is_dracala_start(p: &Position) -> bool {
    matches!(p.state(), State::Kalah(k) if p.rules().preset == Preset::Dracala && k.is_start())
}

/// Plays `pit` in `p` and in its mirror: the results are mirrors of each other.
fn check_mirror(p: &Position, pit: u8) -> Result<(), TestCaseError> {
    if p.setup().opening != Opening::None {
        // The opening names South's first move and North's swap: a mirror has none.
        prop_assert_eq!(p.mirrored().setup().opening, Opening::None);
        return Ok(());
    }
    let q = p.mirrored();
    prop_assert_eq!(q.mirrored(), *p);
    prop_assert_eq!(q.to_move(), p.to_move().other());
    prop_assert_eq!(q.scores(), [p.scores()[1], p.scores()[0]]);
    if !is_dracala_start(p) {
        prop_assert_eq!(q.legal_moves(), p.legal_moves(), "mirror of {}", p);
        let text = q.to_string();
        prop_assert_eq!(text.parse::<Position>().ok(), Some(q), "`{}`", text);
    }
    let (ea, eb) = match (p.state(), q.state()) {
        // At Dracala's start, sow without the filter: the sowing itself must mirror.
        (State::Kalah(ka), State::Kalah(kb)) if is_dracala_start(p) => {
            let (mut ka, mut kb) = (*ka, *kb);
            let r = (ka.play_unchecked(pit), kb.play_unchecked(pit));
            prop_assert_eq!(kb, ka.mirrored());
            r
        }
        _ => {
            let (mut a, mut b) = (*p, q);
            let ea = a.play(pit).unwrap();
            let eb = b
                .play(pit)
                .map_err(|e| TestCaseError::fail(format!("mirror of {p}: pit {pit}: {e}")))?;
            prop_assert_eq!(b, a.mirrored(), "pit {} in {} and its mirror", pit, p);
            (ea, eb)
        }
    };
    prop_assert_eq!(ea, eb);
    Ok(())
}

/// Checks one move: what its effect says against what the positions show.
fn check_move(before: &Position, after: &Position, e: MoveEffect) -> Result<(), TestCaseError> {
    let me = before.to_move();
    let (mine, theirs) = (me.index(), me.other().index());
    let (sb, sa) = (before.scores(), after.scores());
    let opening = before.setup().opening;
    if after.setup().opening != Opening::None {
        // Only South's first turn leaves the opening pending.
        prop_assert!(opening != Opening::None && me == Side::South && !after.is_over());
    }
    if !e.in_store && e == MoveEffect::default() && before.legal_moves().contains(SWAP) {
        // Possibly the swap: the board mirrored, South to move, nothing sown.
        let swapped = before.mirrored();
        if *after == swapped {
            prop_assert_eq!(after.to_move(), Side::South);
            prop_assert_eq!(sa, [sb[1], sb[0]]);
            return Ok(());
        }
    }
    if opening == Opening::FirstMove && !before.rules().first_move_extra_turn {
        prop_assert!(!e.again, "the first move earns no extra turn: {}", before);
    }
    prop_assert!(
        sa[0] >= sb[0] && sa[1] >= sb[1],
        "stores fell: {} -> {}",
        before,
        after
    );
    prop_assert_eq!(e.ended, after.is_over());
    prop_assert_eq!(e.again, !after.is_over() && after.to_move() == me);
    if before.rules().preset == Preset::Kauri {
        // No sweep in Kauri: the stores grow by the captures alone.
        prop_assert_eq!(sa[mine] - sb[mine], e.captured);
        prop_assert_eq!(sa[theirs] - sb[theirs], e.handed);
        prop_assert_eq!(e.gain, e.captured);
        prop_assert!(!e.in_store);
    } else if before.rules().preset == Preset::Oware {
        // Stores grow by the mover's captures, and by the rows swept at the end.
        prop_assert_eq!(e.gain, e.captured);
        prop_assert!(!e.in_store && !e.again);
        if e.ended {
            prop_assert!(sa[mine] - sb[mine] >= e.captured);
        } else {
            prop_assert_eq!(sa[mine] - sb[mine], e.captured);
            prop_assert_eq!(sa[theirs], sb[theirs]);
            prop_assert!(row_seeds(after, me) > 0 || row_seeds(after, me.other()) > 0);
        }
        // Pits of 2 and 3 seeds: never a single seed.
        prop_assert!(e.captured != 1);
    } else {
        prop_assert_eq!(e.handed, 0);
        prop_assert!(e.captured <= e.gain);
        if e.ended {
            prop_assert!(sa[mine] - sb[mine] >= e.gain);
        } else {
            prop_assert_eq!(sa[mine] - sb[mine], e.gain);
            prop_assert_eq!(sa[theirs], sb[theirs], "the opponent's store is never sown");
        }
        if !before.rules().extra_turns() {
            prop_assert!(!e.again);
        }
        if e.again {
            prop_assert!(e.in_store);
        }
    }
    Ok(())
}

/// The sowing path a display animates agrees with the move: where nothing was captured after
/// the sowing or swept, the pieces it drops and the seeds it takes as they fall make the
/// position after the move.
fn check_path(
    before: &Position,
    pit: u8,
    after: &Position,
    e: MoveEffect,
) -> Result<(), TestCaseError> {
    let m = before.pits();
    let me = before.to_move();
    let path = before.sowing_path(pit);
    if pit == SWAP {
        prop_assert!(path.places.is_empty());
        return Ok(());
    }
    let pieces = before.seeds(me, pit as usize) + u16::from(before.cowries(me, pit as usize));
    prop_assert_eq!(path.places.len(), pieces as usize);
    // The seeds the path takes as they fall are the move's captures and handed seeds, or a
    // part of them where captures follow the sowing.
    let taken: u32 = path.takes.iter().map(|t| t.seeds as u32).sum();
    prop_assert!(taken <= e.captured as u32 + e.handed as u32);
    if taken < e.captured as u32 + e.handed as u32 || e.ended {
        return Ok(());
    }
    // Ring places: `0..m` South's pits, `m` South's store, `m+1..=2m` North's, `2m+1`.
    let place = |side: Side, i: usize| side.index() * (m + 1) + i;
    let mut seeds = vec![0i32; 2 * m + 2];
    let mut cowries = vec![0i32; 2 * m + 2];
    for side in Side::BOTH {
        for i in 0..m {
            seeds[place(side, i)] = before.seeds(side, i) as i32;
            cowries[place(side, i)] = before.cowries(side, i) as i32;
        }
        seeds[place(side, m)] = before.scores()[side.index()] as i32;
    }
    seeds[place(me, pit as usize)] = 0;
    cowries[place(me, pit as usize)] = 0;
    for (k, &at) in path.places.iter().enumerate() {
        if k < path.cowries_from {
            seeds[at] += 1;
        } else {
            cowries[at] += 1;
        }
        for t in path.takes.iter().filter(|t| t.step == k) {
            seeds[at] -= t.seeds as i32;
            seeds[place(t.to, m)] += t.seeds as i32;
        }
    }
    for side in Side::BOTH {
        for i in 0..m {
            prop_assert_eq!(
                seeds[place(side, i)],
                after.seeds(side, i) as i32,
                "path of {} in {}",
                pit,
                before
            );
            prop_assert_eq!(cowries[place(side, i)], after.cowries(side, i) as i32);
        }
        prop_assert_eq!(seeds[place(side, m)], after.scores()[side.index()] as i32);
    }
    Ok(())
}

/// Plays `picks` in `rules`, checking every position and move on the way; returns the game.
fn check_game(rules: &Rules, picks: &[u16]) -> Result<Game, TestCaseError> {
    let mut game = Game::from_rules(rules).unwrap();
    check_position(game.position(), true)?;
    let mut seen = HashSet::new();
    seen.insert(*game.position());
    for &k in picks {
        let legal = game.legal_moves();
        prop_assert_eq!(legal.is_empty(), game.is_over());
        if legal.is_empty() {
            break;
        }
        let before = *game.position();
        prop_assert_eq!(legal, before.legal_moves());
        let pit = legal.as_slice()[k as usize % legal.len()];
        check_mirror(&before, pit)?;
        let e = game.play(pit).unwrap();
        let after = *game.position();
        // Undo gives the game back as it was; a copy played alike is the same game.
        let mut back = game.clone();
        prop_assert_eq!(back.undo().map(|m| (m.pit, m.effect)), Some((pit, e)));
        prop_assert_eq!(back.position(), &before);
        prop_assert!(!back.is_over());
        let mut copy = before;
        prop_assert_eq!(copy.play(pit), Ok(e));
        prop_assert_eq!(copy, after);
        check_move(&before, &after, e)?;
        check_path(&before, pit, &after, e)?;
        check_position(&after, true)?;
        let occurrences = (0..=game.moves().len())
            .filter(|&i| game.position_at(i) == Some(&after))
            .count();
        if rules.can_repeat() {
            prop_assert_eq!(
                game.ended_by_repetition(),
                Some(occurrences) == rules.repeat_ends_at() && !after.is_over(),
                "repetition rule after {} moves",
                game.moves().len()
            );
        } else {
            // docs/rules.md: these games cannot repeat a position.
            prop_assert!(seen.insert(after), "{} repeats in `{}`", after, rules);
            prop_assert!(!game.ended_by_repetition());
        }
        prop_assert!(occurrences <= 3);
        prop_assert_eq!(
            game.is_over(),
            after.is_over() || game.ended_by_repetition()
        );
    }
    match game.outcome() {
        Some(o) if game.ended_by_repetition() && rules.preset == Preset::Oware => {
            // The seeds left are shared (equally, or each row to its owner).
            let p = game.position();
            let [s, n] = game.scores().map(u32::from);
            let rows = [row_seeds(p, Side::South), row_seeds(p, Side::North)];
            let [ps, pn] = p.scores().map(u32::from);
            let want = match rules.repetition {
                mancala_core::Repetition::Split => {
                    let half = (rows[0] + rows[1]) / 2;
                    [ps + half, pn + half]
                }
                mancala_core::Repetition::OwnRow => [ps + rows[0], pn + rows[1]],
            };
            prop_assert_eq!([s, n], want);
            let w = match s.cmp(&n) {
                core::cmp::Ordering::Greater => Outcome::Win(Side::South),
                core::cmp::Ordering::Less => Outcome::Win(Side::North),
                core::cmp::Ordering::Equal => Outcome::Draw,
            };
            prop_assert_eq!(o, w);
        }
        Some(o) if game.ended_by_repetition() => prop_assert_eq!(o, Outcome::Draw),
        o => prop_assert_eq!(o, game.position().outcome()),
    }
    Ok(game)
}

/// Records, the movetext and JSON of a game read back to the same game.
fn check_records(game: &Game) -> Result<(), TestCaseError> {
    let rules = *game.rules();
    let rec = Record::from_game(game, Players::default());
    prop_assert_eq!(rec.start, None);
    prop_assert_eq!(rec.result.is_some(), game.is_over());

    // Text form.
    let text = rec
        .to_text()
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let back = Record::parse(&text, None)
        .map_err(|e| TestCaseError::fail(format!("{e}\n--- record:\n{text}")))?;
    prop_assert_eq!(&back.turns, &rec.turns, "turns of\n{}", text);
    prop_assert_eq!(&back, &rec, "record\n{}", text);
    let with_rules =
        Record::parse(&text, Some(rules)).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&with_rules, &rec);
    let (_, replayed) = Record::parse_text(&text, None, Check::Strict).unwrap();
    prop_assert_eq!(replayed.moves(), game.moves());

    // JSON.
    let json = serde_json::to_string(&rec).unwrap();
    let from_json: Record = serde_json::from_str(&json).unwrap();
    prop_assert_eq!(&from_json, &rec, "JSON {}", json);
    let g = from_json
        .replay()
        .map_err(|e| TestCaseError::fail(format!("{e}: {json}")))?;
    prop_assert_eq!(g.moves(), game.moves());
    prop_assert_eq!(g.position(), game.position());
    prop_assert_eq!(g.outcome(), game.outcome());
    prop_assert_eq!(Record::parse(&json, Some(rules)).ok(), Some(rec.clone()));

    // Bare movetext, replayed with every annotation and the final score checked.
    let movetext = notation::game_text(game);
    let mut g = Game::new(*game.start());
    notation::replay(&mut g, &movetext, Check::Strict)
        .map_err(|e| TestCaseError::fail(format!("{e}\n--- movetext:\n{movetext}")))?;
    prop_assert_eq!(g.moves(), game.moves());
    prop_assert_eq!(g.position(), game.position());
    prop_assert_eq!(g.outcome(), game.outcome());
    prop_assert_eq!(g.ended_by_repetition(), game.ended_by_repetition());
    let parsed = notation::parse(Notation::for_rules(&rules), &movetext).unwrap();
    prop_assert_eq!(parsed.turns.len(), game.turns().len());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Every variant plays a game from the same picks; every position and move is checked.
    #[test]
    fn random_games_keep_every_invariant(picks in prop::collection::vec(any::<u16>(), 0..260)) {
        for rules in variants() {
            let game = check_game(&rules, &picks)?;
            check_records(&game)?;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Parsers never panic, and what parses round-trips.

/// Pieces of every grammar the parsers read, so random strings reach deep paths.
const TOKENS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "12",
    "30",
    "255",
    "256",
    "99999999999",
    "a",
    "b",
    "c",
    "d",
    "e",
    "f",
    "g",
    "h",
    "p",
    "z",
    "A",
    "B",
    "C",
    "D",
    "E",
    "F",
    "G",
    "H",
    "-",
    "(",
    ")",
    "+",
    ";",
    ".",
    "...",
    ":",
    " : ",
    "/",
    "c",
    " ",
    "  ",
    "\n",
    "\r\n",
    "\t",
    "[",
    "]",
    "\"",
    ",",
    "=",
    "!",
    "?",
    "…",
    "é",
    "\u{0}",
    "{",
    "}",
    "s",
    "n",
    "S",
    "N",
    "kalah",
    "kauri",
    "dracala",
    "vaccean",
    "cross-kalah",
    "kalah-brazil",
    "seeds=",
    "pits=",
    "capture=",
    "end=",
    "leftovers=",
    "stage=",
    "stop-when-decided",
    "=true",
    "=false",
    "standard",
    "empty",
    "opposite-only",
    "any-row-empty",
    "mover-empty",
    "to-owner",
    "not-counted",
    "last-mover",
    "last-capturer",
    "basic",
    "extra-turn",
    "full",
    "[Variant \"",
    "[Position \"",
    "[South \"",
    "\"]\n",
    "5c1",
    "0c2",
    "(+1)",
    "(-2)",
    "(+1;-1)",
    "1. ",
    "38 : 26",
    "{\"rules\":",
    "\"turns\":[",
    "\"pit\":",
    "null",
];

fn token_string() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..48).prop_map(|t| t.concat())
}

/// Valid texts of each kind (position strings, rules, movetext, records, JSON) reached by
/// random play, then damaged by a few random edits.
fn mutated_text() -> impl Strategy<Value = String> {
    let edits = prop::collection::vec((any::<usize>(), 0u8..5, prop::sample::select(TOKENS)), 0..6);
    (
        0usize..,
        prop::collection::vec(any::<u16>(), 0..80),
        0u8..6,
        edits,
    )
        .prop_map(|(v, picks, kind, edits)| {
            let all = variants();
            let rules = all[v % all.len()];
            let game = play(&rules, &picks);
            let rec = Record::from_game(&game, Players::default());
            let text = match kind {
                0 => game.position().to_string(),
                1 => rules.to_string(),
                2 => notation::game_text(&game),
                3 => rec.to_text().unwrap(),
                4 => serde_json::to_string(&rec).unwrap(),
                _ => serde_json::to_string(&rules).unwrap(),
            };
            let mut chars: Vec<char> = text.chars().collect();
            for (at, op, tok) in edits {
                let len = chars.len();
                let i = at % (len + 1);
                match op {
                    0 => {
                        chars.splice(i..i, tok.chars());
                    }
                    1 if i < len => {
                        chars.remove(i);
                    }
                    2 if i < len => {
                        chars.splice(i..i + 1, tok.chars());
                    }
                    3 => {
                        let j = (i + 1 + at % 7).min(len);
                        chars.drain(i..j);
                    }
                    _ => {
                        let j = (i + 1 + at % 9).min(len);
                        let copy: Vec<char> = chars[i..j].to_vec();
                        chars.splice(i..i, copy);
                    }
                }
            }
            chars.into_iter().collect()
        })
}

/// Runs every parser on `s`; where one succeeds, its result must print and parse back.
fn parse_everything(s: &str) -> Result<(), TestCaseError> {
    if let Ok(p) = s.parse::<Position>() {
        let text = p.to_string();
        prop_assert_eq!(
            text.parse::<Position>().ok(),
            Some(p),
            "`{}` from `{}`",
            text,
            s
        );
        // A parsed position is a legal one: the invariants of play hold there too.
        check_position(&p, false)?;
        for pit in &p.legal_moves() {
            let mut q = p;
            let e = q.play(pit).unwrap();
            check_move(&p, &q, e)?;
            check_position(&q, true)?;
        }
    }
    if let Ok(r) = s.parse::<Rules>() {
        prop_assert_eq!(r.to_string().parse::<Rules>().ok(), Some(r));
        prop_assert!(Position::start(&r).is_ok());
        let _ = r.describe();
    }
    let _ = serde_json::from_str::<Rules>(s);
    let _ = serde_json::from_str::<Position>(s);
    for n in [Notation::Letters, Notation::Digits, Notation::Kauri] {
        let _ = notation::parse(n, s);
    }
    for rules in [
        None,
        Some(Preset::Kalah.rules()),
        Some(Preset::Dracala.rules()),
        Some(Preset::Kauri.rules()),
    ] {
        if let Ok(rec) = Record::parse(s, rules) {
            let game = rec.replay().unwrap();
            let text = rec.to_text().unwrap();
            let back = Record::parse(&text, None).map_err(|e| {
                TestCaseError::fail(format!("{e}\n--- from\n{s}\n--- printed\n{text}"))
            })?;
            prop_assert_eq!(
                &back
                    .turns
                    .iter()
                    .map(|t| (t.side, t.moves.iter().map(|m| m.pit).collect::<Vec<_>>()))
                    .collect::<Vec<_>>(),
                &rec.turns
                    .iter()
                    .map(|t| (t.side, t.moves.iter().map(|m| m.pit).collect::<Vec<_>>()))
                    .collect::<Vec<_>>()
            );
            let replayed = back.replay().unwrap();
            prop_assert_eq!(replayed.position(), game.position());
        }
        for check in [Check::Strict, Check::MovesOnly] {
            if let Some(r) = rules {
                let _ = Record::parse_text(s, Some(r), check);
                let mut g = Game::from_rules(&r).unwrap();
                let _ = notation::replay(&mut g, s, check);
            }
        }
    }
    Ok(())
}

/// Any setup of pits, stores, side and last capturer: every family builds a position or says
/// why not, never panics, and a position it builds gives back the same setup.
fn check_setup(rules: &Rules, setup: &Setup) -> Result<(), TestCaseError> {
    if let Ok(p) = Position::from_setup(rules, setup) {
        prop_assert_eq!(&p.setup(), setup, "{}", p);
        check_position(&p, false)?;
    }
    Ok(())
}

fn small_pit() -> impl Strategy<Value = (u16, u8)> {
    (
        prop_oneof![0u16..6, 0u16..300, any::<u16>()],
        prop_oneof![Just(0u8), 0u8..3, any::<u8>()],
    )
}

fn side() -> impl Strategy<Value = Option<Side>> {
    prop_oneof![Just(None), Just(Some(Side::South)), Just(Some(Side::North))]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn setups_never_panic(
        k in any::<prop::sample::Index>(),
        south in prop::collection::vec(small_pit(), 0..10),
        north in prop::collection::vec(small_pit(), 0..10),
        stores in (
            prop_oneof![0u16..40, 0u16..600, any::<u16>()],
            prop_oneof![0u16..40, 0u16..600, any::<u16>()]
        ),
        to_move in side(),
        last_capturer in side(),
        opening in prop::sample::select(mancala_core::Opening::ALL.to_vec()),
    ) {
        let all = variants();
        let rules = all[k.index(all.len())];
        let setup = Setup {
            rows: [south, north],
            stores: [stores.0, stores.1],
            to_move,
            last_capturer,
            opening,
        };
        check_setup(&rules, &setup)?;
    }

    /// A seed moved between two pits of a played position, the side to move perhaps
    /// changed: a position of the family (checked), or an error saying why.
    #[test]
    fn moved_seeds_give_a_position_or_a_reason(
        picks in prop::collection::vec(any::<u16>(), 0..60),
        k in any::<prop::sample::Index>(),
        from in any::<prop::sample::Index>(),
        to in any::<prop::sample::Index>(),
        flip in any::<bool>(),
    ) {
        let all = variants();
        let rules = all[k.index(all.len())];
        let game = play(&rules, &picks);
        let mut setup = game.position().setup();
        let m = rules.pits as usize;
        let (f, t) = (from.index(2 * m), to.index(2 * m));
        if setup.rows[f / m][f % m].0 > 0 {
            setup.rows[f / m][f % m].0 -= 1;
            setup.rows[t / m][t % m].0 += 1;
        }
        if flip {
            setup.to_move = setup.to_move.map(Side::other);
        }
        check_setup(&rules, &setup)?;
    }

    #[test]
    fn parsers_never_panic_on_any_string(s in any::<String>()) {
        parse_everything(&s)?;
    }

    #[test]
    fn parsers_never_panic_on_grammar_strings(s in token_string()) {
        parse_everything(&s)?;
    }

    #[test]
    fn parsers_never_panic_on_damaged_valid_texts(s in mutated_text()) {
        parse_everything(&s)?;
    }
}

// ---------------------------------------------------------------------------------------------
// The repetition rule (docs/rules.md): the third occurrence of a position, same side to move,
// ends Cross-Kalah and Kauri games as a draw.

/// Plays `moves` (own pits, 0-based) from `start`; the last one must make the third
/// occurrence of a position, and nothing before it may end the game.
fn assert_third_repetition(start: Position, moves: &[u8]) {
    let mut game = Game::new(start);
    for (k, &pit) in moves.iter().enumerate() {
        assert!(!game.is_over(), "the game ended before move {}", k + 1);
        game.play(pit)
            .unwrap_or_else(|e| panic!("move {}: {e}", k + 1));
    }
    let last = *game.position();
    assert!(game.ended_by_repetition(), "{last}");
    assert!(game.is_over());
    assert!(
        !last.is_over(),
        "the position itself is live: the game ends by the rule"
    );
    assert_eq!(game.outcome(), Some(Outcome::Draw));
    assert!(game.legal_moves().is_empty());
    assert_eq!(
        game.play(last.legal_moves().as_slice()[0]),
        Err(mancala_core::Error::GameOver)
    );
    let occurrences: Vec<usize> = (0..=moves.len())
        .filter(|&k| game.position_at(k) == Some(&last))
        .collect();
    assert_eq!(occurrences.len(), 3, "{last} occurs at {occurrences:?}");
    assert_eq!(*occurrences.last().unwrap(), moves.len());
    // No position occurred three times earlier.
    for k in 0..moves.len() {
        let p = game.position_at(k).unwrap();
        let n = (0..=k).filter(|&i| game.position_at(i) == Some(p)).count();
        assert!(n < 3, "{p} occurred three times by move {k}");
    }
    // The record says so and reads back to the same draw.
    let rec = Record::from_game(&game, Players::default());
    let result = rec.result.clone().unwrap();
    assert_eq!(result.winner, None);
    assert_eq!(result.reason.as_deref(), Some("third repetition"));
    let text = rec.to_text().unwrap();
    let back = Record::parse(&text, None).unwrap();
    assert_eq!(back, rec);
    assert!(back.replay().unwrap().ended_by_repetition());
}

#[test]
fn cross_kalah_from_the_start_ends_by_third_repetition() {
    // Found by seeded random play of the `cross-kalah` preset (6 seeds a pit). From move 41
    // the players shuffle single seeds along their rows without touching a store.
    let moves = [
        5, 3, 3, 2, 5, 5, 2, 3, 4, 3, 0, 4, 4, 5, 0, 3, 3, 4, 2, 0, 3, 2, 2, 4, 5, 5, 2, 0, 5, 3,
        3, 4, 4, 5, 0, 5, 3, 4, 5, 3, 2, 4, 4, 5, 3, 4, 4, 3, 5, 4, 4, 5, 3, 4, 4, 3, 5,
    ];
    assert_third_repetition(
        Position::start(&Preset::CrossKalah.rules()).unwrap(),
        &moves,
    );
}

#[test]
fn cross_kalah_two_seed_cycle_ends_by_third_repetition() {
    // Each side: pit 1 (2 seeds, even: counter-clockwise) to pits 2 and 3, then single seeds
    // (odd: clockwise) step back 3 -> 2 and 2 -> 1 ... the start comes back every 8 moves.
    let start: Position = "cross-kalah/2-0-0-0-0-0/34/2-0-0-0-0-0/34/s"
        .parse()
        .unwrap();
    let cycle = [0, 0, 1, 1, 2, 2, 1, 1];
    assert_third_repetition(start, &[cycle, cycle].concat());
}

#[test]
fn kauri_from_the_start_ends_by_third_repetition() {
    // `kauri,pits=2,seeds=1` from its start, found by seeded random play.
    let moves = [0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0];
    assert_third_repetition(
        Position::start(&"kauri,pits=2,seeds=1".parse().unwrap()).unwrap(),
        &moves,
    );
}

#[test]
fn kauri_tie_played_on_with_cowries_ends_by_third_repetition() {
    // 30 : 30 with no seeds left: the game goes on with the cowries (docs/rules.md), and the
    // cowries come back to their places every 12 moves.
    let start: Position = "kauri/0c2-0c2-0c2-0-0-0/30/0c2-0c2-0c2-0-0-0/30/s"
        .parse()
        .unwrap();
    let cycle = [0, 0, 2, 2, 1, 1, 3, 3, 4, 4, 5, 5];
    assert_third_repetition(start, &[cycle, cycle].concat());
}

// ---------------------------------------------------------------------------------------------
// Regressions: faults these properties found in the core code, each pinned by a fixed case.

#[test]
fn a_position_after_a_store_gain_reads_back_equal() {
    // The last capturer was tracked under every leftovers rule but printed only under
    // `last-capturer`, so any position after a store gain parsed back different.
    let mut p = Position::start(&"kalah,seeds=4".parse().unwrap()).unwrap();
    p.play(2).unwrap();
    let text = p.to_string();
    assert_eq!(text, "kalah,seeds=4/4-4-0-5-5-5/1/4-4-4-4-4-4/0/s");
    assert_eq!(text.parse::<Position>().unwrap(), p);
    // Under `last-capturer` it is part of the position and of its string.
    let mut p = Position::start(&"kalah,seeds=4,leftovers=last-capturer".parse().unwrap()).unwrap();
    p.play(2).unwrap();
    assert!(p.to_string().ends_with("/s/s"));
    assert_eq!(p.to_string().parse::<Position>().unwrap(), p);
}

#[test]
fn finished_positions_read_back_equal() {
    // A finished position prints `-` for the side to move; the side that would have moved
    // next is not part of it.
    let p: Position = "kalah/0-0-0-0-0-0/14/0-0-0-0-0-0/22/-".parse().unwrap();
    assert!(p.is_over());
    assert_eq!(p.outcome(), Some(Outcome::Win(Side::North)));
    assert_eq!(p, p.mirrored().mirrored());
    assert_eq!(
        p.mirrored().to_string(),
        "kalah/0-0-0-0-0-0/22/0-0-0-0-0-0/14/-"
    );
    // Kauri at 30 : 30 with no seeds: North, to move without a cowrie, lost. Its string
    // used to be refused ("no end rule holds"), as the parser took the side to be South.
    let start: Position = "kauri/0c2-0c2-0c2-0-0-0/30/0c2-0c2-0c2-0-0-0/30/s"
        .parse()
        .unwrap();
    let mut game = Game::new(start);
    for pit in [2, 2, 4, 0, 3, 1, 4, 2, 1, 3, 3, 4, 4, 5, 0] {
        game.play(pit).unwrap();
    }
    let end = *game.position();
    assert!(end.is_over());
    assert_eq!(end.to_move(), Side::North);
    assert_eq!(end.outcome(), Some(Outcome::Win(Side::South)));
    let text = end.to_string();
    assert_eq!(text, "kauri/0-0c3-0c3-0c1-0c1-0c4/30/0-0-0-0-0-0/30/-");
    let back: Position = text.parse().unwrap();
    assert_eq!(back, end);
    assert_eq!(back.outcome(), Some(Outcome::Win(Side::South)));
    // And the mirror: South without a cowrie lost.
    let m: Position = "kauri/0-0-0-0-0-0/30/0-0c3-0c3-0c1-0c1-0c4/30/-"
        .parse()
        .unwrap();
    assert_eq!(m, end.mirrored());
    assert_eq!(m.outcome(), Some(Outcome::Win(Side::North)));
}

#[test]
fn finished_positions_must_be_reachable() {
    for text in [
        // No row empty, nothing decided.
        "kalah-brazil/1-1-1-1-1-1/15/1-1-1-1-1-1/13/-",
        "kalah,leftovers=not-counted/1-1-1-1-1-1/12/1-1-1-1-1-1/12/-",
        // South's row is empty, but `to-owner` would have swept North's seeds to North.
        "kalah/0-0-0-0-0-0/18/1-1-1-1-1-1/12/-",
    ] {
        let e = text.parse::<Position>().unwrap_err().to_string();
        assert!(e.contains("marked finished"), "{text}: {e}");
    }
    // Reachable ones still parse: North to move with an empty row (mover-empty, not counted).
    let p: Position = "kalah-brazil/1-1-1-0-1-0/21/0-0-0-0-0-0/15/-"
        .parse()
        .unwrap();
    assert_eq!(p.outcome(), Some(Outcome::Win(Side::South)));
    // Decided early: the seeds on the board count for nobody.
    let p: Position = "dracala/1-1-1-1-1-1/37/1-1-1-1-1-1/23/-".parse().unwrap();
    assert_eq!(
        p.outcome(),
        Some(Outcome::Win(Side::North)),
        "misere: more than half loses"
    );
}

#[test]
fn an_annotation_starting_with_a_wide_character_is_an_error() {
    // `(…6)` made the annotation reader split inside a character and panic.
    for (n, text) in [
        (Notation::Letters, "A (…6)"),
        (Notation::Digits, "1 (…6)"),
        (Notation::Kauri, "a (…6)"),
    ] {
        let e = notation::parse(n, text).unwrap_err().to_string();
        assert!(e.contains("is not `+n` or `-n`"), "{text}: {e}");
    }
}

#[test]
fn player_names_are_written_so_that_the_record_reads_back() {
    // A name holding a newline broke its tag line: the printed record did not parse.
    let game = play(&Preset::Kalah.rules(), &[1, 2, 3]);
    let players = Players {
        south: Some("Ann\n1. A".into()),
        north: Some("Bob \"the\" Builder\tII".into()),
    };
    let rec = Record::from_game(&game, players);
    let text = rec.to_text().unwrap();
    let back = Record::parse(&text, None).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back.turns, rec.turns);
    assert_eq!(back.players.south.as_deref(), Some("Ann 1. A"));
    assert_eq!(back.players.north.as_deref(), Some("Bob 'the' Builder II"));
}
