use std::time::Duration;

use mancala_core::i18n::Lang;
use mancala_core::{Game, PlayedMove, Position, Preset, Side};

use super::*;

/// The menus come in the language asked for; a result's reason is a key and arguments
/// that read in every language, the English one as `reason`.
#[test]
fn menus_and_reasons_in_other_languages() {
    let v = variants(Lang::Es);
    assert_eq!(v.presets[1].title, "Kalah de las aulas brasileñas");
    let end = v.presets[0]
        .options
        .iter()
        .find(|o| o.name == "end")
        .unwrap();
    assert_eq!(end.title, "Fin de la partida");
    let why = Message::new(
        "result.decided",
        &[
            ("side", serde_json::json!("north")),
            ("seeds", serde_json::json!(37)),
            ("total", serde_json::json!(72)),
        ],
    );
    assert_eq!(
        why.text(Lang::En),
        "decided: North holds more than half of the seeds (37 of 72)"
    );
    assert_eq!(
        why.text(Lang::It),
        "decisa: Nord ha più della metà dei semi (37 su 72)"
    );
    assert_eq!(
        why.text(Lang::Pt),
        "decidido: Norte tem mais da metade das sementes (37 de 72)"
    );
}

/// The view of `pit` played in the position string `p`.
fn played(p: &str, pit: u8) -> MoveView {
    let before: Position = p.parse().unwrap();
    let mut after = before;
    let effect = after.play(pit).unwrap();
    let mv = PlayedMove {
        side: before.to_move(),
        pit,
        effect,
    };
    move_view(&before, &after, &mv, 0)
}

#[test]
fn a_kauri_cowrie_captures_only_where_the_opponent_has_none() {
    // Kauri's start: the cowrie falls on North's first pit, which holds a cowrie: nothing
    // is captured (the pit gains a cowrie, not a seed).
    let v = played(
        "kauri/5c1-5c1-5c1-5c1-5c1-5c1/0/5c1-5c1-5c1-5c1-5c1-5c1/0/s",
        0,
    );
    assert_eq!(
        (v.path.clone(), v.cowries_from),
        (vec![1, 2, 3, 4, 5, 7], 5)
    );
    assert_eq!((v.taken, v.swept, v.captured), (vec![], vec![], 0));
    // South's cowrie falls on North's first pit, two seeds and no cowrie: a capture.
    let v = played("kauri,pits=2,seeds=1/0c1-0c1/1/2-0c2/1/s", 1);
    assert_eq!(
        (v.taken, v.swept, v.captured, v.handed),
        (vec![3], vec![], 2, 0)
    );
    // South's seed falls on North's cowries alone and goes to North's store (handed, that
    // pit keeps its count), then the cowrie captures the five seeds of the next pit.
    let v = played("kauri,pits=3,seeds=2/0c1-0c1-1c1/0/0c2-5-0c1/6/s", 2);
    assert_eq!((v.handed, v.captured), (1, 5));
    assert_eq!((v.taken, v.swept), (vec![5], vec![]));
}

#[test]
fn the_end_sweep_is_no_capture() {
    // South's last seed reaches his store and empties his row: North's seeds go to North.
    let v = played("kalah/0-0-0-0-0-1/10/3-3-3-3-3-3/7/s", 5);
    assert!(v.ended && v.captured == 0);
    assert_eq!(v.taken, Vec::<usize>::new());
    assert_eq!(v.swept, vec![7, 8, 9, 10, 11, 12]);
    // A capture that ends the game: the capturing pit and the one opposite are taken, the
    // rest of North's row is swept.
    let v = played("kalah/0-0-0-1-0-0/10/1-2-3-0-0-2/17/s", 3);
    assert!(v.ended && v.captured == 3);
    assert_eq!(v.taken, vec![4, 8]);
    assert_eq!(v.swept, vec![7, 9, 12]);
    // The same on a board of more than 240 seeds (`u16` counts): a capture is taken,
    // the end sweep swept.
    let v = played(
        "kalah,pits=12,seeds=20/1-0-0-0-0-0-0-0-0-0-0-0/100/0-0-0-0-0-0-0-0-0-0-300-0/79/s",
        0,
    );
    assert_eq!((v.taken, v.swept, v.captured), (vec![1, 23], vec![], 301));
    let v = played(
        "kalah,pits=12,seeds=20/0-0-0-0-0-0-0-0-0-0-0-1/230/5-5-0-0-0-0-0-0-0-0-0-0/239/s",
        11,
    );
    assert!(v.ended && v.captured == 0);
    assert_eq!((v.taken, v.swept), (vec![], vec![13, 14]));
}

