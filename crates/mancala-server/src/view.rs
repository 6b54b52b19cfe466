//! JSON views of positions, moves and games for the browser client, and the sowing trace the
//! client animates.
//!
//! Board places use the ring of design.md: `0..m` South's pits from South's left, `m` South's
//! store, `m+1..=2m` North's pits from North's left, `2m+1` North's store (Kauri too, whose
//! stores are never sown into).

use std::time::{Duration, Instant};

use mancala_core::notation::{self, Notation};
use mancala_core::rules::{OptionKind, OPTIONS};
use mancala_core::{Game, Outcome, PlayedMove, Position, Preset, Side};
use mancala_engine::{Engine, Limits};
use serde_json::{json, Value};

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

/// Pits, stores, cowries and side to move.
pub fn board(p: &Position) -> Value {
    let m = p.pits();
    let row = |s: Side| (0..m).map(|i| p.seeds(s, i)).collect::<Vec<_>>();
    let mut v = json!({
        "south": row(Side::South),
        "north": row(Side::North),
        "stores": p.scores(),
        "to_move": if p.is_over() { Value::Null } else { side_str(p.to_move()).into() },
        "position": p.to_string(),
    });
    if p.rules().has_cowries() {
        let cow = |s: Side| (0..m).map(|i| p.cowries(s, i)).collect::<Vec<_>>();
        v["cowries"] = json!({"south": cow(Side::South), "north": cow(Side::North)});
    }
    v
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

/// One move with what the client needs to draw it: its text, the sowing path, and the pits
/// the move took seeds from (captures, and the end sweep).
pub fn move_view(before: &Position, after: &Position, mv: &PlayedMove, ply: usize) -> Value {
    let notation = Notation::for_rules(before.rules());
    let (path, cowries_from) = before.sowing_path(mv.pit);
    let mut counts = ring_counts(before);
    let m = before.pits();
    let origin = if mv.side == Side::South {
        mv.pit as usize
    } else {
        m + 1 + mv.pit as usize
    };
    if let Some(c) = counts.get_mut(origin) {
        *c = 0;
    }
    for &i in &path {
        if let Some(c) = counts.get_mut(i) {
            *c += 1;
        }
    }
    let after_counts = ring_counts(after);
    let taken: Vec<usize> = (0..counts.len())
        .filter(|&i| i != m && i != 2 * m + 1 && counts[i] > after_counts[i])
        .collect();
    json!({
        "ply": ply,
        "side": side_str(mv.side),
        "pit": mv.pit + 1,
        "text": notation.move_text(mv.side, mv.pit).to_string(),
        "origin": origin,
        "path": path,
        "cowries_from": cowries_from,
        "taken": taken,
        "gain": mv.effect.gain,
        "captured": mv.effect.captured,
        "handed": mv.effect.handed,
        "again": mv.effect.again,
        "ended": mv.effect.ended,
    })
}

/// The turns as the game's notation writes them.
pub fn turns(game: &Game) -> Vec<Value> {
    let notation = Notation::for_rules(game.rules());
    let mut ply = 0;
    let first_north = game.start().to_move() == Side::North;
    game.turns()
        .iter()
        .enumerate()
        .map(|(k, (side, moves))| {
            let first_ply = ply;
            ply += moves.len();
            let number = (k + usize::from(first_north)) / 2 + 1;
            json!({
                "number": number,
                "side": side_str(*side),
                "text": notation::turn_text(notation, *side, moves),
                "first_ply": first_ply,
                "plies": moves.len(),
            })
        })
        .collect()
}

/// "North wins 40 : 32" style result, with resignation and repetition.
pub fn result(game: &Game, resigned: Option<Side>) -> Value {
    let s = game.scores();
    if let Some(r) = resigned {
        return json!({"south": s[0], "north": s[1], "winner": side_str(r.other()),
            "reason": format!("{} resigned", r)});
    }
    match game.outcome() {
        None => Value::Null,
        Some(o) => {
            let reason = if let Some(r) = game.repetition_reason() {
                r.to_string()
            } else if game.rules().misere() {
                "fewer seeds wins".to_string()
            } else {
                "game over".to_string()
            };
            json!({"south": s[0], "north": s[1],
                "winner": match o { Outcome::Win(w) => side_str(w).into(), Outcome::Draw => Value::Null },
                "reason": reason})
        }
    }
}

/// Rules facts the client draws with (the rules text is at `/api/rules`).
pub fn rules_view(game: &Game) -> Value {
    let r = game.rules();
    json!({
        "name": r.to_string(),
        "preset": r.preset.name(),
        "summary": r.preset.summary(),
        "rules": r,
        "pits": r.pits,
        "notation": notation_str(Notation::for_rules(r)),
        "misere": r.misere(),
        "kauri": r.has_cowries(),
    })
}

/// Every preset, its defaults, and the options that apply to it, for the new-game menus.
pub fn variants() -> Value {
    let presets: Vec<Value> = Preset::ALL
        .iter()
        .map(|p| {
            let options: Vec<Value> = OPTIONS
                .iter()
                .filter(|o| (o.applies)(*p))
                .map(|o| {
                    let mut v = json!({"name": o.name, "values": o.values(), "help": o.help,
                                       "default": o.default(*p).to_string()});
                    let kind = match o.kind {
                        OptionKind::Number { min, max } => {
                            json!({"kind": "range", "min": min, "max": max})
                        }
                        OptionKind::Bool => json!({"kind": "choice", "choices": ["true", "false"]}),
                        OptionKind::Keyword(words) => json!({"kind": "choice", "choices": words}),
                    };
                    if let (Some(a), Some(b)) = (v.as_object_mut(), kind.as_object()) {
                        a.extend(b.clone());
                    }
                    v
                })
                .collect();
            json!({"name": p.name(), "summary": p.summary(), "defaults": p.rules(), "options": options,
                   "text": p.rules().describe()})
        })
        .collect();
    json!({"presets": presets, "levels": mancala_engine::LEVELS.collect::<Vec<_>>()})
}

/// The engine's view of every move of `game`: for each ply, the value of the move played and
/// of the best move, both from the mover's view with their quality (see
/// [`mancala_engine::Evaluation`]'s JSON), the best move, and the seeds the move played gave
/// away (`loss`: null where the best move's value is of lower quality than the played one's,
/// so that no comparison can be made). Each move is judged by [`Engine::judge_move`] within
/// `per_search`: proofs where they finish, else a search of every move to one depth. After
/// `budget` the remaining plies get nulls.
pub fn analysis(game: &Game, per_search: Duration, budget: Duration) -> Vec<Value> {
    let t0 = Instant::now();
    let engine = Engine::new(64, 1);
    let notation = Notation::for_rules(game.rules());
    game.moves()
        .iter()
        .enumerate()
        .map(|(k, mv)| {
            let none =
                json!({"ply": k, "played": null, "best": null, "best_pit": null, "loss": null});
            if t0.elapsed() > budget {
                return none;
            }
            let before = game.position_at(k).expect("ply in range");
            let history = &game.history()[..k];
            let limits = Limits {
                time: Some(per_search),
                ..Limits::default()
            };
            let Some(j) = engine.judge_move(before, mv.pit, limits, history) else {
                return none;
            };
            json!({
                "ply": k,
                "played": j.played.eval,
                "best": j.best.eval,
                "best_pit": j.best.pit + 1,
                "best_text": notation.move_text(mv.side, j.best.pit).to_string(),
                "loss": j.loss,
            })
        })
        .collect()
}

/// Everything the replay viewer needs: every position, every move with its sowing path, the
/// turns in notation and, when asked, the engine's values.
pub fn replay(
    game: &Game,
    players: Value,
    resigned: Option<Side>,
    values: Option<Vec<Value>>,
) -> Value {
    let positions: Vec<Value> = (0..=game.moves().len())
        .map(|k| board(game.position_at(k).expect("ply in range")))
        .collect();
    let moves: Vec<Value> = game
        .moves()
        .iter()
        .enumerate()
        .map(|(k, mv)| {
            move_view(
                game.position_at(k).expect("ply"),
                game.position_at(k + 1).expect("ply"),
                mv,
                k,
            )
        })
        .collect();
    json!({
        "rules": rules_view(game),
        "players": players,
        "positions": positions,
        "moves": moves,
        "turns": turns(game),
        "result": result(game, resigned),
        "values": values,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_move_has_a_sowing_path() {
        for preset in Preset::ALL {
            let mut g = Game::from_rules(&preset.rules()).unwrap();
            while !g.is_over() && g.moves().len() < 40 {
                let mv = g.legal_moves().as_slice()[g.moves().len() % g.legal_moves().len()];
                let before = *g.position();
                g.play(mv).unwrap();
                let v = move_view(&before, g.position(), g.moves().last().unwrap(), 0);
                assert!(!v["path"].as_array().unwrap().is_empty(), "{preset:?}");
            }
        }
    }
}
