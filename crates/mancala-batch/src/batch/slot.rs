//! One game of a batch ([`Slot`]): on the engine's fast board where its rules allow, else a
//! position played copy-make or a [`Game`]; and the draw of a legal move from a game's
//! generator, the same on each.

use mancala_core::rng::Rng;
use mancala_core::{Game, KalahRules, Moves, Outcome, Position, Rules, Side, MAX_PITS};
use mancala_engine::fast::{FastGame, FastRules};

use super::observe::{
    fast_mask, fast_observation, write_moves, write_observation, write_observation_for,
};

/// The rules of a batch stepped on the engine's fast board (no endgame tables).
pub(super) struct Fast {
    kalah: KalahRules,
    pub(super) rules: FastRules<'static>,
    /// The start, a game on the fast board.
    pub(super) start: FastGame,
}

impl Fast {
    /// The fast path for games from `start`, or `None` where its rules need the generic one
    /// (see the [batch's docs](super)).
    pub(super) fn new(start: &Position) -> Option<Fast> {
        if start.rules().can_repeat() || start.is_over() {
            return None;
        }
        let p = start.as_kalah()?;
        let rules = FastRules::new(p.rules(), None)?;
        let start = rules.game(p)?;
        Some(Fast {
            kalah: *p.rules(),
            rules,
            start,
        })
    }
}

impl Clone for Fast {
    fn clone(&self) -> Fast {
        Fast {
            kalah: self.kalah,
            rules: FastRules::new(&self.kalah, None).expect("rules of the fast path"),
            start: self.start,
        }
    }
}

impl std::fmt::Debug for Fast {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fast").field("kalah", &self.kalah).finish()
    }
}

/// A game of a batch: on the engine's fast board where the rules allow, else a position
/// played copy-make where no position can repeat, else a [`Game`], which keeps the positions
/// for the repetition rule.
#[derive(Clone, Debug)]
pub(super) enum Play {
    Fast(FastGame),
    Plain(Position),
    Kept(Game),
}

/// One game of a batch and its legal moves, read once a move: a step checks the actions,
/// writes the masks and samples the next actions from them. (A game on the fast board reads
/// its moves from the board's bits instead; `legal` stays empty.)
#[derive(Clone, Debug)]
pub(super) struct Slot {
    pub(super) play: Play,
    pub(super) legal: Moves,
}

/// The `k`-th (from 0) set bit of `bits`: the `k`-th legal move, as `Moves::as_slice()[k]`.
/// A table (2 KiB): clearing `k` low bits in a loop mispredicted its exit on random `k`.
#[inline]
pub(super) fn nth_bit(bits: u8, k: usize) -> u8 {
    static NTH: [[u8; 8]; 256] = {
        let mut t = [[0u8; 8]; 256];
        let mut b = 0;
        while b < 256 {
            let (mut k, mut i) = (0, 0);
            while i < 8 {
                if b >> i & 1 != 0 {
                    t[b][k] = i as u8;
                    k += 1;
                }
                i += 1;
            }
            b += 1;
        }
        t
    };
    NTH[bits as usize][k & 7]
}

/// `rng.below(n)` for `n` of 1 to 8 (the same draw and number), by Lemire's remainder of a
/// multiplication instead of a division by a variable (a tenth of the step loop's samples in
/// `perf` before).
#[inline]
pub(super) fn below_small(rng: &mut Rng, n: u32) -> usize {
    /// `M[n]`: the 128-bit reciprocal `2^128 / n`, rounded up (0 for `n` of 0 and 1, where
    /// the product is then 0, as `x % 1`).
    const M: [u128; 9] = {
        let mut t = [0u128; 9];
        let mut n = 2;
        while n < 9 {
            t[n] = u128::MAX / n as u128 + 1;
            n += 1;
        }
        t
    };
    debug_assert!((1..=8).contains(&n));
    let x = rng.next_u64();
    let low = M[n as usize].wrapping_mul(x as u128);
    // The high 128 bits of `low * n` (the remainder, below `n`).
    let (hi, lo) = ((low >> 64) as u64 as u128, low as u64 as u128);
    ((hi * n as u128 + ((lo * n as u128) >> 64)) >> 64) as usize
}

