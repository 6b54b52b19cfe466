//! `mancala.Game`: one game of any preset, with its moves, undo, records and observations;
//! and the position arguments (a position string or a `Game`) that the engine's functions
//! take.

use mancala_batch::batch::{self, Reward};
use mancala_core::record::Players;
use mancala_core::{Outcome, Position, Record, MAX_PITS};
use numpy::PyArray1;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::convert::{parse_rules, parse_side, pits, side_name, value_error};

/// A position and the positions before it, from a position string or a [`Game`].
pub(crate) fn position_arg(arg: &Bound<'_, PyAny>) -> PyResult<(Position, Vec<Position>)> {
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
pub(crate) fn live_position_arg(arg: &Bound<'_, PyAny>) -> PyResult<(Position, Vec<Position>)> {
    let (pos, history) = position_arg(arg)?;
    if pos.is_over() {
        return Err(PyValueError::new_err(format!(
            "the game is over in this position: {pos}"
        )));
    }
    Ok((pos, history))
}

/// A game of any preset: moves, undo, the repetition rule, records, observations.
///
/// `Game(rules="kalah,seeds=4")` starts from the rules' start; `Game(position=P)` from a
/// position string (its rules are the game's; `rules`, when also given, must agree).
/// Pits are 0-based from the mover's left.
#[pyclass(module = "mancala", from_py_object)]
#[derive(Clone)]
pub struct Game {
    pub(crate) game: mancala_core::Game,
}

#[pymethods]
impl Game {
    #[new]
    #[pyo3(signature = (rules=None, position=None))]
    pub(crate) fn new(rules: Option<&str>, position: Option<&str>) -> PyResult<Game> {
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
