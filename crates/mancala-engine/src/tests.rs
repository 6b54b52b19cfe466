//! Engine tests: a separate brute-force solver written here, independently of the search.

use std::collections::HashMap;

use mancala_core::{Game, Position, Rules};

use super::*;

/// A small multiplicative hasher for the memo (std's SipHash is slow for millions of keys).
#[derive(Default)]
struct Fx(u64);
impl std::hash::Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
}
type Memo = HashMap<Position, i32, std::hash::BuildHasherDefault<Fx>>;

/// Exact final margin (misère: negated) for the side to move by plain minimax, memoised.
/// Games that can repeat (Cross-Kalah) go through `Game`, which applies the repetition rule,
/// unmemoised.
fn brute(game: &mut Game, memo: &mut Memo) -> i32 {
    if game.rules().can_repeat() {
        return brute_repeat(game);
    }
    brute_pos(game.position(), memo)
}

fn final_value(p: &Position, me: mancala_core::Side) -> i32 {
    let s = p.scores();
    let sign = if p.rules().misere() { -1 } else { 1 };
    let bonus = with_family!(p, k => k.terminal_bonus(me));
    sign * (s[me.index()] as i32 - s[me.other().index()] as i32) + bonus
}

fn brute_pos(pos: &Position, memo: &mut Memo) -> i32 {
    if let Some(&v) = memo.get(pos) {
        return v;
    }
    let me = pos.to_move();
    let mut best = i32::MIN;
    for mv in pos.legal_moves().as_slice() {
        let mut c = *pos;
        c.play(*mv).unwrap();
        let v = if c.is_over() {
            final_value(&c, me)
        } else if c.to_move() == me {
            brute_pos(&c, memo)
        } else {
            -brute_pos(&c, memo)
        };
        best = best.max(v);
    }
    memo.insert(*pos, best);
    best
}

/// The repetition rule searched as it is played, every line apart: memoised by the position
/// and the occurrences met since the stores last changed (earlier positions cannot occur
/// again), on which alone the rest of the game depends.
fn brute_repeat(game: &mut Game) -> i32 {
    let mut line = game.history().to_vec();
    line.push(*game.position());
    brute_line(game.position(), &mut line, &mut HashMap::new())
}

fn brute_line(
    pos: &Position,
    line: &mut Vec<Position>,
    memo: &mut HashMap<(Position, u64), i32>,
) -> i32 {
    // The occurrences since the stores last changed, as a multiset hash.
    let since = line
        .iter()
        .rev()
        .take_while(|p| p.scores() == pos.scores())
        .fold(0u64, |h, p| {
            use std::hash::{Hash, Hasher};
            let mut s = std::collections::hash_map::DefaultHasher::new();
            p.hash(&mut s);
            h.wrapping_add(mix(s.finish()))
        });
    let key = (*pos, since);
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let me = pos.to_move();
    let mut best = i32::MIN;
    for &mv in pos.legal_moves().as_slice() {
        let mut c = *pos;
        c.play(mv).unwrap();
        let v = if c.is_over() {
            final_value(&c, me)
        } else if line.iter().filter(|&&p| p == c).count() + 1
            >= c.rules().repeat_ends_at().unwrap()
        {
            // The occurrence that ends the game: a draw, or the seeds left shared.
            let s = c.repetition_scores().unwrap_or([0, 0]);
            s[me.index()] as i32 - s[me.other().index()] as i32
        } else {
            line.push(c);
            let v = brute_line(&c, line, memo);
            line.pop();
            if c.to_move() == me {
                v
            } else {
                -v
            }
        };
        best = best.max(v);
    }
    memo.insert(key, best);
    best
}

/// The solver's value (final margin for the side to move, misère negated) and best move.
fn solve_value(pos: &Position, threads: usize) -> (i32, u8) {
    let r = Engine::new(1, threads)
        .solve(pos, Limits::default(), &[])
        .unwrap();
    (r.eval.score(), r.best)
}

