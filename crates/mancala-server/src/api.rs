//! The HTTP and WebSocket API. Every error is a 4xx (or 5xx) with `{"error": "..."}`.
//!
//! The routes are grouped by what they serve: a game's own (and its WebSocket), the lists
//! of games to watch and the KGP lobby's bots, the engine's look at games (replays, the
//! analysis board), and what the client reads before any game (rules, menus, health).
//! [`router`] puts them behind the layers every request passes.

mod ctx;
mod games;
mod lists;
mod replay;
mod routes;
mod rules;
mod ws;

pub use ctx::{Ctx, Limiter};
pub use routes::router;
