//! The agents' `--player` and `--seed`: a player that needs no engine, or a level's
//! computer, shared by the Manchester and the KGP agents.

use anyhow::Result;
use clap::{Args, ValueEnum};
use mancala_engine::Level;
use mancala_play::{Computer, Player};

/// A player that needs no engine, for an agent's `--player`.
#[derive(Clone, Copy, ValueEnum)]
pub enum SimplePlayer {
    /// A uniformly random legal move.
    Random,
    /// The move that leaves its store fullest after its whole turn (ties: the lowest pit).
    Greedy,
}

/// An agent's `--player` and `--seed`, shared by both protocols.
#[derive(Args)]
pub struct SimpleArgs {
    /// Play random or greedy moves instead of a level.
    #[arg(long, value_enum, conflicts_with_all = ["level", "time_per_move", "egdb"])]
    player: Option<SimplePlayer>,
    /// Seed mixed into every move's random choice: `--player random`'s draws, the picks of
    /// levels 1-4 (the same seed, the same moves; default 1 for `--player`, else none).
    #[arg(long)]
    seed: Option<u64>,
}

impl SimpleArgs {
    /// The simple player as a computer where `--player` is given, else `level`'s.
    pub fn computer(&self, level: Level) -> Result<Computer> {
        let player = match self.player {
            None => {
                let c = Computer::new(level, 1);
                return Ok(match self.seed {
                    Some(s) => c.mixing(s),
                    None => c,
                });
            }
            Some(SimplePlayer::Random) => Player::Random,
            Some(SimplePlayer::Greedy) => Player::Greedy,
        };
        Computer::simple(player, self.seed.unwrap_or(1))
    }
}
