//! The truth harness: every path of the program that reports a move or a value is compared
//! with the proof (`Engine::solve` of the position and of every move), on random positions of
//! every preset and option set small enough to prove, and on every move of random games.
//!
//! The rule it checks: a value called proven equals the proof; a best move called proven is one
//! of the proven best moves; a level that searched the position to a proof plays such a move;
//! an endgame table agrees with the proof. Search values at a depth are not checked for their
//! number (they are estimates), only that they are never called proven when they are not.
//!
//! `cargo test -p mancala-cli --test truth` runs the CI size; `-- --ignored` the long one.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use mancala_core::{Game, Position, Rules, Side};
use mancala_egdb::Oracle as _;
use mancala_engine::{Engine, Evaluation, Level, Limits, MoveValue, Quality};

/// The proof of a position: its value for the side to move and every move's.
struct Proof {
    value: Evaluation,
    moves: Vec<MoveValue>,
}

impl Proof {
    fn best_moves(&self) -> Vec<u8> {
        self.moves
            .iter()
            .filter(|m| m.eval.score() == self.value.score())
            .map(|m| m.pit)
            .collect()
    }
    fn of(&self, pit: u8) -> Evaluation {
        self.moves.iter().find(|m| m.pit == pit).unwrap().eval
    }
}

/// Whether the proofs cover `pos` and each of its moves after `history`: in games whose
/// positions repeat, only where no position has occurred twice, before or after the move.
fn provable(pos: &Position, history: &[Position]) -> bool {
    if !pos.rules().can_repeat() {
        return true;
    }
    if pos.rules().repeat_ends_at() == Some(2) {
        // A second occurrence ends the game: proven under `repetition=split` only.
        return pos.rules().repetition == mancala_core::Repetition::Split;
    }
    let mut line = history.to_vec();
    line.push(*pos);
    let twice = |l: &[Position]| l.iter().enumerate().any(|(i, p)| l[..i].contains(p));
    !twice(&line)
        && pos.legal_moves().as_slice().iter().all(|&mv| {
            let mut c = *pos;
            c.play(mv).unwrap();
            c.is_over() || !line.contains(&c)
        })
}

