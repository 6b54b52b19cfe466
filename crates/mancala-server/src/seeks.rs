//! Open seeks: a signed-in account posts one (a rule set, rated or casual, the seat wanted),
//! everyone sees it in the lobby ([`crate::lobby`]), and another account accepts it: the
//! game starts for both (`account_games::start_between`).
//!
//! Seeks are rows of the database (table `seeks`). A seek ends when it is accepted (once:
//! the row is deleted by the one acceptance that finds it) or withdrawn, when its account
//! posts another, or after [`SEEK_TTL`].

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Extension, Json, Router};
use mancala_core::{Msg, Side};
use serde_json::Value;

use crate::account_games::{
    accounts_user, blocking, signed_in, start_between, storage, AccountGameAsk, Accounts, Origin,
    Session,
};
use crate::api::Ctx;
use crate::clock::now_ms;
use crate::db::{vals, Conn};
use crate::ids::random_hex;
use crate::lobby::{LobbyMessage, Seek, SEEKS_NOTE};
use crate::ratings;
use crate::request::{clock_from, parse_json, rules_from, seat_choice};
use crate::response::{ApiError, ApiResult};
use crate::store::Store;

/// How long a seek stays open.
pub const SEEK_TTL: Duration = Duration::from_secs(30 * 60);
/// Most seeks open at once (one an account).
pub const MAX_SEEKS: usize = 500;

/// Posting a seek found [`MAX_SEEKS`] open.
#[derive(Debug, thiserror::Error)]
#[error("the lobby is full")]
struct Full;

/// The seek is not open (accepted, withdrawn or expired meanwhile, or never there).
#[derive(Debug, thiserror::Error)]
#[error("no such seek")]
struct Gone;

/// Seeks posted before this are expired.
fn oldest_open() -> i64 {
    now_ms() - SEEK_TTL.as_millis() as i64
}

fn side_of(s: &str) -> &'static str {
    match s {
        "south" => "south",
        "north" => "north",
        _ => "random",
    }
}

/// The open seeks (or the one with `id`), oldest first.
fn open_seeks(c: &mut dyn Conn, id: Option<&str>) -> anyhow::Result<Vec<Seek>> {
    c.query(
        "SELECT s.id, u.name, s.rules, s.rated, s.side, s.created_ms, s.user_id, s.clock
         FROM seeks s JOIN users u ON u.id = s.user_id
         WHERE s.created_ms > $1 AND ($2 = '' OR s.id = $2)
         ORDER BY s.created_ms, s.id",
        vals![oldest_open(), id.unwrap_or("")],
    )?
    .iter()
    .map(|r| {
        Ok(Seek {
            id: r.text(0)?,
            name: r.text(1)?,
            preset: r.text(2)?,
            rated: r.int(3)? != 0,
            side: side_of(&r.text(4)?),
            created_ms: r.int(5)?,
            user: r.int(6)?,
            clock: r.opt_text(7)?,
        })
    })
    .collect()
}

/// The open seeks, oldest first.
pub(crate) async fn seeks(store: &Arc<Store>) -> ApiResult<Vec<Seek>> {
    let store = store.clone();
    blocking(move || store.with(|c| open_seeks(c, None))).await
}

/// Tells this server's sockets the open seeks, read anew.
pub(crate) async fn changed(acc: &Accounts) {
    if let Ok(seeks) = seeks(&acc.app.store).await {
        acc.lobby.send(&LobbyMessage::Seeks { seeks });
    }
}

/// `POST /api/lobby/seeks`: posts a seek for the signed-in account (replacing its open one).
async fn post_seek(
    Extension(acc): Extension<Arc<Accounts>>,
    Extension(session): Extension<Session>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    let user = signed_in(&session)?.clone();
    let req: AccountGameAsk = parse_json(body)?;
    let rules = rules_from(req.rules.as_ref(), req.options.as_ref())?;
    mancala_core::Position::start(&rules).map_err(ApiError::from)?;
    let side = match req.side.as_deref().unwrap_or("random") {
        "south" => "south",
        "north" => "north",
        "random" => "random",
        s => {
            return Err(ApiError::bad(format!(
                "side must be \"south\", \"north\" or \"random\", got \"{s}\""
            )))
        }
    };
    let seek = Seek {
        id: random_hex(8),
        name: user.name.clone(),
        preset: ratings::rules_key(&rules),
        rated: req.rated.unwrap_or(true),
        side,
        created_ms: now_ms(),
        user: user.id,
        clock: clock_from(req.clock.as_deref())?.map(|c| c.to_string()),
    };
    let row = seek.clone();
    let written = acc
        .app
        .store
        .write_lobby(SEEKS_NOTE.into(), move |c| {
            c.exec(
                "DELETE FROM seeks WHERE created_ms <= $1",
                vals![oldest_open()],
            )?;
            let others = c
                .query_opt(
                    "SELECT COUNT(*) FROM seeks WHERE user_id <> $1",
                    vals![row.user],
                )?
                .map_or(Ok(0), |r| r.int(0))?;
            if others >= MAX_SEEKS as i64 {
                return Err(Full.into());
            }
            // One seek an account: a new one replaces its open one.
            c.exec(
                "INSERT INTO seeks (id, user_id, rules, rated, side, created_ms, clock)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)
                 ON CONFLICT (user_id) DO UPDATE SET id = $1, rules = $3, rated = $4,
                    side = $5, created_ms = $6, clock = $7",
                vals![
                    &row.id,
                    row.user,
                    &row.preset,
                    row.rated,
                    row.side,
                    row.created_ms,
                    row.clock.clone()
                ],
            )?;
            Ok(())
        })
        .done()
        .await;
    match written {
        Ok(()) => {}
        Err(e) if e.is::<Full>() => {
            return Err(ApiError::said(
                StatusCode::SERVICE_UNAVAILABLE,
                Msg::new("server.lobby.full"),
            ))
        }
        Err(e) => return Err(storage(e)),
    }
    changed(&acc).await;
    Ok((
        StatusCode::CREATED,
        Json(serde_json::json!({ "seek": seek })),
    )
        .into_response())
}

