//! One game session, as every front end drives it (`mancala play`, the full-screen TUI, the
//! server's games): the game, who sits on each side, undo and redo, hints, the computer's
//! turn, how the game ended and its record. Front ends keep only their input and drawing.
//!
//! **Undo** takes back the asker's last move (one sowing) and every move after it: after an
//! extra turn the asker is back before the last sowing of that turn, still to move, and a
//! second undo goes one sowing further. A turn with extra turns is a chain of decisions, and
//! undo takes back one decision at a time, as it does for a move in any other game
//! ([`undo_point`]).

use mancala_core::record::Players;
use mancala_core::{Ending, Error, Game, MoveEffect, Outcome, PlayedMove, Position, Record, Side};
use mancala_engine::{think, Budget, Engine, SearchResult};

use crate::player::Computer;

/// Who plays a side of a session.
pub enum Seat {
    /// A person, whose moves the front end passes in ([`Session::play`]).
    Person,
    /// The computer, which keeps its engine (and its table) through the game.
    Computer(Box<Computer>),
}

impl Seat {
    /// Whether a person plays this side.
    pub fn is_person(&self) -> bool {
        matches!(self, Seat::Person)
    }
}

/// How the game of a [`Session`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// By the rules (the end rule, a decided game or a repetition).
    Rules(Ending, Outcome),
    /// This side resigned.
    Resigned(Side),
}

impl End {
    /// The winner, if any.
    pub fn winner(self) -> Option<Side> {
        match self {
            End::Rules(_, o) => o.winner(),
            End::Resigned(s) => Some(s.other()),
        }
    }
}

/// Why an undo was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UndoError {
    /// The asker has made no move to take back.
    #[error("nothing to undo: no move of yours yet")]
    Nothing,
    /// The game was resigned.
    #[error("the game was resigned")]
    Resigned,
}

/// The length the game is cut back to when `side` asks to undo: just before `side`'s last
/// move (one sowing), taking back every move after it too. `None` when `side` has not moved.
/// The one undo rule of every front end (see the module's documentation).
pub fn undo_point(game: &Game, side: Side) -> Option<usize> {
    game.moves().iter().rposition(|m| m.side == side)
}

/// A game between two seats.
pub struct Session {
    game: Game,
    seats: [Seat; 2],
    players: Players,
    /// Moves taken back by undo, the next to replay last.
    redo: Vec<u8>,
    resigned: Option<Side>,
}

impl Session {
    /// A session from `start`, South's seat first; `players` names them in the record.
    pub fn new(start: Position, seats: [Seat; 2], players: Players) -> Session {
        Session {
            game: Game::new(start),
            seats,
            players,
            redo: Vec::new(),
            resigned: None,
        }
    }

    /// The game so far.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Who plays `side`.
    pub fn seat(&self, side: Side) -> &Seat {
        &self.seats[side.index()]
    }

    /// The computer of `side`, if the computer plays it.
    pub fn computer(&self, side: Side) -> Option<&Computer> {
        match &self.seats[side.index()] {
            Seat::Computer(c) => Some(c),
            Seat::Person => None,
        }
    }

    /// The computer of `side`, to change (its engine's tables, say).
    pub fn computer_mut(&mut self, side: Side) -> Option<&mut Computer> {
        match &mut self.seats[side.index()] {
            Seat::Computer(c) => Some(c),
            Seat::Person => None,
        }
    }

    /// Whether the computer is to move in a live game.
    pub fn computer_to_move(&self) -> bool {
        self.end().is_none() && !self.seat(self.game.to_move()).is_person()
    }

    /// Plays own pit `pit` for the side to move (a person's move, or a move the front end's
    /// own computer thread chose). Forgets what undo took back.
    pub fn play(&mut self, pit: u8) -> Result<MoveEffect, Error> {
        if self.resigned.is_some() {
            return Err(Error::GameOver);
        }
        let e = self.game.play(pit)?;
        self.redo.clear();
        Ok(e)
    }

