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

mod standings;

use standings::{avg_ms, summarise};

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
        let pit = kgp::bot_move(&mut conns[k], server.move_time, &pos).map_err(|e| (k, e))?;
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
mod tests;
