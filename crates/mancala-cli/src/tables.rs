//! Endgame tables for the commands: opened from `--egdb`, given to the engine as its oracle,
//! and checked for damage before a result that read them is printed.

use anyhow::Result;
use mancala_core::Position;

/// The endgame databases of `dir` as the engine's oracle; a note on stderr when they hold
/// no table of the rules of `pos` (when given).
pub fn open_egdb(
    dir: Option<&std::path::Path>,
    pos: &Position,
) -> Result<Option<std::sync::Arc<mancala_egdb::Egdb>>> {
    let Some(dir) = dir else { return Ok(None) };
    let db = mancala_egdb::Egdb::open(dir)?;
    note_if_uncovered(&db, pos);
    Ok(Some(std::sync::Arc::new(db)))
}

/// `db` as the engine's oracle.
pub fn oracle(
    db: &Option<std::sync::Arc<mancala_egdb::Egdb>>,
) -> Option<std::sync::Arc<dyn mancala_engine::Oracle + Send>> {
    db.clone()
        .map(|d| d as std::sync::Arc<dyn mancala_engine::Oracle + Send>)
}

/// The engine that plays and the one that proves, as `mancala engine` and the proof
/// benchmark make them: `tt_mb` MiB of table for the first, `think::PROOF_MB` for the second,
/// `threads` each, both probing the endgame tables of `egdb` (answered too, for
/// [`check_tables`]) and mapped in before any clock runs.
pub fn engine_and_prover(
    tt_mb: u32,
    threads: usize,
    egdb: Option<&std::path::Path>,
) -> Result<(
    mancala_engine::Engine,
    mancala_engine::Engine,
    Option<std::sync::Arc<mancala_egdb::Egdb>>,
)> {
    use mancala_engine::{think, Engine};
    let mut engine = Engine::try_new(tt_mb as usize, threads).map_err(anyhow::Error::msg)?;
    let mut prover = Engine::try_new(think::PROOF_MB, threads).map_err(anyhow::Error::msg)?;
    let db = match egdb {
        Some(dir) => Some(std::sync::Arc::new(mancala_egdb::Egdb::open(dir)?)),
        None => None,
    };
    engine.oracle = oracle(&db);
    prover.oracle = oracle(&db);
    engine.prefault();
    prover.prefault();
    Ok((engine, prover, db))
}

/// Refuses a result computed with a table whose probes read out-of-range entries.
pub fn check_tables(db: Option<&mancala_egdb::Egdb>) -> Result<()> {
    match db.and_then(mancala_egdb::Egdb::fault) {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// Says on stderr when `db` holds no table of the rules of `pos`: the search then runs
/// without them, which a user who gave `--egdb` would want to know.
fn note_if_uncovered(db: &mancala_egdb::Egdb, pos: &Position) {
    let rules = pos
        .as_kalah()
        .and_then(|k| mancala_egdb::TableRules::new(k.rules()).ok());
    let tables = rules.as_ref().is_some_and(|r| db.complete_to(r).is_some());
    let book = rules.as_ref().is_some_and(|r| db.book_of(r).is_some());
    if !tables {
        eprintln!(
            "note: {} holds no endgame table of {}: {}",
            db.dir.display(),
            pos.rules(),
            if book {
                "only its opening book is read, and positions it does not hold are searched"
            } else {
                "searching without them"
            }
        );
    }
}
