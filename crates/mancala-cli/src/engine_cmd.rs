//! `mancala engine`: the engine protocol on stdin and stdout
//! ([`mancala_protocols::engine::serve`]); this reads the flags and makes the engines.

use std::sync::{Arc, Mutex};

use anyhow::Result;
use clap::Args;
use mancala_engine::{think, Engine};

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
    let mut engine = Engine::try_new(a.tt_mb as usize, threads).map_err(anyhow::Error::msg)?;
    let mut prover = Engine::try_new(think::PROOF_MB, threads).map_err(anyhow::Error::msg)?;
    let db = match &a.egdb {
        Some(dir) => Some(Arc::new(mancala_egdb::Egdb::open(dir)?)),
        None => None,
    };
    let oracle = crate::tables::oracle(&db);
    engine.oracle = oracle.clone();
    prover.oracle = oracle;
    // Mapped in once, before any clock runs.
    engine.prefault();
    prover.prefault();
    let out = Arc::new(Mutex::new(std::io::stdout()));
    mancala_protocols::engine::serve(engine, prover, std::io::stdin().lock(), out);
    Ok(())
}
