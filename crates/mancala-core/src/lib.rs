//! Rules, positions, notation and game records for the Kalah family of sowing games:
//! Kalah(m,n) with its options, the Brazilian classroom Kalah, the 4 x 2 Vaccean mancala,
//! Cross-Kalah, Dracala, and Kauri (seeds and cowries).
//!
//! Pure code: no I/O, no threads; builds for `wasm32-unknown-unknown`.
//!
//! # Board layout (Kalah family)
//! A board of `m` pits a side is a ring of `2m + 2` counts: index `0..m` are South's pits 1..m
//! (South's left to right), `m` is South's store, `m+1..=2m` are North's pits 1..m (North's
//! left to right), `2m + 1` is North's store. Sowing counter-clockwise is index + 1. Own pit `i`
//! faces pit `2m - i`. South moves first.
//!
//! # Moves and turns
//! A move is one sowing, named by its pit `0..m` counted from the mover's own left. A turn is
//! a player's whole go: a move plus its extra moves (Kauri: sowings while the opponent passes).

#![warn(missing_docs)]

pub mod game;
pub mod i18n;
pub mod kalah;
pub mod kauri;
pub mod notation;
pub mod oware;
pub mod perft;
pub mod position;
pub mod record;
pub mod rng;
pub mod rules;
pub mod time_control;

use core::fmt;

use serde::{Deserialize, Serialize};

use i18n::Lang;
pub use i18n::Msg;

pub use game::{Ending, Game, PlayedMove};
pub use kalah::{KalahPos, KalahRules};
pub use kauri::KauriPos;
pub use oware::OwarePos;
pub use position::Position;
pub use record::Record;
pub use rules::{
    Capture, DecidedLeftovers, EndCheck, GameFamily, GrandSlam, Leftovers, Preset, Repetition,
    Rules, Stage, MAX_PITS,
};
pub use time_control::TimeControl;

/// A player. South is the first player and sits at the bottom of a diagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The first player, at the bottom of a diagram; index 0 in per-side arrays.
    South = 0,
    /// The second player, at the top of a diagram; index 1 in per-side arrays.
    North = 1,
}

impl Side {
    /// Both players in playing order: South, then North.
    pub const BOTH: [Side; 2] = [Side::South, Side::North];

    /// The opponent of this player.
    #[inline]
    pub fn other(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    /// This player's index in per-side arrays (stores, rows, scores): 0 for South, 1 for North.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The player's name as shown to people: `"South"` or `"North"`.
    pub fn name(self) -> &'static str {
        match self {
            Side::South => "South",
            Side::North => "North",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a finished game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// This side won: by the seeds in the stores, or (Kauri) by the cowrie rule at a tie.
    Win(Side),
    /// Neither side won: equal stores, or a repetition that ends the game without a winner.
    Draw,
}

impl Outcome {
    /// The winning side; `None` for a draw.
    pub fn winner(self) -> Option<Side> {
        match self {
            Outcome::Win(s) => Some(s),
            Outcome::Draw => None,
        }
    }
}

/// The move that swaps seats under the pie rule (`pie=true`): North's first action, instead
/// of sowing. It mirrors the board (the rows and the stores exchange: North takes over the
/// position South built, South plays on from North's old side) and passes the turn to South;
/// the players keep their seat names. It is outside every pit number, 0-based (engine, core)
/// or 1-based (records), and written `swap` in every notation.
pub const SWAP: u8 = 128;

/// A move as the JSON answers of the command line and the server number it: its pit 1-based
/// from the mover's left, 0 for [`SWAP`] (their `move` or `text` then reads `swap`).
pub fn pit_number(mv: u8) -> u8 {
    if mv == SWAP {
        0
    } else {
        mv + 1
    }
}

/// Most moves a position can have: every pit and the swap.
pub const MAX_MOVES: usize = MAX_PITS + 1;

/// What of the game's opening is still to come, where the rules treat it specially
/// (`first-move-extra-turn=false`, `pie=true`); [`Opening::None`] under every other rule.
/// A position carries it explicitly (position strings write it as `opening=...`), since the
/// board alone does not tell a start from a position set up to look like one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Opening {
    /// Nothing special is pending.
    #[default]
    None,
    /// South's very first move is still to come (South to move).
    FirstMove,
    /// South's first turn goes on after an extra turn; North may swap when its turn comes
    /// (`pie=true` only; South to move).
    FirstTurn,
    /// North may swap now, as its first action (`pie=true` only; North to move).
    Swap,
}

impl Opening {
    /// Every state, in the order a game passes through them.
    pub const ALL: [Opening; 4] = [
        Opening::None,
        Opening::FirstMove,
        Opening::FirstTurn,
        Opening::Swap,
    ];

