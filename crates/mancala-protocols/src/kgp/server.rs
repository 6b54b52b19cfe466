//! The KGP server: plays connected bots at a level, sends them positions to value or moves
//! to play out, and ends a connection at the bot's first protocol fault, saying why.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::Result;
use mancala_core::{Position, Rules, Side};
use mancala_engine::Level;

use super::{board_for, rules_for, sow, Arg, LineRead, LineWrite, Link, Message, Mode, VERSION};
use crate::shown;
use mancala_play::Rng;

/// Time a write to a bot may block before the connection counts as failed.
const WRITE_TIME: Duration = Duration::from_secs(10);

/// What a server plays against its connected bots.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// The game: Kalah with the protocol's end rule ([`rules_for`]).
    pub rules: Rules,
    /// Our level.
    pub level: Level,
    /// Games a `freeplay` connection plays, the bot South in the odd ones and North in the
    /// even ones.
    pub games: u32,
    /// Positions an `eval` or `verify` connection is sent.
    pub positions: u32,
    /// Time a bot has for a position before `stop`; a bot that has sent no move by then
    /// loses (KGP lets a server move for it at random: this one counts it a fault).
    pub move_time: Duration,
    /// Time a bot has to send `mode` after the greeting.
    pub greeting_time: Duration,
    /// Connections served at once; more are told the server is busy.
    pub max_connections: usize,
    /// Seed of the positions in `eval` and `verify` and of our level's choices.
    pub seed: u64,
    /// Where freeplay games go, move by move, as they are played (`None`: nowhere).
    pub recorder: Option<std::sync::Arc<dyn Recorder>>,
    /// Where freeplay bots wait to be challenged instead of playing `level` at once
    /// (`None`: no lobby). Eval and verify connections are served as without one.
    pub lobby: Option<std::sync::Arc<super::Lobby>>,
}

/// Takes the freeplay games of a server as they are played, to store or show them.
pub trait Recorder: Send + Sync + std::fmt::Debug {
    /// A game starts; `None` where it is not recorded (the game is played all the same).
    fn start(&self, game: &GameStart<'_>) -> Option<Box<dyn Recording>>;
}

/// One recorded game: its moves as they are played, then its end.
pub trait Recording: Send {
    /// `pit` (0-based, the mover's own) was played, by a bot or by our level, after
    /// `time`; called before the game goes on (a person's moves in a lobby's game are
    /// stored by whoever took them, and not told here).
    fn moved(&mut self, pit: u8, by_bot: bool, time: Duration);
    /// The game is over: by the rules, or by the bot's fault (`result.fault`).
    fn ended(&mut self, result: &GameResult);
    /// The game is over by `side`'s forfeit, for the reason `why`: a bot's fault, a
    /// person's time (a lobby's games, which have no [`GameResult`]; a person's own
    /// resignation is stored by whoever took it).
    fn forfeited(&mut self, side: Side, why: &str);
    /// The game is over by a fault of the bot on move, `side` (`why`), its opponent's bot
    /// having left the game too (`other`): both are at fault. By default `side`'s forfeit.
    fn forfeited_both(&mut self, side: Side, why: &str, other: &str) {
        let _ = other;
        self.forfeited(side, why);
    }
}

/// What a recorder is told of a game as it starts.
#[derive(Clone, Copy, Debug)]
pub struct GameStart<'a> {
    /// The game's rules (the start is theirs).
    pub rules: &'a Rules,
    /// The bot's seat.
    pub bot_seat: Side,
    /// The bot's `info:name`, where it gave one.
    pub name: Option<&'a str>,
    /// The game's number in its connection, from 1.
    pub number: u32,
}

impl ServerConfig {
    /// Kalah(6,6) against `level`, 2 games or 5 positions a connection, 5 s a move.
    pub fn new(level: Level) -> ServerConfig {
        ServerConfig {
            rules: rules_for(6, 72).expect("Kalah(6,6) fits the core"),
            level,
            games: 2,
            positions: 5,
            move_time: Duration::from_secs(5),
            greeting_time: Duration::from_secs(10),
            max_connections: 16,
            seed: 1,
            recorder: None,
            lobby: None,
        }
    }
}

