//! The engine protocol of `mancala engine`: one command a line in, one answer a line out, in
//! the spirit of chess's UCI (docs/protocols.md describes it for engine authors).
//!
//! This module reads the commands ([`Command::parse`]: never panics, every fault an error
//! message), writes the answers ([`info_line`], [`bestmove_line`]) and shares out a clock
//! ([`Go::budget`], [`time_for_move`]). Moves are written as the game's notation writes them
//! ([`Notation::move_text`]): a letter (`A`-`F` South's pits, `a`-`f` North's in Kalah), a
//! digit in Dracala; a move is read in either case, or as a number from the mover's left.

use std::time::Duration;

use mancala_core::notation::Notation;
use mancala_core::{Game, Position, Rules, Side};
use mancala_engine::{Evaluation, Quality, SearchResult};

/// The most moves a `position` command may list.
pub const MAX_MOVES: usize = 10_000;

/// What a `go` asks for: limits and clocks. Every field is optional; with none, the search
/// runs to its depth limit or until `stop`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    /// `movetime MS`: think this long.
    pub movetime: Option<Duration>,
    /// `depth D`: plies, 1 to 254.
    pub depth: Option<u32>,
    /// `nodes N`: positions, all threads.
    pub nodes: Option<u64>,
    /// `infinite`: until `stop` (or until the search has proven its value).
    pub infinite: bool,
    /// `stime MS` / `ntime MS` (`wtime` / `btime` are read as South's and North's): time
    /// left on each side's clock, South first.
    pub time: [Option<Duration>; 2],
    /// `sinc MS` / `ninc MS` (`winc` / `binc`): time added to each side's clock a move.
    pub inc: [Duration; 2],
    /// `movestogo N`: moves until the next time control.
    pub movestogo: Option<u32>,
}

impl Go {
    /// The time the side to move `side` may think: `movetime` where given, else its share of
    /// its clock ([`time_for_move`]), else none (a search to the depth or node limit, or
    /// until `stop`).
    pub fn budget(&self, side: Side) -> Option<Duration> {
        if self.infinite {
            return None;
        }
        if let Some(t) = self.movetime {
            return Some(t);
        }
        let left = self.time[side.index()]?;
        Some(time_for_move(left, self.inc[side.index()], self.movestogo))
    }
}

/// The time to spend on one move with `left` on the clock, `inc` added after each move and
/// `moves_to_go` moves (each side's) until the clock is refilled (`None`: the rest of the
/// game, counted as 25 more moves, since a game of the Kalah family rarely lasts longer once
/// under way). A move takes its share of the time left plus most of the increment, never
/// more than half of what is left, and keeps 10 ms (or a tenth when less is left) for the
/// answer to arrive.
pub fn time_for_move(left: Duration, inc: Duration, moves_to_go: Option<u32>) -> Duration {
    let reserve = Duration::from_millis(10).min(left / 10);
    let usable = left.saturating_sub(reserve);
    let moves = moves_to_go.unwrap_or(25).clamp(1, 1000);
    let share = usable / moves + inc * 4 / 5;
    share
        .min(usable / 2)
        .max(Duration::from_millis(1).min(usable))
}

/// One command of the protocol.
#[derive(Clone, Debug)]
pub enum Command {
    /// `position RULES|POSITION [moves M ...]`: the game from its start (a rules string such
    /// as `kalah,seeds=4`) or from a position string, after the moves given (the moves are
    /// the game's history for the repetition rule).
    Position(Box<Game>),
    /// `go ...`: search the position and answer `bestmove`.
    Go(Go),
    /// `stop`: end the search now; its `bestmove` follows.
    Stop,
    /// `newgame`: forget what earlier games stored.
    NewGame,
    /// `isready`: answered `readyok` once the engine is.
    IsReady,
    /// `quit`: stop any search and end.
    Quit,
}

/// A line quoted in an error: printable, at most 60 characters.
fn shown(s: &str) -> String {
    let cut: String = s.chars().take(60).collect();
    let mut t = mancala_core::printable(&cut);
    if cut.len() < s.len() {
        t += "...";
    }
    t
}

