//! `mancala solve`: a position proven, its value, perfect line and figures.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use mancala_core::notation::{line_ends_game, line_text, Notation};
use mancala_core::Position;
use mancala_engine::{Budget, Engine};
use serde_json::json;

use super::{peak_text, value_is};
use crate::progress::ProofProgress;
use crate::tables::{check_tables, open_egdb, oracle};
use crate::RulesArgs;

#[derive(Args)]
pub struct SolveArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Solve this position instead of the start.
    #[arg(long)]
    position: Option<String>,
    /// Search threads.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    /// Transposition table size in MiB [default: 64 when the position holds at most 24
    /// seeds more than the endgame tables reach, else 512 for Kalah rules the solver's fast
    /// path takes (8-byte entries) and 1024 for the others (16-byte entries)].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=65536))]
    tt_mb: Option<u32>,
    /// Give up after this time, with its unit (`500ms`, `90s`, `10m`, `2h`), up to a year,
    /// counted from the start (making the table included).
    #[arg(long, value_parser = crate::time_arg::within(1, 31_536_000))]
    time: Option<Duration>,
    /// Print time, nodes, nodes a second, endgame-table hits and peak memory (VmHWM).
    #[arg(long)]
    stats: bool,
    /// Probe the endgame databases in this directory (`mancala egdb build`).
    #[arg(long)]
    egdb: Option<std::path::PathBuf>,
    /// Also prove the value of every first turn (each sequence of moves of the side to move
    /// up to the opponent's turn).
    #[arg(long, conflicts_with_all = ["at_least", "at_most", "split", "merge"])]
    openings: bool,
    /// Prove only whether the value (final seed margin for the side to move with perfect
    /// play) is at least K: one null-window pass, no exact margin.
    #[arg(long, value_name = "K", allow_hyphen_values = true, conflicts_with = "at_most",
          value_parser = clap::value_parser!(i32).range(-1000..=1000))]
    at_least: Option<i32>,
    /// Prove only whether the value is at most K (the same pass as "at least K + 1").
    #[arg(long, value_name = "K", allow_hyphen_values = true,
          value_parser = clap::value_parser!(i32).range(-1000..=1000))]
    at_most: Option<i32>,
    /// Split the proof of a bound into jobs: the positions this many turns deep (a turn is
    /// all the moves of one player up to the opponent's move), written to --jobs.
    #[arg(long, value_name = "TURNS", requires = "jobs", conflicts_with = "merge",
          value_parser = clap::value_parser!(u32).range(0..=6))]
    split: Option<u32>,
    /// The directory of a split proof's job and result files.
    #[arg(long, value_name = "DIR")]
    jobs: Option<std::path::PathBuf>,
    /// Read the job and result files of a split proof in DIR: what is proven about the root,
    /// what remains, and the next round of jobs where a hypothesis failed.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["position", "at_least", "at_most", "jobs"])]
    merge: Option<std::path::PathBuf>,
    /// With --split or --merge: run the jobs here, this many processes at once, round after
    /// round until the root's bound is proven.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    parallel: Option<u16>,
    #[arg(long)]
    json: bool,
}

/// Why a proof of `pos` gave no result.
fn unfinished(pos: &Position) -> String {
    Engine::unproven_reason(pos)
}

/// The value of every first turn for the side to move, best first.
fn openings(engine: &Engine, pos: &Position, limits: Budget) -> Result<Vec<(String, i32, u64)>> {
    let me = pos.to_move();
    let mut v = Vec::new();
    for (line, q) in mancala_engine::turns(pos) {
        let (value, nodes) = if q.is_over() {
            let s = q.scores();
            (s[me.index()] as i32 - s[me.other().index()] as i32, 0)
        } else {
            let r = engine
                .solve(&q, limits, &[])
                .with_context(|| unfinished(&q))?;
            (r.eval.seen_by(me).margin, r.nodes)
        };
        v.push((line_text(pos, &line), value, nodes));
    }
    // Best first: in a misère game the lowest margin.
    let sign = if pos.rules().misere() { 1 } else { -1 };
    v.sort_by_key(|x| sign * x.1);
    Ok(v)
}

/// A proof's engine for `pos` ([`Engine::for_proof`]): `threads`, a table of `tt_mb` MiB
/// (by default as the position, its endgame tables and `time` ask), and the endgame tables
/// of `egdb`, opened once (opening checks every table's checksum).
pub fn proof_engine(
    pos: &Position,
    egdb: Option<&std::path::Path>,
    tt_mb: Option<u32>,
    threads: u16,
    time: Option<Duration>,
) -> Result<(Engine, Option<std::sync::Arc<mancala_egdb::Egdb>>)> {
    let db = open_egdb(egdb, pos)?;
    let engine =
        Engine::for_proof(pos, oracle(&db), tt_mb, threads, time).map_err(anyhow::Error::msg)?;
    Ok((engine, db))
}

