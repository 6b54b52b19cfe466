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
pub mod mcts;
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

/// Calls `progress` from a thread of `s` every half second while `shared`'s passes run, and
/// once more when they are over (woken by an unpark): nodes, time and `bounds()` (the value's
/// proven lower and upper bounds so far).
fn watch<'s>(
    s: &'s std::thread::Scope<'s, '_>,
    shared: &'s Shared,
    start: Instant,
    bounds: Box<dyn Fn() -> (Option<i32>, Option<i32>) + Send + 's>,
    progress: &'s (dyn Fn(&SolveProgress) + Sync),
) -> std::thread::ScopedJoinHandle<'s, ()> {
    s.spawn(move || loop {
        let over = shared.stopped();
        let (at_least, at_most) = bounds();
        progress(&SolveProgress {
            nodes: shared.nodes.load(Ordering::Relaxed),
            elapsed: start.elapsed(),
            at_least,
            at_most,
        });
        if over {
            break;
        }
        std::thread::park_timeout(Duration::from_millis(500));
    })
}

/// What a proof is asked for: the exact value (with progress reports), or one bound.
enum Goal<'a> {
    Value(Option<&'a (dyn Fn(&SolveProgress) + Sync)>),
    AtLeast(Side, i32, Option<&'a (dyn Fn(&SolveProgress) + Sync)>),
}

/// What a proof gave, by its [`Goal`].
enum Proved {
    Value(SolveResult),
    Bound(BoundResult),
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

    /// Proves the exact value of `pos` (MTD(f) to the end of the game). `None` when the game
    /// is over or a limit stopped the proof.
    pub fn solve(
        &self,
        pos: &Position,
        budget: impl Into<Budget>,
        history: &[Position],
    ) -> Option<SolveResult> {
        self.solve_with_progress(pos, budget, history, None)
    }

    /// As [`Engine::solve`], calling `progress` about twice a second (from a thread of its
    /// own) while the null-window passes run.
    pub fn solve_with_progress(
        &self,
        pos: &Position,
        budget: impl Into<Budget>,
        history: &[Position],
        progress: Option<&(dyn Fn(&SolveProgress) + Sync)>,
    ) -> Option<SolveResult> {
        match self.prove(pos, budget.into(), history, Goal::Value(progress))? {
            Proved::Value(mut r) => {
                self.table_line(pos, &mut r.pv);
                Some(r)
            }
            Proved::Bound(_) => None,
        }
    }

    /// Proves whether `side`'s final seed margin in `pos`, with perfect play from both sides,
    /// is at least `at_least`: one null-window pass (the threshold proof that MTD(f) repeats
    /// in [`Engine::solve`]) on every thread, with no first guess and no exact margin. To ask
    /// "at most K", ask "at least K + 1" and read the answer the other way round. Where the
    /// positions can repeat, the retrograde solver proves the exact value and the bound is
    /// read off it. `None` when the game is over or a limit stopped the proof.
    pub fn prove_at_least(
        &self,
        pos: &Position,
        side: Side,
        at_least: i32,
        budget: impl Into<Budget>,
        history: &[Position],
    ) -> Option<BoundResult> {
        self.prove_at_least_with_progress(pos, side, at_least, budget, history, None)
    }

    /// As [`Engine::prove_at_least`], calling `progress` about twice a second (from a thread
    /// of its own) while the pass runs: nodes and time (no bound is known before its end).
    pub fn prove_at_least_with_progress(
        &self,
        pos: &Position,
        side: Side,
        at_least: i32,
        budget: impl Into<Budget>,
        history: &[Position],
        progress: Option<&(dyn Fn(&SolveProgress) + Sync)>,
    ) -> Option<BoundResult> {
        match self.prove(
            pos,
            budget.into(),
            history,
            Goal::AtLeast(side, at_least, progress),
        )? {
            Proved::Bound(r) => Some(r),
            Proved::Value(_) => None,
        }
    }

    /// The proof of `goal` for `pos`, on the path its rules take: retrograde analysis where
    /// positions repeat, else null-window passes of the fast path or of the generic search.
    fn prove(
        &self,
        pos: &Position,
        budget: Budget,
        history: &[Position],
        goal: Goal,
    ) -> Option<Proved> {
        if pos.rules().can_repeat() {
            let r = with_family!(pos, p => self.solve_cyclic(p, pos.rules(), budget, history))?;
            return Some(match goal {
                Goal::Value(_) => Proved::Value(r),
                Goal::AtLeast(side, k, _) => Proved::Bound(BoundResult::of_value(&r, side, k)),
            });
        }
        // The fast path plays no opening rule: a pending first move or swap is proven by the
        // generic search.
        if let Some(p) = pos
            .as_kalah()
            .filter(|p| p.opening() == mancala_core::Opening::None)
        {
            if let Some(rules) =
                fast::FastRules::new(p.rules(), self.oracle.as_deref().map(|o| o as &dyn Oracle))
            {
                let b = rules.board(p);
                let tabled = rules.tabled_levels();
                let test = |shared: &Shared, t, beta, joined| {
                    fast::test(shared, &rules, &b, t, beta, joined)
                };
                let line = |shared: &Shared, value| fast::best_line(shared, &rules, &b, value, 200);
                return self.prove_state(p, budget, history, tabled, goal, (test, line));
            }
        }
        with_family!(pos, p => self.prove_generic(p, budget, history, goal))
    }

    /// Proves `pos` of a game whose positions can repeat by retrograde analysis
    /// ([`cyclic`]). Its values hold where no position of the game so far has occurred twice;
    /// `None` where one has, at the time limit, or beyond the solver's size
    /// ([`Engine::CYCLIC_MAX_BYTES`]).
    fn solve_cyclic<P: SearchGame>(
        &self,
        pos: &P,
        rules: &mancala_core::Rules,
        budget: Budget,
        history: &[Position],
    ) -> Option<SolveResult> {
        if pos.legal_moves().is_empty() {
            return None;
        }
        if !pos.repetition_by_level() {
            return None;
        }
        let keys: Vec<u64> = history
            .iter()
            .map(full_key)
            .chain(std::iter::once(pos.full_key()))
            .collect();
        if keys.iter().enumerate().any(|(i, k)| keys[..i].contains(k)) {
            return None;
        }

        let start = Instant::now();
        // The values of earlier proofs under the same rules hold on every line: start from
        // them while they are few enough to keep.
        let memo = {
            let mut m = self.cyclic.lock().unwrap_or_else(|e| e.into_inner());
            match m.take() {
                Some((r, memo)) if r == *rules && memo.len() < Self::CYCLIC_KEPT => memo,
                _ => cyclic::Memo::new(),
            }
        };
        let mut solver = cyclic::Cyclic::new(budget, Some(self.abort.clone()), memo);
        if pos.repeat_ends_at() <= 2 {
            // A second occurrence ends the game: the positions so far at these stores (the
            // only ones that can occur again) end it if reached, the root included.
            let scores = pos.scores();
            let ends = history
                .iter()
                .filter(|h| h.scores() == scores)
                .map(full_key)
                .chain(std::iter::once(pos.full_key()));
            solver = solver.with_ends(ends, scores);
        }
        // No line is read once the value is out of reach.
        let result = solver
            .value(pos)
            .and_then(|v| Some((v, solver.line(pos, 200)?)));
        let nodes = solver.nodes;
        let memo = solver.into_memo();
        if memo.len() < Self::CYCLIC_KEPT {
            *self.cyclic.lock().unwrap_or_else(|e| e.into_inner()) = Some((*rules, memo));
        }
        let (value, pv) = result?;
        let me = pos.to_move();
        Some(SolveResult {
            eval: evaluation(
                me,
                pos.banked(me) + value,
                (pos.misere(), pos.decided_ties()),
                true,
                0,
            ),
            best: *pv.first()?,
            pv,
            nodes,
            oracle_hits: 0,
            elapsed: start.elapsed(),
        })
    }

    fn prove_generic<P: SearchGame>(
        &self,
        pos: &P,
        budget: Budget,
        history: &[Position],
        goal: Goal,
    ) -> Option<Proved> {
        let test = |shared: &Shared, t, beta, _joined| {
            let mut w = Worker::new(shared, t);
            let r = search::test(&mut w, pos, FULL_DEPTH, beta);
            w.flush();
            r
        };
        let line = |shared: &Shared, value| {
            let mut w = Worker::new(shared, 0);
            let legal = pos.legal_moves();
            let best = legal
                .as_slice()
                .iter()
                .copied()
                .find(|&mv| search::reaches(&mut w, pos, mv, value))
                .unwrap_or(legal.as_slice()[0]);
            let mut child = *pos;
            child.play_unchecked(best);
            let mut pv = vec![best];
            pv.extend(w.pv(&child, 199));
            (best, pv)
        };
        self.prove_state(pos, budget, history, 0, goal, (test, line))
    }

    /// Proves `goal` for `pos` with the threshold proof `test(shared, thread, beta, joined)`
    /// (one null-window pass at `beta`, its fail-soft result; `None` when stopped) on every
    /// thread (lazy SMP): once for a bound, repeated by MTD(f) for the value, whose best move
    /// and principal variation `line(shared, value)` then reads from the table. Positions of
    /// fewer than `tabled` seeds are in the endgame tables the proof reads.
    fn prove_state<P: SearchGame>(
        &self,
        pos: &P,
        budget: Budget,
        history: &[Position],
        tabled: i32,
        goal: Goal,
        (test, line): (
            impl Fn(&Shared, usize, i32, bool) -> Option<i32> + Sync,
            impl FnOnce(&Shared, i32) -> (u8, Vec<u8>),
        ),
    ) -> Option<Proved> {
        if pos.legal_moves().is_empty() {
            return None;
        }
        // Every thread faults in its share of the table first, before the clock starts: the
        // single-threaded guess search below would otherwise take every page fault (and any
        // compaction) alone, on the proof's time.
        self.tt.prefault(self.threads);
        let start = Instant::now();
        // Every pass below, and the best line, stop at the same deadline.
        let shared = self.shared(budget, history, pos.full_key());
        let me = pos.to_move();
        let banked = pos.banked(me);
        let progress = match goal {
            Goal::Value(progress) => progress,
            Goal::AtLeast(side, k, progress) => {
                let proof = std::thread::scope(|s| {
                    let monitor =
                        progress.map(|p| watch(s, &shared, start, Box::new(|| (None, None)), p));
                    let r = self.threshold(pos, &shared, (side, k), &test);
                    shared.stop.store(true, Ordering::Relaxed);
                    if let Some(m) = monitor {
                        m.thread().unpark();
                    }
                    r
                });
                return proof.map(|(holds, bound)| {
                    Proved::Bound(BoundResult {
                        side,
                        at_least: k,
                        holds,
                        bound,
                        lower_is_better: pos.misere(),
                        nodes: shared.nodes.load(Ordering::Relaxed),
                        oracle_hits: shared.oracle_hits.load(Ordering::Relaxed),
                        elapsed: start.elapsed(),
                    })
                });
            }
        };
        // MTD(f) on one thread: threshold proofs from `guess` closing in on the value. Threads
        // 0 and 1 start a proof; the others, and every thread past its first pass, join one.
        let mtdf = |shared: &Shared, t: usize, guess: i32| {
            let mut joined = t >= 2;
            search::mtd(pos.gain_bound(), guess, |beta| {
                let g = test(shared, t, beta, joined)?;
                shared.proved(beta, g);
                joined = true;
                Some(g)
            })
        };
        // The first guess: a 16-ply heuristic search's value, raised by one step of the
        // value's parity (with every seed counted, a future net gain has the parity of the
        // seeds on the board), so that the first pass proves an upper bound. 16 plies, since a
        // shallower guess can be seeds off and cost whole passes. Shallower within 31 seeds
        // of the tables' top, and none within 16: there the proof is short and a deep guess
        // would cost more than it saves. Figures in docs/decisions.md.
        let depth = self
            .guess_depth
            .min((pos.gain_bound() - tabled - 15).clamp(0, 255) as u8);
        let guess = if depth == 0 {
            0
        } else {
            let mut w = Worker::new(&shared, 0);
            let mut last = None;
            for d in 1..=depth {
                last = Some(search::root(&mut w, pos, d, last).value);
            }
            w.flush();
            let g = last.unwrap_or(0) + 1;
            g + ((g - pos.gain_bound()) & 1)
        };
        // Odd threads start one parity step above the others: when the guess is the value,
        // the two null-window passes that prove it (at least the guess; less than the next
        // value) run at once instead of one after the other on every thread.
        let misere = pos.misere();
        let value = std::thread::scope(|s| {
            let monitor = progress.map(|progress| {
                let shared = &shared;
                let bound = move |k: usize, none: i32| {
                    let v = shared.proven[k].load(Ordering::Relaxed);
                    (v != none).then(|| if misere { -(banked + v) } else { banked + v })
                };
                let bounds = move || {
                    let (lo, hi) = (bound(0, i32::MIN), bound(1, i32::MAX));
                    if misere {
                        (hi, lo)
                    } else {
                        (lo, hi)
                    }
                };
                watch(s, shared, start, Box::new(bounds), progress)
            });
            for t in 1..self.threads {
                let (shared, mtdf) = (&shared, &mtdf);
                s.spawn(move || {
                    let r = mtdf(shared, t, guess + 2 * (t as i32 & 1));
                    if r.is_some() {
                        shared.stop.store(true, Ordering::Relaxed);
                    }
                    r
                });
            }
            let r = mtdf(&shared, 0, guess);
            shared.stop.store(true, Ordering::Relaxed);
            if let Some(m) = monitor {
                m.thread().unpark();
            }
            r
        });
        // The main thread may have been stopped by a helper that finished first: the table
        // then holds the proof; one more null-window pair reads the value back.
        let value = match value {
            Some(v) => v,
            None if !budget.spent(shared.nodes.load(Ordering::Relaxed), None) => {
                let again = self.shared(budget, history, pos.full_key());
                let v = mtdf(&again, 0, guess)?;
                shared
                    .nodes
                    .fetch_add(again.nodes.load(Ordering::Relaxed), Ordering::Relaxed);
                v
            }
            None => return None,
        };
        // The table's move at the root may come from another thread's pass at another window:
        // the best move is the first one proven to reach the value (the table holds the proof,
        // so these null-window searches are short).
        // A line cut short by the deadline is not proven: no result then.
        let last = self.shared(budget, history, pos.full_key());
        let (best, pv) = line(&last, value);
        if last.stopped() {
            return None;
        }
        Some(Proved::Value(SolveResult {
            eval: evaluation(
                me,
                banked + value,
                (pos.misere(), pos.decided_ties()),
                true,
                0,
            ),
            best,
            pv,
            nodes: shared.nodes.load(Ordering::Relaxed),
            oracle_hits: shared.oracle_hits.load(Ordering::Relaxed),
            elapsed: start.elapsed(),
        }))
    }

    /// One threshold proof of `pos` on every thread: whether `side`'s final margin is at
    /// least `k`, and the fail-soft bound the pass showed (see [`BoundResult::bound`]). The
    /// first thread to finish stops the others; `None` when a limit stopped them all.
    fn threshold<P: SearchGame>(
        &self,
        pos: &P,
        shared: &Shared,
        (side, k): (Side, i32),
        test: &(impl Fn(&Shared, usize, i32, bool) -> Option<i32> + Sync),
    ) -> Option<(bool, i32)> {
        let me = pos.to_move();
        let banked = pos.banked(me);
        // `side`'s margin is `sign * (banked + g)` for the future net gain `g` of the mover
        // (negated in misère games, and for the other side).
        let sign = if (side == me) != pos.misere() { 1 } else { -1 };
        // No margin lies beyond the stores' difference and every seed still to gain: a
        // threshold past them asks the same question as one just past them, and the sums
        // below then stay far from overflow whatever `k` is asked (a job file's, say).
        let reach = banked.abs() + pos.gain_bound() + 1;
        let k = k.clamp(-reach, reach);
        // margin >= k: with sign 1, g >= k - banked; with sign -1, g <= -k - banked, which
        // is "not g >= 1 - k - banked".
        let beta = if sign == 1 {
            k - banked
        } else {
            1 - k - banked
        };
        let g = std::thread::scope(|s| {
            let helpers: Vec<_> = (1..self.threads)
                .map(|t| {
                    s.spawn(move || {
                        // The helpers join the main thread's proof (deferring its moves).
                        let r = test(shared, t, beta, true);
                        if r.is_some() {
                            shared.stop.store(true, Ordering::Relaxed);
                        }
                        r
                    })
                })
                .collect();
            let r = test(shared, 0, beta, false);
            shared.stop.store(true, Ordering::Relaxed);
            let others = helpers.into_iter().filter_map(|h| h.join().ok().flatten());
            r.into_iter().chain(others).next()
        })?;
        let holds = (g >= beta) == (sign == 1);
        Some((holds, sign * (banked + g)))
    }

    /// The value of every legal move of `pos` for its side to move, all of one quality where
    /// that can be had within `budget`:
    ///
    /// - without a depth limit, each move is first proven ([`Engine::solve`] of the position
    ///   it leads to) within half the time limit (all the time there is, without one); when
    ///   every move is proven, those are the values;
    /// - otherwise iterative deepening values every move with a full window at each depth,
    ///   up to `budget.depth`, until the time runs out, and the last depth completed for every
    ///   move gives the values (at least depth 1, which is not timed). A move whose search
    ///   met no horizon is proven.
    ///
    /// `history` holds the game's positions before `pos` (repetition rule). Empty when the game
    /// is over.
    pub fn analyze_moves(
        &self,
        pos: &Position,
        budget: impl Into<Budget>,
        history: &[Position],
    ) -> Vec<MoveValue> {
        let budget = budget.into();
        let legal = pos.legal_moves();
        if legal.is_empty() {
            return Vec::new();
        }
        if budget.depth.is_none() {
            let proofs = budget.share(1, 2).time_only();
            let mut out = Vec::new();
            for &pit in legal.as_slice() {
                match self.prove_move(pos, pit, proofs, history) {
                    Some(eval) => out.push(MoveValue { pit, eval }),
                    None => break,
                }
            }
            if out.len() == legal.len() {
                return out;
            }
        }
        self.search_moves(pos, budget, history)
    }

    /// The value of the move `played` in `pos` and of the best move, for judging a game's
    /// moves: without a depth limit, the position's proof and the played move's within half
    /// the time limit; where either does not finish, every move searched to one depth as
    /// [`Engine::analyze_moves`] does. `None` when the game is over or `played` is illegal.
    pub fn judge_move(
        &self,
        pos: &Position,
        played: u8,
        budget: impl Into<Budget>,
        history: &[Position],
    ) -> Option<Judgement> {
        let budget = budget.into();
        if !pos.legal_moves().contains(played) {
            return None;
        }
        if budget.depth.is_none() {
            let proofs = budget.share(1, 2).time_only();
            if let Some(r) = self.solve(pos, proofs, history) {
                let best = MoveValue {
                    pit: r.best,
                    eval: r.eval,
                };
                let eval = if played == r.best {
                    Some(r.eval)
                } else {
                    self.prove_move(pos, played, proofs, history)
                };
                if let Some(eval) = eval {
                    let played = MoveValue { pit: played, eval };
                    return Some(Judgement {
                        loss: played.eval.loss_against(&best.eval),
                        played,
                        best,
                    });
                }
            }
        }
        let values = self.search_moves(pos, budget, history);
        Some(Judgement {
            played: *values.iter().find(|v| v.pit == played)?,
            best: MoveValue::best(&values)?,
            loss: MoveValue::loss(&values, played),
        })
    }

    /// The proven value of move `pit` of `pos` for its mover, if the proof finishes within
    /// `budget`.
    fn prove_move(
        &self,
        pos: &Position,
        pit: u8,
        budget: Budget,
        history: &[Position],
    ) -> Option<Evaluation> {
        let me = pos.to_move();
        let mut child = *pos;
        child.play(pit).ok()?;
        if child.is_over() {
            return Some(self.final_value(&child, me));
        }
        if budget.expired() {
            return None;
        }
        let mut line = history.to_vec();
        line.push(*pos);
        if let Some(n) = pos.rules().repeat_ends_at() {
            if line.iter().filter(|&&p| p == child).count() + 1 >= n {
                // The occurrence that ends the game: a draw, or the seeds left shared.
                let s = child.repetition_scores().unwrap_or([0, 0]);
                return Some(Evaluation {
                    margin: s[me.index()] as i32 - s[me.other().index()] as i32,
                    ..Evaluation::final_margin(&child, me)
                });
            }
        }
        self.solve(&child, budget, &line)
            .map(|r| r.eval.seen_by(me))
    }

    /// Every move of `pos` valued by iterative deepening with a full window, to
    /// `budget.depth` (else to the end of the game) within `budget`: the last depth completed
    /// for every move (at least depth 1, which is not limited). A move whose search met no
    /// horizon is proven.
    fn search_moves(&self, pos: &Position, budget: Budget, history: &[Position]) -> Vec<MoveValue> {
        let me = pos.to_move();
        let max_depth = budget
            .depth
            .unwrap_or(FULL_DEPTH as u32)
            .clamp(1, FULL_DEPTH as u32);
        let mut last = None;
        for depth in 1..=max_depth {
            // Depth 1 always completes: it is what the analysis falls back on.
            let lim = if depth > 1 {
                Budget {
                    depth: None,
                    ..budget
                }
            } else {
                Budget::UNLIMITED
            };
            let shared = self.shared(lim, history, full_key(pos));
            fn go<P: SearchGame>(
                shared: &Shared,
                pos: &P,
                depth: u8,
            ) -> Option<Vec<(u8, i32, bool)>> {
                let mut w = Worker::new(shared, 0);
                let r = search::move_values(&mut w, pos, depth);
                w.flush();
                r
            }
            let values = with_family!(pos, p => go(&shared, p, depth as u8));
            let Some(values) = values else { break };
            let banked = with_family!(pos, p => p.banked(me));
            let misere = pos.rules().misere();
            let ties = with_family!(pos, p => p.decided_ties());
            // As in `search_state`: no search proves a value where positions can repeat.
            let repeats = pos.rules().can_repeat();
            let all_exact = values.iter().all(|v| v.2);
            last = Some(
                values
                    .into_iter()
                    .map(|(pit, v, exact)| MoveValue {
                        pit,
                        eval: evaluation(me, banked + v, (misere, ties), exact && !repeats, depth),
                    })
                    .collect::<Vec<_>>(),
            );
            if all_exact {
                break;
            }
        }
        last.unwrap_or_default()
    }

    /// The value of a finished game for `me` as the search counts it (Kauri's tie-break win
    /// counts one seed).
    fn final_value(&self, pos: &Position, me: Side) -> Evaluation {
        let mut e = Evaluation::final_margin(pos, me);
        e.margin += with_family!(pos, p => p.terminal_bonus(me));
        e
    }
}

/// A move of a game judged against the best move, from [`Engine::judge_move`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Judgement {
    /// The move played and its value.
    pub played: MoveValue,
    /// The best move and its value.
    pub best: MoveValue,
    /// The seeds the move played gives away against the best (see
    /// [`Evaluation::loss_against`]); `None` where the best move's value is the less certain.
    pub loss: Option<i32>,
}

