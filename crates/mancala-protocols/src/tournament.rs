//! Round robins between bot commands over either bot protocol: every pair of entrants plays
//! a number of games with the seats alternating, and the results are summed into standings
//! (wins, draws, losses, points, seed margin, time a move) and one line a pairing.
//!
//! - Manchester Kalah: each game is [`manchester::referee_game`] between the two commands.
//! - KGP: the tournament listens on a free local port; for each game it starts the South
//!   entrant's command, waits for its connection and its `mode freeplay`, then the North
//!   entrant's, and plays the two connections against each other with the server's own
//!   connection code (`kgp/server.rs`'s `greet` and `bot_move`): each bot is sent the board
//!   as South (North's mirrored), has the configured time for a position, and is told
//!   `goodbye` at the end.
//! - KGP between bots that connect ([`run_connected`]): the first bots to ask for `freeplay`
//!   wait in a [`Lobby`] and play all their games over their one connection, through the
//!   lobby's game code (the one `serve --kgp-lobby` pairs bots with).
//!
//! In a command, `{seed}` becomes the game's seed ([`Rng::derive`] of the tournament's seed
//! and the game's number) and `{addr}` the KGP server's `HOST:PORT`. An entrant that crashes,
//! times out, moves illegally, sends garbage or never connects loses that game, the reason
//! kept with it; the tournament goes on.

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use mancala_core::{Position, Rules, Side};
use mancala_engine::Level;

use crate::kgp::{
    self, Conn, Lobby, LobbyError, Mode, Recording, Seat, ServerConfig, SessionReport,
};
use crate::{manchester, shown};
use mancala_play::Rng;

/// The bot protocol a tournament's entrants speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// Manchester Kalah over standard input and output ([`manchester`]).
    Manchester,
    /// The Kalah Game Protocol over TCP ([`kgp`]).
    Kgp,
}

/// One entrant: its name in the tables and the command (run by `sh -c`) that starts it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Entrant {
    /// The name.
    pub name: String,
    /// The command; `{seed}` and `{addr}` are filled in for each game.
    pub cmd: String,
}

impl Entrant {
    /// Reads `NAME=CMD` (the name up to the first `=`, neither part empty).
    pub fn parse(s: &str) -> Result<Entrant> {
        match s.split_once('=') {
            Some((name, cmd)) if !name.trim().is_empty() && !cmd.trim().is_empty() => Ok(Entrant {
                name: name.trim().to_string(),
                cmd: cmd.to_string(),
            }),
            _ => bail!("`{}` is not NAME=CMD", shown(s)),
        }
    }
}

/// How a tournament is played.
#[derive(Clone, Debug)]
pub struct Config {
    /// The protocol.
    pub protocol: Protocol,
    /// Games each pair of entrants plays (the first-named entrant South in odd games).
    pub games: u32,
    /// Seed of the games' seeds.
    pub seed: u64,
    /// Manchester: each agent's time for a whole game.
    pub game_time: Duration,
    /// KGP: the game (Kalah with the protocol's end rule, [`kgp::rules_for`]).
    pub rules: Rules,
    /// KGP: a bot's time for a position; one that sent no move by then loses.
    pub move_time: Duration,
    /// KGP: time for a command to connect, and then to send `mode`.
    pub connect_time: Duration,
}

impl Config {
    /// Two games a pairing, seed 1; Manchester: the protocol's hour a game; KGP: Kalah(6,6),
    /// 5 s a position, 10 s to connect.
    pub fn new(protocol: Protocol) -> Config {
        Config {
            protocol,
            games: 2,
            seed: 1,
            game_time: manchester::GAME_TIME,
            rules: kgp::rules_for(6, 72).expect("Kalah(6,6) fits the core"),
            move_time: Duration::from_secs(5),
            connect_time: Duration::from_secs(10),
        }
    }
}

