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
//! whose positions can repeat keep each game as a [`Game`](mancala_core::Game) (its
//! positions for the repetition rule); the others play a [`Position`] copy-make. The three
//! give the same games, observations and draws from a seed.
//!
//! # Where the parts are
//! [`Batch`] (this module) holds the games and their generators, starts them and answers for
//! them; `slot` is one game of each kind, `step` a step, shared or not, `draw` a move drawn
//! from a policy's logits, `observe` the observations and masks, `reward` what a finished game pays, and `state` a batch's state
//! taken out and put back.

mod draw;
mod observe;
mod reward;
mod slot;
mod state;
mod step;
#[cfg(test)]
mod tests;

use std::sync::Mutex;

use mancala_core::rng::Rng;
use mancala_core::{Error, Position, Rules, Side};

use draw::draw_softmax;
pub use observe::{observation_len, write_mask, write_observation, write_observation_for};
pub use reward::Reward;
use slot::{below_small, nth_bit, Fast, Play, Slot};
use step::chunk;
pub use step::{Actions, StepOut, StepSome};

use crate::auto::Chooser;
use crate::team::Team;

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

    /// Writes a legal move of every game drawn from the softmax of a policy's logits over its
    /// legal moves (`logits` as for [`Actions::Policy`]), from its generator, as a step with
    /// those logits draws it. Errors as the step's: logits of the wrong length, or a game
    /// whose legal pits' logits cannot be drawn from (naming it); then nothing is drawn.
    pub fn sample_policy(&mut self, logits: &[f32], out: &mut [i64]) -> Result<(), Error> {
        self.check_logits(logits, None)?;
        let m = self.start.pits();
        assert_eq!(out.len(), self.slots.len(), "one action a game");
        let rows = logits
            .chunks_exact(m)
            .zip(&mut self.rngs)
            .zip(out.iter_mut());
        for (i, ((row, rng), a)) in rows.enumerate() {
            *a = match self.fast {
                Some(_) => draw_softmax::<8>(self.legal[i].into(), row, rng),
                None => self.slots[i].draw(row, rng),
            } as i64;
        }
        Ok(())
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
