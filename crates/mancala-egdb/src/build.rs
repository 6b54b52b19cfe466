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

/// A level's bytes: anonymous memory, on transparent huge pages where the kernel allows (the
/// lookups are random across gigabytes: 4 KB pages would miss the TLB on nearly every one),
/// or, when the build does not fit in memory, a scratch file mapped shared, so that the
/// kernel keeps what the sweep reads in its page cache and writes the rest back to disk.
pub(crate) struct Buf {
    map: MmapMut,
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the buffer is written only through `AtomicU8`s (`cells`) while shared; `bytes` is
// used once writing is over.
unsafe impl Send for Buf {}
unsafe impl Sync for Buf {}

impl Buf {
    /// `len` bytes of `fill`, in memory, or in a scratch file in `scratch`.
    pub(crate) fn new(len: usize, fill: u8, scratch: Option<&Path>) -> std::io::Result<Buf> {
        let mut map = Buf::map(len, scratch)?;
        if fill != 0 {
            map[..len]
                .par_chunks_mut(1 << 24)
                .for_each(|c| c.fill(fill));
        }
        let ptr = map.as_mut_ptr();
        Ok(Buf { map, ptr, len })
    }

    fn map(len: usize, scratch: Option<&Path>) -> std::io::Result<MmapMut> {
        match scratch {
            None => {
                let map = MmapMut::map_anon(len.max(1))?;
                #[cfg(target_os = "linux")]
                let _ = map.advise(memmap2::Advice::HugePage);
                Ok(map)
            }
            Some(dir) => scratch_map(dir, len.max(1)),
        }
    }

    /// A copy of `src` (a file's payload, or a level moving to a scratch file).
    fn copy_of(src: &[u8], scratch: Option<&Path>) -> std::io::Result<Buf> {
        let mut map = Buf::map(src.len(), scratch)?;
        map[..src.len()]
            .par_chunks_mut(1 << 24)
            .zip(src.par_chunks(1 << 24))
            .for_each(|(d, s)| d.copy_from_slice(s));
        let ptr = map.as_mut_ptr();
        Ok(Buf {
            map,
            ptr,
            len: src.len(),
        })
    }

    /// Starts writing a scratch file's pages back, so that once the level is complete they
    /// are clean and the kernel can drop them instead of holding them dirty (a no-op in
    /// memory).
    fn write_back(&self) {
        let _ = self.map.flush_async();
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

/// A shared mapping of a new scratch file of `len` bytes in `dir`. The file is unlinked at
/// once (the mapping keeps it), so its space comes back when the level is dropped, even if the
/// build is killed; its blocks are reserved first, so a full disk is an error here rather
/// than a fault when a page is first written.
fn scratch_map(dir: &Path, len: usize) -> std::io::Result<MmapMut> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let path = dir.join(format!(
        ".build-scratch-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Relaxed)
    ));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)?;
    let _ = std::fs::remove_file(&path);
    reserve(&file, len as u64)?;
    // SAFETY: the file is this build's alone (created new, then unlinked): nothing else
    // changes it while it is mapped.
    unsafe { MmapMut::map_mut(&file) }
}

/// Gives `file` `len` bytes with their blocks allocated.
#[cfg(target_os = "linux")]
fn reserve(file: &std::fs::File, len: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let len = libc::off_t::try_from(len).map_err(std::io::Error::other)?;
    // SAFETY: a plain call on an open descriptor.
    match unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len) } {
        0 => Ok(()),
        e => Err(std::io::Error::from_raw_os_error(e)),
    }
}

/// Gives `file` `len` bytes.
#[cfg(not(target_os = "linux"))]
fn reserve(file: &std::fs::File, len: u64) -> std::io::Result<()> {
    file.set_len(len)
}

/// Bytes free for this user on the file system of `dir`, where the system says.
#[cfg(target_os = "linux")]
fn disk_available(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: `statvfs` fills the zeroed struct from a valid C string.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some(st.f_bavail as u64 * st.f_frsize as u64)
}

