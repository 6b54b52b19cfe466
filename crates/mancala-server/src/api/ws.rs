//! A game's WebSocket: the state after every change; moves, undo, resignation, offers and
//! the rest may be sent on it too.

use std::net::IpAddr;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use futures_util::{SinkExt, StreamExt};
use mancala_core::{Msg, Side};
use serde::Deserialize;
use serde_json::Value;

use super::ctx::{client_ip, Ctx};
use super::games::{offer_kind, pit_number};
use crate::app::Entry;
use crate::request::bearer;
use crate::response::{ApiError, ApiResult, WsMessage};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WsReq {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    token: Option<String>,
    #[serde(default)]
    pit: Option<Value>,
    #[serde(default)]
    ply: Option<i64>,
    /// Echoed in the answer.
    #[serde(default)]
    id: Option<Value>,
    /// `offer`'s kind: `draw`, `takeback` or `rematch`.
    #[serde(default)]
    offer: Option<String>,
    /// `answer`'s choice.
    #[serde(default)]
    accept: Option<bool>,
}

async fn ws(
    State(c): State<Ctx>,
    Path(id): Path<String>,
    ext: axum::http::Extensions,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> ApiResult<Response> {
    // An unknown game is refused before the upgrade.
    c.app.entry(&id).await?;
    let upgrade = upgrade.map_err(ApiError::not_a_websocket)?;
    let ip = client_ip(&c, &ext, &headers);
    // A signed-in player's connection is his seat's (his cookie gave the token).
    let token = bearer(&headers);
    Ok(upgrade
        .max_message_size(16 * 1024)
        .on_upgrade(move |socket| ws_session(socket, c, id, ip, token)))
}

async fn ws_answer(
    c: &Ctx,
    game: &str,
    text: &str,
    ip: Option<IpAddr>,
    seat: &mut Option<Side>,
) -> WsMessage {
    if let Some(ip) = ip {
        if !c.limiter.allow(ip) {
            return WsMessage::error(
                None,
                ApiError::said(
                    StatusCode::TOO_MANY_REQUESTS,
                    Msg::new("server.too-many-messages"),
                ),
            );
        }
    }
    let req: WsReq = match serde_json::from_str(text) {
        Ok(r) => r,
        Err(e) => return WsMessage::error(None, ApiError::bad(format!("malformed JSON: {e}"))),
    };
    let token = req.token.as_deref();
    let result = match req.kind.as_str() {
        "move" => match req.pit.as_ref().map(pit_number) {
            Some(Ok(p)) => c.app.play(game, token, p, req.ply).await,
            Some(Err(e)) => Err(e),
            None => Err(ApiError::bad("a move needs `pit`")),
        },
        "undo" => c.app.undo(game, token).await,
        "resign" => c.app.resign(game, token).await,
        "state" => c.app.state(game, token).await,
        "offer" => match offer_kind(req.offer.as_deref().unwrap_or("")) {
            Ok(k) => c.app.offer(game, token, k).await,
            Err(e) => Err(e),
        },
        "answer" => match req.accept {
            Some(a) => c.app.answer(game, token, a).await,
            None => Err(ApiError::bad("an answer needs `accept`: true or false")),
        },
        "claim" => c.app.claim(game, token).await,
        // Says this connection is the seat's player's (for claims against the absent).
        "here" if seat.is_some() => c.app.state(game, token).await,
        "here" => match c.app.here(game, token).await {
            Ok(side) => {
                *seat = Some(side);
                c.app.state(game, token).await
            }
            Err(e) => Err(e),
        },
        other => Err(ApiError::bad(format!(
            "unknown message type `{other}` (move, undo, resign, state, offer, answer, claim, here)"
        ))),
    };
    match result {
        Ok(game) => WsMessage::Ack { id: req.id, game },
        Err(e) => WsMessage::error(Some(req.id.unwrap_or(Value::Null)), e),
    }
}

async fn ws_session(
    socket: WebSocket,
    c: Ctx,
    id: String,
    ip: Option<IpAddr>,
    token: Option<String>,
) {
    let Ok(entry) = c.app.watch(&id).await else {
        return;
    };
    let mut seat = match token {
        Some(t) => c.app.here(&id, Some(&t)).await.ok(),
        None => None,
    };
    ws_loop(socket, &c, &id, &entry, ip, &mut seat).await;
    if let Some(side) = seat {
        c.app.presence(&id, side, false).await;
    }
}

async fn ws_loop(
    socket: WebSocket,
    c: &Ctx,
    id: &str,
    entry: &Entry,
    ip: Option<IpAddr>,
    seat: &mut Option<Side>,
) {
    let mut rx = entry.tx.subscribe();
    let (mut tx, mut incoming) = socket.split();
    let hello = {
        let live = entry.live.lock().await;
        WsMessage::State {
            game: live.view(None),
        }
        .text()
    };
    if tx.send(Message::Text(hello.into())).await.is_err() {
        return;
    }
    loop {
        tokio::select! {
            msg = rx.recv() => {
                let text: String = match msg {
                    Ok(m) => m.to_string(),
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        let live = entry.live.lock().await;
                        WsMessage::State { game: live.view(None) }.text()
                    }
                    Err(_) => break,
                };
                if tx.send(Message::Text(text.into())).await.is_err() {
                    break;
                }
            }
            m = incoming.next() => {
                let answer = match m {
                    Some(Ok(Message::Text(t))) => ws_answer(c, id, t.as_str(), ip, seat).await,
                    Some(Ok(Message::Binary(_))) => {
                        WsMessage::error(None, ApiError::bad("send JSON text messages"))
                    }
                    Some(Ok(Message::Close(_))) | None => break,
                    Some(Err(e)) => {
                        // A message the socket cannot read (over 16 KiB, text that is not
                        // UTF-8): the connection cannot go on, but the client is told why.
                        let why = format!("unreadable message ({e}): send JSON text of at most 16 KiB");
                        let error = WsMessage::error(None, ApiError::bad(why));
                        let _ = tx.send(Message::Text(error.text().into())).await;
                        let close = axum::extract::ws::CloseFrame {
                            code: axum::extract::ws::close_code::POLICY,
                            reason: "unreadable message".into(),
                        };
                        let _ = tx.send(Message::Close(Some(close))).await;
                        break;
                    }
                    Some(Ok(_)) => continue, // ping/pong
                };
                if tx.send(Message::Text(answer.text().into())).await.is_err() {
                    break;
                }
            }
        }
    }
}

/// A game's WebSocket route.
pub(super) fn routes() -> Router<Ctx> {
    Router::new().route("/api/games/{id}/ws", get(ws))
}
