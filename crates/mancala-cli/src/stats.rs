//! `mancala stats`: plays many games between random or engine players (on every core, seeded,
//! reproducible) and reports game length, branching factor, game-tree complexity and the first
//! player's results, each with its spread; optionally plots the distributions.
//!
//! What is counted:
//! - **ply**: one sowing (one move). **turn**: a player's whole go (a move and its extra
//!   moves; in Kauri a run of sowings while the opponent, with no cowrie, passes).
//! - **branching factor per ply**: the legal moves at every position where a move is played,
//!   averaged over all those positions of all games (positions with one legal move count; the
//!   share of them is printed, and the average without them).
//! - **branching factor per turn**: the distinct whole turns (sequences of sowings) open to the
//!   player at the start of each turn, averaged over turns. This is how a Kauri player blocked
//!   for a while sees it ("more than 200 options", source 003). The count is capped at
//!   [`TURN_COUNT_CAP`] sequences a turn; capped turns are reported.
//! - **complexity**: branching factor to the power of the average length (Allis's estimate of
//!   the game-tree size), by ply and by turn.
//!
//! Each game's randomness comes from its own seed, derived from `--seed` and the game's number,
//! so the output does not depend on the number of threads or their scheduling.

use std::path::Path;

use anyhow::{bail, Context, Result};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mancala_core::with_family;
use mancala_core::{Game, GameState, Outcome, Position, Rules, Side};
use mancala_engine::{Engine, Level};
use rayon::prelude::*;
use serde::Serialize;

use crate::RulesArgs;

/// Turns counted beyond this many distinct sowing sequences are not enumerated further.
pub const TURN_COUNT_CAP: u64 = 100_000;

#[derive(Args, Debug)]
pub struct StatsArgs {
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Number of games, 1 to 10000000.
    #[arg(long, short = 'n', default_value_t = 1000,
          value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub games: u64,
    /// Players: `random` or a level 1-8, one for both or `SOUTH,NORTH` (`random,5`).
    /// Levels with a time limit (7 and 8) give games that are not exactly reproducible.
    #[arg(long, default_value = "random")]
    pub players: String,
    /// Seed of every random choice; the same seed gives the same output.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Plies played at random at the start of every game, whoever the players are (gives
    /// deterministic engine players varied games).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub opening: u32,
    /// A game still going after this many plies is stopped and counted as unfinished (1 to
    /// 1000000).
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_plies: u32,
    /// Worker threads, 1-256 (default: every core).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: Option<u16>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Draw the distributions of game length and final margin to FILE.svg or FILE.png.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<String>,
}

/// Who plays a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Player {
    Random,
    Engine(Level),
}

impl Player {
    pub fn parse(s: &str) -> Result<Player> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("random") {
            return Ok(Player::Random);
        }
        crate::input::parse_level(t)
            .map(Player::Engine)
            .with_context(|| format!("player `{t}`: give `random` or a level"))
    }

    pub fn name(&self) -> String {
        match self {
            Player::Random => "random".into(),
            Player::Engine(l) => format!("level {}", l.level),
        }
    }

    fn reproducible(&self) -> bool {
        match self {
            Player::Random => true,
            Player::Engine(l) => l.time.is_none(),
        }
    }

    /// Deterministic: the same position always gets the same move.
    fn deterministic(&self) -> bool {
        matches!(self, Player::Engine(l) if l.noise == 0)
    }
}

/// `random`, `3`, `random,5`: the players of South and North.
pub fn parse_players(s: &str) -> Result<[Player; 2]> {
    let parts: Vec<&str> = s.split(',').collect();
    match parts.as_slice() {
        [one] => {
            let p = Player::parse(one)?;
            Ok([p, p])
        }
        [a, b] => Ok([Player::parse(a)?, Player::parse(b)?]),
        _ => bail!("--players takes one player or two separated by a comma, got `{s}`"),
    }
}

/// SplitMix64: small, fast, and good enough to pick moves.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    #[cfg(test)]
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Ending {
    /// By the rules (including a decided game under stop-when-decided).
    Rules,
    /// Third repetition of a position.
    Repetition,
    /// Stopped at `--max-plies`.
    Unfinished,
}

