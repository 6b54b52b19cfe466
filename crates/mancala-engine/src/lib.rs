//! Search and playing levels.
//!
//! Negamax alpha-beta with iterative deepening over any [`GameState`]. A move that gives the
//! same player another move (extra turn, Kauri pass) keeps the sign; values are in seeds, from
//! the view of the side to move, and already account for misère scoring (Dracala: fewer seeds
//! is better). Leaves at the depth limit are valued by the store difference.
//!
//! The repetition rule of Cross-Kalah and Kauri is not seen by the search (a repeated position
//! is searched again to the depth limit).

use std::time::{Duration, Instant};

use mancala_core::position::State;
use mancala_core::{GameState, Outcome, Position, Side};

/// A value beyond any seed margin: a Kauri tie-break win.
const TIE_BREAK: i32 = 1;

/// What the search may spend. The search stops at whichever comes first; with none it searches
/// to depth 64.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    pub depth: Option<u32>,
    pub time: Option<Duration>,
    pub nodes: Option<u64>,
}

/// Result of a search from the side to move's view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// Own pit, 0-based from the mover's left.
    pub best: u8,
    /// Value in seeds for the side to move (misère already inverted).
    pub value: i32,
    /// Last completed depth in plies.
    pub depth: u32,
    pub nodes: u64,
    /// Principal variation: the best move and the expected replies, as own pits of each mover.
    pub pv: Vec<u8>,
    /// Value of each root move at the last completed depth, `(pit, value)`.
    pub root: Vec<(u8, i32)>,
}

/// Value of a finished game for `me`: the final margin (misère: negated); a Kauri tie decided
/// by the cowrie rule counts one seed.
fn terminal<P: GameState>(pos: &P, me: Side, misere: bool) -> i32 {
    let s = pos.scores();
    let margin = s[me.index()] as i32 - s[me.other().index()] as i32;
    if margin == 0 {
        return match pos.outcome() {
            Some(Outcome::Win(w)) if w == me => TIE_BREAK,
            Some(Outcome::Win(_)) => -TIE_BREAK,
            _ => 0,
        };
    }
    if misere {
        -margin
    } else {
        margin
    }
}

struct Searcher {
    nodes: u64,
    deadline: Option<Instant>,
    max_nodes: u64,
    stopped: bool,
    misere: bool,
}

impl Searcher {
    fn out_of_budget(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.nodes >= self.max_nodes {
            self.stopped = true;
        } else if self.nodes % 1024 == 0 {
            if let Some(d) = self.deadline {
                if Instant::now() >= d {
                    self.stopped = true;
                }
            }
        }
        self.stopped
    }

