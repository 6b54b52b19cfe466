//! Game records: a JSON form (serde) and a text form (tags plus the game's own notation).
//!
//! # JSON
//! ```json
//! {"rules": {"preset": "kalah", "seeds": 4}, "players": {"south": "Ann", "north": "AI level 3"},
//!  "turns": [{"side": "south", "moves": [{"pit": 3}, {"pit": 6}]}, ...],
//!  "result": {"south": 40, "north": 32, "winner": "south"}}
//! ```
//! `pit` counts from 1 at the mover's left; the pie rule's swap is `{"pit": "swap"}`. `start` (a position string) is present only when
//! the game did not begin at the rules' start. Moves may carry `comment`, `eval` (the final seed
//! margin the engine expected for the mover, own seeds minus the opponent's; in a misère game
//! lower is better) and `time_ms`. `time_control` (`"3+2"`: minutes, then seconds added a
//! turn; `"3d"`: days a move) is present only for a game played on a clock.
//!
//! # Text
//! Optional tag lines `[Variant "dracala"]`, `[South "..."]`, `[North "..."]`,
//! `[Position "..."]`, `[TimeControl "3+2"]` (each at most once), then the movetext of [`crate::notation`] (with a final `a : b` score
//! once the game is over).

use serde::{Deserialize, Serialize};

use crate::kalah::WIDE_MAX_SEEDS;
use crate::notation::{self, Check};
use crate::rules::MAX_PITS;
use crate::{Error, Game, Msg, Outcome, Position, Rules, Side};

/// The players' names, from a record's `[South "..."]`/`[North "..."]` tags or its JSON
/// `players`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Players {
    /// South's (the first player's) name; `None` when not recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub south: Option<String>,
    /// North's (the second player's) name; `None` when not recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub north: Option<String>,
}

/// One move (one sowing) of a recorded turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordMove {
    /// Own pit, 1 = the mover's leftmost, or [`crate::SWAP`] for the swap (JSON `"swap"`).
    #[serde(deserialize_with = "json_pit", serialize_with = "json_pit_out")]
    pub pit: u8,
    /// A comment on the move, such as the notation's `!`/`?` marks; `None` for none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// Engine value after the move, in seeds from the mover's view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eval: Option<f64>,
    /// Milliseconds spent choosing the move; `None` when not measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
}

/// One turn: a player's whole go, his move and the extra moves it earned.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordTurn {
    /// The player whose turn it is.
    pub side: Side,
    /// The turn's sowings in order; each but the last gave the same player another move.
    pub moves: Vec<RecordMove>,
}

/// How a recorded game ended: the final stores, the winner, and why when not by the end rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordResult {
    /// Seeds in South's store at the end (after any end sweep or repetition share; at a
    /// resignation, as the store stood).
    #[serde(deserialize_with = "json_store")]
    pub south: u16,
    /// Seeds in North's store at the end (after any end sweep or repetition share; at a
    /// resignation, as the store stood).
    #[serde(deserialize_with = "json_store")]
    pub north: u16,
    /// `None`: a draw.
    pub winner: Option<Side>,
    /// Why the game ended when the end rule did not end it (`third repetition`, `South resigned`);
    /// `None` for an ordinary end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The side that resigned: the game ended there unfinished, `winner` is the other side
    /// and `south`/`north` are the stores at that point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resigned: Option<Side>,
    /// How else the game ended unfinished (`{"time": "south"}`, `{"abandoned": "north"}`,
    /// `"agreed"`): the stores are as they stood, and the winner follows from it. A
    /// resignation is written in `resigned`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stop>,
}

/// How a game ended other than by its rules: the one list every front end, the server and
/// the records use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stop {
    /// This side resigned: the other side wins.
    Resigned(Side),
    /// This side's clock ran out (its flag fell): the other side wins.
    Time(Side),
    /// This side left the game and the other side claimed it: the other side wins.
    Abandoned(Side),
    /// The players agreed a draw.
    Agreed,
    /// A first move was not made in time: the game is void, nobody won or lost.
    Cancelled,
    /// A restart of the server cut a bot's game off: unfinished, nobody won.
    Interrupted,
}

impl Stop {
    /// The side that lost by it, if one did.
    pub fn loser(self) -> Option<Side> {
        match self {
            Stop::Resigned(s) | Stop::Time(s) | Stop::Abandoned(s) => Some(s),
            Stop::Agreed | Stop::Cancelled | Stop::Interrupted => None,
        }
    }