/// What one game contributes to the statistics.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub plies: u32,
    pub turns: u32,
    /// Sum and sum of squares of the legal-move counts at every ply played.
    pub legal_sum: u64,
    pub legal_sq: u64,
    /// Plies where only one move was legal.
    pub forced: u32,
    /// Sum and sum of squares of the distinct-turn counts at every turn's start.
    pub turn_options_sum: u64,
    pub turn_options_sq: f64,
    /// Turns whose count hit [`TURN_COUNT_CAP`].
    pub turns_capped: u32,
    pub scores: [u8; 2],
    /// The side that moved first.
    pub first: Side,
    pub outcome: Option<Outcome>,
    pub ending: Ending,
    /// The moves (own pits), kept in test builds only, for the tests that compare games (a
    /// run of millions of games does not keep them).
    pub moves: Vec<u8>,
}

impl Sample {
    /// First player's score minus the second's.
    pub fn margin(&self) -> i32 {
        let f = self.first.index();
        self.scores[f] as i32 - self.scores[1 - f] as i32
    }
}

/// Distinct whole turns from `pos` (sequences of sowings by its mover), at most `cap`.
pub fn turn_options(pos: &Position, cap: u64) -> (u64, bool) {
    fn go<P: GameState>(pos: &P, budget: &mut u64) -> u64 {
        let mut n = 0;
        for mv in &pos.legal_moves() {
            if *budget == 0 {
                return n;
            }
            let mut child = *pos;
            child.play_unchecked(mv);
            if child.to_move() == pos.to_move() && !child.is_over() {
                n += go(&child, budget);
            } else {
                n += 1;
                *budget -= 1;
            }
        }
        n
    }
    let mut budget = cap;
    let n = with_family!(pos, p => go(p, &mut budget));
    (n, budget == 0)
}

/// Everything that decides the games played.
#[derive(Clone, Debug)]
pub struct Config {
    pub start: Position,
    pub players: [Player; 2],
    pub seed: u64,
    pub opening: u32,
    pub max_plies: u32,
    /// Count distinct turns at each turn start (the per-turn branching factor).
    pub count_turns: bool,
}

/// Seed of game `index`: independent of the order the games are played in.
pub fn game_seed(seed: u64, index: u64) -> u64 {
    let mut r = Rng::new(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03));
    r.next_u64()
}

/// Runs `f` with this thread's engine for `side` at `level` (its table size and threads as
/// `Level::choose` picks them), cleared first when `fresh`. Each game clears its engines
/// before its first engine move, so a game depends on its seed alone, never on the games the
/// thread played before (the table is kept from move to move within a game, as a player
/// keeps what he has worked out).
fn with_engine<R>(side: usize, level: &Level, fresh: bool, f: impl FnOnce(&Engine) -> R) -> R {
    type Engines = Vec<((usize, usize, usize), Engine)>;
    thread_local! {
        static ENGINES: std::cell::RefCell<Engines> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let key = (side, if level.level >= 6 { 64 } else { 4 }, level.threads);
    ENGINES.with(|c| {
        let mut c = c.borrow_mut();
        let k = match c.iter().position(|e| e.0 == key) {
            Some(k) => k,
            None => {
                c.push((key, Engine::new(key.1, key.2)));
                c.len() - 1
            }
        };
        if fresh {
            c[k].1.clear();
        }
        f(&c[k].1)
    })
}

/// Plays game number `index` of a run.
pub fn play_game(cfg: &Config, index: u64) -> Sample {
    let mut rng = Rng::new(game_seed(cfg.seed, index));
    let mut game = Game::new(cfg.start);
    let first = cfg.start.to_move();
    let mut s = Sample {
        plies: 0,
        turns: 0,
        legal_sum: 0,
        legal_sq: 0,
        forced: 0,
        turn_options_sum: 0,
        turn_options_sq: 0.0,
        turns_capped: 0,
        scores: [0, 0],
        first,
        outcome: None,
        ending: Ending::Rules,
        moves: Vec::new(),
    };
    let mut turn_starts = true;
    // The positions before the current one, for the engine's repetition rule.
    let mut history: Vec<Position> = Vec::new();
    let mut engine_used = [false; 2];
    while !game.is_over() {
        if s.plies >= cfg.max_plies {
            s.ending = Ending::Unfinished;
            break;
        }
        let pos = *game.position();
        let legal = game.legal_moves();
        let n = legal.len() as u64;
        s.legal_sum += n;
        s.legal_sq += n * n;
        s.forced += (n == 1) as u32;
        if turn_starts {
            s.turns += 1;
            if cfg.count_turns {
                let (k, capped) = turn_options(&pos, TURN_COUNT_CAP);
                s.turn_options_sum += k;
                s.turn_options_sq += (k as f64) * (k as f64);
                s.turns_capped += capped as u32;
            }
        }
        let player = cfg.players[pos.to_move().index()];
        let r = rng.next_u64();
        let pit = if s.plies < cfg.opening || player == Player::Random {
            legal.as_slice()[(r % n) as usize]
        } else {
            match player {
                Player::Engine(level) => {
                    let side = pos.to_move().index();
                    let fresh = !std::mem::replace(&mut engine_used[side], true);
                    with_engine(side, &level, fresh, |e| {
                        level.choose_with(e, &pos, &history, r)
                    })
                    .expect("a live position")
                }
                Player::Random => unreachable!(),
            }
        };
        history.push(pos);
        let effect = game.play(pit).expect("a legal move");
        if cfg!(test) {
            s.moves.push(pit);
        }
        s.plies += 1;
        turn_starts = !effect.again;
    }
    if game.ended_by_repetition() {
        s.ending = Ending::Repetition;
    }
    s.scores = game.scores();
    s.outcome = game.outcome();
    s
}

/// Plays `games` games on the current rayon pool, calling `tick` after each.
pub fn play_games(cfg: &Config, games: u64, tick: impl Fn() + Sync) -> Vec<Sample> {
    (0..games)
        .into_par_iter()
        .map(|i| {
            let s = play_game(cfg, i);
            tick();
            s
        })
        .collect()
}

/// Distribution of an integer quantity over the games.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Distribution {
    pub mean: f64,
    pub sd: f64,
    pub min: i64,
    pub p10: i64,
    pub p25: i64,
    pub median: i64,
    pub p75: i64,
    pub p90: i64,
    pub max: i64,
}

