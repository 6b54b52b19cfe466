//! The Kalah Game Protocol (KGP 1.x): a text protocol over TCP between a server that sends
//! positions and a client (a bot) that answers with moves. This module holds the messages
//! ([`Message`], [`Arg`]) and the board literal ([`position_of`], [`board_of`]).
//!
//! # Messages
//! One a line (CRLF or LF), at most [`MAX_LINE`] bytes: `[ID][@REF] NAME ARG...`, where `ID`
//! numbers a message (never reused by its sender) and `@REF` names an earlier message of the
//! other side that this one answers. An argument is an integer (`-3`, `+0`), a real (`0.5`,
//! `-.25`), a word (letters, digits, `-`, `:`), a string in double quotes (a backslash takes
//! the next character as it is) or a board literal. The server greets with `kgp 1 0 1`; the
//! client picks an activity with `mode freeplay|eval|verify`; either side may send `set KEY
//! VALUE` (`info:name`, `info:authors`, `auth:token`, `time:clock`, `game:id`, ...), `ok`,
//! `error MESSAGE`, `goodbye`; the server may `ping`, the client answers `pong`.
//!
//! # Board literal
//! `<n,SOUTH_STORE,NORTH_STORE,S1,...,Sn,N1,...,Nn>`: each row from its owner's left, as the
//! core's rows are. The client always moves as South: a server whose bot sits North sends the
//! board mirrored. The protocol plays Kalah with the standard capture, a game ending when a
//! row is empty or a store holds more than half of the seeds (`stop-when-decided`), each row
//! to its owner at the end. The core holds at most [`MAX_PITS`] pits and
//! [`MAX_TOTAL_SEEDS`] seeds, each row starting even; a board outside that is refused, saying
//! why.

use core::fmt;
use std::io::{BufRead, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use mancala_core::{Position, Rules, Setup, Side, MAX_PITS};
use mancala_engine::{Level, Limits, SearchResult};

use crate::{Computer, Rng};

/// Longest message, in bytes, its line break included.
pub const MAX_LINE: usize = 16 * 1024;

/// The protocol version this implementation speaks (`kgp 1 0 1`).
pub const VERSION: [u32; 3] = [1, 0, 1];

/// Most seeds the core's positions hold (both rows and both stores).
pub const MAX_TOTAL_SEEDS: u32 = mancala_core::rules::MAX_TOTAL_SEEDS;

/// One argument of a message.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// An integer: `32`, `+0`, `-100`.
    Int(i64),
    /// A real number (always finite): `0.0`, `+3.141`, `-.123`.
    Real(f64),
    /// A word or a quoted string (the protocol tells them apart only by their spelling).
    Text(String),
    /// A board literal's numbers, in order (`<3,0,0,3,3,3,3,3,3>`).
    Board(Vec<u32>),
}

/// A protocol message.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// Its number, where given.
    pub id: Option<u64>,
    /// The number of the message it answers, where given.
    pub reference: Option<u64>,
    /// The command: `state`, `move`, `stop`, ... (letters and digits, a letter first: digits
    /// first read as an id).
    pub name: String,
    /// Its arguments.
    pub args: Vec<Arg>,
}

impl Message {
    /// A message with no id and no reference.
    pub fn new(name: &str, args: Vec<Arg>) -> Message {
        Message {
            id: None,
            reference: None,
            name: name.to_string(),
            args,
        }
    }

    /// The same message with this id.
    pub fn with_id(mut self, id: u64) -> Message {
        self.id = Some(id);
        self
    }

    /// The same message answering `reference`.
    pub fn answering(mut self, reference: u64) -> Message {
        self.reference = Some(reference);
        self
    }