/// A move drawn from the softmax of `logits` (one a pit, at most `N`, a multiple of 4) over
/// the legal pits
/// (bit `p` of `legal`: pit `p`): pit `p` with probability `exp(logits[p])` over the sum for
/// every legal pit. One draw of `rng`. The logits of legal pits are checked first
/// ([`check_logits`]); those of other pits are not used. `N` lanes are computed whatever the
/// pit count, four at a time.
#[inline(always)]
pub(super) fn draw_softmax<const N: usize>(legal: u16, logits: &[f32], rng: &mut Rng) -> u8 {
    let mut l = [f32::NEG_INFINITY; N];
    for (p, (l, &x)) in l.iter_mut().zip(logits).enumerate() {
        if legal >> p & 1 != 0 {
            *l = x;
        }
    }
    // Comparisons, not `f32::max`: no NaN comes here, and they take vector instructions.
    let max = l
        .iter()
        .fold(f32::NEG_INFINITY, |m, &x| if x > m { x } else { m });
    let mut w = [0f32; N];
    for (w, l) in w.chunks_exact_mut(4).zip(l.chunks_exact(4)) {
        w.copy_from_slice(&exp4_nonpositive([l[0], l[1], l[2], l[3]], max));
    }
    // The running sums, and the draw: the first pit whose running sum passes a uniform draw
    // below the total (24 bits: an f32's precision), found by counting the sums it does not
    // pass, without a branch to mispredict.
    let mut sums = w;
    for p in 1..N {
        sums[p] += sums[p - 1];
    }
    let u = (rng.next_u64() >> 40) as f32 * (1.0 / (1u32 << 24) as f32) * sums[N - 1];
    let pit = sums.iter().filter(|&&s| s <= u).count();
    if pit < N {
        return pit as u8;
    }
    // Rounding put the draw at the total: the last pit that has a weight.
    (0..N).rev().find(|&p| w[p] > 0.0).unwrap_or(0) as u8
}

/// `e^x` for `x <= 0` (-inf included, giving 0), within a few parts in 10^7 of `f32::exp`:
/// Cephes' `expf` (`x = k ln 2 + f`, `ln 2` in two parts, a polynomial for `e^f`, the
/// exponent's bits for `2^k`) in straight-line code that a vector instruction can take four
/// or eight at a time, where `f32::exp` is a call for each.
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
pub(super) fn exp_nonpositive(x: f32) -> f32 {
    // From about e^-87.7 (2^-126.5) down, and at -inf, the value is 0 (`k` is -127).
    let x = if x < -88.0 { -88.0 } else { x };
    // `x log2(e)` rounded to the nearest integer `k` by adding 1.5 * 2^23, whose low bits
    // then hold `k` (read below without a conversion), and taking it away again.
    let big = x * std::f32::consts::LOG2_E + 12_582_912.0;
    let k = big - 12_582_912.0;
    let f = (x - k * 0.693_359_4) - k * -2.121_944_4e-4;
    let p = 1.987_569_1e-4;
    let p = p * f + 1.398_2e-3;
    let p = p * f + 8.333_452e-3;
    let p = p * f + 4.166_579_6e-2;
    let p = p * f + 1.666_666_5e-1;
    let p = p * f + 0.5;
    let e = p * f * f + f + 1.0;
    // `k` is -127 to 0: 2^k from its exponent bits `k + 127` (0, giving 0, for -127).
    let bits = big.to_bits().wrapping_sub(0x4B40_0000 - 127) << 23;
    e * f32::from_bits(bits)
}

