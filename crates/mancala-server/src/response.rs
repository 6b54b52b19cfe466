//! The API's answers as typed values: each struct here is one JSON shape the browser client
//! reads. The position-level parts (board, moves, turns, result, rules, menus, replay) are
//! in [`crate::view`].
//!
//! A field that is `Option` without `skip_serializing_if` is always sent, as null when
//! empty; one with it is left out when empty. The client tells the two apart.

use serde::Serialize;
use serde_json::Value;

use crate::view::{Board, GameResult};
pub use crate::view::{GameView, Hint, Player, Seats};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use mancala_core::Msg;

/// An API error: an HTTP status and a message saying what is wrong, in English and as a key
/// of the translation files with its arguments (the client says it in the reader's language).
#[derive(Debug, Clone)]
pub struct ApiError {
    /// The HTTP status answered: 4xx for a client's mistake, 5xx for the server's.
    pub status: StatusCode,
    /// What is wrong, in English, answered as `{"error": message}`.
    pub message: String,
    /// The same words as a key and arguments, answered as `"key"` and `"args"`.
    pub msg: Msg,
}

impl ApiError {
    /// An error answered with `status` and `message`, words that stay English (the key
    /// `error.text` only carries them).
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        let message = message.into();
        ApiError {
            status,
            msg: Msg::new("error.text").arg("text", &message),
            message,
        }
    }
    /// An error answered with `status` and `msg`, said in the reader's language.
    pub fn said(status: StatusCode, msg: Msg) -> ApiError {
        ApiError {
            status,
            message: msg.to_string(),
            msg,
        }
    }
    /// A core error (bad rules, position or record; an illegal move) answered with `status`.
    pub fn core(status: StatusCode, e: &mancala_core::Error) -> ApiError {
        ApiError {
            status,
            message: e.to_string(),
            msg: e.msg(),
        }
    }
    /// A malformed or impossible request (400 Bad Request).
    pub fn bad(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::BAD_REQUEST, message)
    }
    /// A request the game's state does not allow now, such as a move in a finished game (409
    /// Conflict).
    pub fn conflict(message: impl Into<String>) -> ApiError {
        Self::new(StatusCode::CONFLICT, message)
    }
    /// A failure of the server's own, such as storage, with its message (500 Internal Server
    /// Error).
    pub fn internal(e: impl std::fmt::Display) -> ApiError {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("internal error: {e}"),
        )
    }
    /// A plain request to a WebSocket endpoint: its status, and how to connect.
    pub fn not_a_websocket(e: axum::extract::ws::rejection::WebSocketUpgradeRejection) -> ApiError {
        Self::new(
            e.status(),
            format!(
                "this endpoint is a WebSocket: connect with a WebSocket client ({})",
                e.body_text()
            ),
        )
    }
}

impl From<mancala_core::Error> for ApiError {
    /// A core error answered as a bad request (400).
    fn from(e: mancala_core::Error) -> ApiError {
        ApiError::core(StatusCode::BAD_REQUEST, &e)
    }
}

/// The value of an API operation, or the error to answer.
pub type ApiResult<T> = Result<T, ApiError>;

/// The games of KGP bots (`GET /api/kgp/games`), newest first.
#[derive(Debug, Clone, Serialize)]
pub struct BotGames {
    /// At most 100 games.
    pub games: Vec<BotGame>,
}

/// The KGP lobby's waiting bots (`GET /api/kgp/bots`), longest waiting first.
#[derive(Debug, Clone, Serialize)]
pub struct LobbyBots {
    /// Whether the server has a lobby (`serve --kgp-lobby`); without one no bot waits.
    pub lobby: bool,
    /// The bots waiting for a game: `id` (for `/api/kgp/bots/{id}/challenge` and
    /// `/api/kgp/pair`), `name`, `authors`, `since` (Unix milliseconds) and `rules`.
    pub bots: Vec<mancala_protocols::kgp::LobbyBot>,
}

/// One game in a list: a KGP bot's (against the server's level, a person or another bot), or
/// a live game between people; watchable at `/api/games/{id}/ws`.
#[derive(Debug, Clone, Serialize)]
pub struct BotGame {
    /// The game's id.
    pub id: String,
    /// When it started, in milliseconds since the Unix epoch.
    pub created: i64,
    /// The rules, as a rules string.
    pub rules: String,
    /// Both seats: the bot and the computer, a person or another bot.
    pub players: Seats<Player>,
    /// Moves played.
    pub ply: usize,
    /// Whether the game is over (by the rules, or by the bot's fault, stored as its
    /// resignation).
    pub over: bool,
    /// How the game ended; null while it goes on.
    pub result: Option<GameResult>,
    /// The time control (`3+2`, `3d`); absent for an untimed game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
}

