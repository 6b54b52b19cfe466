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
    if rules.is_none_or(|r| db.complete_to(&r).is_none()) {
        eprintln!(
            "note: {} holds no endgame table of {}: searching without them",
            db.dir.display(),
            pos.rules()
        );
    }
}
