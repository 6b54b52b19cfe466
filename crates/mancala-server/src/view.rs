//! JSON views of positions, moves and games for the browser client, and the sowing trace the
//! client animates.
//!
//! Board places use the ring of ARCHITECTURE.md: `0..m` South's pits from South's left, `m` South's
//! store, `m+1..=2m` North's pits from North's left, `2m+1` North's store (Kauri too, whose
//! stores are never sown into).

use mancala_core::i18n::{self, Lang};
use mancala_core::notation::{self, Notation};
use mancala_core::rules::{OptionKind, OptionValue, OPTIONS};
use mancala_core::{Ending, Game, Outcome, PlayedMove, Position, Preset, Rules, Side};
use mancala_engine::Evaluation;
use serde::Serialize;

// By its path, so that the file is found alike where the browser build includes this one
// by its own path.
#[path = "view/review.rs"]
mod review;

pub use review::{
    analyse, analysis, analysis_position, analysis_with, replay, replay_analysis, replay_limits,
    Analysis, MoveJudgement, MoveValueView, Replay,
};

/// The side's word in JSON: `"south"` or `"north"`.
pub fn side_str(s: Side) -> &'static str {
    match s {
        Side::South => "south",
        Side::North => "north",
    }
}

fn notation_str(n: Notation) -> &'static str {
    match n {
        Notation::Letters => "letters",
        Notation::Digits => "digits",
        Notation::Kauri => "kauri",
    }
}

/// A position as the client draws it (`board`, `start`, `positions[k]`).
#[derive(Debug, Clone, Serialize)]
pub struct Board {
    /// South's pits from South's left.
    pub south: Vec<u16>,
    /// North's pits from North's left.
    pub north: Vec<u16>,
    /// South's store, then North's.
    pub stores: [u16; 2],
    /// `"south"` or `"north"`; null once the game is over.
    pub to_move: Option<&'static str>,
    /// The position in the notation of `mancala_core`.
    pub position: String,
    /// The cowries of each pit, only under rules that have them (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cowries: Option<Cowries>,
}

/// The cowries of each pit of both rows.
#[derive(Debug, Clone, Serialize)]
pub struct Cowries {
    /// South's pits from South's left.
    pub south: Vec<u8>,
    /// North's pits from North's left.
    pub north: Vec<u8>,
}

/// Pits, stores, cowries and side to move.
pub fn board(p: &Position) -> Board {
    let m = p.pits();
    let row = |s: Side| (0..m).map(|i| p.seeds(s, i)).collect::<Vec<_>>();
    let cowries = p.rules().has_cowries().then(|| {
        let cow = |s: Side| (0..m).map(|i| p.cowries(s, i)).collect::<Vec<_>>();
        Cowries {
            south: cow(Side::South),
            north: cow(Side::North),
        }
    });
    Board {
        south: row(Side::South),
        north: row(Side::North),
        stores: p.scores(),
        to_move: (!p.is_over()).then(|| side_str(p.to_move())),
        position: p.to_string(),
        cowries,
    }
}

/// Seeds of every ring place.
fn ring_counts(p: &Position) -> Vec<i32> {
    let m = p.pits();
    let s = p.scores();
    let mut v = Vec::with_capacity(2 * m + 2);
    v.extend((0..m).map(|i| p.seeds(Side::South, i) as i32));
    v.push(s[0] as i32);
    v.extend((0..m).map(|i| p.seeds(Side::North, i) as i32));
    v.push(s[1] as i32);
    v
}

/// One move as the client animates it (`recent[k]`, `moves[k]`).
#[derive(Debug, Clone, Serialize)]
pub struct MoveView {
    /// The move's index in the game, from 0.
    pub ply: usize,
    /// The mover: `"south"` or `"north"`.
    pub side: &'static str,
    /// The pit, 1-based from the mover's left; 0 for the pie rule's swap (`text` is `swap`,
    /// the path empty).
    pub pit: u8,
    /// The move in the game's notation.
    pub text: String,
    /// The ring place the seeds were taken from.
    pub origin: usize,
    /// The ring places sown, in order.
    pub path: Vec<usize>,
    /// The index in `path` from which the sown seeds are cowries (Kauri).
    pub cowries_from: usize,
    /// The pits the move captured seeds from (ring places).
    pub taken: Vec<usize>,
    /// The pits emptied by the end of the game's sweep of the seeds left on the board (ring
    /// places): not captures, since the seeds may go to their owner.
    pub swept: Vec<usize>,
    /// Seeds the mover's store gained.
    pub gain: u16,
    /// Seeds captured.
    pub captured: u16,
    /// Seeds handed to the opponent.
    pub handed: u16,
    /// Whether the mover moves again.
    pub again: bool,
    /// Whether the move ended the game.
    pub ended: bool,
    /// The position before the move: in a game's `recent` moves only (absent elsewhere).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<Board>,
    /// The computer's value of its own move, where it made it (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eval: Option<i32>,
}

