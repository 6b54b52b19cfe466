//! The Manchester Kalah protocol: Kalah(7,7) where the first move earns no extra turn and
//! North may swap ([`RULES`]), played by two agents over their standard input and output and
//! judged by a referee. This module holds the messages ([`ToAgent`], [`Action`]), an agent
//! that plays over any reader and writer ([`run_agent`]) and a referee between two agent
//! commands ([`referee_game`]).
//!
//! # Messages
//! One a line, ending in `\n`, no spaces. Referee to agent: `START;South` or `START;North`;
//! `CHANGE;<1-7|SWAP>;<16 numbers>;<YOU|OPP|END>` after every move (a swap is reported only to
//! the agent that did not swap); `END`. The 16 numbers are North's pits 1-7, North's store,
//! South's pits 1-7, South's store, by the seats as they stand (after a swap the swapper is
//! South). Agent to referee: `MOVE;<1-7>` (a pit counted from the mover's left, the number
//! read as the course's Java referee reads it) or `SWAP` (North's first action only). Each
//! agent has one hour in all for a game; a timeout, an illegal move, a malformed message, a
//! message out of turn (more than [`MAX_QUEUED`] of them at once) or a closed pipe loses.
//!
//! # Seats
//! The core keeps the seat names through a swap and mirrors the board instead
//! ([`mancala_core::SWAP`]); the protocol swaps the names and keeps the board. An agent's seat in
//! the core is therefore the one its `START` names, for the whole game, and the protocol's
//! board is the core's, mirrored once a swap has been played.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TrySendError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use mancala_core::{Game, Position, Rules, Side, SWAP};

use crate::shown;
use mancala_play::{Computer, Rng};

/// The rules the protocol plays.
pub const RULES: &str = "kalah,pits=7,seeds=7,first-move-extra-turn=false,pie";

/// Each agent's time for a whole game.
pub const GAME_TIME: Duration = Duration::from_secs(3600);

/// Longest line either side reads; a longer one is malformed.
pub const MAX_LINE: usize = 1024;

/// The protocol's rules, parsed.
pub fn rules() -> Rules {
    RULES.parse().expect("the protocol's rules are valid")
}

/// What an agent does on its turn: sow a pit (1-7, from its left) or swap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Sow this pit, 1-based from the mover's left.
    Move(u8),
    /// The pie rule's swap.
    Swap,
}

impl Action {
    /// The core's move: a pit 0-based, or [`SWAP`].
    pub fn to_core(self) -> u8 {
        match self {
            Action::Move(k) => k - 1,
            Action::Swap => SWAP,
        }
    }

    /// The action of the core's move `mv`.
    pub fn from_core(mv: u8) -> Action {
        if mv == SWAP {
            Action::Swap
        } else {
            Action::Move(mv + 1)
        }
    }

    /// Reads an agent's message: `MOVE;k` (k 1 to 7) or `SWAP`. The number is read as the
    /// course's Java referee reads it (`Integer.parseInt`): an optional `+` or `-`, then ASCII
    /// digits, no spaces, within a 32-bit integer, so `MOVE;03` and `MOVE;+3` are pit 3;
    /// a number that reads but is not a pit (`MOVE;-0`, `MOVE;8`) is out of range.
    pub fn parse(line: &str) -> Result<Action, MessageError> {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line == "SWAP" {
            return Ok(Action::Swap);
        }
        let Some(number) = line.strip_prefix("MOVE;") else {
            return Err(MessageError::NotAnAction(shown(line)));
        };
        // Rust's `i32` reading takes exactly what `Integer.parseInt` takes in ASCII.
        match number.parse::<i32>() {
            Ok(k @ 1..=7) => Ok(Action::Move(k as u8)),
            Ok(_) => Err(MessageError::PitOutOfRange(shown(line))),
            Err(_) => Err(MessageError::NotANumber(shown(line))),
        }
    }
}