/// One freeplay game of a connection.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GameResult {
    /// The bot's seat (the boards it was sent were mirrored when North).
    pub bot_seat: Side,
    /// Final stores, South first (at a fault: as they stood).
    pub scores: [u16; 2],
    /// The winner; `None` for a draw or an unfinished game.
    pub winner: Option<Side>,
    /// Moves the bot played.
    pub bot_moves: u32,
    /// The bot's average time a move in milliseconds, from `state` to its `yield` (or our
    /// `stop`).
    pub bot_avg_ms: f64,
    /// Our level's average time a move in milliseconds.
    pub server_avg_ms: f64,
    /// Why the game ended early: the bot's fault.
    pub fault: Option<String>,
}

/// What happened in one connection.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct SessionReport {
    /// The bot's address.
    pub peer: String,
    /// The activity it asked for.
    pub mode: Option<String>,
    /// Its `info:name`.
    pub name: Option<String>,
    /// Freeplay games, in order.
    pub games: Vec<GameResult>,
    /// The last `eval` of each position (eval mode), the bot's value for the side to move.
    pub evals: Vec<f64>,
    /// Verify mode: solutions right, solutions wrong.
    pub verified: [u32; 2],
    /// The fault that ended the connection, where one did.
    pub fault: Option<String>,
}

/// One bot connection on the server's side: its writer, its lines (read on a thread of
/// their own, at most [`MAX_LINE`] bytes each) and the ids used.
pub(crate) struct Conn {
    out: Box<dyn LineWrite>,
    lines: mpsc::Receiver<Result<String, String>>,
    next_id: u64,
    /// States and problems whose answers are over (late answers are ignored).
    stopped: std::collections::HashSet<u64>,
    /// The bot's `info:name` and `info:authors`, where it sent them.
    pub(crate) name: Option<String>,
    pub(crate) authors: Option<String>,
}

/// A received message or why none came; `Err` is the bot's fault.
enum Got {
    Msg(Message),
    Timeout,
}

impl Conn {
    pub(crate) fn new(link: Link) -> Conn {
        let Link {
            reader: mut input,
            writer: out,
            ..
        } = link;
        // Bounded: a bot that floods lines waits on its socket instead of filling memory.
        let (tx, lines) = mpsc::sync_channel(64);
        std::thread::spawn(move || loop {
            match input.read_line() {
                Ok(Some(l)) => {
                    if tx.send(Ok(l)).is_err() {
                        return;
                    }
                }
                Ok(None) => return,
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            }
        });
        Conn {
            out,
            lines,
            next_id: 1,
            stopped: Default::default(),
            name: None,
            authors: None,
        }
    }

    pub(crate) fn send(&mut self, m: &Message) -> Result<(), String> {
        self.out.write_line(&m.to_string()).map_err(|e| {
            // A transport that knows the bot closed (a WebSocket's close frame) says so.
            if e.kind() == std::io::ErrorKind::NotConnected {
                "the bot closed the connection".to_string()
            } else {
                format!("the connection failed while writing to it ({e})")
            }
        })
    }

