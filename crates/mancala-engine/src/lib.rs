//! Search, exact solving and playing levels for every game of `mancala-core`.
//!
//! - [`Engine::search`]: iterative deepening alpha-beta with aspiration windows, a shared
//!   lock-free transposition table and lazy SMP threads, within depth, time and node limits.
//! - [`Engine::solve`]: the exact value by MTD(f) null-window searches to the end of the game;
//!   in Cross-Kalah, Kauri and Oware, where positions repeat, by retrograde analysis
//!   (`cyclic.rs`).
//! - [`Level`]: playing levels 1 (beginner) to 8 (strongest).
//!
//! Values are in seeds from the side to move's view: the final seed margin the search expects
//! (own minus opponent's). In Dracala (misère) the engine plays for the lowest margin; in Kauri
//! a tie decided by the cowrie rule counts one seed. See [`game`] for how the search values
//! positions internally, [`mod@search`] for the algorithms.
//!
//! The repetition rule of Cross-Kalah, Kauri and Oware is applied along each searched line and to the
//! game's history before the root (pass it to [`Engine::search`]); a search there never calls
//! its value proven, since its table shares values between lines the rule tells apart.

#![warn(missing_docs)]

mod budget;
pub mod clock;
mod cyclic;
pub mod fast;
pub mod game;
mod level;
pub mod mcts;
mod moves;
mod prove;
pub mod search;
pub mod split;
pub mod think;
pub mod tt;
pub mod value;

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::time::Duration;

use clock::Instant;

use mancala_core::rng::mix;
use mancala_core::with_family;
use mancala_core::{Position, Side};

pub use budget::Budget;
use game::{SearchGame, Weights};
pub use level::{Decision, Level, LEVELS, PIE_DEPTH, PIE_LEVEL};
use moves::evaluation;
pub use moves::{Judgement, MoveValue};
use search::{Shared, Worker, FULL_DEPTH};
use tt::Table;
pub use value::{Evaluation, Quality};

// Endgame databases as the search sees them, and their format, are `mancala-egdb-format`'s.
pub use mancala_egdb_format::{Oracle, PackedLevel, PackedTables};

/// What a request asks a search to spend, in durations; the engine's methods take it as a
/// [`Budget`], whose clock starts when it is made (`Budget::from(limits)`, or at the call).
/// Make the budget first where set-up (a table to allocate, a proof tried first) must count.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// Deepest iteration in plies (`None`: no depth limit).
    pub depth: Option<u32>,
    /// Wall-clock time from the start of the search (`None`: no time limit).
    pub time: Option<Duration>,
    /// Nodes, all threads together (`None`: no node limit).
    pub nodes: Option<u64>,
}

impl From<Limits> for Budget {
    /// The budget of `limits` with its clock started now.
    fn from(limits: Limits) -> Budget {
        Budget {
            depth: limits.depth,
            nodes: limits.nodes,
            ..Budget::time_opt(limits.time)
        }
    }
}

/// Result of a search, from the side to move's view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// Own pit, 0-based from the mover's left.
    pub best: u8,
    /// The value of the position for the side to move: proven where no leaf was cut off by
    /// the depth, else the search's estimate at [`SearchResult::depth`].
    pub eval: Evaluation,
    /// Last completed depth in plies (of a proof: the perfect line's length).
    pub depth: u32,
    /// Positions searched, all threads.
    pub nodes: u64,
    /// Principal variation: the best move and the expected continuation, own pits of each mover.
    pub pv: Vec<u8>,
    /// Wall-clock time the search took.
    pub elapsed: Duration,
}

/// Result of [`Engine::solve`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolveResult {
    /// The proven value for the side to move with perfect play from both sides.
    pub eval: Evaluation,
    /// A move proven to reach that value.
    pub best: u8,
    /// The line of perfect play that starts with `best`, own pits of each mover, as far as
    /// the table gives it back.
    pub pv: Vec<u8>,
    /// Positions searched, all threads.
    pub nodes: u64,
    /// Positions valued by the endgame databases.
    pub oracle_hits: u64,
    /// Wall-clock time the proof took.
    pub elapsed: Duration,
}

