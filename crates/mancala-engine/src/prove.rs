//! Proofs: the exact value of a position (MTD(f) to the end of the game, or the cyclic
//! solver where positions repeat) and one-sided bounds, with progress reports.

use super::*;

/// Calls `progress` from a thread of `s` every half second while `shared`'s passes run, and
/// once more when they are over (woken by an unpark): nodes, time and `bounds()` (the value's
/// proven lower and upper bounds so far).
pub(crate) fn watch<'s>(
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
pub(crate) enum Goal<'a> {
    Value(Option<&'a (dyn Fn(&SolveProgress) + Sync)>),
    AtLeast(Side, i32, Option<&'a (dyn Fn(&SolveProgress) + Sync)>),
}

/// What a proof gave, by its [`Goal`].
pub(crate) enum Proved {
    Value(SolveResult),
    Bound(BoundResult),
}

impl Engine {
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
    pub(crate) fn prove(
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
        if let Some(r) = self.book_proof(pos, &goal) {
            return Some(r);
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

    /// `goal` for `pos` read from the opening book of the endgame tables' directory, where it
    /// holds the position: its proven value and best move (which [`Engine::solve`] continues
    /// through the book and then the tables).
    fn book_proof(&self, pos: &Position, goal: &Goal) -> Option<Proved> {
        let k = pos.as_kalah()?;
        let (best, net) = self.oracle.as_deref()?.book(k)?;
        let r = solved(k, net, (best, vec![best]), (0, 1, Duration::ZERO));
        Some(match goal {
            Goal::Value(_) => Proved::Value(r),
            Goal::AtLeast(side, at_least, _) => {
                Proved::Bound(BoundResult::of_value(&r, *side, *at_least))
            }
        })
    }

    /// Proves `pos` of a game whose positions can repeat by retrograde analysis
    /// ([`cyclic`]). Its values hold where no position of the game so far has occurred twice;
    /// `None` where one has, at the time limit, or beyond the solver's size
    /// ([`Engine::CYCLIC_MAX_BYTES`]).
    pub(crate) fn solve_cyclic<P: SearchGame>(
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

    pub(crate) fn prove_generic<P: SearchGame>(
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
    pub(crate) fn prove_state<P: SearchGame>(
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
                return self.prove_bound(pos, &shared, start, (side, k), progress, &test);
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
        let guess = self.first_guess(pos, &shared, tabled);
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
        let counts = (
            shared.nodes.load(Ordering::Relaxed),
            shared.oracle_hits.load(Ordering::Relaxed),
            start.elapsed(),
        );
        Some(Proved::Value(solved(pos, value, (best, pv), counts)))
    }

    /// The bound `side` at least `k` of [`Engine::prove_state`]: one threshold proof on every
    /// thread, with progress reports (no bounds) every half second.
    fn prove_bound<P: SearchGame>(
        &self,
        pos: &P,
        shared: &Shared,
        start: Instant,
        (side, k): (Side, i32),
        progress: Option<&(dyn Fn(&SolveProgress) + Sync)>,
        test: &(impl Fn(&Shared, usize, i32, bool) -> Option<i32> + Sync),
    ) -> Option<Proved> {
        let proof = std::thread::scope(|s| {
            let monitor = progress.map(|p| watch(s, shared, start, Box::new(|| (None, None)), p));
            let r = self.threshold(pos, shared, (side, k), test);
            shared.stop.store(true, Ordering::Relaxed);
            if let Some(m) = monitor {
                m.thread().unpark();
            }
            r
        });
        proof.map(|(holds, bound)| {
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
        })
    }

    /// MTD(f)'s first guess for [`Engine::prove_state`] (see the reasons there): a heuristic
    /// search's value, raised by one step of the value's parity; 0 within 16 seeds of the
    /// tables' top (`tabled`).
    fn first_guess<P: SearchGame>(&self, pos: &P, shared: &Shared, tabled: i32) -> i32 {
        let depth = self
            .guess_depth
            .min((pos.gain_bound() - tabled - 15).clamp(0, 255) as u8);
        if depth == 0 {
            return 0;
        }
        let mut w = Worker::new(shared, 0);
        let mut last = None;
        for d in 1..=depth {
            last = Some(search::root(&mut w, pos, d, last).value);
        }
        w.flush();
        let g = last.unwrap_or(0) + 1;
        g + ((g - pos.gain_bound()) & 1)
    }

    /// One threshold proof of `pos` on every thread: whether `side`'s final margin is at
    /// least `k`, and the fail-soft bound the pass showed (see [`BoundResult::bound`]). The
    /// first thread to finish stops the others; `None` when a limit stopped them all.
    pub(crate) fn threshold<P: SearchGame>(
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
}

/// The proven result of `pos`: its future net gain `value` (the value is `value` plus what the
/// mover has banked), the best move and line, and the proof's nodes, table hits and time.
fn solved<P: SearchGame>(
    pos: &P,
    value: i32,
    (best, pv): (u8, Vec<u8>),
    (nodes, oracle_hits, elapsed): (u64, u64, Duration),
) -> SolveResult {
    let me = pos.to_move();
    SolveResult {
        eval: evaluation(
            me,
            pos.banked(me) + value,
            (pos.misere(), pos.decided_ties()),
            true,
            0,
        ),
        best,
        pv,
        nodes,
        oracle_hits,
        elapsed,
    }
}