fn no_seek(id: &str) -> ApiError {
    let shown: String = id.chars().take(32).collect();
    ApiError::said(
        StatusCode::NOT_FOUND,
        Msg::new("server.lobby.no-seek").arg("id", shown),
    )
}

/// `DELETE /api/lobby/seeks/ID`: withdraws the signed-in account's own seek.
async fn withdraw(
    Extension(acc): Extension<Arc<Accounts>>,
    Extension(session): Extension<Session>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let user = signed_in(&session)?.id;
    let seek = id.clone();
    let done = acc
        .app
        .store
        .write_lobby(SEEKS_NOTE.into(), move |c| {
            match c.exec(
                "DELETE FROM seeks WHERE id = $1 AND user_id = $2",
                vals![seek, user],
            )? {
                0 => Err(Gone.into()),
                _ => Ok(()),
            }
        })
        .done()
        .await;
    match done {
        Ok(()) => {}
        Err(e) if e.is::<Gone>() => return Err(no_seek(&id)),
        Err(e) => return Err(storage(e)),
    }
    changed(&acc).await;
    Ok(Json(serde_json::json!({})))
}

/// `POST /api/lobby/seeks/ID/accept`: the signed-in account takes the seek; the game starts
/// for both (the poster is told over the lobby's socket) and its state is answered.
async fn accept(
    Extension(acc): Extension<Arc<Accounts>>,
    Extension(session): Extension<Session>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let user = signed_in(&session)?.clone();
    if id.is_empty() || id.len() > 64 {
        return Err(no_seek(&id));
    }
    let store = acc.app.store.clone();
    let key = id.clone();
    let found = blocking(move || store.with(move |c| open_seeks(c, Some(&key)))).await?;
    let Some(seek) = found.into_iter().next() else {
        return Err(no_seek(&id));
    };
    if seek.user == user.id {
        return Err(ApiError::said(
            StatusCode::CONFLICT,
            Msg::new("server.account.self"),
        ));
    }
    // Taken out before the game is made: a seek is accepted once, on any server.
    let key = id.clone();
    let taken = acc
        .app
        .store
        .write_lobby(SEEKS_NOTE.into(), move |c| {
            match c.exec("DELETE FROM seeks WHERE id = $1", vals![key])? {
                0 => Err(Gone.into()),
                _ => Ok(()),
            }
        })
        .done()
        .await;
    match taken {
        Ok(()) => {}
        Err(e) if e.is::<Gone>() => return Err(no_seek(&id)),
        Err(e) => return Err(storage(e)),
    }
    let side = match seek.side {
        "south" => Side::South,
        "north" => Side::North,
        _ => seat_choice(Some("random"))?,
    };
    let rules = seek.preset.parse().map_err(ApiError::from)?;
    let poster = accounts_user(seek.user, &seek.name);
    let origin = Origin::Seek(seek.id.clone());
    let clock = clock_from(seek.clock.as_deref())?;
    let joined = start_between(
        &acc,
        (&poster, side),
        &user,
        rules,
        seek.rated,
        clock,
        origin,
    )
    .await?;
    changed(&acc).await;
    Ok((
        StatusCode::CREATED,
        Json(serde_json::json!({
            "game": joined.game,
            "seat": joined.seat,
            "rated": seek.rated,
            "preset": seek.preset,
        })),
    )
        .into_response())
}

/// `GET /api/lobby`: the open seeks.
async fn list(Extension(acc): Extension<Arc<Accounts>>) -> ApiResult<Json<LobbyMessage>> {
    Ok(Json(LobbyMessage::Seeks {
        seeks: seeks(&acc.app.store).await?,
    }))
}

/// The seeks' routes, merged with the accounts'.
pub fn routes() -> Router<Ctx> {
    Router::new()
        .route("/api/lobby", get(list))
        .route("/api/lobby/seeks", post(post_seek))
        .route("/api/lobby/seeks/{id}", delete(withdraw))
        .route("/api/lobby/seeks/{id}/accept", post(accept))
}
