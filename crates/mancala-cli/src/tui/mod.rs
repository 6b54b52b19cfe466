//! `mancala tui`: full-screen play (ratatui) of every preset, against the computer or between
//! two people at one keyboard, with an animated sowing, the move list, hints, undo/redo,
//! records and a replay mode.
//!
//! [`App`] drives the game [`Session`] (seats, undo and redo, the end, the record) and holds
//! what the screen needs beside it; it reacts to keys ([`App::on_key`]) and to time
//! ([`App::tick`]); [`view`] draws it. Engine work (the computer's moves, hints, values) runs
//! on a background thread about a [`Moment`](mancala_play::session::Moment) of the session,
//! through the engine's `think` policies, so the screen stays live ([`jobs`]); tests set
//! [`App::sync`] to run it inline.
//! The terminal is restored on exit, on Ctrl-C (a key in raw mode) and on panic (ratatui's
//! panic hook, plus a guard for early returns).
//!
//! The app's parts each have a module: its keys ([`keys`], the new-game screen's in
//! [`setup`]), engine work ([`jobs`]), records saved and opened ([`records`]) and the move
//! list ([`move_list`]); the sowing's frames are in [`anim`].

mod anim;
mod jobs;
mod keys;
mod move_list;
mod records;
mod setup;
#[cfg(test)]
mod tests;
mod view;

use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use mancala_core::i18n::{self, Lang};
use mancala_core::notation::Notation;
use mancala_core::record::Players;
use mancala_core::{Game, Position, Rules, Side};
use mancala_engine::Limits;
use mancala_play::session::{Seat, Session};
use mancala_play::{Besides, Rng};
use ratatui::crossterm::event::{self, Event};

pub use anim::Frame;
use jobs::{Job, JobKind, HINT_TIME};

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
    /// What a hint may spend ([`mancala_engine::think::hint`]): a proof within half of it,
    /// else a search (to the depth of `analysis_limits`) within the rest; `None`: a search
    /// alone.
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

    /// A game with moves that has not ended: leaving it discards something.
    fn in_progress(&self) -> bool {
        !self.game().moves().is_empty() && !self.game().is_over()
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
}

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