/// The brute-force value for the mover of `pos` after playing `mv`.
fn value_after(pos: &Position, mv: u8, memo: &mut Memo) -> i32 {
    let mut g = Game::new(*pos);
    g.play(mv).unwrap();
    if g.ended_by_repetition() {
        let me = pos.to_move();
        let s = g.position().repetition_scores().unwrap_or([0, 0]);
        s[me.index()] as i32 - s[me.other().index()] as i32
    } else if g.is_over() {
        final_value(g.position(), pos.to_move())
    } else if g.to_move() == pos.to_move() {
        brute(&mut g, memo)
    } else {
        -brute(&mut g, memo)
    }
}

/// A few positions reached by seeded random play from the start.
fn positions(rules: &Rules, n: usize) -> Vec<Position> {
    let mut out = vec![Position::start(rules).unwrap()];
    let mut x = 0x1234_5678_9abc_def1u64;
    for _ in 0..n {
        let mut p = Position::start(rules).unwrap();
        let plies = (mix(x) % 8) as usize;
        for _ in 0..plies {
            x = mix(x);
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            p.play(moves.as_slice()[(x % moves.len() as u64) as usize])
                .unwrap();
        }
        x = mix(x);
        if !p.is_over() {
            out.push(p);
        }
    }
    out
}

#[test]
fn solver_and_search_agree_with_brute_force_on_small_boards() {
    agree_with_brute_force(small_variants());
}

/// The largest board of the check: 5 million positions for the brute force (about 15 s).
#[test]
#[ignore = "about 15 s"]
fn solver_and_search_agree_with_brute_force_on_4_pits_3_seeds() {
    agree_with_brute_force(vec![
        "kalah,pits=4,seeds=3".into(),
        "dracala,pits=4,seeds=3".into(),
    ]);
}

fn small_variants() -> Vec<String> {
    let mut variants = Vec::new();
    for base in ["kalah", "vaccean", "dracala", "kalah-brazil"] {
        for (pits, seeds) in [(3, 2), (3, 3), (4, 2)] {
            variants.push(format!("{base},pits={pits},seeds={seeds}"));
        }
    }
    for opt in [
        "capture=empty",
        "capture=opposite-only",
        "end=mover-empty",
        "leftovers=not-counted",
        "leftovers=last-mover",
        "leftovers=last-capturer",
        "stop-when-decided",
    ] {
        variants.push(format!("kalah,pits=4,seeds=2,{opt}"));
        variants.push(format!("kalah,pits=3,seeds=3,{opt}"));
    }
    // The opening rules: the swap is a move of the search, the first move's turn passes.
    variants.push("kalah,pits=4,seeds=2,pie".into());
    variants.push("kalah,pits=3,seeds=3,first-move-extra-turn=false,pie".into());
    variants.push("kalah,pits=4,seeds=2,first-move-extra-turn=false".into());
    variants.push("vaccean,pits=3,seeds=2,pie".into());
    variants.push("kalah-brazil,pits=4,seeds=2,stage=basic".into());
    variants.push("kalah-brazil,pits=4,seeds=2,stage=extra-turn".into());
    variants.push("cross-kalah,pits=2,seeds=2".into());
    variants.push("cross-kalah,pits=3,seeds=1".into());
    variants.push("kauri,pits=2,seeds=1".into());
    variants.push("kauri,pits=2,seeds=2".into());
    // Oware under the shared-seeds repetition rule, which the retrograde solver proves.
    for v in [
        "pits=2,seeds=2,grand-slam=capture-all",
        "pits=2,seeds=2,grand-slam=forbidden",
        "pits=2,seeds=1",
        "pits=1,seeds=3",
    ] {
        variants.push(format!("oware,{v},repetition=split"));
    }
    variants
}

/// Under `repetition=own-row` a repetition's value is not the same across a store level, so
/// the retrograde solver proves nothing there; searches never claim a proof.
#[test]
fn oware_own_row_is_not_proven() {
    let pos = Position::start(&"oware,pits=2,seeds=2".parse().unwrap()).unwrap();
    assert!(Engine::new(1, 1)
        .solve(&pos, Limits::default(), &[])
        .is_none());
    let r = search(
        &pos,
        Limits {
            depth: Some(30),
            ..Limits::default()
        },
        &[],
    )
    .unwrap();
    assert!(!r.eval.is_proven());
}