impl Distribution {
    pub fn of(values: &[i64]) -> Distribution {
        let mut v = values.to_vec();
        v.sort_unstable();
        let n = v.len().max(1) as f64;
        let mean = v.iter().sum::<i64>() as f64 / n;
        let var = v.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / n;
        // Nearest rank.
        let pct = |p: f64| -> i64 {
            if v.is_empty() {
                return 0;
            }
            let rank = ((p / 100.0) * v.len() as f64).ceil().max(1.0) as usize;
            v[rank.min(v.len()) - 1]
        };
        Distribution {
            mean,
            sd: var.sqrt(),
            min: v.first().copied().unwrap_or(0),
            p10: pct(10.0),
            p25: pct(25.0),
            median: pct(50.0),
            p75: pct(75.0),
            p90: pct(90.0),
            max: v.last().copied().unwrap_or(0),
        }
    }
}

/// A rate with its standard error.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rate {
    pub rate: f64,
    pub standard_error: f64,
}

impl Rate {
    fn of(k: usize, n: usize) -> Rate {
        let n = n.max(1) as f64;
        let p = k as f64 / n;
        Rate {
            rate: p,
            standard_error: (p * (1.0 - p) / n).sqrt(),
        }
    }
}

/// A game-tree complexity estimate b^L, as log10, with the range that the 95 % intervals of
/// the two means give.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Complexity {
    pub log10: f64,
    pub log10_low: f64,
    pub log10_high: f64,
}

impl Complexity {
    fn of(b: f64, b_se: f64, l: f64, l_se: f64) -> Complexity {
        let lg = |b: f64, l: f64| if b > 0.0 { l * b.log10() } else { 0.0 };
        Complexity {
            log10: lg(b, l),
            log10_low: lg((b - 1.96 * b_se).max(1.0), (l - 1.96 * l_se).max(0.0)),
            log10_high: lg(b + 1.96 * b_se, l + 1.96 * l_se),
        }
    }
}

/// Branching factor: mean (with sd per decision and standard error of the mean).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Branching {
    pub mean: f64,
    pub sd: f64,
    pub standard_error: f64,
    pub decisions: u64,
}

impl Branching {
    fn of(sum: f64, sq: f64, n: u64) -> Branching {
        let nf = n.max(1) as f64;
        let mean = sum / nf;
        let sd = (sq / nf - mean * mean).max(0.0).sqrt();
        Branching {
            mean,
            sd,
            standard_error: sd / nf.sqrt(),
            decisions: n,
        }
    }
}

