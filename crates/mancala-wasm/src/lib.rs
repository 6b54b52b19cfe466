//! The engine in the browser: everything the client asks the server for when it plays,
//! hints and analyses, answered in a Web Worker (web/engine-worker.js) from this crate built
//! for `wasm32-unknown-unknown`, with no server.
//!
//! Every function takes plain values and answers a JSON string of the same shape as the
//! server's answer to the same request (the shapes are the server's own `view` module,
//! compiled in here); a bad request answers `{"error": "..."}` and never panics. Values keep
//! the engine's [`mancala_engine::Evaluation`] JSON: whose view, whether lower is better,
//! proven or searched to depth D.
//!
//! Games against the computer live in this module's memory, one table per worker, each
//! driven through the one game session of every front end ([`mancala_play::session`]); the page
//! keeps each game's [`snapshot`] and [`restore`]s it into a new worker. The engine
//! runs on one thread (there are none in the browser); a search stops at its budget, and the
//! page stops a search early by terminating the worker and starting a new one.

use std::cell::RefCell;
use std::time::Duration;

use mancala_core::i18n::Lang;
use mancala_core::notation::Notation;
use mancala_core::record::Players;
use mancala_core::{Game, Position, Record, Rules, Side};
use mancala_engine::{Budget, Engine, Level, Limits};
use mancala_play::session::{End, Seat, Session, Stop, UndoError};
use serde::Serialize;
use serde_json::{json, Value};
use wasm_bindgen::prelude::wasm_bindgen;

#[path = "../../mancala-server/src/view.rs"]
#[allow(dead_code, unused_imports)]
mod view;

/// The transposition table of the hints, analyses and proofs, in MiB.
const TABLE_MB: usize = 16;

/// A game of this browser: the one game session of every front end
/// ([`mancala_play::Session`]: its seats, undo, resignation and end), with what the page
/// needs besides.
struct Local {
    /// `local-SEED-K`: the creating request's seed and the count of games this worker made;
    /// a game restored from a [`snapshot`] keeps its id.
    id: String,
    session: Session,
    /// The seat of the person (against the computer).
    you: Side,
    version: u64,
    /// The computer's values of its moves, by ply: its margin after the move, from the
    /// mover's view (what the server stores as a move's `eval`).
    evals: Vec<Option<i32>>,
}

thread_local! {
    static GAMES: RefCell<Vec<Local>> = const { RefCell::new(Vec::new()) };
    static ENGINE: RefCell<Option<Engine>> = const { RefCell::new(None) };
}

fn with_engine<T>(f: impl FnOnce(&Engine) -> T) -> T {
    ENGINE.with(|e| {
        let mut e = e.borrow_mut();
        let engine = e.get_or_insert_with(|| Engine::new(TABLE_MB, 1));
        f(engine)
    })
}

fn answer<T: Serialize>(r: Result<T, String>) -> String {
    let v = r.and_then(|v| serde_json::to_value(v).map_err(|e| e.to_string()));
    match v {
        Ok(v) => v.to_string(),
        Err(e) => json!({ "error": e }).to_string(),
    }
}

fn lang(code: &str) -> Lang {
    code.parse().unwrap_or_default()
}

fn position(text: &str) -> Result<Position, String> {
    text.trim().parse::<Position>().map_err(|e| e.to_string())
}

fn history(json_list: &str, pos: &Position) -> Result<Vec<Position>, String> {
    if json_list.trim().is_empty() {
        return Ok(Vec::new());
    }
    let list: Vec<String> = serde_json::from_str(json_list).map_err(|e| e.to_string())?;
    list.iter()
        .enumerate()
        .map(|(k, t)| {
            let p = view::analysis_position(t).map_err(|e| format!("history[{k}]: {e}"))?;
            if p.rules() != pos.rules() {
                return Err(format!("history[{k}]: other rules than the position's"));
            }
            Ok(p)
        })
        .collect()
}

/// A budget of at most `ms` milliseconds (at least 1) and, where `depth` is not 0, `depth` plies.
fn budget(depth: u32, ms: u32) -> Budget {
    Budget::from(Limits {
        depth: (depth > 0).then_some(depth),
        time: Some(Duration::from_millis(u64::from(ms.max(1)))),
        nodes: None,
    })
}