pub fn solve(a: SolveArgs) -> Result<()> {
    // The clock starts here: opening the tables and making the table count.
    let limits = Budget::time_opt(a.time);
    if let Some(dir) = &a.merge {
        return crate::split::merge_cmd(dir, &a.split_ask());
    }
    let pos = a.rules.start_position(a.position.as_deref())?;
    if pos.is_over() {
        bail!("the game is over in this position");
    }
    if let Some(turns) = a.split {
        let dir = a.jobs.as_deref().context("--split needs --jobs DIR")?;
        return crate::split::split_cmd(&pos, turns, dir, &a.split_ask());
    }
    if a.jobs.is_some() || a.parallel.is_some() {
        bail!("--jobs and --parallel go with --split (or --parallel with --merge)");
    }
    let (engine, db) = proof_engine(&pos, a.egdb.as_deref(), a.tt_mb, a.threads, a.time)?;
    if let Some(k) = a.at_least.or(a.at_most.map(|k| k + 1)) {
        let progress = ProofProgress::new();
        let show = |p: &mancala_engine::SolveProgress| {
            progress.show(&format!("is the value at least {k:+}?"), p)
        };
        let r =
            engine.prove_at_least_with_progress(&pos, pos.to_move(), k, limits, &[], Some(&show));
        progress.finish();
        let r = r.with_context(|| unfinished(&pos))?;
        check_tables(db.as_deref())?;
        return print_bound(&pos, &r, a.at_most.is_some(), &a, engine.table_bytes());
    }
    let progress = ProofProgress::new();
    let show = |p: &mancala_engine::SolveProgress| {
        let range = match (p.at_least, p.at_most) {
            (Some(lo), Some(hi)) => format!("value {lo:+} to {hi:+}"),
            (Some(lo), None) => format!("value at least {lo:+}"),
            (None, Some(hi)) => format!("value at most {hi:+}"),
            (None, None) => "first pass".to_string(),
        };
        progress.show(&range, p);
    };
    let r = engine.solve_with_progress(&pos, limits, &[], Some(&show));
    progress.finish();
    let r = r.with_context(|| unfinished(&pos))?;
    check_tables(db.as_deref())?;
    let opening_values = if a.openings {
        let o = openings(&engine, &pos, limits)?;
        check_tables(db.as_deref())?;
        Some(o)
    } else {
        None
    };
    let side = pos.to_move();
    let notation = Notation::for_rules(pos.rules());
    let nps = r.nodes as f64 / r.elapsed.as_secs_f64().max(1e-9);
    let misere = if pos.rules().misere() {
        "; misère: lower is better"
    } else {
        ""
    };
    if a.json {
        let mut v = json!({
            "variant": pos.rules().to_string(),
            "position": pos.to_string(),
            "value": r.eval.margin,
            "value_is": value_is(&r.eval, " with perfect play", misere),
            "eval": r.eval,
            "best": notation.move_text(side, r.best).to_string(),
            "pv": line_text(&pos, &r.pv),
            "pv_to_end": line_ends_game(&pos, &r.pv),
            "nodes": r.nodes,
        });
        if a.egdb.is_some() {
            v["oracle_hits"] = json!(r.oracle_hits);
        }
        if let Some(o) = &opening_values {
            v["openings"] = o
                .iter()
                .map(|(line, value, nodes)| json!({"turn": line, "value": value, "nodes": nodes}))
                .collect();
        }
        if a.stats {
            v["seconds"] = json!(r.elapsed.as_secs_f64());
            v["nodes_per_second"] = json!(nps);
            v["threads"] = json!(a.threads);
            v["tt_bytes"] = json!(engine.table_bytes());
            v["peak_memory_bytes"] = json!(mancala_egdb::build::peak_memory());
        }
        println!("{v}");
        return Ok(());
    }
    print_solved(
        &a,
        &pos,
        &r,
        &engine,
        db.as_deref(),
        opening_values.as_deref(),
    );
    Ok(())
}