/// Why a line is not a message of the protocol; each names the line (cut to 60 characters
/// and made printable) and what the protocol expects there.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    /// An agent's line that is neither `MOVE;k` nor `SWAP`.
    #[error("`{0}` is not MOVE;k or SWAP")]
    NotAnAction(String),
    /// `MOVE;k` whose number reads but is not a pit 1 to 7.
    #[error("`{0}`: a move is MOVE;1 to MOVE;7")]
    PitOutOfRange(String),
    /// `MOVE;` followed by something that is not a number.
    #[error("`{0}`: a move is MOVE; and a number, 1 to 7")]
    NotANumber(String),
    /// A `CHANGE` whose move is not a digit 1 to 7 or `SWAP`.
    #[error("`{0}`: the move is 1 to 7 or SWAP")]
    NotARefereeMove(String),
    /// A `CHANGE` whose state does not have 16 numbers.
    #[error("`{line}`: the state has {numbers} numbers, not 16")]
    StateLength {
        /// The line.
        line: String,
        /// How many numbers its state has.
        numbers: usize,
    },
    /// A `CHANGE` whose state holds a field that is not a count of seeds.
    #[error("`{line}`: `{field}` is not a count of seeds")]
    NotACount {
        /// The line.
        line: String,
        /// The field.
        field: String,
    },
    /// A `CHANGE` whose turn (given) is not `YOU`, `OPP` or `END`.
    #[error("`{0}` is not YOU, OPP or END")]
    NotATurn(String),
    /// A line that is not `START`, `CHANGE` or `END`.
    #[error("`{0}` is not a referee's message")]
    NotAMessage(String),
}

/// The agent's message: `MOVE;k` or `SWAP`.
impl core::fmt::Display for Action {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Action::Move(k) => write!(f, "MOVE;{k}"),
            Action::Swap => f.write_str("SWAP"),
        }
    }
}

/// Whose turn a `CHANGE` message announces, seen by its recipient.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    /// The recipient moves next.
    You,
    /// The opponent moves next.
    Opp,
    /// The game is over.
    End,
}

/// A message from the referee to an agent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToAgent {
    /// The game starts; the recipient sits here (South moves first).
    Start(Side),
    /// A move was played: what it was, the board after it, whose turn it is.
    Change {
        /// The move.
        action: Action,
        /// North's pits 1-7, North's store, South's pits 1-7, South's store.
        state: [u8; 16],
        /// Who moves next.
        turn: Turn,
    },
    /// The game is over.
    End,
}

/// The referee's message, without its newline.
impl core::fmt::Display for ToAgent {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ToAgent::Start(side) => write!(f, "START;{side}"),
            ToAgent::End => f.write_str("END"),
            ToAgent::Change {
                action,
                state,
                turn,
            } => {
                match action {
                    Action::Move(k) => write!(f, "CHANGE;{k};")?,
                    Action::Swap => f.write_str("CHANGE;SWAP;")?,
                }
                let numbers: Vec<String> = state.iter().map(u8::to_string).collect();
                f.write_str(&numbers.join(","))?;
                f.write_str(match turn {
                    Turn::You => ";YOU",
                    Turn::Opp => ";OPP",
                    Turn::End => ";END",
                })
            }
        }
    }
}

impl ToAgent {
    /// Reads a referee's message; the error says what is wrong.
    pub fn parse(line: &str) -> Result<ToAgent, MessageError> {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let fields: Vec<&str> = line.split(';').collect();
        match fields.as_slice() {
            ["START", "South"] => Ok(ToAgent::Start(Side::South)),
            ["START", "North"] => Ok(ToAgent::Start(Side::North)),
            ["END"] => Ok(ToAgent::End),
            ["CHANGE", mv, state, turn] => {
                // The referee writes its moves one way only: a digit 1 to 7, or SWAP.
                let action = match mv.as_bytes() {
                    b"SWAP" => Action::Swap,
                    &[d @ b'1'..=b'7'] => Action::Move(d - b'0'),
                    _ => return Err(MessageError::NotARefereeMove(shown(line))),
                };
                let numbers: Vec<&str> = state.split(',').collect();
                if numbers.len() != 16 {
                    return Err(MessageError::StateLength {
                        line: shown(line),
                        numbers: numbers.len(),
                    });
                }
                let mut s = [0u8; 16];
                for (slot, n) in s.iter_mut().zip(&numbers) {
                    *slot = match n.parse::<u8>() {
                        Ok(v) if !n.starts_with('+') => v,
                        _ => {
                            return Err(MessageError::NotACount {
                                line: shown(line),
                                field: shown(n),
                            })
                        }
                    };
                }
                let turn = match *turn {
                    "YOU" => Turn::You,
                    "OPP" => Turn::Opp,
                    "END" => Turn::End,
                    t => return Err(MessageError::NotATurn(shown(t))),
                };
                Ok(ToAgent::Change {
                    action,
                    state: s,
                    turn,
                })
            }
            _ => Err(MessageError::NotAMessage(shown(line))),
        }
    }
}

