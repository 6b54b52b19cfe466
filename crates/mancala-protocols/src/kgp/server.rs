//! The KGP server: plays connected bots at a level, sends them positions to value or moves
//! to play out, and ends a connection at the bot's first protocol fault, saying why.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use anyhow::Result;
use mancala_core::{Position, Rules, Side};
use mancala_engine::Level;

use super::conn::{bot_move, tcp_link, Conn, Got};
use super::recording::{GameResult, GameStart, Recorder};
use super::{board_for, rules_for, sow, Arg, Link, Message, Mode, VERSION};
use crate::shown;
use mancala_play::Rng;

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
                return super::lobby::wait(conn, &cfg.rules, cfg.move_time, lobby);
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
            bot_move(conn, cfg.move_time, &pos)
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
                    match super::ws::accept(stream, cfg.greeting_time.min(super::conn::WRITE_TIME))
                    {
                        Ok(link) => serve_link(link, &cfg),
                        Err(fault) => SessionReport {
                            peer,
                            fault: Some(fault.to_string()),
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
