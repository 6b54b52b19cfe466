//! The lobby of people: open seeks (a rule set, rated or casual, the seat wanted) posted by
//! accounts, shown live over a WebSocket; accepting one starts a game between the two
//! accounts, and both are told over the same socket.
//!
//! Seeks live in memory: a restart empties the lobby (the games it started are stored as any
//! game between accounts). A seek ends when it is accepted or withdrawn, when its account
//! posts another, or after [`SEEK_TTL`].

use std::sync::{Arc, Mutex};
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
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::broadcast;

use crate::account_api::{self, Accounts, Session};
use crate::api::Ctx;
use crate::app::{random_hex, ApiError, ApiResult};
use crate::ratings;
use crate::store::now_ms;

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
    /// A seek was accepted: the game started for the two accounts named.
    Started {
        /// The seek accepted.
        seek: String,
        /// The new game (`/api/games/ID`).
        game: String,
        /// The accounts at South and North.
        south: String,
        /// The account at North.
        north: String,
    },
}

/// The open seeks and the channel their changes go out on.
pub struct Lobby {
    seeks: Mutex<Vec<Seek>>,
    tx: broadcast::Sender<Arc<str>>,
}

impl Default for Lobby {
    fn default() -> Self {
        Lobby {
            seeks: Mutex::new(Vec::new()),
            tx: broadcast::channel(256).0,
        }
    }
}

impl Lobby {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Seek>> {
        let mut s = self.seeks.lock().unwrap_or_else(|e| e.into_inner());
        let oldest = now_ms() - SEEK_TTL.as_millis() as i64;
        s.retain(|k| k.created_ms > oldest);
        s
    }
    /// The open seeks, oldest first.
    pub fn seeks(&self) -> Vec<Seek> {
        self.lock().clone()
    }
    fn send(&self, m: &LobbyMessage) {
        let _ = self
            .tx
            .send(Arc::from(serde_json::to_string(m).unwrap_or_default()));
    }
    fn changed(&self) {
        self.send(&LobbyMessage::Seeks {
            seeks: self.seeks(),
        });
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SeekReq {
    #[serde(default)]
    rules: Option<Value>,
    #[serde(default)]
    options: Option<std::collections::HashMap<String, Value>>,
    #[serde(default)]
    side: Option<String>,
    #[serde(default)]
    rated: Option<bool>,
}

/// `POST /api/lobby/seeks`: posts a seek for the session's account (replacing its open one).
async fn post_seek(
    Extension(acc): Extension<Arc<Accounts>>,
    Extension(session): Extension<Session>,
    body: Result<Bytes, BytesRejection>,
) -> ApiResult<Response> {
    let user = account_api::signed_in(&session)?.clone();
    let req: SeekReq = crate::api::parse_json(body)?;
    let rules = crate::api::rules_from(req.rules.as_ref(), req.options.as_ref())?;
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
    };
    {
        let mut seeks = acc.lobby.lock();
        seeks.retain(|s| s.user != user.id);
        if seeks.len() >= MAX_SEEKS {
            return Err(ApiError::said(
                StatusCode::SERVICE_UNAVAILABLE,
                Msg::new("server.lobby.full"),
            ));
        }
        seeks.push(seek.clone());
    }
    acc.lobby.changed();
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

/// `DELETE /api/lobby/seeks/ID`: withdraws the session's own seek.
async fn withdraw(
    Extension(acc): Extension<Arc<Accounts>>,
    Extension(session): Extension<Session>,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    let user = account_api::signed_in(&session)?;
    {
        let mut seeks = acc.lobby.lock();
        let before = seeks.len();
        seeks.retain(|s| !(s.id == id && s.user == user.id));
        if seeks.len() == before {
            return Err(no_seek(&id));
        }
    }
    acc.lobby.changed();
    Ok(Json(serde_json::json!({})))
}

/// `POST /api/lobby/seeks/ID/accept`: the session's account takes the seek; the game starts
/// for both (the poster is told over the lobby's socket) and its state is answered.
async fn accept(
    Extension(acc): Extension<Arc<Accounts>>,
    Extension(session): Extension<Session>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let user = account_api::signed_in(&session)?.clone();
    let seek = {
        let mut seeks = acc.lobby.lock();
        let Some(k) = seeks.iter().position(|s| s.id == id) else {
            return Err(no_seek(&id));
        };
        if seeks[k].user == user.id {
            return Err(ApiError::said(
                StatusCode::CONFLICT,
                Msg::new("server.account.self"),
            ));
        }
        // Taken out before the game is made: a seek is accepted once.
        seeks.remove(k)
    };
    let side = match seek.side {
        "south" => Side::South,
        "north" => Side::North,
        _ => crate::api::seat_choice(Some("random"))?,
    };
    let rules = seek.preset.parse().map_err(ApiError::from)?;
    let poster = accounts_user(&seek);
    let (created, _) =
        account_api::new_account_game(&acc, &poster, rules, side, seek.rated).await?;
    let invite = created.invite.clone().unwrap_or_default();
    let joined = account_api::join_account_game(&acc, &user, &created.game.id, &invite).await?;
    let (south, north) = if side == Side::South {
        (seek.name.clone(), user.name.clone())
    } else {
        (user.name.clone(), seek.name.clone())
    };
    acc.lobby.send(&LobbyMessage::Started {
        seek: seek.id.clone(),
        game: created.game.id.clone(),
        south,
        north,
    });
    acc.lobby.changed();
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

fn accounts_user(seek: &Seek) -> crate::accounts::User {
    crate::accounts::User {
        id: seek.user,
        name: seek.name.clone(),
        created_ms: 0,
        disabled: false,
    }
}

/// `GET /api/lobby`: the open seeks.
async fn list(Extension(acc): Extension<Arc<Accounts>>) -> Json<LobbyMessage> {
    Json(LobbyMessage::Seeks {
        seeks: acc.lobby.seeks(),
    })
}

/// `GET /api/lobby/ws`: the seeks on connecting and after every change, and each game a seek
/// started. The socket only listens: seeks are posted and accepted over HTTP.
async fn ws(
    Extension(acc): Extension<Arc<Accounts>>,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> ApiResult<Response> {
    let upgrade = upgrade.map_err(|e| {
        ApiError::new(
            e.status(),
            format!(
                "this endpoint is a WebSocket: connect with a WebSocket client ({})",
                e.body_text()
            ),
        )
    })?;
    Ok(upgrade
        .max_message_size(1024)
        .on_upgrade(move |socket| session(socket, acc)))
}

async fn session(socket: WebSocket, acc: Arc<Accounts>) {
    let mut rx = acc.lobby.tx.subscribe();
    let (mut tx, mut incoming) = socket.split();
    let hello = serde_json::to_string(&LobbyMessage::Seeks {
        seeks: acc.lobby.seeks(),
    })
    .unwrap_or_default();
    if tx.send(Message::Text(hello.into())).await.is_err() {
        return;
    }
    loop {
        tokio::select! {
            m = rx.recv() => {
                let text: String = match m {
                    Ok(m) => m.to_string(),
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        serde_json::to_string(&LobbyMessage::Seeks { seeks: acc.lobby.seeks() })
                            .unwrap_or_default()
                    }
                    Err(_) => break,
                };
                if tx.send(Message::Text(text.into())).await.is_err() {
                    break;
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
}
