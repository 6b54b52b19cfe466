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

use crate::file::{read_level, write_level};
use crate::rank::{next, Binomials};
use crate::{Error, TableRules};
use mancala_core::{Capture, EndCheck, Leftovers};
use memmap2::MmapMut;
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};
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

/// One level in memory: `D + s` per position, by rank (`m`) and transposed (`t`).
pub(crate) struct Level {
    pub m: Buf,
    pub t: Buf,
}

/// The two halves of the rank of a position of `2m` pits (see the module comment).
#[derive(Clone, Copy)]
struct Ranker<'a> {
    b: &'a Binomials,
    m: usize,
}

impl Ranker<'_> {
    /// The first `m` terms of the rank of `(x, y)` among the positions of `s` seeds: where
    /// the block of `x` starts.
    #[inline(always)]
    fn head(&self, x: &[u8], s: u32) -> u64 {
        let k = 2 * self.m;
        let mut r = s as usize;
        let mut rank = 0;
        for (i, &xi) in x[..self.m].iter().enumerate() {
            let j = k - 1 - i;
            let xi = xi as usize;
            rank += self.b.c(r + j, j) - self.b.c(r - xi + j, j);
            r -= xi;
        }
        rank
    }

    /// The rank of `y` among the rows of its seeds.
    #[inline(always)]
    fn tail(&self, y: &[u8]) -> u64 {
        let m = self.m;
        let mut r: usize = y[..m].iter().map(|&v| v as usize).sum();
        let mut rank = 0;
        for (i, &yi) in y[..m - 1].iter().enumerate() {
            let j = m - 1 - i;
            let yi = yi as usize;
            rank += self.b.c(r + j, j) - self.b.c(r - yi + j, j);
            r -= yi;
        }
        rank
    }
}

/// The values of one level during the build.
pub(crate) struct Solver<'a> {
    r: TableRules,
    rk: Ranker<'a>,
    s: u32,
    /// Complete lower levels, `D + s'` per rank: (`M`, `T`).
    lower: Vec<(&'a [u8], &'a [u8])>,
    cur_m: &'a [AtomicU8],
    cur_t: &'a [AtomicU8],
}

