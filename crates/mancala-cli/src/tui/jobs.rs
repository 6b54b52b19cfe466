//! Engine work for the app: the computer's moves, hints, a position's value and every move's
//! value, each asked about a [`Moment`] of the session and run on a background thread (inline
//! under [`App::sync`]); an answer for a moment the game has left is dropped.

use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use mancala_core::Side;
use mancala_engine::{search, think, Budget, Engine, SearchResult};
use mancala_play::session::Moment;

use super::{App, Overlay};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Analysis {
    Hint,
    Value,
    /// Every legal move's value.
    Moves,
}

pub(super) enum JobKind {
    Computer,
    Analysis(Analysis),
}

enum Outcome {
    Move(Option<u8>),
    Search(Option<SearchResult>),
    Values(think::Analysis),
}

/// Engine work in flight, for the moment of the game it was asked about.
pub(super) struct Job {
    pub(super) kind: JobKind,
    moment: Moment,
    rx: Receiver<Outcome>,
}

/// A hint's time: a proof within half of it, else a search within the rest.
pub(super) const HINT_TIME: Duration = Duration::from_secs(2);

impl App {
    pub(super) fn cancel_job(&mut self) {
        self.job = None;
    }

    pub(super) fn start_job(&mut self, kind: JobKind) {
        let moment = self.session.moment();
        let m = moment.clone();
        let (tx, rx) = channel();
        // Budgets are made here, where the request arrives: the table's set-up counts.
        let work: Box<dyn FnOnce() -> Outcome + Send> = match kind {
            JobKind::Computer => {
                let Some(level) = self.session.seat(m.position.to_move()).level() else {
                    return;
                };
                let seed = self.seeds.next_u64();
                Box::new(move || Outcome::Move(m.choose(&level, seed)))
            }
            JobKind::Analysis(Analysis::Hint) => {
                let depth = self.analysis_limits.depth;
                let budget = match self.hint_time {
                    Some(t) => Budget::time(t).with_depth(depth),
                    None => Budget::from(self.analysis_limits),
                };
                Box::new(move || {
                    let engine = Engine::new(16, 1);
                    engine.prefault();
                    Outcome::Search(m.hint(&engine, budget))
                })
            }
            JobKind::Analysis(Analysis::Moves) => {
                // Every move's value and the best line, as `mancala analyze --all-moves` and
                // the web's analysis board give them.
                let budget =
                    Budget::time(self.analysis_limits.time.unwrap_or(Duration::from_secs(1)));
                Box::new(move || Outcome::Values(m.analyse(&Engine::new(16, 1), budget)))
            }
            JobKind::Analysis(_) => {
                let limits = self.analysis_limits;
                Box::new(move || Outcome::Search(search(&m.position, limits, &m.history)))
            }
        };
        let job = Job { kind, moment, rx };
        if self.sync {
            tx.send(work()).ok();
        } else {
            std::thread::spawn(move || {
                tx.send(work()).ok();
            });
        }
        self.job = Some(job);
        self.poll_job();
    }

    pub(super) fn poll_job(&mut self) {
        let Some(job) = &self.job else { return };
        let Ok(result) = job.rx.try_recv() else {
            return;
        };
        let job = self.job.take().expect("a job");
        // Stale: the game moved on (undo, new game) while the engine worked.
        if !self.session.is_at(&job.moment) {
            return;
        }
        match (job.kind, result) {
            (JobKind::Computer, Outcome::Move(Some(pit))) => {
                if let Err(e) = self.play(pit) {
                    self.message = self.tf("tui.msg.computer-failed", &[("error", &self.said(&e))]);
                }
            }
            (JobKind::Analysis(a), Outcome::Search(Some(r))) => self.show_analysis(a, &r),
            (JobKind::Analysis(_), Outcome::Values(a)) => self.show_values(&a),
            _ => {}
        }
    }

    /// The values of every legal move in a window, best first, each with what it gives away
    /// against the best; the best move becomes the hint.
    fn show_values(&mut self, a: &think::Analysis) {
        let side = self.game().to_move();
        let n = self.notation();
        if let Some(b) = a.best {
            self.hint = Some(b.pit);
        }
        let lines = a
            .moves
            .iter()
            .map(|v| {
                let loss = match a.loss(v.pit) {
                    Some(0) => String::new(),
                    Some(l) => self.tf("tui.msg.gives-away", &[("n", &l)]),
                    None => String::new(),
                };
                format!(
                    "{}  {}{loss}",
                    n.move_text(side, v.pit),
                    v.eval.text_in(self.lang)
                )
            })
            .collect();
        self.engine_line = None;
        self.overlay = Some(Overlay::Values(lines));
    }

    fn show_analysis(&mut self, a: Analysis, r: &SearchResult) {
        let pos = *self.game().position();
        let side = pos.to_move();
        let n = self.notation();
        let best = n.move_text(side, r.best);
        let value = r.eval.text_in(self.lang);
        match a {
            Analysis::Hint => {
                if self.players()[side.index()].is_human() {
                    self.cursor = r.best;
                }
                self.hint = Some(r.best);
                self.engine_line =
                    Some(self.tf("tui.msg.hint", &[("move", &best), ("value", &value)]));
            }
            Analysis::Moves => {}
            Analysis::Value => {
                // The principal variation in the game's notation, turns joined by `-`.
                let mut p = pos;
                let mut line = String::new();
                let mut last: Option<Side> = None;
                for &pit in r.pv.iter().take(12) {
                    let s = p.to_move();
                    if p.play(pit).is_err() {
                        break;
                    }
                    if last == Some(s) {
                        line.push('-');
                    } else if last.is_some() {
                        line.push(' ');
                    }
                    line.push_str(&n.move_text(s, pit));
                    last = Some(s);
                }
                self.engine_line =
                    Some(self.tf("tui.msg.value", &[("value", &value), ("line", &line)]));
            }
        }
    }
}