/// The protocol's 16 numbers of the core's position `pos`: the board as the core has it
/// before any swap, mirrored after one (`swapped`).
pub fn state_of(pos: &Position, swapped: bool) -> [u8; 16] {
    let p = if swapped { pos.mirrored() } else { *pos };
    let mut s = [0u8; 16];
    for i in 0..7 {
        s[i] = p.seeds(Side::North, i) as u8;
        s[8 + i] = p.seeds(Side::South, i) as u8;
    }
    s[7] = p.scores()[1] as u8;
    s[15] = p.scores()[0] as u8;
    s
}

/// Whether a swap has been played in `game`.
fn swapped(game: &Game) -> bool {
    game.moves().iter().any(|m| m.pit == SWAP)
}

/// How an agent budgets its clock: the level's own time a move (or `per_move`), never more
/// than its share of what is left of `game_time`.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Time for the whole game (the protocol's hour).
    pub game_time: Duration,
    /// Time a move, where given (else the level's depth or time).
    pub per_move: Option<Duration>,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            game_time: GAME_TIME,
            per_move: None,
        }
    }
}

impl Budget {
    /// The most a move may take after `used` of the game's time: a twentieth of what is left
    /// (less a twentieth of the game kept in reserve), and `per_move` where given.
    pub fn move_limit(&self, used: Duration) -> Duration {
        let left = self
            .game_time
            .saturating_sub(used)
            .saturating_sub(self.game_time / 20);
        let share = (left / 20).max(Duration::from_millis(5));
        self.per_move.map_or(share, |t| t.min(share))
    }
}

/// What an agent saw of a game it played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentReport {
    /// The seat its `START` named (its seat in the core for the whole game).
    pub seat: Option<Side>,
    /// Moves it sent (the swap included).
    pub moves: u32,
    /// Time spent choosing them.
    pub thinking: Duration,
    /// The final stores of the core's seats, South first, when the game ended.
    pub scores: Option<[u16; 2]>,
}

/// Plays one game as an agent: reads the referee's messages from `input`, answers on
/// `output`, chooses with `computer` within `budget` (each move's time counted from the
/// moment its message was read), and writes what it does to `log` (never to standard error:
/// a referee may not read it). Returns at `END` or when the input ends; a message that does
/// not fit the game is an error. The computer's start-up costs are the caller's to pay
/// before: its table faulted in ([`mancala_engine::Engine::prefault`]), its endgame tables
/// opened.
pub fn run_agent(
    input: impl BufRead,
    mut output: impl Write,
    computer: &mut Computer,
    budget: Budget,
    log: &mut dyn Write,
) -> Result<AgentReport> {
    let rules = rules();
    let mut game = Game::from_rules(&rules)?;
    let mut report = AgentReport {
        seat: None,
        moves: 0,
        thinking: Duration::ZERO,
        scores: None,
    };
    let mut rng = Rng::lcg(0x6d61_6e63);
    let base_time = computer.level.time;
    for line in input.lines() {
        // A move's time counts from the moment its message was read.
        let start = Instant::now();
        let line = line.context("reading the referee's messages")?;
        let _ = writeln!(log, "<- {line}");
        let msg = ToAgent::parse(&line).map_err(|e| anyhow::anyhow!("from the referee: {e}"))?;
        let my_turn = match msg {
            ToAgent::Start(side) => {
                if report.seat.is_some() {
                    bail!("from the referee: a second START");
                }
                report.seat = Some(side);
                side == Side::South
            }
            ToAgent::End => {
                report.scores = Some(game.scores());
                return Ok(report);
            }
            ToAgent::Change {
                action,
                state,
                turn,
            } => {
                let Some(seat) = report.seat else {
                    bail!("from the referee: CHANGE before START");
                };
                game.play(action.to_core())
                    .map_err(|e| anyhow::anyhow!("from the referee: {action} here: {e}"))?;
                let ours = state_of(game.position(), swapped(&game));
                if ours != state {
                    bail!(
                        "from the referee: the state {} differs from the game's {}",
                        join(&state),
                        join(&ours)
                    );
                }
                if turn == Turn::End {
                    report.scores = Some(game.scores());
                }
                turn == Turn::You && game.to_move() == seat && !game.is_over()
            }
        };
        if !my_turn {
            continue;
        }
        let limit = budget.move_limit(report.thinking);
        // The search stops a little before the limit: what was spent since the message was
        // read, and a tenth (at most 50 ms) for stopping it and answering.
        let reserve = (limit / 10).min(Duration::from_millis(50));
        let search = limit.saturating_sub(start.elapsed() + reserve);
        computer.level.time = Some(base_time.map_or(search, |t| t.min(search)));
        if budget.per_move.is_some() {
            computer.level.time = Some(search);
            computer.level.depth = None;
        }
        let mv = computer
            .choose(game.position(), game.history(), rng.next_u64())
            .context("the engine found no move")?;
        let action = Action::from_core(mv);
        if action == Action::Swap {
            // No CHANGE comes back for one's own swap.
            game.play(SWAP)?;
        }
        report.thinking += start.elapsed();
        report.moves += 1;
        let _ = writeln!(
            log,
            "-> {action} ({} ms, limit {} ms)",
            start.elapsed().as_millis(),
            limit.as_millis()
        );
        writeln!(output, "{action}").context("writing to the referee")?;
        output.flush().context("writing to the referee")?;
    }
    Ok(report)
}

