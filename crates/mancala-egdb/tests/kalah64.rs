//! Kalah(6,4) proved with the tables: empty capture +10, standard +8. Slow (minutes): run with
//! `cargo test --release -p mancala-egdb --test kalah64 -- --ignored --nocapture`.
//! Tables go to `$MANCALA_EGDB_DIR` (default: a directory under the system temp dir; a
//! build is resumable, so a second run reuses them) up to `$MANCALA_EGDB_SEEDS` (default 16).

use mancala_core::{KalahRules, Position, Rules};
use mancala_egdb::{build, BuildOptions, Egdb, TableRules};
use mancala_engine::{Engine, Limits};
use std::sync::Arc;

fn prove(spec: &str, want: i32) {
    let dir = std::env::var("MANCALA_EGDB_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| std::env::temp_dir().join("mancala-egdb-kalah6"));
    let seeds: u32 = std::env::var("MANCALA_EGDB_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(16);
    let r: Rules = spec.parse().unwrap();
    let tr = TableRules::new(&KalahRules::new(&r).unwrap()).unwrap();
    let rep = build(
        tr,
        &BuildOptions {
            dir: dir.clone(),
            max_seeds: seeds,
            progress: false,
            memory_limit: None,
        },
    )
    .unwrap();
    let built = rep.built.iter().fold(0.0, |t, b| t + b.2);
    let mut e = Engine::new(512, 2);
    e.oracle = Some(Arc::new(Egdb::open(&dir).unwrap()));
    let s = e
        .solve(&Position::start(&r).unwrap(), Limits::default(), &[])
        .unwrap();
    println!(
        "{spec}: {:+}, {} nodes, {} oracle hits, {:.1} s (tables to {seeds} seeds, built now in {built:.1} s)",
        s.value,
        s.nodes,
        s.oracle_hits,
        s.elapsed.as_secs_f64()
    );
    assert_eq!(s.value, want, "{spec}");
}

#[test]
#[ignore]
fn kalah_6_4_empty_capture_is_plus_10() {
    prove("kalah,seeds=4,capture=empty", 10);
}

#[test]
#[ignore]
fn kalah_6_4_standard_is_plus_8() {
    prove("kalah,seeds=4", 8);
}
