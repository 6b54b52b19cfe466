//! The Python package `mancala` (its compiled part, `mancala._mancala`): games of every preset
//! ([`Game`]), many games stepped together for learning agents ([`VecGame`]), the engine
//! ([`analyze`], [`solve`], [`Level`]) and the endgame tables ([`Egdb`]).
//!
//! No rules live here: moves, ends and scores are `mancala-core`'s, observations and batches
//! `mancala-play`'s ([`mancala_batch::batch`]), values `mancala-engine`'s [`Evaluation`] as its
//! JSON (`side`, `margin`, `score`, `lower_is_better`, `tie_break`, `proven`, `depth`,
//! `text`). Pits are 0-based from the mover's left, as in `mancala-core`. The pure-Python
//! adapters (Gymnasium, PettingZoo, OpenSpiel) and the type stubs are in `python/mancala/`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mancala_batch::batch::{self, Actions, Batch, Reward, StepOut, StepSome};
use mancala_core::notation::{line_text, Notation};
use mancala_core::record::Players;
use mancala_core::{Outcome, Position, Record, Rules, Side, MAX_PITS};
use mancala_egdb::Oracle as _;
use mancala_engine::{Budget, Engine, Evaluation, Limits, Quality};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// A `ValueError` carrying the message of any error shown to people.
fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// `"south"` or `"north"`, as in the JSON of records and values.
fn side_name(s: Side) -> &'static str {
    match s {
        Side::South => "south",
        Side::North => "north",
    }
}

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

/// Pits as a Python list of ints (a `Vec<u8>` would become `bytes`).
fn pits(p: &[u8]) -> Vec<u32> {
    p.iter().map(|&x| x as u32).collect()
}

/// `south` or `north`.
fn parse_side(s: &str) -> PyResult<Side> {
    match s {
        "south" => Ok(Side::South),
        "north" => Ok(Side::North),
        _ => Err(PyValueError::new_err(format!(
            "side `{s}`: give `south` or `north`"
        ))),
    }
}

/// A JSON value as the Python object `json.loads` makes of it.
fn to_python<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (v.to_string(),))
}

/// An [`Evaluation`] as a Python dict (its JSON).
fn eval_dict<'py>(py: Python<'py>, e: &Evaluation) -> PyResult<Bound<'py, PyAny>> {
    to_python(py, &serde_json::to_value(e).map_err(value_error)?)
}

/// A position and the positions before it, from a position string or a [`Game`].
fn position_arg(arg: &Bound<'_, PyAny>) -> PyResult<(Position, Vec<Position>)> {
    if let Ok(g) = arg.cast::<Game>() {
        let g = g.borrow();
        return Ok((*g.game.position(), g.game.history().to_vec()));
    }
    let s: String = arg
        .extract()
        .map_err(|_| PyValueError::new_err("give a position string or a mancala.Game"))?;
    Ok((s.parse().map_err(value_error)?, Vec::new()))
}

/// A live position from `arg`, or a `ValueError` for a finished one.
fn live_position_arg(arg: &Bound<'_, PyAny>) -> PyResult<(Position, Vec<Position>)> {
    let (pos, history) = position_arg(arg)?;
    if pos.is_over() {
        return Err(PyValueError::new_err(format!(
            "the game is over in this position: {pos}"
        )));
    }
    Ok((pos, history))
}

/// A rules string (`kalah,seeds=4`). A position string given as rules (its fields are
/// separated by `/`, which no rules string holds) is said to be one, with where it goes.
fn parse_rules(rules: &str) -> PyResult<Rules> {
    if rules.contains('/') {
        return Err(PyValueError::new_err(format!(
            "rules `{rules}`: this is a position string: use Game(position=...) \
             (VecGame(position=...) for a batch)"
        )));
    }
    rules.parse().map_err(value_error)
}

/// A game of any preset: moves, undo, the repetition rule, records, observations.
///
/// `Game(rules="kalah,seeds=4")` starts from the rules' start; `Game(position=P)` from a
/// position string (its rules are the game's; `rules`, when also given, must agree).
/// Pits are 0-based from the mover's left.
#[pyclass(module = "mancala", from_py_object)]
#[derive(Clone)]
pub struct Game {
    game: mancala_core::Game,
}

#[pymethods]
impl Game {
    #[new]
    #[pyo3(signature = (rules=None, position=None))]
    fn new(rules: Option<&str>, position: Option<&str>) -> PyResult<Game> {
        let start = match position {
            Some(p) => {
                let pos: Position = p.parse().map_err(value_error)?;
                if let Some(r) = rules {
                    let r = parse_rules(r)?;
                    if &r != pos.rules() {
                        return Err(PyValueError::new_err(format!(
                            "the position plays `{}`, not `{r}`",
                            pos.rules()
                        )));
                    }
                }
                pos
            }
            None => {
                Position::start(&parse_rules(rules.unwrap_or("kalah"))?).map_err(value_error)?
            }
        };
        Ok(Game {
            game: mancala_core::Game::new(start),
        })
    }