fn join(state: &[u8; 16]) -> String {
    state
        .iter()
        .map(u8::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Most lines an agent's output may run ahead of the referee's reading: lines sent while it
/// is not its turn wait here (the next check loses it the game for them), and one more than
/// this loses it the game at once, so a flood of output holds at most this many lines of
/// [`MAX_LINE`] bytes.
pub const MAX_QUEUED: usize = 64;

/// How often the referee, waiting for the mover, looks whether the other agent has flooded
/// its output.
const FLOOD_CHECK: Duration = Duration::from_millis(20);

/// One agent process under the referee: its number and command, its input, its lines (read
/// on a thread of their own, at most [`MAX_QUEUED`] ahead) and its clock.
struct Agent {
    name: String,
    cmd: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Result<String, String>>,
    /// Raised (and the output no longer read) when more than [`MAX_QUEUED`] lines waited.
    flooded: Arc<AtomicBool>,
    /// Its command could not be run (found by its exit status).
    not_started: bool,
    used: Duration,
    moves: u32,
}

impl Agent {
    fn start(cmd: &str, number: u8) -> Result<Agent> {
        let name = format!("agent {number} (`{}`)", shown(cmd));
        let mut child = crate::external::spawn_shell(cmd, Stdio::null())
            .with_context(|| format!("{name}: cannot start `{cmd}`"))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().context("the agent's output")?;
        let (tx, rx) = mpsc::sync_channel(MAX_QUEUED);
        let flooded = Arc::new(AtomicBool::new(false));
        let flag = flooded.clone();
        std::thread::spawn(move || {
            let mut stdout = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                let line = match (&mut stdout)
                    .take(MAX_LINE as u64 + 1)
                    .read_until(b'\n', &mut buf)
                {
                    // The end, or a last line without its newline (never a message).
                    Ok(_) if buf.last() != Some(&b'\n') && buf.len() <= MAX_LINE => return,
                    Ok(_) if buf.last() == Some(&b'\n') => {
                        buf.pop();
                        Ok(String::from_utf8_lossy(&buf).into_owned())
                    }
                    Ok(_) => Err(format!("a line longer than {MAX_LINE} bytes")),
                    Err(e) => Err(e.to_string()),
                };
                let last = line.is_err();
                match tx.try_send(line) {
                    Ok(()) if !last => {}
                    Err(TrySendError::Full(_)) => {
                        // Its output is left unread from here: a pipe it can no longer fill.
                        flag.store(true, Ordering::Relaxed);
                        return;
                    }
                    _ => return,
                }
            }
        });
        Ok(Agent {
            name,
            cmd: cmd.to_string(),
            child,
            stdin,
            lines: rx,
            flooded,
            not_started: false,
            used: Duration::ZERO,
            moves: 0,
        })
    }

    /// Sends one message; a closed pipe is the agent's fault.
    fn send(&mut self, msg: &ToAgent) -> Result<(), String> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err("its input is closed".into());
        };
        let sent = writeln!(stdin, "{msg}").and_then(|()| stdin.flush());
        sent.map_err(|e| {
            self.not_started()
                .unwrap_or_else(|| format!("broken pipe: it no longer reads its input ({e})"))
        })
    }

    /// Whether it sent more lines ahead of the referee than are kept.
    fn flooded(&self) -> bool {
        self.flooded.load(Ordering::Relaxed)
    }

    /// The fault of an agent that flooded its output.
    fn flood_fault() -> String {
        format!("it sent more than {MAX_QUEUED} lines while it was not its turn")
    }

    /// Where an agent that has not moved has exited as `sh -c` does when it cannot run the
    /// command (127: not found; 126: not executable), the fault that says so.
    fn not_started(&mut self) -> Option<String> {
        if self.moves > 0 {
            return None;
        }
        let until = Instant::now() + Duration::from_millis(500);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(5)),
                _ => return None,
            }
        };
        let why = crate::external::cannot_start(&self.cmd, status)?;
        self.not_started = true;
        Some(why)
    }

    fn stop(&mut self) {
        // Its input closed, an agent has half a second to exit.
        self.stdin = None;
        crate::external::end_child(&mut self.child, Duration::from_millis(500));
    }
}

