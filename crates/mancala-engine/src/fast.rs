//! The solver's fast path for the Kalah family: the same alpha-beta as [`crate::search`], on a
//! board made for it.
//!
//! # Board
//! One `u128`, a byte a cell, seen from the side to move: its pits `0..m` (from its left),
//! its store at `m` (always 0 between moves: only future gains count) and the opponent's pits
//! at `m+1..=2m`, in sowing order. The opponent's store is not on the ring, so a sowing of `n`
//! seeds from pit `i` adds `n / (2m+1)` to every cell and then 1 to the next `n % (2m+1)`
//! cells: two additions of precomputed words. A turn to the opponent swaps the two rows.
//!
//! # Which rules
//! Any pit count up to 7 (the ring must fit in 16 bytes), capture `standard`, `empty`,
//! `opposite-only` or none, with or without extra turns, end check `any-row-empty` or
//! `mover-empty`, leftovers `to-owner`, `not-counted` or `last-mover`. Positions that repeat
//! (Cross-Kalah), rules that read the stores (`stop-when-decided`, Dracala's misère and
//! forced captures) or the capture history (`last-capturer`) take the generic path.
//!
//! Values, transposition-table keys and stored moves are those of the generic search on
//! [`KalahPos`] (future net gain for the side to move, [`SearchGame::tt_key`], own pit index),
//! so the two share table entries and [`Worker::pv`](crate::search::Worker::pv) reads the
//! principal variation of a fast proof.

use mancala_core::{Capture, EndCheck, KalahPos, KalahRules, Leftovers, Side};

use crate::search::Shared;
use crate::tt::{Entry, NO_MOVE, SOLVED};

const INF: i32 = 10_000;
const MAX_M: usize = 7;

/// The rules and precomputed words of one board size.
pub struct FastRules {
    m: usize,
    /// Ring length `2m + 1`.
    ring: usize,
    capture: Option<Capture>,
    extra_turn: bool,
    mover_empty: bool,
    leftovers: Leftovers,
    /// `sow[i * ring + r]`: 1 in each of the `r` cells after pit `i`, round the ring.
    sow: Vec<u128>,
    /// 1 in each ring cell.
    lap: u128,
    row_mask: u64,
    /// Rules and seed total of the positions given to the oracle.
    kalah: KalahRules,
}

impl FastRules {
    /// `None` when these rules need the generic search.
    pub fn new(r: &KalahRules) -> Option<FastRules> {
        let m = r.pits as usize;
        let fits = m <= MAX_M
            && !r.cross
            && !r.dracala
            && !r.misere
            && r.decided_above == u8::MAX
            && r.leftovers != Leftovers::LastCapturer;
        if !fits {
            return None;
        }
        let ring = 2 * m + 1;
        let one = |c: usize| 1u128 << (8 * c);
        let mut sow = vec![0u128; m * ring];
        for i in 0..m {
            for r in 1..ring {
                sow[i * ring + r] = sow[i * ring + r - 1] + one((i + r) % ring);
            }
        }
        Some(FastRules {
            m,
            ring,
            capture: r.capture,
            extra_turn: r.extra_turn,
            mover_empty: r.end == EndCheck::MoverEmpty,
            leftovers: r.leftovers,
            sow,
            lap: (0..ring).map(one).sum(),
            row_mask: (1 << (8 * m)) - 1,
            kalah: *r,
        })
    }

    /// The fast board of `p`, seen from its side to move.
    pub fn board(&self, p: &KalahPos) -> Board {
        let me = p.to_move();
        let mut cells = 0u128;
        for i in 0..self.m {
            cells |= (p.pit(me, i) as u128) << (8 * i);
            cells |= (p.pit(me.other(), i) as u128) << (8 * (self.m + 1 + i));
        }
        Board {
            cells,
            seeds: p.board_seeds() as u8,
        }
    }

    #[inline]
    fn mine(&self, b: &Board) -> u64 {
        b.cells as u64 & self.row_mask
    }

    #[inline]
    fn theirs(&self, b: &Board) -> u64 {
        (b.cells >> (8 * (self.m + 1))) as u64 & self.row_mask
    }

    /// As [`SearchGame::tt_key`] of the same position.
    #[inline]
    fn key(&self, b: &Board) -> u64 {
        crate::game::row_key(self.mine(b), self.theirs(b), 0)
    }

