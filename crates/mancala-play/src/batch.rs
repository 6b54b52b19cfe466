//! Many games stepped together, for agents that learn: every game of one set of rules, moved
//! by an array of actions at once, with observations, rewards, ends and legal-move masks
//! written into flat arrays, finished games started again, the openings drawn from one seed.
//!
//! # Observation layout
//! A position is seen from the side to move, as `f32` counts, [`observation_len`] of them:
//!
//! | index | what |
//! |---|---|
//! | `0..m` | the mover's pits, seeds, from his left |
//! | `m..2m` | the opponent's pits, seeds, from the opponent's left |
//! | `2m` | the mover's store |
//! | `2m + 1` | the opponent's store |
//! | `2m + 2..3m + 2` | (games with cowries only, Kauri) the mover's pits, cowries |
//! | `3m + 2..4m + 2` | (games with cowries only) the opponent's pits, cowries |
//!
//! So both players see the board alike: mover's pit `i` faces the opponent's pit `m - 1 - i`
//! in the Kalah family. Counts are raw (not scaled). A finished game is seen from the side
//! that would have moved next. What the layout leaves out (who moved last under
//! `leftovers=last-capturer`, the positions so far for the repetition rule) is in the game.

use mancala_core::{Error, Game, Outcome, Position, Rules, Side};
use mancala_engine::{Evaluation, Quality};

use crate::rng::Rng;

/// Entries of an observation of a game of `rules` (see the module docs).
pub fn observation_len(rules: &Rules) -> usize {
    let m = rules.pits as usize;
    if rules.has_cowries() {
        4 * m + 2
    } else {
        2 * m + 2
    }
}

/// Writes the observation of `pos` from its side to move into `out`, which holds
/// [`observation_len`] entries.
pub fn write_observation(pos: &Position, out: &mut [f32]) {
    let m = pos.pits();
    let me = pos.to_move();
    let them = me.other();
    for i in 0..m {
        out[i] = pos.seeds(me, i) as f32;
        out[m + i] = pos.seeds(them, i) as f32;
    }
    let s = pos.scores();
    out[2 * m] = s[me.index()] as f32;
    out[2 * m + 1] = s[them.index()] as f32;
    if pos.rules().has_cowries() {
        for i in 0..m {
            out[2 * m + 2 + i] = pos.cowries(me, i) as f32;
            out[3 * m + 2 + i] = pos.cowries(them, i) as f32;
        }
    }
}

/// Writes the legal moves of `game` as a mask of its `m` pits from the mover's left.
pub fn write_mask(game: &Game, out: &mut [bool]) {
    out.fill(false);
    for pit in &game.legal_moves() {
        out[pit as usize] = true;
    }
}

/// What a finished game pays the player who made its last move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reward {
    /// +1 for a win, -1 for a loss, 0 for a draw (Kauri's cowrie rule and the misère rule
    /// decide, as the game's outcome does).
    Win,
    /// The final seed margin, turned so that higher is better ([`Evaluation::score`]: negated
    /// in a misère game).
    Margin,
}

impl Reward {
    /// `win` or `margin`.
    pub fn parse(s: &str) -> Result<Reward, String> {
        match s {
            "win" => Ok(Reward::Win),
            "margin" => Ok(Reward::Margin),
            _ => Err(format!("reward `{s}`: give `win` or `margin`")),
        }
    }

    /// The reward of finished `game` for `side`.
    pub fn of(self, game: &Game, side: Side) -> f32 {
        match self {
            Reward::Win => match game.outcome() {
                Some(Outcome::Win(s)) if s == side => 1.0,
                Some(Outcome::Win(_)) => -1.0,
                _ => 0.0,
            },
            Reward::Margin => {
                let s = game.scores();
                Evaluation {
                    side,
                    margin: s[side.index()] as i32 - s[side.other().index()] as i32,
                    lower_is_better: game.rules().misere(),
                    quality: Quality::Proven,
                }
                .score() as f32
            }
        }
    }
}

/// `n` games of one start position, stepped together.
#[derive(Clone, Debug)]
pub struct Batch {
    start: Position,
    games: Vec<Game>,
    rng: Rng,
    opening: u32,
    reward: Reward,
    final_scores: Vec<[u8; 2]>,
}