#[cfg(not(target_os = "linux"))]
fn disk_available(_dir: &Path) -> Option<u64> {
    None
}

/// Entries packed as in a file's payload, read as `D + s` (see [`entry`]).
#[derive(Clone, Copy)]
pub(crate) struct Entries<'a> {
    level: PackedLevel<'a>,
    /// [`entry::shift`]: 1 where the code is `own = (D + s) / 2`, else 0.
    shift: u32,
}

impl Entries<'_> {
    const NONE: Entries<'static> = Entries {
        level: PackedLevel {
            entries: &[],
            bits: 1,
        },
        shift: 0,
    };

    /// `D + s` of rank `i`.
    #[inline(always)]
    fn get(&self, i: u64) -> u8 {
        self.level.get(i) << self.shift
    }

    #[inline(always)]
    fn prefetch(&self, i: u64) {
        self.level.prefetch(i);
    }
}

/// A level's entries packed in anonymous memory, as a file's payload.
pub(crate) struct Packed {
    buf: Buf,
    bits: u32,
    shift: u32,
}

impl Packed {
    fn new(r: &TableRules, s: u32, count: u64, scratch: Option<&Path>) -> std::io::Result<Packed> {
        let bits = r.bits(s);
        Ok(Packed {
            buf: Buf::new(payload_len(count, bits) as usize, 0, scratch)?,
            bits,
            shift: entry::shift(r.counted()),
        })
    }

    /// The same entries in a scratch file in `dir`.
    fn spill(&self, dir: &Path) -> std::io::Result<Packed> {
        let buf = Buf::copy_of(self.buf.bytes(), Some(dir))?;
        buf.write_back();
        Ok(Packed {
            buf,
            bits: self.bits,
            shift: self.shift,
        })
    }

    fn entries(&self) -> Entries<'_> {
        Entries {
            level: PackedLevel {
                entries: self.buf.bytes(),
                bits: self.bits,
            },
            shift: self.shift,
        }
    }

    /// Stores `vals` (`D + s` each) as the entries from rank `start` on. Runs stored at once
    /// from several threads must not overlap: the bytes two runs share are or-ed in.
    fn store_run(&self, start: u64, vals: &[u8]) {
        let codes = vals.iter().map(|&v| v >> self.shift);
        entry::store_run(self.buf.cells(), self.bits, start, codes);
    }
}

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

/// Where the block of each row starts among the positions of `s` seeds:
/// `heads[p][rank of x among the rows of p seeds]`.
fn heads(m: usize, b: &Binomials, s: u32) -> Vec<Vec<u64>> {
    let k = 2 * m;
    (0..=s)
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
        .collect()
}

/// Fills `dst` with the other copy of a level of `s` seeds, read through `src`:
/// `dst[head(a) + rank(b)] = src[head(b) + rank(a)]` for every pair of rows `(a, b)`; the
/// level by rank from its transposed copy, or the reverse. Blocked by 16 rows `a`, so that
/// `src` is read 16 neighbouring entries at a time and `dst` written in runs.
fn transpose_into(dst: &Packed, heads: &[Vec<u64>], s: u32, src: &(dyn Fn(u64) -> u8 + Sync)) {
    const ROWS: usize = 16;
    let items: Vec<(usize, usize)> = (0..=s as usize)
        .flat_map(|p| (0..heads[p].len()).step_by(ROWS).map(move |a| (p, a)))
        .collect();
    items.par_iter().for_each_init(Vec::new, |buf, &(p, a0)| {
        let (ha, hb) = (&heads[p], &heads[s as usize - p]);
        let (n, rows) = (hb.len(), ROWS.min(heads[p].len() - a0));
        buf.clear();
        buf.resize(rows * n, 0u8);
        for (rb, &h) in hb.iter().enumerate() {
            for k in 0..rows {
                buf[k * n + rb] = src(h + (a0 + k) as u64);
            }
        }
        for k in 0..rows {
            dst.store_run(ha[a0 + k], &buf[k * n..(k + 1) * n]);
        }
    });
}

