//! The computer: its turns in the games against it, the hints, the analysis board's values
//! and the replays' judgements, each search on the bounded worker pool.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use mancala_core::{Game, Msg, Position};
use mancala_play::player::level_decision;

use super::live::Entry;
use super::state::App;
use crate::response::{ApiError, ApiResult, Hint, Player, Seats};
use crate::store::MoveRow;
use crate::view::{self, Replay};

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

impl App {
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
    /// [`crate::Config::board_time`], on the worker pool; `history` holds the game's positions
    /// before it. A request that waits for the pool longer than ten times that is answered 503.
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
    /// same values each time); past 100 times [`crate::Config::analysis_time`] in all, the
    /// remaining moves go unjudged.
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
    pub(super) async fn kick_ai(self: &Arc<Self>, id: &str, entry: &Arc<Entry>) {
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
}
