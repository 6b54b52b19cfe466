//! `mancala tui`: full-screen play (ratatui) of every preset, against the computer or between
//! two people at one keyboard, with an animated sowing, the move list, hints, undo/redo,
//! records and a replay mode.
//!
//! [`App`] drives the game [`Session`] (seats, undo and redo, the end, the record) and holds
//! what the screen needs beside it; it reacts to keys ([`App::on_key`]) and to time
//! ([`App::tick`]); [`view`] draws it. Engine work (the computer's moves, hints, values) runs
//! on a background thread about a [`Moment`] of the session, through the engine's `think`
//! policies, so the screen stays live; tests set [`App::sync`] to run it inline.
//! The terminal is restored on exit, on Ctrl-C (a key in raw mode) and on panic (ratatui's
//! panic hook, plus a guard for early returns).

mod anim;
#[cfg(test)]
mod tests;
mod view;

use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use mancala_core::i18n::{self, Lang};
use mancala_core::notation::{self, Notation};
use mancala_core::record::Players;
use mancala_core::{Game, Position, Preset, Record, Rules, Side};
use mancala_engine::{search, think, Budget, Engine, Level, Limits, SearchResult};
use mancala_play::session::{Moment, Seat, Session};
use mancala_play::{Besides, Rng};
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

pub use anim::Frame;

use crate::RulesArgs;

#[derive(Args, Debug)]
pub struct TuiArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    #[command(flatten)]
    pub lang: crate::LangArg,
    /// Who plays South (the first player): `human` or a computer level 1-8.
    #[arg(long, default_value = "human")]
    pub south: String,
    /// Who plays North: `human` or a computer level 1-8.
    #[arg(long, default_value = "3")]
    pub north: String,
    /// Start from this position string instead of the start.
    #[arg(long)]
    pub position: Option<String>,
    /// Open this record (text or JSON) at the start.
    #[arg(long)]
    pub load: Option<String>,
    /// Seed for the computer's random choices (lower levels).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Milliseconds per piece in the sowing animation, 0 (no animation) to 5000.
    #[arg(long, default_value_t = 90, value_parser = clap::value_parser!(u64).range(0..=5000))]
    pub speed: u64,
}

pub use mancala_play::Player;

/// How the status line names a player: `human`, `computer, level N`.
fn label(p: &Player, lang: Lang) -> String {
    match p {
        Player::Engine(l) => i18n::format(lang, "tui.computer-level", &[("level", &l.level)]),
        other => other.name(),
    }
}

/// 0 = human, 1-8 = level: the setup screen's index of a player.
fn setup_index(p: &Player) -> usize {
    match p {
        Player::Engine(l) => l.level as usize,
        _ => 0,
    }
}

/// The player at the setup screen's index.
fn setup_player(i: usize) -> Player {
    Level::new(i as u8).map_or(Player::Human, Player::Engine)
}

/// What a text prompt asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromptKind {
    Save,
    /// The file to save to exists (its path is the input): y replaces it, n asks for
    /// another name, Esc cancels.
    Overwrite,
    Load,
    Jump,
}

/// Moves whose events the screen keeps.
const EVENTS_KEPT: usize = 3;

/// A window over the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Overlay {
    /// The keys, scrolled down this many lines (a short terminal shows part at a time).
    Help(u16),
    Prompt {
        kind: PromptKind,
        input: String,
    },
    Setup(Setup),
    /// Every legal move's value (the `m` key): one line a move, best first.
    Values(Vec<String>),
}

/// The new-game screen: a game and both players.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// 0: game, 1: South, 2: North, 3: start.
    pub field: usize,
    pub choices: Vec<Rules>,
    pub choice: usize,
    /// 0 = human, 1-8 = computer level.
    pub players: [usize; 2],
    /// A game is in progress: Enter asks to be pressed again before it is discarded.
    pub discards: bool,
    /// Enter was pressed once over a game in progress.
    pub confirm: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Analysis {
    Hint,
    Value,
    /// Every legal move's value.
    Moves,
}

enum JobKind {
    Computer,
    Analysis(Analysis),
}

enum Outcome {
    Move(Option<u8>),
    Search(Option<SearchResult>),
    Values(think::Analysis),
}

/// Engine work in flight, for the moment of the game it was asked about.
struct Job {
    kind: JobKind,
    moment: Moment,
    rx: Receiver<Outcome>,
}

/// A sowing being shown.
pub struct Anim {
    pub frames: Vec<Frame>,
    pub idx: usize,
    step: Duration,
    next: Instant,
}

