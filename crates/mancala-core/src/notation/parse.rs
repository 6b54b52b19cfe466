//! Reading movetext ([`parse_for`]): a reader that takes it token by token.

use super::{place, MoveText, Notation, TextMove, TextTurn, SWAP_TEXT};
use crate::{Error, Msg, Side, SWAP};

fn err_at(text: &str, at: usize, fault: Msg) -> Error {
    Error::Record(
        Msg::new("error.record.at")
            .sub("place", place(text, at))
            .sub("fault", fault),
    )
}

/// As [`super::parse`], for a board of `pits` pits a row: its errors name that board's pits
/// (`a-f or A-F` for six).
pub fn parse_for(notation: Notation, pits: u8, text: &str) -> Result<MoveText, Error> {
    let mut parser = Parser::new(notation, pits, text);
    while parser.i < parser.bytes.len() {
        parser.token()?;
    }
    parser.finish()
}

/// The state of [`parse_for`] while it reads a movetext token by token.
struct Parser<'a> {
    notation: Notation,
    text: &'a str,
    bytes: Vec<(usize, char)>,
    /// The board's last pit letters, lower and upper case.
    last_lower: char,
    last_upper: char,
    /// The board's pit digits (`1-6`).
    digit_range: String,
    /// The board's pit letters, for errors on a digit written as a pit.
    letters: Msg,
    out: MoveText,
    /// The index in `bytes` of the next character to read.
    i: usize,
    /// A move number read and not yet given to a turn.
    number: Option<u32>,
    /// Where that number is written, and whether a dot follows it.
    number_at: (usize, bool),
    /// The last move number read, and the index of the turn it numbered.
    numbered: Option<(u32, usize)>,
    /// True while the last thing read was a move that a `-` may join to.
    joinable: bool,
}

impl<'a> Parser<'a> {
    fn new(notation: Notation, pits: u8, text: &'a str) -> Self {
        let pits = pits.clamp(1, notation.max_pits());
        let (last_lower, last_upper) = ((b'a' + pits - 1) as char, (b'A' + pits - 1) as char);
        let letters = Msg::new("error.record.letters")
            .arg("last_lower", last_lower)
            .arg("last_upper", last_upper);
        Parser {
            notation,
            text,
            bytes: text.char_indices().collect(),
            last_lower,
            last_upper,
            digit_range: format!("1-{pits}"),
            letters,
            out: MoveText::default(),
            i: 0,
            number: None,
            number_at: (0, false),
            numbered: None,
            joinable: false,
        }
    }

    fn char_at(&self, k: usize) -> Option<char> {
        self.bytes.get(k).map(|&(_, c)| c)
    }

    fn err(&self, at: usize, fault: Msg) -> Error {
        err_at(self.text, at, fault)
    }

    /// Reads the token at `i`: a separator, a `-`, an annotation, a number or score, the swap
    /// or a move.
    fn token(&mut self) -> Result<(), Error> {
        let (at, c) = self.bytes[self.i];
        if c.is_whitespace() || c == ';' || c == ',' || c == '.' || c == '…' {
            self.joinable = false;
            self.i += 1;
            return Ok(());
        }
        if c == '-' {
            return self.dash(at);
        }
        if c == '(' {
            return self.annotation(at);
        }
        if c.is_ascii_digit() && self.digits(at)? {
            return Ok(());
        }
        if self.swap(at)? {
            return Ok(());
        }
        self.single_move(at)
    }