    /// The winner, if one won: the loser's opponent.
    pub fn winner(self) -> Option<Side> {
        self.loser().map(Side::other)
    }

    /// Whether the game has a result (a win or an agreed draw); a cancelled or cut-off game
    /// has none.
    pub fn decides(self) -> bool {
        !matches!(self, Stop::Cancelled | Stop::Interrupted)
    }

    /// The text of a record's `Result` tag (`North wins: South lost on time`); `None` where
    /// the game has no result.
    pub fn tag(self) -> Option<String> {
        let lost = |s: Side, how: &str| format!("{} wins: {s} {how}", s.other());
        match self {
            Stop::Resigned(s) => Some(lost(s, "resigned")),
            Stop::Time(s) => Some(lost(s, "lost on time")),
            Stop::Abandoned(s) => Some(lost(s, "abandoned the game")),
            Stop::Agreed => Some("Draw agreed".into()),
            Stop::Cancelled | Stop::Interrupted => None,
        }
    }

    /// Reads a `Result` tag as [`Stop::tag`] writes it.
    pub fn from_tag(value: &str) -> Option<Stop> {
        if value == "Draw agreed" {
            return Some(Stop::Agreed);
        }
        let side = |s: &str| match s {
            "South" => Some(Side::South),
            "North" => Some(Side::North),
            _ => None,
        };
        let (winner, rest) = value.split_once(" wins: ")?;
        let (loser, how) = rest.split_once(' ')?;
        let loser = side(loser)?;
        if side(winner)? != loser.other() {
            return None;
        }
        match how {
            "resigned" => Some(Stop::Resigned(loser)),
            "lost on time" => Some(Stop::Time(loser)),
            "abandoned the game" => Some(Stop::Abandoned(loser)),
            _ => None,
        }
    }
}

/// A move's pit in JSON: a number, refused beyond any board as a text record's pit is, or
/// `"swap"`.
fn json_pit<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u8, D::Error> {
    use serde::de::Error as _;
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Pit {
        Number(crate::rules::Whole),
        Word(String),
    }
    let missing = |v: i128| format!("pit {v} does not exist (a row has at most {MAX_PITS} pits)");
    match Pit::deserialize(d).map_err(|_| D::Error::custom("a pit is a number or \"swap\""))? {
        Pit::Number(crate::rules::Whole(v)) => match u8::try_from(v) {
            Ok(p) if p != crate::SWAP => Ok(p),
            _ => Err(D::Error::custom(missing(v))),
        },
        Pit::Word(w) if w.eq_ignore_ascii_case(notation::SWAP_TEXT) => Ok(crate::SWAP),
        Pit::Word(w) => Err(D::Error::custom(format!(
            "a pit is a number or \"swap\", got \"{}\"",
            crate::printable(&w.chars().take(40).collect::<String>())
        ))),
    }
}

/// A move's pit in JSON: its number, or `"swap"`.
fn json_pit_out<S: serde::Serializer>(pit: &u8, s: S) -> Result<S::Ok, S::Error> {
    if *pit == crate::SWAP {
        s.serialize_str(notation::SWAP_TEXT)
    } else {
        s.serialize_u8(*pit)
    }
}

/// A store's seeds in a JSON result.
fn json_store<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u16, D::Error> {
    crate::rules::json_count(d, |v| {
        format!("a store holds 0 to {WIDE_MAX_SEEDS} seeds, got {v}")
    })
    .and_then(|s: u16| match s as u32 {
        0..=WIDE_MAX_SEEDS => Ok(s),
        _ => Err(serde::de::Error::custom(format!(
            "a store holds 0 to {WIDE_MAX_SEEDS} seeds, got {s}"
        ))),
    })
}

impl RecordResult {
    /// The result of `game` ended unfinished by `side`'s resignation: the other side wins,
    /// with the stores as they are.
    pub fn resignation(game: &Game, side: Side) -> RecordResult {
        let s = game.scores();
        RecordResult {
            south: s[0],
            north: s[1],
            winner: Some(side.other()),
            reason: Some(format!("{side} resigned")),
            resigned: Some(side),
            stopped: None,
        }
    }

