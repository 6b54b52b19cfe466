//! Board diagrams for the terminal, drawn from one player's side.

use mancala_core::notation::Notation;
use mancala_core::{Game, Outcome, Position, Side};

/// The board with `bottom`'s row at the bottom (his pits 1..m left to right, his store on the
/// right) and the other row above it, as that player sees the board. Pit labels are the
/// game's notation; `last` (the pit the last move was sown from) is marked `*`.
pub fn diagram(pos: &Position, bottom: Side, last: Option<(Side, u8)>) -> String {
    let m = pos.pits();
    let notation = Notation::for_rules(pos.rules());
    let kauri = pos.rules().has_cowries();
    let top = bottom.other();
    let w = if kauri { 6 } else { 4 };
    let cell = |side: Side, i: usize| -> String {
        let s = pos.seeds(side, i);
        let text = if kauri {
            format!("{s}c{}", pos.cowries(side, i))
        } else {
            s.to_string()
        };
        let mark = if last == Some((side, i as u8)) {
            "*"
        } else {
            " "
        };
        format!("{text:>w$}{mark}", w = w - 1)
    };
    let label =
        |side: Side, i: usize| format!("{:>w$} ", notation.move_text(side, i as u8), w = w - 1);
    let top_idx: Vec<usize> = (0..m).rev().collect();
    let bot_idx: Vec<usize> = (0..m).collect();
    let stores = pos.scores();
    let mut out = String::new();
    let pad = "       ";
    out += &format!(
        "{pad}{}\n",
        top_idx.iter().map(|&i| label(top, i)).collect::<String>()
    );
    out += &format!(
        "{pad}{}\n",
        top_idx.iter().map(|&i| cell(top, i)).collect::<String>()
    );
    out += &format!(
        " [{:>3}]{}[{:>3}]   {} left, {} right\n",
        stores[top.index()],
        " ".repeat(m * w),
        stores[bottom.index()],
        top,
        bottom
    );
    out += &format!(
        "{pad}{}\n",
        bot_idx.iter().map(|&i| cell(bottom, i)).collect::<String>()
    );
    out += &format!(
        "{pad}{}\n",
        bot_idx
            .iter()
            .map(|&i| label(bottom, i))
            .collect::<String>()
    );
    out
}

/// How a repeated position that ended the game shared the seeds left.
fn repeated(game: &Game) -> &'static str {
    match game.rules().repetition {
        mancala_core::Repetition::OwnRow => {
            "a position repeated and each player took the seeds in his row"
        }
        mancala_core::Repetition::Split => "a position repeated and the seeds left were shared",
    }
}

/// "South wins 40 : 32" and how the game ended.
pub fn result_line(game: &Game) -> String {
    let s = game.scores();
    let score = format!("South {} : North {}", s[0], s[1]);
    match game.outcome() {
        None => format!("Game in progress, {} to move. {score}", game.to_move()),
        Some(Outcome::Draw) if game.repetition_reason() == Some("third repetition") => {
            format!("Draw by the third repetition of a position. {score}")
        }
        Some(Outcome::Draw) if game.ended_by_repetition() => {
            format!("Draw: {}. {score}", repeated(game))
        }
        Some(Outcome::Draw) => format!("Draw. {score}"),
        Some(Outcome::Win(w)) if game.ended_by_repetition() => {
            format!("{w} wins: {}. {score}", repeated(game))
        }
        Some(Outcome::Win(w)) => {
            let why = if game.rules().misere() {
                " (fewer seeds wins)"
            } else if s[0] == s[1] {
                // Kauri: equal seeds, and the player to move had no cowrie.
                " on equal seeds by the cowrie rule"
            } else {
                ""
            };
            format!("{w} wins{why}. {score}")
        }
    }
}