/// Why a line is no command ([`Command::parse`]); texts of the line are quoted shortened.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CommandError {
    /// A word that is no command.
    #[error(
        "unknown command `{}` (commands: position, go, stop, newgame, isready, quit)",
        shown(.0)
    )]
    Unknown(String),
    /// Arguments after a command that takes none.
    #[error("`{}` takes no arguments", shown(.0))]
    NoArguments(String),
    /// `position` alone.
    #[error("position: give a rules string or a position string")]
    NoPosition,
    /// A rules or position string that does not read.
    #[error("position: `{}`: {error}", shown(.text))]
    BadPosition {
        /// The string.
        text: String,
        /// Why it does not read.
        error: mancala_core::Error,
    },
    /// Rules with no start position.
    #[error("position: {0}")]
    NoStart(mancala_core::Error),
    /// A word other than `moves` after the position.
    #[error("position: expected `moves` after the position, got `{}`", shown(.0))]
    NotMoves(String),
    /// More than [`MAX_MOVES`] moves.
    #[error("position: more than {MAX_MOVES} moves")]
    TooManyMoves,
    /// A move after the game's end.
    #[error("position: move {number} `{}`: the game is already over", shown(.text))]
    Over {
        /// The move's number, from 1.
        number: usize,
        /// Its text.
        text: String,
    },
    /// A move that names no pit.
    #[error("position: move {number}: {error}")]
    NoMove {
        /// The move's number, from 1.
        number: usize,
        /// Why.
        error: NotAPit,
    },
    /// A move the rules refuse.
    #[error("position: move {number} `{}`: {error}", shown(.text))]
    Illegal {
        /// The move's number, from 1.
        number: usize,
        /// Its text.
        text: String,
        /// Why the rules refuse it.
        error: mancala_core::Error,
    },
    /// A `go` key without its value.
    #[error("go: `{}` needs a value", shown(.0))]
    NoValue(String),
    /// A `go` value that is no number in range.
    #[error("go: {key}: `{}` is not a number 0-{max}", shown(.value))]
    NotANumber {
        /// The key.
        key: String,
        /// Its value.
        value: String,
        /// The largest allowed.
        max: u64,
    },
    /// A `go depth` that is no number 1-254.
    #[error("go: depth: `{}` is not a number 1-254", shown(.0))]
    NotADepth(String),
    /// A `go` key that is not known.
    #[error(
        "go: unknown `{}` (movetime, depth, nodes, infinite, stime, ntime, sinc, ninc, movestogo)",
        shown(.0)
    )]
    UnknownGo(String),
}

/// A move's text that names no pit of the side to move ([`read_move`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{}` is not a pit ({range})", shown(.text))]
pub struct NotAPit {
    /// The text.
    pub text: String,
    /// The pits there are, as the notation and as numbers (`A-F or 1-6`).
    pub range: String,
}

impl Command {
    /// Reads one line. `Ok(None)` for an empty line; `Err` says what is wrong.
    pub fn parse(line: &str) -> Result<Option<Command>, CommandError> {
        let mut words = line.split_whitespace();
        let Some(cmd) = words.next() else {
            return Ok(None);
        };
        let rest: Vec<&str> = words.collect();
        let none = |c: Command| {
            if rest.is_empty() {
                Ok(Some(c))
            } else {
                Err(CommandError::NoArguments(cmd.to_string()))
            }
        };
        match cmd {
            "position" => parse_position(&rest).map(|g| Some(Command::Position(Box::new(g)))),
            "go" => parse_go(&rest).map(|g| Some(Command::Go(g))),
            "stop" => none(Command::Stop),
            "newgame" => none(Command::NewGame),
            "isready" => none(Command::IsReady),
            "quit" => none(Command::Quit),
            _ => Err(CommandError::Unknown(cmd.to_string())),
        }
    }
}

fn parse_position(words: &[&str]) -> Result<Game, CommandError> {
    let Some(&first) = words.first() else {
        return Err(CommandError::NoPosition);
    };
    let bad = |error| CommandError::BadPosition {
        text: first.to_string(),
        error,
    };
    let start: Position = if first.contains('/') {
        first.parse().map_err(bad)?
    } else {
        let rules: Rules = first.parse().map_err(bad)?;
        Position::start(&rules).map_err(CommandError::NoStart)?
    };
    let moves = match words.get(1) {
        None => &[][..],
        Some(&"moves") => &words[2..],
        Some(w) => return Err(CommandError::NotMoves(w.to_string())),
    };
    if moves.len() > MAX_MOVES {
        return Err(CommandError::TooManyMoves);
    }
    let mut game = Game::new(start);
    for (k, m) in moves.iter().enumerate() {
        let (number, text) = (k + 1, m.to_string());
        let pos = game.position();
        if pos.is_over() {
            return Err(CommandError::Over { number, text });
        }
        let pit = read_move(pos, m).map_err(|error| CommandError::NoMove { number, error })?;
        game.play(pit).map_err(|error| CommandError::Illegal {
            number,
            text,
            error,
        })?;
    }
    Ok(game)
}

