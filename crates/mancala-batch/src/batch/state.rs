//! A batch's state taken out and put back: each game as its start and the moves since, the
//! generators' states and the final scores (what a copy or a pickled batch is rebuilt from).

use mancala_core::rng::Rng;
use mancala_core::{Game, Moves, Position, Side};

use super::slot::{Play, Slot};
use super::{Batch, Reward};

impl Batch {
    /// Game `i` as its start and the pits played since (oldest first): for games that keep
    /// their positions for the repetition rule, the start of the game and its moves; for the
    /// others, the position now and no move. [`Batch::set_game`] takes it back.
    pub fn game_state(&self, i: usize) -> (Position, Vec<u8>) {
        match &self.slots[i].play {
            Play::Kept(g) => (*g.start(), g.moves().iter().map(|m| m.pit).collect()),
            _ => (self.position(i), Vec::new()),
        }
    }

    /// Makes game `i` the game from `start` with `moves` played (as [`Batch::game_state`]
    /// gives it), clearing its final scores. Refused, and the game left as it was: an index
    /// out of range, other rules than the batch's, an illegal move, a game that is over, or
    /// a position the batch's board cannot hold (more seeds than its games have).
    pub fn set_game(&mut self, i: usize, start: Position, moves: &[u8]) -> Result<(), String> {
        let n = self.slots.len();
        if i >= n {
            return Err(format!("game {i}: the batch has {n} games"));
        }
        if start.rules() != self.rules() {
            return Err(format!(
                "game {i}: the position plays `{}`, not the batch's `{}`",
                start.rules(),
                self.rules()
            ));
        }
        let mut g = Game::new(start);
        for (k, &pit) in moves.iter().enumerate() {
            if g.is_over() || !g.legal_moves().contains(pit) {
                return Err(format!("game {i}: move {k} (pit {pit}) is not legal"));
            }
            g.play(pit)
                .map_err(|e| format!("game {i}: move {k}: {e}"))?;
        }
        if g.is_over() {
            return Err(format!(
                "game {i}: the game is over (a batch's games are never over)"
            ));
        }
        let slot = match (&self.fast, start.rules().can_repeat()) {
            (Some(f), _) => {
                let p = *g.position();
                let total: u32 = [Side::South, Side::North]
                    .iter()
                    .map(|&s| (0..p.pits()).map(|j| p.seeds(s, j) as u32).sum::<u32>())
                    .sum::<u32>()
                    + p.scores().iter().map(|&s| s as u32).sum::<u32>();
                let game = p
                    .as_kalah()
                    .filter(|_| total <= 255)
                    .and_then(|k| f.rules.game(k))
                    .ok_or_else(|| {
                        format!("game {i}: {total} seeds do not fit the batch's board")
                    })?;
                Slot {
                    play: Play::Fast(game),
                    legal: Moves::default(),
                }
            }
            (None, true) => {
                let mut s = Slot {
                    play: Play::Kept(g),
                    legal: Moves::default(),
                };
                s.legal = s.read_legal();
                s
            }
            (None, false) => Slot::new(*g.position(), None),
        };
        self.legal[i] = match &slot.play {
            Play::Fast(g) => g.legal_bits(),
            _ => 0,
        };
        self.slots[i] = slot;
        self.final_scores[i] = [0; 2];
        Ok(())
    }

    /// The state of every game's generator (from which [`Batch::set_rng_states`] continues).
    pub fn rng_states(&self) -> Vec<u64> {
        self.rngs
            .iter()
            .map(|r| {
                r.splitmix_state()
                    .expect("a batch's generators are SplitMix64")
            })
            .collect()
    }

    /// Sets every game's generator to a state of [`Batch::rng_states`]; refused for another
    /// number of states than games.
    pub fn set_rng_states(&mut self, states: &[u64]) -> Result<(), String> {
        if states.len() != self.rngs.len() {
            return Err(format!(
                "{} generator states for {} games",
                states.len(),
                self.rngs.len()
            ));
        }
        self.rngs = states.iter().map(|&s| Rng::new(s)).collect();
        Ok(())
    }

    /// Sets the final scores [`Batch::final_scores`] reports (as a copy's), one pair a game;
    /// refused for another number of pairs than games.
    pub fn set_final_scores(&mut self, scores: &[[u16; 2]]) -> Result<(), String> {
        if scores.len() != self.final_scores.len() {
            return Err(format!(
                "{} final scores for {} games",
                scores.len(),
                self.final_scores.len()
            ));
        }
        self.final_scores.copy_from_slice(scores);
        Ok(())
    }

    /// The batch's start, the bound of its openings and its reward.
    pub fn config(&self) -> (Position, u32, Reward) {
        (self.start, self.opening, self.reward)
    }
}