/// `solve`'s answer for people: the value and best move, the perfect line, the proof's
/// nodes, whether the tables solve the game strongly, the first turns' values
/// (`--openings`) and the figures (`--stats`).
fn print_solved(
    a: &SolveArgs,
    pos: &Position,
    r: &mancala_engine::SolveResult,
    engine: &Engine,
    db: Option<&mancala_egdb::Egdb>,
    opening_values: Option<&[(String, i32, u64)]>,
) {
    let side = pos.to_move();
    let notation = Notation::for_rules(pos.rules());
    let nps = r.nodes as f64 / r.elapsed.as_secs_f64().max(1e-9);
    let misere = if pos.rules().misere() {
        "; misère: lower is better"
    } else {
        ""
    };
    println!(
        "{}: value {:+} for {} (to move): {}, best move {}",
        pos.rules(),
        r.eval.margin,
        side.name(),
        r.eval.outcome_text(),
        notation.move_text(side, r.best)
    );
    println!(
        "perfect play: {}{}",
        line_text(pos, &r.pv),
        if line_ends_game(pos, &r.pv) {
            ""
        } else {
            " ... (the game goes on: no table kept the move of the next position)"
        }
    );
    if a.egdb.is_some() {
        println!(
            "proof: {} nodes, {} valued by the endgame databases (tables and opening book)",
            r.nodes, r.oracle_hits
        );
    } else {
        println!("proof: {} nodes", r.nodes);
    }
    if let (Some(dir), Some(db), Some(k)) = (&a.egdb, db, pos.as_kalah()) {
        let total = k.rules().total as u32;
        if let Ok(tr) = mancala_egdb::TableRules::new(k.rules()) {
            if db.complete_to(&tr).is_some_and(|n| n >= total) {
                println!(
                    "strongly solved: the tables in {} value every position of this game (levels 0-{total} of {})",
                    dir.display(),
                    tr.name()
                );
            }
        }
    }
    if let Some(o) = opening_values {
        println!(
            "first turns of {} (final margin for {} with perfect play after it{misere}; each its own proof, its nodes not in the count above):",
            side.name(),
            side.name()
        );
        for (line, value, nodes) in o {
            println!("  {line:<12} {value:+4}   ({nodes} nodes)");
        }
    }
    if a.stats {
        println!(
            "time {:.2} s, {} nodes ({:.1} M nodes/s), {} endgame-table hits, {} thread{}, table {} MiB, peak memory {}",
            r.elapsed.as_secs_f64(),
            r.nodes,
            nps / 1e6,
            r.oracle_hits,
            a.threads,
            if a.threads == 1 { "" } else { "s" },
            engine.table_bytes() >> 20,
            peak_text()
        );
    }
}

impl SolveArgs {
    /// What `--split` and `--merge` were asked: the jobs' options (endgame tables, table
    /// size, threads, time), the bound (`--at-most K` is "at least K + 1", read the other
    /// way round), `--json` and `--parallel`.
    pub fn split_ask(&self) -> crate::split::SplitAsk {
        use mancala_engine::split::Threshold;
        crate::split::SplitAsk {
            opts: crate::split::JobOptions {
                egdb: self.egdb.clone(),
                tt_mb: self.tt_mb,
                threads: self.threads,
                time: self.time,
            },
            threshold: self
                .at_least
                .map(Threshold::at_least)
                .or(self.at_most.map(Threshold::at_most)),
            json: self.json,
            parallel: self.parallel,
        }
    }
}

/// Prints the answer of `solve --at-least/--at-most`.
fn print_bound(
    pos: &Position,
    r: &mancala_engine::BoundResult,
    at_most: bool,
    a: &SolveArgs,
    tt_bytes: usize,
) -> Result<()> {
    let side = r.side.name();
    let value_is = format!(
        "final seed margin for {side} (the side to move) with perfect play from both sides{}; a proven bound, not the exact value",
        if r.lower_is_better { "; misère: lower is better" } else { "" }
    );
    let nps = r.nodes as f64 / r.elapsed.as_secs_f64().max(1e-9);
    if a.json {
        let (question, threshold, answer) = if at_most {
            ("at-most", r.at_least - 1, !r.holds)
        } else {
            ("at-least", r.at_least, r.holds)
        };
        let mut v = json!({
            "variant": pos.rules().to_string(),
            "position": pos.to_string(),
            "side": r.side,
            "question": question,
            "threshold": threshold,
            "holds": answer,
            "proven": r.text(at_most),
            // What the pass showed, whichever way it went.
            "at_least": r.holds.then_some(r.bound),
            "at_most": (!r.holds).then_some(r.bound),
            "value_is": value_is,
            "nodes": r.nodes,
        });
        if a.egdb.is_some() {
            v["oracle_hits"] = json!(r.oracle_hits);
        }
        if a.stats {
            v["seconds"] = json!(r.elapsed.as_secs_f64());
            v["nodes_per_second"] = json!(nps);
            v["threads"] = json!(a.threads);
            v["tt_bytes"] = json!(tt_bytes);
        }
        println!("{v}");
        return Ok(());
    }
    println!(
        "{}: value for {side} (to move): {}",
        pos.rules(),
        r.text(at_most)
    );
    println!("value: {value_is}");
    if a.egdb.is_some() {
        println!(
            "proof: {} nodes, {} valued by the endgame databases (tables and opening book; one null-window pass)",
            r.nodes, r.oracle_hits
        );
    } else {
        println!("proof: {} nodes (one null-window pass)", r.nodes);
    }
    if a.stats {
        println!(
            "time {:.2} s, {} nodes ({:.1} M nodes/s), {} thread{}, table {} MiB, peak memory {}",
            r.elapsed.as_secs_f64(),
            r.nodes,
            nps / 1e6,
            a.threads,
            if a.threads == 1 { "" } else { "s" },
            tt_bytes >> 20,
            peak_text()
        );
    }
    Ok(())
}