    /// The rules string (`kalah,seeds=4`).
    #[getter]
    fn rules(&self) -> String {
        self.game.rules().to_string()
    }

    /// Pits a side (the length of `legal_mask()`).
    #[getter]
    fn pits(&self) -> usize {
        self.game.position().pits()
    }

    /// Entries of `observation()`.
    #[getter]
    fn observation_size(&self) -> usize {
        batch::observation_len(self.game.rules())
    }

    /// Seeds in the game (the most any entry of an observation can count).
    #[getter]
    fn total_seeds(&self) -> u32 {
        self.game.rules().total_seeds()
    }

    /// Whether the rules have the pie rule: North's first action may then be the swap,
    /// `mancala.SWAP` (128), which is not a pit.
    #[getter]
    fn pie_rule(&self) -> bool {
        self.game.rules().pie
    }

    /// The legal moves: own pits, 0-based from the mover's left, and `mancala.SWAP` (128) where
    /// the pie rule's swap is legal; empty once the game is over.
    fn legal_moves(&self) -> Vec<u32> {
        pits(self.game.legal_moves().as_slice())
    }

    /// The legal moves as a boolean array of `pits` entries. `ValueError` where the pie
    /// rule's swap is legal, which no pit of the mask can show (use `legal_moves()`).
    fn legal_mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<bool>>> {
        if self.game.legal_moves().contains(mancala_core::SWAP) {
            return Err(PyValueError::new_err(
                "the pie rule's swap is legal here, and a mask of pits cannot show it: use legal_moves() (the swap is mancala.SWAP)",
            ));
        }
        let mut m = vec![false; self.pits()];
        batch::write_mask(&self.game, &mut m);
        Ok(PyArray1::from_vec(py, m))
    }

    /// Plays own pit `pit` (0-based from the mover's left), or `mancala.SWAP` where the pie
    /// rule's swap is legal. `ValueError` for an illegal move or a finished game, `TypeError`
    /// for a bool or a float; the game is then unchanged.
    fn play(&mut self, pit: &Bound<'_, PyAny>) -> PyResult<()> {
        // A bool is an int to Python: refuse it rather than play pit 1 for `True`.
        if pit.is_instance_of::<pyo3::types::PyBool>() {
            return Err(PyTypeError::new_err(
                "pit: give a pit number (0-based from the mover's left) or mancala.SWAP, not a bool",
            ));
        }
        let pit: i64 = pit.extract().map_err(|_| {
            PyTypeError::new_err(
                "pit: give a whole pit number (0-based from the mover's left) or mancala.SWAP",
            )
        })?;
        let legal = self.game.legal_moves();
        match u8::try_from(pit) {
            Ok(p) if legal.contains(p) => self.game.play(p).map(|_| ()).map_err(value_error),
            // The core's reason counts pits from 1; say which 0-based pit was meant.
            Ok(p) if p < MAX_PITS as u8 => Err(PyValueError::new_err(format!(
                "pit {pit} (0-based) is not legal here, legal: {:?}: {}",
                legal.as_slice(),
                self.game
                    .clone()
                    .play(p)
                    .err()
                    .map_or(String::new(), |e| e.to_string())
            ))),
            _ => Err(PyValueError::new_err(format!(
                "pit {pit} (0-based) is not legal here, legal: {:?}",
                legal.as_slice()
            ))),
        }
    }

    /// Takes back the last move and returns its pit (`mancala.SWAP` for a swap); `None` at the
    /// start.
    fn undo(&mut self) -> Option<u8> {
        self.game.undo().map(|m| m.pit)
    }