/// One move with what the client needs to draw it: its text, the sowing path, the pits the
/// move captured from, and the pits emptied by the end sweep.
pub fn move_view(before: &Position, after: &Position, mv: &PlayedMove, ply: usize) -> MoveView {
    let notation = Notation::for_rules(before.rules());
    let mancala_core::SowingPath {
        places: path,
        cowries_from,
        ..
    } = before.sowing_path(mv.pit);
    let m = before.pits();
    let origin = if mv.side == Side::South {
        mv.pit as usize
    } else {
        m + 1 + mv.pit as usize
    };
    let (taken, swept) = emptied(before, after, mv, origin, &path, cowries_from);
    MoveView {
        ply,
        side: side_str(mv.side),
        pit: mancala_core::pit_number(mv.pit),
        text: notation.move_text(mv.side, mv.pit),
        origin,
        path,
        cowries_from,
        taken,
        swept,
        gain: mv.effect.gain,
        captured: mv.effect.captured,
        handed: mv.effect.handed,
        again: mv.effect.again,
        ended: mv.effect.ended,
        before: None,
        eval: None,
    }
}

/// The pits a move captured from and the pits the end sweep emptied, as ring places.
///
/// A pit is emptied when it holds fewer seeds after the move than the sowing alone left there
/// (Kauri's cowries are no seeds). Of those, a Kauri pit that held a cowrie lost nothing to a
/// capture (a seed sown onto an opponent's cowries alone goes to his store); a Kalah-family
/// capture takes the last seed's pit and the pit opposite; Kauri and Oware capture in the
/// opponent's row only. Every other emptied pit was swept at the end of the game.
fn emptied(
    before: &Position,
    after: &Position,
    mv: &PlayedMove,
    origin: usize,
    path: &[usize],
    cowries_from: usize,
) -> (Vec<usize>, Vec<usize>) {
    let m = before.pits();
    let mut sown = ring_counts(before);
    if let Some(c) = sown.get_mut(origin) {
        *c = 0;
    }
    for &i in &path[..cowries_from.min(path.len())] {
        if let Some(c) = sown.get_mut(i) {
            *c += 1;
        }
    }
    let after_counts = ring_counts(after);
    let place = |i: usize| -> Option<(Side, usize)> {
        match i {
            i if i < m => Some((Side::South, i)),
            i if i > m && i <= 2 * m => Some((Side::North, i - m - 1)),
            _ => None,
        }
    };
    let last = path.last().copied();
    let kalah = before.rules().preset.is_kalah_family();
    let (mut taken, mut swept) = (Vec::new(), Vec::new());
    for (i, (&s, &a)) in sown.iter().zip(&after_counts).enumerate() {
        let Some((side, pit)) = place(i) else {
            continue;
        };
        if s <= a || before.cowries(side, pit) > 0 {
            continue;
        }
        let captured = if kalah {
            mv.effect.captured > 0 && last.is_some_and(|l| i == l || i + l == 2 * m)
        } else {
            side != mv.side
        };
        if captured {
            taken.push(i);
        } else {
            swept.push(i);
        }
    }
    (taken, swept)
}

/// One turn in the game's notation (several moves where a move earned another).
#[derive(Debug, Clone, Serialize)]
pub struct TurnView {
    /// The move number, as a record numbers it.
    pub number: usize,
    /// The mover: `"south"` or `"north"`.
    pub side: &'static str,
    /// The turn's moves in the game's notation.
    pub text: String,
    /// The ply of the turn's first move.
    pub first_ply: usize,
    /// How many moves the turn has.
    pub plies: usize,
}

