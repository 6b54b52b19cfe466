//! A game in progress: a start position, the moves played, undo, and the repetition rule.

use serde::{Deserialize, Serialize};

use crate::{Error, MoveEffect, Moves, Outcome, Position, Rules, Side};

/// How a game ended by its rules ([`Game::ending`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ending {
    /// By the end rule: a row (or the mover's) is empty, the seeds left counted as the rules
    /// say.
    Rule,
    /// A store holds more than half of the seeds (`stop-when-decided`): this side's.
    Decided(Side),
    /// The third occurrence of a position with the same player to move: a draw.
    ThirdRepetition,
    /// A repeated position, the seeds left shared by the repetition rule.
    Repetition,
}

impl Ending {
    /// The end in a record's words (`third repetition`, `repeated position`) where the end
    /// rule did not end the game; `None` for the end rule and a decided game.
    pub fn record_reason(self) -> Option<&'static str> {
        match self {
            Ending::ThirdRepetition => Some("third repetition"),
            Ending::Repetition => Some("repeated position"),
            Ending::Rule | Ending::Decided(_) => None,
        }
    }
}

/// One move of a game: who sowed which own pit (0-based from his left) and what it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayedMove {
    /// The player who sowed.
    pub side: Side,
    /// The pit sown: own pit, 0-based from the mover's left.
    pub pit: u8,
    /// What the sowing did: store growth, captures, whether the same player moves again, the end.
    pub effect: MoveEffect,
}

/// A game from a start position, with every position kept for undo and for the repetition
/// rule ([`Rules::repeat_ends_at`]: the third occurrence of a position with the same player
/// to move ends Cross-Kalah and Kauri as a draw, a project rule (docs/rules.md); the second
/// ends Oware and shares the seeds left).
#[derive(Clone, Debug)]
pub struct Game {
    positions: Vec<Position>,
    moves: Vec<PlayedMove>,
    repetition: bool,
}

impl Game {
    /// A game that starts at `start`, with no move played yet.
    pub fn new(start: Position) -> Game {
        Game {
            positions: vec![start],
            moves: Vec::new(),
            repetition: false,
        }
    }

    /// A game from the start position of `rules`.
    pub fn from_rules(rules: &Rules) -> Result<Game, Error> {
        Ok(Game::new(Position::start(rules)?))
    }

    /// The rules the game is played under (those of its start position).
    pub fn rules(&self) -> &Rules {
        self.start().rules()
    }
    /// The position the game started from: the rules' start or a set-up position.
    pub fn start(&self) -> &Position {
        &self.positions[0]
    }
    /// The position now.
    pub fn position(&self) -> &Position {
        self.positions.last().expect("a game always has its start")
    }
    /// Position after `k` moves (0 = start).
    pub fn position_at(&self, k: usize) -> Option<&Position> {
        self.positions.get(k)
    }
    /// The moves played so far, oldest first: one entry per sowing, so a turn with extra moves
    /// fills several.
    pub fn moves(&self) -> &[PlayedMove] {
        &self.moves
    }
    /// The positions before the current one, oldest first (what a search needs for the
    /// repetition rule).
    pub fn history(&self) -> &[Position] {
        &self.positions[..self.positions.len() - 1]
    }
    /// The side to move in the current position.
    pub fn to_move(&self) -> Side {
        self.position().to_move()
    }

