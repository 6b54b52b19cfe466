//! A game's row and its moves as the database stores them, and the words its columns hold.

use mancala_core::Side;

use crate::clock::Clock;
use crate::offer::Offer;
use crate::view::Stop;

/// One game's row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    /// The game's id in URLs (`/api/games/ID`): 16 random hex digits.
    pub id: String,
    /// The start position, as a position string.
    pub start: String,
    /// When the game was created, in milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// `[south, north]`: true where the computer plays.
    pub ai: [bool; 2],
    /// `[south, north]`: true where a KGP bot plays (seat kind `kgp`, a value of the kind
    /// columns, no schema change; its name in `names`).
    pub bots: [bool; 2],
    /// The computer's level (1-8) in a game against it; `None` between two people.
    pub ai_level: Option<u8>,
    /// `[south, north]`: the secret that acts for each seat; `None` while the seat is not taken,
    /// and where the computer plays.
    pub tokens: [Option<String>; 2],
    /// `[south, north]`: the players' display names; `None` where none was given.
    pub names: [Option<String>; 2],
    /// The code that claims the open seat of a game between two people; `None` once used, and in
    /// games against the computer.
    pub invite: Option<String>,
    /// 0 South, 1 North.
    pub resigned: Option<u8>,
    /// A KGP bot's game that a restart of the server cut off before its end: it stays
    /// unfinished, and nobody can move in it.
    pub interrupted: bool,
    /// Drives the computer's random choices in this game, mixed with the number of moves played.
    pub seed: i64,
    /// What games between people add: the clock, offers, the rematch, other ends.
    pub between: Between,
}

/// The parts of a game's row that games between people use ([`crate::between`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Between {
    /// The game's clock; `None`: untimed.
    pub clock: Option<Clock>,
    /// How the game ended off the board other than a resignation or a restart (on time,
    /// abandoned, agreed, cancelled).
    pub stopped: Option<Stop>,
    /// An offer one player made the other, standing until answered or a move is made.
    pub offer: Option<Offer>,
    /// The id of the rematch, once one was agreed.
    pub rematch: Option<String>,
    /// `[south, north]`: since when the seat's player has had no connection open (for a
    /// claim against an absent player); `None` while connected or never seen.
    pub away_ms: [Option<i64>; 2],
}

/// A stop stored in `games.stopped`.
pub(super) fn stop_text(s: Stop) -> Option<String> {
    Some(match s {
        Stop::Time(side) => format!("time:{}", side_name(side.index() as u8)),
        Stop::Abandoned(side) => format!("abandoned:{}", side_name(side.index() as u8)),
        Stop::Agreed => "agreed".into(),
        Stop::Cancelled => "cancelled".into(),
        Stop::Resigned(_) | Stop::Interrupted => return None,
    })
}

/// `games.stopped` read back.
pub(super) fn stop_from(t: &str) -> Option<Stop> {
    let side = |s: &str| match s {
        "south" => Some(Side::South),
        "north" => Some(Side::North),
        _ => None,
    };
    match t.split_once(':') {
        Some(("time", s)) => side(s).map(Stop::Time),
        Some(("abandoned", s)) => side(s).map(Stop::Abandoned),
        None if t == "agreed" => Some(Stop::Agreed),
        None if t == "cancelled" => Some(Stop::Cancelled),
        _ => None,
    }
}

/// One stored move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveRow {
    /// The move's place in the game: 0 is the first move (one sowing each).
    pub ply: u32,
    /// Own pit sown, 0-based from the mover's left.
    pub pit: u8,
    /// The engine's value after a computer move, in seeds from the mover's view (the final
    /// margin it expected); `None` for a person's move or where the engine gave none.
    pub eval: Option<i32>,
    /// The search depth the computer's move came from; `None` for a person's move or a move
    /// chosen without a search to a depth.
    pub depth: Option<u32>,
    /// Milliseconds the computer took to choose the move; `None` for a person's move.
    pub time_ms: Option<u64>,
}

/// A seat's kind as the `games` table stores it.
pub(super) fn kind(ai: bool, bot: bool) -> &'static str {
    if ai {
        "ai"
    } else if bot {
        "kgp"
    } else {
        "human"
    }
}

/// A side as the `games` table stores it (0 South, 1 North).
pub(super) fn side_name(s: u8) -> &'static str {
    if s == 0 {
        "south"
    } else {
        "north"
    }
}
