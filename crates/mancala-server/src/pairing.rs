//! Quick pairing: a signed-in account asks to play a rule set, rated or casual, and is
//! matched with the account that has waited longest in the same pool; the game starts for
//! both as a seek's does (`account_games::start_between`), and both are told over the
//! lobby's socket.
//!
//! The pools are rows of the database (table `pool`, one row an account), so that two
//! servers on one PostgreSQL database pair from one queue. A match is made in one write
//! transaction that deletes the waiting player's row before the game is made, and only a
//! deletion that finds the row counts: a waiting player is matched once. In PostgreSQL the
//! transaction first takes an advisory lock, so that two players asking at once on two
//! servers cannot both find the pool empty and both wait (SQLite has one server and one
//! writer). An account leaves its pool by asking (`DELETE /api/lobby/pool`), when its lobby
//! socket closes (it left the page), by asking again for another pool, or after
//! [`POOL_TTL`].

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use mancala_core::Rules;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::account_games::{
    accounts_user, blocking, signed_in, start_between, storage, Accounts, Origin, Session,
};
use crate::api::Ctx;
use crate::clock::{now_ms, TimeControl};
use crate::db::{vals, Conn, Kind};
use crate::ratings;
use crate::request::{clock_from, parse_json, rules_from, seat_choice};
use crate::response::{ApiError, ApiResult};
use crate::store::Pending;

/// How long an account waits in a pool before it is dropped from it.
pub const POOL_TTL: std::time::Duration = std::time::Duration::from_secs(30 * 60);

/// The key of PostgreSQL's advisory lock that makes pairing one queue across servers.
const PAIRING_LOCK: i64 = 7263;

/// What the players of one pool agree on: the rule set, rated or casual, and the clock:
/// players only meet in the same [`Pool::key`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pool {
    /// The rule set, as ratings key it ([`ratings::rules_key`]).
    pub rules: String,
    /// Rated or casual.
    pub rated: bool,
    /// The clock; `None`: untimed.
    pub clock: Option<TimeControl>,
}

impl Pool {
    /// The pool's key: everything two players must share to be matched, as one text.
    pub fn key(&self) -> String {
        let kind = if self.rated { "rated" } else { "casual" };
        match self.clock {
            Some(c) => format!("{} {kind} {c}", self.rules),
            None => format!("{} {kind}", self.rules),
        }
    }
}

/// What one ask to be paired did.
#[derive(Debug, PartialEq, Eq)]
enum Paired {
    /// Matched with this account (its id and name), whose row is gone.
    With(i64, String),
    /// Nobody else waits in the pool: this account waits now.
    Waiting,
}

/// Pools' entries made before this are expired.
fn oldest_waiting() -> i64 {
    now_ms() - POOL_TTL.as_millis() as i64
}

/// In one write transaction: takes the longest-waiting other account of `pool` out of it, or
/// puts `user` in it. See the module's text.
fn pair(c: &mut dyn Conn, user: i64, pool: &Pool) -> anyhow::Result<Paired> {
    if c.kind() == Kind::Postgres {
        c.exec(
            &format!("SELECT pg_advisory_xact_lock({PAIRING_LOCK})"),
            &[],
        )?;
    }
    c.exec(
        "DELETE FROM pool WHERE created_ms <= $1 OR user_id = $2",
        vals![oldest_waiting(), user],
    )?;
    let key = pool.key();
    loop {
        let Some(r) = c.query_opt(
            "SELECT p.user_id, u.name FROM pool p JOIN users u ON u.id = p.user_id
             WHERE p.pool_key = $1 ORDER BY p.created_ms, p.user_id LIMIT 1",
            vals![&key],
        )?
        else {
            break;
        };
        let (other, name) = (r.int(0)?, r.text(1)?);
        // Counted: only the deletion that finds the row matches its player.
        if c.exec("DELETE FROM pool WHERE user_id = $1", vals![other])? == 1 {
            return Ok(Paired::With(other, name));
        }
    }
    c.exec(
        "INSERT INTO pool (user_id, pool_key, rules, rated, created_ms)
         VALUES ($1, $2, $3, $4, $5)",
        vals![user, &key, &pool.rules, pool.rated, now_ms()],
    )?;
    Ok(Paired::Waiting)
}

/// `{"rules": ..., "options": {...}, "rated": true}`: the pool asked for.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PoolAsk {
    #[serde(default)]
    rules: Option<Value>,
    #[serde(default)]
    options: Option<std::collections::HashMap<String, Value>>,
    /// Rated (the default) or casual.
    #[serde(default)]
    rated: Option<bool>,
    /// The clock (`3+2`, `3d`); none: untimed.
    #[serde(default)]
    clock: Option<String>,
}

/// The answer while waiting.
#[derive(Serialize)]
struct Waiting {
    waiting: bool,
    pool: String,
    preset: String,
    rated: bool,
}

