//! The Python package `mancala` (its compiled part, `mancala._mancala`): games of every preset
//! ([`Game`]), many games stepped together for learning agents ([`VecGame`]), the engine
//! ([`analyze`], [`solve`], [`Level`]) and the endgame tables ([`Egdb`]).
//!
//! No rules live here: moves, ends and scores are `mancala-core`'s, observations and batches
//! `mancala-batch`'s ([`mancala_batch::batch`]), values `mancala-engine`'s
//! [`Evaluation`](mancala_engine::Evaluation) as its JSON (`side`, `margin`, `score`,
//! `lower_is_better`, `tie_break`, `proven`, `depth`, `text`). Pits are 0-based from the
//! mover's left, as in `mancala-core`. The pure-Python adapters (Gymnasium, PettingZoo,
//! OpenSpiel) and the type stubs are in `python/mancala/`.
//!
//! Each part of the package has a module: [`Game`] in `game`, [`VecGame`] in `vec_game` (its
//! NumPy arrays in `arrays`), [`analyze`] and [`Level`] in `engine`, the proofs ([`solve`],
//! [`split`] and its jobs) in `solving`, the endgame tables ([`Egdb`]) in `tables`; `convert`
//! turns values between Python and the crates.

mod arrays;
mod convert;
mod engine;
mod game;
mod solving;
mod tables;
mod vec_game;

use pyo3::prelude::*;

pub use engine::{analyze, Level};
pub use game::Game;
pub use solving::{merge, prove_job, solve, split};
pub use tables::Egdb;
pub use vec_game::VecGame;

/// Every preset's name.
#[pyfunction]
pub fn presets() -> Vec<&'static str> {
    mancala_core::Preset::ALL.iter().map(|p| p.name()).collect()
}

/// The compiled part of the `mancala` package.
#[pymodule]
fn _mancala(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Game>()?;
    m.add_class::<VecGame>()?;
    m.add_class::<Egdb>()?;
    m.add_class::<Level>()?;
    m.add_function(wrap_pyfunction!(engine::analyze, m)?)?;
    m.add_function(wrap_pyfunction!(solving::solve, m)?)?;
    m.add_function(wrap_pyfunction!(solving::split, m)?)?;
    m.add_function(wrap_pyfunction!(solving::prove_job, m)?)?;
    m.add_function(wrap_pyfunction!(solving::merge, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("SWAP", mancala_core::SWAP)?;
    Ok(())
}
