//! Who plays a side: a person, a uniform random mover, the engine at a level, or Monte Carlo
//! tree search; how each is named and read from text; and the computer as a player that keeps
//! its engine from move to move.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use mancala_core::{Game, PlayedMove, Position};
use mancala_engine::{Decision, Engine, Level, LEVELS};

use crate::rng::Rng;

/// The most playouts an [`Player::Mcts`] player may be given a move.
pub const MAX_PLAYOUTS: u32 = 1_000_000;

/// Who plays a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Player {
    /// A person, whose moves come from outside (keys, lines of input, the network).
    Human,
    /// Every legal move equally likely.
    Random,
    /// The engine at a playing level.
    Engine(Level),
    /// Monte Carlo tree search with this many playouts a move.
    Mcts(u32),
}

/// The kind of player accepted besides a level, when a player is read from text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Besides {
    /// `human` or a level.
    Human,
    /// `random` or a level.
    Random,
    /// A level or `mcts:N`.
    Mcts,
}

/// A computer level from its text (`3`, ` 5 `), or a level with its own time a move
/// (`8@500ms`, `7@2s`: see [`Level::with_time`]); the error gives the levels there are.
pub fn parse_level(s: &str) -> Result<Level> {
    let t = s.trim();
    if let Some((level, time)) = t.split_once('@') {
        let time = parse_move_time(time)?;
        return Ok(parse_level(level)?.with_time(time));
    }
    let (lo, hi) = (LEVELS.start(), LEVELS.end());
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        bail!("`{t}` is not a level ({lo}-{hi}, or LEVEL@TIME such as 8@500ms)");
    }
    t.parse()
        .ok()
        .and_then(Level::new)
        .with_context(|| format!("level {t} does not exist (levels {lo}-{hi})"))
}

/// A time a move: milliseconds, or a number with `ms` or `s` (`250`, `250ms`, `0.5s`), from
/// 1 ms to an hour.
pub fn parse_move_time(s: &str) -> Result<Duration> {
    let t = s.trim();
    let (num, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else {
        (t, 1e-3)
    };
    let secs = num
        .parse::<f64>()
        .ok()
        .map(|v| v * scale)
        .filter(|v| v.is_finite() && (1e-3..=3600.0).contains(v))
        .with_context(|| {
            format!("`{t}` is not a time a move (1ms to 3600s, such as 500ms or 2s)")
        })?;
    Ok(Duration::from_secs_f64(secs))
}

impl Player {
    /// A player from its text: a level, or the other kind `besides` names (`human`,
    /// `random`, case ignored; `mcts:N` with N from 1 to [`MAX_PLAYOUTS`]).
    pub fn parse(s: &str, besides: Besides) -> Result<Player> {
        let t = s.trim();
        match besides {
            Besides::Human | Besides::Random => {
                let (word, other) = if besides == Besides::Human {
                    ("human", Player::Human)
                } else {
                    ("random", Player::Random)
                };
                if t.eq_ignore_ascii_case(word) {
                    return Ok(other);
                }
                parse_level(t)
                    .map(Player::Engine)
                    .with_context(|| format!("player `{t}`: give `{word}` or a level"))
            }
            Besides::Mcts => {
                let Some(n) = s.strip_prefix("mcts:") else {
                    return parse_level(s)
                        .map(Player::Engine)
                        .map_err(|e| anyhow::anyhow!("{e}, or mcts:N"));
                };
                if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
                    bail!("`{s}`: mcts:N needs a number of playouts");
                }
                match n.parse() {
                    Ok(n @ 1..=MAX_PLAYOUTS) => Ok(Player::Mcts(n)),
                    _ => bail!("`{s}`: mcts:N takes 1 to {MAX_PLAYOUTS} playouts"),
                }
            }
        }
    }

    /// The short name: `human`, `random`, `level N`, `mcts:N`.
    pub fn name(&self) -> String {
        match self {
            Player::Human => "human".into(),
            Player::Random => "random".into(),
            Player::Engine(l) if l.time != Level::new(l.level).and_then(|d| d.time) => {
                let ms = l.time.map_or(0, |t| t.as_millis());
                format!("level {}@{ms}ms", l.level)
            }
            Player::Engine(l) => format!("level {}", l.level),
            Player::Mcts(n) => format!("mcts:{n}"),
        }
    }

    /// The name a game record gives the player: `human`, `computer (level N)`, ...
    pub fn record_name(&self) -> String {
        match self {
            Player::Engine(l) => computer_name(l.level),
            other => other.name(),
        }
    }

    /// A person plays this side.
    pub fn is_human(&self) -> bool {
        *self == Player::Human
    }

    /// The same seed gives the same moves: no search against the clock.
    pub fn reproducible(&self) -> bool {
        match self {
            Player::Engine(l) => l.time.is_none(),
            _ => true,
        }
    }

    /// Deterministic: the same position always gets the same move.
    pub fn deterministic(&self) -> bool {
        matches!(self, Player::Engine(l) if l.noise == 0)
    }
}