/// One game of a tournament.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GameRecord {
    /// Its number in the tournament, from 1.
    pub number: u32,
    /// The entrants by seat (indices into the entrants): South (who moves first) first.
    pub seats: [usize; 2],
    /// The seed its commands were given for `{seed}` (none between connected bots, which
    /// are given none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The winning entrant (an index into the entrants, as `seats` holds, not a seat);
    /// `None` for a draw.
    pub winner: Option<usize>,
    /// Final stores by seat, South's first (at a fault: as they stood). Under the pie rule
    /// a seat is its entrant's for the whole game, the board mirrored by a swap.
    pub scores: [u16; 2],
    /// Moves each seat played.
    pub moves: [u32; 2],
    /// Each seat's average time a move in milliseconds, from the position sent to the move
    /// received.
    pub avg_ms: [f64; 2],
    /// The entrant (an index into the entrants, not a seat) whose fault ended the game
    /// early, where one did (with [`GameRecord::both_faulty`], South's).
    pub faulty: Option<usize>,
    /// Its fault.
    pub fault: Option<String>,
    /// Both entrants were at fault (both had left before the game, or one faulted on move
    /// after the other had left): no winner, and a loss for each. Serialized only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub both_faulty: bool,
}

/// An entrant's results over the tournament.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Standing {
    /// The entrant (index into the entrants).
    pub entrant: usize,
    /// Its name.
    pub name: String,
    /// Games played.
    pub games: u32,
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// A win 1, a draw ½.
    pub points: f64,
    /// Its stores minus its opponents', summed over its games.
    pub margin: i64,
    /// Moves it played.
    pub moves: u64,
    /// Its average time a move in milliseconds.
    pub avg_ms: f64,
    /// Games it lost by a fault.
    pub faults: u32,
}

/// Two entrants' games against each other.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Pairing {
    /// The entrants (indices), in the order they were given.
    pub entrants: [usize; 2],
    /// Games won by each.
    pub wins: [u32; 2],
    /// Games drawn.
    pub draws: u32,
    /// Points of each.
    pub points: [f64; 2],
    /// The first entrant's stores minus the second's, summed.
    pub margin: i64,
}

/// A finished tournament.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Report {
    /// The protocol.
    pub protocol: Protocol,
    /// Games a pairing.
    pub games_a_pairing: u32,
    /// The tournament's seed (none between connected bots).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The entrants, as given.
    pub entrants: Vec<Entrant>,
    /// One a entrant, best first (points, then margin, then the order given).
    pub standings: Vec<Standing>,
    /// One a pair of entrants, in the order played.
    pub pairings: Vec<Pairing>,
    /// Every game, in the order played.
    pub games: Vec<GameRecord>,
}

/// How one game went, by seat.
#[derive(Default)]
struct Played {
    winner: Option<usize>,
    scores: [u16; 2],
    moves: [u32; 2],
    time: [Duration; 2],
    fault: Option<(usize, String)>,
    /// The fault was both seats'.
    both_faulty: bool,
    /// A seat's command could not be run (not found, or not executable).
    not_started: bool,
}

/// Plays the round robin of `entrants` under `cfg`, handing each finished game to `done`.
/// Errors before the first game (fewer than two entrants, a name given twice, no games, KGP
/// rules with no start, no port to listen on), where `sh` itself cannot be run, and at the
/// end where no game could be played because an entrant's command could not be run (its
/// fault names it).
pub fn run(
    cfg: &Config,
    entrants: &[Entrant],
    mut done: impl FnMut(&GameRecord),
) -> Result<Report> {
    if entrants.len() < 2 {
        bail!("a tournament needs two entrants or more");
    }
    for (k, e) in entrants.iter().enumerate() {
        if entrants[..k].iter().any(|o| o.name == e.name) {
            bail!("the name `{}` is given twice", shown(&e.name));
        }
    }
    if cfg.games == 0 {
        bail!("a tournament needs one game a pairing or more");
    }
    if cfg.protocol == Protocol::Kgp {
        Position::start(&cfg.rules).map_err(|e| anyhow::anyhow!("the KGP game: {e}"))?;
    }
    let listener = match cfg.protocol {
        Protocol::Kgp => {
            Some(TcpListener::bind("127.0.0.1:0").context("a local port for the KGP games")?)
        }
        Protocol::Manchester => None,
    };
    let addr = match &listener {
        Some(l) => l.local_addr()?.to_string(),
        None => String::new(),
    };
    let mut played = false;
    let games = round_robin(cfg, entrants.len(), &mut done, |seats, seed| {
        let cmds = seats.map(|k| {
            entrants[k]
                .cmd
                .replace("{seed}", &seed.to_string())
                .replace("{addr}", &addr)
        });
        let p = match &listener {
            None => manchester_game(&cmds, cfg)?,
            Some(l) => kgp_game(l, &cmds, cfg),
        };
        played |= !p.not_started;
        Ok(p)
    })?;
    if !played {
        let why = games.iter().find_map(|g| {
            let k = g.faulty?;
            Some(format!("{}: {}", entrants[k].name, g.fault.as_deref()?))
        });
        bail!(
            "no game could be played: {}",
            why.unwrap_or_else(|| "an entrant could not be started".into())
        );
    }
    Ok(summarise(cfg, entrants, games))
}

