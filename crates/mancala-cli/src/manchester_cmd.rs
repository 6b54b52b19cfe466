//! `mancala agent manchester` and `mancala referee manchester`: the command line over
//! `mancala_protocols::manchester`.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use mancala_engine::Level;
use mancala_protocols::manchester::{self, Budget, GameReport};
use serde_json::json;

#[derive(Args)]
pub struct AgentArgs {
    #[command(subcommand)]
    cmd: AgentCmd,
}

#[derive(Subcommand)]
enum AgentCmd {
    /// Play the Manchester Kalah protocol over standard input and output (logs to a file,
    /// never to standard error).
    Manchester(ManchesterAgent),
    /// Play the Kalah Game Protocol (KGP 1.x) as a client of a server over TCP.
    Kgp(crate::kgp_cmd::KgpAgent),
}

impl AgentArgs {
    /// Whether the agent talks over the network (a closed connection is an error it reports,
    /// not a signal).
    pub fn over_network(&self) -> bool {
        matches!(self.cmd, AgentCmd::Kgp(_))
    }
}

#[derive(Args)]
struct ManchesterAgent {
    /// Playing level (1-8); its depth or time a move, within the game's clock.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u8).range(1..=8))]
    level: u8,
    /// Time a move, with its unit (`200ms`, `2s`), instead of the level's depth (still within
    /// the clock).
    #[arg(long, value_parser = crate::time_arg::within(1, 3600))]
    time_per_move: Option<Duration>,
    #[command(flatten)]
    simple: crate::simple_args::SimpleArgs,
    /// Endgame tables for `kalah,pits=7,seeds=7` (built by `mancala egdb build`).
    #[arg(long)]
    egdb: Option<PathBuf>,
    /// The log file (default: mancala-agent-PID.log in the temporary directory).
    #[arg(long)]
    log: Option<PathBuf>,
    /// The time for the whole game, with its unit (`90s`, `1h`; the protocol gives an hour).
    #[arg(long, default_value = "1h", value_parser = crate::time_arg::within(1000, 86_400))]
    game_time: Duration,
}

#[derive(Args)]
pub struct RefereeArgs {
    #[command(subcommand)]
    cmd: RefereeCmd,
}

#[derive(Subcommand)]
enum RefereeCmd {
    /// Referee Manchester Kalah games between two agent commands (agent 1 is South).
    Manchester(ManchesterReferee),
}

#[derive(Args)]
struct ManchesterReferee {
    /// Agent 1's command (run by `sh -c`); South in the first game.
    cmd1: String,
    /// Agent 2's command.
    cmd2: String,
    /// Games to play.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    games: u32,
    /// Alternate the seats: agent 2 is South in every second game.
    #[arg(long)]
    swap_seats: bool,
    /// The time each agent has for a whole game, with its unit (`90s`, `1h`).
    #[arg(long, default_value = "1h", value_parser = crate::time_arg::within(1000, 86_400))]
    game_time: Duration,
    /// Print a JSON summary instead of the boards.
    #[arg(long)]
    json: bool,
}

pub fn agent(a: AgentArgs) -> Result<()> {
    let a = match a.cmd {
        AgentCmd::Manchester(a) => a,
        AgentCmd::Kgp(a) => return crate::kgp_cmd::agent(a),
    };
    let path = a.log.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("mancala-agent-{}.log", std::process::id()))
    });
    let mut log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("--log {}: cannot write there", path.display()))?;
    let mut level = Level::new(a.level).context("level")?;
    if a.time_per_move.is_some() {
        level.depth = None;
    }
    // Start-up costs are paid before the first message, off every move's clock: the engine
    // made and its table faulted in, the endgame tables opened.
    let ready = std::time::Instant::now();
    let mut computer = a.simple.computer(level)?;
    if !computer.is_simple() {
        computer.engine.prefault();
    }
    if let Some(dir) = &a.egdb {
        let db = mancala_egdb::Egdb::open(dir)?;
        let _ = writeln!(log, "endgame tables from {}", dir.display());
        computer.engine.oracle = Some(std::sync::Arc::new(db));
    }
    let _ = writeln!(log, "ready in {} ms", ready.elapsed().as_millis());
    let budget = Budget {
        game_time: a.game_time,
        per_move: a.time_per_move,
    };
    let stdin = std::io::stdin();
    let result = manchester::run_agent(
        stdin.lock(),
        std::io::stdout(),
        &mut computer,
        budget,
        &mut log,
    );
    match &result {
        Ok(r) => {
            let _ = writeln!(
                log,
                "game over: {} moves, {} ms thinking, stores {:?}",
                r.moves,
                r.thinking.as_millis(),
                r.scores
            );
        }
        Err(e) => {
            let _ = writeln!(log, "error: {e:#}");
        }
    }
    result.map(|_| ())
}

/// Exit status: success when every game ended by the rules; an error (status 2) names the
/// first agent fault once every game is played and reported.
pub fn referee(a: RefereeArgs) -> Result<()> {
    let RefereeCmd::Manchester(a) = a.cmd;
    let cmds = [a.cmd1.as_str(), a.cmd2.as_str()];
    let mut reports: Vec<GameReport> = Vec::new();
    let mut points = [0.0f64; 2];
    for g in 0..a.games {
        let flipped = a.swap_seats && g % 2 == 1;
        // Commands and agent numbers by seat, South's first; the report is by agent number.
        let (order, numbers) = if flipped {
            ([cmds[1], cmds[0]], [2, 1])
        } else {
            (cmds, [1, 2])
        };
        if !a.json {
            println!("Game {}: agent {} is South", g + 1, numbers[0]);
        }
        let json = a.json;
        let r = manchester::referee_game(order, numbers, a.game_time, |line| {
            if !json {
                println!("  {line}");
            }
        })?;
        match r.winner {
            Some(w) => points[usize::from(w) - 1] += 1.0,
            None => {
                points[0] += 0.5;
                points[1] += 0.5;
            }
        }
        if !a.json {
            let who = match r.winner {
                Some(w) => format!("agent {w} wins"),
                None => "draw".into(),
            };
            println!(
                "  {who}, agent 1 {} : agent 2 {}{}",
                r.scores[0],
                r.scores[1],
                r.fault.as_ref().map_or(String::new(), |f| format!("; {f}"))
            );
            for k in 0..2 {
                println!(
                    "  agent {}: {} moves, {:.1} ms a move",
                    k + 1,
                    r.moves[k],
                    r.avg_ms[k]
                );
            }
        }
        reports.push(r);
    }
    let fault = reports.iter().find_map(|r| r.fault.clone());
    if a.json {
        let games: Vec<_> = reports
            .iter()
            .map(|r| {
                json!({
                    "south": r.south,
                    "winner": r.winner,
                    "scores": r.scores,
                    "fault": r.fault,
                    "moves": r.moves,
                    "avg_ms": r.avg_ms,
                    "swapped": r.swapped,
                    "position": r.position,
                })
            })
            .collect();
        println!(
            "{}",
            json!({"agents": cmds, "points": points, "games": games})
        );
    } else {
        println!(
            "Score: agent 1 {} : {} agent 2 over {} game{}",
            points[0],
            points[1],
            a.games,
            if a.games == 1 { "" } else { "s" }
        );
    }
    match fault {
        Some(f) => anyhow::bail!("{f}"),
        None => Ok(()),
    }
}
