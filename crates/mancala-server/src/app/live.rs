//! A loaded game: its stored row, its session (moves, the undo rule, the end, the record),
//! its moves' stored facts, and what everyone may see of it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::StatusCode;
use mancala_core::record::Players;
use mancala_core::{Game, Msg, Side};
use mancala_engine::Level;
use mancala_play::player::computer_name;
use mancala_play::session::{self as play_session, End, Session};
use tokio::sync::broadcast;

use crate::clock::{now_ms, Deadline};
use crate::ids::same_secret;
use crate::response::{ApiError, ApiResult, GameView, Player, Seats};
use crate::store::{GameRow, MoveRow};
use crate::view::{self, side_str, AwayView, Stop};

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
    /// ([`crate::config::Config::claim_after`]).
    pub claim_after: Duration,
}

/// A loaded game: its state behind an async mutex and the channel its watchers listen on.
pub struct Entry {
    /// The game's state; hold the lock to read or change it.
    pub live: tokio::sync::Mutex<Live>,
    /// Public state after each change, for WebSocket watchers.
    pub tx: broadcast::Sender<Arc<str>>,
    /// `[south, north]`: connections open here that the seat's player said are his
    /// ([`crate::app::App::presence`]).
    pub present: Mutex<[usize; 2]>,
}

impl Entry {
    /// A game loaded with its moves so far, and no watchers yet.
    pub(super) fn new(row: GameRow, game: Game, info: Vec<MoveRow>) -> Entry {
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

/// The session of the stored game `row` at `game`: the computer's seats at the row's level
/// (its moves chosen on the pool, [`App::ai_turn`]); a person's or a KGP bot's seat takes
/// the moves passed in. A stored resignation or interruption ends it.
pub(super) fn session(row: &GameRow, game: Game) -> Session {
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
pub(super) fn record_players(row: &GameRow) -> Players {
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

fn side_of(k: u8) -> Side {
    if k == 0 {
        Side::South
    } else {
        Side::North
    }
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
    pub fn stop(&self) -> Option<Stop> {
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
            away: away_view(self, now),
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
        rec.time_control = self.row.between.clock.map(|c| c.control);
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

    /// Whether `side` has moved in this game.
    pub(crate) fn has_moved(&self, side: Side) -> bool {
        self.game().moves().iter().any(|m| m.side == side)
    }

    /// What runs out next, if the game is timed, started and live.
    pub(crate) fn deadline(&self) -> Option<Deadline> {
        if self.over() {
            return None;
        }
        let mover = self.game().to_move();
        self.row
            .between
            .clock?
            .deadline(mover, self.has_moved(mover))
    }

    /// How the game ends when its deadline passes.
    pub(super) fn flag_stop(d: Deadline) -> Stop {
        if d.first_move {
            Stop::Cancelled
        } else {
            Stop::Time(d.side)
        }
    }
}

/// A player gone from a live timed game between people: who, since how long, and when
/// his opponent may claim the game.
fn away_view(live: &Live, now: i64) -> Option<AwayView> {
    let timed = live
        .row
        .between
        .clock
        .is_some_and(|c| c.control.real_time());
    if live.over() || !timed {
        return None;
    }
    let (side, since) = Side::BOTH
        .into_iter()
        .find_map(|s| Some((s, live.row.between.away_ms[s.index()]?)))?;
    let gone = (now - since).max(0);
    Some(AwayView {
        side: side_str(side),
        gone_ms: gone,
        claim_in_ms: (live.claim_after.as_millis() as i64 - gone).max(0),
    })
}