/// The turns as the game's notation writes them.
pub fn turns(game: &Game) -> Vec<TurnView> {
    let notation = Notation::for_rules(game.rules());
    let mut ply = 0;
    let first_north = game.start().to_move() == Side::North;
    game.turns()
        .iter()
        .enumerate()
        .map(|(k, (side, moves))| {
            let first_ply = ply;
            ply += moves.len();
            TurnView {
                number: (k + usize::from(first_north)) / 2 + 1,
                side: side_str(*side),
                text: notation::turn_text(notation, *side, moves),
                first_ply,
                plies: moves.len(),
            }
        })
        .collect()
}

/// The engine's suggestion to the side to move (`GET /api/games/{id}/hint`), its value from
/// the asker's view: `value` and `score` say the same as `eval`, lifted to the top so that no
/// reader has to turn them.
#[derive(Debug, Clone, Serialize)]
pub struct Hint {
    /// The pit to play, 1-based; 0 for the pie rule's swap (`text` is then `swap`).
    pub pit: u8,
    /// The move in the game's notation.
    pub text: String,
    /// The asker's side, whose view the value is from: `"south"` or `"north"`.
    pub side: &'static str,
    /// The final seed margin the asker reaches (his seeds minus the opponent's).
    pub value: i32,
    /// The same turned so that higher is better for the asker (`-value` where fewer seeds
    /// win): positive, the asker wins by that much.
    pub score: i32,
    /// Fewer seeds win (misère): a lower `value` is better for the asker.
    pub lower_is_better: bool,
    /// The depth reached.
    pub depth: u32,
    /// Whether the value is proven.
    pub proven: bool,
    /// The value with its quality, from the asker's view.
    pub eval: Evaluation,
}

/// The hint `r` (a search or proof of `pos`) for `asker`, its value turned to his view by
/// [`Evaluation::seen_by`].
pub fn hint(pos: &Position, asker: Side, r: &mancala_engine::SearchResult) -> Hint {
    let eval = r.eval.seen_by(asker);
    Hint {
        pit: mancala_core::pit_number(r.best),
        text: Notation::for_rules(pos.rules())
            .move_text(pos.to_move(), r.best)
            .to_string(),
        side: side_str(asker),
        value: eval.margin,
        score: eval.score(),
        lower_is_better: eval.lower_is_better,
        depth: r.depth,
        proven: eval.is_proven(),
        eval,
    }
}

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
    fn new(key: &'static str, args: &[(&str, serde_json::Value)]) -> Message {
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

/// The rules facts the client draws with.
#[derive(Debug, Clone, Serialize)]
pub struct RulesView {
    /// The rules as text (`kalah,seeds=4`).
    pub name: String,
    /// The preset's name.
    pub preset: &'static str,
    /// The game and its changed options as people read them (`Kalah · Seeds a pit: 4`).
    pub title: String,
    /// The preset's one-line summary.
    pub summary: &'static str,
    /// Every option's value.
    pub rules: Rules,
    /// Pits a side.
    pub pits: u8,
    /// How moves are written: `"letters"`, `"digits"` or `"kauri"`.
    pub notation: &'static str,
    /// Whether fewer seeds win.
    pub misere: bool,
    /// Whether the board has cowries.
    pub kauri: bool,
}

/// Rules facts the client draws with (the rules text is at `/api/rules`).
pub fn rules_view(game: &Game) -> RulesView {
    let r = game.rules();
    RulesView {
        name: r.to_string(),
        preset: r.preset.name(),
        title: r.title(),
        summary: r.preset.summary(),
        rules: *r,
        pits: r.pits,
        notation: notation_str(Notation::for_rules(r)),
        misere: r.misere(),
        kauri: r.has_cowries(),
    }
}

/// The answer of `/api/variants`: the new-game menus.
#[derive(Debug, Clone, Serialize)]
pub struct Variants {
    /// Every preset.
    pub presets: Vec<PresetView>,
    /// The computer's levels.
    pub levels: Vec<u8>,
}

/// A preset, its defaults, and the options that apply to it.
#[derive(Debug, Clone, Serialize)]
pub struct PresetView {
    /// The preset's name.
    pub name: &'static str,
    /// Its name as people read it.
    pub title: &'static str,
    /// Its one-line summary.
    pub summary: &'static str,
    /// Its rules with every option at its default.
    pub defaults: Rules,
    /// The position string of its start with every option at its default (the analysis
    /// board opens on it).
    pub start: String,
    /// The options that apply to it.
    pub options: Vec<OptionView>,
    /// Its rules in words.
    pub text: String,
}

/// One option of a preset for the menus.
#[derive(Debug, Clone, Serialize)]
pub struct OptionView {
    /// The option's name.
    pub name: &'static str,
    /// Its name as people read it (`End of the game`).
    pub title: &'static str,
    /// Its values in words (`1-20`, `standard|empty`).
    pub values: String,
    /// What it does.
    pub help: &'static str,
    /// Its default under this preset.
    pub default: String,
    /// How the menu offers it.
    #[serde(flatten)]
    pub kind: OptionChoice,
}

/// How a menu offers an option: `"kind": "range"` with its bounds, or `"kind": "choice"`
/// with its words.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum OptionChoice {
    /// A number from `min` to `max`.
    Range {
        /// The least value.
        min: u8,
        /// The greatest value.
        max: u8,
    },
    /// One of `choices`.
    Choice {
        /// The words allowed.
        choices: Vec<&'static str>,
        /// What each word means, for people (`Ends when a row is empty`), in the same order.
        labels: Vec<String>,
    },
}

