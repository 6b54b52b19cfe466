//! What servers on one PostgreSQL database tell each other (`LISTEN/NOTIFY`): each write
//! that changes a game or the lobby is announced when it commits, and each server hears the
//! others' on a connection of its own.

use std::sync::mpsc;

use crate::db::{self, vals, Conn, Kind};

/// What another server on the same PostgreSQL database changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// This game (its moves, seats or end).
    Game(String),
    /// The lobby, with the note its writer gave ([`crate::store::Store::write_lobby`]).
    Lobby(String),
    /// Anything: notifications may have been missed (the listening connection was lost).
    All,
}

/// The PostgreSQL channel each change of a game is announced on, as `INSTANCE GAME-ID`.
pub(super) const GAMES_CHANNEL: &str = "mancala_games";

/// The PostgreSQL channel each change of the lobby is announced on, as `INSTANCE NOTE`.
pub(super) const LOBBY_CHANNEL: &str = "mancala_lobby";

/// Announces, in PostgreSQL, that this write changes game `id` (delivered when the write's
/// transaction commits; nothing in SQLite, which one server alone uses).
pub(super) fn touched(c: &mut dyn Conn, instance: &str, id: &str) -> anyhow::Result<()> {
    if c.kind() == Kind::Postgres {
        c.exec(
            "SELECT pg_notify($1, $2)",
            vals![GAMES_CHANNEL, format!("{instance} {id}")],
        )?;
    }
    Ok(())
}

/// The listening connection: every game another server changes, as [`Change`]s on `tx`, and
/// every change of the lobby on `lobby`; after a lost connection it listens again and sends
/// [`Change::All`] on both. `listening` is told once it first listens.
pub(super) fn listen_loop(
    url: &str,
    instance: &str,
    tx: tokio::sync::mpsc::UnboundedSender<Change>,
    lobby: tokio::sync::broadcast::Sender<Change>,
    listening: mpsc::SyncSender<()>,
) {
    let mut first = true;
    loop {
        let client = db::pg_connect(url).and_then(|mut c| {
            c.batch(&format!("LISTEN {GAMES_CHANNEL}; LISTEN {LOBBY_CHANNEL}"))?;
            Ok(c)
        });
        let Ok(mut client) = client else {
            std::thread::sleep(std::time::Duration::from_secs(1));
            continue;
        };
        if first {
            let _ = listening.send(());
        } else {
            // A lobby without listeners drops its notes.
            let _ = lobby.send(Change::All);
            if tx.send(Change::All).is_err() {
                return;
            }
        }
        first = false;
        use postgres::fallible_iterator::FallibleIterator;
        let mut notes = client.notifications();
        let mut notes = notes.blocking_iter();
        while let Ok(Some(n)) = notes.next() {
            let Some((from, what)) = n.payload().split_once(' ') else {
                continue;
            };
            if from == instance {
                continue;
            }
            if n.channel() == LOBBY_CHANNEL {
                let _ = lobby.send(Change::Lobby(what.to_string()));
            } else if tx.send(Change::Game(what.to_string())).is_err() {
                return;
            }
        }
    }
}
