//! A lock-free transposition table shared by every search thread.
//!
//! Each slot is two `AtomicU64`: `key ^ data` and `data` (Hyatt and Mann's lockless hashing):
//! a slot torn by two writers fails the key check and reads as empty, never as a wrong entry.
//! Buckets hold four slots (one cache line); a new entry takes the slot of its key, or an
//! empty one, or else the one of least depth, then least work (log2 of the nodes below it).
//! Keys are 64-bit hashes of the position (a collision is possible in principle, about
//! one in 2^64 per probe).

use std::sync::atomic::{AtomicU64, Ordering};

/// Depth stored for a value proven to the end of the game (no horizon below it).
pub const SOLVED: u8 = u8::MAX;

/// A stored search result: bounds on the value for the side to move, in the search's units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The value is at least this (future net gain for the side to move, in seeds).
    pub lower: i16,
    /// The value is at most this.
    pub upper: i16,
    /// Best move (own pit), or `NO_MOVE`.
    pub best: u8,
    /// Plies searched below this position, or [`SOLVED`].
    pub depth: u8,
    /// log2 of the nodes the search below this position took (replacement priority).
    pub work: u8,
}

/// The best move of an entry that has none (no move searched, or the position is over).
pub const NO_MOVE: u8 = u8::MAX;

impl Entry {
    /// What a fail-soft search of a position leaves: its result `best` against the window
    /// `(alpha0, beta)` bounds the value (the seeds on the board, `bound`, bound the rest);
    /// `moves` is the best move found and the table's old one, kept when every move failed
    /// low; `work` the nodes the search took.
    pub fn after_search(
        best: i32,
        (alpha0, beta): (i32, i32),
        bound: i32,
        (best_mv, tt_move): (u8, u8),
        depth: u8,
        work: u64,
    ) -> Entry {
        let (lower, upper, best_mv) = if best >= beta {
            (best, bound, best_mv)
        } else if best <= alpha0 {
            let mv = if tt_move != NO_MOVE { tt_move } else { best_mv };
            (-bound, best, mv)
        } else {
            (best, best, best_mv)
        };
        Entry {
            lower: lower as i16,
            upper: upper as i16,
            best: best_mv,
            depth,
            work: (64 - work.leading_zeros()) as u8,
        }
    }

    /// The value a search may return at once from this entry against the window
    /// `(alpha, beta)`: a lower bound that reaches `beta`, an upper bound that does not pass
    /// `alpha`, or an exact value. The caller checks that the entry is deep enough.
    #[inline(always)]
    pub fn cut(&self, alpha: i32, beta: i32) -> Option<i32> {
        let (lo, up) = (self.lower as i32, self.upper as i32);
        if lo >= beta || lo == up {
            Some(lo)
        } else if up <= alpha {
            Some(up)
        } else {
            None
        }
    }

    /// `self`, a new result for a position `old` was stored for: two proven entries keep the
    /// tighter of each bound (the null-window passes of MTD(f) prove one side at a time).
    fn merged(self, old: Entry) -> Entry {
        let mut e = self;
        if old.depth == e.depth && e.depth == SOLVED {
            e.lower = e.lower.max(old.lower);
            e.upper = e.upper.min(old.upper);
            e.work = e.work.max(old.work);
            if e.lower > e.upper {
                // Bounds from different threads' inexact searches: keep the new one.
                e = Entry {
                    lower: e.upper.min(e.lower),
                    upper: e.upper.max(e.lower),
                    ..e
                };
            }
        }
        e
    }

    /// Bits 40-55 read as a number order entries for replacement: depth, then work.
    fn pack(self) -> u64 {
        (self.lower as u16 as u64)
            | (self.upper as u16 as u64) << 16
            | (self.best as u64) << 32
            | (self.work as u64) << 40
            | (self.depth as u64) << 48
    }
    fn unpack(d: u64) -> Entry {
        Entry {
            lower: d as u16 as i16,
            upper: (d >> 16) as u16 as i16,
            best: (d >> 32) as u8,
            work: (d >> 40) as u8,
            depth: (d >> 48) as u8,
        }
    }
}

pub use mancala_egdb_format::memory::mem_available;

