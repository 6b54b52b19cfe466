//! Playing the mancala games between players, on top of `mancala-core` (rules) and
//! `mancala-engine` (search and levels), without any terminal or network:
//!
//! - [`player`]: who plays a side ([`Player`]: a person, random, the engine at a level,
//!   Monte Carlo tree search), read from text and named; the computer as a player that keeps
//!   its engine through a game ([`Computer`]); a level's move for a caller without an engine
//!   ([`player::level_decision`]).
//! - [`game`]: the game loop ([`game::play_out`]) between two sources of moves
//!   ([`game::MoveSource`]): a person's input ([`game::HumanInput`]) or a computer player
//!   ([`game::Seat`]).
//! - [`session`]: one game session as every front end drives it: seats, the one undo rule,
//!   hints, the computer's turn, how the game ended, its record.
//! - [`matches`](mod@matches): games between two players from seeded random openings, both
//!   colours, in parallel, scored with an Elo difference and its 95 % interval.
//! - [`stats`]: many seeded games and their statistics (length, branching factor, game-tree
//!   complexity, results), reproducible whatever the threads.
//! - [`rng`]: the seeded generator all of these draw from ([`Rng`]).
//!
//! The wire protocols are `mancala-protocols`' and the batch of games for learning agents
//! `mancala-batch`'s. The `mancala` command reads arguments and prints on top of these crates; the server plays
//! the computer's turns with [`player::level_decision`].

#![warn(missing_docs)]

pub mod game;
pub mod matches;
pub mod player;
pub mod rng;
pub mod session;
pub mod stats;

pub use player::{Besides, Computer, Player};
pub use rng::Rng;
