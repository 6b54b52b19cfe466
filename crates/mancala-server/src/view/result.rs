//! How a game ended, in words every language can say.

use mancala_core::i18n::{self, Lang};
use mancala_core::{Ending, Game, Outcome, Side};
use mancala_engine::Evaluation;
use serde::Serialize;

use super::board::side_str;

/// How a finished game ended (the game's `result`, null while it goes on).
#[derive(Debug, Clone, Serialize)]
pub struct GameResult {
    /// South's seeds.
    pub south: u16,
    /// North's seeds.
    pub north: u16,
    /// `"south"` or `"north"`; null for a draw, and for a game that stopped unfinished.
    pub winner: Option<&'static str>,
    /// True (and present) only for a game with no result: cancelled (a first move not made
    /// in time) or cut off by a restart of the server while a bot played; no winner and no
    /// draw.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unfinished: bool,
    /// Why the game ended, in English words: a resignation, a repetition, a decided score, the
    /// cowrie rule at equal seeds, or the end of the moves and where the seeds left went.
    pub reason: String,
    /// The same as a key of the translation files and its arguments, for clients that word
    /// it in their reader's language (one state goes to every watcher).
    pub why: Message,
    /// The final result for South in words, from the engine's [`Evaluation`] (`South loses by
    /// 12 (fewer seeds win)`); absent after a resignation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
}

/// Words to be said in the reader's language: a key of the translation files
/// (`locales/*.json`) and its arguments (`side` is `"south"` or `"north"`, to be named).
#[derive(Debug, Clone, Serialize)]
pub struct Message {
    /// The key (`result.decided`).
    pub key: &'static str,
    /// The values of its placeholders.
    pub args: serde_json::Map<String, serde_json::Value>,
}

impl Message {
    pub(super) fn new(key: &'static str, args: &[(&str, serde_json::Value)]) -> Message {
        Message {
            key,
            args: args
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        }
    }

    /// The message in `lang`.
    pub fn text(&self, lang: Lang) -> String {
        let args: Vec<(&str, String)> = self
            .args
            .iter()
            .map(|(k, v)| {
                let v = match v.as_str() {
                    Some("south") if k == "side" => i18n::text(lang, "side.south").to_string(),
                    Some("north") if k == "side" => i18n::text(lang, "side.north").to_string(),
                    Some(s) => s.to_string(),
                    None => v.to_string(),
                };
                (k.as_str(), v)
            })
            .collect();
        let shown: Vec<(&str, &dyn std::fmt::Display)> = args
            .iter()
            .map(|(k, v)| (*k, v as &dyn std::fmt::Display))
            .collect();
        i18n::format(lang, self.key, &shown)
    }
}

/// How a game ended other than by its rules: the one list of the records (`mancala_core::record::Stop`).
pub use mancala_core::record::Stop;

/// The result of a finished game with why it ended; `None` (null) while the game goes on.
pub fn result(game: &Game, stop: Option<Stop>) -> Option<GameResult> {
    use serde_json::json;
    let s = game.scores();
    if let Some(stop) = stop {
        let side = |key: &'static str, s: Side| Message::new(key, &[("side", json!(side_str(s)))]);
        let why = match stop {
            Stop::Resigned(r) => side("result.resigned", r),
            Stop::Time(r) => side("result.time", r),
            Stop::Abandoned(r) => side("result.abandoned", r),
            Stop::Agreed => Message::new("result.agreed", &[]),
            Stop::Cancelled => Message::new("result.cancelled", &[]),
            Stop::Interrupted => Message::new("result.interrupted", &[]),
        };
        return Some(GameResult {
            south: s[0],
            north: s[1],
            winner: stop.winner().map(side_str),
            unfinished: !stop.decides(),
            reason: why.text(Lang::En),
            why,
            outcome: None,
        });
    }
    let o = game.outcome()?;
    let rules = game.rules();
    let total = rules.total_seeds();
    let why = match game.ending() {
        Some(Ending::ThirdRepetition) => Message::new("result.third-repetition", &[]),
        Some(Ending::Repetition) => Message::new("result.repeated", &[]),
        Some(Ending::Decided(leader)) => Message::new(
            "result.decided",
            &[
                ("side", json!(side_str(leader))),
                ("seeds", json!(s[leader.index()])),
                ("total", json!(total)),
            ],
        ),
        Some(Ending::Rule) | None if rules.has_cowries() && s[0] == s[1] => {
            Message::new("result.cowrie-tie", &[])
        }
        Some(Ending::Rule) | None => Message::new(
            match rules.leftovers {
                _ if rules.preset.is_oware_family() => "result.no-moves.own-row",
                _ if rules.has_cowries() => "result.no-moves.no-seeds",
                mancala_core::rules::Leftovers::ToOwner => "result.no-moves.to-owner",
                mancala_core::rules::Leftovers::NotCounted => "result.no-moves.not-counted",
                mancala_core::rules::Leftovers::LastMover => "result.no-moves.last-mover",
                mancala_core::rules::Leftovers::LastCapturer => "result.no-moves.last-capturer",
            },
            &[],
        ),
    };
    let reason = why.text(Lang::En);
    let mut outcome = Evaluation {
        side: Side::South,
        margin: i32::from(s[0]) - i32::from(s[1]),
        lower_is_better: rules.misere(),
        decided_ties: false,
        quality: mancala_engine::Quality::Proven,
    };
    if let (Outcome::Win(w), 0) = (o, outcome.margin) {
        // Kauri's tie won by the cowrie rule counts one seed for its winner.
        outcome.margin = if w == Side::South { 1 } else { -1 };
        outcome.decided_ties = true;
    }
    Some(GameResult {
        south: s[0],
        north: s[1],
        winner: match o {
            Outcome::Win(w) => Some(side_str(w)),
            Outcome::Draw => None,
        },
        unfinished: false,
        reason,
        why,
        outcome: Some(outcome.outcome_text()),
    })
}