/// A seat of an uploaded record: only the name it gives, or null.
#[derive(Debug, Clone, Serialize)]
pub struct RecordPlayer {
    /// The player's name, or null.
    pub name: Option<String>,
    /// The computer's level where the name is the one records give the computer
    /// (`computer (level 3)`), for the client to name it in the reader's language; absent
    /// otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<u8>,
}

impl RecordPlayer {
    /// The seat a record's name gives.
    pub fn named(name: Option<String>) -> RecordPlayer {
        RecordPlayer {
            level: name
                .as_deref()
                .and_then(mancala_play::player::computer_level),
            name,
        }
    }
}

/// The answer to creating a game (`POST /api/games`).
#[derive(Debug, Clone, Serialize)]
pub struct Created {
    /// The state, as the creator sees it.
    pub game: GameView,
    /// The creator's seat.
    pub seat: &'static str,
    /// The creator's seat token.
    pub token: String,
    /// The invitation code for the other seat; null against the computer.
    pub invite: Option<String>,
}

/// The answer to joining a game (`POST /api/games/{id}/join`).
#[derive(Debug, Clone, Serialize)]
pub struct Joined {
    /// The state, as the new seat holder sees it.
    pub game: GameView,
    /// The seat taken.
    pub seat: &'static str,
    /// Its token.
    pub token: String,
}

/// The answer of `/api/rules`: a variant's rules and start.
#[derive(Debug, Clone, Serialize)]
pub struct RulesText {
    /// The rules as text.
    pub name: String,
    /// Every option's value.
    pub rules: mancala_core::Rules,
    /// The language of the words below (`en`, `pt`, `es`, `it`).
    pub lang: String,
    /// The game and its changed options as people read them.
    pub title: String,
    /// The preset's one-line summary.
    pub summary: &'static str,
    /// Why some pits holding pieces may not be played, where the rules forbid some.
    pub restriction: Option<&'static str>,
    /// The rules in words.
    pub text: String,
    /// The start position.
    pub start: Board,
}

/// The answer of `/api/health`.
#[derive(Debug, Clone, Serialize)]
pub struct Health {
    /// Always true.
    pub ok: bool,
    /// The database schema's version (migrations applied).
    pub schema: usize,
    /// Threads the computer's searches may use.
    pub ai_threads: usize,
}

/// The body of every error answer.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorBody {
    /// What is wrong, in English.
    pub error: String,
    /// The same as `"key"` (of the translation files) and `"args"` (its placeholders'
    /// values: text, or a nested `{"key", "args"}` such as a side's name), for the client to
    /// say in the reader's language.
    #[serde(flatten)]
    pub msg: Msg,
    /// The HTTP status.
    pub status: u16,
}

impl From<ApiError> for ErrorBody {
    fn from(e: ApiError) -> ErrorBody {
        ErrorBody {
            error: e.message,
            msg: e.msg,
            status: e.status.as_u16(),
        }
    }
}

/// An error answers its status with [`ErrorBody`], never cached.
impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut r = (self.status, Json(ErrorBody::from(self))).into_response();
        r.headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        r
    }
}

/// A message the server sends on a game's WebSocket.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum WsMessage {
    /// The game's state after a change (or on connecting).
    State {
        /// The state, as a watcher sees it.
        game: GameView,
    },
    /// A request done.
    Ack {
        /// The request's `id`, null where it had none.
        id: Option<Value>,
        /// The state, as the asker sees it.
        game: GameView,
    },
    /// A request refused.
    Error {
        /// The request's `id` (null where it had none); absent where the message could
        /// not be read.
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<Value>,
        /// What is wrong and the HTTP status the same request would get.
        #[serde(flatten)]
        body: ErrorBody,
    },
}

impl WsMessage {
    /// The refusal of the request `id` (`None` where the message could not be read).
    pub fn error(id: Option<Value>, e: ApiError) -> WsMessage {
        WsMessage::Error { id, body: e.into() }
    }

    /// The message as JSON text.
    pub fn text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}
