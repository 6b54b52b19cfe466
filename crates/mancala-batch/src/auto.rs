//! The choice, made while a batch steps, between sharing its large steps with the helper
//! threads and stepping them on the calling thread alone ([`Chooser`]).
//!
//! Helpers pay where their cores are idle; where other processes keep those cores busy, a
//! helper that claimed a chunk can be descheduled in the middle of it, and the caller then
//! waits out another process's time slice (milliseconds, for a step of a tenth of one), a
//! spinning helper takes time other threads need, and the games' data move between caches.
//! None of this shows beforehand (`/proc/loadavg` is a minute's average, and counts this
//! process too), so the chooser times the steps themselves: it keeps the times of the recent
//! steps of the way in use, tries the other way for a few steps now and then, and keeps the
//! faster by the median step. Medians, because on a busy machine a few steps of either way
//! lose a whole time slice of the caller's own, which would swamp a mean of a few steps.
//!
//! A way that keeps winning is tried against less and less often (every [`FIRST`] steps,
//! doubling to every [`LAST`]), so that the trials of the slower way cost little; but where
//! shared steps slow down (the median of their last [`GROUP`] slower than at the last trial
//! by [`SLOWER`]: other processes came to the helpers' cores), stepping alone is tried at
//! once. Steps alone that slow down say nothing of the helpers (the caller's own core is
//! busier), and a load that goes away is found at the next trial.

use std::time::{Duration, Instant};

/// Steps between trials of the other way just after a change of way.
pub const FIRST: u32 = 64;
/// The most steps between trials of the other way.
pub const LAST: u32 = 4096;
/// Steps of a trial not timed: the helpers wake (or spin down) and the games' data move to
/// the cores that step them.
pub const WARM: u32 = 3;
/// Steps of a trial timed, after [`WARM`].
pub const TIMED: usize = 24;
/// Recent steps of the way in use whose median a trial is compared with.
pub const GROUP: usize = 24;
/// See the module docs.
pub const SLOWER: f64 = 0.3;
/// The other way's median must be below the way in use's by this fraction to replace it:
/// times this close are noise.
pub const MARGIN: f64 = 0.03;

/// A reading of the wall clock, for [`Chooser::record`].
#[derive(Clone, Copy, Debug)]
pub struct Clock(Instant);

impl Clock {
    /// The clock now.
    pub fn now() -> Clock {
        Clock(Instant::now())
    }

    /// The time since `self`.
    pub fn elapsed(self) -> Duration {
        self.0.elapsed()
    }
}

/// The median of `xs` (not empty).
fn median(xs: &[f32]) -> f32 {
    let mut v = xs.to_vec();
    v.sort_by(f32::total_cmp);
    v[v.len() / 2]
}

/// Chooses, step after step, whether a batch shares its steps (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct Chooser {
    /// The way in use: shared or alone.
    shared: bool,
    /// Steps of the way in use since the last trial.
    steps: u32,
    /// Steps of the way in use before the next trial.
    every: u32,
    /// The times (µs) of the way in use's last [`GROUP`] timed steps, a ring at
    /// `steps - WARM`.
    recent: [f32; GROUP],
    /// The median of `recent` at the last trial (0 before the first).
    median: f32,
    /// The trial under way: steps of the other way made so far, and the times (µs) of those
    /// timed.
    trial: Option<(u32, [f32; TIMED])>,
}

impl Default for Chooser {
    fn default() -> Chooser {
        Chooser::new()
    }
}

impl Chooser {
    /// A chooser that starts alone and tries the helpers after its first [`WARM`] +
    /// [`GROUP`] steps.
    pub fn new() -> Chooser {
        Chooser {
            shared: false,
            steps: 0,
            every: WARM + GROUP as u32,
            recent: [0.0; GROUP],
            median: 0.0,
            trial: None,
        }
    }

    /// Whether the next step is shared with the helpers.
    pub fn share_next(&self) -> bool {
        self.shared != self.trial.is_some()
    }

