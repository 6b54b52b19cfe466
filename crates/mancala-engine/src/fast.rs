//! The solver's fast path for the Kalah family: the same alpha-beta as [`mod@crate::search`], on a
//! board made for it.
//!
//! # Board
//! One `u128`, a byte a cell, seen from the side to move: the low word holds its pits `0..m`
//! (from its left) and its store at byte `m` (always 0 between moves: only future gains
//! count), the high word the opponent's pits `0..m` in sowing order. The opponent's store is
//! not on the ring, so a sowing of `n` seeds from pit `i` adds `n / (2m+1)` to every cell and
//! then 1 to the next `n % (2m+1)` cells: two additions of precomputed words. A turn to the
//! opponent swaps the two words.
//!
//! # Which rules
//! Any pit count up to 7 (the ring must fit in 16 bytes), capture `standard`, `empty`,
//! `opposite-only` or none, with or without extra turns, end check `any-row-empty` or
//! `mover-empty`, leftovers `to-owner`, `not-counted` or `last-mover`. Positions that repeat
//! (Cross-Kalah), rules that read the stores (`stop-when-decided`, Dracala's misère and
//! forced captures) or the capture history (`last-capturer`) take the generic path.
//!
//! # Stepping games
//! [`FastGame`] wraps the board with both stores and the side to move, for callers that play
//! many games move by move (the batch of learning agents in `mancala-play`): its moves are
//! [`FastRules::step`], this module's one sowing, and [`FastGame::position`] turns it back
//! into a [`Position`]. It takes rules of the fast path without an opening rule.
//!
//! # Endgame tables
//! When the oracle hands its tables over as packed levels ([`Oracle::packed`]), a child
//! within them is ranked and its entry fetched while the children are generated, and the
//! children valued without a search (tabled, or the game over) are counted first: one of
//! them may refute before any subtree is searched.
//!
//! # Transposition table
//! The proof keeps its entries in the engine's table memory seen as one-word slots
//! ([`ProofTable`]): every entry is proven, so it needs no depth, and a Kalah value fits a
//! byte. Twice the entries fit in the same memory, so a proof's entries span half the pages
//! they would as two-word slots. [`best_line`] reads the best move and principal variation
//! back from it.
//! Values, keys and moves are those of the generic search on [`KalahPos`] (future net gain
//! for the side to move, [`SearchGame::tt_key`](crate::game::SearchGame::tt_key), own pit
//! index).

use mancala_core::{
    Capture, EndCheck, Error, KalahPos, KalahRules, Leftovers, Moves, Opening, Position, Rules,
    Setup, Side,
};

use mancala_egdb_format::entry;
use mancala_egdb_format::rank::Binomials;

use crate::search::Shared;
use crate::tt::{Entry, ProofTable, NO_MOVE};
use crate::{Oracle, PackedLevel};

const INF: i32 = 10_000;
const MAX_M: usize = 7;

/// The rules and precomputed words of one board size, and the endgame tables of these rules.
pub struct FastRules<'a> {
    m: usize,
    capture: Option<Capture>,
    extra_turn: bool,
    mover_empty: bool,
    leftovers: Leftovers,
    /// `sow[i][r]`: 1 in each of the `r` cells after pit `i`, round the ring (`r` below
    /// `2m + 1`).
    sow: [[u128; 16]; MAX_M],
    /// 1 in each ring cell.
    lap: u128,
    /// `sown[i][n]`: what a sowing of `n` seeds from pit `i` adds to the board (`n` below
    /// [`SOWN`]; more seeds take whole laps of `lap` plus `sow`), so a sowing is one load.
    sown: [[u128; SOWN]; MAX_M],
    /// `land[i][n]`: the ring cell where that sowing's last seed falls.
    land: [[u8; SOWN]; MAX_M],
    /// `grab[c]`: the cells a capture by a last seed in ring cell `c` empties (the opposite
    /// pit, and the own one where the capture takes the last seed); 0 outside the mover's
    /// pits.
    grab: [u128; 16],
    tables: Option<Tables<'a>>,
}

/// Sowings of fewer seeds than this read their word from [`FastRules::sown`].
const SOWN: usize = 64;

/// Endgame tables read in place: levels `0..levels.len()`.
struct Tables<'a> {
    levels: Vec<PackedLevel<'a>>,
    counted: bool,
    fault: Option<&'a std::sync::atomic::AtomicU32>,
    bin: Binomials,
}