    /// A `-` at `at`: joins the next move to the turn, or is a separator; a minus sign on a
    /// claimed score is an error.
    fn dash(&mut self, at: usize) -> Result<(), Error> {
        let i = self.i;
        let next_move = self.char_at(i + 1).and_then(|n| self.notation.read_move(n));
        if let (true, Some((pit, side))) = (self.joinable, next_move) {
            // Join: the next move belongs to the same turn.
            let turn = self.out.turns.last_mut().unwrap();
            turn.moves.push(TextMove {
                pit,
                side,
                comment: None,
                at: self.bytes[i + 1].0,
            });
            self.i = read_comment(&self.bytes, i + 2, turn);
            return Ok(());
        }
        // A minus sign on a claimed score (`-5 : 3`), which no score can have.
        let mut k = i + 1;
        while self.char_at(k).is_some_and(|c| c.is_ascii_digit()) {
            k += 1;
        }
        while k > i + 1 && self.char_at(k) == Some(' ') {
            k += 1;
        }
        if k > i + 1 && self.char_at(k) == Some(':') {
            return Err(self.err(at, Msg::new("error.record.negative-score")));
        }
        // A bullet or dash separator.
        self.joinable = false;
        self.i += 1;
        Ok(())
    }

    /// An annotation `(...)` at `at`, for the last turn.
    fn annotation(&mut self, at: usize) -> Result<(), Error> {
        let (text, notation, i) = (self.text, self.notation, self.i);
        let close = (i..self.bytes.len())
            .find(|&k| self.bytes[k].1 == ')')
            .ok_or_else(|| err_at(text, at, Msg::new("error.record.unclosed")))?;
        let inner: String = self.bytes[i + 1..close].iter().map(|&(_, c)| c).collect();
        let turn = self
            .out
            .turns
            .last_mut()
            .ok_or_else(|| err_at(text, at, Msg::new("error.record.early-annotation")))?;
        let parts: Vec<&str> = inner
            .split([';', ',', ' '])
            .filter(|p| !p.is_empty())
            .collect();
        if parts.is_empty() {
            // Not a capture of 0: a turn without one has no parenthesis.
            return Err(err_at(
                text,
                at,
                Msg::new("error.record.empty-annotation").arg("text", inner),
            ));
        }
        for part in parts {
            annotation_part(notation, turn, part).map_err(|fault| err_at(text, at, fault))?;
        }
        self.joinable = false;
        self.i = close + 1;
        Ok(())
    }

    /// A run of digits at `at`: a claimed score, a move number, or (for Digits) a pit. Returns
    /// whether it was read; if not, `i` is left at the digit for it to be read as a move.
    fn digits(&mut self, at: usize) -> Result<bool, Error> {
        let start = self.i;
        while self.char_at(self.i).is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        let digits: String = self.bytes[start..self.i].iter().map(|&(_, c)| c).collect();
        // A claimed score: `38 : 26`.
        let mut k = self.i;
        while self.char_at(k) == Some(' ') {
            k += 1;
        }
        if self.char_at(k) == Some(':') {
            self.score(at, &digits, k + 1)?;
            return Ok(true);
        }
        let is_number = self.notation != Notation::Digits || self.char_at(self.i) == Some('.');
        if is_number {
            self.move_number(at, &digits)?;
            return Ok(true);
        }
        if digits.len() > 1 {
            return Err(self.err(
                at,
                Msg::new("error.record.not-pit")
                    .arg("text", &digits)
                    .arg("pits", &self.digit_range),
            ));
        }
        self.i = start; // fall through to read the digit as a move
        Ok(false)
    }

    /// A claimed score at `at`: `first` read, the second's digits from after the `:` at `k`.
    fn score(&mut self, at: usize, first: &str, mut k: usize) -> Result<(), Error> {
        while self.char_at(k) == Some(' ') {
            k += 1;
        }
        let s2 = k;
        while self.char_at(k).is_some_and(|c| c.is_ascii_digit()) {
            k += 1;
        }
        let second: String = self.bytes[s2..k].iter().map(|&(_, c)| c).collect();
        if self.out.score.is_some() {
            return Err(self.err(at, Msg::new("error.record.second-score")));
        }
        match (first.parse(), second.parse()) {
            (Ok(a), Ok(b)) => self.out.score = Some([a, b]),
            _ => return Err(self.err(at, Msg::new("error.record.score-form"))),
        }
        self.i = k;
        self.joinable = false;
        Ok(())
    }