/// Packs level `s` (`D + s` a byte, in `v`'s order).
fn pack(r: &TableRules, s: u32, v: &[u8], scratch: Option<&Path>) -> std::io::Result<Packed> {
    let p = Packed::new(r, s, v.len() as u64, scratch)?;
    const RUN: usize = 1 << 20;
    v.par_chunks(RUN)
        .enumerate()
        .for_each(|(i, c)| p.store_run((i * RUN) as u64, c));
    Ok(p)
}

/// Bytes of memory needed to build up to level `s`, at the peak of any level `t`: every
/// level below `t` packed and transposed, `t` transposed one byte an entry, and then, one
/// after the other: the level below packed by rank (while `t` is swept), `t` packed by rank
/// (while it is written), and `t` packed both ways (unless `t` is the top).
pub fn memory_needed(r: &TableRules, s: u32) -> u64 {
    let b = Binomials::new();
    let count = |t: u32| b.count(t, 2 * r.pits as usize);
    let packed = |t: u32| payload_len(count(t), r.bits(t));
    let mut below = 0;
    let mut peak = 0;
    for t in 0..=s {
        let m1 = if t > 0 { packed(t - 1) } else { 0 };
        let after = if t < s { 2 * packed(t) } else { packed(t) };
        peak = peak.max(below + count(t) + m1.max(after));
        below += packed(t);
    }
    peak
}

use mancala_egdb_format::memory::mem_available;
pub use mancala_egdb_format::memory::peak_memory;

/// How to build.
pub struct BuildOptions {
    /// Where the table files go (and where the levels already built are found).
    pub dir: PathBuf,
    /// The highest level to build: seeds on the board, at most 126.
    pub max_seeds: u32,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// Memory the build may hold (default: what the system has available). From the first
    /// level whose build needs more ([`memory_needed`]), the complete levels and the level in
    /// progress are kept in scratch files in `dir`, read through the page cache: slower, but
    /// bounded by the disk instead. `Some(0)` keeps every level in scratch files.
    pub memory_limit: Option<u64>,
}

/// What a build did, per level.
#[derive(Debug, Default)]
pub struct BuildReport {
    /// `(seeds, entries, seconds)` of each level built now.
    pub built: Vec<(u32, u64, f64)>,
    /// Levels found complete on disk and reused.
    pub reused: Vec<u32>,
    /// Levels whose file was there but refused (the fault), and so built again.
    pub rebuilt: Vec<(u32, String)>,
    /// Seconds spent reading reused levels (and transposing them).
    pub load_secs: f64,
    /// The first level kept in scratch files (see [`BuildOptions::memory_limit`]), if any.
    pub spilled_from: Option<u32>,
}