    /// `"south"` or `"north"`: the side to move (once over, the side that would move next).
    #[getter]
    fn to_move(&self) -> &'static str {
        side_name(self.game.to_move())
    }

    /// Whether the game has ended, by its end rule or by repetition.
    #[getter]
    fn is_over(&self) -> bool {
        self.game.is_over()
    }

    /// What the game pays `side` (`"south"` or `"north"`): 0 while it is live; once over,
    /// with `kind="win"` +1, -1 or 0, with `kind="margin"` the final seed margin turned so
    /// that higher is better (negated in a misère game), as `VecGame`'s rewards.
    #[pyo3(signature = (side, kind="win"))]
    fn reward(&self, side: &str, kind: &str) -> PyResult<f32> {
        let side = parse_side(side)?;
        let kind = Reward::parse(kind).map_err(PyValueError::new_err)?;
        Ok(if self.game.is_over() {
            kind.of(&self.game, side)
        } else {
            0.0
        })
    }

    /// `"south"` or `"north"` (the winner), `"draw"`, or `None` while the game is live.
    #[getter]
    fn outcome(&self) -> Option<&'static str> {
        self.game.outcome().map(|o| match o {
            Outcome::Win(s) => side_name(s),
            Outcome::Draw => "draw",
        })
    }

    /// The stores `(south, north)`, with the seeds a repetition shares once it ended the game.
    #[getter]
    fn scores(&self) -> (u16, u16) {
        let s = self.game.scores();
        (s[0], s[1])
    }

    /// The position string of the position now.
    #[getter]
    fn position(&self) -> String {
        self.game.position().to_string()
    }

    /// The position string of the start.
    #[getter]
    fn start(&self) -> String {
        self.game.start().to_string()
    }

    /// The pits played so far, oldest first (one a sowing; `mancala.SWAP` for a swap).
    #[getter]
    fn moves(&self) -> Vec<u32> {
        self.game.moves().iter().map(|m| m.pit as u32).collect()
    }

    /// A copy of the game, its moves included.
    fn clone(&self) -> Game {
        Clone::clone(self)
    }

    fn __copy__(&self) -> Game {
        Clone::clone(self)
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Game {
        Clone::clone(self)
    }

    /// Pickling: the game is rebuilt from its JSON record (start and moves).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let from_record = py.get_type::<Game>().getattr("from_record")?;
        Ok((from_record, (self.record("json", None, None)?,)))
    }

    /// The game's record: `"json"` (as `mancala replay --json`) or `"text"` (the game's
    /// notation), with the players' names when given.
    #[pyo3(signature = (format="json", south=None, north=None))]
    fn record(
        &self,
        format: &str,
        south: Option<String>,
        north: Option<String>,
    ) -> PyResult<String> {
        let rec = Record::from_game(&self.game, Players { south, north });
        match format {
            "json" => serde_json::to_string(&rec).map_err(value_error),
            "text" => rec.to_text().map_err(value_error),
            _ => Err(PyValueError::new_err(format!(
                "format `{format}`: give `json` or `text`"
            ))),
        }
    }

    /// The game a record (JSON or text) gives, replayed and checked move by move; `rules` for
    /// a text record without a `Variant` tag.
    #[staticmethod]
    #[pyo3(signature = (text, rules=None))]
    fn from_record(text: &str, rules: Option<&str>) -> PyResult<Game> {
        let rules = rules.map(parse_rules).transpose()?;
        let (_, game) = Record::parse_with(text, rules, mancala_core::notation::Check::Strict)
            .map_err(value_error)?;
        Ok(Game { game })
    }

    /// The position as a float32 array from the view of `side` (`"south"` or `"north"`;
    /// default: the side to move). Layout in the package docstring and docs/python.md.
    #[pyo3(signature = (side=None))]
    fn observation<'py>(
        &self,
        py: Python<'py>,
        side: Option<&str>,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let me = match side {
            None => self.game.to_move(),
            Some(s) => parse_side(s)?,
        };
        let mut o = vec![0.0; self.observation_size()];
        batch::write_observation_for(self.game.position(), me, &mut o);
        Ok(PyArray1::from_vec(py, o))
    }

    fn __str__(&self) -> String {
        self.position()
    }

    fn __repr__(&self) -> String {
        format!("mancala.Game(position={:?})", self.position())
    }
}

/// `n` games of one set of rules stepped together in Rust (the GIL released), each started
/// again when it ends, the openings, `sample_actions` and `step_random` drawn from `seed`.
/// `step` and `step_random` write into arrays of an earlier result when given them (`out=`),
/// so that a loop of steps allocates nothing. Steps of 256 games or more may be shared with
/// the process's helper threads (`mancala_batch::team`): by default (`parallel=None`) where
/// timing the steps shows that sharing is faster (`mancala_batch::auto`), always with
/// `parallel=True`, never with `parallel=False`.
#[pyclass(module = "mancala")]
pub struct VecGame {
    batch: Batch,
    rules: Rules,
}

impl VecGame {
    /// Every game's observation, written with the GIL released.
    fn obs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (n, k) = (self.batch.len(), batch::observation_len(&self.rules));
        let o = py.detach(|| {
            let mut o = vec![0.0f32; n * k];
            self.batch.write_observations(&mut o);
            o
        });
        Ok(PyArray1::from_vec(py, o).reshape([n, k])?.into_any())
    }

    /// Every game's legal-move mask, written with the GIL released.
    fn mask<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (n, m) = (self.batch.len(), self.rules.pits as usize);
        let o = py.detach(|| {
            let mut o = vec![false; n * m];
            self.batch.write_masks(&mut o);
            o
        });
        Ok(PyArray1::from_vec(py, o).reshape([n, m])?.into_any())
    }
}

