//! The wire protocols of the mancala games, over `mancala-play`'s players:
//!
//! - [`protocol`]: the line protocol of `mancala engine` (commands, answers, time management
//!   for clocks), [`engine`]: the engine's side of it over any reader and writer, and
//!   [`external`]: an engine process speaking it, as a player of matches.
//! - [`manchester`]: the Manchester Kalah protocol: its messages, an agent over any reader
//!   and writer, and a referee between two agent commands.
//! - [`kgp`]: the Kalah Game Protocol (KGP 1.x): its messages and board literal, a client
//!   that answers a server's positions with improving moves, and a server that plays its
//!   connected bots at a level.
//! - [`tournament`]: round robins between bot commands over either protocol, with standings,
//!   pairings and every game's result.

#![warn(missing_docs)]

pub mod engine;
pub mod external;
pub mod kgp;
pub mod manchester;
pub mod protocol;
pub mod tournament;

/// A line quoted in a protocol's message: its start only, control characters escaped.
pub(crate) fn shown(s: &str) -> String {
    let cut: String = s.chars().take(60).collect();
    let more = if cut.len() < s.len() { "..." } else { "" };
    format!("{}{more}", mancala_core::printable(&cut))
}