impl Tables<'_> {
    /// Rank of the board `b` (as the tables index it: mover's row, then the opponent's).
    /// Out of line, as `net`: inlined at their call sites they make the search function a
    /// third larger, which bought nothing with tables, and the proof without tables measured
    /// up to 9 % slower on a loaded machine (on par on a quiet one), in the same instructions.
    #[inline(never)]
    fn rank<const M: usize>(&self, b: &Board) -> u64 {
        // The two rows side by side: the mover's pits, then the opponent's.
        let mine = b.cells as u64 & (u64::MAX >> (64 - 8 * M));
        let rows = (mine as u128 | (b.cells >> 64) << (8 * M)).to_le_bytes();
        self.bin.rank(&rows, 2 * M, b.seeds as u32)
    }

    #[inline]
    fn prefetch(&self, s: u8, rank: u64) {
        self.levels[s as usize].prefetch(rank);
    }

    /// The future net gain of a tabled board of `s` seeds for its side to move.
    #[inline(never)]
    fn net(&self, s: u8, rank: u64) -> i32 {
        let code = self.levels[s as usize].get(rank);
        // A forged entry (its checksum matching) is clamped to a possible value and reported:
        // the caller refuses the result.
        let max = entry::max_code(self.counted, s as u32);
        if code as u32 > max {
            if let Some(f) = self.fault {
                f.store(s as u32 + 1, std::sync::atomic::Ordering::Relaxed);
            }
        }
        entry::net(self.counted, s as u32, code.min(max as u8))
    }
}