/// `actions` as a contiguous 1-d array of `int64`: an `int64` array as it is (copied where
/// strided), any other integer array or sequence converted; floats, booleans and integers
/// out of `int64`'s range are refused, not cast.
fn int_actions<'py>(
    py: Python<'py>,
    actions: &Bound<'py, PyAny>,
) -> PyResult<PyReadonlyArray1<'py, i64>> {
    if let Ok(a) = actions.extract::<PyReadonlyArray1<i64>>() {
        if a.as_slice().is_ok() {
            return Ok(a);
        }
    }
    let np = py.import("numpy")?;
    let a = np.call_method1("asarray", (actions,))?;
    let ndim: usize = a.getattr("ndim")?.extract()?;
    if ndim != 1 {
        return Err(PyValueError::new_err(format!(
            "actions: give a 1-d array of pits, one a game (got {ndim} dimensions)"
        )));
    }
    let dtype = a.getattr("dtype")?;
    let kind: String = dtype.getattr("kind")?.extract()?;
    let size: usize = a.getattr("size")?.extract()?;
    if size > 0 && kind != "i" && kind != "u" {
        return Err(PyValueError::new_err(format!(
            "actions: give integer pits (own pits, 0-based), not an array of {}",
            dtype.str()?
        )));
    }
    let wide = np.call_method1("ascontiguousarray", (&a, "int64"))?;
    // An unsigned value past int64's range wraps in the conversion: refuse it.
    let same: bool = np.call_method1("array_equal", (&wide, &a))?.extract()?;
    if !same {
        return Err(PyValueError::new_err(
            "actions: a pit is out of range (give own pits, 0-based)",
        ));
    }
    wide.extract()
        .map_err(|_| PyValueError::new_err("actions: give a 1-d array of pits"))
}

/// `out` (when given) as the arrays `T` of an earlier call's result, or a `TypeError` that
/// says which arrays and dtypes it takes (`want`).
fn out_arrays<'py, T: pyo3::conversion::FromPyObjectOwned<'py>>(
    out: Option<&Bound<'py, PyAny>>,
    want: &str,
) -> PyResult<Option<T>> {
    out.map(|o| {
        o.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "out: give the arrays of an earlier call's result ({want})"
            ))
        })
    })
    .transpose()
}

/// What [`VecGame::step`] returns and may write into: observations, rewards, dones, masks.
const STEP_ARRAYS: &str =
    "float32 observations (n, observation_size), float32 rewards (n,), bool dones (n,), bool masks (n, pits)";

/// What [`VecGame::step`] returns and may write into: observations, rewards, dones, masks.
type Step<'py> = (
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray1<f32>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray2<bool>>,
);

/// What [`VecGame::step_random`] returns and may write into: the actions, then a [`Step`].
type RandomStep<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray1<f32>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray2<bool>>,
);

/// `arr` as a mutable slice of the shape `want`: a `ValueError` naming `what` for another
/// shape, an array that is not C-contiguous, or one borrowed elsewhere (the same array given
/// twice).
fn out_slice<'a, T: numpy::Element, D: numpy::ndarray::Dimension>(
    arr: &'a mut numpy::PyReadwriteArray<'_, T, D>,
    want: &[usize],
    what: &str,
) -> PyResult<&'a mut [T]> {
    if arr.shape() != want {
        return Err(PyValueError::new_err(format!(
            "out: {what} has shape {:?}, not {want:?}",
            arr.shape()
        )));
    }
    // `as_slice_mut` takes a Fortran-ordered array too, whose rows are not a game's.
    let not_c = || PyValueError::new_err(format!("out: {what} is not C-contiguous"));
    if !arr.is_c_contiguous() {
        return Err(not_c());
    }
    arr.as_slice_mut().map_err(|_| not_c())
}

/// A writable borrow of `arr`, or a `ValueError` naming `what` (read-only, or given twice).
fn borrow_out<'py, T: numpy::Element, D: numpy::ndarray::Dimension>(
    arr: &Bound<'py, numpy::PyArray<T, D>>,
    what: &str,
) -> PyResult<numpy::PyReadwriteArray<'py, T, D>> {
    arr.try_readwrite().map_err(|e| {
        PyValueError::new_err(format!(
            "out: {what} cannot be written ({e}; give each array once, writeable)"
        ))
    })
}

