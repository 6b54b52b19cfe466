//! Challenges to a named player: a signed-in account asks account NAME for a game (a rule
//! set, rated or casual, the challenger's seat); the challenged account sees it live on its
//! lobby socket and accepts (the game starts for both as a seek's does,
//! `account_games::start_between`) or declines, which the challenger sees on its own socket
//! until it dismisses the challenge.
//!
//! Challenges are rows of the database (table `challenges`, one from an account to another),
//! so that every server on one PostgreSQL database shows them; each change is announced with
//! the two accounts' ids (`lobby::challenges_note`), and only their sockets read
//! their challenges again. An acceptance deletes the row before the game is made, and only
//! the deletion that finds it counts: a challenge is accepted once. A challenge ends when it
//! is accepted, withdrawn or dismissed, when its challenger sends the same account another,
//! or after [`CHALLENGE_TTL`].

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Extension, Json, Router};
use mancala_core::{Msg, Side};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::account_games::{
    accounts_user, blocking, signed_in, start_between, storage, Accounts, Origin, Session,
};
use crate::accounts;
use crate::api::Ctx;
use crate::clock::now_ms;
use crate::db::{vals, Conn, Val};
use crate::ids::random_hex;
use crate::lobby::challenges_note;
use crate::ratings;
use crate::request::{clock_from, parse_json, rules_from, seat_choice};
use crate::response::{ApiError, ApiResult};

/// How long a challenge stays open.
pub const CHALLENGE_TTL: std::time::Duration = std::time::Duration::from_secs(30 * 60);
/// Most challenges an account has open at once.
pub const MAX_CHALLENGES: i64 = 20;

/// A challenge, as its two accounts see it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Challenge {
    /// The challenge's id (`/api/lobby/challenges/ID/accept`).
    pub id: String,
    /// The challenger's account name (text, never markup).
    pub from: String,
    /// The challenged account's name.
    pub to: String,
    /// The rule set (a rules string such as `kalah` or `kalah,seeds=4`).
    pub preset: String,
    /// Rated or casual.
    pub rated: bool,
    /// The challenger's seat: `south`, `north` or `random` (drawn when accepted).
    pub side: &'static str,
    /// The clock (`3+2`, `3d`); null: untimed.
    pub clock: Option<String>,
    /// When it was sent, in milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// The challenged account declined it.
    pub declined: bool,
    #[serde(skip)]
    from_id: i64,
    #[serde(skip)]
    to_id: i64,
}

/// An account's challenges, as the lobby's socket and `GET /api/lobby/challenges` send them.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Challenges {
    /// Always `"challenges"` (the lobby socket's message type).
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Open challenges to this account, oldest first.
    pub incoming: Vec<Challenge>,
    /// This account's challenges, open or declined, oldest first.
    pub outgoing: Vec<Challenge>,
}

/// Challenges sent before this are expired.
fn oldest_open() -> i64 {
    now_ms() - CHALLENGE_TTL.as_millis() as i64
}

fn side_of(s: &str) -> &'static str {
    match s {
        "south" => "south",
        "north" => "north",
        _ => "random",
    }
}

/// The challenges not expired where `column` (`id`, `from_user` or `to_user`) is `key`,
/// oldest first. `key` is compared with one column only (PostgreSQL types each placeholder
/// once).
fn challenges_where(c: &mut dyn Conn, column: &str, key: Val) -> anyhow::Result<Vec<Challenge>> {
    let sql = format!(
        "SELECT c.id, f.name, t.name, c.rules, c.rated, c.side, c.created_ms, c.declined_ms,
            c.from_user, c.to_user, c.clock
         FROM challenges c JOIN users f ON f.id = c.from_user JOIN users t ON t.id = c.to_user
         WHERE c.created_ms > $1 AND c.{column} = $2
         ORDER BY c.created_ms, c.id"
    );
    c.query(&sql, &[Val::from(oldest_open()), key])?
        .iter()
        .map(|r| {
            Ok(Challenge {
                id: r.text(0)?,
                from: r.text(1)?,
                to: r.text(2)?,
                preset: r.text(3)?,
                rated: r.int(4)? != 0,
                side: side_of(&r.text(5)?),
                created_ms: r.int(6)?,
                declined: r.opt_int(7)?.is_some(),
                from_id: r.int(8)?,
                to_id: r.int(9)?,
                clock: r.opt_text(10)?,
            })
        })
        .collect()
}

/// `user`'s challenges: the open ones to it and its own.
pub(crate) async fn of(acc: &Accounts, user: i64) -> ApiResult<Challenges> {
    let store = acc.app.store.clone();
    blocking(move || {
        store.with(move |c| {
            let mut incoming = challenges_where(c, "to_user", Val::Int(user))?;
            incoming.retain(|k| !k.declined);
            let outgoing = challenges_where(c, "from_user", Val::Int(user))?;
            Ok(Challenges {
                kind: "challenges",
                incoming,
                outgoing,
            })
        })
    })
    .await
}

