//! The lists of games to watch (those going on between people, the KGP bots'), and the KGP
//! lobby's bots: who waits, a person's challenge to one, a pairing of two.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::Value;

use super::ctx::Ctx;
use crate::request::{clean_name, parse_json, seat_choice};
use crate::response::{ApiResult, BotGames, LobbyBots};

/// The newest games of KGP bots (`serve --kgp-addr`), each watchable as any game.
async fn bot_games(State(c): State<Ctx>) -> ApiResult<Json<BotGames>> {
    Ok(Json(c.app.bot_games().await?))
}

/// The games between people and bots going on now, to watch.
async fn live_games(State(c): State<Ctx>) -> ApiResult<Json<BotGames>> {
    Ok(Json(c.app.live_games().await?))
}

/// The bots waiting in the KGP lobby (`serve --kgp-lobby`).
async fn lobby_bots(State(c): State<Ctx>) -> Json<LobbyBots> {
    Json(c.app.lobby_bots())
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ChallengeReq {
    #[serde(default)]
    side: Option<String>,
    #[serde(default)]
    name: Option<String>,
}

/// A person challenges a waiting bot: `{"side": "south"|"north"|"random", "name": N}`, both
/// optional (an empty body too); answers as a new game does.
async fn challenge(
    State(c): State<Ctx>,
    Path(bot): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    let req: ChallengeReq = match &body {
        Ok(b) if b.iter().all(u8::is_ascii_whitespace) => ChallengeReq::default(),
        _ => parse_json(body)?,
    };
    let side = seat_choice(req.side.as_deref())?;
    let v = c
        .app
        .challenge_bot(&bot, side, clean_name(req.name)?)
        .await?;
    Ok((StatusCode::CREATED, Json(v)).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PairReq {
    south: Value,
    north: Value,
}

/// Two waiting bots play each other: `{"south": ID, "north": ID}`; answers the new game's
/// state.
async fn pair(State(c): State<Ctx>, body: Result<Bytes, BytesRejection>) -> ApiResult<Response> {
    let req: PairReq = parse_json(body)?;
    let id = |v: &Value| match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    let game = c.app.pair_bots(&id(&req.south), &id(&req.north)).await?;
    Ok((
        StatusCode::CREATED,
        Json(serde_json::json!({ "game": game })),
    )
        .into_response())
}

/// The routes of the lists and of the KGP lobby's bots.
pub(super) fn routes() -> Router<Ctx> {
    Router::new()
        .route("/api/games/live", get(live_games))
        .route("/api/kgp/games", get(bot_games))
        .route("/api/kgp/bots", get(lobby_bots))
        .route("/api/kgp/bots/{id}/challenge", post(challenge))
        .route("/api/kgp/pair", post(pair))
}
