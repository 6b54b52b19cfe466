//! The lobby of people: open seeks (a rule set, rated or casual, the seat wanted) posted by
//! accounts, shown live over a WebSocket; accepting one starts a game between the two
//! accounts, and both are told over the same socket.
//!
//! Seeks are rows of the database (table `seeks`), so that every server on one PostgreSQL
//! database shows the same lobby: each change is announced to the others
//! ([`Store::write_lobby`], `LISTEN/NOTIFY` on `mancala_lobby`), whose lobbies read the seeks
//! again and tell their sockets; a game a seek started is announced the same way, so its
//! poster hears of it on whichever server it watches. A seek ends when it is accepted (once:
//! the row is deleted by the one acceptance that finds it) or withdrawn, when its account
//! posts another, or after [`SEEK_TTL`].
//!
//! The same socket carries what the quick-pairing pools ([`crate::pairing`]) and the
//! challenges to named players ([`crate::challenges`]) start, and, to a signed-in account's
//! sockets only, that account's challenges, sent again whenever one of them changes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Extension, Json, Router};
use futures_util::{SinkExt, StreamExt};
use mancala_core::{Msg, Side};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::broadcast;

use crate::account_api::{self, Accounts, Session};
use crate::api::Ctx;
use crate::app::{ApiError, ApiResult};
use crate::clock::now_ms;
use crate::db::{vals, Conn};
use crate::ids::random_hex;
use crate::ratings;
use crate::store::{Change, Store};

/// How long a seek stays open.
pub const SEEK_TTL: Duration = Duration::from_secs(30 * 60);
/// Most seeks open at once (one an account).
pub const MAX_SEEKS: usize = 500;

/// An open seek, as everyone sees it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Seek {
    /// The seek's id (`/api/lobby/seeks/ID/accept`).
    pub id: String,
    /// The account that posted it (text, never markup).
    pub name: String,
    /// The rule set (a rules string such as `kalah` or `kalah,seeds=4`).
    pub preset: String,
    /// Rated or casual.
    pub rated: bool,
    /// The seat its poster takes: `south`, `north` or `random` (drawn when accepted).
    pub side: &'static str,
    /// The clock (`3+2`, `3d`); null: untimed.
    pub clock: Option<String>,
    /// When it was posted, in milliseconds since the Unix epoch.
    pub created_ms: i64,
    #[serde(skip)]
    user: i64,
}

/// What the lobby's WebSocket sends.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LobbyMessage {
    /// Every open seek, oldest first: on connecting and after every change.
    Seeks {
        /// The seeks.
        seeks: Vec<Seek>,
    },
    /// A seek was accepted, two players met in a pool, or a challenge was accepted: the
    /// game started for the two accounts named.
    Started {
        /// The seek accepted.
        #[serde(skip_serializing_if = "Option::is_none")]
        seek: Option<String>,
        /// The pool the two met in ([`crate::pairing::Pool::key`]).
        #[serde(skip_serializing_if = "Option::is_none")]
        pool: Option<String>,
        /// The challenge accepted.
        #[serde(skip_serializing_if = "Option::is_none")]
        challenge: Option<String>,
        /// The new game (`/api/games/ID`).
        game: String,
        /// The accounts at South and North.
        south: String,
        /// The account at North.
        north: String,
    },
}

/// What goes out to this server's lobby sockets.
#[derive(Clone, Debug)]
enum Out {
    /// This text, to every socket.
    All(Arc<str>),
    /// The challenges of these accounts changed (`None`: of anyone, after missed notes): their
    /// sockets read them anew.
    Challenges(Option<[i64; 2]>),
}

/// The channel the lobby's changes go out on to this server's sockets.
pub struct Lobby {
    tx: broadcast::Sender<Out>,
    /// Whether this server follows the lobby changes of others on its database.
    following: AtomicBool,
}

impl Default for Lobby {
    fn default() -> Self {
        Lobby {
            tx: broadcast::channel(256).0,
            following: AtomicBool::new(false),
        }
    }
}

/// Posting a seek found [`MAX_SEEKS`] open.
#[derive(Debug, thiserror::Error)]
#[error("the lobby is full")]
struct Full;

/// The seek is not open (accepted, withdrawn or expired meanwhile, or never there).
#[derive(Debug, thiserror::Error)]
#[error("no such seek")]
struct Gone;