/// Every preset and option, as `GET /api/variants` (and `mancala variants --json`).
#[wasm_bindgen]
pub fn variants(lang_code: &str) -> String {
    answer(Ok(view::variants(lang(lang_code))))
}

/// A variant's rules and start, as `GET /api/rules`.
#[wasm_bindgen]
pub fn rules(variant: &str, lang_code: &str) -> String {
    answer((|| {
        let r: Rules = variant
            .parse()
            .map_err(|e: mancala_core::Error| e.to_string())?;
        let lang = lang(lang_code);
        let start = Position::start(&r).map_err(|e| e.to_string())?;
        Ok(json!({
            "name": r.to_string(),
            "rules": r,
            "lang": lang.code(),
            "title": r.title_in(lang),
            "summary": r.preset.summary_in(lang),
            "restriction": r.move_restriction_in(lang),
            "text": r.describe_in(lang),
            "start": view::board(&start),
        }))
    })())
}

/// The legal moves of a position (pits 1-based, 0 for the swap) and the position after each.
#[wasm_bindgen]
pub fn legal_moves(pos: &str) -> String {
    answer((|| {
        let p = position(pos)?;
        let notation = Notation::for_rules(p.rules());
        Ok(p.legal_moves()
            .as_slice()
            .iter()
            .map(|&m| {
                let mut after = p;
                let _ = after.play(m);
                json!({
                    "pit": mancala_core::pit_number(m),
                    "text": notation.move_text(p.to_move(), m).to_string(),
                    "after": after.to_string(),
                })
            })
            .collect::<Vec<_>>())
    })())
}

/// The board of a position, as the server's `board`.
#[wasm_bindgen]
pub fn board(pos: &str) -> String {
    answer(position(pos).map(|p| view::board(&p)))
}

fn pit_index(pit: &Value) -> Result<u8, String> {
    match pit {
        Value::String(s) if s == "swap" => Ok(mancala_core::SWAP),
        Value::Number(n) => n
            .as_u64()
            .filter(|&n| (1..=255).contains(&n))
            .map(|n| n as u8 - 1)
            .ok_or_else(|| format!("no pit {n}")),
        other => Err(format!("a pit is a number or \"swap\", not {other}")),
    }
}

impl Local {
    /// A game from `game` on: the person at `you` against the computer at `level`, or two
    /// people at one screen (`level` `None`).
    fn new(id: String, game: Game, level: Option<Level>, you: Side) -> Local {
        let computer = match level {
            Some(level) => Seat::Level(level),
            None => Seat::Person,
        };
        let seats = match you {
            Side::South => [Seat::Person, computer],
            Side::North => [computer, Seat::Person],
        };
        Local {
            id,
            session: Session::from_game(game, seats, Players::default()),
            you,
            version: 0,
            evals: Vec::new(),
        }
    }

    fn game(&self) -> &Game {
        self.session.game()
    }

    /// The computer's level; `None` for two people at one screen.
    fn level(&self) -> Option<Level> {
        self.session.seat(self.you.other()).level()
    }

    fn over(&self) -> bool {
        self.session.end().is_some()
    }

    /// The side a resignation came from, if the game ended so.
    fn resigned(&self) -> Option<Side> {
        match self.session.end() {
            Some(End::Stopped(Stop::Resigned(side))) => Some(side),
            _ => None,
        }
    }

    /// The computer's moves until the person is to move or the game is over.
    fn reply(&mut self, seed: u64) {
        let Some(level) = self.level() else { return };
        while self.session.computer_to_move() {
            let m = self.session.moment();
            let s = seed ^ (m.ply as u64).wrapping_mul(0x9E37_79B9);
            let Some(d) = level.decide(&m.position, &m.history, s) else {
                break;
            };
            if self.session.play(d.pit).is_err() {
                break;
            }
            self.evals.truncate(m.ply);
            self.evals.push(d.eval.map(|e| e.margin));
        }
    }