    /// Sends `m` with a fresh id; returns the id.
    pub(crate) fn send_new(&mut self, m: Message) -> Result<u64, String> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&m.with_id(id))?;
        Ok(id)
    }

    /// The next message that needs the caller, by `until`. `set`, `pong`, `ok` and `error` are
    /// taken here and blank lines skipped; garbage, a closed connection and `goodbye` are
    /// faults.
    fn next(&mut self, until: Option<Instant>) -> Result<Got, String> {
        loop {
            let got = match until {
                Some(u) => match self
                    .lines
                    .recv_timeout(u.saturating_duration_since(Instant::now()))
                {
                    Ok(l) => l,
                    Err(mpsc::RecvTimeoutError::Timeout) => return Ok(Got::Timeout),
                    Err(mpsc::RecvTimeoutError::Disconnected) => {
                        return Err("the bot closed the connection".into())
                    }
                },
                None => match self.lines.try_recv() {
                    Ok(l) => l,
                    Err(mpsc::TryRecvError::Empty) => return Ok(Got::Timeout),
                    Err(mpsc::TryRecvError::Disconnected) => {
                        return Err("the bot closed the connection".into())
                    }
                },
            };
            let line = got?;
            if line.trim().is_empty() {
                continue;
            }
            let m = Message::parse(&line)
                .map_err(|e| format!("a malformed message `{}`: {e}", shown(&line)))?;
            match m.name.as_str() {
                "set" => match m.text(0) {
                    // A blank name or author is none.
                    Some("info:name") => {
                        self.name = m.text(1).filter(|t| !t.trim().is_empty()).map(shown)
                    }
                    Some("info:authors") => {
                        self.authors = m.text(1).filter(|t| !t.trim().is_empty()).map(shown)
                    }
                    _ => {}
                },
                // Either side may ping: answered at once, whatever else is going on.
                "ping" => {
                    let mut pong = Message::new("pong", vec![]);
                    pong.reference = m.id;
                    self.send(&pong)?;
                }
                "pong" | "ok" | "error" => {}
                "goodbye" => return Err("the bot said goodbye".into()),
                _ => return Ok(Got::Msg(m)),
            }
        }
    }

    /// Refuses what the bot sent while nothing was asked of it: an answer to a request that
    /// is over is ignored (KGP allows it to cross a `stop`), anything else is a fault.
    pub(crate) fn nothing_asked(&mut self) -> Result<(), String> {
        while let Got::Msg(m) = self.next(None)? {
            if m.reference.is_some_and(|r| self.stopped.contains(&r)) {
                continue;
            }
            return Err(format!(
                "`{}` out of turn: no position was asked about",
                shown(&m.to_string())
            ));
        }
        Ok(())
    }

    /// Checks that an answer refers to request `id` (or to none, or to one that is over:
    /// `Ok(false)`, ignored).
    fn answers(&self, m: &Message, id: u64) -> Result<bool, String> {
        match m.reference {
            None => Ok(true),
            Some(r) if r == id => Ok(true),
            Some(r) if self.stopped.contains(&r) => Ok(false),
            Some(r) => Err(format!(
                "`{}` refers to @{r}, which names no request of this server's that is open",
                shown(&m.to_string())
            )),
        }
    }

    /// Ends the request `id` with `stop`.
    fn stop(&mut self, id: u64) -> Result<(), String> {
        self.stopped.insert(id);
        let stop = Message::new("stop", vec![]).answering(id);
        self.send_new(stop).map(|_| ())
    }

    /// Ends the connection: `error` with the bot's fault where there is one, `goodbye`.
    pub(crate) fn close(&mut self, fault: Option<&str>) {
        if let Some(why) = fault {
            let _ = self.send(&Message::new("error", vec![Arg::Text(why.to_string())]));
        }
        let _ = self.send(&Message::new("goodbye", vec![]));
        self.out.close();
    }
}

/// Serves one connection to its end: the greeting, the bot's `mode`, then its games or
/// positions, and `goodbye`. A protocol fault of the bot ends the connection with an
/// `error` naming it, and is the report's `fault`.
pub fn serve_connection(stream: TcpStream, cfg: &ServerConfig) -> SessionReport {
    let peer = stream
        .peer_addr()
        .map_or_else(|_| "?".into(), |a| a.to_string());
    match tcp_link(stream) {
        Ok(link) => serve_link(link, cfg),
        Err(e) => SessionReport {
            peer,
            fault: Some(format!("the connection failed: {e}")),
            ..SessionReport::default()
        },
    }
}

/// A bot's TCP connection as a link, with the server's write timeout: a bot that stops
/// reading cannot block the server.
pub(crate) fn tcp_link(stream: TcpStream) -> std::io::Result<Link> {
    stream.set_write_timeout(Some(WRITE_TIME))?;
    Link::tcp(stream)
}

/// [`serve_connection`] over any transport's lines.
pub fn serve_link(link: Link, cfg: &ServerConfig) -> SessionReport {
    let mut report = SessionReport {
        peer: link.peer.clone(),
        ..SessionReport::default()
    };
    let mut conn = Conn::new(link);
    let result = session(&mut conn, cfg, &mut report);
    report.name = conn.name.clone();
    conn.close(result.as_ref().err().map(String::as_str));
    report.fault = result.err();
    report
}

