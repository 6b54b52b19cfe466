//! The views of a game under review: the engine's judgement of every move, the analysis
//! board's answer, and everything the replay viewer needs.

use std::time::Duration;

use mancala_core::notation::{line_text, Notation};
use mancala_core::{Game, Position, Side};
use mancala_engine::{think, Budget, Engine, Evaluation, Limits};
use serde::Serialize;

use super::board::{board, move_view, turns, Board, MoveView, TurnView};
use super::result::{result, GameResult, Stop};
use super::rules::{rules_view, RulesView};

/// The engine's judgement of one move of a replayed game (`values[k]`).
#[derive(Debug, Clone, Serialize)]
pub struct MoveJudgement {
    /// The move's index in the game.
    pub ply: usize,
    /// The value of the move played, from the mover's view; null where not judged.
    pub played: Option<Evaluation>,
    /// The value of the best move, from the mover's view; null where not judged.
    pub best: Option<Evaluation>,
    /// The best move's pit, 1-based; null where not judged.
    pub best_pit: Option<u8>,
    /// The best move in the game's notation; absent where not judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_text: Option<String>,
    /// The seeds the move played gave away; null where no comparison can be made.
    pub loss: Option<i32>,
    /// The value of the move played turned to South's view ([`Evaluation::seen_by`]): one
    /// perspective for the whole game, which the replay's graph draws; null where not judged.
    pub south: Option<Evaluation>,
}

/// The engine's view of every move of `game`: for each ply, the value of the move played and
/// of the best move, both from the mover's view with their quality (see
/// [`mancala_engine::Evaluation`]'s JSON), the best move, and the seeds the move played gave
/// away (`loss`: null where the best move's value is of lower quality than the played one's,
/// so that no comparison can be made). The moves are judged by [`think::judge_game`], the
/// record analysis of `mancala analyze` too: `per_search` a move (unspent time carrying
/// over; a small game proven whole), within `budget` in all, after which the plies not yet
/// judged (the earliest: they are judged last) get nulls.
pub fn analysis(game: &Game, per_search: Duration, budget: Duration) -> Vec<MoveJudgement> {
    analysis_with(&Engine::new(64, 1), game, per_search, budget)
}

/// [`analysis`] on `engine` (its table and endgame tables).
pub fn analysis_with(
    engine: &Engine,
    game: &Game,
    per_search: Duration,
    budget: Duration,
) -> Vec<MoveJudgement> {
    let per_move = Limits {
        time: Some(per_search),
        ..Limits::default()
    };
    judgements(engine, game, per_move, budget)
}

/// The depth every move of a replayed game is searched to where the game is not proven whole
/// ([`replay_limits`]).
pub const REPLAY_DEPTH: u32 = 10;

/// What the replay viewer judges each move of `game` with: a small game
/// ([`think::small_game`]) proven whole, every other searched to `REPLAY_DEPTH` plies; no
/// wall-clock time, so that one game judged twice gets the same values.
pub fn replay_limits(engine: &Engine, game: &Game) -> Limits {
    if think::small_game(engine, game.start()) {
        // `judge_game` proves a small game whole whatever the time given.
        Limits {
            time: Some(Duration::from_secs(1)),
            ..Limits::default()
        }
    } else {
        Limits {
            depth: Some(REPLAY_DEPTH),
            ..Limits::default()
        }
    }
}

/// The values of the replay viewer ([`replay_limits`]), within `cap` in all: past it, the
/// plies not yet judged (the earliest) get nulls. The answer is kept for the next 64 games
/// asked for (by start and moves, with or without endgame tables), so that a game whose
/// judging ran into `cap` also reads the same when it is loaded again.
pub fn replay_analysis(engine: &Engine, game: &Game, cap: Duration) -> Vec<MoveJudgement> {
    use std::collections::VecDeque;
    use std::sync::Mutex;
    type Cache = VecDeque<(String, Vec<MoveJudgement>)>;
    static CACHE: Mutex<Cache> = Mutex::new(VecDeque::new());
    let key = format!(
        "{}|{}|{:?}",
        game.start(),
        engine.oracle.is_some(),
        game.moves().iter().map(|m| m.pit).collect::<Vec<_>>()
    );
    let cached = |c: &Cache| c.iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone());
    if let Some(v) = CACHE.lock().ok().and_then(|c| cached(&c)) {
        return v;
    }
    let values = judgements(engine, game, replay_limits(engine, game), cap);
    if let Ok(mut c) = CACHE.lock() {
        if let Some(v) = cached(&c) {
            return v;
        }
        if c.len() >= 64 {
            c.pop_front();
        }
        c.push_back((key, values.clone()));
    }
    values
}