/// A move of the side to move in `pos`, as the game's notation writes it (either case) or as
/// a number from the mover's left; `swap` is the pie rule's swap (whether it is legal is the
/// caller's to check, as for a pit).
pub fn read_move(pos: &Position, text: &str) -> Result<u8, NotAPit> {
    if text.eq_ignore_ascii_case(mancala_core::notation::SWAP_TEXT) {
        return Ok(mancala_core::SWAP);
    }
    let pits = pos.rules().pits;
    let pit = if let Ok(n) = text.parse::<u32>() {
        n.checked_sub(1)
    } else {
        let mut chars = text.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_ascii_alphabetic() => {
                Some((c.to_ascii_lowercase() as u8 - b'a') as u32)
            }
            _ => None,
        }
    };
    let Some(pit) = pit.filter(|&p| p < pits as u32) else {
        let n = Notation::for_rules(pos.rules());
        let side = pos.to_move();
        let (names, numbers) = (
            format!("{}-{}", n.move_text(side, 0), n.move_text(side, pits - 1)),
            format!("1-{pits}"),
        );
        // Dracala's notation names the pits by their numbers already.
        let range = if names == numbers {
            numbers
        } else {
            format!("{names} or {numbers}")
        };
        return Err(NotAPit {
            text: text.to_string(),
            range,
        });
    };
    Ok(pit as u8)
}

fn parse_go(words: &[&str]) -> Result<Go, CommandError> {
    let mut go = Go::default();
    let mut i = 0;
    while i < words.len() {
        let key = words[i];
        if key == "infinite" {
            go.infinite = true;
            i += 1;
            continue;
        }
        let Some(&val) = words.get(i + 1) else {
            return Err(CommandError::NoValue(key.to_string()));
        };
        let num = |max: u64| -> Result<u64, CommandError> {
            val.parse::<u64>()
                .ok()
                .filter(|&v| v <= max)
                .ok_or_else(|| CommandError::NotANumber {
                    key: key.to_string(),
                    value: val.to_string(),
                    max,
                })
        };
        // Clocks and limits up to a day.
        const DAY_MS: u64 = 86_400_000;
        let ms = |v: u64| Duration::from_millis(v);
        match key {
            "movetime" => go.movetime = Some(ms(num(DAY_MS)?.max(1))),
            "depth" => {
                let d = num(254)
                    .ok()
                    .filter(|&d| d > 0)
                    .ok_or_else(|| CommandError::NotADepth(val.to_string()))?;
                go.depth = Some(d as u32);
            }
            "nodes" => go.nodes = Some(num(u64::MAX / 2)?.max(1)),
            "stime" | "wtime" => go.time[0] = Some(ms(num(DAY_MS)?)),
            "ntime" | "btime" => go.time[1] = Some(ms(num(DAY_MS)?)),
            "sinc" | "winc" => go.inc[0] = ms(num(DAY_MS)?),
            "ninc" | "binc" => go.inc[1] = ms(num(DAY_MS)?),
            "movestogo" => go.movestogo = Some(num(10_000)?.max(1) as u32),
            _ => return Err(CommandError::UnknownGo(key.to_string())),
        }
        i += 2;
    }
    Ok(go)
}

/// The moves `line` from `pos` in the game's notation, separated by spaces (as `position`
/// reads them).
pub fn moves_text(pos: &Position, line: &[u8]) -> String {
    let notation = Notation::for_rules(pos.rules());
    let mut p = *pos;
    let mut out = Vec::new();
    for &mv in line {
        if p.is_over() || !p.legal_moves().contains(mv) {
            break;
        }
        out.push(notation.move_text(p.to_move(), mv).to_string());
        p.play(mv).expect("legal");
    }
    out.join(" ")
}

