//! What passes between two people in a game: offers (a draw, a takeback, a rematch)
//! accepted or declined by the opponent, a claim against a player who left, and whether each
//! seat's player is connected. The clock's flag is the app's (a timed game ends alike
//! whoever plays it).
//!
//! Every change is stored first, conditionally on the game not having moved meanwhile (on
//! any server of the database), then made in memory and told to the watchers.

use std::sync::Arc;

use axum::http::StatusCode;
use mancala_core::{Msg, Side};
use serde::Serialize;

use crate::app::{App, Entry, Live};
use crate::clock::now_ms;
use crate::ids::random_hex;
use crate::response::{ApiError, ApiResult, GameView};
use crate::view::{side_str, Stop};

pub use crate::offer::{Offer, OfferKind};

/// A player's seat in the rematch.
#[derive(Serialize)]
pub struct RematchSeat {
    /// The rematch's state.
    pub game: GameView,
    /// The seat (the other colour than in the first game).
    pub seat: &'static str,
    /// The seat's token; absent in a game between accounts (the session cookie acts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

fn said(status: StatusCode, key: &'static str) -> ApiError {
    ApiError::said(status, Msg::new(key))
}

impl Live {
    /// Whether a person plays each side (offers and claims are between people).
    fn between_people(&self) -> bool {
        !self.is_ai_game() && !self.row.bots.iter().any(|&b| b) && self.row.invite.is_none()
    }
}

impl App {
    /// The seat of `token` in game `id`, its entry and state, the game brought up to date
    /// (another server's moves, a clock run out) — for the requests of this module.
    async fn seat_in<'a>(
        self: &Arc<Self>,
        id: &str,
        entry: &'a Entry,
        token: Option<&str>,
    ) -> ApiResult<(Side, tokio::sync::MutexGuard<'a, Live>)> {
        let mut live = entry.live.lock().await;
        self.catch_up(id, entry, &mut live).await?;
        let side = live.seat(token)?;
        self.flag_if_due(id, entry, &mut live).await?;
        Ok((side, live))
    }

    /// The seat holding `token` offers `kind` to the opponent: a draw or a takeback in a
    /// live game, a rematch in a finished one. A second offer of the same kind by the
    /// other player accepts the first.
    pub async fn offer(
        self: &Arc<Self>,
        id: &str,
        token: Option<&str>,
        kind: OfferKind,
    ) -> ApiResult<GameView> {
        let entry = self.entry(id).await?;
        let (side, mut live) = self.seat_in(id, &entry, token).await?;
        if live.row.invite.is_some() {
            return Err(said(StatusCode::CONFLICT, "server.offer.no-opponent"));
        }
        if !live.between_people() {
            return Err(said(StatusCode::CONFLICT, "server.offer.people-only"));
        }
        // The opponent's standing offer is answered first: an offer of the same kind accepts
        // it, one of another kind is refused rather than silently putting it aside. A
        // player's own offer is replaced by his next.
        if let Some(o) = live.row.between.offer.filter(|o| o.by != side) {
            if o.kind == kind {
                drop(live);
                return self.answer(id, token, true).await;
            }
            return Err(said(StatusCode::CONFLICT, "server.offer.answer-first"));
        }
        match kind {
            OfferKind::Rematch if !live.over() => {
                return Err(said(StatusCode::CONFLICT, "server.offer.rematch-live"));
            }
            OfferKind::Rematch if live.row.between.rematch.is_some() => {
                return Err(said(StatusCode::CONFLICT, "server.offer.rematch-made"));
            }
            OfferKind::Draw | OfferKind::Takeback if live.over() => {
                return Err(said(StatusCode::CONFLICT, "server.over"));
            }
            OfferKind::Takeback if !live.has_moved(side) => {
                return Err(said(StatusCode::CONFLICT, "server.nothing-to-undo"));
            }
            _ => {}
        }
        let offer = Offer { kind, by: side };
        let plies = live.game().moves().len() as u32;
        if let Err(e) = self
            .wrote(self.store.set_offer(id, Some(offer), plies))
            .await
        {
            self.refresh(id, &entry, &mut live).await?;
            return Err(e);
        }
        live.row.between.offer = Some(offer);
        self.changed(&entry, &mut live);
        Ok(live.view(Some(side)))
    }

