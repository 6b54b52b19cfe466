//! The server's state, [`App`]: the games loaded (read from the database once, kept while
//! in use), each change stored, then made, then told to the game's watchers; what other
//! servers on the same database change, followed; and the lists of games to watch.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::StatusCode;
use mancala_core::{Game, Msg, Position};
use mancala_protocols::kgp::{Lobby, PersonMove};
use tokio::runtime::Handle;
use tokio::sync::Semaphore;

use super::live::{session, Entry, Live};
use crate::clock::now_ms;
use crate::config::Config;
use crate::response::{ApiError, ApiResult, BotGame, BotGames, WsMessage};
use crate::store::{Change, GameRow, MoveRow, Pending, Store};
use crate::view;

/// The server's state: the loaded games, the database, the settings and the pool the
/// computer's searches run in.
pub struct App {
    /// The database the games are saved in.
    pub store: Arc<Store>,
    /// The server's settings.
    pub cfg: Config,
    pub(super) games: Mutex<HashMap<String, Arc<Entry>>>,
    /// One permit per search at a time (at most one a core).
    pub pool: Arc<Semaphore>,
    /// Computations waiting for the pool or running in it.
    pub(super) demand: Arc<std::sync::atomic::AtomicUsize>,
    /// The KGP lobby (`--kgp-lobby`), once opened ([`crate::kgp::open_lobby`]).
    pub lobby: std::sync::OnceLock<LobbyHandle>,
    /// Where a person's moves in a game against a lobby's bot go: that game's thread.
    pub(super) person_moves: Mutex<HashMap<String, std::sync::mpsc::Sender<PersonMove>>>,
}

/// The lobby of a server with `--kgp-lobby`, as the app reaches it.
#[derive(Clone, Debug)]
pub struct LobbyHandle {
    /// The bots in the lobby.
    pub lobby: Arc<Lobby>,
    /// The games' rules (the KGP server's).
    pub rules: mancala_core::Rules,
    /// A bot's time a move.
    pub move_time: Duration,
    /// The runtime the games' moves are stored on.
    pub(crate) rt: Handle,
}

impl App {
    /// The app over `store` with `cfg`: no game loaded yet, a pool of `cfg.ai_threads` search
    /// permits.
    pub fn new(store: Store, cfg: Config) -> App {
        let threads = cfg.ai_threads.max(1);
        App {
            store: Arc::new(store),
            cfg,
            games: Mutex::new(HashMap::new()),
            pool: Arc::new(Semaphore::new(threads)),
            demand: Arc::new(std::sync::atomic::AtomicUsize::new(0)),
            lobby: std::sync::OnceLock::new(),
            person_moves: Mutex::new(HashMap::new()),
        }
    }

