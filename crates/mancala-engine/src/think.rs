//! Thinking time: one policy for each thing the program does with a budget. Every front end
//! (the engine protocol, the agents, `play`, the TUI, the server, `analyze`, Python) calls
//! these, so the same request spends the same time and answers the same kind of value
//! everywhere.
//!
//! - [`engine_move`]: a move against a clock (the engine protocol, the agents): a proof
//!   within a share of the time where one is likely to finish (most of it where the endgame
//!   tables cover many seeds), else a search.
//! - [`hint`]: a hint for a person: a proof where one finishes within the time, else a search.
//! - [`analyse`]: every legal move's value and the best line (`analyze --all-moves`, the
//!   server's analysis board, Python's `analyze(all_moves=True)`).
//! - [`judge`]: a move against the best move; [`judge_game`]: every move of a record (record
//!   analysis: `analyze RECORD`, the server's replays).

use std::time::Duration;

use crate::clock::Instant;

use mancala_core::{Game, Position};

use crate::{Budget, Engine, Evaluation, Judgement, MoveValue, Quality, SearchResult};

/// Proofs are tried first for a move against the clock where at most this many seeds are on
/// the board beyond what the endgame tables hold: there they usually finish in milliseconds,
/// and a proven value plays perfectly.
pub const PROOF_SEEDS: u32 = 30;

/// The share of a move's time (1 in this many) that [`engine_move`] gives a proof before it
/// searches, where the proof is likely but not sure to finish ([`decidable`]).
pub const PROOF_SHARE: u32 = 4;

/// Endgame tables of at least this many seeds make a proof likely to finish within a move's
/// time where at most [`PROOF_FIRST_SEEDS`] more are on the board: Kalah(6,4)'s whole proof
/// is about 650,000 nodes with 28-seed tables and grows about 1.6 times a seed the tables
/// lack (docs/results.md).
pub const PROOF_FIRST_TABLES: u32 = 20;

/// See [`PROOF_FIRST_TABLES`]: seeds on the board beyond the tables up to which a proof is
/// tried first with most of the move's time ([`PROOF_FIRST_SHARE`]).
pub const PROOF_FIRST_SEEDS: u32 = 24;

/// The share of a move's time, in quarters, that [`engine_move`] gives a proof that is tried
/// first ([`PROOF_FIRST_TABLES`]); the search that answers where it does not finish has the
/// rest.
pub const PROOF_FIRST_SHARE: u32 = 3;

/// See [`PROOF_FIRST_TABLES`]: seeds on the board beyond the tables (beyond
/// [`Engine::tabled_seeds`], their top level plus one) up to which a proof that is tried first
/// almost always finishes within a move, so it has all of the move's time but
/// [`PROOF_NEAR_SHARE`]'s reserve: 46 seeds and fewer with tables to 30 seeds. With those and
/// the 46-seed opening book, every position of 1,000 games of Kalah(6,4) was proven within
/// 450 ms on one thread; with tables to 28, a few of 45 seeds were not within 500 ms
/// (docs/results.md).
pub const PROOF_NEAR_SEEDS: u32 = 15;