/// The statistics of a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub variant: String,
    pub games: usize,
    pub players: [String; 2],
    pub seed: u64,
    pub opening: u32,
    pub plies: Distribution,
    pub turns: Distribution,
    /// Legal moves per ply played (forced plies included).
    pub branching_per_ply: Branching,
    /// Same, leaving out plies with one legal move.
    pub branching_per_ply_unforced: Branching,
    pub forced_share: f64,
    /// Distinct whole turns per turn; `None` when not counted.
    pub branching_per_turn: Option<Branching>,
    pub turns_capped: u64,
    pub complexity_by_ply: Complexity,
    pub complexity_by_turn: Option<Complexity>,
    pub first_player: Side,
    pub first_wins: Rate,
    pub draws: Rate,
    pub first_losses: Rate,
    /// First player's score minus the second's, at the end.
    pub margin: Distribution,
    pub ended_by_rules: usize,
    pub ended_by_repetition: usize,
    pub unfinished: usize,
}

pub fn summarize(cfg: &Config, samples: &[Sample]) -> Summary {
    let n = samples.len();
    let plies: Vec<i64> = samples.iter().map(|s| s.plies as i64).collect();
    let turns: Vec<i64> = samples.iter().map(|s| s.turns as i64).collect();
    let margins: Vec<i64> = samples.iter().map(|s| s.margin() as i64).collect();
    let decisions: u64 = samples.iter().map(|s| s.plies as u64).sum();
    let legal_sum: u64 = samples.iter().map(|s| s.legal_sum).sum();
    let legal_sq: u64 = samples.iter().map(|s| s.legal_sq).sum();
    let forced: u64 = samples.iter().map(|s| s.forced as u64).sum();
    let per_ply = Branching::of(legal_sum as f64, legal_sq as f64, decisions);
    let unforced = Branching::of(
        (legal_sum - forced) as f64,
        (legal_sq - forced) as f64,
        decisions - forced,
    );
    let turn_decisions: u64 = samples.iter().map(|s| s.turns as u64).sum();
    let per_turn = cfg.count_turns.then(|| {
        Branching::of(
            samples.iter().map(|s| s.turn_options_sum as f64).sum(),
            samples.iter().map(|s| s.turn_options_sq).sum(),
            turn_decisions,
        )
    });
    let plies_d = Distribution::of(&plies);
    let turns_d = Distribution::of(&turns);
    let se = |d: &Distribution| d.sd / (n.max(1) as f64).sqrt();
    let first = cfg.start.to_move();
    let count = |f: &dyn Fn(&Sample) -> bool| samples.iter().filter(|s| f(s)).count();
    let finished = |s: &Sample| s.ending != Ending::Unfinished;
    Summary {
        variant: cfg.start.rules().to_string(),
        games: n,
        players: [cfg.players[0].name(), cfg.players[1].name()],
        seed: cfg.seed,
        opening: cfg.opening,
        complexity_by_ply: Complexity::of(
            per_ply.mean,
            per_ply.standard_error,
            plies_d.mean,
            se(&plies_d),
        ),
        complexity_by_turn: per_turn
            .map(|b| Complexity::of(b.mean, b.standard_error, turns_d.mean, se(&turns_d))),
        plies: plies_d,
        turns: turns_d,
        branching_per_ply: per_ply,
        branching_per_ply_unforced: unforced,
        forced_share: forced as f64 / decisions.max(1) as f64,
        branching_per_turn: per_turn,
        turns_capped: samples.iter().map(|s| s.turns_capped as u64).sum(),
        first_player: first,
        first_wins: Rate::of(
            count(&|s| finished(s) && s.outcome == Some(Outcome::Win(first))),
            n,
        ),
        draws: Rate::of(
            count(&|s| finished(s) && s.outcome == Some(Outcome::Draw)),
            n,
        ),
        first_losses: Rate::of(
            count(&|s| finished(s) && s.outcome == Some(Outcome::Win(first.other()))),
            n,
        ),
        margin: Distribution::of(&margins),
        ended_by_rules: count(&|s| s.ending == Ending::Rules),
        ended_by_repetition: count(&|s| s.ending == Ending::Repetition),
        unfinished: count(&|s| s.ending == Ending::Unfinished),
    }
}

fn sci(log10: f64) -> String {
    let e = log10.floor();
    let m = 10f64.powf(log10 - e);
    format!("{m:.1}e{e}")
}