impl<'a> FastRules<'a> {
    /// `None` when these rules need the generic search: they read what the fast board lacks,
    /// or `oracle` cannot hand its tables over as packed levels.
    pub fn new(r: &KalahRules, oracle: Option<&'a dyn Oracle>) -> Option<FastRules<'a>> {
        let m = r.pits as usize;
        let fits = m <= MAX_M
            && !r.cross
            && !r.dracala
            && !r.misere
            && r.decided_above == u16::MAX
            && r.leftovers != Leftovers::LastCapturer;
        if !fits {
            return None;
        }
        let tables = match oracle {
            None => None,
            Some(o) => {
                let t = o.packed(r)?;
                Some(Tables {
                    levels: t.levels,
                    counted: t.counted,
                    fault: t.fault,
                    bin: Binomials::new(),
                })
            }
        };
        let ring = 2 * m + 1;
        // The byte of ring cell `c` (0 to `2m`: the mover's pits, its store, the opponent's).
        let one = |c: usize| 1u128 << (8 * if c <= m { c } else { 8 + c - m - 1 });
        let mut sow = [[0u128; 16]; MAX_M];
        for (i, row) in sow.iter_mut().enumerate().take(m) {
            for r in 1..ring {
                row[r] = row[r - 1] + one((i + r) % ring);
            }
        }
        let lap: u128 = (0..ring).map(one).sum();
        let (mut sown, mut land) = ([[0u128; SOWN]; MAX_M], [[0u8; SOWN]; MAX_M]);
        for i in 0..m {
            for n in 0..SOWN {
                sown[i][n] = lap * (n / ring) as u128 + sow[i][n % ring];
                land[i][n] = ((i + n) % ring) as u8;
            }
        }
        let mut grab = [0u128; 16];
        for (last, g) in grab.iter_mut().enumerate().take(m) {
            *g = 0xFF << (8 * (8 + m - 1 - last));
            if r.capture.is_some_and(|c| c.takes_last_seed()) {
                *g |= 0xFF << (8 * last);
            }
        }
        Some(FastRules {
            m,
            capture: r.capture,
            extra_turn: r.extra_turn,
            mover_empty: r.end == EndCheck::MoverEmpty,
            leftovers: r.leftovers,
            sow,
            lap,
            sown,
            land,
            grab,
            tables: tables.filter(|t| !t.levels.is_empty()),
        })
    }

    /// The number of endgame-table levels the proof reads (0: none): positions of fewer
    /// seeds are tabled.
    pub fn tabled_levels(&self) -> i32 {
        self.tables.as_ref().map_or(0, |t| t.levels.len() as i32)
    }

    /// The fast board of `p`, seen from its side to move.
    pub fn board(&self, p: &KalahPos) -> Board {
        let me = p.to_move();
        let mut cells = 0u128;
        for i in 0..self.m {
            cells |= (p.pit(me, i) as u128) << (8 * i);
            cells |= (p.pit(me.other(), i) as u128) << (8 * (8 + i));
        }
        Board {
            cells,
            seeds: p.board_seeds() as u8,
        }
    }

    /// As [`SearchGame::tt_key`] of the same position.
    #[inline]
    fn key<const M: usize>(&self, b: &Board) -> u64 {
        crate::game::row_key(b.mine::<M>(), b.theirs::<M>(), 0)
    }

    /// Plays pit `i` of `b` (not empty): the child board, the mover's net gain, and whether
    /// the mover moves again. A finished game comes back with no seeds on the board.
    /// `M` is the pit count (a constant: every shift is then a constant).
    #[inline(always)]
    fn play<const M: usize>(&self, b: &Board, i: usize) -> (Board, i32, bool) {
        let (m, ring) = (M, 2 * M + 1);
        let n = b.cells.to_le_bytes()[i] as usize;
        let mut c = b.cells & CLEAR[i];
        let last = if n < SOWN {
            c += self.sown[i][n];
            self.land[i][n] as usize
        } else {
            // Whole laps and the rest (a division by a constant).
            let r = n % ring;
            c += self.lap * (n / ring) as u128 + self.sow[i][r];
            (i + r) % ring
        };
        let mut gain = (c >> (8 * m)) as u8 as i32;
        c &= !(0xFFu128 << (8 * m));
        // The capture, without branches (which pit a move ends in is as good as random, so a
        // branch on it mispredicts): where the last seed falls outside the mover's pits, the
        // bytes read are 7 and 15, which hold no pit of a board of up to 7 pits (byte 7 is
        // empty, or a 7-pit board's store, cleared above), so no capture is made.
        let own = last < m;
        let (li, oi) = if own {
            (last, 8 + m - 1 - last)
        } else {
            (7, 15)
        };
        let bytes = c.to_le_bytes();
        let (l, o) = (bytes[li], bytes[oi]);
        if let Some(cap) = self.capture {
            let taken = cap.taken(o) as i32;
            let hit = l == 1 && taken > 0;
            c &= !(self.grab[last] & (hit as u128).wrapping_neg());
            gain += taken & (hit as i32).wrapping_neg();
        }
        let again = last == m && self.extra_turn;
        let mut child = Board {
            cells: c,
            seeds: b.seeds - gain as u8,
        };
        let (mine, theirs) = (child.mine::<M>(), child.theirs::<M>());
        let over = if self.mover_empty {
            (if again { mine } else { theirs }) == 0
        } else {
            mine == 0 || theirs == 0
        };
        if over {
            let (a, z) = (byte_sum(mine), byte_sum(theirs));
            gain += match self.leftovers {
                Leftovers::ToOwner => a - z,
                Leftovers::LastMover => a + z,
                _ => 0,
            };
            return (Board { cells: 0, seeds: 0 }, gain, false);
        }
        let (lo, hi) = if again {
            (mine, theirs)
        } else {
            (theirs, mine)
        };
        child.cells = lo as u128 | (hi as u128) << 64;
        (child, gain, again)
    }
}

/// `CLEAR[i]`: every cell but cell `i` (a table: a `u128` shift by a variable is a dozen
/// instructions).
static CLEAR: [u128; 16] = {
    let mut t = [0u128; 16];
    let mut i = 0;
    while i < 16 {
        t[i] = !(0xFFu128 << (8 * i));
        i += 1;
    }
    t
};

#[inline]
fn byte_sum(x: u64) -> i32 {
    (x.wrapping_mul(0x0101_0101_0101_0101) >> 56) as i32
}

/// A position of the fast path: the cells and the seeds on the board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Board {
    cells: u128,
    seeds: u8,
}

impl Board {
    /// The mover's row, a byte a pit, of a board of `M` pits a row.
    #[inline]
    fn mine<const M: usize>(&self) -> u64 {
        self.cells as u64 & ((1 << (8 * M)) - 1)
    }

    /// The opponent's row.
    #[inline]
    fn theirs<const M: usize>(&self) -> u64 {
        (self.cells >> 64) as u64
    }
}

/// Calls `go::<M>(args)` with the pit count `m` as the constant `M` (1 to 7).
macro_rules! by_pits {
    ($m:expr, $go:ident($($arg:expr),*)) => {
        match $m {
            1 => $go::<1>($($arg),*),
            2 => $go::<2>($($arg),*),
            3 => $go::<3>($($arg),*),
            4 => $go::<4>($($arg),*),
            5 => $go::<5>($($arg),*),
            6 => $go::<6>($($arg),*),
            _ => $go::<7>($($arg),*),
        }
    };
}

mod game;

pub use game::FastGame;

