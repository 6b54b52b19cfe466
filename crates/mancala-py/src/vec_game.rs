//! `mancala.VecGame`: many games of one set of rules stepped together in Rust (the batch of
//! `mancala-batch`), their observations, rewards, ends and masks as NumPy arrays, and their
//! state for copies and pickling.

use mancala_batch::batch::{self, Actions, Batch, Reward, StepOut, StepSome};
use mancala_core::{Position, Rules};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{
    borrow_out, float_logits, int_actions, out_arrays, out_slice, RandomStep, Step,
    RANDOM_STEP_ARRAYS, STEP_ARRAYS,
};
use crate::convert::value_error;
use crate::game::Game;

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
        let o = py.detach(|| self.legal_masks());
        Ok(PyArray1::from_vec(py, o).reshape([n, m])?.into_any())
    }

    /// Every game's legal moves, `pits` a game.
    fn legal_masks(&self) -> Vec<bool> {
        let mut o = vec![false; self.batch.len() * self.rules.pits as usize];
        self.batch.write_masks(&mut o);
        o
    }
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

    /// A random legal move of every game, from the seeded generator: int64, `(n,)`, written
    /// into `out` when given. Uniform; with `logits` (float, `(n, pits)`), drawn from the
    /// softmax of each game's logits over its legal moves (-inf: no chance; the logits of
    /// illegal pits are not read; a NaN or +inf among the legal ones is a `ValueError`).
    #[pyo3(signature = (out=None, logits=None))]
    fn sample_actions<'py>(
        &mut self,
        py: Python<'py>,
        out: Option<&Bound<'py, PyAny>>,
        logits: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let n = self.n();
        let out: Option<Bound<'py, PyArray1<i64>>> = out_arrays(out, "an int64 array of n")?;
        let logits = logits
            .map(|l| float_logits(py, l, n, self.pits(), || self.legal_masks()))
            .transpose()?;
        let arr = out.unwrap_or_else(|| PyArray1::zeros(py, n, false));
        {
            let mut w = borrow_out(&arr, "actions")?;
            let a = out_slice(&mut w, &[n], "actions")?;
            let batch = &mut self.batch;
            match logits {
                Some(l) => py
                    .detach(|| batch.sample_policy(&l, a))
                    .map_err(value_error)?,
                None => py.detach(|| batch.sample_actions(a)),
            }
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

    /// Plays a random legal move in every game, drawn from the seeded generator as
    /// `sample_actions` draws it (uniform, or from the softmax of `logits`), in the same pass
    /// as the step; returns `(actions, observations, rewards, dones, masks)`. `out`: arrays
    /// of an earlier call's result, written instead of new ones. `active` and
    /// `final_observations` as for `step` (a game that does not move draws nothing; its
    /// action is -1, and its logits are not read).
    #[pyo3(signature = (out=None, active=None, final_observations=None, logits=None))]
    fn step_random<'py>(
        &mut self,
        py: Python<'py>,
        out: Option<&Bound<'py, PyAny>>,
        active: Option<&Bound<'py, PyAny>>,
        final_observations: Option<&Bound<'py, PyAny>>,
        logits: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<RandomStep<'py>> {
        let out: Option<RandomStep<'py>> = out_arrays(out, RANDOM_STEP_ARRAYS)?;
        let n = self.n();
        let logits = logits
            .map(|l| float_logits(py, l, n, self.pits(), || self.legal_masks()))
            .transpose()?;
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
            let actions = match &logits {
                Some(logits) => Actions::Policy { logits, out: acts },
                None => Actions::Random(acts),
            };
            self.step_into(py, actions, &step, active, final_observations)?;
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