fn dist_line(d: &Distribution) -> String {
    format!(
        "mean {:.1} (sd {:.1}); min {}, p10 {}, p25 {}, median {}, p75 {}, p90 {}, max {}",
        d.mean, d.sd, d.min, d.p10, d.p25, d.median, d.p75, d.p90, d.max
    )
}

fn pct(r: &Rate) -> String {
    format!(
        "{:.1} % (± {:.1})",
        r.rate * 100.0,
        r.standard_error * 100.0
    )
}

/// The text report. Depends only on the games, never on time or threads.
pub fn report(s: &Summary, rules: &Rules) -> String {
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut row = |label: &str, text: String| rows.push((label.to_string(), text));
    let b = &s.branching_per_ply;
    row("game length, plies", dist_line(&s.plies));
    row("game length, turns", dist_line(&s.turns));
    row(
        "branching per ply",
        format!(
            "{:.2} legal moves (sd {:.2}, ± {:.3}) over {} plies; {:.1} % forced, {:.2} without them",
            b.mean,
            b.sd,
            b.standard_error,
            b.decisions,
            s.forced_share * 100.0,
            s.branching_per_ply_unforced.mean
        ),
    );
    if let Some(t) = &s.branching_per_turn {
        row(
            "branching per turn",
            format!(
                "{:.2} distinct turns (sd {:.2}, ± {:.3}) over {} turns{}",
                t.mean,
                t.sd,
                t.standard_error,
                t.decisions,
                if s.turns_capped > 0 {
                    format!(", {} turn(s) capped at {TURN_COUNT_CAP}", s.turns_capped)
                } else {
                    String::new()
                }
            ),
        );
    }
    let complexity = |b: f64, d: &Distribution, c: &Complexity| {
        format!(
            "{b:.2}^{:.1} = {} (95 % range {} to {}); with the median length {}: {}",
            d.mean,
            sci(c.log10),
            sci(c.log10_low),
            sci(c.log10_high),
            d.median,
            sci(d.median as f64 * b.log10())
        )
    };
    row(
        "complexity by ply",
        complexity(b.mean, &s.plies, &s.complexity_by_ply),
    );
    if let (Some(t), Some(c)) = (&s.branching_per_turn, &s.complexity_by_turn) {
        row("complexity by turn", complexity(t.mean, &s.turns, c));
    }
    row(
        &format!("first player ({})", s.first_player),
        format!(
            "wins {}, draws {}, losses {} (± standard error)",
            pct(&s.first_wins),
            pct(&s.draws),
            pct(&s.first_losses)
        ),
    );
    row(
        "final margin",
        format!(
            "first player's seeds minus the second's{}: {}",
            if rules.misere() {
                " (misère: fewer wins)"
            } else {
                ""
            },
            dist_line(&s.margin)
        ),
    );
    row(
        "endings",
        format!(
            "{} by the rules, {} by repetition, {} unfinished",
            s.ended_by_rules, s.ended_by_repetition, s.unfinished
        ),
    );
    let mut out = format!(
        "{}: {} games, South {} v North {}, seed {}{}\n",
        s.variant,
        s.games,
        s.players[0],
        s.players[1],
        s.seed,
        if s.opening > 0 {
            format!(", first {} plies random", s.opening)
        } else {
            String::new()
        }
    );
    for (label, text) in rows {
        out += &format!("{:<20} {text}\n", format!("{label}:"));
    }
    out
}

pub fn run(a: StatsArgs) -> Result<()> {
    let rules = a.rules.rules()?;
    let players = parse_players(&a.players)?;
    if let Some(p) = &a.plot {
        if !(p.ends_with(".svg") || p.ends_with(".png")) {
            bail!("--plot: the file must end in .svg or .png, got `{p}`");
        }
        // Before the games are played: a plot that cannot be written fails at once.
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(p)
            .with_context(|| format!("--plot {p}: cannot write the file"))?;
    }
    let mut clocked: Vec<String> = players
        .iter()
        .filter(|p| !p.reproducible())
        .map(|p| p.name())
        .collect();
    clocked.dedup();
    for name in &clocked {
        eprintln!("note: {name} searches against the clock: results vary from run to run");
    }
    if a.opening == 0 && clocked.is_empty() && players.iter().all(|p| p.deterministic()) {
        eprintln!(
            "note: both players are deterministic, so every game is the same; add --opening K for K random plies"
        );
    }
    let cfg = Config {
        start: Position::start(&rules)?,
        players,
        seed: a.seed,
        opening: a.opening,
        max_plies: a.max_plies,
        count_turns: true,
    };
    let threads = a.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting threads")?;
    let bar = ProgressBar::with_draw_target(Some(a.games), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games, {elapsed} (eta {eta})")
            .expect("a valid template"),
    );
    let samples = pool.install(|| play_games(&cfg, a.games, || bar.inc(1)));
    bar.finish_and_clear();
    let summary = summarize(&cfg, &samples);
    if let Some(path) = &a.plot {
        plot(Path::new(path), &summary, &samples)?;
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print!("{}", report(&summary, &rules));
        if let Some(path) = &a.plot {
            println!("{:<20} {path}", "plot:");
        }
    }
    Ok(())
}

