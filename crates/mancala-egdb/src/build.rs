//! Building the tables level by level.
//!
//! Level `s` holds every distribution of `s` seeds. A move either puts a seed in a store (the
//! board count drops: a lower level, already complete) or sows within the mover's own row
//! without reaching the store; such a move keeps the level but moves seeds rightwards, so the
//! *potential* of the mover's row (`sum of seeds x their pit index`) grows strictly: the graph
//! of a level is acyclic.
//!
//! Order and locality. A position is a pair of rows `(x, y)`, the mover's first; its rank is
//! `head(x) + tail(y)` (the block of row `x`, then `y`'s rank among the rows of its seeds),
//! and each level is kept twice in memory: `M` by that rank (the file order) and `T`
//! transposed, by `head(y) + tail(x)`. The level is swept one mover row `x` (the *outer* row)
//! at a time, over every opponent row `y`, in decreasing potential of `x`: a successor keeps a
//! row derived from `x`, and is looked up in the copy whose block is that row (`M` when it is
//! the successor's mover row, after an extra turn; `T` otherwise), so the lookups of one outer
//! row stay in a few blocks of a few KB instead of spreading over the whole level. A
//! same-level successor `(y, x')` is found (or computed, memoised, `0xFF` unknown) in `T`;
//! its own same-level successors `(x', y')` have an outer row of higher potential, already
//! swept, so the recursion is two plies deep. Rows of equal potential are swept in parallel
//! (rayon); the potentials one after the other.

use crate::file::{level_file, read_level, write_file};
use crate::rank::{next, Binomials};
use crate::{Error, TableRules};
use mancala_core::{Capture, EndCheck, Leftovers};
use memmap2::MmapMut;
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{
    AtomicU64, AtomicU8, Ordering::Acquire, Ordering::Relaxed, Ordering::Release,
};
use std::time::{Duration, Instant};

const UNKNOWN: u8 = 0xFF;

/// Anonymous memory, on transparent huge pages where the kernel allows (the lookups are
/// random across gigabytes: 4 KB pages would miss the TLB on nearly every one).
pub(crate) struct Buf {
    _map: MmapMut,
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the buffer is written only through `AtomicU8`s (`cells`) while shared; `bytes` is
// used once writing is over.
unsafe impl Send for Buf {}
unsafe impl Sync for Buf {}

impl Buf {
    pub(crate) fn new(len: usize, fill: u8) -> std::io::Result<Buf> {
        let mut map = MmapMut::map_anon(len.max(1))?;
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        if fill != 0 {
            map[..len]
                .par_chunks_mut(1 << 24)
                .for_each(|c| c.fill(fill));
        }
        let ptr = map.as_mut_ptr();
        Ok(Buf {
            _map: map,
            ptr,
            len,
        })
    }

    #[inline]
    fn cells(&self) -> &[AtomicU8] {
        // SAFETY: AtomicU8 has the layout of u8; the mapping lives as long as `self`.
        unsafe { std::slice::from_raw_parts(self.ptr as *const AtomicU8, self.len) }
    }

    #[inline]
    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: as above; callers read only once no one writes.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// One level in memory: `D + s` per position, by rank (`m`) and transposed (`t`). The build
/// drops `m` once the level is written and the next one computed: the levels above read the
/// lower ones in `t` alone, but for the level just below (extra turns, in `m`).
pub(crate) struct Level {
    pub m: Option<Buf>,
    pub t: Buf,
}

/// The two halves of the rank of a position of `2M` pits (see the module comment).
#[derive(Clone, Copy)]
struct Ranker<'a, const M: usize> {
    b: &'a Binomials,
}

impl<const M: usize> Ranker<'_, M> {
    #[allow(clippy::needless_range_loop)]
    /// The first `M` terms of the rank of `(x, y)` among the positions of `s` seeds: where
    /// the block of `x` starts.
    #[inline(always)]
    fn head(&self, x: &[u8], s: u32) -> u64 {
        let mut r = s as usize;
        let mut rank = 0;
        for i in 0..M {
            let j = 2 * M - 1 - i;
            let xi = x[i] as usize;
            rank += self.b.c(r + j, j) - self.b.c(r - xi + j, j);
            r -= xi;
        }
        rank
    }

    /// The rank of `y` among the rows of its seeds.
    #[inline(always)]
    #[allow(clippy::needless_range_loop)]
    fn tail(&self, y: &[u8]) -> u64 {
        let mut r = 0usize;
        for &v in &y[..M] {
            r += v as usize;
        }
        let mut rank = 0;
        for i in 0..M - 1 {
            let j = M - 1 - i;
            let yi = y[i] as usize;
            rank += self.b.c(r + j, j) - self.b.c(r - yi + j, j);
            r -= yi;
        }
        rank
    }
}