    /// Its word in a position string (`opening=WORD`): `none`, `first-move`, `first-turn`,
    /// `swap`.
    pub fn word(self) -> &'static str {
        match self {
            Opening::None => "none",
            Opening::FirstMove => "first-move",
            Opening::FirstTurn => "first-turn",
            Opening::Swap => "swap",
        }
    }
}

/// The legal moves of a position: own pits `0..m` from the mover's left, in increasing order,
/// then [`SWAP`] where North may swap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Moves {
    buf: [u8; MAX_MOVES],
    len: u8,
}

impl Moves {
    /// Appends own pit `pit` (0-based from the mover's left) or [`SWAP`]; at most
    /// [`MAX_MOVES`] moves fit.
    #[inline]
    pub fn push(&mut self, pit: u8) {
        self.buf[self.len as usize] = pit;
        self.len += 1;
    }
    /// Number of moves in the list.
    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// Whether the list holds no move.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The moves as own pits, 0-based from the mover's left, in increasing order.
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        &self.buf[..self.len as usize]
    }
    /// Whether own pit `pit` (0-based from the mover's left) is among the moves.
    pub fn contains(&self, pit: u8) -> bool {
        self.as_slice().contains(&pit)
    }
    /// Keeps the moves for which `keep` holds, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(u8) -> bool) {
        let mut n = 0;
        for i in 0..self.len as usize {
            let p = self.buf[i];
            if keep(p) {
                self.buf[n] = p;
                n += 1;
            }
        }
        self.len = n as u8;
    }
}

impl<'a> IntoIterator for &'a Moves {
    type Item = u8;
    type IntoIter = core::iter::Copied<core::slice::Iter<'a, u8>>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter().copied()
    }
}

/// What one move did, seen from the mover.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveEffect {
    /// Growth of the mover's store during the move (seeds sown into it and captured), not
    /// counting the sweep of the board at the end of the game. Dracala's "capture".
    pub gain: u16,
    /// Seeds taken by capture (Kalah: opposite seeds plus the capturing seed if it went to the
    /// store; Kauri: direct captures).
    pub captured: u16,
    /// Kauri: seeds this move handed to the opponent's store (indirect capture).
    pub handed: u16,
    /// The last seed landed in the mover's own store.
    pub in_store: bool,
    /// The same player moves next.
    pub again: bool,
    /// The move ended the game.
    pub ended: bool,
}

/// The hot-loop interface of a rule family's position (implemented by [`KalahPos`] and
/// [`KauriPos`]): perft, search and database code are generic over it and monomorphised.
pub trait GameState: Copy {
    /// The side whose move it is; in a finished game, the side that would have moved next.
    fn to_move(&self) -> Side;
    /// The game has ended: no move can be played.
    fn is_over(&self) -> bool;
    /// The legal moves of the side to move; empty once the game is over.
    fn legal_moves(&self) -> Moves;
    /// Number of legal moves (may be faster than `legal_moves().len()`).
    fn count_moves(&self) -> u64 {
        self.legal_moves().len() as u64
    }
    /// Plays a legal move without checking it.
    fn play_unchecked(&mut self, pit: u8) -> MoveEffect;
    /// Stores by side (captured seeds), after the end sweep once over.
    fn scores(&self) -> [u16; 2];
    /// Who won, once the game is over; `None` while it is live.
    fn outcome(&self) -> Option<Outcome>;
}

