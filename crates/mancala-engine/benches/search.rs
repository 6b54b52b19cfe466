//! Search speed on middle-game positions: nodes per second per core, fixed-depth searches of
//! Kalah(6,4), Dracala and Kauri positions reached by seeded play, and the Kalah(6,3) proof.
//! Criterion reports time per search; the nodes of each search are printed once so that
//! nodes per second can be read off (`cargo bench -p mancala-engine`).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use mancala_core::rng::Rng;
use mancala_core::Position;
use mancala_engine::{Engine, Limits};

/// The position after `plies` seeded pseudo-random moves.
fn middle_game(rules: &str, plies: usize) -> Position {
    let mut p = Position::start(&rules.parse().unwrap()).unwrap();
    let mut rng = Rng::xorshift(0x2545_f491_4f6c_dd1d);
    for _ in 0..plies {
        let x = rng.next_u64();
        let m = p.legal_moves();
        if m.len() <= 1 || p.is_over() {
            break;
        }
        p.play(m.as_slice()[(x % m.len() as u64) as usize]).unwrap();
    }
    p
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("search");
    g.sample_size(10);
    for (name, rules, plies, depth) in [
        ("kalah-6-4", "kalah,seeds=4", 10, 14),
        ("dracala", "dracala", 10, 24),
        ("kauri", "kauri", 10, 12),
    ] {
        let pos = middle_game(rules, plies);
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let engine = Engine::new(16, 1);
        let nodes = engine.search(&pos, limits, &[]).unwrap().nodes;
        println!("{name}: {pos}, depth {depth}: {nodes} nodes a search");
        g.throughput(Throughput::Elements(nodes));
        g.bench_function(name, |b| {
            b.iter(|| {
                // An empty table each time: the same work every iteration.
                engine.clear();
                engine.search(&pos, limits, &[]).unwrap().nodes
            })
        });
    }
    let start = Position::start(&"kalah".parse().unwrap()).unwrap();
    let nodes = Engine::new(256, 1)
        .solve(&start, Limits::default(), &[])
        .unwrap()
        .nodes;
    println!("solve kalah(6,3): {nodes} nodes");
    g.throughput(Throughput::Elements(nodes));
    g.bench_function("solve-kalah-6-3", |b| {
        b.iter(|| {
            Engine::new(256, 1)
                .solve(&start, Limits::default(), &[])
                .unwrap()
                .eval
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
