//! The build from level to level: what it needs, what it is told and what it did.

use super::*;

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
    check_reach(&rules, opts.max_seeds)?;
    let k = 2 * rules.pits as usize;
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
    let spill_from = spill_level(&rules, opts, &b)?;
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
        let bar = opts.progress.then(|| progress_bar(s, n));
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

/// Refuses a top level beyond what the build can hold: `D + s` is at most `2s` and must stay
/// below `UNKNOWN` in a byte, and the ranking's binomials reach only so far.
fn check_reach(rules: &TableRules, max_seeds: u32) -> Result<(), Error> {
    if max_seeds > 126 {
        return Err(Error::Rules(format!(
            "--max-seeds {max_seeds} is beyond what one byte an entry can hold"
        )));
    }
    if max_seeds as usize + 2 * rules.pits as usize >= crate::rank::MAX_N {
        return Err(Error::Rules(format!(
            "--max-seeds {max_seeds} is beyond the ranking's reach"
        )));
    }
    Ok(())
}

/// The first level whose build does not fit in memory (from there on, levels live in
/// scratch files), or the error when the disk cannot hold them next to the table files.
fn spill_level(
    rules: &TableRules,
    opts: &BuildOptions,
    b: &Binomials,
) -> Result<Option<u32>, Error> {
    let rules = *rules;
    let k = 2 * rules.pits as usize;
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
    Ok(spill_from)
}

/// The progress bar of level `s`, of `n` positions.
fn progress_bar(s: u32, n: u64) -> indicatif::ProgressBar {
    let pb = indicatif::ProgressBar::new(n);
    pb.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} {per_sec} ETA {eta}",
        )
        .unwrap(),
    );
    pb.set_message(format!("level {s:>3}"));
    pb.enable_steady_tick(Duration::from_millis(500));
    pb
}

/// Frees the by-rank copy of the top level once the level above it is complete (only the
/// level just below the one being built is read by rank).
fn drop_by_rank(lower: &mut [Level]) {
    if let Some(l) = lower.last_mut() {
        l.m = None;
    }
}
