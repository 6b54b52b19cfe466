//! The one seeded generator of the workspace: the players, game loops, matches and
//! statistics (`mancala-play` re-exports it), the playing levels' noise and Monte Carlo tree
//! search (`mancala-engine`), and the seeded positions of tests, benchmarks and examples.
//! It lives here, below every other crate, so that all of them draw from the one type.
//!
//! [`Rng`] is small, fast and reproducible: a seed always gives the same sequence, on every
//! machine and whatever the threads. It steps its state in one of three ways, picked when it
//! is made, so that every `--seed` keeps giving the games it gives:
//!
//! - [`Rng::new`]: SplitMix64, the default, for new uses (statistics, random players, tests);
//! - [`Rng::lcg`]: the 64-bit linear congruential step of Knuth's MMIX, whose outputs are the
//!   per-move seeds that the game loops hand to a level (the level mixes them itself, with
//!   [`mix`]);
//! - [`Rng::xorshift`]: xorshift64 (shifts 13, 7, 17), for the random openings of a match,
//!   Monte Carlo tree search's choices and the seeded positions of tests and benchmarks.
//!
//! [`mix`] is SplitMix64's output function on its own: one seed in, 64 well-mixed bits out,
//! no state (a level's pick among near-best moves, test positions from a hash).
//!
//! Pure: no clock (`mancala_play::rng::seed_or_clock` reads one).

/// How an [`Rng`] steps its state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    SplitMix64,
    Lcg,
    XorShift64,
}

/// A seeded pseudo-random generator (see the module docs for its three steppings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    state: u64,
    step: Step,
}

/// SplitMix64's increment (the golden ratio in 64 bits).
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

impl Rng {
    /// SplitMix64 from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng {
            state: seed,
            step: Step::SplitMix64,
        }
    }

    /// The MMIX linear congruential generator from `seed`: each output is the new state.
    pub fn lcg(seed: u64) -> Rng {
        Rng {
            state: seed,
            step: Step::Lcg,
        }
    }

    /// xorshift64 from `seed`, which must not be 0 (0 would stay 0).
    pub fn xorshift(seed: u64) -> Rng {
        debug_assert!(seed != 0, "xorshift64 from 0 gives only 0");
        Rng {
            state: seed,
            step: Step::XorShift64,
        }
    }

    /// The state of a SplitMix64 generator ([`Rng::new`]), from which `Rng::new(state)`
    /// continues its sequence; `None` for the other steppings.
    pub fn splitmix_state(&self) -> Option<u64> {
        (self.step == Step::SplitMix64).then_some(self.state)
    }

    /// The seed of item `index` of a run seeded with `seed` (a game of a statistics run):
    /// the same whatever order the items are played in.
    pub fn derive(seed: u64, index: u64) -> u64 {
        Rng::new(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03)).next_u64()
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        match self.step {
            Step::SplitMix64 => {
                self.state = self.state.wrapping_add(GOLDEN);
                finish(self.state)
            }
            Step::Lcg => {
                self.state = self
                    .state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                self.state
            }
            Step::XorShift64 => {
                let x = &mut self.state;
                *x ^= *x << 13;
                *x ^= *x >> 7;
                *x ^= *x << 17;
                *x
            }
        }
    }

    /// A number below `n` (`n` > 0), as the next output modulo `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// One of `items` (not empty), chosen by [`Rng::below`].
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// SplitMix64's output function: a bijection of 64 bits that mixes every input bit into
/// every output bit.
fn finish(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// 64 well-mixed bits of `seed`, with no state: SplitMix64's output function of `seed` XOR
/// its increment (a level's pick among its near-best moves from the seed of that move).
pub fn mix(seed: u64) -> u64 {
    finish(seed ^ GOLDEN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_reference_values() {
        // The first outputs of SplitMix64 from 1234567 (Vigna's reference implementation).
        let mut r = Rng::new(1234567);
        assert_eq!(r.next_u64(), 6457827717110365317);
        assert_eq!(r.next_u64(), 3203168211198807973);
    }

    #[test]
    fn each_stepping_is_its_generator() {
        let mut l = Rng::lcg(1);
        assert_eq!(
            l.next_u64(),
            6364136223846793005u64.wrapping_add(1442695040888963407)
        );
        let mut x = Rng::xorshift(1);
        assert_eq!(x.next_u64(), 1082269761);
        let mut r = Rng::new(7);
        let v: Vec<usize> = (0..1000).map(|_| r.below(6)).collect();
        assert!((0..6).all(|k| v.contains(&k)));
        assert!(v.iter().all(|&k| k < 6));
    }

    #[test]
    fn mix_is_splitmix64_output_of_the_seed_xor_its_increment() {
        // mix(s) is the first SplitMix64 output from the state s ^ GOLDEN minus GOLDEN.
        let s = 0x0123_4567_89AB_CDEF;
        assert_eq!(
            mix(s),
            Rng::new((s ^ GOLDEN).wrapping_sub(GOLDEN)).next_u64()
        );
        assert_eq!(mix(0), 0xE220_A839_7B1D_CDAF);
    }
}
