//! One bot connection on the server's side (the server's games, the lobby's, the
//! tournaments'): its lines, the ids of what was asked, and the bot's move for a position.

use std::net::TcpStream;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mancala_core::Position;

use super::{board_for, Arg, LineError, LineRead, LineWrite, Link, Message};
use crate::shown;

/// Time a write to a bot may block before the connection counts as failed.
pub(crate) const WRITE_TIME: Duration = Duration::from_secs(10);

/// One bot connection on the server's side: its writer, its lines (read on a thread of
/// their own, at most [`MAX_LINE`] bytes each) and the ids used.
pub(crate) struct Conn {
    out: Box<dyn LineWrite>,
    lines: mpsc::Receiver<Result<String, LineError>>,
    next_id: u64,
    /// States and problems whose answers are over (late answers are ignored).
    pub(crate) stopped: std::collections::HashSet<u64>,
    /// The bot's `info:name` and `info:authors`, where it sent them.
    pub(crate) name: Option<String>,
    pub(crate) authors: Option<String>,
}

/// A received message or why none came; `Err` is the bot's fault.
pub(crate) enum Got {
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
    pub(crate) fn next(&mut self, until: Option<Instant>) -> Result<Got, String> {
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
    pub(crate) fn answers(&self, m: &Message, id: u64) -> Result<bool, String> {
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
    pub(crate) fn stop(&mut self, id: u64) -> Result<(), String> {
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

/// A bot's TCP connection as a link, with the server's write timeout: a bot that stops
/// reading cannot block the server.
pub(crate) fn tcp_link(stream: TcpStream) -> std::io::Result<Link> {
    stream.set_write_timeout(Some(WRITE_TIME))?;
    Link::tcp(stream)
}

/// The bot's move (0-based) in `pos`: its last `move` for the `state` within `move_time` or
/// its `yield`.
pub(crate) fn bot_move(conn: &mut Conn, move_time: Duration, pos: &Position) -> Result<u8, String> {
    conn.nothing_asked()?;
    let board = board_for(pos, pos.to_move());
    let id = conn.send_new(Message::new("state", vec![Arg::Board(board)]))?;
    let until = Instant::now() + move_time;
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
    chosen.ok_or_else(|| format!("no move within {} ms", move_time.as_millis()))
}
