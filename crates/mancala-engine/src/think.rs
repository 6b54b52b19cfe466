//! Thinking time: one policy for each thing the program does with a budget. Every front end
//! (the engine protocol, the agents, `play`, the TUI, the server, `analyze`, Python) calls
//! these, so the same request spends the same time and answers the same kind of value
//! everywhere.
//!
//! - [`engine_move`]: a move against a clock (the engine protocol, the agents): a proof
//!   within a share of the time where one is likely to finish, else a search.
//! - [`hint`]: a hint for a person: a proof where one finishes within the time, else a search.
//! - [`analyse`]: every legal move's value and the best line (`analyze --all-moves`, the
//!   server's analysis board, Python's `analyze(all_moves=True)`).
//! - [`judge`]: a move of a record against the best move (record analysis).

use std::time::{Duration, Instant};

use mancala_core::Position;

use crate::{Engine, Judgement, Limits, MoveValue, Quality, SearchResult};

/// Proofs are tried first for a move against the clock where at most this many seeds are on
/// the board beyond what the endgame tables hold: there they usually finish in milliseconds,
/// and a proven value plays perfectly.
pub const PROOF_SEEDS: u32 = 30;

/// The share of a move's time that [`engine_move`] gives a proof before it searches.
pub const PROOF_SHARE: u32 = 4;

/// The table, in MiB, of the prover kept beside a protocol engine's searcher.
pub const PROOF_MB: usize = 32;

impl Engine {
    /// Seeds on the board that this engine's endgame tables cover for the rules of `pos`,
    /// every level from 0 on (0: none).
    pub fn tabled_seeds(&self, pos: &Position) -> u32 {
        match (pos.as_kalah(), self.oracle.as_deref()) {
            (Some(k), Some(o)) => o.tabled_seeds(k.rules()),
            _ => 0,
        }
    }

    /// The first damage the endgame tables met while probing, said for people.
    pub fn tables_fault(&self) -> Option<String> {
        self.oracle.as_deref().and_then(|o| o.fault())
    }
}

/// Whether a proof of `pos` is likely to finish at once: a game without repetition, with
/// few seeds on the board beyond the endgame tables of `engine`.
pub fn decidable(engine: &Engine, pos: &Position) -> bool {
    let Some(k) = pos.as_kalah() else {
        return false;
    };
    !pos.rules().can_repeat() && k.board_seeds() <= engine.tabled_seeds(pos) + PROOF_SEEDS
}

/// A move against the clock: where `limits` has a time and no depth or node limit and a proof
/// is likely to finish ([`decidable`]), a proof on `prover` within [`PROOF_SHARE`] of the
/// time; else (or where the proof does not finish) a search on `engine` within what remains,
/// calling `report` after each completed iteration. The result's time and nodes are the
/// whole move's. `history` holds the game's positions before `pos` (repetition rule). `None`
/// when the game is over.
pub fn engine_move(
    engine: &Engine,
    prover: &Engine,
    pos: &Position,
    history: &[Position],
    limits: Limits,
    report: Option<&(dyn Fn(&SearchResult) + Sync)>,
) -> Option<SearchResult> {
    let start = Instant::now();
    let prove = limits
        .time
        .filter(|_| limits.depth.is_none() && limits.nodes.is_none() && decidable(prover, pos));
    if let Some(t) = prove {
        let lim = Limits {
            time: Some(t / PROOF_SHARE),
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
    let mut r = engine.search_with_progress(pos, limits, history, report)?;
    r.elapsed = start.elapsed();
    Some(r)
}

/// A hint for the side to move: the proven best move and value where a proof finishes within
/// `prove` (see [`Engine::hint`]), else a search within `limits`. `None` when the game is over.
pub fn hint(
    engine: &Engine,
    pos: &Position,
    history: &[Position],
    prove: Duration,
    limits: Limits,
) -> Option<SearchResult> {
    engine.hint(pos, prove, limits, history)
}

/// Every legal move of a position with its value, best first, and the best line: what
/// [`analyse`] gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// Every legal move and its value from the mover's view, best first (by
    /// [`crate::Evaluation::score`], then the surer value, then the pit); empty when the game
    /// is over.
    pub moves: Vec<MoveValue>,
    /// The best move, if any.
    pub best: Option<MoveValue>,
    /// The best line from the position, own pits of each mover (0-based), as far as it was
    /// found.
    pub line: Vec<u8>,
    /// The time the analysis took.
    pub elapsed: Duration,
}

impl Analysis {
    /// The seeds move `pit` gives away against the best move valued at least as surely; `None`
    /// where no such move can be compared with it.
    pub fn loss(&self, pit: u8) -> Option<i32> {
        MoveValue::loss(&self.moves, pit)
    }
}

/// Every legal move of `pos` valued by [`Engine::analyze_moves`] within `limits`, three
/// quarters of its time where it has one (proofs where they finish in half that, else every
/// move searched to one depth), and the best line: the best move, then the engine's hint for
/// the position it leads to, within what remains of the time (or to `limits.depth`). Give a
/// time or a depth: without either the proofs are unbounded. `history` holds the game's
/// positions before `pos` (repetition rule). The whole analysis stays within `limits.time`
/// but for the first ply of the line (at least 20 ms), which every caller spends alike.
pub fn analyse(engine: &Engine, pos: &Position, history: &[Position], limits: Limits) -> Analysis {
    let t0 = Instant::now();
    let values = engine.analyze_moves(
        pos,
        Limits {
            time: limits.time.map(|t| t * 3 / 4),
            ..limits
        },
        history,
    );
    let best = MoveValue::best(&values);
    let mut line = Vec::new();
    if let Some(b) = best {
        line.push(b.pit);
        let mut child = *pos;
        if child.play(b.pit).is_ok() && !child.is_over() {
            let left = limits.time.map(|t| {
                t.saturating_sub(t0.elapsed())
                    .max(Duration::from_millis(20))
            });
            let mut before = history.to_vec();
            before.push(*pos);
            let search = Limits {
                time: left.map(|l| l / 2),
                ..limits
            };
            let prove = left.map_or(Duration::ZERO, |l| l / 2);
            if let Some(r) = engine.hint(&child, prove, search, &before) {
                line.extend(r.pv);
            }
        }
    }
    let mut moves = values;
    let rank = |m: &MoveValue| {
        let q = match m.eval.quality {
            Quality::Proven => u32::MAX,
            Quality::Searched { depth } => depth,
        };
        (
            std::cmp::Reverse(m.eval.score()),
            std::cmp::Reverse(q),
            m.pit,
        )
    };
    moves.sort_by_key(rank);
    Analysis {
        moves,
        best,
        line,
        elapsed: t0.elapsed(),
    }
}

/// The move `played` of `pos` judged against the best move (see [`Engine::judge_move`]).
pub fn judge(
    engine: &Engine,
    pos: &Position,
    played: u8,
    history: &[Position],
    limits: Limits,
) -> Option<Judgement> {
    engine.judge_move(pos, played, limits, history)
}