    fn view(&self) -> Value {
        let level = self.level().map(|l| l.level);
        let seat = |s: Side| match level {
            Some(level) if s != self.you => view::Player::Computer {
                level,
                name: format!("Computer (level {level})"),
                joined: true,
            },
            _ => view::Player::Human {
                name: None,
                joined: true,
            },
        };
        let players = view::Seats {
            south: seat(Side::South),
            north: seat(Side::North),
        };
        let eval = |k: usize| self.evals.get(k).copied().flatten();
        let stop = match self.session.end() {
            Some(End::Stopped(stop)) => Some(stop),
            _ => None,
        };
        let g = self.game();
        let v = view::GameView {
            id: self.id.clone(),
            version: self.version,
            vs_computer: level.is_some(),
            thinking: self.session.computer_to_move(),
            you: Some(view::side_str(if level.is_some() {
                self.you
            } else {
                g.to_move()
            })),
            ..view::game_view(g, stop, &eval, players)
        };
        let mut v = serde_json::to_value(v).unwrap_or(Value::Null);
        v["local"] = json!(true);
        v
    }
}

fn with_game(id: &str, f: impl FnOnce(&mut Local) -> Result<Value, String>) -> String {
    answer(GAMES.with(|g| {
        let mut g = g.borrow_mut();
        match g.iter_mut().find(|game| game.id == id) {
            Some(game) => f(game),
            None => Err(format!("no game {id} in this browser")),
        }
    }))
}

/// Starts a game in this browser from a request shaped as `POST /api/games`'s (`rules` or
/// `position`, `opponent` "computer" or "friend", `level` 1 to 8, `side` "south", "north" or
/// "random"), and answers as the server does (`game`, `seat`, `token`, `invite`). The
/// computer moves at once where it is to move; `seed` drives its choices and a random seat.
#[wasm_bindgen]
pub fn new_game(request: &str, seed: u32) -> String {
    answer((|| {
        let req: Value = serde_json::from_str(request).map_err(|e| e.to_string())?;
        let start = match (
            req.get("position").and_then(Value::as_str),
            req.get("rules"),
        ) {
            (Some(p), _) => position(p)?,
            (None, Some(Value::String(r))) => {
                let r: Rules = r.parse().map_err(|e: mancala_core::Error| e.to_string())?;
                Position::start(&r).map_err(|e| e.to_string())?
            }
            (None, None) => Position::start(&Rules::default()).map_err(|e| e.to_string())?,
            (None, Some(_)) => {
                return Err("rules must be a string such as \"kalah,seeds=4\"".into())
            }
        };
        let level = match req
            .get("opponent")
            .and_then(Value::as_str)
            .unwrap_or("computer")
        {
            "computer" => {
                let l = req.get("level").and_then(Value::as_u64).unwrap_or(3);
                if !(1..=8).contains(&l) {
                    return Err(format!("level must be 1 to 8, got {l}"));
                }
                Level::new(l as u8)
            }
            "friend" => None,
            other => {
                return Err(format!(
                    "opponent must be \"computer\" or \"friend\", got \"{other}\""
                ))
            }
        };
        let you = match req.get("side").and_then(Value::as_str).unwrap_or("south") {
            "south" => Side::South,
            "north" => Side::North,
            "random" if seed & 1 == 0 => Side::South,
            "random" => Side::North,
            other => {
                return Err(format!(
                    "side must be south, north or random, got \"{other}\""
                ))
            }
        };
        let mut local = Local::new(String::new(), Game::new(start), level, you);
        local.reply(u64::from(seed));
        GAMES.with(|g| {
            let mut g = g.borrow_mut();
            local.id = format!("local-{seed:08x}-{}", g.len());
            g.push(local);
            Ok(json!({
                "game": g[g.len() - 1].view(),
                "seat": view::side_str(you),
                "token": "local",
                "invite": null,
            }))
        })
    })())
}

/// A game's state, as `GET /api/games/{id}`.
#[wasm_bindgen]
pub fn state(id: &str) -> String {
    with_game(id, |g| Ok(g.view()))
}

/// Plays `pit` (1-based, or "swap", as JSON) at ply `ply`, then the computer's reply; answers
/// the state as `POST /api/games/{id}/moves`.
#[wasm_bindgen]
pub fn play(id: &str, pit: &str, ply: u32, seed: u32) -> String {
    with_game(id, |g| {
        if g.over() {
            return Err("the game is over".into());
        }
        if ply as usize != g.game().moves().len() {
            return Err("the game has moved on: reload it".into());
        }
        if g.session.computer_to_move() {
            return Err("it is not your turn".into());
        }
        let pit: Value = serde_json::from_str(pit).map_err(|e| e.to_string())?;
        g.session
            .play(pit_index(&pit)?)
            .map_err(|e| e.to_string())?;
        g.evals.truncate(ply as usize);
        g.evals.push(None);
        g.reply(u64::from(seed));
        g.version += 1;
        Ok(g.view())
    })
}

