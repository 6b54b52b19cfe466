//! A step of the batch: every game (or those named) moved by its action, the results written
//! and the games that end started again, on the caller's thread or cut into parts that a
//! [`Team`] shares; on the fast board, one loop a pit count.

use std::sync::Mutex;

use mancala_core::rng::Rng;
use mancala_core::{Error, Msg, Position};

use super::draw::{check_logits, draw_softmax, legal_of_bits};
use super::observe::{fast_mask, fast_observation_m, final_observation, observation_len};
use super::slot::{below_small, fast_outcome, nth_bit, Fast, Play, Slot};
use super::{Batch, Reward};
use crate::auto::Clock;
use crate::team::Team;

/// The moves of a step.
pub enum Actions<'a> {
    /// Own pit `actions[i]` (0-based from the mover's left) in game `i`; every action is
    /// checked before any game moves.
    Given(&'a [i64]),
    /// A uniformly random legal move in every game, drawn from the game's generator as
    /// [`Batch::sample_actions`] draws it, and written here.
    Random(&'a mut [i64]),
    /// A legal move of every game drawn from the softmax of a policy's logits over its legal
    /// moves (`logits[i * m + p]` for own pit `p` of game `i`, `m` pits a game; -inf gives a
    /// pit no chance, the logits of illegal pits are not read), from the game's generator,
    /// and written to `out`. Every game's logits are checked before any game moves.
    Policy {
        /// One logit a pit and game.
        logits: &'a [f32],
        /// Where the moves drawn are written.
        out: &'a mut [i64],
    },
}

/// The actions of the games a task steps.
enum PartActions<'a> {
    Given(&'a [i64]),
    Random(&'a mut [i64]),
    Policy(&'a [f32], &'a mut [i64]),
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

impl Batch {
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
            Actions::Random(acts) => draw_nothing(acts, active, n)?,
            Actions::Policy { logits, out } => {
                self.check_logits(logits, active)?;
                draw_nothing(out, active, n)?;
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
            Actions::Policy { logits, out } => PartActions::Policy(logits, out),
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

    /// Refuses logits that are not one a pit and game, or a game that moves whose legal pits'
    /// logits cannot be drawn from ([`check_logits`]), naming its game.
    pub(super) fn check_logits(
        &self,
        logits: &[f32],
        active: Option<&[bool]>,
    ) -> Result<(), Error> {
        let m = self.start.pits();
        if logits.len() != self.slots.len() * m {
            return Err(Error::Logits(
                Msg::new("error.batch.logits-count")
                    .arg("logits", logits.len())
                    .arg("games", self.slots.len())
                    .arg("pits", m),
            ));
        }
        let legal = |i: usize| match self.fast {
            // The kept bits, as the step's check of given actions reads them.
            Some(_) => u16::from(self.legal[i]),
            None => self.slots[i].legal_pits().fold(0u16, |b, p| b | 1 << p),
        };
        let moves = |i: usize| active.is_none_or(|a| a[i]);
        // One pass without branches over every game; the slow one that names the game only
        // where it finds a fault.
        let fine = logits.chunks_exact(m).enumerate().all(|(i, row)| {
            let (bits, on) = (legal(i), moves(i));
            let (mut bad, mut any) = (false, false);
            for (p, &l) in row.iter().enumerate() {
                let legal = on && bits >> p & 1 != 0;
                bad |= legal & (l.is_nan() || l == f32::INFINITY);
                any |= legal & l.is_finite();
            }
            !bad && (any || !on)
        });
        if fine {
            return Ok(());
        }
        for (i, row) in logits
            .chunks_exact(m)
            .enumerate()
            .filter(|(i, _)| moves(*i))
        {
            let bits = legal(i);
            check_logits(legal_of_bits(bits), row).map_err(|why| {
                Error::Logits(match why {
                    Some((pit, logit)) => Msg::new("error.batch.logit")
                        .arg("game", i)
                        .arg("pit", pit)
                        .arg("logit", logit),
                    None => Msg::new("error.batch.no-logit").arg("game", i),
                })
            })?;
        }
        Ok(())
    }

    /// Refuses the wrong number of actions or an illegal one of a game that moves (every
    /// game, or those `active` names), naming its game.
    pub(super) fn check(&self, actions: &[i64], active: Option<&[bool]>) -> Result<(), Error> {
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
            PartActions::Policy(s, a) => s
                .chunks(c * m)
                .zip(a.chunks_mut(c))
                .map(|(s, a)| PartActions::Policy(s, a))
                .collect(),
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
        PartActions::Policy(s, a) => {
            let pit = g.draw(&s[i * c.m..(i + 1) * c.m], &mut p.rngs[i]);
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
        PartActions::Policy(s, a) => {
            let (s, a) = (&s[..n * M], &mut a[..n]);
            step_fast_with::<M>(f, c, slots, b, |i, bits, rng| {
                // Eight lanes whatever `M`: two vectors of four.
                let pit = draw_softmax::<8>(bits.into(), &s[i * M..(i + 1) * M], rng);
                a[i] = pit as i64;
                pit
            })
        }
    }
}

/// Checks that `acts` holds one entry a game (`n`), and marks those of games that do not move
/// (-1): they draw nothing.
fn draw_nothing(acts: &mut [i64], active: Option<&[bool]>, n: usize) -> Result<(), Error> {
    if acts.len() != n {
        return Err(Error::IllegalMove(
            Msg::new("error.batch.count")
                .arg("actions", acts.len())
                .arg("games", n),
        ));
    }
    if let Some(active) = active {
        for (a, &on) in acts.iter_mut().zip(active) {
            if !on {
                *a = -1;
            }
        }
    }
    Ok(())
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
pub(super) const CHUNK: usize = 128;

/// Games a chunk of a parallel step of `n` games takes, and the team that shares it (`team`,
/// else the process's), or `None` where the caller steps them alone (fewer than two chunks,
/// or a team of one thread). The process's team is started only by a step that needs it.
pub(super) fn chunk(n: usize, team: Option<&'static Team>) -> Option<(usize, &'static Team)> {
    let c = CHUNK.max(n.div_ceil(4096));
    if n < 2 * c {
        return None;
    }
    let team = team.unwrap_or_else(Team::global);
    (team.threads() > 1).then_some((c, team))
}
