//! The lobby of people: open seeks (a rule set, rated or casual, the seat wanted) posted by
//! accounts ([`crate::seeks`]), the quick-pairing pools ([`crate::pairing`]) and the
//! challenges to named players ([`crate::challenges`]), shown live over a WebSocket
//! ([`crate::lobby_socket`]). This module is the lobby's channel: what goes out to this
//! server's lobby sockets, and the notes by which servers on one PostgreSQL database tell
//! each other of a change ([`Store::write_lobby`](crate::store::Store::write_lobby),
//! `LISTEN/NOTIFY` on `mancala_lobby`).
//!
//! Seeks, pools and challenges are rows of the database, so that every server on one
//! database shows the same lobby: a change of the seeks is announced to the others, whose
//! lobbies read the seeks again and tell their sockets; a game a seek, a pool or a challenge
//! started is announced the same way, so each player hears of it on whichever server he
//! watches; a change of two accounts' challenges names them, and only their sockets read
//! their challenges again.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde::Serialize;
use tokio::sync::broadcast;

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
    /// The account that posted it.
    #[serde(skip)]
    pub(crate) user: i64,
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
pub(crate) enum Out {
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

/// The note that tells other servers the seeks changed.
pub(crate) const SEEKS_NOTE: &str = "seeks";
/// The start of the note that carries a [`LobbyMessage::Started`] to other servers.
pub(crate) const STARTED_NOTE: &str = "started ";
/// The start of the note that names the two accounts whose challenges changed (`A B`).
pub(crate) const CHALLENGES_NOTE: &str = "challenges ";

/// The note of a write that changes the challenges between accounts `a` and `b`
/// ([`Store::write_lobby`](crate::store::Store::write_lobby)); after it commits,
/// [`Lobby::challenges_changed`] tells this server's sockets.
pub(crate) fn challenges_note(a: i64, b: i64) -> String {
    format!("{CHALLENGES_NOTE}{a} {b}")
}

impl Lobby {
    /// Sends `m` to every socket of this server.
    pub(crate) fn send(&self, m: &LobbyMessage) {
        self.send_text(serde_json::to_string(m).unwrap_or_default());
    }

    /// Sends `text` (a [`LobbyMessage`]) to every socket of this server.
    pub(crate) fn send_text(&self, text: String) {
        let _ = self.tx.send(Out::All(Arc::from(text)));
    }

    /// Tells this server's sockets of accounts `a` and `b` that their challenges changed.
    pub(crate) fn challenges_changed(&self, a: i64, b: i64) {
        let _ = self.tx.send(Out::Challenges(Some([a, b])));
    }

    /// Tells every socket of this server to read its account's challenges anew (notes may
    /// have been missed).
    pub(crate) fn all_challenges_changed(&self) {
        let _ = self.tx.send(Out::Challenges(None));
    }

    /// What goes out to this server's sockets from now on.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Out> {
        self.tx.subscribe()
    }

    /// Whether this server is to start following the lobby changes of the others on its
    /// database: true once, for the first caller.
    pub(crate) fn start_following(&self) -> bool {
        !self.following.swap(true, Ordering::SeqCst)
    }
}
