//! The routes of a game: make it, read it, move, undo, resign, offer, answer, claim, the
//! rematch, a hint, join it, its record.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use mancala_core::Position;
use serde::Deserialize;
use serde_json::Value;

use super::ctx::Ctx;
use crate::app::{MoveChoice, NewGame};
use crate::between::{OfferKind, RematchSeat};
use crate::request::{bearer, clean_name, clock_from, parse_json, rules_from, seat_choice};
use crate::response::{ApiError, ApiResult, GameView, Hint, Joined};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateReq {
    #[serde(default)]
    rules: Option<Value>,
    #[serde(default)]
    options: Option<HashMap<String, Value>>,
    /// "computer" (default) or "friend".
    #[serde(default)]
    opponent: Option<String>,
    #[serde(default)]
    level: Option<i64>,
    /// "south", "north" or "random".
    #[serde(default)]
    side: Option<String>,
    #[serde(default)]
    name: Option<String>,
    /// A start position string (its rules must match).
    #[serde(default)]
    position: Option<String>,
    /// A clock for a game between people: `3+2` (minutes, seconds more a turn) or `3d`
    /// (days a move); none: untimed.
    #[serde(default)]
    clock: Option<String>,
}

async fn create(State(c): State<Ctx>, body: Result<Bytes, BytesRejection>) -> ApiResult<Response> {
    let req: CreateReq = parse_json(body)?;
    let mut rules = rules_from(req.rules.as_ref(), req.options.as_ref())?;
    let start = match &req.position {
        Some(p) => {
            let p: Position = p.parse().map_err(ApiError::from)?;
            if req.rules.is_some() && p.rules() != &rules {
                return Err(ApiError::bad(format!(
                    "the position plays `{}`, not `{rules}`",
                    p.rules()
                )));
            }
            rules = *p.rules();
            Some(p)
        }
        None => None,
    };
    let level = match req.opponent.as_deref().unwrap_or("computer") {
        "computer" => {
            let l = req.level.unwrap_or(3);
            if !(1..=8).contains(&l) {
                return Err(ApiError::bad(format!("level must be 1 to 8, got {l}")));
            }
            Some(l as u8)
        }
        "friend" => {
            if req.level.is_some() {
                return Err(ApiError::bad(
                    "a level is only for games against the computer",
                ));
            }
            None
        }
        other => {
            return Err(ApiError::bad(format!(
                "opponent must be \"computer\" or \"friend\", got \"{other}\""
            )))
        }
    };
    let side = seat_choice(req.side.as_deref())?;
    let v = c
        .app
        .create(NewGame {
            rules,
            start,
            level,
            side,
            name: clean_name(req.name)?,
            clock: match (clock_from(req.clock.as_deref())?, level) {
                (Some(_), Some(_)) => {
                    return Err(ApiError::bad(
                        "a clock is for a game between people (`\"opponent\": \"friend\"`), not against the computer",
                    ))
                }
                (clock, _) => clock,
            },
        })
        .await?;
    Ok((StatusCode::CREATED, Json(v)).into_response())
}

