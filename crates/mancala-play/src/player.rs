//! Who plays a side: a person, a uniform random mover, a greedy mover, the engine at a level,
//! or Monte Carlo tree search; how each is named and read from text; and the computer as a
//! player that keeps its engine from move to move.

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
    /// The move that leaves the mover's store fullest once its whole turn is played
    /// ([`greedy_move`]).
    Greedy,
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
    /// `random`, `greedy` or a level.
    Random,
    /// `random`, `greedy`, a level or `mcts:N`.
    Mcts,
}

/// The scripted players' words, read wherever a player needs no person.
const SCRIPTED: [(&str, Player); 2] = [("random", Player::Random), ("greedy", Player::Greedy)];

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
    /// A player from its text: a level, or the other kinds `besides` names (`human`;
    /// `random` and `greedy`; `mcts:N` with N from 1 to [`MAX_PLAYOUTS`]), words read with
    /// case ignored.
    pub fn parse(s: &str, besides: Besides) -> Result<Player> {
        let t = s.trim();
        let words: &[(&str, Player)] = match besides {
            Besides::Human => &[("human", Player::Human)],
            Besides::Random | Besides::Mcts => &SCRIPTED,
        };
        if let Some(&(_, p)) = words.iter().find(|(w, _)| t.eq_ignore_ascii_case(w)) {
            return Ok(p);
        }
        let named = words
            .iter()
            .map(|(w, _)| format!("`{w}`"))
            .collect::<Vec<_>>()
            .join(", ");
        match besides {
            Besides::Human | Besides::Random => parse_level(t)
                .map(Player::Engine)
                .with_context(|| format!("player `{t}`: give {named} or a level")),
            Besides::Mcts => {
                let Some(n) = t.strip_prefix("mcts:") else {
                    return parse_level(t)
                        .map(Player::Engine)
                        .map_err(|e| anyhow::anyhow!("{e}, {named} or mcts:N"));
                };
                if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
                    bail!("`{t}`: mcts:N needs a number of playouts");
                }
                match n.parse() {
                    Ok(n @ 1..=MAX_PLAYOUTS) => Ok(Player::Mcts(n)),
                    _ => bail!("`{t}`: mcts:N takes 1 to {MAX_PLAYOUTS} playouts"),
                }
            }
        }
    }

    /// The short name: `human`, `random`, `level N`, `mcts:N`.
    pub fn name(&self) -> String {
        match self {
            Player::Human => "human".into(),
            Player::Random => "random".into(),
            Player::Greedy => "greedy".into(),
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
        matches!(self, Player::Engine(l) if l.noise == 0) || *self == Player::Greedy
    }

    /// The move of a player that needs no engine: [`Player::Random`] draws a legal move
    /// uniformly with an [`Rng::new`] from `seed`, [`Player::Greedy`] plays [`greedy_move`].
    /// `None` for the other players and where there is no legal move.
    pub fn simple_move(&self, pos: &Position, seed: u64) -> Option<u8> {
        match self {
            Player::Random => {
                let legal = pos.legal_moves();
                (!legal.is_empty()).then(|| Rng::new(seed).pick(legal.as_slice()))
            }
            Player::Greedy => greedy_move(pos),
            _ => None,
        }
    }
}

/// Move sequences a greedy choice looks at before it values the rest of a turn as it stands:
/// a bound on turns of very many extra moves, which the Kalah-family games never reach.
const GREEDY_BUDGET: u32 = 100_000;

