//! JSON views of positions, moves and games for the browser client, and the sowing trace the
//! client animates.
//!
//! Board places use the ring of ARCHITECTURE.md: `0..m` South's pits from South's left, `m` South's
//! store, `m+1..=2m` North's pits from North's left, `2m+1` North's store (Kauri too, whose
//! stores are never sown into).

// Each by its path, so that the files are found alike where the browser build includes this
// one by its own path.
#[path = "view/board.rs"]
mod board;
#[path = "view/game.rs"]
mod game;
#[path = "view/result.rs"]
mod result;
#[path = "view/review.rs"]
mod review;
#[path = "view/rules.rs"]
mod rules;
#[cfg(test)]
#[path = "view/tests.rs"]
mod tests;

pub use board::{
    board, move_view, parse_side, side_str, turns, Board, Cowries, MoveView, TurnView,
};
pub use game::{
    game_view, hint, AwayView, BetweenView, ClockView, GameView, Hint, OfferView, Player, Seats,
};
pub use result::{result, GameResult, Message, Stop};
pub use review::{
    analyse, analysis, analysis_position, analysis_with, replay, replay_analysis, replay_limits,
    Analysis, MoveJudgement, MoveValueView, Replay,
};
pub use rules::{rules_view, variants, OptionChoice, OptionView, PresetView, RulesView, Variants};
