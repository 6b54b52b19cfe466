//! The accounts' routes (sign-up, login, games between accounts, leaderboard, profiles) and
//! [`guard`], the layer in front of every route that checks `Origin` and lets a session
//! cookie act for its account's seat.
//!
//! A seat of a game between accounts has a token like any seat, but the token never leaves
//! the server: a request to a game's routes that carries the session cookie and no
//! `Authorization` header is given the token of the seat its account holds. So the game's
//! own code checks the seat as it does for guests.

use std::net::IpAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use mancala_core::{Msg, Rules};
use serde::{Deserialize, Serialize};

use crate::account_games::{
    blocking, join_account_game, new_account_game, said, signed_in, AccountGameAsk, AccountJoined,
};
use crate::accounts::{self, Login};
use crate::api::Ctx;
use crate::history::{page, Cursor, Page, MAX_PAGE, PAGE};
use crate::ratings;
use crate::request::{clock_from, parse_json, rules_from, seat_choice};
use crate::response::{ApiError, ApiResult, GameView};

pub use crate::account_games::{Accounts, Session};

/// The game id and what follows it in `/api/games/ID[/REST]`.
fn game_path(path: &str) -> Option<(&str, &str)> {
    let rest = path.strip_prefix("/api/games/")?;
    let (id, tail) = rest.split_once('/').unwrap_or((rest, ""));
    (!id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric()))
        .then_some((id, tail))
}

/// Checks `Origin` on every state-changing request, finds the signed-in account, and gives a
/// game's routes the token of the seat that account holds. See the module's text.
pub async fn guard(State(acc): State<Arc<Accounts>>, mut req: Request, next: Next) -> Response {
    let secret = req
        .headers()
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(accounts::session_cookie)
        .map(str::to_string);
    let changes = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    let path = req.uri().path().to_string();
    if changes {
        // HTTP/1.1 names the site in `Host`, HTTP/2 in the URI's authority.
        let host = req
            .headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .or_else(|| req.uri().authority().map(|a| a.as_str()))
            .unwrap_or("")
            .to_string();
        match req.headers().get(header::ORIGIN).map(|o| o.to_str()) {
            Some(Ok(o)) if accounts::same_origin(o, &host, acc.behind_tls) => {}
            Some(_) => {
                return said(StatusCode::FORBIDDEN, "server.account.cross-site").into_response()
            }
            // Clients that are not browsers send no Origin: a guest's token is no cookie a
            // foreign page could make a browser send, so those requests go ahead.
            None if secret.is_some() || path.starts_with("/api/account") => {
                return said(StatusCode::FORBIDDEN, "server.account.no-origin").into_response()
            }
            None => {}
        }
    }
    // The client's files need no account: only the API's requests look the session up.
    let user = match secret.clone().filter(|_| path.starts_with("/api/")) {
        Some(s) => {
            let store = acc.app.store.clone();
            match blocking(move || accounts::session_user(&store, &s)).await {
                Ok(u) => u,
                Err(e) => return e.into_response(),
            }
        }
        None => None,
    };
    if let Some((id, tail)) = game_path(&path) {
        let (id, tail) = (id.to_string(), tail.to_string());
        let seat_route = matches!(
            tail.as_str(),
            "" | "moves"
                | "undo"
                | "resign"
                | "hint"
                | "offer"
                | "answer"
                | "claim"
                | "rematch"
                | "ws"
        );
        let guest_join = tail == "join" && changes;
        if (seat_route && user.is_some() && !req.headers().contains_key(header::AUTHORIZATION))
            || guest_join
        {
            let store = acc.app.store.clone();
            let game = match blocking(move || ratings::account_game(&store, &id)).await {
                Ok(g) => g,
                Err(e) => return e.into_response(),
            };
            if let Some(game) = game {
                if guest_join && game.rated {
                    return said(StatusCode::CONFLICT, "server.account.rated-join").into_response();
                }
                if let (true, Some(u)) = (seat_route, &user) {
                    let seat = (0..2).find(|&k| game.users[k] == Some(u.id));
                    match seat.and_then(|k| game.tokens[k].clone()) {
                        Some(token) => {
                            if let Ok(v) = HeaderValue::from_str(&format!("Bearer {token}")) {
                                req.headers_mut().insert(header::AUTHORIZATION, v);
                            }
                        }
                        None if changes => {
                            return said(StatusCode::FORBIDDEN, "server.account.no-seat")
                                .into_response()
                        }
                        None => {}
                    }
                }
            }
        }
    }
    req.extensions_mut().insert(acc.clone());
    req.extensions_mut().insert(Session(user.zip(secret)));
    next.run(req).await
}