    /// The result of `game` stopped unfinished by `stop`, the stores as they are; `None`
    /// where the stop leaves no result (a cancelled or cut-off game).
    pub fn stopped(game: &Game, stop: Stop) -> Option<RecordResult> {
        if let Stop::Resigned(side) = stop {
            return Some(RecordResult::resignation(game, side));
        }
        let s = game.scores();
        stop.decides().then(|| RecordResult {
            south: s[0],
            north: s[1],
            winner: stop.winner(),
            reason: stop
                .tag()
                .map(|t| t.split_once(": ").map_or(t.clone(), |(_, w)| w.to_string())),
            resigned: None,
            stopped: Some(stop),
        })
    }

    /// How the game stopped unfinished, if it did (a resignation included).
    pub fn stop(&self) -> Option<Stop> {
        self.resigned.map(Stop::Resigned).or(self.stopped)
    }
}

/// A whole game: rules, start, players, turns and result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// The game and its options.
    pub rules: Rules,
    /// The start position when it differs from the rules' start; `None`: the rules' start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<Position>,
    /// The players' names.
    #[serde(default)]
    pub players: Players,
    /// The clock the game was played on (`3+2`, `3d`); `None`: none (or not recorded). It
    /// changes nothing in the replay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<crate::TimeControl>,
    /// The turns played, in order.
    pub turns: Vec<RecordTurn>,
    /// How the game ended; `None` while it is unfinished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<RecordResult>,
}

/// Refuses JSON that is not an object (`[1, 2]`, `null`, `"kalah"`) as a text record,
/// saying what it is.
fn refuse_json(text: &str) -> Result<(), Error> {
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
        let kind = match v {
            serde_json::Value::Array(_) => "error.record.json-kind.array",
            serde_json::Value::String(_) => "error.record.json-kind.string",
            serde_json::Value::Number(_) => "error.record.json-kind.number",
            serde_json::Value::Bool(_) => "error.record.json-kind.bool",
            serde_json::Value::Null => "error.record.json-kind.null",
            serde_json::Value::Object(_) => "",
        };
        if !kind.is_empty() {
            return Err(Error::Record(
                Msg::new("error.record.not-object").sub("kind", Msg::new(kind)),
            ));
        }
    }
    if let Some(rest) = text.trim_start().strip_prefix('[') {
        if rest.trim_start().starts_with(['[', ']', '{', '"']) {
            return Err(Error::Record(
                Msg::new("error.record.not-object")
                    .sub("kind", Msg::new("error.record.json-kind.array")),
            ));
        }
    }
    Ok(())
}

impl Record {
    /// The record of `game` as played so far.
    pub fn from_game(game: &Game, players: Players) -> Record {
        let start = *game.start();
        let default_start = Position::start(game.rules()).ok();
        Record {
            rules: *game.rules(),
            start: (default_start != Some(start)).then_some(start),
            players,
            time_control: None,
            turns: game
                .turns()
                .into_iter()
                .map(|(side, moves)| RecordTurn {
                    side,
                    moves: moves
                        .iter()
                        .map(|m| RecordMove {
                            pit: if m.pit == crate::SWAP {
                                crate::SWAP
                            } else {
                                m.pit + 1
                            },
                            comment: None,
                            eval: None,
                            time_ms: None,
                        })
                        .collect(),
                })
                .collect(),
            result: game.outcome().map(|o| {
                let s = game.scores();
                RecordResult {
                    south: s[0],
                    north: s[1],
                    winner: o.winner(),
                    reason: game.repetition_reason().map(str::to_string),
                    resigned: None,
                    stopped: None,
                }
            }),
        }
    }

    /// Replays the record, checking every move, each turn's side and shape, and the result.
    pub fn replay(&self) -> Result<Game, Error> {
        self.replay_with(Check::Strict)
    }

    /// The position the game starts from: the record's own (which must be of its rules),
    /// else its rules' start.
    fn start_position(&self) -> Result<Position, Error> {
        match self.start {
            Some(p) if p.rules() != &self.rules => Err(Error::Record(
                Msg::new("error.record.start-rules")
                    .arg("start", p.rules())
                    .arg("rules", self.rules),
            )),
            Some(p) => Ok(p),
            None => Position::start(&self.rules),
        }
    }

    /// As [`Record::replay`]; with [`Check::MovesOnly`] the result is not checked.
    pub fn replay_with(&self, check: Check) -> Result<Game, Error> {
        let mut game = Game::new(self.start_position()?);
        for t in 0..self.turns.len() {
            self.replay_turn(&mut game, t)?;
        }
        if let (Some(r), Check::Strict) = (&self.result, check) {
            check_result(r, &game)?;
        }
        Ok(game)
    }