    /// Negamax value of `pos` for its side to move, with its principal variation.
    fn negamax<P: GameState>(
        &mut self,
        pos: &P,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        pv: &mut Vec<u8>,
    ) -> i32 {
        self.nodes += 1;
        let me = pos.to_move();
        if depth == 0 {
            let s = pos.scores();
            let diff = s[me.index()] as i32 - s[me.other().index()] as i32;
            return if self.misere { -diff } else { diff };
        }
        let mut best = i32::MIN;
        let mut line = Vec::new();
        for mv in order(pos) {
            if self.out_of_budget() {
                break;
            }
            let mut child = *pos;
            child.play_unchecked(mv);
            line.clear();
            let v = if child.is_over() {
                self.nodes += 1;
                terminal(&child, me, self.misere)
            } else if child.to_move() == me {
                self.negamax(&child, depth - 1, alpha, beta, &mut line)
            } else {
                -self.negamax(&child, depth - 1, -beta, -alpha, &mut line)
            };
            if v > best {
                best = v;
                pv.clear();
                pv.push(mv);
                pv.extend_from_slice(&line);
            }
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

/// Legal moves, those that end in the own store first (rightmost first), then the rest.
fn order<P: GameState>(pos: &P) -> Vec<u8> {
    let legal = pos.legal_moves();
    let mut scored: Vec<(i32, u8)> = legal
        .as_slice()
        .iter()
        .map(|&mv| {
            let mut c = *pos;
            let e = c.play_unchecked(mv);
            let key = if e.again {
                1000 + mv as i32
            } else {
                e.gain as i32 * 10 + e.captured as i32
            };
            (-key, mv)
        })
        .collect();
    scored.sort();
    scored.into_iter().map(|(_, m)| m).collect()
}

fn search_state<P: GameState>(pos: &P, limits: Limits, misere: bool) -> Option<SearchResult> {
    let legal = pos.legal_moves();
    if legal.is_empty() {
        return None;
    }
    let start = Instant::now();
    let mut s = Searcher {
        nodes: 0,
        deadline: limits.time.map(|t| start + t),
        max_nodes: limits.nodes.unwrap_or(u64::MAX),
        stopped: false,
        misere,
    };
    let max_depth = limits.depth.unwrap_or(64).max(1);
    let me = pos.to_move();
    let mut result: Option<SearchResult> = None;
    for depth in 1..=max_depth {
        let mut root = Vec::new();
        let mut best: Option<(i32, u8, Vec<u8>)> = None;
        let mut moves = order(pos);
        if let Some(prev) = &result {
            moves.retain(|&m| m != prev.best);
            moves.insert(0, prev.best);
        }
        let mut complete = true;
        for mv in moves {
            let mut child = *pos;
            child.play_unchecked(mv);
            let mut line = Vec::new();
            let alpha = best.as_ref().map_or(-10_000, |b| b.0);
            let v = if child.is_over() {
                terminal(&child, me, misere)
            } else if child.to_move() == me {
                s.negamax(&child, depth - 1, alpha, 10_000, &mut line)
            } else {
                -s.negamax(&child, depth - 1, -10_000, -alpha, &mut line)
            };
            if s.stopped {
                complete = false;
                break;
            }
            root.push((mv, v));
            if best.as_ref().is_none_or(|b| v > b.0) {
                let mut pv = vec![mv];
                pv.extend(line);
                best = Some((v, mv, pv));
            }
        }
        if !complete && result.is_some() {
            break;
        }
        if let Some((value, mv, pv)) = best {
            // Root values other than the best are bounds (alpha-beta); re-search would give
            // exact ones. Keep them as an ordering hint.
            result = Some(SearchResult {
                best: mv,
                value,
                depth,
                nodes: s.nodes,
                pv,
                root,
            });
        }
        if !complete {
            break;
        }
        // A proven result: every line ended before the depth limit.
        if s.nodes < depth as u64 && depth > 2 {
            break;
        }
    }
    if let Some(r) = result.as_mut() {
        r.nodes = s.nodes;
    }
    result
}

/// Searches `pos` within `limits`. `None` when the game is over.
pub fn search(pos: &Position, limits: Limits) -> Option<SearchResult> {
    let misere = pos.rules().misere();
    match pos.state() {
        State::Kalah(p) => search_state(p, limits, misere),
        State::Kauri(p) => search_state(p, limits, misere),
    }
}

/// Exact values of every legal move of `pos` at `depth` plies (full-window searches), for
/// analysis and for the noisy lower levels. Values from the side to move's view.
pub fn root_values(pos: &Position, depth: u32) -> Vec<(u8, i32)> {
    let misere = pos.rules().misere();
    fn go<P: GameState>(pos: &P, depth: u32, misere: bool) -> Vec<(u8, i32)> {
        let me = pos.to_move();
        let mut s = Searcher {
            nodes: 0,
            deadline: None,
            max_nodes: u64::MAX,
            stopped: false,
            misere,
        };
        pos.legal_moves()
            .as_slice()
            .iter()
            .map(|&mv| {
                let mut child = *pos;
                child.play_unchecked(mv);
                let mut line = Vec::new();
                let v = if child.is_over() {
                    terminal(&child, me, misere)
                } else if child.to_move() == me {
                    s.negamax(&child, depth.saturating_sub(1), -10_000, 10_000, &mut line)
                } else {
                    -s.negamax(&child, depth.saturating_sub(1), -10_000, 10_000, &mut line)
                };
                (mv, v)
            })
            .collect()
    }
    match pos.state() {
        State::Kalah(p) => go(p, depth, misere),
        State::Kauri(p) => go(p, depth, misere),
    }
}

/// A playing level: how deep and how long the computer thinks, and how much it errs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    pub level: u8,
    pub depth: u32,
    pub time: Option<Duration>,
    /// Moves within this many seeds of the best may be picked at random (human mistakes).
    pub noise: i32,
}

/// Lowest and highest level.
pub const LEVELS: core::ops::RangeInclusive<u8> = 1..=8;

impl Level {
    /// The documented settings of each level (README, "Levels").
    pub fn new(level: u8) -> Option<Level> {
        let (depth, time, noise) = match level {
            1 => (1, None, 4),
            2 => (2, None, 3),
            3 => (3, None, 2),
            4 => (4, None, 1),
            5 => (6, None, 0),
            6 => (8, Some(500), 0),
            7 => (12, Some(1000), 0),
            8 => (64, Some(2000), 0),
            _ => return None,
        };
        Some(Level {
            level,
            depth,
            time: time.map(Duration::from_millis),
            noise,
        })
    }

    /// Chooses a move for the side to move; `seed` drives the level's randomness.
    /// `None` when the game is over. Always a legal move.
    pub fn choose(&self, pos: &Position, seed: u64) -> Option<u8> {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            return None;
        }
        if legal.len() == 1 {
            return Some(legal.as_slice()[0]);
        }
        if self.noise > 0 {
            let values = root_values(pos, self.depth);
            let best = values.iter().map(|v| v.1).max()?;
            let near: Vec<u8> = values
                .iter()
                .filter(|v| v.1 >= best - self.noise)
                .map(|v| v.0)
                .collect();
            let mut x = seed ^ 0x9E37_79B9_7F4A_7C15;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            return Some(near[(x % near.len() as u64) as usize]);
        }
        search(
            pos,
            Limits {
                depth: Some(self.depth),
                time: self.time,
                nodes: None,
            },
        )
        .map(|r| r.best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_a_free_capture() {
        // South pit 1 (1 seed) lands in empty pit 2 facing 9 seeds.
        let p: Position = "kalah,seeds=4/1-0-4-4-4-4/0/4-5-6-0-9-0/7/s"
            .parse()
            .unwrap();
        let r = search(
            &p,
            Limits {
                depth: Some(1),
                ..Limits::default()
            },
        )
        .unwrap();
        assert_eq!(r.best, 0);
        assert_eq!(r.value, 10 - 7, "South takes 10, North has 7");
    }

    #[test]
    fn every_level_plays_a_legal_move() {
        for preset in mancala_core::Preset::ALL {
            let p = Position::start(&preset.rules()).unwrap();
            for level in [1, 3, 5] {
                let mv = Level::new(level).unwrap().choose(&p, 7).unwrap();
                assert!(p.legal_moves().contains(mv), "{preset} level {level}");
            }
        }
    }

    #[test]
    fn solves_a_tiny_kalah_exactly() {
        // Kalah(6,3) is +2 for the first player (shared/cases); the search to the end proves
        // smaller boards quickly: Kalah(3,2) by brute force in the test.
        let rules = "kalah,pits=3,seeds=2".parse().unwrap();
        let p = Position::start(&rules).unwrap();
        let r = search(
            &p,
            Limits {
                depth: Some(40),
                ..Limits::default()
            },
        )
        .unwrap();
        let exact = brute(&p);
        assert_eq!(r.value, exact);
    }

    fn brute(p: &Position) -> i32 {
        let me = p.to_move();
        p.legal_moves()
            .as_slice()
            .iter()
            .map(|&mv| {
                let mut c = *p;
                c.play(mv).unwrap();
                if c.is_over() {
                    let s = c.scores();
                    s[me.index()] as i32 - s[me.other().index()] as i32
                } else if c.to_move() == me {
                    brute(&c)
                } else {
                    -brute(&c)
                }
            })
            .max()
            .unwrap()
    }
}
