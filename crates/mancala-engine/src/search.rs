//! Alpha-beta search over [`SearchGame`]: negamax that keeps the sign across extra moves,
//! fail-soft, with a shared transposition table, move ordering, enhanced transposition cutoffs
//! and the seed bound. Drivers: iterative deepening with aspiration windows (play, analysis)
//! and MTD(f) to the end of the game (the solver). Several threads share the table (lazy SMP).

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};

use mancala_core::MAX_MOVES;

use crate::game::{SearchGame, Weights};
use crate::tt::{Entry, Table, NO_MOVE, SOLVED};

/// Depth used to search to the end of the game.
pub const FULL_DEPTH: u8 = SOLVED - 1;
const INF: i32 = 10_000;

/// State shared by the threads of one search.
pub struct Shared<'t> {
    /// The transposition table.
    pub tt: &'t Table,
    /// Set when a limit is reached or the search is done (the main thread has finished, or
    /// a thread has finished the proof); the threads still searching then unwind.
    pub stop: AtomicBool,
    /// Positions searched, all threads (each adds its own at each flush).
    pub nodes: AtomicU64,
    /// What the search may spend: its deadline, depth and node limits (all threads).
    pub budget: crate::Budget,
    /// Raised from outside to stop the search (see [`crate::Engine::abort`]).
    pub abort: Option<&'t AtomicBool>,
    /// The leaf evaluation's weights.
    pub weights: Weights,
    /// Full keys of the game's positions before the root (repetition rule).
    pub history: Vec<u64>,
    /// Enhanced transposition cutoffs only this many plies from the root (each costs a table
    /// probe per child: worth it only high in the tree).
    pub etc_max_ply: u32,
    /// Positions with fewer seeds on the board are searched without the table (their
    /// subtrees are cheaper than a probe's cache miss).
    pub tt_min_seeds: i32,
    /// Endgame databases, probed where they cover the position.
    pub oracle: Option<&'t dyn crate::Oracle>,
    /// Positions valued by the databases, all threads (added at each flush).
    pub oracle_hits: AtomicU64,
    /// The root's value as the null-window passes have bounded it so far, all threads:
    /// at least `proven[0]`, at most `proven[1]` (future net gain of the side to move).
    pub proven: [AtomicI32; 2],
    /// Positions some thread is searching, by key (simplified ABDADA, after Kerrigan): within
    /// `defer_max_ply` plies of the root a thread leaves such a move, unless it is the first
    /// it searches, until its other moves are done, instead of searching it twice at once.
    pub busy: Box<[AtomicU64]>,
    /// Moves are deferred only within this many plies of the root (0: never).
    pub defer_max_ply: u32,
}

