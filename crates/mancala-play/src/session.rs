//! One game session, as every front end drives it (`mancala play`, the full-screen TUI, the
//! server's games): the game, who sits on each side, undo and redo, hints, the computer's
//! turn, how the game ended and its record. Front ends keep only their input and drawing
//! (and the server its storage).
//!
//! The computer's move is chosen where the front end likes: `play` lets the session play it
//! ([`Session::computer_turn`], a [`Seat::Computer`] keeps its engine); the TUI and the server
//! think on a thread or a worker pool about a [`Moment`] of the game ([`Session::moment`],
//! a [`Seat::Level`]) and pass the move back with [`Session::play`] if the game is still
//! there ([`Session::is_at`]).
//!
//! **Undo** takes back the asker's last move (one sowing) and every move after it: after an
//! extra turn the asker is back before the last sowing of that turn, still to move, and a
//! second undo goes one sowing further. A turn with extra turns is a chain of decisions, and
//! undo takes back one decision at a time, as it does for a move in any other game
//! ([`undo_point`]).

use mancala_core::record::Players;
pub use mancala_core::record::Stop;
use mancala_core::{Ending, Error, Game, MoveEffect, Outcome, PlayedMove, Position, Record, Side};
use mancala_engine::{think, Budget, Engine, Level, SearchResult};

use crate::player::Computer;

/// Who plays a side of a session.
pub enum Seat {
    /// A person, whose moves the front end passes in ([`Session::play`]).
    Person,
    /// The computer, which keeps its engine (and its table) through the game.
    Computer(Box<Computer>),
    /// The computer at a level, whose moves the front end chooses away from the session
    /// (a thread, a worker pool) from a [`Moment`] and passes in with [`Session::play`].
    Level(Level),
}

impl Seat {
    /// Whether a person plays this side.
    pub fn is_person(&self) -> bool {
        matches!(self, Seat::Person)
    }

    /// The level the computer plays this side at; `None` for a person.
    pub fn level(&self) -> Option<Level> {
        match self {
            Seat::Person => None,
            Seat::Computer(c) => Some(c.level),
            Seat::Level(l) => Some(*l),
        }
    }
}

/// How the game of a [`Session`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// By the rules (the end rule, a decided game or a repetition).
    Rules(Ending, Outcome),
    /// Off the board: a resignation, a clock, an abandoned game, an agreed draw, a
    /// cancelled or cut-off game.
    Stopped(Stop),
}

impl End {
    /// The winner, if any.
    pub fn winner(self) -> Option<Side> {
        match self {
            End::Rules(_, o) => o.winner(),
            End::Stopped(s) => s.winner(),
        }
    }
}

/// Why an undo was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UndoError {
    /// The asker has made no move to take back.
    #[error("nothing to undo: no move of yours yet")]
    Nothing,
    /// The game ended off the board (resigned, on time, cut off...).
    #[error("the game has ended")]
    Stopped(Stop),
}

/// The length the game is cut back to when `side` asks to undo: just before `side`'s last
/// move (one sowing), taking back every move after it too. `None` when `side` has not moved.
/// The one undo rule of every front end (see the module's documentation).
pub fn undo_point(game: &Game, side: Side) -> Option<usize> {
    game.moves().iter().rposition(|m| m.side == side)
}

/// The game at one moment, owned, for thinking about its next move away from the session
/// (on a thread, a worker pool): the position to move in and the game's positions before it.
#[derive(Clone, Debug)]
pub struct Moment {
    /// The position to move in.
    pub position: Position,
    /// The game's positions before it (the repetition rule).
    pub history: Vec<Position>,
    /// Moves played before it.
    pub ply: usize,
}

impl Moment {
    /// A hint for the side to move ([`think::hint`]) on `engine`, within `budget`.
    pub fn hint(&self, engine: &Engine, budget: Budget) -> Option<SearchResult> {
        think::hint(engine, &self.position, &self.history, budget)
    }

