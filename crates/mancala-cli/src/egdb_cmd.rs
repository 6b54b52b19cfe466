//! `mancala egdb build|info|probe`: the endgame databases (crate `mancala-egdb`).

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use mancala_core::notation::Notation;
use mancala_core::{KalahRules, Position};
use mancala_egdb::{build, BuildOptions, Egdb, TableRules};

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
    }
}

fn build_cmd(a: BuildArgs) -> Result<()> {
    if a.dir.exists() && !a.dir.is_dir() {
        bail!("{}: not a directory", a.dir.display());
    }
    let rules = a.rules.rules()?;
    let tr = TableRules::new(&KalahRules::new(&rules)?)?;
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
                memory_limit: None,
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
    if db.tables().next().is_none() {
        bail!("{}: no endgame tables (*.egdb files) here", dir.display());
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
            "missing_levels": missing
                .iter()
                .map(|(rules, levels)| serde_json::json!({"rules": rules, "levels": levels}))
                .collect::<Vec<_>>(),
        });
        println!("{v}");
        return Ok(());
    }
    let mut total = 0;
    println!(
        "{:<44} {:>5} {:>14} {:>4} {:>12}  crc32",
        "rules", "seeds", "entries", "bits", "bytes"
    );
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
    println!(
        "{} tables, {} bytes, every checksum{} verified",
        db.tables().count(),
        total,
        if verify_entries { " and entry" } else { "" }
    );
    for (rules, levels) in &missing {
        let first = levels[0];
        let list: Vec<String> = levels.iter().map(u32::to_string).collect();
        let usable = match first {
            0 => "none of its levels".to_string(),
            1 => "level 0 only".to_string(),
            f => format!("levels 0-{} only", f - 1),
        };
        println!(
            "note: {rules} lacks level{} {}: probes and proofs use {usable}",
            if levels.len() == 1 { "" } else { "s" },
            list.join(", "),
        );
    }
    Ok(())
}

fn probe(dir: PathBuf, position: &str, json: bool) -> Result<()> {
    let pos: Position = position.parse()?;
    let Some(p) = pos.as_kalah() else {
        bail!("the tables cover Kalah-family games only");
    };
    if p.is_over() {
        bail!("the game is over in this position");
    }
    TableRules::new(p.rules())?;
    let db = Egdb::open(&dir)?;
    let s = p.board_seeds();
    let net = db.net(p);
    crate::engine_cmds::check_tables(Some(&db))?;
    let Some(net) = net else {
        bail!(
            "no table in {} holds this position ({s} seeds on the board, rules {})",
            dir.display(),
            TableRules::new(p.rules())?.name()
        );
    };
    let me = p.to_move();
    let banked = p.store(me) as i32 - p.store(me.other()) as i32;
    // The best moves: those whose own gain and resulting position reach the value.
    let values = db.move_values(p);
    crate::engine_cmds::check_tables(Some(&db))?;
    let best: Option<Vec<u8>> = values
        .as_ref()
        .map(|v| v.iter().filter(|m| m.1 == net).map(|m| m.0).collect());
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
    match db.own(p) {
        Some(own) => println!(
            "{me} to move ends with {own} of the {s} seeds on the board (the opponent with {}): future net gain {net:+}, final margin {:+}",
            s - own as u32,
            banked + net
        ),
        None => println!(
            "{me} to move: future net gain {net:+} of the {s} seeds on the board (leftovers count for nobody), final margin {:+}",
            banked + net
        ),
    }
    match &best {
        Some(b) => println!(
            "best move{}: {}",
            if b.len() == 1 { "" } else { "s" },
            b.iter().map(|&m| name(m)).collect::<Vec<_>>().join(", ")
        ),
        None => println!("best move: not known (a position after a move is not in the tables)"),
    }
    Ok(())
}