/// Every preset, its defaults, and the options that apply to it, for the new-game menus, in
/// `lang`'s words (names and values stay the rules' own).
pub fn variants(lang: Lang) -> Variants {
    let presets = Preset::ALL
        .iter()
        .map(|p| {
            let options = OPTIONS
                .iter()
                .filter(|o| (o.applies)(*p))
                .map(|o| OptionView {
                    name: o.name,
                    title: o.title(lang),
                    values: o.values_for(*p),
                    help: o.help(lang),
                    default: o.default(*p).to_string(),
                    kind: match o.kind_for(*p) {
                        OptionKind::Number { min, max } => OptionChoice::Range { min, max },
                        OptionKind::Bool => OptionChoice::Choice {
                            choices: vec!["true", "false"],
                            labels: vec![
                                o.value_text(lang, OptionValue::Bool(true)),
                                o.value_text(lang, OptionValue::Bool(false)),
                            ],
                        },
                        OptionKind::Keyword(words) => OptionChoice::Choice {
                            choices: words.to_vec(),
                            labels: words.iter().map(|w| o.label(lang, w).to_string()).collect(),
                        },
                    },
                })
                .collect();
            PresetView {
                name: p.name(),
                title: p.title_in(lang),
                summary: p.summary_in(lang),
                defaults: p.rules(),
                start: Game::from_rules(&p.rules())
                    .map(|g| g.start().to_string())
                    .unwrap_or_default(),
                options,
                text: p.rules().describe_in(lang),
            }
        })
        .collect();
    Variants {
        presets,
        levels: mancala_engine::LEVELS.collect(),
    }
}

/// The state of a game everyone may see (never a token), plus `you` for the seat asking.
#[derive(Debug, Clone, Serialize)]
pub struct GameView {
    /// The game's id.
    pub id: String,
    /// Bumped on every change.
    pub version: u64,
    /// Moves played.
    pub ply: usize,
    /// The rules facts.
    pub rules: RulesView,
    /// The position now.
    pub board: Board,
    /// `"south"` or `"north"`; null once the game is over.
    pub to_move: Option<&'static str>,
    /// Whether the game is over (by the rules or a resignation).
    pub over: bool,
    /// How the game ended; null while it goes on.
    pub result: Option<GameResult>,
    /// The pits the side to move may play, 1-based; empty once over.
    pub legal: Vec<u8>,
    /// Why some pits of the side to move that hold pieces may not be played now (Dracala's
    /// compulsory capture, Kauri's cowries, Oware's feeding); null where every one may.
    pub forced: Option<&'static str>,
    /// Whether the side to move may swap (the pie rule: North's first action).
    pub swap: bool,
    /// Both seats.
    pub players: Seats<Player>,
    /// Whether one seat is the computer's.
    pub vs_computer: bool,
    /// Whether the computer is to move.
    pub thinking: bool,
    /// Whether the second seat is still free.
    pub waiting_for_opponent: bool,
    /// The turns in notation.
    pub turns: Vec<TurnView>,
    /// The last moves (at most 12), each with the position before it.
    pub recent: Vec<MoveView>,
    /// The asker's seat; null for a watcher.
    pub you: Option<&'static str>,
    /// The invitation, to a seat holder only, while the other seat is free; else null.
    pub invite: Option<String>,
    /// Games between people: the clock, a standing offer, the rematch, the opponent's
    /// absence (each absent where there is none).
    #[serde(flatten)]
    pub between: BetweenView,
}