    /// Reads one message (a trailing `\r\n` or `\n` is allowed); the error says what is wrong.
    pub fn parse(line: &str) -> Result<Message, String> {
        if line.len() > MAX_LINE {
            return Err(format!(
                "a message of {} bytes, more than {MAX_LINE}",
                line.len()
            ));
        }
        let line = line.strip_suffix('\n').unwrap_or(line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let mut r = Reader {
            s: line.as_bytes(),
            i: 0,
        };
        let id = r.number("id")?;
        let reference = if r.eat(b'@') {
            Some(
                r.number("reference")?
                    .ok_or_else(|| r.fault("a number after `@`"))?,
            )
        } else {
            None
        };
        if (id.is_some() || reference.is_some()) && !r.space() {
            return Err(r.fault("a space after the id"));
        }
        r.space();
        let start = r.i;
        while r.peek().is_some_and(|c| c.is_ascii_alphanumeric()) {
            r.i += 1;
        }
        if r.i == start {
            return Err(r.fault("a command name (letters and digits)"));
        }
        let name = line[start..r.i].to_string();
        let mut args = Vec::new();
        loop {
            let spaced = r.space();
            if r.peek().is_none() {
                break;
            }
            if !spaced {
                return Err(r.fault("a space before the next argument"));
            }
            args.push(r.arg()?);
        }
        Ok(Message {
            id,
            reference,
            name,
            args,
        })
    }

    /// The argument at `i` as an integer.
    pub fn int(&self, i: usize) -> Option<i64> {
        match self.args.get(i) {
            Some(Arg::Int(v)) => Some(*v),
            _ => None,
        }
    }

    /// The argument at `i` as text (a word or a string).
    pub fn text(&self, i: usize) -> Option<&str> {
        match self.args.get(i) {
            Some(Arg::Text(t)) => Some(t),
            _ => None,
        }
    }

    /// The argument at `i` as a real (an integer counts).
    pub fn real(&self, i: usize) -> Option<f64> {
        match self.args.get(i) {
            Some(Arg::Real(v)) => Some(*v),
            Some(Arg::Int(v)) => Some(*v as f64),
            _ => None,
        }
    }

    /// The argument at `i` as a board literal's numbers.
    pub fn board(&self, i: usize) -> Option<&[u32]> {
        match self.args.get(i) {
            Some(Arg::Board(b)) => Some(b),
            _ => None,
        }
    }
}

/// The message as sent, without its line break.
impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(id) = self.id {
            write!(f, "{id}")?;
        }
        if let Some(r) = self.reference {
            write!(f, "@{r}")?;
        }
        if self.id.is_some() || self.reference.is_some() {
            f.write_str(" ")?;
        }
        f.write_str(&self.name)?;
        for a in &self.args {
            write!(f, " {a}")?;
        }
        Ok(())
    }
}

/// An argument as sent: a text that reads as a word (and not as a number) bare, any other
/// quoted, with `"` and `\` escaped by a backslash and control characters (line breaks
/// included, which no message may hold) sent as spaces; a real always with its point.
impl fmt::Display for Arg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arg::Int(v) => write!(f, "{v}"),
            Arg::Real(v) => {
                // Rust prints floats in full, never with an exponent.
                let v = if v.is_finite() { *v } else { 0.0 };
                let s = v.to_string();
                if s.contains('.') {
                    f.write_str(&s)
                } else {
                    write!(f, "{s}.0")
                }
            }
            Arg::Text(t) => {
                let word = !t.is_empty()
                    && t.bytes().all(is_word_byte)
                    && Reader {
                        s: t.as_bytes(),
                        i: 0,
                    }
                    .arg()
                    .is_ok_and(|a| a == Arg::Text(t.clone()));
                if word {
                    return f.write_str(t);
                }
                f.write_str("\"")?;
                for c in t.chars() {
                    match c {
                        '"' | '\\' => write!(f, "\\{c}")?,
                        c if c.is_control() => f.write_str(" ")?,
                        c => write!(f, "{c}")?,
                    }
                }
                f.write_str("\"")
            }
            Arg::Board(b) => {
                f.write_str("<")?;
                for (i, v) in b.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str(">")
            }
        }
    }
}

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b':'
}