/// The challenge `id` if it is not expired.
async fn find(acc: &Accounts, id: &str) -> ApiResult<Option<Challenge>> {
    if id.is_empty() || id.len() > 64 {
        return Ok(None);
    }
    let (store, key) = (acc.app.store.clone(), id.to_string());
    let found =
        blocking(move || store.with(move |c| challenges_where(c, "id", Val::Text(key)))).await?;
    Ok(found.into_iter().next())
}

fn no_challenge(id: &str) -> ApiError {
    let shown: String = id.chars().take(32).collect();
    ApiError::said(
        StatusCode::NOT_FOUND,
        Msg::new("server.lobby.no-challenge").arg("id", shown),
    )
}

/// The challenge is not there any more (accepted, declined, withdrawn or expired meanwhile).
#[derive(Debug, thiserror::Error)]
#[error("no such challenge")]
struct Gone;

/// The challenger has [`MAX_CHALLENGES`] open.
#[derive(Debug, thiserror::Error)]
#[error("too many challenges")]
struct TooMany;

/// Writes a change of the challenge between `from` and `to` (announced to both), answering
/// [`no_challenge`] where `job` finds nothing to change.
async fn change(
    acc: &Accounts,
    (from, to): (i64, i64),
    id: &str,
    job: impl FnOnce(&mut dyn Conn) -> anyhow::Result<u64> + Send + 'static,
) -> ApiResult<()> {
    let done = acc
        .app
        .store
        .write_lobby(challenges_note(from, to), move |c| match job(c)? {
            0 => Err(Gone.into()),
            _ => Ok(()),
        })
        .done()
        .await;
    match done {
        Ok(()) => {
            acc.lobby.challenges_changed(from, to);
            Ok(())
        }
        Err(e) if e.is::<Gone>() => Err(no_challenge(id)),
        Err(e) => Err(storage(e)),
    }
}

/// `{"name": ..., "rules": ..., "options": {...}, "side": ..., "rated": ...}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChallengeAsk {
    name: String,
    #[serde(default)]
    rules: Option<Value>,
    #[serde(default)]
    options: Option<std::collections::HashMap<String, Value>>,
    #[serde(default)]
    side: Option<String>,
    #[serde(default)]
    rated: Option<bool>,
    /// The clock (`3+2`, `3d`); none: untimed.
    #[serde(default)]
    clock: Option<String>,
}