/// Every move of `game` judged by [`think::judge_game`] with `per_move`, within `budget`.
fn judgements(
    engine: &Engine,
    game: &Game,
    per_move: Limits,
    budget: Duration,
) -> Vec<MoveJudgement> {
    let notation = Notation::for_rules(game.rules());
    let judged = think::judge_game(engine, game, per_move, Some(budget), &|_| {});
    game.moves()
        .iter()
        .zip(judged)
        .enumerate()
        .map(|(k, (mv, j))| match j {
            Some(j) => MoveJudgement {
                ply: k,
                played: Some(j.played.eval),
                best: Some(j.best.eval),
                best_pit: Some(mancala_core::pit_number(j.best.pit)),
                best_text: Some(notation.move_text(mv.side, j.best.pit).to_string()),
                loss: j.loss,
                south: Some(j.played.eval.seen_by(Side::South)),
            },
            None => MoveJudgement {
                ply: k,
                played: None,
                best: None,
                best_pit: None,
                best_text: None,
                loss: None,
                south: None,
            },
        })
        .collect()
}

/// One legal move on the analysis board (`moves[k]` of `/api/analysis`).
#[derive(Debug, Clone, Serialize)]
pub struct MoveValueView {
    /// The pit, 1-based from the mover's left; 0 for the pie rule's swap (`text` is `swap`).
    pub pit: u8,
    /// The move in the game's notation.
    pub text: String,
    /// Its value from the mover's view, proven or searched (see
    /// [`mancala_engine::Evaluation`]'s JSON).
    pub eval: Evaluation,
    /// The seeds it gives away against the best move valued at least as surely; null where
    /// no such move can be compared with it.
    pub loss: Option<i32>,
    /// The position string after the move (the board tries moves by it).
    pub after: String,
}

/// The analysis board's answer (`POST /api/analysis`): every legal move's value, best first,
/// and the best line.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    /// The rules facts.
    pub rules: RulesView,
    /// The position analysed.
    pub board: Board,
    /// Every legal move with its value, best first (by [`Evaluation::score`], then the
    /// surer value); empty when the game is over.
    pub moves: Vec<MoveValueView>,
    /// The best move's pit, 1-based; null when the game is over.
    pub best: Option<u8>,
    /// The best line from the position, pits 1-based from each mover's left.
    pub line: Vec<u8>,
    /// The best line in the game's notation (`C-F b`).
    pub line_text: String,
    /// Whether the endgame tables were probed.
    pub tables: bool,
    /// Milliseconds the analysis took.
    pub ms: u64,
}

/// The analysis board's answer for `pos`: [`think::analyse`] within `budget`, shaped for
/// the client. `history` holds the game's positions before `pos` (repetition rule).
pub fn analyse(engine: &Engine, pos: &Position, history: &[Position], budget: Budget) -> Analysis {
    let a = think::analyse(engine, pos, history, budget);
    let notation = Notation::for_rules(pos.rules());
    let side = pos.to_move();
    Analysis {
        rules: rules_view(&Game::new(*pos)),
        board: board(pos),
        moves: a
            .moves
            .iter()
            .map(|v| MoveValueView {
                pit: mancala_core::pit_number(v.pit),
                text: notation.move_text(side, v.pit).to_string(),
                eval: v.eval,
                loss: a.loss(v.pit),
                after: {
                    let mut p = *pos;
                    // Legal: the engine valued it.
                    let _ = p.play(v.pit);
                    p.to_string()
                },
            })
            .collect(),
        best: a.best.map(|b| mancala_core::pit_number(b.pit)),
        line_text: line_text(pos, &a.line),
        line: a.line.iter().map(|p| p + 1).collect(),
        tables: engine.oracle.is_some(),
        ms: a.elapsed.as_millis() as u64,
    }
}

/// The position the analysis board opens for `text`: its position string, or where that
/// names no seed count (`kalah/4-4-4-4-4-4/0/4-4-4-4-4-4/0/s`) and its seeds are not those of
/// the rules' default count, the same rules with the seed count that the seeds on the board
/// make (`kalah,seeds=4/...`). Any other fault is the position string's own error.
pub fn analysis_position(text: &str) -> Result<Position, mancala_core::Error> {
    let text = text.trim();
    let err = match text.parse::<Position>() {
        Ok(p) => return Ok(p),
        Err(e) => e,
    };
    let Some((rules, rest)) = text.split_once('/') else {
        return Err(err);
    };
    let named = rules
        .split(',')
        .skip(1)
        .any(|o| o.trim().starts_with("seeds"));
    if named {
        return Err(err);
    }
    // The count (seeds a pit at the start, 1 to 20) that the board's seeds make.
    (1..=20u8)
        .find_map(|n| format!("{rules},seeds={n}/{rest}").parse::<Position>().ok())
        .ok_or(err)
}