/// Greets a bot (`kgp 1 0 1`) and reads the activity it asks for within `greeting_time`
/// (its word kept in `report`); anything else first is a fault.
pub(crate) fn greet(
    conn: &mut Conn,
    greeting_time: Duration,
    report: &mut SessionReport,
) -> Result<Mode, String> {
    let v = VERSION.map(|x| Arg::Int(i64::from(x))).to_vec();
    conn.send(&Message::new("kgp", v))?;
    let until = Instant::now() + greeting_time;
    let mode = {
        match conn.next(Some(until))? {
            Got::Timeout => {
                return Err(format!(
                    "no `mode` within {} s of the greeting",
                    greeting_time.as_secs_f64()
                ))
            }
            Got::Msg(m) if m.name == "mode" => {
                let word = m.text(0).unwrap_or("");
                report.mode = Some(shown(word));
                match Mode::parse(word) {
                    Some(mode) => mode,
                    None => {
                        return Err(format!(
                            "unsupported activity `{}` (freeplay, eval or verify)",
                            shown(word)
                        ))
                    }
                }
            }
            Got::Msg(m) => return Err(format!("`{}` before `mode`", shown(&m.to_string()))),
        }
    };
    Ok(mode)
}

fn session(conn: &mut Conn, cfg: &ServerConfig, report: &mut SessionReport) -> Result<(), String> {
    let mode = greet(conn, cfg.greeting_time, report)?;
    let mut rng = Rng::lcg(cfg.seed);
    match mode {
        Mode::Freeplay => {
            // In a lobby the games are made for the bot, and recorded there, not reported.
            if let Some(lobby) = &cfg.lobby {
                return super::lobby::wait(conn, cfg, lobby);
            }
            for g in 0..cfg.games {
                let seat = if g % 2 == 0 { Side::South } else { Side::North };
                let game_id = Message::new(
                    "set",
                    vec![Arg::Text("game:id".into()), Arg::Text(format!("{}", g + 1))],
                );
                conn.send(&game_id)?;
                let r = freeplay_game(conn, cfg, seat, g + 1, &mut rng);
                let fault = r.fault.clone();
                report.games.push(r);
                if let Some(f) = fault {
                    return Err(f);
                }
            }
        }
        Mode::Eval => {
            for _ in 0..cfg.positions {
                let pos = random_position(&cfg.rules, &mut rng);
                let seat = pos.to_move();
                let id = conn.send_new(Message::new(
                    "state",
                    vec![Arg::Board(board_for(&pos, seat))],
                ))?;
                let until = Instant::now() + cfg.move_time;
                let mut last = None;
                while let Got::Msg(m) = conn.next(Some(until))? {
                    if !conn.answers(&m, id)? {
                        continue;
                    }
                    match (m.name.as_str(), m.real(0)) {
                        ("eval", Some(v)) => last = Some(v),
                        ("eval", None) => {
                            return Err(format!("`{}`: an eval is a real", shown(&m.to_string())))
                        }
                        _ => {
                            return Err(format!("`{}` where an eval is due", shown(&m.to_string())))
                        }
                    }
                }
                conn.stop(id)?;
                report.evals.push(
                    last.ok_or_else(|| format!("no eval within {} ms", cfg.move_time.as_millis()))?,
                );
            }
        }
        Mode::Verify => {
            for _ in 0..cfg.positions {
                let pos = random_position(&cfg.rules, &mut rng);
                let board = board_for(&pos, pos.to_move());
                let legal = pos.legal_moves();
                let k =
                    i64::from(legal.as_slice()[(rng.next_u64() % legal.len() as u64) as usize]) + 1;
                let expected = sow(&board, k)?;
                let id = conn.send_new(Message::new(
                    "problem",
                    vec![Arg::Board(board), Arg::Int(k)],
                ))?;
                let until = Instant::now() + cfg.move_time;
                let m = loop {
                    match conn.next(Some(until))? {
                        Got::Timeout => {
                            return Err(format!(
                                "no solution within {} ms",
                                cfg.move_time.as_millis()
                            ))
                        }
                        Got::Msg(m) => {
                            if conn.answers(&m, id)? {
                                break m;
                            }
                        }
                    }
                };
                conn.stopped.insert(id);
                let (true, Some(b), Some(again)) = (m.name == "solution", m.board(0), m.int(1))
                else {
                    return Err(format!(
                        "`{}` where a solution (a board and 0 or 1) is due",
                        shown(&m.to_string())
                    ));
                };
                if b == expected.0.as_slice() && (again != 0) == expected.1 {
                    report.verified[0] += 1;
                } else {
                    report.verified[1] += 1;
                    let mut e = Message::new(
                        "error",
                        vec![Arg::Text(format!(
                            "wrong: move {k} gives {}, last seed {}in the store",
                            Arg::Board(expected.0.clone()),
                            if expected.1 { "" } else { "not " }
                        ))],
                    );
                    e.reference = m.id.or(Some(id));
                    conn.send(&e)?;
                }
            }
        }
    }
    Ok(())
}