    /// Plays turn `t` (from 0) of the record on `game`, checking its side and its shape: no
    /// empty turn, no move after one that ends the turn (a pass or the end), and a last move
    /// that earns another only in the record's last turn.
    fn replay_turn(&self, game: &mut Game, t: usize) -> Result<(), Error> {
        let turn = &self.turns[t];
        if turn.moves.is_empty() {
            return Err(Error::Record(
                Msg::new("error.record.empty-turn").arg("turn", t + 1),
            ));
        }
        if turn.side != game.to_move() && !game.is_over() {
            return Err(Error::Record(
                Msg::new("error.record.turn-side")
                    .arg("turn", t + 1)
                    .side("side", turn.side)
                    .side("mover", game.to_move()),
            ));
        }
        for (k, mv) in turn.moves.iter().enumerate() {
            let at = || {
                Msg::new("error.record.turn-move-at")
                    .arg("turn", t + 1)
                    .side("side", turn.side)
                    .arg("move", k + 1)
            };
            if mv.pit == 0 {
                return Err(Error::Record(
                    Msg::new("error.record.at-fault")
                        .sub("at", at())
                        .sub("fault", Msg::new("error.record.pit-zero")),
                ));
            }
            let pit = if mv.pit == crate::SWAP {
                crate::SWAP
            } else {
                mv.pit - 1
            };
            let e = game.play(pit).map_err(|e| {
                Error::Record(
                    Msg::new("error.record.at-fault")
                        .sub("at", at())
                        .sub("fault", Msg::new("list.one").error("item", e)),
                )
            })?;
            let last = k + 1 == turn.moves.len();
            if !last && !e.again {
                let what = if game.is_over() {
                    "error.record.more-after-end"
                } else {
                    "error.record.more-after-pass"
                };
                return Err(Error::Record(
                    Msg::new("error.record.at-fault")
                        .sub("at", at())
                        .sub("fault", Msg::new(what)),
                ));
            }
            if last && e.again && t + 1 < self.turns.len() {
                return Err(Error::Record(
                    Msg::new("error.record.at-fault")
                        .sub("at", at())
                        .sub("fault", Msg::new("error.record.moves-again")),
                ));
            }
        }
        Ok(())
    }

    /// Parses a record: JSON if it starts with `{`, else text. `rules` is used when the text
    /// has no `Variant` tag (and must agree with it when it has one).
    pub fn parse(text: &str, rules: Option<Rules>) -> Result<Record, Error> {
        Self::parse_with(text, rules, Check::Strict).map(|(rec, _)| rec)
    }

