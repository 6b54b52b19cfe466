//! `mancala.Egdb`: the endgame tables read in place, their values and best moves; and the
//! tables that the engine's functions open (`egdb=DIR`).

use std::path::PathBuf;
use std::sync::Arc;

use mancala_core::Position;
use mancala_egdb::Oracle as _;
use mancala_engine::{Evaluation, Quality};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::convert::{eval_dict, value_error};
use crate::game::live_position_arg;

/// Why the endgame tables cannot read `pos`.
fn uncovered(pos: &Position) -> String {
    if pos.rules().preset.is_kalah_family() {
        format!(
            "the tables read positions of at most {} seeds in all; this one holds {}",
            mancala_core::rules::MAX_TOTAL_SEEDS,
            pos.rules().total_seeds()
        )
    } else {
        "the tables cover Kalah-family games only".into()
    }
}

/// The endgame tables of `dir` (built by `mancala egdb build`), or `None` where no folder
/// is given. A folder without a table is refused: every probe of it would answer `None`.
pub(crate) fn open_egdb(dir: Option<PathBuf>) -> PyResult<Option<Arc<mancala_egdb::Egdb>>> {
    dir.map(|d| open_tables(&d).map(Arc::new)).transpose()
}

/// The tables of `dir`; `ValueError` for a folder that holds none.
fn open_tables(dir: &std::path::Path) -> PyResult<mancala_egdb::Egdb> {
    let db = mancala_egdb::Egdb::open(dir).map_err(value_error)?;
    if db.tables().next().is_none() {
        return Err(PyValueError::new_err(format!(
            "no endgame tables in {}: build them with `mancala egdb build --dir {}`",
            dir.display(),
            dir.display()
        )));
    }
    Ok(db)
}

/// Refuses a result computed with a table whose probes read out-of-range entries.
pub(crate) fn check_tables(db: Option<&mancala_egdb::Egdb>) -> PyResult<()> {
    match db.and_then(mancala_egdb::Egdb::fault) {
        Some(e) => Err(value_error(e)),
        None => Ok(()),
    }
}

/// Endgame tables (`mancala egdb build --dir DIR`), read in place; a folder without a
/// table is refused.
#[pyclass(module = "mancala")]
pub struct Egdb {
    db: Arc<mancala_egdb::Egdb>,
}

#[pymethods]
impl Egdb {
    #[new]
    fn new(dir: PathBuf) -> PyResult<Egdb> {
        Ok(Egdb {
            db: Arc::new(open_tables(&dir)?),
        })
    }

    /// The exact value of a position (string or `Game`) for its side to move, as the
    /// Evaluation's fields (proven), or `None` where neither a table nor the opening book
    /// (`mancala egdb book`) holds it. `ValueError` for a finished game or rules the tables
    /// cannot cover.
    fn value<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let (pos, _) = live_position_arg(position)?;
        let k = pos
            .as_kalah()
            .ok_or_else(|| PyValueError::new_err(uncovered(&pos)))?;
        mancala_egdb::TableRules::new(k.rules()).map_err(value_error)?;
        let net = self.db.net(k);
        check_tables(Some(&self.db))?;
        let Some(net) = net else { return Ok(None) };
        let me = k.to_move();
        let banked = k.store(me) as i32 - k.store(me.other()) as i32;
        let e = Evaluation {
            side: me,
            margin: banked + net,
            lower_is_better: pos.rules().misere(),
            decided_ties: false,
            quality: Quality::Proven,
        };
        eval_dict(py, &e).map(Some)
    }

    /// The moves (pits) that reach the position's value, or `None` where the tables do not
    /// hold the position and every position after a move.
    fn best_moves(&self, position: &Bound<'_, PyAny>) -> PyResult<Option<Vec<u32>>> {
        let (pos, _) = live_position_arg(position)?;
        let k = pos
            .as_kalah()
            .ok_or_else(|| PyValueError::new_err(uncovered(&pos)))?;
        let (net, values) = (self.db.net(k), self.db.move_values(k));
        check_tables(Some(&self.db))?;
        Ok(net.zip(values).map(|(net, v)| {
            v.iter()
                .filter(|m| m.1 == net)
                .map(|m| m.0 as u32)
                .collect()
        }))
    }

    /// The folder the tables are read from.
    #[getter]
    fn dir(&self) -> String {
        self.db.dir.display().to_string()
    }
}