/// The values of one level during the build, for `M` pits a row.
pub(crate) struct Solver<'a, const M: usize> {
    r: TableRules,
    rk: Ranker<'a, M>,
    s: u32,
    /// Complete lower levels, `D + s'` per rank, transposed (`T`).
    lower: Vec<&'a [u8]>,
    /// Level `s - 1` by rank (`M`; empty at level 0).
    m1: &'a [u8],
    cur_m: &'a [AtomicU8],
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
                self.m1[(self.rk.head(x, s2) + self.rk.tail(y)) as usize]
            } else {
                self.lower[s2 as usize][(self.rk.head(y, s2) + self.rk.tail(x)) as usize]
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
        // Look up in the copy where the outer row is the block (the one near the sweep).
        let (near, far, ni) = if outer {
            (self.cur_m, self.cur_t, self.rk.head(x, s) + self.rk.tail(y))
        } else {
            (self.cur_t, self.cur_m, self.rk.head(y, s) + self.rk.tail(x))
        };
        let e = near[ni as usize].load(Relaxed);
        if e != UNKNOWN {
            return e as i32 - s as i32;
        }
        let v = self.best(cells, outer);
        let code = (v + s as i32) as u8;
        near[ni as usize].store(code, Relaxed);
        let fi = if outer {
            self.rk.head(y, s) + self.rk.tail(x)
        } else {
            self.rk.head(x, s) + self.rk.tail(y)
        };
        far[fi as usize].store(code, Relaxed);
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
            (&[][..], &[][..])
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
        m1: &[u8],
        t1: &[u8],
    ) {
        let (s, rk) = (self.s, self.rk);
        const AHEAD: usize = 8;
        const RING: usize = 16;
        const NONE: u64 = u64::MAX;
        for (x, rx) in xs {
            let hx = rk.head(x, s);
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
                                    prefetch(self.lower[s2 as usize], idx);
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
                let mi = (hx + *ry as u64) as usize;
                let ti = (per_y[j * (M + 1)] + *rx as u64) as usize;
                if !live {
                    // Never probed; the file holds `s` there.
                    self.cur_m[mi].store(s as u8, Relaxed);
                    continue;
                }
                // Fetch the entries a few opponent rows ahead will need.
                if let Some((_, ry2)) = ys.get(j + AHEAD) {
                    let k = (j + AHEAD) * (M + 1);
                    prefetch(self.cur_t, per_y[k] + *rx as u64);
                    for pl in &plan[..M] {
                        match *pl {
                            Plan::InRow { h, .. } => prefetch(self.cur_t, h + *ry2 as u64),
                            Plan::Again { h } => prefetch(m1, h + *ry2 as u64),
                            Plan::Pass { h } => prefetch(t1, h + *ry2 as u64),
                            Plan::Past { h, l } => prefetch(t1, h + per_y[k + l as usize]),
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
                                    gain - (self.lower[s2 as usize][idx as usize] as i32
                                        - s2 as i32)
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
                        Plan::Again { h } => 1 + m1[(h + *ry as u64) as usize] as i32 - lo,
                        Plan::Pass { h } => 1 - (t1[(h + *ry as u64) as usize] as i32 - lo),
                        Plan::Past { h, l } => {
                            let r2 = per_y[j * (M + 1) + l as usize];
                            1 - (t1[(h + r2) as usize] as i32 - lo)
                        }
                        Plan::General => self.move_value(&cells, i, true),
                    };
                    best = best.max(v);
                }
                let code = (best + s as i32) as u8;
                self.cur_m[mi].store(code, Relaxed);
                self.cur_t[ti].store(code, Relaxed);
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
            let e = self.lower[s2 as usize][idx as usize];
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
                    term[(i * n + v) * n + r] = b.c(v + r + j, j) - b.c(r + j, j);
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

/// Computes level `s` given the complete lower levels.
pub(crate) fn compute_level(
    r: TableRules,
    b: &Binomials,
    lower: &[Level],
    s: u32,
    progress: &(dyn Fn(u64) + Sync),
) -> std::io::Result<Level> {
    let m = r.pits as usize;
    let k = 2 * m;
    let n = b.count(s, k) as usize;
    let level = Level {
        m: Some(Buf::new(n, UNKNOWN)?),
        t: Buf::new(n, UNKNOWN)?,
    };
    match m {
        1 => sweep_level::<1>(r, b, lower, s, &level, progress),
        2 => sweep_level::<2>(r, b, lower, s, &level, progress),
        3 => sweep_level::<3>(r, b, lower, s, &level, progress),
        4 => sweep_level::<4>(r, b, lower, s, &level, progress),
        5 => sweep_level::<5>(r, b, lower, s, &level, progress),
        6 => sweep_level::<6>(r, b, lower, s, &level, progress),
        7 => sweep_level::<7>(r, b, lower, s, &level, progress),
        8 => sweep_level::<8>(r, b, lower, s, &level, progress),
        _ => unreachable!("at most 8 pits a row"),
    }
    Ok(level)
}

/// Sweeps level `s` tile by tile: a tile is the positions whose rows have potentials
/// `(px, py)`; a same-level move raises the mover's potential and hands the move over, so
/// the successors of tile `(px, py)` lie in tiles `(py, px')`, `px' > px`: the tiles go by
/// decreasing `px + py`, those of one sum in parallel.
///
/// The threads of the pool take the work items in order from one counter; an item of a sum
/// waits, spinning, until every item of the sum before is done. A barrier that slept (as
/// rayon's threads do between two parallel calls) cost a sleeping vCPU's wake-up at each of
/// the level's hundreds of sums: the second thread was idle a fifth of the time.
fn sweep_level<const M: usize>(
    r: TableRules,
    b: &Binomials,
    lower: &[Level],
    s: u32,
    level: &Level,
    progress: &(dyn Fn(u64) + Sync),
) {
    let solver = Solver::<M> {
        r,
        rk: Ranker { b },
        s,
        lower: lower.iter().map(|l| l.t.bytes()).collect(),
        m1: match lower.last() {
            Some(l) => l.m.as_ref().expect("the level below by rank").bytes(),
            None => &[],
        },
        cur_m: level.m.as_ref().expect("the level by rank").cells(),
        cur_t: level.t.cells(),
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

/// Fills the transposed copy of a level read from a file.
#[inline(never)]
fn transpose(r: &TableRules, b: &Binomials, s: u32, mv: &[u8]) -> std::io::Result<Level> {
    let m = r.pits as usize;
    let k = 2 * m;
    let n = mv.len();
    let mb = Buf::new(n, 0)?;
    mb.cells()
        .par_chunks(1 << 20)
        .zip(mv.par_chunks(1 << 20))
        .for_each(|(a, v)| a.iter().zip(v).for_each(|(a, &v)| a.store(v, Relaxed)));
    let t = Buf::new(n, 0)?;
    let tc = t.cells();
    // heads[p][rank of x among the rows of p seeds]: where the block of `x` starts.
    let heads: Vec<Vec<u64>> = (0..=s)
        .into_par_iter()
        .map(|p| {
            let mut xy = [0u8; 16];
            xy[m - 1] = p as u8;
            xy[k - 1] = (s - p) as u8;
            (0..b.count(p, m))
                .map(|_| {
                    let h = b.rank(&xy, k, s);
                    next(&mut xy[..m], m);
                    h
                })
                .collect()
        })
        .collect();
    // Row by row of `y`: `T[head(y) + rank(x)] = M[head(x) + rank(y)]`, written in order.
    (0..=s).into_par_iter().for_each(|q| {
        let p = s - q;
        for (ry, &hy) in heads[q as usize].iter().enumerate() {
            for (rx, &hx) in heads[p as usize].iter().enumerate() {
                tc[hy as usize + rx].store(mv[hx as usize + ry], Relaxed);
            }
        }
    });
    Ok(Level { m: Some(mb), t })
}

/// Bytes needed in memory to build up to level `s`: every level up to it transposed, the
/// top two levels also by rank, one byte an entry, and the top level's file as it is written.
pub fn memory_needed(r: &TableRules, s: u32) -> u64 {
    let b = Binomials::new();
    let count = |t: u32| b.count(t, 2 * r.pits as usize);
    let top = count(s);
    let below = if s > 0 { count(s - 1) } else { 0 };
    let file = (top * r.bits(s) as u64).div_ceil(8);
    (0..=s).map(count).sum::<u64>() + top + below + file
}

fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Peak resident memory of this process in bytes (`VmHWM`), where the system says.
pub fn peak_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// How to build.
pub struct BuildOptions {
    pub dir: PathBuf,
    pub max_seeds: u32,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// Refuse when a level needs more than this many bytes (default: the available memory).
    pub memory_limit: Option<u64>,
}

/// What a build did, per level.
#[derive(Debug, Default)]
pub struct BuildReport {
    /// `(seeds, entries, seconds)` of each level built now.
    pub built: Vec<(u32, u64, f64)>,
    /// Levels found complete on disk and reused.
    pub reused: Vec<u32>,
    /// Seconds spent reading reused levels (and transposing them).
    pub load_secs: f64,
}

/// Builds (or completes) the tables of `rules` up to `opts.max_seeds` in `opts.dir`. Levels
/// already on disk and valid are reused; each level is written atomically (temporary file,
/// then rename), so an interrupted build loses at most the level in progress.
pub fn build(rules: TableRules, opts: &BuildOptions) -> Result<BuildReport, Error> {
    if opts.max_seeds > if rules.counted() { 254 } else { 126 } {
        return Err(Error::Rules(format!(
            "--max-seeds {} is beyond what one byte an entry can hold",
            opts.max_seeds
        )));
    }
    let k = 2 * rules.pits as usize;
    if opts.max_seeds as usize + k >= crate::rank::MAX_N {
        return Err(Error::Rules(format!(
            "--max-seeds {} is beyond the ranking's reach",
            opts.max_seeds
        )));
    }
    std::fs::create_dir_all(&opts.dir).map_err(|e| Error::io(&opts.dir, e))?;
    // Every level already there and sound: nothing to load or build.
    let sound = |s: u32| {
        crate::file::Table::open(&rules.path(&opts.dir, s))
            .is_ok_and(|t| t.expect(&rules, s).is_ok())
    };
    if (0..=opts.max_seeds).all(sound) {
        return Ok(BuildReport {
            reused: (0..=opts.max_seeds).collect(),
            ..BuildReport::default()
        });
    }
    let b = Binomials::new();
    let need = memory_needed(&rules, opts.max_seeds);
    let avail = opts.memory_limit.or_else(mem_available);
    if let Some(avail) = avail {
        if need > avail {
            return Err(Error::Memory(format!(
                "building {} up to {} seeds needs {:.1} GiB of memory (every level up to it transposed, the top two also by rank, one byte an entry, and the top level's file), but only {:.1} GiB is available",
                rules.name(),
                opts.max_seeds,
                need as f64 / (1u64 << 30) as f64,
                avail as f64 / (1u64 << 30) as f64
            )));
        }
    }
    let mem_err = |e: std::io::Error| Error::Memory(format!("allocating a level: {e}"));
    let mut lower: Vec<Level> = Vec::new();
    let mut report = BuildReport::default();
    for s in 0..=opts.max_seeds {
        let path = rules.path(&opts.dir, s);
        if path.exists() {
            let t0 = Instant::now();
            if let Ok(v) = read_level(&path, &rules, s) {
                let level = transpose(&rules, &b, s, &v).map_err(mem_err)?;
                drop_by_rank(&mut lower);
                lower.push(level);
                report.reused.push(s);
                report.load_secs += t0.elapsed().as_secs_f64();
                continue;
            }
            // A bad file is rebuilt (a build interrupted mid-write leaves only a temp file).
        }
        let n = b.count(s, k);
        let t0 = Instant::now();
        let bar = if opts.progress {
            let pb = indicatif::ProgressBar::new(n);
            pb.set_style(
                indicatif::ProgressStyle::with_template(
                    "{msg} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} {per_sec} ETA {eta}",
                )
                .unwrap(),
            );
            pb.set_message(format!("level {s:>3}"));
            pb.enable_steady_tick(Duration::from_millis(500));
            Some(pb)
        } else {
            None
        };
        let prog = |d: u64| {
            if let Some(pb) = &bar {
                pb.inc(d);
            }
        };
        let level = compute_level(rules, &b, &lower, s, &prog).map_err(mem_err)?;
        if let Some(pb) = bar {
            pb.finish_and_clear();
        }
        let by_rank = level.m.as_ref().expect("the level by rank").bytes();
        write_file(&path, &level_file(&rules, s, by_rank))?;
        let secs = t0.elapsed().as_secs_f64();
        if opts.progress {
            eprintln!(
                "level {s:>3}: {n:>13} positions in {secs:>8.2} s ({:.1} M/s) -> {}",
                n as f64 / secs.max(1e-9) / 1e6,
                path.display()
            );
        }
        report.built.push((s, n, secs));
        drop_by_rank(&mut lower);
        lower.push(level);
    }
    Ok(report)
}

/// Frees the by-rank copy of the top level once the level above it is complete (only the
/// level just below the one being built is read by rank).
fn drop_by_rank(lower: &mut [Level]) {
    if let Some(l) = lower.last_mut() {
        l.m = None;
    }
}

/// Used by tests: the in-memory path of the build.
#[doc(hidden)]
pub fn compute_all(rules: TableRules, max_seeds: u32) -> Vec<Vec<u8>> {
    let b = Binomials::new();
    let mut lower = Vec::new();
    for s in 0..=max_seeds {
        let v = compute_level(rules, &b, &lower, s, &|_| {}).expect("memory");
        lower.push(v);
    }
    lower
        .iter()
        .map(|l| l.m.as_ref().expect("kept").bytes().to_vec())
        .collect()
}
