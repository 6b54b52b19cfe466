//! Positions, moves and turns as the client draws them, with the sowing trace it animates.

use mancala_core::notation::{self, Notation};
use mancala_core::{Game, PlayedMove, Position, Side};
use serde::Serialize;

/// The side's word in JSON: `"south"` or `"north"`.
pub fn side_str(s: Side) -> &'static str {
    match s {
        Side::South => "south",
        Side::North => "north",
    }
}

/// The side a JSON word names (`"south"` or `"north"`); `None` for any other word.
pub fn parse_side(s: &str) -> Option<Side> {
    match s {
        "south" => Some(Side::South),
        "north" => Some(Side::North),
        _ => None,
    }
}

pub(super) fn notation_str(n: Notation) -> &'static str {
    match n {
        Notation::Letters => "letters",
        Notation::Digits => "digits",
        Notation::Kauri => "kauri",
    }
}

/// A position as the client draws it (`board`, `start`, `positions[k]`).
#[derive(Debug, Clone, Serialize)]
pub struct Board {
    /// South's pits from South's left.
    pub south: Vec<u16>,
    /// North's pits from North's left.
    pub north: Vec<u16>,
    /// South's store, then North's.
    pub stores: [u16; 2],
    /// `"south"` or `"north"`; null once the game is over.
    pub to_move: Option<&'static str>,
    /// The position in the notation of `mancala_core`.
    pub position: String,
    /// The cowries of each pit, only under rules that have them (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cowries: Option<Cowries>,
}

/// The cowries of each pit of both rows.
#[derive(Debug, Clone, Serialize)]
pub struct Cowries {
    /// South's pits from South's left.
    pub south: Vec<u8>,
    /// North's pits from North's left.
    pub north: Vec<u8>,
}

/// Pits, stores, cowries and side to move.
pub fn board(p: &Position) -> Board {
    let m = p.pits();
    let row = |s: Side| (0..m).map(|i| p.seeds(s, i)).collect::<Vec<_>>();
    let cowries = p.rules().has_cowries().then(|| {
        let cow = |s: Side| (0..m).map(|i| p.cowries(s, i)).collect::<Vec<_>>();
        Cowries {
            south: cow(Side::South),
            north: cow(Side::North),
        }
    });
    Board {
        south: row(Side::South),
        north: row(Side::North),
        stores: p.scores(),
        to_move: (!p.is_over()).then(|| side_str(p.to_move())),
        position: p.to_string(),
        cowries,
    }
}

/// Seeds of every ring place.
fn ring_counts(p: &Position) -> Vec<i32> {
    let m = p.pits();
    let s = p.scores();
    let mut v = Vec::with_capacity(2 * m + 2);
    v.extend((0..m).map(|i| p.seeds(Side::South, i) as i32));
    v.push(s[0] as i32);
    v.extend((0..m).map(|i| p.seeds(Side::North, i) as i32));
    v.push(s[1] as i32);
    v
}

/// One move as the client animates it (`recent[k]`, `moves[k]`).
#[derive(Debug, Clone, Serialize)]
pub struct MoveView {
    /// The move's index in the game, from 0.
    pub ply: usize,
    /// The mover: `"south"` or `"north"`.
    pub side: &'static str,
    /// The pit, 1-based from the mover's left; 0 for the pie rule's swap (`text` is `swap`,
    /// the path empty).
    pub pit: u8,
    /// The move in the game's notation.
    pub text: String,
    /// The ring place the seeds were taken from.
    pub origin: usize,
    /// The ring places sown, in order.
    pub path: Vec<usize>,
    /// The index in `path` from which the sown seeds are cowries (Kauri).
    pub cowries_from: usize,
    /// The pits the move captured seeds from (ring places).
    pub taken: Vec<usize>,
    /// The pits emptied by the end of the game's sweep of the seeds left on the board (ring
    /// places): not captures, since the seeds may go to their owner.
    pub swept: Vec<usize>,
    /// Seeds the mover's store gained.
    pub gain: u16,
    /// Seeds captured.
    pub captured: u16,
    /// Seeds handed to the opponent.
    pub handed: u16,
    /// Whether the mover moves again.
    pub again: bool,
    /// Whether the move ended the game.
    pub ended: bool,
    /// The position before the move: in a game's `recent` moves only (absent elsewhere).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<Board>,
    /// The computer's value of its own move, where it made it (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eval: Option<i32>,
}

