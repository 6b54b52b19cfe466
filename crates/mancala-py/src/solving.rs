//! Proofs for Python: `solve` (a position's exact value with perfect play), and a proof split
//! into jobs: `split`, `prove_job` and `merge`, as `mancala solve --split`, `mancala
//! prove-job` and `mancala solve --merge`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mancala_core::notation::{line_ends_game, line_text, Notation};
use mancala_engine::{Engine, Limits};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::{eval_dict, pits, to_python, value_error};
use crate::engine::engine;
use crate::game::live_position_arg;
use crate::tables::{check_tables, open_egdb};

/// Proves the exact value of a position (a position string or a `Game`) with perfect play.
/// Returns the dict of `mancala solve --json`: `variant`, `position`, `value` (the final seed
/// margin for the side to move), `value_is` (what the value means), `eval` (the Evaluation's
/// fields), `best` and `pv` (the move and the perfect line in the game's notation),
/// `pv_to_end` (whether that line reaches the end of the game: one read through endgame tables
/// or a book stops where they do), `nodes`;
/// and, for Python, `best_pit` and `pv_pits` (own pits, 0-based) and `seconds`. `RuntimeError` when
/// `time_ms` runs out or the proof is beyond the solver (positions that repeat: see
/// `mancala solve`). The table is `tt_mb` MiB (default: 64 within 24 seeds of the tables,
/// else 512 for the Kalah fast path, else 1024).
#[pyfunction]
#[pyo3(signature = (position, time_ms=None, threads=1, tt_mb=None, egdb=None))]
pub fn solve<'py>(
    py: Python<'py>,
    position: &Bound<'py, PyAny>,
    time_ms: Option<u64>,
    threads: usize,
    tt_mb: Option<usize>,
    egdb: Option<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let (pos, history) = live_position_arg(position)?;
    let db = open_egdb(egdb)?;
    let tabled = db
        .as_deref()
        .and_then(|d| {
            let k = pos.as_kalah()?;
            d.complete_to(&mancala_egdb::TableRules::new(k.rules()).ok()?)
        })
        .map_or(0, |top| top + 1);
    let tt_mb = tt_mb.unwrap_or_else(|| Engine::proof_table_mb(&pos, tabled));
    let engine = engine(tt_mb, threads, &db)?;
    let limits = Limits {
        time: time_ms.map(Duration::from_millis),
        ..Limits::default()
    };
    let r = py.detach(|| engine.solve(&pos, limits, &history));
    check_tables(db.as_deref())?;
    let r = r.ok_or_else(|| {
        PyRuntimeError::new_err(format!(
            "no proof of {pos}: {}",
            Engine::unproven_reason(&pos)
        ))
    })?;
    let d = PyDict::new(py);
    let side = r.eval.side;
    let value_is = if r.eval.is_tie_break() {
        format!(
            "equal seeds with perfect play: a tie the cowrie rule decides ({}), counted as one seed for its winner, from {}'s view (the side to move)",
            r.eval.outcome_text(),
            side.name()
        )
    } else {
        let misere = if pos.rules().misere() {
            "; misère: lower is better"
        } else {
            ""
        };
        format!(
            "final seed margin for {} (the side to move) with perfect play{misere}",
            side.name()
        )
    };
    let notation = Notation::for_rules(pos.rules());
    d.set_item("variant", pos.rules().to_string())?;
    d.set_item("position", pos.to_string())?;
    d.set_item("value", r.eval.margin)?;
    d.set_item("value_is", value_is)?;
    d.set_item("eval", eval_dict(py, &r.eval)?)?;
    d.set_item("best", notation.move_text(pos.to_move(), r.best))?;
    d.set_item("pv", line_text(&pos, &r.pv))?;
    d.set_item("pv_to_end", line_ends_game(&pos, &r.pv))?;
    d.set_item("nodes", r.nodes)?;
    d.set_item("best_pit", r.best)?;
    d.set_item("pv_pits", pits(&r.pv))?;
    d.set_item("seconds", r.elapsed.as_secs_f64())?;
    Ok(d)
}

