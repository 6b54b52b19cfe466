//! Nanoseconds a game-step of `Batch::step` with random actions drawn in the step, 1024 games,
//! on the engine's fast board and on the generic path (`Batch::new_generic`), in interleaved
//! rounds so that a change of the machine's load reaches both alike, on the calling thread
//! alone (`Batch::set_parallel(Some(false))`). Not a test.
//!
//! `cargo run --release -p mancala-batch --example batch_speed [RULES] [ROUNDS] [fast|generic]`
//!
//! Prints each path's best and median round, in thread CPU time and wall time, and the ratios.

use std::time::Instant;

use mancala_batch::batch::{observation_len, Actions, Batch, Reward, StepOut};
use mancala_core::Position;

const N: usize = 1024;
const STEPS: usize = 400;

/// CPU time of this thread, in nanoseconds.
fn thread_cpu_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to write.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// A step's buffers: rewards, dones, observations, masks, actions.
type Bufs = (Vec<f32>, Vec<bool>, Vec<f32>, Vec<bool>, Vec<i64>);

/// One round: `STEPS` steps of `b`; (CPU, wall) nanoseconds a game-step.
fn round(b: &mut Batch, bufs: &mut Bufs) -> (f64, f64) {
    let (r, d, o, m, a) = bufs;
    let (c0, w0) = (thread_cpu_ns(), Instant::now());
    for _ in 0..STEPS {
        let out = StepOut {
            rewards: r,
            dones: d,
            observations: o,
            masks: m,
        };
        b.step(Actions::Random(a), out).unwrap();
    }
    let per = (STEPS * N) as f64;
    let cpu = (thread_cpu_ns() - c0) as f64 / per;
    let wall = w0.elapsed().as_nanos() as f64 / per;
    std::hint::black_box(&o);
    (cpu, wall)
}

fn best_median(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (v[0], v[v.len() / 2])
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rules = args.get(1).map_or("kalah,seeds=4", |s| s.as_str());
    let rounds: usize = args.get(2).map_or(9, |s| s.parse().expect("rounds"));
    let start = Position::start(&rules.parse().expect("rules")).expect("start");
    let (k, m) = (observation_len(start.rules()), start.pits());
    let mut fast = Batch::new(start, N, 1, 0, Reward::Win);
    let mut generic = Batch::new_generic(start, N, 1, 0, Reward::Win);
    assert!(fast.is_fast(), "{rules}: not on the fast path");
    fast.set_parallel(Some(false));
    generic.set_parallel(Some(false));
    let mut bufs = (
        vec![0.0; N],
        vec![false; N],
        vec![0.0; N * k],
        vec![false; N * m],
        vec![0; N],
    );
    // `fast` or `generic` as a third argument: that path alone, for a profile.
    let only = args.get(3).map(|s| s.as_str());
    // Warm up the paths measured.
    if only != Some("fast") {
        round(&mut generic, &mut bufs);
    }
    if only != Some("generic") {
        round(&mut fast, &mut bufs);
    }
    let (mut g, mut f) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        if only != Some("fast") {
            g.push(round(&mut generic, &mut bufs));
        }
        if only != Some("generic") {
            f.push(round(&mut fast, &mut bufs));
        }
    }
    if let Some(path) = only {
        let v = if path == "fast" { f } else { g };
        let (b, m) = best_median(v.iter().map(|x| x.0).collect());
        println!("{rules}: {path} alone, CPU ns a game-step best {b:.1} median {m:.1}");
        return;
    }
    println!("{rules}, {N} games, {STEPS} steps a round, {rounds} rounds, one thread");
    for (what, pick) in [("CPU", 0), ("wall", 1)] {
        let col = |v: &[(f64, f64)]| {
            v.iter()
                .map(|x| if pick == 0 { x.0 } else { x.1 })
                .collect::<Vec<_>>()
        };
        let (gb, gm) = best_median(col(&g));
        let (fb, fm) = best_median(col(&f));
        println!(
            "{what:>4} ns a game-step: generic best {gb:.1} median {gm:.1}; fast best {fb:.1} median {fm:.1}; ratio best {:.2}x median {:.2}x",
            gb / fb,
            gm / fm
        );
    }
}