impl Shared<'_> {
    /// Counts a node of a worker that has searched `nodes` in all, `flushed` of them already
    /// added to the shared count: every 1,024 nodes it adds the rest and checks the limits.
    /// Whether the search must stop now.
    #[inline(always)]
    pub fn tick(&self, nodes: u64, flushed: &mut u64) -> bool {
        if nodes & 1023 == 0 {
            self.add_nodes(nodes - *flushed);
            *flushed = nodes;
            self.check_limits();
        }
        self.stopped()
    }

    /// Adds a thread's new nodes to the count.
    #[inline]
    pub fn add_nodes(&self, n: u64) {
        self.nodes.fetch_add(n, Ordering::Relaxed);
    }

    /// Raises the stop flag once the node or time limit is reached.
    pub fn check_limits(&self) {
        if self
            .budget
            .spent(self.nodes.load(Ordering::Relaxed), self.abort)
        {
            self.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the search has been told to stop.
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    #[inline]
    fn busy_slot(&self, key: u64) -> &AtomicU64 {
        &self.busy[(key >> 40) as usize & (self.busy.len() - 1)]
    }

    /// Whether another thread is searching the position of `key`.
    #[inline]
    pub fn is_busy(&self, key: u64) -> bool {
        self.busy_slot(key).load(Ordering::Relaxed) == key
    }

    /// Marks the position of `key` as being searched.
    #[inline]
    pub fn enter(&self, key: u64) {
        self.busy_slot(key).store(key, Ordering::Relaxed);
    }

    /// Clears the mark of `key`, if it is still there.
    #[inline]
    pub fn leave(&self, key: u64) {
        let _ = self
            .busy_slot(key)
            .compare_exchange(key, 0, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// Records the fail-soft result `g` of a completed null-window pass at `beta`.
    pub fn proved(&self, beta: i32, g: i32) {
        if g >= beta {
            self.proven[0].fetch_max(g, Ordering::Relaxed);
        } else {
            self.proven[1].fetch_min(g, Ordering::Relaxed);
        }
    }
}

/// One search thread of the generic path: its counts, line and ply, over the shared state.
pub struct Worker<'s, 't> {
    /// What the threads of this search share.
    pub shared: &'s Shared<'t>,
    /// Positions this thread has searched (added to the shared count at each flush).
    pub nodes: u64,
    /// Count of values that came from the horizon (evaluation or a shallow table entry); a
    /// subtree whose search left it unchanged is proven to the end.
    pub horizon: u64,
    /// Full keys along the current line (repetition rule).
    path: Vec<u64>,
    /// Lazy SMP: helpers perturb their move order.
    pub thread: usize,
    flushed: u64,
    /// Plies from the root.
    ply: u32,
    /// Positions valued by the endgame databases.
    pub oracle_hits: u64,
    /// The best move of the last search of the root (ply 0), or `NO_MOVE`.
    pub root_best: u8,
}

impl<'s, 't> Worker<'s, 't> {
    /// Thread `thread` (0: the main thread, whose move order is not perturbed) of a search.
    pub fn new(shared: &'s Shared<'t>, thread: usize) -> Self {
        Worker {
            shared,
            nodes: 0,
            horizon: 0,
            path: Vec::new(),
            thread,
            flushed: 0,
            ply: 0,
            oracle_hits: 0,
            root_best: NO_MOVE,
        }
    }

    /// Adds the nodes and endgame table hits since the last flush to the shared counts.
    pub fn flush(&mut self) {
        self.shared.add_nodes(self.nodes - self.flushed);
        self.flushed = self.nodes;
        self.shared
            .oracle_hits
            .fetch_add(std::mem::take(&mut self.oracle_hits), Ordering::Relaxed);
    }

    /// Occurrences of `key` in the game before the root and on the current line.
    fn occurrences(&self, key: u64) -> usize {
        self.shared.history.iter().filter(|&&k| k == key).count()
            + self.path.iter().filter(|&&k| k == key).count()
    }

    /// Value of the move `mv` from `pos` (already played into `child` with net `gain`).
    #[inline]
    fn child_value<P: SearchGame>(
        &mut self,
        pos: &P,
        child: &P,
        gain: i32,
        depth: u8,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        let me = pos.to_move();
        if child.is_over() {
            return gain + child.terminal_bonus(me);
        }
        if pos.can_repeat() {
            let k = child.full_key();
            if self.occurrences(k) + 1 >= child.repeat_ends_at() {
                // The occurrence that ends the game.
                return gain + child.repetition_value(me);
            }
            self.path.push(k);
            let v = self.recurse(child, me, gain, depth, alpha, beta);
            self.path.pop();
            return v;
        }
        self.recurse(child, me, gain, depth, alpha, beta)
    }

    #[inline]
    fn recurse<P: SearchGame>(
        &mut self,
        child: &P,
        me: mancala_core::Side,
        gain: i32,
        depth: u8,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        self.ply += 1;
        let v = if child.to_move() == me {
            gain + self.ab(child, depth - 1, alpha - gain, beta - gain)
        } else {
            gain - self.ab(child, depth - 1, gain - beta, gain - alpha)
        };
        self.ply -= 1;
        v
    }

    /// Fail-soft alpha-beta: the future net gain of `pos` for its side to move.
    pub fn ab<P: SearchGame>(&mut self, pos: &P, depth: u8, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if self.shared.tick(self.nodes, &mut self.flushed) {
            return 0;
        }
        let bound = pos.gain_bound();
        if bound <= alpha {
            return bound;
        }
        if -bound >= beta {
            return -bound;
        }
        // The root is searched move by move even where a table already values it: the caller
        // wants its best move, which a value alone does not give.
        let root = self.ply == 0;
        if let Some(o) = self.shared.oracle.filter(|_| !root) {
            if let Some(v) = pos.probe(o) {
                self.oracle_hits += 1;
                return v;
            }
        }
        let use_tt = bound >= self.shared.tt_min_seeds;
        let tt = self.shared.tt;
        let key = if use_tt { pos.tt_key() } else { 0 };
        let mut tt_move = NO_MOVE;
        if let Some(e) = use_tt.then(|| tt.probe(key)).flatten() {
            tt_move = e.best;
            if e.depth >= depth && !root {
                if let Some(v) = e.cut(alpha, beta) {
                    if e.depth != SOLVED {
                        self.horizon += 1;
                    }
                    return v;
                }
            }
        }
        if depth == 0 {
            self.horizon += 1;
            return pos.eval(&self.shared.weights).clamp(-bound, bound);
        }
        let horizon_before = self.horizon;
        let nodes_before = self.nodes;
        let me = pos.to_move();
        let before = pos.banked(me);

        // Play every move once: its gain, and an ordering key.
        let legal = pos.legal_moves();
        let n = legal.len();
        let mut kids = [*pos; MAX_MOVES];
        let mut gains = [0i32; MAX_MOVES];
        let mut order = [(0i32, 0u8); MAX_MOVES];
        for (k, mv) in legal.as_slice().iter().copied().enumerate() {
            let e = kids[k].play_unchecked(mv);
            if use_tt && !kids[k].is_over() {
                tt.prefetch(kids[k].tt_key());
            }
            gains[k] = kids[k].banked(me) - before;
            // The table's move, then the order both searches share. No history heuristic: it
            // did not pay everywhere (docs/decisions.md).
            let key = if mv == tt_move {
                1 << 30
            } else {
                order_key(e.again, gains[k], mv, self.thread)
            };
            order[k] = (key, k as u8);
        }
        order[..n].sort_unstable_by_key(|o| core::cmp::Reverse(o.0));

        // Enhanced transposition cutoff: a child's stored bound may already refute.
        if use_tt
            && !root
            && depth >= 3
            && beta < INF
            && !pos.can_repeat()
            && self.ply < self.shared.etc_max_ply
        {
            if let Some(v) = self.etc(me, &kids, &gains, &order[..n], depth, beta) {
                return v;
            }
        }

        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_mv = NO_MOVE;
        for &(_, k) in &order[..n] {
            let k = k as usize;
            let v = self.child_value(pos, &kids[k], gains[k], depth, alpha, beta);
            if self.shared.stopped() {
                return 0;
            }
            if v > best {
                best = v;
                best_mv = legal.as_slice()[k];
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        if root {
            self.root_best = best_mv;
        }
        let exact = self.horizon == horizon_before;
        if !use_tt {
            return best;
        }
        let window = (alpha0, beta);
        let work = self.nodes - nodes_before;
        tt.store(
            key,
            Entry::after_search(
                best,
                window,
                bound,
                (best_mv, tt_move),
                if exact { SOLVED } else { depth },
                work,
            ),
        );
        best
    }

    /// Enhanced transposition cutoff over the children `order` of a position whose side to
    /// move is `me`: the value of a move whose child's stored bound already reaches `beta`.
    fn etc<P: SearchGame>(
        &mut self,
        me: mancala_core::Side,
        kids: &[P],
        gains: &[i32],
        order: &[(i32, u8)],
        depth: u8,
        beta: i32,
    ) -> Option<i32> {
        for &(_, k) in order {
            let c = &kids[k as usize];
            if c.is_over() {
                continue;
            }
            let Some(e) = self.shared.tt.probe(c.tt_key()) else {
                continue;
            };
            if e.depth >= depth - 1 {
                let g = gains[k as usize];
                let v = if c.to_move() == me {
                    g + e.lower as i32
                } else {
                    g - e.upper as i32
                };
                if v >= beta {
                    if e.depth != SOLVED {
                        self.horizon += 1;
                    }
                    return Some(v);
                }
            }
        }
        None
    }

    /// The best line from `pos` as stored in the table (at most `max` moves).
    pub fn pv<P: SearchGame>(&self, pos: &P, max: usize) -> Vec<u8> {
        let mut line = Vec::new();
        let mut p = *pos;
        let mut seen = Vec::new();
        while line.len() < max && !p.is_over() {
            let Some(e) = self.shared.tt.probe(p.tt_key()) else {
                break;
            };
            if e.best == NO_MOVE || !p.legal_moves().contains(e.best) {
                break;
            }
            let k = p.full_key();
            if seen.contains(&k) {
                break;
            }
            seen.push(k);
            line.push(e.best);
            p.play_unchecked(e.best);
        }
        line
    }
}

/// Where a move goes in the order both searches (this one and [`crate::fast`]) try moves,
/// higher first: by the move's gain, an extra turn counted as [`EXTRA_TURN_WORTH`] seeds more
/// (so only a capture of more seeds goes before it); among equals an extra turn first,
/// rightmost first, and other moves by pit in an order of each thread's own (helper threads
/// rotate it), so that threads sharing a table spread over different subtrees.
#[inline(always)]
pub fn order_key(again: bool, gain: i32, pit: u8, thread: usize) -> i32 {
    if again {
        ((gain + 128 + EXTRA_TURN_WORTH) << 8) + 8 + pit as i32
    } else {
        ((gain + 128) << 8) + ((pit as i32 + thread as i32 * 3) & 7)
    }
}

/// What an extra turn is worth in the move order, in seeds of gain. Extra turns had gone
/// before every capture; ranking a capture of more than this many seeds (beyond the extra
/// turn's own seed) first took 2 % fewer nodes on Kalah(6,4) and 9-12 % fewer on Kalah(5,4)
/// (docs/decisions.md).
pub const EXTRA_TURN_WORTH: i32 = 5;

/// Result of a root search, values in future net gain for the side to move at the root.
#[derive(Clone, Debug)]
pub struct RootResult {
    /// The best move, own pit (the first legal move when the iteration was stopped).
    pub best: u8,
    /// The root's value at `depth` (0 when the iteration was stopped).
    pub value: i32,
    /// The iteration's depth in plies.
    pub depth: u8,
    /// The value is proven to the end of the game.
    pub exact: bool,
    /// The iteration finished before a limit stopped it; otherwise `best` and `value` mean
    /// nothing.
    pub complete: bool,
}

/// Value of each root move at `depth` with a full window (exact at that depth), and whether
/// it is proven to the end of the game. Gains are included; values are future net gain for the
/// mover. `None` when a limit stopped the search.
pub fn move_values<P: SearchGame>(
    w: &mut Worker,
    pos: &P,
    depth: u8,
) -> Option<Vec<(u8, i32, bool)>> {
    let me = pos.to_move();
    let before = pos.banked(me);
    let mut out = Vec::new();
    for &mv in pos.legal_moves().as_slice() {
        let mut c = *pos;
        c.play_unchecked(mv);
        let horizon = w.horizon;
        let v = w.child_value(pos, &c, c.banked(me) - before, depth.max(1), -INF, INF);
        if w.shared.stopped() {
            return None;
        }
        out.push((mv, v, w.horizon == horizon));
    }
    Some(out)
}

/// Whether playing `mv` in `pos` reaches a future net gain of at least `target` for the mover
/// with perfect play (a null-window search to the end of the game).
pub fn reaches<P: SearchGame>(w: &mut Worker, pos: &P, mv: u8, target: i32) -> bool {
    let mut c = *pos;
    c.play_unchecked(mv);
    let gain = c.banked(pos.to_move()) - pos.banked(pos.to_move());
    w.child_value(pos, &c, gain, FULL_DEPTH, target - 1, target) >= target
}

/// One iteration at `depth` with an aspiration window around `guess`.
pub fn root<P: SearchGame>(w: &mut Worker, pos: &P, depth: u8, guess: Option<i32>) -> RootResult {
    let horizon = w.horizon;
    let mut value = match guess {
        Some(g) => {
            let (a, b) = (g - 2, g + 2);
            let v = w.ab(pos, depth, a, b);
            if v <= a || v >= b {
                w.ab(pos, depth, -INF, INF)
            } else {
                v
            }
        }
        None => w.ab(pos, depth, -INF, INF),
    };
    let complete = !w.shared.stopped();
    // The full-window search of the root (the last one) set its best move; the root never
    // takes a cutoff from the table, so it searched its moves.
    let legal = pos.legal_moves();
    let best = Some(w.root_best)
        .filter(|&m| legal.contains(m))
        .unwrap_or(legal.as_slice()[0]);
    if !complete {
        value = 0;
    }
    RootResult {
        best,
        value,
        depth,
        exact: complete && w.horizon == horizon,
        complete,
    }
}

/// The threshold proof: one null-window search at `beta` to `depth` plies, whose fail-soft
/// result `g` shows the value at least `g` when `g >= beta`, else at most `g` (proven where
/// the search met no horizon: at [`FULL_DEPTH`], always). `None` when stopped by a limit.
/// MTD(f) is a sequence of these ([`mtd`]).
pub fn test<P: SearchGame>(w: &mut Worker, pos: &P, depth: u8, beta: i32) -> Option<i32> {
    let g = w.ab(pos, depth, beta - 1, beta);
    (!w.shared.stopped()).then_some(g)
}

/// The MTD(f) driver: null-window searches `test(beta)` (a fail-soft value against the window
/// `(beta - 1, beta)`, `None` when stopped) closing in on the value, which lies within
/// `-bound..=bound`, from `guess`.
pub fn mtd(bound: i32, guess: i32, mut test: impl FnMut(i32) -> Option<i32>) -> Option<i32> {
    let (mut lower, mut upper) = (-bound - 1, bound + 1);
    let mut g = guess.clamp(-bound, bound);
    while lower < upper {
        let beta = if g == lower { g + 1 } else { g };
        g = test(beta)?;
        if g < beta {
            upper = g;
        } else {
            lower = g;
        }
    }
    Some(g)
}
