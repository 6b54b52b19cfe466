//! Many games stepped together, for agents that learn: every game of one set of rules, moved
//! by an array of actions at once, with observations, rewards, ends and legal-move masks
//! written into flat arrays, finished games started again, the openings drawn from one seed.
//!
//! # Observation layout
//! A position is seen from the side to move, as `f32` counts, [`observation_len`] of them:
//!
//! | index | what |
//! |---|---|
//! | `0..m` | the mover's pits, seeds, from his left |
//! | `m..2m` | the opponent's pits, seeds, from the opponent's left |
//! | `2m` | the mover's store |
//! | `2m + 1` | the opponent's store |
//! | `2m + 2..3m + 2` | (games with cowries only, Kauri) the mover's pits, cowries |
//! | `3m + 2..4m + 2` | (games with cowries only) the opponent's pits, cowries |
//!
//! So both players see the board alike: mover's pit `i` faces the opponent's pit `m - 1 - i`
//! in the Kalah family. Counts are raw (not scaled). A finished game is seen from the side
//! that would have moved next. What the layout leaves out (who moved last under
//! `leftovers=last-capturer`, the positions so far for the repetition rule) is in the game.
//!
//! # Three kinds of game
//! Kalah-family rules that the engine's fast path plays
//! ([`FastRules`](mancala_engine::fast::FastRules): up to 7 pits, no Cross-Kalah, Dracala,
//! misère, `stop-when-decided` or `last-capturer`) and that have no opening rule step on its
//! board ([`FastGame`](mancala_engine::fast::FastGame), the solver's own sowing); rules
//! whose positions can repeat keep each game as a [`Game`] (its positions for the repetition
//! rule); the others play a [`Position`] copy-make. The three give the same games,
//! observations and draws from a seed.

use mancala_core::{Error, Game, Moves, Msg, Position, Rules, Side};
use std::sync::Mutex;

use crate::auto::{Chooser, Clock};
use crate::team::Team;
use mancala_core::rng::Rng;

mod observe;
mod reward;
mod slot;

use observe::{fast_mask, fast_observation_m, final_observation};
pub use observe::{observation_len, write_mask, write_observation, write_observation_for};
pub use reward::Reward;
use slot::{below_small, fast_outcome, nth_bit, Fast, Play, Slot};

/// The moves of a step.
pub enum Actions<'a> {
    /// Own pit `actions[i]` (0-based from the mover's left) in game `i`; every action is
    /// checked before any game moves.
    Given(&'a [i64]),
    /// A uniformly random legal move in every game, drawn from the game's generator as
    /// [`Batch::sample_actions`] draws it, and written here.
    Random(&'a mut [i64]),
}

/// The actions of the games a task steps.
enum PartActions<'a> {
    Given(&'a [i64]),
    Random(&'a mut [i64]),
}

/// Where a step writes, one entry or one row a game (see [`Batch::step`]).
pub struct StepOut<'a> {
    /// The reward of the move just made, for its player (0 until a game ends).
    pub rewards: &'a mut [f32],
    /// Whether the move ended the game (which then started again).
    pub dones: &'a mut [bool],
    /// The observation after the move, [`observation_len`] entries a game (the new game's
    /// where one ended).
    pub observations: &'a mut [f32],
    /// The legal moves after the move, a mask of the `m` pits a game.
    pub masks: &'a mut [bool],
}

/// What a step may do besides moving every game ([`Batch::step_some`]); the default moves
/// every game and keeps no final observation, as [`Batch::step`].
#[derive(Default)]
pub struct StepSome<'a> {
    /// Which games move (`active[i]` for game `i`, one entry a game); `None`: every game. A
    /// game that does not move keeps its position and its generator, reports reward 0 and not
    /// done (its final scores zeros), and its observation and mask are written as the
    /// others'; its given action is neither checked nor played, and where the actions are
    /// drawn its entry is -1.
    pub active: Option<&'a [bool]>,
    /// Where each game that ends writes its final observation (the finished position seen
    /// by the player who made the last move, whose reward the step reports;
    /// [`observation_len`] entries a game) before it starts again; the rows of the other
    /// games are left as they were.
    pub finals: Option<&'a mut [f32]>,
}