/// Proves `pos` and each of its moves on a fresh engine (the reference every path is held to).
fn prove(pos: &Position, history: &[Position]) -> Proof {
    let engine = Engine::new(16, 1);
    let value = engine
        .solve(pos, Limits::default(), history)
        .expect("a position in play")
        .eval;
    let moves = engine.analyze_moves(pos, Limits::default(), history);
    assert!(
        moves.iter().all(|m| m.eval.is_proven()),
        "{pos} after {}: {moves:?}",
        history
            .iter()
            .map(|h| h.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let proof = Proof { value, moves };
    let best = MoveValue::best(&proof.moves).unwrap();
    assert_eq!(
        best.eval.score(),
        value.score(),
        "{pos}: the best move's proof and the position's disagree"
    );
    proof
}

#[derive(Default)]
struct Tally {
    positions: usize,
    /// Positions of repetition games that no proof covers (see [`provable`]).
    skipped: usize,
    paths: usize,
    faults: Vec<String>,
}

impl Tally {
    /// One claim of a path: `eval` (from the side to move's view) and `best` where it gave a
    /// move, held to the proof when the claim says proven.
    fn check(&mut self, what: &str, pos: &Position, proof: &Proof, eval: Evaluation, best: u8) {
        self.paths += 1;
        if eval.side != pos.to_move() {
            self.faults
                .push(format!("{what} {pos}: value from {:?}'s view", eval.side));
        }
        if eval.lower_is_better != pos.rules().misere() {
            self.faults
                .push(format!("{what} {pos}: lower_is_better is wrong"));
        }
        if !pos.legal_moves().contains(best) {
            self.faults
                .push(format!("{what} {pos}: illegal best move {best}"));
        }
        if eval.is_proven() {
            if eval.margin != proof.value.margin {
                self.faults.push(format!(
                    "{what} {pos}: proven {:+}, the proof says {:+}",
                    eval.margin, proof.value.margin
                ));
            }
            if !proof.best_moves().contains(&best) {
                self.faults.push(format!(
                    "{what} {pos}: best move {best} is proven {:+}, the position {:+}",
                    proof.of(best).margin,
                    proof.value.margin
                ));
            }
        }
    }

    /// A claimed value of one move.
    fn check_move(&mut self, what: &str, pos: &Position, proof: &Proof, m: &MoveValue) {
        self.paths += 1;
        let want = proof.of(m.pit);
        if m.eval.side != pos.to_move() || m.eval.lower_is_better != pos.rules().misere() {
            self.faults
                .push(format!("{what} {pos}: move {} oriented wrongly", m.pit));
        }
        if m.eval.is_proven() && m.eval.margin != want.margin {
            self.faults.push(format!(
                "{what} {pos}: move {} proven {:+}, the proof says {:+}",
                m.pit, m.eval.margin, want.margin
            ));
        }
    }
}

/// What one rule set is checked on.
struct Case {
    rules: &'static str,
    /// Positions with at most this many seeds on the board (small enough to prove quickly).
    max_board: u32,
    /// Random games to draw positions from.
    games: usize,
    /// Endgame tables to this many seeds, for the rules the tables take.
    tables: u32,
}

fn cases(scale: usize) -> Vec<Case> {
    let c = |rules, max_board, games, tables| Case {
        rules,
        max_board,
        games: games * scale,
        tables,
    };
    vec![
        c("kalah", 16, 8, 10),
        c("kalah,seeds=4", 16, 5, 10),
        c("kalah,pits=4,seeds=3", 24, 6, 8),
        c("kalah,capture=empty", 16, 4, 10),
        c("kalah,capture=opposite-only", 16, 4, 10),
        c("kalah,end=mover-empty", 16, 4, 10),
        c("kalah,leftovers=not-counted", 16, 4, 10),
        c("kalah,leftovers=last-mover", 16, 4, 0),
        c("kalah,leftovers=last-capturer", 16, 4, 0),
        c("kalah,stop-when-decided", 16, 4, 0),
        c("kalah-brazil", 16, 4, 10),
        c("kalah-brazil,stage=basic", 10, 2, 0),
        c("kalah-brazil,stage=extra-turn", 10, 2, 0),
        c("vaccean", 20, 6, 10),
        c("cross-kalah,pits=3,seeds=2", 12, 6, 0),
        c("cross-kalah,pits=4,seeds=2", 12, 4, 0),
        c("kauri,pits=2,seeds=2", 8, 6, 0),
        c("oware,pits=2,seeds=3,repetition=split", 8, 6, 0),
        c(
            "oware,pits=2,seeds=3,repetition=split,decided-leftovers=to-owner",
            8,
            6,
            0,
        ),
        c(
            "oware,pits=3,seeds=2,repetition=split,grand-slam=forbidden",
            8,
            6,
            0,
        ),
        c("dracala", 14, 6, 0),
        c("dracala,pits=4,seeds=3", 24, 4, 0),
    ]
}

/// Larger Kauri boards: each proof takes about a second. (The 6-pit game is beyond the
/// retrograde solver even with 6 seeds left on the board.)
fn kauri_cases(scale: usize) -> Vec<Case> {
    vec![
        Case {
            rules: "kauri,pits=3,seeds=2",
            max_board: 12,
            games: 3 * scale,
            tables: 0,
        },
        Case {
            rules: "kauri,pits=3,seeds=3",
            max_board: 16,
            games: 8 * scale,
            tables: 0,
        },
    ]
}

/// A random game of `rules` from seed `seed`, played to its end.
fn random_game(rules: &Rules, seed: u64) -> Game {
    let mut g = Game::from_rules(rules).unwrap();
    let mut rng = mancala_play::Rng::new(seed);
    while !g.is_over() && g.moves().len() < 400 {
        let legal = g.legal_moves();
        g.play(rng.pick(legal.as_slice())).unwrap();
    }
    g
}

fn tables(rules: &Rules, max: u32, dir: &std::path::Path) -> Option<Arc<mancala_egdb::Egdb>> {
    let &k = Position::start(rules).ok()?.as_kalah()?;
    let tr = mancala_egdb::TableRules::new(k.rules()).ok()?;
    let opts = mancala_egdb::build::BuildOptions {
        dir: dir.to_path_buf(),
        max_seeds: max,
        progress: false,
        memory_limit: None,
    };
    mancala_egdb::build::build(tr, &opts).ok()?;
    Some(Arc::new(mancala_egdb::Egdb::open(dir).ok()?))
}

fn run(cases: Vec<Case>) {
    let mut report = Vec::new();
    let mut faults = Vec::new();
    // `TRUTH_ONLY=RULES` checks one rule set.
    let only = std::env::var("TRUTH_ONLY").ok();
    for case in cases {
        if only.as_deref().is_some_and(|o| o != case.rules) {
            continue;
        }
        let t0 = std::time::Instant::now();
        let rules: Rules = case.rules.parse().unwrap();
        let dir = std::env::temp_dir().join(format!(
            "mancala-truth-{}-{}",
            std::process::id(),
            case.rules
        ));
        let db = (case.tables > 0)
            .then(|| tables(&rules, case.tables, &dir))
            .flatten();
        let mut t = Tally::default();
        // One engine for every timed search of the rule set: what one search leaves in the
        // table must never make a later one wrong.
        let reused = Engine::new(8, 1);
        let mut with_tables = Engine::new(8, 1);
        with_tables.oracle = db
            .clone()
            .map(|d| d as Arc<dyn mancala_engine::Oracle + Send>);
        let mut proofs: HashMap<(Position, usize), Proof> = HashMap::new();
        for g in 0..case.games {
            let game = random_game(&rules, 1000 * g as u64 + 7);
            for k in 0..game.moves().len() {
                let pos = *game.position_at(k).unwrap();
                if pos.board_seeds() > case.max_board {
                    continue;
                }
                let history = &game.history()[..k];
                if !provable(&pos, history) {
                    // Where a position has occurred twice (or a move would make one), the
                    // rule's value depends on the line and nothing proves it: nothing may say
                    // proven either.
                    t.skipped += 1;
                    let r = reused.search(&pos, timed(30), history).unwrap();
                    let h = reused
                        .hint(&pos, Duration::from_millis(30), timed(30), history)
                        .unwrap();
                    // The position itself may still be proven (a move leads to a position
                    // met before): then a proven claim must agree with that proof.
                    let proof = Engine::new(16, 1)
                        .solve(&pos, Limits::default(), history)
                        .map(|p| p.eval);
                    for (what, e) in [("search", r.eval), ("hint", h.eval)] {
                        t.paths += 1;
                        if e.is_proven() && proof.is_none_or(|p| p.margin != e.margin) {
                            t.faults.push(format!(
                                "{what} {pos}: proven {:+}, the proof: {proof:?}",
                                e.margin
                            ));
                        }
                    }
                    continue;
                }
                let key = (pos, if rules.can_repeat() { k } else { 0 });
                let proof = proofs.entry(key).or_insert_with(|| prove(&pos, history));
                t.positions += 1;
                check_position(&mut t, &pos, history, proof, &reused, &with_tables, &db);
                let played = game.moves()[k].pit;
                let j = reused.judge_move(&pos, played, timed(30), history).unwrap();
                t.check_move("judge_move played", &pos, proof, &j.played);
                t.check("judge_move best", &pos, proof, j.best.eval, j.best.pit);
                if j.played.eval.is_proven() && j.best.eval.is_proven() {
                    t.paths += 1;
                    let want = proof.value.score() - proof.of(played).score();
                    if j.loss != Some(want) {
                        t.faults.push(format!(
                            "judge_move {pos}: loss {:?} of move {played}, the proof says {want}",
                            j.loss
                        ));
                    }
                }
            }
            // The server's replay analysis of the whole game, as the client reads it. Its
            // moves are judged from the last to the first, so two seconds cover every position
            // small enough to check here (a small game's earlier ones are proven whole too,
            // when the time allows).
            let values = serde_json::to_value(mancala_server::view::analysis(
                &game,
                Duration::from_millis(20),
                Duration::from_secs(2),
            ))
            .unwrap();
            for (k, v) in values.as_array().unwrap().iter().enumerate() {
                let pos = *game.position_at(k).unwrap();
                if pos.board_seeds() > case.max_board
                    || v["played"].is_null()
                    || !provable(&pos, &game.history()[..k])
                {
                    continue;
                }
                let key = (pos, if rules.can_repeat() { k } else { 0 });
                let proof = proofs
                    .entry(key)
                    .or_insert_with(|| prove(&pos, &game.history()[..k]));
                for (field, want) in [
                    ("played", proof.of(game.moves()[k].pit)),
                    ("best", proof.value),
                ] {
                    t.paths += 1;
                    let e = &v[field];
                    let side = if pos.to_move() == Side::South {
                        "south"
                    } else {
                        "north"
                    };
                    if e["side"] != side {
                        t.faults.push(format!(
                            "server analysis {pos}: {field} from the wrong side"
                        ));
                    }
                    if e["proven"] == true && e["margin"] != want.margin {
                        t.faults.push(format!(
                            "server analysis {pos}: {field} proven {}, the proof says {:+}",
                            e["margin"], want.margin
                        ));
                    }
                }
            }
        }
        std::fs::remove_dir_all(&dir).ok();
        report.push(format!(
            "{:<32} {:>6} positions ({} not provable) {:>7} paths {:>3} disagreements  {:.1} s",
            case.rules,
            t.positions,
            t.skipped,
            t.paths,
            t.faults.len(),
            t0.elapsed().as_secs_f64()
        ));
        eprintln!("{}", report.last().unwrap());
        faults.extend(t.faults.into_iter().map(|f| format!("{}: {f}", case.rules)));
    }
    println!("{}", report.join("\n"));
    assert!(
        faults.is_empty(),
        "{} disagreements with the proof:\n{}",
        faults.len(),
        faults
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

fn timed(ms: u64) -> Limits {
    Limits {
        time: Some(Duration::from_millis(ms)),
        ..Limits::default()
    }
}

/// Every path that values the position as a whole.
fn check_position(
    t: &mut Tally,
    pos: &Position,
    history: &[Position],
    proof: &Proof,
    reused: &Engine,
    with_tables: &Engine,
    db: &Option<Arc<mancala_egdb::Egdb>>,
) {
    // A search need not prove a position, but what it calls proven must be. A fresh engine
    // with a table too small to keep much (1 MiB) shows what a search alone gives.
    let r = Engine::new(1, 1).search(pos, timed(30), history).unwrap();
    t.check(
        "search for 30 ms on a small table",
        pos,
        proof,
        r.eval,
        r.best,
    );
    for depth in [1, 4, 9] {
        let lim = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let r = reused.search(pos, lim, history).unwrap();
        t.check(
            &format!("search to depth {depth}"),
            pos,
            proof,
            r.eval,
            r.best,
        );
        if r.eval.quality == (Quality::Searched { depth: 0 }) {
            t.faults.push(format!("search {pos}: depth 0"));
        }
    }
    let r = reused.search(pos, timed(20), history).unwrap();
    t.check("search for 20 ms", pos, proof, r.eval, r.best);
    let r = with_tables.search(pos, timed(20), history).unwrap();
    t.check("search with tables", pos, proof, r.eval, r.best);
    let lim = Limits {
        depth: Some(30),
        ..Limits::default()
    };
    let r = with_tables.search(pos, lim, history).unwrap();
    t.check("search to depth 30 with tables", pos, proof, r.eval, r.best);
    let s = with_tables.solve(pos, Limits::default(), history).unwrap();
    t.check("solve with tables", pos, proof, s.eval, s.best);
    let h = reused
        .hint(pos, Duration::from_millis(50), timed(20), history)
        .unwrap();
    t.check("hint", pos, proof, h.eval, h.best);
    for m in reused.analyze_moves(pos, timed(40), history) {
        t.check_move("analyze_moves", pos, proof, &m);
    }
    for m in reused.analyze_moves(
        pos,
        Limits {
            depth: Some(5),
            ..Limits::default()
        },
        history,
    ) {
        t.check_move("analyze_moves to depth 5", pos, proof, &m);
    }
    for level in 5..=8 {
        let mut lv = Level::new(level).unwrap();
        if lv.time.is_some() {
            lv.time = Some(Duration::from_millis(20));
        }
        for engine in [reused, with_tables] {
            let Some(d) = lv.decide_with(engine, pos, history, 1) else {
                continue;
            };
            t.paths += 1;
            if let Some(e) = d.eval {
                t.check(&format!("level {level}"), pos, proof, e, d.pit);
            }
        }
    }
    if let (Some(db), Some(k)) = (db, pos.as_kalah()) {
        if let Some(net) = db.net(k) {
            t.paths += 1;
            let me = pos.to_move();
            let margin = k.store(me) as i32 - k.store(me.other()) as i32 + net;
            if margin != proof.value.margin {
                t.faults.push(format!(
                    "egdb {pos}: {margin:+}, the proof says {:+}",
                    proof.value.margin
                ));
            }
            if let Some((mv, _)) = db.best_move(k) {
                t.paths += 1;
                if !proof.best_moves().contains(&mv) {
                    t.faults
                        .push(format!("egdb best move {pos}: {mv} is not best"));
                }
            }
        }
    }
}

#[test]
fn every_reported_value_agrees_with_the_proof() {
    run(cases(1));
}

#[test]
#[ignore = "a few minutes: ten times the positions"]
fn every_reported_value_agrees_with_the_proof_at_length() {
    run(cases(10));
}

/// Kauri on larger boards (the CI run has `kauri,pits=2,seeds=2`). It once failed at
/// `kauri,pits=3,seeds=2/1-5c1-1/0/5c2-0c2-0c1/0/s`: the position's proof and its only move's
/// disagreed, from the search's shared table across lines and a key collision.
#[test]
#[ignore = "a few minutes"]
fn kauri_values_agree_with_the_proof() {
    run(kauri_cases(1));
}