/// Takes back the person's last move and the computer's replies after it (the one undo rule
/// of `Session`: after an extra turn, one sowing at a time).
#[wasm_bindgen]
pub fn undo(id: &str) -> String {
    with_game(id, |g| {
        if g.level().is_none() {
            return Err("undo is for games against the computer".into());
        }
        g.session.undo(g.you).map_err(|e| match e {
            UndoError::Nothing => "nothing to undo".to_string(),
            UndoError::Stopped(_) => "undo is for games still being played".to_string(),
        })?;
        g.evals.truncate(g.game().moves().len());
        g.version += 1;
        Ok(g.view())
    })
}

/// Resigns for the person (for the side to move between two people at one screen).
#[wasm_bindgen]
pub fn resign(id: &str) -> String {
    with_game(id, |g| {
        if g.over() {
            return Err("the game is already over".into());
        }
        let side = if g.level().is_some() {
            g.you
        } else {
            g.game().to_move()
        };
        g.session.resign(side);
        g.version += 1;
        Ok(g.view())
    })
}

/// A hint for the side to move within `ms` milliseconds and 16 plies
/// ([`mancala_engine::think::hint`]: a proof where one finishes, else a search), as
/// `GET /api/games/{id}/hint`.
#[wasm_bindgen]
pub fn hint(id: &str, ms: u32) -> String {
    with_game(id, |g| {
        if g.over() {
            return Err("the game is over".into());
        }
        let pos = *g.game().position();
        let r = with_engine(|e| g.session.hint(e, budget(16, ms))).ok_or("no legal move")?;
        serde_json::to_value(view::hint(&pos, pos.to_move(), &r)).map_err(|e| e.to_string())
    })
}

/// Every legal move's value and the best line ([`mancala_engine::think::analyse`]) within
/// `depth` plies (0: no depth limit) and `ms` milliseconds, as `POST /api/analysis`. `history_json`: the
/// positions before `pos` as a JSON list of strings (repetition rule), or empty.
#[wasm_bindgen]
pub fn analyse(pos: &str, history_json: &str, depth: u32, ms: u32) -> String {
    answer((|| {
        let p = view::analysis_position(pos).map_err(|e| e.to_string())?;
        let h = history(history_json, &p)?;
        Ok(with_engine(|e| view::analyse(e, &p, &h, budget(depth, ms))))
    })())
}

/// The search of `pos` to `depth` plies with no time limit on a fresh one-thread engine
/// (as `mancala analyze POSITION --depth D --threads 1`): best move, value, nodes and time.
#[wasm_bindgen]
pub fn search(pos: &str, depth: u32, tt_mb: u32) -> String {
    answer((|| {
        let p = position(pos)?;
        let engine = Engine::try_new((tt_mb as usize).clamp(1, 1024), 1)?;
        let limits = Limits {
            depth: Some(depth.clamp(1, 64)),
            ..Limits::default()
        };
        let r = engine.search(&p, limits, &[]).ok_or("the game is over")?;
        Ok(json!({
            "best": mancala_core::pit_number(r.best),
            "eval": r.eval,
            "depth": r.depth,
            "nodes": r.nodes,
            "ms": r.elapsed.as_secs_f64() * 1000.0,
        }))
    })())
}

/// The exact value of `pos` ([`Engine::solve`]) within `ms` milliseconds: `{"best", "eval",
/// "line", "nodes", "ms"}`, or `{"proven": false}` where the time ran out first.
#[wasm_bindgen]
pub fn solve(pos: &str, ms: u32) -> String {
    answer((|| {
        let p = position(pos)?;
        if p.is_over() {
            return Err("the game is over".into());
        }
        let r = with_engine(|e| e.solve(&p, budget(0, ms), &[]));
        Ok(match r {
            Some(r) => json!({
                "proven": true,
                "best": mancala_core::pit_number(r.best),
                "eval": r.eval,
                "line": r.pv.iter().map(|p| p + 1).collect::<Vec<_>>(),
                "nodes": r.nodes,
                "ms": r.elapsed.as_millis() as u64,
            }),
            None => json!({ "proven": false }),
        })
    })())
}

