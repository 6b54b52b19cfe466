//! `mancala match`: a match between two players or engine processes, played by
//! `mancala_play::matches` or `mancala_protocols::external`, printed.

use std::time::Duration;

use anyhow::{bail, Result};
use clap::Args;
use mancala_play::matches::{play_match, MatchConfig, MatchResult};
use mancala_play::{Besides, Player};
use mancala_protocols::external::{play_external_match, ExternalMatch};
use serde_json::json;

use crate::RulesArgs;

#[derive(Args)]
pub struct MatchArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Player A: a level 1-8, a level with a time a move (`8@100ms`), `random`, `greedy`
    /// (the move that fills its store most this turn) or `mcts:N` (Monte Carlo tree search,
    /// N playouts a move).
    #[arg(long, required_unless_present = "a_cmd", conflicts_with = "a_cmd")]
    a: Option<String>,
    /// Player B, as for A.
    #[arg(long, required_unless_present = "b_cmd", conflicts_with = "b_cmd")]
    b: Option<String>,
    /// Player A as an engine command speaking the engine protocol (docs/protocols.md),
    /// run by `sh -c`, such as `mancala engine`; with --b-cmd.
    #[arg(long, requires = "b_cmd")]
    a_cmd: Option<String>,
    /// Player B as an engine command.
    #[arg(long, requires = "a_cmd")]
    b_cmd: Option<String>,
    /// Engines: the time of each move, in milliseconds or with a unit (`100ms`, `0.5s`),
    /// sent as each move's `go movetime` [default: 100ms].
    #[arg(long, requires = "a_cmd", conflicts_with = "go",
          value_parser = crate::time_arg::within(1, 3600))]
    movetime: Option<Duration>,
    /// Engines: the arguments of every `go` instead (`depth 12`, `nodes 100000`).
    #[arg(long, requires = "a_cmd")]
    go: Option<String>,
    /// Games to play, 1 to 1000000 (rounded up to an even number: each opening with both
    /// colours).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    games: u32,
    /// Games played at once.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    /// Random plies before the players take over, 0-1000 (pairs after the first use openings
    /// of 1 to this many plies).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(0..=1000))]
    openings: u16,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long)]
    json: bool,
}

impl MatchArgs {
    /// Whether the match plays engine processes, whose exit is a broken pipe it reports.
    pub fn plays_processes(&self) -> bool {
        self.a_cmd.is_some()
    }
}

pub fn match_cmd(m: MatchArgs) -> Result<()> {
    let rules = m.rules.rules()?;
    let (r, a_name, b_name) = match (&m.a_cmd, &m.b_cmd, &m.a, &m.b) {
        (Some(a_cmd), Some(b_cmd), _, _) => {
            let movetime = m.movetime.unwrap_or(Duration::from_millis(100));
            let (go, budget) = match &m.go {
                Some(g) => (g.clone(), None),
                None => (format!("movetime {}", movetime.as_millis()), Some(movetime)),
            };
            let cfg = ExternalMatch {
                rules,
                a_cmd: a_cmd.clone(),
                b_cmd: b_cmd.clone(),
                go,
                budget,
                games: m.games,
                threads: usize::from(m.threads),
                openings: usize::from(m.openings),
                seed: m.seed,
            };
            let bar = indicatif::ProgressBar::new(u64::from(m.games.div_ceil(2) * 2));
            let r = play_external_match(&cfg, &|n| bar.set_position(n as u64))?;
            bar.finish_and_clear();
            (r, a_cmd.clone(), b_cmd.clone())
        }
        (_, _, Some(a), Some(b)) => {
            let cfg = MatchConfig {
                rules,
                a: Player::parse(a, Besides::Mcts)?,
                b: Player::parse(b, Besides::Mcts)?,
                games: m.games,
                threads: usize::from(m.threads),
                openings: usize::from(m.openings),
                seed: m.seed,
            };
            (play_match(&cfg)?, a.clone(), b.clone())
        }
        _ => bail!("give --a and --b, or --a-cmd and --b-cmd"),
    };
    let MatchResult {
        wins,
        draws,
        losses,
        score,
        sweep,
        all_drawn,
        elo: d,
        elo_95: (lo, hi),
        ref results,
    } = r;
    if results.len() != m.games as usize {
        eprintln!(
            "note: {} games played (each opening with both colours)",
            results.len()
        );
    }
    if m.json {
        println!(
            "{}",
            json!({"variant": rules.to_string(), "a": a_name, "b": b_name, "games": results.len(),
                   "wins": wins, "draws": draws, "losses": losses, "score": score,
                   "elo": (!sweep).then_some(d).flatten(), "elo_95": [lo, hi],
                   "elo_note": if sweep { "one side won every game: more games are needed" }
                               else if all_drawn { "every game was drawn: draws alone cannot bound the difference" }
                               else { "elo_95 ends are null where unbounded (beyond 1200)" }})
        );
    } else {
        println!(
            "{rules}: {} vs {}, {} games: +{wins} ={draws} -{losses}, score {:.1}%",
            a_name,
            b_name,
            results.len(),
            score * 100.0
        );
        if sweep {
            println!(
                "Elo difference (A - B): {} (one side won every game: more games are needed to measure it)",
                if wins > 0 { "above +500" } else { "below -500" }
            );
        } else if all_drawn {
            println!(
                "Elo difference (A - B): +0, unbounded (every game was drawn: {} draws alone cannot bound it; more games or openings are needed)",
                results.len()
            );
        } else {
            let end =
                |e: Option<f64>, open: &str| e.map_or(open.to_string(), |e| format!("{e:+.0}"));
            println!(
                "Elo difference (A - B): {} (95%: {} to {})",
                end(d, "beyond 1200"),
                end(lo, "below -1200"),
                end(hi, "above +1200")
            );
        }
    }
    Ok(())
}
