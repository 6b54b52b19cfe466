//! Solves a seeded set of random positions on one thread and prints the total nodes and time:
//! the paired measurement behind the move-ordering and first-guess figures in docs/decisions.md.
//! `cargo run --release -p mancala-engine --example solveset -- RULES PLIES COUNT [TT_MB]`
//! (`VERBOSE=1` prints each position).
use mancala_core::rng::Rng;
use mancala_core::Position;
use mancala_engine::{Engine, Limits};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rules = args.get(1).map(String::as_str).unwrap_or("kalah,seeds=4");
    let plies: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(6);
    let count: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10);
    let mb = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(256);
    let e = Engine::new(mb, 1);
    let mut rng = Rng::xorshift(0x2545_f491_4f6c_dd1d);
    let (mut nodes, mut secs, mut sum) = (0u64, 0f64, 0i64);
    let mut done = 0;
    while done < count {
        let mut p = Position::start(&rules.parse().unwrap()).unwrap();
        for _ in 0..plies {
            let x = rng.next_u64();
            let m = p.legal_moves();
            if m.is_empty() {
                break;
            }
            p.play(m.as_slice()[(x % m.len() as u64) as usize]).unwrap();
        }
        if p.is_over() {
            continue;
        }
        e.clear();
        let r = e.solve(&p, Limits::default(), &[]).unwrap();
        nodes += r.nodes;
        secs += r.elapsed.as_secs_f64();
        sum += r.eval.margin as i64;
        done += 1;
        if std::env::var_os("VERBOSE").is_some() {
            println!(
                "{p}: {:+} {} nodes {:.2} s",
                r.eval.margin,
                r.nodes,
                r.elapsed.as_secs_f64()
            );
        }
    }
    println!(
        "{rules} plies {plies} x{count}: {nodes} nodes, {secs:.2} s, {:.2} M/s, value sum {sum}",
        nodes as f64 / secs / 1e6
    );
}