async fn get_game(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Json<GameView>> {
    Ok(Json(c.app.state(&id, bearer(&headers).as_deref()).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveReq {
    pit: Value,
    #[serde(default)]
    ply: Option<i64>,
}

/// A move's `pit`: a number (1 = the mover's leftmost pit) or `"swap"` (the pie rule).
pub(super) fn pit_number(v: &Value) -> ApiResult<MoveChoice> {
    match v {
        Value::Number(n) => n.as_i64().map(MoveChoice::Pit).ok_or_else(|| {
            ApiError::bad("pit must be a whole number (1 = your leftmost pit) or \"swap\"")
        }),
        Value::String(s) if s.eq_ignore_ascii_case("swap") => Ok(MoveChoice::Swap),
        _ => Err(ApiError::bad(
            "pit must be a number (1 = your leftmost pit) or \"swap\"",
        )),
    }
}

async fn play(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<GameView>> {
    let req: MoveReq = parse_json(body)?;
    let pit = pit_number(&req.pit)?;
    Ok(Json(
        c.app
            .play(&id, bearer(&headers).as_deref(), pit, req.ply)
            .await?,
    ))
}

async fn undo(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Json<GameView>> {
    Ok(Json(c.app.undo(&id, bearer(&headers).as_deref()).await?))
}

async fn resign(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Json<GameView>> {
    Ok(Json(c.app.resign(&id, bearer(&headers).as_deref()).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OfferReq {
    kind: String,
}

pub(super) fn offer_kind(k: &str) -> ApiResult<OfferKind> {
    OfferKind::parse(k).ok_or_else(|| {
        ApiError::bad(format!(
            "an offer's kind is \"draw\", \"takeback\" or \"rematch\", not {:?}",
            k.chars().take(20).collect::<String>()
        ))
    })
}

/// `POST /api/games/ID/offer` `{"kind": "draw" | "takeback" | "rematch"}`.
async fn offer(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<GameView>> {
    let req: OfferReq = parse_json(body)?;
    let kind = offer_kind(&req.kind)?;
    Ok(Json(
        c.app.offer(&id, bearer(&headers).as_deref(), kind).await?,
    ))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerReq {
    accept: bool,
}

/// `POST /api/games/ID/answer` `{"accept": true | false}`: the opponent's offer.
async fn answer(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<GameView>> {
    let req: AnswerReq = parse_json(body)?;
    let token = bearer(&headers);
    Ok(Json(c.app.answer(&id, token.as_deref(), req.accept).await?))
}

/// `POST /api/games/ID/claim`: the game, against an opponent gone too long.
async fn claim(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Json<GameView>> {
    Ok(Json(c.app.claim(&id, bearer(&headers).as_deref()).await?))
}

/// `POST /api/games/ID/rematch`: the asker's seat (and a guest's token) in the rematch.
async fn rematch_seat(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Json<RematchSeat>> {
    Ok(Json(
        c.app.rematch_seat(&id, bearer(&headers).as_deref()).await?,
    ))
}

async fn hint(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Json<Hint>> {
    Ok(Json(c.app.hint(&id, bearer(&headers).as_deref()).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JoinReq {
    invite: String,
    #[serde(default)]
    name: Option<String>,
}

async fn join(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<Joined>> {
    let req: JoinReq = parse_json(body)?;
    Ok(Json(
        c.app.join(&id, &req.invite, clean_name(req.name)?).await?,
    ))
}

#[derive(Deserialize)]
struct RecordQuery {
    format: Option<String>,
}

async fn record(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    Query(q): Query<RecordQuery>,
) -> ApiResult<Response> {
    let entry = c.app.entry(&id).await?;
    let live = entry.live.lock().await;
    let (body, ctype, ext) = match q.format.as_deref().unwrap_or("json") {
        "json" => (
            serde_json::to_string_pretty(&live.record()).map_err(ApiError::internal)? + "\n",
            "application/json",
            "json",
        ),
        "text" | "txt" => (live.record_text()?, "text/plain; charset=utf-8", "txt"),
        f => {
            return Err(ApiError::bad(format!(
                "format must be json or text, got `{f}`"
            )))
        }
    };
    let disp = format!("attachment; filename=\"mancala-{id}.{ext}\"");
    Ok((
        [
            (header::CONTENT_TYPE, ctype.to_string()),
            (header::CONTENT_DISPOSITION, disp),
        ],
        body,
    )
        .into_response())
}

/// A game's routes.
pub(super) fn routes() -> Router<Ctx> {
    Router::new()
        .route("/api/games", post(create))
        .route("/api/games/{id}", get(get_game))
        .route("/api/games/{id}/moves", post(play))
        .route("/api/games/{id}/undo", post(undo))
        .route("/api/games/{id}/resign", post(resign))
        .route("/api/games/{id}/hint", get(hint))
        .route("/api/games/{id}/offer", post(offer))
        .route("/api/games/{id}/answer", post(answer))
        .route("/api/games/{id}/claim", post(claim))
        .route("/api/games/{id}/rematch", post(rematch_seat))
        .route("/api/games/{id}/join", post(join))
        .route("/api/games/{id}/record", get(record))
}