/// A bound on a position's value proven by one threshold proof, from
/// [`Engine::prove_at_least`]: whether `side`'s final seed margin with perfect play from both
/// sides is at least [`BoundResult::at_least`], proven either way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundResult {
    /// Whose final seed margin the bound is about.
    pub side: Side,
    /// The threshold asked about: `side`'s final margin.
    pub at_least: i32,
    /// Whether the margin is at least the threshold.
    pub holds: bool,
    /// What the proof showed, in `side`'s final margin: the margin is at least this when
    /// [`BoundResult::holds`] (then `bound >= at_least`), else at most this (`bound <
    /// at_least`). A null-window proof settles the question, so this may be no sharper than
    /// the threshold; where the positions can repeat the exact value is proven and given here.
    pub bound: i32,
    /// Whether lower margins are better for a player (misère): the bound is still on the
    /// margin, whichever way round is good.
    pub lower_is_better: bool,
    /// Positions searched, all threads.
    pub nodes: u64,
    /// Positions valued by the endgame databases.
    pub oracle_hits: u64,
    /// Wall-clock time the proof took.
    pub elapsed: Duration,
}

impl BoundResult {
    /// `proven >= +8` or `proven < +10, at most +8`: the answer in `side`'s final margin, in
    /// the words of the question asked: "at least [`BoundResult::at_least`]" or, with
    /// `at_most`, "at most `at_least - 1`" (the same proof read the other way round).
    pub fn text(&self, at_most: bool) -> String {
        let k = self.at_least;
        let sharper = |b: i32, than: i32, word: &str| {
            if b != than {
                format!(" (the proof showed {word} {b:+})")
            } else {
                String::new()
            }
        };
        match (self.holds, at_most) {
            (true, false) => format!("proven >= {k:+}{}", sharper(self.bound, k, "at least")),
            (false, false) => format!("proven < {k:+}, at most {:+}", self.bound),
            (true, true) => format!(
                "proven > {:+} (not at most {:+}), at least {:+}",
                k - 1,
                k - 1,
                self.bound
            ),
            (false, true) => format!(
                "proven <= {:+}{}",
                k - 1,
                sharper(self.bound, k - 1, "at most")
            ),
        }
    }

    /// The answer to "is `side`'s margin at least `at_least`" read off a proven exact value.
    fn of_value(r: &SolveResult, side: Side, at_least: i32) -> BoundResult {
        let m = r.eval.seen_by(side).margin;
        BoundResult {
            side,
            at_least,
            holds: m >= at_least,
            bound: m,
            lower_is_better: r.eval.lower_is_better,
            nodes: r.nodes,
            oracle_hits: r.oracle_hits,
            elapsed: r.elapsed,
        }
    }
}

/// How far a proof has come, reported by [`Engine::solve_with_progress`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolveProgress {
    /// Nodes searched so far, all threads.
    pub nodes: u64,
    /// Wall-clock time since the proof began.
    pub elapsed: Duration,
    /// The value (as the margin of [`SolveResult::eval`]: final seed margin for the side to
    /// move) is proven to be at least this much, where a pass has shown it.
    pub at_least: Option<i32>,
    /// ... and at most this much.
    pub at_most: Option<i32>,
}

/// A search engine: a transposition table kept between searches, and a thread count.
pub struct Engine {
    tt: Table,
    threads: usize,
    /// The leaf evaluation's weights (depth-limited searches only; a proof never reads them).
    pub weights: Weights,
    /// Enhanced transposition cutoffs within this many plies of the root.
    pub etc_max_ply: u32,
    /// Positions with fewer seeds on the board skip the transposition table.
    pub tt_min_seeds: i32,
    /// With several threads, the solver's fast path defers a move another thread is searching
    /// within this many plies of the root (0: never); see [`search::Shared::busy`].
    pub defer_max_ply: u32,
    /// Endgame databases the search probes (see [`Oracle`]).
    pub oracle: Option<std::sync::Arc<dyn Oracle + Send>>,
    /// The solver's first guess comes from an iterative-deepening search to this depth (0:
    /// guess 0); see [`Engine::solve`].
    pub guess_depth: u8,
    /// Raised from outside (another thread) to stop the searches under way: they return what
    /// they have as if their time were up. Searches do not lower it; see [`Engine::abort`].
    abort: std::sync::Arc<AtomicBool>,
    /// Games whose positions repeat: the retrograde solver's values so far, and their rules.
    cyclic: std::sync::Mutex<Option<(mancala_core::Rules, cyclic::Memo)>>,
}

