//! What players do in a game: make it, join it, move, take back (against the computer),
//! resign, look at it.

use std::sync::Arc;

use axum::http::StatusCode;
use mancala_core::{Msg, Position, Rules, Side};
use mancala_play::session::UndoError;
use mancala_protocols::kgp::PersonMove;

use super::live::{record_players, Live};
use super::state::App;
use crate::clock::{now_ms, Clock, TimeControl};
use crate::ids::{random_hex, same_secret};
use crate::response::{ApiError, ApiResult, Created, GameView, Joined};
use crate::store::{Between, GameRow, MoveRow};
use crate::view::side_str;

/// What a player asks to play: a pit, 1-based from his left (checked against the board), or
/// the pie rule's swap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveChoice {
    /// A pit, 1 = the mover's leftmost.
    Pit(i64),
    /// The swap (`"pit": "swap"`).
    Swap,
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
    pub clock: Option<TimeControl>,
}

impl App {
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
            between: Between {
                clock: new.clock.filter(|_| new.level.is_none()).map(Clock::new),
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
}