impl VecGame {
    /// New arrays for a step's results.
    fn new_step<'py>(&self, py: Python<'py>) -> Step<'py> {
        let (n, k, m) = (self.n(), self.observation_size(), self.pits());
        (
            PyArray2::zeros(py, [n, k], false),
            PyArray1::zeros(py, n, false),
            PyArray1::zeros(py, n, false),
            PyArray2::zeros(py, [n, m], false),
        )
    }

    /// Steps every game (or those `active` names) with `actions`, the results written into
    /// `out` (and each ended game's final observation into `finals`) with the GIL released.
    fn step_into<'py>(
        &mut self,
        py: Python<'py>,
        actions: Actions<'_>,
        out: &Step<'py>,
        active: Option<&Bound<'py, PyAny>>,
        finals: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<()> {
        let (n, k, m) = (self.n(), self.observation_size(), self.pits());
        if let Actions::Given(a) = &actions {
            if a.len() != n {
                return Err(PyValueError::new_err(format!(
                    "actions: {} actions for {n} games (give one a game)",
                    a.len()
                )));
            }
        }
        let (mut o, mut r, mut d, mut k_m) = (
            borrow_out(&out.0, "observations")?,
            borrow_out(&out.1, "rewards")?,
            borrow_out(&out.2, "dones")?,
            borrow_out(&out.3, "masks")?,
        );
        let out = StepOut {
            observations: out_slice(&mut o, &[n, k], "observations")?,
            rewards: out_slice(&mut r, &[n], "rewards")?,
            dones: out_slice(&mut d, &[n], "dones")?,
            masks: out_slice(&mut k_m, &[n, m], "masks")?,
        };
        // Copied while the GIL is held, as the actions are.
        let active: Option<Vec<bool>> = active
            .map(|a| {
                let a: PyReadonlyArray1<bool> = a.extract().map_err(|_| {
                    PyTypeError::new_err("active: give a 1-d bool array, one entry a game")
                })?;
                let a = a.as_array();
                if a.len() != n {
                    return Err(PyValueError::new_err(format!(
                        "active: {} entries for {n} games (give one a game)",
                        a.len()
                    )));
                }
                Ok(a.to_vec())
            })
            .transpose()?;
        let finals: Option<Bound<'py, PyArray2<f32>>> = finals
            .map(|f| {
                f.extract().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "final_observations: give a float32 array of shape ({n}, {k})"
                    ))
                })
            })
            .transpose()?;
        let mut f = finals
            .as_ref()
            .map(|f| borrow_out(f, "final_observations"))
            .transpose()?;
        let some = StepSome {
            active: active.as_deref(),
            finals: match f.as_mut() {
                Some(f) => Some(out_slice(f, &[n, k], "final_observations")?),
                None => None,
            },
        };
        let batch = &mut self.batch;
        py.detach(|| batch.step_some(actions, out, some))
            .map_err(value_error)
    }
}

/// Sets game `indices[j]` of `batch` to `positions[j]` (no earlier position), or a
/// `ValueError` naming the first bad one.
fn set_games(batch: &mut Batch, indices: &[usize], positions: &[String]) -> PyResult<()> {
    for (&i, p) in indices.iter().zip(positions) {
        let pos: Position = p
            .parse()
            .map_err(|e| PyValueError::new_err(format!("positions: game {i}: {e}")))?;
        batch
            .set_game(i, pos, &[])
            .map_err(|e| PyValueError::new_err(format!("positions: {e}")))?;
    }
    Ok(())
}