/// An unvalidated position: what a position string, a JSON body, a fuzzer or a board editor
/// gives, checked by the family's [`Family::from_setup`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Setup {
    /// `(seeds, cowries)` of each pit, South's row then North's, each from its owner's left.
    pub rows: [Vec<(u16, u8)>; 2],
    /// Captured seeds, South first.
    pub stores: [u16; 2],
    /// The side to move; `None` for a finished game.
    pub to_move: Option<Side>,
    /// Who last grew his store (only under `leftovers=last-capturer`).
    pub last_capturer: Option<Side>,
    /// What of the opening is pending (only under `first-move-extra-turn=false` or `pie`).
    pub opening: Opening,
}

/// Both rows of a setup in bytes, `(seeds, cowries)` a pit ([`Setup::narrow`]).
pub type ByteRows = [Vec<(u8, u8)>; 2];

impl Setup {
    /// The seeds of each row, refusing cowries in a game that has none.
    pub fn seed_rows(&self) -> Result<[Vec<u16>; 2], Error> {
        let row = |side: Side| -> Result<Vec<u16>, Error> {
            self.rows[side.index()]
                .iter()
                .enumerate()
                .map(|(i, &(s, c))| match c {
                    0 => Ok(s),
                    _ => Err(Error::Position(
                        Msg::new("error.position.cowries")
                            .side("side", side)
                            .arg("pit", i + 1),
                    )),
                })
                .collect()
        };
        Ok([row(Side::South)?, row(Side::North)?])
    }

    /// Refuses an opening state where the rules have no opening rule (`rules` names them).
    pub fn no_opening(&self, rules: &Rules) -> Result<(), Error> {
        match self.opening {
            Opening::None => Ok(()),
            o => Err(Error::Position(
                Msg::new("error.position.opening-unused")
                    .arg("opening", o.word())
                    .arg("rules", rules),
            )),
        }
    }

    /// The rows and stores in bytes, for a family whose counts are bytes (Kauri, Oware): a
    /// count over 255 is refused as a wrong seed total (`total`: the rules' seeds).
    pub fn narrow(&self, total: u32) -> Result<(ByteRows, [u8; 2]), Error> {
        let counts = self
            .rows
            .iter()
            .flatten()
            .map(|&(s, _)| s)
            .chain(self.stores);
        if counts.clone().any(|s| s > u8::MAX as u16) {
            return Err(Error::Position(
                Msg::new("error.position.seed-total")
                    .arg("seeds", counts.map(u32::from).sum::<u32>())
                    .arg("total", total),
            ));
        }
        let row = |r: &Vec<(u16, u8)>| r.iter().map(|&(s, c)| (s as u8, c)).collect();
        Ok((
            [row(&self.rows[0]), row(&self.rows[1])],
            self.stores.map(|s| s as u8),
        ))
    }

    /// Refuses a last capturer where the rules do not use one.
    pub fn no_last_capturer(&self) -> Result<(), Error> {
        match self.last_capturer {
            None => Ok(()),
            Some(_) => Err(Error::Position(Msg::new(
                "error.position.last-capturer-unused",
            ))),
        }
    }
}