/// The games of a round robin of `n` entrants in order (each pair `cfg.games` times, the
/// seats alternating), each played by `play` (seats as entrants, South first, and the
/// game's seed) and handed to `done`.
fn round_robin(
    cfg: &Config,
    n: usize,
    done: &mut impl FnMut(&GameRecord),
    mut play: impl FnMut([usize; 2], u64) -> Result<Played>,
) -> Result<Vec<GameRecord>> {
    let mut games = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            for g in 0..cfg.games {
                let number = games.len() as u32 + 1;
                let seats = if g % 2 == 0 { [a, b] } else { [b, a] };
                let seed = Rng::derive(cfg.seed, u64::from(number));
                let p = play(seats, seed)?;
                let record = GameRecord {
                    number,
                    seats,
                    seed: Some(seed),
                    winner: p.winner.map(|s| seats[s]),
                    scores: p.scores,
                    moves: p.moves,
                    avg_ms: [0, 1].map(|s| avg_ms(p.time[s], p.moves[s])),
                    faulty: p.fault.as_ref().map(|f| seats[f.0]),
                    fault: p.fault.map(|f| f.1),
                    both_faulty: p.both_faulty,
                };
                done(&record);
                games.push(record);
            }
        }
    }
    Ok(games)
}

/// A KGP round robin between the first `bots` bots that connect to `listener` and ask for
/// `freeplay` within `wait` (`arrived` is told how many have as that changes): they wait in
/// a [`Lobby`], pinged, and stay connected for all their games, played one at a time through
/// the lobby's own game code (each bot `cfg.move_time` a position, `set game:id` to the
/// game's number first). An entrant is named by its `info:name` (its lobby id added where two
/// share one, `bot ID` where it sent none); `done` gets each game with the entrants. A bot
/// that leaves loses the games it has left (both lose a game where both are at fault); bots
/// that come later are told the tournament is full; every entrant is told `goodbye` at the
/// end. Errors before the first game: fewer than two bots asked for, KGP rules with no
/// start, or fewer bots in time.
pub fn run_connected(
    cfg: &Config,
    listener: TcpListener,
    bots: usize,
    wait: Duration,
    mut arrived: impl FnMut(usize),
    mut done: impl FnMut(&GameRecord, &[Entrant]),
) -> Result<Report> {
    if bots < 2 {
        bail!("a tournament needs two entrants or more");
    }
    if cfg.games == 0 {
        bail!("a tournament needs one game a pairing or more");
    }
    Position::start(&cfg.rules).map_err(|e| anyhow::anyhow!("the KGP game: {e}"))?;
    let lobby = Arc::new(Lobby::new(
        Duration::from_secs(10),
        Duration::from_secs(900),
    ));
    let level = Level::new(1).expect("level 1 exists");
    let server = ServerConfig {
        rules: cfg.rules,
        move_time: cfg.move_time,
        greeting_time: cfg.connect_time,
        max_connections: bots + 8,
        lobby: Some(lobby.clone()),
        ..ServerConfig::new(level)
    };
    std::thread::spawn(move || kgp::serve(listener, server, |_| {}));
    let until = Instant::now() + wait;
    let mut seen = 0;
    let present = loop {
        let w = lobby.waiting();
        if w.len() != seen {
            seen = w.len();
            arrived(seen.min(bots));
        }
        if w.len() >= bots {
            break w[..bots].to_vec();
        }
        if Instant::now() >= until {
            let why = format!(
                "{} of {bots} bots connected within {} s",
                w.len(),
                wait.as_secs_f64()
            );
            // The bots that came are told why they get no game, then `goodbye`.
            lobby.close(&format!("the tournament did not start: {why}"));
            for b in lobby.waiting() {
                lobby.dismiss(b.id, &format!("the tournament did not start: {why}"));
            }
            dismiss(&lobby);
            bail!("{why}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let entrants: Vec<Entrant> = unique_names(&present)
        .into_iter()
        .zip(&present)
        .map(|(name, b)| Entrant {
            name,
            cmd: format!("KGP bot {} (connected)", b.id),
        })
        .collect();
    // Bots that come too late are told so, rather than left waiting for the end: those that
    // came since the count, and (the lobby closed first) every one that comes later.
    lobby.close("the tournament is full");
    for b in lobby.waiting() {
        if !present.iter().any(|p| p.id == b.id) {
            lobby.dismiss(b.id, "the tournament is full");
        }
    }
    let mut number = 0u32;
    let mut done = |g: &GameRecord| done(g, &entrants);
    let games = round_robin(cfg, bots, &mut done, |seats, _seed| {
        number += 1;
        Ok(lobby_game(
            &lobby,
            seats.map(|k| present[k].id),
            cfg,
            number,
        ))
    });
    dismiss(&lobby);
    let mut report = summarise(cfg, &entrants, games?);
    // Connected bots are given no seed.
    report.seed = None;
    for g in &mut report.games {
        g.seed = None;
    }
    Ok(report)
}

/// Sends every bot away, and those that come from now on, and gives their connections the
/// moment they need to say `goodbye` before the process may end.
fn dismiss(lobby: &Lobby) {
    lobby.close("the tournament is over");
    lobby.dismiss_all();
    std::thread::sleep(Duration::from_millis(200));
}

/// The bots' names in the tables: each one's `info:name` (`bot ID` where it sent none or a
/// blank one), with ` #ID` added to every name that two bots would otherwise share.
fn unique_names(bots: &[kgp::LobbyBot]) -> Vec<String> {
    let mut names: Vec<String> = bots
        .iter()
        .map(|b| match b.name.as_deref().map(str::trim) {
            Some(n) if !n.is_empty() => n.to_string(),
            _ => format!("bot {}", b.id),
        })
        .collect();
    // Each round lengthens every shared name by its bot's own id, so it ends.
    loop {
        let shared: Vec<usize> = (0..names.len())
            .filter(|&k| names.iter().filter(|n| **n == names[k]).count() > 1)
            .collect();
        if shared.is_empty() {
            return names;
        }
        for k in shared {
            names[k] = format!("{} #{}", names[k], bots[k].id);
        }
    }
}

/// One game between the lobby's bots `ids` (South first); a bot that left loses it unplayed.
fn lobby_game(lobby: &Arc<Lobby>, ids: [u64; 2], cfg: &Config, number: u32) -> Played {
    let start = Position::start(&cfg.rules).expect("checked before the first game");
    // A bot is free again just after its last game's end was told: a moment's wait.
    let mut tries = 0;
    let reservation = loop {
        match lobby.reserve(&ids) {
            Err(LobbyError::Busy(_)) if tries < 500 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(10));
            }
            r => break r,
        }
    };
    let reservation = match reservation {
        Ok(r) => r,
        Err(e) => {
            let k = match e {
                LobbyError::NoBot(id) | LobbyError::Busy(id) | LobbyError::Same(id) => {
                    usize::from(id == ids[1])
                }
            };
            if matches!(e, LobbyError::NoBot(_)) {
                // The other bot may have left in the game just ended, its connection's
                // thread a moment behind: let the lobby see it before deciding.
                std::thread::sleep(Duration::from_millis(100));
            }
            let gone = ids.map(|id| lobby.bot(id).is_none());
            let why_left = |id: u64| match lobby.why_left(id) {
                Some(why) => format!(" ({why})"),
                None => String::new(),
            };
            let why = match e {
                LobbyError::NoBot(_) if gone[1 - k] => format!(
                    "both left the tournament before this game: South{}, North{}",
                    why_left(ids[0]),
                    why_left(ids[1])
                ),
                LobbyError::NoBot(id) => {
                    format!("it left the tournament before this game{}", why_left(id))
                }
                e => e.to_string(),
            };
            let both_faulty = gone[0] && gone[1];
            return Played {
                winner: (!both_faulty).then_some(1 - k),
                scores: start.scores(),
                fault: Some((if both_faulty { 0 } else { k }, why)),
                both_faulty,
                ..Played::default()
            };
        }
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let tally = Tally {
        pos: start,
        played: Played {
            scores: start.scores(),
            ..Played::default()
        },
        tx,
    };
    reservation.start(
        ids.map(Seat::Bot),
        cfg.rules,
        cfg.move_time,
        number.to_string(),
        Box::new(tally),
    );
    // The game thread drops the tally at its end, whatever ended it.
    rx.recv().unwrap_or_default()
}

/// A lobby game's moves, times and forfeit as they come, sent as a [`Played`] when dropped.
struct Tally {
    pos: Position,
    played: Played,
    tx: std::sync::mpsc::Sender<Played>,
}

impl Recording for Tally {
    fn moved(&mut self, pit: u8, _by_bot: bool, time: Duration) {
        let k = self.pos.to_move().index();
        self.played.time[k] += time;
        self.played.moves[k] += 1;
        if self.pos.play(pit).is_ok() {
            self.played.scores = self.pos.scores();
        }
    }
    fn ended(&mut self, _result: &kgp::GameResult) {}
    fn forfeited(&mut self, side: Side, why: &str) {
        self.played.fault = Some((side.index(), why.to_string()));
    }
    fn forfeited_both(&mut self, side: Side, why: &str, other: &str) {
        self.played.fault = Some((
            side.index(),
            format!("{why}; its opponent had left: {other}"),
        ));
        self.played.both_faulty = true;
    }
}

impl Drop for Tally {
    fn drop(&mut self) {
        let p = &mut self.played;
        p.winner = match &p.fault {
            Some(_) if p.both_faulty => None,
            Some((k, _)) => Some(1 - k),
            None => self.pos.outcome().and_then(|o| o.winner()).map(Side::index),
        };
        let _ = self.tx.send(std::mem::take(p));
    }
}

fn avg_ms(t: Duration, n: u32) -> f64 {
    if n == 0 {
        0.0
    } else {
        t.as_secs_f64() * 1000.0 / f64::from(n)
    }
}

/// The standings and pairings of `games`.
fn summarise(cfg: &Config, entrants: &[Entrant], games: Vec<GameRecord>) -> Report {
    let mut standings: Vec<Standing> = entrants
        .iter()
        .enumerate()
        .map(|(k, e)| Standing {
            entrant: k,
            name: e.name.clone(),
            games: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            points: 0.0,
            margin: 0,
            moves: 0,
            avg_ms: 0.0,
            faults: 0,
        })
        .collect();
    let mut time_ms = vec![0.0f64; entrants.len()];
    let mut pairings: Vec<Pairing> = Vec::new();
    for g in &games {
        let pair = [g.seats[0].min(g.seats[1]), g.seats[0].max(g.seats[1])];
        let k = match pairings.iter().position(|p| p.entrants == pair) {
            Some(k) => k,
            None => {
                pairings.push(Pairing {
                    entrants: pair,
                    wins: [0; 2],
                    draws: 0,
                    points: [0.0; 2],
                    margin: 0,
                });
                pairings.len() - 1
            }
        };
        for s in 0..2 {
            let e = g.seats[s];
            let st = &mut standings[e];
            st.games += 1;
            match g.winner {
                Some(w) if w == e => {
                    st.wins += 1;
                    st.points += 1.0;
                }
                Some(_) => st.losses += 1,
                None if g.both_faulty => st.losses += 1,
                None => {
                    st.draws += 1;
                    st.points += 0.5;
                }
            }
            let margin = i64::from(g.scores[s]) - i64::from(g.scores[1 - s]);
            st.margin += margin;
            st.moves += u64::from(g.moves[s]);
            time_ms[e] += g.avg_ms[s] * f64::from(g.moves[s]);
            if g.faulty == Some(e) || g.both_faulty {
                st.faults += 1;
            }
            let p = &mut pairings[k];
            let side = usize::from(p.entrants[1] == e);
            if side == 0 {
                p.margin += margin;
            }
            match g.winner {
                Some(w) if w == e => {
                    p.wins[side] += 1;
                    p.points[side] += 1.0;
                }
                Some(_) => {}
                None if g.both_faulty => {}
                None => p.points[side] += 0.5,
            }
        }
        if g.winner.is_none() && !g.both_faulty {
            pairings[k].draws += 1;
        }
    }
    for st in &mut standings {
        st.avg_ms = if st.moves == 0 {
            0.0
        } else {
            time_ms[st.entrant] / st.moves as f64
        };
    }
    standings.sort_by(|a, b| {
        b.points
            .total_cmp(&a.points)
            .then(b.margin.cmp(&a.margin))
            .then(a.entrant.cmp(&b.entrant))
    });
    Report {
        protocol: cfg.protocol,
        games_a_pairing: cfg.games,
        seed: Some(cfg.seed),
        entrants: entrants.to_vec(),
        standings,
        pairings,
        games,
    }
}

/// One Manchester game: the referee's report by seat (South agent 1), its fault without the
/// referee's prefix (the agent's number and command), which the tournament names by entrant.
fn manchester_game(cmds: &[String; 2], cfg: &Config) -> Result<Played> {
    let r = manchester::referee_game([&cmds[0], &cmds[1]], [1, 2], cfg.game_time, |_| {})?;
    let winner = r.winner.map(|w| usize::from(w) - 1);
    let fault = r.fault.map(|f| {
        let k = match winner {
            Some(w) => 1 - w,
            None => 0,
        };
        let prefix = format!("agent {} (`{}`) loses: ", k + 1, shown(&cmds[k]));
        (k, f.strip_prefix(&prefix).unwrap_or(&f).to_string())
    });
    Ok(Played {
        winner,
        scores: r.scores,
        moves: r.moves,
        time: [0, 1].map(|k| Duration::from_secs_f64(r.avg_ms[k] * f64::from(r.moves[k]) / 1000.0)),
        fault,
        not_started: r.not_started,
        ..Played::default()
    })
}

/// One KGP game between two commands on `listener`; a fault loses it for the seat at fault.
fn kgp_game(listener: &TcpListener, cmds: &[String; 2], cfg: &Config) -> Played {
    let mut p = Played::default();
    let mut children: Vec<Child> = Vec::new();
    let mut conns: Vec<Conn> = Vec::new();
    if let Err(fault) = kgp_play(listener, cmds, cfg, &mut children, &mut conns, &mut p) {
        p.winner = Some(1 - fault.0);
        p.fault = Some(fault);
    }
    for (k, conn) in conns.iter_mut().enumerate() {
        let mine = p.fault.as_ref().filter(|f| f.0 == k).map(|f| f.1.as_str());
        conn.close(mine);
    }
    for child in &mut children {
        // Told goodbye, an agent has a second to exit.
        crate::external::end_child(child, Duration::from_secs(1));
    }
    p
}

/// Starts, connects and greets both seats in turn, then plays the game; an error names the
/// seat at fault.
fn kgp_play(
    listener: &TcpListener,
    cmds: &[String; 2],
    cfg: &Config,
    children: &mut Vec<Child>,
    conns: &mut Vec<Conn>,
    p: &mut Played,
) -> Result<(), (usize, String)> {
    let level = Level::new(1).ok_or((0, "no level 1".to_string()))?;
    let server = ServerConfig {
        rules: cfg.rules,
        move_time: cfg.move_time,
        greeting_time: cfg.connect_time,
        ..ServerConfig::new(level)
    };
    let mut pos = Position::start(&cfg.rules).map_err(|e| (0, e.to_string()))?;
    p.scores = pos.scores();
    for (k, cmd) in cmds.iter().enumerate() {
        // A connection already waiting is no one's of this seat's: closed unread.
        drain(listener);
        let mut child = crate::external::spawn_shell(cmd, Stdio::null())
            .map_err(|e| (k, format!("cannot start `{}`: {e}", shown(cmd))))?;
        // Its standard output is read and dropped: a full pipe would block it.
        if let Some(mut out) = child.stdout.take() {
            std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        }
        children.push(child);
        let stream = match accept(listener, &mut children[k], cfg.connect_time) {
            Ok(stream) => stream,
            Err((why, status)) => {
                let not_run = status.and_then(|s| crate::external::cannot_start(cmd, s));
                p.not_started |= not_run.is_some();
                return Err((k, not_run.unwrap_or(why)));
            }
        };
        let mut conn = Conn::new(
            kgp::tcp_link(stream).map_err(|e| (k, format!("the connection failed: {e}")))?,
        );
        let mode = kgp::greet(&mut conn, cfg.connect_time, &mut SessionReport::default());
        conns.push(conn);
        match mode.map_err(|e| (k, e))? {
            Mode::Freeplay => {}
            m => return Err((k, format!("it asked for `{}`, not freeplay", m.name()))),
        }
    }
    while !pos.is_over() {
        let k = pos.to_move().index();
        conns[1 - k].nothing_asked().map_err(|e| (1 - k, e))?;
        let start = Instant::now();
        let pit = kgp::bot_move(&mut conns[k], &server, &pos).map_err(|e| (k, e))?;
        p.time[k] += start.elapsed();
        p.moves[k] += 1;
        pos.play(pit)
            .map_err(|e| (k, format!("move {}: {e}", pit + 1)))?;
        p.scores = pos.scores();
    }
    p.winner = pos
        .outcome()
        .and_then(|o| o.winner())
        .map(|side| side.index());
    Ok(())
}

/// Closes every connection waiting on `listener`.
fn drain(listener: &TcpListener) {
    if listener.set_nonblocking(true).is_ok() {
        while let Ok((stream, _)) = listener.accept() {
            drop(stream);
        }
    }
}

/// The connection of the command just started as `child`, within `within`; its exit first
/// (its status given), or no connection in time, is its fault.
fn accept(
    listener: &TcpListener,
    child: &mut Child,
    within: Duration,
) -> Result<TcpStream, (String, Option<std::process::ExitStatus>)> {
    let fail = |e: std::io::Error| (format!("its connection failed: {e}"), None);
    listener.set_nonblocking(true).map_err(fail)?;
    let until = Instant::now() + within;
    let mut exited = None;
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                stream.set_nonblocking(false).map_err(fail)?;
                return Ok(stream);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(fail(e)),
        }
        // One more look for a connection made just before it exited.
        if let Some(status) = exited {
            return Err((
                format!("it exited ({status}) without connecting"),
                Some(status),
            ));
        }
        exited = child.try_wait().ok().flatten();
        if exited.is_none() && Instant::now() >= until {
            return Err((
                format!("it did not connect within {} s", within.as_secs_f64()),
                None,
            ));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bot(id: u64, name: Option<&str>) -> kgp::LobbyBot {
        kgp::LobbyBot {
            id,
            name: name.map(String::from),
            authors: None,
            since: 0,
            rules: String::new(),
        }
    }

    #[test]
    fn connected_bots_get_names_of_their_own() {
        let bots = [
            bot(1, Some("x")),
            bot(2, None),
            bot(3, Some("  ")),
            bot(4, Some("bot 2")),
            bot(5, Some("x")),
            bot(6, Some("y")),
        ];
        assert_eq!(
            unique_names(&bots),
            ["x #1", "bot 2 #2", "bot 3", "bot 2 #4", "x #5", "y"]
        );
        // A name that a suffix would make shared again gets suffixed once more.
        let bots = [bot(1, Some("a")), bot(2, Some("a")), bot(3, Some("a #1"))];
        assert_eq!(unique_names(&bots), ["a #1 #1", "a #2", "a #1 #3"]);
    }

    /// A bot that asks for freeplay and reads every line the server sends it, until the
    /// connection ends: the lines, `goodbye` last where the server said it.
    fn listening_bot(addr: std::net::SocketAddr) -> Vec<String> {
        use std::io::{BufRead, BufReader, Write};
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        s.write_all(b"mode freeplay\r\n").unwrap();
        let lines: Vec<String> = BufReader::new(s).lines().map_while(Result::ok).collect();
        assert!(lines[0].starts_with("kgp 1"), "{lines:?}");
        assert_eq!(
            lines.last().map(String::as_str),
            Some("goodbye"),
            "{lines:?}"
        );
        lines
    }

    /// Two of our clients play a tournament of connected bots; a bot that comes once it is
    /// over is told so and `goodbye`, not left waiting for games that will never come.
    #[test]
    fn a_bot_that_comes_after_the_end_is_told_so() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let bots: Vec<_> = (0..2)
            .map(|k| {
                std::thread::spawn(move || {
                    let stream = std::net::TcpStream::connect(addr).unwrap();
                    let link = kgp::Link::tcp(stream).unwrap();
                    let mut computer = mancala_play::Computer::new(Level::new(1).unwrap(), k);
                    let cfg = kgp::ClientConfig {
                        mode: kgp::Mode::Freeplay,
                        name: format!("c{k}"),
                        authors: None,
                        token: None,
                        per_move: None,
                    };
                    let sink = Box::new(std::io::sink());
                    kgp::run_client(link.reader, link.writer, &mut computer, &cfg, sink)
                })
            })
            .collect();
        let mut cfg = Config::new(Protocol::Kgp);
        cfg.rules = kgp::rules_for(3, 18).unwrap();
        cfg.games = 1;
        let wait = Duration::from_secs(30);
        let r = run_connected(&cfg, listener, 2, wait, |_| {}, |_, _| {}).unwrap();
        assert_eq!(r.games.len(), 1);
        for b in bots {
            b.join().unwrap().unwrap();
        }
        let lines = listening_bot(addr);
        let over = "error \"the tournament is over\"";
        assert!(lines.iter().any(|l| l == over), "{lines:?}");
    }

    /// A bot that came to a tournament that never started is told why before `goodbye`.
    #[test]
    fn a_bot_of_a_tournament_that_did_not_start_is_told_why() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let bot = std::thread::spawn(move || listening_bot(addr));
        let cfg = Config::new(Protocol::Kgp);
        let wait = Duration::from_secs(1);
        let e = run_connected(&cfg, listener, 2, wait, |_| {}, |_, _| {}).unwrap_err();
        assert_eq!(e.to_string(), "1 of 2 bots connected within 1 s");
        let lines = bot.join().unwrap();
        let told = "error \"the tournament did not start: 1 of 2 bots connected within 1 s\"";
        assert!(lines.iter().any(|l| l == told), "{lines:?}");
    }

    #[test]
    fn entrants_read_name_then_command() {
        let e = Entrant::parse("L2 = mancala agent kgp --server {addr} --x=1").unwrap();
        assert_eq!(e.name, "L2");
        assert_eq!(e.cmd, " mancala agent kgp --server {addr} --x=1");
        for bad in ["no-equals", "=cmd", "name=", " = "] {
            let err = Entrant::parse(bad).unwrap_err().to_string();
            assert!(err.ends_with("is not NAME=CMD"), "{bad}: {err}");
        }
        let cfg = Config::new(Protocol::Manchester);
        let a = Entrant::parse("a=true").unwrap();
        let e = run(&cfg, std::slice::from_ref(&a), |_| {}).unwrap_err();
        assert_eq!(e.to_string(), "a tournament needs two entrants or more");
        let e = run(&cfg, &[a.clone(), a], |_| {}).unwrap_err();
        assert_eq!(e.to_string(), "the name `a` is given twice");
    }
}
