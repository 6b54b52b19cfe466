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
//! - [`matches`](mod@matches): games between two players from seeded random openings, both
//!   colours, in parallel, scored with an Elo difference and its 95 % interval.
//! - [`stats`]: many seeded games and their statistics (length, branching factor, game-tree
//!   complexity, results), reproducible whatever the threads.
//! - [`batch`]: many games stepped together for agents that learn, with observations from the
//!   mover's view, rewards, ends and legal-move masks as flat arrays (the Python package's
//!   `VecGame`).
//! - [`manchester`]: the Manchester Kalah protocol: its messages, an agent over any reader
//!   and writer, and a referee between two agent commands.
//! - [`kgp`]: the Kalah Game Protocol (KGP 1.x): its messages and board literal, a client
//!   that answers a server's positions with improving moves, and a server that plays its
//!   connected bots at a level.
//! - [`tournament`]: round robins between bot commands over either protocol, with standings,
//!   pairings and every game's result.
//! - [`protocol`]: the line protocol of `mancala engine` (commands, answers, time management
//!   for clocks) and [`external`]: an engine process speaking it, as a player of matches.
//! - [`rng`]: the seeded generator all of these draw from ([`Rng`]).
//!
//! The `mancala` command reads arguments and prints on top of this crate; the server plays
//! the computer's turns with [`player::level_decision`].

#![warn(missing_docs)]

pub mod batch;
pub mod external;
pub mod game;
pub mod kgp;
pub mod manchester;
pub mod matches;
pub mod player;
pub mod protocol;
pub mod rng;
pub mod stats;
pub mod team;
pub mod tournament;

pub use player::{Besides, Computer, Player};
pub use rng::Rng;

/// A line quoted in a protocol's message: its start only, control characters escaped.
pub(crate) fn shown(s: &str) -> String {
    let cut: String = s.chars().take(60).collect();
    let more = if cut.len() < s.len() { "..." } else { "" };
    format!("{}{more}", mancala_core::printable(&cut))
}