    /// A move number `digits` at `at`, checked against the last one; `i` is after its digits.
    fn move_number(&mut self, at: usize, digits: &str) -> Result<(), Error> {
        let n: u32 = digits
            .parse()
            .map_err(|_| self.err(at, Msg::new("error.record.number-too-large")))?;
        let dot = self.char_at(self.i) == Some('.');
        // A number without its dot that does not fit as one is a pit written as a
        // digit (as `play` takes them).
        let digit_pit = |fault: Msg| {
            if dot {
                fault
            } else {
                Msg::new("error.record.digit-not-move")
                    .arg("text", digits)
                    .sub("letters", self.letters.clone())
            }
        };
        if let Some(k) = self.number {
            let fault = digit_pit(Msg::new("error.record.number-no-move").arg("n", k));
            return Err(self.err(at, fault));
        }
        if n == 0 {
            let fault = digit_pit(Msg::new("error.record.number-zero"));
            return Err(self.err(at, fault));
        }
        // A number counts pairs of turns (a turn and its reply): `turns` after the
        // last numbered one it is that many pairs, rounded either way, further on.
        // The first may be any, for a record from a position.
        if let Some((k, t)) = self.numbered {
            let turns = (self.out.turns.len() - t) as u32;
            if let Some(fault) = number_order_fault(n, k, turns) {
                return Err(self.err(at, digit_pit(fault)));
            }
        }
        self.number = Some(n);
        self.number_at = (at, dot);
        self.joinable = false;
        Ok(())
    }

    /// The swap at `at`, a word of its own (Kalah-family notations; Kauri has no pie rule).
    /// Returns whether it was read.
    fn swap(&mut self, at: usize) -> Result<bool, Error> {
        let i = self.i;
        let swap_ends = i + SWAP_TEXT.len();
        let is_swap = self.notation != Notation::Kauri
            && swap_ends <= self.bytes.len()
            && self.bytes[i..swap_ends]
                .iter()
                .map(|&(_, c)| c.to_ascii_lowercase())
                .eq(SWAP_TEXT.chars())
            && !self.char_at(swap_ends).is_some_and(|c| c.is_alphanumeric());
        if !is_swap {
            return Ok(false);
        }
        if self.out.score.is_some() {
            return Err(self.err(at, Msg::new("error.record.move-after-score")));
        }
        self.start_turn(SWAP, None, at, swap_ends);
        // A swap never earns another move: nothing joins it.
        self.joinable = false;
        Ok(true)
    }

    /// A move at `at` that starts a turn, or an unexpected character.
    fn single_move(&mut self, at: usize) -> Result<(), Error> {
        let c = self.bytes[self.i].1;
        match self.notation.read_move(c) {
            Some(_) if self.out.score.is_some() => {
                Err(self.err(at, Msg::new("error.record.move-after-score")))
            }
            Some((pit, side)) => {
                self.start_turn(pit, side, at, self.i + 1);
                self.joinable = true;
                Ok(())
            }
            None => {
                let want = match self.notation {
                    Notation::Digits => {
                        Msg::new("error.record.want-digit").arg("pits", &self.digit_range)
                    }
                    _ => Msg::new("error.record.want-letter")
                        .arg("last_lower", self.last_lower)
                        .arg("last_upper", self.last_upper),
                };
                Err(self.err(
                    at,
                    Msg::new("error.record.unexpected")
                        .arg("text", c)
                        .sub("want", want),
                ))
            }
        }
    }

    /// Starts a turn with the move `pit` of `side` at `at`, numbered by any pending number;
    /// its comment is read from index `next`.
    fn start_turn(&mut self, pit: u8, side: Option<Side>, at: usize, next: usize) {
        if let Some(n) = self.number {
            self.numbered = Some((n, self.out.turns.len()));
        }
        let mut turn = TextTurn {
            number: self.number.take(),
            ..TextTurn::default()
        };
        turn.moves.push(TextMove {
            pit,
            side,
            comment: None,
            at,
        });
        self.i = read_comment(&self.bytes, next, &mut turn);
        self.out.turns.push(turn);
    }