/// A value as the protocol writes it: `value M proven` or `value M depth D`, where M is the
/// final seed margin of the side to move (signed), followed by `lower-is-better` in a misère
/// game and `tie-break` where a margin of one seed is a tie on seeds won by the rules
/// (Kauri's cowrie rule, [`Evaluation::is_tie_break`]).
pub fn value_text(e: &Evaluation) -> String {
    let q = match e.quality {
        Quality::Proven => "proven".to_string(),
        Quality::Searched { depth } => format!("depth {depth}"),
    };
    let m = if e.lower_is_better {
        " lower-is-better"
    } else {
        ""
    };
    let t = if e.is_tie_break() { " tie-break" } else { "" };
    format!("value {:+} {q}{m}{t}", e.margin)
}

/// The `info` line of a search result for the position `pos` it searched.
pub fn info_line(pos: &Position, r: &SearchResult) -> String {
    let ms = r.elapsed.as_millis();
    let nps = (r.nodes as f64 / r.elapsed.as_secs_f64().max(1e-6)) as u64;
    format!(
        "info depth {} {} nodes {} nps {nps} time {ms} pv {}",
        r.depth,
        value_text(&r.eval.seen_by(pos.to_move())),
        r.nodes,
        moves_text(pos, &r.pv)
    )
}

