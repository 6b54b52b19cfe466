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
use axum::http::StatusCode;
use mancala_core::{Msg, Position, Side};
use mancala_protocols::kgp::{
    GameResult, GameStart, Lobby, LobbyError, Recorder, Recording, Reservation, Seat, ServerConfig,
};
use tokio::runtime::Handle;

use crate::app::App;
use crate::clock::now_ms;
use crate::ids::random_hex;
use crate::response::{ApiError, ApiResult, Created, GameView, LobbyBots};
use crate::store::GameRow;
use crate::view::side_str;

pub use crate::app::LobbyHandle;

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

/// The stored row of a new game of KGP bots at `start`: no seat taken yet.
fn kgp_row(id: &str, start: &Position) -> GameRow {
    GameRow {
        id: id.to_string(),
        start: start.to_string(),
        created_ms: now_ms(),
        ai: [false, false],
        bots: [false, false],
        ai_level: None,
        tokens: [None, None],
        names: [None, None],
        invite: None,
        resigned: None,
        interrupted: false,
        seed: 0,
        between: Default::default(),
    }
}

impl App {
    fn lobby(&self) -> ApiResult<&LobbyHandle> {
        self.lobby
            .get()
            .ok_or_else(|| ApiError::said(StatusCode::NOT_FOUND, Msg::new("server.kgp.no-lobby")))
    }

    /// The bots waiting in the KGP lobby (none without one).
    pub fn lobby_bots(&self) -> LobbyBots {
        LobbyBots {
            lobby: self.lobby.get().is_some(),
            bots: self
                .lobby
                .get()
                .map(|h| h.lobby.waiting())
                .unwrap_or_default(),
        }
    }

    /// Takes the lobby's bots `ids` (as the path gave them) for a game: their ids and names.
    fn reserve_bots(&self, ids: &[&str]) -> ApiResult<(Reservation, Vec<String>)> {
        let handle = self.lobby()?;
        let mut nums = Vec::new();
        for id in ids {
            let shown: String = id.chars().take(24).collect();
            let n = id.parse::<u64>().map_err(|_| {
                ApiError::said(
                    StatusCode::NOT_FOUND,
                    Msg::new("server.kgp.no-bot").arg("id", shown),
                )
            })?;
            nums.push(n);
        }
        let names: Vec<String> = nums
            .iter()
            .map(|n| {
                handle
                    .lobby
                    .bot(*n)
                    .and_then(|b| b.name)
                    .unwrap_or_else(|| "KGP bot".into())
            })
            .collect();
        let r = handle.lobby.reserve(&nums).map_err(|e| match e {
            LobbyError::NoBot(id) => ApiError::said(
                StatusCode::NOT_FOUND,
                Msg::new("server.kgp.no-bot").arg("id", id),
            ),
            LobbyError::Busy(id) => ApiError::said(
                StatusCode::CONFLICT,
                Msg::new("server.kgp.bot-busy").arg("id", id),
            ),
            LobbyError::Same(id) => ApiError::said(
                StatusCode::BAD_REQUEST,
                Msg::new("server.kgp.same-bot").arg("id", id),
            ),
        })?;
        Ok((r, names))
    }

    /// Starts the stored game `id` between the reserved bots and `seats`, under the lobby's
    /// rules and move time, its moves recorded into the store.
    fn start_lobby_game(
        self: &Arc<Self>,
        handle: &LobbyHandle,
        reservation: Reservation,
        seats: [Seat; 2],
        id: &str,
    ) {
        let rec = LobbyGame::new(self, handle, id);
        reservation.start(
            seats,
            handle.rules,
            handle.move_time,
            id.to_string(),
            Box::new(rec),
        );
    }

    /// A person challenges the lobby's bot `bot`: an ordinary stored game of the lobby's
    /// rules, the person on `side` with a seat token (played from the web as a game against
    /// the computer is, without undo or hints), the bot on the other seat through KGP.
    pub async fn challenge_bot(
        self: &Arc<Self>,
        bot: &str,
        side: Side,
        name: Option<String>,
    ) -> ApiResult<Created> {
        let handle = self.lobby()?.clone();
        let (reservation, names) = self.reserve_bots(&[bot])?;
        let start = Position::start(&handle.rules).map_err(ApiError::from)?;
        let id = random_hex(8);
        let token = random_hex(16);
        let (me, it) = (side.index(), side.other().index());
        let mut row = kgp_row(&id, &start);
        row.tokens[me] = Some(token.clone());
        row.names[me] = name;
        row.bots[it] = true;
        row.names[it] = Some(names[0].clone());
        let entry = self.add_new(row, start).await?;
        let rx = self.person_moves_of(&id);
        let mut seats = [Seat::Person(rx), Seat::Bot(reservation.ids()[0])];
        if side == Side::North {
            seats.swap(0, 1);
        }
        self.start_lobby_game(&handle, reservation, seats, &id);
        let state = entry.live.lock().await.view(Some(side));
        Ok(Created {
            game: state,
            seat: side_str(side),
            token,
            invite: None,
        })
    }

    /// Pairs the lobby's bots `south` and `north` (as the path or body gave them) in a stored
    /// game of the lobby's rules, watchable as any; returns its state.
    pub async fn pair_bots(self: &Arc<Self>, south: &str, north: &str) -> ApiResult<GameView> {
        let handle = self.lobby()?.clone();
        let (reservation, names) = self.reserve_bots(&[south, north])?;
        let start = Position::start(&handle.rules).map_err(ApiError::from)?;
        let id = random_hex(8);
        let mut row = kgp_row(&id, &start);
        row.bots = [true, true];
        row.names = [Some(names[0].clone()), Some(names[1].clone())];
        let entry = self.add_new(row, start).await?;
        let ids = reservation.ids().to_vec();
        let seats = [Seat::Bot(ids[0]), Seat::Bot(ids[1])];
        self.start_lobby_game(&handle, reservation, seats, &id);
        let state = entry.live.lock().await.view(None);
        Ok(state)
    }
}
