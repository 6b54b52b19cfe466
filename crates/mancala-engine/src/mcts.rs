//! Monte Carlo tree search (UCT with random playouts), to measure against alpha-beta where
//! the evaluation is weak, as in Kauri (`mancala match --a mcts:N`).
//!
//! Rewards are 1 for a win, 0.5 for a draw, 0 for a loss, from the view of the player who
//! made the move into a node (an extra move keeps the same player). Playouts stop after
//! [`PLAYOUT_LIMIT`] plies and are then scored by the stores.

use mancala_core::rng::Rng;
use mancala_core::{GameState, Outcome, Position, Side};

use mancala_core::with_family;

/// Plies after which a playout is scored by the stores.
pub const PLAYOUT_LIMIT: usize = 400;

struct Node<P> {
    pos: P,
    /// Who moved into this node (the root: nobody, stored as its side to move's opponent).
    mover: Side,
    mv: u8,
    parent: usize,
    children: Vec<usize>,
    untried: Vec<u8>,
    visits: f64,
    reward: f64,
}

/// Reward of a finished or cut-off position for `side`.
fn result_for<P: GameState>(p: &P, side: Side) -> f64 {
    let winner = match p.outcome() {
        Some(Outcome::Win(w)) => Some(w),
        Some(Outcome::Draw) => None,
        None => {
            let s = p.scores();
            match s[0].cmp(&s[1]) {
                core::cmp::Ordering::Greater => Some(Side::South),
                core::cmp::Ordering::Less => Some(Side::North),
                core::cmp::Ordering::Equal => None,
            }
        }
    };
    match winner {
        Some(w) if w == side => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    }
}

fn run<P: GameState>(root: &P, iterations: u32, seed: u64) -> Option<u8> {
    let legal = root.legal_moves();
    if legal.is_empty() {
        return None;
    }
    if legal.len() == 1 {
        return Some(legal.as_slice()[0]);
    }
    let mut rng = Rng::xorshift(seed | 1);
    let mut nodes = vec![Node {
        pos: *root,
        mover: root.to_move().other(),
        mv: 0,
        parent: usize::MAX,
        children: Vec::new(),
        untried: legal.as_slice().to_vec(),
        visits: 0.0,
        reward: 0.0,
    }];
    for _ in 0..iterations {
        // Selection.
        let mut n = 0;
        while nodes[n].untried.is_empty() && !nodes[n].children.is_empty() {
            let ln = nodes[n].visits.ln();
            n = *nodes[n]
                .children
                .iter()
                .max_by(|&&a, &&b| {
                    let ucb = |c: usize| {
                        nodes[c].reward / nodes[c].visits + 1.4 * (ln / nodes[c].visits).sqrt()
                    };
                    ucb(a).total_cmp(&ucb(b))
                })
                .expect("children");
        }
        // Expansion.
        if !nodes[n].untried.is_empty() {
            let k = (rng.next_u64() % nodes[n].untried.len() as u64) as usize;
            let mv = nodes[n].untried.swap_remove(k);
            let mut pos = nodes[n].pos;
            let mover = pos.to_move();
            pos.play_unchecked(mv);
            let untried = pos.legal_moves().as_slice().to_vec();
            nodes.push(Node {
                pos,
                mover,
                mv,
                parent: n,
                children: Vec::new(),
                untried,
                visits: 0.0,
                reward: 0.0,
            });
            let c = nodes.len() - 1;
            nodes[n].children.push(c);
            n = c;
        }
        // Playout.
        let mut p = nodes[n].pos;
        for _ in 0..PLAYOUT_LIMIT {
            if p.is_over() {
                break;
            }
            let m = p.legal_moves();
            p.play_unchecked(m.as_slice()[(rng.next_u64() % m.len() as u64) as usize]);
        }
        // Backpropagation.
        let mut c = n;
        while c != usize::MAX {
            let r = result_for(&p, nodes[c].mover);
            nodes[c].visits += 1.0;
            nodes[c].reward += r;
            c = nodes[c].parent;
        }
    }
    nodes[0]
        .children
        .iter()
        .max_by(|&&a, &&b| nodes[a].visits.total_cmp(&nodes[b].visits))
        .map(|&c| nodes[c].mv)
}

/// The most visited move after `iterations` playouts; `None` when the game is over.
pub fn choose(pos: &Position, iterations: u32, seed: u64) -> Option<u8> {
    with_family!(pos, p => run(p, iterations, seed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plays_legal_moves_and_sees_a_big_capture() {
        for preset in mancala_core::Preset::ALL {
            let p = Position::start(&preset.rules()).unwrap();
            let mv = choose(&p, 200, 3).unwrap();
            assert!(p.legal_moves().contains(mv), "{preset}");
        }
        // Kauri game 3 before its last turn: South's d-a-f takes 34 and wins at once.
        let mut g = mancala_core::Game::from_rules(&"kauri".parse().unwrap()).unwrap();
        mancala_core::notation::replay(
            &mut g,
            "1. e E; 2. e F; 3. b C; 4. e D; 5. c A; 6. e B",
            mancala_core::notation::Check::MovesOnly,
        )
        .unwrap();
        let pos = *g.position();
        let mv = choose(&pos, 3000, 9).unwrap();
        let limits = crate::Limits {
            depth: Some(12),
            ..crate::Limits::default()
        };
        let values = crate::Engine::new(16, 1).analyze_moves(&pos, limits, &[]);
        let best = values.iter().map(|v| v.eval.score()).max().unwrap();
        let chosen = values.iter().find(|v| v.pit == mv).unwrap().eval.score();
        assert!(best > 20, "the position is won by far ({values:?})");
        assert!(
            chosen > 0,
            "MCTS keeps the win: {mv} worth {chosen} ({values:?})"
        );
    }
}
