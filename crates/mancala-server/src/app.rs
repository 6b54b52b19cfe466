//! Games in play: loading and saving them, seats and their tokens, and the computer's moves in
//! a bounded worker pool. Each game is a [`Session`] (moves, the undo rule, the end, the
//! record); this module stores every change before the session makes it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use crate::response::{ApiError, ApiResult};
use crate::response::{
    BotGame, BotGames, Created, GameView, Hint, Joined, LobbyBots, Player, Seats, WsMessage,
};
use axum::http::StatusCode;
use mancala_core::record::Players;
use mancala_core::{Game, Msg, Position, Rules, Side};
use mancala_engine::Level;
use mancala_play::player::{computer_name, level_decision};
use mancala_play::session::{self as play_session, End, Session, UndoError};
use mancala_protocols::kgp::{LobbyError, PersonMove, Seat};
use tokio::sync::{broadcast, Semaphore};

use crate::clock::now_ms;
use crate::ids::{random_hex, same_secret};
use crate::store::{Change, GameRow, MoveRow, Store};
use crate::view::{self, side_str, Replay};
use crate::Config;

/// What a player asks to play: a pit, 1-based from his left (checked against the board), or
/// the pie rule's swap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveChoice {
    /// A pit, 1 = the mover's leftmost.
    Pit(i64),
    /// The swap (`"pit": "swap"`).
    Swap,
}

/// A game in memory. Its mutex serialises every change to it; the database write of a move
/// happens under it, before the game changes and before anyone is told.
pub struct Live {
    /// The game's stored row: seats, tokens, invitation, resignation.
    pub row: GameRow,
    /// The game itself: its seats, the moves played, the position now, how it ended.
    pub session: Session,
    /// Stored facts of each move (engine value of the computer's moves), aligned with
    /// `game.moves()`.
    pub info: Vec<MoveRow>,
    /// Bumped on every change; a computer move computed for an older version is dropped.
    pub version: u64,
    /// A computer move is being computed for this game (at most one at a time).
    pub ai_running: bool,
    /// How long a player of a timed game may be gone before a claim
    /// ([`crate::Config::claim_after`]).
    pub claim_after: Duration,
}

/// A loaded game: its state behind an async mutex and the channel its watchers listen on.
pub struct Entry {
    /// The game's state; hold the lock to read or change it.
    pub live: tokio::sync::Mutex<Live>,
    /// Public state after each change, for WebSocket watchers.
    pub tx: broadcast::Sender<Arc<str>>,
    /// `[south, north]`: connections open here that the seat's player said are his
    /// ([`App::presence`]).
    pub present: Mutex<[usize; 2]>,
}

impl Entry {
    /// A game loaded with its moves so far, and no watchers yet.
    fn new(row: GameRow, game: Game, info: Vec<MoveRow>) -> Entry {
        let (tx, _) = broadcast::channel(64);
        let session = session(&row, game);
        Entry {
            live: tokio::sync::Mutex::new(Live {
                row,
                session,
                info,
                version: version_base(),
                ai_running: false,
                claim_after: Duration::from_secs(60),
            }),
            tx,
            present: Mutex::new([0, 0]),
        }
    }
}

/// The server's state: the loaded games, the database, the settings and the pool the
/// computer's searches run in.
pub struct App {
    /// The database the games are saved in.
    pub store: Arc<Store>,
    /// The server's settings.
    pub cfg: Config,
    games: Mutex<HashMap<String, Arc<Entry>>>,
    /// One permit per search at a time (at most one a core).
    pub pool: Arc<Semaphore>,
    /// Computations waiting for the pool or running in it.
    demand: Arc<std::sync::atomic::AtomicUsize>,
    /// The KGP lobby (`--kgp-lobby`), once opened ([`crate::kgp::open_lobby`]).
    pub lobby: std::sync::OnceLock<crate::kgp::LobbyHandle>,
    /// Where a person's moves in a game against a lobby's bot go: that game's thread.
    person_moves: Mutex<HashMap<String, std::sync::mpsc::Sender<PersonMove>>>,
}

