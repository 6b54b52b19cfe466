//! Statistics over many seeded games between random or engine players: game length, branching
//! factor, game-tree complexity and the first player's results, each with its spread.
//!
//! What is counted:
//! - **ply**: one sowing (one move). **turn**: a player's whole go (a move and its extra
//!   moves; in Kauri a run of sowings while the opponent, with no cowrie, passes).
//! - **branching factor per ply**: the legal moves at every position where a move is played,
//!   averaged over all those positions of all games (positions with one legal move count; the
//!   share of them is kept, and the average without them).
//! - **branching factor per turn**: the distinct whole turns (sequences of sowings) open to the
//!   player at the start of each turn, averaged over turns. This is how a Kauri player blocked
//!   for a while sees it ("more than 200 options", Ralf Gering's *Kauri* page). The count is
//!   capped at [`TURN_COUNT_CAP`] sequences a turn; capped turns are counted.
//! - **complexity**: branching factor to the power of the average length (Allis's estimate of
//!   the game-tree size), by ply and by turn.
//!
//! Each game's randomness comes from its own seed, derived from the run's seed and the game's
//! number ([`Rng::derive`]), so the results do not depend on the number of threads or their
//! scheduling.

use mancala_core::with_family;
use mancala_core::{Game, GameState, Outcome, Position, Side};
use mancala_engine::{Engine, Level};
use rayon::prelude::*;
use serde::Serialize;

use crate::player::Player;
use crate::rng::Rng;

/// Turns counted beyond this many distinct sowing sequences are not enumerated further.
pub const TURN_COUNT_CAP: u64 = 100_000;

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Ending {
    /// By the rules (including a decided game under stop-when-decided).
    Rules,
    /// The repetition rule (a position occurring a third time, or a second in Oware).
    Repetition,
    /// Stopped at [`Config::max_plies`].
    Unfinished,
}

/// What one game contributes to the statistics.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Plies (moves) played.
    pub plies: u32,
    /// Turns played.
    pub turns: u32,
    /// Sum of the legal-move counts at every ply played.
    pub legal_sum: u64,
    /// Sum of their squares.
    pub legal_sq: u64,
    /// Plies where only one move was legal.
    pub forced: u32,
    /// Sum of the distinct-turn counts at every turn's start.
    pub turn_options_sum: u64,
    /// Sum of their squares.
    pub turn_options_sq: f64,
    /// Turns whose count hit [`TURN_COUNT_CAP`].
    pub turns_capped: u32,
    /// South's and North's scores at the end.
    pub scores: [u16; 2],
    /// The side that moved first.
    pub first: Side,
    /// The result, `None` for a game stopped unfinished.
    pub outcome: Option<Outcome>,
    /// How the game ended.
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

/// Distinct whole turns from `pos` (sequences of sowings by its mover), at most `cap`, and
/// whether the count stopped at `cap`.
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
    /// The position every game starts from.
    pub start: Position,
    /// South's and North's players (a person, not being there, plays at random).
    pub players: [Player; 2],
    /// Seed of every random choice.
    pub seed: u64,
    /// Plies played at random at the start of every game, whoever the players are.
    pub opening: u32,
    /// A game still going after this many plies is stopped and counted as unfinished.
    pub max_plies: u32,
    /// Count distinct turns at each turn start (the per-turn branching factor).
    pub count_turns: bool,
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
    let mut rng = Rng::new(Rng::derive(cfg.seed, index));
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
        let pit = match player {
            _ if s.plies < cfg.opening => legal.as_slice()[(r % n) as usize],
            Player::Engine(level) => {
                let side = pos.to_move().index();
                let fresh = !std::mem::replace(&mut engine_used[side], true);
                with_engine(side, &level, fresh, |e| {
                    level.choose_with(e, &pos, &history, r)
                })
                .expect("a live position")
            }
            Player::Mcts(playouts) => {
                mancala_engine::mcts::choose(&pos, playouts, r).expect("a live position")
            }
            Player::Greedy => crate::player::greedy_move(&pos).expect("a live position"),
            Player::Random | Player::Human => legal.as_slice()[(r % n) as usize],
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
    /// Mean.
    pub mean: f64,
    /// Standard deviation (of the games, not of the mean).
    pub sd: f64,
    /// Smallest value.
    pub min: i64,
    /// 10th percentile (nearest rank).
    pub p10: i64,
    /// 25th percentile.
    pub p25: i64,
    /// Median.
    pub median: i64,
    /// 75th percentile.
    pub p75: i64,
    /// 90th percentile.
    pub p90: i64,
    /// Largest value.
    pub max: i64,
}

impl Distribution {
    /// The distribution of `values` (all zero when empty).
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
    /// The share, 0 to 1.
    pub rate: f64,
    /// Its standard error.
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
    /// log10 of b^L.
    pub log10: f64,
    /// The range's low end.
    pub log10_low: f64,
    /// The range's high end.
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
    /// Mean options a decision.
    pub mean: f64,
    /// Standard deviation a decision.
    pub sd: f64,
    /// Standard error of the mean.
    pub standard_error: f64,
    /// Decisions (plies or turns) counted.
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
    /// The rules played, by name.
    pub variant: String,
    /// Games played.
    pub games: usize,
    /// South's and North's players, by [`Player::name`].
    pub players: [String; 2],
    /// The run's seed.
    pub seed: u64,
    /// Random plies at the start of every game.
    pub opening: u32,
    /// Game length in plies.
    pub plies: Distribution,
    /// Game length in turns.
    pub turns: Distribution,
    /// Legal moves per ply played (forced plies included).
    pub branching_per_ply: Branching,
    /// Same, leaving out plies with one legal move.
    pub branching_per_ply_unforced: Branching,
    /// Share of the plies with one legal move.
    pub forced_share: f64,
    /// Distinct whole turns per turn; `None` when not counted.
    pub branching_per_turn: Option<Branching>,
    /// Turns whose count hit [`TURN_COUNT_CAP`].
    pub turns_capped: u64,
    /// Game-tree complexity from plies.
    pub complexity_by_ply: Complexity,
    /// Game-tree complexity from turns; `None` when turns are not counted.
    pub complexity_by_turn: Option<Complexity>,
    /// The side that moves first.
    pub first_player: Side,
    /// Games the first player won (of all games, unfinished ones included).
    pub first_wins: Rate,
    /// Games drawn.
    pub draws: Rate,
    /// Games the first player lost.
    pub first_losses: Rate,
    /// First player's score minus the second's, at the end.
    pub margin: Distribution,
    /// Games ended by the rules.
    pub ended_by_rules: usize,
    /// Games ended by repetition.
    pub ended_by_repetition: usize,
    /// Games stopped unfinished.
    pub unfinished: usize,
}

/// The statistics of `samples`, the games `cfg` played.
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
            assert_eq!(summarize(&c, &a), summarize(&c, &b));
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
}