impl Engine {
    /// An engine with a table of `tt_mb` MiB and `threads` search threads (at least 1).
    ///
    /// Panics if the table cannot be allocated; see [`Engine::try_new`].
    pub fn new(tt_mb: usize, threads: usize) -> Engine {
        Engine::try_new(tt_mb, threads).unwrap_or_else(|e| panic!("{e}"))
    }

    /// As [`Engine::new`], with an error when the table's memory cannot be had.
    pub fn try_new(tt_mb: usize, threads: usize) -> Result<Engine, String> {
        Ok(Engine {
            tt: Table::try_new(tt_mb)?,
            threads: threads.max(1),
            weights: Weights::default(),
            etc_max_ply: 12,
            tt_min_seeds: 0,
            defer_max_ply: 10,
            oracle: None,
            guess_depth: 16,
            abort: std::sync::Arc::new(AtomicBool::new(false)),
            cyclic: std::sync::Mutex::new(None),
        })
    }

    /// Games whose positions repeat: the most memory a proof may take, in bytes (its values
    /// and the levels under way).
    pub const CYCLIC_MAX_BYTES: usize = cyclic::MAX_BYTES;

    /// Why a proof of `pos` ([`Engine::solve`]) gave no value, and what makes it provable
    /// where the rules are the cause: said alike by every front end.
    pub fn unproven_reason(pos: &Position) -> String {
        let r = pos.rules();
        if r.repeat_ends_at() == Some(2) && r.repetition == mancala_core::Repetition::OwnRow {
            "no proof under repetition=own-row: a repetition's value there depends on the \
             position it happens in, which the retrograde solver cannot share; repetition=split \
             is proven"
                .to_string()
        } else if r.can_repeat() {
            format!(
                "the proof did not finish within the time limit or the retrograde solver's {} GiB \
                 (games whose positions repeat are proven on small boards only; where a \
                 second occurrence ends the game, only positions whose stores did not occur \
                 earlier in the game)",
                Self::CYCLIC_MAX_BYTES >> 30
            )
        } else {
            "the proof did not finish within the time limit".to_string()
        }
    }

    /// Games whose positions repeat: the most values of earlier proofs an engine keeps for its
    /// next proof under the same rules (about 40 MiB).
    const CYCLIC_KEPT: usize = 4 << 20;

    /// The table (MiB) a proof of `pos` gets when none is asked for, with endgame tables
    /// holding the levels below `tabled` seeds on the board: a small proof (within 24 seeds of
    /// the tables) runs in a fraction of a second, and the first writes to every page of a
    /// large table (the kernel zeroing them) would take longer than the proof itself, so 64;
    /// the fast path's entries take half the memory, so it gets 512 where other proofs get
    /// 1024 (figures in docs/decisions.md).
    pub fn proof_table_mb(pos: &Position, tabled: u32) -> usize {
        if pos.rules().preset.is_kalah_family() && pos.board_seeds().saturating_sub(tabled) <= 24 {
            return 64;
        }
        let Some(k) = pos.as_kalah() else {
            return 1024;
        };
        if fast::FastRules::new(k.rules(), None).is_some() {
            512
        } else {
            1024
        }
    }

    /// Size of the transposition table in bytes.
    pub fn table_bytes(&self) -> usize {
        self.tt.bytes()
    }

    /// Has the whole table mapped in now, on the engine's threads, so that no search pays for
    /// it on its clock (the kernel zeroes each page at its first write: about 1.5 ms a MiB
    /// here). Safe at any time; a second call costs a read of each page.
    pub fn prefault(&self) {
        self.tt.prefault(self.threads);
    }

    /// The flag that stops this engine's searches and proofs when raised (from any thread):
    /// each returns within about a thousand nodes what it has, as at its time limit. Lower it
    /// before the next search.
    pub fn abort(&self) -> std::sync::Arc<AtomicBool> {
        self.abort.clone()
    }

    /// The engine's search threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Forgets every stored result (between unrelated games).
    pub fn clear(&self) {
        self.tt.clear();
    }