/// The games a task steps, and where their results go.
struct Part<'a> {
    slots: &'a mut [Slot],
    rngs: &'a mut [Rng],
    fin: &'a mut [[u16; 2]],
    legal: &'a mut [u8],
    acts: PartActions<'a>,
    out: StepOut<'a>,
    /// [`StepSome`]'s, cut to the part's games.
    active: Option<&'a [bool]>,
    finals: Option<&'a mut [f32]>,
}

/// What every game of a step shares.
struct Ctx<'a> {
    start: Position,
    opening: u32,
    reward: Reward,
    misere: bool,
    fast: Option<&'a Fast>,
    /// Observation entries and pits a game.
    k: usize,
    m: usize,
}

/// Steps every game of `p`: on the fast board of its row length where the games have one.
fn step_part(c: &Ctx<'_>, mut p: Part<'_>) {
    match c.fast {
        Some(f) => match c.m {
            1 => step_fast::<1>(f, c, &mut p),
            2 => step_fast::<2>(f, c, &mut p),
            3 => step_fast::<3>(f, c, &mut p),
            4 => step_fast::<4>(f, c, &mut p),
            5 => step_fast::<5>(f, c, &mut p),
            6 => step_fast::<6>(f, c, &mut p),
            _ => step_fast::<7>(f, c, &mut p),
        },
        None => (0..p.slots.len()).for_each(|i| step_one(c, &mut p, i)),
    }
}

impl<'a> Part<'a> {
    /// The part cut into parts of `c` games each (the last may hold fewer), for a team's
    /// threads; `k` observation entries and `m` pits a game.
    fn split(self, c: usize, k: usize, m: usize) -> Vec<Part<'a>> {
        let Part {
            slots,
            rngs,
            fin,
            legal,
            acts,
            out,
            active,
            finals,
        } = self;
        let chunks = slots.len().div_ceil(c);
        let acts: Vec<PartActions<'_>> = match acts {
            PartActions::Given(a) => a.chunks(c).map(PartActions::Given).collect(),
            PartActions::Random(a) => a.chunks_mut(c).map(PartActions::Random).collect(),
        };
        let actives: Vec<Option<&[bool]>> = match active {
            Some(a) => a.chunks(c).map(Some).collect(),
            None => vec![None; chunks],
        };
        let finals: Vec<Option<&mut [f32]>> = match finals {
            Some(f) => f.chunks_mut(c * k).map(Some).collect(),
            None => (0..chunks).map(|_| None).collect(),
        };
        slots
            .chunks_mut(c)
            .zip(rngs.chunks_mut(c))
            .zip(fin.chunks_mut(c))
            .zip(legal.chunks_mut(c))
            .zip(acts)
            .zip(out.rewards.chunks_mut(c))
            .zip(out.dones.chunks_mut(c))
            .zip(out.observations.chunks_mut(c * k))
            .zip(out.masks.chunks_mut(c * m))
            .zip(actives.into_iter().zip(finals))
            .map(
                |(
                    (
                        (((((((slots, rngs), fin), legal), acts), rewards), dones), observations),
                        masks,
                    ),
                    (active, finals),
                )| Part {
                    slots,
                    rngs,
                    fin,
                    legal,
                    acts,
                    out: StepOut {
                        rewards,
                        dones,
                        observations,
                        masks,
                    },
                    active,
                    finals,
                },
            )
            .collect()
    }
}

