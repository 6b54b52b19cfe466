//! A policy's draw ([`Actions::Policy`](super::Actions::Policy)): a legal move drawn from the
//! softmax of the policy's logits, four pits at a time ([`F4`]: SSE2 on x86-64, where every
//! machine has it, plain arrays elsewhere, the same operations in the same order), and the
//! check that logits can be drawn from.

use mancala_core::rng::Rng;

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

/// A move drawn from the softmax of `logits` (one a pit, at most `N`, a multiple of 4) over
/// the legal pits (bit `p` of `legal`: pit `p`): pit `p` with probability `exp(logits[p])`
/// over the sum for every legal pit. One draw of `rng`. The logits of legal pits are checked
/// first ([`check_logits`]); those of other pits are not used.
///
/// The weights `e^(l - max)` ([`exp4`]), their running sums, and the pit: the number of
/// running sums at or below a uniform draw below the total (24 bits: an f32's precision),
/// which is the first pit whose sum passes the draw, counted without a branch.
#[inline(always)]
pub(super) fn draw_softmax<const N: usize>(legal: u16, logits: &[f32], rng: &mut Rng) -> u8 {
    let mut row = [0f32; N];
    row[..logits.len()].copy_from_slice(logits);
    let groups = N / 4;
    let mut l = [F4::splat(0.0); 4];
    for (g, l) in l.iter_mut().enumerate().take(groups) {
        let x = F4::new([row[4 * g], row[4 * g + 1], row[4 * g + 2], row[4 * g + 3]]);
        *l = x.or_minus_infinity(u32::from(legal >> (4 * g)) & 15);
    }
    let mut max = l[0];
    for &l in &l[1..groups] {
        max = max.max(l);
    }
    let max = max.max_of_lanes();
    let mut sums = [F4::splat(0.0); 4];
    let mut carry = F4::splat(0.0);
    for g in 0..groups {
        sums[g] = exp4(l[g].sub(max)).running_sums().add(carry);
        carry = sums[g].last_lane();
    }
    let total = carry;
    let u = (rng.next_u64() >> 40) as f32 * (1.0 / (1u32 << 24) as f32);
    let u = total.mul(F4::splat(u));
    let pit: u32 = sums[..groups].iter().map(|s| s.count_at_most(u)).sum();
    if (pit as usize) < N {
        return pit as u8;
    }
    // Rounding put the draw at the total: the last legal pit whose running sum grew.
    let mut s = [0f32; 16];
    for (g, sums) in sums[..groups].iter().enumerate() {
        s[4 * g..4 * g + 4].copy_from_slice(&sums.lanes());
    }
    (0..N)
        .rev()
        .find(|&p| s[p] > if p == 0 { 0.0 } else { s[p - 1] })
        .unwrap_or(0) as u8
}

/// `e^x` of four lanes, each `x <= 0` (-inf included, giving 0): Cephes' `expf` (`x = k ln 2
/// + f`, `ln 2` in two parts, a polynomial for `e^f`, `2^k` from the exponent's bits, `k`
/// read from the low bits of `x log2 e + 1.5 * 2^23` without a conversion), within 3e-7 of
/// `e^x` relatively. From about e^-87.7 (2^-126.5) down the value is 0.
#[inline(always)]
pub(super) fn exp4(x: F4) -> F4 {
    let c = F4::splat;
    let x = x.max(c(-88.0));
    let big = x.mul(c(std::f32::consts::LOG2_E)).add(c(12_582_912.0));
    let k = big.sub(c(12_582_912.0));
    let f = x.sub(k.mul(c(0.693_359_4))).sub(k.mul(c(-2.121_944_4e-4)));
    let mut p = c(1.987_569_1e-4);
    for a in [
        1.398_2e-3,
        8.333_452e-3,
        4.166_579_6e-2,
        1.666_666_5e-1,
        0.5,
    ] {
        p = p.mul(f).add(c(a));
    }
    let e = p.mul(f).mul(f).add(f).add(c(1.0));
    e.mul(big.two_to_rounded())
}

/// Four `f32` lanes.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(super) struct F4(std::arch::x86_64::__m128);

/// Four `f32` lanes.
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy)]
pub(super) struct F4([f32; 4]);