    /// Ended by the repetition rule on the current position.
    pub fn ended_by_repetition(&self) -> bool {
        self.repetition
    }
    /// How a repetition ended the game, in a record's words (`third repetition`); `None`
    /// unless it did.
    pub fn repetition_reason(&self) -> Option<&'static str> {
        self.ending().and_then(Ending::record_reason)
    }
    /// How the game ended by its rules; `None` while it is live. Every front end says the
    /// end from this.
    pub fn ending(&self) -> Option<Ending> {
        if self.repetition {
            return Some(match self.rules().repeat_ends_at() {
                Some(3) => Ending::ThirdRepetition,
                _ => Ending::Repetition,
            });
        }
        if !self.position().is_over() {
            return None;
        }
        let rules = self.rules();
        let s = self.scores();
        let total = rules.total_seeds();
        let leader = if s[0] >= s[1] {
            Side::South
        } else {
            Side::North
        };
        Some(
            if rules.stop_when_decided && u32::from(s[leader.index()]) * 2 > total {
                Ending::Decided(leader)
            } else {
                Ending::Rule
            },
        )
    }
    /// The stores, with the seeds a repetition shares once it ended the game.
    pub fn scores(&self) -> [u16; 2] {
        let p = self.position();
        match p.repetition_scores() {
            Some(s) if self.repetition => s,
            _ => p.scores(),
        }
    }
    /// The game has ended, by its end rule or by the repetition rule.
    pub fn is_over(&self) -> bool {
        self.repetition || self.position().is_over()
    }
    /// Who won, once the game is over (also when the repetition rule ended it); `None` while it is
    /// live.
    pub fn outcome(&self) -> Option<Outcome> {
        if self.repetition {
            Some(match self.position().repetition_scores() {
                None => Outcome::Draw,
                Some([s, n]) if s > n => Outcome::Win(Side::South),
                Some([s, n]) if s < n => Outcome::Win(Side::North),
                Some(_) => Outcome::Draw,
            })
        } else {
            self.position().outcome()
        }
    }
    /// The legal moves of the side to move: own pits from the mover's left; empty once the game is
    /// over, also by repetition.
    pub fn legal_moves(&self) -> Moves {
        if self.repetition {
            Moves::default()
        } else {
            self.position().legal_moves()
        }
    }

    /// Plays own pit `pit` (0-based from the mover's left) for the side to move.
    ///
    /// Errors: [`Error::GameOver`], [`Error::IllegalMove`]; the game is unchanged on error.
    pub fn play(&mut self, pit: u8) -> Result<MoveEffect, Error> {
        if self.repetition {
            return Err(Error::GameOver);
        }
        let mut next = *self.position();
        let side = next.to_move();
        let effect = next.play(pit)?;
        self.positions.push(next);
        self.moves.push(PlayedMove { side, pit, effect });
        self.repetition = match self.rules().repeat_ends_at() {
            Some(n) => {
                !next.is_over() && self.positions.iter().filter(|p| **p == next).count() >= n
            }
            None => false,
        };
        Ok(effect)
    }

    /// Takes back the last move; `None` at the start.
    pub fn undo(&mut self) -> Option<PlayedMove> {
        let mv = self.moves.pop()?;
        self.positions.pop();
        self.repetition = false;
        Some(mv)
    }

    /// The moves grouped into turns: a turn is one side's consecutive moves.
    pub fn turns(&self) -> Vec<(Side, Vec<PlayedMove>)> {
        let mut turns: Vec<(Side, Vec<PlayedMove>)> = Vec::new();
        for (k, mv) in self.moves.iter().enumerate() {
            // A new turn starts when the side changes, or after a move that did not give
            // another (only possible if the side changes anyway).
            let continues = k > 0 && self.moves[k - 1].effect.again;
            match turns.last_mut() {
                Some((side, v)) if continues && *side == mv.side => v.push(*mv),
                _ => turns.push((mv.side, vec![*mv])),
            }
        }
        turns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undo_restores_and_errors_leave_the_game_unchanged() {
        let mut g = Game::from_rules(&"kalah,seeds=4".parse().unwrap()).unwrap();
        assert!(g.play(2).unwrap().again);
        assert!(g.play(6).is_err());
        assert_eq!(g.moves().len(), 1);
        g.play(5).unwrap();
        assert_eq!(g.turns().len(), 1);
        assert_eq!(g.to_move(), Side::North);
        g.undo();
        g.undo();
        assert_eq!(g.position(), g.start());
        assert!(g.undo().is_none());
    }
}