/// A game record (JSON or text) replayed with every move judged as the server's replays are
/// (the server's `view::replay_analysis`: to a fixed depth, or a small game proven whole; `total_ms` in
/// all), as `POST /api/replay`.
#[wasm_bindgen]
pub fn replay_record(text: &str, total_ms: u32) -> String {
    answer((|| {
        if text.trim().is_empty() {
            return Err("send a game record (JSON or text)".into());
        }
        let (rec, game, note) = Record::parse_noting(text, None).map_err(|e| e.to_string())?;
        let values = with_engine(|e| {
            view::replay_analysis(e, &game, Duration::from_millis(u64::from(total_ms.max(1))))
        });
        let players = json!({
            "south": { "name": rec.players.south },
            "north": { "name": rec.players.north },
        });
        let stop = rec.result.as_ref().and_then(|r| r.stop());
        let mut v = view::replay(&game, players, stop, Some(values));
        v.note = note.as_ref().map(|n| n.to_string());
        v.note_message = note.map(|n| n.msg());
        Ok(v)
    })())
}

/// What rebuilds a game in another worker ([`restore`]): its id, start position, moves (pit
/// numbers from 1, or "swap"), the computer's level and values, the person's seat and a
/// resignation. The page keeps it in the browser's storage after each change, so a game
/// outlives a reload or a stopped search.
#[wasm_bindgen]
pub fn snapshot(id: &str) -> String {
    with_game(id, |g| {
        let moves: Vec<Value> = g
            .game()
            .moves()
            .iter()
            .map(|m| match m.pit {
                mancala_core::SWAP => json!("swap"),
                p => json!(p + 1),
            })
            .collect();
        Ok(json!({
            "id": g.id,
            "start": g.game().start().to_string(),
            "moves": moves,
            "level": g.level().map(|l| l.level),
            "you": view::side_str(g.you),
            "resigned": g.resigned().map(view::side_str),
            "version": g.version,
            "evals": g.evals,
        }))
    })
}

/// Rebuilds a game from its [`snapshot`] (every move replayed and checked) and answers its
/// state, as `GET /api/games/{id}`. A game of that id already here is replaced.
#[wasm_bindgen]
pub fn restore(snapshot: &str) -> String {
    answer((|| {
        let s: Value = serde_json::from_str(snapshot).map_err(|e| e.to_string())?;
        let text = |k: &str| s.get(k).and_then(Value::as_str);
        let id = text("id")
            .filter(|id| id.starts_with("local-") && id.len() <= 64)
            .ok_or("a snapshot needs the id of a game of this browser")?
            .to_string();
        let mut game = Game::new(position(
            text("start").ok_or("a snapshot needs its start")?,
        )?);
        let moves = s
            .get("moves")
            .and_then(Value::as_array)
            .ok_or("a snapshot needs its moves")?;
        for (k, pit) in moves.iter().enumerate() {
            game.play(pit_index(pit)?)
                .map_err(|e| format!("move {}: {e}", k + 1))?;
        }
        let level = match s.get("level") {
            None | Some(Value::Null) => None,
            Some(l) => Some(
                l.as_u64()
                    .and_then(|l| Level::new(u8::try_from(l).ok()?))
                    .ok_or("level must be 1 to 8")?,
            ),
        };
        let side = |k: &str| -> Result<Option<Side>, String> {
            match text(k) {
                None => Ok(None),
                Some("south") => Ok(Some(Side::South)),
                Some("north") => Ok(Some(Side::North)),
                Some(other) => Err(format!("{k} must be south or north, not \"{other}\"")),
            }
        };
        let mut evals: Vec<Option<i32>> = match s.get("evals") {
            None | Some(Value::Null) => Vec::new(),
            Some(e) => serde_json::from_value(e.clone()).map_err(|e| format!("evals: {e}"))?,
        };
        evals.resize(game.moves().len(), None);
        let resigned = side("resigned")?;
        let mut local = Local::new(id, game, level, side("you")?.unwrap_or(Side::South));
        if let Some(side) = resigned {
            local.session.resign(side);
        }
        local.version = s.get("version").and_then(Value::as_u64).unwrap_or(0);
        local.evals = evals;
        let view = local.view();
        GAMES.with(|g| {
            let mut g = g.borrow_mut();
            g.retain(|x| x.id != local.id);
            g.push(local);
        });
        Ok(view)
    })())
}