    /// The seat holding `token` accepts or declines the opponent's standing offer; an
    /// offerer may withdraw his own by declining it.
    pub async fn answer(
        self: &Arc<Self>,
        id: &str,
        token: Option<&str>,
        accept: bool,
    ) -> ApiResult<GameView> {
        let entry = self.entry(id).await?;
        let (side, mut live) = self.seat_in(id, &entry, token).await?;
        let Some(offer) = live.row.between.offer else {
            return Err(said(StatusCode::CONFLICT, "server.offer.none"));
        };
        if accept && offer.by == side {
            return Err(said(StatusCode::CONFLICT, "server.offer.own"));
        }
        if !accept || offer.by == side {
            let plies = live.game().moves().len() as u32;
            self.wrote(self.store.set_offer(id, None, plies)).await?;
            live.row.between.offer = None;
            self.changed(&entry, &mut live);
            return Ok(live.view(Some(side)));
        }
        match offer.kind {
            OfferKind::Draw => {
                self.end_off_board(id, &entry, &mut live, Stop::Agreed)
                    .await?
            }
            OfferKind::Takeback => {
                let k = live
                    .session
                    .undo_point(offer.by)
                    .map_err(|_| said(StatusCode::CONFLICT, "server.nothing-to-undo"))?;
                // The mover's time runs again from now, as it stood.
                let clock = live.row.between.clock.map(|mut c| {
                    c.at_ms = c.at_ms.map(|_| now_ms());
                    c
                });
                self.wrote(self.store.take_back(id, k as u32, clock))
                    .await?;
                live.session.back_to(k);
                live.info.truncate(k);
                live.row.between.clock = clock;
                live.row.between.offer = None;
                self.changed(&entry, &mut live);
                self.time_game(id, &live);
            }
            OfferKind::Rematch => {
                drop(live);
                self.rematch(id).await?;
                let live = entry.live.lock().await;
                return Ok(live.view(Some(side)));
            }
        }
        Ok(live.view(Some(side)))
    }

    /// Makes the rematch of finished game `id`: seats swapped, same rules, start and clock;
    /// a game between accounts stays one (rated as the first was). Linked once.
    async fn rematch(self: &Arc<Self>, id: &str) -> ApiResult<()> {
        let entry = self.entry(id).await?;
        let mut live = entry.live.lock().await;
        if live.row.between.rematch.is_some() {
            return Ok(());
        }
        let new_id = random_hex(8);
        let mut row = live.row.clone();
        row.id = new_id.clone();
        row.created_ms = now_ms();
        row.tokens =
            [row.tokens[1].take(), row.tokens[0].take()].map(|t| t.map(|_| random_hex(16)));
        row.names = [row.names[1].take(), row.names[0].take()];
        row.resigned = None;
        row.interrupted = false;
        row.between = crate::store::Between {
            clock: row.between.clock.map(|c| {
                let mut c = crate::clock::Clock::new(c.control);
                c.at_ms = Some(now_ms());
                c
            }),
            ..Default::default()
        };
        let start: mancala_core::Position = row
            .start
            .parse()
            .map_err(|e| ApiError::internal(format!("stored start: {e}")))?;
        let account = {
            let store = self.store.clone();
            let gid = id.to_string();
            tokio::task::spawn_blocking(move || crate::ratings::account_game(&store, &gid))
                .await
                .map_err(ApiError::internal)?
                .map_err(ApiError::internal)?
        };
        let new = self.add_new(row, start).await?;
        // Its first move's time runs from now: the timer that ends it if nobody moves.
        {
            let l = new.live.lock().await;
            self.time_game(&new_id, &l);
        }
        if let Some(a) = account {
            // The same accounts, seats swapped.
            let key = crate::ratings::rules_key(live.game().rules());
            let users = [a.users[1], a.users[0]];
            let mut first = true;
            for (side, user) in Side::BOTH.into_iter().zip(users) {
                let Some(u) = user else { continue };
                let write = if first {
                    crate::ratings::add_account_game(&self.store, &new_id, &key, a.rated, side, u)
                } else {
                    crate::ratings::seat_account(&self.store, &new_id, side, u)
                };
                first = false;
                write.done().await.map_err(ApiError::internal)?;
            }
        }
        if let Err(e) = self.wrote(self.store.set_rematch(id, &new_id)).await {
            self.refresh(id, &entry, &mut live).await?;
            return Err(e);
        }
        live.row.between.rematch = Some(new_id.clone());
        live.row.between.offer = None;
        self.changed(&entry, &mut live);
        Ok(())
    }