    /// Every legal move's value and the best line ([`think::analyse`]).
    pub fn analyse(&self, engine: &Engine, budget: Budget) -> think::Analysis {
        think::analyse(engine, &self.position, &self.history, budget)
    }

    /// The move of the computer at `level` with the move's `seed` ([`Level::choose`]).
    pub fn choose(&self, level: &Level, seed: u64) -> Option<u8> {
        level.choose(&self.position, &self.history, seed)
    }
}

/// A game between two seats.
pub struct Session {
    game: Game,
    seats: [Seat; 2],
    players: Players,
    /// Moves taken back by undo, the next to replay last.
    redo: Vec<u8>,
    stop: Option<Stop>,
}

impl Session {
    /// A session from `start`, South's seat first; `players` names them in the record.
    pub fn new(start: Position, seats: [Seat; 2], players: Players) -> Session {
        Session::from_game(Game::new(start), seats, players)
    }

    /// A session that goes on from `game` (a stored game, an opened record).
    pub fn from_game(game: Game, seats: [Seat; 2], players: Players) -> Session {
        Session {
            game,
            seats,
            players,
            redo: Vec::new(),
            stop: None,
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

    /// Whether the computer plays at least one side.
    pub fn against_computer(&self) -> bool {
        self.seats.iter().any(|s| !s.is_person())
    }

    /// The players' names, as the record gives them.
    pub fn players(&self) -> &Players {
        &self.players
    }

    /// Names the players anew (a person joined).
    pub fn set_players(&mut self, players: Players) {
        self.players = players;
    }

    /// The game now, to think about away from the session.
    pub fn moment(&self) -> Moment {
        Moment {
            position: *self.game.position(),
            history: self.game.history().to_vec(),
            ply: self.game.moves().len(),
        }
    }

    /// Whether the game is still at `m` (no move played or taken back since): a move or a
    /// hint thought about `m` applies now.
    pub fn is_at(&self, m: &Moment) -> bool {
        self.game.moves().len() == m.ply && *self.game.position() == m.position
    }

    /// The computer of `side`, if the computer plays it.
    pub fn computer(&self, side: Side) -> Option<&Computer> {
        match &self.seats[side.index()] {
            Seat::Computer(c) => Some(c),
            Seat::Person | Seat::Level(_) => None,
        }
    }

    /// The computer of `side`, to change (its engine's tables, say).
    pub fn computer_mut(&mut self, side: Side) -> Option<&mut Computer> {
        match &mut self.seats[side.index()] {
            Seat::Computer(c) => Some(c),
            Seat::Person | Seat::Level(_) => None,
        }
    }

    /// Whether the computer is to move in a live game.
    pub fn computer_to_move(&self) -> bool {
        self.end().is_none() && !self.seat(self.game.to_move()).is_person()
    }

    /// Plays own pit `pit` for the side to move (a person's move, or a move the front end's
    /// own computer thread chose). Forgets what undo took back, unless `pit` is the move
    /// redo would replay next.
    pub fn play(&mut self, pit: u8) -> Result<MoveEffect, Error> {
        if self.stop.is_some() {
            return Err(Error::GameOver);
        }
        let e = self.game.play(pit)?;
        if self.redo.last() == Some(&pit) {
            self.redo.pop();
        } else {
            self.redo.clear();
        }
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

    /// The length the game goes back to when `side` asks to undo ([`undo_point`]), or why
    /// it cannot: for a front end that stores the game first.
    pub fn undo_point(&self, side: Side) -> Result<usize, UndoError> {
        self.may_undo()?;
        undo_point(&self.game, side).ok_or(UndoError::Nothing)
    }

    /// Why no undo is possible at all: a game ended off the board.
    fn may_undo(&self) -> Result<(), UndoError> {
        match self.stop {
            Some(s) => Err(UndoError::Stopped(s)),
            None => Ok(()),
        }
    }

    /// Undo for `side` ([`undo_point`]): the number of moves taken back, oldest last on the
    /// redo stack.
    pub fn undo(&mut self, side: Side) -> Result<usize, UndoError> {
        let k = self.undo_point(side)?;
        Ok(self.back_to(k))
    }

    /// Undo at a board shared by its players (the TUI): for the person who moved last, or,
    /// between two computers, the last move alone.
    pub fn undo_last(&mut self) -> Result<usize, UndoError> {
        let asker = self
            .game
            .moves()
            .iter()
            .rev()
            .find(|m| self.seat(m.side).is_person())
            .map(|m| m.side);
        match asker {
            Some(side) => self.undo(side),
            None if self.seats.iter().any(Seat::is_person) => Err(UndoError::Nothing),
            None => {
                self.may_undo()?;
                let k = self.game.moves().len().checked_sub(1);
                Ok(self.back_to(k.ok_or(UndoError::Nothing)?))
            }
        }
    }

    /// Takes back every move after the first `k` (replay mode's "play on from here"), onto
    /// the redo stack; the number taken back.
    pub fn back_to(&mut self, k: usize) -> usize {
        let mut n = 0;
        while self.game.moves().len() > k {
            let Some(m) = self.game.undo() else { break };
            self.redo.push(m.pit);
            n += 1;
        }
        n
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

    /// How many moves undo has left to replay.
    pub fn redo_len(&self) -> usize {
        self.redo.len()
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
        self.stop(Stop::Resigned(side));
    }

    /// Cuts a live game off unfinished ([`Stop::Interrupted`]).
    pub fn interrupt(&mut self) {
        self.stop(Stop::Interrupted);
    }

    /// Ends a live game off the board (a resignation, a clock, an agreed draw...); a game
    /// already over stays as it ended.
    pub fn stop(&mut self, stop: Stop) {
        if self.end().is_none() {
            self.stop = Some(stop);
        }
    }

    /// How the game ended; `None` while it is live.
    pub fn end(&self) -> Option<End> {
        if let Some(s) = self.stop {
            return Some(End::Stopped(s));
        }
        Some(End::Rules(self.game.ending()?, self.game.outcome()?))
    }

    /// The game's record, the players named; a stop off the board gives its result.
    pub fn record(&self) -> Record {
        let mut rec = Record::from_game(&self.game, self.players.clone());
        if let Some(stop) = self.stop {
            rec.result = mancala_core::record::RecordResult::stopped(&self.game, stop);
        }
        rec
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
        assert_eq!(
            s.undo(Side::South),
            Err(UndoError::Stopped(Stop::Resigned(Side::South)))
        );
    }

    /// Between two computers a shared board's undo takes back one move; playing the move
    /// redo would replay keeps the rest to replay.
    #[test]
    fn undo_between_computers_and_replaying_by_hand() {
        let start = Position::start(&"kalah".parse().unwrap()).unwrap();
        let level = Level::new(1).unwrap();
        let mut s = Session::new(
            start,
            [Seat::Level(level), Seat::Level(level)],
            Players::default(),
        );
        assert!(s.computer_to_move() && s.computer_turn(|_| {}).unwrap().is_empty());
        assert_eq!(s.undo_last(), Err(UndoError::Nothing));
        let m = s.moment();
        for pit in [3, 0, 0] {
            s.play(pit).unwrap();
        }
        assert!(!s.is_at(&m));
        assert_eq!(s.undo_last(), Ok(1));
        assert_eq!(s.back_to(0), 2);
        assert!(s.is_at(&m));
        s.play(3).unwrap();
        assert_eq!(s.redo_len(), 2);
        s.play(1).unwrap();
        assert!(!s.can_redo());
        s.interrupt();
        assert_eq!(s.end(), Some(End::Stopped(Stop::Interrupted)));
        assert_eq!(s.undo_last(), Err(UndoError::Stopped(Stop::Interrupted)));
    }

    /// The position after South's D from Kalah(6,3)'s start: every front end's undo after
    /// D, A and the computer's answer comes back to it.
    pub const AFTER_D: &str = "kalah/3-3-3-0-4-4/1/3-3-3-3-3-3/0/s";
}