/// The session of the stored game `row` at `game`: the computer's seats at the row's level
/// (its moves chosen on the pool, [`App::ai_turn`]); a person's or a KGP bot's seat takes
/// the moves passed in. A stored resignation or interruption ends it.
fn session(row: &GameRow, game: Game) -> Session {
    let level = Level::new(row.ai_level.unwrap_or(3)).or_else(|| Level::new(3));
    let seat = |k: usize| match level {
        Some(l) if row.ai[k] => play_session::Seat::Level(l),
        _ => play_session::Seat::Person,
    };
    let mut s = Session::from_game(game, [seat(0), seat(1)], record_players(row));
    if let Some(k) = row.resigned {
        s.resign(side_of(k));
    }
    if row.interrupted {
        s.interrupt();
    }
    if let Some(stop) = row.between.stopped {
        s.stop(stop);
    }
    s
}

/// The players as the record names them: the computer by its level, a person by the name he
/// gave (none where he gave none: the record is read by both players and by anyone else).
fn record_players(row: &GameRow) -> Players {
    let name = |s: Side| -> Option<String> {
        let k = s.index();
        if row.ai[k] {
            Some(computer_name(row.ai_level.unwrap_or(3)))
        } else {
            row.names[k].clone()
        }
    };
    Players {
        south: name(Side::South),
        north: name(Side::North),
    }
}