/// The threshold proof on one thread of the fast path: one null-window pass at `beta`, whose
/// fail-soft result `g` proves the future net gain of `b` at least `g` when `g >= beta`, else
/// at most `g`; `None` when stopped by a limit. MTD(f) is a sequence of these
/// ([`crate::Engine::solve`]). `joined`: another thread started this proof (or this thread's
/// earlier pass did), so this one defers what the others have under way near the root.
pub fn test(
    shared: &Shared,
    rules: &FastRules,
    b: &Board,
    thread: usize,
    beta: i32,
    joined: bool,
) -> Option<i32> {
    fn go<const M: usize>(
        shared: &Shared,
        rules: &FastRules,
        b: &Board,
        thread: usize,
        beta: i32,
        joined: bool,
    ) -> Option<i32> {
        let mut w = FastWorker::<M>::new(shared, rules, thread);
        w.joined = joined;
        let r = w.test(b, beta);
        w.flush();
        r
    }
    by_pits!(rules.m, go(shared, rules, b, thread, beta, joined))
}

/// The best move of `b`, whose value is `value` (as passes of [`test()`] proved it, with the proof in
/// the table), and the principal variation after it (at most `max` moves): at each position
/// the first move proven to reach the line's value, as the generic solver chooses (past the
/// root, the table's move is tried first).
pub fn best_line(
    shared: &Shared,
    rules: &FastRules,
    b: &Board,
    value: i32,
    max: usize,
) -> (u8, Vec<u8>) {
    fn go<const M: usize>(
        shared: &Shared,
        rules: &FastRules,
        b: &Board,
        value: i32,
        max: usize,
    ) -> (u8, Vec<u8>) {
        let mut w = FastWorker::<M>::new(shared, rules, 0);
        let r = w.best_line(b, value, max);
        w.flush();
        r
    }
    by_pits!(rules.m, go(shared, rules, b, value, max))
}

/// One search thread of the fast path, for boards of `M` pits a row.
pub struct FastWorker<'s, 't, const M: usize> {
    shared: &'s Shared<'t>,
    tt: ProofTable<'t>,
    rules: &'s FastRules<'s>,
    /// Positions this thread has searched (added to the shared count at each flush).
    pub nodes: u64,
    flushed: u64,
    thread: usize,
    ply: u32,
    oracle_hits: u64,
    /// The thread's first null-window pass is over: it now joins a proof another thread
    /// has under way, and defers what that thread is searching (see [`FastWorker::ab`]).
    joined: bool,
}

impl<'s, 't, const M: usize> FastWorker<'s, 't, M> {
    /// Thread `thread` of a proof under `rules`: threads 0 and 1 start the two first passes,
    /// the others join them.
    pub fn new(shared: &'s Shared<'t>, rules: &'s FastRules<'s>, thread: usize) -> Self {
        FastWorker {
            shared,
            tt: shared.tt.proof(),
            rules,
            nodes: 0,
            flushed: 0,
            thread,
            ply: 0,
            oracle_hits: 0,
            // Threads 0 and 1 start the two passes that prove the guess; the others join them.
            joined: thread >= 2,
        }
    }

    /// Adds the nodes and endgame table hits since the last flush to the shared counts.
    pub fn flush(&mut self) {
        self.shared.add_nodes(self.nodes - self.flushed);
        self.flushed = self.nodes;
        self.shared.oracle_hits.fetch_add(
            std::mem::take(&mut self.oracle_hits),
            std::sync::atomic::Ordering::Relaxed,
        );
    }

    /// One null-window pass at `beta` to the end of the game (see [`test()`]).
    pub fn test(&mut self, b: &Board, beta: i32) -> Option<i32> {
        let g = self.ab(b, self.rules.key::<M>(b), beta - 1, beta, false);
        (!self.shared.stopped()).then_some(g)
    }