/// Boards of 9 to 12 pits, whose rows do not fit one 64-bit word: positions played out by
/// seeded random moves until at most 7 seeds remain on the board, and positions whose seeds
/// lie only in the high pits.
#[test]
fn solver_and_search_agree_with_brute_force_on_wide_boards() {
    for v in [
        "kalah,pits=12,seeds=1",
        "kalah,pits=10,seeds=2,capture=empty",
        "kalah,pits=9,seeds=1,pie",
        "vaccean,pits=11,seeds=1,leftovers=last-capturer",
        // More seeds than bytes hold (`u16` counts): KGP's Kalah(12,12).
        "kalah,pits=12,seeds=12",
        "kalah-brazil,pits=11,seeds=20,capture=empty",
    ] {
        let rules: Rules = v.parse().unwrap();
        let mut found = Vec::new();
        let mut x = 0x0bad_cafe_u64;
        while found.len() < 4 {
            let mut p = Position::start(&rules).unwrap();
            while !p.is_over() && p.board_seeds() > 7 {
                x = mix(x);
                let moves = p.legal_moves();
                p.play(moves.as_slice()[(x % moves.len() as u64) as usize])
                    .unwrap();
            }
            if !p.is_over() {
                found.push(p);
            }
        }
        agree_on(v, &found);
    }
    for text in [
        // Seeds only in pits 10-12 of each row.
        "kalah,pits=12,seeds=1/0-0-0-0-0-0-0-0-0-1-0-2/10/0-0-0-0-0-0-0-0-0-0-3-0/8/s",
        "kalah,pits=12,seeds=1/0-0-0-0-0-0-0-0-0-0-0-1/11/0-0-0-0-0-0-0-0-0-2-0-1/9/n",
        "kalah,pits=10,seeds=1/0-0-0-0-0-0-0-0-2-1/7/0-0-0-0-0-0-0-0-0-1/9/s",
        // Stores past 255 seeds.
        "kalah,pits=12,seeds=12/0-0-0-0-0-0-0-0-0-0-2-1/270/0-0-0-0-0-0-0-0-1-0-3-0/11/s",
        "kalah,pits=12,seeds=12,stop-when-decided/0-0-1-0-0-0-0-0-0-0-2-1/140/0-0-0-0-0-0-1-0-1-0-3-0/139/n",
    ] {
        let pos: Position = text.parse().unwrap();
        assert!(!pos.legal_moves().is_empty(), "{text}");
        agree_on(text, &[pos]);
    }
}

fn agree_with_brute_force(variants: Vec<String>) {
    for v in &variants {
        agree_on(v, &positions(&v.parse().unwrap(), 6));
    }
}

/// The solver (one and two threads), threshold proofs and a deep search all give each of
/// `positions` its brute-force value and a best move that achieves it.
fn agree_on(v: &str, positions: &[Position]) {
    let mut memo = Memo::default();
    {
        for &pos in positions {
            let rules = *pos.rules();
            let mut g = Game::new(pos);
            let exact = brute(&mut g, &mut memo);
            for threads in [1, 2] {
                let (value, best) = solve_value(&pos, threads);
                assert_eq!(value, exact, "{v}: solve, {threads} threads {pos}");
                assert_eq!(
                    value_after(&pos, best, &mut memo),
                    exact,
                    "{v}: solve's best move {best} of {pos}"
                );
                if threads == 2 {
                    threshold_proofs_agree(&pos, threads, v);
                }
            }
            let r = search(
                &pos,
                Limits {
                    depth: Some(200),
                    ..Limits::default()
                },
                &[],
            )
            .unwrap();
            if rules.can_repeat() {
                // Only the retrograde solver proves values where positions repeat.
                assert!(!r.eval.is_proven(), "{v}: search called proven {pos}");
                continue;
            }
            assert!(r.eval.is_proven(), "{v}: a deep search proves small boards");
            assert_eq!(r.eval.score(), exact, "{v}: search {pos}");
            // The best move really achieves the value.
            let after = value_after(&pos, r.best, &mut memo);
            assert_eq!(after, exact, "{v}: best move {} of {pos}", r.best);
        }
    }
}

