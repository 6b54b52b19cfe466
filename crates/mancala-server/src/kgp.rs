//! KGP bots in `mancala serve`: `mancala-play`'s KGP server plays them at `--kgp-level`, and
//! each freeplay game is stored as any game (the bot's seat of kind `kgp`, named by its
//! `info:name`) from its first move on, so `GET /api/kgp/games` lists it and
//! `/api/games/{id}/ws` shows it live.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use mancala_core::Side;
use mancala_play::kgp::{GameResult, GameStart, Recorder, Recording, ServerConfig};
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
        // A game with no move was never stored.
        let Some(id) = self.id.clone() else { return };
        if result.fault.is_some() {
            if let Err(e) = self.rt.block_on(self.app.bot_game_forfeit(&id, self.bot)) {
                eprintln!("KGP: game {id}: its end not stored: {}", e.message);
            }
        }
    }
}