/// What a game between people adds to its state.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BetweenView {
    /// The clock; absent in an untimed game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockView>,
    /// The offer standing; absent where none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offer: Option<OfferView>,
    /// The id of the rematch, once agreed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rematch: Option<String>,
    /// A player gone from a live timed game (no connection open): who, how long ago, and
    /// when his opponent may claim the game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub away: Option<AwayView>,
}

/// A clock as the client shows it: each side's milliseconds when the state was made, and
/// whose time is running (the client counts it down from there).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ClockView {
    /// The time control (`3+2`: minutes and seconds more a turn; `3d`: days a move).
    pub control: String,
    /// True for a Fischer clock, false for correspondence.
    pub real_time: bool,
    /// South's time left, milliseconds.
    pub south_ms: i64,
    /// North's time left, milliseconds.
    pub north_ms: i64,
    /// `"south"` or `"north"`: whose clock runs; null before the game starts and after it
    /// ends.
    pub running: Option<&'static str>,
    /// While the running side has yet to make his first move: the milliseconds he has left
    /// for it before the game is cancelled (his clock does not run meanwhile).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_move_ms: Option<i64>,
}

/// The offer standing in a game: `{"kind": "draw", "by": "south"}`.
#[derive(Clone, Debug, Serialize)]
pub struct OfferView {
    /// `draw`, `takeback` or `rematch`.
    pub kind: &'static str,
    /// Who made it.
    pub by: &'static str,
}

/// A player gone from a live timed game: who, how long ago, when a claim opens.
#[derive(Clone, Debug, Serialize)]
pub struct AwayView {
    /// `"south"` or `"north"`: the seat whose player has no connection open.
    pub side: &'static str,
    /// How long he has been gone, milliseconds.
    pub gone_ms: i64,
    /// Milliseconds until a claim is allowed; 0: now.
    pub claim_in_ms: i64,
}

/// South's and North's seats.
#[derive(Debug, Clone, Serialize)]
pub struct Seats<P> {
    /// South's seat.
    pub south: P,
    /// North's seat.
    pub north: P,
}

/// A seat of a stored game: the computer with its level, a person with his name (null
/// where none was given) and whether he has joined, or a bot connected over a protocol.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Player {
    /// The computer.
    Computer {
        /// Its level.
        level: u8,
        /// `Computer (level N)`.
        name: String,
        /// Always true.
        joined: bool,
    },
    /// A person.
    Human {
        /// The name given, or null.
        name: Option<String>,
        /// Whether the seat is taken.
        joined: bool,
    },
    /// A bot connected to the server's KGP port.
    Bot {
        /// Its `info:name`.
        name: String,
        /// The protocol it plays over: `kgp`.
        protocol: &'static str,
    },
}

