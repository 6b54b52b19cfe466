//! Games in play: loading and saving them, seats and their tokens, and the computer's moves in
//! a bounded worker pool. Each game is a [`Session`](mancala_play::session::Session) (moves,
//! the undo rule, the end, the record); this module stores every change before the session
//! makes it.
//!
//! [`App`] is the server's state; its work is shared out by subject: a loaded game and its
//! views ([`Live`], [`Entry`]), what players do in a game, the computer's searches, a timed
//! game's flag, and KGP bots' games.

mod bots;
mod computer;
mod flag;
mod live;
mod play;
mod state;

pub use live::{Entry, Live};
pub use play::{MoveChoice, NewGame};
pub use state::{App, LobbyHandle};

pub use crate::response::{ApiError, ApiResult};
