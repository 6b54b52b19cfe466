//! `cargo run --release -p mancala-engine --example solve -- kalah,seeds=4 [threads] [tt_mb]`
use mancala_core::Position;
use mancala_engine::{Engine, Limits};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rules = args.get(1).map(String::as_str).unwrap_or("kalah,seeds=4");
    let threads = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2);
    let mb = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1024);
    let p = Position::start(&rules.parse().unwrap()).unwrap();
    let e = Engine::new(mb, threads);
    let r = e.solve(&p, Limits::default(), &[]).unwrap();
    println!(
        "{rules}: value {:+}, best pit {}, {} nodes, {:.2} s, {:.1} M nodes/s",
        r.eval.margin,
        r.best + 1,
        r.nodes,
        r.elapsed.as_secs_f64(),
        r.nodes as f64 / r.elapsed.as_secs_f64() / 1e6
    );
}
