//! Values between Python and the crates: errors as `ValueError`s, sides and pits as Python
//! writes them, JSON values as Python objects, and rules strings.

use mancala_core::{Rules, Side};
use mancala_engine::Evaluation;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// A `ValueError` carrying the message of any error shown to people.
pub(crate) fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// `"south"` or `"north"`, as in the JSON of records and values.
pub(crate) fn side_name(s: Side) -> &'static str {
    match s {
        Side::South => "south",
        Side::North => "north",
    }
}

/// Pits as a Python list of ints (a `Vec<u8>` would become `bytes`).
pub(crate) fn pits(p: &[u8]) -> Vec<u32> {
    p.iter().map(|&x| x as u32).collect()
}

/// `south` or `north`.
pub(crate) fn parse_side(s: &str) -> PyResult<Side> {
    match s {
        "south" => Ok(Side::South),
        "north" => Ok(Side::North),
        _ => Err(PyValueError::new_err(format!(
            "side `{s}`: give `south` or `north`"
        ))),
    }
}

/// A JSON value as the Python object `json.loads` makes of it.
pub(crate) fn to_python<'py>(
    py: Python<'py>,
    v: &serde_json::Value,
) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (v.to_string(),))
}

/// An [`Evaluation`] as a Python dict (its JSON).
pub(crate) fn eval_dict<'py>(py: Python<'py>, e: &Evaluation) -> PyResult<Bound<'py, PyAny>> {
    to_python(py, &serde_json::to_value(e).map_err(value_error)?)
}

/// A rules string (`kalah,seeds=4`). A position string given as rules (its fields are
/// separated by `/`, which no rules string holds) is said to be one, with where it goes.
pub(crate) fn parse_rules(rules: &str) -> PyResult<Rules> {
    if rules.contains('/') {
        return Err(PyValueError::new_err(format!(
            "rules `{rules}`: this is a position string: use Game(position=...) \
             (VecGame(position=...) for a batch)"
        )));
    }
    rules.parse().map_err(value_error)
}
