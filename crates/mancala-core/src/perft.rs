//! Perft: count the leaves of the game tree to a depth, by ply (one sowing) or by turn.
//!
//! Two conventions for a game that ends before the depth: [`perft`] counts it once, where it
//! ends (the convention of the project's perft cases, `tests/cases.rs`); [`perft_full_depth`]
//! does not count it (chess's convention: only move paths of exactly `depth` plies). They
//! agree on Kalah(6,4) to depth 9 and differ from depth 10 (13,519,608 and 13,519,607
//! leaves). The last ply is counted in bulk (the number of legal moves), without playing it.

use crate::GameState;

/// Leaves at `depth` plies; a game that ends earlier counts once.
pub fn perft<P: GameState>(pos: &P, depth: u32) -> u64 {
    walk::<P, true>(pos, depth)
}

/// Move paths of exactly `depth` plies; a game that ends earlier counts nothing.
pub fn perft_full_depth<P: GameState>(pos: &P, depth: u32) -> u64 {
    walk::<P, false>(pos, depth)
}

fn walk<P: GameState, const COUNT_ENDED: bool>(pos: &P, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if pos.is_over() {
        return COUNT_ENDED as u64;
    }
    if depth == 1 {
        return pos.count_moves();
    }
    let mut n = 0;
    for mv in &pos.legal_moves() {
        let mut child = *pos;
        child.play_unchecked(mv);
        n += walk::<P, COUNT_ENDED>(&child, depth - 1);
    }
    n
}

/// Moves one turn may hold before perft by turn counts it as a leaf (a guard for Kauri, whose
/// runs of sowings while the opponent passes are not bounded by the rules alone).
pub const MAX_MOVES_PER_TURN: u32 = 64;

/// Leaves at `depth` turns (a turn is a move plus its extra moves, or a Kauri run of
/// sowings while the opponent passes).
pub fn perft_turns<P: GameState>(pos: &P, depth: u32) -> u64 {
    turns(pos, depth, 0)
}

fn turns<P: GameState>(pos: &P, depth: u32, in_turn: u32) -> u64 {
    if depth == 0 || pos.is_over() {
        return 1;
    }
    let mut n = 0;
    for mv in &pos.legal_moves() {
        let mut child = *pos;
        child.play_unchecked(mv);
        n += if child.to_move() == pos.to_move() && !child.is_over() && in_turn < MAX_MOVES_PER_TURN
        {
            turns(&child, depth, in_turn + 1)
        } else {
            turns(&child, depth - 1, 0)
        };
    }
    n
}
