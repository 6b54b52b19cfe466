//! `mancala engine`: a long-lived engine that reads the line protocol of
//! [`mancala_play::protocol`] on stdin and answers on stdout (docs/protocols.md). One
//! table is mapped in at start and kept across moves; each `go` searches on a thread of its
//! own, so `stop`, `isready` and bad lines are answered while it runs.

use std::io::BufRead;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::Args;
use mancala_core::{Game, Position};
use mancala_engine::{Engine, Limits, SearchResult};
use mancala_play::protocol::{bestmove_line, info_line, Command, Go};

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

/// Proofs are tried first (on a table of their own, within a quarter of the move's time)
/// where at most this many seeds are on the board beyond what the endgame tables hold: there
/// they usually finish in milliseconds, and a proven value plays perfectly.
const PROOF_SEEDS: i32 = 30;
/// The longest line read (a longer one is refused, in pieces).
const MAX_LINE: u64 = 1 << 20;
/// The proofs' table, in MiB.
const PROOF_MB: usize = 32;

/// The engine's state: its searcher, its prover, and the search under way.
struct State {
    engine: Arc<Engine>,
    prover: Arc<Engine>,
    db: Option<Arc<mancala_egdb::Egdb>>,
    game: Option<Game>,
    search: Option<JoinHandle<()>>,
}

impl State {
    /// Stops the search under way (its `bestmove` is printed) and waits for it.
    fn stop(&mut self) {
        if let Some(h) = self.search.take() {
            self.engine.abort().store(true, Ordering::Relaxed);
            self.prover.abort().store(true, Ordering::Relaxed);
            let _ = h.join();
        }
    }

    fn busy(&mut self) -> bool {
        match &self.search {
            Some(h) if !h.is_finished() => true,
            Some(_) => {
                let _ = self.search.take().map(JoinHandle::join);
                false
            }
            None => false,
        }
    }

    fn go(&mut self, go: Go) -> Result<(), String> {
        if self.busy() {
            return Err("a search is under way: send stop first".into());
        }
        let Some(game) = &self.game else {
            return Err("no position: send position first".into());
        };
        let pos = *game.position();
        if pos.is_over() {
            return Err("the game is over in this position".into());
        }
        let history = game.history().to_vec();
        let budget = go.budget(pos.to_move());
        let limits = Limits {
            depth: go.depth,
            time: budget,
            nodes: go.nodes,
        };
        let prove =
            budget.filter(|_| go.depth.is_none() && go.nodes.is_none() && self.decidable(&pos));
        self.engine.abort().store(false, Ordering::Relaxed);
        self.prover.abort().store(false, Ordering::Relaxed);
        let (engine, prover) = (self.engine.clone(), self.prover.clone());
        let db = self.db.clone();
        self.search = Some(std::thread::spawn(move || {
            let r = think(&engine, &prover, &pos, &history, limits, prove);
            if let Some(e) = db.as_deref().and_then(mancala_egdb::Egdb::fault) {
                println!("info string error {e}");
            }
            match r {
                Some(r) => {
                    // The whole search: the last iteration's line, with every node and the
                    // time spent.
                    println!("{}", info_line(&pos, &r));
                    println!("{}", bestmove_line(&pos, r.best));
                }
                None => println!("info string error no move found"),
            }
        }));
        Ok(())
    }

    /// Whether a proof of `pos` is likely to finish at once: a game without repetition, with
    /// few seeds on the board beyond the endgame tables.
    fn decidable(&self, pos: &Position) -> bool {
        let Some(k) = pos.as_kalah() else {
            return false;
        };
        if pos.rules().can_repeat() {
            return false;
        }
        let tabled = self
            .db
            .as_deref()
            .zip(mancala_egdb::TableRules::new(k.rules()).ok())
            .and_then(|(db, r)| db.complete_to(&r))
            .map_or(0, |top| top as i32 + 1);
        (k.board_seeds() as i32) <= tabled + PROOF_SEEDS
    }
}

/// The move for `pos`: a proof within a quarter of `prove` where asked, else a search within
/// `limits` (its time less what the proof took), with an `info` line a completed iteration.
/// The result's time and nodes are the whole move's.
fn think(
    engine: &Engine,
    prover: &Engine,
    pos: &Position,
    history: &[Position],
    limits: Limits,
    prove: Option<Duration>,
) -> Option<SearchResult> {
    let start = Instant::now();
    if let Some(t) = prove {
        let lim = Limits {
            time: Some(t / 4),
            ..Limits::default()
        };
        if let Some(p) = prover.solve(pos, lim, history) {
            return Some(SearchResult {
                best: p.best,
                eval: p.eval,
                depth: p.pv.len() as u32,
                nodes: p.nodes,
                pv: p.pv,
                elapsed: start.elapsed(),
            });
        }
    }
    let limits = Limits {
        time: limits.time.map(|t| t.saturating_sub(start.elapsed())),
        ..limits
    };
    let report = |r: &SearchResult| println!("{}", info_line(pos, r));
    let mut r = engine.search_with_progress(pos, limits, history, Some(&report))?;
    r.elapsed = start.elapsed();
    Some(r)
}

pub fn run(a: EngineArgs) -> Result<()> {
    let threads = usize::from(a.threads);
    let mut engine = Engine::try_new(a.tt_mb as usize, threads).map_err(anyhow::Error::msg)?;
    let mut prover = Engine::try_new(PROOF_MB, threads).map_err(anyhow::Error::msg)?;
    let db = match &a.egdb {
        Some(dir) => Some(Arc::new(mancala_egdb::Egdb::open(dir)?)),
        None => None,
    };
    let oracle = crate::engine_cmds::oracle(&db);
    engine.oracle = oracle.clone();
    prover.oracle = oracle;
    // Mapped in once, before any clock runs.
    engine.prefault();
    prover.prefault();
    let mut st = State {
        engine: Arc::new(engine),
        prover: Arc::new(prover),
        db,
        game: None,
        search: None,
    };
    let stdin = std::io::stdin();
    let mut lines = stdin.lock();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        // Lines of any bytes: a line that is not UTF-8 is refused like any bad line.
        match std::io::Read::take(&mut lines, MAX_LINE).read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if buf.len() as u64 == MAX_LINE && buf.last() != Some(&b'\n') {
            println!("info string error a line is longer than {MAX_LINE} bytes");
            continue;
        }
        let Ok(line) = std::str::from_utf8(&buf) else {
            println!("info string error the line is not UTF-8");
            continue;
        };
        let cmd = match Command::parse(line) {
            Ok(Some(c)) => c,
            Ok(None) => continue,
            Err(e) => {
                println!("info string error {e}");
                // A refused `position` leaves no position: a `go` after it must not search
                // the one before, which the sender no longer means.
                if line.split_whitespace().next() == Some("position") {
                    st.stop();
                    st.game = None;
                }
                continue;
            }
        };
        match cmd {
            Command::Position(g) => {
                st.stop();
                st.game = Some(*g);
            }
            Command::Go(go) => {
                if let Err(e) = st.go(go) {
                    println!("info string error {e}");
                }
            }
            Command::Stop => st.stop(),
            Command::NewGame => {
                st.stop();
                st.engine.clear();
                st.prover.clear();
                st.game = None;
            }
            Command::IsReady => println!("readyok"),
            Command::Quit => break,
        }
    }
    st.stop();
    Ok(())
}