/// A position of `rules` some random moves into a game, still going.
fn random_position(rules: &Rules, rng: &mut Rng) -> Position {
    loop {
        let Ok(mut pos) = Position::start(rules) else {
            unreachable!("the server's rules have a start")
        };
        let plies = rng.next_u64() % 24;
        for _ in 0..plies {
            let legal = pos.legal_moves();
            let mv = legal.as_slice()[(rng.next_u64() % legal.len() as u64) as usize];
            let mut next = pos;
            if next.play(mv).is_err() || next.is_over() {
                break;
            }
            pos = next;
        }
        if !pos.is_over() {
            return pos;
        }
    }
}

/// One freeplay game: the bot on `seat`, our level on the other.
fn freeplay_game(
    conn: &mut Conn,
    cfg: &ServerConfig,
    seat: Side,
    number: u32,
    rng: &mut Rng,
) -> GameResult {
    let mut pos = Position::start(&cfg.rules).expect("the server's rules have a start");
    let mut recording = cfg.recorder.as_ref().and_then(|r| {
        r.start(&GameStart {
            rules: &cfg.rules,
            bot_seat: seat,
            name: conn.name.as_deref(),
            number,
        })
    });
    let mut moves = [0u32; 2];
    let mut time = [Duration::ZERO; 2];
    let fault = loop {
        if pos.is_over() {
            break None;
        }
        let start = Instant::now();
        let bots = pos.to_move() == seat;
        let turn = if bots {
            bot_move(conn, cfg, &pos)
        } else {
            conn.nothing_asked().and_then(|()| {
                cfg.level
                    .choose(&pos, &[], rng.next_u64())
                    .ok_or_else(|| "our level found no move".to_string())
            })
        };
        if turn.is_ok() {
            let k = usize::from(!bots);
            moves[k] += 1;
            time[k] += start.elapsed();
        }
        match turn {
            Ok(pit) => {
                if let Err(e) = pos.play(pit) {
                    break Some(format!("move {}: {e}", pit + 1));
                }
                if let Some(r) = &mut recording {
                    r.moved(pit, bots, start.elapsed());
                }
            }
            Err(e) => break Some(e),
        }
    };
    let result = GameResult {
        bot_seat: seat,
        scores: pos.scores(),
        winner: if fault.is_some() {
            Some(seat.other())
        } else {
            pos.outcome().and_then(|o| o.winner())
        },
        bot_moves: moves[0],
        bot_avg_ms: avg_ms(time[0], moves[0]),
        server_avg_ms: avg_ms(time[1], moves[1]),
        fault,
    };
    if let Some(r) = &mut recording {
        r.ended(&result);
    }
    result
}

fn avg_ms(t: Duration, n: u32) -> f64 {
    t.as_secs_f64() * 1000.0 / f64::from(n.max(1))
}

/// The bot's move (0-based) in `pos`: its last `move` for the `state` by the deadline or its
/// `yield`.
pub(crate) fn bot_move(conn: &mut Conn, cfg: &ServerConfig, pos: &Position) -> Result<u8, String> {
    conn.nothing_asked()?;
    let board = board_for(pos, pos.to_move());
    let id = conn.send_new(Message::new("state", vec![Arg::Board(board)]))?;
    let until = Instant::now() + cfg.move_time;
    let n = pos.pits() as i64;
    let mut chosen = None;
    while let Got::Msg(m) = conn.next(Some(until))? {
        if !conn.answers(&m, id)? {
            continue;
        }
        match m.name.as_str() {
            "yield" if chosen.is_none() => return Err("yield before any move".into()),
            "yield" => break,
            "move" => {
                let k = m.int(0).ok_or_else(|| {
                    format!("`{}`: a move is a pit number", shown(&m.to_string()))
                })?;
                if !(1..=n).contains(&k) {
                    return Err(format!("move {k}: a pit is 1 to {n}"));
                }
                let pit = (k - 1) as u8;
                if !pos.legal_moves().contains(pit) {
                    return Err(format!("illegal move {k}: its pit is empty"));
                }
                chosen = Some(pit);
            }
            _ => return Err(format!("`{}` where a move is due", shown(&m.to_string()))),
        }
    }
    conn.stop(id)?;
    chosen.ok_or_else(|| format!("no move within {} ms", cfg.move_time.as_millis()))
}

