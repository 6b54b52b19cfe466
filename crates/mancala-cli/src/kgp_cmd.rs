//! `mancala agent kgp` and `mancala kgp-server`: the command line over
//! `mancala_protocols::kgp`.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use mancala_engine::Level;
use mancala_protocols::kgp::{self, ClientConfig, Mode, ServerConfig};

#[derive(Clone, Copy, ValueEnum)]
enum ModeArg {
    Freeplay,
    Eval,
    Verify,
}

#[derive(Args)]
pub struct KgpAgent {
    /// The server: HOST:PORT (TCP), or ws://HOST:PORT/PATH (WebSocket; wss:// is not
    /// supported).
    #[arg(long, value_parser = server_addr)]
    server: String,
    /// `auth:token`, which lets the server know this bot across connections.
    #[arg(long)]
    token: Option<String>,
    /// `info:name`.
    #[arg(long, default_value = "mancala")]
    name: String,
    /// `info:authors`.
    #[arg(long)]
    author: Option<String>,
    /// The activity: play positions, value them, or play out moves.
    #[arg(long, value_enum, default_value = "freeplay")]
    mode: ModeArg,
    /// Playing level (1-8); its depth or time a position, unless the server stops it first.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u8).range(1..=8))]
    level: u8,
    /// Time a position, with its unit (`200ms`, `2s`), instead of the level's depth.
    #[arg(long, conflicts_with = "level", value_parser = crate::time_arg::within(1, 3600))]
    time_per_move: Option<Duration>,
    #[command(flatten)]
    simple: crate::simple_args::SimpleArgs,
    /// Endgame tables (built by `mancala egdb build`) for the boards the server sends.
    #[arg(long)]
    egdb: Option<PathBuf>,
    /// Write every message to this file (`-`: standard error).
    #[arg(long)]
    log: Option<PathBuf>,
}

/// `--server`: a WebSocket URL as it is (checked where it is connected to), else HOST:PORT.
fn server_addr(s: &str) -> Result<String, String> {
    if s.contains("://") {
        Ok(s.into())
    } else {
        mancala_protocols::host_port(s).map_err(|e| e.to_string())
    }
}

pub fn agent(a: KgpAgent) -> Result<()> {
    let link = if a.server.contains("://") {
        kgp::ws::connect(&a.server, Duration::from_secs(10))
            .map_err(|e| anyhow::anyhow!("--server {e}"))?
    } else {
        let stream =
            TcpStream::connect(&a.server).with_context(|| format!("--server {}", a.server))?;
        kgp::Link::tcp(stream).context("the connection")?
    };
    let log: Box<dyn Write + Send> = match &a.log {
        None => Box::new(std::io::sink()),
        Some(p) if p.as_os_str() == "-" => Box::new(std::io::stderr()),
        Some(p) => Box::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .with_context(|| format!("--log {}: cannot write there", p.display()))?,
        ),
    };
    let level = Level::new(a.level).context("level")?;
    let mut computer = a.simple.computer(level)?;
    if let Some(dir) = &a.egdb {
        computer.engine.oracle = Some(std::sync::Arc::new(mancala_egdb::Egdb::open(dir)?));
    }
    let cfg = ClientConfig {
        mode: match a.mode {
            ModeArg::Freeplay => Mode::Freeplay,
            ModeArg::Eval => Mode::Eval,
            ModeArg::Verify => Mode::Verify,
        },
        name: a.name,
        authors: a.author,
        token: a.token,
        per_move: a.time_per_move,
    };
    let r = kgp::run_client(link.reader, link.writer, &mut computer, &cfg, log)?;
    for (n, g) in r.games.iter().enumerate() {
        let id = g.id.clone().unwrap_or_else(|| (n + 1).to_string());
        eprintln!("game {}: {}", mancala_core::printable(&id), game_result(g));
    }
    println!(
        "{} positions, {} moves, {} evals, {} solutions sent; {}{}",
        r.states,
        r.moves,
        r.evals,
        r.solutions,
        if r.goodbye {
            "the server said goodbye"
        } else {
            "the server closed the connection"
        },
        if r.errors.is_empty() {
            String::new()
        } else {
            format!("; its errors: {}", r.errors.join("; "))
        }
    );
    // Sent away unplayed with an error (the server busy, a token refused), or cut off
    // before any position without a goodbye (not a KGP server, or one that failed): the
    // caller's script should know. A goodbye alone is a server's choice, not a failure.
    if r.states == 0 && !r.errors.is_empty() {
        bail!("the server sent no position: {}", r.errors.join("; "));
    }
    if r.states == 0 && !r.goodbye {
        bail!("the server closed the connection before sending any position");
    }
    Ok(())
}