/// Steps game `i` of `p` (see [`Batch::step`]), whatever its kind.
fn step_one(c: &Ctx<'_>, p: &mut Part<'_>, i: usize) {
    let g = &mut p.slots[i];
    if p.active.is_some_and(|a| !a[i]) {
        p.out.rewards[i] = 0.0;
        p.out.dones[i] = false;
        p.fin[i] = [0; 2];
        g.write_observation(c.m, &mut p.out.observations[i * c.k..(i + 1) * c.k]);
        g.write_mask(&mut p.out.masks[i * c.m..(i + 1) * c.m]);
        return;
    }
    let pit = match &mut p.acts {
        PartActions::Given(a) => a[i] as u8,
        PartActions::Random(a) => {
            let pit = g.pick(&mut p.rngs[i]);
            a[i] = pit as i64;
            pit
        }
    };
    let side = g.to_move();
    g.play(pit, c.fast);
    if g.is_over() {
        let (outcome, scores) = g.result();
        p.out.rewards[i] = c.reward.of_result(outcome, scores, c.misere, side);
        p.out.dones[i] = true;
        p.fin[i] = scores;
        if let Some(f) = p.finals.as_deref_mut() {
            g.write_observation_for(side, &mut f[i * c.k..(i + 1) * c.k]);
        }
        *g = Batch::fresh(c.start, c.opening, &mut p.rngs[i], c.fast);
    } else {
        p.out.rewards[i] = 0.0;
        p.out.dones[i] = false;
        p.fin[i] = [0; 2];
    }
    g.write_observation(c.m, &mut p.out.observations[i * c.k..(i + 1) * c.k]);
    g.write_mask(&mut p.out.masks[i * c.m..(i + 1) * c.m]);
}

/// Steps the games of `p` as [`step_one`] does, for games on the fast board of `M` pits: the
/// pit count a constant, so that the sowing, the observation and the mask are straight-line
/// code, and a game that ends starts again from a copy of the start where there is no
/// opening to draw.
fn step_fast<const M: usize>(f: &Fast, c: &Ctx<'_>, p: &mut Part<'_>) {
    debug_assert_eq!((c.k, c.m), (2 * M + 2, M));
    // Every buffer cut to the part's games once, so that the loop indexes without checks,
    // and the choice between given and drawn actions made once, not at every game.
    let n = p.slots.len();
    let Part {
        slots,
        rngs,
        fin,
        legal,
        acts,
        out,
        active,
        finals,
    } = p;
    let b = FastBufs {
        active: active.map(|a| &a[..n]),
        finals: finals.as_deref_mut().map(|f| &mut f[..n * (2 * M + 2)]),
        rngs: &mut rngs[..n],
        fin: &mut fin[..n],
        legal: &mut legal[..n],
        rewards: &mut out.rewards[..n],
        dones: &mut out.dones[..n],
        observations: &mut out.observations[..n * (2 * M + 2)],
        masks: &mut out.masks[..n * M],
    };
    match acts {
        PartActions::Given(a) => {
            let a = &a[..n];
            step_fast_with::<M>(f, c, slots, b, |i, _, _| a[i] as u8)
        }
        PartActions::Random(a) => {
            let a = &mut a[..n];
            step_fast_with::<M>(f, c, slots, b, |i, bits, rng| {
                let pit = nth_bit(bits, below_small(rng, bits.count_ones()));
                a[i] = pit as i64;
                pit
            })
        }
    }
}

/// The buffers of a part's games, each cut to their number ([`step_fast`]).
struct FastBufs<'a> {
    active: Option<&'a [bool]>,
    finals: Option<&'a mut [f32]>,
    rngs: &'a mut [Rng],
    fin: &'a mut [[u16; 2]],
    legal: &'a mut [u8],
    rewards: &'a mut [f32],
    dones: &'a mut [bool],
    observations: &'a mut [f32],
    masks: &'a mut [bool],
}