    /// See [`best_line`].
    fn best_line(&mut self, b: &Board, value: i32, max: usize) -> (u8, Vec<u8>) {
        let r = self.rules;
        let tabled = r.tabled_levels().max(1);
        let legal = |p: Board| (0..M).filter(move |&i| p.cells.to_le_bytes()[i] != 0);
        let mut line = Vec::new();
        let (mut p, mut v) = (*b, value);
        loop {
            // The first move proven to reach `v`; past the root, the table's move is tried
            // first (the proof is in the table, so the check is short; where the table lost
            // it, the check searches again).
            let stored = (!line.is_empty())
                .then(|| self.tt.probe(r.key::<M>(&p)))
                .flatten()
                .map(|e| e.best as usize)
                .filter(|&i| i < M && p.cells.to_le_bytes()[i] != 0);
            let mut tried = stored
                .into_iter()
                .chain(legal(p).filter(|&i| Some(i) != stored));
            let Some(i) = tried.find(|&i| self.reaches(&p, i, v)) else {
                break;
            };
            line.push(i as u8);
            let (c, g, again) = r.play::<M>(&p, i);
            if c.seeds == 0 || (c.seeds as i32) < tabled || line.len() >= max {
                break;
            }
            v = if again { v - g } else { g - v };
            p = c;
        }
        let best = line
            .first()
            .copied()
            .or_else(|| legal(*b).next().map(|i| i as u8));
        (best.unwrap_or(0), line)
    }

    /// Whether move `i` of `p` is proven to reach `v` (a null-window search).
    fn reaches(&mut self, p: &Board, i: usize, v: i32) -> bool {
        let (c, g, again) = self.rules.play::<M>(p, i);
        if c.seeds == 0 {
            return g >= v;
        }
        let key = self.rules.key::<M>(&c);
        if again {
            g + self.ab(&c, key, v - g - 1, v - g, false) >= v
        } else {
            g - self.ab(&c, key, g - v, g - v + 1, false) >= v
        }
    }