#[pymethods]
impl VecGame {
    /// `n` is 1 where it is not given (the signature says so); `None` is taken alike.
    #[new]
    #[pyo3(signature = (rules=None, n=None, seed=0, reward="win", opening=0, position=None, parallel=None))]
    #[pyo3(
        text_signature = "(rules=None, n=1, seed=0, reward=\"win\", opening=0, position=None, parallel=None)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn new(
        rules: Option<&str>,
        n: Option<&Bound<'_, PyAny>>,
        seed: u64,
        reward: &str,
        opening: u32,
        position: Option<&str>,
        parallel: Option<bool>,
    ) -> PyResult<VecGame> {
        // A bool is an int to Python: refuse it rather than take `True` for one game.
        let n: i64 = match n {
            None => 1,
            Some(n) if n.is_instance_of::<pyo3::types::PyBool>() => {
                return Err(PyValueError::new_err(
                    "n: give a number of games, not a bool",
                ))
            }
            Some(n) => n.extract().map_err(|_| {
                PyTypeError::new_err(format!("n: give a whole number of games, 1 to {}", 1 << 24))
            })?,
        };
        if !(1..=1 << 24).contains(&n) {
            return Err(PyValueError::new_err(format!(
                "n = {n}: give 1 to {} games",
                1 << 24
            )));
        }
        let n = n as usize;
        let reward = Reward::parse(reward).map_err(PyValueError::new_err)?;
        let start = Game::new(rules, position)?.game.position().to_owned();
        if start.rules().pie {
            return Err(PyValueError::new_err(format!(
                "{}: VecGame's actions and masks are pits, and the pie rule's swap is not one; play games with the pie rule with Game (its legal_moves() include mancala.SWAP)",
                start.rules()
            )));
        }
        if start.is_over() {
            return Err(PyValueError::new_err("the start position is over"));
        }
        let mut batch = Batch::new(start, n, seed, opening, reward);
        batch.set_parallel(parallel);
        Ok(VecGame {
            batch,
            rules: *start.rules(),
        })
    }

    /// How steps of 256 games or more are shared with helper threads (one a core, less one):
    /// `None` (the default) chooses step by step, timing the steps, and shares where that is
    /// faster; `True` always shares; `False` steps every game on the calling thread. The
    /// games are the same either way.
    #[getter]
    fn parallel(&self) -> Option<bool> {
        self.batch.parallel()
    }

    #[setter]
    fn set_parallel(&mut self, parallel: Option<bool>) {
        self.batch.set_parallel(parallel)
    }

    /// Whether the next step is shared with helper threads (never for fewer than 256 games;
    /// with `parallel=None`, as the timing of the steps has it now).
    #[getter]
    fn sharing(&self) -> bool {
        self.batch.shares_now()
    }

    /// Games stepped together.
    #[getter]
    fn n(&self) -> usize {
        self.batch.len()
    }

    /// The rules string.
    #[getter]
    fn rules(&self) -> String {
        self.rules.to_string()
    }

    /// Pits a side: actions are `0..pits`.
    #[getter]
    fn pits(&self) -> usize {
        self.rules.pits as usize
    }

    /// Entries of one game's observation.
    #[getter]
    fn observation_size(&self) -> usize {
        batch::observation_len(&self.rules)
    }

    /// Starts every game again (the generator seeded anew when `seed` is given), from the
    /// start (after its random opening) or, where `positions` is given, game `i` from
    /// `positions[i]` (a position string of the batch's rules, not over; no opening is
    /// played and no earlier position counts for the repetition rule); returns
    /// `(observations, masks)`. `ValueError` for a bad position, naming its game; then no
    /// game is changed.
    #[pyo3(signature = (seed=None, positions=None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<u64>,
        positions: Option<Vec<String>>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        if let Some(ps) = &positions {
            if ps.len() != self.n() {
                return Err(PyValueError::new_err(format!(
                    "positions: {} positions for {} games (give one a game)",
                    ps.len(),
                    self.n()
                )));
            }
            let indices: Vec<usize> = (0..ps.len()).collect();
            let mut copy = self.batch.clone();
            py.detach(|| copy.reset(seed));
            set_games(&mut copy, &indices, ps)?;
            self.batch = copy;
        } else {
            py.detach(|| self.batch.reset(seed));
        }
        Ok((self.obs(py)?, self.mask(py)?))
    }

    /// Sets game `indices[j]` to `positions[j]` (a position string of the batch's rules,
    /// not over; no earlier position counts for the repetition rule), the other games and
    /// every generator unchanged. `ValueError` for a bad index or position, naming it; then
    /// no game is changed.
    fn reset_at(&mut self, indices: Vec<i64>, positions: Vec<String>) -> PyResult<()> {
        if indices.len() != positions.len() {
            return Err(PyValueError::new_err(format!(
                "reset_at: {} indices and {} positions (give one position an index)",
                indices.len(),
                positions.len()
            )));
        }
        let n = self.n();
        let indices = indices
            .iter()
            .map(|&i| {
                usize::try_from(i).ok().filter(|&i| i < n).ok_or_else(|| {
                    PyValueError::new_err(format!("reset_at: index {i}: give 0 to {}", n - 1))
                })
            })
            .collect::<PyResult<Vec<usize>>>()?;
        let mut copy = self.batch.clone();
        set_games(&mut copy, &indices, &positions)?;
        self.batch = copy;
        Ok(())
    }

    /// The state of the batch as a dict of plain values (lists, strings, numbers): its
    /// rules' start, `opening`, `reward` and `parallel`, each game as `[start, moves]` (the
    /// game's start and the pits played since, where the repetition rule needs the earlier
    /// positions; else the position now and no move), every game's generator state and
    /// final scores. `VecGame.from_state` (and `set_state`) rebuild a batch that continues
    /// identically; pickling and `copy` go through it.
    fn get_state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (start, opening, reward) = self.batch.config();
        let d = PyDict::new(py);
        d.set_item("start", start.to_string())?;
        d.set_item("opening", opening)?;
        d.set_item(
            "reward",
            match reward {
                Reward::Win => "win",
                Reward::Margin => "margin",
            },
        )?;
        d.set_item("parallel", self.batch.parallel())?;
        let games: Vec<(String, Vec<u8>)> = (0..self.n())
            .map(|i| {
                let (p, moves) = self.batch.game_state(i);
                (p.to_string(), moves)
            })
            .collect();
        d.set_item("games", games)?;
        d.set_item("rngs", self.batch.rng_states())?;
        let fin: Vec<(u16, u16)> = self
            .batch
            .final_scores()
            .iter()
            .map(|s| (s[0], s[1]))
            .collect();
        d.set_item("final_scores", fin)?;
        Ok(d)
    }

    /// A batch from a state of `get_state` (`ValueError` or `TypeError`, saying what is
    /// wrong, for another dict).
    #[staticmethod]
    fn from_state(state: &Bound<'_, PyAny>) -> PyResult<VecGame> {
        let item = |k: &str| -> PyResult<Bound<'_, PyAny>> {
            state.get_item(k).map_err(|_| {
                PyValueError::new_err(format!(
                    "state: no `{k}` (give a dict of VecGame.get_state())"
                ))
            })
        };
        fn bad(k: &'static str) -> impl Fn(PyErr) -> PyErr {
            move |_| PyTypeError::new_err(format!("state: `{k}` is not as get_state() gives it"))
        }
        let start: String = item("start")?.extract().map_err(bad("start"))?;
        let opening: u32 = item("opening")?.extract().map_err(bad("opening"))?;
        let reward: String = item("reward")?.extract().map_err(bad("reward"))?;
        let parallel: Option<bool> = item("parallel")?.extract().map_err(bad("parallel"))?;
        let games: Vec<(String, Vec<u8>)> = item("games")?.extract().map_err(bad("games"))?;
        let rngs: Vec<u64> = item("rngs")?.extract().map_err(bad("rngs"))?;
        let fin: Vec<(u16, u16)> = item("final_scores")?
            .extract()
            .map_err(bad("final_scores"))?;
        let n = games.len();
        if n == 0 {
            return Err(PyValueError::new_err("state: no game"));
        }
        let pos = |s: &str| -> PyResult<Position> {
            s.parse::<Position>()
                .map_err(|e| PyValueError::new_err(format!("state: {e}")))
        };
        let start = pos(&start)?;
        let reward = Reward::parse(&reward).map_err(PyValueError::new_err)?;
        if start.rules().pie || start.is_over() {
            return Err(PyValueError::new_err(
                "state: the start is over or plays the pie rule",
            ));
        }
        let mut batch = Batch::new(start, n, 0, opening, reward);
        batch.set_parallel(parallel);
        let mut v = VecGame {
            batch,
            rules: *start.rules(),
        };
        for (i, (p, moves)) in games.iter().enumerate() {
            v.batch
                .set_game(i, pos(p)?, moves)
                .map_err(|e| PyValueError::new_err(format!("state: {e}")))?;
        }
        v.batch
            .set_rng_states(&rngs)
            .map_err(|e| PyValueError::new_err(format!("state: {e}")))?;
        let fin: Vec<[u16; 2]> = fin.iter().map(|&(a, b)| [a, b]).collect();
        v.batch
            .set_final_scores(&fin)
            .map_err(|e| PyValueError::new_err(format!("state: {e}")))?;
        Ok(v)
    }

    /// Makes this batch the one of `state` (as `VecGame.from_state`; unchanged on an error).
    fn set_state(&mut self, state: &Bound<'_, PyAny>) -> PyResult<()> {
        *self = VecGame::from_state(state)?;
        Ok(())
    }

    /// A copy of the batch: its games, generators and final scores, which continues as the
    /// batch does given the same actions.
    fn clone(&self) -> VecGame {
        VecGame {
            batch: self.batch.clone(),
            rules: self.rules,
        }
    }

    fn __copy__(&self) -> VecGame {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> VecGame {
        self.clone()
    }

    /// Pickling: the batch is rebuilt from `get_state()` by `VecGame.from_state`.
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyDict>,))> {
        let from_state = py.get_type::<VecGame>().getattr("from_state")?;
        Ok((from_state, (self.get_state(py)?,)))
    }

    /// Every game's observation from its mover's view: float32, shape `(n, observation_size)`.
    fn observations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.obs(py)
    }

    /// Every game's legal moves: bool, shape `(n, pits)`.
    fn masks<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.mask(py)
    }

    /// The side to move in every game: int8, 0 South, 1 North.
    fn to_move<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        let v = (0..self.batch.len())
            .map(|i| self.batch.to_move(i).index() as i8)
            .collect();
        PyArray1::from_vec(py, v)
    }

    /// The position string of every game.
    fn positions(&self) -> Vec<String> {
        (0..self.batch.len())
            .map(|i| self.batch.position(i).to_string())
            .collect()
    }

    /// The stores `(south, north)` at the end of each game that ended at the last step (zeros
    /// for the others): int16, shape `(n, 2)`.
    fn final_scores<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let v: Vec<i16> = self
            .batch
            .final_scores()
            .iter()
            .flat_map(|s| [s[0] as i16, s[1] as i16])
            .collect();
        let n = self.n();
        Ok(PyArray1::from_vec(py, v).reshape([n, 2])?.into_any())
    }

    /// A uniformly random legal move of every game, from the seeded generator: int64, `(n,)`,
    /// written into `out` when given.
    #[pyo3(signature = (out=None))]
    fn sample_actions<'py>(
        &mut self,
        py: Python<'py>,
        out: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let n = self.n();
        let out: Option<Bound<'py, PyArray1<i64>>> = out_arrays(out, "an int64 array of n")?;
        let arr = out.unwrap_or_else(|| PyArray1::zeros(py, n, false));
        {
            let mut w = borrow_out(&arr, "actions")?;
            let a = out_slice(&mut w, &[n], "actions")?;
            let batch = &mut self.batch;
            py.detach(|| batch.sample_actions(a));
        }
        Ok(arr)
    }

    /// Plays `actions[i]` (own pit, 0-based from the mover's left) in game `i`; returns
    /// `(observations, rewards, dones, masks)`. A reward is for the player who made the move
    /// (0 until the game ends); a finished game is started again, so its observation and mask
    /// are the new game's. `ValueError` for an illegal action, naming its game; no game moves.
    /// `out`: arrays of an earlier step's result, written instead of new ones.
    ///
    /// `active` (bool, `(n,)`): only the games it marks move; the others keep their position
    /// and generator, report reward 0 and not done, and their actions are not checked.
    /// `final_observations` (float32, `(n, observation_size)`): each game that ends writes
    /// there the finished position as seen by the player who made the last move (whose
    /// reward it is), before it starts again; the other rows are left as they were.
    #[pyo3(signature = (actions, out=None, active=None, final_observations=None))]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
        out: Option<&Bound<'py, PyAny>>,
        active: Option<&Bound<'py, PyAny>>,
        final_observations: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Step<'py>> {
        let out: Option<Step<'py>> = out_arrays(out, STEP_ARRAYS)?;
        // Copied while the GIL is held: the step checks the actions, then plays them, with the
        // GIL released, and another Python thread could write the array in between.
        let acts = int_actions(py, actions)?
            .as_slice()
            .map_err(value_error)?
            .to_vec();
        let out = out.unwrap_or_else(|| self.new_step(py));
        self.step_into(py, Actions::Given(&acts), &out, active, final_observations)?;
        Ok(out)
    }

    /// Plays a uniformly random legal move in every game, drawn from the seeded generator as
    /// `sample_actions` draws it, in the same pass as the step; returns `(actions,
    /// observations, rewards, dones, masks)`. `out`: arrays of an earlier call's result,
    /// written instead of new ones. `active` and `final_observations` as for `step` (a game
    /// that does not move draws nothing; its action is -1).
    #[pyo3(signature = (out=None, active=None, final_observations=None))]
    fn step_random<'py>(
        &mut self,
        py: Python<'py>,
        out: Option<&Bound<'py, PyAny>>,
        active: Option<&Bound<'py, PyAny>>,
        final_observations: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<RandomStep<'py>> {
        let out: Option<RandomStep<'py>> =
            out_arrays(out, &format!("an int64 array of n, then {STEP_ARRAYS}"))?;
        let n = self.n();
        let (a, o, r, d, m) = match out {
            Some(out) => out,
            None => {
                let (o, r, d, m) = self.new_step(py);
                (PyArray1::zeros(py, n, false), o, r, d, m)
            }
        };
        let step = (o, r, d, m);
        {
            let mut w = borrow_out(&a, "actions")?;
            let acts = out_slice(&mut w, &[n], "actions")?;
            self.step_into(py, Actions::Random(acts), &step, active, final_observations)?;
        }
        let (o, r, d, m) = step;
        Ok((a, o, r, d, m))
    }

    fn __len__(&self) -> usize {
        self.n()
    }

    fn __repr__(&self) -> String {
        format!("mancala.VecGame(rules={:?}, n={})", self.rules(), self.n())
    }
}