/// `{"name": ..., "password": ...}`; any other body is refused with words that never quote
/// it (so a password sent in the wrong place is not echoed).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Credentials {
    name: String,
    password: String,
}

fn parse_credentials(body: &Result<Bytes, BytesRejection>) -> ApiResult<Credentials> {
    let bad = || said(StatusCode::BAD_REQUEST, "server.account.body");
    let bytes = body.as_ref().map_err(|_| bad())?;
    serde_json::from_slice::<Credentials>(bytes).map_err(|_| bad())
}

fn credential_error(e: accounts::CredentialError) -> ApiError {
    said(StatusCode::BAD_REQUEST, e.key())
}

/// The client's address the login limits count by: the one the rate limit counts by
/// ([`crate::client_addr::TrustedProxies::of_request`], `--trusted-proxy`).
fn client(acc: &Accounts, ext: &axum::http::Extensions, headers: &HeaderMap) -> Option<IpAddr> {
    acc.app.cfg.trusted_proxies.of_request(ext, headers)
}

/// The answer to a sign-up or a login: the account's name.
#[derive(Serialize)]
struct Me {
    name: String,
    created_ms: i64,
}

fn with_cookie(status: StatusCode, me: Me, cookie: String) -> Response {
    let mut r = (status, Json(me)).into_response();
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        r.headers_mut().insert(header::SET_COOKIE, v);
    }
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

fn retry_after(e: ApiError, wait: std::time::Duration) -> Response {
    let mut r = e.into_response();
    if let Ok(v) = HeaderValue::from_str(&wait.as_secs().max(1).to_string()) {
        r.headers_mut().insert(header::RETRY_AFTER, v);
    }
    r
}

async fn signup(
    Extension(acc): Extension<Arc<Accounts>>,
    ext: axum::http::Extensions,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    let c = parse_credentials(&body)?;
    accounts::check_name(&c.name).map_err(credential_error)?;
    accounts::check_password(&c.password).map_err(credential_error)?;
    if let Some(wait) = acc.limiter.signup(client(&acc, &ext, &headers)) {
        let e = ApiError::said(
            StatusCode::TOO_MANY_REQUESTS,
            Msg::new("server.account.too-many-signups").arg("seconds", wait.as_secs().max(1)),
        );
        return Ok(retry_after(e, wait));
    }
    let store = acc.app.store.clone();
    let made = tokio::task::spawn_blocking(move || {
        let user = accounts::add_user(&store, &c.name, &c.password)?;
        let secret = accounts::start_session(&store, &user)?;
        Ok::<_, accounts::AccountError>((user, secret))
    })
    .await
    .map_err(ApiError::internal)?;
    let (user, secret) = made.map_err(|e| match e {
        accounts::AccountError::Credentials(e) => credential_error(e),
        accounts::AccountError::Taken(name) => ApiError::said(
            StatusCode::CONFLICT,
            Msg::new("server.account.taken").arg("name", name),
        ),
        e => ApiError::new(StatusCode::SERVICE_UNAVAILABLE, e.to_string()),
    })?;
    let me = Me {
        name: user.name,
        created_ms: user.created_ms,
    };
    Ok(with_cookie(
        StatusCode::CREATED,
        me,
        accounts::set_cookie(&secret, acc.behind_tls),
    ))
}

async fn login(
    Extension(acc): Extension<Arc<Accounts>>,
    ext: axum::http::Extensions,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    let c = parse_credentials(&body)?;
    let ip = client(&acc, &ext, &headers);
    // Held before the password is checked: a held login costs no hash and tells nothing.
    if let Some(wait) = acc.limiter.login_wait(&c.name, ip) {
        let e = ApiError::said(
            StatusCode::TOO_MANY_REQUESTS,
            Msg::new("server.account.too-many-logins").arg("seconds", wait.as_secs().max(1)),
        );
        return Ok(retry_after(e, wait));
    }
    if c.password.len() > accounts::PASSWORD_MAX_BYTES || c.name.len() > 256 {
        acc.limiter.failed(&c.name, ip);
        return Err(said(StatusCode::UNAUTHORIZED, "server.account.refused"));
    }
    let store = acc.app.store.clone();
    let name = c.name.clone();
    let outcome = blocking(move || {
        let login = accounts::check_login(&store, &c.name, &c.password)?;
        Ok(match login {
            Login::Ok(user) => {
                let secret = accounts::start_session(&store, &user)?;
                Ok((user, secret))
            }
            other => Err(other),
        })
    })
    .await?;
    match outcome {
        Ok((user, secret)) => Ok(with_cookie(
            StatusCode::OK,
            Me {
                name: user.name,
                created_ms: user.created_ms,
            },
            accounts::set_cookie(&secret, acc.behind_tls),
        )),
        Err(Login::Disabled) => Err(said(StatusCode::FORBIDDEN, "server.account.disabled")),
        Err(_) => {
            acc.limiter.failed(&name, ip);
            Err(said(StatusCode::UNAUTHORIZED, "server.account.refused"))
        }
    }
}