// SAFETY (every `unsafe` block below): SSE2 is part of x86-64, so these instructions exist on
// every machine that runs this build; the casts reinterpret four 32-bit lanes, and every bit
// pattern is a float and an integer.
#[cfg(target_arch = "x86_64")]
impl F4 {
    #[inline(always)]
    pub(super) fn new(x: [f32; 4]) -> F4 {
        use std::arch::x86_64::*;
        unsafe { F4(_mm_loadu_ps(x.as_ptr())) }
    }
    #[inline(always)]
    pub(super) fn splat(x: f32) -> F4 {
        use std::arch::x86_64::*;
        unsafe { F4(_mm_set1_ps(x)) }
    }
    #[inline(always)]
    pub(super) fn lanes(self) -> [f32; 4] {
        unsafe { std::mem::transmute::<std::arch::x86_64::__m128, [f32; 4]>(self.0) }
    }
    #[inline(always)]
    fn add(self, o: F4) -> F4 {
        use std::arch::x86_64::*;
        unsafe { F4(_mm_add_ps(self.0, o.0)) }
    }
    #[inline(always)]
    fn sub(self, o: F4) -> F4 {
        use std::arch::x86_64::*;
        unsafe { F4(_mm_sub_ps(self.0, o.0)) }
    }
    #[inline(always)]
    fn mul(self, o: F4) -> F4 {
        use std::arch::x86_64::*;
        unsafe { F4(_mm_mul_ps(self.0, o.0)) }
    }
    /// The larger of each pair of lanes (no NaN comes here).
    #[inline(always)]
    fn max(self, o: F4) -> F4 {
        use std::arch::x86_64::*;
        unsafe { F4(_mm_max_ps(self.0, o.0)) }
    }
    /// The largest lane, in every lane.
    #[inline(always)]
    fn max_of_lanes(self) -> F4 {
        use std::arch::x86_64::*;
        unsafe {
            let m = _mm_max_ps(self.0, _mm_shuffle_ps::<0b10_11_00_01>(self.0, self.0));
            F4(_mm_max_ps(m, _mm_shuffle_ps::<0b01_00_11_10>(m, m)))
        }
    }
    /// Lane `i` where bit `i` of `bits` is set, else -inf.
    #[inline(always)]
    fn or_minus_infinity(self, bits: u32) -> F4 {
        use std::arch::x86_64::*;
        unsafe {
            let b = _mm_set_epi32(8, 4, 2, 1);
            let on = _mm_castsi128_ps(_mm_cmpeq_epi32(
                _mm_and_si128(_mm_set1_epi32(bits as i32), b),
                b,
            ));
            let off = _mm_andnot_ps(on, _mm_set1_ps(f32::NEG_INFINITY));
            F4(_mm_or_ps(_mm_and_ps(on, self.0), off))
        }
    }
    /// `[a, a + b, (c + b) + a, (d + c) + (b + a)]` of `[a, b, c, d]`.
    #[inline(always)]
    fn running_sums(self) -> F4 {
        use std::arch::x86_64::*;
        unsafe {
            let x = _mm_add_ps(
                self.0,
                _mm_castsi128_ps(_mm_slli_si128::<4>(_mm_castps_si128(self.0))),
            );
            F4(_mm_add_ps(
                x,
                _mm_castsi128_ps(_mm_slli_si128::<8>(_mm_castps_si128(x))),
            ))
        }
    }
    /// The last lane, in every lane.
    #[inline(always)]
    fn last_lane(self) -> F4 {
        use std::arch::x86_64::*;
        unsafe { F4(_mm_shuffle_ps::<0b11_11_11_11>(self.0, self.0)) }
    }
    /// How many lanes are at most `u`'s.
    #[inline(always)]
    fn count_at_most(self, u: F4) -> u32 {
        use std::arch::x86_64::*;
        unsafe { (_mm_movemask_ps(_mm_cmple_ps(self.0, u.0)) as u32).count_ones() }
    }
    /// `2^k` of lanes that hold `1.5 * 2^23 + k` for `k` of -127 to 0 (0 for -127): `k + 127`
    /// in the exponent's bits.
    #[inline(always)]
    fn two_to_rounded(self) -> F4 {
        use std::arch::x86_64::*;
        unsafe {
            let k = _mm_sub_epi32(_mm_castps_si128(self.0), _mm_set1_epi32(0x4B40_0000 - 127));
            F4(_mm_castsi128_ps(_mm_slli_epi32::<23>(k)))
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
impl F4 {
    #[inline(always)]
    pub(super) fn new(x: [f32; 4]) -> F4 {
        F4(x)
    }
    #[inline(always)]
    pub(super) fn splat(x: f32) -> F4 {
        F4([x; 4])
    }
    #[inline(always)]
    pub(super) fn lanes(self) -> [f32; 4] {
        self.0
    }
    #[inline(always)]
    fn zip(self, o: F4, f: impl Fn(f32, f32) -> f32) -> F4 {
        F4(std::array::from_fn(|i| f(self.0[i], o.0[i])))
    }
    #[inline(always)]
    fn add(self, o: F4) -> F4 {
        self.zip(o, |a, b| a + b)
    }
    #[inline(always)]
    fn sub(self, o: F4) -> F4 {
        self.zip(o, |a, b| a - b)
    }
    #[inline(always)]
    fn mul(self, o: F4) -> F4 {
        self.zip(o, |a, b| a * b)
    }
    #[inline(always)]
    fn max(self, o: F4) -> F4 {
        self.zip(o, |a, b| if a > b { a } else { b })
    }
    #[inline(always)]
    fn max_of_lanes(self) -> F4 {
        let [a, b, c, d] = self.0;
        let (ab, cd) = (if a > b { a } else { b }, if c > d { c } else { d });
        F4::splat(if ab > cd { ab } else { cd })
    }
    #[inline(always)]
    fn or_minus_infinity(self, bits: u32) -> F4 {
        F4(std::array::from_fn(|i| {
            if bits >> i & 1 != 0 {
                self.0[i]
            } else {
                f32::NEG_INFINITY
            }
        }))
    }
    #[inline(always)]
    fn running_sums(self) -> F4 {
        let [a, b, c, d] = self.0;
        F4([a, b + a, (c + b) + a, (d + c) + (b + a)])
    }
    #[inline(always)]
    fn last_lane(self) -> F4 {
        F4::splat(self.0[3])
    }
    #[inline(always)]
    fn count_at_most(self, u: F4) -> u32 {
        (0..4).filter(|&i| self.0[i] <= u.0[i]).count() as u32
    }
    #[inline(always)]
    fn two_to_rounded(self) -> F4 {
        F4(self
            .0
            .map(|x| f32::from_bits(x.to_bits().wrapping_sub(0x4B40_0000 - 127) << 23)))
    }
}