/// `e^(x - max)` of four lanes ([`exp_nonpositive`] of each), in vector instructions.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn exp4_nonpositive(x: [f32; 4], max: f32) -> [f32; 4] {
    // The compiler left the scalar function's four copies scalar: SSE2 (part of every x86-64)
    // by hand, each operation as in `exp_nonpositive`, in its order, so that the lanes agree
    // with it to the bit.
    use std::arch::x86_64::*;
    // SAFETY: SSE2 exists on every x86-64; the casts reinterpret four 32-bit lanes, and
    // every bit pattern is a float and an integer.
    unsafe {
        let c = _mm_set1_ps;
        let x = _mm_sub_ps(_mm_loadu_ps(x.as_ptr()), c(max));
        let x = _mm_max_ps(x, c(-88.0));
        let big = _mm_add_ps(_mm_mul_ps(x, c(std::f32::consts::LOG2_E)), c(12_582_912.0));
        let k = _mm_sub_ps(big, c(12_582_912.0));
        let f = _mm_sub_ps(
            _mm_sub_ps(x, _mm_mul_ps(k, c(0.693_359_4))),
            _mm_mul_ps(k, c(-2.121_944_4e-4)),
        );
        let mut p = c(1.987_569_1e-4);
        for a in [
            1.398_2e-3,
            8.333_452e-3,
            4.166_579_6e-2,
            1.666_666_5e-1,
            0.5,
        ] {
            p = _mm_add_ps(_mm_mul_ps(p, f), c(a));
        }
        let e = _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_mul_ps(p, f), f), f), c(1.0));
        let k = _mm_sub_epi32(_mm_castps_si128(big), _mm_set1_epi32(0x4B40_0000 - 127));
        let two_k = _mm_castsi128_ps(_mm_slli_epi32(k, 23));
        std::mem::transmute::<__m128, [f32; 4]>(_mm_mul_ps(e, two_k))
    }
}

/// `e^(x - max)` of four lanes ([`exp_nonpositive`] of each).
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(super) fn exp4_nonpositive(x: [f32; 4], max: f32) -> [f32; 4] {
    x.map(|x| exp_nonpositive(x - max))
}

/// The own pits whose bits are set in `bits` (bit `p`: pit `p`), from the mover's left.
#[inline(always)]
pub(super) fn legal_of_bits(bits: u16) -> impl Iterator<Item = u8> + Clone {
    (0..16u8).filter(move |&p| bits >> p & 1 != 0)
}

/// Why `logits` (one a pit; those of `legal`'s pits read) cannot be drawn from: a legal
/// pit's logit that is NaN or +inf (`Some((pit, logit))`), or no legal pit with a finite
/// logit (`None`; -inf gives a pit no chance).
pub(super) fn check_logits(
    legal: impl Iterator<Item = u8>,
    logits: &[f32],
) -> Result<(), Option<(u8, f32)>> {
    let mut any = false;
    for p in legal {
        let l = logits[p as usize];
        if l.is_nan() || l == f32::INFINITY {
            return Err(Some((p, l)));
        }
        any |= l.is_finite();
    }
    if any {
        Ok(())
    } else {
        Err(None)
    }
}

/// The outcome of a finished game of the fast path (never misère): more seeds wins.
pub(super) fn fast_outcome(s: [u8; 2]) -> Outcome {
    match s[0].cmp(&s[1]) {
        std::cmp::Ordering::Equal => Outcome::Draw,
        std::cmp::Ordering::Greater => Outcome::Win(Side::South),
        std::cmp::Ordering::Less => Outcome::Win(Side::North),
    }
}

impl Slot {
    /// A game from `start`, on the fast board when `fast` is given.
    pub(super) fn new(start: Position, fast: Option<&Fast>) -> Slot {
        let play = if let Some(f) = fast {
            let p = start.as_kalah().expect("a Kalah-family start");
            Play::Fast(f.rules.game(p).expect("a start of the fast path"))
        } else if start.rules().can_repeat() {
            Play::Kept(Game::new(start))
        } else {
            Play::Plain(start)
        };
        let mut s = Slot {
            play,
            legal: Moves::default(),
        };
        s.legal = s.read_legal();
        s
    }
    pub(super) fn read_legal(&self) -> Moves {
        match &self.play {
            Play::Fast(_) => Moves::default(),
            Play::Plain(p) => p.legal_moves(),
            Play::Kept(g) => g.legal_moves(),
        }
    }
    /// The position now (`rules`: the batch's).
    pub(super) fn position(&self, rules: &Rules) -> Position {
        match &self.play {
            Play::Fast(g) => g.position(rules).expect("a live game"),
            Play::Plain(p) => *p,
            Play::Kept(g) => *g.position(),
        }
    }
    pub(super) fn to_move(&self) -> Side {
        match &self.play {
            Play::Fast(g) => g.to_move(),
            Play::Plain(p) => p.to_move(),
            Play::Kept(g) => g.to_move(),
        }
    }
    pub(super) fn legal_moves(&self) -> Moves {
        match &self.play {
            Play::Fast(g) => g.legal_moves(),
            _ => self.legal,
        }
    }
    /// Whether `pit` is a legal move (read from the board's bits on the fast board, which
    /// keeps no list of moves).
    #[inline]
    pub(super) fn allows(&self, pit: i64) -> bool {
        match &self.play {
            Play::Fast(g) => (0..8).contains(&pit) && g.legal_bits() >> pit & 1 != 0,
            _ => (0..=255).contains(&pit) && self.legal.contains(pit as u8),
        }
    }

