//! `mancala perft`: the leaves of the game tree counted by ply or by turn, the root moves of
//! the last depth shared among threads.

use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use mancala_core::perft::{perft, perft_full_depth, perft_turns};
use mancala_core::{with_family, GameState};
use serde_json::json;

use crate::RulesArgs;

#[derive(Args)]
pub(crate) struct PerftArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Depth in plies (or turns with --turns), 1-40.
    #[arg(long, short = 'd', value_parser = clap::value_parser!(u32).range(1..=40))]
    depth: u32,
    /// Count whole turns (a move and its extra moves) instead of plies.
    #[arg(long)]
    turns: bool,
    /// Count only move paths of the full depth (chess's convention); by default a game that
    /// ends before the depth counts once, where it ends.
    #[arg(long, conflicts_with = "turns")]
    full_depth: bool,
    /// Start from this position string instead of the start.
    #[arg(long)]
    position: Option<String>,
    /// Print time and leaves a second for the last depth.
    #[arg(long)]
    stats: bool,
    /// Threads for the last depth (root moves split between them).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    #[arg(long)]
    json: bool,
}

pub(crate) fn perft_cmd(a: PerftArgs) -> Result<()> {
    let pos = a.rules.start_position(a.position.as_deref())?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(usize::from(a.threads))
        .build()
        .context("starting threads")?;
    let mode = match (a.turns, a.full_depth) {
        (true, _) => Mode::Turns,
        (false, true) => Mode::FullDepth,
        (false, false) => Mode::Plies,
    };
    let mut counts = Vec::new();
    let mut seconds = 0.0;
    for d in 1..=a.depth {
        let t0 = Instant::now();
        let n = pool.install(|| with_family!(pos, p => count(p, d, mode)));
        seconds = t0.elapsed().as_secs_f64();
        counts.push(n);
        if !a.json {
            println!("depth {d:>2}: {n}");
        }
    }
    let leaves = *counts.last().unwrap_or(&1);
    let rate = leaves as f64 / seconds.max(1e-9);
    if a.json {
        let mut v = json!({
            "variant": pos.rules().to_string(),
            "position": pos.to_string(),
            "by": if a.turns { "turn" } else { "ply" },
            "ended_games": if a.full_depth { "not counted" } else { "counted once" },
            "depth": a.depth,
            "counts": counts,
            "leaves": leaves,
        });
        if a.stats {
            v["seconds"] = json!(seconds);
            v["leaves_per_second"] = json!(rate);
            v["threads"] = json!(a.threads);
        }
        println!("{v}");
        return Ok(());
    }
    if a.stats {
        println!(
            "time {seconds:.3} s, {:.1} million leaves a second ({} thread{})",
            rate / 1e6,
            a.threads,
            if a.threads == 1 { "" } else { "s" }
        );
    }
    println!("{leaves}");
    Ok(())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Plies,
    FullDepth,
    Turns,
}

/// Perft of `pos`, the root moves split across the current rayon pool.
fn count<P: GameState + Send + Sync>(pos: &P, depth: u32, mode: Mode) -> u64 {
    use rayon::prelude::*;
    let turns = mode == Mode::Turns;
    let f = |p: &P, d| match mode {
        Mode::Plies => perft(p, d),
        Mode::FullDepth => perft_full_depth(p, d),
        Mode::Turns => perft_turns(p, d),
    };
    if depth <= 3 || pos.is_over() || rayon::current_num_threads() == 1 {
        return f(pos, depth);
    }
    // Split two plies deep so both threads stay busy.
    let mut jobs = Vec::new();
    for m in &pos.legal_moves() {
        let mut c = *pos;
        c.play_unchecked(m);
        let d = if turns && c.to_move() == pos.to_move() && !c.is_over() {
            depth
        } else {
            depth - 1
        };
        jobs.push((c, d));
    }
    jobs.par_iter().map(|(c, d)| f(c, *d)).sum()
}
