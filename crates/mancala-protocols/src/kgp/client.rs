//! The KGP client: answers a server's positions with improving moves, values or solutions.

use std::io::Write;
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use mancala_core::{Position, Side};
use mancala_engine::{Limits, SearchResult};

use super::{position_of, sow, Arg, LineRead, LineWrite, Message, Mode, VERSION};
use mancala_play::{Computer, Rng};

/// How a client introduces itself and what it asks for.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// The activity.
    pub mode: Mode,
    /// `set info:name`.
    pub name: String,
    /// `set info:authors`, where given.
    pub authors: Option<String>,
    /// `set auth:token`, where given.
    pub token: Option<String>,
    /// Time for one position instead of the level's (the server's `stop` ends it sooner).
    pub per_move: Option<Duration>,
}

/// What a client did in one connection.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientReport {
    /// Positions (`state`) it was sent.
    pub states: u32,
    /// `move` messages it sent.
    pub moves: u32,
    /// `eval` messages it sent.
    pub evals: u32,
    /// `solution` messages it sent.
    pub solutions: u32,
    /// `error` messages the server sent (their text).
    pub errors: Vec<String>,
    /// Whether the server ended with `goodbye` (else the connection closed).
    pub goodbye: bool,
    /// The freeplay games played, in order: a game begins with `set game:id` (or with the
    /// first `state` where the server sends none).
    pub games: Vec<GameSeen>,
}

/// What the client saw of one freeplay game. KGP sends no final board: where the client's
/// own move ended the game its result is known; where the server's move did, the client
/// knows the ends that move could reach ([`GameSeen::possible_ends`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSeen {
    /// The server's `game:id`, where it sent one.
    pub id: Option<String>,
    /// The client's seat in the server's game: South where its first position was the
    /// start (it moved first), else North.
    pub seat: Option<Side>,
    /// The last position sent (the client's side South, to move), and the move last sent
    /// for it (1-based), if any.
    pub last: Option<(Position, Option<u8>)>,
}

impl GameSeen {
    /// The position after the client's last move (its side South), where one was sent.
    pub fn after_last_move(&self) -> Option<Position> {
        let (pos, Some(pit)) = self.last? else {
            return None;
        };
        let mut after = pos;
        after.play(pit.checked_sub(1)?).ok()?;
        Some(after)
    }

    /// The final stores the game can have had, the client's first, each once: the one
    /// where the client's last move ended it, else those of every turn of the server from
    /// there that ends it (a turn that gave the move back would have sent a position).
    /// Empty where the client sent no move in its last position.
    pub fn possible_ends(&self) -> Vec<[u16; 2]> {
        fn ends(p: &Position, out: &mut Vec<[u16; 2]>) {
            if p.is_over() {
                if !out.contains(&p.scores()) {
                    out.push(p.scores());
                }
                return;
            }
            if p.to_move() == Side::South {
                return;
            }
            for pit in &p.legal_moves() {
                let mut q = *p;
                if q.play(pit).is_ok() {
                    ends(&q, out);
                }
            }
        }
        let mut out = Vec::new();
        if let Some(p) = self.after_last_move() {
            ends(&p, &mut out);
        }
        out.sort_unstable();
        out
    }
}

/// The client's side of the `stop` race: which position is being searched and which the
/// server has stopped, under one lock with the engine's abort flag.
#[derive(Default)]
struct Control {
    current: Option<u64>,
    stopped: std::collections::HashSet<u64>,
}

type Shared<W> = std::sync::Arc<std::sync::Mutex<W>>;

fn send<W: LineWrite>(
    out: &Shared<W>,
    m: &Message,
    log: &Shared<Box<dyn Write + Send>>,
) -> Result<()> {
    let line = m.to_string();
    if let Ok(mut l) = log.lock() {
        let _ = writeln!(l, "-> {line}");
    }
    let mut w = out
        .lock()
        .map_err(|_| anyhow::anyhow!("the connection's writer failed"))?;
    w.write_line(&line).context("writing to the server")
}