pub struct App {
    /// The language of its words (`--lang`).
    pub lang: Lang,
    /// The game, its seats, undo and redo.
    pub session: Session,
    /// The side drawn at the bottom.
    pub bottom: Side,
    /// The pit (of the side to move) a human would sow with Enter.
    pub cursor: u8,
    /// Replay mode: the ply shown (0 = start).
    pub replay: Option<usize>,
    pub overlay: Option<Overlay>,
    pub anim: Option<Anim>,
    pub message: String,
    /// What the last moves did (captures, extra turns, passes, the end), oldest first, so
    /// that a player's own move stays in view when the computer answers.
    pub events: Vec<String>,
    /// q was pressed once over a game in progress: a second q quits.
    pub quit_armed: bool,
    /// The players' names of an opened record (shown beside their sides).
    pub names: [Option<String>; 2],
    pub engine_line: Option<String>,
    /// A pit the engine suggested, for the side to move.
    pub hint: Option<u8>,
    job: Option<Job>,
    /// Run engine work inline (tests).
    pub sync: bool,
    pub speed_ms: u64,
    /// What a value (the `v` key) may spend, and the depth a hint searches to.
    pub analysis_limits: Limits,
    /// What a hint may spend ([`think::hint`]): a proof within half of it, else a search
    /// (to the depth of `analysis_limits`) within the rest; `None`: a search alone.
    pub hint_time: Option<Duration>,
    /// The per-move seeds of the computer's random choices.
    seeds: Rng,
    pub quit: bool,
    /// The last file saved or loaded, offered again.
    pub file: Option<String>,
}

impl App {
    pub fn new(game: Game, players: [Player; 2], seed: u64) -> App {
        let mut app = App {
            lang: Lang::En,
            session: session(game, players),
            bottom: Side::South,
            cursor: 0,
            replay: None,
            overlay: None,
            anim: None,
            message: String::new(),
            events: Vec::new(),
            names: [None, None],
            quit_armed: false,
            engine_line: None,
            hint: None,
            job: None,
            sync: false,
            speed_ms: 90,
            analysis_limits: Limits {
                depth: Some(14),
                time: Some(Duration::from_millis(1500)),
                nodes: None,
            },
            hint_time: Some(HINT_TIME),
            seeds: Rng::lcg(seed),
            quit: false,
            file: None,
        };
        app.bottom = app.natural_bottom();
        app.fix_cursor();
        app.set_lang(Lang::En);
        app
    }

    /// The game so far.
    pub fn game(&self) -> &Game {
        self.session.game()
    }

    /// Who plays each side, South first.
    pub fn players(&self) -> [Player; 2] {
        Side::BOTH.map(|s| {
            self.session
                .seat(s)
                .level()
                .map_or(Player::Human, Player::Engine)
        })
    }

    /// Speaks `lang` from now on (and says again what the game is, in it).
    pub fn set_lang(&mut self, lang: Lang) {
        self.lang = lang;
        self.message = self.tf(
            "tui.welcome",
            &[
                ("rules", self.game().rules()),
                ("summary", &self.game().rules().preset.summary_in(lang)),
            ],
        );
    }

