//! The text notations of the source pages (docs/rules.md): parse, replay with checks, print.
//!
//! - [`Notation::Letters`] (Kalah family, Mancala World): South's pits `A`-`F`, North's `a`-`f`,
//!   each from the owner's left; a turn's moves joined by `-`; optional `(+n)` store gain.
//! - [`Notation::Digits`] (Dracala, Ralf Gering's *Dracala* page): pits `1`-`6` from the
//!   mover's left; a turn's moves joined by `-`; `(-n)` the turn's capture, no parenthesis
//!   meaning none.
//! - [`Notation::Kauri`] (Ralf Gering's *Kauri* page): first player's sowings `a`-`f`,
//!   second's `A`-`F`; sowings while the opponent passes joined by `-` (`d-a-f`); `(+n)`
//!   seeds taken by direct capture, `(-n)` seeds handed to the opponent, `(+n;-m)` both; `!`
//!   and `?` comments.
//!
//! Move numbers (`7.`), bullets (`- ` at a line start), dot leaders (`....`), `;` and `,` are
//! separators. A final score may be claimed as `38 : 26` (first player first) and is checked.

use core::fmt::Write;

use crate::{Error, Game, MoveEffect, Msg, PlayedMove, Position, Rules, Side, SWAP};

mod parse;

pub use parse::parse_for;

/// How every notation writes the pie rule's swap ([`SWAP`]); read in any case.
pub const SWAP_TEXT: &str = "swap";

/// Which of the three notations a game uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notation {
    /// Kalah family (Mancala World): South's pits `A`-`F`, North's `a`-`f`; `(+n)` store gains.
    Letters,
    /// Dracala: pits `1`-`6` from the mover's left; `(-n)` the turn's capture.
    Digits,
    /// Kauri: the first player's sowings `a`-`f`, the second's `A`-`F`; `(+n)` direct captures,
    /// `(-n)` seeds handed to the opponent.
    Kauri,
}

impl Notation {
    /// The notation of `rules`' game: digits for Dracala, Kauri's for Kauri, letters for the rest.
    pub fn for_rules(rules: &Rules) -> Notation {
        rules.preset.notation()
    }

    /// Most pits a row written in this notation: nine digits, or [`crate::MAX_PITS`] letters.
    pub fn max_pits(self) -> u8 {
        match self {
            Notation::Digits => 9,
            Notation::Letters | Notation::Kauri => crate::MAX_PITS as u8,
        }
    }

    /// The text of one move: own pit `pit` (0-based) of `side`, or `swap` for [`SWAP`].
    pub fn move_text(self, side: Side, pit: u8) -> String {
        if pit == SWAP {
            return SWAP_TEXT.to_string();
        }
        let upper = match self {
            Notation::Digits => return ((b'1' + pit) as char).to_string(),
            Notation::Letters => side == Side::South,
            Notation::Kauri => side == Side::North,
        };
        let base = if upper { b'A' } else { b'a' };
        ((base + pit) as char).to_string()
    }

    /// Reads one move character: the pit (0-based) and, for letters, whose pit it is.
    fn read_move(self, c: char) -> Option<(u8, Option<Side>)> {
        match self {
            Notation::Digits => c
                .to_digit(10)
                .filter(|d| (1..=9).contains(d))
                .map(|d| (d as u8 - 1, None)),
            Notation::Letters | Notation::Kauri => {
                if !c.is_ascii_alphabetic() || !matches!(c.to_ascii_lowercase(), 'a'..='p') {
                    return None;
                }
                let pit = c.to_ascii_lowercase() as u8 - b'a';
                let south_upper = self == Notation::Letters;
                let side = if c.is_ascii_uppercase() == south_upper {
                    Side::South
                } else {
                    Side::North
                };
                Some((pit, Some(side)))
            }
        }
    }
}

/// One move as written: pit (0-based), the side its letter names, and any `!`/`?` comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextMove {
    /// Own pit, 0-based from the mover's left.
    pub pit: u8,
    /// Whose pit the letter names (its case tells); `None` for a digit, which names the mover's.
    pub side: Option<Side>,
    /// The `!`/`?` marks written after the move (such as `"!?"`); `None` when there are none.
    pub comment: Option<String>,
    /// Byte offset of the move in the text.
    pub at: usize,
}

/// One turn as written, with its annotation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextTurn {
    /// The turn's sowings in order: more than one when extra moves follow.
    pub moves: Vec<TextMove>,
    /// `(+n)`: Letters, store gain; Kauri, direct captures. Dracala writes its capture `(-n)`;
    /// it is kept in `minus`.
    pub plus: Option<u32>,
    /// `(-n)`: Digits, capture; Kauri, seeds handed to the opponent.
    pub minus: Option<u32>,
    /// The move number written before the turn (`7.`), counting pairs of turns; `None` when the
    /// turn is not numbered.
    pub number: Option<u32>,
}