/// Threshold proofs of `pos` at and around its proven margin, from both sides: each answers
/// as the exact value does, and its bound lies between the threshold and the value.
fn threshold_proofs_agree(pos: &Position, threads: usize, v: &str) {
    let engine = Engine::new(1, threads);
    let value = engine.solve(pos, Limits::default(), &[]).unwrap().eval;
    for side in [pos.to_move(), pos.to_move().other()] {
        let m = value.seen_by(side).margin;
        // Thresholds far past any margin too (a job file may hold any `i32`).
        for k in [
            m - 1,
            m,
            m + 1,
            m + 2,
            i32::MIN,
            i32::MIN + 1,
            -1001,
            1001,
            i32::MAX,
        ] {
            let r = engine
                .prove_at_least(pos, side, k, Limits::default(), &[])
                .unwrap();
            assert_eq!(r.holds, m >= k, "{v}: {pos} {side:?} at least {k}");
            assert_eq!((r.side, r.at_least), (side, k));
            if r.holds {
                assert!(k <= r.bound && r.bound <= m, "{v}: {pos} bound {r:?}");
            } else {
                assert!(m <= r.bound && r.bound < k, "{v}: {pos} bound {r:?}");
            }
        }
    }
}

/// The pie rule's value. After South's first move `m` (no extra turn), North either sows,
/// worth `x_m` to North (the value of that position with no swap pending), or swaps, taking
/// over South's side: worth to North what South's side was worth, `-x_m`. North takes
/// `|x_m|`, so South's value is the best over first moves of `-|x_m|`: South can at best hold
/// the balance, and the swap never loses for North.
#[test]
fn the_pie_value_is_the_first_move_that_leaves_the_least_to_choose() {
    for v in [
        "kalah,pits=4,seeds=2,first-move-extra-turn=false,pie",
        "kalah,pits=3,seeds=3,first-move-extra-turn=false,pie",
    ] {
        let rules: Rules = v.parse().unwrap();
        let start = Position::start(&rules).unwrap();
        let (pie_value, best) = solve_value(&start, 2);
        let mut values = Vec::new();
        for &m in start.legal_moves().as_slice() {
            let mut after = start;
            after.play(m).unwrap();
            assert_eq!(after.to_move(), mancala_core::Side::North, "{v}");
            assert!(after.legal_moves().contains(mancala_core::SWAP), "{v}");
            // The same board with no swap pending: North to move, valued for North.
            let mut setup = after.setup();
            setup.opening = mancala_core::Opening::None;
            let plain = Position::from_setup(&rules, &setup).unwrap();
            let x = solve_value(&plain, 1).0;
            // With the swap pending North's value is |x|; the swap's alone is -x.
            assert_eq!(solve_value(&after, 1).0, x.abs(), "{v}: after {m}");
            let mut swapped = after;
            swapped.play(mancala_core::SWAP).unwrap();
            assert_eq!(solve_value(&swapped, 1).0, x, "{v}: swap after {m}");
            values.push((m, -x.abs()));
        }
        let want = values.iter().map(|&(_, x)| x).max().unwrap();
        assert_eq!(pie_value, want, "{v}: {values:?}");
        assert!(pie_value <= 0, "{v}: the swap never loses for North");
        assert!(values.contains(&(best, want)), "{v}: best move {best}");
        // The pie rule's choice, searched to the end, gives every first move that value.
        let c = think::pie_choice(&Engine::new(1, 1), &start, &[], Budget::UNLIMITED).unwrap();
        let got: Vec<(u8, i32)> = c.values.iter().map(|x| (x.pit, x.eval.score())).collect();
        assert_eq!(got, values, "{v}");
        assert!(c.values.iter().all(|x| x.eval.is_proven()), "{v}");
        assert_eq!(c.best.eval.score(), want, "{v}");
        // The brute force of the whole game, swap included, agrees.
        assert_eq!(brute_pos(&start, &mut Memo::default()), want, "{v}");
    }
}

