//! Building the tables level by level.
//!
//! Level `s` holds every distribution of `s` seeds. A move either puts a seed in a store (the
//! board count drops: a lower level, already complete) or sows within the mover's own row
//! without reaching the store (and captures nothing); such a move keeps the level but moves
//! seeds rightwards, so `sum of seeds x their pit index from the owner's left` grows strictly:
//! the graph of a level is acyclic. A level is computed by a memoised recursion over same-level
//! successors (`0xFF` marks an entry not yet known), the ranks split into chunks on rayon.

use crate::file::{read_level, write_level};
use crate::rank::{next, Binomials};
use crate::{Error, TableRules};
use mancala_core::{Capture, EndCheck, Leftovers};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};
use std::time::{Duration, Instant};

const UNKNOWN: u8 = 0xFF;

/// The values of one level during the build: `D + s` per rank (`D` the future net gain).
pub(crate) struct Solver<'a> {
    pub r: TableRules,
    pub b: &'a Binomials,
    /// Complete lower levels, `D + s'` per rank.
    pub lower: &'a [Vec<u8>],
}

impl Solver<'_> {
    /// Future net gain for the mover of playing `pit` in `cells` (mover's row, opponent's row;
    /// `s` seeds), looking same-level successors up in (or solving them into) `level`.
    #[inline]
    fn move_value(&self, cells: &[u8; 16], pit: usize, s: u32, level: &[AtomicU8]) -> i32 {
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
        let rank = self.b.rank(&succ, 2 * m, s2);
        let d = if s2 < s {
            self.lower[s2 as usize][rank as usize] as i32 - s2 as i32
        } else {
            debug_assert!(!again && gain == 0);
            self.solve(&succ, rank, s, level)
        };
        if again {
            gain + d
        } else {
            gain - d
        }
    }

    /// The future net gain of the live position `cells` of rank `rank` at level `s`.
    pub(crate) fn solve(&self, cells: &[u8; 16], rank: u64, s: u32, level: &[AtomicU8]) -> i32 {
        let e = level[rank as usize].load(Relaxed);
        if e != UNKNOWN {
            return e as i32 - s as i32;
        }
        let m = self.r.pits as usize;
        let mut best = i32::MIN;
        for pit in 0..m {
            if cells[pit] != 0 {
                best = best.max(self.move_value(cells, pit, s, level));
            }
        }
        level[rank as usize].store((best + s as i32) as u8, Relaxed);
        best
    }
}

/// Bytes needed in memory to build level `s` (every level up to it, one byte an entry).
pub fn memory_needed(r: &TableRules, s: u32) -> u64 {
    let b = Binomials::new();
    (0..=s).map(|t| b.count(t, 2 * r.pits as usize)).sum()
}

fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Computes level `s` given the complete lower levels: `D + s` per rank.
pub(crate) fn compute_level(
    r: TableRules,
    b: &Binomials,
    lower: &[Vec<u8>],
    s: u32,
    progress: &(dyn Fn(u64) + Sync),
) -> Vec<u8> {
    let k = 2 * r.pits as usize;
    let m = r.pits as usize;
    let n = b.count(s, k);
    let level: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(UNKNOWN)).collect();
    let solver = Solver { r, b, lower };
    const CHUNK: u64 = 1 << 15;
    let chunks = n.div_ceil(CHUNK);
    // Highest ranks first: they hold the seeds furthest left, whose successors lie below.
    (0..chunks).into_par_iter().for_each(|ci| {
        let start = ci * CHUNK;
        let end = (start + CHUNK).min(n);
        let mut c = [0u8; 16];
        b.unrank(start, k, s, &mut c);
        for rank in start..end {
            let mine: u32 = c[..m].iter().map(|&x| x as u32).sum();
            if r.live(mine, s - mine) {
                solver.solve(&c, rank, s, &level);
            } else {
                level[rank as usize].store(s as u8, Relaxed);
            }
            next(&mut c, k);
        }
        progress(end - start);
    });
    level.into_iter().map(|a| a.into_inner()).collect()
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
    std::fs::create_dir_all(&opts.dir).map_err(|e| Error::io(&opts.dir, e))?;
    let b = Binomials::new();
    let k = 2 * rules.pits as usize;
    let need = memory_needed(&rules, opts.max_seeds);
    let avail = opts.memory_limit.or_else(mem_available);
    if let Some(avail) = avail {
        if need > avail {
            return Err(Error::Memory(format!(
                "building {} up to {} seeds needs {:.1} GiB of memory (every level up to it, one byte an entry), but only {:.1} GiB is available",
                rules.name(),
                opts.max_seeds,
                need as f64 / (1u64 << 30) as f64,
                avail as f64 / (1u64 << 30) as f64
            )));
        }
    }
    let mut lower: Vec<Vec<u8>> = Vec::new();
    let mut report = BuildReport::default();
    for s in 0..=opts.max_seeds {
        let path = rules.path(&opts.dir, s);
        if path.exists() {
            if let Ok(v) = read_level(&path, &rules, s) {
                lower.push(v);
                report.reused.push(s);
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
        let v = compute_level(rules, &b, &lower, s, &prog);
        if let Some(pb) = bar {
            pb.finish_and_clear();
        }
        write_level(&path, &rules, s, &v)?;
        let secs = t0.elapsed().as_secs_f64();
        if opts.progress {
            eprintln!(
                "level {s:>3}: {n:>13} positions in {secs:>8.2} s ({:.1} M/s) -> {}",
                n as f64 / secs.max(1e-9) / 1e6,
                path.display()
            );
        }
        report.built.push((s, n, secs));
        lower.push(v);
    }
    Ok(report)
}

/// Used by tests: the in-memory path of the build.
#[doc(hidden)]
pub fn compute_all(rules: TableRules, max_seeds: u32) -> Vec<Vec<u8>> {
    let b = Binomials::new();
    let mut lower = Vec::new();
    for s in 0..=max_seeds {
        let v = compute_level(rules, &b, &lower, s, &|_| {});
        lower.push(v);
    }
    lower
}
