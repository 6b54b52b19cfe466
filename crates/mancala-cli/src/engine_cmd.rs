//! `mancala engine`: the engine protocol on stdin and stdout
//! ([`mancala_protocols::engine::serve`]); this reads the flags and makes the engines.

use std::sync::{Arc, Mutex};

use anyhow::Result;
use clap::Args;

#[derive(Args)]
pub struct EngineArgs {
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    /// Transposition table size in MiB, mapped in at start and kept across moves.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=65536))]
    tt_mb: u32,
    /// Endgame databases (`mancala egdb build`): positions they cover are valued exactly.
    #[arg(long)]
    egdb: Option<std::path::PathBuf>,
}

pub fn run(a: EngineArgs) -> Result<()> {
    let threads = usize::from(a.threads);
    let (engine, prover, _tables) =
        crate::tables::engine_and_prover(a.tt_mb, threads, a.egdb.as_deref())?;
    let out = Arc::new(Mutex::new(std::io::stdout()));
    mancala_protocols::engine::serve(engine, prover, std::io::stdin().lock(), out);
    Ok(())
}