#[test]
fn kalah_6_3_is_plus_2() {
    let p = Position::start(&"kalah".parse().unwrap()).unwrap();
    let r = Engine::new(64, 2)
        .solve(&p, Limits::default(), &[])
        .unwrap();
    assert_eq!(r.eval.margin, 2);
    // The perfect line, read from the proof's table, is legal, and where it reaches the end
    // of the game it ends at the value.
    assert_eq!(r.pv[0], r.best);
    let mut q = p;
    for &mv in &r.pv {
        q.play(mv).unwrap();
    }
    assert!(r.pv.len() >= 20, "{:?}", r.pv);
    if q.is_over() {
        let s = q.scores();
        assert_eq!(s[0] as i32 - s[1] as i32, 2);
    }
}

/// With a table too small to keep the proof, the perfect line is searched again where the
/// table lost it, and still plays to the end of the game at the value.
#[test]
fn a_small_table_still_gives_the_whole_perfect_line() {
    let p = Position::start(&"kalah".parse().unwrap()).unwrap();
    let r = Engine::new(1, 2).solve(&p, Limits::default(), &[]).unwrap();
    assert_eq!(r.eval.margin, 2);
    let mut q = p;
    for &mv in &r.pv {
        q.play(mv).unwrap();
    }
    assert!(q.is_over(), "{:?}", r.pv);
    let s = q.scores();
    assert_eq!(s[0] as i32 - s[1] as i32, 2);
}

#[test]
#[ignore = "about ten seconds in release"]
fn kalah_6_4_is_plus_8_and_plus_10_with_empty_capture() {
    for (v, want) in [("kalah,seeds=4", 8), ("kalah,seeds=4,capture=empty", 10)] {
        let p = Position::start(&v.parse().unwrap()).unwrap();
        let r = Engine::new(1024, 2)
            .solve(&p, Limits::default(), &[])
            .unwrap();
        assert_eq!(r.eval.margin, want, "{v}");
    }
}

#[test]
fn every_level_plays_a_legal_move_everywhere() {
    for preset in mancala_core::Preset::ALL {
        let rules = preset.rules();
        for pos in positions(&rules, 4) {
            for level in [1, 2, 5] {
                let mv = Level::new(level).unwrap().choose(&pos, &[], 7).unwrap();
                assert!(
                    pos.legal_moves().contains(mv),
                    "{preset} level {level} at {pos}"
                );
            }
        }
    }
}

#[test]
fn search_respects_its_time_limit() {
    let p = Position::start(&"kalah,seeds=6".parse().unwrap()).unwrap();
    let t = std::time::Instant::now();
    let r = Engine::new(16, 2)
        .search(
            &p,
            Limits {
                time: Some(Duration::from_millis(200)),
                ..Limits::default()
            },
            &[],
        )
        .unwrap();
    assert!(
        t.elapsed() < Duration::from_millis(1500),
        "{:?}",
        t.elapsed()
    );
    assert!(p.legal_moves().contains(r.best));
}

#[test]
fn takes_a_free_capture() {
    // South pit 1 (1 seed) lands in empty pit 2 facing 9 seeds.
    let p: Position = "kalah,seeds=4/1-0-4-4-4-4/0/4-5-6-0-9-0/7/s"
        .parse()
        .unwrap();
    let r = search(
        &p,
        Limits {
            depth: Some(1),
            ..Limits::default()
        },
        &[],
    )
    .unwrap();
    assert_eq!(r.best, 0);
}