/// [`step_fast`]'s loop, the move of game `i` chosen by `pick(i, its legal bits, its
/// generator)` (the bits kept from the last step, not read from the board again).
#[inline(always)]
fn step_fast_with<const M: usize>(
    f: &Fast,
    c: &Ctx<'_>,
    slots: &mut [Slot],
    mut b: FastBufs<'_>,
    mut pick: impl FnMut(usize, u8, &mut Rng) -> u8,
) {
    let rows = b.observations.chunks_exact_mut(2 * M + 2);
    let masks = b.masks.chunks_exact_mut(M);
    for (i, (obs, mask)) in rows.zip(masks).enumerate() {
        let (slot, rng) = (&mut slots[i], &mut b.rngs[i]);
        let Play::Fast(g) = &mut slot.play else {
            unreachable!("a batch on the fast board plays every game on it")
        };
        debug_assert_eq!(
            b.legal[i],
            g.legal_bits(),
            "the kept legal bits of game {i}"
        );
        let over = if b.active.is_some_and(|a| !a[i]) {
            b.rewards[i] = 0.0;
            b.fin[i] = [0; 2];
            false
        } else {
            let pit = pick(i, b.legal[i], rng);
            let side = g.to_move();
            // The game before the move, kept where a final observation may be wanted.
            let before = b.finals.is_some().then_some(*g);
            f.rules.step_pits::<M>(g, pit);
            let over = g.is_over();
            if over {
                let scores = g.scores();
                let outcome = Some(fast_outcome(scores));
                let scores = scores.map(u16::from);
                b.rewards[i] = c.reward.of_result(outcome, scores, c.misere, side);
                b.fin[i] = scores;
                if let (Some(f), Some(before)) = (b.finals.as_deref_mut(), before) {
                    let row = &mut f[i * (2 * M + 2)..(i + 1) * (2 * M + 2)];
                    final_observation(&before, pit, c.start.rules(), side, row);
                }
                if c.opening == 0 {
                    *g = f.start;
                } else {
                    *slot = Batch::fresh(c.start, c.opening, rng, c.fast);
                }
            } else {
                b.rewards[i] = 0.0;
                b.fin[i] = [0; 2];
            }
            over
        };
        b.dones[i] = over;
        let Play::Fast(g) = &slot.play else {
            unreachable!("a fast game starts again on the fast board")
        };
        // The legal moves read once from the board, before any store (which the compiler
        // could not tell apart from the board) for both the mask and the bits.
        let (bytes, bits) = (g.legal_bytes(), g.legal_bits());
        b.legal[i] = bits;
        fast_observation_m::<M>(g, obs);
        fast_mask(bytes, mask);
    }
}

/// Games a chunk of a parallel step takes (more where a batch would have more than 4096
/// chunks). A step of fewer than two chunks runs on the caller's thread.
const CHUNK: usize = 128;

/// Games a chunk of a parallel step of `n` games takes, and the team that shares it (`team`,
/// else the process's), or `None` where the caller steps them alone (fewer than two chunks,
/// or a team of one thread). The process's team is started only by a step that needs it.
fn chunk(n: usize, team: Option<&'static Team>) -> Option<(usize, &'static Team)> {
    let c = CHUNK.max(n.div_ceil(4096));
    if n < 2 * c {
        return None;
    }
    let team = team.unwrap_or_else(Team::global);
    (team.threads() > 1).then_some((c, team))
}

/// `n` games of one start position, stepped together (batches of two chunks or more shared
/// with the process's [`Team`]).
///
/// Each game draws its openings and [`Batch::sample_actions`] from its own generator, seeded
/// from the batch's seed and its index ([`Rng::derive`]), so a seed gives the same games
/// whatever the threads.
#[derive(Clone, Debug)]
pub struct Batch {
    start: Position,
    slots: Vec<Slot>,
    rngs: Vec<Rng>,
    opening: u32,
    reward: Reward,
    final_scores: Vec<[u16; 2]>,
    /// The legal moves of each game on the fast board as bits (bit `i`: own pit `i`), which
    /// a step's check reads: reading the games themselves, half of them in a helper's cache
    /// after a shared step, cost as much as the step.
    legal: Vec<u8>,
    /// The fast board's rules, where the games step on it (see the module docs).
    fast: Option<Fast>,
    /// The threads that share large steps: `None` for the process's ([`Team::global`],
    /// started by the first step that needs it), [`Team::alone`] when not parallel, or a
    /// test's.
    team: Option<&'static Team>,
    /// Where the batch chooses for itself whether to share each step with `team` (the
    /// default): the chooser, which times the steps ([`crate::auto`]).
    auto: Option<Chooser>,
}

impl Batch {
    /// `n` games from `start`, each opened by up to `opening` random plies (the number drawn
    /// for each game, 0 to `opening`), the generators seeded from `seed`. Actions and masks
    /// are pits: under the pie rule the swap ([`mancala_core::SWAP`]) is an action the masks
    /// do not show, so the Python `VecGame` refuses rules with the pie rule.
    pub fn new(start: Position, n: usize, seed: u64, opening: u32, reward: Reward) -> Batch {
        Batch::with_path(start, n, seed, opening, reward, Fast::new(&start))
    }