/// The share of a move's time, as `(num, den)`, that [`engine_move`] gives a proof within
/// [`PROOF_NEAR_SEEDS`] of deep tables: the rest is left for a search, should it not finish.
pub const PROOF_NEAR_SHARE: (u32, u32) = (31, 32);

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

    /// A proof's engine for `pos`: `threads`, the endgame tables of `oracle`, and a table of
    /// `tt_mb` MiB; by default [`Engine::proof_table_mb`] with the levels the tables hold,
    /// and against the clock (`time`) no larger than the time can use: the table's mapping is
    /// not timed but it is waited for (a quarter of a MiB a millisecond, at least 64 MiB).
    /// The error says why the table cannot be had.
    pub fn for_proof(
        pos: &Position,
        oracle: Option<std::sync::Arc<dyn crate::Oracle + Send>>,
        tt_mb: Option<u32>,
        threads: u16,
        time: Option<Duration>,
    ) -> Result<Engine, String> {
        let tabled = match (pos.as_kalah(), oracle.as_deref()) {
            (Some(k), Some(o)) => o.tabled_seeds(k.rules()),
            _ => 0,
        };
        let tt_mb = tt_mb.unwrap_or_else(|| {
            let cap = time.map_or(u32::MAX, |t| {
                ((t.as_millis() / 4).min(1 << 16) as u32)
                    .next_power_of_two()
                    .max(64)
            });
            (Engine::proof_table_mb(pos, tabled) as u32).min(cap)
        });
        let mut engine = Engine::try_new(tt_mb as usize, usize::from(threads))?;
        engine.oracle = oracle;
        Ok(engine)
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

/// The share of a move's time, as `(num, den)`, that [`engine_move`] gives a proof of `pos`
/// before it searches: all but a 32nd where the endgame tables make a proof almost sure to
/// finish ([`PROOF_NEAR_SEEDS`]), three quarters where they make it likely
/// ([`PROOF_FIRST_TABLES`]), a quarter where it may ([`decidable`]), else none.
pub fn proof_share(prover: &Engine, pos: &Position) -> Option<(u32, u32)> {
    if !decidable(prover, pos) {
        return None;
    }
    let tabled = prover.tabled_seeds(pos);
    let seeds = pos.as_kalah().map_or(u32::MAX, |k| k.board_seeds());
    if tabled >= PROOF_FIRST_TABLES && seeds <= tabled + PROOF_NEAR_SEEDS {
        Some(PROOF_NEAR_SHARE)
    } else if tabled >= PROOF_FIRST_TABLES && seeds <= tabled + PROOF_FIRST_SEEDS {
        Some((PROOF_FIRST_SHARE, 4))
    } else {
        Some((1, PROOF_SHARE))
    }
}

/// A move against the clock: under the pie rule, the first move and the choice to swap by
/// [`pie_choice`]; else, where `budget` has a deadline and no node limit, no depth limit
/// either unless `prover` has endgame tables for the rules of `pos`, and a proof is likely to
/// finish ([`proof_share`]), a proof on `prover` within its share of the
/// time left (most of it where the endgame tables cover many seeds); else (or where the
/// proof does not finish) a search on `engine` within the rest of `budget`, calling `report`
/// after each completed iteration. The answer is proven only where the proof (or the search,
/// where no leaf met its depth) finished. The result's time is the whole move's; its nodes
/// are the proof's where it finished, else the search's.
/// `history` holds the game's positions before `pos` (repetition rule). `None` when the
/// game is over.
pub fn engine_move(
    engine: &Engine,
    prover: &Engine,
    pos: &Position,
    history: &[Position],
    budget: Budget,
    report: Option<&(dyn Fn(&SearchResult) + Sync)>,
) -> Option<SearchResult> {
    let start = Instant::now();
    if let Some(c) = pie_choice(engine, pos, history, budget) {
        return Some(SearchResult {
            best: c.best.pit,
            eval: c.best.eval,
            // A proven choice's depth is its line's length, as a proof's is.
            depth: match c.best.eval.quality {
                Quality::Proven => 1,
                Quality::Searched { depth } => depth,
            },
            nodes: c.nodes,
            pv: vec![c.best.pit],
            elapsed: start.elapsed(),
        });
    }
    // A depth limit bounds the search, so a proof is not tried under one, except with
    // endgame tables for the position's rules: they are there to play perfectly.
    let share = (budget.deadline.is_some()
        && budget.nodes.is_none()
        && (budget.depth.is_none() || prover.tabled_seeds(pos) > 0))
        .then(|| proof_share(prover, pos))
        .flatten();
    if let Some((num, den)) = share {
        if let Some(p) = prover.solve(pos, budget.share(num, den), history) {
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
    let mut r = engine.search_with_progress(pos, budget, history, report)?;
    r.elapsed = start.elapsed();
    Some(r)
}

/// A hint for a person: the proven best move and value where a proof finishes within half of
/// `budget`'s time (see [`Engine::hint`]), else a search within the rest of it (to
/// `budget.depth` where it has one). `None` when the game is over.
pub fn hint(
    engine: &Engine,
    pos: &Position,
    history: &[Position],
    budget: Budget,
) -> Option<SearchResult> {
    let prove = budget.share(1, 2).left().unwrap_or(Duration::ZERO);
    engine.hint(pos, prove, budget, history)
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

/// Every legal move of `pos` valued by [`Engine::analyze_moves`] within three quarters of
/// `budget`'s time where it has one (proofs where they finish in half that, else every move
/// searched to one depth), and the best line: the best move, then [`hint`] for the position
/// it leads to, within what remains (at least 20 ms; or to `budget.depth`). Give a time or a
/// depth: without either the proofs are unbounded. `history` holds the game's positions
/// before `pos` (repetition rule).
pub fn analyse(engine: &Engine, pos: &Position, history: &[Position], budget: Budget) -> Analysis {
    let t0 = Instant::now();
    let values = engine.analyze_moves(pos, budget.share(3, 4), history);
    let best = MoveValue::best(&values);
    let mut line = Vec::new();
    if let Some(b) = best {
        line.push(b.pit);
        let mut child = *pos;
        if child.play(b.pit).is_ok() && !child.is_over() {
            let rest = Budget {
                deadline: budget
                    .left()
                    .and_then(|l| Budget::time(l.max(Duration::from_millis(20))).deadline),
                ..budget
            };
            let mut before = history.to_vec();
            before.push(*pos);
            if let Some(r) = hint(engine, &child, &before, rest) {
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
    budget: Budget,
) -> Option<Judgement> {
    engine.judge_move(pos, played, budget, history)
}

/// Seeds on the board, beyond what the endgame tables cover, up to which a record's positions
/// on boards of at most [`SMALL_GAME_PITS`] pits are proven whatever the time ([`judge_game`]):
/// such a game (the Vaccean game, Kalah(6,3), the classroom Kalah) is proven whole in about a
/// second, and a search's guess there would be a needless untruth risk.
pub const SMALL_GAME_SEEDS: u32 = 40;

/// See [`SMALL_GAME_SEEDS`].
pub const SMALL_GAME_PITS: usize = 6;

/// Whether [`judge_game`] proves every position of `pos`'s game whatever the time: no
/// repetition, at most [`SMALL_GAME_PITS`] pits a row and [`SMALL_GAME_SEEDS`] seeds on the
/// board beyond the tables.
pub fn small_game(engine: &Engine, pos: &Position) -> bool {
    !pos.rules().can_repeat()
        && pos.as_kalah().is_some()
        && pos.pits() <= SMALL_GAME_PITS
        && pos.board_seeds() <= engine.tabled_seeds(pos) + SMALL_GAME_SEEDS
}

/// Every move of `game` judged against the best move ([`Engine::judge_move`]), in the order
/// of the game; `None` for a move left unjudged when `total` ran out. The moves are judged from
/// the last to the first, so that the proofs near the end fill the table the earlier ones
/// read, and each gets `per_move` (a time, or a depth that every move is searched to) plus
/// what the moves judged before it left unspent. A small game ([`small_game`]) is proven
/// whole instead, whatever `per_move`'s time. `total` caps the whole analysis (the server's
/// replays); `done` is called after each move is judged, with how many are.
pub fn judge_game(
    engine: &Engine,
    game: &Game,
    per_move: crate::Limits,
    total: Option<Duration>,
    done: &dyn Fn(usize),
) -> Vec<Option<Judgement>> {
    let start = Instant::now();
    let cap = total.and_then(|t| Budget::time_from(start, t).deadline);
    let n = game.moves().len();
    let small = per_move.depth.is_none() && small_game(engine, game.start());
    let mut out = vec![None; n];
    for (i, k) in (0..n).rev().enumerate() {
        let mut budget = match (per_move.depth, per_move.time) {
            _ if small => Budget::UNLIMITED,
            (Some(d), _) => Budget::depth(d),
            // Unspent time carries over: the i-th move judged ends i + 1 moves' time in.
            (None, Some(t)) => Budget::time_from(start, t.saturating_mul(i as u32 + 1)),
            (None, None) => Budget::UNLIMITED,
        };
        if let Some(c) = cap {
            if Instant::now() >= c {
                break;
            }
            budget.deadline = Some(budget.deadline.map_or(c, |d| d.min(c)));
        }
        let pos = game.position_at(k).expect("a ply of the game");
        let played = game.moves()[k].pit;
        out[k] = engine.judge_move(pos, played, budget, &game.history()[..k]);
        done(i + 1);
    }
    out
}

/// A choice of the pie rule ([`pie_choice`]): every move's value and the move chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PieChoice {
    /// Every legal move's value from the mover's view (at North's choice: the swap's and
    /// the best other move's).
    pub values: Vec<MoveValue>,
    /// The move chosen: the best value; between equal values, at South's first move the one
    /// whose position the swap leaves the best for South, at North's choice not the swap.
    pub best: MoveValue,
    /// Positions searched.
    pub nodes: u64,
}

/// The pie rule's choices valued by what the opponent's best reply leaves, swap or not: at
/// South's first move, each move's value is the worse for South of its position played on
/// without a swap and its position after North's swap; at North's choice to swap, the swap's
/// value (the position after it) and the best other move's (the position played on without a
/// swap). Each position is searched on `engine` to one ply less than `budget.depth` (the swap
/// not counted as a ply); against the clock, all of them one depth at a time, the last depth
/// completed for all giving the values. Values are from the
/// mover's view, of the worse quality of the two they come from. `None` where `pos` holds no
/// such choice (no pie rule, or its choice is past), or the game is over.
pub fn pie_choice(
    engine: &Engine,
    pos: &Position,
    history: &[Position],
    budget: Budget,
) -> Option<PieChoice> {
    if !pos.rules().pie || pos.is_over() || pos.setup().opening == mancala_core::Opening::None {
        return None;
    }
    let max = budget.depth.map(|d| d.saturating_sub(1).max(1));
    if budget.deadline.is_none() {
        return pie_at(engine, pos, history, budget, max).map(|(c, _)| c);
    }
    // Against the clock, every position one depth at a time, so that the values compared
    // are all of one depth: the last depth completed for all of them gives the choice.
    let mut chosen: Option<PieChoice> = None;
    let mut nodes = 0;
    for depth in 1..=max.unwrap_or(64) {
        let Some((mut c, complete)) = pie_at(engine, pos, history, budget, Some(depth)) else {
            break;
        };
        nodes += c.nodes;
        c.nodes = nodes;
        let proven = c.values.iter().all(|v| v.eval.is_proven());
        if complete || chosen.is_none() {
            chosen = Some(c);
        } else if let Some(k) = chosen.as_mut() {
            k.nodes = nodes;
        }
        if !complete || proven || budget.expired() {
            break;
        }
    }
    chosen
}

/// [`pie_choice`] with every position searched to `depth` (`None`: `budget`'s own limits),
/// and whether every search completed it.
fn pie_at(
    engine: &Engine,
    pos: &Position,
    history: &[Position],
    budget: Budget,
    depth: Option<u32>,
) -> Option<(PieChoice, bool)> {
    use mancala_core::{Opening, SWAP};
    use std::cmp::Reverse;
    let opening = pos.setup().opening;
    let me = pos.to_move();
    let mut line = history.to_vec();
    line.push(*pos);
    let nodes = std::cell::Cell::new(0u64);
    let complete = std::cell::Cell::new(true);
    let search = |p: &Position, hist: &[Position]| -> Option<SearchResult> {
        let r = engine.search(p, Budget { depth, ..budget }, hist)?;
        nodes.set(nodes.get() + r.nodes);
        let done = r.eval.is_proven() || depth.is_none_or(|d| r.depth >= d);
        complete.set(complete.get() && done && !budget.expired());
        Some(r)
    };
    let value = |p: &Position, hist: &[Position]| -> Option<Evaluation> {
        if p.is_over() {
            return Some(Evaluation::final_margin(p, me));
        }
        // A move's value: one ply deeper than its position's.
        let mut e = search(p, hist)?.eval.seen_by(me);
        if let Quality::Searched { depth } = e.quality {
            e.quality = Quality::Searched { depth: depth + 1 };
        }
        Some(e)
    };
    // The position after a swap, and the same position played on without one.
    let split = |after: &Position| -> Option<(Position, Position)> {
        let mut swapped = *after;
        swapped.play(SWAP).ok()?;
        let mut setup = after.setup();
        setup.opening = Opening::None;
        let plain = Position::from_setup(after.rules(), &setup).ok()?;
        Some((swapped, plain))
    };
    match opening {
        Opening::Swap => {
            let (swapped, plain) = split(pos)?;
            let swap = value(&swapped, &line)?;
            // The position without a swap stands in for `pos`: the same history.
            let r = search(&plain, history)?;
            let plain = MoveValue {
                pit: r.best,
                eval: r.eval.seen_by(me),
            };
            let swap = MoveValue {
                pit: SWAP,
                eval: swap,
            };
            // Between equal values, no swap.
            let best = if swap.eval.score() > plain.eval.score() {
                swap
            } else {
                plain
            };
            let c = PieChoice {
                values: vec![swap, plain],
                best,
                nodes: nodes.get(),
            };
            Some((c, complete.get()))
        }
        Opening::FirstMove | Opening::FirstTurn => {
            let legal = pos.legal_moves();
            let mut out = Vec::new();
            // South's value after the swap, or the move's own where none follows: between
            // equal values, the higher is chosen.
            let mut keys = Vec::new();
            for &m in legal.as_slice() {
                let mut after = *pos;
                after.play(m).ok()?;
                let eval = if !after.is_over() && after.setup().opening == Opening::Swap {
                    let (swapped, plain) = split(&after)?;
                    let mut hist = line.clone();
                    hist.push(after);
                    let a = value(&swapped, &hist)?;
                    let b = value(&plain, &line)?;
                    keys.push(a.score());
                    worse(a, b)
                } else {
                    // The first turn goes on (or the game is over): the search plays the
                    // swap where it comes.
                    let v = value(&after, &line)?;
                    keys.push(v.score());
                    v
                };
                out.push(MoveValue { pit: m, eval });
            }
            let k = (0..out.len()).max_by_key(|&k| (out[k].eval.score(), keys[k], Reverse(k)))?;
            let c = PieChoice {
                best: out[k],
                values: out,
                nodes: nodes.get(),
            };
            Some((c, complete.get()))
        }
        Opening::None => None,
    }
}

/// The worse of two values of one side, of the worse quality of the two.
fn worse(a: Evaluation, b: Evaluation) -> Evaluation {
    let quality = match (a.quality, b.quality) {
        (Quality::Proven, q) | (q, Quality::Proven) => q,
        (Quality::Searched { depth: x }, Quality::Searched { depth: y }) => {
            Quality::Searched { depth: x.min(y) }
        }
    };
    let w = if a.score() <= b.score() { a } else { b };
    Evaluation { quality, ..w }
}