/// `computer (level N)`: how records and the server name the computer at level `level`.
pub fn computer_name(level: u8) -> String {
    format!("computer (level {level})")
}

/// The level of a name [`computer_name`] gave (`computer (level 3)`), so that a record's
/// computer can be named in the reader's language; `None` for any other name.
pub fn computer_level(name: &str) -> Option<u8> {
    let level: u8 = name
        .strip_prefix("computer (level ")?
        .strip_suffix(')')?
        .parse()
        .ok()?;
    (computer_name(level) == name).then_some(level)
}

/// The computer's move at a level, with the value its search gave, for a caller that holds
/// no engine between moves (the server): the levels that err on purpose through
/// [`Level::decide`] (each thread's engine, reused), the exact ones through a search on a
/// fresh 16 MiB table whose time never exceeds `cap`. An unknown level plays as level 3.
/// `history`: the game's positions before `pos` (repetition rule). `None` when the game is
/// over.
pub fn level_decision(
    pos: &Position,
    history: &[Position],
    level: u8,
    seed: u64,
    cap: Duration,
) -> Option<Decision> {
    let mut lv = Level::new(level).or_else(|| Level::new(3))?;
    if lv.noise == 0 {
        lv.time = Some(lv.time.map_or(cap, |t| t.min(cap)));
    }
    if lv.noise > 0 {
        lv.decide(pos, history, seed)
    } else {
        // A table sized to the time, mapped in before the search's clock starts.
        let engine = Engine::new(
            lv.time.map_or(16, |t| mancala_engine::tt_mb_for(t).min(16)),
            1,
        );
        engine.prefault();
        lv.decide_with(&engine, pos, history, seed)
    }
}

/// The engine at a level as a player of a whole game: its transposition table carries over
/// from move to move, and each move's seed is the next output of an [`Rng::lcg`] from the
/// game's seed.
pub struct Computer {
    /// The playing level.
    pub level: Level,
    /// The engine searched with; callers may set its oracle (endgame tables).
    pub engine: Engine,
    seeds: Rng,
}

impl Computer {
    /// The computer at `level` with a table of 256 MiB at levels 6 and up, 16 MiB below
    /// (levels that think against the clock have it mapped in now, so that their first move
    /// does not spend its time on it); `seed` drives the level's random choices.
    pub fn new(level: Level, seed: u64) -> Computer {
        let engine = Engine::new(if level.level >= 6 { 256 } else { 16 }, level.threads);
        if level.time.is_some() {
            engine.prefault();
        }
        Computer {
            level,
            engine,
            seeds: Rng::lcg(seed),
        }
    }

    /// Plays the computer's move in `game` and returns it.
    pub fn play_move(&mut self, game: &mut Game) -> Result<PlayedMove> {
        let seed = self.seeds.next_u64();
        let pit = self
            .level
            .choose_with(&self.engine, game.position(), game.history(), seed)
            .context("the computer found no move")?;
        game.play(pit)?;
        Ok(*game.moves().last().expect("just played"))
    }

