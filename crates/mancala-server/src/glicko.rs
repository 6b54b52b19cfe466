//! Glicko-2 ratings (the `skillratings` crate): the system's constants, the rating an account
//! starts with, and both players' ratings after one game, each game its own rating period.

use mancala_core::Side;
use skillratings::glicko2::{glicko2, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

/// The Glicko-2 system's constants: τ = 0.5 and the convergence tolerance 10⁻⁶ (the values
/// of Glickman's paper and the crate's defaults).
pub fn config() -> Glicko2Config {
    Glicko2Config::new()
}

/// The rating an account starts with in a rule set: 1500, deviation 350, volatility 0.06.
pub fn initial() -> Glicko2Rating {
    Glicko2Rating::new()
}

/// Both players' ratings after one game: `winner` is `None` for a draw.
pub fn after_game(
    south: &Glicko2Rating,
    north: &Glicko2Rating,
    winner: Option<Side>,
) -> (Glicko2Rating, Glicko2Rating) {
    let outcome = match winner {
        Some(Side::South) => Outcomes::WIN,
        Some(Side::North) => Outcomes::LOSS,
        None => Outcomes::DRAW,
    };
    glicko2(south, north, &outcome, &config())
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillratings::glicko2::glicko2_rating_period;

    /// The worked example of Glickman's "Example of the Glicko-2 system" (2013): a player
    /// rated 1500 (deviation 200, volatility 0.06) beats a 1400 (30) and loses to a 1550
    /// (100) and a 1700 (300) in one rating period, with τ = 0.5: 1464.06, 151.52, 0.05999.
    #[test]
    fn glickman_worked_example() {
        let player = Glicko2Rating {
            rating: 1500.0,
            deviation: 200.0,
            volatility: 0.06,
        };
        let opp = |rating, deviation| Glicko2Rating {
            rating,
            deviation,
            volatility: 0.06,
        };
        let results = [
            (opp(1400.0, 30.0), Outcomes::WIN),
            (opp(1550.0, 100.0), Outcomes::LOSS),
            (opp(1700.0, 300.0), Outcomes::LOSS),
        ];
        assert_eq!(config().tau, 0.5);
        let r = glicko2_rating_period(&player, &results, &config());
        // The paper rounds its intermediate values: its new μ' = -0.2069 and φ' = 0.8722 on
        // the Glicko-2 scale give 1464.06 and 151.52; computed without rounding they are
        // 1464.05 and 151.52, the same to the paper's four decimals of μ' and φ'.
        let (mu, phi) = ((r.rating - 1500.0) / 173.7178, r.deviation / 173.7178);
        assert_eq!(format!("{mu:.4}"), "-0.2069", "{r:?}");
        assert_eq!(format!("{phi:.4}"), "0.8722", "{r:?}");
        // σ' = 0.0599960 (the paper prints its first five decimals, 0.05999).
        assert!((r.volatility - 0.05999).abs() < 1e-5, "{r:?}");
        assert!((r.rating - 1464.06).abs() < 0.015, "{r:?}");
        assert!((r.deviation - 151.52).abs() < 0.005, "{r:?}");
    }

    /// One game is one rating period of one result for each player, and a draw between
    /// equals moves neither rating.
    #[test]
    fn one_game() {
        let (a, b) = (initial(), initial());
        let (w, l) = after_game(&a, &b, Some(Side::South));
        assert!(w.rating > 1500.0 && l.rating < 1500.0);
        assert!((w.rating - 1500.0 + (l.rating - 1500.0)).abs() < 1e-9);
        let alone = glicko2_rating_period(&a, &[(b, Outcomes::WIN)], &config());
        assert!((alone.rating - w.rating).abs() < 1e-9);
        let (n_l, n_w) = after_game(&a, &b, Some(Side::North));
        assert_eq!((n_l.rating, n_w.rating), (l.rating, w.rating));
        let (d1, d2) = after_game(&a, &b, None);
        assert!((d1.rating - 1500.0).abs() < 1e-9 && (d2.rating - 1500.0).abs() < 1e-9);
        assert!(d1.deviation < 350.0);
    }
}