    /// As [`Batch::new`], every game on the generic path even where the fast board could
    /// play it: the same games, for tests and benchmarks that compare the two.
    #[doc(hidden)]
    pub fn new_generic(
        start: Position,
        n: usize,
        seed: u64,
        opening: u32,
        reward: Reward,
    ) -> Batch {
        Batch::with_path(start, n, seed, opening, reward, None)
    }

    fn with_path(
        start: Position,
        n: usize,
        seed: u64,
        opening: u32,
        reward: Reward,
        fast: Option<Fast>,
    ) -> Batch {
        let mut b = Batch {
            start,
            slots: vec![Slot::new(start, fast.as_ref()); n],
            rngs: Vec::new(),
            opening,
            reward,
            final_scores: vec![[0; 2]; n],
            legal: vec![0; n],
            fast,
            team: None,
            auto: Some(Chooser::new()),
        };
        b.reset(Some(seed));
        b
    }

    /// Whether large steps are shared with the process's helper threads ([`Team::global`]:
    /// `Some(true)`) or run on the caller's thread alone (`Some(false)`), or chosen step
    /// by step from the steps' times (`None`, the default: see [`crate::auto`]). The games
    /// are the same either way.
    pub fn set_parallel(&mut self, parallel: Option<bool>) {
        self.team = match parallel {
            Some(false) => Some(Team::alone()),
            _ => None,
        };
        self.auto = parallel.is_none().then(Chooser::new);
    }

    /// Whether large steps are shared with helper threads (`Some(true)`), run alone
    /// (`Some(false)`), or chosen step by step (`None`).
    pub fn parallel(&self) -> Option<bool> {
        match self.auto {
            Some(_) => None,
            None => Some(self.team.unwrap_or_else(Team::global).threads() > 1),
        }
    }

    /// Whether the next step is shared with helper threads: never for a batch too small to
    /// share (fewer than two chunks), else always, never, or as the chooser has it now.
    pub fn shares_now(&self) -> bool {
        chunk(self.slots.len(), self.team_now()).is_some()
    }