/// Asks the processor to bring the cache line of `p` in (a hint: any address is harmless).
#[inline]
pub fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults, whatever the address.
    unsafe {
        core::arch::x86_64::_mm_prefetch(p as *const i8, core::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// The transposition table: buckets of four two-word slots, a power of two of them.
pub struct Table {
    slots: Slots,
    mask: usize,
}

/// The slots, in zeroed memory aligned to 2 MiB and, on Linux, backed by huge pages where the
/// kernel allows (a large table is otherwise dominated by TLB misses). On Linux the memory is
/// mapped directly and left untouched, so the kernel can back it with huge pages as it is first
/// written (the allocator's `alloc_zeroed` writes the zeros itself with an alignment this
/// large, in 4 KiB pages, before any advice could apply).
struct Slots {
    ptr: *mut [AtomicU64; 2],
    len: usize,
    /// Start and length of the whole mapping (Linux).
    #[cfg(target_os = "linux")]
    map: (*mut libc::c_void, usize),
}

// SAFETY: the slots are atomics; the pointer is owned and freed once, in `drop`.
unsafe impl Send for Slots {}
unsafe impl Sync for Slots {}

const ALIGN: usize = 2 << 20;
/// Slots a bucket: four 16-byte slots fill one 64-byte cache line.
const WAYS: usize = 4;

impl Slots {
    /// `None` when the memory cannot be had.
    #[cfg(target_os = "linux")]
    fn new(len: usize) -> Option<Slots> {
        let size = len.checked_mul(16)?;
        let map_len = size.checked_add(ALIGN)?;
        // SAFETY: an anonymous private mapping of `map_len` bytes, zero-filled by the kernel;
        // the advice only affects paging.
        unsafe {
            let base = libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            );
            if base == libc::MAP_FAILED {
                return None;
            }
            let start = (base as usize).next_multiple_of(ALIGN);
            libc::madvise(start as *mut libc::c_void, size, libc::MADV_HUGEPAGE);
            Some(Slots {
                ptr: start as *mut [AtomicU64; 2],
                len,
                map: (base, map_len),
            })
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn new(len: usize) -> Option<Slots> {
        let layout = std::alloc::Layout::from_size_align(len.checked_mul(16)?, ALIGN).ok()?;
        // SAFETY: the layout has a non-zero size; all-zero bits are valid `AtomicU64`s.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut [AtomicU64; 2];
        (!ptr.is_null()).then_some(Slots { ptr, len })
    }
}

impl std::ops::Deref for Slots {
    type Target = [[AtomicU64; 2]];
    fn deref(&self) -> &Self::Target {
        // SAFETY: `ptr` points to `len` initialised slots that live as long as `self`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl Drop for Slots {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        // SAFETY: the mapping made in `new`, unmapped once.
        unsafe {
            libc::munmap(self.map.0, self.map.1);
        }
        #[cfg(not(target_os = "linux"))]
        {
            let layout = std::alloc::Layout::from_size_align(self.len * 16, ALIGN).unwrap();
            // SAFETY: allocated in `new` with this layout.
            unsafe { std::alloc::dealloc(self.ptr as *mut u8, layout) }
        }
    }
}

impl Table {
    /// A table of about `mb` mebibytes (rounded down to a power of two of buckets, at least 1024).
    ///
    /// Panics if the memory cannot be had; see [`Table::try_new`].
    pub fn new(mb: usize) -> Table {
        Table::try_new(mb).unwrap_or_else(|e| panic!("{e}"))
    }

    /// As [`Table::new`], with an error when the memory cannot be had.
    pub fn try_new(mb: usize) -> Result<Table, String> {
        let bytes = mb.clamp(1, 1 << 30).saturating_mul(1 << 20);
        // The mapping itself would succeed (memory is promised, not given), and the table
        // would fill memory until the system killed the process.
        if let Some(avail) = mem_available() {
            if bytes as u64 > avail {
                return Err(format!(
                    "a transposition table of {mb} MiB does not fit: {} MiB of memory available (choose a smaller --tt-mb)",
                    avail >> 20
                ));
            }
        }
        // The largest power of two of buckets that fits.
        let size = 16 * WAYS;
        let buckets = (1usize << (usize::BITS - 1 - (bytes / size).leading_zeros())).max(1024);
        let slots = Slots::new(buckets * WAYS).ok_or_else(|| {
            format!("cannot allocate a transposition table of {mb} MiB: not enough memory")
        })?;
        Ok(Table {
            slots,
            mask: buckets - 1,
        })
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.slots.len() * 16
    }

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        (key as usize & self.mask) * WAYS
    }

    /// The entry stored for `key`, if any.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let b = self.bucket(key);
        for slot in &self.slots[b..b + WAYS] {
            let k = slot[0].load(Ordering::Relaxed);
            let d = slot[1].load(Ordering::Relaxed);
            if k ^ d == key && d != 0 {
                return Some(Entry::unpack(d));
            }
        }
        None
    }

    /// Asks the processor to bring `key`'s bucket into cache ahead of a probe.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        prefetch(self.slots.as_ptr().wrapping_add(self.bucket(key)) as *const u8);
    }

    /// Stores `e` for `key`. An entry for the same key and depth keeps the tighter of each
    /// bound (the null-window searches of MTD(f) prove one side at a time).
    #[inline]
    pub fn store(&self, key: u64, mut e: Entry) {
        let b = self.bucket(key);
        let bucket = &self.slots[b..b + WAYS];
        // The slot of `key`, or else an empty one, or else the one of least depth, then work.
        let (mut victim, mut least) = (0, u64::MAX);
        for (j, slot) in bucket.iter().enumerate() {
            let k = slot[0].load(Ordering::Relaxed);
            let d = slot[1].load(Ordering::Relaxed);
            if k ^ d == key && d != 0 {
                e = e.merged(Entry::unpack(d));
                victim = j;
                break;
            }
            let rank = if d == 0 { 0 } else { 1 + ((d >> 40) & 0xFFFF) };
            if rank < least {
                (victim, least) = (j, rank);
            }
        }
        let d = e.pack();
        bucket[victim][0].store(key ^ d, Ordering::Relaxed);
        bucket[victim][1].store(d, Ordering::Relaxed);
    }

    /// Has the memory of the whole table mapped in now, on `threads` threads at once (a write
    /// to each 2 MiB page that changes no value: safe while searches use the table). The
    /// kernel's first fault on each huge page zeroes it and may first have to compact memory
    /// for it, which is slow when the page cache has fragmented memory; done here, that cost
    /// is not paid inside the search.
    pub fn prefault(&self, threads: usize) {
        const PAGE: usize = ALIGN / 16;
        let pages = self.slots.len().div_ceil(PAGE);
        let threads = threads.clamp(1, pages.max(1));
        let touch = |t: usize| {
            for p in (t..pages).step_by(threads) {
                // A write that changes nothing (an idempotent `fetch_or` may be
                // compiled to a load, which would map the shared zero page).
                let a = &self.slots[p * PAGE][1];
                let v = a.load(Ordering::Relaxed);
                let _ = a.compare_exchange(v, v, Ordering::Relaxed, Ordering::Relaxed);
            }
        };
        // One thread touches the pages itself: no thread is spawned (there are none in wasm).
        if threads == 1 {
            return touch(0);
        }
        std::thread::scope(|s| {
            for t in 0..threads {
                let touch = &touch;
                s.spawn(move || touch(t));
            }
        });
    }

    /// The same memory seen as a [`ProofTable`], for the solver's fast path.
    pub fn proof(&self) -> ProofTable<'_> {
        // SAFETY: `len` pairs of `AtomicU64` are `2 * len` `AtomicU64`s, laid out in order.
        let words = unsafe {
            std::slice::from_raw_parts(self.slots.ptr as *const AtomicU64, 2 * self.slots.len)
        };
        ProofTable {
            words,
            mask: words.len() / PROOF_WAYS - 1,
        }
    }

    /// Empties every slot.
    pub fn clear(&self) {
        for s in self.slots.iter() {
            s[0].store(0, Ordering::Relaxed);
            s[1].store(0, Ordering::Relaxed);
        }
    }

    /// Permille of the first slots in use (a sample), for statistics.
    pub fn fill_permille(&self) -> u32 {
        let n = self.slots.len().min(2000);
        let used = self.slots[..n]
            .iter()
            .filter(|s| s[1].load(Ordering::Relaxed) != 0)
            .count();
        (used * 1000 / n.max(1)) as u32
    }
}