/// A parsed movetext: the turns and an optional claimed final score (first player first).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveText {
    /// The turns in playing order.
    pub turns: Vec<TextTurn>,
    /// The claimed final score (`38 : 26`), first player first; `None` when none is written.
    pub score: Option<[u32; 2]>,
}

/// Where byte `at` of `text` is: `line L, column C (at `...`)`.
fn place(text: &str, at: usize) -> Msg {
    let line = text[..at].matches('\n').count() + 1;
    let col = text[..at].rfind('\n').map_or(at, |n| at - n - 1) + 1;
    // The text from there to the end of its line, at most 12 characters.
    let snippet: String = text[at..]
        .chars()
        .take_while(|&c| c != '\n' && c != '\r')
        .take(12)
        .collect();
    Msg::new("error.record.place")
        .arg("line", line)
        .arg("column", col)
        .arg("text", snippet.trim_end())
}

/// Parses movetext in `notation`. Errors ([`Error::Record`]) name the line, column and fault.
pub fn parse(notation: Notation, text: &str) -> Result<MoveText, Error> {
    parse_for(notation, crate::MAX_PITS as u8, text)
}

/// How strictly [`replay`] holds a record to its annotations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// Every annotation (and, in Dracala and Kauri, every missing one, meaning 0) and a
    /// claimed score must match the replay.
    Strict,
    /// Only the moves are replayed.
    MovesOnly,
}

/// Sums of a turn's effects, as its annotation counts them.
fn turn_gains(effects: &[MoveEffect]) -> (u32, u32, u32) {
    effects.iter().fold((0, 0, 0), |(g, c, h), e| {
        (
            g + e.gain as u32,
            c + e.captured as u32,
            h + e.handed as u32,
        )
    })
}

/// Checks what turn `t` of `text` (played by `side`, with `effects`) claims it gained,
/// captured or handed over against what its moves did.
fn check_claims(
    notation: Notation,
    turn: &TextTurn,
    t: usize,
    side: Side,
    effects: &[MoveEffect],
    text: &str,
) -> Result<(), Error> {
    let (gain, captured, handed) = turn_gains(effects);
    let claims: Vec<(&str, Option<u32>, u32)> = match notation {
        Notation::Letters => vec![("error.record.claim.gain", turn.plus, gain)],
        Notation::Digits => vec![(
            "error.record.claim.capture",
            Some(turn.minus.unwrap_or(0)),
            gain,
        )],
        Notation::Kauri => vec![
            (
                "error.record.claim.direct",
                Some(turn.plus.unwrap_or(0)),
                captured,
            ),
            (
                "error.record.claim.handed",
                Some(turn.minus.unwrap_or(0)),
                handed,
            ),
        ],
    };
    for (what, claim, actual) in claims {
        if let Some(c) = claim {
            if c != actual {
                let moves: String = turn
                    .moves
                    .iter()
                    .map(|m| notation.move_text(side, m.pit))
                    .collect::<Vec<_>>()
                    .join("-");
                return Err(Error::Record(
                    Msg::new("error.record.claim")
                        .arg("turn", t + 1)
                        .side("side", side)
                        .arg("moves", moves)
                        .sub("what", Msg::new(what))
                        .arg("claim", c)
                        .arg("actual", actual)
                        .sub("place", place(text, turn.moves[0].at)),
                ));
            }
        }
    }
    Ok(())
}

/// Replays `text` onto `game`, checking every move's legality, every turn's shape (a turn
/// goes on exactly while its moves give another move) and, with [`Check::Strict`], every
/// annotation. The first disagreement is reported with its turn, move and what each side says.
pub fn replay(game: &mut Game, text: &str, check: Check) -> Result<(), Error> {
    let notation = Notation::for_rules(game.rules());
    let parsed = parse_for(notation, game.position().pits() as u8, text)?;
    let nturns = parsed.turns.len();
    for (t, turn) in parsed.turns.iter().enumerate() {
        let side = game.to_move();
        // Once the game is over no one is to move: the turn is named without a side.
        let over = game.is_over();
        let mut effects = Vec::new();
        let label = |k: usize| {
            let mv = &turn.moves[k];
            let text = notation.move_text(mv.side.unwrap_or(side), mv.pit);
            if over {
                Msg::new("error.record.turn-move")
            } else {
                Msg::new("error.record.turn-side-move").side("side", side)
            }
            .arg("turn", t + 1)
            .arg("move", k + 1)
            .arg("text", text)
        };
        for (k, mv) in turn.moves.iter().enumerate() {
            let fail = |fault: Msg| {
                Error::Record(
                    Msg::new("error.record.in-turn")
                        .sub("turn", label(k))
                        .sub("fault", fault)
                        .sub("place", place(text, mv.at)),
                )
            };
            if game.is_over() {
                return Err(fail(Msg::new("error.record.over")));
            }
            if let Some(s) = mv.side {
                if s != side {
                    return Err(fail(
                        Msg::new("error.record.wrong-side")
                            .side("pit_side", s)
                            .side("side", side),
                    ));
                }
            }
            let e = game
                .play(mv.pit)
                .map_err(|e| fail(Msg::new("list.one").error("item", e)))?;
            effects.push(e);
            let last = k + 1 == turn.moves.len();
            if !last && !e.again {
                return Err(fail(Msg::new(if game.is_over() {
                    "error.record.ends-game"
                } else {
                    "error.record.passes-turn"
                })));
            }
            if last && e.again && t + 1 < nturns {
                return Err(fail(Msg::new(match notation {
                    Notation::Kauri => "error.record.kauri-again",
                    _ => "error.record.store-again",
                })));
            }
        }
        if check == Check::Strict {
            check_claims(notation, turn, t, side, &effects, text)?;
        }
    }
    if let (Check::Strict, Some([a, b])) = (check, parsed.score) {
        let s = game.scores();
        if !game.is_over() {
            return Err(Error::Record(
                Msg::new("error.record.score-not-over")
                    .arg("south", a)
                    .arg("north", b),
            ));
        }
        if [s[0] as u32, s[1] as u32] != [a, b] {
            return Err(Error::Record(
                Msg::new("error.record.score-differs")
                    .arg("south", a)
                    .arg("north", b)
                    .arg("replay_south", s[0])
                    .arg("replay_north", s[1]),
            ));
        }
    }
    Ok(())
}

