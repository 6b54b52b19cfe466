//! Matches between two players: openings played at random, each opening with both colours,
//! games in parallel, and the result as a score and an Elo difference with its 95 % interval.
//!
//! Everything is seeded: the openings come from an [`Rng::xorshift`] of the match's seed, and
//! each game's per-move seeds from an [`Rng::lcg`] of the seed and the game's place, so a
//! match of players without a clock gives the same result on any number of threads. The games
//! are [`play_out`]'s loop between two [`Seat`]s.

use anyhow::Result;
use mancala_core::{Position, Rules, Side};
use rayon::prelude::*;

use crate::game::{play_out, Seat};
use crate::player::Player;
use crate::rng::Rng;

/// A match game running past this many plies is an error.
pub const MAX_PLIES: usize = 2000;

/// What decides a match.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// The game played.
    pub rules: Rules,
    /// Player A (whose score and Elo are reported).
    pub a: Player,
    /// Player B.
    pub b: Player,
    /// Games asked for; rounded up to an even number (pairs of colours).
    pub games: u32,
    /// Games played at once.
    pub threads: usize,
    /// The first pair starts from the start; pair `k` after `1 + k % openings` random plies
    /// (none when 0).
    pub openings: usize,
    /// Seed of the openings and of the players' random choices.
    pub seed: u64,
}

/// A match's results, from A's view.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchResult {
    /// Each game's score for A, 1, 0.5 or 0, pair by pair (A South, then A North).
    pub results: Vec<f64>,
    /// Games A won.
    pub wins: usize,
    /// Games drawn.
    pub draws: usize,
    /// Games A lost.
    pub losses: usize,
    /// A's mean score, 0 to 1.
    pub score: f64,
    /// One side won every game: the difference is not measured.
    pub sweep: bool,
    /// Every game was drawn: the games' spread is 0, but that bounds nothing (the next game
    /// may be won), so no interval is given.
    pub all_drawn: bool,
    /// The Elo difference A - B, `None` where unbounded (see [`elo`]).
    pub elo: Option<f64>,
    /// The ends of its 95 % interval, each `None` where unbounded or not given.
    pub elo_95: (Option<f64>, Option<f64>),
}

impl MatchResult {
    /// The summary of the games' scores for A.
    pub fn of(results: Vec<f64>) -> MatchResult {
        let n = results.len() as f64;
        let wins = results.iter().filter(|&&r| r == 1.0).count();
        let draws = results.iter().filter(|&&r| r == 0.5).count();
        let losses = results.len() - wins - draws;
        let score = results.iter().sum::<f64>() / n;
        let var = results.iter().map(|r| (r - score).powi(2)).sum::<f64>() / n;
        let se = (var / n).sqrt();
        let sweep = wins == results.len() || losses == results.len();
        let all_drawn = draws == results.len();
        let elo_95 = if all_drawn {
            (None, None)
        } else {
            (elo(score - 1.96 * se), elo(score + 1.96 * se))
        };
        MatchResult {
            elo: elo(score),
            results,
            wins,
            draws,
            losses,
            score,
            sweep,
            all_drawn,
            elo_95,
        }
    }

    /// Games played.
    pub fn games(&self) -> usize {
        self.results.len()
    }
}

/// Elo difference for score fraction `s`; `None` where it is unbounded (`s` at 0 or 1, or
/// within 0.1 % of them: beyond 1200 Elo).
pub fn elo(s: f64) -> Option<f64> {
    ((1e-3..=1.0 - 1e-3).contains(&s)).then(|| -400.0 * (1.0 / s - 1.0).log10() + 0.0)
}

/// Plays one game from `start`, A on `a_side`, each with a [`Seat`]; A's score: 1, 0.5 or 0.
pub fn play_game(start: &Position, a: Player, b: Player, a_side: Side, seed: u64) -> Result<f64> {
    let (mut sa, mut sb) = (Seat::new(a), Seat::new(b));
    let (south, north) = match a_side {
        Side::South => (&mut sa, &mut sb),
        Side::North => (&mut sb, &mut sa),
    };
    let game = play_out(*start, south, north, &mut Rng::lcg(seed), MAX_PLIES)?;
    Ok(match game.outcome().and_then(|o| o.winner()) {
        Some(w) if w == a_side => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    })
}

/// The start of each pair of games: pair 0 the rules' start, the others after random plies
/// (an opening that ends the game is replaced by the start).
pub fn openings(rules: &Rules, pairs: usize, openings: usize, seed: u64) -> Result<Vec<Position>> {
    let mut starts = Vec::new();
    let mut rng = Rng::xorshift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    for pair in 0..pairs {
        let mut p = Position::start(rules)?;
        let plies = if pair == 0 || openings == 0 {
            0
        } else {
            1 + pair % openings
        };
        for _ in 0..plies {
            let r = rng.next_u64();
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            p.play(moves.as_slice()[(r % moves.len() as u64) as usize])?;
        }
        if p.is_over() {
            p = Position::start(rules)?;
        }
        starts.push(p);
    }
    Ok(starts)
}

/// Plays the match on its own pool of `cfg.threads` threads.
pub fn play_match(cfg: &MatchConfig) -> Result<MatchResult> {
    let pairs = cfg.games.div_ceil(2) as usize;
    let starts = openings(&cfg.rules, pairs, cfg.openings, cfg.seed)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .build()?;
    let jobs: Vec<(usize, Side)> = (0..pairs)
        .flat_map(|i| [(i, Side::South), (i, Side::North)])
        .collect();
    let results: Vec<f64> = pool.install(|| {
        jobs.par_iter()
            .map(|&(i, side)| {
                play_game(
                    &starts[i],
                    cfg.a,
                    cfg.b,
                    side,
                    cfg.seed ^ (i as u64 * 31 + side as u64),
                )
            })
            .collect::<Result<Vec<f64>>>()
    })?;
    Ok(MatchResult::of(results))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_engine::Level;

    #[test]
    fn elo_of_scores() {
        assert_eq!(elo(0.5), Some(0.0));
        assert!((elo(0.75).unwrap() - 190.848).abs() < 1e-3);
        assert_eq!(elo(1.0), None);
        assert_eq!(elo(0.0), None);
    }

    #[test]
    fn all_drawn_gives_no_interval_and_a_sweep_no_difference() {
        let r = MatchResult::of(vec![0.5; 4]);
        assert!(r.all_drawn && !r.sweep);
        assert_eq!((r.elo, r.elo_95), (Some(0.0), (None, None)));
        let r = MatchResult::of(vec![1.0; 4]);
        assert!(r.sweep && r.elo.is_none());
    }

    #[test]
    fn a_match_is_the_same_on_any_number_of_threads() {
        let cfg = |threads| MatchConfig {
            rules: "kalah,pits=4,seeds=3".parse().unwrap(),
            a: Player::Engine(Level::new(2).unwrap()),
            b: Player::Random,
            games: 6,
            threads,
            openings: 3,
            seed: 5,
        };
        assert_eq!(play_match(&cfg(1)).unwrap(), play_match(&cfg(2)).unwrap());
    }
}