    /// Whether the way in use (trials aside) is to share.
    pub fn shared(&self) -> bool {
        self.shared
    }

    /// Records the time of the step just made (the way [`Chooser::share_next`] gave).
    pub fn record(&mut self, took: Duration) {
        let us = took.as_secs_f32() * 1e6;
        match &mut self.trial {
            None => {
                // The first steps after a trial are not the way's own.
                if self.steps >= WARM {
                    let k = (self.steps - WARM) as usize;
                    self.recent[k % GROUP] = us;
                    if self.shared
                        && (k + 1).is_multiple_of(GROUP)
                        && self.median > 0.0
                        && median(&self.recent) > self.median * (1.0 + SLOWER) as f32
                    {
                        // The way in use slowed down: the load changed.
                        self.every = FIRST;
                        self.trial = Some((0, [0.0; TIMED]));
                        self.steps += 1;
                        return;
                    }
                }
                self.steps += 1;
                if self.steps >= self.every {
                    self.trial = Some((0, [0.0; TIMED]));
                }
            }
            Some((done, times)) => {
                if *done >= WARM {
                    times[(*done - WARM) as usize] = us;
                }
                *done += 1;
                if *done < WARM + TIMED as u32 {
                    return;
                }
                let other = median(times);
                let filled = (self.steps.saturating_sub(WARM) as usize).min(GROUP);
                let mine = median(&self.recent[..filled.max(1)]);
                self.trial = None;
                self.steps = 0;
                if other < mine * (1.0 - MARGIN) as f32 {
                    self.shared = !self.shared;
                    self.every = FIRST;
                    self.median = other;
                } else {
                    self.every = (self.every * 2).clamp(FIRST, LAST);
                    self.median = mine;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Steps `c` for `steps` steps, each shared step taking `shared` µs and each alone step
    /// `alone`; returns the shared steps.
    fn run(c: &mut Chooser, steps: u32, shared: u64, alone: u64) -> u32 {
        let mut n = 0;
        for _ in 0..steps {
            let s = c.share_next();
            n += s as u32;
            c.record(Duration::from_micros(if s { shared } else { alone }));
        }
        n
    }

    /// Faster helpers are taken after the first trial and kept; the trials of stepping alone
    /// then come further and further apart.
    #[test]
    fn takes_helpers_that_pay() {
        let mut c = Chooser::new();
        assert!(!c.share_next());
        run(&mut c, 2 * WARM + (GROUP + TIMED) as u32, 60, 100);
        assert!(c.shared());
        let shared = run(&mut c, 20_000, 60, 100);
        assert!(c.shared());
        // Trials of 27 steps after 64, 128, ..., 4096 steps, then every 4096: 243 steps.
        assert!(shared > 19_700, "{shared} of 20000 steps shared");
    }

    /// Helpers that slow the steps (another process on their cores) are left, and tried
    /// again only now and then.
    #[test]
    fn leaves_helpers_that_lag() {
        let mut c = Chooser::new();
        let shared = run(&mut c, 20_000, 400, 100);
        assert!(!c.shared());
        assert!(shared < 300, "{shared} of 20000 steps shared");
    }

    /// A change of load is followed: helpers taken when the cores are idle, left when they
    /// become busy, taken again when they are idle again.
    #[test]
    fn follows_the_load() {
        let mut c = Chooser::new();
        run(&mut c, 2000, 60, 100);
        assert!(c.shared());
        let shared = run(&mut c, 20_000, 400, 100);
        assert!(!c.shared());
        assert!(shared < 350, "{shared} of 20000 busy steps shared");
        run(&mut c, 10_000, 60, 100);
        assert!(c.shared());
    }

    /// Times within the margin keep the way in use.
    #[test]
    fn noise_keeps_the_way() {
        let mut c = Chooser::new();
        run(&mut c, 2000, 99, 100);
        assert!(!c.shared());
    }
}