/// Plays as a KGP client: reads the server's messages from `input`, answers on `output`, with
/// `computer`'s level and engine, and writes every message to `log`. A thread reads the
/// server while the engine thinks, so `ping` is answered and `stop` ends a search at once.
/// Each `state` is searched by iterative deepening and every completed iteration whose best
/// move differs from the last one sent is sent as `move` (levels that err on purpose, random
/// and greedy send one); the search's end sends `yield`. In `eval` mode each iteration sends
/// `eval` with the value for South (the side to move): the final seed margin with the best
/// play the search sees, higher is better, and a `set info:comment` says whether it is
/// proven or to which depth it was searched. `verify` problems are answered by the core's
/// sowing ([`sow`]). Returns at `goodbye` or when the connection closes.
pub fn run_client(
    input: impl LineRead + 'static,
    output: impl LineWrite + 'static,
    computer: &mut Computer,
    cfg: &ClientConfig,
    log: Box<dyn Write + Send>,
) -> Result<ClientReport> {
    use std::sync::atomic::Ordering;
    use std::sync::{Arc, Mutex};
    let out: Shared<_> = Arc::new(Mutex::new(output));
    let log: Shared<Box<dyn Write + Send>> = Arc::new(Mutex::new(log));
    let control = Arc::new(Mutex::new(Control::default()));
    let abort = computer.engine.abort();
    // The table mapped in before the first position's time runs: faulting it in during a
    // search can cost more than a server's time for a position.
    computer.engine.prefault();
    let (tx, rx) = mpsc::channel::<Result<Message, String>>();
    {
        let (out, log, control, abort) = (out.clone(), log.clone(), control.clone(), abort.clone());
        std::thread::spawn(move || {
            let mut input = input;
            loop {
                let line = match input.read_line() {
                    Ok(Some(l)) => l,
                    Ok(None) => return,
                    Err(e) => {
                        let _ = tx.send(Err(e.to_string()));
                        return;
                    }
                };
                if let Ok(mut l) = log.lock() {
                    let _ = writeln!(l, "<- {line}");
                }
                let m = match Message::parse(&line) {
                    Ok(m) => m,
                    Err(e) => {
                        // A line we cannot read is the server's fault, not a reason to stop:
                        // say so and read on.
                        let e = Message::new("error", vec![Arg::Text(format!("unreadable: {e}"))]);
                        let _ = send(&out, &e, &log);
                        continue;
                    }
                };
                match m.name.as_str() {
                    "ping" => {
                        let mut pong = Message::new("pong", vec![]);
                        pong.reference = m.id;
                        let _ = send(&out, &pong, &log);
                        continue;
                    }
                    "stop" => {
                        if let (Some(r), Ok(mut c)) = (m.reference, control.lock()) {
                            c.stopped.insert(r);
                            if c.current == Some(r) {
                                abort.store(true, Ordering::Relaxed);
                            }
                        }
                        continue;
                    }
                    _ => {}
                }
                if tx.send(Ok(m)).is_err() {
                    return;
                }
            }
        });
    }
    let mut report = ClientReport::default();
    let mut rng = Rng::lcg(0x6b67_7031);
    // Seconds left on the client's clock, where the server says (`set time:clock`).
    let mut clock: Option<Duration> = None;
    for m in rx {
        let m = m.map_err(|e| anyhow::anyhow!("from the server: {e}"))?;
        match m.name.as_str() {
            "kgp" => {
                if m.int(0) != Some(i64::from(VERSION[0])) {
                    let e = Message::new(
                        "error",
                        vec![Arg::Text(format!(
                            "this client speaks KGP {}.x",
                            VERSION[0]
                        ))],
                    );
                    send(&out, &e, &log)?;
                    let version: Vec<String> = m.args.iter().map(Arg::to_string).collect();
                    bail!(
                        "the server speaks KGP {}, not {}.x",
                        version.join("."),
                        VERSION[0]
                    );
                }
                let set = |k: &str, v: &str| {
                    Message::new("set", vec![Arg::Text(k.into()), Arg::Text(v.into())])
                };
                send(&out, &set("info:name", &cfg.name), &log)?;
                if let Some(a) = &cfg.authors {
                    send(&out, &set("info:authors", a), &log)?;
                }
                if let Some(t) = &cfg.token {
                    send(&out, &set("auth:token", t), &log)?;
                }
                let mode = Message::new("mode", vec![Arg::Text(cfg.mode.name().into())]);
                send(&out, &mode, &log)?;
            }
            "goodbye" => {
                report.goodbye = true;
                return Ok(report);
            }
            "set" if m.text(0) == Some("game:id") => report.games.push(GameSeen {
                id: m.args.get(1).map(|a| match a {
                    Arg::Text(t) => t.clone(),
                    a => a.to_string(),
                }),
                seat: None,
                last: None,
            }),
            "set" if m.text(0) == Some("time:clock") => {
                clock = m
                    .int(1)
                    .map(|t| Duration::from_secs(t.clamp(0, 1 << 32) as u64));
            }
            "error" => report.errors.push(
                m.text(0)
                    .map_or_else(|| format!("{:?}", m.args), str::to_string),
            ),
            "state" => {
                report.states += 1;
                let Some(id) = m.id else {
                    let why = "a state without an id: a move could not refer to it";
                    send(
                        &out,
                        &Message::new("error", vec![Arg::Text(why.into())]),
                        &log,
                    )?;
                    continue;
                };
                let pos = match m.board(0).map(position_of) {
                    Some(Ok(p)) => p,
                    other => {
                        let why = match other {
                            Some(Err(e)) => e.to_string(),
                            _ => "the state has no board".to_string(),
                        };
                        let e = Message::new("error", vec![Arg::Text(why)]).answering(id);
                        send(&out, &e, &log)?;
                        continue;
                    }
                };
                if cfg.mode == Mode::Freeplay {
                    if report.games.is_empty() {
                        report.games.push(GameSeen {
                            id: None,
                            seat: None,
                            last: None,
                        });
                    }
                    let game = report.games.last_mut().expect("pushed");
                    if game.seat.is_none() {
                        let first = Position::start(pos.rules()).is_ok_and(|s| s == pos);
                        game.seat = Some(if first { Side::South } else { Side::North });
                    }
                    game.last = Some((pos, None));
                }
                {
                    let mut c = control.lock().map_err(|_| anyhow::anyhow!("lock"))?;
                    if c.stopped.contains(&id) {
                        continue;
                    }
                    c.current = Some(id);
                    abort.store(false, Ordering::Relaxed);
                }
                let eval = cfg.mode == Mode::Eval;
                let last_move = Mutex::new(None);
                let sent = think(computer, &pos, cfg, clock, eval, rng.next_u64(), &|a| {
                    let name = if eval { "eval" } else { "move" };
                    if let (false, Arg::Int(pit)) = (eval, &a) {
                        if let Ok(mut m) = last_move.lock() {
                            *m = u8::try_from(*pit).ok();
                        }
                    }
                    send(&out, &Message::new(name, vec![a]).answering(id), &log).is_ok()
                });
                if let (Some(game), Ok(pit)) = (report.games.last_mut(), last_move.into_inner()) {
                    if let Some((_, last)) = &mut game.last {
                        *last = pit;
                    }
                }
                let stopped = {
                    let mut c = control.lock().map_err(|_| anyhow::anyhow!("lock"))?;
                    c.current = None;
                    c.stopped.remove(&id)
                };
                match sent {
                    Ok((n, comment)) => {
                        if eval {
                            report.evals += n;
                            let c = Message::new(
                                "set",
                                vec![Arg::Text("info:comment".into()), Arg::Text(comment)],
                            );
                            send(&out, &c.answering(id), &log)?;
                        } else {
                            report.moves += n;
                            if !stopped {
                                send(&out, &Message::new("yield", vec![]).answering(id), &log)?;
                            }
                        }
                    }
                    Err(e) => {
                        send(
                            &out,
                            &Message::new("error", vec![Arg::Text(e.to_string())]).answering(id),
                            &log,
                        )?;
                    }
                }
            }
            "problem" => {
                let Some(id) = m.id else {
                    continue;
                };
                let answer = match (m.board(0), m.int(1)) {
                    (Some(b), Some(k)) => sow(b, k).map_err(|e| e.to_string()),
                    _ => Err("a problem is a board and a move".to_string()),
                };
                let reply = match answer {
                    Ok((board, again)) => {
                        report.solutions += 1;
                        Message::new("solution", vec![Arg::Board(board), Arg::Int(again.into())])
                    }
                    Err(e) => Message::new("error", vec![Arg::Text(e)]),
                };
                send(&out, &reply.answering(id), &log)?;
            }
            // `init`, `set`, `ok`, `pong` and commands of later versions need no answer.
            _ => {}
        }
    }
    Ok(report)
}