    /// Plays the computer's whole turn; `after_each` is called after each of its moves (to
    /// check its endgame tables, say). Empty when a person is to move or the game is over.
    pub fn computer_turn(
        &mut self,
        after_each: impl FnMut(&mut Computer),
    ) -> anyhow::Result<Vec<PlayedMove>> {
        if !self.computer_to_move() {
            return Ok(Vec::new());
        }
        let side = self.game.to_move();
        let Seat::Computer(c) = &mut self.seats[side.index()] else {
            return Ok(Vec::new());
        };
        let moves = c.play_turn(&mut self.game, after_each)?;
        self.redo.clear();
        Ok(moves)
    }

    /// Undo for `side` ([`undo_point`]): the moves taken back, oldest last on the redo stack.
    pub fn undo(&mut self, side: Side) -> Result<usize, UndoError> {
        if self.resigned.is_some() {
            return Err(UndoError::Resigned);
        }
        let k = undo_point(&self.game, side).ok_or(UndoError::Nothing)?;
        let n = self.game.moves().len() - k;
        while self.game.moves().len() > k {
            if let Some(m) = self.game.undo() {
                self.redo.push(m.pit);
            }
        }
        Ok(n)
    }

    /// Replays the moves undo took back, up to the next move of a person other than the
    /// first replayed; the number replayed.
    pub fn redo(&mut self) -> usize {
        let mut n = 0;
        while let Some(&pit) = self.redo.last() {
            if n > 0 && self.seat(self.game.to_move()).is_person() {
                break;
            }
            if self.game.play(pit).is_err() {
                self.redo.clear();
                break;
            }
            self.redo.pop();
            n += 1;
        }
        n
    }

    /// Whether undo has left moves to replay.
    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// A hint for the side to move ([`think::hint`]) on `engine`, within `budget`.
    pub fn hint(&self, engine: &Engine, budget: Budget) -> Option<SearchResult> {
        if self.end().is_some() {
            return None;
        }
        think::hint(engine, self.game.position(), self.game.history(), budget)
    }

    /// `side` resigns a live game.
    pub fn resign(&mut self, side: Side) {
        if self.end().is_none() {
            self.resigned = Some(side);
        }
    }

    /// How the game ended; `None` while it is live.
    pub fn end(&self) -> Option<End> {
        if let Some(s) = self.resigned {
            return Some(End::Resigned(s));
        }
        Some(End::Rules(self.game.ending()?, self.game.outcome()?))
    }

    /// The game's record, the players named.
    pub fn record(&self) -> Record {
        Record::from_game(&self.game, self.players.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_engine::Level;

    /// Kalah(6,3): South sows D (the last seed in the store: an extra turn), then A; North,
    /// the computer, answers. Undo takes South back to the position after D, South to move.
    #[test]
    fn undo_after_an_extra_turn_goes_back_one_sowing() {
        let start = Position::start(&"kalah".parse().unwrap()).unwrap();
        let computer = Computer::new(Level::new(1).unwrap(), 7);
        let mut s = Session::new(
            start,
            [Seat::Person, Seat::Computer(Box::new(computer))],
            Players::default(),
        );
        assert_eq!(s.undo(Side::South), Err(UndoError::Nothing));
        assert!(s.play(3).unwrap().again);
        s.play(0).unwrap();
        let answer = s.computer_turn(|_| {}).unwrap();
        assert!(!answer.is_empty() && !s.computer_to_move());
        assert_eq!(s.undo(Side::South), Ok(1 + answer.len()));
        assert_eq!(s.game().position().to_string(), AFTER_D);
        assert_eq!(s.game().to_move(), Side::South);
        // Redo replays South's A, then stops before South's next decision.
        assert_eq!(s.redo(), 1 + answer.len());
        assert_eq!(s.undo(Side::South), Ok(1 + answer.len()));
        assert_eq!(s.undo(Side::South), Ok(1));
        assert_eq!(s.game().moves().len(), 0);
        s.resign(Side::South);
        assert_eq!(s.end().and_then(End::winner), Some(Side::North));
        assert_eq!(s.undo(Side::South), Err(UndoError::Resigned));
    }

    /// The position after South's D from Kalah(6,3)'s start: every front end's undo after
    /// D, A and the computer's answer comes back to it.
    pub const AFTER_D: &str = "kalah/3-3-3-0-4-4/1/3-3-3-3-3-3/0/s";
}