/// Versions start from the clock (milliseconds) when a game is loaded, so they keep growing
/// across server restarts and a client can always tell the newer of two states.
fn version_base() -> u64 {
    now_ms().max(0) as u64
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

fn side_of(k: u8) -> Side {
    if k == 0 {
        Side::South
    } else {
        Side::North
    }
}

/// What a new game needs.
pub struct NewGame {
    /// The game and its options.
    pub rules: Rules,
    /// A set-up start position; `None`: the rules' start.
    pub start: Option<Position>,
    /// Computer level, or `None` for a game between two people.
    pub level: Option<u8>,
    /// The creator's seat: he plays this side, the computer or the invited friend the other.
    pub side: Side,
    /// The creator's display name; `None` when none is given.
    pub name: Option<String>,
    /// The clock of a game between people; `None`: untimed.
    pub clock: Option<crate::clock::TimeControl>,
}

/// The computer's choice and what the engine said about it.
struct AiMove {
    pit: u8,
    eval: Option<i32>,
    depth: Option<u32>,
    time_ms: u64,
}

/// The computer's move at `level` (see [`level_decision`]), timed.
fn ai_move(
    pos: &Position,
    history: &[Position],
    level: u8,
    seed: u64,
    cap: Duration,
) -> Option<AiMove> {
    let t0 = Instant::now();
    let d = level_decision(pos, history, level, seed, cap)?;
    Some(AiMove {
        pit: d.pit,
        eval: d.eval.map(|e| e.margin),
        depth: d.depth,
        time_ms: t0.elapsed().as_millis() as u64,
    })
}

impl Live {
    /// The game so far.
    pub fn game(&self) -> &Game {
        self.session.game()
    }
    /// Whether the game is against the computer.
    pub fn is_ai_game(&self) -> bool {
        self.session.against_computer()
    }
    /// How the game ended other than by its rules: a resignation, a clock, an agreement,
    /// a claim, a cancellation, or a restart that cut a bot's game off.
    pub fn stop(&self) -> Option<view::Stop> {
        match self.session.end()? {
            End::Stopped(s) => Some(s),
            End::Rules(..) => None,
        }
    }
    /// The game has ended: by its rules, a resignation or an interruption.
    pub fn over(&self) -> bool {
        self.session.end().is_some()
    }
    /// The computer is to move.
    pub fn ai_to_move(&self) -> bool {
        self.session.computer_to_move()
    }

    /// The seat `token` holds.
    pub fn seat(&self, token: Option<&str>) -> ApiResult<Side> {
        let Some(token) = token else {
            return Err(ApiError::said(
                StatusCode::UNAUTHORIZED,
                Msg::new("server.no-token"),
            ));
        };
        for s in Side::BOTH {
            if let Some(t) = &self.row.tokens[s.index()] {
                if same_secret(t, token) {
                    return Ok(s);
                }
            }
        }
        Err(ApiError::said(
            StatusCode::FORBIDDEN,
            Msg::new("server.bad-token").arg("id", &self.row.id),
        ))
    }

    fn player(&self, s: Side) -> Player {
        let k = s.index();
        if self.row.ai[k] {
            let level = self.row.ai_level.unwrap_or(3);
            Player::Computer {
                level,
                name: format!("Computer (level {level})"),
                joined: true,
            }
        } else if self.row.bots[k] {
            Player::Bot {
                name: self.row.names[k].clone().unwrap_or_default(),
                protocol: "kgp",
            }
        } else {
            Player::Human {
                name: self.row.names[k].clone(),
                joined: self.row.tokens[k].is_some(),
            }
        }
    }

    /// Both seats for the JSON state (`{"south": ..., "north": ...}`): the computer with its
    /// level, or a person with his name and whether he has joined.
    pub fn players(&self) -> Seats<Player> {
        Seats {
            south: self.player(Side::South),
            north: self.player(Side::North),
        }
    }

    /// The state everyone may see (never a token), plus `you` for the seat asking.
    pub fn view(&self, you: Option<Side>) -> GameView {
        self.view_at(you, now_ms())
    }

    /// The state at `now` (the clock and an absence read then).
    pub fn view_at(&self, you: Option<Side>, now: i64) -> GameView {
        let eval = |k: usize| self.info.get(k).and_then(|i| i.eval);
        let mover = (!self.over()).then(|| self.game().to_move());
        let b = &self.row.between;
        let between = view::BetweenView {
            clock: b.clock.map(|c| {
                let moved = mover.is_some_and(|m| self.has_moved(m));
                c.view(mover, moved, now)
            }),
            offer: b.offer.map(Into::into),
            rematch: b.rematch.clone(),
            away: crate::between::away_view(self, now),
        };
        GameView {
            id: self.row.id.clone(),
            version: self.version,
            vs_computer: self.is_ai_game(),
            thinking: self.ai_to_move(),
            waiting_for_opponent: self.row.invite.is_some(),
            you: you.map(side_str),
            // The invitation, to a seat holder only, while the other seat is free.
            invite: if you.is_some() {
                self.row.invite.clone()
            } else {
                None
            },
            between,
            ..view::game_view(self.game(), self.stop(), &eval, self.players())
        }
    }

    /// The game record (JSON) with the computer's values and times on its moves.
    pub fn record(&self) -> mancala_core::Record {
        let mut rec = self.session.record();
        let mut k = 0;
        for turn in &mut rec.turns {
            for mv in &mut turn.moves {
                if let Some(info) = self.info.get(k) {
                    mv.eval = info.eval.map(f64::from);
                    mv.time_ms = info.time_ms;
                }
                k += 1;
            }
        }
        rec
    }

    /// The text record; a resignation is written as a `Result` tag.
    pub fn record_text(&self) -> ApiResult<String> {
        self.record().to_text().map_err(ApiError::internal)
    }
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

    async fn db<T: Send + 'static>(
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
    pub(crate) async fn wrote(&self, p: crate::store::Pending) -> ApiResult<()> {
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

    /// Creates a game; returns its state, the creator's seat and token, and the invitation
    /// code for a game between two people.
    pub async fn create(self: &Arc<Self>, new: NewGame) -> ApiResult<Created> {
        let start = match new.start {
            Some(p) => p,
            None => Position::start(&new.rules).map_err(ApiError::from)?,
        };
        if start.is_over() {
            return Err(ApiError::said(
                StatusCode::BAD_REQUEST,
                Msg::new("server.start-over"),
            ));
        }
        let id = random_hex(8);
        let token = random_hex(16);
        let me = new.side.index();
        let mut tokens = [None, None];
        tokens[me] = Some(token.clone());
        let mut names = [None, None];
        names[me] = new.name.clone();
        let mut ai = [false, false];
        let invite = match new.level {
            Some(_) => {
                ai[1 - me] = true;
                None
            }
            None => Some(random_hex(12)),
        };
        let seed = i64::from_le_bytes(
            u64::from_str_radix(&random_hex(8), 16)
                .unwrap_or(7)
                .to_le_bytes(),
        );
        let row = GameRow {
            id: id.clone(),
            start: start.to_string(),
            created_ms: now_ms(),
            ai,
            bots: [false, false],
            ai_level: new.level,
            tokens,
            names,
            invite: invite.clone(),
            resigned: None,
            interrupted: false,
            seed,
            between: crate::store::Between {
                clock: new
                    .clock
                    .filter(|_| new.level.is_none())
                    .map(crate::clock::Clock::new),
                ..Default::default()
            },
        };
        let entry = self.add_new(row, start).await?;
        let state = entry.live.lock().await.view(Some(new.side));
        self.kick_ai(&id, &entry).await;
        Ok(Created {
            game: state,
            seat: side_str(new.side),
            token,
            invite,
        })
    }

    /// Claims the open seat of a game between two people with its invitation code.
    pub async fn join(
        self: &Arc<Self>,
        id: &str,
        invite: &str,
        name: Option<String>,
    ) -> ApiResult<Joined> {
        let entry = self.entry(id).await?;
        let mut live = entry.live.lock().await;
        let Some(code) = live.row.invite.clone() else {
            return Err(ApiError::said(
                StatusCode::CONFLICT,
                Msg::new("server.seats-taken"),
            ));
        };
        if !same_secret(&code, invite) {
            return Err(ApiError::said(
                StatusCode::FORBIDDEN,
                Msg::new("server.bad-invite"),
            ));
        }
        let side = if live.row.tokens[0].is_none() {
            Side::South
        } else {
            Side::North
        };
        let token = random_hex(16);
        let (gid, t, n) = (id.to_string(), token.clone(), name.clone());
        let now = now_ms();
        let claimed =
            self.wrote(
                self.store
                    .claim_seat(&gid, side.index() as u8, &t, n.as_deref(), now),
            );
        if let Err(e) = claimed.await {
            // Taken through another server on the same database: this one catches up.
            self.refresh(id, &entry, &mut live).await?;
            return Err(match live.row.invite {
                None => ApiError::said(StatusCode::CONFLICT, Msg::new("server.seats-taken")),
                Some(_) => e,
            });
        }
        live.row.tokens[side.index()] = Some(token.clone());
        live.row.names[side.index()] = name;
        live.row.invite = None;
        if let Some(c) = &mut live.row.between.clock {
            c.at_ms = Some(now);
        }
        let players = record_players(&live.row);
        live.session.set_players(players);
        self.changed(&entry, &mut live);
        Ok(Joined {
            game: live.view(Some(side)),
            seat: side_str(side),
            token,
        })
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

    /// Plays `pit` (1-based) for the seat holding `token`. The move is stored, then played,
    /// then acknowledged.
    pub async fn play(
        self: &Arc<Self>,
        id: &str,
        token: Option<&str>,
        choice: MoveChoice,
        expect_ply: Option<i64>,
    ) -> ApiResult<GameView> {
        let entry = self.entry(id).await?;
        let mut live = entry.live.lock().await;
        let playable = |l: &Live| {
            l.seat(token).is_ok_and(|s| s == l.game().to_move())
                && !l.over()
                && expect_ply.is_none_or(|p| p == l.game().moves().len() as i64)
        };
        if !playable(&live) {
            self.catch_up(id, &entry, &mut live).await?;
        }
        let side = live.seat(token)?;
        // A clock that ran out ends the game before the move is looked at.
        self.flag_if_due(id, &entry, &mut live).await?;
        if live.over() {
            return Err(ApiError::said(
                StatusCode::CONFLICT,
                Msg::new("server.over-no-moves"),
            ));
        }
        let to_move = live.game().to_move();
        if to_move != side {
            return Err(ApiError::said(
                StatusCode::CONFLICT,
                Msg::new("server.not-your-turn")
                    .side("mover", to_move)
                    .side("side", side),
            ));
        }
        let ply = live.game().moves().len();
        if let Some(p) = expect_ply {
            if p != ply as i64 {
                return Err(ApiError::said(
                    StatusCode::CONFLICT,
                    Msg::new("server.moved-on")
                        .arg("ply", ply)
                        .arg("expected", p),
                ));
            }
        }
        let m = live.game().rules().pits as i64;
        let pit0 = match choice {
            MoveChoice::Swap => mancala_core::SWAP,
            MoveChoice::Pit(pit) if pit < 1 || pit > m => {
                let e = mancala_core::Error::IllegalMove(
                    Msg::new("error.move.no-pit").arg("pit", pit).arg("pits", m),
                );
                return Err(ApiError::core(StatusCode::UNPROCESSABLE_ENTITY, &e));
            }
            MoveChoice::Pit(pit) => (pit - 1) as u8,
        };
        let mut probe = *live.game().position();
        if let Err(e) = probe.play(pit0) {
            return Err(ApiError::core(StatusCode::UNPROCESSABLE_ENTITY, &e));
        }
        let row = MoveRow {
            ply: ply as u32,
            pit: pit0,
            eval: None,
            depth: None,
            time_ms: None,
        };
        let gid = id.to_string();
        let turn_passes = probe.is_over() || probe.to_move() != side;
        let moved = live.has_moved(side);
        let clock = live
            .row
            .between
            .clock
            .map(|c| c.after_move(side, moved, turn_passes, now_ms()));
        if let Err(e) = self.wrote(self.store.add_move(&gid, &row, clock)).await {
            // A move made through another server on the same database took this ply: this
            // one catches up, and the mover is told the game moved on.
            self.refresh(id, &entry, &mut live).await?;
            let now = live.game().moves().len();
            return Err(if now != ply {
                ApiError::said(
                    StatusCode::CONFLICT,
                    Msg::new("server.moved-on")
                        .arg("ply", now)
                        .arg("expected", ply),
                )
            } else {
                e
            });
        }
        live.session
            .play(pit0)
            .map_err(|e| ApiError::internal(format!("checked move refused: {e}")))?;
        live.info.push(row);
        live.row.between.clock = clock;
        live.row.between.offer = None;
        self.changed(&entry, &mut live);
        self.tell_lobby_game(id, PersonMove::Pit(pit0));
        let state = live.view(Some(side));
        drop(live);
        self.kick_ai(id, &entry).await;
        Ok(state)
    }

    /// Takes back the asker's last move and the computer's answer (games against the computer).
    pub async fn undo(self: &Arc<Self>, id: &str, token: Option<&str>) -> ApiResult<GameView> {
        let entry = self.entry(id).await?;
        let mut live = entry.live.lock().await;
        if live.seat(token).is_err() {
            self.catch_up(id, &entry, &mut live).await?;
        }
        let side = live.seat(token)?;
        if !live.is_ai_game() {
            return Err(ApiError::said(
                StatusCode::CONFLICT,
                Msg::new("server.undo-computer-only"),
            ));
        }
        // The one undo rule (`mancala_play::session`): back before the asker's last move.
        let k = live.session.undo_point(side).map_err(|e| {
            let key = match e {
                UndoError::Stopped(_) => "server.resigned",
                UndoError::Nothing => "server.nothing-to-undo",
            };
            ApiError::said(StatusCode::CONFLICT, Msg::new(key))
        })?;
        let gid = id.to_string();
        self.wrote(self.store.truncate(&gid, k as u32)).await?;
        live.session.back_to(k);
        live.info.truncate(k);
        self.changed(&entry, &mut live);
        Ok(live.view(Some(side)))
    }

    /// Resigns game `id` for the seat `token` holds: the other side wins, the stores stay as they
    /// are. Answers the state.
    pub async fn resign(self: &Arc<Self>, id: &str, token: Option<&str>) -> ApiResult<GameView> {
        let entry = self.entry(id).await?;
        let mut live = entry.live.lock().await;
        if live.seat(token).is_err() || live.over() {
            self.catch_up(id, &entry, &mut live).await?;
        }
        let side = live.seat(token)?;
        if live.over() {
            return Err(ApiError::said(
                StatusCode::CONFLICT,
                Msg::new("server.already-over"),
            ));
        }
        let gid = id.to_string();
        let k = side.index() as u8;
        self.wrote(self.store.set_resigned(&gid, k)).await?;
        live.row.resigned = Some(k);
        live.session.resign(side);
        self.changed(&entry, &mut live);
        self.tell_lobby_game(id, PersonMove::Resigned);
        Ok(live.view(Some(side)))
    }

    /// The state, with `you` when the token holds a seat.
    pub async fn state(self: &Arc<Self>, id: &str, token: Option<&str>) -> ApiResult<GameView> {
        let entry = self.entry(id).await?;
        let view = {
            let live = entry.live.lock().await;
            let you = match token {
                Some(_) => Some(live.seat(token)?),
                None => None,
            };
            live.view(you)
        };
        // Should the computer's turn have stopped (a storage error), a look at the game
        // starts it again.
        self.kick_ai(id, &entry).await;
        Ok(view)
    }

    /// The engine's suggestion for the asker (games against the computer, on his turn).
    pub async fn hint(self: &Arc<Self>, id: &str, token: Option<&str>) -> ApiResult<Hint> {
        let entry = self.entry(id).await?;
        let (asker, moment) = {
            let live = entry.live.lock().await;
            let side = live.seat(token)?;
            if !live.is_ai_game() {
                return Err(ApiError::said(
                    StatusCode::CONFLICT,
                    Msg::new("server.hint-computer-only"),
                ));
            }
            if live.over() {
                return Err(ApiError::said(
                    StatusCode::CONFLICT,
                    Msg::new("server.over"),
                ));
            }
            if live.game().to_move() != side {
                return Err(ApiError::said(
                    StatusCode::CONFLICT,
                    Msg::new("server.hint-own-turn"),
                ));
            }
            (side, live.session.moment())
        };
        let pos = moment.position;
        let engine = self.engine(16);
        // The one hint policy: a proof within half the time where one finishes (the default
        // game's does), else a 16-ply search within the rest; the clock starts when a worker
        // takes the request, mapping the table included.
        let time = self.cfg.ai_time.min(Duration::from_millis(1000));
        let r = self
            .compute(move || {
                let budget = mancala_engine::Budget::time(time).with_depth(Some(16));
                engine.prefault();
                moment.hint(&engine, budget)
            })
            .await?
            .ok_or_else(|| ApiError::conflict("no legal move"))?;
        // The value from the asker's view, whatever side the search's was from.
        Ok(view::hint(&pos, asker, &r))
    }

    /// A one-thread engine with a table of `tt_mb` MiB that probes the endgame tables where
    /// the server has them. Its user maps the table in ([`mancala_engine::Engine::prefault`])
    /// on the worker that searches, before the search, so that no search pays for it on its
    /// clock.
    pub fn engine(&self, tt_mb: usize) -> mancala_engine::Engine {
        let mut e = mancala_engine::Engine::new(tt_mb, 1);
        e.oracle = self.cfg.tables.as_ref().map(|t| t.oracle());
        e
    }

    /// The analysis board's values of `pos` (see [`view::analyse`]) within
    /// [`Config::board_time`], on the worker pool; `history` holds the game's positions before
    /// it. A request that waits for the pool longer than ten times that is answered 503.
    pub async fn analyse(
        &self,
        pos: mancala_core::Position,
        history: Vec<mancala_core::Position>,
    ) -> ApiResult<view::Analysis> {
        let time = self.cfg.board_time;
        let engine = self.engine(32);
        let tables = self.cfg.tables.clone();
        let work = self.compute(move || {
            // The clock starts when a worker takes the request: mapping the table counts.
            let budget = mancala_engine::Budget::time(time);
            engine.prefault();
            let a = view::analyse(&engine, &pos, &history, budget);
            (a, tables.and_then(|t| t.0.fault()))
        });
        let (a, fault) = tokio::time::timeout(time * 10, work).await.map_err(|_| {
            ApiError::said(
                StatusCode::SERVICE_UNAVAILABLE,
                Msg::new("server.analysis-busy"),
            )
        })??;
        match fault {
            Some(e) => Err(ApiError::internal(format!("endgame tables: {e}"))),
            None => Ok(a),
        }
    }

    /// Runs `f` on the worker pool: one permit (one core) per computation.
    pub async fn compute<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> ApiResult<T> {
        use std::sync::atomic::Ordering;
        struct Demand(Arc<std::sync::atomic::AtomicUsize>);
        impl Drop for Demand {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::Relaxed);
            }
        }
        self.demand.fetch_add(1, Ordering::Relaxed);
        let demand = Demand(self.demand.clone());
        let permit = self
            .pool
            .clone()
            .acquire_owned()
            .await
            .map_err(ApiError::internal)?;
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let _demand = demand;
            f()
        })
        .await
        .map_err(ApiError::internal)
    }

    /// The time one computer move may take now: `--ai-time-ms`, shared out when more searches
    /// want the pool than it has threads (never below 50 ms), so that a crowd of games at the
    /// strongest levels keeps moving instead of queueing for seconds each.
    pub fn ai_time_now(&self) -> Duration {
        let threads = self.cfg.ai_threads.max(1);
        let want = self
            .demand
            .load(std::sync::atomic::Ordering::Relaxed)
            .max(1);
        let cap = self.cfg.ai_time;
        if want <= threads {
            cap
        } else {
            (cap * threads as u32 / want as u32).max(Duration::from_millis(50).min(cap))
        }
    }

    /// The replay view of a game, with the engine's values of its moves where `values`
    /// (without them: at once, for a look back at a ply while the game goes on).
    pub async fn replay(
        self: &Arc<Self>,
        id: &str,
        values: bool,
    ) -> ApiResult<Replay<Seats<Player>>> {
        let entry = self.entry(id).await?;
        let (game, players, stop) = {
            let live = entry.live.lock().await;
            (live.game().clone(), live.players(), live.stop())
        };
        if !values {
            return Ok(view::replay(&game, players, stop, None));
        }
        self.replay_game(game, players, stop).await
    }

    /// The replay view of `game` (stored or read from a record): its positions and moves, each
    /// move judged by the engine to a fixed depth or proven ([`view::replay_analysis`], the
    /// same values each time); past 100 times [`Config::analysis_time`] in all, the remaining
    /// moves go unjudged.
    pub async fn replay_game<P: Send + 'static>(
        &self,
        game: Game,
        players: P,
        stop: Option<view::Stop>,
    ) -> ApiResult<Replay<P>> {
        let per = self.cfg.analysis_time;
        let engine = self.engine(64);
        self.compute(move || {
            engine.prefault();
            let values = view::replay_analysis(&engine, &game, per * 100);
            view::replay(&game, players, stop, Some(values))
        })
        .await
    }

    /// Starts the computer's turn if it is to move and not already thinking (never in a
    /// bot's game: the KGP server plays its computer's moves).
    async fn kick_ai(self: &Arc<Self>, id: &str, entry: &Arc<Entry>) {
        {
            let mut live = entry.live.lock().await;
            if live.ai_running || !live.ai_to_move() || live.row.bots.contains(&true) {
                return;
            }
            live.ai_running = true;
        }
        let app = self.clone();
        let entry = entry.clone();
        let id = id.to_string();
        tokio::spawn(async move {
            app.ai_turn(&id, &entry).await;
        });
    }

    /// Plays the computer's moves until a person is to move or the game is over.
    async fn ai_turn(self: &Arc<Self>, id: &str, entry: &Arc<Entry>) {
        let mut failures = 0;
        loop {
            let (moment, version, level, seed) = {
                let mut live = entry.live.lock().await;
                let s = &live.session;
                let to_move = s.seat(s.game().to_move());
                let Some(level) = to_move
                    .level()
                    .filter(|_| s.computer_to_move() && failures <= 3)
                else {
                    live.ai_running = false;
                    return;
                };
                let ply = s.game().moves().len() as u64;
                (
                    s.moment(),
                    live.version,
                    level.level,
                    (live.row.seed as u64) ^ ply.wrapping_mul(0x9E37_79B9_7F4A_7C15),
                )
            };
            // The time limit is taken when the search starts, from the queue then.
            let app = self.clone();
            let choice = match self
                .compute(move || {
                    let (pos, history) = (&moment.position, &moment.history);
                    ai_move(pos, history, level, seed, app.ai_time_now())
                })
                .await
            {
                Ok(Some(c)) => c,
                _ => {
                    failures += 1;
                    continue;
                }
            };
            let mut live = entry.live.lock().await;
            if live.version != version || !live.ai_to_move() {
                // Undone or resigned meanwhile: think again about the position now.
                continue;
            }
            let row = MoveRow {
                ply: live.game().moves().len() as u32,
                pit: choice.pit,
                eval: choice.eval,
                depth: choice.depth,
                time_ms: Some(choice.time_ms),
            };
            let gid = id.to_string();
            if self
                .wrote(self.store.add_move(&gid, &row, None))
                .await
                .is_err()
            {
                failures += 1;
                drop(live);
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
            if live.session.play(choice.pit).is_err() {
                failures += 1;
                continue;
            }
            live.info.push(row);
            self.changed(entry, &mut live);
        }
    }

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

    /// Hands a person's move or resignation to the thread of game `id`, where it is a game
    /// against a lobby's bot.
    fn tell_lobby_game(&self, id: &str, m: PersonMove) {
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

    fn lobby(&self) -> ApiResult<&crate::kgp::LobbyHandle> {
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
    fn reserve_bots(
        &self,
        ids: &[&str],
    ) -> ApiResult<(mancala_protocols::kgp::Reservation, Vec<String>)> {
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
        handle: &crate::kgp::LobbyHandle,
        reservation: mancala_protocols::kgp::Reservation,
        seats: [Seat; 2],
        id: &str,
    ) {
        let rec = crate::kgp::LobbyGame::new(self, handle, id);
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
        let (tx, rx) = std::sync::mpsc::channel();
        self.person_moves
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.clone(), tx);
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