/// The view of `game` that every front end answers alike (the server's stored games, the
/// browser's own): the board, the legal moves, the end (`stop`: how it ended other than by
/// its rules), the turns and the last 12 moves, each with the value `eval` gives the move
/// of that ply (the computer's), and the seats. The rest is the caller's: its `id`,
/// `version`, whether it is against the computer and thinking, the invitation and the
/// asker's seat (all empty here).
pub fn game_view(
    game: &Game,
    stop: Option<Stop>,
    eval: &dyn Fn(usize) -> Option<i32>,
    players: Seats<Player>,
) -> GameView {
    let g = game;
    let n = g.moves().len();
    let recent = (n.saturating_sub(12)..n)
        .filter_map(|k| {
            let before = g.position_at(k)?;
            let mut v = move_view(before, g.position_at(k + 1)?, &g.moves()[k], k);
            v.before = Some(board(before));
            v.eval = eval(k);
            Some(v)
        })
        .collect();
    let over = stop.is_some() || g.is_over();
    let moves = if over {
        Default::default()
    } else {
        g.legal_moves()
    };
    let legal: Vec<u8> = moves
        .as_slice()
        .iter()
        .filter(|&&p| p != mancala_core::SWAP)
        .map(|p| p + 1)
        .collect();
    let p = g.position();
    let pieces = |i: usize| p.seeds(p.to_move(), i) > 0 || p.cowries(p.to_move(), i) > 0;
    let held = (0..p.pits()).filter(|&i| pieces(i)).count();
    GameView {
        id: String::new(),
        version: 0,
        ply: n,
        rules: rules_view(g),
        board: board(p),
        to_move: (!over).then(|| side_str(g.to_move())),
        over,
        result: result(g, stop),
        forced: (!over && legal.len() < held)
            .then(|| g.rules().move_restriction())
            .flatten(),
        swap: moves.contains(mancala_core::SWAP),
        legal,
        players,
        vs_computer: false,
        thinking: false,
        waiting_for_opponent: false,
        turns: turns(g),
        recent,
        you: None,
        invite: None,
        between: BetweenView::default(),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// The menus come in the language asked for; a result's reason is a key and arguments
    /// that read in every language, the English one as `reason`.
    #[test]
    fn menus_and_reasons_in_other_languages() {
        let v = variants(Lang::Es);
        assert_eq!(v.presets[1].title, "Kalah de las aulas brasileñas");
        let end = v.presets[0]
            .options
            .iter()
            .find(|o| o.name == "end")
            .unwrap();
        assert_eq!(end.title, "Fin de la partida");
        let why = Message::new(
            "result.decided",
            &[
                ("side", serde_json::json!("north")),
                ("seeds", serde_json::json!(37)),
                ("total", serde_json::json!(72)),
            ],
        );
        assert_eq!(
            why.text(Lang::En),
            "decided: North holds more than half of the seeds (37 of 72)"
        );
        assert_eq!(
            why.text(Lang::It),
            "decisa: Nord ha più della metà dei semi (37 su 72)"
        );
        assert_eq!(
            why.text(Lang::Pt),
            "decidido: Norte tem mais da metade das sementes (37 de 72)"
        );
    }

    /// The view of `pit` played in the position string `p`.
    fn played(p: &str, pit: u8) -> MoveView {
        let before: Position = p.parse().unwrap();
        let mut after = before;
        let effect = after.play(pit).unwrap();
        let mv = PlayedMove {
            side: before.to_move(),
            pit,
            effect,
        };
        move_view(&before, &after, &mv, 0)
    }

    #[test]
    fn a_kauri_cowrie_captures_only_where_the_opponent_has_none() {
        // Kauri's start: the cowrie falls on North's first pit, which holds a cowrie: nothing
        // is captured (the pit gains a cowrie, not a seed).
        let v = played(
            "kauri/5c1-5c1-5c1-5c1-5c1-5c1/0/5c1-5c1-5c1-5c1-5c1-5c1/0/s",
            0,
        );
        assert_eq!(
            (v.path.clone(), v.cowries_from),
            (vec![1, 2, 3, 4, 5, 7], 5)
        );
        assert_eq!((v.taken, v.swept, v.captured), (vec![], vec![], 0));
        // South's cowrie falls on North's first pit, two seeds and no cowrie: a capture.
        let v = played("kauri,pits=2,seeds=1/0c1-0c1/1/2-0c2/1/s", 1);
        assert_eq!(
            (v.taken, v.swept, v.captured, v.handed),
            (vec![3], vec![], 2, 0)
        );
        // South's seed falls on North's cowries alone and goes to North's store (handed, that
        // pit keeps its count), then the cowrie captures the five seeds of the next pit.
        let v = played("kauri,pits=3,seeds=2/0c1-0c1-1c1/0/0c2-5-0c1/6/s", 2);
        assert_eq!((v.handed, v.captured), (1, 5));
        assert_eq!((v.taken, v.swept), (vec![5], vec![]));
    }

    #[test]
    fn the_end_sweep_is_no_capture() {
        // South's last seed reaches his store and empties his row: North's seeds go to North.
        let v = played("kalah/0-0-0-0-0-1/10/3-3-3-3-3-3/7/s", 5);
        assert!(v.ended && v.captured == 0);
        assert_eq!(v.taken, Vec::<usize>::new());
        assert_eq!(v.swept, vec![7, 8, 9, 10, 11, 12]);
        // A capture that ends the game: the capturing pit and the one opposite are taken, the
        // rest of North's row is swept.
        let v = played("kalah/0-0-0-1-0-0/10/1-2-3-0-0-2/17/s", 3);
        assert!(v.ended && v.captured == 3);
        assert_eq!(v.taken, vec![4, 8]);
        assert_eq!(v.swept, vec![7, 9, 12]);
        // The same on a board of more than 240 seeds (`u16` counts): a capture is taken,
        // the end sweep swept.
        let v = played(
            "kalah,pits=12,seeds=20/1-0-0-0-0-0-0-0-0-0-0-0/100/0-0-0-0-0-0-0-0-0-0-300-0/79/s",
            0,
        );
        assert_eq!((v.taken, v.swept, v.captured), (vec![1, 23], vec![], 301));
        let v = played(
            "kalah,pits=12,seeds=20/0-0-0-0-0-0-0-0-0-0-0-1/230/5-5-0-0-0-0-0-0-0-0-0-0/239/s",
            11,
        );
        assert!(v.ended && v.captured == 0);
        assert_eq!((v.taken, v.swept), (vec![], vec![13, 14]));
    }

    #[test]
    fn misere_analysis_calls_the_lowest_margin_best() {
        // Dracala, fewer seeds win: every judged move's loss is the best move's score (good
        // for the mover) minus its own, never negative, and a move with no choice loses
        // nothing.
        let text = include_str!("../../../examples/records/dracala-tavares-gering.txt");
        let game = mancala_core::Record::parse(text, None)
            .unwrap()
            .replay()
            .unwrap();
        let values = analysis(&game, Duration::from_millis(40), Duration::from_secs(30));
        let mut judged = 0;
        for (k, v) in values.iter().enumerate() {
            let (Some(played), Some(best)) = (v.played, v.best) else {
                continue;
            };
            judged += 1;
            assert!(played.lower_is_better && best.lower_is_better);
            assert_eq!(played.side, game.moves()[k].side);
            assert!(
                best.score() >= played.score() || v.loss.is_none(),
                "ply {k}"
            );
            if let Some(loss) = v.loss {
                assert_eq!(loss, best.score() - played.score(), "ply {k}");
            }
            if game.position_at(k).unwrap().legal_moves().len() == 1 {
                assert_eq!(v.loss, Some(0), "ply {k}: a forced move");
            }
        }
        assert!(judged > 30, "{judged} of {} moves judged", values.len());
        // The last move (South's, forced to a 38 : 26 loss) is valued -12 for South.
        let last = values.last().unwrap().played.unwrap();
        assert_eq!(
            (last.side, last.score(), last.margin),
            (Side::South, -12, 12)
        );
    }

    #[test]
    fn a_result_says_who_won_by_how_much_and_why() {
        let mut g = Game::new("kalah/0-0-0-0-0-1/17/3-3-0-0-0-0/12/s".parse().unwrap());
        g.play(5).unwrap();
        let r = result(&g, None).unwrap();
        assert_eq!((r.south, r.north, r.winner), (18, 18, None));
        assert_eq!(
            r.reason,
            "no moves left: the seeds left went to their owners"
        );
        assert_eq!(r.outcome.as_deref(), Some("a draw"));
        let text = include_str!("../../../examples/records/dracala-tavares-gering.txt");
        let g = mancala_core::Record::parse(text, None)
            .unwrap()
            .replay()
            .unwrap();
        let r = result(&g, None).unwrap();
        assert_eq!(r.winner, Some("north"));
        assert_eq!(
            r.outcome.as_deref(),
            Some("South loses by 12 (fewer seeds win)")
        );
        let r = result(&g, Some(Stop::Resigned(Side::North))).unwrap();
        assert_eq!(
            (r.winner, r.reason.as_str()),
            (Some("south"), "North resigned")
        );
    }

    #[test]
    fn every_move_has_a_sowing_path() {
        for preset in Preset::ALL {
            let mut g = Game::from_rules(&preset.rules()).unwrap();
            while !g.is_over() && g.moves().len() < 40 {
                let mv = g.legal_moves().as_slice()[g.moves().len() % g.legal_moves().len()];
                let before = *g.position();
                g.play(mv).unwrap();
                let v = move_view(&before, g.position(), g.moves().last().unwrap(), 0);
                assert!(!v.path.is_empty(), "{preset:?}");
            }
        }
    }
}