    /// Plays the computer's whole turn (a move and the moves it earns) and returns its moves;
    /// `after_each` runs after every move (to check the engine's tables, say).
    pub fn play_turn(
        &mut self,
        game: &mut Game,
        mut after_each: impl FnMut(&mut Computer),
    ) -> Result<Vec<PlayedMove>> {
        let side = game.to_move();
        let mut moves = Vec::new();
        while !game.is_over() && game.to_move() == side {
            moves.push(self.play_move(game)?);
            after_each(self);
        }
        Ok(moves)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_computer_name_gives_back_its_level() {
        assert_eq!(computer_level(&computer_name(7)), Some(7));
        for other in [
            "computer (level 07)",
            "Computer (level 3)",
            "computer (level x)",
            "Ann",
        ] {
            assert_eq!(computer_level(other), None, "{other}");
        }
    }

    #[test]
    fn levels_say_their_range() {
        assert_eq!(parse_level(" 3 ").unwrap().level, 3);
        for (s, msg) in [
            ("0", "level 0 does not exist (levels 1-8)"),
            ("9", "level 9 does not exist (levels 1-8)"),
            ("300", "level 300 does not exist (levels 1-8)"),
            ("99999999999999999999999", "does not exist (levels 1-8)"),
            ("x", "`x` is not a level (1-8"),
            ("-1", "`-1` is not a level (1-8"),
            ("8@", "`` is not a time a move"),
            ("8@0ms", "`0ms` is not a time a move"),
            ("8@2h", "`2h` is not a time a move"),
            ("9@1s", "level 9 does not exist"),
        ] {
            let e = parse_level(s).unwrap_err().to_string();
            assert!(e.contains(msg), "{s}: {e}");
        }
    }

    #[test]
    fn a_level_takes_a_time_a_move() {
        let l = parse_level("8@250ms").unwrap();
        assert_eq!((l.level, l.time), (8, Some(Duration::from_millis(250))));
        assert_eq!(l.depth, None);
        let l = parse_level("7@0.5s").unwrap();
        assert_eq!(
            (l.time, l.depth),
            (Some(Duration::from_millis(500)), Some(16))
        );
        assert_eq!(
            parse_level("6@100").unwrap().time,
            Some(Duration::from_millis(100))
        );
        // Levels that err on purpose keep their depth and no clock.
        assert_eq!(parse_level("2@1s").unwrap(), Level::new(2).unwrap());
        assert_eq!(
            Player::Engine(parse_level("8@100ms").unwrap()).name(),
            "level 8@100ms"
        );
        assert_eq!(
            Player::Engine(parse_level("8@3s").unwrap()).name(),
            "level 8"
        );
    }

    #[test]
    fn players_parse_with_their_other_kind() {
        let five = Player::Engine(Level::new(5).unwrap());
        assert_eq!(
            Player::parse("Human", Besides::Human).unwrap(),
            Player::Human
        );
        assert_eq!(
            Player::parse("random", Besides::Random).unwrap(),
            Player::Random
        );
        assert_eq!(Player::parse("5", Besides::Random).unwrap(), five);
        assert_eq!(
            Player::parse("mcts:30", Besides::Mcts).unwrap(),
            Player::Mcts(30)
        );
        assert!(Player::parse("random", Besides::Human).is_err());
        assert!(Player::parse("mcts:0", Besides::Mcts).is_err());
        let e = format!("{:#}", Player::parse("x", Besides::Random).unwrap_err());
        assert_eq!(
            e,
            "player `x`: give `random` or a level: `x` is not a level (1-8, or LEVEL@TIME such as 8@500ms)"
        );
        let e = Player::parse("x", Besides::Mcts).unwrap_err().to_string();
        assert_eq!(
            e,
            "`x` is not a level (1-8, or LEVEL@TIME such as 8@500ms), or mcts:N"
        );
        assert_eq!(five.name(), "level 5");
        assert_eq!(five.record_name(), "computer (level 5)");
    }
}
