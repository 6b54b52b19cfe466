//! The storage of games and their moves, in SQLite (the default: one file, WAL mode,
//! `synchronous=FULL`) or PostgreSQL (`--db postgres://...`), through [`crate::db`]: every
//! query of the store is written once for both.
//!
//! Schema versions live in SQLite's `PRAGMA user_version` and in PostgreSQL's table
//! `mancala_schema`; [`MIGRATIONS`] (SQLite) and [`PG_MIGRATIONS`] (PostgreSQL, the same
//! schema in its types) are applied in order on every open, each in its own transaction (in
//! PostgreSQL under an advisory lock, so servers starting together migrate once). A database
//! written by a newer server is refused. A move is committed before the server acknowledges it.
//!
//! Writes go to one writer thread that commits whatever is queued in one transaction (group
//! commit: each write in its own savepoint, one sync for the batch) and then answers each
//! caller. Reads use their own connection: in SQLite one beside the writer (WAL lets it
//! run), in PostgreSQL a few reader threads.
//!
//! The parts: [`migrations`] (the schema), [`rows`] (a game's row and its moves as stored),
//! the [`Store`] itself (its connections and the writer thread), its queries of games, the
//! notifications between servers, and [`settle`] (a game between accounts settled in the
//! transaction that ends it).

mod database;
mod games;
pub mod migrations;
mod notify;
pub mod rows;
mod settle;
#[cfg(test)]
pub(crate) mod tests;

pub use database::{Pending, Store};
pub use migrations::{MIGRATIONS, PG_MIGRATIONS};
pub use notify::Change;
pub use rows::{Between, GameRow, MoveRow};
pub use settle::settle;
