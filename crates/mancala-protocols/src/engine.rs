//! The engine's side of the line protocol of [`crate::protocol`] (`mancala engine`,
//! docs/engine-protocol.md): commands from any reader, answers on any writer. Its engines are
//! made, and their tables mapped in, before the first command and kept across moves; each
//! `go` thinks on a thread of its own ([`mancala_engine::think::engine_move`]), so `stop`,
//! `isready` and bad lines are answered while it runs.

use std::io::{BufRead, Write};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use mancala_core::Game;
use mancala_engine::{think, Engine, Limits, SearchResult};

use crate::protocol::{bestmove_line, info_line, Command, Go};

/// The longest line read (a longer one is refused, in pieces).
const MAX_LINE: u64 = 1 << 20;

/// The engine's state: its searcher, its prover, and the search under way.
struct State {
    engine: Arc<Engine>,
    prover: Arc<Engine>,
    out: Out,
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
        let limits = Limits {
            depth: go.depth,
            time: go.budget(pos.to_move()),
            nodes: go.nodes,
        };
        self.engine.abort().store(false, Ordering::Relaxed);
        self.prover.abort().store(false, Ordering::Relaxed);
        let (engine, prover, out) = (self.engine.clone(), self.prover.clone(), self.out.clone());
        self.search = Some(std::thread::spawn(move || {
            let report = |r: &SearchResult| say(&out, &info_line(&pos, r));
            let r = think::engine_move(&engine, &prover, &pos, &history, limits, Some(&report));
            if let Some(e) = engine.tables_fault().or_else(|| prover.tables_fault()) {
                say(&out, &format!("info string error {e}"));
            }
            match r {
                Some(r) => {
                    // The whole move: the last iteration's line, with every node and the
                    // time spent.
                    say(&out, &info_line(&pos, &r));
                    say(&out, &bestmove_line(&pos, r.best));
                }
                None => say(&out, "info string error no move found"),
            }
        }));
        Ok(())
    }
}

/// Where the answers go: shared by the reading loop and the thinking thread.
type Out = Arc<Mutex<dyn Write + Send>>;

/// Writes `line` and flushes it (a broken output is the reader's end, not an error here).
fn say(out: &Out, line: &str) {
    if let Ok(mut w) = out.lock() {
        let _ = writeln!(w, "{line}");
        let _ = w.flush();
    }
}

/// Speaks the engine protocol on `input` and `out` until `quit` or the end of the input:
/// `engine` searches, `prover` (a small table of its own, [`think::PROOF_MB`]) tries the
/// proofs; both are kept across moves and should be faulted in before ([`Engine::prefault`]).
pub fn serve(engine: Engine, prover: Engine, input: impl BufRead, out: Out) {
    let mut st = State {
        engine: Arc::new(engine),
        prover: Arc::new(prover),
        out: out.clone(),
        game: None,
        search: None,
    };
    let mut lines = input;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        // Lines of any bytes: a line that is not UTF-8 is refused like any bad line.
        match std::io::Read::take(&mut lines, MAX_LINE).read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if buf.len() as u64 == MAX_LINE && buf.last() != Some(&b'\n') {
            say(
                &out,
                &format!("info string error a line is longer than {MAX_LINE} bytes"),
            );
            continue;
        }
        let Ok(line) = std::str::from_utf8(&buf) else {
            say(&out, "info string error the line is not UTF-8");
            continue;
        };
        let cmd = match Command::parse(line) {
            Ok(Some(c)) => c,
            Ok(None) => continue,
            Err(e) => {
                say(&out, &format!("info string error {e}"));
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
                    say(&out, &format!("info string error {e}"));
                }
            }
            Command::Stop => st.stop(),
            Command::NewGame => {
                st.stop();
                st.engine.clear();
                st.prover.clear();
                st.game = None;
            }
            Command::IsReady => say(&out, "readyok"),
            Command::Quit => break,
        }
    }
    st.stop();
}