/// A cursor over one line.
struct Reader<'a> {
    s: &'a [u8],
    i: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    /// Skips spaces and tabs; whether there were any.
    fn space(&mut self) -> bool {
        let start = self.i;
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.i += 1;
        }
        self.i > start
    }

    fn fault(&self, wanted: &str) -> String {
        match self.peek() {
            None => format!("column {}: the line ends where {wanted} is due", self.i + 1),
            Some(c) => format!(
                "column {}: `{}` where {wanted} is due",
                self.i + 1,
                (c as char).escape_default()
            ),
        }
    }

    fn digits(&mut self) -> &str {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        // Only ASCII digits were passed over.
        core::str::from_utf8(&self.s[start..self.i]).unwrap_or("")
    }

    /// An unsigned number, if one starts here.
    fn number(&mut self, what: &str) -> Result<Option<u64>, String> {
        let col = self.i + 1;
        let d = self.digits();
        if d.is_empty() {
            return Ok(None);
        }
        d.parse()
            .map(Some)
            .map_err(|_| format!("column {col}: the {what} {d} is too large"))
    }

    /// One argument, up to the next space or the end.
    fn arg(&mut self) -> Result<Arg, String> {
        let start = self.i;
        let col = start + 1;
        // The argument's extent (a string's may hold spaces).
        match self.peek() {
            Some(b'"') => return self.string(),
            Some(b'<') => return self.board(),
            _ => {}
        }
        while self.peek().is_some_and(|c| c != b' ' && c != b'\t') {
            self.i += 1;
        }
        let tok = &self.s[start..self.i];
        let text = String::from_utf8_lossy(tok);
        let (sign, body) = match tok.first() {
            Some(b'+' | b'-') => (true, &tok[1..]),
            _ => (false, tok),
        };
        let all_digits = |b: &[u8]| !b.is_empty() && b.iter().all(u8::is_ascii_digit);
        if all_digits(body) {
            return text
                .parse::<i64>()
                .map(Arg::Int)
                .map_err(|_| format!("column {col}: the integer {text} is out of range"));
        }
        if let Some(dot) = body.iter().position(|&c| c == b'.') {
            let (int, frac) = (&body[..dot], &body[dot + 1..]);
            if (int.is_empty() || all_digits(int)) && all_digits(frac) {
                // Rust reads `-.5` and `+.5` but not every spelling alike: give it a zero.
                let normal = format!(
                    "{}0{}",
                    if tok[0] == b'-' { "-" } else { "" },
                    &text[usize::from(sign)..]
                );
                return match normal.parse::<f64>() {
                    Ok(v) if v.is_finite() => Ok(Arg::Real(v)),
                    _ => Err(format!("column {col}: the real {text} is out of range")),
                };
            }
        }
        if !tok.is_empty() && tok.iter().all(|&c| is_word_byte(c)) {
            return Ok(Arg::Text(text.into_owned()));
        }
        Err(format!(
            "column {col}: `{}` is no integer, real, word, string or board",
            shown(&text)
        ))
    }

    fn string(&mut self) -> Result<Arg, String> {
        let col = self.i + 1;
        self.i += 1;
        let mut out = Vec::new();
        loop {
            match self.peek() {
                None => return Err(format!("column {col}: the string is not closed")),
                Some(b'"') => {
                    self.i += 1;
                    break;
                }
                Some(b'\\') => {
                    self.i += 1;
                    match self.peek() {
                        Some(c) => {
                            out.push(c);
                            self.i += 1;
                        }
                        None => return Err(format!("column {col}: the string is not closed")),
                    }
                }
                Some(c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
        if self.peek().is_some_and(|c| c != b' ' && c != b'\t') {
            return Err(self.fault("a space after the string"));
        }
        String::from_utf8(out)
            .map(Arg::Text)
            .map_err(|_| format!("column {col}: the string is not UTF-8"))
    }

    fn board(&mut self) -> Result<Arg, String> {
        self.i += 1;
        let mut values = Vec::new();
        loop {
            let col = self.i + 1;
            let d = self.digits();
            if d.is_empty() {
                return Err(self.fault("a count of seeds in the board"));
            }
            values.push(
                d.parse::<u32>()
                    .map_err(|_| format!("column {col}: {d} seeds is too many"))?,
            );
            if self.eat(b'>') {
                break;
            }
            if !self.eat(b',') {
                return Err(self.fault("`,` or `>` in the board"));
            }
        }
        if self.peek().is_some_and(|c| c != b' ' && c != b'\t') {
            return Err(self.fault("a space after the board"));
        }
        Ok(Arg::Board(values))
    }
}

/// A piece of a line quoted in a message: its start only, control characters escaped.
pub fn shown(s: &str) -> String {
    let cut: String = s.chars().take(60).collect();
    let more = if cut.len() < s.len() { "..." } else { "" };
    format!("{}{more}", mancala_core::printable(&cut))
}

/// The rules a board of `pits` pits and `total` seeds is played by: Kalah with the protocol's
/// end rule. Refused, saying why, where the core cannot hold the board.
pub fn rules_for(pits: usize, total: u32) -> Result<Rules, String> {
    if pits == 0 {
        return Err("a board of 0 pits".into());
    }
    if pits > MAX_PITS {
        return Err(format!(
            "a board of {pits} pits: this engine plays at most {MAX_PITS} pits a row"
        ));
    }
    if total > MAX_TOTAL_SEEDS {
        return Err(format!(
            "a board of {total} seeds: this engine plays at most {MAX_TOTAL_SEEDS}"
        ));
    }
    let per_pit = 2 * pits as u32;
    if total == 0 || !total.is_multiple_of(per_pit) {
        return Err(format!(
            "a board of {total} seeds on {pits} pits a row: this engine plays only boards whose \
             seeds could start evenly in the pits (a multiple of {per_pit})"
        ));
    }
    format!(
        "kalah,pits={pits},seeds={},stop-when-decided",
        total / per_pit
    )
    .parse()
    .map_err(|e: mancala_core::Error| e.to_string())
}

/// The position of a board literal's numbers, South to move.
pub fn position_of(board: &[u32]) -> Result<Position, String> {
    let Some(&n) = board.first() else {
        return Err("an empty board".into());
    };
    let n = n as usize;
    if n.checked_mul(2).and_then(|x| x.checked_add(3)) != Some(board.len()) {
        return Err(format!(
            "the board gives {n} pits a row but holds {} numbers, not {}",
            board.len(),
            n.saturating_mul(2).saturating_add(3)
        ));
    }
    let total = board[1..]
        .iter()
        .try_fold(0u32, |a, &b| a.checked_add(b))
        .unwrap_or(u32::MAX);
    let rules = rules_for(n, total)?;
    // Every count fits a byte: the total does.
    let row = |r: &[u32]| r.iter().map(|&s| (s as u8, 0)).collect::<Vec<_>>();
    let setup = Setup {
        rows: [row(&board[3..3 + n]), row(&board[3 + n..])],
        stores: [board[1] as u8, board[2] as u8],
        to_move: Some(Side::South),
        last_capturer: None,
        opening: mancala_core::Opening::None,
    };
    Position::from_setup(&rules, &setup).map_err(|e| e.to_string())
}

/// The board literal's numbers of `pos`, as it stands (not mirrored).
pub fn board_of(pos: &Position) -> Vec<u32> {
    let n = pos.pits();
    let [s, no] = pos.scores();
    let mut b = vec![n as u32, s.into(), no.into()];
    for side in [Side::South, Side::North] {
        b.extend((0..n).map(|i| u32::from(pos.seeds(side, i))));
    }
    b
}

/// The board `pos` sends to the player on `seat`: mirrored when that player is North, since
/// a client always moves as South.
pub fn board_for(pos: &Position, seat: Side) -> Vec<u32> {
    match seat {
        Side::South => board_of(pos),
        Side::North => board_of(&pos.mirrored()),
    }
}

/// What happens when South plays pit `k` (1-based) on a board literal, as the protocol's
/// `verify` mode asks: the board after it (a finished game's rows swept to their owners, as
/// KGP ends every game) and whether the last seed fell in South's store.
pub fn sow(board: &[u32], k: i64) -> Result<(Vec<u32>, bool), String> {
    let mut pos = position_of(board)?;
    let n = pos.pits();
    if !(1..=n as i64).contains(&k) {
        return Err(format!("move {k}: a pit is 1 to {n}"));
    }
    let effect = pos.play((k - 1) as u8).map_err(|e| e.to_string())?;
    let mut after = board_of(&pos);
    if pos.is_over() {
        for side in 0..2 {
            let row = 3 + side * n..3 + (side + 1) * n;
            let sum: u32 = after[row.clone()].iter().sum();
            after[1 + side] += sum;
            after[row].fill(0);
        }
    }
    Ok((after, effect.in_store))
}

/// An activity a client asks for with `mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Positions to move in (`state`), answered by `move`s.
    Freeplay,
    /// Positions to value (`state`), answered by `eval`s.
    Eval,
    /// Moves to play out (`problem`), answered by `solution`s.
    Verify,
}

impl Mode {
    /// The activity's word in `mode`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Freeplay => "freeplay",
            Mode::Eval => "eval",
            Mode::Verify => "verify",
        }
    }

    /// The mode of a `mode` word.
    pub fn parse(word: &str) -> Option<Mode> {
        [Mode::Freeplay, Mode::Eval, Mode::Verify]
            .into_iter()
            .find(|m| m.name() == word)
    }
}

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
}