/// Thinks about `pos` (South to move) at `computer`'s level (within a twentieth of `clock`,
/// the time the server says is left), calling `emit` with each
/// improving move (1-based) or, for `eval`, each iteration's value for South. Returns the
/// messages emitted and a comment on the last value.
fn think(
    computer: &Computer,
    pos: &Position,
    cfg: &ClientConfig,
    clock: Option<Duration>,
    eval: bool,
    seed: u64,
    emit: &(dyn Fn(Arg) -> bool + Sync),
) -> Result<(u32, String)> {
    use std::sync::atomic::{AtomicU32, AtomicU8};
    let mut level = computer.level;
    if let Some(t) = cfg.per_move {
        level.time = Some(t);
        level.depth = None;
    }
    // A twentieth of what is left of the clock at most, as the Manchester agent budgets.
    if let Some(share) = clock.map(|c| (c / 20).max(Duration::from_millis(5))) {
        level.time = Some(level.time.map_or(share, |t| t.min(share)));
    }
    let legal = pos.legal_moves();
    if legal.is_empty() {
        bail!("the game is over in this position");
    }
    if !eval && (computer.is_simple() || level.noise > 0 || legal.len() == 1) {
        let pit = computer.choose(pos, &[], seed).context("no move")?;
        emit(Arg::Int(i64::from(pit) + 1));
        return Ok((1, String::new()));
    }
    let sent = AtomicU32::new(0);
    let last = AtomicU8::new(u8::MAX);
    let value = |r: &SearchResult| {
        let e = r.eval.seen_by(Side::South);
        Arg::Real(f64::from(e.score()))
    };
    let report = |r: &SearchResult| {
        let arg = if eval {
            value(r)
        } else if last.swap(r.best, std::sync::atomic::Ordering::Relaxed) != r.best {
            Arg::Int(i64::from(r.best) + 1)
        } else {
            return;
        };
        if emit(arg) {
            sent.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    };
    let limits = Limits {
        depth: if eval {
            level.depth.max(Some(8))
        } else {
            level.depth
        },
        time: level.time,
        nodes: None,
    };
    let r = computer
        .engine
        .search_with_progress(pos, limits, &[], Some(&report))
        .context("no move")?;
    // An aborted search returns its last completed iteration, already sent.
    if !eval && last.load(std::sync::atomic::Ordering::Relaxed) != r.best {
        report(&r);
    }
    let e = r.eval.seen_by(Side::South);
    let how = e.quality.text();
    Ok((
        sent.load(std::sync::atomic::Ordering::Relaxed),
        format!(
            "eval {}: final seed margin for South (the side to move), higher is better, {how}",
            e.score()
        ),
    ))
}