/// A rule family's position: everything [`Position`] and the generic code (records,
/// displays, the server, the engine's dispatch) need beyond the hot loop of [`GameState`].
/// Implemented by [`KalahPos`], [`KauriPos`] and [`OwarePos`]; registered in
/// [`position`]'s family list.
pub trait Family: GameState + Eq + core::hash::Hash + fmt::Debug + Send + Sync + 'static {
    /// The start position of `rules`.
    fn start(rules: &Rules) -> Result<Self, Error>;
    /// A position of `rules` from a setup, checked (seed totals, a live position that is over).
    fn from_setup(rules: &Rules, setup: &Setup) -> Result<Self, Error>;
    /// The setup [`Family::from_setup`] rebuilds this position from.
    fn setup(&self) -> Setup;
    /// `(seeds, cowries)` of pit `i` of `side`, from the owner's left.
    fn pit_content(&self, side: Side, i: usize) -> (u16, u8);
    /// Seeds on the board.
    fn board_seeds(&self) -> u32;
    /// Plays a move, or says why it is illegal; the position is unchanged on error.
    fn play(&mut self, pit: u8) -> Result<MoveEffect, Error>;
    /// The same position with the seats swapped.
    fn mirrored(&self) -> Self;
    /// See [`Position::sowing_path`]; `pit` is on the board.
    fn sowing_path(&self, pit: u8) -> SowingPath;
    /// The stores if the game ended here by repetition; `None` where a repetition is a draw.
    fn repetition_scores(&self) -> Option<[u16; 2]> {
        None
    }
}

/// Where a sowing drops its pieces, for a display to animate ([`Position::sowing_path`]):
/// the places in order, which of them are cowries, and the seeds taken as pieces fall.
/// Dropping the pieces and making the takes in order gives the position after the move,
/// except for the captures made after the sowing (Kalah family, Oware) and the end sweep,
/// which a display shows by drawing the position [`Position::play`] made.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SowingPath {
    /// The ring places the pieces fall on, in order: `0..m` South's pits, `m` South's store,
    /// `m+1..=2m` North's pits, `2m+1` North's store (games whose stores are never sown into
    /// number their pits the same way).
    pub places: Vec<usize>,
    /// The index in `places` from which the pieces are Kauri cowries (`places.len()` in the
    /// other games).
    pub cowries_from: usize,
    /// The seeds that leave a place the moment a piece falls there (Kauri's captures and
    /// handed seeds), in the order of their steps.
    pub takes: Vec<Take>,
}

/// Seeds that leave the place a piece has just fallen on for a store: a step of a
/// [`SowingPath`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Take {
    /// The index in [`SowingPath::places`] of the piece whose fall takes them.
    pub step: usize,
    /// How many seeds leave the place (the fallen piece among them where it is a seed).
    pub seeds: u8,
    /// Whose store they go to.
    pub to: Side,
}

/// The sowing path of a game whose `2m` pits form the ring without stores (Kauri, Oware),
/// in [`Position::sowing_path`]'s numbering: `pieces` dropped from ring pit `origin`, the
/// origin skipped on later laps when `skip_origin`.
pub(crate) fn storeless_path(
    m: usize,
    origin: usize,
    pieces: usize,
    skip_origin: bool,
) -> Vec<usize> {
    let mut idx = origin;
    let mut path = Vec::with_capacity(pieces);
    while path.len() < pieces {
        idx = (idx + 1) % (2 * m);
        if skip_origin && idx == origin {
            continue;
        }
        path.push(ring_place(m, idx));
    }
    path
}

/// The place in [`SowingPath::places`]'s numbering of index `idx` of a ring of `2m` pits
/// without stores.
pub(crate) fn ring_place(m: usize, idx: usize) -> usize {
    if idx < m {
        idx
    } else {
        idx + 1
    }
}

macro_rules! game_state {
    ($t:ty) => {
        impl GameState for $t {
            #[inline]
            fn to_move(&self) -> Side {
                <$t>::to_move(self)
            }
            #[inline]
            fn is_over(&self) -> bool {
                <$t>::is_over(self)
            }
            #[inline]
            fn legal_moves(&self) -> Moves {
                <$t>::legal_moves(self)
            }
            #[inline]
            fn play_unchecked(&mut self, pit: u8) -> MoveEffect {
                <$t>::play_unchecked(self, pit)
            }
            #[inline]
            fn scores(&self) -> [u16; 2] {
                <$t>::scores(self).map(u16::from)
            }
            #[inline]
            fn outcome(&self) -> Option<Outcome> {
                <$t>::outcome(self)
            }
        }
    };
}
game_state!(KauriPos);
game_state!(OwarePos);

