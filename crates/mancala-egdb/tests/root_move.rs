//! Where the endgame tables value the root itself, the engine still searches its moves: the
//! best move it reports and plays is a move that reaches the tables' value, never simply the
//! first legal one (which the tables' value alone would have left it with).

use mancala_core::{KalahRules, Position, Rules};
use mancala_egdb::{build, BuildOptions, Egdb, TableRules};
use mancala_engine::{Engine, Level, Limits};
use std::sync::Arc;

#[test]
fn a_tabled_root_gets_its_best_move() {
    let dir = tempfile::tempdir().unwrap();
    let r: Rules = "kalah".parse().unwrap();
    let tr = TableRules::new(&KalahRules::new(&r).unwrap()).unwrap();
    let opts = BuildOptions {
        dir: dir.path().to_path_buf(),
        max_seeds: 12,
        progress: false,
        memory_limit: None,
    };
    build(tr, &opts).unwrap();
    let db = Arc::new(Egdb::open(dir.path()).unwrap());
    // Proven with `solve --openings`: F-E +6 (A, the first legal move, is -2); D +6 (C is
    // worse); and the first position seen from North.
    for (pos, best) in [
        ("kalah/1-1-0-2-1-1/12/2-0-1-0-2-1/12/s", 5),
        ("kalah/0-0-1-2-0-0/16/1-0-0-0-3-1/12/s", 3),
        ("kalah/2-0-1-0-2-1/12/1-1-0-2-1-1/12/n", 5),
    ] {
        let pos: Position = pos.parse().unwrap();
        let mut engine = Engine::new(16, 1);
        engine.oracle = Some(db.clone());
        for limits in [
            Limits {
                depth: Some(8),
                ..Limits::default()
            },
            Limits {
                time: Some(std::time::Duration::from_millis(100)),
                ..Limits::default()
            },
        ] {
            let r = engine.search(&pos, limits, &[]).unwrap();
            assert_eq!(r.best, best, "{pos}");
            assert_eq!(r.eval.margin, 6, "{pos}");
            assert!(r.eval.is_proven(), "{pos}");
            // The best line is read on out of the tables to the end of the game, and it
            // reaches the proven value.
            let mut end = pos;
            for &mv in &r.pv {
                end.play(mv).unwrap();
            }
            assert!(end.is_over(), "{pos}: line {:?} stops before the end", r.pv);
            assert_eq!(mancala_engine::margin(&end, pos.to_move()), 6, "{pos}");
        }
        for level in 5..=8 {
            let mut lv = Level::new(level).unwrap();
            lv.time = lv.time.map(|_| std::time::Duration::from_millis(100));
            assert_eq!(
                lv.choose_with(&engine, &pos, &[], 1),
                Some(best),
                "level {level} at {pos}"
            );
        }
    }
}
