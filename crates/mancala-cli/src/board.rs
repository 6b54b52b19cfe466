//! Board diagrams for the terminal, drawn from one player's side.

use mancala_core::i18n::{self, Lang};
use mancala_core::notation::Notation;
use mancala_core::{Ending, Game, Outcome, Position, Side};

/// The board with `bottom`'s row at the bottom (his pits 1..m left to right, his store on the
/// right) and the other row above it, as that player sees the board. Pit labels are the
/// game's notation; `last` (the pit the last move was sown from) is marked `*`. Its words are
/// in `lang`.
pub fn diagram_in(pos: &Position, bottom: Side, last: Option<(Side, u8)>, lang: Lang) -> String {
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
    let side = |s: Side| {
        i18n::text(
            lang,
            if s == Side::South {
                "side.south"
            } else {
                "side.north"
            },
        )
    };
    out += &format!(
        " [{:>3}]{}[{:>3}]   {}\n",
        stores[top.index()],
        " ".repeat(m * w),
        stores[bottom.index()],
        i18n::format(
            lang,
            "board.stores",
            &[("left", &side(top)), ("right", &side(bottom))]
        )
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

/// "South wins 40 : 32" and how the game ended, in `lang`.
pub fn result_line_in(game: &Game, lang: Lang) -> String {
    let t = |key: &str| i18n::text(lang, key);
    let side = |s: Side| {
        t(if s == Side::South {
            "side.south"
        } else {
            "side.north"
        })
    };
    let s = game.scores();
    let score = i18n::format(
        lang,
        "result.line.score",
        &[("south", &s[0]), ("north", &s[1])],
    );
    // How a repeated position that ended the game shared the seeds left.
    let repeated = || match game.rules().repetition {
        mancala_core::Repetition::OwnRow => t("result.line.repeated.own-row"),
        mancala_core::Repetition::Split => t("result.line.repeated.split"),
    };
    let (key, who, why) = match game.outcome() {
        None => ("result.line.live", side(game.to_move()), ""),
        Some(Outcome::Draw) if game.ending() == Some(Ending::ThirdRepetition) => {
            ("result.line.third", "", "")
        }
        Some(Outcome::Draw) if game.ending() == Some(Ending::Repetition) => {
            ("result.line.draw-why", "", repeated())
        }
        Some(Outcome::Draw) => ("result.line.draw", "", ""),
        Some(Outcome::Win(w)) if game.ended_by_repetition() => {
            ("result.line.wins-why", side(w), repeated())
        }
        Some(Outcome::Win(w)) if game.rules().misere() => ("result.line.wins-misere", side(w), ""),
        // Kauri: equal seeds, and the player to move had no cowrie.
        Some(Outcome::Win(w)) if s[0] == s[1] => ("result.line.wins-cowrie", side(w), ""),
        Some(Outcome::Win(w)) => ("result.line.wins", side(w), ""),
    };
    i18n::format(
        lang,
        key,
        &[("side", &who), ("why", &why), ("score", &score)],
    )
}
