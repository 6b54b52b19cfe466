//! `mancala bench-engine`: what a short search gets from its time, from a fresh process (one
//! `mancala analyze` a move) and from a long-lived `mancala engine`, on seeded middle-game
//! positions; and the node rate of a short search against a long one.

use std::io::Write;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use mancala_core::Position;
use mancala_play::Rng;
use mancala_protocols::external::EngineProcess;
use serde_json::json;

use crate::RulesArgs;

#[derive(Args)]
pub struct BenchArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Positions searched, each after 10 to 20 random plies from the start with at
    /// least two thirds of the seeds on the board (Kalah family).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=1000))]
    positions: u16,
    /// Time budgets in milliseconds, separated by commas.
    #[arg(long, default_value = "10,100,1000", value_delimiter = ',')]
    budgets: Vec<u64>,
    /// The long search the short ones' node rates are compared with, in milliseconds (on the
    /// first two positions, each search from an empty table; 0: none).
    #[arg(long, default_value_t = 10_000)]
    long_ms: u64,
    /// Search threads of both.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long)]
    json: bool,
}

/// One search as measured: wall time from the request to the answer, and what the search
/// itself reported.
#[derive(Clone, Copy, Default)]
struct Run {
    wall: Duration,
    search: Duration,
    nodes: u64,
    depth: u32,
}

fn positions(rules: &mancala_core::Rules, n: usize, seed: u64) -> Result<Vec<Position>> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let mut tries = 0;
    while out.len() < n {
        tries += 1;
        if tries > 100 * n {
            bail!("no middle-game positions of {rules} after {tries} random openings");
        }
        let mut p = Position::start(rules)?;
        let plies = 10 + (rng.next_u64() % 11) as usize;
        for _ in 0..plies {
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            p.play(rng.pick(moves.as_slice()))?;
        }
        // The middle game: at least two thirds of the seeds still on the board (Kalah
        // family), so that no search proves its value within the budgets.
        let middle = p.as_kalah().is_none_or(|k| {
            let s = p.scores();
            3 * k.board_seeds() >= 2 * (k.board_seeds() + u32::from(s[0]) + u32::from(s[1]))
        });
        if !p.is_over() && middle {
            out.push(p);
        }
    }
    Ok(out)
}

fn fresh(exe: &str, pos: &Position, ms: u64, threads: u16) -> Result<Run> {
    let t = Instant::now();
    let out = Command::new(exe)
        .args(["analyze", &pos.to_string(), "--time", &format!("{ms}ms")])
        .args(["--threads", &threads.to_string(), "--json"])
        .output()?;
    let wall = t.elapsed();
    if !out.status.success() {
        bail!("analyze: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    let j: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    Ok(Run {
        wall,
        search: Duration::from_secs_f64(j["seconds"].as_f64().unwrap_or(0.0)),
        nodes: j["nodes"].as_u64().unwrap_or(0),
        depth: j["depth"].as_u64().unwrap_or(0) as u32,
    })
}

