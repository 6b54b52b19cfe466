//! Building the tables level by level.
//!
//! Level `s` holds every distribution of `s` seeds. A move either puts a seed in a store (the
//! board count drops: a lower level, already complete) or sows within the mover's own row
//! without reaching the store; such a move keeps the level but moves seeds rightwards, so the
//! *potential* of the mover's row (`sum of seeds x their pit index`) grows strictly: the graph
//! of a level is acyclic.
//!
//! Order and locality. A position is a pair of rows `(x, y)`, the mover's first; its rank is
//! `head(x) + tail(y)` (the block of row `x`, then `y`'s rank among the rows of its seeds):
//! `M`, the file order. The levels are also kept transposed, by `head(y) + tail(x)`: `T`.
//! The level is swept in tiles of outer rows `x` and opponent rows `y` (see `sweep_level`);
//! a successor keeps a row derived from `x`, and is looked up in the copy whose block is that
//! row (`M` of the level below after an extra turn, `T` otherwise), so the lookups of a tile
//! stay in a few blocks instead of spreading over gigabytes.
//!
//! Memory. The level being built is `T` one byte an entry (`D + s`, `0xFF` unknown); when it
//! is complete it is transposed into `M`, packed as the file's payload and written, and packed
//! again as `T` for the levels above. Lower levels are read packed (5 bits an entry from 16
//! seeds, 6 from 32) instead of a byte an entry. From the first level whose build needs more
//! memory than the system has, every level lives in a scratch file mapped shared (see
//! [`BuildOptions::memory_limit`]): the kernel's page cache then decides what stays in memory.

use crate::entry::{self, payload_len, PackedLevel};
use crate::file::{write_level, Table};
use crate::rank::{next, Binomials};
use crate::{Error, TableRules};
use mancala_core::{Capture, EndCheck, Leftovers};
use memmap2::MmapMut;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{
    AtomicU64, AtomicU8, Ordering::Acquire, Ordering::Relaxed, Ordering::Release,
};
use std::time::{Duration, Instant};

const UNKNOWN: u8 = 0xFF;

const GIB: f64 = (1u64 << 30) as f64;

mod buffers;
mod driver;

use buffers::{disk_available, heads, pack, transpose_into};
pub(crate) use buffers::{Buf, Entries, Packed};
pub use driver::{build, memory_needed, peak_memory, BuildOptions, BuildReport};

/// A complete level: packed transposed (`t`), and by rank (`m`, the file's payload) while
/// the level above is built (its extra turns read it).
pub(crate) struct Level {
    m: Option<Packed>,
    t: Packed,
}

/// The two halves of the rank of a position of `2M` pits (see the module comment).
#[derive(Clone, Copy)]
struct Ranker<'a, const M: usize> {
    b: &'a Binomials,
}

impl<const M: usize> Ranker<'_, M> {
    /// The first `M` terms of the rank of `(x, y)` among the positions of `s` seeds: where
    /// the block of `x` starts.
    #[inline(always)]
    fn head(&self, x: &[u8], s: u32) -> u64 {
        self.b.rank_prefix(&x[..M], 2 * M, s)
    }

    /// The rank of `y` among the rows of its seeds.
    #[inline(always)]
    fn tail(&self, y: &[u8]) -> u64 {
        let r = y[..M].iter().map(|&v| v as u32).sum();
        self.b.rank(y, M, r)
    }
}

/// The values of one level during the build, for `M` pits a row.
pub(crate) struct Solver<'a, const M: usize> {
    r: TableRules,
    rk: Ranker<'a, M>,
    s: u32,
    /// Complete lower levels, transposed (`T`).
    lower: Vec<Entries<'a>>,
    /// Level `s - 1` by rank (`M`; none at level 0).
    m1: Entries<'a>,
    /// This level, `D + s` a byte, transposed (`UNKNOWN` until valued).
    cur_t: &'a [AtomicU8],
}

