//! Observations and legal-move masks (the layout is in the [batch's docs](super)): of any
//! position, and of games on the engine's fast board, whose pit count is a constant there.

use mancala_core::{with_family, Family, Game, Moves, Position, Rules, Side};
use mancala_engine::fast::FastGame;

/// Entries of an observation of a game of `rules` (see the [batch's docs](super)).
pub fn observation_len(rules: &Rules) -> usize {
    let m = rules.pits as usize;
    if rules.has_cowries() {
        4 * m + 2
    } else {
        2 * m + 2
    }
}

/// Writes the observation of `pos` from its side to move into `out`, which holds
/// [`observation_len`] entries.
pub fn write_observation(pos: &Position, out: &mut [f32]) {
    write_observation_for(pos, pos.to_move(), out)
}

/// Writes the observation of `pos` from `me`'s view (as if `me` were to move) into `out`.
pub fn write_observation_for(pos: &Position, me: Side, out: &mut [f32]) {
    let cowries = pos.rules().has_cowries();
    with_family!(pos, p => fill(p, pos.pits(), me, cowries, out))
}

/// [`write_observation_for`] on the family's own position type (one call a position).
fn fill<F: Family>(p: &F, m: usize, me: Side, cowries: bool, out: &mut [f32]) {
    let them = me.other();
    for i in 0..m {
        let (a, ac) = p.pit_content(me, i);
        let (b, bc) = p.pit_content(them, i);
        out[i] = a as f32;
        out[m + i] = b as f32;
        if cowries {
            out[2 * m + 2 + i] = ac as f32;
            out[3 * m + 2 + i] = bc as f32;
        }
    }
    let s = p.scores();
    out[2 * m] = s[me.index()] as f32;
    out[2 * m + 1] = s[them.index()] as f32;
}

/// Writes `legal` as a mask of `out.len()` pits from the mover's left. The pie rule's swap
/// ([`mancala_core::SWAP`]) is no pit and has no entry: callers that offer masks refuse the
/// pie rule, or check for the swap first.
pub(super) fn write_moves(legal: &Moves, out: &mut [bool]) {
    out.fill(false);
    for pit in legal {
        if let Some(o) = out.get_mut(pit as usize) {
            *o = true;
        }
    }
}

/// Writes the legal moves of `game` as a mask of its `m` pits from the mover's left.
pub fn write_mask(game: &Game, out: &mut [bool]) {
    write_moves(&game.legal_moves(), out)
}

/// Writes the observation of `g` (see the [batch's docs](super)) into `out`.
#[inline(always)]
pub(super) fn fast_observation(g: &FastGame, m: usize, out: &mut [f32]) {
    match m {
        1 => fast_observation_m::<1>(g, out),
        2 => fast_observation_m::<2>(g, out),
        3 => fast_observation_m::<3>(g, out),
        4 => fast_observation_m::<4>(g, out),
        5 => fast_observation_m::<5>(g, out),
        6 => fast_observation_m::<6>(g, out),
        _ => fast_observation_m::<7>(g, out),
    }
}

/// [`fast_observation`] of a board of `M` pits: with the pit count a constant, the copies are
/// a few moves, not calls to `memmove`.
#[inline(always)]
pub(super) fn fast_observation_m<const M: usize>(g: &FastGame, out: &mut [f32]) {
    let out = &mut out[..2 * M + 2];
    // Both rows converted at once (one vector conversion), then copied.
    let seeds = rows_as_f32(g.own_row(), g.their_row());
    out[..M].copy_from_slice(&seeds[..M]);
    out[M..2 * M].copy_from_slice(&seeds[8..8 + M]);
    let (me, s) = (g.to_move().index(), g.scores());
    out[2 * M] = s[me] as f32;
    out[2 * M + 1] = s[1 - me] as f32;
}

/// Writes the observation, from `me`'s view, of the game that `pit` ends from live game
/// `before` on the fast board: played again on its position, since the fast board does not
/// keep the seeds that the rules leave on a finished board (`leftovers=not-counted`).
#[cold]
pub(super) fn final_observation(
    before: &FastGame,
    pit: u8,
    rules: &Rules,
    me: Side,
    out: &mut [f32],
) {
    let mut p = before.position(rules).expect("a live game");
    p.play_unchecked(pit);
    write_observation_for(&p, me, out);
}

/// The 16 bytes of two rows (`own` in the low 8) as floats, byte `i` in entry `i`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn rows_as_f32(own: u64, theirs: u64) -> [f32; 16] {
    // SSE2 (every x86-64 has it): the bytes widened twice with zeros and converted, four
    // floats an instruction, where the compiler converted them one by one.
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of x86-64, so these instructions exist on every machine that runs
    // this build; four vectors of four floats are sixteen floats, and every bit pattern is a
    // float.
    unsafe {
        let v = _mm_set_epi64x(theirs as i64, own as i64);
        let z = _mm_setzero_si128();
        let (a, b) = (_mm_unpacklo_epi8(v, z), _mm_unpackhi_epi8(v, z));
        let f = [
            _mm_cvtepi32_ps(_mm_unpacklo_epi16(a, z)),
            _mm_cvtepi32_ps(_mm_unpackhi_epi16(a, z)),
            _mm_cvtepi32_ps(_mm_unpacklo_epi16(b, z)),
            _mm_cvtepi32_ps(_mm_unpackhi_epi16(b, z)),
        ];
        std::mem::transmute::<[__m128; 4], [f32; 16]>(f)
    }
}

/// The 16 bytes of two rows (`own` in the low 8) as floats, byte `i` in entry `i`.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn rows_as_f32(own: u64, theirs: u64) -> [f32; 16] {
    let bytes = (own as u128 | (theirs as u128) << 64).to_le_bytes();
    std::array::from_fn(|i| bytes[i] as f32)
}

/// Writes legal moves as bytes ([`FastGame::legal_bytes`]) as a mask of `out.len()` pits (at
/// most 8).
#[inline(always)]
pub(super) fn fast_mask(legal: u64, out: &mut [bool]) {
    let bytes = legal.to_le_bytes();
    let n = out.len().min(8);
    // SAFETY: each byte is 0 or 1, a valid `bool`, and `n` bytes fit both slices.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), out.as_mut_ptr().cast::<u8>(), n) }
}