/// Slots a bucket of a [`ProofTable`]: eight words, one cache line.
const PROOF_WAYS: usize = 8;

/// A table's memory seen as one-word slots, for proven entries only (the solver's fast path,
/// [`crate::fast`]): twice the entries of the same memory, so the proof's working set spans
/// half the pages, and a random read costs fewer page walks.
///
/// A slot is one `AtomicU64`, so it is never torn:
/// - bits 0-7: lower bound, `i8` (-128: none);
/// - bits 8-15: upper bound, `i8` (127: none);
/// - bits 16-18: best move (7: none);
/// - bits 19-23: work, log2 of the nodes below, at most 31 (replacement priority);
/// - bits 24-63: the key's top 40 bits (its low bits chose the bucket), or 1 where those are
///   all 0, so that an empty slot (0) matches no key.
///
/// A probe of an absent key matches a slot of its bucket with odds 8 in 2^40 (7e-12), the
/// price of the halved memory; a word of the other view ([`Table`]'s two-word slots, or
/// anything else) matches with the same odds. Bounds out of the `i8` range are stored
/// weakened (a position of more than 126 seeds on the board may lose one bound).
#[derive(Clone, Copy)]
pub struct ProofTable<'a> {
    words: &'a [AtomicU64],
    mask: usize,
}

