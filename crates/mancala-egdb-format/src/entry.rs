//! Entries: what they mean, and how a level's entries are packed.
//!
//! An entry values a position for its side to move under perfect play, counting only the `s`
//! seeds on the board. Its code is, where the leftovers count for someone (`counted`), the
//! number `own` of those seeds the side to move ends with; where they count for nobody
//! (`leftovers=not-counted`), `D + s`, `D` being the future net gain (own minus the
//! opponent's future store growth). Either way the build works with `D + s`, which is the
//! code shifted left by one where counted (`D + s = 2 * own`).
//!
//! A level's `count` entries are packed little-endian, [`bits`] each, entry `i` at bit
//! `i * bits`, followed by one padding byte so that every entry can be read as two bytes:
//! [`payload_len`] bytes in all. This is a file's payload, and the way the build keeps
//! complete levels in memory.

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// Largest code of a level of `s` seeds.
#[inline]
pub fn max_code(counted: bool, s: u32) -> u32 {
    if counted {
        s
    } else {
        2 * s
    }
}

/// Bits an entry of a level of `s` seeds takes (at least 1).
#[inline]
pub fn bits(counted: bool, s: u32) -> u32 {
    (32 - max_code(counted, s).leading_zeros()).max(1)
}

/// How far a code is shifted left to give `D + s` (1 where the leftovers count, else 0).
#[inline]
pub fn shift(counted: bool) -> u32 {
    counted as u32
}

/// The future net gain for the side to move of a position of `s` seeds whose entry is `code`.
#[inline(always)]
pub fn net(counted: bool, s: u32, code: u8) -> i32 {
    ((code as i32) << shift(counted)) - s as i32
}

/// Bytes of the packed entries of a level: `count` entries of `bits` bits, and the padding
/// byte.
#[inline]
pub fn payload_len(count: u64, bits: u32) -> u64 {
    (count * bits as u64).div_ceil(8) + 1
}

/// One level's packed entries, read in place.
#[derive(Clone, Copy, Debug)]
pub struct PackedLevel<'a> {
    /// The packed entries, the padding byte included: the code of rank `i` is the `bits`-bit
    /// field at bit `i * bits`, little-endian.
    pub entries: &'a [u8],
    /// Bits an entry (1 to 8).
    pub bits: u32,
}

impl PackedLevel<'_> {
    /// The code of rank `i`.
    #[inline(always)]
    pub fn get(&self, i: u64) -> u8 {
        let bit = i * self.bits as u64;
        let b = (bit >> 3) as usize;
        let w = u16::from_le_bytes([self.entries[b], self.entries[b + 1]]);
        ((w >> (bit & 7)) & ((1 << self.bits) - 1)) as u8
    }

    /// Asks the processor to bring in the entry of rank `i` (a hint: it reads nothing).
    #[inline(always)]
    pub fn prefetch(&self, i: u64) {
        let p = self
            .entries
            .as_ptr()
            .wrapping_add(((i * self.bits as u64) >> 3) as usize);
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch never faults, whatever the address.
        unsafe {
            core::arch::x86_64::_mm_prefetch(p as *const i8, core::arch::x86_64::_MM_HINT_T0);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = p;
    }
}

/// Packs `codes` as the entries of `bits` bits from rank `start` on into `out` (a level's
/// packed entries). Runs stored at once from several threads must not overlap: the bytes two
/// runs share are or-ed in, so `out` must be zero where a run goes.
#[inline]
pub fn store_run(out: &[AtomicU8], bits: u32, start: u64, codes: impl IntoIterator<Item = u8>) {
    let bit = start * bits as u64;
    let mut at = (bit >> 3) as usize;
    let mut held = (bit & 7) as u32;
    let mut acc = 0u32;
    let mut first = true;
    for v in codes {
        acc |= (v as u32) << held;
        held += bits;
        while held >= 8 {
            if first {
                out[at].fetch_or(acc as u8, Relaxed);
                first = false;
            } else {
                out[at].store(acc as u8, Relaxed);
            }
            at += 1;
            acc >>= 8;
            held -= 8;
        }
    }
    if held > 0 {
        out[at].fetch_or(acc as u8, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_runs_read_back() {
        for counted in [true, false] {
            for s in [0u32, 1, 3, 7, 15, 16, 40, 127] {
                let bits = bits(counted, s);
                let max = max_code(counted, s);
                let count = 1000u64;
                let code = |i: u64| ((i * 7919 + s as u64) % (max as u64 + 1)) as u8;
                let out: Vec<AtomicU8> = (0..payload_len(count, bits))
                    .map(|_| AtomicU8::new(0))
                    .collect();
                // Two runs meeting inside a byte.
                store_run(&out, bits, 0, (0..333).map(code));
                store_run(&out, bits, 333, (333..count).map(code));
                let bytes: Vec<u8> = out.iter().map(|b| b.load(Relaxed)).collect();
                let l = PackedLevel {
                    entries: &bytes,
                    bits,
                };
                for i in 0..count {
                    assert_eq!(l.get(i), code(i), "{counted} {s} {i}");
                }
            }
        }
    }

    #[test]
    fn net_of_a_code() {
        assert_eq!(net(true, 10, 7), 4);
        assert_eq!(net(false, 10, 7), -3);
        assert_eq!(bits(true, 16), 5);
        assert_eq!(bits(false, 16), 6);
        assert_eq!(bits(true, 0), 1);
    }
}
