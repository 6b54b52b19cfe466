//! A team for short parallel jobs repeated from a loop (a batch's step, tens of microseconds):
//! the calling thread and helper threads claim the job's chunks from one counter, and the
//! helpers spin for [`SPIN`] after a job before they sleep, so that the next job finds them
//! awake.
//!
//! rayon's threads fall asleep between such jobs and take tens of microseconds to wake, as
//! long as the job itself (docs/results.md, 2026-12-04). Here the caller never waits for a
//! helper to wake: it claims chunks as soon as the job is posted, wakes a sleeping helper
//! without waiting for it, and waits at the end only for chunks a helper has claimed and is
//! running. A job posted while another caller holds the team runs on the caller's thread
//! alone.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex, OnceLock, TryLockError};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// How long a helper spins for the next job before it sleeps.
pub const SPIN: Duration = Duration::from_micros(250);

/// A chunk's work: `task(k)` does chunk `k` of the job.
type Task<'a> = dyn Fn(usize) + Sync + 'a;

/// The state word: the job's number (32 bits) and the chunks not yet claimed, `front..back`
/// (16 bits each). The caller claims from the front and the helpers from the back, so that
/// from step to step each thread mostly steps the same games, whose data stay in its core's
/// cache. A claim is a compare-and-swap of the whole word, so a helper that read an earlier
/// job's word claims nothing of a later job.
fn pack(epoch: u64, front: usize, back: usize) -> u64 {
    epoch << 32 | (front as u64) << 16 | back as u64
}

fn unpack(s: u64) -> (u64, usize, usize) {
    (s >> 32, (s >> 16 & 0xFFFF) as usize, (s & 0xFFFF) as usize)
}

