//! The one seeded generator [`Rng`] (`mancala_core::rng`, re-exported here so that players,
//! game loops, matches and statistics keep their one path to it), and [`seed_or_clock`], which
//! reads the clock the core may not.

pub use mancala_core::rng::Rng;

/// `seed`, or one from the clock when none is given (a game that need not be reproducible).
pub fn seed_or_clock(seed: Option<u64>) -> u64 {
    seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1)
    })
}
