//! An engine in another process, spoken to over the line protocol of [`crate::protocol`]
//! (`mancala engine`, or any program that speaks it), as a source of moves for
//! [`mancala_play::game::play_out`]; and matches between two such engines, scored as
//! [`mancala_play::matches`] scores matches between players.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use mancala_core::{Game, Rules, Side};

use crate::protocol::{moves_text, read_move};
use mancala_play::game::{play_out, MoveSource};
use mancala_play::matches::{openings, MatchResult, MAX_PLIES};
use mancala_play::Rng;

/// A running engine process.
pub struct EngineProcess {
    /// The command line it was started with (for messages).
    pub cmd: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// The `go` arguments sent for each move (`movetime 100`, `depth 12`, ...).
    pub go: String,
    /// How long past its budget an answer may take before the engine is given up on.
    pub grace: Duration,
    /// The budget of one move, for the grace above (`None`: wait as long as it takes).
    pub budget: Option<Duration>,
    /// The last error an engine reported (`info string error ...`).
    pub last_error: Option<String>,
}

impl EngineProcess {
    /// Starts `cmd` (run by `sh -c`) and waits for its `readyok`.
    pub fn start(cmd: &str, go: &str, budget: Option<Duration>) -> Result<EngineProcess> {
        let mut child =
            spawn_shell(cmd, Stdio::inherit()).with_context(|| format!("cannot start `{cmd}`"))?;
        let stdin = child.stdin.take().context("no stdin")?;
        let stdout = child.stdout.take().context("no stdout")?;
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut e = EngineProcess {
            cmd: cmd.to_string(),
            child,
            stdin,
            lines,
            go: go.to_string(),
            grace: Duration::from_secs(5),
            budget,
            last_error: None,
        };
        e.send("isready")?;
        e.wait_for(|l| l == "readyok", Some(Duration::from_secs(60)))?;
        Ok(e)
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<()> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .with_context(|| format!("`{}` stopped reading", self.cmd))
    }

    /// Reads lines until one satisfies `done` (returned), within `timeout`.
    pub fn wait_for(
        &mut self,
        done: impl Fn(&str) -> bool,
        timeout: Option<Duration>,
    ) -> Result<String> {
        let until = timeout.map(|t| Instant::now() + t);
        loop {
            let line = match until {
                Some(u) => match self
                    .lines
                    .recv_timeout(u.saturating_duration_since(Instant::now()))
                {
                    Ok(l) => l,
                    Err(RecvTimeoutError::Timeout) => {
                        bail!("`{}` did not answer in time", self.cmd)
                    }
                    Err(RecvTimeoutError::Disconnected) => bail!("`{}` ended", self.cmd),
                },
                None => self
                    .lines
                    .recv()
                    .map_err(|_| anyhow::anyhow!("`{}` ended", self.cmd))?,
            };
            if let Some(e) = line.strip_prefix("info string error ") {
                self.last_error = Some(e.to_string());
            }
            if done(&line) {
                return Ok(line);
            }
        }
    }

    /// Starts a new game: `newgame`, then waits until the engine is ready.
    pub fn new_game(&mut self) -> Result<()> {
        self.send("newgame")?;
        self.send("isready")?;
        self.wait_for(|l| l == "readyok", Some(Duration::from_secs(60)))?;
        Ok(())
    }

    /// The engine's move in `game`: `position`, `go`, and its `bestmove`, checked to be a
    /// pit of the side to move. The position is the start and the moves so far where
    /// positions can repeat (the rule reads the history), else the current position alone.
    pub fn best_move(&mut self, game: &Game) -> Result<u8> {
        let cmd = if game.rules().can_repeat() {
            let start = game.start();
            let line: Vec<u8> = game.moves().iter().map(|m| m.pit).collect();
            format!("position {start} moves {}", moves_text(start, &line))
        } else {
            format!("position {}", game.position())
        };
        self.send(&cmd)?;
        self.send(&format!("go {}", self.go))?;
        let timeout = self.budget.map(|b| b + self.grace);
        let line = self.wait_for(
            |l| l.starts_with("bestmove ") || l.starts_with("info string error "),
            timeout,
        )?;
        let Some(mv) = line.strip_prefix("bestmove ") else {
            bail!(
                "`{}`: {}",
                self.cmd,
                line["info string error ".len()..].trim()
            );
        };
        let pos = game.position();
        let pit = read_move(pos, mv.trim()).map_err(|e| anyhow::anyhow!("`{}`: {e}", self.cmd))?;
        if !pos.legal_moves().contains(pit) {
            bail!("`{}` played `{}`, which is not legal", self.cmd, mv.trim());
        }
        Ok(pit)
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit").and_then(|_| self.stdin.flush());
        end_child(&mut self.child, Duration::from_secs(1));
    }
}

/// Starts `cmd` under `sh -c` with piped input and output, in a process group of its own
/// (on Unix), so that [`end_child`] can end whatever the command started as well.
pub(crate) fn spawn_shell(cmd: &str, stderr: Stdio) -> std::io::Result<Child> {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(cmd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr);
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    command.spawn()
}