/// `POST /api/lobby/challenges`: the signed-in account challenges account `name` (replacing
/// its open challenge to that account).
async fn send(
    Extension(acc): Extension<Arc<Accounts>>,
    Extension(session): Extension<Session>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    let user = signed_in(&session)?.clone();
    let req: ChallengeAsk = parse_json(body)?;
    let rules = rules_from(req.rules.as_ref(), req.options.as_ref())?;
    mancala_core::Position::start(&rules).map_err(ApiError::from)?;
    let side = match req.side.as_deref().unwrap_or("random") {
        s @ ("south" | "north" | "random") => side_of(s),
        s => {
            return Err(ApiError::bad(format!(
                "side must be \"south\", \"north\" or \"random\", got \"{s}\""
            )))
        }
    };
    // A name that no account could have is not quoted back.
    let unknown = || ApiError::said(StatusCode::NOT_FOUND, Msg::new("server.account.no-user"));
    if accounts::check_name(&req.name).is_err() {
        return Err(unknown());
    }
    let store = acc.app.store.clone();
    let name = req.name.clone();
    let target = blocking(move || accounts::user_by_name(&store, &name))
        .await?
        .filter(|u| !u.disabled)
        .ok_or_else(unknown)?;
    if target.id == user.id {
        return Err(ApiError::said(
            StatusCode::CONFLICT,
            Msg::new("server.lobby.challenge-self"),
        ));
    }
    let challenge = Challenge {
        id: random_hex(8),
        from: user.name.clone(),
        to: target.name.clone(),
        preset: ratings::rules_key(&rules),
        rated: req.rated.unwrap_or(true),
        side,
        clock: clock_from(req.clock.as_deref())?.map(|c| c.to_string()),
        created_ms: now_ms(),
        declined: false,
        from_id: user.id,
        to_id: target.id,
    };
    let row = challenge.clone();
    let written = acc
        .app
        .store
        .write_lobby(challenges_note(user.id, target.id), move |c| {
            c.exec(
                "DELETE FROM challenges WHERE created_ms <= $1",
                vals![oldest_open()],
            )?;
            let open = c
                .query_opt(
                    "SELECT COUNT(*) FROM challenges WHERE from_user = $1 AND to_user <> $2",
                    vals![row.from_id, row.to_id],
                )?
                .map_or(Ok(0), |r| r.int(0))?;
            if open >= MAX_CHALLENGES {
                return Err(TooMany.into());
            }
            c.exec(
                "INSERT INTO challenges (id, from_user, to_user, rules, rated, side, created_ms, clock)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                 ON CONFLICT (from_user, to_user) DO UPDATE SET id = $1, rules = $4,
                    rated = $5, side = $6, created_ms = $7, declined_ms = NULL, clock = $8",
                vals![
                    &row.id,
                    row.from_id,
                    row.to_id,
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
        Err(e) if e.is::<TooMany>() => {
            return Err(ApiError::said(
                StatusCode::CONFLICT,
                Msg::new("server.lobby.too-many-challenges").arg("most", MAX_CHALLENGES),
            ))
        }
        Err(e) => return Err(storage(e)),
    }
    acc.lobby.challenges_changed(user.id, target.id);
    Ok((
        StatusCode::CREATED,
        Json(serde_json::json!({ "challenge": challenge })),
    )
        .into_response())
}

/// `GET /api/lobby/challenges`: the signed-in account's challenges (as the lobby's socket
/// sends them).
async fn list(
    Extension(acc): Extension<Arc<Accounts>>,
    Extension(session): Extension<Session>,
) -> ApiResult<Json<Challenges>> {
    let user = signed_in(&session)?.id;
    Ok(Json(of(&acc, user).await?))
}

/// `POST /api/lobby/challenges/ID/accept`: the challenged account accepts; the game starts
/// for both (the challenger is told over the lobby's socket) and its state is answered.
async fn accept(
    Extension(acc): Extension<Arc<Accounts>>,
    Extension(session): Extension<Session>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let user = signed_in(&session)?.clone();
    let Some(k) = find(&acc, &id)
        .await?
        .filter(|k| k.to_id == user.id && !k.declined)
    else {
        return Err(no_challenge(&id));
    };
    // Taken out before the game is made: a challenge is accepted once, on any server.
    let (key, me) = (k.id.clone(), user.id);
    change(&acc, (k.from_id, k.to_id), &id, move |c| {
        c.exec(
            "DELETE FROM challenges WHERE id = $1 AND to_user = $2 AND declined_ms IS NULL",
            vals![key, me],
        )
    })
    .await?;
    let side = match k.side {
        "south" => Side::South,
        "north" => Side::North,
        _ => seat_choice(Some("random"))?,
    };
    let rules = k.preset.parse().map_err(ApiError::from)?;
    let challenger = accounts_user(k.from_id, &k.from);
    let origin = Origin::Challenge(k.id.clone());
    let clock = clock_from(k.clock.as_deref())?;
    let joined = start_between(
        &acc,
        (&challenger, side),
        &user,
        rules,
        k.rated,
        clock,
        origin,
    )
    .await?;
    Ok((
        StatusCode::CREATED,
        Json(serde_json::json!({
            "game": joined.game,
            "seat": joined.seat,
            "rated": k.rated,
            "preset": k.preset,
        })),
    )
        .into_response())
}

/// `POST /api/lobby/challenges/ID/decline`: the challenged account declines; the challenger
/// sees it declined until it dismisses it.
async fn decline(
    Extension(acc): Extension<Arc<Accounts>>,
    Extension(session): Extension<Session>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let user = signed_in(&session)?.id;
    let Some(k) = find(&acc, &id)
        .await?
        .filter(|k| k.to_id == user && !k.declined)
    else {
        return Err(no_challenge(&id));
    };
    let key = k.id.clone();
    change(&acc, (k.from_id, k.to_id), &id, move |c| {
        c.exec(
            "UPDATE challenges SET declined_ms = $3
             WHERE id = $1 AND to_user = $2 AND declined_ms IS NULL",
            vals![key, user, now_ms()],
        )
    })
    .await?;
    Ok(Json(serde_json::json!({})))
}

/// `DELETE /api/lobby/challenges/ID`: the challenger withdraws its challenge, or dismisses
/// it once declined.
async fn withdraw(
    Extension(acc): Extension<Arc<Accounts>>,
    Extension(session): Extension<Session>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let user = signed_in(&session)?.id;
    let Some(k) = find(&acc, &id).await?.filter(|k| k.from_id == user) else {
        return Err(no_challenge(&id));
    };
    let key = k.id.clone();
    change(&acc, (k.from_id, k.to_id), &id, move |c| {
        c.exec(
            "DELETE FROM challenges WHERE id = $1 AND from_user = $2",
            vals![key, user],
        )
    })
    .await?;
    Ok(Json(serde_json::json!({})))
}

/// The challenges' routes, merged with the lobby's.
pub fn routes() -> Router<Ctx> {
    Router::new()
        .route("/api/lobby/challenges", get(list).post(send))
        .route("/api/lobby/challenges/{id}", delete(withdraw))
        .route("/api/lobby/challenges/{id}/accept", post(accept))
        .route("/api/lobby/challenges/{id}/decline", post(decline))
}