/// The endgame tables of `dir` (built by `mancala egdb build`), or `None` where no folder
/// is given. A folder without a table is refused: every probe of it would answer `None`.
fn open_egdb(dir: Option<PathBuf>) -> PyResult<Option<Arc<mancala_egdb::Egdb>>> {
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
fn check_tables(db: Option<&mancala_egdb::Egdb>) -> PyResult<()> {
    match db.and_then(mancala_egdb::Egdb::fault) {
        Some(e) => Err(value_error(e)),
        None => Ok(()),
    }
}

fn engine(tt_mb: usize, threads: usize, db: &Option<Arc<mancala_egdb::Egdb>>) -> PyResult<Engine> {
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

/// Proves the exact value of a position (a position string or a `Game`) with perfect play.
/// Returns the dict of `mancala solve --json`: `variant`, `position`, `value` (the final seed
/// margin for the side to move), `value_is` (what the value means), `eval` (the Evaluation's
/// fields), `best` and `pv` (the move and the perfect line in the game's notation), `nodes`;
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
    /// Evaluation's fields (proven), or `None` where no table holds it. `ValueError` for a
    /// finished game or rules the tables cannot cover.
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
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(split, m)?)?;
    m.add_function(wrap_pyfunction!(prove_job, m)?)?;
    m.add_function(wrap_pyfunction!(merge, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("SWAP", mancala_core::SWAP)?;
    Ok(())
}
