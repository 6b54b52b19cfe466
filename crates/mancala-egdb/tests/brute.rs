//! Every entry of small tables against an independent memoised brute force over
//! `mancala_core::KalahPos::play`; bad files refused; the engine with the oracle.

use mancala_core::{KalahPos, KalahRules, Rules, Side};
use mancala_egdb::{build, BuildOptions, Egdb, Oracle, TableRules};
use std::collections::HashMap;

fn kalah_rules(spec: &str) -> KalahRules {
    let r: Rules = spec.parse().unwrap();
    KalahRules::new(&r).unwrap()
}

/// A live or finished position with `south`/`north` rows, stores empty.
fn pos(r: &KalahRules, south: &[u8], north: &[u8], side: Side) -> Option<KalahPos> {
    let mut r = *r;
    r.total = south.iter().chain(north).map(|&s| u16::from(s)).sum();
    KalahPos::<u8>::from_parts(&r, [south, north], [0, 0], Some(side), None).ok()
}

/// Future net gain of the side to move, by plain recursion with a memo on the rows.
fn brute(p: &KalahPos, memo: &mut HashMap<(Vec<u8>, Vec<u8>), i32>) -> i32 {
    let me = p.to_move();
    let key = (p.row(me).to_vec(), p.row(me.other()).to_vec());
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let mut best = i32::MIN;
    for &mv in p.legal_moves().as_slice() {
        let mut q = *p;
        q.play(mv).unwrap();
        let d = (q.store(me) as i32 - p.store(me) as i32)
            - (q.store(me.other()) as i32 - p.store(me.other()) as i32);
        let v = if q.is_over() {
            d
        } else if q.to_move() == me {
            d + brute(&q, memo)
        } else {
            d - brute(&q, memo)
        };
        best = best.max(v);
    }
    memo.insert(key, best);
    best
}

/// Every distribution of `s` seeds over `k` pits.
fn dists(s: u8, k: usize, cur: &mut Vec<u8>, out: &mut dyn FnMut(&[u8])) {
    if cur.len() == k - 1 {
        cur.push(s);
        out(cur);
        cur.pop();
        return;
    }
    for v in 0..=s {
        cur.push(v);
        dists(s - v, k, cur, out);
        cur.pop();
    }
}

fn check(spec: &str, max: u32) -> usize {
    let kr = kalah_rules(spec);
    let tr = TableRules::new(&kr).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let opts = BuildOptions {
        dir: dir.path().to_path_buf(),
        max_seeds: max,
        progress: false,
        memory_limit: None,
    };
    let rep = build(tr, &opts).unwrap();
    assert_eq!(rep.built.len(), max as usize + 1);
    let db = Egdb::open(dir.path()).unwrap();
    let m = kr.pits as usize;
    let mut memo = HashMap::new();
    let mut n = 0;
    for s in 0..=max as u8 {
        dists(s, 2 * m, &mut Vec::new(), &mut |c| {
            for side in [Side::South, Side::North] {
                let (a, b) = (&c[..m], &c[m..]);
                // The mover's row first: South moves with `a`, North with `a` as his row.
                let p = match side {
                    Side::South => pos(&kr, a, b, side),
                    Side::North => pos(&kr, b, a, side),
                };
                let Some(p) = p else { continue };
                let want = brute(&p, &mut memo);
                assert_eq!(db.net(&p), Some(want), "{spec}: {p:?}");
                // The best moves reach the position's value, and no move exceeds it.
                let best = db.move_values(&p).unwrap().into_iter().map(|v| v.1).max();
                assert_eq!(best, Some(want), "{spec}: {p:?}");
                if tr.counted() {
                    assert_eq!(db.own(&p).map(|o| 2 * o as i32 - s as i32), Some(want));
                }
                n += 1;
            }
        });
    }
    n
}

#[test]
fn four_pits_every_rule_combination_matches_brute_force() {
    let mut total = 0;
    for capture in ["standard", "empty", "opposite-only"] {
        for end in ["any-row-empty", "mover-empty"] {
            for left in ["to-owner", "not-counted", "last-mover"] {
                let spec = format!("kalah,pits=4,capture={capture},end={end},leftovers={left}");
                let max = if left == "to-owner" && end == "any-row-empty" {
                    12
                } else {
                    8
                };
                total += check(&spec, max);
            }
        }
    }
    assert!(total > 100_000, "{total}");
}

#[test]
fn three_pits_vaccean_and_no_capture() {
    check("vaccean", 12);
    check("kalah,pits=3", 12);
    check("kalah-brazil,stage=basic,pits=3", 10);
}