impl Batch {
    /// `n` games from `start`, each opened by up to `opening` random plies (the number drawn
    /// for each game, 0 to `opening`) from a generator seeded with `seed`.
    pub fn new(start: Position, n: usize, seed: u64, opening: u32, reward: Reward) -> Batch {
        let mut b = Batch {
            start,
            games: Vec::with_capacity(n),
            rng: Rng::new(seed),
            opening,
            reward,
            final_scores: vec![[0; 2]; n],
        };
        for _ in 0..n {
            let g = b.fresh();
            b.games.push(g);
        }
        b
    }

    /// A new game from the start, opened by the random plies.
    fn fresh(&mut self) -> Game {
        let mut g = Game::new(self.start);
        if self.opening > 0 {
            let plies = self.rng.below(self.opening as usize + 1);
            for _ in 0..plies {
                let legal = g.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let pit = self.rng.pick(legal.as_slice());
                g.play(pit).expect("a legal move");
            }
            // An opening that ended the game gives the plain start instead.
            if g.is_over() {
                g = Game::new(self.start);
            }
        }
        g
    }

    /// Starts every game again, the generator seeded with `seed` when given.
    pub fn reset(&mut self, seed: Option<u64>) {
        if let Some(s) = seed {
            self.rng = Rng::new(s);
        }
        for i in 0..self.games.len() {
            self.games[i] = self.fresh();
            self.final_scores[i] = [0; 2];
        }
    }

    /// The games.
    pub fn games(&self) -> &[Game] {
        &self.games
    }

    /// The rules of the games.
    pub fn rules(&self) -> &Rules {
        self.start.rules()
    }

    /// Plays `actions[i]` (own pit, 0-based from the mover's left) in game `i`. The reward of
    /// game `i` is for the player who made that move (0 until a game ends); a game that ends
    /// is marked done, its stores kept in [`Batch::final_scores`], and is started again.
    ///
    /// Errors: the wrong number of actions, or an illegal one (naming its game); then no game
    /// has moved.
    pub fn step(
        &mut self,
        actions: &[i64],
        rewards: &mut [f32],
        dones: &mut [bool],
    ) -> Result<(), Error> {
        if actions.len() != self.games.len() {
            return Err(Error::IllegalMove(format!(
                "{} actions for {} games",
                actions.len(),
                self.games.len()
            )));
        }
        for (i, (g, &a)) in self.games.iter().zip(actions).enumerate() {
            let legal = g.legal_moves();
            if !(0..=255).contains(&a) || !legal.contains(a as u8) {
                return Err(Error::IllegalMove(format!(
                    "game {i}: pit {a} is not a legal move (legal: {:?})",
                    legal.as_slice()
                )));
            }
        }
        for i in 0..self.games.len() {
            let g = &mut self.games[i];
            let side = g.to_move();
            g.play(actions[i] as u8).expect("checked above");
            if g.is_over() {
                rewards[i] = self.reward.of(g, side);
                dones[i] = true;
                self.final_scores[i] = g.scores();
                self.games[i] = self.fresh();
            } else {
                rewards[i] = 0.0;
                dones[i] = false;
            }
        }
        Ok(())
    }

    /// The stores (South, North) at the end of each game that ended at the last step; zeros
    /// for the others and before any step.
    pub fn final_scores(&self) -> &[[u8; 2]] {
        &self.final_scores
    }

    /// Writes every game's observation (see the module docs), one row a game.
    pub fn write_observations(&self, out: &mut [f32]) {
        let k = observation_len(self.rules());
        for (g, row) in self.games.iter().zip(out.chunks_exact_mut(k)) {
            write_observation(g.position(), row);
        }
    }

    /// Writes every game's legal-move mask, one row of `m` pits a game.
    pub fn write_masks(&self, out: &mut [bool]) {
        let m = self.start.pits();
        for (g, row) in self.games.iter().zip(out.chunks_exact_mut(m)) {
            write_mask(g, row);
        }
    }

