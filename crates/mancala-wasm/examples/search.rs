//! The browser engine's fixed-depth search run natively, with the same code and table size:
//! `cargo run --release -p mancala-wasm --example search -- POSITION DEPTH`. Prints the same
//! JSON as `search` in the browser, for comparing the node rates.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(pos), Some(depth)) = (args.get(1), args.get(2).and_then(|d| d.parse().ok())) else {
        eprintln!("usage: search POSITION DEPTH");
        std::process::exit(2);
    };
    println!("{}", mancala_wasm::search(pos, depth, 16));
}