    /// The words of `key` in the app's language.
    pub fn tr(&self, key: &str) -> &'static str {
        i18n::text(self.lang, key)
    }

    /// The words of `key` with its placeholders filled.
    pub fn tf(&self, key: &str, args: &[(&str, &dyn std::fmt::Display)]) -> String {
        i18n::format(self.lang, key, args)
    }

    /// An error in the app's language (see [`crate::error_in`]).
    pub fn said(&self, e: &anyhow::Error) -> String {
        crate::error_in(e, self.lang)
    }

    /// A side's name (`South`, `Sul`, `Sur`, `Sud`).
    pub fn side(&self, side: Side) -> &'static str {
        self.tr(if side == Side::South {
            "side.south"
        } else {
            "side.north"
        })
    }

    /// A lone human sits at the bottom; otherwise South does.
    fn natural_bottom(&self) -> Side {
        match self.players() {
            [Player::Engine(_), Player::Human] => Side::North,
            _ => Side::South,
        }
    }

    pub fn notation(&self) -> Notation {
        Notation::for_rules(self.game().rules())
    }

    /// The position shown: the replayed ply, or now.
    pub fn shown_position(&self) -> &Position {
        match self.replay {
            Some(k) => self.game().position_at(k).unwrap_or(self.game().position()),
            None => self.game().position(),
        }
    }

    /// A human may sow now (live game, his turn, nothing in the way).
    pub fn human_to_move(&self) -> bool {
        !self.game().is_over()
            && self.replay.is_none()
            && self.players()[self.game().to_move().index()].is_human()
    }

    fn computer_to_move(&self) -> bool {
        !self.game().is_over()
            && self.replay.is_none()
            && self.overlay.is_none()
            && !self.players()[self.game().to_move().index()].is_human()
    }

    pub fn thinking(&self) -> Option<&'static str> {
        self.job.as_ref().map(|j| match j.kind {
            JobKind::Computer => "thinking",
            JobKind::Analysis(_) => "analysing",
        })
    }

    pub fn player_label(&self, side: Side) -> String {
        let word = self.side(side);
        if let Some(name) = &self.names[side.index()] {
            return self.tf("tui.player.named", &[("side", &word), ("name", name)]);
        }
        match self.players()[side.index()] {
            Player::Human if self.players().iter().all(|p| p.is_human()) => {
                self.tf("tui.player.human", &[("side", &word)])
            }
            Player::Human => self.tf("tui.player.you", &[("side", &word)]),
            p => self.tf(
                "tui.player.other",
                &[("side", &word), ("who", &label(&p, self.lang))],
            ),
        }
    }

    /// Keeps the cursor on a legal pit of the side to move.
    fn fix_cursor(&mut self) {
        let legal = self.game().legal_moves();
        if !legal.contains(self.cursor) {
            // A pit: the swap (the `w` key) is not on the board.
            if let Some(&p) = legal.as_slice().iter().find(|&&p| p != mancala_core::SWAP) {
                self.cursor = p;
            }
        }
    }

    /// Moves the cursor to the next legal pit to the left (`dir` = -1) or right on screen.
    fn move_cursor(&mut self, dir: i32) {
        let legal = self.game().legal_moves();
        if legal.is_empty() {
            return;
        }
        // The bottom row reads pit 0 at the left; the top row is turned round.
        let dir = if self.game().to_move() == self.bottom {
            dir
        } else {
            -dir
        };
        let m = self.game().position().pits() as i32;
        let mut p = self.cursor as i32;
        for _ in 0..m {
            p += dir;
            if p < 0 || p >= m {
                return;
            }
            if legal.contains(p as u8) {
                self.cursor = p as u8;
                return;
            }
        }
    }

    /// Plays `pit` for the side to move, animated.
    fn play(&mut self, pit: u8) -> Result<()> {
        let before = *self.game().position();
        let side = before.to_move();
        let effect = self.session.play(pit)?;
        self.hint = None;
        self.engine_line = None;
        let text = self.notation().move_text(side, pit);
        let (me, them) = (self.side(side), self.side(side.other()));
        let mut msg = if pit == mancala_core::SWAP {
            self.tf("tui.ev.swap", &[("side", &me), ("other", &them)])
        } else {
            self.tf("tui.ev.sowed", &[("side", &me), ("move", &text)])
        };
        if effect.captured > 0 {
            msg += &self.tf("tui.ev.captured", &[("n", &effect.captured)]);
        }
        if effect.handed > 0 {
            msg += &self.tf("tui.ev.handed", &[("n", &effect.handed), ("side", &them)]);
        }
        if effect.again && !self.game().is_over() {
            msg += self.tr(if effect.in_store {
                "tui.ev.again"
            } else {
                "tui.ev.pass"
            });
        }
        if self.game().is_over() {
            msg = format!(
                "{msg} {}",
                crate::board::result_line_in(self.game(), self.lang)
            );
        }
        self.events.push(msg.clone());
        if self.events.len() > EVENTS_KEPT {
            self.events.remove(0);
        }
        self.message = msg;
        if self.speed_ms > 0 {
            let frames = anim::sowing(&before, pit, self.game().position());
            let step = Duration::from_millis(self.speed_ms.min(2500 / frames.len().max(1) as u64));
            self.anim = Some(Anim {
                frames,
                idx: 0,
                step,
                next: Instant::now() + step,
            });
        }
        self.fix_cursor();
        Ok(())
    }

    /// The frame to draw while a sowing is shown.
    pub fn frame(&self) -> Option<&Frame> {
        self.anim.as_ref().map(|a| &a.frames[a.idx])
    }

    fn skip_anim(&mut self) -> bool {
        self.anim.take().is_some()
    }

    fn cancel_job(&mut self) {
        self.job = None;
    }

    /// Takes back the last person's last move and every move after it (the one undo rule,
    /// [`Session::undo_last`]); between two computers, one move.
    fn undo(&mut self) {
        self.skip_anim();
        self.cancel_job();
        let Ok(n) = self.session.undo_last() else {
            self.message = self.tr("tui.msg.no-undo").into();
            return;
        };
        self.hint = None;
        self.engine_line = None;
        self.message = self.tf(
            if n == 1 {
                "tui.msg.undone.one"
            } else {
                "tui.msg.undone.other"
            },
            &[("n", &n)],
        );
        self.fix_cursor();
    }

    /// Replays undone plies up to the next human decision ([`Session::redo`]).
    fn redo(&mut self) {
        self.skip_anim();
        self.cancel_job();
        if !self.session.can_redo() {
            self.message = self.tr("tui.msg.no-redo").into();
            return;
        }
        let n = self.session.redo();
        self.hint = None;
        self.engine_line = None;
        self.message = self.tf(
            if n == 1 {
                "tui.msg.redone.one"
            } else {
                "tui.msg.redone.other"
            },
            &[("n", &n)],
        );
        self.fix_cursor();
    }

    fn start_job(&mut self, kind: JobKind) {
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

    fn poll_job(&mut self) {
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

    /// Advances the animation, collects engine results and starts the computer's move.
    pub fn tick(&mut self, now: Instant) {
        if let Some(a) = &mut self.anim {
            while now >= a.next {
                a.idx += 1;
                a.next += a.step;
                if a.idx + 1 >= a.frames.len() {
                    break;
                }
            }
            if a.idx + 1 >= a.frames.len() {
                self.anim = None;
            }
        }
        self.poll_job();
        if self.anim.is_none() && self.job.is_none() && self.computer_to_move() {
            self.start_job(JobKind::Computer);
        }
    }

    /// How long the event loop may wait for a key before [`App::tick`] has work.
    pub fn wait(&self, now: Instant) -> Duration {
        if let Some(a) = &self.anim {
            return a.next.saturating_duration_since(now);
        }
        if self.job.is_some() {
            return Duration::from_millis(20);
        }
        if self.computer_to_move() {
            return Duration::ZERO;
        }
        Duration::from_millis(500)
    }

    pub fn on_key(&mut self, k: KeyEvent) {
        if k.kind == KeyEventKind::Release {
            return;
        }
        if k.modifiers.contains(KeyModifiers::CONTROL) && k.code == KeyCode::Char('c') {
            self.quit = true;
            return;
        }
        // Any key ends the sowing shown; Space and Esc do only that.
        if self.skip_anim() && matches!(k.code, KeyCode::Char(' ') | KeyCode::Esc) {
            return;
        }
        match self.overlay.take() {
            Some(Overlay::Help(top)) => {
                let top = match k.code {
                    KeyCode::Esc | KeyCode::Char('?') | KeyCode::Char('q') | KeyCode::Enter => {
                        return
                    }
                    KeyCode::Down | KeyCode::Char('j') => top.saturating_add(1),
                    KeyCode::Up | KeyCode::Char('k') => top.saturating_sub(1),
                    KeyCode::PageDown | KeyCode::Char(' ') => top.saturating_add(10),
                    KeyCode::PageUp => top.saturating_sub(10),
                    KeyCode::Home => 0,
                    KeyCode::End => u16::MAX,
                    _ => top,
                };
                // The view keeps the last line at the bottom; so does the offset here.
                self.overlay = Some(Overlay::Help(top.min(view::help_lines() as u16)));
            }
            Some(Overlay::Prompt { kind, input }) => self.prompt_key(kind, input, k),
            Some(Overlay::Setup(s)) => self.setup_key(s, k),
            // Any key closes the values; the window is a look, not a mode.
            Some(Overlay::Values(_)) => {}
            None if self.replay.is_some() => self.replay_key(k),
            None => self.play_key(k),
        }
    }

    fn play_key(&mut self, k: KeyEvent) {
        let armed = std::mem::take(&mut self.quit_armed);
        match k.code {
            KeyCode::Char('q') if armed || !self.in_progress() => self.quit = true,
            KeyCode::Char('q') => {
                self.quit_armed = true;
                self.message = self.tr("tui.msg.quit-confirm").into();
            }
            KeyCode::Char('?') | KeyCode::F(1) => self.overlay = Some(Overlay::Help(0)),
            KeyCode::Left => self.move_cursor(-1),
            KeyCode::Right => self.move_cursor(1),
            KeyCode::Enter | KeyCode::Char(' ') => {
                if self.human_to_move() {
                    let pit = self.cursor;
                    if let Err(e) = self.play(pit) {
                        self.message = self.said(&e);
                    }
                } else if self.game().is_over() {
                    self.message = self.tr("tui.msg.over-new").into();
                }
            }
            KeyCode::Char(c @ '1'..='9') => {
                let pit = c as u8 - b'1';
                if !self.human_to_move() {
                    self.message = self.tr("tui.msg.not-your-turn").into();
                } else if let Err(e) = self.play(pit) {
                    self.message = self.said(&e);
                } else {
                    self.cursor = pit;
                    self.fix_cursor();
                }
            }
            KeyCode::Char('w') => {
                // The pie rule's swap; the game says why where it is not legal.
                if !self.human_to_move() {
                    self.message = self.tr("tui.msg.not-your-turn").into();
                } else if let Err(e) = self.play(mancala_core::SWAP) {
                    self.message = self.said(&e);
                }
            }
            KeyCode::Char('u') => self.undo(),
            KeyCode::Char('r') => self.redo(),
            KeyCode::Char('h') | KeyCode::Char('v') | KeyCode::Char('m') => {
                if self.game().is_over() {
                    self.message = self.tr("tui.msg.over").into();
                } else {
                    let a = match k.code {
                        KeyCode::Char('h') => Analysis::Hint,
                        KeyCode::Char('v') => Analysis::Value,
                        _ => Analysis::Moves,
                    };
                    self.cancel_job();
                    self.engine_line = Some(self.tr("tui.msg.searching").into());
                    self.start_job(JobKind::Analysis(a));
                }
            }
            KeyCode::Char('s') => {
                self.overlay = Some(Overlay::Prompt {
                    kind: PromptKind::Save,
                    input: self
                        .file
                        .clone()
                        .unwrap_or_else(|| format!("{}-game.txt", self.game().rules().preset)),
                })
            }
            KeyCode::Char('o') | KeyCode::Char('l') => {
                self.overlay = Some(Overlay::Prompt {
                    kind: PromptKind::Load,
                    input: self.file.clone().unwrap_or_default(),
                })
            }
            KeyCode::Char('p') => {
                self.cancel_job();
                self.replay = Some(self.game().moves().len());
                self.message = self.tr("tui.msg.replay").into();
            }
            KeyCode::Char('n') => self.overlay = Some(Overlay::Setup(self.setup())),
            KeyCode::Char('f') => self.bottom = self.bottom.other(),
            KeyCode::Esc => {
                self.message.clear();
                self.engine_line = None;
            }
            _ => {}
        }
    }

    fn replay_key(&mut self, k: KeyEvent) {
        let len = self.game().moves().len();
        let Some(at) = self.replay else { return };
        match k.code {
            KeyCode::Char('q') => self.quit = true,
            KeyCode::Char('?') | KeyCode::F(1) => self.overlay = Some(Overlay::Help(0)),
            KeyCode::Left => self.replay = Some(at.saturating_sub(1)),
            KeyCode::Right => self.replay = Some((at + 1).min(len)),
            KeyCode::Up | KeyCode::PageUp => self.replay = Some(self.turn_start_before(at)),
            KeyCode::Down | KeyCode::PageDown => self.replay = Some(self.turn_end_after(at)),
            KeyCode::Home => self.replay = Some(0),
            KeyCode::End => self.replay = Some(len),
            KeyCode::Char('g') | KeyCode::Char('j') => {
                self.overlay = Some(Overlay::Prompt {
                    kind: PromptKind::Jump,
                    input: String::new(),
                })
            }
            KeyCode::Enter => {
                self.session.back_to(at);
                self.replay = None;
                self.message = if self.session.can_redo() {
                    let n = self.session.redo_len();
                    self.tf("tui.msg.play-on", &[("at", &at), ("n", &n)])
                } else {
                    self.tr("tui.msg.back").into()
                };
                self.fix_cursor();
            }
            KeyCode::Esc | KeyCode::Char('p') => {
                self.replay = None;
                self.message = self.tr("tui.msg.back").into();
            }
            // Save, open, new game and turning the board work here too.
            KeyCode::Char('s' | 'o' | 'l' | 'n' | 'f') => self.play_key(k),
            _ => {}
        }
    }

    /// Ply boundaries of the turns: the plies at which each turn starts, and the end.
    fn turn_bounds(&self) -> Vec<usize> {
        let mut b = vec![0];
        let mut k = 0;
        for (_, moves) in self.game().turns() {
            k += moves.len();
            b.push(k);
        }
        b
    }

    fn turn_start_before(&self, at: usize) -> usize {
        self.turn_bounds()
            .into_iter()
            .rev()
            .find(|&b| b < at)
            .unwrap_or(0)
    }

    fn turn_end_after(&self, at: usize) -> usize {
        self.turn_bounds()
            .into_iter()
            .find(|&b| b > at)
            .unwrap_or(self.game().moves().len())
    }

    fn prompt_key(&mut self, kind: PromptKind, mut input: String, k: KeyEvent) {
        if kind == PromptKind::Overwrite {
            return self.overwrite_key(input, k);
        }
        match k.code {
            KeyCode::Esc => return,
            KeyCode::Enter => {
                let text = input.trim().to_string();
                match kind {
                    PromptKind::Save if std::path::Path::new(&text).exists() => {
                        self.overlay = Some(Overlay::Prompt {
                            kind: PromptKind::Overwrite,
                            input: text,
                        })
                    }
                    PromptKind::Save | PromptKind::Overwrite => self.save_message(&text),
                    PromptKind::Load => match self.load(&text, None) {
                        Ok(()) => {}
                        Err(e) => {
                            self.message =
                                self.tf("tui.msg.open-failed", &[("error", &self.said(&e))])
                        }
                    },
                    PromptKind::Jump => match text.parse::<usize>() {
                        Ok(n) if n >= 1 => {
                            // Line n of the move list: the first player's turn there.
                            let b = self.turn_bounds();
                            let first_north =
                                self.game().turns().first().map(|t| t.0) == Some(Side::North);
                            let turn = (2 * (n - 1)).saturating_sub(first_north as usize);
                            let at = b.get(turn).copied().unwrap_or(self.game().moves().len());
                            self.replay = Some(at);
                        }
                        _ => self.message = self.tf("tui.msg.no-line", &[("text", &text)]),
                    },
                }
                return;
            }
            KeyCode::Backspace => {
                input.pop();
            }
            KeyCode::Char(c) if !k.modifiers.contains(KeyModifiers::CONTROL) => input.push(c),
            _ => {}
        }
        self.overlay = Some(Overlay::Prompt { kind, input });
    }

    /// The answer to "replace `path`?".
    fn overwrite_key(&mut self, path: String, k: KeyEvent) {
        match k.code {
            KeyCode::Char('y' | 'Y') => self.save_message(&path),
            KeyCode::Char('n' | 'N') => {
                self.overlay = Some(Overlay::Prompt {
                    kind: PromptKind::Save,
                    input: path,
                })
            }
            KeyCode::Esc => self.message = self.tf("tui.msg.unchanged", &[("path", &path)]),
            _ => {
                self.overlay = Some(Overlay::Prompt {
                    kind: PromptKind::Overwrite,
                    input: path,
                })
            }
        }
    }

    /// Saves to `path` and says how it went.
    fn save_message(&mut self, path: &str) {
        self.message = match self.save(path) {
            Ok(()) => self.tf("play.saved", &[("path", &path)]),
            Err(e) => self.tf("play.save-failed", &[("error", &format!("{e:#}"))]),
        };
    }

    /// A game with moves that has not ended: leaving it discards something.
    fn in_progress(&self) -> bool {
        !self.game().moves().is_empty() && !self.game().is_over()
    }

    fn setup(&self) -> Setup {
        let current = *self.game().rules();
        let mut choices: Vec<Rules> = Preset::ALL.iter().map(|p| p.rules()).collect();
        if !choices.contains(&current) {
            choices.insert(0, current);
        }
        Setup {
            field: 0,
            choice: choices.iter().position(|r| *r == current).unwrap_or(0),
            choices,
            players: [
                setup_index(&self.players()[0]),
                setup_index(&self.players()[1]),
            ],
            discards: self.in_progress(),
            confirm: false,
        }
    }

    fn setup_key(&mut self, mut s: Setup, k: KeyEvent) {
        let step = |v: usize, n: usize, d: i32| ((v as i32 + d).rem_euclid(n as i32)) as usize;
        match k.code {
            KeyCode::Esc => return,
            KeyCode::Up => s.field = s.field.saturating_sub(1),
            KeyCode::Down | KeyCode::Tab => s.field = (s.field + 1).min(3),
            KeyCode::Left | KeyCode::Right => {
                let d = if k.code == KeyCode::Left { -1 } else { 1 };
                match s.field {
                    0 => s.choice = step(s.choice, s.choices.len(), d),
                    1 | 2 => s.players[s.field - 1] = step(s.players[s.field - 1], 9, d),
                    _ => {}
                }
            }
            KeyCode::Enter if s.discards && !s.confirm => s.confirm = true,
            KeyCode::Enter => {
                let rules = s.choices[s.choice];
                match Game::from_rules(&rules) {
                    Ok(game) => {
                        let players = s.players.map(setup_player);
                        self.new_game(game, players);
                    }
                    Err(e) => self.message = e.text_in(self.lang),
                }
                return;
            }
            // q cancels here, as Esc does; it quits only from the game.
            KeyCode::Char('q') => return,
            _ => {}
        }
        if k.code != KeyCode::Enter {
            s.confirm = false;
        }
        self.overlay = Some(Overlay::Setup(s));
    }

    fn new_game(&mut self, game: Game, players: [Player; 2]) {
        self.cancel_job();
        self.skip_anim();
        self.session = session(game, players);
        self.replay = None;
        self.hint = None;
        self.engine_line = None;
        self.events.clear();
        self.names = [None, None];
        self.bottom = self.natural_bottom();
        self.cursor = 0;
        self.fix_cursor();
        self.message = self.tf(
            "tui.msg.new-game",
            &[
                ("rules", self.game().rules()),
                ("south", &label(&self.players()[0], self.lang)),
                ("north", &label(&self.players()[1], self.lang)),
            ],
        );
    }

    fn record(&self) -> Record {
        self.session.record()
    }

    pub fn save(&mut self, path: &str) -> Result<()> {
        if path.is_empty() {
            bail!("give a file name");
        }
        let rec = self.record();
        let text = if path.ends_with(".json") {
            serde_json::to_string_pretty(&rec)? + "\n"
        } else {
            rec.to_text()?
        };
        std::fs::write(path, text).with_context(|| format!("writing {path}"))?;
        self.file = Some(path.to_string());
        Ok(())
    }

    /// Opens the record at `path`; `rules`, when given, are its rules where it names none
    /// and must be its rules where it does (as for `replay`).
    pub fn load(&mut self, path: &str, rules: Option<Rules>) -> Result<()> {
        // A record whose annotations or score disagree with its moves opens anyway (as
        // `--lenient` elsewhere), and the message says where.
        let (rec, game, note) = crate::input::load_record_noting(path, rules)?;
        let players = self.players();
        self.new_game(game, players);
        self.names = [rec.players.south.clone(), rec.players.north.clone()];
        // A loaded game opens at its end, in replay mode, so nobody moves by surprise.
        self.replay = Some(self.game().moves().len());
        self.file = Some(path.to_string());
        let who = match &self.names {
            [None, None] => String::new(),
            [s, n] => self.tf(
                "tui.msg.who",
                &[
                    ("south", &s.as_deref().unwrap_or(self.side(Side::South))),
                    ("north", &n.as_deref().unwrap_or(self.side(Side::North))),
                ],
            ),
        };
        let result = match rec.result.as_ref().and_then(|r| r.reason.clone()) {
            Some(reason) if !self.game().is_over() => {
                let s = self.game().scores();
                let score = self.tf("result.line.score", &[("south", &s[0]), ("north", &s[1])]);
                format!("{reason}, {score}")
            }
            _ => crate::board::result_line_in(self.game(), self.lang),
        };
        self.message = self.tf(
            "tui.msg.opened",
            &[
                ("path", &path),
                ("who", &who),
                ("n", &self.game().moves().len()),
                ("game", &self.game().rules().title_in(self.lang)),
                ("result", &result),
            ],
        );
        if let Some(e) = note {
            self.message += &self.tf("tui.msg.note", &[("note", &format!("{e:#}"))]);
        }
        Ok(())
    }

    /// The move list's line number (as the notation numbers it) of the turn holding ply `k`
    /// (1-based: the `k`-th move); `None` for the start.
    pub fn line_of_move(&self, k: usize) -> Option<usize> {
        let turns = self.game().turns();
        let first_north = usize::from(turns.first().is_some_and(|t| t.0 == Side::North));
        let mut ply = 0;
        for (i, t) in turns.iter().enumerate() {
            ply += t.1.len();
            if k >= 1 && k <= ply {
                return Some((i + first_north) / 2 + 1);
            }
        }
        None
    }

    /// The game so far, numbered as the notation writes it, one line per move number where
    /// it fits in `width` (else more, every turn whole), and the index of the (first) line
    /// holding ply `at` (the last ply played before it).
    pub fn move_lines(&self, at: usize, width: usize) -> (Vec<String>, Option<usize>) {
        let n = self.notation();
        let turns = self.game().turns();
        let mut lines = Vec::new();
        let mut current = None;
        let mut ply = 0;
        let mut k = 0;
        let mut number = 1;
        // A move pair: `  1. a        b` where both fit, else each turn on lines of its own,
        // long turns broken after a `-`, so that no turn is ever cut off.
        let push = |lines: &mut Vec<String>, number: usize, a: &str, b: Option<&str>| {
            let head = format!("{number:>3}. ");
            let room = width.saturating_sub(head.len()).max(8);
            let one = match b {
                Some(b) => format!("{a:<8} {b}"),
                None => a.to_string(),
            };
            if one.chars().count() <= room {
                lines.push(format!("{head}{one}"));
                return;
            }
            let pad = " ".repeat(head.len());
            let mut first = true;
            for t in std::iter::once(a).chain(b) {
                for piece in wrap_turn(t, room) {
                    lines.push(format!("{}{piece}", if first { &head } else { &pad }));
                    first = false;
                }
            }
        };
        if turns.first().is_some_and(|t| t.0 == Side::North) {
            ply += turns[0].1.len();
            let b = notation::turn_text(n, Side::North, &turns[0].1);
            if at >= 1 && at <= ply {
                current = Some(0);
            }
            push(&mut lines, number, "...", Some(&b));
            number += 1;
            k = 1;
        }
        while k < turns.len() {
            let first_start = ply;
            let a = notation::turn_text(n, turns[k].0, &turns[k].1);
            ply += turns[k].1.len();
            let b = turns.get(k + 1).map(|t| {
                ply += t.1.len();
                notation::turn_text(n, t.0, &t.1)
            });
            if at > first_start && at <= ply {
                current = Some(lines.len());
            }
            push(&mut lines, number, &a, b.as_deref());
            number += 1;
            k += 2;
        }
        (lines, current)
    }
}

/// A turn's text in pieces of at most `room` characters, broken after a `-` between moves
/// where one is near (else anywhere).
fn wrap_turn(t: &str, room: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest: Vec<char> = t.chars().collect();
    while rest.len() > room {
        let cut = rest[..room]
            .iter()
            .rposition(|&c| c == '-' || c == ' ')
            .map(|i| i + 1)
            .filter(|&i| i > room / 3)
            .unwrap_or(room);
        out.push(
            rest[..cut]
                .iter()
                .collect::<String>()
                .trim_end()
                .to_string(),
        );
        rest.drain(..cut);
    }
    out.push(rest.into_iter().collect());
    out
}

/// A hint's time: a proof within half of it, else a search within the rest.
const HINT_TIME: Duration = Duration::from_secs(2);

/// The session of `game` between `players` (a person, or the computer at a level whose moves
/// the app's thread chooses), named in the record as `human` or the level.
fn session(game: Game, players: [Player; 2]) -> Session {
    let seat = |p: &Player| match p {
        Player::Engine(l) => Seat::Level(*l),
        _ => Seat::Person,
    };
    let names = Players {
        south: Some(players[0].record_name()),
        north: Some(players[1].record_name()),
    };
    Session::from_game(game, [seat(&players[0]), seat(&players[1])], names)
}

/// Restores the terminal when dropped (early returns and errors; panics have ratatui's hook).
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        ratatui::restore();
    }
}

