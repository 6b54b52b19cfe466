//! `mancala bench-proofs`: how often a move against the clock is proven. Games from the
//! start, each after a few random plies, are played by [`think::engine_move`] as `mancala
//! engine` plays them (a searcher and a prover, kept across the game's moves, with the
//! endgame tables given); every position's answer is timed and its kind (proven or a search
//! value) counted.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use mancala_core::{Game, Position, Rules};
use mancala_engine::{think, Budget, Engine};
use mancala_play::Rng;
use serde_json::json;

use crate::RulesArgs;

#[derive(Args)]
pub struct BenchProofsArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Endgame tables for the rules (`mancala egdb build`).
    #[arg(long)]
    egdb: Option<std::path::PathBuf>,
    /// Games played.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    games: u32,
    /// Each game's first plies are random: a number from 0 to this many, drawn a game.
    #[arg(long, default_value_t = 12)]
    random_plies: u32,
    /// Time a move, with its unit (`500ms`, `1s`).
    #[arg(long, default_value = "1s", value_parser = crate::time_arg::within(1, 3600))]
    movetime: Duration,
    /// Time thresholds the shares of proven moves are counted within, in milliseconds,
    /// separated by commas.
    #[arg(long, default_value = "100,500,1000", value_delimiter = ',')]
    within: Vec<u64>,
    /// Search threads (the searcher's and the prover's).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    /// The searcher's transposition table in MiB (the prover's is `mancala engine`'s).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=65536))]
    tt_mb: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long)]
    json: bool,
}

/// One position's answer: whether it was proven and how long the whole move took.
struct Answer {
    pos: Position,
    proven: bool,
    time: Duration,
}

pub fn run(a: BenchProofsArgs) -> Result<()> {
    let rules = a.rules.rules()?;
    if a.within.iter().any(|&t| t == 0 || t > 3_600_000) {
        bail!("--within: each time is 1 to 3600000 ms");
    }
    let threads = usize::from(a.threads);
    let (engine, prover, db) =
        crate::tables::engine_and_prover(a.tt_mb, threads, a.egdb.as_deref())?;
    let start = Position::start(&rules)?;
    let tabled = prover.tabled_seeds(&start);
    let answers = play_games(&a, &rules, &engine, &prover, db.as_deref())?;
    print_report(&a, &rules, tabled, &answers);
    Ok(())
}

/// Plays `a.games` games by [`think::engine_move`], the first plies of each random, and
/// returns every position's answer.
fn play_games(
    a: &BenchProofsArgs,
    rules: &Rules,
    engine: &Engine,
    prover: &Engine,
    db: Option<&mancala_egdb::Egdb>,
) -> Result<Vec<Answer>> {
    let mut rng = Rng::new(a.seed);
    let mut answers = Vec::new();
    for g in 0..a.games {
        engine.clear();
        prover.clear();
        let random = (rng.next_u64() % (u64::from(a.random_plies) + 1)) as usize;
        let mut game = Game::from_rules(rules)?;
        while !game.is_over() {
            let pos = *game.position();
            let r = think::engine_move(
                engine,
                prover,
                &pos,
                game.history(),
                Budget::time(a.movetime),
                None,
            )
            .context("no move in a game not over")?;
            answers.push(Answer {
                pos,
                proven: r.eval.is_proven(),
                time: r.elapsed,
            });
            let mv = if game.moves().len() < random {
                rng.pick(pos.legal_moves().as_slice())
            } else {
                r.best
            };
            game.play(mv)?;
        }
        if let Some(e) = db.and_then(mancala_egdb::Egdb::fault) {
            bail!(e);
        }
        if !a.json {
            eprint!("\rgame {} of {}", g + 1, a.games);
        }
    }
    if !a.json {
        eprintln!();
    }
    Ok(answers)
}

/// Prints the shares of `answers` proven within each of `a.within`, those not proven and the
/// worst position, for people or as JSON; `tabled` is the endgame tables' seeds plus one.
fn print_report(a: &BenchProofsArgs, rules: &Rules, tabled: u32, answers: &[Answer]) {
    let n = answers.len();
    let share = |ms: u64| {
        let k = answers
            .iter()
            .filter(|x| x.proven && x.time <= Duration::from_millis(ms))
            .count();
        (k, k as f64 / n.max(1) as f64)
    };
    // The worst position: the last to be proven, or one not proven at all.
    let worst = answers.iter().max_by_key(|x| (!x.proven, x.time));
    let unproven = answers.iter().filter(|x| !x.proven).count();
    // Positions not proven within the move, by seeds on the board, most seeds first.
    let mut by_seeds = std::collections::BTreeMap::<std::cmp::Reverse<u32>, usize>::new();
    for x in answers.iter().filter(|x| !x.proven) {
        *by_seeds
            .entry(std::cmp::Reverse(x.pos.board_seeds()))
            .or_default() += 1;
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    if a.json {
        println!(
            "{}",
            json!({
                "variant": rules.to_string(), "tables_top_level": tabled.checked_sub(1), "games": a.games,
                "positions": n, "movetime_ms": ms(a.movetime), "threads": a.threads,
                "proven_within": a.within.iter().map(|&t| {
                    let (k, s) = share(t);
                    json!({"ms": t, "proven": k, "share": s})
                }).collect::<Vec<_>>(),
                "not_proven": unproven,
                "not_proven_by_seeds": by_seeds.iter().map(|(s, k)| json!({"seeds": s.0, "positions": k})).collect::<Vec<_>>(),
                "worst": worst.map(|w| json!({"position": w.pos.to_string(),
                    "proven": w.proven, "ms": ms(w.time)})),
            })
        );
        return;
    }
    let tables = match tabled {
        0 => "no endgame tables".to_string(),
        t => format!("endgame tables of 0 to {} seeds", t - 1),
    };
    println!(
        "{rules}: {} games ({} positions, from the start, 0 to {} random plies first), `engine_move` at {} ms a move, {} thread{}, {tables}",
        a.games,
        n,
        a.random_plies,
        ms(a.movetime),
        a.threads,
        if a.threads == 1 { "" } else { "s" }
    );
    println!("| answered proven within | positions | share |");
    println!("|---|---|---|");
    for &t in &a.within {
        let (k, s) = share(t);
        println!("| {t} ms | {k} | {:.1}% |", s * 100.0);
    }
    println!(
        "not proven within the move (a search value, labelled as one): {unproven} ({:.1}%)",
        unproven as f64 / n.max(1) as f64 * 100.0
    );
    if !by_seeds.is_empty() {
        let spread: Vec<String> = by_seeds
            .iter()
            .map(|(s, k)| format!("{k} with {}", s.0))
            .collect();
        println!("not proven, by seeds on the board: {}", spread.join(", "));
    }
    if let Some(w) = worst {
        println!(
            "worst position: {} ({}, {:.1} ms, {} seeds on the board)",
            w.pos,
            if w.proven { "proven" } else { "not proven" },
            ms(w.time),
            w.pos.board_seeds()
        );
    }
}
