//! A step of a batch of games (`mancala_batch::batch`), the Rust side of the Python package's
//! `VecGame.step` and `step_random`: per step of 1024 games, with the actions drawn in the
//! step (uniformly, or from a policy's logits) and given to it, on one thread and shared by a
//! team of two (`mancala_batch::team`).
//!
//! `cargo bench -p mancala-batch --bench batch` (add `-- --quick` for a short run).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use mancala_batch::batch::{observation_len, Actions, Batch, Reward, StepOut};
use mancala_batch::team::Team;
use mancala_core::Position;

/// Games a batch holds, as in the Python benchmark.
const N: usize = 1024;

/// Where a step writes: rewards, dones, observations, masks.
struct Bufs {
    r: Vec<f32>,
    d: Vec<bool>,
    o: Vec<f32>,
    mask: Vec<bool>,
}

impl Bufs {
    fn out(&mut self) -> StepOut<'_> {
        StepOut {
            rewards: &mut self.r,
            dones: &mut self.d,
            observations: &mut self.o,
            masks: &mut self.mask,
        }
    }
}

fn bench_step(c: &mut Criterion) {
    for rules in ["kalah,seeds=4", "oware"] {
        let start = Position::start(&rules.parse().unwrap()).unwrap();
        let (k, m) = (observation_len(start.rules()), start.pits());
        let mut g = c.benchmark_group(format!("batch {rules}, {N} games"));
        g.throughput(Throughput::Elements(N as u64));
        for threads in [1, 2] {
            let team: &'static Team = Box::leak(Box::new(Team::new(threads - 1)));
            let mut b = Batch::new(start, N, 1, 0, Reward::Win).with_team(team);
            let mut bufs = Bufs {
                r: vec![0.0; N],
                d: vec![false; N],
                o: vec![0.0; N * k],
                mask: vec![false; N * m],
            };
            let mut a = vec![0; N];
            g.bench_function(format!("step random, {threads} thread(s)"), |bench| {
                bench.iter(|| {
                    b.step(Actions::Random(&mut a), bufs.out()).unwrap();
                    black_box(&bufs.o);
                })
            });
            g.bench_function(
                format!("sample, step given, {threads} thread(s)"),
                |bench| {
                    bench.iter(|| {
                        b.sample_actions(&mut a);
                        b.step(Actions::Given(&a), bufs.out()).unwrap();
                        black_box(&bufs.o);
                    })
                },
            );
            let logits: Vec<f32> = (0..N * m).map(|j| (j % 7) as f32 * 0.25).collect();
            g.bench_function(
                format!("step drawn from logits, {threads} thread(s)"),
                |bench| {
                    bench.iter(|| {
                        let draw = Actions::Policy {
                            logits: &logits,
                            out: &mut a,
                        };
                        b.step(draw, bufs.out()).unwrap();
                        black_box(&bufs.o);
                    })
                },
            );
        }
        g.finish();
    }
}

criterion_group!(benches, bench_step);
criterion_main!(benches);
