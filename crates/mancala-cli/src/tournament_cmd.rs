//! `mancala tournament`: the command line over `mancala_protocols::tournament`.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use mancala_protocols::kgp;
use mancala_protocols::tournament::{self, Config, Entrant, GameRecord, Protocol, Report};

#[derive(Clone, Copy, ValueEnum)]
enum ProtocolArg {
    Manchester,
    Kgp,
}

#[derive(Args)]
pub struct TournamentArgs {
    /// The entrants, NAME=CMD (run by `sh -c`; `{seed}` becomes the game's seed, `{addr}`
    /// the KGP server's HOST:PORT).
    #[arg(num_args = 2..)]
    entrants: Vec<String>,
    /// KGP: instead of commands, the first N bots that connect to --listen and ask for
    /// freeplay, each staying connected for all its games (they may run anywhere).
    #[arg(long, value_name = "N", conflicts_with = "entrants",
          value_parser = clap::value_parser!(u32).range(2..=64))]
    bots: Option<u32>,
    /// KGP with --bots: where the bots connect (TCP), HOST:PORT [default: 127.0.0.1:2671].
    #[arg(long, value_name = "ADDR", value_parser = mancala_protocols::host_port)]
    listen: Option<String>,
    /// KGP with --bots: how long to wait for all N bots before giving up, with its unit
    /// (`90s`, `10m`) [default: 10m].
    #[arg(long, value_parser = crate::time_arg::within(1000, 86_400))]
    wait: Option<Duration>,
    /// The protocol the entrants speak.
    #[arg(long, value_enum)]
    protocol: ProtocolArg,
    /// Games each pair of entrants plays, the seats alternating.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    games: u32,
    /// Seed of the games' seeds (`{seed}`).
    #[arg(long, default_value_t = 1, conflicts_with = "bots")]
    seed: u64,
    /// Manchester: the time each agent has for a whole game, with its unit [default: 1h].
    #[arg(long, value_parser = crate::time_arg::within(1000, 86_400))]
    game_time: Option<Duration>,
    /// KGP: the time a bot has for a position before `stop`, with its unit [default: 5s].
    #[arg(long, value_parser = crate::time_arg::within(10, 600))]
    move_time: Option<Duration>,
    /// KGP: pits a row [default: 6].
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=12))]
    pits: Option<u8>,
    /// KGP: seeds a pit at the start [default: 6].
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=20))]
    seeds: Option<u8>,
    /// Print the report as JSON (standings, pairings, every game) instead of tables. In a
    /// game, `seats`, `winner` and `faulty` are entrants (indices into `entrants`, from 0);
    /// `scores`, `moves` and `avg_ms` are by seat, South's first (`seats[0]`'s);
    /// `both_faulty` (only when true) means both lost, both at fault.
    #[arg(long)]
    json: bool,
}

pub fn run(a: TournamentArgs) -> Result<()> {
    if a.bots.is_some() && !matches!(a.protocol, ProtocolArg::Kgp) {
        bail!("--bots is KGP's: Manchester Kalah agents are commands the referee starts");
    }
    if a.bots.is_none() && (a.listen.is_some() || a.wait.is_some()) {
        bail!("--listen and --wait are for --bots: commands are given a port of their own");
    }
    if a.bots.is_none() && a.entrants.is_empty() {
        bail!("no entrants: give two or more NAME=CMD, or (KGP) --bots N for bots that connect");
    }
    let entrants = a
        .entrants
        .iter()
        .map(|s| Entrant::parse(s))
        .collect::<Result<Vec<_>>>()?;
    // An option of the other protocol is refused rather than silently ignored.
    let protocol = match a.protocol {
        ProtocolArg::Manchester => {
            if a.move_time.is_some() || a.pits.is_some() || a.seeds.is_some() {
                bail!(
                    "--move-time, --pits and --seeds are KGP's: Manchester Kalah is Kalah(7,7), \
                     each agent's clock a whole game (--game-time)"
                );
            }
            Protocol::Manchester
        }
        ProtocolArg::Kgp => {
            if a.game_time.is_some() {
                bail!("--game-time is Manchester Kalah's: a KGP bot's clock is --move-time a position");
            }
            Protocol::Kgp
        }
    };
    let (pits, seeds) = (a.pits.unwrap_or(6), a.seeds.unwrap_or(6));
    let mut cfg = Config::new(protocol);
    cfg.games = a.games;
    cfg.seed = a.seed;
    if let Some(t) = a.game_time {
        cfg.game_time = t;
    }
    if let Some(t) = a.move_time {
        cfg.move_time = t;
    }
    cfg.rules = kgp::rules_for(pits.into(), 2 * u32::from(pits) * u32::from(seeds))
        .map_err(anyhow::Error::msg)
        .context("--pits and --seeds")?;
    let json = a.json;
    let report = match a.bots {
        None => {
            let names: Vec<String> = entrants.iter().map(|e| e.name.clone()).collect();
            tournament::run(&cfg, &entrants, |g| {
                if !json {
                    println!("{}", game_line(g, &names));
                }
            })?
        }
        Some(n) => connected(
            &cfg,
            a.listen.as_deref().unwrap_or("127.0.0.1:2671"),
            n as usize,
            a.wait.unwrap_or(Duration::from_secs(600)),
            json,
        )?,
    };
    if json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{}", tables(&report));
    }
    Ok(())
}