fn persistent(e: &mut EngineProcess, pos: &Position, ms: u64) -> Result<Run> {
    e.send(&format!("position {pos}"))?;
    let t = Instant::now();
    e.send(&format!("go movetime {ms}"))?;
    let mut last = String::new();
    let timeout = Some(Duration::from_millis(ms) + Duration::from_secs(30));
    let line = e.wait_for(
        |l| {
            l.starts_with("bestmove") || l.starts_with("info depth") || l.starts_with("info string")
        },
        timeout,
    )?;
    let mut line = line;
    loop {
        if line.starts_with("bestmove") {
            break;
        }
        if line.starts_with("info string") {
            bail!("engine: {line}");
        }
        last = line;
        line = e.wait_for(
            |l| l.starts_with("bestmove") || l.starts_with("info"),
            timeout,
        )?;
    }
    let wall = t.elapsed();
    // The last completed iteration's line; nodes and time since it are not reported, so the
    // nodes are those of that line.
    let field = |name: &str| -> u64 {
        let w: Vec<&str> = last.split_whitespace().collect();
        w.iter()
            .position(|&x| x == name)
            .and_then(|i| w.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    Ok(Run {
        wall,
        search: Duration::from_millis(field("time")),
        nodes: field("nodes"),
        depth: field("depth") as u32,
    })
}

fn mean(runs: &[Run]) -> Run {
    let n = runs.len().max(1) as u32;
    Run {
        wall: runs.iter().map(|r| r.wall).sum::<Duration>() / n,
        search: runs.iter().map(|r| r.search).sum::<Duration>() / n,
        nodes: runs.iter().map(|r| r.nodes).sum::<u64>() / n as u64,
        depth: runs.iter().map(|r| r.depth).sum::<u32>() / n,
    }
}

fn rate(r: &[Run]) -> f64 {
    let nodes: u64 = r.iter().map(|r| r.nodes).sum();
    let secs: f64 = r.iter().map(|r| r.search.as_secs_f64()).sum();
    nodes as f64 / secs.max(1e-9)
}

pub fn run(a: BenchArgs) -> Result<()> {
    let rules = a.rules.rules()?;
    let exe = std::env::current_exe().context("the path of this program")?;
    let exe = exe.to_string_lossy().into_owned();
    let pos = positions(&rules, usize::from(a.positions), a.seed)?;
    let cmd = format!("'{exe}' engine --threads {}", a.threads);
    let mut engine = EngineProcess::start(&cmd, "", None)?;
    let mut rows = Vec::new();
    let mut table = Vec::new();
    for &ms in &a.budgets {
        if ms == 0 || ms > 3_600_000 {
            bail!("a budget is 1 to 3600000 ms, not {ms}");
        }
        let f: Vec<Run> = pos
            .iter()
            .map(|p| fresh(&exe, p, ms, a.threads))
            .collect::<Result<_>>()?;
        let e: Vec<Run> = pos
            .iter()
            .map(|p| persistent(&mut engine, p, ms))
            .collect::<Result<_>>()?;
        for (mode, runs) in [("fresh process", &f), ("mancala engine", &e)] {
            let m = mean(runs);
            let worst = runs.iter().map(|r| r.wall).max().unwrap_or_default();
            let overhead = m.wall.saturating_sub(Duration::from_millis(ms));
            table.push(format!(
                "| {ms} ms | {mode} | {:.1} | {:.1} | {:.1} | {} | {} | {:.2} |",
                m.wall.as_secs_f64() * 1e3,
                worst.as_secs_f64() * 1e3,
                overhead.as_secs_f64() * 1e3,
                m.nodes,
                m.depth,
                rate(runs) / 1e6
            ));
            rows.push(json!({"budget_ms": ms, "mode": mode,
                "wall_ms_mean": m.wall.as_secs_f64() * 1e3, "wall_ms_max": worst.as_secs_f64() * 1e3,
                "overhead_ms": overhead.as_secs_f64() * 1e3, "nodes_mean": m.nodes,
                "depth_mean": m.depth, "mnps": rate(runs) / 1e6}));
        }
        if !a.json {
            eprint!(".");
            let _ = std::io::stderr().flush();
        }
    }
    // Node rate of the long search against the engine's at 100 ms (or the nearest budget),
    // each from an empty table (a search after a longer one of the same position would
    // find its values stored).
    let mut fresh_search = |p: &Position, ms: u64| -> Result<Run> {
        engine.new_game()?;
        persistent(&mut engine, p, ms)
    };
    let short_ms = a
        .budgets
        .iter()
        .copied()
        .min_by_key(|&b| b.abs_diff(100))
        .unwrap_or(100);
    let short: Vec<Run> = pos
        .iter()
        .take(2)
        .map(|p| fresh_search(p, short_ms))
        .collect::<Result<_>>()?;
    let long: Vec<Run> = if a.long_ms > 0 {
        pos.iter()
            .take(2)
            .map(|p| fresh_search(p, a.long_ms))
            .collect::<Result<_>>()?
    } else {
        Vec::new()
    };
    let ratio = (!long.is_empty()).then(|| rate(&short) / rate(&long));
    if a.json {
        println!(
            "{}",
            json!({"variant": rules.to_string(), "positions": pos.len(), "threads": a.threads,
                   "rows": rows, "long_ms": a.long_ms, "long_mnps": (!long.is_empty()).then(|| rate(&long) / 1e6),
                   "short_ms": short_ms, "short_mnps": rate(&short) / 1e6, "rate_ratio": ratio})
        );
        return Ok(());
    }
    eprintln!();
    println!(
        "{rules}, {} middle-game positions, {} thread{}; wall: request to answer; overhead: mean wall past the budget",
        pos.len(),
        a.threads,
        if a.threads == 1 { "" } else { "s" }
    );
    println!("| budget | searched by | wall mean (ms) | wall max (ms) | overhead (ms) | nodes | depth | M nodes/s |");
    println!("|---|---|---|---|---|---|---|---|");
    for row in table {
        println!("{row}");
    }
    if let Some(r) = ratio {
        println!(
            "node rate of a {short_ms} ms search against a {} ms one (mancala engine, 2 positions): {:.2} / {:.2} M nodes/s = {:.0}%",
            a.long_ms,
            rate(&short) / 1e6,
            rate(&long) / 1e6,
            r * 100.0
        );
    }
    Ok(())
}
