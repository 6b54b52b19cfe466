//! `mancala egdb build|info|probe|check`: the endgame databases (crate `mancala-egdb`).

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use mancala_core::notation::Notation;
use mancala_core::{KalahRules, Position};
use mancala_egdb::rank::Binomials;
use mancala_egdb::{build, BuildOptions, Egdb, Oracle, TableRules};

use crate::RulesArgs;

#[derive(Args)]
pub struct EgdbArgs {
    #[command(subcommand)]
    cmd: EgdbCmd,
}

#[derive(Subcommand)]
enum EgdbCmd {
    /// Build (or complete) the tables of a rule set, level by level up to --max-seeds.
    Build(BuildArgs),
    /// List the tables of a directory (checks every header and checksum).
    Info {
        /// The tables' directory.
        dir: PathBuf,
        /// Also check that every entry lies within its level's range (reads every entry:
        /// about 35 s for Kalah's levels 0-28 on two cores).
        #[arg(long)]
        verify_entries: bool,
        /// Print the tables as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Prove every position reachable from the start with at least --min-seeds seeds on the
    /// board (the opening book, `kalah-<rules>.book` beside the tables): engines and proofs
    /// given the directory answer them proven at once. Resumes a stopped build.
    Book(crate::book_cmd::BookArgs),
    /// Check a random sample of every level against the solver, which for a position of
    /// level s reads only the levels below s (the table's own level is searched), and of the
    /// opening book (its values and moves, proven with the tables alone).
    Check(CheckArgs),
    /// The tables' value of a position.
    Probe {
        #[arg(long)]
        dir: PathBuf,
        /// A position string (`kalah,seeds=4/0-0-1-2-0-0/30/1-0-0-0-3-1/10/s`).
        position: String,
        /// Print the position, its value (for the side to move) and the best moves as JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
struct CheckArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// The tables' directory.
    #[arg(long)]
    dir: PathBuf,
    /// Positions drawn at random from each level and from the opening book (1 or more: a
    /// check of none checks nothing; as many as the book holds or more checks all of it).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    samples: u32,
    /// Seed of the draw.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Check only the levels from this one on.
    #[arg(long, default_value_t = 1)]
    from: u32,
    /// Print a summary as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct BuildArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Build every level up to this many seeds on the board (1-64).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    max_seeds: u32,
    /// Directory of the table files (created if missing).
    #[arg(long)]
    dir: PathBuf,
    /// Threads (default: every core; at most 256).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
    /// Memory the build may hold, in GiB (default: what the system has available). From the
    /// first level that needs more, levels are kept in scratch files in --dir and read through
    /// the page cache: slower, bounded by the disk instead (0: every level so).
    #[arg(long, value_name = "GIB")]
    memory_gib: Option<f64>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Print time, positions and peak memory at the end (and each level's line).
    #[arg(long)]
    stats: bool,
    /// Print a summary of the build as JSON (every level built, reused or rebuilt).
    #[arg(long)]
    json: bool,
}

pub fn run(a: EgdbArgs) -> Result<()> {
    match a.cmd {
        EgdbCmd::Build(b) => build_cmd(b),
        EgdbCmd::Info {
            dir,
            verify_entries,
            json,
        } => info(dir, verify_entries, json),
        EgdbCmd::Probe {
            dir,
            position,
            json,
        } => probe(dir, &position, json),
        EgdbCmd::Check(c) => check(c),
        EgdbCmd::Book(b) => crate::book_cmd::run(b),
    }
}

/// The tables of a directory seen only below a level: what the solver may read when it
/// checks that level.
struct Below {
    db: std::sync::Arc<Egdb>,
    level: u32,
}

impl mancala_engine::Oracle for Below {
    fn max_seeds(&self) -> u32 {
        mancala_engine::Oracle::max_seeds(&*self.db).min(self.level.saturating_sub(1))
    }
    fn kalah(&self, pos: &mancala_core::KalahPos) -> Option<u8> {
        (pos.board_seeds() < self.level)
            .then(|| self.db.own(pos))
            .flatten()
    }
    fn net(&self, pos: &mancala_core::KalahPos) -> Option<i32> {
        (pos.board_seeds() < self.level)
            .then(|| self.db.net(pos))
            .flatten()
    }
    fn packed(&self, rules: &KalahRules) -> Option<mancala_engine::PackedTables<'_>> {
        let mut p = mancala_engine::Oracle::packed(&*self.db, rules)?;
        p.levels.truncate(self.level as usize);
        Some(p)
    }
}

/// `egdb check`: each level's entries for a random sample of its positions (South to move,
/// the other seeds in the stores) against the value the solver proves from the levels below.
fn check(a: CheckArgs) -> Result<()> {
    let mut rules = a.rules.rules()?;
    let tr = TableRules::new(&KalahRules::new(&rules)?)?;
    let db = std::sync::Arc::new(Egdb::open(&a.dir)?);
    crate::tables::check_tables(Some(&db))?;
    let Some(top) = db.complete_to(&tr) else {
        bail!("{}: no tables of {} here", a.dir.display(), tr.name());
    };
    let m = tr.pits as usize;
    let bin = Binomials::new();
    let mut rng = mancala_play::Rng::new(a.seed);
    let mut levels = Vec::new();
    let t0 = std::time::Instant::now();
    for s in a.from.max(1)..=top {
        rules.seeds = rules.seeds.max(s.div_ceil(2 * m as u32) as u8);
        let sample = Sample::draw(&bin, &mut rng, &rules, &db, s, a.samples);
        let (positions, over, untabled) = (sample.positions, sample.over, sample.untabled);
        let level_t0 = std::time::Instant::now();
        let nodes = agree_with_solver(&db, s, &positions)?;
        let secs = level_t0.elapsed().as_secs_f64();
        if !a.json {
            let mut left_out = String::new();
            if over > 0 {
                left_out += &format!(
                    ", {over} {} already over and not checked",
                    if over == 1 { "was" } else { "were" }
                );
            }
            if untabled > 0 {
                left_out += &format!(", {untabled} not in the tables");
            }
            println!(
                "level {s:>3}: {:>3} positions agree ({} sampled{left_out}; {nodes} nodes, {secs:.2} s)",
                positions.len(),
                a.samples
            );
        }
        levels.push(serde_json::json!({
            "seeds": s,
            "sampled": a.samples,
            "over": over,
            "not_tabled": untabled,
            "positions": positions.len(),
            "nodes": nodes,
            "seconds": secs,
        }));
    }
    // The opening book: a sample of its positions proven with the tables alone, their values
    // and the book's moves.
    let book = match db.book_of(&tr) {
        Some(b) => {
            let boards = b.boards();
            let book_t0 = std::time::Instant::now();
            // All of them where as many samples are asked for.
            let every = a.samples as usize >= boards.len();
            // Else as many different ones, drawn at random (the first steps of a shuffle).
            let mut drawn: Vec<&[u8; 16]> = boards.iter().collect();
            if !every {
                for i in 0..a.samples as usize {
                    let j = i + (rng.next_u64() % (drawn.len() - i) as u64) as usize;
                    drawn.swap(i, j);
                }
                drawn.truncate(a.samples as usize);
            }
            let positions: Vec<Position> = drawn
                .into_iter()
                .map(|c| {
                    let s: u32 = c[..2 * m].iter().map(|&x| x as u32).sum();
                    rules.seeds = rules.seeds.max(s.div_ceil(2 * m as u32) as u8);
                    south_to_move(&rules, c).context("a position of the opening book")
                })
                .collect::<Result<_>>()?;
            let nodes = agree_with_solver(&db, u32::MAX, &positions)?;
            let secs = book_t0.elapsed().as_secs_f64();
            if !a.json {
                println!(
                    "opening book: {} positions agree, values and moves ({} of its {}; {nodes} nodes, {secs:.2} s)",
                    positions.len(),
                    if every { "all" } else { "a random sample" },
                    boards.len()
                );
            }
            Some(serde_json::json!({
                "positions": positions.len(),
                "held": boards.len(),
                "nodes": nodes,
                "seconds": secs,
            }))
        }
        None => None,
    };
    if a.json {
        let v = serde_json::json!({
            "tables": tr.name(),
            "dir": a.dir.display().to_string(),
            "agree": true,
            "levels": levels,
            "book": book,
            "seconds": t0.elapsed().as_secs_f64(),
        });
        println!("{v}");
    } else {
        println!(
            "every sampled position agrees with the solver (levels {}-{top}, {:.1} s)",
            a.from.max(1),
            t0.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// The positions of one level that `egdb check` compares with the solver: drawn at random,
/// less those with no entry to check.
struct Sample {
    /// Positions in the tables, South to move.
    positions: Vec<Position>,
    /// Drawn positions whose game is already over (no move left to value).
    over: u32,
    /// Drawn positions the tables do not cover.
    untabled: u32,
}

impl Sample {
    /// `samples` positions with `s` seeds in the pits of `rules`' board, the rest of the seeds
    /// shared between the stores.
    fn draw(
        bin: &Binomials,
        rng: &mut mancala_play::Rng,
        rules: &mancala_core::Rules,
        db: &Egdb,
        s: u32,
        samples: u32,
    ) -> Sample {
        let m = rules.pits as usize;
        let count = bin.count(s, 2 * m);
        let (mut over, mut untabled) = (0, 0);
        let positions: Vec<Position> = (0..samples)
            .filter_map(|_| {
                let mut c = [0u8; 16];
                bin.unrank(rng.next_u64() % count, 2 * m, s, &mut c[..2 * m]);
                // A position whose game is already over is no entry.
                match south_to_move(rules, &c) {
                    Ok(p) if !p.is_over() => Some(p),
                    _ => {
                        over += 1;
                        None
                    }
                }
            })
            .filter(|p| {
                let tabled = p.as_kalah().is_some_and(|k| db.net(k).is_some());
                untabled += u32::from(!tabled);
                tabled
            })
            .collect();
        Sample {
            positions,
            over,
            untabled,
        }
    }
}

/// The position of `rules` whose pits are `cells` (South's row, then North's), South to move,
/// the other seeds shared between the stores.
fn south_to_move(
    rules: &mancala_core::Rules,
    cells: &[u8; 16],
) -> Result<Position, mancala_core::Error> {
    let m = rules.pits as usize;
    let s: u32 = cells[..2 * m].iter().map(|&x| x as u32).sum();
    let rest = rules.total_seeds() - s;
    let setup = mancala_core::Setup {
        rows: [
            cells[..m].iter().map(|&x| (x.into(), 0)).collect(),
            cells[m..2 * m].iter().map(|&x| (x.into(), 0)).collect(),
        ],
        stores: [(rest / 2) as u16, (rest - rest / 2) as u16],
        to_move: Some(mancala_core::Side::South),
        ..Default::default()
    };
    Position::from_setup(rules, &setup)
}

/// Proves each of `positions` (level `s`; `u32::MAX`: the opening book's) with the tables
/// below the level only (never the book), on every core, and compares each value with the
/// tables' (or the book's, and the book's move's value with it); the nodes searched, or the
/// first disagreement.
fn agree_with_solver(db: &std::sync::Arc<Egdb>, s: u32, positions: &[Position]) -> Result<u64> {
    use mancala_engine::{Engine, Limits};
    use rayon::prelude::*;
    let what = match s {
        u32::MAX => "the opening book".to_string(),
        s => format!("level {s}"),
    };
    let south = mancala_core::Side::South;
    let results: Vec<Result<(i32, i32, u64)>> = positions
        .par_iter()
        .map(|p| {
            let k = p.as_kalah().expect("a Kalah position");
            let table = db.net(k).expect("drawn among the covered") + k.store(k.to_move()) as i32
                - k.store(k.to_move().other()) as i32;
            let mut e = Engine::new(16, 1);
            e.oracle = Some(std::sync::Arc::new(Below {
                db: db.clone(),
                level: s,
            }));
            let r = e
                .solve(p, Limits::default(), &[])
                .context("the solver gave no value")?;
            let ev = r.eval.seen_by(south);
            if !ev.is_proven() {
                bail!("{what}: the solver gave no proven value for {p}");
            }
            let mut nodes = r.nodes;
            // The book's move must reach the value it gives.
            if let Some(b) = db.book(k).filter(|_| s == u32::MAX) {
                let mut child = *p;
                child.play(b.best)?;
                let reached = if child.is_over() {
                    mancala_engine::Evaluation::final_margin(&child, south).margin
                } else {
                    let c = e
                        .solve(&child, Limits::default(), &[])
                        .context("the solver gave no value")?;
                    nodes += c.nodes;
                    c.eval.seen_by(south).margin
                };
                if reached != table {
                    bail!(
                        "{what}: its move {} in {p} reaches {reached:+} for South, not the {table:+} it gives",
                        mancala_core::pit_number(b.best)
                    );
                }
            }
            Ok((table, ev.margin, nodes))
        })
        .collect();
    crate::tables::check_tables(Some(db))?;
    let mut nodes = 0;
    for (p, r) in positions.iter().zip(&results) {
        let (table, solved, n) = r.as_ref().map_err(|e| anyhow::anyhow!("{e}"))?;
        nodes += n;
        if table != solved {
            bail!("{what}: {table:+} for South in {p}, the solver proves {solved:+}");
        }
    }
    Ok(nodes)
}

fn build_cmd(a: BuildArgs) -> Result<()> {
    if a.dir.exists() && !a.dir.is_dir() {
        bail!("{}: not a directory", a.dir.display());
    }
    let rules = a.rules.rules()?;
    let tr = TableRules::new(&KalahRules::new(&rules)?)?;
    let memory_limit = match a.memory_gib {
        Some(g) if !(g.is_finite() && g >= 0.0) => {
            bail!("--memory-gib {g}: give a number of GiB, 0 or more")
        }
        g => g.map(|g| (g * (1u64 << 30) as f64) as u64),
    };
    let need = mancala_egdb::build::memory_needed(&tr, a.max_seeds);
    eprintln!(
        "{}: tables {} up to {} seeds in {}; memory needed {:.1} MiB",
        rules,
        tr.name(),
        a.max_seeds,
        a.dir.display(),
        need as f64 / (1u64 << 20) as f64
    );
    let t0 = std::time::Instant::now();
    let run = || {
        build(
            tr,
            &BuildOptions {
                dir: a.dir.clone(),
                max_seeds: a.max_seeds,
                progress: !a.quiet,
                memory_limit,
            },
        )
    };
    let report = match a.threads {
        Some(t) => rayon::ThreadPoolBuilder::new()
            .num_threads(usize::from(t))
            .build()
            .context("thread pool")?
            .install(run)?,
        None => run()?,
    };
    let n: u64 = report.built.iter().map(|b| b.1).sum();
    let secs = report.built.iter().fold(0.0, |t, b| t + b.2);
    if a.json {
        let v = serde_json::json!({
            "rules": rules.to_string(),
            "tables": tr.name(),
            "dir": a.dir.display().to_string(),
            "max_seeds": a.max_seeds,
            "built": report.built.iter().map(|(s, n, t)| {
                serde_json::json!({"seeds": s, "positions": n, "seconds": t})
            }).collect::<Vec<_>>(),
            "reused": report.reused,
            "rebuilt": report.rebuilt.iter().map(|(s, fault)| {
                serde_json::json!({"seeds": s, "fault": fault})
            }).collect::<Vec<_>>(),
            "positions": n,
            "seconds": t0.elapsed().as_secs_f64(),
            "load_seconds": report.load_secs,
            "scratch_from_level": report.spilled_from,
            "peak_memory_bytes": mancala_egdb::build::peak_memory(),
        });
        println!("{v}");
        return Ok(());
    }
    println!(
        "built {} level{} ({} positions in {:.1} s, {:.1} M positions/s), reused {} levels",
        report.built.len(),
        if report.built.len() == 1 { "" } else { "s" },
        n,
        secs,
        n as f64 / secs.max(1e-9) / 1e6,
        report.reused.len()
    );
    if a.quiet {
        // Otherwise said as it happened.
        for (s, fault) in &report.rebuilt {
            eprintln!("note: level {s} was rebuilt: {fault}");
        }
    }
    if let Some(from) = report.spilled_from {
        println!("levels from {from} on were kept in scratch files (more than the memory)");
    }
    if a.stats {
        for (s, n, t) in &report.built {
            println!(
                "  level {s:>3}: {n:>13} positions, {t:>8.2} s, {:>6.1} M/s",
                *n as f64 / t.max(1e-9) / 1e6
            );
        }
        println!(
            "time {:.2} s (levels read back {:.2} s), {} positions, peak memory {}",
            t0.elapsed().as_secs_f64(),
            report.load_secs,
            n,
            crate::engine_cmds::peak_text()
        );
    }
    Ok(())
}

fn info(dir: PathBuf, verify_entries: bool, json: bool) -> Result<()> {
    let db = Egdb::open(&dir)?;
    if verify_entries {
        db.verify_entries()?;
    }
    if db.tables().next().is_none() && db.books().is_empty() {
        bail!(
            "{}: no endgame tables (*.egdb files) or opening books here",
            dir.display()
        );
    }
    // Levels missing below a rule set's top: the search uses the levels under the first gap.
    let mut missing: Vec<(String, Vec<u32>)> = Vec::new();
    for t in db.tables() {
        match missing.last_mut() {
            Some((name, _)) if *name == t.rules_name => {}
            _ => missing.push((t.rules_name.clone(), Vec::new())),
        }
    }
    for (name, gaps) in &mut missing {
        let have: Vec<u32> = db
            .tables()
            .filter(|t| t.rules_name == *name)
            .map(|t| t.seeds)
            .collect();
        let top = have.iter().copied().max().unwrap_or(0);
        gaps.extend((0..top).filter(|s| !have.contains(s)));
    }
    missing.retain(|m| !m.1.is_empty());
    if json {
        let tables: Vec<_> = db
            .tables()
            .map(|t| {
                serde_json::json!({
                    "rules": t.rules_name,
                    "seeds": t.seeds,
                    "entries": t.count,
                    "bits": t.bits,
                    "bytes": t.file_bytes(),
                    "crc32": format!("{:08x}", t.crc),
                    "file": t.path.display().to_string(),
                })
            })
            .collect();
        let v = serde_json::json!({
            "dir": dir.display().to_string(),
            "tables": tables,
            "bytes": db.tables().map(|t| t.file_bytes()).sum::<u64>(),
            "checksums_verified": true,
            "entries_verified": verify_entries,
            "books": db.books().iter().map(|b| {
                let (lo, hi) = b.seeds().unwrap_or((0, 0));
                serde_json::json!({
                    "rules": b.rules.name(),
                    "positions": b.len(),
                    "seeds": [lo, hi],
                    "bytes": b.file_bytes(),
                    "file": b.path.display().to_string(),
                })
            }).collect::<Vec<_>>(),
            "missing_levels": missing
                .iter()
                .map(|(rules, levels)| serde_json::json!({"rules": rules, "levels": levels}))
                .collect::<Vec<_>>(),
        });
        println!("{v}");
        return Ok(());
    }
    let mut total = 0;
    if db.tables().next().is_some() {
        println!(
            "{:<44} {:>5} {:>14} {:>4} {:>12}  crc32",
            "rules", "seeds", "entries", "bits", "bytes"
        );
    }
    for t in db.tables() {
        println!(
            "{:<44} {:>5} {:>14} {:>4} {:>12}  {:08x}",
            t.rules_name,
            t.seeds,
            t.count,
            t.bits,
            t.file_bytes(),
            t.crc
        );
        total += t.file_bytes();
    }
    match db.tables().count() {
        0 => println!("no endgame tables"),
        n => println!(
            "{n} tables, {total} bytes, every checksum{} verified",
            if verify_entries { " and entry" } else { "" }
        ),
    }
    for b in db.books() {
        let held = match b.seeds() {
            Some((lo, hi)) => format!("{} positions of {lo} to {hi} seeds on the board", b.len()),
            None => "no positions".to_string(),
        };
        println!(
            "opening book of {}: {held}, {} bytes ({})",
            b.rules.name(),
            b.file_bytes(),
            b.path.display()
        );
    }
    for (rules, levels) in &missing {
        let first = levels[0];
        let list: Vec<String> = levels.iter().map(u32::to_string).collect();
        let usable = match first {
            0 => "none of its levels".to_string(),
            1 => "level 0 only".to_string(),
            f => format!("levels 0-{} only", f - 1),
        };
        println!(
            "note: {rules} lacks level{} {}: proofs use {usable} (`egdb probe` still reads a level that is present)",
            if levels.len() == 1 { "" } else { "s" },
            list.join(", "),
        );
    }
    Ok(())
}

fn probe(dir: PathBuf, position: &str, json: bool) -> Result<()> {
    let pos: Position = position.parse()?;
    let Some(p) = pos.as_kalah() else {
        if pos.rules().preset.is_kalah_family() {
            bail!(
                "the tables read positions of at most {} seeds in all (bytes); this one holds {}",
                mancala_core::rules::MAX_TOTAL_SEEDS,
                pos.rules().total_seeds()
            );
        }
        bail!("the tables cover Kalah-family games only");
    };
    if p.is_over() {
        bail!("the game is over in this position");
    }
    TableRules::new(p.rules())?;
    let db = Egdb::open(&dir)?;
    let s = p.board_seeds();
    let net = db.net(p);
    crate::tables::check_tables(Some(&db))?;
    let Some(net) = net else {
        if p.opening() != mancala_core::Opening::None {
            bail!(
                "the tables and the opening book hold positions past the opening rules, and in \
                 this one {}: `mancala solve --position` proves it by a search",
                if p.opening() == mancala_core::Opening::Swap {
                    "North may still swap (the pie rule)"
                } else {
                    "South's first turn is still under its opening rule"
                }
            );
        }
        bail!(
            "no table or opening book in {} holds this position ({s} seeds on the board, rules {})",
            dir.display(),
            TableRules::new(p.rules())?.name()
        );
    };
    let me = p.to_move();
    let banked = p.store(me) as i32 - p.store(me.other()) as i32;
    let from_book = !db.tables_hold(p);
    // The best moves: those whose own gain and resulting position reach the value.
    let values = db.move_values(p);
    crate::tables::check_tables(Some(&db))?;
    let mut best: Option<Vec<u8>> = values
        .as_ref()
        .map(|v| v.iter().filter(|m| m.1 == net).map(|m| m.0).collect());
    // Beyond the tables, the opening book gives one best move (of those there may be).
    let booked = db.book(p).filter(|_| best.is_none());
    if let Some(b) = booked {
        best = Some(vec![b.best]);
    }
    if best.as_ref().is_some_and(|b| b.is_empty()) {
        bail!(
            "the tables in {} disagree with themselves here: no move reaches the value {net:+}",
            dir.display()
        );
    }
    let name = |pit: u8| {
        Notation::for_rules(pos.rules())
            .move_text(me, pit)
            .to_string()
    };
    if json {
        let side = |s: mancala_core::Side| s.name().to_ascii_lowercase();
        let mv =
            |pit: u8| serde_json::json!({"move": name(pit), "pit": mancala_core::pit_number(pit)});
        let own = db.own(p);
        let v = serde_json::json!({
            "position": pos.to_string(),
            "tables": TableRules::new(p.rules())?.name(),
            "seeds_on_board": s,
            "to_move": side(me),
            // Every value below is for the side to move.
            "view": side(me),
            "own": own,
            "opponent": own.map(|o| s - o as u32),
            "future_net_gain": net,
            "final_margin": banked + net,
            "best_moves": best.as_ref().map(|b| b.iter().map(|&m| mv(m)).collect::<Vec<_>>()),
            // The value is the opening book's (no table holds the position); its best
            // moves are then the book's one move, unless the moves' values are all known.
            "from_book": from_book,
            "moves": values.as_ref().map(|v| {
                v.iter()
                    .map(|&(m, gain)| {
                        let mut j = mv(m);
                        j["future_net_gain"] = gain.into();
                        j
                    })
                    .collect::<Vec<_>>()
            }),
        });
        println!("{v}");
        return Ok(());
    }
    let source = if from_book {
        " (the opening book's value)"
    } else {
        ""
    };
    match db.own(p) {
        Some(own) => println!(
            "{me} to move ends with {own} of the {s} seeds on the board (the opponent with {}): future net gain {net:+}, final margin {:+}{source}",
            s - own as u32,
            banked + net
        ),
        None => println!(
            "{me} to move: future net gain {net:+} of the {s} seeds on the board (leftovers count for nobody), final margin {:+}{source}",
            banked + net
        ),
    }
    match &best {
        Some(b) if booked.is_some() => println!(
            "a best move (the opening book's; others may be as good): {}",
            name(b[0])
        ),
        Some(b) => println!(
            "best move{}: {}",
            if b.len() == 1 { "" } else { "s" },
            b.iter().map(|&m| name(m)).collect::<Vec<_>>().join(", ")
        ),
        None => println!("best move: not known (a position after a move is not in the tables)"),
    }
    Ok(())
}
