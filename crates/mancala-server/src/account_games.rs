//! Games between accounts, however the two met (an invitation, a seek, a pool, a
//! challenge): the accounts' shared state ([`Accounts`]), the signed-in [`Session`], a game
//! one account makes and another joins, and the lobby told of it on every server.

use std::sync::Arc;

use axum::http::StatusCode;
use mancala_core::{Msg, Rules, Side};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::accounts::{LoginLimiter, User};
use crate::app::{App, NewGame};
use crate::clock::TimeControl;
use crate::lobby::{Lobby, LobbyMessage, STARTED_NOTE};
use crate::ratings;
use crate::response::{ApiError, ApiResult, Created, GameView};

/// The accounts' shared state: the app, the login limits, and whether the server is behind
/// TLS.
pub struct Accounts {
    /// The games and the database.
    pub app: Arc<App>,
    /// Failed logins by account and by address, accounts made by address.
    pub limiter: LoginLimiter,
    /// The server is reached over TLS (`--behind-tls`): cookies are `Secure`, and a
    /// state-changing request's `Origin` must be `https`.
    pub behind_tls: bool,
    /// The lobby's channel to this server's sockets ([`crate::lobby`]).
    pub lobby: Lobby,
}

/// The account of the request's session cookie, if any (put there by
/// [`crate::account_api::guard`]).
#[derive(Clone, Debug)]
pub struct Session(pub Option<(User, String)>);

pub(crate) fn said(status: StatusCode, key: &'static str) -> ApiError {
    ApiError::said(status, Msg::new(key))
}

/// Runs blocking work (the database, argon2) off the async threads.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> anyhow::Result<T> + Send + 'static,
) -> ApiResult<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(ApiError::internal)?
        .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, format!("storage: {e}")))
}

/// The signed-in account, or 401 `server.account.no-session`.
pub(crate) fn signed_in(session: &Session) -> ApiResult<&User> {
    session
        .0
        .as_ref()
        .map(|(u, _)| u)
        .ok_or_else(|| said(StatusCode::UNAUTHORIZED, "server.account.no-session"))
}

/// What a game between accounts is asked with: by the invitation of `POST
/// /api/account/games` and by a seek of the lobby.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AccountGameAsk {
    #[serde(default)]
    pub rules: Option<Value>,
    #[serde(default)]
    pub options: Option<std::collections::HashMap<String, Value>>,
    #[serde(default)]
    pub side: Option<String>,
    /// Rated (the default) or casual.
    #[serde(default)]
    pub rated: Option<bool>,
    /// The clock (`3+2`, `3d`); none: untimed.
    #[serde(default)]
    pub clock: Option<String>,
}

/// Makes a game between people whose `side` is `user`'s account; returns it and its rule
/// set's key.
pub(crate) async fn new_account_game(
    acc: &Accounts,
    user: &User,
    rules: Rules,
    side: Side,
    rated: bool,
    clock: Option<TimeControl>,
) -> ApiResult<(Created, String)> {
    let created = acc
        .app
        .create(NewGame {
            rules,
            start: None,
            level: None,
            side,
            name: Some(user.name.clone()),
            clock,
        })
        .await?;
    let preset = ratings::rules_key(&rules);
    ratings::add_account_game(
        &acc.app.store,
        &created.game.id,
        &preset,
        rated,
        side,
        user.id,
    )
    .done()
    .await
    .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, format!("storage: {e}")))?;
    Ok((created, preset))
}

/// The answer to taking a seat of a game between accounts.
#[derive(Serialize)]
pub(crate) struct AccountJoined {
    /// The state, as the new seat holder sees it.
    pub game: GameView,
    /// The seat taken.
    pub seat: &'static str,
    /// Whether the game is rated.
    pub rated: bool,
}

/// `user`'s account takes the free seat of the game between accounts `id`.
pub(crate) async fn join_account_game(
    acc: &Accounts,
    user: &User,
    id: &str,
    invite: &str,
) -> ApiResult<AccountJoined> {
    // The game's own checks first (an unknown id is a 404 like any game's).
    acc.app.entry(id).await?;
    let store = acc.app.store.clone();
    let gid = id.to_string();
    let Some(game) = blocking(move || ratings::account_game(&store, &gid)).await? else {
        return Err(ApiError::said(
            StatusCode::CONFLICT,
            Msg::new("server.account.not-account-game").arg("id", id),
        ));
    };
    if game.users.contains(&Some(user.id)) {
        return Err(said(StatusCode::CONFLICT, "server.account.self"));
    }
    let joined = acc.app.join(id, invite, Some(user.name.clone())).await?;
    let side = if joined.seat == "south" {
        Side::South
    } else {
        Side::North
    };
    ratings::seat_account(&acc.app.store, id, side, user.id)
        .done()
        .await
        .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, format!("storage: {e}")))?;
    Ok(AccountJoined {
        game: joined.game,
        seat: joined.seat,
        rated: game.rated,
    })
}

/// What started a game between two accounts, as [`LobbyMessage::Started`] names it.
pub(crate) enum Origin {
    /// The seek with this id.
    Seek(String),
    /// The pool with this key.
    Pool(String),
    /// The challenge with this id.
    Challenge(String),
}

/// Starts a game between accounts: `first` (with the seat given) makes it and `second` takes
/// the other seat; both are told over the lobby's sockets, on every server of the database.
/// Answers the game as `second` sees it.
pub(crate) async fn start_between(
    acc: &Accounts,
    (first, side): (&User, Side),
    second: &User,
    rules: Rules,
    rated: bool,
    clock: Option<TimeControl>,
    origin: Origin,
) -> ApiResult<AccountJoined> {
    let (created, _) = new_account_game(acc, first, rules, side, rated, clock).await?;
    let invite = created.invite.clone().unwrap_or_default();
    let joined = join_account_game(acc, second, &created.game.id, &invite).await?;
    let (south, north) = if side == Side::South {
        (first.name.clone(), second.name.clone())
    } else {
        (second.name.clone(), first.name.clone())
    };
    let (mut seek, mut pool, mut challenge) = (None, None, None);
    match origin {
        Origin::Seek(id) => seek = Some(id),
        Origin::Pool(key) => pool = Some(key),
        Origin::Challenge(id) => challenge = Some(id),
    }
    let started = serde_json::to_string(&LobbyMessage::Started {
        seek,
        pool,
        challenge,
        game: created.game.id.clone(),
        south,
        north,
    })
    .unwrap_or_default();
    // The other player may watch the lobby on another server.
    acc.app
        .store
        .write_lobby(format!("{STARTED_NOTE}{started}"), |_| Ok(()))
        .done()
        .await
        .map_err(storage)?;
    acc.lobby.send_text(started);
    Ok(joined)
}

/// The account `id` named `name`, as a game between accounts needs it.
pub(crate) fn accounts_user(id: i64, name: &str) -> User {
    User {
        id,
        name: name.to_string(),
        created_ms: 0,
        disabled: false,
    }
}

/// A storage error, answered 503.
pub(crate) fn storage(e: anyhow::Error) -> ApiError {
    ApiError::new(StatusCode::SERVICE_UNAVAILABLE, format!("storage: {e}"))
}