    /// The state of one search of the position whose full key is `root`, after the game's
    /// `history`: the root itself is an occurrence of its position for the repetition rule.
    fn shared(&self, budget: Budget, history: &[Position], root: u64) -> Shared<'_> {
        // Deferring needs another thread to defer to.
        let defer_max_ply = if self.threads > 1 {
            self.defer_max_ply
        } else {
            0
        };
        Shared {
            tt: &self.tt,
            stop: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            budget,
            abort: Some(&self.abort),
            weights: self.weights,
            history: history
                .iter()
                .map(full_key)
                .chain(std::iter::once(root))
                .collect(),
            etc_max_ply: self.etc_max_ply,
            tt_min_seeds: self.tt_min_seeds,
            oracle: self.oracle.as_deref().map(|o| o as &dyn Oracle),
            oracle_hits: AtomicU64::new(0),
            proven: [AtomicI32::new(i32::MIN), AtomicI32::new(i32::MAX)],
            // 16 Ki slots: far more than the moves both threads have under way near the root.
            busy: (0..if defer_max_ply > 0 { 1 << 14 } else { 1 })
                .map(|_| AtomicU64::new(0))
                .collect(),
            defer_max_ply,
        }
    }

    /// Searches `pos` within `budget`. `history` holds the game's positions before `pos`
    /// (for the repetition rule; may be empty). `None` when the game is over.
    pub fn search(
        &self,
        pos: &Position,
        budget: impl Into<Budget>,
        history: &[Position],
    ) -> Option<SearchResult> {
        self.search_with_progress(pos, budget, history, None)
    }

    /// As [`Engine::search`], calling `progress` with the result so far after each completed
    /// iteration (on the search's main thread).
    pub fn search_with_progress(
        &self,
        pos: &Position,
        budget: impl Into<Budget>,
        history: &[Position],
        progress: Option<&(dyn Fn(&SearchResult) + Sync)>,
    ) -> Option<SearchResult> {
        let budget = budget.into();
        let mut r = with_family!(pos, p => self.search_state(p, budget, history, progress))?;
        self.table_line(pos, &mut r.pv);
        Some(r)
    }

    /// Continues `line` (own pits of each mover from `pos`) to the end of the game with the
    /// endgame tables' best moves where they cover the position it reaches: a search or a
    /// proof stops its line where the tables value a position, mid-turn as often as not.
    pub fn table_line(&self, pos: &Position, line: &mut Vec<u8>) {
        let Some(oracle) = self.oracle.as_deref() else {
            return;
        };
        let mut p = *pos;
        for &mv in line.iter() {
            if p.play(mv).is_err() {
                return;
            }
        }
        while let Some(k) = p.as_kalah().filter(|_| !p.is_over()) {
            let Some((mv, _)) = oracle.best_move(k) else {
                break;
            };
            line.push(mv);
            if p.play(mv).is_err() {
                break;
            }
        }
    }

    fn search_state<P: SearchGame>(
        &self,
        pos: &P,
        budget: Budget,
        history: &[Position],
        progress: Option<&(dyn Fn(&SearchResult) + Sync)>,
    ) -> Option<SearchResult> {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            return None;
        }
        let start = Instant::now();
        let shared = self.shared(budget, history, pos.full_key());
        let max_depth = budget.depth.unwrap_or(64).clamp(1, FULL_DEPTH as u32) as u8;
        let me = pos.to_move();
        let banked = pos.banked(me);
        let misere = pos.misere();
        // Where positions can repeat, a search's value depends on the lines its table mixed:
        // only the retrograde solver proves values there.
        let can_repeat = pos.can_repeat();
        let drive = |w: &mut Worker| {
            let mut last: Option<search::RootResult> = None;
            for depth in 1..=max_depth {
                let r = search::root(w, pos, depth, last.as_ref().map(|r| r.value));
                if !r.complete {
                    break;
                }
                let exact = r.exact;
                if let Some(report) = progress.filter(|_| w.thread == 0) {
                    w.flush();
                    let mut pv = w.pv(pos, 64);
                    if pv.first() != Some(&r.best) {
                        pv = vec![r.best];
                    }
                    report(&SearchResult {
                        best: r.best,
                        eval: evaluation(
                            me,
                            banked + r.value,
                            (misere, pos.decided_ties()),
                            exact && !can_repeat,
                            depth as u32,
                        ),
                        depth: depth as u32,
                        nodes: w.shared.nodes.load(Ordering::Relaxed),
                        pv,
                        elapsed: start.elapsed(),
                    });
                }
                last = Some(r);
                if exact {
                    break;
                }
            }
            last
        };
        let result = std::thread::scope(|s| {
            for t in 1..self.threads {
                let shared = &shared;
                s.spawn(move || {
                    let mut w = Worker::new(shared, t);
                    drive(&mut w);
                    w.flush();
                });
            }
            let mut w = Worker::new(&shared, 0);
            let r = drive(&mut w);
            w.flush();
            shared.stop.store(true, Ordering::Relaxed);
            let pv = r.as_ref().map(|r| {
                let mut pv = w.pv(pos, 64);
                if pv.first() != Some(&r.best) {
                    pv = vec![r.best];
                }
                pv
            });
            (r, pv)
        });
        let (r, pv) = result;
        let nodes = shared.nodes.load(Ordering::Relaxed);
        let (best, value, depth, exact) = match r {
            Some(r) => (r.best, r.value, r.depth as u32, r.exact),
            // Not even depth 1 finished: any legal move, valued by the evaluation.
            None => (legal.as_slice()[0], pos.eval(&self.weights), 0, false),
        };
        let exact = exact && !can_repeat;
        Some(SearchResult {
            best,
            eval: evaluation(
                me,
                banked + value,
                (misere, pos.decided_ties()),
                exact,
                depth,
            ),
            depth,
            nodes,
            pv: pv.unwrap_or_else(|| vec![best]),
            elapsed: start.elapsed(),
        })
    }
}
fn full_key(p: &Position) -> u64 {
    with_family!(p, k => k.full_key())
}