#[test]
fn misere_analysis_calls_the_lowest_margin_best() {
    // Dracala, fewer seeds win: every judged move's loss is the best move's score (good
    // for the mover) minus its own, never negative, and a move with no choice loses
    // nothing.
    let text = include_str!("../../../../examples/records/dracala-tavares-gering.txt");
    let game = mancala_core::Record::parse(text, None)
        .unwrap()
        .replay()
        .unwrap();
    let values = analysis(&game, Duration::from_millis(40), Duration::from_secs(30));
    let mut judged = 0;
    for (k, v) in values.iter().enumerate() {
        let (Some(played), Some(best)) = (v.played, v.best) else {
            continue;
        };
        judged += 1;
        assert!(played.lower_is_better && best.lower_is_better);
        assert_eq!(played.side, game.moves()[k].side);
        assert!(
            best.score() >= played.score() || v.loss.is_none(),
            "ply {k}"
        );
        if let Some(loss) = v.loss {
            assert_eq!(loss, best.score() - played.score(), "ply {k}");
        }
        if game.position_at(k).unwrap().legal_moves().len() == 1 {
            assert_eq!(v.loss, Some(0), "ply {k}: a forced move");
        }
    }
    assert!(judged > 30, "{judged} of {} moves judged", values.len());
    // The last move (South's, forced to a 38 : 26 loss) is valued -12 for South.
    let last = values.last().unwrap().played.unwrap();
    assert_eq!(
        (last.side, last.score(), last.margin),
        (Side::South, -12, 12)
    );
}

#[test]
fn a_result_says_who_won_by_how_much_and_why() {
    let mut g = Game::new("kalah/0-0-0-0-0-1/17/3-3-0-0-0-0/12/s".parse().unwrap());
    g.play(5).unwrap();
    let r = result(&g, None).unwrap();
    assert_eq!((r.south, r.north, r.winner), (18, 18, None));
    assert_eq!(
        r.reason,
        "no moves left: the seeds left went to their owners"
    );
    assert_eq!(r.outcome.as_deref(), Some("a draw"));
    let text = include_str!("../../../../examples/records/dracala-tavares-gering.txt");
    let g = mancala_core::Record::parse(text, None)
        .unwrap()
        .replay()
        .unwrap();
    let r = result(&g, None).unwrap();
    assert_eq!(r.winner, Some("north"));
    assert_eq!(
        r.outcome.as_deref(),
        Some("South loses by 12 (fewer seeds win)")
    );
    let r = result(&g, Some(Stop::Resigned(Side::North))).unwrap();
    assert_eq!(
        (r.winner, r.reason.as_str()),
        (Some("south"), "North resigned")
    );
}

#[test]
fn every_move_has_a_sowing_path() {
    for preset in Preset::ALL {
        let mut g = Game::from_rules(&preset.rules()).unwrap();
        while !g.is_over() && g.moves().len() < 40 {
            let mv = g.legal_moves().as_slice()[g.moves().len() % g.legal_moves().len()];
            let before = *g.position();
            g.play(mv).unwrap();
            let v = move_view(&before, g.position(), g.moves().last().unwrap(), 0);
            assert!(!v.path.is_empty(), "{preset:?}");
        }
    }
}
