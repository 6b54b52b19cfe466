//! KGP bots' games in the app: a bot's game against the computer made, its moves and its
//! forfeit stored, the bots' games a restart cut off marked; and where a person's moves go
//! in a game against a bot of the KGP lobby (whose games [`crate::kgp`] starts).

use std::sync::mpsc;
use std::sync::Arc;

use mancala_core::{Position, Rules, Side};
use mancala_protocols::kgp::PersonMove;

use super::state::App;
use crate::clock::now_ms;
use crate::ids::random_hex;
use crate::response::{ApiError, ApiResult};
use crate::store::{GameRow, MoveRow};

impl App {
    /// Creates the game of a KGP bot on `bot` (named `name`) against the computer at
    /// `level`: stored like any game, with no seat token (only the KGP server plays it);
    /// returns its id.
    pub async fn create_bot_game(
        self: &Arc<Self>,
        rules: &Rules,
        bot: Side,
        name: &str,
        level: u8,
    ) -> ApiResult<String> {
        let start = Position::start(rules).map_err(|e| ApiError::bad(e.to_string()))?;
        let id = random_hex(8);
        let (mut ai, mut bots, mut names) = ([false; 2], [false; 2], [None, None]);
        ai[bot.other().index()] = true;
        bots[bot.index()] = true;
        names[bot.index()] = Some(name.to_string());
        let row = GameRow {
            id: id.clone(),
            start: start.to_string(),
            created_ms: now_ms(),
            ai,
            bots,
            ai_level: Some(level),
            tokens: [None, None],
            names,
            invite: None,
            resigned: None,
            interrupted: false,
            seed: 0,
            between: Default::default(),
        };
        self.add_new(row, start).await?;
        Ok(id)
    }

    /// Stores, plays and shows the next move (`pit`, 0-based) of a bot's game, whichever
    /// side made it; the computer's moves carry their time.
    pub async fn bot_game_move(
        self: &Arc<Self>,
        id: &str,
        pit: u8,
        time_ms: Option<u64>,
    ) -> ApiResult<()> {
        let entry = self.entry(id).await?;
        let mut live = entry.live.lock().await;
        let mut probe = *live.game().position();
        probe
            .play(pit)
            .map_err(|e| ApiError::conflict(format!("game {id}: {e}")))?;
        let row = MoveRow {
            ply: live.game().moves().len() as u32,
            pit,
            eval: None,
            depth: None,
            time_ms,
        };
        let gid = id.to_string();
        self.wrote(self.store.add_move(&gid, &row, None)).await?;
        live.session
            .play(pit)
            .map_err(|e| ApiError::internal(format!("checked move refused: {e}")))?;
        live.info.push(row);
        self.changed(&entry, &mut live);
        Ok(())
    }

    /// Ends a bot's game that the bot broke off (a protocol fault, a closed connection):
    /// stored as its resignation.
    pub async fn bot_game_forfeit(self: &Arc<Self>, id: &str, bot: Side) -> ApiResult<()> {
        let entry = self.entry(id).await?;
        let mut live = entry.live.lock().await;
        if live.over() {
            return Ok(());
        }
        let k = bot.index() as u8;
        let gid = id.to_string();
        self.wrote(self.store.set_resigned(&gid, k)).await?;
        live.row.resigned = Some(k);
        live.session.resign(bot);
        self.changed(&entry, &mut live);
        Ok(())
    }

    /// Marks the stored KGP bots' games that a restart cut off before their end as
    /// interrupted ([`crate::store::GameRow::interrupted`]): their bots' connections are gone, so they
    /// stay unfinished, and nobody moves in them. Run before the KGP listeners open.
    pub async fn interrupt_bot_games(self: &Arc<Self>) -> ApiResult<()> {
        let ids = self.db(|s| s.open_bot_games()).await?;
        for id in ids {
            // A stored game that does not replay is left as it is (its page says why).
            let Ok(entry) = self.entry(&id).await else {
                continue;
            };
            let mut live = entry.live.lock().await;
            if live.game().is_over() {
                continue;
            }
            self.wrote(self.store.set_interrupted(&id)).await?;
            live.row.interrupted = true;
            live.session.interrupt();
            self.changed(&entry, &mut live);
        }
        Ok(())
    }

    /// Hands a person's move or resignation to the thread of game `id`, where it is a game
    /// against a lobby's bot.
    pub(super) fn tell_lobby_game(&self, id: &str, m: PersonMove) {
        let map = self.person_moves.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(tx) = map.get(id) {
            let _ = tx.send(m);
        }
    }

    /// The game `id` against a lobby's bot is over: its person's moves go nowhere.
    pub fn person_left(&self, id: &str) {
        let mut map = self.person_moves.lock().unwrap_or_else(|e| e.into_inner());
        map.remove(id);
    }

    /// Where the person's moves in game `id` against a lobby's bot go from now on: the
    /// receiver answered, which the game's thread reads.
    pub(crate) fn person_moves_of(&self, id: &str) -> mpsc::Receiver<PersonMove> {
        let (tx, rx) = mpsc::channel();
        self.person_moves
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.to_string(), tx);
        rx
    }
}