/// One move with what the client needs to draw it: its text, the sowing path, the pits the
/// move captured from, and the pits emptied by the end sweep.
pub fn move_view(before: &Position, after: &Position, mv: &PlayedMove, ply: usize) -> MoveView {
    let notation = Notation::for_rules(before.rules());
    let mancala_core::SowingPath {
        places: path,
        cowries_from,
        ..
    } = before.sowing_path(mv.pit);
    let m = before.pits();
    let origin = if mv.side == Side::South {
        mv.pit as usize
    } else {
        m + 1 + mv.pit as usize
    };
    let (taken, swept) = emptied(before, after, mv, origin, &path, cowries_from);
    MoveView {
        ply,
        side: side_str(mv.side),
        pit: mancala_core::pit_number(mv.pit),
        text: notation.move_text(mv.side, mv.pit),
        origin,
        path,
        cowries_from,
        taken,
        swept,
        gain: mv.effect.gain,
        captured: mv.effect.captured,
        handed: mv.effect.handed,
        again: mv.effect.again,
        ended: mv.effect.ended,
        before: None,
        eval: None,
    }
}

/// The pits a move captured from and the pits the end sweep emptied, as ring places.
///
/// A pit is emptied when it holds fewer seeds after the move than the sowing alone left there
/// (Kauri's cowries are no seeds). Of those, a Kauri pit that held a cowrie lost nothing to a
/// capture (a seed sown onto an opponent's cowries alone goes to his store); a Kalah-family
/// capture takes the last seed's pit and the pit opposite; Kauri and Oware capture in the
/// opponent's row only. Every other emptied pit was swept at the end of the game.
fn emptied(
    before: &Position,
    after: &Position,
    mv: &PlayedMove,
    origin: usize,
    path: &[usize],
    cowries_from: usize,
) -> (Vec<usize>, Vec<usize>) {
    let m = before.pits();
    let mut sown = ring_counts(before);
    if let Some(c) = sown.get_mut(origin) {
        *c = 0;
    }
    for &i in &path[..cowries_from.min(path.len())] {
        if let Some(c) = sown.get_mut(i) {
            *c += 1;
        }
    }
    let after_counts = ring_counts(after);
    let place = |i: usize| -> Option<(Side, usize)> {
        match i {
            i if i < m => Some((Side::South, i)),
            i if i > m && i <= 2 * m => Some((Side::North, i - m - 1)),
            _ => None,
        }
    };
    let last = path.last().copied();
    let kalah = before.rules().preset.is_kalah_family();
    let (mut taken, mut swept) = (Vec::new(), Vec::new());
    for (i, (&s, &a)) in sown.iter().zip(&after_counts).enumerate() {
        let Some((side, pit)) = place(i) else {
            continue;
        };
        if s <= a || before.cowries(side, pit) > 0 {
            continue;
        }
        let captured = if kalah {
            mv.effect.captured > 0 && last.is_some_and(|l| i == l || i + l == 2 * m)
        } else {
            side != mv.side
        };
        if captured {
            taken.push(i);
        } else {
            swept.push(i);
        }
    }
    (taken, swept)
}

/// One turn in the game's notation (several moves where a move earned another).
#[derive(Debug, Clone, Serialize)]
pub struct TurnView {
    /// The move number, as a record numbers it.
    pub number: usize,
    /// The mover: `"south"` or `"north"`.
    pub side: &'static str,
    /// The turn's moves in the game's notation.
    pub text: String,
    /// The ply of the turn's first move.
    pub first_ply: usize,
    /// How many moves the turn has.
    pub plies: usize,
}

/// The turns as the game's notation writes them.
pub fn turns(game: &Game) -> Vec<TurnView> {
    let notation = Notation::for_rules(game.rules());
    let mut ply = 0;
    let first_north = game.start().to_move() == Side::North;
    game.turns()
        .iter()
        .enumerate()
        .map(|(k, (side, moves))| {
            let first_ply = ply;
            ply += moves.len();
            TurnView {
                number: (k + usize::from(first_north)) / 2 + 1,
                side: side_str(*side),
                text: notation::turn_text(notation, *side, moves),
                first_ply,
                plies: moves.len(),
            }
        })
        .collect()
}