/// Whether playing `pits` from `pos` ends the game: a principal variation read from a table
/// stops where the table lost the next move, and says so where it is shown.
pub fn line_ends_game(pos: &Position, pits: &[u8]) -> bool {
    let mut p = *pos;
    pits.iter().all(|&m| p.play(m).is_ok()) && p.is_over()
}

/// `pits` (own pits of each mover, 0-based) played from `pos`, in the game's notation: a
/// turn's moves joined by `-`, turns by spaces (`C-F b`); stops at an illegal move or the end
/// of the game. Principal variations are written so everywhere.
pub fn line_text(pos: &Position, pits: &[u8]) -> String {
    let notation = Notation::for_rules(pos.rules());
    let mut p = *pos;
    let mut out = String::new();
    let mut prev: Option<Side> = None;
    for &mv in pits {
        if p.is_over() || !p.legal_moves().contains(mv) {
            break;
        }
        let side = p.to_move();
        if prev.is_some() {
            out.push(if prev == Some(side) { '-' } else { ' ' });
        }
        out.push_str(&notation.move_text(side, mv));
        prev = Some(side);
        if p.play(mv).is_err() {
            break;
        }
    }
    out
}

/// Prints one turn: moves joined by `-`, then the annotation its notation writes.
pub fn turn_text(notation: Notation, side: Side, moves: &[PlayedMove]) -> String {
    let mut s = moves
        .iter()
        .map(|m| notation.move_text(side, m.pit))
        .collect::<Vec<_>>()
        .join("-");
    let effects: Vec<MoveEffect> = moves.iter().map(|m| m.effect).collect();
    let (gain, captured, handed) = turn_gains(&effects);
    match notation {
        Notation::Letters if gain > 0 => write!(s, " (+{gain})").unwrap(),
        Notation::Digits if gain > 0 => write!(s, " (-{gain})").unwrap(),
        Notation::Kauri => match (captured, handed) {
            (0, 0) => {}
            (c, 0) => write!(s, " (+{c})").unwrap(),
            (0, h) => write!(s, " (-{h})").unwrap(),
            (c, h) => write!(s, " (+{c};-{h})").unwrap(),
        },
        _ => {}
    }
    s
}

/// Prints a whole game's movetext: numbered lines of the first player's turn and the reply,
/// and the final score once the game is over. [`replay`] reads it back.
pub fn game_text(game: &Game) -> String {
    let notation = Notation::for_rules(game.rules());
    let mut out = String::new();
    let turns = game.turns();
    let mut number = 1;
    let mut k = 0;
    if turns.first().is_some_and(|t| t.0 == Side::North) {
        write!(
            out,
            "1. ... {}",
            turn_text(notation, Side::North, &turns[0].1)
        )
        .unwrap();
        out.push('\n');
        number = 2;
        k = 1;
    }
    while k < turns.len() {
        write!(
            out,
            "{number}. {}",
            turn_text(notation, turns[k].0, &turns[k].1)
        )
        .unwrap();
        if let Some(t) = turns.get(k + 1) {
            write!(out, "  {}", turn_text(notation, t.0, &t.1)).unwrap();
        }
        out.push('\n');
        number += 1;
        k += 2;
    }
    if game.position().is_over() {
        let s = game.scores();
        writeln!(out, "{} : {}", s[0], s[1]).unwrap();
    }
    out
}

#[cfg(test)]
mod tests;