/// The progress reports of a proof bound its value, and the last one (sent when the passes
/// are over) has closed on it: Kalah(6,3) +2, and Dracala +3 (misère: bounds swapped).
#[test]
fn solve_progress_closes_on_the_value() {
    for (variant, value) in [("kalah,seeds=3", 2), ("dracala", 3)] {
        let rules: Rules = variant.parse().unwrap();
        let pos = Position::start(&rules).unwrap();
        let reports = std::sync::Mutex::new(Vec::new());
        let record = |p: &SolveProgress| reports.lock().unwrap().push(p.clone());
        let r = Engine::new(16, 2)
            .solve_with_progress(&pos, Limits::default(), &[], Some(&record))
            .unwrap();
        assert_eq!(r.eval.margin, value, "{variant}");
        let reports = reports.into_inner().unwrap();
        for p in &reports {
            assert!(p.at_least.is_none_or(|lo| lo <= value), "{variant}: {p:?}");
            assert!(p.at_most.is_none_or(|hi| hi >= value), "{variant}: {p:?}");
        }
        let last = reports.last().expect("a final report");
        assert_eq!(
            (last.at_least, last.at_most),
            (Some(value), Some(value)),
            "{variant}"
        );
    }
}

/// A threshold proof reports its progress too: nodes that only grow, and a last report
/// (sent when the pass is over) with the proof's own node count; Kalah(6,3) is +2, so at
/// least +2 holds and at least +3 does not.
#[test]
fn threshold_progress_ends_on_the_proofs_nodes() {
    let pos = Position::start(&"kalah,seeds=3".parse().unwrap()).unwrap();
    for (k, holds) in [(2, true), (3, false)] {
        let reports = std::sync::Mutex::new(Vec::new());
        let record = |p: &SolveProgress| reports.lock().unwrap().push(p.clone());
        let r = Engine::new(16, 2)
            .prove_at_least_with_progress(
                &pos,
                Side::South,
                k,
                Limits::default(),
                &[],
                Some(&record),
            )
            .unwrap();
        assert_eq!(r.holds, holds, "at least {k}");
        let reports = reports.into_inner().unwrap();
        assert!(
            reports.windows(2).all(|w| w[0].nodes <= w[1].nodes),
            "{reports:?}"
        );
        let last = reports.last().expect("a final report");
        assert_eq!(last.nodes, r.nodes, "at least {k}");
        assert!(reports
            .iter()
            .all(|p| p.at_least.is_none() && p.at_most.is_none()));
    }
}

/// A proof given a time limit gives up at it, the best line included (Kauri's had run twice
/// its time reading the line back).
#[test]
fn solve_respects_its_time_limit() {
    let p = Position::start(&"kauri".parse().unwrap()).unwrap();
    let t = std::time::Instant::now();
    let r = Engine::new(16, 2).solve(
        &p,
        Limits {
            time: Some(Duration::from_millis(300)),
            ..Limits::default()
        },
        &[],
    );
    assert!(r.is_none(), "Kauri is not proven in 300 ms");
    assert!(
        t.elapsed() < Duration::from_millis(1500),
        "{:?}",
        t.elapsed()
    );
}

/// A cycle through a position and its mirror is searched to its repetition: under Oware's
/// `own-row` the only line, A a A, repeats and North keeps the four seeds of his row.
#[test]
fn a_search_meets_the_repetition_of_a_mirrored_cycle() {
    let pos: Position = "oware,pits=1,seeds=2/2/0/2/0/s".parse().unwrap();
    for depth in 3..8 {
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let r = Engine::new(1, 1).search(&pos, limits, &[]).unwrap();
        assert_eq!(r.eval.margin, -4, "depth {depth}");
        assert!(!r.eval.is_proven());
    }
    let mut g = Game::new(pos);
    for _ in 0..3 {
        g.play(0).unwrap();
    }
    assert_eq!(g.scores(), [0, 4]);
}

