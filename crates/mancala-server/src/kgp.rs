//! KGP bots in `mancala serve`: `mancala-play`'s KGP server plays them at `--kgp-level`, and
//! each freeplay game is stored as any game (the bot's seat of kind `kgp`, named by its
//! `info:name`), so `GET /api/kgp/games` lists it and `/api/games/{id}/ws` shows it live.

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
        let name = game.name.unwrap_or("KGP bot");
        let created =
            self.rt.block_on(
                self.app
                    .create_bot_game(game.rules, game.bot_seat, name, self.level),
            );
        match created {
            Ok(id) => Some(Box::new(Stored {
                app: self.app.clone(),
                rt: self.rt.clone(),
                id,
                bot: game.bot_seat,
            })),
            Err(e) => {
                eprintln!("KGP: a game of {name} not stored: {}", e.message);
                None
            }
        }
    }
}

/// One stored KGP game. A KGP thread is no runtime thread, so it may wait on the store.
struct Stored {
    app: Arc<App>,
    rt: Handle,
    id: String,
    bot: Side,
}

impl Recording for Stored {
    fn moved(&mut self, pit: u8, by_bot: bool, time: Duration) {
        let ms = (!by_bot).then_some(time.as_millis() as u64);
        if let Err(e) = self.rt.block_on(self.app.bot_game_move(&self.id, pit, ms)) {
            eprintln!("KGP: game {}: a move not stored: {}", self.id, e.message);
        }
    }

    fn ended(&mut self, result: &GameResult) {
        if result.fault.is_some() {
            if let Err(e) = self
                .rt
                .block_on(self.app.bot_game_forfeit(&self.id, self.bot))
            {
                eprintln!("KGP: game {}: its end not stored: {}", self.id, e.message);
            }
        }
    }
}