    /// Plays pit `i` of `b` (not empty): the child board, the mover's net gain, and whether
    /// the mover moves again. A finished game comes back with no seeds on the board.
    #[inline]
    fn play(&self, b: &Board, i: usize) -> (Board, i32, bool) {
        let m = self.m;
        let n = (b.cells >> (8 * i)) as u8 as usize;
        let mut c = b.cells & !(0xFFu128 << (8 * i));
        let (laps, r) = (n / self.ring, n % self.ring);
        if laps > 0 {
            c += self.lap * laps as u128;
        }
        c += self.sow[i * self.ring + r];
        let last = (i + r) % self.ring;
        let mut gain = (c >> (8 * m)) as u8 as i32;
        c &= !(0xFFu128 << (8 * m));
        if last < m && (c >> (8 * last)) as u8 == 1 {
            if let Some(cap) = self.capture {
                let opp = 2 * m - last;
                let o = (c >> (8 * opp)) as u8;
                let taken = cap.taken(o) as i32;
                if taken > 0 {
                    c &= !(0xFFu128 << (8 * opp));
                    if cap.takes_last_seed() {
                        c &= !(0xFFu128 << (8 * last));
                    }
                    gain += taken;
                }
            }
        }
        let again = last == m && self.extra_turn;
        let mut child = Board {
            cells: c,
            seeds: b.seeds - gain as u8,
        };
        let (mine, theirs) = (self.mine(&child), self.theirs(&child));
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
        if !again {
            child.cells = (theirs as u128) | (mine as u128) << (8 * (m + 1));
        }
        (child, gain, again)
    }

    /// The position `b` as a [`KalahPos`] with South to move (for the endgame databases).
    fn kalah_pos(&self, b: &Board) -> Option<KalahPos> {
        let (mine, theirs) = (self.mine(b).to_le_bytes(), self.theirs(b).to_le_bytes());
        let banked = self.kalah.total.checked_sub(b.seeds)?;
        KalahPos::from_parts(
            &self.kalah,
            [&mine[..self.m], &theirs[..self.m]],
            [banked, 0],
            Some(Side::South),
            None,
        )
        .ok()
    }
}

#[inline]
fn byte_sum(x: u64) -> i32 {
    (x.wrapping_mul(0x0101_0101_0101_0101) >> 56) as i32
}

/// A position of the fast path: the cells and the seeds on the board.
#[derive(Clone, Copy, Default)]
pub struct Board {
    cells: u128,
    seeds: u8,
}

/// One search thread of the fast path.
pub struct FastWorker<'s, 't> {
    shared: &'s Shared<'t>,
    rules: &'s FastRules,
    pub nodes: u64,
    flushed: u64,
    thread: usize,
    ply: u32,
    oracle_hits: u64,
}

impl<'s, 't> FastWorker<'s, 't> {
    pub fn new(shared: &'s Shared<'t>, rules: &'s FastRules, thread: usize) -> Self {
        FastWorker {
            shared,
            rules,
            nodes: 0,
            flushed: 0,
            thread,
            ply: 0,
            oracle_hits: 0,
        }
    }

    pub fn flush(&mut self) {
        self.shared.add_nodes(self.nodes - self.flushed);
        self.flushed = self.nodes;
        self.shared.oracle_hits.fetch_add(
            std::mem::take(&mut self.oracle_hits),
            std::sync::atomic::Ordering::Relaxed,
        );
    }

    /// MTD(f) to the end of the game from `guess`; `None` when stopped by a limit.
    pub fn mtdf(&mut self, b: &Board, guess: i32) -> Option<i32> {
        crate::search::mtd(b.seeds as i32, guess, |beta| {
            let g = self.ab(b, beta - 1, beta);
            (!self.shared.stopped()).then_some(g)
        })
    }