impl Engine {
    /// A hint for the side to move in `pos`: the proven best move and value where
    /// [`Engine::solve`] finishes within `prove` (on a fresh table sized to `prove` by
    /// [`tt_mb_for`], at most 64 MiB, with this engine's
    /// threads and endgame tables, so this engine's table is left as it was; `exact` is then
    /// set and `depth` is the perfect line's length), else [`Engine::search`] within
    /// `limits`. `None` when the game is over.
    pub fn hint(
        &self,
        pos: &Position,
        prove: Duration,
        budget: impl Into<Budget>,
        history: &[Position],
    ) -> Option<SearchResult> {
        let budget = budget.into();
        let proof_budget = Budget::time(prove);
        let mut solver = Engine::new(tt_mb_for(prove).min(64), self.threads);
        solver.oracle = self.oracle.clone();
        let proof = solver.solve(pos, proof_budget, history);
        match proof {
            Some(p) => Some(SearchResult {
                best: p.best,
                eval: p.eval,
                depth: p.pv.len() as u32,
                nodes: p.nodes,
                pv: p.pv,
                elapsed: p.elapsed,
            }),
            None => self.search(pos, budget, history),
        }
    }
}

/// The transposition table, in MiB, that a search of `time` can fill and fault in without
/// spending its time on it: a power of two from 1 to 64 MiB, a MiB for each 32 ms. A search
/// stores about a slot (16 bytes) for each node it visits (some millions a second and
/// thread), but the kernel's first write to each page costs about 1.5 ms a MiB here, so a
/// table as large as the nodes would spend a tenth or more of a short search mapping memory;
/// a table kept across searches (`mancala engine`, the computer of a game) should be larger
/// and faulted in once ([`Engine::prefault`]). Figures in docs/results.md.
pub fn tt_mb_for(time: Duration) -> usize {
    ((time.as_millis() / 32) as usize)
        .max(1)
        .next_power_of_two()
        .min(64)
}

/// Searches `pos` within `budget` with a fresh 16 MiB table and one thread; `history` holds
/// the game's positions before it (repetition rule). `None` when the game is over.
pub fn search(
    pos: &Position,
    budget: impl Into<Budget>,
    history: &[Position],
) -> Option<SearchResult> {
    let budget = budget.into();
    Engine::new(16, 1).search(pos, budget, history)
}

/// `side`'s seeds minus the other's, for a finished position.
pub fn margin(pos: &Position, side: Side) -> i32 {
    let s = pos.scores();
    s[side.index()] as i32 - s[side.other().index()] as i32
}

/// Every complete turn of the side to move from `pos`: the moves (own pits, 0-based from the
/// mover's left) up to the opponent's move or the end of the game, and the position after.
pub fn turns(pos: &Position) -> Vec<(Vec<u8>, Position)> {
    let mut out = Vec::new();
    let me = pos.to_move();
    for &mv in pos.legal_moves().as_slice() {
        let mut q = *pos;
        if q.play(mv).is_err() {
            continue;
        }
        if !q.is_over() && q.to_move() == me {
            for (mut line, r) in turns(&q) {
                line.insert(0, mv);
                out.push((line, r));
            }
        } else {
            out.push((vec![mv], q));
        }
    }
    out
}

#[cfg(test)]
mod tests;