/// Where a second occurrence ends the game, the proof of a position depends on the game so
/// far: the positions at its stores end the game if reached again. Every position of a few
/// seeded Oware games, proven after its history, agrees with the rule searched line by line.
#[test]
fn oware_proofs_after_a_history_agree_with_brute_force() {
    for v in [
        "oware,pits=2,seeds=1,repetition=split",
        "oware,pits=2,seeds=2,repetition=split,grand-slam=capture-all",
        "oware,pits=1,seeds=3,repetition=split",
    ] {
        let rules: Rules = v.parse().unwrap();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut checked = 0;
        for _ in 0..6 {
            let mut game = Game::from_rules(&rules).unwrap();
            while !game.is_over() {
                let exact = brute_repeat(&mut game);
                let r = Engine::new(1, 1)
                    .solve(game.position(), Limits::default(), game.history())
                    .unwrap();
                assert_eq!(r.eval.score(), exact, "{v}: {}", game.position());
                checked += 1;
                x = mix(x);
                let moves = game.legal_moves();
                game.play(moves.as_slice()[(x % moves.len() as u64) as usize])
                    .unwrap();
            }
        }
        assert!(checked > 10, "{v}: {checked}");
    }
}

#[test]
fn tables_for_a_time_are_a_mib_each_32_ms() {
    let ms = std::time::Duration::from_millis;
    assert_eq!(crate::tt_mb_for(ms(0)), 1);
    assert_eq!(crate::tt_mb_for(ms(10)), 1);
    assert_eq!(crate::tt_mb_for(ms(100)), 4);
    assert_eq!(crate::tt_mb_for(ms(1000)), 32);
    assert_eq!(crate::tt_mb_for(ms(100_000)), 64);
}

#[test]
fn progress_reports_each_iteration_and_abort_stops_a_search() {
    let pos = Position::start(&"kalah,seeds=4".parse().unwrap()).unwrap();
    let engine = Engine::new(4, 1);
    let depths = std::sync::Mutex::new(Vec::new());
    let report = |r: &SearchResult| depths.lock().unwrap().push((r.depth, r.best, r.pv[0]));
    let lim = Limits {
        depth: Some(6),
        ..Limits::default()
    };
    let r = engine
        .search_with_progress(&pos, lim, &[], Some(&report))
        .unwrap();
    let depths = depths.into_inner().unwrap();
    assert_eq!(
        depths.iter().map(|d| d.0).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6]
    );
    // The last report is the result, and every line starts with its best move.
    assert_eq!(depths[5].1, r.best);
    assert!(depths.iter().all(|d| d.1 == d.2));
    // Raised before the search: it stops at its first look at the flag, at node 1024 (the
    // node being entered then is counted too), with the depth completed by then, far short
    // of 40.
    engine
        .abort()
        .store(true, std::sync::atomic::Ordering::Relaxed);
    engine.clear();
    let lim = Limits {
        depth: Some(40),
        ..Limits::default()
    };
    let r = engine.search(&pos, lim, &[]).unwrap();
    assert!(
        r.nodes <= 1025 && r.depth < 10,
        "{} nodes, depth {}",
        r.nodes,
        r.depth
    );
    engine
        .abort()
        .store(false, std::sync::atomic::Ordering::Relaxed);
    assert_eq!(
        engine
            .search(
                &pos,
                Limits {
                    depth: Some(3),
                    ..lim
                },
                &[]
            )
            .unwrap()
            .depth,
        3
    );
}

/// The Manchester board: Kalah(7,7), no extra turn on the first move, the pie rule.
const MANCHESTER: &str = "kalah,pits=7,seeds=7,first-move-extra-turn=false,pie";

/// South's values, to the engine's own search at `depth`, after South's first move `m`: with
/// North's swap, and played on without one.
fn after_swap_and_without(engine: &Engine, start: &Position, m: u8, depth: u32) -> (i32, i32) {
    let mut after = *start;
    after.play(m).unwrap();
    let mut swapped = after;
    swapped.play(mancala_core::SWAP).unwrap();
    let mut setup = after.setup();
    setup.opening = mancala_core::Opening::None;
    let plain = Position::from_setup(start.rules(), &setup).unwrap();
    let l = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let south = |p: &Position, h: &[Position]| {
        engine
            .search(p, l, h)
            .unwrap()
            .eval
            .seen_by(Side::South)
            .score()
    };
    (south(&swapped, &[*start, after]), south(&plain, &[*start]))
}