/// A split proof's error as Python's: `RuntimeError` for a proof that did not finish or
/// an engine that cannot start, `ValueError` (a file named first) otherwise; the message
/// holds the causes too.
fn split_error(e: mancala_engine::split::SplitError) -> PyErr {
    use mancala_engine::split::SplitError;
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(&e);
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    match e {
        SplitError::Unfinished { .. } | SplitError::Engine(_) => PyRuntimeError::new_err(text),
        _ => PyValueError::new_err(text),
    }
}

/// Splits the proof of a bound on a position's value (the final seed margin of its side to
/// move) `turns` turns deep into job files in `jobs_dir`, as `mancala solve --split TURNS
/// --jobs DIR`: `at_least=K` or `at_most=K` (neither: at least a short search's value).
/// Returns the first merge's dict, as `mancala solve --merge DIR --json` prints it:
/// `status` (of "at least `at_least`"), `holds` (the question as asked; `None` while open),
/// `answer`, `unproven` (job files, relative to `jobs_dir`), `new_jobs`, `round`, ...
#[pyfunction]
#[pyo3(signature = (position, turns, jobs_dir, at_least=None, at_most=None, egdb=None))]
pub fn split<'py>(
    py: Python<'py>,
    position: &Bound<'py, PyAny>,
    turns: u32,
    jobs_dir: PathBuf,
    at_least: Option<i32>,
    at_most: Option<i32>,
    egdb: Option<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    use mancala_engine::split::Threshold;
    let (pos, _) = live_position_arg(position)?;
    let threshold = match (at_least, at_most) {
        (Some(_), Some(_)) => {
            return Err(PyValueError::new_err("give at_least or at_most, not both"))
        }
        (Some(k), None) => Some(Threshold::at_least(k)),
        (None, Some(k)) => Some(Threshold::at_most(k)),
        (None, None) => None,
    };
    let oracle = open_egdb(egdb)?.map(|d| d as Arc<dyn mancala_engine::Oracle + Send>);
    let r = py
        .detach(|| mancala_engine::split::split(&pos, turns, &jobs_dir, threshold, oracle, &()))
        .map_err(split_error)?;
    to_python(py, &r.to_json(&jobs_dir))
}

/// Proves the job file `path` of a split proof and writes its result next to it, as `mancala
/// prove-job FILE`; a result already there is returned (unless `force`). Returns the result
/// file's dict: `holds`, `bound`, `proven`, `nodes`, `seconds`, ... `RuntimeError` when
/// `time_ms` runs out (the job stays without a result).
#[pyfunction]
#[pyo3(signature = (path, tt_mb=None, threads=1, time_ms=None, egdb=None, force=false))]
pub fn prove_job<'py>(
    py: Python<'py>,
    path: PathBuf,
    tt_mb: Option<u32>,
    threads: u16,
    time_ms: Option<u64>,
    egdb: Option<PathBuf>,
    force: bool,
) -> PyResult<Bound<'py, PyAny>> {
    if !(1..=256).contains(&threads) {
        return Err(PyValueError::new_err(format!(
            "threads = {threads}: give 1 to 256"
        )));
    }
    let opts = mancala_engine::split::JobOptions {
        oracle: open_egdb(egdb)?.map(|d| d as Arc<dyn mancala_engine::Oracle + Send>),
        tt_mb,
        threads,
        time: time_ms.map(Duration::from_millis),
    };
    let r = py
        .detach(|| mancala_engine::split::prove_job(&path, &opts, force, &()))
        .map_err(split_error)?;
    to_python(py, &serde_json::to_value(&r).map_err(value_error)?)
}

/// Reads the job and result files of the split proof in `jobs_dir`, as `mancala solve
/// --merge DIR --json`: what is proven of the root, and the next round of jobs where a
/// hypothesis failed (written there). Returns the same dict as [`split`].
#[pyfunction]
pub fn merge<'py>(py: Python<'py>, jobs_dir: PathBuf) -> PyResult<Bound<'py, PyAny>> {
    let r = py
        .detach(|| mancala_engine::split::merge(&jobs_dir))
        .map_err(split_error)?;
    to_python(py, &r.to_json(&jobs_dir))
}
