//! The count types of a Kalah-family board: `u8` for most games, `u16` for the largest.

use super::*;

/// The count type of a [`KalahPos`] board: `u8` (the default, for games of up to
/// [`MAX_TOTAL_SEEDS`] seeds in all; every table and fast path reads these) or `u16` (larger
/// boards, such as KGP's Kalah(12,12) of 288 seeds, up to [`WIDE_MAX_SEEDS`]).
/// [`crate::Position`] picks the narrower that holds the rules' seeds; code over one type is
/// monomorphised for each.
pub trait Cell:
    Copy
    + Default
    + Eq
    + Ord
    + core::hash::Hash
    + core::fmt::Debug
    + Send
    + Sync
    + 'static
    + From<u8>
    + Into<u16>
    + Into<u32>
    + core::ops::Add<Output = Self>
    + core::ops::AddAssign
    + core::ops::Sub<Output = Self>
    + core::iter::Sum
{
    /// Most seeds in all a position of this cell type may hold.
    const MAX_TOTAL: u32;
    /// Bits that hold any count up to [`Cell::MAX_TOTAL`].
    const COUNT_BITS: u32;
    /// `v`, which is at most [`Cell::MAX_TOTAL`].
    fn from_u32(v: u32) -> Self;
    /// Pits `s..s + m` of `board` as two words with a non-zero byte for each non-empty pit,
    /// pits 1-8 then 9-12 (move generation reads their non-zero bytes).
    fn occupancy(board: &[Self; BOARD_LEN], s: usize, m: u32) -> (u64, u64);
    /// Pits `s..s + m` of `board` as one word that tells every row apart, for hashing.
    fn row_word(board: &[Self; BOARD_LEN], s: usize, m: u32) -> u128;
    /// The same position with `u8` counts, where this is that type (the endgame tables and
    /// the solver's fast path read only those).
    fn narrow(pos: &KalahPos<Self>) -> Option<&KalahPos<u8>>;
}

impl Cell for u8 {
    const MAX_TOTAL: u32 = MAX_TOTAL_SEEDS;
    const COUNT_BITS: u32 = 8;
    #[inline]
    fn from_u32(v: u32) -> u8 {
        v as u8
    }
    /// The counts themselves: pit 1 in the low byte of the first word.
    #[inline]
    fn occupancy(board: &[u8; BOARD_LEN], s: usize, m: u32) -> (u64, u64) {
        let low = u64::from_le_bytes(board[s..s + 8].try_into().unwrap());
        if m <= 8 {
            return (low & (u64::MAX >> (64 - 8 * m)), 0);
        }
        let high = u32::from_le_bytes(board[s + 8..s + 12].try_into().unwrap())
            & (u32::MAX >> (32 - 8 * (m - 8)));
        (low, high as u64)
    }
    /// A byte a pit, pit 1 lowest: rows of up to 8 pits fit the low 64 bits.
    #[inline]
    fn row_word(board: &[u8; BOARD_LEN], s: usize, m: u32) -> u128 {
        let (low, high) = Self::occupancy(board, s, m);
        low as u128 | (high as u128) << 64
    }
    #[inline]
    fn narrow(pos: &KalahPos<u8>) -> Option<&KalahPos<u8>> {
        Some(pos)
    }
}

impl Cell for u16 {
    const MAX_TOTAL: u32 = WIDE_MAX_SEEDS;
    const COUNT_BITS: u32 = 9;
    #[inline]
    fn from_u32(v: u32) -> u16 {
        v as u16
    }
    fn occupancy(board: &[u16; BOARD_LEN], s: usize, m: u32) -> (u64, u64) {
        let mut words = [0u64; 2];
        for (i, &c) in board[s..s + m as usize].iter().enumerate() {
            words[i / 8] |= u64::from(c != 0) << (8 * (i % 8));
        }
        (words[0], words[1])
    }
    /// Nine bits a pit ([`WIDE_MAX_SEEDS`] is 511), pit 1 lowest: 108 bits for 12 pits.
    fn row_word(board: &[u16; BOARD_LEN], s: usize, m: u32) -> u128 {
        board[s..s + m as usize]
            .iter()
            .enumerate()
            .fold(0, |w, (i, &c)| {
                w | (c as u128) << (Self::COUNT_BITS as usize * i)
            })
    }
    fn narrow(_: &KalahPos<u16>) -> Option<&KalahPos<u8>> {
        None
    }
}

/// The high bit of each non-zero byte of `word` (no carry crosses a byte: each sum is at most
/// `0xfe`).
#[inline]
pub(super) fn nonzero_bytes(word: u64) -> u64 {
    const LOW7: u64 = u64::from_le_bytes([0x7f; 8]);
    (((word & LOW7) + LOW7) | word) & !LOW7
}
