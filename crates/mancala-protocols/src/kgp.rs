//! The Kalah Game Protocol (KGP 1.x): a text protocol over TCP or WebSocket between a server
//! that sends positions and a client (a bot) that answers with moves. This module holds the
//! messages ([`Message`], [`Arg`]) and the board literal ([`position_of`], [`board_of`]); a
//! client ([`run_client`], `kgp/client.rs`) and a server ([`serve`], `kgp/server.rs`), over
//! the lines of either transport ([`Link`], `kgp/lines.rs`; WebSocket in `kgp/ws.rs`, the
//! `ws` feature).
//!
//! # Messages
//! One a line (CRLF or LF; over WebSocket a text message), at most [`MAX_LINE`] bytes: `[ID][@REF] NAME ARG...`, where `ID`
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
use std::io::{BufRead, Read};

use mancala_core::{Position, Rules, Setup, Side, MAX_PITS};

use crate::shown;

mod client;
mod conn;
mod lines;
mod lobby;
mod recording;
mod server;
#[cfg(feature = "ws")]
pub mod ws;

pub use client::{run_client, ClientConfig, ClientReport, GameSeen};
pub(crate) use conn::{bot_move, tcp_link, Conn};
pub use lines::{LineRead, LineWrite, Link};
pub use lobby::{Lobby, LobbyBot, LobbyError, PersonMove, Reservation, Seat};
pub use recording::{GameResult, GameStart, Recorder, Recording};
pub(crate) use server::greet;
pub use server::{
    serve, serve_all, serve_connection, serve_link, ServerConfig, SessionReport, Transport,
};

/// Longest message, in bytes, its line break included.
pub const MAX_LINE: usize = 16 * 1024;

/// The protocol version this implementation speaks (`kgp 1 0 1`).
pub const VERSION: [u32; 3] = [1, 0, 1];