/// The round robin of the first `n` bots that connect to `listen`; what is waited for goes to
/// standard error, each game to standard output as it ends (unless `json`).
fn connected(
    cfg: &tournament::Config,
    listen: &str,
    n: usize,
    wait: Duration,
    json: bool,
) -> Result<Report> {
    let listener =
        std::net::TcpListener::bind(listen).with_context(|| format!("--listen {listen}"))?;
    let addr = listener.local_addr()?;
    eprintln!(
        "waiting for {n} KGP bots in freeplay at {addr} (TCP), {} s at most",
        wait.as_secs()
    );
    tournament::run_connected(
        cfg,
        listener,
        n,
        wait,
        |k| eprintln!("{k} of {n} connected"),
        |g, entrants| {
            if !json {
                let names: Vec<String> = entrants.iter().map(|e| e.name.clone()).collect();
                println!("{}", game_line(g, &names));
            }
        },
    )
}

/// `game 3: A (South) 30 : 18 B, A wins; B: REASON`.
fn game_line(g: &GameRecord, names: &[String]) -> String {
    let [s, n] = g.seats.map(|k| names[k].as_str());
    let result = match g.winner {
        Some(w) => format!("{} wins", names[w]),
        None if g.both_faulty => "both lose".into(),
        None => "draw".into(),
    };
    let fault = match (&g.faulty, &g.fault) {
        (_, Some(f)) if g.both_faulty => format!("; {s} and {n}: {f}"),
        (Some(k), Some(f)) => format!("; {}: {f}", names[*k]),
        _ => String::new(),
    };
    format!(
        "game {}: {s} (South) {} : {} {n}, {result}{fault}",
        g.number, g.scores[0], g.scores[1]
    )
}

/// The standings table, then a line a pairing.
fn tables(r: &Report) -> String {
    let name = |k: usize| r.entrants[k].name.as_str();
    // Names padded to the columns a terminal shows them in, not to their bytes or chars.
    let shown = |s: &str| unicode_width::UnicodeWidthStr::width(s);
    let width = r
        .entrants
        .iter()
        .map(|e| shown(&e.name))
        .max()
        .unwrap_or(0)
        .max(6);
    let padded = |s: &str| format!("{s}{}", " ".repeat(width - shown(s)));
    let protocol = match r.protocol {
        Protocol::Manchester => "Manchester Kalah",
        Protocol::Kgp => "KGP",
    };
    let mut out = format!(
        "\n{protocol}, {} game{} a pairing{}\n\n{:>2}  {}  {:>5}  {:>9}  {:>6}  {:>6}  {:>10}  {:>6}\n",
        r.games_a_pairing, if r.games_a_pairing == 1 { "" } else { "s" },
        r.seed.map_or(String::new(), |s| format!(", seed {s}")), "#", padded("player"), "games", "W-D-L", "points", "margin", "ms a move", "faults"
    );
    for (i, s) in r.standings.iter().enumerate() {
        out += &format!(
            "{:>2}  {}  {:>5}  {:>9}  {:>6}  {:>+6}  {:>10.1}  {:>6}\n",
            i + 1,
            padded(&s.name),
            s.games,
            format!("{}-{}-{}", s.wins, s.draws, s.losses),
            s.points,
            s.margin,
            s.avg_ms,
            s.faults
        );
    }
    out += "\n";
    for p in &r.pairings {
        out += &format!(
            "{} {} : {} {} (wins {}-{}, draws {}, margin {:+})\n",
            name(p.entrants[0]),
            p.points[0],
            p.points[1],
            name(p.entrants[1]),
            p.wins[0],
            p.wins[1],
            p.draws,
            p.margin
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The standings' columns line up whatever the names' widths on a terminal.
    #[test]
    fn wide_names_keep_the_columns() {
        let names = ["甲乙", "ab", "éé"];
        let standing = |k: usize| tournament::Standing {
            entrant: k,
            name: names[k].into(),
            games: 2,
            wins: 0,
            draws: 2,
            losses: 0,
            points: 1.0,
            margin: 0,
            moves: 10,
            avg_ms: 1.0,
            faults: 0,
        };
        let r = Report {
            protocol: Protocol::Kgp,
            games_a_pairing: 1,
            seed: None,
            entrants: names
                .iter()
                .map(|n| Entrant::parse(&format!("{n}=true")).unwrap())
                .collect(),
            standings: (0..3).map(standing).collect(),
            pairings: Vec::new(),
            games: Vec::new(),
        };
        let t = tables(&r);
        let rows: Vec<&str> = t.lines().filter(|l| l.contains("  0-")).collect();
        assert_eq!(rows.len(), 3, "{t}");
        let at = |l: &str| unicode_width::UnicodeWidthStr::width(&l[..l.find("  0-").unwrap()]);
        assert!(rows.iter().all(|l| at(l) == at(rows[0])), "{t}");
    }
}
