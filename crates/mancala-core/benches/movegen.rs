//! Move generation and copy-make play over fixed sets of positions, and perft.
//!
//! `cargo bench -p mancala-core --bench movegen` (add `-- --quick` for a short run). The
//! positions come from seeded pseudo-random play, so every run measures the same work.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use mancala_core::perft::perft;
use mancala_core::rng::Rng;
use mancala_core::{GameState, KalahPos, KalahRules, KauriPos, Rules};

/// Positions each movegen set holds.
const POSITIONS: usize = 1000;

/// The live positions of seeded random games from `start`, in order, until there are `n`.
fn positions<P: GameState>(start: P, n: usize, seed: u64) -> Vec<P> {
    let mut rng = Rng::xorshift(seed);
    let mut out = Vec::with_capacity(n);
    // A guard for games whose random play could run long (Kauri's cowrie endings).
    let max_plies = 400;
    while out.len() < n {
        let mut p = start;
        for _ in 0..max_plies {
            if p.is_over() || out.len() == n {
                break;
            }
            out.push(p);
            let moves = p.legal_moves();
            let pit = moves.as_slice()[(rng.next_u64() % moves.len() as u64) as usize];
            p.play_unchecked(pit);
        }
    }
    out
}

fn kalah(rules: &str) -> KalahPos {
    let rules: Rules = rules.parse().unwrap();
    KalahPos::<u8>::start(&KalahRules::new(&rules).unwrap())
}

fn kauri(rules: &str) -> KauriPos {
    KauriPos::start(&rules.parse().unwrap()).unwrap()
}

/// Generates the legal moves of every position and plays each on a copy.
fn expand_all<P: GameState>(set: &[P]) -> u64 {
    let mut acc = 0u64;
    for p in set {
        for pit in &p.legal_moves() {
            let mut child = *p;
            let e = child.play_unchecked(pit);
            acc += e.gain as u64 + child.is_over() as u64;
        }
    }
    acc
}

fn bench_set<P: GameState>(c: &mut Criterion, name: &str, start: P, seed: u64) {
    let set = positions(start, POSITIONS, seed);
    let moves: u64 = set.iter().map(|p| p.legal_moves().len() as u64).sum();
    let mut group = c.benchmark_group("movegen+play");
    // Elements: moves generated and played (children made).
    group.throughput(Throughput::Elements(moves));
    group.bench_function(name, |b| b.iter(|| expand_all(black_box(&set))));
    group.finish();
}

fn movegen(c: &mut Criterion) {
    bench_set(
        c,
        "kalah(6,4)",
        kalah("kalah,seeds=4"),
        0x9E37_79B9_7F4A_7C15,
    );
    bench_set(c, "dracala", kalah("dracala"), 0xD1B5_4A32_D192_ED03);
    bench_set(c, "kauri", kauri("kauri"), 0x2545_F491_4F6C_DD1D);
}

fn perft_kalah(c: &mut Criterion) {
    let start = kalah("kalah,seeds=4");
    let depth = 9;
    let leaves = perft(&start, depth);
    let mut group = c.benchmark_group("perft");
    group.throughput(Throughput::Elements(leaves));
    group.sample_size(10);
    group.bench_function(
        format!("kalah(6,4) ply depth {depth} ({leaves} leaves)"),
        |b| b.iter(|| perft(black_box(&start), depth)),
    );
    group.finish();
}

criterion_group!(benches, movegen, perft_kalah);
criterion_main!(benches);