/// Most seeds the core's Kalah positions hold (both rows and both stores).
pub const MAX_TOTAL_SEEDS: u32 = mancala_core::kalah::WIDE_MAX_SEEDS;

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
    pub fn parse(line: &str) -> Result<Message, ParseError> {
        if line.len() > MAX_LINE {
            return Err(ParseError::TooLong(line.len()));
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
        // A name starts with a letter: a leading digit would read back as an id.
        let start = r.i;
        if !r.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            return Err(r.fault("a command name (a letter, then letters and digits)"));
        }
        while r.peek().is_some_and(|c| c.is_ascii_alphanumeric()) {
            r.i += 1;
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

    fn fault(&self, wanted: &'static str) -> ParseError {
        ParseError::Unexpected {
            column: self.i + 1,
            found: self.peek(),
            wanted,
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
    fn number(&mut self, what: &'static str) -> Result<Option<u64>, ParseError> {
        let col = self.i + 1;
        let d = self.digits();
        if d.is_empty() {
            return Ok(None);
        }
        d.parse().map(Some).map_err(|_| ParseError::TooLarge {
            column: col,
            what,
            digits: d.to_string(),
        })
    }

    /// One argument, up to the next space or the end.
    fn arg(&mut self) -> Result<Arg, ParseError> {
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
                .map_err(|_| ParseError::IntRange {
                    column: col,
                    text: text.into_owned(),
                });
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
                    _ => Err(ParseError::RealRange {
                        column: col,
                        text: text.into_owned(),
                    }),
                };
            }
        }
        if !tok.is_empty() && tok.iter().all(|&c| is_word_byte(c)) {
            return Ok(Arg::Text(text.into_owned()));
        }
        Err(ParseError::NoArgument {
            column: col,
            text: text.into_owned(),
        })
    }

    fn string(&mut self) -> Result<Arg, ParseError> {
        let col = self.i + 1;
        self.i += 1;
        let mut out = Vec::new();
        loop {
            match self.peek() {
                None => return Err(ParseError::Unclosed { column: col }),
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
                        None => return Err(ParseError::Unclosed { column: col }),
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
            .map_err(|_| ParseError::NotUtf8 { column: col })
    }

    fn board(&mut self) -> Result<Arg, ParseError> {
        self.i += 1;
        let mut values = Vec::new();
        loop {
            let col = self.i + 1;
            let d = self.digits();
            if d.is_empty() {
                return Err(self.fault("a count of seeds in the board"));
            }
            values.push(d.parse::<u32>().map_err(|_| ParseError::TooManySeeds {
                column: col,
                digits: d.to_string(),
            })?);
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

/// The rules a board of `pits` pits and `total` seeds is played by: Kalah with the protocol's
/// end rule. Refused, saying why, where the core cannot hold the board.
pub fn rules_for(pits: usize, total: u32) -> Result<Rules, BoardError> {
    if pits == 0 {
        return Err(BoardError::NoPits);
    }
    if pits > MAX_PITS {
        return Err(BoardError::TooManyPits(pits));
    }
    if total > MAX_TOTAL_SEEDS {
        return Err(BoardError::TooManySeeds(total));
    }
    let per_pit = 2 * pits as u32;
    if total == 0 || !total.is_multiple_of(per_pit) {
        return Err(BoardError::Uneven { total, pits });
    }
    Ok(format!(
        "kalah,pits={pits},seeds={},stop-when-decided",
        total / per_pit
    )
    .parse()?)
}

/// The position of a board literal's numbers, South to move.
pub fn position_of(board: &[u32]) -> Result<Position, BoardError> {
    let Some(&n) = board.first() else {
        return Err(BoardError::Empty);
    };
    let n = n as usize;
    if n.checked_mul(2).and_then(|x| x.checked_add(3)) != Some(board.len()) {
        return Err(BoardError::Length {
            pits: n,
            numbers: board.len(),
        });
    }
    let total = board[1..]
        .iter()
        .try_fold(0u32, |a, &b| a.checked_add(b))
        .unwrap_or(u32::MAX);
    let rules = rules_for(n, total)?;
    // Every count fits the core's counts: the total does.
    let row = |r: &[u32]| r.iter().map(|&s| (s as u16, 0)).collect::<Vec<_>>();
    let setup = Setup {
        rows: [row(&board[3..3 + n]), row(&board[3 + n..])],
        stores: [board[1] as u16, board[2] as u16],
        to_move: Some(Side::South),
        last_capturer: None,
        opening: mancala_core::Opening::None,
    };
    Ok(Position::from_setup(&rules, &setup)?)
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
pub fn sow(board: &[u32], k: i64) -> Result<(Vec<u32>, bool), BoardError> {
    let mut pos = position_of(board)?;
    let n = pos.pits();
    if !(1..=n as i64).contains(&k) {
        return Err(BoardError::NoPit { k, pits: n });
    }
    let effect = pos.play((k - 1) as u8)?;
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

/// One line of at most [`MAX_LINE`] bytes, without its line break; `None` at the end.
fn read_line(input: &mut impl BufRead) -> Result<Option<String>, LineError> {
    let mut buf = Vec::new();
    let n = input
        .by_ref()
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', &mut buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
    } else if buf.len() > MAX_LINE {
        return Err(LineError::TooLong);
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    String::from_utf8(buf)
        .map(Some)
        .map_err(|_| LineError::NotUtf8)
}

/// Why a message does not read ([`Message::parse`]); each says the column (1-based) where
/// the fault is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The line is longer than [`MAX_LINE`] bytes.
    #[error("a message of {0} bytes, more than {MAX_LINE}")]
    TooLong(usize),
    /// Something other than what the grammar wants next (`found`), or the line's end.
    #[error("column {column}: {}", unexpected(*.found, .wanted))]
    Unexpected {
        /// The column, 1-based.
        column: usize,
        /// The byte found; `None`: the line's end.
        found: Option<u8>,
        /// What was due.
        wanted: &'static str,
    },
    /// An id or reference beyond 64 bits.
    #[error("column {column}: the {what} {digits} is too large")]
    TooLarge {
        /// The column, 1-based.
        column: usize,
        /// `id` or `reference`.
        what: &'static str,
        /// The digits.
        digits: String,
    },
    /// An integer beyond 64 bits.
    #[error("column {column}: the integer {text} is out of range")]
    IntRange {
        /// The column, 1-based.
        column: usize,
        /// The token.
        text: String,
    },
    /// A real that is not finite.
    #[error("column {column}: the real {text} is out of range")]
    RealRange {
        /// The column, 1-based.
        column: usize,
        /// The token.
        text: String,
    },
    /// A token that is no argument.
    #[error("column {column}: `{}` is no integer, real, word, string or board", shown(.text))]
    NoArgument {
        /// The column, 1-based.
        column: usize,
        /// The token.
        text: String,
    },
    /// A string without its closing quote.
    #[error("column {column}: the string is not closed")]
    Unclosed {
        /// The column, 1-based.
        column: usize,
    },
    /// A string whose bytes are not UTF-8.
    #[error("column {column}: the string is not UTF-8")]
    NotUtf8 {
        /// The column, 1-based.
        column: usize,
    },
    /// A board's count beyond 32 bits.
    #[error("column {column}: {digits} seeds is too many")]
    TooManySeeds {
        /// The column, 1-based.
        column: usize,
        /// The digits.
        digits: String,
    },
}

/// `` `c` where WANTED is due ``, or the line's end where it is.
fn unexpected(found: Option<u8>, wanted: &str) -> String {
    match found {
        None => format!("the line ends where {wanted} is due"),
        Some(c) => format!("`{}` where {wanted} is due", (c as char).escape_default()),
    }
}

/// Why a board literal is no position this engine plays ([`rules_for`], [`position_of`],
/// [`sow`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BoardError {
    /// A board of no pits.
    #[error("a board of 0 pits")]
    NoPits,
    /// More pits a row than the core plays.
    #[error("a board of {0} pits: this engine plays at most {MAX_PITS} pits a row")]
    TooManyPits(usize),
    /// More seeds than the core's positions hold.
    #[error("a board of {}: this engine plays at most {MAX_TOTAL_SEEDS}", seeds(*.0))]
    TooManySeeds(u32),
    /// Seeds that could not have started evenly in the pits.
    #[error(
        "a board of {} on {pits} pits a row: this engine plays only boards whose seeds could \
         start evenly in the pits (a multiple of {})",
        seeds(*.total),
        2 * *.pits as u32
    )]
    Uneven {
        /// Seeds on the board.
        total: u32,
        /// Pits a row.
        pits: usize,
    },
    /// A board literal with no numbers.
    #[error("an empty board")]
    Empty,
    /// A board literal whose length disagrees with its pits.
    #[error(
        "the board gives {pits} pits a row but holds {numbers} numbers, not {}",
        pits.saturating_mul(2).saturating_add(3)
    )]
    Length {
        /// Pits a row.
        pits: usize,
        /// Numbers in the literal.
        numbers: usize,
    },
    /// A move beyond the row.
    #[error("move {k}: a pit is 1 to {pits}")]
    NoPit {
        /// The move.
        k: i64,
        /// Pits a row.
        pits: usize,
    },
    /// The core refused the rules, the position or the move.
    #[error("{0}")]
    Core(#[from] mancala_core::Error),
}

/// `1 seed`, `N seeds`.
fn seeds(total: u32) -> String {
    if total == 1 {
        "1 seed".to_string()
    } else {
        format!("{total} seeds")
    }
}

/// Why no line can be read from a connection ([`LineRead::read_line`]).
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    /// A line longer than [`MAX_LINE`] bytes.
    #[error("a line longer than {MAX_LINE} bytes")]
    TooLong,
    /// A WebSocket message longer than [`MAX_LINE`] bytes.
    #[error("a WebSocket message longer than {MAX_LINE} bytes")]
    MessageTooLong,
    /// A line that is not UTF-8.
    #[error("a line that is not UTF-8")]
    NotUtf8,
    /// A binary WebSocket message of this many bytes.
    #[error("a binary WebSocket message ({0} bytes): KGP is sent as text")]
    Binary(usize),
    /// The network failed.
    #[error("the connection failed: {0}")]
    Failed(#[from] std::io::Error),
    /// The WebSocket failed otherwise (its error's text).
    #[error("the WebSocket failed: {0}")]
    WebSocket(String),
}

/// A bot's faults are reported as their text ([`SessionReport::fault`]).
impl From<ParseError> for String {
    fn from(e: ParseError) -> String {
        e.to_string()
    }
}

/// See `From<ParseError> for String`.
impl From<BoardError> for String {
    fn from(e: BoardError) -> String {
        e.to_string()
    }
}

/// See `From<ParseError> for String`.
impl From<LineError> for String {
    fn from(e: LineError) -> String {
        e.to_string()
    }
}

#[cfg(test)]
mod tests;