/// How a refereed game ended, by agent number (agent 1 first).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct GameReport {
    /// The agent that sat South at the start (1 or 2).
    pub south: u8,
    /// The winning agent (1 or 2); `None` for a draw.
    pub winner: Option<u8>,
    /// Each agent's final store (at a loss by fault: as it stood).
    pub scores: [u16; 2],
    /// Why the game ended when not by the rules: the faulty agent and its fault.
    pub fault: Option<String>,
    /// An agent's command could not be run (not found, or not executable): no game was
    /// played.
    pub not_started: bool,
    /// Moves each agent played (the swap included).
    pub moves: [u32; 2],
    /// Each agent's average time a move, in milliseconds.
    pub avg_ms: [f64; 2],
    /// Whether a swap was played.
    pub swapped: bool,
    /// The final position (the core's position string).
    pub position: String,
}

/// Referees one game between two agent commands (run by `sh -c`), South's first; messages
/// name each agent by its number in `numbers` (South's first) and its command, and the
/// report is by those numbers. Each has `game_time` in all; `event` receives a line to show
/// after every move (the move and the board). A misbehaving agent loses, and the reason says
/// which and why.
pub fn referee_game(
    cmds: [&str; 2],
    numbers: [u8; 2],
    game_time: Duration,
    mut event: impl FnMut(&str),
) -> Result<GameReport> {
    if numbers != [1, 2] && numbers != [2, 1] {
        bail!("the agents are numbered 1 and 2, not {numbers:?}");
    }
    let mut agents = [
        Agent::start(cmds[0], numbers[0])?,
        Agent::start(cmds[1], numbers[1])?,
    ];
    let mut game = Game::from_rules(&rules())?;
    let result = play_refereed(&mut agents, &mut game, game_time, &mut event);
    for a in &mut agents {
        a.stop();
    }
    let scores = game.scores();
    let swapped = swapped(&game);
    let avg = |a: &Agent| {
        if a.moves == 0 {
            0.0
        } else {
            a.used.as_secs_f64() * 1000.0 / a.moves as f64
        }
    };
    let (winner, fault, not_started) = match result {
        Ok(()) => (
            match scores[0].cmp(&scores[1]) {
                core::cmp::Ordering::Greater => Some(numbers[0]),
                core::cmp::Ordering::Less => Some(numbers[1]),
                core::cmp::Ordering::Equal => None,
            },
            None,
            false,
        ),
        Err((k, why)) => (
            Some(numbers[1 - k]),
            Some(format!("{} loses: {why}", agents[k].name)),
            agents[k].not_started,
        ),
    };
    // By seat, South's first, to by agent number, agent 1's first.
    fn by_number<T>(numbers: [u8; 2], mut x: [T; 2]) -> [T; 2] {
        if numbers[0] == 2 {
            x.swap(0, 1);
        }
        x
    }
    Ok(GameReport {
        south: numbers[0],
        winner,
        scores: by_number(numbers, scores),
        fault,
        not_started,
        moves: by_number(numbers, [agents[0].moves, agents[1].moves]),
        avg_ms: by_number(numbers, [avg(&agents[0]), avg(&agents[1])]),
        swapped,
        position: game.position().to_string(),
    })
}

