//! KGP bots in `mancala serve`: `mancala-play`'s KGP server plays them at `--kgp-level`, and
//! each freeplay game is stored as any game (the bot's seat of kind `kgp`, named by its
//! `info:name`) from its first move on, so `GET /api/kgp/games` lists it and
//! `/api/games/{id}/ws` shows it live. With `--kgp-lobby` freeplay bots wait in the KGP
//! server's [`Lobby`] instead, listed at `GET /api/kgp/bots`, until a person challenges one or
//! two are paired ([`App::challenge_bot`], [`App::pair_bots`]): those games are stored from
//! their start, the bots' moves through [`LobbyGame`], a person's through the web's API.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use mancala_core::Side;
use mancala_protocols::kgp::{GameResult, GameStart, Lobby, Recorder, Recording, ServerConfig};
use tokio::runtime::Handle;

use crate::App;

/// The KGP server's settings for `serve`: Kalah(6,6) against `level`, its games stored in
/// `app`. Call it within the runtime: the KGP threads reach the store through its handle.
pub fn config(app: &Arc<App>, level: u8) -> anyhow::Result<ServerConfig> {
    let mut cfg = ServerConfig::new(mancala_engine::Level::new(level).context("--kgp-level")?);
    cfg.recorder = Some(Arc::new(Store {
        app: app.clone(),
        rt: Handle::try_current().context("the KGP server's games need the runtime")?,
        level,
    }));
    Ok(cfg)
}

/// How often a bot waiting in the lobby is pinged.
pub const LOBBY_PING: Duration = Duration::from_secs(10);

/// Most time a person has for a move in a game against a lobby's bot; past it, the
/// person's seat resigns, and the bot waits again.
pub const PERSON_TIME: Duration = Duration::from_secs(15 * 60);

/// The lobby of a server with `--kgp-lobby`, as the app reaches it.
#[derive(Clone, Debug)]
pub struct LobbyHandle {
    /// The bots in the lobby.
    pub lobby: Arc<Lobby>,
    /// The games' rules (the KGP server's).
    pub rules: mancala_core::Rules,
    /// A bot's time a move.
    pub move_time: Duration,
    rt: Handle,
}

/// Opens a lobby on `cfg`, the KGP server's settings for `app`: freeplay bots wait there
/// (pinged every `ping`, [`LOBBY_PING`] in `serve`) instead of playing `cfg.level`, and the
/// app makes their games. Call it within the runtime.
pub fn open_lobby(app: &Arc<App>, cfg: &mut ServerConfig, ping: Duration) -> anyhow::Result<()> {
    let lobby = Arc::new(Lobby::new(ping, PERSON_TIME));
    cfg.lobby = Some(lobby.clone());
    let handle = LobbyHandle {
        lobby,
        rules: cfg.rules,
        move_time: cfg.move_time,
        rt: Handle::try_current().context("the lobby's games need the runtime")?,
    };
    app.lobby
        .set(handle)
        .map_err(|_| anyhow::anyhow!("the app has a lobby already"))
}

/// The bots' moves and a forfeit of a lobby's game, stored in the app; a person's moves and
/// resignation are stored by the web's API, which hands them on to the game's thread.
pub struct LobbyGame {
    app: Arc<App>,
    rt: Handle,
    id: String,
}

impl LobbyGame {
    /// The recording of the stored game `id`.
    pub fn new(app: &Arc<App>, handle: &LobbyHandle, id: &str) -> LobbyGame {
        LobbyGame {
            app: app.clone(),
            rt: handle.rt.clone(),
            id: id.to_string(),
        }
    }
}

impl Recording for LobbyGame {
    fn moved(&mut self, pit: u8, _by_bot: bool, _time: Duration) {
        if let Err(e) = self
            .rt
            .block_on(self.app.bot_game_move(&self.id, pit, None))
        {
            eprintln!("KGP: game {}: a move not stored: {}", self.id, e.message);
        }
    }

    fn ended(&mut self, _result: &GameResult) {}

    fn forfeited(&mut self, side: Side, _why: &str) {
        if let Err(e) = self.rt.block_on(self.app.bot_game_forfeit(&self.id, side)) {
            eprintln!("KGP: game {}: its end not stored: {}", self.id, e.message);
        }
    }
}

impl Drop for LobbyGame {
    /// The game is over: a person's moves have nowhere to go.
    fn drop(&mut self) {
        self.app.person_left(&self.id);
    }
}

/// Stores the KGP server's games in the app.
struct Store {
    app: Arc<App>,
    rt: Handle,
    level: u8,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the game store (level {})", self.level)
    }
}

impl Recorder for Store {
    fn start(&self, game: &GameStart<'_>) -> Option<Box<dyn Recording>> {
        Some(Box::new(Stored {
            app: self.app.clone(),
            rt: self.rt.clone(),
            id: None,
            rules: *game.rules,
            name: game.name.unwrap_or("KGP bot").to_string(),
            level: self.level,
            bot: game.bot_seat,
            failed: false,
        }))
    }
}

/// One KGP game, stored from its first move on: a bot that breaks off before any move
/// (garbage right after `mode`, a closed connection) leaves no game behind, so a flood of
/// such connections cannot crowd the list of bots' games. A KGP thread is no runtime
/// thread, so it may wait on the store.
struct Stored {
    app: Arc<App>,
    rt: Handle,
    /// The stored game's id, once its first move is played.
    id: Option<String>,
    rules: mancala_core::Rules,
    name: String,
    level: u8,
    bot: Side,
    /// The game could not be stored: its moves are not either.
    failed: bool,
}

impl Stored {
    /// The stored game's id, creating it at the first move.
    fn id(&mut self) -> Option<String> {
        if self.id.is_none() && !self.failed {
            let app = &self.app;
            let created = self.rt.block_on(app.create_bot_game(
                &self.rules,
                self.bot,
                &self.name,
                self.level,
            ));
            match created {
                Ok(id) => self.id = Some(id),
                Err(e) => {
                    eprintln!("KGP: a game of {} not stored: {}", self.name, e.message);
                    self.failed = true;
                }
            }
        }
        self.id.clone()
    }
}

impl Recording for Stored {
    fn moved(&mut self, pit: u8, by_bot: bool, time: Duration) {
        let Some(id) = self.id() else { return };
        let ms = (!by_bot).then_some(time.as_millis() as u64);
        if let Err(e) = self.rt.block_on(self.app.bot_game_move(&id, pit, ms)) {
            eprintln!("KGP: game {id}: a move not stored: {}", e.message);
        }
    }

    fn ended(&mut self, result: &GameResult) {
        if result.fault.is_some() {
            self.forfeited(self.bot, result.fault.as_deref().unwrap_or(""));
        }
    }

    fn forfeited(&mut self, side: Side, _why: &str) {
        // A game with no move was never stored.
        let Some(id) = self.id.clone() else { return };
        if let Err(e) = self.rt.block_on(self.app.bot_game_forfeit(&id, side)) {
            eprintln!("KGP: game {id}: its end not stored: {}", e.message);
        }
    }
}
