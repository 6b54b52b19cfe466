//! The views of a game under review: the engine's judgement of every move, the analysis
//! board's answer, and everything the replay viewer needs.

use std::time::Duration;

use mancala_core::notation::{line_text, Notation};
use mancala_core::{Game, Position};
use mancala_engine::{think, Budget, Engine, Evaluation, Limits};
use serde::Serialize;

use super::{
    board, move_view, result, rules_view, turns, Board, GameResult, MoveView, RulesView, Stop,
    TurnView,
};

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
    let notation = Notation::for_rules(game.rules());
    let per_move = Limits {
        time: Some(per_search),
        ..Limits::default()
    };
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
            },
            None => MoveJudgement {
                ply: k,
                played: None,
                best: None,
                best_pit: None,
                best_text: None,
                loss: None,
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
