//! Combinatorial ranking of the distributions of `s` seeds over `k` pits (compositions into
//! `k` non-negative parts), in lexicographic order of `(c0, c1, ..., c(k-1))`.
//!
//! A level of the endgame tables ranks its positions over `2m` pits, the mover's row first.
//! The rank is a sum of one term a pit ([`Binomials::term`]), so a prefix of the pits
//! (the mover's row) fixes where its block of ranks starts ([`Binomials::rank_prefix`]).

/// Largest `n` in the binomial table.
pub const MAX_N: usize = 160;
const MAX_K: usize = 17;

/// `C(n, k)` for `n < MAX_N`, `k < 17`.
pub struct Binomials([[u64; MAX_K]; MAX_N]);

impl Binomials {
    /// The table, computed (saturating where `C(n, k)` exceeds `u64`).
    pub fn new() -> Binomials {
        let mut t = [[0u64; MAX_K]; MAX_N];
        for n in 0..MAX_N {
            t[n][0] = 1;
            for k in 1..MAX_K.min(n + 1) {
                t[n][k] = t[n - 1][k - 1].saturating_add(if k < n { t[n - 1][k] } else { 0 });
            }
        }
        Binomials(t)
    }

    /// `C(n, k)`.
    #[inline]
    pub fn c(&self, n: usize, k: usize) -> u64 {
        self.0[n][k]
    }

    /// Number of distributions of `s` seeds over `k >= 1` pits.
    #[inline]
    pub fn count(&self, s: u32, k: usize) -> u64 {
        self.c(s as usize + k - 1, k - 1)
    }

    /// What a pit holding `v` of the `r` seeds not in the pits before it adds to the rank,
    /// with `j` pits after it: the number of distributions of `r` seeds over it and them
    /// that put fewer seeds in it.
    #[inline(always)]
    pub fn term(&self, j: usize, r: usize, v: usize) -> u64 {
        self.c(r + j, j) - self.c(r - v + j, j)
    }

    /// Where the block of the distributions of `s` seeds over `k` pits that begin with
    /// `prefix` starts: the first `prefix.len()` (below `k`) terms of their rank.
    #[inline(always)]
    pub fn rank_prefix(&self, prefix: &[u8], k: usize, s: u32) -> u64 {
        let mut r = s as usize;
        let mut rank = 0;
        for (i, &ci) in prefix.iter().enumerate() {
            if r == 0 {
                break;
            }
            let ci = ci as usize;
            rank += self.term(k - 1 - i, r, ci);
            r -= ci;
        }
        rank
    }

    /// Rank of `c[..k]` among the distributions of its seeds over `k` pits.
    #[inline(always)]
    pub fn rank(&self, c: &[u8], k: usize, s: u32) -> u64 {
        self.rank_prefix(&c[..k - 1], k, s)
    }

    /// The distribution of rank `rank` of `s` seeds over `k` pits.
    pub fn unrank(&self, mut rank: u64, k: usize, s: u32, c: &mut [u8]) {
        let mut r = s as usize;
        for (i, ci) in c[..k - 1].iter_mut().enumerate() {
            let j = k - 1 - i;
            // Find the largest v with C(r+j,j) - C(r-v+j,j) <= rank.
            let total = self.c(r + j, j);
            let mut v = 0;
            while v < r && total - self.c(r - (v + 1) + j, j) <= rank {
                v += 1;
            }
            rank -= total - self.c(r - v + j, j);
            *ci = v as u8;
            r -= v;
        }
        c[k - 1] = r as u8;
    }
}

impl Default for Binomials {
    fn default() -> Self {
        Binomials::new()
    }
}

/// The next distribution in rank order; false after the last.
#[inline]
pub fn next(c: &mut [u8], k: usize) -> bool {
    // Rightmost i < k-1 with seeds after it: move one seed from the tail to pit i.
    let mut tail = c[k - 1] as u32;
    let mut i = k - 1;
    while i > 0 {
        i -= 1;
        if tail > 0 {
            c[i] += 1;
            for x in &mut c[i + 1..k] {
                *x = 0;
            }
            c[k - 1] = (tail - 1) as u8;
            return true;
        }
        tail += c[i] as u32;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_unrank_next_agree() {
        let b = Binomials::new();
        for k in 1..=8 {
            for s in 0..=7u32 {
                let n = b.count(s, k);
                let mut c = [0u8; 16];
                c[k - 1] = s as u8;
                let mut u = [0u8; 16];
                for r in 0..n {
                    assert_eq!(b.rank(&c, k, s), r, "{k} {s} {:?}", &c[..k]);
                    b.unrank(r, k, s, &mut u);
                    assert_eq!(u[..k], c[..k]);
                    let more = next(&mut c, k);
                    assert_eq!(more, r + 1 < n);
                }
            }
        }
    }

    #[test]
    fn rank_is_row_block_plus_row_rank() {
        let b = Binomials::new();
        for m in 1..=4 {
            for s in 0..=6u32 {
                let mut c = [0u8; 16];
                c[2 * m - 1] = s as u8;
                loop {
                    let y: u32 = c[m..2 * m].iter().map(|&v| v as u32).sum();
                    assert_eq!(
                        b.rank_prefix(&c[..m], 2 * m, s) + b.rank(&c[m..], m, y),
                        b.rank(&c, 2 * m, s),
                        "{:?}",
                        &c[..2 * m]
                    );
                    if !next(&mut c, 2 * m) {
                        break;
                    }
                }
            }
        }
    }
}