/// The note that tells other servers the seeks changed.
const SEEKS_NOTE: &str = "seeks";
/// The start of the note that carries a [`LobbyMessage::Started`] to other servers.
const STARTED_NOTE: &str = "started ";
/// The start of the note that names the two accounts whose challenges changed (`A B`).
const CHALLENGES_NOTE: &str = "challenges ";

/// The note of a write that changes the challenges between accounts `a` and `b`
/// ([`Store::write_lobby`]); after it commits, [`challenges_changed`] tells this server's
/// sockets.
pub(crate) fn challenges_note(a: i64, b: i64) -> String {
    format!("{CHALLENGES_NOTE}{a} {b}")
}

/// Tells this server's sockets of accounts `a` and `b` that their challenges changed.
pub(crate) fn challenges_changed(acc: &Accounts, a: i64, b: i64) {
    let _ = acc.lobby.tx.send(Out::Challenges(Some([a, b])));
}

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

impl Lobby {
    fn send(&self, m: &LobbyMessage) {
        self.send_text(serde_json::to_string(m).unwrap_or_default());
    }
    fn send_text(&self, text: String) {
        let _ = self.tx.send(Out::All(Arc::from(text)));
    }
}

/// The open seeks, oldest first.
async fn seeks(store: &Arc<Store>) -> ApiResult<Vec<Seek>> {
    let store = store.clone();
    account_api::blocking(move || store.with(|c| open_seeks(c, None))).await
}

/// Tells this server's sockets the open seeks, read anew.
async fn changed(acc: &Accounts) {
    if let Ok(seeks) = seeks(&acc.app.store).await {
        acc.lobby.send(&LobbyMessage::Seeks { seeks });
    }
}

/// Starts following what other servers on the same database change in the lobby (once; a
/// task that ends with the server).
fn follow(acc: &Arc<Accounts>) {
    if acc.lobby.following.swap(true, Ordering::SeqCst) {
        return;
    }
    let mut rx = acc.app.store.lobby_changes();
    let acc: Weak<Accounts> = Arc::downgrade(acc);
    tokio::spawn(async move {
        loop {
            let change = rx.recv().await;
            let Some(acc) = acc.upgrade() else { return };
            match change {
                Ok(Change::Lobby(note)) => {
                    if let Some(started) = note.strip_prefix(STARTED_NOTE) {
                        acc.lobby.send_text(started.to_string());
                    } else if let Some(users) = note.strip_prefix(CHALLENGES_NOTE) {
                        let mut ids = users.split(' ').filter_map(|u| u.parse().ok());
                        if let (Some(a), Some(b)) = (ids.next(), ids.next()) {
                            challenges_changed(&acc, a, b);
                        }
                    } else {
                        changed(&acc).await;
                    }
                }
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {
                    let _ = acc.lobby.tx.send(Out::Challenges(None));
                    changed(&acc).await;
                }
                Err(broadcast::error::RecvError::Closed) => return,
            }
        }
    });
}

pub(crate) fn storage(e: anyhow::Error) -> ApiError {
    ApiError::new(StatusCode::SERVICE_UNAVAILABLE, format!("storage: {e}"))
}