    pub(super) async fn db<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Store) -> anyhow::Result<T> + Send + 'static,
    ) -> ApiResult<T> {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || f(&store))
            .await
            .map_err(ApiError::internal)?
            .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, format!("storage: {e}")))
    }

    /// Waits for a queued write to be committed.
    pub(crate) async fn wrote(&self, p: Pending) -> ApiResult<()> {
        p.done()
            .await
            .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, format!("storage: {e}")))
    }

    pub(crate) fn cached(&self, id: &str) -> Option<Arc<Entry>> {
        self.games
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
    }

    /// Stores a new game and loads it, at its start.
    pub(crate) async fn add_new(
        self: &Arc<Self>,
        row: GameRow,
        start: Position,
    ) -> ApiResult<Arc<Entry>> {
        self.wrote(self.store.create_game(&row)).await?;
        let id = row.id.clone();
        Ok(self.insert(&id, Entry::new(row, Game::new(start), Vec::new())))
    }

    fn insert(&self, id: &str, entry: Entry) -> Arc<Entry> {
        if let Ok(mut live) = entry.live.try_lock() {
            live.claim_after = self.cfg.claim_after;
        }
        let mut map = self.games.lock().unwrap_or_else(|e| e.into_inner());
        map.entry(id.to_string())
            .or_insert_with(|| Arc::new(entry))
            .clone()
    }

    /// Reads game `id` from the database: its row, the game replayed from its moves, and the
    /// moves' stored facts; `None` where there is no such game.
    async fn load(self: &Arc<Self>, id: &str) -> ApiResult<Option<(GameRow, Game, Vec<MoveRow>)>> {
        let key = id.to_string();
        let Some((row, moves)) = self.db(move |s| s.load_game(&key)).await? else {
            return Ok(None);
        };
        let start: Position = row
            .start
            .parse()
            .map_err(|e| ApiError::internal(format!("stored game {id}: {e}")))?;
        let mut game = Game::new(start);
        for m in &moves {
            game.play(m.pit)
                .map_err(|e| ApiError::internal(format!("stored game {id}, ply {}: {e}", m.ply)))?;
        }
        Ok(Some((row, game, moves)))
    }

    /// Reads the loaded game `id` again from the database, where another server on the same
    /// database changed it, and tells its watchers here.
    pub(crate) async fn refresh(
        self: &Arc<Self>,
        id: &str,
        entry: &Entry,
        live: &mut Live,
    ) -> ApiResult<()> {
        let Some((row, game, moves)) = self.load(id).await? else {
            return Ok(());
        };
        if row == live.row && moves == live.info {
            return Ok(());
        }
        live.session = session(&row, game);
        live.row = row;
        live.info = moves;
        self.changed(entry, live);
        Ok(())
    }

    /// Where a request looks refused (not this seat's turn, a seat unknown here, the game
    /// over), the game may have changed through another server on the same PostgreSQL
    /// database a moment ago, before its notification came: read it again first.
    pub(crate) async fn catch_up(
        self: &Arc<Self>,
        id: &str,
        entry: &Entry,
        live: &mut Live,
    ) -> ApiResult<()> {
        if self.store.kind() == crate::db::Kind::Postgres {
            self.refresh(id, entry, live).await?;
        }
        Ok(())
    }

    /// Follows what other servers on the same PostgreSQL database change: each loaded game
    /// they changed is read again and its watchers here are told (nothing on SQLite).
    pub fn follow_other_servers(self: &Arc<Self>) {
        let Some(mut changes) = self.store.take_changes() else {
            return;
        };
        let app = self.clone();
        tokio::spawn(async move {
            while let Some(change) = changes.recv().await {
                let ids: Vec<String> = match change {
                    Change::Game(id) => vec![id],
                    // Comes on the lobby's channel only (`Store::lobby_changes`).
                    Change::Lobby(_) => continue,
                    Change::All => {
                        let map = app.games.lock().unwrap_or_else(|e| e.into_inner());
                        map.keys().cloned().collect()
                    }
                };
                for id in ids {
                    if let Some(entry) = app.cached(&id) {
                        let mut live = entry.live.lock().await;
                        let _ = app.refresh(&id, &entry, &mut live).await;
                    }
                }
            }
        });
    }

    /// The game `id`, from memory or the database.
    pub async fn entry(self: &Arc<Self>, id: &str) -> ApiResult<Arc<Entry>> {
        // A long id is quoted by its start (the answer need not echo a long request back).
        let unknown = || {
            let shown: String = id.chars().take(64).collect();
            let more = if shown.len() < id.len() { "..." } else { "" };
            ApiError::said(
                StatusCode::NOT_FOUND,
                Msg::new("server.no-game").arg("id", format!("{shown}{more}")),
            )
        };
        if id.is_empty() || id.len() > 64 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(unknown());
        }
        if let Some(e) = self.cached(id) {
            return Ok(e);
        }
        let Some((row, game, moves)) = self.load(id).await? else {
            return Err(unknown());
        };
        let entry = self.insert(id, Entry::new(row, game, moves));
        // A clock that ran out while the game was not loaded ends it now.
        {
            let live = entry.live.lock().await;
            self.time_game(id, &live);
        }
        self.kick_ai(id, &entry).await;
        Ok(entry)
    }

    /// The game `id` for a watcher that connects: loaded, and the computer's turn started
    /// where it is to move and nobody thinks for it here (the server that took the last move
    /// may have stopped).
    pub async fn watch(self: &Arc<Self>, id: &str) -> ApiResult<Arc<Entry>> {
        let entry = self.entry(id).await?;
        self.kick_ai(id, &entry).await;
        Ok(entry)
    }

    /// Tells the watchers, bumps the version and times the game's next deadline.
    pub(crate) fn changed(self: &Arc<Self>, entry: &Entry, live: &mut Live) {
        live.version += 1;
        let msg = WsMessage::State {
            game: live.view(None),
        }
        .text();
        let _ = entry.tx.send(Arc::from(msg));
        let id = live.row.id.clone();
        self.time_game(&id, live);
    }

    /// The newest 100 games of KGP bots.
    pub async fn bot_games(self: &Arc<Self>) -> ApiResult<BotGames> {
        let ids = self.db(|s| s.bot_games(100)).await?;
        self.listed(ids, false).await
    }

    /// The games between people (or bots) going on now, the last moved first: at most 50,
    /// each moved or joined within the last hour.
    pub async fn live_games(self: &Arc<Self>) -> ApiResult<BotGames> {
        let since = now_ms() - 3_600_000;
        let ids = self.db(move |s| s.live_games(50, since)).await?;
        self.listed(ids, true).await
    }

    /// The games `ids` as a list; `live_only` leaves out those that are over.
    async fn listed(self: &Arc<Self>, ids: Vec<String>, live_only: bool) -> ApiResult<BotGames> {
        let mut games = Vec::with_capacity(ids.len());
        for id in ids {
            let Ok(entry) = self.entry(&id).await else {
                continue;
            };
            let live = entry.live.lock().await;
            if live_only && live.over() {
                continue;
            }
            games.push(BotGame {
                id,
                created: live.row.created_ms,
                rules: live.game().rules().to_string(),
                players: live.players(),
                ply: live.game().moves().len(),
                over: live.over(),
                result: view::result(live.game(), live.stop()),
                clock: live.row.between.clock.map(|c| c.control.to_string()),
            });
        }
        Ok(BotGames { games })
    }

    /// Resumes the computer in stored games where it is to move (after a restart).
    pub async fn resume(self: &Arc<Self>) {
        let Ok(ids) = self.db(|s| s.ai_games()).await else {
            return;
        };
        for id in ids {
            let _ = self.entry(&id).await;
        }
    }

    /// Drops finished or idle games nobody watches from memory (they stay stored).
    pub fn evict(&self, keep: usize) {
        let mut map = self.games.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() <= keep {
            return;
        }
        // Only entries nobody else holds: a request that holds one keeps it alive.
        map.retain(|_, e| {
            Arc::strong_count(e) > 1
                || e.tx.receiver_count() > 0
                || e.live.try_lock().map_or(true, |l| l.ai_running)
        });
    }
}
