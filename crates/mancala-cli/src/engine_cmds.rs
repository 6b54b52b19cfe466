//! `mancala analyze`, `mancala solve` and `mancala match`: the engine's commands (a match is
//! played by `mancala_play::matches`; this prints it).

mod analyze;
mod match_cmd;
mod solve;

pub use analyze::{analyze, AnalyzeArgs};
pub use match_cmd::{match_cmd, MatchArgs};
pub use solve::{solve, SolveArgs};

use mancala_engine::Evaluation;

/// What `value` means in JSON: the final seed margin of the side to move, or where the value
/// is a tie decided by the cowrie rule (Kauri), equal seeds with the tie counted as one seed.
fn value_is(e: &Evaluation, how: &str, misere: &str) -> String {
    let side = e.side.name();
    if e.is_tie_break() {
        format!(
            "equal seeds{how}: a tie the cowrie rule decides ({}), counted as one seed for its winner, from {side}'s view (the side to move)",
            e.outcome_text()
        )
    } else {
        format!("final seed margin for {side} (the side to move){how}{misere}")
    }
}

/// Peak resident memory of this process (`VmHWM`), for `--stats`.
pub(crate) fn peak_text() -> String {
    match mancala_egdb::build::peak_memory() {
        Some(b) => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        None => "unknown".to_string(),
    }
}