    /// The movetext read, unless a number at the end numbers nothing: a move left out, or a
    /// pit written as a digit.
    fn finish(self) -> Result<MoveText, Error> {
        if let Some(n) = self.number {
            let (at, dot) = self.number_at;
            let fault = if dot {
                Msg::new("error.record.number-no-move").arg("n", n)
            } else {
                let digits = &self.text[at..]
                    .split(|c: char| !c.is_ascii_digit())
                    .next()
                    .unwrap_or("");
                Msg::new("error.record.digit-not-move")
                    .arg("text", digits)
                    .sub("letters", self.letters)
            };
            return Err(err_at(self.text, at, fault));
        }
        Ok(self.out)
    }
}

/// Reads one part of an annotation (`+3`, `-2`) into `turn`; the fault if it cannot be read,
/// does not belong to `notation`, or repeats one.
fn annotation_part(notation: Notation, turn: &mut TextTurn, part: &str) -> Result<(), Msg> {
    // Split after the first character, which need not be one byte (`…6`).
    let (sign, digits) = part.split_at(part.chars().next().map_or(0, char::len_utf8));
    let n: u32 = digits.parse().map_err(|_| {
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            Msg::new("error.record.annotation-too-large")
                .arg("text", part)
                .arg("seeds", digits)
        } else {
            Msg::new("error.record.bad-annotation").arg("text", part)
        }
    })?;
    let slot = match (sign, notation) {
        ("+", Notation::Digits) => {
            // The source writes a Dracala capture `(-n)` (captures count against
            // the capturer); a plus sign contradicts it.
            return Err(Msg::new("error.record.dracala-annotation").arg("text", part));
        }
        ("-", Notation::Digits) => &mut turn.minus,
        ("+", _) => &mut turn.plus,
        ("-", Notation::Letters) => {
            return Err(Msg::new("error.record.kalah-annotation").arg("text", part))
        }
        ("-", _) => &mut turn.minus,
        _ => return Err(Msg::new("error.record.bad-annotation").arg("text", part)),
    };
    if slot.is_some() {
        return Err(Msg::new("error.record.two-annotations"));
    }
    *slot = Some(n);
    Ok(())
}

/// The fault of move number `n` written `turns` turns after number `k`, if it is not `k` plus
/// that many pairs of turns, rounded either way.
fn number_order_fault(n: u32, k: u32, turns: u32) -> Option<Msg> {
    let pairs = turns / 2..=turns.div_ceil(2);
    if n > k && pairs.contains(&(n - k)) {
        return None;
    }
    Some(if n == k {
        Msg::new("error.record.number-again").arg("n", n)
    } else {
        let (lo, hi) = ((*pairs.start()).max(1), *pairs.end());
        let want = if lo == hi {
            crate::i18n::either([k + lo])
        } else {
            crate::i18n::either([k + lo, k + hi])
        };
        Msg::new(if turns == 1 {
            "error.record.number-order.one"
        } else {
            "error.record.number-order.other"
        })
        .arg("n", n)
        .arg("turns", turns)
        .arg("previous", k)
        .sub("want", want)
    })
}

/// Reads `!`/`?` marks after a move into its comment; returns the next index.
fn read_comment(bytes: &[(usize, char)], mut i: usize, turn: &mut TextTurn) -> usize {
    let mut mark = String::new();
    while let Some(&(_, c)) = bytes.get(i) {
        if c == '!' || c == '?' {
            mark.push(c);
            i += 1;
        } else {
            break;
        }
    }
    if !mark.is_empty() {
        turn.moves.last_mut().unwrap().comment = Some(mark);
    }
    i
}