/// A move and its value for the side to move, from [`Engine::analyze_moves`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// Own pit, 0-based from the mover's left.
    pub pit: u8,
    /// The value of playing it, from the mover's view: proven or a search's estimate, as its
    /// quality says.
    pub eval: Evaluation,
}

impl MoveValue {
    /// The best of `moves` (highest [`Evaluation::score`], then the better quality, then the
    /// first).
    pub fn best(moves: &[MoveValue]) -> Option<MoveValue> {
        let rank = |m: &MoveValue| {
            let q = match m.eval.quality {
                Quality::Proven => u32::MAX,
                Quality::Searched { depth } => depth,
            };
            (m.eval.score(), q)
        };
        let mut best: Option<MoveValue> = None;
        for m in moves {
            if best.is_none_or(|b| rank(m) > rank(&b)) {
                best = Some(*m);
            }
        }
        best
    }

    /// The seeds `played` gives away against the best of `moves` that is valued at least as
    /// well as it (none: no such move to compare with).
    pub fn loss(moves: &[MoveValue], played: u8) -> Option<i32> {
        let p = moves.iter().find(|m| m.pit == played)?.eval;
        moves.iter().filter_map(|m| p.loss_against(&m.eval)).max()
    }
}

/// The evaluation of `utility` (the final margin of `me` in search units: misère negated);
/// `decided_ties` as [`SearchGame::decided_ties`].
fn evaluation(
    me: Side,
    utility: i32,
    (misere, decided_ties): (bool, bool),
    exact: bool,
    depth: u32,
) -> Evaluation {
    Evaluation {
        side: me,
        margin: if misere { -utility } else { utility },
        lower_is_better: misere,
        decided_ties,
        quality: if exact {
            Quality::Proven
        } else {
            Quality::Searched { depth }
        },
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
        engine
            .search(
                pos,
                Limits {
                    depth: self.depth,
                    time: self.time,
                    nodes: None,
                },
                history,
            )
            .map(|r| Decision {
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