/// What the exit status of a command run by `sh -c` that has done nothing yet says, where it
/// is the shell's own: 127, the command was not found; 126, it could not be executed.
pub(crate) fn cannot_start(cmd: &str, status: std::process::ExitStatus) -> Option<String> {
    let why = match status.code() {
        Some(127) => "not found",
        Some(126) => "not executable",
        _ => return None,
    };
    Some(format!(
        "cannot start `{}`: {why} (`sh -c` exited with status {})",
        crate::shown(cmd),
        status.code().unwrap_or_default()
    ))
}

/// Waits up to `grace` for `child` to exit (after it was told to), then kills it and, on
/// Unix, every process left in its group (an agent's own children, which `sh -c` leaves
/// behind); either way it is reaped.
pub(crate) fn end_child(child: &mut Child, grace: Duration) {
    let until = Instant::now() + grace;
    let exited = loop {
        if let Ok(Some(_)) = child.try_wait() {
            break true;
        }
        if Instant::now() >= until {
            break false;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    #[cfg(unix)]
    if let Ok(pgid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals the process group the child leads
        // (started by `spawn_shell` with `process_group(0)`); it touches no memory.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
    if !exited {
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// An engine process as one side's source of moves; the first error is kept (the game loop
/// sees only that no move came).
struct ProcessSeat<'a> {
    engine: &'a mut EngineProcess,
    error: Option<anyhow::Error>,
}

impl MoveSource for ProcessSeat<'_> {
    fn next_move(&mut self, game: &Game, _seed: u64) -> Option<u8> {
        match self.engine.best_move(game) {
            Ok(m) => Some(m),
            Err(e) => {
                self.error.get_or_insert(e);
                None
            }
        }
    }
}

/// A match between two engine commands over the protocol.
#[derive(Clone, Debug)]
pub struct ExternalMatch {
    /// The game played.
    pub rules: Rules,
    /// Engine A's command line (its score and Elo are reported).
    pub a_cmd: String,
    /// Engine B's command line.
    pub b_cmd: String,
    /// The `go` arguments of every move (`movetime 100`).
    pub go: String,
    /// The time one move may take (for giving up on an engine that does not answer).
    pub budget: Option<Duration>,
    /// Games asked for, rounded up to pairs (each opening with both colours).
    pub games: u32,
    /// Pairs of processes playing at once.
    pub threads: usize,
    /// Openings as [`mancala_play::matches::MatchConfig::openings`].
    pub openings: usize,
    /// Seed of the openings.
    pub seed: u64,
}

/// Plays one game between two engine processes from the opening `start`, A on `a_side`;
/// A's score: 1, 0.5 or 0.
pub fn play_game(
    start: &mancala_core::Position,
    a: &mut EngineProcess,
    b: &mut EngineProcess,
    a_side: Side,
) -> Result<f64> {
    a.new_game()?;
    b.new_game()?;
    let mut sa = ProcessSeat {
        engine: a,
        error: None,
    };
    let mut sb = ProcessSeat {
        engine: b,
        error: None,
    };
    let (south, north) = match a_side {
        Side::South => (&mut sa, &mut sb),
        Side::North => (&mut sb, &mut sa),
    };
    let game = play_out(*start, south, north, &mut Rng::new(0), MAX_PLIES);
    let game = match game {
        Ok(g) => g,
        Err(e) => return Err(sa.error.or(sb.error).unwrap_or(e)),
    };
    Ok(match game.outcome().and_then(|o| o.winner()) {
        Some(w) if w == a_side => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    })
}

/// Plays the match: `threads` pairs of processes, each playing its share of the games in
/// turn; the results in the order of [`mancala_play::matches::play_match`] (pair by pair, A South
/// first). `progress` is called after each game with the games done.
pub fn play_external_match(
    m: &ExternalMatch,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<MatchResult> {
    let pairs = m.games.div_ceil(2) as usize;
    let starts = openings(&m.rules, pairs, m.openings, m.seed)?;
    let jobs: Vec<(usize, Side)> = (0..pairs)
        .flat_map(|i| [(i, Side::South), (i, Side::North)])
        .collect();
    let threads = m.threads.clamp(1, jobs.len().max(1));
    let done = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<Result<Vec<(usize, f64)>>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (jobs, starts, done) = (&jobs, &starts, &done);
                s.spawn(move || -> Result<Vec<(usize, f64)>> {
                    let mut a = EngineProcess::start(&m.a_cmd, &m.go, m.budget)?;
                    let mut b = EngineProcess::start(&m.b_cmd, &m.go, m.budget)?;
                    let mut out = Vec::new();
                    for (j, &(i, side)) in jobs.iter().enumerate().skip(t).step_by(threads) {
                        let r = play_game(&starts[i], &mut a, &mut b, side)
                            .with_context(|| format!("game {}", j + 1))?;
                        out.push((j, r));
                        progress(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1);
                    }
                    Ok(out)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| bail!("a match thread failed")))
            .collect()
    });
    let mut all = vec![0.0; jobs.len()];
    for r in results {
        for (j, v) in r? {
            all[j] = v;
        }
    }
    Ok(MatchResult::of(all))
}