/// `POST /api/lobby/seeks`: posts a seek for the signed-in account (replacing its open one).
async fn post_seek(
    Extension(acc): Extension<Arc<Accounts>>,
    Extension(session): Extension<Session>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    let user = account_api::signed_in(&session)?.clone();
    let req: account_api::AccountGameAsk = crate::request::parse_json(body)?;
    let rules = crate::request::rules_from(req.rules.as_ref(), req.options.as_ref())?;
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
        clock: crate::request::clock_from(req.clock.as_deref())?.map(|c| c.to_string()),
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
    let user = account_api::signed_in(&session)?.id;
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
    let user = account_api::signed_in(&session)?.clone();
    if id.is_empty() || id.len() > 64 {
        return Err(no_seek(&id));
    }
    let store = acc.app.store.clone();
    let key = id.clone();
    let found =
        account_api::blocking(move || store.with(move |c| open_seeks(c, Some(&key)))).await?;
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
        _ => crate::request::seat_choice(Some("random"))?,
    };
    let rules = seek.preset.parse().map_err(ApiError::from)?;
    let poster = accounts_user(seek.user, &seek.name);
    let origin = Origin::Seek(seek.id.clone());
    let clock = crate::request::clock_from(seek.clock.as_deref())?;
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
    (first, side): (&crate::accounts::User, Side),
    second: &crate::accounts::User,
    rules: mancala_core::Rules,
    rated: bool,
    clock: Option<crate::clock::TimeControl>,
    origin: Origin,
) -> ApiResult<account_api::AccountJoined> {
    let (created, _) = account_api::new_account_game(acc, first, rules, side, rated, clock).await?;
    let invite = created.invite.clone().unwrap_or_default();
    let joined = account_api::join_account_game(acc, second, &created.game.id, &invite).await?;
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
pub(crate) fn accounts_user(id: i64, name: &str) -> crate::accounts::User {
    crate::accounts::User {
        id,
        name: name.to_string(),
        created_ms: 0,
        disabled: false,
    }
}

/// `GET /api/lobby`: the open seeks.
async fn list(Extension(acc): Extension<Arc<Accounts>>) -> ApiResult<Json<LobbyMessage>> {
    Ok(Json(LobbyMessage::Seeks {
        seeks: seeks(&acc.app.store).await?,
    }))
}

/// `GET /api/lobby/ws`: the seeks on connecting and after every change, and each game a seek,
/// a pool or a challenge started; to a signed-in account, also its challenges on connecting
/// and after every change of them. The socket only listens: everything is asked over HTTP.
/// When a signed-in account's socket closes, the account leaves the quick-pairing pool.
async fn ws(
    Extension(acc): Extension<Arc<Accounts>>,
    Extension(session): Extension<Session>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> ApiResult<Response> {
    let upgrade = upgrade.map_err(ApiError::not_a_websocket)?;
    let user = session.0.map(|(u, _)| u.id);
    Ok(upgrade
        .max_message_size(1024)
        .on_upgrade(move |socket| async move {
            lobby_socket(socket, &acc, user).await;
            if let Some(user) = user {
                crate::pairing::leave(&acc, user).await;
            }
        }))
}

/// The challenges message for `user`'s sockets.
async fn challenges_text(acc: &Accounts, user: i64) -> Option<String> {
    let list = crate::challenges::of(acc, user).await.ok()?;
    serde_json::to_string(&list).ok()
}

async fn lobby_socket(socket: WebSocket, acc: &Arc<Accounts>, user: Option<i64>) {
    follow(acc);
    let mut rx = acc.lobby.tx.subscribe();
    let (mut tx, mut incoming) = socket.split();
    let Ok(open) = seeks(&acc.app.store).await else {
        return;
    };
    let mut hello =
        vec![serde_json::to_string(&LobbyMessage::Seeks { seeks: open }).unwrap_or_default()];
    if let Some(u) = user {
        hello.extend(challenges_text(acc, u).await);
    }
    for text in hello {
        if tx.send(Message::Text(text.into())).await.is_err() {
            return;
        }
    }
    loop {
        tokio::select! {
            m = rx.recv() => {
                let mut texts: Vec<String> = Vec::new();
                match m {
                    Ok(Out::All(m)) => texts.push(m.to_string()),
                    Ok(Out::Challenges(who)) => match user {
                        Some(u) if who.is_none_or(|w| w.contains(&u)) => {
                            texts.extend(challenges_text(acc, u).await);
                        }
                        _ => {}
                    },
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        let Ok(open) = seeks(&acc.app.store).await else { break };
                        texts.push(
                            serde_json::to_string(&LobbyMessage::Seeks { seeks: open })
                                .unwrap_or_default(),
                        );
                        if let Some(u) = user {
                            texts.extend(challenges_text(acc, u).await);
                        }
                    }
                    Err(_) => break,
                };
                for text in texts {
                    if tx.send(Message::Text(text.into())).await.is_err() {
                        return;
                    }
                }
            }
            m = incoming.next() => match m {
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                _ => continue,
            }
        }
    }
}

/// The lobby's routes, merged with the accounts'.
pub fn routes() -> Router<Ctx> {
    Router::new()
        .route("/api/lobby", get(list))
        .route("/api/lobby/ws", get(ws))
        .route("/api/lobby/seeks", post(post_seek))
        .route("/api/lobby/seeks/{id}", delete(withdraw))
        .route("/api/lobby/seeks/{id}/accept", post(accept))
        .merge(crate::pairing::routes())
        .merge(crate::challenges::routes())
}