    /// The seat `token` holds in game `id`'s rematch: the other colour, with its token.
    pub async fn rematch_seat(
        self: &Arc<Self>,
        id: &str,
        token: Option<&str>,
    ) -> ApiResult<RematchSeat> {
        let entry = self.entry(id).await?;
        let (side, live) = self.seat_in(id, &entry, token).await?;
        let Some(new_id) = live.row.between.rematch.clone() else {
            return Err(said(StatusCode::CONFLICT, "server.offer.no-rematch"));
        };
        drop(live);
        let account = {
            let (store, gid) = (self.store.clone(), new_id.clone());
            tokio::task::spawn_blocking(move || crate::ratings::account_game(&store, &gid))
                .await
                .map_err(ApiError::internal)?
                .map_err(ApiError::internal)?
                .is_some()
        };
        let new = self.entry(&new_id).await?;
        let l = new.live.lock().await;
        let seat = side.other();
        let token = l.row.tokens[seat.index()].clone();
        Ok(RematchSeat {
            game: l.view(Some(seat)),
            seat: side_str(seat),
            token: if account { None } else { token },
        })
    }

    /// The seat holding `token` claims game `id` against an opponent who has had no
    /// connection open for [`crate::config::Config::claim_after`] (real-time clocks only).
    pub async fn claim(self: &Arc<Self>, id: &str, token: Option<&str>) -> ApiResult<GameView> {
        let entry = self.entry(id).await?;
        let (side, mut live) = self.seat_in(id, &entry, token).await?;
        if live.over() {
            return Err(said(StatusCode::CONFLICT, "server.over"));
        }
        let timed = live
            .row
            .between
            .clock
            .is_some_and(|c| c.control.real_time());
        if !live.between_people() || !timed {
            return Err(said(StatusCode::CONFLICT, "server.claim.not-here"));
        }
        let them = side.other();
        let after = live.claim_after.as_millis() as i64;
        match live.row.between.away_ms[them.index()] {
            Some(t) if now_ms() - t >= after => {}
            _ => {
                return Err(ApiError::said(
                    StatusCode::CONFLICT,
                    Msg::new("server.claim.too-soon").arg("seconds", after / 1000),
                ))
            }
        }
        self.end_off_board(id, &entry, &mut live, Stop::Abandoned(them))
            .await?;
        Ok(live.view(Some(side)))
    }

    /// The seat `token` holds in game `id`, and a connection of its player opened there.
    pub async fn here(self: &Arc<Self>, id: &str, token: Option<&str>) -> ApiResult<Side> {
        let entry = self.entry(id).await?;
        let side = {
            let mut live = entry.live.lock().await;
            if live.seat(token).is_err() {
                self.catch_up(id, &entry, &mut live).await?;
            }
            live.seat(token)?
        };
        self.presence(id, side, true).await;
        Ok(side)
    }

    /// A connection of seat `side`'s player opened (`here`) or closed in game `id`: the
    /// first to open and the last to close are stored, for claims.
    pub async fn presence(self: &Arc<Self>, id: &str, side: Side, here: bool) {
        let Some(entry) = self.cached(id) else {
            return;
        };
        let k = side.index();
        let first_or_last = {
            let mut p = entry.present.lock().unwrap_or_else(|e| e.into_inner());
            if here {
                p[k] += 1;
                p[k] == 1
            } else {
                p[k] = p[k].saturating_sub(1);
                p[k] == 0
            }
        };
        if !first_or_last {
            return;
        }
        let mut live = entry.live.lock().await;
        let since = (!here).then(now_ms);
        if live.row.between.away_ms[k].is_none() && since.is_none() {
            return;
        }
        if self
            .wrote(self.store.set_away(id, k as u8, since))
            .await
            .is_ok()
        {
            live.row.between.away_ms[k] = since;
            self.changed(&entry, &mut live);
        }
    }
}