/// Under the pie rule the levels that search to a depth (4 to 6) open with the move whose
/// worse value for South, after North's swap or without one, is the best, and it is one the
/// swap does not punish: South's side is valued no worse after the swap than without it, to
/// the engine's own search (a fresh one) to the 11 plies the levels search the positions after
/// the first move to. There pit 1 is worth -1 to South, every other first move -1 or -2 with
/// the swap punishing it. (Levels 7 and 8 choose by the same values to the depth their clock
/// reaches; at 13 plies the best value is a first move the swap punishes: docs/decisions.md.)
/// And North's level swaps exactly where the swap is worth more to it.
#[test]
fn under_the_pie_rule_no_level_opens_with_a_move_the_swap_punishes() {
    let rules: Rules = MANCHESTER.parse().unwrap();
    let start = Position::start(&rules).unwrap();
    let engine = Engine::new(16, 1);
    let all: Vec<(i32, i32)> = (0..7)
        .map(|k| after_swap_and_without(&Engine::new(16, 1), &start, k, 11))
        .collect();
    let worse = |k: usize| all[k].0.min(all[k].1);
    let best = (0..7).map(worse).max().unwrap();
    for level in 4..=6 {
        let d = Level::new(level)
            .unwrap()
            .decide_with(&engine, &start, &[], 1)
            .unwrap();
        let m = usize::from(d.pit);
        let why =
            format!("level {level} opens with {m}; (after the swap, without) to 11 plies: {all:?}");
        assert_eq!(d.depth, Some(12), "{why}");
        assert_eq!(worse(m), best, "{why}");
        assert!(all[m].0 >= all[m].1, "{why}");
    }
    let level = Level::new(6).unwrap();
    for m in 0..7 {
        let (swap, without) = after_swap_and_without(&engine, &start, m, 9);
        let mut after = start;
        after.play(m).unwrap();
        let reply = level.decide_with(&engine, &after, &[start], 1).unwrap().pit;
        assert_eq!(
            reply == mancala_core::SWAP,
            swap < without,
            "after {m}: South {swap} after the swap, {without} without; North plays {reply}"
        );
    }
}

/// Tables that cover every level to 30 seeds and value nothing: what the proof's share of a
/// move reads.
struct DeepTables;

impl crate::Oracle for DeepTables {
    fn max_seeds(&self) -> u32 {
        30
    }
    fn kalah(&self, _pos: &mancala_core::KalahPos) -> Option<u8> {
        None
    }
    fn tabled_seeds(&self, _rules: &mancala_core::KalahRules) -> u32 {
        31
    }
}

#[test]
fn a_proof_has_the_move_where_deep_tables_make_it_sure() {
    use crate::think::{proof_share, PROOF_NEAR_SHARE};
    let rules: Rules = "kalah,seeds=4".parse().unwrap();
    let mut pos = Position::start(&rules).unwrap();
    let start = pos;
    pos.play(3).unwrap(); // D: a seed in South's store, 47 on the board, North to move
    let mut at46 = pos;
    at46.play(5).unwrap(); // f: a seed in North's store
    assert_eq!(at46.as_kalah().unwrap().board_seeds(), 46);
    let mut deep = Engine::new(1, 1);
    deep.oracle = Some(std::sync::Arc::new(DeepTables));
    // 46 seeds: at most 15 beyond tables to 30 (31 covered), all of the move but a 32nd.
    assert_eq!(proof_share(&deep, &at46), Some(PROOF_NEAR_SHARE));
    // 47 and 48: three quarters.
    assert_eq!(proof_share(&deep, &pos), Some((3, 4)));
    assert_eq!(proof_share(&deep, &start), Some((3, 4)));
    // Without tables a proof is tried first only within 30 seeds, with a quarter of the move.
    let bare = Engine::new(1, 1);
    assert_eq!(proof_share(&bare, &start), None);
    let few: Position = "kalah,seeds=4/0-0-3-4-2-1/12/1-2-0-3-4-5/11/s"
        .parse()
        .unwrap();
    assert_eq!(proof_share(&bare, &few), Some((1, 4)));
}