/// Bins integer values into at most `max_bins` bins of equal width: (first bin's start, width,
/// counts). Values above `cap` go into the last bin.
fn bins(values: &[i64], max_bins: i64, cap: i64) -> (i64, i64, Vec<u32>) {
    let lo = values.iter().copied().min().unwrap_or(0);
    let hi = values.iter().copied().max().unwrap_or(0).min(cap).max(lo);
    let span = hi - lo + 1;
    let width = ((span + max_bins - 1) / max_bins).max(1);
    let mut counts = vec![0u32; ((span + width - 1) / width) as usize];
    for &v in values {
        counts[((v.min(hi) - lo) / width) as usize] += 1;
    }
    (lo, width, counts)
}

fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = plotters::style::register_font(
            "sans-serif",
            plotters::style::FontStyle::Normal,
            dejavu::sans::regular(),
        );
    });
}

/// Two histograms side by side: game length in plies, and the final margin. Drawn in
/// memory and then written, so a write that fails (a full disk) says so in one line.
pub fn plot(path: &Path, s: &Summary, samples: &[Sample]) -> Result<()> {
    use plotters::prelude::*;
    register_font();
    let (w, h) = (1200, 500);
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let drawing = || format!("drawing {}", path.display());
    let bytes = match ext {
        "svg" => {
            let mut svg = String::new();
            draw(
                SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area(),
                s,
                samples,
            )
            .with_context(drawing)?;
            svg.into_bytes()
        }
        "png" => {
            let mut rgb = vec![0u8; w as usize * h as usize * 3];
            draw(
                BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area(),
                s,
                samples,
            )
            .with_context(drawing)?;
            let mut png = Vec::new();
            let mut encoder = png::Encoder::new(&mut png, w, h);
            encoder.set_color(png::ColorType::Rgb);
            encoder.set_depth(png::BitDepth::Eight);
            let mut writer = encoder.write_header().with_context(drawing)?;
            writer.write_image_data(&rgb).with_context(drawing)?;
            writer.finish().with_context(drawing)?;
            png
        }
        _ => bail!("--plot: the file must end in .svg or .png"),
    };
    std::fs::write(path, bytes)
        .with_context(|| format!("--plot {}: cannot write the file", path.display()))
}

