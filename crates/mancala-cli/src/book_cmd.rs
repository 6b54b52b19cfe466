//! `mancala egdb book`: the opening book beside the endgame tables (crate `mancala-egdb`'s
//! [`mancala_egdb::book`]): every position near the start proven once, so that a move there is
//! answered proven at once.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use mancala_core::{KalahRules, Position};
use mancala_egdb::{book, Book, Egdb, Proven, TableRules};
use mancala_engine::{Budget, Engine};

use crate::RulesArgs;

#[derive(Args)]
pub struct BookArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// The endgame tables' directory; the book is written there (`kalah-<rules>.book`).
    #[arg(long)]
    dir: PathBuf,
    /// Prove every position reachable from the start with at least this many seeds on the
    /// board (default: the start's seeds less one).
    #[arg(long)]
    min_seeds: Option<u32>,
    /// Threads of each proof (default: every core; at most 256).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
    /// The prover's transposition table in MiB, kept from one proof to the next.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..=65536))]
    tt_mb: u32,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Print a summary as JSON.
    #[arg(long)]
    json: bool,
}

/// The most positions a book is built of (their walk is held in memory: about 100 bytes a
/// position).
const MAX_POSITIONS: usize = 2_000_000;

/// How often the book is written while it grows: a stopped build resumes from there.
const SAVE_EVERY: Duration = Duration::from_secs(60);

pub fn run(a: BookArgs) -> Result<()> {
    let rules = a.rules.rules()?;
    let tr = TableRules::new(&KalahRules::new(&rules)?)?;
    let start = Position::start(&rules)?;
    let Some(k) = start.as_kalah() else {
        bail!("{rules}: opening books are of the Kalah family");
    };
    let total = k.board_seeds();
    let min_seeds = a.min_seeds.unwrap_or(total.saturating_sub(1));
    if min_seeds > total {
        bail!("--min-seeds {min_seeds}: the start has {total} seeds on the board");
    }
    let db = Arc::new(Egdb::open(&a.dir)?);
    let Some(top) = db.complete_to(&tr) else {
        bail!(
            "{}: no endgame tables of {} here from level 0 on (build them first: `mancala egdb build`)",
            a.dir.display(),
            tr.name()
        );
    };
    if total <= top {
        bail!(
            "the tables in {} hold every position of {rules} (levels 0 to {top}, the start has {total} seeds): a book adds nothing",
            a.dir.display()
        );
    }
    if min_seeds <= top {
        bail!(
            "--min-seeds {min_seeds}: the tables hold every position of at most {top} seeds; give {} or more",
            top + 1
        );
    }
    let path = tr.book_path(&a.dir);
    let mut book = match db.book_of(&tr) {
        Some(_) => Book::open(&path)?,
        None => Book::new(tr, &a.dir),
    };
    let Some(positions) = book::reachable(&start, min_seeds, MAX_POSITIONS) else {
        bail!(
            "--min-seeds {min_seeds}: more than {MAX_POSITIONS} positions to prove; give more seeds"
        );
    };
    let todo: Vec<(&Position, &mancala_core::KalahPos)> = positions
        .iter()
        .filter_map(|p| Some((p, p.as_kalah()?)))
        .filter(|(_, k)| !book.contains(k))
        .collect();
    let threads = a.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    );
    let mut prover = Engine::try_new(a.tt_mb as usize, threads).map_err(anyhow::Error::msg)?;
    prover.oracle = crate::tables::oracle(&Some(db.clone()));
    let bar = if a.quiet || a.json {
        indicatif::ProgressBar::hidden()
    } else {
        let bar = indicatif::ProgressBar::new(todo.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "proving the book: {bar:30} {pos}/{len} positions, {elapsed} ({eta} left)",
            )
            .expect("a valid template"),
        );
        bar
    };
    if !a.quiet && !a.json {
        eprintln!(
            "{} positions of {rules} with {min_seeds} or more seeds on the board, {} in the book already: proving {}",
            positions.len(),
            positions.len() - todo.len(),
            todo.len()
        );
    }
    let t0 = Instant::now();
    let mut saved = Instant::now();
    let mut nodes = 0u64;
    for &(pos, p) in &todo {
        let r = prover
            .solve(pos, Budget::UNLIMITED, &[])
            .with_context(|| format!("no proof of {pos}"))?;
        crate::tables::check_tables(Some(&db))?;
        let me = p.to_move();
        let now = p.store(me) as i32 - p.store(me.other()) as i32;
        let proven = Proven {
            net: r.eval.seen_by(me).margin - now,
            best: r.best,
        };
        book.insert(p, proven)
            .map_err(|why| anyhow::anyhow!("{pos}: the proof's value cannot be booked: {why}"))?;
        nodes += r.nodes;
        bar.inc(1);
        if saved.elapsed() >= SAVE_EVERY {
            book.write()?;
            saved = Instant::now();
        }
    }
    bar.finish_and_clear();
    book.write()?;
    let secs = t0.elapsed().as_secs_f64();
    let (lo, hi) = book.seeds().unwrap_or((0, 0));
    if a.json {
        let v = serde_json::json!({
            "variant": rules.to_string(),
            "book": path.display().to_string(),
            "tables_top_level": top,
            "min_seeds": min_seeds,
            "reachable": positions.len(),
            "proven": todo.len(),
            "positions": book.len(),
            "seeds": [lo, hi],
            "nodes": nodes,
            "bytes": book.file_bytes(),
            "seconds": secs,
        });
        println!("{v}");
    } else {
        println!(
            "{}: {} positions of {rules} with {min_seeds} or more seeds on the board ({} proven now, {nodes} nodes, {secs:.1} s; tables of 0 to {top} seeds); the book holds {} positions of {lo} to {hi} seeds, {} bytes",
            path.display(),
            positions.len(),
            todo.len(),
            book.len(),
            book.file_bytes()
        );
    }
    Ok(())
}