/// `POST /api/lobby/pool`: pairs the signed-in account with the account that has waited
/// longest in the pool asked for; `201` with the game as `POST /api/lobby/seeks/ID/accept`
/// answers it, or `202` `{"waiting": true, ...}` when nobody else waits (the game, once
/// someone comes, is announced on the lobby's socket).
async fn join(
    Extension(acc): Extension<Arc<Accounts>>,
    Extension(session): Extension<Session>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    let user = signed_in(&session)?.clone();
    let req: PoolAsk = parse_json(body)?;
    let rules: Rules = rules_from(req.rules.as_ref(), req.options.as_ref())?;
    mancala_core::Position::start(&rules).map_err(ApiError::from)?;
    let pool = Pool {
        rules: ratings::rules_key(&rules),
        rated: req.rated.unwrap_or(true),
        clock: clock_from(req.clock.as_deref())?,
    };
    let (asked, me) = (pool.clone(), user.id);
    let (tx, rx) = tokio::sync::oneshot::channel();
    acc.app
        .store
        .write(move |c| {
            let _ = tx.send(pair(c, me, &asked)?);
            Ok(())
        })
        .done()
        .await
        .map_err(storage)?;
    let paired = rx.await.map_err(ApiError::internal)?;
    let Paired::With(other, name) = paired else {
        let answer = Waiting {
            waiting: true,
            pool: pool.key(),
            preset: pool.rules.clone(),
            rated: pool.rated,
        };
        return Ok((StatusCode::ACCEPTED, Json(answer)).into_response());
    };
    // The one who waited makes the game; the seats are drawn.
    let side = seat_choice(Some("random"))?;
    let waiter = accounts_user(other, &name);
    let joined = start_between(
        &acc,
        (&waiter, side),
        &user,
        rules,
        pool.rated,
        pool.clock,
        Origin::Pool(pool.key()),
    )
    .await?;
    Ok((
        StatusCode::CREATED,
        Json(serde_json::json!({
            "game": joined.game,
            "seat": joined.seat,
            "rated": pool.rated,
            "preset": pool.rules,
            "opponent": name,
        })),
    )
        .into_response())
}

/// Takes `user` out of any pool.
fn remove(acc: &Accounts, user: i64) -> Pending {
    acc.app.store.write(move |c| {
        c.exec("DELETE FROM pool WHERE user_id = $1", vals![user])
            .map(|_| ())
    })
}

/// Takes `user` out of any pool when a lobby socket of its closes (an error is left alone:
/// the row expires).
pub(crate) async fn leave(acc: &Accounts, user: i64) {
    let _ = remove(acc, user).done().await;
}

/// `DELETE /api/lobby/pool`: the signed-in account leaves its pool (whether or not it was in
/// one).
async fn cancel(
    Extension(acc): Extension<Arc<Accounts>>,
    Extension(session): Extension<Session>,
) -> ApiResult<Json<Value>> {
    let user = signed_in(&session)?.id;
    remove(&acc, user).done().await.map_err(storage)?;
    Ok(Json(serde_json::json!({})))
}

/// `GET /api/lobby/pool`: the pool the signed-in account waits in (`{"waiting": false}` when
/// none).
async fn status(
    Extension(acc): Extension<Arc<Accounts>>,
    Extension(session): Extension<Session>,
) -> ApiResult<Json<Value>> {
    let user = signed_in(&session)?.id;
    let store = acc.app.store.clone();
    let row = blocking(move || {
        store.with(move |c| {
            c.query_opt(
                "SELECT pool_key, rules, rated FROM pool WHERE user_id = $1 AND created_ms > $2",
                vals![user, oldest_waiting()],
            )?
            .map(|r| {
                Ok(Waiting {
                    waiting: true,
                    pool: r.text(0)?,
                    preset: r.text(1)?,
                    rated: r.int(2)? != 0,
                })
            })
            .transpose()
        })
    })
    .await?;
    Ok(Json(match row {
        Some(w) => serde_json::to_value(w).map_err(ApiError::internal)?,
        None => serde_json::json!({ "waiting": false }),
    }))
}

/// The pools' routes, merged with the lobby's.
pub fn routes() -> Router<Ctx> {
    Router::new().route("/api/lobby/pool", get(status).post(join).delete(cancel))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_key_holds_what_a_match_agrees_on() {
        let rated = Pool {
            rules: "kalah".into(),
            rated: true,
            clock: None,
        };
        let casual = Pool {
            rated: false,
            ..rated.clone()
        };
        assert_eq!(rated.key(), "kalah rated");
        assert_ne!(rated.key(), casual.key());
        let other = Pool {
            rules: "kalah,seeds=4".into(),
            rated: true,
            clock: None,
        };
        assert_ne!(rated.key(), other.key());
        let timed = Pool {
            clock: Some("3+2".parse().unwrap()),
            ..rated.clone()
        };
        assert_eq!(timed.key(), "kalah rated 3+2");
    }
}