/// A value on cache lines of its own (128 bytes: the pair of lines x86's prefetcher fetches
/// together), so that threads writing other fields do not take its line away.
#[derive(Debug, Default)]
#[repr(align(128))]
struct Padded<T>(T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// What the caller and the helpers share. The word the helpers spin on and the count the
/// caller waits on are on lines of their own.
#[derive(Debug)]
struct Shared {
    state: Padded<AtomicU64>,
    /// The job now (a `&Task` on the caller's stack): read only by a thread that holds an
    /// unfinished chunk of it, so the caller, which waits for every chunk, outlives the read.
    task: AtomicPtr<()>,
    /// Chunks of the job now that are done.
    finished: Padded<AtomicUsize>,
    /// Whether a chunk of the job now panicked on a helper.
    panicked: AtomicBool,
    /// Whether each helper sleeps (set before it parks, cleared when it wakes).
    asleep: Vec<AtomicBool>,
}

impl Shared {
    /// Claims the next chunk of job `epoch` from the front (the caller) or the back (a
    /// helper), or `None` when none is left (or a later job is posted).
    fn claim(&self, epoch: u64, from_back: bool) -> Option<usize> {
        let mut s = self.state.load(SeqCst);
        loop {
            let (e, front, back) = unpack(s);
            if e != epoch || front >= back {
                return None;
            }
            let (k, next) = if from_back {
                (back - 1, pack(e, front, back - 1))
            } else {
                (front, pack(e, front + 1, back))
            };
            match self.state.compare_exchange_weak(s, next, SeqCst, SeqCst) {
                Ok(_) => return Some(k),
                Err(now) => s = now,
            }
        }
    }

    /// Does chunk `k` of the job now, claimed by this thread.
    fn run(&self, k: usize) {
        // SAFETY: the pointer is the caller's `&Task`, stored before the job was posted; the
        // caller returns only once every chunk is finished, and this chunk is claimed and
        // not finished, so the reference is alive.
        let task = unsafe { &*(self.task.load(SeqCst) as *const &Task<'_>) };
        task(k);
    }
}

/// The calling thread and its helpers (see the module docs).
#[derive(Debug)]
pub struct Team {
    shared: Arc<Shared>,
    helpers: Vec<Thread>,
    /// Held by the caller of a parallel job.
    busy: Mutex<u64>,
}

impl Team {
    /// A team of the caller and `helpers` threads.
    pub fn new(helpers: usize) -> Team {
        let shared = Arc::new(Shared {
            state: Padded(AtomicU64::new(0)),
            task: AtomicPtr::new(std::ptr::null_mut()),
            finished: Padded(AtomicUsize::new(0)),
            panicked: AtomicBool::new(false),
            asleep: (0..helpers).map(|_| AtomicBool::new(false)).collect(),
        });
        // A helper that cannot be started ends the list (each uses its own index's flag).
        let helpers = (0..helpers)
            .map_while(|i| {
                let s = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name(format!("mancala-team-{i}"))
                    .spawn(move || help(&s, i))
                    .ok()
                    .map(|h| h.thread().clone())
            })
            .collect();
        Team {
            shared,
            helpers,
            busy: Mutex::new(0),
        }
    }

    /// The process's team, started at first use: one helper fewer than the threads rayon's
    /// pool would have (`RAYON_NUM_THREADS` where it is a positive number, else the cores
    /// the process may use), so `RAYON_NUM_THREADS=1` runs every job on the caller's thread.
    /// Read here, not from rayon, which would start its own pool (and panic where no thread
    /// can be started); helpers that cannot be started are done without.
    pub fn global() -> &'static Team {
        static TEAM: OnceLock<Team> = OnceLock::new();
        TEAM.get_or_init(|| {
            let threads = std::env::var("RAYON_NUM_THREADS")
                .ok()
                .and_then(|v| v.parse::<usize>().ok())
                .filter(|&t| t > 0)
                .or_else(|| std::thread::available_parallelism().ok().map(|t| t.get()))
                .unwrap_or(1);
            Team::new(threads - 1)
        })
    }

    /// The team of the caller alone: every job runs on the caller's thread.
    pub fn alone() -> &'static Team {
        static ALONE: OnceLock<Team> = OnceLock::new();
        ALONE.get_or_init(|| Team::new(0))
    }

    /// Threads that run a job: the caller and the helpers.
    pub fn threads(&self) -> usize {
        self.helpers.len() + 1
    }

    /// Runs `task(k)` for every chunk `k` of `0..chunks` (at most 65535), each once, on the
    /// caller's thread and the helpers, and returns when all are done. A panic in a chunk is
    /// raised here, after the other chunks are done.
    pub fn run(&self, chunks: usize, task: &(dyn Fn(usize) + Sync)) {
        assert!(chunks < 1 << 16, "{chunks} chunks");
        let mut epoch = match self.busy.try_lock() {
            Ok(g) if chunks > 1 && !self.helpers.is_empty() => g,
            // A job that panicked left the lock poisoned; the team is sound (see below).
            Err(TryLockError::Poisoned(g)) if chunks > 1 && !self.helpers.is_empty() => {
                g.into_inner()
            }
            // One chunk, no helper, or the team at another caller's job: all here.
            _ => return (0..chunks).for_each(task),
        };
        *epoch = (*epoch + 1) & 0xFFFF_FFFF;
        let e = *epoch;
        let s = &*self.shared;
        let task: &Task<'_> = task;
        s.task.store(&task as *const &Task<'_> as *mut (), SeqCst);
        s.finished.store(0, SeqCst);
        s.panicked.store(false, SeqCst);
        s.state.store(pack(e, 0, chunks), SeqCst);
        for (h, asleep) in self.helpers.iter().zip(&s.asleep) {
            if asleep.load(SeqCst) {
                h.unpark();
            }
        }
        let mine = catch_unwind(AssertUnwindSafe(|| {
            while let Some(k) = s.claim(e, false) {
                s.run(k);
                s.finished.fetch_add(1, SeqCst);
            }
        }));
        // The helpers' chunks read the caller's stack: wait for every claimed chunk before
        // returning or unwinding.
        match mine {
            Ok(()) => {
                while s.finished.load(SeqCst) < chunks {
                    std::hint::spin_loop();
                }
                if s.panicked.load(SeqCst) {
                    panic!("a chunk of a parallel job panicked on a helper thread");
                }
            }
            Err(p) => {
                // No more claims; every claimed chunk but the one that panicked here finishes.
                let (_, front, back) = unpack(s.state.swap(pack(e, 0, 0), SeqCst));
                let claimed = chunks - (back - front);
                while s.finished.load(SeqCst) + 1 < claimed {
                    std::hint::spin_loop();
                }
                resume_unwind(p);
            }
        }
    }
}

/// A helper's loop: waits for a job (spinning for [`SPIN`], then asleep), claims and runs its
/// chunks, and waits again.
fn help(s: &Shared, i: usize) {
    let mut seen = unpack(s.state.load(SeqCst)).0;
    loop {
        let since = Instant::now();
        let mut spins = 0u32;
        let epoch = loop {
            let e = unpack(s.state.load(SeqCst)).0;
            if e != seen {
                break e;
            }
            std::hint::spin_loop();
            spins += 1;
            if spins.is_multiple_of(64) && since.elapsed() > SPIN {
                s.asleep[i].store(true, SeqCst);
                // A job posted before the flag was seen by its caller: do not sleep past it.
                if unpack(s.state.load(SeqCst)).0 == seen {
                    std::thread::park();
                }
                s.asleep[i].store(false, SeqCst);
                spins = 0;
            }
        };
        seen = epoch;
        while let Some(k) = s.claim(epoch, true) {
            if catch_unwind(AssertUnwindSafe(|| s.run(k))).is_err() {
                s.panicked.store(true, SeqCst);
            }
            s.finished.fetch_add(1, SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering::Relaxed;

    /// Every chunk runs once, job after job, with and without helpers, from jobs of every
    /// size.
    #[test]
    fn every_chunk_runs_once() {
        for helpers in [0, 1, 3] {
            let team = Team::new(helpers);
            assert_eq!(team.threads(), helpers + 1);
            for round in 0..2000usize {
                let chunks = round % 37;
                let hits: Vec<AtomicUsize> = (0..chunks).map(|_| AtomicUsize::new(0)).collect();
                team.run(chunks, &|k| {
                    hits[k].fetch_add(1, Relaxed);
                });
                assert!(
                    hits.iter().all(|h| h.load(Relaxed) == 1),
                    "{helpers} {round}"
                );
                if round % 500 == 0 {
                    // Long enough for the helpers to fall asleep.
                    std::thread::sleep(SPIN * 3);
                }
            }
        }
    }

    /// A helper does part of a job when the chunks are long enough for it to arrive.
    #[test]
    fn a_helper_takes_chunks() {
        let team = Team::new(1);
        let mut others = 0;
        for _ in 0..50 {
            let me = std::thread::current().id();
            let away = AtomicUsize::new(0);
            team.run(8, &|_| {
                std::thread::sleep(Duration::from_micros(200));
                if std::thread::current().id() != me {
                    away.fetch_add(1, Relaxed);
                }
            });
            others += away.load(Relaxed);
        }
        assert!(others > 0, "no chunk ran on the helper");
    }

    /// A panic in a chunk reaches the caller, after the other chunks, and the team still runs
    /// jobs.
    #[test]
    fn a_panic_reaches_the_caller() {
        let team = Team::new(2);
        for bad in [0, 5] {
            let done = AtomicUsize::new(0);
            let r = catch_unwind(AssertUnwindSafe(|| {
                team.run(16, &|k| {
                    std::thread::sleep(Duration::from_micros(50));
                    if k == bad {
                        panic!("chunk {k}");
                    }
                    done.fetch_add(1, Relaxed);
                })
            }));
            assert!(r.is_err());
        }
        let done = AtomicUsize::new(0);
        team.run(16, &|_| {
            done.fetch_add(1, Relaxed);
        });
        assert_eq!(done.load(Relaxed), 16);
    }
}