impl Solver<'_> {
    /// Future net gain for the mover of playing `pit` in `cells` (mover's row, opponent's
    /// row); `outer`: whether the mover's row derives from the outer row of the sweep.
    #[inline]
    fn move_value(&self, cells: &[u8; 16], pit: usize, outer: bool) -> i32 {
        let m = self.r.pits as usize;
        let len = 2 * m + 1;
        // Ring: mover pits 0..m, mover store m, opponent pits m+1..=2m.
        let mut c = [0u8; 17];
        c[..m].copy_from_slice(&cells[..m]);
        c[m + 1..len].copy_from_slice(&cells[m..2 * m]);
        let mut n = c[pit] as usize;
        c[pit] = 0;
        if n >= len {
            let laps = (n / len) as u8;
            for x in &mut c[..len] {
                *x += laps;
            }
            n %= len;
        }
        let mut idx = pit;
        for _ in 0..n {
            idx += 1;
            if idx == len {
                idx = 0;
            }
            c[idx] += 1;
        }
        let mut gain = c[m] as i32;
        let in_store = idx == m;
        if idx < m && c[idx] == 1 {
            if let Some(cap) = self.r.capture {
                let opp = 2 * m - idx;
                let o = c[opp];
                let taken = match cap {
                    Capture::Standard if o > 0 => o + 1,
                    Capture::Empty => o + 1,
                    Capture::OppositeOnly if o > 0 => o,
                    _ => 0,
                };
                if taken > 0 {
                    c[opp] = 0;
                    if cap != Capture::OppositeOnly {
                        c[idx] = 0;
                    }
                    gain += taken as i32;
                }
            }
        }
        let again = in_store && self.r.extra_turn;
        let mine: u32 = c[..m].iter().map(|&x| x as u32).sum();
        let theirs: u32 = c[m + 1..len].iter().map(|&x| x as u32).sum();
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
        if again {
            succ[..m].copy_from_slice(&c[..m]);
            succ[m..2 * m].copy_from_slice(&c[m + 1..len]);
        } else {
            succ[..m].copy_from_slice(&c[m + 1..len]);
            succ[m..2 * m].copy_from_slice(&c[..m]);
        }
        // The successor's row derived from the outer row: its mover's after an extra turn.
        let succ_outer = outer == again;
        let d = if s2 < self.s {
            let (mt, tt) = self.lower[s2 as usize];
            let (x, y) = (&succ[..m], &succ[m..2 * m]);
            let e = if succ_outer {
                mt[(self.rk.head(x, s2) + self.rk.tail(y)) as usize]
            } else {
                tt[(self.rk.head(y, s2) + self.rk.tail(x)) as usize]
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
    #[inline]
    fn best(&self, cells: &[u8; 16], outer: bool) -> i32 {
        let m = self.r.pits as usize;
        let mut best = i32::MIN;
        for pit in 0..m {
            if cells[pit] != 0 {
                best = best.max(self.move_value(cells, pit, outer));
            }
        }
        best
    }

    /// The future net gain of the live position `cells` of this level, memoised.
    fn value(&self, cells: &[u8; 16], outer: bool) -> i32 {
        let m = self.r.pits as usize;
        let s = self.s;
        let (x, y) = (&cells[..m], &cells[m..2 * m]);
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
}

/// Every row of `m` pits holding at most `s` seeds, by decreasing potential (sum of seeds x
/// pit index), grouped: the ranges of equal potential.
fn rows_by_potential(
    b: &Binomials,
    m: usize,
    s: u32,
) -> (Vec<[u8; 8]>, Vec<std::ops::Range<usize>>) {
    let mut rows: Vec<(u32, [u8; 8])> = Vec::new();
    for p in 0..=s {
        let mut x = [0u8; 8];
        x[m - 1] = p as u8;
        for _ in 0..b.count(p, m) {
            let pot: u32 = x[..m]
                .iter()
                .enumerate()
                .map(|(i, &v)| i as u32 * v as u32)
                .sum();
            rows.push((pot, x));
            next(&mut x, m);
        }
    }
    rows.sort_by_key(|r| std::cmp::Reverse(r.0));
    let mut groups = Vec::new();
    let mut start = 0;
    for i in 1..=rows.len() {
        if i == rows.len() || rows[i].0 != rows[start].0 {
            groups.push(start..i);
            start = i;
        }
    }
    (rows.into_iter().map(|r| r.1).collect(), groups)
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
        m: Buf::new(n, UNKNOWN)?,
        t: Buf::new(n, UNKNOWN)?,
    };
    let rk = Ranker { b, m };
    let solver = Solver {
        r,
        rk,
        s,
        lower: lower.iter().map(|l| (l.m.bytes(), l.t.bytes())).collect(),
        cur_m: level.m.cells(),
        cur_t: level.t.cells(),
    };
    let (rows, groups) = rows_by_potential(b, m, s);
    for g in groups {
        rows[g].par_iter().for_each(|x| {
            let p: u32 = x[..m].iter().map(|&v| v as u32).sum();
            let q = s - p;
            let base = rk.head(x, s);
            let tx = rk.tail(x);
            let count = b.count(q, m);
            let live = r.live(p, q);
            let mut cells = [0u8; 16];
            cells[..m].copy_from_slice(&x[..m]);
            let mut y = [0u8; 8];
            y[m - 1] = q as u8;
            for ry in 0..count {
                let mi = (base + ry) as usize;
                if solver.cur_m[mi].load(Relaxed) == UNKNOWN {
                    if live {
                        cells[m..k].copy_from_slice(&y[..m]);
                        let code = (solver.best(&cells, true) + s as i32) as u8;
                        solver.cur_m[mi].store(code, Relaxed);
                        solver.cur_t[(rk.head(&y, s) + tx) as usize].store(code, Relaxed);
                    } else {
                        // Never probed; the file holds `s` there.
                        solver.cur_m[mi].store(s as u8, Relaxed);
                    }
                }
                next(&mut y, m);
            }
            progress(count);
        });
    }
    drop(solver);
    Ok(level)
}

/// Fills the transposed copy of a level read from a file.
fn transpose(r: &TableRules, b: &Binomials, s: u32, mv: &[u8]) -> std::io::Result<Level> {
    let m = r.pits as usize;
    let rk = Ranker { b, m };
    let n = mv.len();
    let mb = Buf::new(n, 0)?;
    mb.cells()
        .par_iter()
        .zip(mv.par_iter())
        .for_each(|(a, &v)| a.store(v, Relaxed));
    let t = Buf::new(n, 0)?;
    let tc = t.cells();
    let (rows, _) = rows_by_potential(b, m, s);
    rows.par_iter().for_each(|x| {
        let p: u32 = x[..m].iter().map(|&v| v as u32).sum();
        let q = s - p;
        let base = rk.head(x, s) as usize;
        let tx = rk.tail(x);
        let mut y = [0u8; 8];
        y[m - 1] = q as u8;
        for ry in 0..b.count(q, m) as usize {
            tc[(rk.head(&y, s) + tx) as usize].store(mv[base + ry], Relaxed);
            next(&mut y, m);
        }
    });
    Ok(Level { m: mb, t })
}

/// Bytes needed in memory to build up to level `s`: every level up to it, twice (by rank
/// and transposed), one byte an entry.
pub fn memory_needed(r: &TableRules, s: u32) -> u64 {
    let b = Binomials::new();
    (0..=s).map(|t| 2 * b.count(t, 2 * r.pits as usize)).sum()
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
    let b = Binomials::new();
    let need = memory_needed(&rules, opts.max_seeds);
    let avail = opts.memory_limit.or_else(mem_available);
    if let Some(avail) = avail {
        if need > avail {
            return Err(Error::Memory(format!(
                "building {} up to {} seeds needs {:.1} GiB of memory (every level up to it, twice: by rank and transposed, one byte an entry), but only {:.1} GiB is available",
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
                lower.push(transpose(&rules, &b, s, &v).map_err(mem_err)?);
                report.reused.push(s);
                report.load_secs += t0.elapsed().as_secs_f64();
                continue;
            }
            // A bad file is rebuilt (a build interrupted mid-write leaves only a temp file).
        }
        let n = b.count(s, k);
        let t0 = Instant::now();
        let done = AtomicU64::new(0);
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
            done.fetch_add(d, Relaxed);
            if let Some(pb) = &bar {
                pb.inc(d);
            }
        };
        let level = compute_level(rules, &b, &lower, s, &prog).map_err(mem_err)?;
        if let Some(pb) = bar {
            pb.finish_and_clear();
        }
        write_level(&path, &rules, s, level.m.bytes())?;
        let secs = t0.elapsed().as_secs_f64();
        if opts.progress {
            eprintln!(
                "level {s:>3}: {n:>13} positions in {secs:>8.2} s ({:.1} M/s) -> {}",
                n as f64 / secs.max(1e-9) / 1e6,
                path.display()
            );
        }
        report.built.push((s, n, secs));
        lower.push(level);
    }
    Ok(report)
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
    lower.iter().map(|l| l.m.bytes().to_vec()).collect()
}
