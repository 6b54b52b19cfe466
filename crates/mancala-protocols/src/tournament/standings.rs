//! The report of a tournament: standings, pairings and the time each entrant took.

use super::*;

pub(super) fn avg_ms(t: Duration, n: u32) -> f64 {
    if n == 0 {
        0.0
    } else {
        t.as_secs_f64() * 1000.0 / f64::from(n)
    }
}

/// The standings and pairings of `games`.
pub(super) fn summarise(cfg: &Config, entrants: &[Entrant], games: Vec<GameRecord>) -> Report {
    let mut standings: Vec<Standing> = entrants
        .iter()
        .enumerate()
        .map(|(k, e)| Standing {
            entrant: k,
            name: e.name.clone(),
            games: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            points: 0.0,
            margin: 0,
            moves: 0,
            avg_ms: 0.0,
            faults: 0,
        })
        .collect();
    let mut time_ms = vec![0.0f64; entrants.len()];
    let mut pairings: Vec<Pairing> = Vec::new();
    for g in &games {
        let pair = [g.seats[0].min(g.seats[1]), g.seats[0].max(g.seats[1])];
        let k = match pairings.iter().position(|p| p.entrants == pair) {
            Some(k) => k,
            None => {
                pairings.push(Pairing {
                    entrants: pair,
                    wins: [0; 2],
                    draws: 0,
                    points: [0.0; 2],
                    margin: 0,
                });
                pairings.len() - 1
            }
        };
        for s in 0..2 {
            let e = g.seats[s];
            let st = &mut standings[e];
            st.games += 1;
            match g.winner {
                Some(w) if w == e => {
                    st.wins += 1;
                    st.points += 1.0;
                }
                Some(_) => st.losses += 1,
                None if g.both_faulty => st.losses += 1,
                None => {
                    st.draws += 1;
                    st.points += 0.5;
                }
            }
            let margin = i64::from(g.scores[s]) - i64::from(g.scores[1 - s]);
            st.margin += margin;
            st.moves += u64::from(g.moves[s]);
            time_ms[e] += g.avg_ms[s] * f64::from(g.moves[s]);
            if g.faulty == Some(e) || g.both_faulty {
                st.faults += 1;
            }
            let p = &mut pairings[k];
            let side = usize::from(p.entrants[1] == e);
            if side == 0 {
                p.margin += margin;
            }
            match g.winner {
                Some(w) if w == e => {
                    p.wins[side] += 1;
                    p.points[side] += 1.0;
                }
                Some(_) => {}
                None if g.both_faulty => {}
                None => p.points[side] += 0.5,
            }
        }
        if g.winner.is_none() && !g.both_faulty {
            pairings[k].draws += 1;
        }
    }
    for st in &mut standings {
        st.avg_ms = if st.moves == 0 {
            0.0
        } else {
            time_ms[st.entrant] / st.moves as f64
        };
    }
    standings.sort_by(|a, b| {
        b.points
            .total_cmp(&a.points)
            .then(b.margin.cmp(&a.margin))
            .then(a.entrant.cmp(&b.entrant))
    });
    Report {
        protocol: cfg.protocol,
        games_a_pairing: cfg.games,
        seed: Some(cfg.seed),
        entrants: entrants.to_vec(),
        standings,
        pairings,
        games,
    }
}
