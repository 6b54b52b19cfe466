//! The lobby's WebSocket (`GET /api/lobby/ws`): the open seeks on connecting and after
//! every change, each game a seek, a pool or a challenge started, and, to a signed-in
//! account's sockets only, that account's challenges, sent again whenever one of them
//! changes. What other servers on the same database change in the lobby is followed here.

use std::sync::{Arc, Weak};

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::response::Response;
use axum::routing::get;
use axum::{Extension, Router};
use futures_util::{SinkExt, StreamExt};
use tokio::sync::broadcast;

use crate::account_games::{Accounts, Session};
use crate::api::Ctx;
use crate::lobby::{LobbyMessage, Out, CHALLENGES_NOTE, STARTED_NOTE};
use crate::response::{ApiError, ApiResult};
use crate::seeks::{changed, seeks};
use crate::store::Change;
use crate::{challenges, pairing};

/// Starts following what other servers on the same database change in the lobby (once; a
/// task that ends with the server).
fn follow(acc: &Arc<Accounts>) {
    if !acc.lobby.start_following() {
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
                            acc.lobby.challenges_changed(a, b);
                        }
                    } else {
                        changed(&acc).await;
                    }
                }
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {
                    acc.lobby.all_challenges_changed();
                    changed(&acc).await;
                }
                Err(broadcast::error::RecvError::Closed) => return,
            }
        }
    });
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
                pairing::leave(&acc, user).await;
            }
        }))
}

/// The challenges message for `user`'s sockets.
async fn challenges_text(acc: &Accounts, user: i64) -> Option<String> {
    let list = challenges::of(acc, user).await.ok()?;
    serde_json::to_string(&list).ok()
}

async fn lobby_socket(socket: WebSocket, acc: &Arc<Accounts>, user: Option<i64>) {
    follow(acc);
    let mut rx = acc.lobby.subscribe();
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

/// The lobby socket's route, merged with the accounts'.
pub fn routes() -> Router<Ctx> {
    Router::new().route("/api/lobby/ws", get(ws))
}
