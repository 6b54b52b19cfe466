//! The engine's look at games: a stored game or an uploaded record replayed with every
//! move judged, and the analysis board's values of a position.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use mancala_core::{Msg, Record};
use serde::Deserialize;

use super::ctx::Ctx;
use crate::request::parse_json;
use crate::response::{ApiError, ApiResult, Player, RecordPlayer, Seats};
use crate::view;

/// `?values=false` leaves the engine's values out (the game screen's look back at a ply).
#[derive(Deserialize)]
struct ReplayQuery {
    #[serde(default = "yes")]
    values: bool,
}

fn yes() -> bool {
    true
}

async fn replay_game(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    Query(q): Query<ReplayQuery>,
) -> ApiResult<Json<view::Replay<Seats<Player>>>> {
    Ok(Json(c.app.replay(&id, q.values).await?))
}

/// `POST /api/analysis`'s body: a position and the positions before it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnalysisReq {
    position: String,
    #[serde(default)]
    history: Vec<String>,
}

/// Most earlier positions an analysis request may give (a long game's).
const MAX_HISTORY: usize = 4096;

/// `POST /api/analysis`: every legal move of a position valued, and the best line (none in
/// a finished game, whose board is still shown).
async fn analysis(
    State(c): State<Ctx>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<view::Analysis>> {
    let req: AnalysisReq = parse_json(body)?;
    let pos = view::analysis_position(&req.position).map_err(ApiError::from)?;
    if req.history.len() > MAX_HISTORY {
        return Err(ApiError::bad(format!(
            "history: at most {MAX_HISTORY} earlier positions"
        )));
    }
    let history = req
        .history
        .iter()
        .enumerate()
        .map(|(k, text)| {
            let p = view::analysis_position(text).map_err(|e| {
                ApiError::said(
                    StatusCode::BAD_REQUEST,
                    Msg::new("server.history").arg("k", k).error("error", e),
                )
            })?;
            if p.rules() != pos.rules() {
                return Err(ApiError::bad(format!(
                    "history[{k}]: rules {} differ from the position's ({})",
                    p.rules(),
                    pos.rules()
                )));
            }
            Ok(p)
        })
        .collect::<ApiResult<Vec<_>>>()?;
    Ok(Json(c.app.analyse(pos, history).await?))
}

/// Replays an uploaded record (JSON or text) for the replay viewer.
async fn replay_record(
    State(c): State<Ctx>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<view::Replay<Seats<RecordPlayer>>>> {
    let bytes = body.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(e.status(), "record too large")
        } else {
            ApiError::new(e.status(), e.body_text())
        }
    })?;
    let text =
        std::str::from_utf8(&bytes).map_err(|_| ApiError::bad("the record is not UTF-8 text"))?;
    if text.trim().is_empty() {
        return Err(ApiError::bad(
            "send a game record (JSON or text) as the body",
        ));
    }
    // Checked whole, as `mancala replay` does; a record whose moves replay but whose
    // annotations or score disagree is shown anyway, with the disagreement as a note.
    let (rec, game, note) = Record::parse_noting(text, None).map_err(ApiError::from)?;
    let players = Seats {
        south: RecordPlayer::named(rec.players.south),
        north: RecordPlayer::named(rec.players.north),
    };
    let stop = rec.result.as_ref().and_then(|r| r.stop());
    let mut view = c.app.replay_game(game, players, stop).await?;
    view.note = note.as_ref().map(|n| n.to_string());
    view.note_message = note.map(|n| n.msg());
    Ok(Json(view))
}

/// The replays' and the analysis board's routes; an analysis or an uploaded record may be
/// larger than other requests: `max_body`, at least 256 KiB.
pub(super) fn routes(max_body: usize) -> Router<Ctx> {
    Router::new()
        .route("/api/games/{id}/replay", get(replay_game))
        .route(
            "/api/analysis",
            post(analysis).layer(DefaultBodyLimit::max(max_body.max(256 * 1024))),
        )
        .route(
            "/api/replay",
            post(replay_record).layer(DefaultBodyLimit::max(max_body.max(256 * 1024))),
        )
}