    /// A legal move drawn uniformly from `rng` (one draw, as `rng.pick` of the moves).
    #[inline]
    pub(super) fn pick(&self, rng: &mut Rng) -> u8 {
        match &self.play {
            Play::Fast(g) => {
                let bits = g.legal_bits();
                nth_bit(bits, below_small(rng, bits.count_ones()))
            }
            _ => rng.pick(self.legal.as_slice()),
        }
    }
    /// The legal moves, own pits from the mover's left (the pie rule's swap left out).
    pub(super) fn legal_pits(&self) -> impl Iterator<Item = u8> + Clone + '_ {
        let bits = match &self.play {
            Play::Fast(g) => g.legal_bits(),
            _ => 0,
        };
        let fast = legal_of_bits(bits.into());
        let slow = match &self.play {
            Play::Fast(_) => &[][..],
            _ => self.legal.as_slice(),
        };
        fast.chain(slow.iter().copied().filter(|&p| p != mancala_core::SWAP))
    }

    /// A legal move drawn from the softmax of `logits` ([`draw_softmax`]).
    #[inline]
    pub(super) fn draw(&self, logits: &[f32], rng: &mut Rng) -> u8 {
        let legal = self.legal_pits().fold(0u16, |b, p| b | 1 << p);
        draw_softmax::<{ MAX_PITS }>(legal, logits, rng)
    }
    pub(super) fn is_over(&self) -> bool {
        match &self.play {
            Play::Fast(g) => g.is_over(),
            Play::Plain(p) => p.is_over(),
            Play::Kept(g) => g.is_over(),
        }
    }
    /// Plays `pit`, one of the slot's legal moves (checked by the caller), and reads the next
    /// legal moves. `fast`: the batch's fast rules (given where the slot is on the fast board).
    pub(super) fn play(&mut self, pit: u8, fast: Option<&Fast>) {
        debug_assert!(self.legal_moves().contains(pit));
        match &mut self.play {
            Play::Fast(g) => {
                fast.expect("the fast rules").rules.step(g, pit);
                return;
            }
            Play::Plain(p) => {
                p.play_unchecked(pit);
            }
            // The game checks the move again; it also keeps the positions for repetitions.
            Play::Kept(g) => {
                g.play(pit).expect("a legal move");
            }
        }
        self.legal = self.read_legal();
    }
    pub(super) fn result(&self) -> (Option<Outcome>, [u16; 2]) {
        match &self.play {
            Play::Fast(g) => (
                g.is_over().then(|| fast_outcome(g.scores())),
                g.scores().map(u16::from),
            ),
            Play::Plain(p) => (p.outcome(), p.scores()),
            Play::Kept(g) => (g.outcome(), g.scores()),
        }
    }
    /// Writes the observation of the game (see the [batch's docs](super)) into `out`.
    pub(super) fn write_observation(&self, m: usize, out: &mut [f32]) {
        match &self.play {
            Play::Fast(g) => fast_observation(g, m, out),
            Play::Plain(p) => write_observation(p, out),
            Play::Kept(g) => write_observation(g.position(), out),
        }
    }
    /// Writes the observation of the game (on the generic path) from `me`'s view into
    /// `out`.
    pub(super) fn write_observation_for(&self, me: Side, out: &mut [f32]) {
        match &self.play {
            Play::Fast(_) => unreachable!("the fast board's final observations: step_fast_with"),
            Play::Plain(p) => write_observation_for(p, me, out),
            Play::Kept(g) => write_observation_for(g.position(), me, out),
        }
    }
    /// Writes the legal moves as a mask of the `m` pits.
    pub(super) fn write_mask(&self, out: &mut [bool]) {
        match &self.play {
            Play::Fast(g) => fast_mask(g.legal_bytes(), out),
            _ => write_moves(&self.legal, out),
        }
    }
}
