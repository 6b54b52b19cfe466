//! A timed game's flag: the next deadline of each loaded game timed, and the game ended off
//! the board when it passes; the same end off the board serves the claims and agreements
//! between the players ([`crate::between`]).

use std::sync::Arc;
use std::time::Duration;

use super::live::{Entry, Live};
use super::state::App;
use crate::clock::now_ms;
use crate::response::ApiResult;
use crate::view::Stop;

impl App {
    /// Ends game `id` off the board with `stop` if it still has `plies` moves: stored first
    /// (another server may have moved meanwhile: then this one catches up instead).
    pub(crate) async fn end_off_board(
        self: &Arc<Self>,
        id: &str,
        entry: &Entry,
        live: &mut Live,
        stop: Stop,
    ) -> ApiResult<()> {
        let plies = live.game().moves().len() as u32;
        // The clocks stop as they read now (the flagged side's at nothing).
        let mover = live.game().to_move();
        let moved = live.has_moved(mover);
        let flagged = matches!(stop, Stop::Time(_));
        let clock = live
            .row
            .between
            .clock
            .map(|c| c.stopped(mover, moved, flagged, now_ms()));
        if let Err(e) = self
            .wrote(self.store.set_stopped(id, stop, plies, clock))
            .await
        {
            self.refresh(id, entry, live).await?;
            if !live.over() {
                return Err(e);
            }
            return Ok(());
        }
        live.row.between.stopped = Some(stop);
        live.row.between.offer = None;
        live.row.between.clock = clock;
        live.session.stop(stop);
        self.changed(entry, live);
        Ok(())
    }

    /// Ends game `id` where its clock has run out (a flag, or a first move not made):
    /// before any request acts on it, and when its timer fires. True if it ended.
    pub(crate) async fn flag_if_due(
        self: &Arc<Self>,
        id: &str,
        entry: &Entry,
        live: &mut Live,
    ) -> ApiResult<bool> {
        match live.deadline() {
            Some(d) if now_ms() >= d.at_ms => {
                self.end_off_board(id, entry, live, Live::flag_stop(d))
                    .await?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// Starts a timer for game `id`'s next deadline, tied to the version it was read at: a
    /// newer change starts its own.
    pub(crate) fn time_game(self: &Arc<Self>, id: &str, live: &Live) {
        let Some(d) = live.deadline() else {
            return;
        };
        let (app, id, version) = (self.clone(), id.to_string(), live.version);
        let wait = Duration::from_millis((d.at_ms - now_ms()).max(0) as u64 + 5);
        // At most a day at a time: a correspondence deadline is looked at again then.
        let wait = wait.min(Duration::from_secs(86_400));
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            let Some(entry) = app.cached(&id) else {
                return;
            };
            let mut live = entry.live.lock().await;
            if live.version != version {
                return;
            }
            match app.flag_if_due(&id, &entry, &mut live).await {
                Ok(true) => {}
                // Not yet (a day's wait), or a storage error: look again later.
                _ => app.time_game(&id, &live),
            }
        });
    }
}
