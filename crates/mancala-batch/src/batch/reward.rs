//! What a finished game pays the player who made its last move: a win, or the seed margin.

use mancala_core::{Game, Outcome, Side};
use mancala_engine::{Evaluation, Quality};

/// What a finished game pays the player who made its last move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reward {
    /// +1 for a win, -1 for a loss, 0 for a draw (Kauri's cowrie rule and the misère rule
    /// decide, as the game's outcome does).
    Win,
    /// The final seed margin, turned so that higher is better ([`Evaluation::score`]: negated
    /// in a misère game); a tie on seeds won by Kauri's cowrie rule counts one seed.
    Margin,
}

impl Reward {
    /// `win` or `margin`.
    pub fn parse(s: &str) -> Result<Reward, String> {
        match s {
            "win" => Ok(Reward::Win),
            "margin" => Ok(Reward::Margin),
            _ => Err(format!("reward `{s}`: give `win` or `margin`")),
        }
    }

    /// The reward of finished `game` for `side`.
    pub fn of(self, game: &Game, side: Side) -> f32 {
        self.of_result(game.outcome(), game.scores(), game.rules().misere(), side)
    }

    /// The reward for `side` of a game that ended with `outcome` and stores `scores`.
    pub(super) fn of_result(
        self,
        outcome: Option<Outcome>,
        scores: [u16; 2],
        misere: bool,
        side: Side,
    ) -> f32 {
        match self {
            Reward::Win => match outcome {
                Some(Outcome::Win(s)) if s == side => 1.0,
                Some(Outcome::Win(_)) => -1.0,
                _ => 0.0,
            },
            Reward::Margin => {
                let seeds = scores[side.index()] as i32 - scores[side.other().index()] as i32;
                // A tie on seeds won by the rules (Kauri's cowries) counts one seed for its
                // winner, as the engine's values do.
                let margin = match outcome {
                    Some(Outcome::Win(w)) if seeds == 0 => {
                        if w == side {
                            1
                        } else {
                            -1
                        }
                    }
                    _ => seeds,
                };
                Evaluation {
                    side,
                    margin,
                    lower_is_better: misere,
                    decided_ties: seeds != margin,
                    quality: Quality::Proven,
                }
                .score() as f32
            }
        }
    }
}