    /// Fail-soft alpha-beta to the end of the game: the future net gain of `b` for its side
    /// to move, as [`crate::search::Worker::ab`] at [`crate::search::FULL_DEPTH`].
    fn ab(&mut self, b: &Board, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes & 4095 == 0 {
            self.shared.add_nodes(self.nodes - self.flushed);
            self.flushed = self.nodes;
            self.shared.check_limits();
        }
        if self.shared.stopped() {
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
        let nodes_before = self.nodes;
        if let Some(o) = self.shared.oracle {
            if bound as u32 <= o.max_seeds() {
                if let Some(v) = r.kalah_pos(b).and_then(|p| o.net(&p)) {
                    self.oracle_hits += 1;
                    return v;
                }
            }
        }
        // Play every move once (its gain and an ordering key, as the generic search), asking
        // for the children's table entries before this position's own probe waits on memory.
        let m = r.m;
        let mut kids = [Board::default(); MAX_M];
        let mut gains = [0i32; MAX_M];
        let mut again = [false; MAX_M];
        let mut order = [(0i32, 0u8); MAX_M];
        let mut n = 0;
        for i in 0..m {
            if (b.cells >> (8 * i)) as u8 == 0 {
                continue;
            }
            let (c, g, a) = r.play(b, i);
            if c.seeds > 0 {
                self.shared.tt.prefetch(r.key(&c));
            }
            kids[i] = c;
            gains[i] = g;
            again[i] = a;
            let k = if a {
                (1 << 28) + i as i32
            } else {
                ((g + 128) << 8) + ((i as i32 + self.thread as i32 * 3) & 7)
            };
            order[n] = (k, i as u8);
            n += 1;
        }

        let tt = self.shared.tt;
        let key = r.key(b);
        let mut tt_move = NO_MOVE;
        if let Some(e) = tt.probe(key) {
            if e.depth == SOLVED {
                tt_move = e.best;
                let (lo, up) = (e.lower as i32, e.upper as i32);
                if lo >= beta || lo == up {
                    return lo;
                }
                if up <= alpha {
                    return up;
                }
                if let Some(o) = order[..n].iter_mut().find(|o| o.1 == tt_move) {
                    o.0 = 1 << 30;
                }
            }
        }
        order[..n].sort_unstable_by_key(|o| core::cmp::Reverse(o.0));

        // Enhanced transposition cutoff high in the tree.
        if beta < INF && self.ply < self.shared.etc_max_ply {
            for &(_, i) in &order[..n] {
                let (c, i) = (&kids[i as usize], i as usize);
                if c.seeds == 0 {
                    continue;
                }
                let Some(e) = tt.probe(r.key(c)) else {
                    continue;
                };
                if e.depth == SOLVED {
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
        }

        let alpha0 = alpha;
        let mut best = -INF;
        let mut best_mv = NO_MOVE;
        for &(_, i) in &order[..n] {
            let (c, g, i) = (&kids[i as usize], gains[i as usize], i as usize);
            let v = if c.seeds == 0 {
                g
            } else {
                self.ply += 1;
                let v = if again[i] {
                    g + self.ab(c, alpha - g, beta - g)
                } else {
                    g - self.ab(c, g - beta, g - alpha)
                };
                self.ply -= 1;
                v
            };
            if self.shared.stopped() {
                return 0;
            }
            if v > best {
                best = v;
                best_mv = i as u8;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        let window = (alpha0, beta);
        let work = self.nodes - nodes_before;
        tt.store(
            key,
            Entry::after_search(best, window, bound, (best_mv, tt_move), SOLVED, work),
        );
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::SearchGame;

    /// Every move of random positions of every eligible rule set: the fast board's child,
    /// gain and turn equal `KalahPos::play`'s.
    #[test]
    fn moves_match_the_rules_core() {
        let mut seed = 0x1234_5678_9abc_def0u64;
        let mut rnd = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let variants = [
            "kalah,seeds=4",
            "kalah,seeds=6,capture=empty",
            "kalah,seeds=3,capture=opposite-only,end=mover-empty",
            "kalah,pits=4,seeds=5,leftovers=not-counted",
            "kalah,pits=7,seeds=6,leftovers=last-mover,end=mover-empty",
            "kalah-brazil,stage=basic",
            "vaccean",
        ];
        for v in variants {
            let rules: mancala_core::Rules = v.parse().unwrap();
            let kr = KalahRules::new(&rules).unwrap();
            let fr = FastRules::new(&kr).unwrap_or_else(|| panic!("{v} takes the fast path"));
            let mut checked = 0;
            for _ in 0..300 {
                let mut p = KalahPos::start(&kr);
                let plies = rnd(40);
                for _ in 0..plies {
                    let moves = p.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    let mv = moves.as_slice()[rnd(moves.len() as u64) as usize];
                    p.play_unchecked(mv);
                }
                if p.is_over() {
                    continue;
                }
                let me = p.to_move();
                let b = fr.board(&p);
                assert_eq!(fr.key(&b), p.tt_key(), "{v}");
                for &mv in p.legal_moves().as_slice() {
                    let mut q = p;
                    q.play_unchecked(mv);
                    let (c, gain, again) = fr.play(&b, mv as usize);
                    assert_eq!(gain, q.banked(me) - p.banked(me), "{v} {p:?} {mv}");
                    if q.is_over() {
                        assert_eq!(c.seeds, 0, "{v}");
                    } else {
                        assert_eq!(again, q.to_move() == me, "{v}");
                        let qb = fr.board(&q);
                        assert_eq!((c.cells, c.seeds), (qb.cells, qb.seeds), "{v} {p:?} {mv}");
                    }
                    checked += 1;
                }
            }
            assert!(checked > 500, "{v}: only {checked} moves checked");
        }
    }
}