/// A freeplay game's result from the agent's side: `won 40:32 as South` (its seeds first),
/// `lost`, `drawn`. KGP sends no final board: where the server's move ended the game, the
/// result is what every end of that move agrees on, with the range of the stores.
fn game_result(g: &kgp::GameSeen) -> String {
    let seat = match g.seat {
        Some(s) => format!(" as {}", s.name()),
        None => String::new(),
    };
    let ends = g.possible_ends();
    let how = |[ours, theirs]: [u16; 2]| match ours.cmp(&theirs) {
        std::cmp::Ordering::Greater => "won",
        std::cmp::Ordering::Less => "lost",
        std::cmp::Ordering::Equal => "drawn",
    };
    match ends.as_slice() {
        [] => format!("not known{seat}: the agent sent no move in its last position"),
        [[ours, theirs]] => format!("{} {ours}:{theirs}{seat}", how([*ours, *theirs])),
        [first, .., last] => {
            let range = format!("{}:{} to {}:{}", first[0], first[1], last[0], last[1]);
            let why = "the server's last move, which KGP does not send, ended the game";
            if ends.iter().all(|&e| how(e) == how(*first)) {
                format!("{}{seat} ({range}: {why})", how(*first))
            } else {
                format!("not known{seat} ({range}: {why})")
            }
        }
    }
}

#[derive(Args)]
pub struct KgpServerArgs {
    /// Address to listen on (port 0: any free port; the address is printed).
    #[arg(long, default_value = "127.0.0.1:2671", value_parser = mancala_protocols::host_port)]
    addr: String,
    /// Also accept bots over WebSocket (ws://, any path) on this address.
    #[arg(long, value_parser = mancala_protocols::host_port)]
    ws_addr: Option<String>,
    /// Our playing level (1-8).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(1..=8))]
    level: u8,
    /// Pits a row (1-12).
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u8).range(1..=12))]
    pits: u8,
    /// Seeds a pit at the start.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u8).range(1..=20))]
    seeds: u8,
    /// Freeplay games a connection plays (the bot South in odd games, North in even ones).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=1000))]
    games: u32,
    /// Positions sent in eval and verify modes.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    positions: u32,
    /// The time a bot has for a position before `stop`, with its unit (`500ms`, `5s`).
    #[arg(long, default_value = "5s", value_parser = crate::time_arg::within(10, 600))]
    move_time: Duration,
    /// Connections served at once.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u16).range(1..=1024))]
    max_connections: u16,
}

/// One line a finished connection, to standard output; runs until killed.
pub fn server(a: KgpServerArgs) -> Result<()> {
    let mut cfg = ServerConfig::new(Level::new(a.level).context("level")?);
    cfg.rules = kgp::rules_for(a.pits.into(), 2 * u32::from(a.pits) * u32::from(a.seeds))
        .map_err(anyhow::Error::msg)?;
    cfg.games = a.games;
    cfg.positions = a.positions;
    cfg.move_time = a.move_time;
    cfg.max_connections = a.max_connections.into();
    // Both addresses are bound before anything is printed: a bad one is refused alone.
    let listener = TcpListener::bind(&a.addr).with_context(|| format!("--addr {}", a.addr))?;
    let ws = match &a.ws_addr {
        Some(ws) => Some(TcpListener::bind(ws).with_context(|| format!("--ws-addr {ws}"))?),
        None => None,
    };
    println!(
        "KGP {} on {} ({}, level {})",
        kgp::VERSION.map(|v| v.to_string()).join("."),
        listener.local_addr()?,
        cfg.rules,
        a.level
    );
    let mut listeners = vec![(listener, kgp::Transport::Tcp)];
    if let Some(l) = ws {
        println!("KGP over WebSocket on ws://{}/", l.local_addr()?);
        listeners.push((l, kgp::Transport::WebSocket));
    }
    kgp::serve_all(listeners, cfg, |r| {
        println!("{}", serde_json::to_string(&r).unwrap_or_default());
    });
    Ok(())
}