fn draw<DB: plotters::prelude::DrawingBackend>(
    root: plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
    s: &Summary,
    samples: &[Sample],
) -> Result<()> {
    use plotters::prelude::*;
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow::anyhow!("{e}");
    root.fill(&WHITE).map_err(e)?;
    let title = format!(
        "{}: {} games, South {} v North {}",
        s.variant, s.games, s.players[0], s.players[1]
    );
    let root = root.titled(&title, ("sans-serif", 22)).map_err(e)?;
    let width = root.dim_in_pixel().0;
    let (left, right) = root.split_horizontally(width / 2);
    let plies: Vec<i64> = samples.iter().map(|x| x.plies as i64).collect();
    let margins: Vec<i64> = samples.iter().map(|x| x.margin() as i64).collect();
    for (area, values, what, axis, colour, d) in [
        (
            &left,
            &plies,
            "game length",
            "plies",
            RGBColor(0x2b, 0x6c, 0xb0),
            &s.plies,
        ),
        (
            &right,
            &margins,
            "final margin",
            "first player's seeds minus the second's",
            RGBColor(0xc0, 0x5a, 0x1e),
            &s.margin,
        ),
    ] {
        // A long tail (random players wandering in an endgame) would squash the rest: when the
        // tail past the 99th percentile is over half as wide as the body, the last bar holds it.
        let mut sorted = values.to_vec();
        sorted.sort_unstable();
        let p99 = sorted
            .get((sorted.len() * 99).div_ceil(100).saturating_sub(1))
            .copied()
            .unwrap_or(0);
        let cap = if d.max > p99 + (p99 - d.min) / 2 {
            p99
        } else {
            d.max
        };
        let (lo, bin, counts) = bins(values, 120, cap);
        let top = counts.iter().copied().max().unwrap_or(1).max(1);
        let x_hi = lo + bin * counts.len() as i64;
        let tail = values.iter().filter(|&&v| v > cap).count();
        let caption = format!(
            "{what}: mean {:.1}, median {}, range {} to {}{}",
            d.mean,
            d.median,
            d.min,
            d.max,
            if tail > 0 {
                format!(" ({tail} over {cap} in the last bar)")
            } else {
                String::new()
            }
        );
        let mut chart = ChartBuilder::on(area)
            .caption(caption, ("sans-serif", 16))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(lo as f64..x_hi.max(lo + 1) as f64, 0u32..top + top / 10 + 1)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc(axis)
            .y_desc("games")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 14))
            .disable_x_mesh()
            .draw()
            .map_err(e)?;
        chart
            .draw_series(counts.iter().enumerate().map(|(i, &c)| {
                let x0 = (lo + i as i64 * bin) as f64;
                Rectangle::new([(x0, 0), (x0 + bin as f64, c)], colour.filled())
            }))
            .map_err(e)?;
    }
    root.present().map_err(e)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(rules: &str, players: [Player; 2], seed: u64) -> Config {
        Config {
            start: Position::start(&rules.parse().unwrap()).unwrap(),
            players,
            seed,
            opening: 0,
            max_plies: 5000,
            count_turns: true,
        }
    }

    fn run_with_threads(cfg: &Config, games: u64, threads: usize) -> Vec<Sample> {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| play_games(cfg, games, || {}))
    }

    #[test]
    fn same_seed_same_games_on_any_number_of_threads() {
        for (rules, players, games) in [
            ("kauri", [Player::Random; 2], 40),
            (
                "kalah",
                [Player::Engine(Level::new(2).unwrap()), Player::Random],
                10,
            ),
            (
                "kauri",
                [Player::Engine(Level::new(5).unwrap()), Player::Random],
                8,
            ),
        ] {
            let c = cfg(rules, players, 7);
            let a = run_with_threads(&c, games, 1);
            let b = run_with_threads(&c, games, 2);
            assert_eq!(a, b, "{rules}");
            assert_eq!(
                report(&summarize(&c, &a), c.start.rules()),
                report(&summarize(&c, &b), c.start.rules())
            );
            // A game played alone on a fresh thread, and again on that thread, is the same game
            // as in the run: nothing leaks from one game to the next (an engine's table, say).
            let k = games as usize / 2;
            let c2 = c.clone();
            let [once, twice] =
                std::thread::spawn(move || [play_game(&c2, k as u64), play_game(&c2, k as u64)])
                    .join()
                    .unwrap();
            assert_eq!(once, a[k], "{rules}");
            assert_eq!(
                twice, a[k],
                "{rules}: the same game again on a thread that knows it"
            );
            let other = run_with_threads(&cfg(rules, players, 8), games, 2);
            assert_ne!(a, other, "{rules}: another seed gives other games");
        }
    }

    /// Expected plies, turns and the sum of legal-move counts of a game between uniform random
    /// players, by enumerating the whole game tree with each move's probability.
    fn expected(pos: &Position, turn_start: bool) -> (f64, f64, f64) {
        if pos.is_over() {
            return (0.0, 0.0, 0.0);
        }
        let legal = pos.legal_moves();
        let n = legal.len() as f64;
        let (mut l, mut t, mut s) = (0.0, 0.0, 0.0);
        for mv in &legal {
            let mut c = *pos;
            let e = c.play(mv).unwrap();
            let (cl, ct, cs) = expected(&c, !e.again);
            l += cl / n;
            t += ct / n;
            s += cs / n;
        }
        (1.0 + l, t + turn_start as u8 as f64, n + s)
    }

    /// Shortest and longest game, and the number of distinct games (leaves of the tree).
    fn tree(pos: &Position, depth: u32) -> (u32, u32, u64) {
        if pos.is_over() {
            return (depth, depth, 1);
        }
        let mut r = (u32::MAX, 0, 0);
        for mv in &pos.legal_moves() {
            let mut c = *pos;
            c.play(mv).unwrap();
            let (lo, hi, n) = tree(&c, depth + 1);
            r = (r.0.min(lo), r.1.max(hi), r.2 + n);
        }
        r
    }

    #[test]
    fn random_play_matches_the_enumerated_game_tree() {
        // Kalah with 3 pits of 1 seed: small enough to enumerate, big enough to have extra
        // turns and captures.
        let rules = "kalah,pits=3,seeds=1";
        let c = cfg(rules, [Player::Random; 2], 11);
        let start = c.start;
        let (e_plies, e_turns, e_legal) = expected(&start, true);
        let (shortest, longest, games) = tree(&start, 0);
        // The same leaf count by perft (a game that ends early counts once).
        let perft = with_family!(start, p => mancala_core::perft::perft(p, longest));
        assert_eq!(perft, games);
        let samples = run_with_threads(&c, 20_000, 2);
        let s = summarize(&c, &samples);
        // Every path of the tree is met, and nothing else.
        let distinct: std::collections::HashSet<&Vec<u8>> =
            samples.iter().map(|x| &x.moves).collect();
        assert_eq!(distinct.len() as u64, games, "distinct games seen");
        assert_eq!(s.plies.min as u32, shortest);
        assert_eq!(s.plies.max as u32, longest);
        // Means within four standard errors of the exact expectations.
        let n = samples.len() as f64;
        let close = |got: f64, want: f64, sd: f64, what: &str| {
            let se = sd / n.sqrt();
            assert!(
                (got - want).abs() < 4.0 * se + 1e-9,
                "{what}: measured {got}, exact {want} (se {se})"
            );
        };
        close(s.plies.mean, e_plies, s.plies.sd, "plies");
        close(s.turns.mean, e_turns, s.turns.sd, "turns");
        // Branching per ply is a ratio of means: total legal moves / total plies.
        let want_b = e_legal / e_plies;
        assert!(
            (s.branching_per_ply.mean - want_b).abs() < 0.02,
            "branching {} vs exact {want_b}",
            s.branching_per_ply.mean
        );
    }

    #[test]
    fn turn_options_count_whole_turns_like_perft_by_turn() {
        for rules in ["kalah,seeds=4", "kauri", "kalah,pits=3,seeds=1", "dracala"] {
            let mut g = Game::from_rules(&rules.parse().unwrap()).unwrap();
            let mut rng = Rng::new(3);
            for _ in 0..12 {
                if g.is_over() {
                    break;
                }
                let pos = *g.position();
                let want = with_family!(pos, p => mancala_core::perft::perft_turns(p, 1));
                assert_eq!(turn_options(&pos, u64::MAX).0, want, "{rules} at {pos}");
                let legal = g.legal_moves();
                g.play(legal.as_slice()[rng.below(legal.len())]).unwrap();
            }
        }
    }

    #[test]
    fn distribution_percentiles_by_nearest_rank() {
        let d = Distribution::of(&(1..=10).collect::<Vec<i64>>());
        assert_eq!(
            (d.min, d.p10, d.p25, d.median, d.p75, d.p90, d.max),
            (1, 1, 3, 5, 8, 9, 10)
        );
        assert!((d.mean - 5.5).abs() < 1e-12);
    }

    #[test]
    fn players_parse() {
        assert_eq!(parse_players("random").unwrap(), [Player::Random; 2]);
        let p = parse_players("random,5").unwrap();
        assert_eq!(p[0], Player::Random);
        assert_eq!(p[1], Player::Engine(Level::new(5).unwrap()));
        assert!(parse_players("9").is_err());
        assert!(parse_players("1,2,3").is_err());
    }

    #[test]
    fn plots_svg_and_png() {
        let c = cfg("kalah", [Player::Random; 2], 1);
        let samples = run_with_threads(&c, 200, 2);
        let s = summarize(&c, &samples);
        let dir = std::env::temp_dir().join(format!("mancala-stats-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let svg = dir.join("p.svg");
        plot(&svg, &s, &samples).unwrap();
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(text.contains("<svg") && text.contains("game length"));
        let png = dir.join("p.png");
        plot(&png, &s, &samples).unwrap();
        let bytes = std::fs::read(&png).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        std::fs::remove_dir_all(&dir).ok();
    }
}