    /// Fail-soft alpha-beta to the end of the game: the future net gain of `b` for its side
    /// to move, as [`crate::search::Worker::ab`] at [`crate::search::FULL_DEPTH`].
    /// `early`: probe the table before playing the moves (the parent asked for this entry
    /// long enough ago for it to be in cache).
    fn ab(&mut self, b: &Board, key: u64, mut alpha: i32, beta: i32, early: bool) -> i32 {
        self.nodes += 1;
        if self.shared.tick(self.nodes, &mut self.flushed) {
            return 0;
        }
        let bound = b.seeds as i32;
        if bound <= alpha {
            return bound;
        }
        if -bound >= beta {
            return -bound;
        }
        let r = self.rules;
        let m = M;
        // Levels below `tabled` are in the endgame tables (0: none).
        let tabled = r.tables.as_ref().map_or(0, |t| t.levels.len());
        if (b.seeds as usize) < tabled {
            // Only the root can be tabled: a parent values its tabled children itself.
            let t = r.tables.as_ref().expect("tables");
            self.oracle_hits += 1;
            return t.net(b.seeds, t.rank::<M>(b));
        }
        let nodes_before = self.nodes;
        // A solved entry's bounds: its value when they settle it against the window.
        let cut = |e: &Entry| e.cut(alpha, beta);
        let tt = self.tt;
        // A child searched after a sibling had its entry asked for while the parent played
        // its moves: that line has arrived, and a cutoff from it saves playing the moves and
        // fetching the children's lines. (The first child's line is still on its way, so it
        // waits below, behind its own children's requests.)
        let mut entry = None;
        if early {
            entry = tt.probe(key);
            if let Some(v) = entry.as_ref().and_then(cut) {
                return v;
            }
        }
        // Play every move once (its gain and an ordering key, as the generic search), asking
        // for the children's table entries (transposition or endgame) before this position's
        // own probe waits on memory. `known`: the child's value needs no search (the game
        // ended, or the endgame tables hold it, then `ranks` is its rank there). No child is
        // settled by its seeds against `alpha`: a move's gain plus its child's seeds is this
        // position's seeds, already found above `alpha`.
        let mut kids = [Board::default(); M];
        let mut gains = [0i32; M];
        let mut again = [false; M];
        let mut ranks = [0u64; M];
        let mut keys = [0u64; M];
        // The moves, best first: `priority << 3 | pit`, sorted as they are played.
        let mut order = [0u32; M];
        let mut known = 0u32;
        let mut n = 0;
        for i in 0..m {
            if b.cells.to_le_bytes()[i] == 0 {
                continue;
            }
            let (c, g, a) = r.play::<M>(b, i);
            let s = c.seeds as i32;
            if g - s >= beta {
                // The move refutes whatever follows (the game ended, or the child's value
                // lies within its seeds): no more moves, no probe, no entry (so no store
                // to evict another).
                return g - s;
            }
            if s == 0 {
                known |= 1 << i;
            } else if (s as usize) < tabled {
                let t = r.tables.as_ref().expect("tables");
                ranks[i] = t.rank::<M>(&c);
                t.prefetch(c.seeds, ranks[i]);
                known |= 1 << i;
            } else {
                keys[i] = r.key::<M>(&c);
                tt.prefetch(keys[i]);
            }
            kids[i] = c;
            gains[i] = g;
            again[i] = a;
            let v = (crate::search::order_key(a, g, i as u8, self.thread) as u32) << 3 | i as u32;
            let mut j = n;
            while j > 0 && order[j - 1] < v {
                order[j] = order[j - 1];
                j -= 1;
            }
            order[j] = v;
            n += 1;
        }

        if !early {
            entry = tt.probe(key);
            if let Some(v) = entry.as_ref().and_then(cut) {
                return v;
            }
        }
        let tt_move = entry.map_or(NO_MOVE, |e| e.best);
        // The table's move first.
        if let Some(p) = order[..n].iter().position(|&v| v & 7 == tt_move as u32) {
            order[..=p].rotate_right(1);
        }

        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_mv = NO_MOVE;
        // The children valued without a search first: one may already refute.
        if known != 0 {
            for &v in &order[..n] {
                let i = (v & 7) as usize;
                if known & 1 << i == 0 {
                    continue;
                }
                let (c, g) = (&kids[i], gains[i]);
                let s = c.seeds as i32;
                let v = if s == 0 {
                    g
                } else {
                    self.oracle_hits += 1;
                    let t = r.tables.as_ref().expect("tables");
                    let d = t.net(c.seeds, ranks[i]);
                    if again[i] {
                        g + d
                    } else {
                        g - d
                    }
                };
                if v > best {
                    best = v;
                    best_mv = i as u8;
                    alpha = alpha.max(v);
                }
            }
        }

        // Enhanced transposition cutoff high in the tree.
        if alpha < beta && beta < INF && self.ply < self.shared.etc_max_ply {
            for &v in &order[..n] {
                let i = (v & 7) as usize;
                if known & 1 << i != 0 {
                    continue;
                }
                let Some(e) = tt.probe(keys[i]) else {
                    continue;
                };
                let v = if again[i] {
                    gains[i] + e.lower as i32
                } else {
                    gains[i] - e.upper as i32
                };
                if v >= beta {
                    return v;
                }
            }
        }

        // The moves to search, best first. Near the root with several threads, every thread
        // marks the moves it has under way; one that has finished its first pass (so joined a
        // proof another thread started) leaves a move the other is searching for a second
        // pass, unless it is the first searched here. The thread that started the proof keeps
        // its own order: when both defer, the joining thread's pass can finish first, each
        // having searched the other's deferred moves.
        if alpha < beta {
            let defer = self.ply < self.shared.defer_max_ply;
            let (mut deferred, mut searched) = (0u32, 0);
            'passes: for pass in 0..2 {
                for &v in &order[..n] {
                    let i = (v & 7) as usize;
                    let skip = if pass == 0 { known } else { !deferred };
                    if skip & 1 << i != 0 {
                        continue;
                    }
                    let (c, g, ck) = (&kids[i], gains[i], keys[i]);
                    if defer {
                        if self.joined && pass == 0 && searched > 0 && self.shared.is_busy(ck) {
                            deferred |= 1 << i;
                            continue;
                        }
                        self.shared.enter(ck);
                    }
                    let early = searched > 0;
                    searched += 1;
                    self.ply += 1;
                    let v = if again[i] {
                        g + self.ab(c, ck, alpha - g, beta - g, early)
                    } else {
                        g - self.ab(c, ck, g - beta, g - alpha, early)
                    };
                    self.ply -= 1;
                    if defer {
                        self.shared.leave(ck);
                    }
                    if self.shared.stopped() {
                        return 0;
                    }
                    if v > best {
                        best = v;
                        best_mv = i as u8;
                        if v > alpha {
                            alpha = v;
                            if alpha >= beta {
                                break 'passes;
                            }
                        }
                    }
                }
                if deferred == 0 {
                    break;
                }
            }
        }
        let work = self.nodes - nodes_before;
        // A position where every move failed low keeps the table's move, if any, and names
        // none of its own: the move of the highest fail-soft bound ordered later passes
        // worse than the static order (3 % more nodes on Kalah(6,4)).
        let best_mv = if best <= alpha0 { NO_MOVE } else { best_mv };
        let e = Entry::after_search(
            best,
            (alpha0, beta),
            bound,
            (best_mv, tt_move),
            crate::tt::SOLVED,
            work,
        );
        if entry.is_some() {
            tt.store(key, e);
        } else {
            tt.store_new(key, e);
        }
        best
    }
}

#[cfg(test)]
mod tests;