/// The client's side of the `stop` race: which position is being searched and which the
/// server has stopped, under one lock with the engine's abort flag.
#[derive(Default)]
struct Control {
    current: Option<u64>,
    stopped: std::collections::HashSet<u64>,
}

type Shared<W> = std::sync::Arc<std::sync::Mutex<W>>;

fn send<W: Write>(out: &Shared<W>, m: &Message, log: &Shared<Box<dyn Write + Send>>) -> Result<()> {
    let line = m.to_string();
    if let Ok(mut l) = log.lock() {
        let _ = writeln!(l, "-> {line}");
    }
    let mut w = out
        .lock()
        .map_err(|_| anyhow::anyhow!("the connection's writer failed"))?;
    // One write a message: one packet, not one a piece of the format.
    w.write_all(format!("{line}\r\n").as_bytes())
        .and_then(|()| w.flush())
        .context("writing to the server")
}

/// Plays as a KGP client: reads the server's messages from `input`, answers on `output`, with
/// `computer`'s level and engine, and writes every message to `log`. A thread reads the
/// server while the engine thinks, so `ping` is answered and `stop` ends a search at once.
/// Each `state` is searched by iterative deepening and every completed iteration whose best
/// move differs from the last one sent is sent as `move` (levels that err on purpose send
/// their one pick); the search's end sends `yield`. In `eval` mode each iteration sends
/// `eval` with the value for South (the side to move): the final seed margin with the best
/// play the search sees, higher is better, and a `set info:comment` says whether it is
/// proven or to which depth it was searched. `verify` problems are answered by the core's
/// sowing ([`sow`]). Returns at `goodbye` or when the connection closes.
pub fn run_client(
    input: impl BufRead + Send + 'static,
    output: impl Write + Send + 'static,
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
    let (tx, rx) = mpsc::channel::<Result<Message, String>>();
    {
        let (out, log, control, abort) = (out.clone(), log.clone(), control.clone(), abort.clone());
        std::thread::spawn(move || {
            let mut input = input;
            loop {
                let line = match read_line(&mut input) {
                    Ok(Some(l)) => l,
                    Ok(None) => return,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                };
                if let Ok(mut l) = log.lock() {
                    let _ = writeln!(l, "<- {line}");
                }
                let m = match Message::parse(&line) {
                    Ok(m) => m,
                    Err(e) => {
                        // A line we cannot read is the server's fault, not a reason to stop.
                        if let Ok(mut l) = log.lock() {
                            let _ = writeln!(l, "   (unreadable: {e})");
                        }
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
                    bail!("the server speaks KGP {:?}, not {}.x", m.args, VERSION[0]);
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
            "error" => report.errors.push(
                m.text(0)
                    .map_or_else(|| format!("{:?}", m.args), str::to_string),
            ),
            "state" => {
                report.states += 1;
                let Some(id) = m.id else {
                    continue;
                };
                let pos = match m.board(0).map(position_of) {
                    Some(Ok(p)) => p,
                    other => {
                        let why = match other {
                            Some(Err(e)) => e,
                            _ => "the state has no board".to_string(),
                        };
                        let e = Message::new("error", vec![Arg::Text(why)]).answering(id);
                        send(&out, &e, &log)?;
                        continue;
                    }
                };
                {
                    let mut c = control.lock().map_err(|_| anyhow::anyhow!("lock"))?;
                    if c.stopped.contains(&id) {
                        continue;
                    }
                    c.current = Some(id);
                    abort.store(false, Ordering::Relaxed);
                }
                let eval = cfg.mode == Mode::Eval;
                let sent = think(computer, &pos, cfg, eval, rng.next_u64(), &|a| {
                    let name = if eval { "eval" } else { "move" };
                    send(&out, &Message::new(name, vec![a]).answering(id), &log).is_ok()
                });
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
                    (Some(b), Some(k)) => sow(b, k),
                    _ => Err("a problem is a board and a move".into()),
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

/// One line of at most [`MAX_LINE`] bytes, without its line break; `None` at the end.
fn read_line(input: &mut impl BufRead) -> Result<Option<String>, String> {
    let mut buf = Vec::new();
    let n = input
        .by_ref()
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', &mut buf)
        .map_err(|e| format!("the connection failed: {e}"))?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
    } else if buf.len() > MAX_LINE {
        return Err(format!("a line longer than {MAX_LINE} bytes"));
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    String::from_utf8(buf)
        .map(Some)
        .map_err(|_| "a line that is not UTF-8".into())
}

/// Thinks about `pos` (South to move) at `computer`'s level, calling `emit` with each
/// improving move (1-based) or, for `eval`, each iteration's value for South. Returns the
/// messages emitted and a comment on the last value.
fn think(
    computer: &Computer,
    pos: &Position,
    cfg: &ClientConfig,
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
    let legal = pos.legal_moves();
    if legal.is_empty() {
        bail!("the game is over in this position");
    }
    if !eval && (level.noise > 0 || legal.len() == 1) {
        let pit = level
            .choose_with(&computer.engine, pos, &[], seed)
            .context("no move")?;
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
        }
    }
}

/// One freeplay game of a connection.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GameResult {
    /// The bot's seat (the boards it was sent were mirrored when North).
    pub bot_seat: Side,
    /// Final stores, South first (at a fault: as they stood).
    pub scores: [u8; 2],
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
struct Conn {
    out: TcpStream,
    lines: mpsc::Receiver<Result<String, String>>,
    next_id: u64,
    /// States and problems whose answers are over (late answers are ignored).
    stopped: std::collections::HashSet<u64>,
    name: Option<String>,
}

/// A received message or why none came; `Err` is the bot's fault.
enum Got {
    Msg(Message),
    Timeout,
}

impl Conn {
    fn new(stream: TcpStream) -> Result<Conn> {
        let out = stream.try_clone().context("the connection")?;
        out.set_write_timeout(Some(Duration::from_secs(10)))?;
        // Short messages, each awaited: no waiting to fill a packet.
        out.set_nodelay(true)?;
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut input = std::io::BufReader::new(stream);
            loop {
                match read_line(&mut input) {
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
            }
        });
        Ok(Conn {
            out,
            lines,
            next_id: 1,
            stopped: Default::default(),
            name: None,
        })
    }

    fn send(&mut self, m: &Message) -> Result<(), String> {
        // One write a message: one packet, not one a piece of the format.
        self.out
            .write_all(format!("{m}\r\n").as_bytes())
            .and_then(|()| self.out.flush())
            .map_err(|e| format!("the connection failed while writing to it ({e})"))
    }

    /// Sends `m` with a fresh id; returns the id.
    fn send_new(&mut self, m: Message) -> Result<u64, String> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&m.with_id(id))?;
        Ok(id)
    }

    /// The next message that needs the caller, by `until`. `set`, `pong`, `ok` and `error` are
    /// taken here; garbage, a closed connection and `goodbye` are faults.
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
            let m = Message::parse(&line)
                .map_err(|e| format!("a malformed message `{}`: {e}", shown(&line)))?;
            match m.name.as_str() {
                "set" => {
                    if m.text(0) == Some("info:name") {
                        self.name = m.text(1).map(shown);
                    }
                }
                "pong" | "ok" | "error" => {}
                "goodbye" => return Err("the bot said goodbye".into()),
                _ => return Ok(Got::Msg(m)),
            }
        }
    }

    /// Refuses what the bot sent while nothing was asked of it: an answer to a request that
    /// is over is ignored (KGP allows it to cross a `stop`), anything else is a fault.
    fn nothing_asked(&mut self) -> Result<(), String> {
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
}

/// Serves one connection to its end: the greeting, the bot's `mode`, then its games or
/// positions, and `goodbye`. A protocol fault of the bot ends the connection with an
/// `error` naming it, and is the report's `fault`.
pub fn serve_connection(stream: TcpStream, cfg: &ServerConfig) -> SessionReport {
    let mut report = SessionReport {
        peer: stream
            .peer_addr()
            .map_or_else(|_| "?".into(), |a| a.to_string()),
        ..SessionReport::default()
    };
    let mut conn = match Conn::new(stream) {
        Ok(c) => c,
        Err(e) => {
            report.fault = Some(format!("{e:#}"));
            return report;
        }
    };
    let result = session(&mut conn, cfg, &mut report);
    report.name = conn.name.clone();
    if let Err(why) = result {
        let _ = conn.send(&Message::new("error", vec![Arg::Text(why.clone())]));
        report.fault = Some(why);
    }
    let _ = conn.send(&Message::new("goodbye", vec![]));
    let _ = conn.out.shutdown(std::net::Shutdown::Both);
    report
}

fn session(conn: &mut Conn, cfg: &ServerConfig, report: &mut SessionReport) -> Result<(), String> {
    let v = VERSION.map(|x| Arg::Int(i64::from(x))).to_vec();
    conn.send(&Message::new("kgp", v))?;
    let until = Instant::now() + cfg.greeting_time;
    let mode = {
        match conn.next(Some(until))? {
            Got::Timeout => {
                return Err(format!(
                    "no `mode` within {} s of the greeting",
                    cfg.greeting_time.as_secs_f64()
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
    let mut rng = Rng::lcg(cfg.seed);
    match mode {
        Mode::Freeplay => {
            for g in 0..cfg.games {
                let seat = if g % 2 == 0 { Side::South } else { Side::North };
                let game_id = Message::new(
                    "set",
                    vec![Arg::Text("game:id".into()), Arg::Text(format!("{}", g + 1))],
                );
                conn.send(&game_id)?;
                let r = freeplay_game(conn, cfg, seat, &mut rng);
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
fn freeplay_game(conn: &mut Conn, cfg: &ServerConfig, seat: Side, rng: &mut Rng) -> GameResult {
    let mut pos = Position::start(&cfg.rules).expect("the server's rules have a start");
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
            }
            Err(e) => break Some(e),
        }
    };
    GameResult {
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
    }
}

fn avg_ms(t: Duration, n: u32) -> f64 {
    t.as_secs_f64() * 1000.0 / f64::from(n.max(1))
}

/// The bot's move (0-based) in `pos`: its last `move` for the `state` by the deadline or its
/// `yield`.
fn bot_move(conn: &mut Conn, cfg: &ServerConfig, pos: &Position) -> Result<u8, String> {
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

/// Accepts bots on `listener` for ever, each connection on a thread of its own, and hands
/// each finished connection's report to `done`. Connections beyond
/// [`ServerConfig::max_connections`] are told the server is busy and closed.
pub fn serve(
    listener: TcpListener,
    cfg: ServerConfig,
    done: impl Fn(SessionReport) + Send + Sync + 'static,
) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let cfg = Arc::new(cfg);
    let done = Arc::new(done);
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else {
            continue;
        };
        if open.fetch_add(1, Ordering::SeqCst) >= cfg.max_connections {
            open.fetch_sub(1, Ordering::SeqCst);
            let _ = write!(stream, "error \"the server is busy\"\r\ngoodbye\r\n");
            continue;
        }
        let (cfg, done, open) = (cfg.clone(), done.clone(), open.clone());
        std::thread::spawn(move || {
            let r = serve_connection(stream, &cfg);
            open.fetch_sub(1, Ordering::SeqCst);
            done(r);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_as_the_grammar_says() {
        let m = Message::parse("4 state <3,0,0,3,3,3,3,3,3>\r\n").unwrap();
        assert_eq!(m.id, Some(4));
        assert_eq!(m.reference, None);
        assert_eq!(m.name, "state");
        assert_eq!(m.board(0), Some(&[3, 0, 0, 3, 3, 3, 3, 3, 3][..]));
        let m = Message::parse("6@4 stop").unwrap();
        assert_eq!(
            (m.id, m.reference, m.name.as_str()),
            (Some(6), Some(4), "stop")
        );
        let m = Message::parse("@8 move 3").unwrap();
        assert_eq!((m.id, m.reference, m.int(0)), (None, Some(8), Some(3)));
        let m = Message::parse("kgp 1 0 1").unwrap();
        assert_eq!(m.args, vec![Arg::Int(1), Arg::Int(0), Arg::Int(1)]);
        let m = Message::parse(r#"set info:name "a \"quoted\" name" -.5 +3.25 x-1"#).unwrap();
        assert_eq!(
            m.args,
            vec![
                Arg::Text("info:name".into()),
                Arg::Text("a \"quoted\" name".into()),
                Arg::Real(-0.5),
                Arg::Real(3.25),
                Arg::Text("x-1".into()),
            ]
        );
        assert_eq!(
            Message::new("eval", vec![Arg::Real(2.0)])
                .answering(7)
                .to_string(),
            "@7 eval 2.0"
        );
        assert_eq!(
            Message::new("error", vec![Arg::Text("12".into())]).to_string(),
            "error \"12\""
        );
    }

    #[test]
    fn bad_messages_say_what_is_wrong() {
        for (line, needle) in [
            ("", "command name"),
            ("@ move 1", "a number after `@`"),
            ("4state", "a space after the id"),
            ("move 1,2", "no integer, real, word, string or board"),
            ("state <3,0,>", "a count of seeds"),
            ("state <3,0", "`,` or `>`"),
            ("state <3>x", "a space after the board"),
            ("set x \"open", "not closed"),
            ("move 99999999999999999999", "out of range"),
            ("99999999999999999999 move 1", "too large"),
            ("state <99999999999>", "too many"),
            ("move 1\tä", "no integer"),
        ] {
            let e = Message::parse(line).unwrap_err();
            assert!(e.contains(needle), "{line:?}: {e}");
        }
        let long = format!("set x \"{}\"", "a".repeat(MAX_LINE));
        assert!(Message::parse(&long)
            .unwrap_err()
            .contains("more than 16384"));
    }

    #[test]
    fn the_board_literal_is_souths_view() {
        let pos = position_of(&[3, 10, 2, 1, 2, 3, 4, 2, 0]).unwrap();
        assert_eq!(pos.scores(), [10, 2]);
        assert_eq!(pos.seeds(Side::South, 0), 1);
        assert_eq!(pos.seeds(Side::North, 0), 4);
        assert_eq!(pos.to_move(), Side::South);
        assert_eq!(board_of(&pos), vec![3, 10, 2, 1, 2, 3, 4, 2, 0]);
        assert_eq!(
            board_for(&pos, Side::North),
            vec![3, 2, 10, 4, 2, 0, 1, 2, 3]
        );
        assert_eq!(
            pos.rules().to_string(),
            "kalah,pits=3,seeds=4,stop-when-decided=true"
        );
    }

    #[test]
    fn boards_the_core_cannot_hold_are_refused() {
        for (board, needle) in [
            (vec![], "empty board"),
            (vec![3, 0, 0, 3], "holds 4 numbers, not 9"),
            (vec![10; 23], "at most 8 pits"),
            (vec![12; 27], "at most 8 pits"),
            (
                vec![6, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                "a multiple of 12",
            ),
            (
                vec![6, 200, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
                "at most 240",
            ),
            (vec![u32::MAX; 3], "holds 3 numbers"),
            // Over already: South's row is empty.
            (vec![3, 10, 2, 0, 0, 0, 4, 2, 0], "already over"),
        ] {
            let e = position_of(&board).unwrap_err();
            assert!(e.contains(needle), "{board:?}: {e}");
        }
    }
}
