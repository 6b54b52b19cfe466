//! Self-play check of the leaf evaluation's weights (`mancala_engine::game::Weights`).
//!
//! ```text
//! cargo run --release -p mancala-engine --example tune -- \
//!     [--games N] [--depth D] [--variant V] [--plies K] [--seed S] \
//!     [--base row,extra,cowries] [--row a,b,..] [--extra a,b,..] [--cowries a,b,..]
//!     [--also row,extra,cowries]...
//! ```
//!
//! Plays, for each variant weight set, a match against the base weights (the engine's
//! defaults unless `--base`): `N` games (default 40) from `N/2` seeded random openings of `K`
//! random plies (default 4), each opening once with either colour, both sides searching to a
//! fixed depth `D` (default 6) with one thread and a table cleared at every game. A variant
//! changes one weight at a time: `row` and `extra` in the Kalah family, `cowries` in Kauri,
//! each by default to 0, half, one and a half and twice its base value (or the values listed);
//! `--also` adds a whole weight set (several may change at once), e.g. former defaults.
//!
//! Prints, for each variant, wins-draws-losses of the variant against the base, its score,
//! and the Elo difference with a ~95% error: 1.96 standard errors of the score, the larger of
//! the estimates from the per-opening pair scores and from the games taken as independent,
//! turned into Elo; an interval is given where it reaches a score of 0 or 1. Openings that
//! repeat a position already drawn are skipped (the engines are deterministic).
use std::time::Instant;

use mancala_core::position::State;
use mancala_core::rng::Rng;
use mancala_core::{Game, Outcome, Position, Rules, Side};
use mancala_engine::game::Weights;
use mancala_engine::{Engine, Limits};

struct Args {
    games: u32,
    depth: u32,
    variant: String,
    plies: u32,
    seed: u64,
    base: Option<Weights>,
    row: Option<Vec<i32>>,
    extra: Option<Vec<i32>>,
    cowries: Option<Vec<i32>>,
    also: Vec<Weights>,
}

fn list(s: &str) -> Vec<i32> {
    s.split(',')
        .map(|x| x.trim().parse().expect("a list of integers"))
        .collect()
}

fn triple(s: &str) -> Weights {
    let w = list(s);
    assert_eq!(w.len(), 3, "weights as row,extra,cowries");
    Weights {
        row: w[0],
        extra: w[1],
        cowries: w[2],
    }
}