impl<C: kalah::Cell> GameState for KalahPos<C> {
    #[inline]
    fn to_move(&self) -> Side {
        KalahPos::to_move(self)
    }
    #[inline]
    fn is_over(&self) -> bool {
        KalahPos::is_over(self)
    }
    #[inline]
    fn legal_moves(&self) -> Moves {
        KalahPos::legal_moves(self)
    }
    #[inline]
    fn count_moves(&self) -> u64 {
        KalahPos::count_moves(self)
    }
    #[inline]
    fn play_unchecked(&mut self, pit: u8) -> MoveEffect {
        KalahPos::play_unchecked(self, pit)
    }
    #[inline]
    fn scores(&self) -> [u16; 2] {
        KalahPos::scores(self)
    }
    #[inline]
    fn outcome(&self) -> Option<Outcome> {
        KalahPos::outcome(self)
    }
}

/// Every error the crate returns. Each message says what is wrong and where, as a key of the
/// translation files and its arguments ([`i18n::Msg`]): `Display` says it in English,
/// [`Error::text_in`] in any language.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// Bad rules or option values.
    Rules(Msg),
    /// A position string or setup that is malformed or not a legal position.
    Position(Msg),
    /// A move that is not legal here.
    IllegalMove(Msg),
    /// The game is over; no move can be played.
    GameOver,
    /// A malformed game record or a record that disagrees with its replay.
    Record(Msg),
    /// A policy's logits from which no move can be drawn (the wrong number, or a NaN or +inf
    /// for a legal pit, or -inf for every one).
    Logits(Msg),
    /// A time control (`3+2`, `3d`) that does not read.
    Clock(Msg),
}

/// Characters of a message shown before it is cut: a message quoting its input (an
/// unknown 100 kB preset name) is not echoed back whole.
const MESSAGE_MAX: usize = 400;

/// `s` with its control characters escaped (`\u{1b}`): text from a record, a file or the
/// command line that is shown back (a player's name, an error quoting its input) cannot
/// drive the terminal that shows it.
pub fn printable(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// `m` as a message shows it: escaped ([`printable`]) and, past [`MESSAGE_MAX`] characters,
/// cut with a count of the rest.
fn shown(m: &str) -> String {
    match m.char_indices().nth(MESSAGE_MAX) {
        Some((cut, _)) => format!(
            "{}... ({} more characters)",
            printable(&m[..cut]),
            m[cut..].chars().count()
        ),
        None => printable(m),
    }
}

impl Error {
    /// The error as one message: its kind's key (`error.illegal-move`: "illegal move:
    /// {message}") with what is wrong as `message`.
    pub fn msg(&self) -> Msg {
        let (key, m) = match self {
            Error::Rules(m) => ("error.rules", m),
            Error::Position(m) => ("error.position", m),
            Error::IllegalMove(m) => ("error.illegal-move", m),
            Error::GameOver => return Msg::new("error.game-over"),
            Error::Record(m) => ("error.record", m),
            Error::Logits(m) => ("error.logits", m),
            Error::Clock(m) => ("error.clock", m),
        };
        Msg::new(key).sub("message", m.clone())
    }

    /// The error in `lang`; in English it is its `Display`.
    pub fn text_in(&self, lang: Lang) -> String {
        let (key, m) = match self {
            Error::Rules(m) => ("error.rules", m),
            Error::Position(m) => ("error.position", m),
            Error::IllegalMove(m) => ("error.illegal-move", m),
            Error::GameOver => return i18n::text(lang, "error.game-over").to_string(),
            Error::Record(m) => ("error.record", m),
            Error::Logits(m) => ("error.logits", m),
            Error::Clock(m) => ("error.clock", m),
        };
        // Messages quote their input: shown escaped, and cut when long.
        i18n::format(lang, key, &[("message", &shown(&m.text_in(lang)))])
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text_in(Lang::En))
    }
}

impl std::error::Error for Error {}