impl<const M: usize> Solver<'_, M> {
    /// Future net gain for the mover of playing `pit` in `cells` (mover's row, opponent's
    /// row); `outer`: whether the mover's row derives from the outer row of the sweep.
    #[inline(always)]
    fn move_value(&self, cells: &[u8; 16], pit: usize, outer: bool) -> i32 {
        let len = 2 * M + 1;
        // Ring: mover pits 0..M, mover store M, opponent pits M+1..=2M.
        let mut c = [0u8; 17];
        for i in 0..M {
            c[i] = cells[i];
            c[M + 1 + i] = cells[M + i];
        }
        let mut n = c[pit] as usize;
        c[pit] = 0;
        if n >= len {
            let laps = (n / len) as u8;
            for x in &mut c[..len] {
                *x += laps;
            }
            n %= len;
        }
        // Sow the remaining `n < len` seeds into pits pit+1 ..= pit+n (mod len), branch-free.
        for (j, x) in c[..len].iter_mut().enumerate() {
            let d = if j > pit {
                j - pit - 1
            } else {
                j + len - pit - 1
            };
            *x += (d < n) as u8;
        }
        let idx = if pit + n >= len {
            pit + n - len
        } else {
            pit + n
        };
        let mut gain = c[M] as i32;
        let in_store = idx == M;
        if idx < M && c[idx] == 1 {
            if let Some(cap) = self.r.capture {
                let opp = 2 * M - idx;
                let o = c[opp];
                let taken = cap.taken(o);
                if taken > 0 {
                    c[opp] = 0;
                    if cap.takes_last_seed() {
                        c[idx] = 0;
                    }
                    gain += taken as i32;
                }
            }
        }
        let again = in_store && self.r.extra_turn;
        let mut mine = 0u32;
        let mut theirs = 0u32;
        for i in 0..M {
            mine += c[i] as u32;
            theirs += c[M + 1 + i] as u32;
        }
        let over = match self.r.end {
            EndCheck::AnyRowEmpty => mine == 0 || theirs == 0,
            EndCheck::MoverEmpty => (if again { mine } else { theirs }) == 0,
        };
        if over {
            return gain
                + match self.r.leftovers {
                    Leftovers::ToOwner => mine as i32 - theirs as i32,
                    Leftovers::LastMover => (mine + theirs) as i32,
                    _ => 0,
                };
        }
        let s2 = mine + theirs;
        let mut succ = [0u8; 16];
        for i in 0..M {
            if again {
                succ[i] = c[i];
                succ[M + i] = c[M + 1 + i];
            } else {
                succ[i] = c[M + 1 + i];
                succ[M + i] = c[i];
            }
        }
        // The successor's row derived from the outer row: its mover's after an extra turn.
        let succ_outer = outer == again;
        let d = if s2 < self.s {
            let (x, y) = (&succ[..M], &succ[M..2 * M]);
            let e = if succ_outer && s2 + 1 == self.s {
                self.m1.get(self.rk.head(x, s2) + self.rk.tail(y))
            } else {
                self.lower[s2 as usize].get(self.rk.head(y, s2) + self.rk.tail(x))
            };
            e as i32 - s2 as i32
        } else {
            debug_assert!(!again && gain == 0);
            self.value(&succ, succ_outer)
        };
        if again {
            gain + d
        } else {
            gain - d
        }
    }

    /// The best future net gain of the live position `cells` (all its moves).
    #[inline(always)]
    fn best(&self, cells: &[u8; 16], outer: bool) -> i32 {
        let mut best = i32::MIN;
        for pit in 0..M {
            if cells[pit] != 0 {
                best = best.max(self.move_value(cells, pit, outer));
            }
        }
        best
    }

    /// The future net gain of the live position `cells` of this level, memoised.
    #[inline(never)]
    fn value(&self, cells: &[u8; 16], outer: bool) -> i32 {
        let s = self.s;
        let (x, y) = (&cells[..M], &cells[M..2 * M]);
        let i = (self.rk.head(y, s) + self.rk.tail(x)) as usize;
        let e = self.cur_t[i].load(Relaxed);
        if e != UNKNOWN {
            return e as i32 - s as i32;
        }
        let v = self.best(cells, outer);
        self.cur_t[i].store((v + s as i32) as u8, Relaxed);
        v
    }

    /// Sweeps one tile: every position `(x, y)` with `x` in `xs`, `y` in `ys` (rows with
    /// their ranks among the rows of their seeds). Same-level successors lie in tiles done
    /// before; the common moves use the outer row's precomputed blocks.
    #[inline(never)]
    #[allow(clippy::needless_range_loop)]
    fn tile(&self, xs: &[([u8; 8], u32)], ys: &[([u8; 8], u32)], tails: &Tails) -> u64 {
        let (s, rk) = (self.s, self.rk);
        let (Some(&(x0, _)), false) = (xs.first(), ys.is_empty()) else {
            return 0;
        };
        let p: u32 = x0[..M].iter().map(|&v| v as u32).sum();
        let q = s - p;
        let live = self.r.live(p, q);
        let (m1, t1) = if s > 0 {
            (self.m1, self.lower[s as usize - 1])
        } else {
            (Entries::NONE, Entries::NONE)
        };
        // Per opponent row, shared by the outer rows of the tile: its block on this level
        // (where the transposed entry goes) and the rank of `y + 1^l` (`l` seeds sown into
        // it past the store), `M + 1` numbers a row.
        TILE_BUF.with(|buf| {
            let mut buf = buf.borrow_mut();
            buf.clear();
            for (y, _) in ys {
                buf.push(rk.head(y, s));
                let mut y2 = *y;
                for l in 0..M {
                    y2[l] += 1;
                    buf.push(if live { tails.tail::<M>(&y2) } else { 0 });
                }
            }
            self.tile_rows(xs, ys, &buf, tails, p, q, live, m1, t1);
        });
        (xs.len() * ys.len()) as u64
    }

    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn tile_rows(
        &self,
        xs: &[([u8; 8], u32)],
        ys: &[([u8; 8], u32)],
        per_y: &[u64],
        tails: &Tails,
        p: u32,
        q: u32,
        live: bool,
        m1: Entries,
        t1: Entries,
    ) {
        let s = self.s;
        const AHEAD: usize = 8;
        const RING: usize = 16;
        const NONE: u64 = u64::MAX;
        for (x, rx) in xs {
            let mut plan = [Plan::Empty; 8];
            if live {
                for (i, pl) in plan[..M].iter_mut().enumerate() {
                    *pl = self.plan(x, i, p, q);
                }
            }
            let mut cells = [0u8; 16];
            cells[..M].copy_from_slice(&x[..M]);
            // Where the captures of opponent row `j` read (`T` of their level), computed
            // `AHEAD` rows early and fetched: `ring[j % RING][pit]`, `NONE` if no capture.
            let has_cap = live
                && plan[..M]
                    .iter()
                    .any(|pl| matches!(pl, Plan::InRow { cap, .. } if (*cap as usize) < M));
            let mut ring = [[NONE; 8]; RING];
            let fill = |ring: &mut [[u64; 8]; RING], j: usize| {
                let y = &ys[j].0;
                for (i, pl) in plan[..M].iter().enumerate() {
                    ring[j % RING][i] = match *pl {
                        Plan::InRow { cap, .. } if (cap as usize) < M => {
                            match self.cap_target(x, i, y, cap as usize, p, q, tails) {
                                Some((s2, _, idx)) => {
                                    self.lower[s2 as usize].prefetch(idx);
                                    idx
                                }
                                None => NONE,
                            }
                        }
                        _ => NONE,
                    };
                }
            };
            if has_cap {
                for j in 0..AHEAD.min(ys.len()) {
                    fill(&mut ring, j);
                }
            }
            for (j, (y, ry)) in ys.iter().enumerate() {
                if has_cap && j + AHEAD < ys.len() {
                    fill(&mut ring, j + AHEAD);
                }
                let ti = (per_y[j * (M + 1)] + *rx as u64) as usize;
                if !live {
                    // Never probed; the file holds `s` there.
                    self.cur_t[ti].store(s as u8, Relaxed);
                    continue;
                }
                // Fetch the entries a few opponent rows ahead will need.
                if let Some((_, ry2)) = ys.get(j + AHEAD) {
                    let k = (j + AHEAD) * (M + 1);
                    prefetch(self.cur_t, per_y[k] + *rx as u64);
                    for pl in &plan[..M] {
                        match *pl {
                            Plan::InRow { h, .. } => prefetch(self.cur_t, h + *ry2 as u64),
                            Plan::Again { h } => m1.prefetch(h + *ry2 as u64),
                            Plan::Pass { h } => t1.prefetch(h + *ry2 as u64),
                            Plan::Past { h, l } => t1.prefetch(h + per_y[k + l as usize]),
                            _ => {}
                        }
                    }
                }
                cells[M..2 * M].copy_from_slice(&y[..M]);
                let lo = s as i32 - 1;
                let mut best = i32::MIN;
                for (i, pl) in plan[..M].iter().enumerate() {
                    let v = match *pl {
                        Plan::Empty => continue,
                        Plan::InRow { h, cap } => {
                            if cap < M as u8
                                && (self.r.capture == Some(Capture::Empty) || y[cap as usize] > 0)
                            {
                                let idx = ring[j % RING][i];
                                if idx == NONE {
                                    self.capture(x, i, y, cap as usize, p, q, tails)
                                } else {
                                    let (s2, gain) = self.cap_gain(y[cap as usize], p, q);
                                    gain - (self.lower[s2 as usize].get(idx) as i32 - s2 as i32)
                                }
                            } else {
                                let e = self.cur_t[(h + *ry as u64) as usize].load(Relaxed);
                                if e == UNKNOWN {
                                    self.move_value(&cells, i, true)
                                } else {
                                    s as i32 - e as i32
                                }
                            }
                        }
                        Plan::Again { h } => 1 + m1.get(h + *ry as u64) as i32 - lo,
                        Plan::Pass { h } => 1 - (t1.get(h + *ry as u64) as i32 - lo),
                        Plan::Past { h, l } => {
                            let r2 = per_y[j * (M + 1) + l as usize];
                            1 - (t1.get(h + r2) as i32 - lo)
                        }
                        Plan::General => self.move_value(&cells, i, true),
                    };
                    best = best.max(v);
                }
                self.cur_t[ti].store((best + s as i32) as u8, Relaxed);
            }
        }
    }

    /// The level after a capture of `taken` seeds from the opponent's row and the mover's
    /// gain (seeds into the store).
    #[inline(always)]
    fn cap_gain(&self, taken: u8, p: u32, q: u32) -> (u32, i32) {
        if self.r.capture == Some(Capture::OppositeOnly) {
            (p + q - taken as u32, taken as i32)
        } else {
            (p - 1 + q - taken as u32, taken as i32 + 1)
        }
    }

    /// Where the value after playing pit `i` of the outer row `x` (`p` seeds), an in-row
    /// move whose last seed lands in an empty pit facing `y[o]` and captures, is read: its
    /// level, the gain, the rank in that level's `T`; `None` when the game ends.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn cap_target(
        &self,
        x: &[u8; 8],
        i: usize,
        y: &[u8; 8],
        o: usize,
        p: u32,
        q: u32,
        tails: &Tails,
    ) -> Option<(u32, i32, u64)> {
        if !(self.r.capture == Some(Capture::Empty) || y[o] > 0) {
            return None;
        }
        let l = M - 1 - o;
        let mut x2 = *x;
        x2[i] = 0;
        for v in &mut x2[i + 1..l] {
            *v += 1;
        }
        let (mine, theirs) = self.cap_rows(y[o], p, q);
        if self.r.capture == Some(Capture::OppositeOnly) {
            x2[l] = 1;
        }
        let over = match self.r.end {
            EndCheck::AnyRowEmpty => mine == 0 || theirs == 0,
            EndCheck::MoverEmpty => theirs == 0,
        };
        if over {
            return None;
        }
        let (s2, gain) = self.cap_gain(y[o], p, q);
        let mut y2 = *y;
        y2[o] = 0;
        Some((s2, gain, self.rk.head(&x2, s2) + tails.tail::<M>(&y2)))
    }

    /// Seeds left in the mover's row (`p` before) and the opponent's (`q`) after an in-row
    /// capture of `taken` opposite seeds (the capturing seed stays only under opposite-only).
    #[inline(always)]
    fn cap_rows(&self, taken: u8, p: u32, q: u32) -> (u32, u32) {
        let mine = if self.r.capture == Some(Capture::OppositeOnly) {
            p
        } else {
            p - 1
        };
        (mine, q - taken as u32)
    }

    /// The value of playing pit `i` of the outer row `x` (`p` seeds), an in-row move whose
    /// last seed lands in an empty pit facing `y[o]` (`q` seeds), when it captures.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn capture(
        &self,
        x: &[u8; 8],
        i: usize,
        y: &[u8; 8],
        o: usize,
        p: u32,
        q: u32,
        tails: &Tails,
    ) -> i32 {
        if let Some((s2, gain, idx)) = self.cap_target(x, i, y, o, p, q, tails) {
            let e = self.lower[s2 as usize].get(idx);
            return gain - (e as i32 - s2 as i32);
        }
        // The game ends: the capture, then the leftovers.
        let (_, gain) = self.cap_gain(y[o], p, q);
        let (mine, theirs) = self.cap_rows(y[o], p, q);
        gain + match self.r.leftovers {
            Leftovers::ToOwner => mine as i32 - theirs as i32,
            Leftovers::LastMover => (mine + theirs) as i32,
            _ => 0,
        }
    }

    /// How playing pit `i` of the outer row `x` (`p` seeds; `q` in the opponent's row) is
    /// valued in a tile: the common moves need no sowing per position.
    #[inline(never)]
    fn plan(&self, x: &[u8; 8], i: usize, p: u32, q: u32) -> Plan {
        let n = x[i] as usize;
        if n == 0 {
            return Plan::Empty;
        }
        if i + n > 2 * M || q == 0 {
            return Plan::General;
        }
        let mut x2 = *x;
        x2[i] = 0;
        for v in &mut x2[i + 1..M.min(i + n + 1)] {
            *v += 1;
        }
        let s = self.s;
        if i + n < M {
            let l = i + n;
            let cap = if self.r.capture.is_some() && x[l] == 0 {
                (M - 1 - l) as u8
            } else {
                u8::MAX
            };
            return Plan::InRow {
                h: self.rk.head(&x2, s),
                cap,
            };
        }
        let mine = p - n as u32 + (M - 1 - i) as u32;
        if mine == 0 {
            return Plan::General;
        }
        let h = self.rk.head(&x2, s - 1);
        if i + n == M {
            if self.r.extra_turn {
                Plan::Again { h }
            } else {
                Plan::Pass { h }
            }
        } else {
            Plan::Past {
                h,
                l: (i + n - M) as u8,
            }
        }
    }
}