    /// The team that shares a step now: `team`, or the caller alone where the chooser says
    /// so.
    fn team_now(&self) -> Option<&'static Team> {
        match &self.auto {
            Some(c) if !c.share_next() => Some(Team::alone()),
            _ => self.team,
        }
    }

    /// The batch, its large steps always shared by `team` instead of the process's (for
    /// tests of other thread counts).
    #[doc(hidden)]
    pub fn with_team(self, team: &'static Team) -> Batch {
        Batch {
            team: Some(team),
            auto: None,
            ..self
        }
    }

    /// Whether the games step on the engine's fast board (see the module docs).
    pub fn is_fast(&self) -> bool {
        self.fast.is_some()
    }

    /// A new game from `start`, opened by up to `opening` random plies drawn from `rng`.
    fn fresh(start: Position, opening: u32, rng: &mut Rng, fast: Option<&Fast>) -> Slot {
        let mut g = Slot::new(start, fast);
        if opening > 0 {
            let plies = rng.below(opening as usize + 1);
            for _ in 0..plies {
                let legal = g.legal_moves();
                if legal.is_empty() {
                    break;
                }
                g.play(rng.pick(legal.as_slice()), fast);
            }
            // An opening that ended the game gives the plain start instead.
            if g.is_over() {
                g = Slot::new(start, fast);
            }
        }
        g
    }

    /// Starts every game again, the generators seeded anew from `seed` when given.
    pub fn reset(&mut self, seed: Option<u64>) {
        if let Some(s) = seed {
            self.rngs = (0..self.slots.len() as u64)
                .map(|i| Rng::new(Rng::derive(s, i)))
                .collect();
        }
        let (start, opening, fast) = (self.start, self.opening, self.fast.as_ref());
        for (slot, rng) in self.slots.iter_mut().zip(&mut self.rngs) {
            *slot = Batch::fresh(start, opening, rng, fast);
        }
        self.final_scores.fill([0; 2]);
        for (bits, slot) in self.legal.iter_mut().zip(&self.slots) {
            *bits = match &slot.play {
                Play::Fast(g) => g.legal_bits(),
                _ => 0,
            };
        }
    }

    /// Game `i` as its start and the pits played since (oldest first): for games that keep
    /// their positions for the repetition rule, the start of the game and its moves; for the
    /// others, the position now and no move. [`Batch::set_game`] takes it back.
    pub fn game_state(&self, i: usize) -> (Position, Vec<u8>) {
        match &self.slots[i].play {
            Play::Kept(g) => (*g.start(), g.moves().iter().map(|m| m.pit).collect()),
            _ => (self.position(i), Vec::new()),
        }
    }

    /// Makes game `i` the game from `start` with `moves` played (as [`Batch::game_state`]
    /// gives it), clearing its final scores. Refused, and the game left as it was: an index
    /// out of range, other rules than the batch's, an illegal move, a game that is over, or
    /// a position the batch's board cannot hold (more seeds than its games have).
    pub fn set_game(&mut self, i: usize, start: Position, moves: &[u8]) -> Result<(), String> {
        let n = self.slots.len();
        if i >= n {
            return Err(format!("game {i}: the batch has {n} games"));
        }
        if start.rules() != self.rules() {
            return Err(format!(
                "game {i}: the position plays `{}`, not the batch's `{}`",
                start.rules(),
                self.rules()
            ));
        }
        let mut g = Game::new(start);
        for (k, &pit) in moves.iter().enumerate() {
            if g.is_over() || !g.legal_moves().contains(pit) {
                return Err(format!("game {i}: move {k} (pit {pit}) is not legal"));
            }
            g.play(pit)
                .map_err(|e| format!("game {i}: move {k}: {e}"))?;
        }
        if g.is_over() {
            return Err(format!(
                "game {i}: the game is over (a batch's games are never over)"
            ));
        }
        let slot = match (&self.fast, start.rules().can_repeat()) {
            (Some(f), _) => {
                let p = *g.position();
                let total: u32 = [Side::South, Side::North]
                    .iter()
                    .map(|&s| (0..p.pits()).map(|j| p.seeds(s, j) as u32).sum::<u32>())
                    .sum::<u32>()
                    + p.scores().iter().map(|&s| s as u32).sum::<u32>();
                let game = p
                    .as_kalah()
                    .filter(|_| total <= 255)
                    .and_then(|k| f.rules.game(k))
                    .ok_or_else(|| {
                        format!("game {i}: {total} seeds do not fit the batch's board")
                    })?;
                Slot {
                    play: Play::Fast(game),
                    legal: Moves::default(),
                }
            }
            (None, true) => {
                let mut s = Slot {
                    play: Play::Kept(g),
                    legal: Moves::default(),
                };
                s.legal = s.read_legal();
                s
            }
            (None, false) => Slot::new(*g.position(), None),
        };
        self.legal[i] = match &slot.play {
            Play::Fast(g) => g.legal_bits(),
            _ => 0,
        };
        self.slots[i] = slot;
        self.final_scores[i] = [0; 2];
        Ok(())
    }

    /// The state of every game's generator (from which [`Batch::set_rng_states`] continues).
    pub fn rng_states(&self) -> Vec<u64> {
        self.rngs
            .iter()
            .map(|r| {
                r.splitmix_state()
                    .expect("a batch's generators are SplitMix64")
            })
            .collect()
    }

    /// Sets every game's generator to a state of [`Batch::rng_states`]; refused for another
    /// number of states than games.
    pub fn set_rng_states(&mut self, states: &[u64]) -> Result<(), String> {
        if states.len() != self.rngs.len() {
            return Err(format!(
                "{} generator states for {} games",
                states.len(),
                self.rngs.len()
            ));
        }
        self.rngs = states.iter().map(|&s| Rng::new(s)).collect();
        Ok(())
    }

    /// Sets the final scores [`Batch::final_scores`] reports (as a copy's), one pair a game;
    /// refused for another number of pairs than games.
    pub fn set_final_scores(&mut self, scores: &[[u16; 2]]) -> Result<(), String> {
        if scores.len() != self.final_scores.len() {
            return Err(format!(
                "{} final scores for {} games",
                scores.len(),
                self.final_scores.len()
            ));
        }
        self.final_scores.copy_from_slice(scores);
        Ok(())
    }

    /// The batch's start, the bound of its openings and its reward.
    pub fn config(&self) -> (Position, u32, Reward) {
        (self.start, self.opening, self.reward)
    }

    /// Games in the batch.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the batch holds no game.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The position of game `i` now (made from the fast board where the games step on it).
    pub fn position(&self, i: usize) -> Position {
        self.slots[i].position(self.start.rules())
    }

    /// The side to move in game `i`.
    pub fn to_move(&self, i: usize) -> Side {
        self.slots[i].to_move()
    }

    /// The rules of the games.
    pub fn rules(&self) -> &Rules {
        self.start.rules()
    }

    /// Plays one move in every game: `actions` given (own pit `i`, 0-based from the mover's
    /// left, in game `i`) or drawn at random. A game that ends is marked done, its stores kept
    /// in [`Batch::final_scores`], and is started again; then every game's observation and
    /// legal-move mask are written, in the same pass over the games.
    ///
    /// Errors: the wrong number of actions, or an illegal one (naming its game); then no game
    /// has moved. Panics when a buffer of `out` is not of its length for these games (a
    /// caller's fault, not input's).
    pub fn step(&mut self, actions: Actions<'_>, out: StepOut<'_>) -> Result<(), Error> {
        self.step_some(actions, out, StepSome::default())
    }

    /// [`Batch::step`], moving only the games `some.active` names and writing the final
    /// observation of each game that ends into `some.finals` (see [`StepSome`]): what an
    /// environment needs that starts a finished game again at the step after its end, or
    /// that hands on the finished position along with the new game's.
    ///
    /// Errors as [`Batch::step`]'s (the actions of games that do not move are not checked).
    /// Panics, as for `out`, when `some`'s buffers are not of their lengths for these games.
    pub fn step_some(
        &mut self,
        actions: Actions<'_>,
        out: StepOut<'_>,
        some: StepSome<'_>,
    ) -> Result<(), Error> {
        let n = self.slots.len();
        let (k, m) = (observation_len(self.rules()), self.start.pits());
        assert!(
            out.rewards.len() == n
                && out.dones.len() == n
                && out.observations.len() == n * k
                && out.masks.len() == n * m
                && some.active.is_none_or(|a| a.len() == n)
                && some.finals.as_ref().is_none_or(|f| f.len() == n * k),
            "step buffers for {n} games"
        );
        let StepSome { active, finals } = some;
        let mut actions = actions;
        match &mut actions {
            Actions::Given(acts) => self.check(acts, active)?,
            Actions::Random(acts) => {
                if acts.len() != n {
                    return Err(Error::IllegalMove(
                        Msg::new("error.batch.count")
                            .arg("actions", acts.len())
                            .arg("games", n),
                    ));
                }
                // Games that do not move draw nothing.
                if let Some(active) = active {
                    for (a, &on) in acts.iter_mut().zip(active) {
                        if !on {
                            *a = -1;
                        }
                    }
                }
            }
        }
        let c = Ctx {
            start: self.start,
            opening: self.opening,
            reward: self.reward,
            misere: self.rules().misere(),
            fast: self.fast.as_ref(),
            k,
            m,
        };
        let acts = match actions {
            Actions::Given(a) => PartActions::Given(a),
            Actions::Random(a) => PartActions::Random(a),
        };
        // The chooser times the large steps of either way (a step that stays on the caller's
        // thread in any case is left out).
        let timing = self.auto.is_some() && chunk(n, None).is_some();
        let began = Clock::now();
        let split = chunk(n, self.team_now());
        let whole = Part {
            slots: &mut self.slots,
            rngs: &mut self.rngs,
            fin: &mut self.final_scores,
            legal: &mut self.legal,
            acts,
            out,
            active,
            finals,
        };
        match split {
            None => step_part(&c, whole),
            Some((size, team)) => {
                let parts: Vec<Mutex<Option<Part<'_>>>> = whole
                    .split(size, k, m)
                    .into_iter()
                    .map(|p| Mutex::new(Some(p)))
                    .collect();
                team.run(parts.len(), &|i| {
                    let part = parts[i].lock().map(|mut p| p.take());
                    step_part(&c, part.ok().flatten().expect("each part is stepped once"))
                });
            }
        }
        if let Some(a) = self.auto.as_mut().filter(|_| timing) {
            a.record(began.elapsed());
        }
        Ok(())
    }

    /// Refuses the wrong number of actions or an illegal one of a game that moves (every
    /// game, or those `active` names), naming its game.
    fn check(&self, actions: &[i64], active: Option<&[bool]>) -> Result<(), Error> {
        if actions.len() != self.slots.len() {
            return Err(Error::IllegalMove(
                Msg::new("error.batch.count")
                    .arg("actions", actions.len())
                    .arg("games", self.slots.len()),
            ));
        }
        let bad = match (self.fast.is_some(), active) {
            (true, None) => {
                let allows = |bits: u8, a: i64| (0..8).contains(&a) && bits >> a & 1 != 0;
                self.legal
                    .iter()
                    .zip(actions)
                    .position(|(&bits, &a)| !allows(bits, a))
            }
            (false, None) => self
                .slots
                .iter()
                .zip(actions)
                .position(|(g, &a)| !g.allows(a)),
            (_, Some(on)) => {
                (0..actions.len()).position(|i| on[i] && !self.slots[i].allows(actions[i]))
            }
        };
        let Some(i) = bad else {
            return Ok(());
        };
        Err(Error::IllegalMove(
            Msg::new("error.batch.illegal")
                .arg("game", i)
                .arg("pit", actions[i])
                .arg(
                    "legal",
                    format!("{:?}", self.slots[i].legal_moves().as_slice()),
                ),
        ))
    }

    /// The stores (South, North) at the end of each game that ended at the last step; zeros
    /// for the others and before any step.
    pub fn final_scores(&self) -> &[[u16; 2]] {
        &self.final_scores
    }

    /// Writes every game's observation (see the module docs), one row a game.
    pub fn write_observations(&self, out: &mut [f32]) {
        let (k, m) = (observation_len(self.rules()), self.start.pits());
        let fill = |(slots, rows): (&[Slot], &mut [f32])| {
            for (g, row) in slots.iter().zip(rows.chunks_exact_mut(k)) {
                g.write_observation(m, row);
            }
        };
        match chunk(self.slots.len(), self.team_now()) {
            Some((c, team)) => {
                let rows: Vec<Mutex<&mut [f32]>> = out.chunks_mut(c * k).map(Mutex::new).collect();
                team.run(rows.len(), &|i| {
                    let slots = &self.slots[i * c..self.slots.len().min((i + 1) * c)];
                    if let Ok(mut rows) = rows[i].lock() {
                        fill((slots, &mut rows));
                    }
                });
            }
            None => fill((&self.slots[..], out)),
        }
    }

    /// Writes every game's legal-move mask, one row of `m` pits a game.
    pub fn write_masks(&self, out: &mut [bool]) {
        let m = self.start.pits();
        for (g, row) in self.slots.iter().zip(out.chunks_exact_mut(m)) {
            g.write_mask(row);
        }
    }

    /// Writes a legal move of every game, drawn uniformly from its generator.
    pub fn sample_actions(&mut self, out: &mut [i64]) {
        if self.fast.is_some() {
            // From the kept legal bits, as `Slot::pick` draws from the board's: the games
            // themselves stay where the last step left them (half in a helper's cache).
            let draws = self.legal.iter().zip(&mut self.rngs).zip(out.iter_mut());
            for ((&bits, rng), a) in draws {
                *a = nth_bit(bits, below_small(rng, bits.count_ones())) as i64;
            }
            return;
        }
        for ((g, rng), a) in self.slots.iter().zip(&mut self.rngs).zip(out.iter_mut()) {
            *a = g.pick(rng) as i64;
        }
    }
}

#[cfg(test)]
mod tests;