/// The `bestmove` line for the move `pit` of the side to move in `pos`.
pub fn bestmove_line(pos: &Position, pit: u8) -> String {
    let n = Notation::for_rules(pos.rules());
    format!("bestmove {}", n.move_text(pos.to_move(), pit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn game(line: &str) -> Game {
        match Command::parse(line).unwrap() {
            Some(Command::Position(g)) => *g,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn positions_from_rules_or_a_string_after_moves() {
        // `C` ends in South's store: South moves again, and sows its sixth pit (a letter is
        // read in either case as the mover's pit).
        let g = game("position kalah,seeds=4 moves C f");
        assert_eq!(
            g.position().to_string(),
            "kalah,seeds=4/4-4-0-5-5-0/2/5-5-5-5-4-4/0/n"
        );
        let g2 = game("position kalah,seeds=4/4-4-4-4-4-4/0/4-4-4-4-4-4/0/s moves 3 6");
        assert_eq!(g2.position(), g.position());
        assert_eq!(g.history().len(), 2);
        let d = game("position dracala moves 1");
        assert_eq!(d.moves().len(), 1);
    }

    #[test]
    fn bad_lines_are_errors_that_say_why() {
        let err = |l: &str| Command::parse(l).unwrap_err().to_string();
        assert!(err("fly").contains("unknown command `fly`"));
        assert!(err("position").contains("give a rules string"));
        assert!(err("position kalah,seeds=99").contains("kalah,seeds=99"));
        assert!(err("position kalah moves z").contains("`z` is not a pit (A-F or 1-6)"));
        assert!(err("position dracala moves 7").contains("`7` is not a pit (1-6)"));
        assert!(err("position kalah moves 0").contains("not a pit"));
        assert!(err("position kalah then").contains("expected `moves`"));
        assert!(err("go movetime").contains("needs a value"));
        assert!(err("go movetime -5").contains("not a number"));
        assert!(err("go depth 0").contains("1-254"));
        assert!(err("go fast 1").contains("unknown `fast`"));
        assert!(err("stop now").contains("takes no arguments"));
        assert!(Command::parse("   ").unwrap().is_none());
    }

    #[test]
    fn go_reads_limits_and_clocks() {
        let go = |l: &str| match Command::parse(l).unwrap() {
            Some(Command::Go(g)) => g,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            go("go movetime 250").budget(Side::North),
            Some(Duration::from_millis(250))
        );
        assert_eq!(go("go depth 12").depth, Some(12));
        assert_eq!(go("go infinite").budget(Side::South), None);
        let g = go("go wtime 10000 btime 4000 winc 100 binc 100 movestogo 10");
        // North: (4000 - 10) / 10 + 80.
        assert_eq!(g.budget(Side::North), Some(Duration::from_millis(479)));
        assert_eq!(g.budget(Side::South), Some(Duration::from_millis(1079)));
        assert_eq!(go("go stime 1000").budget(Side::North), None);
    }

    #[test]
    fn the_clock_is_never_overspent() {
        let ms = Duration::from_millis;
        assert_eq!(time_for_move(ms(10_000), ms(0), None), ms(9_990) / 25);
        // Most of the increment, never more than half the time left.
        assert_eq!(time_for_move(ms(100), ms(1000), None), ms(45));
        assert_eq!(time_for_move(ms(0), ms(0), Some(1)), ms(0));
        assert_eq!(
            time_for_move(ms(5), ms(0), Some(1)),
            Duration::from_micros(2250)
        );
    }

    #[test]
    fn the_swap_is_read_back_as_the_engine_writes_it() {
        let rules = "kalah,pits=4,seeds=2,pie=true,first-move-extra-turn=false";
        let Ok(Some(Command::Position(game))) =
            Command::parse(&format!("position {rules} moves D swap"))
        else {
            panic!("the swap is refused");
        };
        assert_eq!(game.moves().len(), 2);
        assert_eq!(game.to_move(), Side::South);
        assert_eq!(bestmove_line(game.position(), 0), "bestmove A");
        let Ok(Some(Command::Position(after_d))) =
            Command::parse(&format!("position {rules} moves D"))
        else {
            panic!("D is refused");
        };
        assert_eq!(
            bestmove_line(after_d.position(), mancala_core::SWAP),
            "bestmove swap"
        );
        // A swap where it is not legal is refused with the reason.
        let e = Command::parse(&format!("position {rules} moves swap"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("move 1"), "{e}");
    }

    #[test]
    fn answers_in_the_games_notation() {
        let pos: Position = "kalah,seeds=4/4-4-4-4-4-4/0/4-4-4-4-4-4/0/s"
            .parse()
            .unwrap();
        assert_eq!(moves_text(&pos, &[2, 5, 0]), "C F a");
        assert_eq!(bestmove_line(&pos, 2), "bestmove C");
        let r = SearchResult {
            best: 2,
            eval: Evaluation {
                side: Side::South,
                margin: 3,
                lower_is_better: false,
                decided_ties: false,
                quality: Quality::Searched { depth: 9 },
            },
            depth: 9,
            nodes: 1000,
            pv: vec![2, 5],
            elapsed: Duration::from_millis(10),
        };
        assert_eq!(
            info_line(&pos, &r),
            "info depth 9 value +3 depth 9 nodes 1000 nps 100000 time 10 pv C F"
        );
        let e = Evaluation {
            side: Side::North,
            margin: -2,
            lower_is_better: true,
            decided_ties: false,
            quality: Quality::Proven,
        };
        // Seen by South, the side to move.
        assert_eq!(
            value_text(&e.seen_by(Side::South)),
            "value +2 proven lower-is-better"
        );
        // A Kauri tie on seeds won by the cowrie rule is no seed margin.
        let k = Evaluation {
            margin: 1,
            lower_is_better: false,
            decided_ties: true,
            ..e
        };
        assert_eq!(value_text(&k), "value +1 proven tie-break");
    }

    proptest! {
        #[test]
        fn any_line_parses_or_is_refused_without_panic(line in "\\PC{0,200}") {
            let _ = Command::parse(&line);
        }

        #[test]
        fn command_like_lines_parse_or_are_refused(
            cmd in prop::sample::select(vec!["position", "go", "stop", "isready", "quit", "newgame"]),
            args in prop::collection::vec(
                prop_oneof![
                    Just("moves".to_string()),
                    Just("kalah".to_string()),
                    Just("movetime".to_string()),
                    Just("depth".to_string()),
                    Just("wtime".to_string()),
                    Just("infinite".to_string()),
                    "[a-zA-Z0-9]{1,3}",
                    "[0-9]{1,25}",
                    "[a-z,=0-9/-]{1,30}",
                ],
                0..12,
            ),
        ) {
            let line = format!("{cmd} {}", args.join(" "));
            match Command::parse(&line) {
                Ok(Some(Command::Go(g))) => {
                    // Any budget is within the clock given.
                    let _ = g.budget(Side::South);
                }
                Ok(Some(_)) | Err(_) => {}
                Ok(None) => prop_assert!(false, "a command read as an empty line"),
            }
        }

        #[test]
        fn the_budget_stays_within_the_clock(left in 0u64..10_000_000, inc in 0u64..100_000, togo in proptest::option::of(1u32..100)) {
            let (l, i) = (Duration::from_millis(left), Duration::from_millis(inc));
            let t = time_for_move(l, i, togo);
            prop_assert!(t <= l / 2 || t <= Duration::from_millis(1));
        }
    }
}