/// How the connections to a listener speak KGP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// CRLF-ended lines over TCP.
    Tcp,
    /// A text message a line over WebSocket (`ws://`, any path).
    #[cfg(feature = "ws")]
    WebSocket,
}

/// Accepts bots on `listener` for ever, each connection on a thread of its own, and hands
/// each finished connection's report to `done`. Connections beyond
/// [`ServerConfig::max_connections`] are told the server is busy and closed.
pub fn serve(
    listener: TcpListener,
    cfg: ServerConfig,
    done: impl Fn(SessionReport) + Send + Sync + 'static,
) {
    serve_all(vec![(listener, Transport::Tcp)], cfg, done)
}

/// [`serve`] on several listeners at once (each accepting on a thread of its own, the last
/// on the caller's), each with its transport; [`ServerConfig::max_connections`] counts them
/// all.
pub fn serve_all(
    listeners: Vec<(TcpListener, Transport)>,
    cfg: ServerConfig,
    done: impl Fn(SessionReport) + Send + Sync + 'static,
) {
    use std::sync::atomic::AtomicUsize;
    use std::sync::Arc;
    let cfg = Arc::new(cfg);
    let done: Arc<dyn Fn(SessionReport) + Send + Sync> = Arc::new(done);
    let open = Arc::new(AtomicUsize::new(0));
    let mut listeners = listeners;
    let Some(last) = listeners.pop() else {
        return;
    };
    for (listener, transport) in listeners {
        let (cfg, done, open) = (cfg.clone(), done.clone(), open.clone());
        std::thread::spawn(move || accept_loop(listener, transport, &cfg, &done, &open));
    }
    accept_loop(last.0, last.1, &cfg, &done, &open);
}

fn accept_loop(
    listener: TcpListener,
    transport: Transport,
    cfg: &std::sync::Arc<ServerConfig>,
    done: &std::sync::Arc<dyn Fn(SessionReport) + Send + Sync>,
    open: &std::sync::Arc<std::sync::atomic::AtomicUsize>,
) {
    use std::sync::atomic::Ordering;
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else {
            continue;
        };
        if open.fetch_add(1, Ordering::SeqCst) >= cfg.max_connections {
            open.fetch_sub(1, Ordering::SeqCst);
            match transport {
                Transport::Tcp => {
                    let _ = write!(stream, "error \"the server is busy\"\r\ngoodbye\r\n");
                }
                // The handshake first, on a thread: a slow peer must not hold up accepting.
                #[cfg(feature = "ws")]
                Transport::WebSocket => {
                    let time = cfg.greeting_time;
                    std::thread::spawn(move || {
                        if let Ok(mut link) = super::ws::accept(stream, time) {
                            let _ = link.writer.write_line("error \"the server is busy\"");
                            let _ = link.writer.write_line("goodbye");
                            link.writer.close();
                        }
                    });
                }
            }
            continue;
        }
        let (cfg, done, open) = (cfg.clone(), done.clone(), open.clone());
        std::thread::spawn(move || {
            let r = match transport {
                Transport::Tcp => serve_connection(stream, &cfg),
                #[cfg(feature = "ws")]
                Transport::WebSocket => {
                    let peer = stream
                        .peer_addr()
                        .map_or_else(|_| "?".into(), |a| a.to_string());
                    match super::ws::accept(stream, cfg.greeting_time.min(WRITE_TIME)) {
                        Ok(link) => serve_link(link, &cfg),
                        Err(fault) => SessionReport {
                            peer,
                            fault: Some(fault),
                            ..SessionReport::default()
                        },
                    }
                }
            };
            open.fetch_sub(1, Ordering::SeqCst);
            done(r);
        });
    }
}