    /// Writes a legal move of every game drawn uniformly from the generator.
    pub fn sample_actions(&mut self, out: &mut [i64]) {
        for (g, a) in self.games.iter().zip(out.iter_mut()) {
            *a = self.rng.pick(g.legal_moves().as_slice()) as i64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(rules: &str, n: usize, seed: u64) -> Batch {
        let start = Position::start(&rules.parse().unwrap()).unwrap();
        Batch::new(start, n, seed, 0, Reward::Win)
    }

    #[test]
    fn observation_is_from_the_movers_view() {
        let mut g = Game::from_rules(&"kalah,seeds=4".parse().unwrap()).unwrap();
        g.play(2).unwrap(); // C: the last seed in the store, South moves again
        g.play(5).unwrap(); // F: one seed in the store, four in North's pits 1-4
        assert_eq!(g.to_move(), Side::North);
        let mut o = vec![0.0; 14];
        write_observation(g.position(), &mut o);
        assert_eq!(&o[0..6], &[5.0, 5.0, 5.0, 5.0, 4.0, 4.0]);
        assert_eq!(&o[6..12], &[4.0, 4.0, 0.0, 5.0, 5.0, 0.0]);
        assert_eq!(&o[12..14], &[0.0, 2.0]);
    }

    #[test]
    fn kauri_observations_carry_cowries() {
        let rules: Rules = "kauri".parse().unwrap();
        let m = rules.pits as usize;
        assert_eq!(observation_len(&rules), 4 * m + 2);
        let pos = Position::start(&rules).unwrap();
        let mut o = vec![0.0; 4 * m + 2];
        write_observation(&pos, &mut o);
        let cowries: f32 = o[2 * m + 2..].iter().sum();
        assert_eq!(
            cowries as u32,
            (0..m)
                .map(|i| 2 * pos.cowries(Side::South, i) as u32)
                .sum::<u32>()
        );
        assert!(cowries > 0.0);
    }

    #[test]
    fn same_seed_same_games_and_games_restart() {
        let mut a = batch("kalah", 16, 7);
        let mut b = batch("kalah", 16, 7);
        let (mut r, mut d) = (vec![0.0; 16], vec![false; 16]);
        let mut acts = vec![0i64; 16];
        let mut ended = 0;
        let mut total = 0.0;
        for _ in 0..400 {
            a.sample_actions(&mut acts);
            let mut acts_b = vec![0i64; 16];
            b.sample_actions(&mut acts_b);
            assert_eq!(acts, acts_b);
            a.step(&acts, &mut r, &mut d).unwrap();
            b.step(&acts, &mut r.clone(), &mut d.clone()).unwrap();
            for i in 0..16 {
                if d[i] {
                    ended += 1;
                    total += r[i];
                    let s = a.final_scores()[i];
                    assert_eq!(s[0] as u32 + s[1] as u32, 36);
                    assert!([-1.0, 0.0, 1.0].contains(&r[i]));
                } else {
                    assert_eq!(r[i], 0.0);
                }
            }
        }
        assert!(ended > 50, "{ended} games ended");
        assert!(total.abs() <= ended as f32);
        let mut oa = vec![0.0; 16 * 14];
        let mut ob = oa.clone();
        a.write_observations(&mut oa);
        b.write_observations(&mut ob);
        assert_eq!(oa, ob);
    }

    #[test]
    fn an_illegal_action_moves_no_game() {
        let mut b = batch("kalah", 2, 1);
        let (mut r, mut d) = (vec![0.0; 2], vec![false; 2]);
        let before: Vec<Position> = b.games().iter().map(|g| *g.position()).collect();
        let e = b.step(&[0, 9], &mut r, &mut d).unwrap_err();
        assert!(e.to_string().contains("game 1: pit 9"), "{e}");
        assert!(b.step(&[0], &mut r, &mut d).is_err());
        assert!(b.step(&[-1, 0], &mut r, &mut d).is_err());
        let after: Vec<Position> = b.games().iter().map(|g| *g.position()).collect();
        assert_eq!(before, after);
        let mut mask = vec![false; 12];
        b.write_masks(&mut mask);
        assert!(mask.iter().all(|&x| x));
    }

    #[test]
    fn margin_rewards_follow_the_misere_rule() {
        let mut b = Batch::new(
            Position::start(&"dracala".parse().unwrap()).unwrap(),
            8,
            3,
            4,
            Reward::Margin,
        );
        let n = 8;
        let (mut r, mut d, mut acts) = (vec![0.0; n], vec![false; n], vec![0i64; n]);
        let mut seen = 0;
        for _ in 0..2000 {
            let movers: Vec<Side> = b.games().iter().map(|g| g.to_move()).collect();
            b.sample_actions(&mut acts);
            b.step(&acts, &mut r, &mut d).unwrap();
            for i in 0..n {
                if d[i] {
                    let s = b.final_scores()[i];
                    let m = movers[i];
                    let margin = s[m.index()] as f32 - s[m.other().index()] as f32;
                    assert_eq!(r[i], -margin);
                    seen += 1;
                }
            }
        }
        assert!(seen > 10);
    }
}