    /// Parses and replays a record (JSON or text) with `check`.
    pub fn parse_with(
        text: &str,
        rules: Option<Rules>,
        check: Check,
    ) -> Result<(Record, Game), Error> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if text.trim_start().starts_with('{') {
            let rec = Self::from_json(text, rules)?;
            let game = rec.replay_with(check)?;
            Ok((rec, game))
        } else {
            Self::parse_text(text, rules, check)
        }
    }

    /// Parses a record checked whole; one whose moves replay but whose annotations or claimed
    /// result disagree is replayed by its moves alone, and that disagreement handed back as a
    /// note. Any other fault is the error.
    pub fn parse_noting(
        text: &str,
        rules: Option<Rules>,
    ) -> Result<(Record, Game, Option<Error>), Error> {
        match Self::parse_with(text, rules, Check::Strict) {
            Ok((rec, game)) => Ok((rec, game, None)),
            Err(e) => match Self::parse_with(text, rules, Check::MovesOnly) {
                Ok((rec, game)) => Ok((rec, game, Some(e))),
                Err(_) => Err(e),
            },
        }
    }

    /// Reads the JSON form, without replaying it; `rules`, when given, must be the record's.
    pub fn from_json(text: &str, rules: Option<Rules>) -> Result<Record, Error> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        // The error names the field it is in (`turns[2].moves[0].pit`), unless it is the
        // whole record or the error names its part already (`rules: ...`).
        let mut de = serde_json::Deserializer::from_str(text);
        let rec: Record = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let field = e.path().to_string();
            let error = e.into_inner().to_string();
            let top = field.split(['.', '[']).next().unwrap_or_default();
            let msg = if field == "." || error.starts_with(&format!("{top}:")) {
                Msg::new("error.record.json")
            } else {
                Msg::new("error.record.json-field").arg("field", field)
            };
            Error::Record(msg.arg("error", error))
        })?;
        // Nothing but white space may follow the record.
        de.end()
            .map_err(|e| Error::Record(Msg::new("error.record.json").arg("error", e)))?;
        if let Some(r) = rules {
            if r != rec.rules {
                return Err(Error::Record(
                    Msg::new("error.record.other-rules")
                        .arg("rules", rec.rules)
                        .arg("wanted", r),
                ));
            }
        }
        Ok(rec)
    }

    /// Parses the text form, replays it with `check` and returns the record and the game.
    pub fn parse_text(
        text: &str,
        rules: Option<Rules>,
        check: Check,
    ) -> Result<(Record, Game), Error> {
        // A byte-order mark (files saved on Windows) is not part of the text.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        // With no rules given, an empty text would be refused for naming no variant.
        if text.trim().is_empty() && rules.is_none() {
            return Err(Error::Record(Msg::new("error.record.empty")));
        }
        refuse_json(text)?;
        let mut players = Players::default();
        let mut variant: Option<Rules> = None;
        let mut start: Option<Position> = None;
        let mut time_control: Option<crate::TimeControl> = None;
        let mut stopped: Option<Stop> = None;
        let mut body = String::new();
        // Each tag once: a record naming two variants (or two players for a side) is wrong,
        // not something to settle by taking the last.
        let mut tags: Vec<(&str, usize)> = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let l = line.trim();
            if let Some(tag) = l.strip_prefix('[') {
                let bad = || Error::Record(Msg::new("error.record.tag-form").arg("line", n + 1));
                let tag = tag.strip_suffix(']').ok_or_else(bad)?;
                let (name, value) = tag.split_once(' ').ok_or_else(bad)?;
                let value = value
                    .trim()
                    .strip_prefix('"')
                    .and_then(|v| v.strip_suffix('"'))
                    .ok_or_else(bad)?;
                if let Some((_, first)) = tags.iter().find(|t| t.0 == name) {
                    return Err(Error::Record(
                        Msg::new("error.record.second-tag")
                            .arg("line", n + 1)
                            .arg("name", name)
                            .arg("first", first),
                    ));
                }
                tags.push((name, n + 1));
                let at = |e: Error| {
                    Error::Record(
                        Msg::new("error.record.line")
                            .arg("line", n + 1)
                            .error("error", e),
                    )
                };
                // A known tag in another case is a slip, not a comment to pass over.
                if let Some(known) = [
                    "Variant",
                    "South",
                    "North",
                    "Position",
                    "TimeControl",
                    "Result",
                ]
                .into_iter()
                .find(|k| k.eq_ignore_ascii_case(name) && *k != name)
                {
                    return Err(Error::Record(
                        Msg::new("error.record.tag-case")
                            .arg("line", n + 1)
                            .arg("name", name)
                            .arg("known", known),
                    ));
                }
                match name {
                    "Variant" => variant = Some(value.parse().map_err(at)?),
                    "South" => players.south = Some(value.to_string()),
                    "North" => players.north = Some(value.to_string()),
                    "Position" => start = Some(value.parse().map_err(at)?),
                    "TimeControl" => time_control = Some(value.parse().map_err(at)?),
                    // A resignation, a loss on time, an abandoned game or an agreed draw,
                    // as `to_text` writes them; other results are comments (the
                    // movetext's final score is the one checked).
                    "Result" => stopped = Stop::from_tag(value),
                    // A position under another name is a slip for `Position`, not a
                    // comment to keep out of the game.
                    _ if value.matches('/').count() >= 5 => {
                        return Err(Error::Record(
                            Msg::new("error.record.position-tag")
                                .arg("line", n + 1)
                                .arg("name", name),
                        ))
                    }
                    _ => {} // other tags (Date, Event, Result...) are kept out of the game
                }
                body.push('\n');
            } else {
                body.push_str(line);
                body.push('\n');
            }
        }
        let rules = match (variant, rules, start) {
            (Some(v), Some(r), _) if v != r => {
                return Err(Error::Record(
                    Msg::new("error.record.other-rules")
                        .arg("rules", v)
                        .arg("wanted", r),
                ))
            }
            (Some(v), _, _) | (None, Some(v), _) => v,
            (None, None, Some(p)) => *p.rules(),
            (None, None, None) => return Err(Error::Record(Msg::new("error.record.no-variant"))),
        };
        let start = match start {
            Some(p) if p.rules() != &rules => {
                return Err(Error::Record(
                    Msg::new("error.record.position-rules")
                        .arg("position", p.rules())
                        .arg("rules", rules),
                ))
            }
            Some(p) => p,
            None => Position::start(&rules)?,
        };
        let mut game = Game::new(start);
        notation::replay(&mut game, &body, check)?;
        let mut rec = Record::from_game(&game, players);
        rec.rules = rules;
        rec.time_control = time_control;
        if let Some(stop) = stopped {
            rec.result = RecordResult::stopped(&game, stop);
            if check == Check::Strict {
                rec.replay()?;
            }
        }
        Ok((rec, game))
    }

    /// The text form: tags, then the movetext.
    pub fn to_text(&self) -> Result<String, Error> {
        let game = self.replay()?;
        let mut out = format!("[Variant \"{}\"]\n", self.rules);
        if let Some(s) = &self.players.south {
            out += &format!("[South \"{}\"]\n", tag_value(s));
        }
        if let Some(n) = &self.players.north {
            out += &format!("[North \"{}\"]\n", tag_value(n));
        }
        if let Some(p) = &self.start {
            out += &format!("[Position \"{p}\"]\n");
        }
        if let Some(t) = &self.time_control {
            out += &format!("[TimeControl \"{t}\"]\n");
        }
        if let Some(tag) = self.result.as_ref().and_then(|r| r.stop()?.tag()) {
            out += &format!("[Result \"{tag}\"]\n");
        }
        out += &notation::game_text(&game);
        Ok(out)
    }
}