/// Builds (or completes) the tables of `rules` up to `opts.max_seeds` in `opts.dir`. Levels
/// already on disk and valid are reused; each level is written atomically (temporary file,
/// then rename), so an interrupted build loses at most the level in progress.
pub fn build(rules: TableRules, opts: &BuildOptions) -> Result<BuildReport, Error> {
    // `D + s` is at most `2s` and must stay below `UNKNOWN` in a byte.
    if opts.max_seeds > 126 {
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
    let avail = opts.memory_limit.or_else(mem_available);
    // The first level whose build does not fit in memory: from there on, levels live in
    // scratch files, and the disk must hold them next to the table files.
    let spill_from =
        avail.and_then(|a| (0..=opts.max_seeds).find(|&t| memory_needed(&rules, t) > a));
    if let Some(from) = spill_from {
        let files: u64 = (0..=opts.max_seeds)
            .filter(|&t| !rules.path(&opts.dir, t).exists())
            .map(|t| payload_len(b.count(t, k), rules.bits(t)))
            .sum();
        let need = memory_needed(&rules, opts.max_seeds) + files;
        if let Some(free) = disk_available(&opts.dir) {
            if need > free {
                return Err(Error::Memory(format!(
                    "building {} up to {} seeds needs {:.1} GiB of memory, more than the {:.1} GiB available, so from level {from} on the levels go to scratch files; with the table files that needs {:.1} GiB of disk in {}, but only {:.1} GiB is free",
                    rules.name(),
                    opts.max_seeds,
                    memory_needed(&rules, opts.max_seeds) as f64 / GIB,
                    avail.unwrap_or(0) as f64 / GIB,
                    need as f64 / GIB,
                    opts.dir.display(),
                    free as f64 / GIB
                )));
            }
        }
    }
    let mem_err = |e: std::io::Error| Error::Memory(format!("allocating a level: {e}"));
    let m = rules.pits as usize;
    let mut lower: Vec<Level> = Vec::new();
    let mut report = BuildReport::default();
    for s in 0..=opts.max_seeds {
        let path = rules.path(&opts.dir, s);
        let n = b.count(s, k);
        let scratch = spill_from
            .is_some_and(|from| s >= from)
            .then_some(opts.dir.as_path());
        if spill_from == Some(s) {
            if opts.progress {
                eprintln!(
                    "level {s:>3}: the build no longer fits in memory; from here on the levels are kept in scratch files in {}, read through the page cache",
                    opts.dir.display()
                );
            }
            for l in &mut lower {
                l.t = l.t.spill(&opts.dir).map_err(mem_err)?;
                if let Some(m) = &l.m {
                    l.m = Some(m.spill(&opts.dir).map_err(mem_err)?);
                }
            }
            report.spilled_from = Some(s);
        }
        if path.exists() {
            let t0 = Instant::now();
            // A level is reused only with every entry in its range: the checksum shows only
            // that the file is as written, and the levels above would be built on it.
            let valid = Table::open(&path).and_then(|t| {
                t.expect(&rules, s)?;
                t.verify_entries(rules.max_code(s))?;
                Ok(t)
            });
            match valid {
                Err(e) => {
                    // Rebuilt below (a build interrupted mid-write leaves only a temp file).
                    if opts.progress {
                        eprintln!("{e}; rebuilding the level");
                    }
                    report.rebuilt.push((s, e.to_string()));
                }
                Ok(t) => {
                    drop_by_rank(&mut lower);
                    let by_rank = Packed {
                        buf: Buf::copy_of(t.level().entries, scratch).map_err(mem_err)?,
                        bits: rules.bits(s),
                        shift: entry::shift(rules.counted()),
                    };
                    drop(t);
                    let tp = Packed::new(&rules, s, n, scratch).map_err(mem_err)?;
                    let e = by_rank.entries();
                    transpose_into(&tp, &heads(m, &b, s), s, &|i| e.get(i));
                    tp.buf.write_back();
                    lower.push(Level {
                        m: Some(by_rank),
                        t: tp,
                    });
                    report.reused.push(s);
                    report.load_secs += t0.elapsed().as_secs_f64();
                    continue;
                }
            }
        }
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
        let t = compute_level(rules, &b, &lower, s, scratch, &prog).map_err(mem_err)?;
        if let Some(pb) = bar {
            pb.finish_and_clear();
        }
        drop_by_rank(&mut lower);
        let tb = t.bytes();
        let by_rank = Packed::new(&rules, s, n, scratch).map_err(mem_err)?;
        transpose_into(&by_rank, &heads(m, &b, s), s, &|i| tb[i as usize]);
        write_level(&path, &rules, s, n, by_rank.buf.bytes())?;
        if s < opts.max_seeds {
            let tp = pack(&rules, s, tb, scratch).map_err(mem_err)?;
            tp.buf.write_back();
            drop(t);
            lower.push(Level {
                m: Some(by_rank),
                t: tp,
            });
        }
        let secs = t0.elapsed().as_secs_f64();
        if opts.progress {
            eprintln!(
                "level {s:>3}: {n:>13} positions in {secs:>8.2} s ({:.1} M/s) -> {}",
                n as f64 / secs.max(1e-9) / 1e6,
                path.display()
            );
        }
        report.built.push((s, n, secs));
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
