//! What a server tells a recorder of its freeplay games as they are played.

use std::time::Duration;

use mancala_core::{Rules, Side};

/// Takes the freeplay games of a server as they are played, to store or show them.
pub trait Recorder: Send + Sync + std::fmt::Debug {
    /// A game starts; `None` where it is not recorded (the game is played all the same).
    fn start(&self, game: &GameStart<'_>) -> Option<Box<dyn Recording>>;
}

/// One recorded game: its moves as they are played, then its end.
pub trait Recording: Send {
    /// `pit` (0-based, the mover's own) was played, by a bot or by our level, after
    /// `time`; called before the game goes on (a person's moves in a lobby's game are
    /// stored by whoever took them, and not told here).
    fn moved(&mut self, pit: u8, by_bot: bool, time: Duration);
    /// The game is over: by the rules, or by the bot's fault (`result.fault`).
    fn ended(&mut self, result: &GameResult);
    /// The game is over by `side`'s forfeit, for the reason `why`: a bot's fault, a
    /// person's time (a lobby's games, which have no [`GameResult`]; a person's own
    /// resignation is stored by whoever took it).
    fn forfeited(&mut self, side: Side, why: &str);
    /// The game is over by a fault of the bot on move, `side` (`why`), its opponent's bot
    /// having left the game too (`other`): both are at fault. By default `side`'s forfeit.
    fn forfeited_both(&mut self, side: Side, why: &str, other: &str) {
        let _ = other;
        self.forfeited(side, why);
    }
}

/// What a recorder is told of a game as it starts.
#[derive(Clone, Copy, Debug)]
pub struct GameStart<'a> {
    /// The game's rules (the start is theirs).
    pub rules: &'a Rules,
    /// The bot's seat.
    pub bot_seat: Side,
    /// The bot's `info:name`, where it gave one.
    pub name: Option<&'a str>,
    /// The game's number in its connection, from 1.
    pub number: u32,
}

/// One freeplay game of a connection.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GameResult {
    /// The bot's seat (the boards it was sent were mirrored when North).
    pub bot_seat: Side,
    /// Final stores, South first (at a fault: as they stood).
    pub scores: [u16; 2],
    /// The winner; `None` for a draw or an unfinished game.
    pub winner: Option<Side>,
    /// Moves the bot played.
    pub bot_moves: u32,
    /// The bot's average time a move in milliseconds, from `state` to its `yield` (or our
    /// `stop`).
    pub bot_avg_ms: f64,
    /// Our level's average time a move in milliseconds.
    pub server_avg_ms: f64,
    /// Why the game ended early: the bot's fault.
    pub fault: Option<String>,
}