/// Everything the replay viewer needs (`/api/games/{id}/replay`, `/api/replay`).
#[derive(Debug, Clone, Serialize)]
pub struct Replay<P> {
    /// The rules facts.
    pub rules: RulesView,
    /// Both seats.
    pub players: P,
    /// Every position, from the start to the last move.
    pub positions: Vec<Board>,
    /// Every move with its sowing path.
    pub moves: Vec<MoveView>,
    /// The turns in notation.
    pub turns: Vec<TurnView>,
    /// How the game ended; null while it goes on.
    pub result: Option<GameResult>,
    /// The engine's judgement of each move; null where not asked for.
    pub values: Option<Vec<MoveJudgement>>,
    /// Where an uploaded record's annotations or score disagree with its moves, what
    /// disagrees (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The same note as a key and arguments, to be said in the reader's language (absent
    /// where `note` is).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note_message: Option<mancala_core::Msg>,
}

/// Everything the replay viewer needs: every position, every move with its sowing path, the
/// turns in notation and, when asked, the engine's values.
pub fn replay<P>(
    game: &Game,
    players: P,
    stop: Option<Stop>,
    values: Option<Vec<MoveJudgement>>,
) -> Replay<P> {
    let positions = (0..=game.moves().len())
        .map(|k| board(game.position_at(k).expect("ply in range")))
        .collect();
    let moves = game
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
    Replay {
        rules: rules_view(game),
        players,
        positions,
        moves,
        turns: turns(game),
        result: result(game, stop),
        values,
        note: None,
        note_message: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Kalah position of 48 seeds with no seed count named opens as `kalah,seeds=4`; one
    /// whose seeds no count makes keeps its own error, and so does a count named.
    #[test]
    fn the_analysis_board_reads_the_seed_count_from_the_board() {
        let p = analysis_position("kalah/4-4-4-4-4-4/0/4-4-4-4-4-4/0/s").unwrap();
        assert_eq!(p.rules().seeds, 4);
        assert_eq!(p.to_string(), "kalah,seeds=4/4-4-4-4-4-4/0/4-4-4-4-4-4/0/s");
        let p = analysis_position(" kalah/1-0-2-0-0-1/14/0-3-0-1-0-2/12/n ").unwrap();
        assert_eq!(p.rules().seeds, 3);
        let odd = analysis_position("kalah/4-4-4-4-4-4/0/4-4-4-4-4-5/0/s").unwrap_err();
        assert!(odd.to_string().contains("holds 49 seeds"), "{odd}");
        let named = analysis_position("kalah,seeds=3/4-4-4-4-4-4/0/4-4-4-4-4-4/0/s").unwrap_err();
        assert!(named.to_string().contains("holds 48 seeds"), "{named}");
        assert!(analysis_position("kalah/4-4").is_err());
    }

    /// One game judged twice on fresh engines gets the same values: a fixed depth, no clock.
    #[test]
    fn a_replay_is_judged_alike_every_time() {
        let mut game = Game::new(
            "kalah,seeds=4/4-4-4-4-4-4/0/4-4-4-4-4-4/0/s"
                .parse()
                .unwrap(),
        );
        for _ in 0..12 {
            let moves = game.legal_moves();
            let mv = moves.as_slice()[game.moves().len() % moves.len()];
            game.play(mv).unwrap();
        }
        let fresh = || Engine::new(4, 1);
        assert!(!think::small_game(&fresh(), game.start()));
        let limits = replay_limits(&fresh(), &game);
        assert_eq!(limits.depth, Some(REPLAY_DEPTH));
        let cap = Duration::from_secs(600);
        let a = judgements(&fresh(), &game, limits, cap);
        let b = judgements(&fresh(), &game, limits, cap);
        let values = |v: &[MoveJudgement]| {
            v.iter()
                .map(|j| j.played.map(|e| (e.margin, e.quality)))
                .collect::<Vec<_>>()
        };
        assert!(a.iter().all(|j| j.played.is_some()));
        assert_eq!(values(&a), values(&b));
        // South's view of every value is the mover's turned where North moved.
        for (j, mv) in a.iter().zip(game.moves()) {
            let (played, south) = (j.played.unwrap(), j.south.unwrap());
            assert_eq!(south.side, Side::South);
            let sign = if mv.side == Side::South { 1 } else { -1 };
            assert_eq!(south.margin, sign * played.margin);
        }
        assert_eq!(values(&replay_analysis(&fresh(), &game, cap)), values(&a));
    }
}
