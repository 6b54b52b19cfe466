//! The engine for Python: `analyze` (a search, or every move's value) and `mancala.Level`,
//! the computer's playing levels.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mancala_engine::{Budget, Engine, Limits, Quality};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::{eval_dict, pits};
use crate::game::live_position_arg;
use crate::tables::{check_tables, open_egdb};

/// An engine with a table of `tt_mb` MiB and `threads` threads that probes the tables `db`
/// where given: `ValueError` for another thread count than 1 to 256.
pub(crate) fn engine(
    tt_mb: usize,
    threads: usize,
    db: &Option<Arc<mancala_egdb::Egdb>>,
) -> PyResult<Engine> {
    if !(1..=256).contains(&threads) {
        return Err(PyValueError::new_err(format!(
            "threads = {threads}: give 1 to 256"
        )));
    }
    let mut e = Engine::try_new(tt_mb, threads).map_err(PyRuntimeError::new_err)?;
    e.oracle = db
        .clone()
        .map(|d| d as Arc<dyn mancala_engine::Oracle + Send>);
    Ok(e)
}

/// Searches a position (a position string, or a `Game`, whose earlier positions count for the
/// repetition rule) for `time_ms` milliseconds, or to `depth` plies when given. Returns a dict:
/// `best` (pit), `value` (the Evaluation's fields, for the side to move: proven, or a search's
/// at `depth`), `pv`, `depth`, `nodes`, `seconds`. With `all_moves`, the analysis board's
/// policy instead (`mancala analyze --all-moves`, the server's board: the same time spent):
/// `moves`, every legal move's `{"pit", "value", "loss"}` best first, `best` and `value` the
/// best move's, `pv` the best line, `depth` the best value's depth (its line's length where
/// proven), and `nodes` None (the policy does not count them).
#[pyfunction]
#[pyo3(signature = (position, time_ms=1000, depth=None, threads=1, tt_mb=64, egdb=None, all_moves=false))]
#[allow(clippy::too_many_arguments)]
pub fn analyze<'py>(
    py: Python<'py>,
    position: &Bound<'py, PyAny>,
    time_ms: u64,
    depth: Option<u32>,
    threads: usize,
    tt_mb: usize,
    egdb: Option<PathBuf>,
    all_moves: bool,
) -> PyResult<Bound<'py, PyDict>> {
    if depth == Some(0) {
        return Err(PyValueError::new_err("depth = 0: give 1 ply or more"));
    }
    // The clock starts here: opening the tables and making the table count.
    let budget = Budget::from(Limits {
        depth,
        time: Some(Duration::from_millis(time_ms)).filter(|_| depth.is_none()),
        nodes: None,
    });
    let (pos, history) = live_position_arg(position)?;
    let db = open_egdb(egdb)?;
    let engine = engine(tt_mb, threads, &db)?;
    if all_moves {
        let a = py.detach(|| mancala_engine::think::analyse(&engine, &pos, &history, budget));
        check_tables(db.as_deref())?;
        let best = a
            .best
            .ok_or_else(|| PyValueError::new_err("no legal move"))?;
        let d = PyDict::new(py);
        d.set_item("position", pos.to_string())?;
        d.set_item("best", best.pit)?;
        d.set_item("value", eval_dict(py, &best.eval)?)?;
        d.set_item("pv", pits(&a.line))?;
        let depth = match best.eval.quality {
            Quality::Proven => a.line.len() as u32,
            Quality::Searched { depth } => depth,
        };
        d.set_item("depth", depth)?;
        d.set_item("nodes", py.None())?;
        d.set_item("seconds", a.elapsed.as_secs_f64())?;
        let moves = a
            .moves
            .iter()
            .map(|m| {
                let e = PyDict::new(py);
                e.set_item("pit", m.pit)?;
                e.set_item("value", eval_dict(py, &m.eval)?)?;
                e.set_item("loss", a.loss(m.pit))?;
                Ok(e)
            })
            .collect::<PyResult<Vec<_>>>()?;
        d.set_item("moves", moves)?;
        return Ok(d);
    }
    let r = py.detach(|| engine.search(&pos, budget, &history));
    check_tables(db.as_deref())?;
    let r = r.ok_or_else(|| PyValueError::new_err("no legal move"))?;
    let d = PyDict::new(py);
    d.set_item("position", pos.to_string())?;
    d.set_item("best", r.best)?;
    d.set_item("value", eval_dict(py, &r.eval)?)?;
    d.set_item("pv", pits(&r.pv))?;
    d.set_item("depth", r.depth)?;
    d.set_item("nodes", r.nodes)?;
    d.set_item("seconds", r.elapsed.as_secs_f64())?;
    Ok(d)
}

/// A playing level of the computer, 1 (weakest, errs often) to 8 (3 s a move), as in
/// `mancala play --level N`.
#[pyclass(module = "mancala", frozen)]
pub struct Level {
    level: mancala_engine::Level,
}

#[pymethods]
impl Level {
    #[new]
    fn new(n: u8) -> PyResult<Level> {
        let (lo, hi) = (mancala_engine::LEVELS.start(), mancala_engine::LEVELS.end());
        mancala_engine::Level::new(n)
            .map(|level| Level { level })
            .ok_or_else(|| PyValueError::new_err(format!("level {n}: give {lo} to {hi}")))
    }

    /// The level's number.
    #[getter]
    fn level(&self) -> u8 {
        self.level.level
    }

    /// The level's move (pit) for the side to move in a position (string or `Game`, whose
    /// earlier positions count for the repetition rule); `seed` drives the levels that err.
    #[pyo3(signature = (position, seed=0))]
    fn choose(&self, py: Python<'_>, position: &Bound<'_, PyAny>, seed: u64) -> PyResult<u8> {
        let (pos, history) = live_position_arg(position)?;
        let level = self.level;
        py.detach(|| level.choose(&pos, &history, seed))
            .ok_or_else(|| PyValueError::new_err("no legal move"))
    }

    /// Pickling and copies: the level is rebuilt from its number.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (u8,))> {
        Ok((py.get_type::<Level>().into_any(), (self.level.level,)))
    }

    fn __repr__(&self) -> String {
        format!("mancala.Level({})", self.level.level)
    }
}