/// A name as a tag value: one line, no `"` (written `'`), so that the tag reads back.
fn tag_value(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            '"' => '\'',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
}

/// Checks the result `r` that a record states against `game`, the record replayed: a stop
/// (on time, abandoned, agreed) or a resignation leaves the game unfinished, the stores as
/// they stand; any other result is the game's end, its stores and its winner.
fn check_result(r: &RecordResult, game: &Game) -> Result<(), Error> {
    let s = game.scores();
    let outcome = game.outcome();
    // A loss on time, an abandoned game, an agreed draw: an unfinished game, the
    // stores as they stand, the winner the stop's.
    if let Some(stop) = r.stopped {
        let fits = outcome.is_none()
            && stop.decides()
            && r.winner == stop.winner()
            && [r.south, r.north] == s;
        return if fits {
            Ok(())
        } else {
            Err(Error::Record(
                Msg::new("error.record.stop-differs")
                    .arg("how", stop.tag().unwrap_or_default())
                    .arg("replay_south", s[0])
                    .arg("replay_north", s[1]),
            ))
        };
    }
    if let Some(side) = r.resigned {
        return if outcome.is_some() {
            Err(Error::Record(
                Msg::new("error.record.resigned-over").side("side", side),
            ))
        } else if r.winner != Some(side.other()) {
            Err(Error::Record(
                Msg::new("error.record.resigned-winner")
                    .side("side", side)
                    .side("winner", side.other())
                    .sub("given", winner_msg(r.winner)),
            ))
        } else if [r.south, r.north] != s {
            Err(Error::Record(
                Msg::new("error.record.resigned-score")
                    .arg("south", r.south)
                    .arg("north", r.north)
                    .side("side", side)
                    .arg("replay_south", s[0])
                    .arg("replay_north", s[1]),
            ))
        } else {
            Ok(())
        };
    }
    if outcome.is_none() {
        return Err(Error::Record(Msg::new("error.record.result-not-over")));
    }
    if [r.south, r.north] != s || outcome.and_then(Outcome::winner) != r.winner {
        return Err(Error::Record(
            Msg::new("error.record.result-differs")
                .arg("south", r.south)
                .arg("north", r.north)
                .sub("winner", winner_msg(r.winner))
                .arg("replay_south", s[0])
                .arg("replay_north", s[1])
                .sub(
                    "replay_winner",
                    winner_msg(outcome.and_then(Outcome::winner)),
                ),
        ));
    }
    Ok(())
}

fn winner_msg(w: Option<Side>) -> Msg {
    match w {
        Some(s) => Msg::new("error.record.wins").side("side", s),
        None => Msg::new("error.record.draw"),
    }
}

#[cfg(test)]
mod tests;