/// The greedy move: the one whose whole turn (the move and the extra moves it earns, each
/// chosen the same way) leaves the mover's store fullest, looking no further than that turn;
/// ties go to the lowest pit (the pie rule's swap, [`mancala_core::SWAP`], after every pit).
/// `None` where there is no legal move.
pub fn greedy_move(pos: &Position) -> Option<u8> {
    /// The fullest store `side` reaches by the end of the turn from `pos`, and its first move.
    fn best(pos: &Position, side: mancala_core::Side, budget: &mut u32) -> (u16, Option<u8>) {
        let mut top: (u16, Option<u8>) = (0, None);
        for mv in &pos.legal_moves() {
            let mut child = *pos;
            child.play_unchecked(mv);
            *budget = budget.saturating_sub(1);
            let store = if child.to_move() == side && !child.is_over() && *budget > 0 {
                best(&child, side, budget).0
            } else {
                child.scores()[side.index()]
            };
            let better = match top.1 {
                None => true,
                Some(t) => store > top.0 || (store == top.0 && mv < t),
            };
            if better {
                top = (store, Some(mv));
            }
        }
        top
    }
    let mut budget = GREEDY_BUDGET;
    best(pos, pos.to_move(), &mut budget).1
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
/// game's seed. A player that needs no engine (random, greedy) can stand in for the level
/// ([`Computer::simple`]), so the protocols' agents play it as they play a level.
pub struct Computer {
    /// The playing level.
    pub level: Level,
    /// The engine searched with; callers may set its oracle (endgame tables).
    pub engine: Engine,
    seeds: Rng,
    /// The player that moves instead of the level.
    simple: Option<Player>,
    /// Mixed into every move's seed, where given.
    mix: Option<u64>,
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
            simple: None,
            mix: None,
        }
    }

    /// The same computer with `seed` mixed into every move's seed ([`Rng::derive`]) in
    /// [`Computer::choose`]: two seeds give two different random players, or two different
    /// series of picks of a level that errs on purpose, where the caller's move seeds are the
    /// same from game to game.
    pub fn mixing(self, seed: u64) -> Computer {
        Computer {
            mix: Some(seed),
            ..self
        }
    }

    /// [`Player::Random`] or [`Player::Greedy`] as a computer: [`Computer::choose`] gives
    /// [`Player::simple_move`], mixing `seed` into every move's seed
    /// ([`Computer::mixing`]), so one `seed` gives the same moves again. Any other player is
    /// refused.
    pub fn simple(player: Player, seed: u64) -> Result<Computer> {
        if !matches!(player, Player::Random | Player::Greedy) {
            bail!("{} is not a player that needs no engine", player.name());
        }
        let level = Level::new(*LEVELS.start()).context("the lowest level")?;
        Ok(Computer {
            level,
            // Searched with only for KGP's `eval` positions: the smallest table.
            engine: Engine::new(1, 1),
            seeds: Rng::lcg(seed),
            simple: Some(player),
            mix: Some(seed),
        })
    }

    /// Whether a player that needs no engine moves instead of the level.
    pub fn is_simple(&self) -> bool {
        self.simple.is_some()
    }

    /// The computer's move in `pos` (`history`: the game's positions before it) with this
    /// move's `seed` (mixed with [`Computer::mixing`]'s): the level's, searched on the kept
    /// engine, or the simple player's. `None` where there is no legal move.
    pub fn choose(&self, pos: &Position, history: &[Position], seed: u64) -> Option<u8> {
        let seed = self.mix.map_or(seed, |m| Rng::derive(m, seed));
        match self.simple {
            Some(player) => player.simple_move(pos, seed),
            None => self.level.choose_with(&self.engine, pos, history, seed),
        }
    }

    /// Plays the computer's move in `game` and returns it.
    pub fn play_move(&mut self, game: &mut Game) -> Result<PlayedMove> {
        let seed = self.seeds.next_u64();
        let pit = self
            .choose(game.position(), game.history(), seed)
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
            "player `x`: give `random`, `greedy` or a level: `x` is not a level (1-8, or LEVEL@TIME such as 8@500ms)"
        );
        let e = Player::parse("x", Besides::Mcts).unwrap_err().to_string();
        assert_eq!(
            e,
            "`x` is not a level (1-8, or LEVEL@TIME such as 8@500ms), `random`, `greedy` or mcts:N"
        );
        // The scripted players are read wherever a player needs no person.
        for besides in [Besides::Random, Besides::Mcts] {
            assert_eq!(Player::parse("Greedy", besides).unwrap(), Player::Greedy);
            assert_eq!(Player::parse(" random", besides).unwrap(), Player::Random);
        }
        assert!(Player::parse("greedy", Besides::Human).is_err());
        assert_eq!(five.name(), "level 5");
        assert_eq!(five.record_name(), "computer (level 5)");
    }

    /// South's last pit reaches its store (an extra turn), then its first pit captures North's
    /// 10: 27 in the store after the turn, against 26 for the capture alone. Greedy takes the
    /// whole turn; where no move gains, the lowest pit.
    #[test]
    fn greedy_takes_the_best_whole_turn() {
        let pos: Position = "kalah,seeds=4/2-0-0-0-0-1/15/1-1-1-10-1-1/15/s"
            .parse()
            .unwrap();
        assert_eq!(greedy_move(&pos), Some(5));
        let mut after = pos;
        after.play(5).unwrap();
        assert_eq!(greedy_move(&after), Some(0));
        after.play(0).unwrap();
        assert_eq!(after.scores(), [27, 15]);
        // North's last pit reaches its store; then no move gains (every opposite pit is empty).
        assert_eq!(greedy_move(&after), Some(5));
        let mut north = after;
        north.play(5).unwrap();
        assert_eq!(
            north.to_string(),
            "kalah,seeds=4/0-1-0-0-0-0/27/1-1-1-0-1-0/16/n"
        );
        assert_eq!(greedy_move(&north), Some(0));
        assert_eq!(Player::Greedy.simple_move(&after, 99), Some(5));
        assert_eq!(Player::Greedy.name(), "greedy");
        assert!(Player::Greedy.deterministic() && !Player::Random.deterministic());
        let over: Position = "kalah,seeds=4/0-0-0-0-0-0/30/0-0-0-0-0-0/18/-"
            .parse()
            .unwrap();
        assert_eq!(greedy_move(&over), None);
    }

    /// The random player's moves come from its seed: the same seed, the same game; another
    /// seed, another game; every move legal.
    #[test]
    fn a_seeded_random_computer_repeats_its_game() {
        let rules: mancala_core::Rules = "kalah,pits=7,seeds=7".parse().unwrap();
        let play = |seed: u64| {
            let c = Computer::simple(Player::Random, seed).unwrap();
            let mut g = Game::from_rules(&rules).unwrap();
            let mut seeds = Rng::lcg(3);
            while !g.is_over() {
                let mv = c
                    .choose(g.position(), g.history(), seeds.next_u64())
                    .unwrap();
                assert!(g.legal_moves().contains(mv));
                g.play(mv).unwrap();
            }
            g.moves().iter().map(|m| m.pit).collect::<Vec<u8>>()
        };
        let a = play(5);
        assert!(a.len() > 10, "{a:?}");
        assert_eq!(play(5), a);
        assert_ne!(play(6), a);
        let e = Computer::simple(Player::Human, 1)
            .err()
            .unwrap()
            .to_string();
        assert_eq!(e, "human is not a player that needs no engine");
    }
}