pub fn run(a: TuiArgs) -> Result<()> {
    let players = [
        Player::parse(&a.south, Besides::Human)?,
        Player::parse(&a.north, Besides::Human)?,
    ];
    let start = a.rules.start_position(a.position.as_deref())?;
    let seed = mancala_play::rng::seed_or_clock(a.seed);
    let mut app = App::new(Game::new(start), players, seed);
    app.set_lang(a.lang.get());
    app.speed_ms = a.speed;
    if let Some(path) = &a.load {
        // A record sets its own start: a position besides it is refused, and rules named
        // besides it must be its own, not silently dropped.
        if a.position.is_some() {
            bail!("give --position or --load, not both: a record starts where it says");
        }
        app.load(path, a.rules.rules_opt()?)?;
    }
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        bail!("`mancala tui` needs a terminal (use `mancala play` for line-by-line play)");
    }
    let mut terminal = ratatui::try_init().context("starting the full-screen terminal")?;
    let _restore = Restore;
    // For the terminal-restore test: a panic after the first screen is drawn.
    let panic_test = std::env::var_os("MANCALA_TUI_TEST_PANIC").is_some();
    loop {
        terminal.draw(|f| view::render(&app, f))?;
        if panic_test {
            panic!("MANCALA_TUI_TEST_PANIC is set: panicking on purpose");
        }
        if app.quit {
            break;
        }
        let now = Instant::now();
        if event::poll(app.wait(now))? {
            match event::read()? {
                Event::Key(k) => app.on_key(k),
                Event::Resize(_, _) => terminal.autoresize()?,
                _ => {}
            }
        }
        app.tick(Instant::now());
    }
    Ok(())
}
