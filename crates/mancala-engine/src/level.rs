//! Playing levels: how deep and how long the computer thinks, and how much it errs.

use super::*;

/// A playing level: how deep and how long the computer thinks, and how much it errs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    /// The level's number, in [`LEVELS`].
    pub level: u8,
    /// Plies searched (`None`: to the time limit).
    pub depth: Option<u32>,
    /// Thinking time a move (`None`: to the depth limit).
    pub time: Option<Duration>,
    /// Moves within this many seeds of the best may be picked at random (human mistakes).
    pub noise: i32,
    /// Search threads.
    pub threads: usize,
}

/// The lowest level that plays the pie rule's choices by value ([`think::pie_choice`]); the
/// levels below err there as anywhere.
pub const PIE_LEVEL: u8 = 4;

/// The least depth, in plies, that a level plays the pie rule's choices to
/// ([`PIE_LEVEL`]); the choice comes once a game.
pub const PIE_DEPTH: u32 = 12;

/// Lowest and highest level.
pub const LEVELS: core::ops::RangeInclusive<u8> = 1..=8;

impl Level {
    /// The documented settings of each level (docs/analysis.md, "Engine and levels").
    pub fn new(level: u8) -> Option<Level> {
        let (depth, time, noise, threads) = match level {
            1 => (Some(1), None, 4, 1),
            2 => (Some(2), None, 3, 1),
            3 => (Some(3), None, 2, 1),
            4 => (Some(4), None, 1, 1),
            5 => (Some(6), None, 0, 1),
            6 => (Some(10), None, 0, 1),
            7 => (Some(16), Some(1000), 0, 1),
            8 => (None, Some(3000), 0, 2),
            _ => return None,
        };
        Some(Level {
            level,
            depth,
            time: time.map(Duration::from_millis),
            noise,
            threads,
        })
    }

    /// The level with `time` a move instead of its own: it thinks that long, to its depth
    /// limit where it has one (a level that errs on purpose searches to its depth alone, so
    /// only levels 5 and up are changed; 7 keeps its 16 plies, 8 searches to the time).
    pub fn with_time(self, time: Duration) -> Level {
        if self.noise > 0 {
            return self;
        }
        Level {
            time: Some(time),
            ..self
        }
    }

    /// Chooses a move for the side to move, with a fresh engine. `seed` drives the level's
    /// randomness. `None` when the game is over. Always a legal move.
    ///
    /// Each thread keeps one engine per table size and reuses it while the rules stay the
    /// same (entries of one game's rules are valid for another game with those rules), so
    /// repeated calls do not allocate a table each time.
    pub fn choose(&self, pos: &Position, history: &[Position], seed: u64) -> Option<u8> {
        self.decide(pos, history, seed).map(|d| d.pit)
    }

    /// As [`Level::choose`], with the value the level's search gave the position.
    pub fn decide(&self, pos: &Position, history: &[Position], seed: u64) -> Option<Decision> {
        use std::cell::RefCell;
        thread_local! {
            static CACHE: RefCell<Vec<(mancala_core::Rules, usize, usize, Engine)>> =
                const { RefCell::new(Vec::new()) };
        }
        let mb = if self.level >= 6 { 64 } else { 4 };
        CACHE.with(|c| {
            let mut c = c.borrow_mut();
            let k = match c.iter().position(|e| e.1 == mb && e.2 == self.threads) {
                Some(k) => k,
                None => {
                    let engine = Engine::new(mb, self.threads);
                    // Mapped in before the first search's clock starts.
                    if self.time.is_some() {
                        engine.prefault();
                    }
                    c.push((*pos.rules(), mb, self.threads, engine));
                    c.len() - 1
                }
            };
            if c[k].0 != *pos.rules() {
                c[k].3.clear();
                c[k].0 = *pos.rules();
            }
            self.decide_with(&c[k].3, pos, history, seed)
        })
    }

    /// As [`Level::choose`], with an engine kept across moves.
    pub fn choose_with(
        &self,
        engine: &Engine,
        pos: &Position,
        history: &[Position],
        seed: u64,
    ) -> Option<u8> {
        self.decide_with(engine, pos, history, seed).map(|d| d.pit)
    }

    /// As [`Level::decide`], with an engine kept across moves.
    pub fn decide_with(
        &self,
        engine: &Engine,
        pos: &Position,
        history: &[Position],
        seed: u64,
    ) -> Option<Decision> {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            return None;
        }
        if legal.len() == 1 {
            return Some(Decision {
                pit: legal.as_slice()[0],
                eval: None,
                depth: None,
            });
        }
        let budget = Budget::from(Limits {
            depth: self.depth,
            time: self.time,
            nodes: None,
        });
        // Under the pie rule, from level 4 up, the first move and the swap are chosen by what
        // the opponent's best reply leaves ([`think::pie_choice`]), searched to at least
        // [`PIE_DEPTH`]: a pick at random there hands the opponent a free swap, and a shallow
        // search misjudges which first moves the swap punishes (docs/decisions.md).
        let pie = self.level >= PIE_LEVEL;
        let pie_budget = Budget {
            depth: budget.depth.map(|d| d.max(PIE_DEPTH)),
            ..budget
        };
        if let Some(c) = pie
            .then(|| think::pie_choice(engine, pos, history, pie_budget))
            .flatten()
        {
            return Some(Decision {
                pit: c.best.pit,
                eval: Some(c.best.eval),
                depth: match c.best.eval.quality {
                    Quality::Proven => None,
                    Quality::Searched { depth } => Some(depth),
                },
            });
        }
        if self.noise > 0 {
            let limits = Limits {
                depth: Some(self.depth.unwrap_or(1)),
                ..Limits::default()
            };
            let values = engine.analyze_moves(pos, limits, history);
            let best = values.iter().map(|v| v.eval.score()).max()?;
            let near: Vec<u8> = values
                .iter()
                .filter(|v| v.eval.score() >= best - self.noise)
                .map(|v| v.pit)
                .collect();
            return Some(Decision {
                pit: near[(mix(seed) % near.len() as u64) as usize],
                eval: None,
                depth: None,
            });
        }
        // Against the clock, a proof where one is likely to finish ([`think::engine_move`],
        // the engine proving as well as searching); the level's depth bounds the search.
        think::engine_move(engine, engine, pos, history, budget, None).map(|r| Decision {
            pit: r.best,
            eval: Some(r.eval),
            depth: Some(r.depth),
        })
    }
}

/// A level's move, and the value its search gave the position (none for a forced move or a
/// level that errs on purpose).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    /// Own pit, 0-based from the mover's left.
    pub pit: u8,
    /// The position's value for the mover as the level's search found it (`None`: a forced
    /// move, or a level with noise, whose pick is random among the near-best).
    pub eval: Option<Evaluation>,
    /// The depth the search completed.
    pub depth: Option<u32>,
}