/// An agent's fault: the agent (its seat's index, South 0) and what it did.
type Fault = (usize, String);

/// The mover `k`'s next line within what is left of its clock; the other agent flooding its
/// output meanwhile is that agent's fault.
fn next_line(agents: &mut [Agent; 2], k: usize, game_time: Duration) -> Result<String, Fault> {
    let left = game_time.saturating_sub(agents[k].used);
    let start = Instant::now();
    let got = loop {
        if agents[1 - k].flooded() {
            agents[k].used += start.elapsed();
            return Err((1 - k, Agent::flood_fault()));
        }
        let waited = start.elapsed();
        if waited >= left {
            break Err(RecvTimeoutError::Timeout);
        }
        match agents[k]
            .lines
            .recv_timeout((left - waited).min(FLOOD_CHECK))
        {
            Err(RecvTimeoutError::Timeout) => {}
            got => break got,
        }
    };
    agents[k].used += start.elapsed();
    let why = match got {
        Ok(Ok(line)) => return Ok(line),
        Ok(Err(e)) => format!("unreadable output: {e}"),
        Err(RecvTimeoutError::Timeout) => format!(
            "timeout: its {} s for the game ran out",
            game_time.as_secs_f64()
        ),
        Err(RecvTimeoutError::Disconnected) if agents[k].flooded() => Agent::flood_fault(),
        Err(RecvTimeoutError::Disconnected) => agents[k]
            .not_started()
            .unwrap_or_else(|| "it closed its output (exited) without moving".into()),
    };
    Err((k, why))
}

/// The game's loop; an error names the faulty agent (0 or 1) and its fault.
fn play_refereed(
    agents: &mut [Agent; 2],
    game: &mut Game,
    game_time: Duration,
    event: &mut impl FnMut(&str),
) -> Result<(), Fault> {
    // The first agent keeps the core's South seat for the whole game, the second North.
    agents[0]
        .send(&ToAgent::Start(Side::South))
        .map_err(|e| (0, e))?;
    agents[1]
        .send(&ToAgent::Start(Side::North))
        .map_err(|e| (1, e))?;
    while !game.is_over() {
        let k = game.to_move().index();
        let line = next_line(agents, k, game_time)?;
        let action = Action::parse(&line).map_err(|e| (k, format!("malformed message: {e}")))?;
        game.play(action.to_core())
            .map_err(|e| (k, format!("illegal move {action}: {e}")))?;
        agents[k].moves += 1;
        // A message from the other agent while it was not its turn.
        if agents[1 - k].flooded() {
            return Err((1 - k, Agent::flood_fault()));
        }
        if let Ok(extra) = agents[1 - k].lines.try_recv() {
            let what = match extra {
                Ok(l) => format!("`{}`", shown(&l)),
                Err(e) => e,
            };
            return Err((1 - k, format!("sent {what} when it was not its turn")));
        }
        let swapped = swapped(game);
        let state = state_of(game.position(), swapped);
        event(&format!(
            "{} plays {action}: {}",
            agents[k].name,
            board_text(&state)
        ));
        for (j, agent) in agents.iter_mut().enumerate() {
            if action == Action::Swap && j == k {
                continue;
            }
            let turn = if game.is_over() {
                Turn::End
            } else if game.to_move().index() == j {
                Turn::You
            } else {
                Turn::Opp
            };
            agent
                .send(&ToAgent::Change {
                    action,
                    state,
                    turn,
                })
                .map_err(|e| (j, e))?;
        }
    }
    for (j, agent) in agents.iter_mut().enumerate() {
        agent.send(&ToAgent::End).map_err(|e| (j, e))?;
    }
    Ok(())
}

/// The protocol's state as a line: North's row (from North's left, so reversed on the page),
/// the stores, South's row.
pub fn board_text(state: &[u8; 16]) -> String {
    let north: Vec<String> = state[..7].iter().rev().map(u8::to_string).collect();
    let south: Vec<String> = state[8..15].iter().map(u8::to_string).collect();
    format!(
        "North [{}] {} : {} South [{}]",
        north.join(" "),
        state[7],
        state[15],
        south.join(" ")
    )
}

#[cfg(test)]
mod tests;