thread_local! {
    static TILE_BUF: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A hint to fetch `v[i]` into the cache.
#[inline(always)]
fn prefetch<T>(v: &[T], i: u64) {
    #[cfg(target_arch = "x86_64")]
    if let Some(e) = v.get(i as usize) {
        // SAFETY: a prefetch hint on a valid address; it reads nothing into the program.
        unsafe {
            std::arch::x86_64::_mm_prefetch(
                e as *const T as *const i8,
                std::arch::x86_64::_MM_HINT_T0,
            )
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, i);
}

/// How a pit of an outer row is valued in a tile (`h`: the block of the mover's row after
/// the move in the successor's level).
#[derive(Clone, Copy)]
enum Plan {
    Empty,
    /// Sown within the own row: `(y, x')` on this level (in `T`); `cap`: the opponent's pit
    /// a capture would take from (the last seed lands in an empty pit), `u8::MAX` if none.
    InRow {
        h: u64,
        cap: u8,
    },
    /// Last seed in the store, extra turn: `(x', y)` a level down (in `M`).
    Again {
        h: u64,
    },
    /// Last seed in the store, no extra turn: `(y, x')` a level down (in `T`).
    Pass {
        h: u64,
    },
    /// `l` seeds into the opponent's row: `(y + 1^l, x')` a level down (in `T`).
    Past {
        h: u64,
        l: u8,
    },
    /// Anything else (laps, captures, the game ending): sown in full.
    General,
}

/// `tail` by one table lookup a pit: `term[i][y_i][seeds right of i]`.
pub(crate) struct Tails {
    n: usize,
    term: Vec<u64>,
}

impl Tails {
    fn new(b: &Binomials, m: usize, max: u32) -> Tails {
        let n = max as usize + 1;
        let mut term = vec![0u64; m * n * n];
        for i in 0..m.saturating_sub(1) {
            let j = m - 1 - i;
            for v in 0..n {
                for r in 0..n - v {
                    term[(i * n + v) * n + r] = b.term(j, v + r, v);
                }
            }
        }
        Tails { n, term }
    }

    #[inline(always)]
    fn tail<const M: usize>(&self, y: &[u8; 8]) -> u64 {
        let n = self.n;
        let mut r = y[M - 1] as usize;
        let mut rank = 0;
        for i in (0..M - 1).rev() {
            let v = y[i] as usize;
            rank += self.term[(i * n + v) * n + r];
            r += v;
        }
        rank
    }
}

/// Every row of `m` pits holding at most `max` seeds with its rank among the rows of its
/// seeds, grouped by seeds and potential (sum of seeds x pit index): `groups[p][pot]`.
struct Rows {
    rows: Vec<([u8; 8], u32)>,
    groups: Vec<Vec<std::ops::Range<usize>>>,
}

impl Rows {
    fn new(b: &Binomials, m: usize, max: u32) -> Rows {
        let mut rows = Vec::new();
        let mut groups = Vec::new();
        for p in 0..=max {
            let maxpot = (m - 1) * p as usize;
            let mut by: Vec<Vec<([u8; 8], u32)>> = vec![Vec::new(); maxpot + 1];
            let mut x = [0u8; 8];
            x[m - 1] = p as u8;
            for r in 0..b.count(p, m) {
                let pot: usize = x[..m]
                    .iter()
                    .enumerate()
                    .map(|(i, &v)| i * v as usize)
                    .sum();
                by[pot].push((x, r as u32));
                next(&mut x, m);
            }
            let mut g = Vec::new();
            for v in by {
                g.push(rows.len()..rows.len() + v.len());
                rows.extend(v);
            }
            groups.push(g);
        }
        Rows { rows, groups }
    }

    fn get(&self, p: u32, pot: usize) -> &[([u8; 8], u32)] {
        match self.groups[p as usize].get(pot) {
            Some(r) => &self.rows[r.clone()],
            None => &[],
        }
    }
}

/// Computes level `s` given the complete lower levels: `D + s` a byte, transposed.
fn compute_level(
    r: TableRules,
    b: &Binomials,
    lower: &[Level],
    s: u32,
    scratch: Option<&Path>,
    progress: &(dyn Fn(u64) + Sync),
) -> std::io::Result<Buf> {
    let m = r.pits as usize;
    let t = Buf::new(b.count(s, 2 * m) as usize, UNKNOWN, scratch)?;
    match m {
        1 => sweep_level::<1>(r, b, lower, s, &t, progress),
        2 => sweep_level::<2>(r, b, lower, s, &t, progress),
        3 => sweep_level::<3>(r, b, lower, s, &t, progress),
        4 => sweep_level::<4>(r, b, lower, s, &t, progress),
        5 => sweep_level::<5>(r, b, lower, s, &t, progress),
        6 => sweep_level::<6>(r, b, lower, s, &t, progress),
        7 => sweep_level::<7>(r, b, lower, s, &t, progress),
        8 => sweep_level::<8>(r, b, lower, s, &t, progress),
        _ => unreachable!("at most 8 pits a row"),
    }
    Ok(t)
}

/// Sweeps level `s` tile by tile: a tile is the positions whose rows have potentials
/// `(px, py)`; a same-level move raises the mover's potential and hands the move over, so
/// the successors of tile `(px, py)` lie in tiles `(py, px')`, `px' > px`: the tiles go by
/// decreasing `px + py`, those of one sum in parallel.
///
/// The threads of the pool take the work items in order from one counter; an item of a sum
/// waits, spinning, until every item of the sum before is done, so no thread sleeps (as
/// rayon's do between two parallel calls) and pays a wake-up at each of the level's hundreds
/// of sums.
fn sweep_level<const M: usize>(
    r: TableRules,
    b: &Binomials,
    lower: &[Level],
    s: u32,
    cur_t: &Buf,
    progress: &(dyn Fn(u64) + Sync),
) {
    let solver = Solver::<M> {
        r,
        rk: Ranker { b },
        s,
        lower: lower.iter().map(|l| l.t.entries()).collect(),
        m1: match lower.last() {
            Some(l) => l.m.as_ref().expect("the level below by rank").entries(),
            None => Entries::NONE,
        },
        cur_t: cur_t.cells(),
    };
    let rows = Rows::new(b, M, s);
    // Room for `y + 1^M` (computed for every tile row, used only when valid).
    let tails = Tails::new(b, M, s + M as u32);
    let maxpot = (M - 1) * s as usize;
    // Items of at most `CHUNK` outer rows and `TILE` positions (the last items of a sum
    // then keep no thread waiting long); `(sum index, outer rows, opponent rows)`.
    const CHUNK: usize = 16;
    const TILE: usize = 1 << 15;
    let mut work = Vec::new();
    let mut sums = 0;
    for sum in (0..=2 * maxpot).rev() {
        let before = work.len();
        for p in 0..=s {
            let q = s - p;
            for px in sum.saturating_sub(maxpot)..=sum.min(maxpot) {
                let xs = rows.get(p, px);
                let ys = rows.get(q, sum - px);
                for c in xs.chunks(CHUNK) {
                    for d in ys.chunks(TILE / CHUNK) {
                        work.push((sums, c, d));
                    }
                }
            }
        }
        if work.len() > before {
            sums += 1;
        }
    }
    let left: Vec<AtomicU64> = (0..sums).map(|_| AtomicU64::new(0)).collect();
    for w in &work {
        left[w.0].fetch_add(1, Relaxed);
    }
    let next = AtomicU64::new(0);
    rayon::broadcast(|_| loop {
        let i = next.fetch_add(1, Relaxed) as usize;
        let Some(&(k, xs, ys)) = work.get(i) else {
            break;
        };
        if k > 0 {
            let mut spins = 0u32;
            while left[k - 1].load(Acquire) != 0 {
                spins += 1;
                if spins < 1 << 16 {
                    std::hint::spin_loop();
                } else {
                    // More threads than cores: let the others finish the sum.
                    std::thread::yield_now();
                }
            }
        }
        progress(solver.tile(xs, ys, &tails));
        left[k].fetch_sub(1, Release);
    });
}