impl ProofTable<'_> {
    #[inline]
    fn bucket(&self, key: u64) -> usize {
        (key as usize & self.mask) * PROOF_WAYS
    }

    #[inline]
    fn pack(key: u64, e: Entry) -> u64 {
        let lower = if e.lower < -127 {
            -128
        } else {
            e.lower.min(127)
        };
        let upper = if e.upper > 126 {
            127
        } else {
            e.upper.max(-128)
        };
        let best = if e.best < 7 { e.best } else { 7 };
        (lower as i8 as u8 as u64)
            | (upper as i8 as u8 as u64) << 8
            | (best as u64) << 16
            | (e.work.clamp(1, 31) as u64) << 19
            | Self::tag(key) << 24
    }

    #[inline]
    fn unpack(w: u64) -> Entry {
        let (lower, upper) = (w as u8 as i8, (w >> 8) as u8 as i8);
        let best = (w >> 16) as u8 & 7;
        Entry {
            lower: if lower == -128 {
                -i16::MAX
            } else {
                lower as i16
            },
            upper: if upper == 127 { i16::MAX } else { upper as i16 },
            best: if best == 7 { NO_MOVE } else { best },
            depth: SOLVED,
            work: (w >> 19) as u8 & 31,
        }
    }

    /// The bits of `key` its slot holds (bits 24-63): its top 40 bits, or 1 where those
    /// are all 0 (an empty slot must match no key; this only doubles such a key's odds of
    /// a false match).
    #[inline(always)]
    fn tag(key: u64) -> u64 {
        (key >> 24).max(1)
    }

    /// The proven entry of `key`, if stored (its `depth` is [`SOLVED`]).
    #[inline(always)]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let tag = Self::tag(key);
        self.line(key)
            .iter()
            .map(|w| w.load(Ordering::Relaxed))
            .find(|&w| w >> 24 == tag)
            .map(Self::unpack)
    }

    /// The bucket of `key`: one cache line.
    #[inline(always)]
    fn line(&self, key: u64) -> &[AtomicU64; PROOF_WAYS] {
        let b = self.bucket(key);
        self.words[b..b + PROOF_WAYS]
            .try_into()
            .expect("a whole bucket")
    }

    /// Asks the processor to bring `key`'s bucket into cache ahead of a probe.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        prefetch(self.words.as_ptr().wrapping_add(self.bucket(key)) as *const u8);
    }

    /// Stores the proven entry `e` for `key`, merged with the one stored (see [`Table::store`]);
    /// a new key takes an empty slot, or else the one of least work.
    #[inline(always)]
    pub fn store(&self, key: u64, mut e: Entry) {
        let (bucket, tag) = (self.line(key), Self::tag(key));
        // The slot of least work (its work field, 0 in an empty slot) in the bits above 3,
        // its index in the low 3: the minimum is the first such slot.
        let mut least = u64::MAX;
        for (j, slot) in bucket.iter().enumerate() {
            let w = slot.load(Ordering::Relaxed);
            if w >> 24 == tag {
                e = e.merged(Self::unpack(w));
                least = j as u64;
                break;
            }
            least = least.min((w >> 16) & 0xF8 | j as u64);
        }
        bucket[least as usize & 7].store(Self::pack(key, e), Ordering::Relaxed);
    }

    /// Stores the proven entry `e` for a `key` its bucket did not hold when probed before
    /// the search: in the slot of least work, without looking for the key. (Another thread
    /// may have stored it meanwhile; the bucket then holds it twice, both proven.)
    #[inline(always)]
    pub fn store_new(&self, key: u64, e: Entry) {
        let bucket = self.line(key);
        let mut least = u64::MAX;
        for (j, slot) in bucket.iter().enumerate() {
            least = least.min((slot.load(Ordering::Relaxed) >> 16) & 0xF8 | j as u64);
        }
        bucket[least as usize & 7].store(Self::pack(key, e), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip() {
        let t = Table::new(1);
        let e = Entry {
            lower: -37,
            upper: 120,
            best: 5,
            depth: SOLVED,
            work: 17,
        };
        t.store(0xdead_beef, e);
        assert_eq!(t.probe(0xdead_beef), Some(e));
        assert_eq!(t.probe(0xdead_beee), None);
    }

    fn proven(lower: i16, upper: i16, best: u8, work: u8) -> Entry {
        Entry {
            lower,
            upper,
            best,
            depth: SOLVED,
            work,
        }
    }

    /// A proof table keeps bounds, move and work; a bound out of the `i8` range is kept
    /// weakened (a lower bound down, an upper bound up), never strengthened.
    #[test]
    fn proof_entries_round_trip_or_weaken() {
        let t = Table::new(1);
        let p = t.proof();
        let e = proven(-37, 20, 5, 17);
        p.store(0xdead_beef_0000_0001, e);
        assert_eq!(p.probe(0xdead_beef_0000_0001), Some(e));
        assert_eq!(p.probe(0xdead_beef_0100_0001), None, "top 40 bits differ");
        let wide = proven(-200, 200, NO_MOVE, 40);
        p.store(7, wide);
        let back = p.probe(7).unwrap();
        assert!(back.lower <= -200 && back.upper >= 200, "{back:?}");
        assert_eq!((back.best, back.work), (NO_MOVE, 31));
        p.store(8, proven(130, 126, 0, 1));
        assert_eq!(p.probe(8), Some(proven(127, 126, 0, 1)));
        p.store(9, proven(-130, -128, 6, 1));
        let back = p.probe(9).unwrap();
        assert!(back.lower < -130 && back.upper == -128, "{back:?}");
    }

    /// Two passes' bounds on one position merge; a full bucket gives up its least work.
    #[test]
    fn proof_entries_merge_and_replace_the_least_work() {
        let t = Table::new(1);
        let p = t.proof();
        p.store(1 << 40, proven(-10, 4, 2, 9));
        p.store(1 << 40, proven(2, 10, 3, 5));
        assert_eq!(p.probe(1 << 40), Some(proven(2, 4, 3, 9)));
        // Nine keys of one bucket (the same low bits): the one of least work goes.
        let key = |i: u64| (i + 2) << 40;
        for i in 0..9 {
            p.store(
                key(i),
                proven(0, 0, 1, if i == 3 { 1 } else { 10 + i as u8 }),
            );
        }
        assert_eq!(p.probe(key(3)), None);
        for i in (0..9).filter(|&i| i != 3) {
            assert!(p.probe(key(i)).is_some(), "key {i}");
        }
    }

    /// An entry of the two-word view does not read as an entry of the proof view, and the
    /// other way round.
    #[test]
    fn the_two_views_do_not_read_each_other() {
        let t = Table::new(1);
        let key = 0x1234_5678_9abc_def0;
        t.store(key, proven(-3, 3, 1, 4));
        assert_eq!(t.proof().probe(key), None);
        t.proof().store(key ^ 1 << 50, proven(-3, 3, 1, 4));
        assert_eq!(t.probe(key ^ 1 << 50), None);
    }

    /// Faulting the pages in keeps every entry, on a table of several 2 MiB pages, whatever
    /// the thread count.
    #[test]
    fn prefault_keeps_the_entries() {
        let t = Table::new(8);
        let e = |i: u64| Entry {
            lower: -(i as i16),
            upper: i as i16,
            best: (i % 6) as u8,
            depth: SOLVED,
            work: 3,
        };
        // Keys whose buckets fall on the first slot of a page, and elsewhere.
        let keys: Vec<u64> = (0..64u64)
            .map(|i| i * (ALIGN / 64) as u64 / 4 + i % 3)
            .collect();
        for (i, &k) in keys.iter().enumerate() {
            t.store(k, e(i as u64));
        }
        for threads in [1, 2, 7] {
            t.prefault(threads);
            for (i, &k) in keys.iter().enumerate() {
                assert_eq!(
                    t.probe(k),
                    Some(e(i as u64)),
                    "key {k:#x}, {threads} threads"
                );
            }
        }
    }
}
