//! Many games stepped together for agents that learn (the Python package's `VecGame`):
//! observations from the mover's view, rewards, ends and legal-move masks as flat arrays, on
//! the engine's fast board (`FastGame`) for the Kalah-family rules it plays, else on
//! `Position` or `Game` ([`batch`]); large steps shared by the calling thread and helper
//! threads that spin between steps ([`team`]) where timing the steps shows that they pay
//! ([`auto`]).

#![warn(missing_docs)]

pub mod auto;
pub mod batch;
pub mod team;
