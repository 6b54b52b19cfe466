//! The game loop: a game played out between two sources of moves, a person's input or a
//! computer player, each move's seed drawn from one generator of the game.

use anyhow::{bail, Context, Result};
use mancala_core::{Game, Position};
use mancala_engine::Engine;

use crate::player::Player;
use crate::rng::Rng;

/// Where one side's moves come from.
pub trait MoveSource {
    /// The move (an own pit) for the side to move in `game`, which is not over; `seed` is for
    /// random choices. `None`: no move comes (input ended, or no player there).
    fn next_move(&mut self, game: &Game, seed: u64) -> Option<u8>;
}

/// A person's moves, from any input (keys, lines, the network) read by a closure given the
/// game; it may answer with an illegal move, which the game loop refuses.
pub struct HumanInput<F>(pub F);

impl<F: FnMut(&Game) -> Option<u8>> MoveSource for HumanInput<F> {
    fn next_move(&mut self, game: &Game, _seed: u64) -> Option<u8> {
        (self.0)(game)
    }
}

/// A computer player (a level, random or MCTS) with the engine it keeps through a game: a
/// small table, one thread. A [`Player::Human`] seat gives no move.
pub struct Seat {
    /// Who plays.
    pub player: Player,
    engine: Option<Engine>,
}

impl Seat {
    /// `player`, with an engine of 64 MiB at levels 6 and up, 4 MiB below, mapped in now
    /// for a level that thinks against the clock.
    pub fn new(player: Player) -> Seat {
        let engine = match player {
            Player::Engine(l) => {
                let e = Engine::new(if l.level >= 6 { 64 } else { 4 }, 1);
                if l.time.is_some() {
                    e.prefault();
                }
                Some(e)
            }
            _ => None,
        };
        Seat { player, engine }
    }
}

impl MoveSource for Seat {
    /// A level searches on one thread; random and MCTS draw from `seed`; greedy needs none.
    fn next_move(&mut self, game: &Game, seed: u64) -> Option<u8> {
        match self.player {
            Player::Engine(l) => {
                let mut l = l;
                l.threads = 1;
                l.choose_with(self.engine.as_ref()?, game.position(), game.history(), seed)
            }
            Player::Mcts(n) => mancala_engine::mcts::choose(game.position(), n, seed),
            Player::Random | Player::Greedy => self.player.simple_move(game.position(), seed),
            Player::Human => None,
        }
    }
}

/// Plays a game from `start` to its end: South's moves from `south`, North's from `north`,
/// each move's seed the next output of `seeds`. Errors when a source gives no move or an
/// illegal one, or the game runs past `max_plies`.
pub fn play_out(
    start: Position,
    south: &mut dyn MoveSource,
    north: &mut dyn MoveSource,
    seeds: &mut Rng,
    max_plies: usize,
) -> Result<Game> {
    let mut game = Game::new(start);
    while !game.is_over() {
        let source: &mut dyn MoveSource = match game.to_move() {
            mancala_core::Side::South => &mut *south,
            mancala_core::Side::North => &mut *north,
        };
        let mv = source
            .next_move(&game, seeds.next_u64())
            .context("no move")?;
        game.play(mv)?;
        if game.moves().len() > max_plies {
            bail!("a game ran past {max_plies} plies");
        }
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_engine::Level;

    #[test]
    fn a_person_plays_a_level_to_the_end() {
        let start = Position::start(&"kalah,pits=4,seeds=2".parse().unwrap()).unwrap();
        // The person always sows the first pit that can be sown.
        let mut person = HumanInput(|g: &Game| g.legal_moves().as_slice().first().copied());
        let mut computer = Seat::new(Player::Engine(Level::new(3).unwrap()));
        let game = play_out(start, &mut person, &mut computer, &mut Rng::lcg(1), 500).unwrap();
        assert!(game.is_over());
        let again = play_out(start, &mut person, &mut computer, &mut Rng::lcg(1), 500).unwrap();
        assert_eq!(game.moves(), again.moves(), "the same seed, the same game");
    }

    #[test]
    fn a_source_without_a_move_ends_the_loop_with_an_error() {
        let start = Position::start(&"kalah".parse().unwrap()).unwrap();
        let mut nobody = Seat::new(Player::Human);
        let mut random = Seat::new(Player::Random);
        let e = play_out(start, &mut nobody, &mut random, &mut Rng::new(1), 500).unwrap_err();
        assert_eq!(e.to_string(), "no move");
    }
}