async fn logout(
    Extension(acc): Extension<Arc<Accounts>>,
    Extension(session): Extension<Session>,
) -> ApiResult<Response> {
    if let Some((_, secret)) = session.0 {
        let store = acc.app.store.clone();
        blocking(move || accounts::end_session(&store, &secret)).await?;
    }
    let mut r = Json(serde_json::json!({})).into_response();
    if let Ok(v) = HeaderValue::from_str(&accounts::clear_cookie(acc.behind_tls)) {
        r.headers_mut().insert(header::SET_COOKIE, v);
    }
    Ok(r)
}

/// `GET /api/account`: the signed-in account, or `{"name": null}` when none is signed in (a
/// question with an answer either way, not an error).
async fn me(Extension(session): Extension<Session>) -> Response {
    let body = match &session.0 {
        Some((u, _)) => serde_json::json!({ "name": u.name, "created_ms": u.created_ms }),
        None => serde_json::json!({ "name": null }),
    };
    let mut r = Json(body).into_response();
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// A new game between accounts: its state, the creator's seat, the invitation for the other
/// account, and whether it is rated. No token: the session cookie acts for the seat.
#[derive(Serialize)]
struct AccountCreated {
    game: GameView,
    seat: &'static str,
    invite: Option<String>,
    rated: bool,
    preset: String,
}

async fn create_game(
    Extension(acc): Extension<Arc<Accounts>>,
    Extension(session): Extension<Session>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    let user = signed_in(&session)?.clone();
    let req: AccountGameAsk = parse_json(body)?;
    let rules = rules_from(req.rules.as_ref(), req.options.as_ref())?;
    let side = seat_choice(req.side.as_deref())?;
    let rated = req.rated.unwrap_or(true);
    let clock = clock_from(req.clock.as_deref())?;
    let (created, preset) = new_account_game(&acc, &user, rules, side, rated, clock).await?;
    let answer = AccountCreated {
        game: created.game,
        seat: created.seat,
        invite: created.invite,
        rated,
        preset,
    };
    Ok((StatusCode::CREATED, Json(answer)).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JoinAccountGame {
    invite: String,
}

async fn join_game(
    Extension(acc): Extension<Arc<Accounts>>,
    Extension(session): Extension<Session>,
    Path(id): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Json<AccountJoined>> {
    let user = signed_in(&session)?.clone();
    let req: JoinAccountGame = parse_json(body)?;
    Ok(Json(
        join_account_game(&acc, &user, &id, &req.invite).await?,
    ))
}

#[derive(Deserialize)]
struct PresetQuery {
    preset: Option<String>,
}

/// The rating key of `?preset=` (a rules string; `kalah` when none is given).
fn preset_of(q: &PresetQuery) -> ApiResult<Option<String>> {
    match q.preset.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(p) => {
            let rules: Rules = p.parse().map_err(ApiError::from)?;
            Ok(Some(ratings::rules_key(&rules)))
        }
    }
}

#[derive(Serialize)]
struct Leaderboard {
    preset: String,
    higher_is_better: bool,
    provisional_above: f64,
    players: Vec<ratings::Standing>,
}

async fn leaderboard(
    Extension(acc): Extension<Arc<Accounts>>,
    Query(q): Query<PresetQuery>,
) -> ApiResult<Json<Leaderboard>> {
    let preset = preset_of(&q)?.unwrap_or_else(|| ratings::rules_key(&Rules::default()));
    let store = acc.app.store.clone();
    let key = preset.clone();
    let players = blocking(move || ratings::leaderboard(&store, &key, 100)).await?;
    Ok(Json(Leaderboard {
        preset,
        higher_is_better: true,
        provisional_above: ratings::PROVISIONAL_DEVIATION,
        players,
    }))
}

async fn user_profile(
    Extension(acc): Extension<Arc<Accounts>>,
    Path(name): Path<String>,
    Query(q): Query<PresetQuery>,
) -> ApiResult<Json<ratings::Profile>> {
    let preset = preset_of(&q)?;
    // A name that no account could have is not quoted back.
    let unknown = || said(StatusCode::NOT_FOUND, "server.account.no-user");
    if accounts::check_name(&name).is_err() {
        return Err(unknown());
    }
    let store = acc.app.store.clone();
    let profile = blocking(move || {
        let Some(user) = accounts::user_by_name(&store, &name)? else {
            return Ok(None);
        };
        ratings::profile(&store, &user, preset.as_deref()).map(Some)
    })
    .await?;
    profile.map(Json).ok_or_else(unknown)
}

#[derive(Deserialize)]
struct PageQuery {
    preset: Option<String>,
    before: Option<String>,
    limit: Option<u32>,
}

/// The answer of `GET /api/users/NAME/games`.
#[derive(Serialize)]
struct History {
    name: String,
    /// The rule set the games are filtered to; `None`: all.
    preset: Option<String>,
    #[serde(flatten)]
    page: Page,
}

/// `GET /api/users/NAME/games?preset=&before=&limit=`: a page of the account's games.
async fn user_games(
    Extension(acc): Extension<Arc<Accounts>>,
    Path(name): Path<String>,
    Query(q): Query<PageQuery>,
) -> ApiResult<Json<History>> {
    let preset = match q.preset.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(p) => Some(ratings::rules_key(&p.parse().map_err(ApiError::from)?)),
    };
    let before = match q.before.as_deref() {
        None | Some("") => None,
        Some(b) => Some(Cursor::parse(b).ok_or_else(|| {
            ApiError::bad("before must be the `next` of a page of games (MILLISECONDS.ID)")
        })?),
    };
    let limit = q.limit.unwrap_or(PAGE);
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(ApiError::bad(format!(
            "limit must be 1 to {MAX_PAGE}, got {limit}"
        )));
    }
    let unknown = || ApiError::said(StatusCode::NOT_FOUND, Msg::new("server.account.no-user"));
    if accounts::check_name(&name).is_err() {
        return Err(unknown());
    }
    let store = acc.app.store.clone();
    let rules = preset.clone().unwrap_or_default();
    let found = blocking(move || {
        let Some(user) = accounts::user_by_name(&store, &name)? else {
            return Ok(None);
        };
        let page = store.with(move |c| page(c, user.id, &rules, before.as_ref(), limit))?;
        Ok(Some((user.name, page)))
    })
    .await?;
    let (name, page) = found.ok_or_else(unknown)?;
    Ok(Json(History { name, preset, page }))
}

/// The accounts' routes, merged into [`crate::api::router`]'s (and behind its layers).
pub fn routes() -> Router<Ctx> {
    Router::new()
        .route("/api/account", get(me))
        .route("/api/account/signup", post(signup))
        .route("/api/account/login", post(login))
        .route("/api/account/logout", post(logout))
        .route("/api/account/games", post(create_game))
        .route("/api/account/games/{id}/join", post(join_game))
        .route("/api/leaderboard", get(leaderboard))
        .route("/api/users/{name}", get(user_profile))
        .route("/api/users/{name}/games", get(user_games))
        .merge(crate::seeks::routes())
        .merge(crate::lobby_socket::routes())
        .merge(crate::pairing::routes())
        .merge(crate::challenges::routes())
}

/// Reads the same bodies as the handlers, for tests of what they refuse.
#[doc(hidden)]
pub fn credentials_error(body: &[u8]) -> Option<String> {
    parse_credentials(&Ok(Bytes::copy_from_slice(body)))
        .err()
        .map(|e| e.message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn game_paths() {
        assert_eq!(game_path("/api/games/abc"), Some(("abc", "")));
        assert_eq!(game_path("/api/games/abc/moves"), Some(("abc", "moves")));
        assert_eq!(game_path("/api/games/"), None);
        assert_eq!(game_path("/api/games/a.b/moves"), None);
        assert_eq!(game_path("/api/gamesx/abc"), None);
    }

    proptest! {
        /// A credentials body of any bytes is read without a panic, and a refusal never
        /// quotes the password.
        #[test]
        fn credentials_never_echo(password in "[a-zA-Z0-9]{8,20}", junk in "\\PC{0,40}") {
            for body in [
                format!("{{\"name\": 5, \"password\": \"{password}\"}}"),
                format!("{{\"name\": \"a\", \"password\": \"{password}\", \"x\": 1}}"),
                format!("{{\"password\": \"{password}\"}}"),
                format!("[\"{password}\"]"),
                format!("{{\"name\": \"{junk}\", \"password\": \"{password}\""),
                junk.clone(),
            ] {
                if let Some(e) = credentials_error(body.as_bytes()) {
                    prop_assert!(!e.contains(&password), "{} echoes the password", e);
                }
            }
        }

        /// Paths of any text are read without a panic; a game id found is one the games'
        /// routes accept.
        #[test]
        fn game_paths_never_panic(p in "\\PC{0,80}") {
            if let Some((id, _)) = game_path(&p) {
                prop_assert!(id.bytes().all(|b| b.is_ascii_alphanumeric()));
            }
        }
    }
}