fn parse_args() -> Args {
    let mut a = Args {
        games: 40,
        depth: 6,
        variant: "kalah,seeds=4".into(),
        plies: 4,
        seed: 1,
        base: None,
        row: None,
        extra: None,
        cowries: None,
        also: Vec::new(),
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < argv.len() {
        let v = argv.get(i + 1).cloned().unwrap_or_else(|| {
            eprintln!("{} needs a value", argv[i]);
            std::process::exit(2)
        });
        match argv[i].as_str() {
            "--games" => a.games = v.parse().expect("--games N"),
            "--depth" => a.depth = v.parse().expect("--depth D"),
            "--variant" => a.variant = v,
            "--plies" => a.plies = v.parse().expect("--plies K"),
            "--seed" => a.seed = v.parse().expect("--seed S"),
            "--base" => a.base = Some(triple(&v)),
            "--also" => a.also.push(triple(&v)),
            "--row" => a.row = Some(list(&v)),
            "--extra" => a.extra = Some(list(&v)),
            "--cowries" => a.cowries = Some(list(&v)),
            other => {
                eprintln!("unknown option {other}");
                std::process::exit(2)
            }
        }
        i += 2;
    }
    a.games = a.games.max(2) / 2 * 2;
    a
}

/// Opening `k`: `plies` random moves from the start, redrawn (next seed) until the game is
/// still on afterwards.
fn opening(rules: &Rules, seed: u64, k: u64, plies: u32) -> Game {
    let mut rng =
        Rng::new(seed.wrapping_mul(0x1_0000_0001) ^ k.wrapping_mul(0xd6e8_feb8_6659_fd93));
    loop {
        let mut g = Game::new(Position::start(rules).expect("valid rules"));
        for _ in 0..plies {
            let legal = g.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal.as_slice()[(rng.next_u64() % legal.len() as u64) as usize];
            g.play(m).expect("a legal move");
        }
        if !g.is_over() {
            return g;
        }
    }
}

/// Plays from `start` to the end with `engines[side]` moving for `side`. The score of South:
/// 1 win, 0.5 draw, 0 loss (Kauri's tie-break decides as the rules say).
fn play(start: &Game, engines: [&Engine; 2], depth: u32) -> f64 {
    let mut g = start.clone();
    for e in engines {
        e.clear();
    }
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let mut plies = 0;
    while !g.is_over() {
        plies += 1;
        if plies > 2000 {
            return 0.5; // adjudicated draw; does not happen in practice
        }
        let pos = *g.position();
        let history: Vec<Position> = (0..g.moves().len())
            .map(|k| *g.position_at(k).unwrap())
            .collect();
        let e = engines[pos.to_move().index()];
        let r = e.search(&pos, limits, &history).expect("a live position");
        g.play(r.best).expect("the engine plays legal moves");
    }
    match g.outcome() {
        Some(Outcome::Win(Side::South)) => 1.0,
        Some(Outcome::Win(Side::North)) => 0.0,
        _ => 0.5,
    }
}

fn elo(s: f64) -> f64 {
    -400.0 * (1.0 / s - 1.0).log10()
}

fn fmt_elo(s: f64) -> String {
    if s <= 0.0 {
        "-inf".into()
    } else if s >= 1.0 {
        "+inf".into()
    } else {
        format!("{:+.0}", elo(s) + 0.0)
    }
}

fn show(w: &Weights, kauri: bool) -> String {
    if kauri {
        format!("cowries={}", w.cowries)
    } else {
        format!("row={} extra={}", w.row, w.extra)
    }
}

fn main() {
    let a = parse_args();
    let rules: Rules = a.variant.parse().expect("a valid --variant");
    let start = Position::start(&rules).expect("valid rules");
    let kauri = matches!(start.state(), State::Kauri(_));
    let base = a.base.unwrap_or_default();

    let mut variants: Vec<Weights> = Vec::new();
    // Default lists: 0, half, one and a half and twice the base value.
    let around = |w: i32| vec![0, w / 2, w * 3 / 2, 2 * w];
    if kauri {
        for c in a.cowries.clone().unwrap_or_else(|| around(base.cowries)) {
            variants.push(Weights { cowries: c, ..base });
        }
    } else {
        for r in a.row.clone().unwrap_or_else(|| around(base.row)) {
            variants.push(Weights { row: r, ..base });
        }
        for x in a.extra.clone().unwrap_or_else(|| around(base.extra)) {
            variants.push(Weights { extra: x, ..base });
        }
    }
    variants.extend(a.also.iter().copied());
    variants.retain(|w| *w != base);

    let openings = a.games / 2;
    // Distinct openings (the same position twice would only repeat a deterministic pair).
    let mut seen = std::collections::HashSet::new();
    let mut games: Vec<Game> = Vec::new();
    let mut k = 0u64;
    while games.len() < openings as usize && k < 100 * openings as u64 + 1000 {
        let g = opening(&rules, a.seed, k, a.plies);
        k += 1;
        if seen.insert(*g.position()) {
            games.push(g);
        }
    }
    let openings = games.len() as u32;
    println!(
        "{}: depth {}, {} games a variant ({} openings of {} random plies, both colours), \
         base {} (weights in sixteenths of a seed)",
        a.variant,
        a.depth,
        2 * openings,
        openings,
        a.plies,
        show(&base, kauri)
    );
    println!();
    println!("| variant | W-D-L | score | Elo vs base (95%) |");
    println!("|---|---|---|---|");

    let mut eb = Engine::new(16, 1);
    eb.weights = base;
    for v in variants {
        let t = Instant::now();
        let mut ev = Engine::new(16, 1);
        ev.weights = v;
        let (mut w, mut d, mut l) = (0, 0, 0);
        let mut pairs: Vec<f64> = Vec::new();
        for g in &games {
            // The variant as South, then as North.
            let s1 = play(g, [&ev, &eb], a.depth);
            let s2 = 1.0 - play(g, [&eb, &ev], a.depth);
            for s in [s1, s2] {
                match s {
                    x if x > 0.75 => w += 1,
                    x if x < 0.25 => l += 1,
                    _ => d += 1,
                }
            }
            pairs.push((s1 + s2) / 2.0);
        }
        let n = pairs.len() as f64;
        let s = pairs.iter().sum::<f64>() / n;
        // Standard error of the score: from the pair scores, or from the games as if
        // independent (w, d, l), whichever is larger. The pair estimate alone would claim no
        // error at all when every opening is won by the same colour both times.
        let var = pairs.iter().map(|p| (p - s) * (p - s)).sum::<f64>() / (n - 1.0).max(1.0);
        let games_n = (w + d + l) as f64;
        let var_g =
            (w as f64 * (1.0 - s).powi(2) + d as f64 * (0.5 - s).powi(2) + l as f64 * s.powi(2))
                / (games_n - 1.0).max(1.0);
        let se = (var / n).sqrt().max((var_g / games_n).sqrt());
        let lo = (s - 1.96 * se).clamp(0.0, 1.0);
        let hi = (s + 1.96 * se).clamp(0.0, 1.0);
        let e = if s > 0.0 && s < 1.0 && lo > 0.0 && hi < 1.0 {
            format!("{} ± {:.0}", fmt_elo(s), (elo(hi) - elo(lo)) / 2.0)
        } else {
            format!("{} [{}, {}]", fmt_elo(s), fmt_elo(lo), fmt_elo(hi))
        };
        println!(
            "| {} | {}-{}-{} | {:.1}% | {} |",
            show(&v, kauri),
            w,
            d,
            l,
            100.0 * s,
            e
        );
        eprintln!(
            "  ({} in {:.1} s)",
            show(&v, kauri),
            t.elapsed().as_secs_f64()
        );
    }
}
