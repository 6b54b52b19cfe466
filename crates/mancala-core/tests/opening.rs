//! The opening rules (`first-move-extra-turn=false`, `pie`) against a separate simulator
//! written here: a plain ring of `2m + 2` counts, the swap as the exchange of the two halves.

use mancala_core::perft::{perft, perft_turns};
use mancala_core::{KalahPos, KalahRules, Rules};

/// A Kalah(m,n) position with standard capture, any-row-empty end and leftovers to their
/// owner. `opening`: 1 while South's first move is to come, 2 while South's first turn goes
/// on after an extra turn, 3 while North may swap, 0 after.
#[derive(Clone)]
struct Sim {
    m: usize,
    ring: Vec<u32>,
    south: bool,
    over: bool,
    opening: u8,
    first_extra: bool,
    pie: bool,
}

impl Sim {
    fn new(m: usize, n: u32, first_extra: bool, pie: bool) -> Sim {
        let mut ring = vec![n; 2 * m + 2];
        ring[m] = 0;
        ring[2 * m + 1] = 0;
        Sim {
            m,
            ring,
            south: true,
            over: false,
            opening: 1,
            first_extra,
            pie,
        }
    }

    /// The pits that can be sown, then `None` for the swap.
    fn moves(&self) -> Vec<Option<usize>> {
        if self.over {
            return vec![];
        }
        let base = if self.south { 0 } else { self.m + 1 };
        let mut v: Vec<Option<usize>> = (0..self.m)
            .filter(|&i| self.ring[base + i] > 0)
            .map(Some)
            .collect();
        if self.pie && self.opening == 3 {
            v.push(None);
        }
        v
    }

    fn play(&mut self, mv: Option<usize>) {
        let m = self.m;
        let Some(pit) = mv else {
            // The swap: the halves (row and store) exchange, South to move.
            self.ring.rotate_left(m + 1);
            self.south = true;
            self.opening = 0;
            return;
        };
        let (base, own, opp) = if self.south {
            (0, m, 2 * m + 1)
        } else {
            (m + 1, 2 * m + 1, m)
        };
        let mut idx = base + pit;
        let mut seeds = self.ring[idx];
        self.ring[idx] = 0;
        while seeds > 0 {
            idx = (idx + 1) % (2 * m + 2);
            if idx == opp {
                continue;
            }
            self.ring[idx] += 1;
            seeds -= 1;
        }
        let mine = idx >= base && idx < base + m;
        if mine && self.ring[idx] == 1 && self.ring[2 * m - idx] > 0 {
            self.ring[own] += 1 + self.ring[2 * m - idx];
            self.ring[idx] = 0;
            self.ring[2 * m - idx] = 0;
        }
        let again = idx == own && (self.opening != 1 || self.first_extra);
        if !again {
            self.south = !self.south;
        }
        self.opening = match self.opening {
            1 | 2 if self.pie && again => 2,
            1 | 2 if self.pie => 3,
            _ => 0,
        };
        let empty = |b: usize| self.ring[b..b + m].iter().all(|&x| x == 0);
        if empty(0) || empty(m + 1) {
            self.over = true;
            self.opening = 0;
            for (b, store) in [(0, m), (m + 1, 2 * m + 1)] {
                let s: u32 = self.ring[b..b + m].iter().sum();
                self.ring[b..b + m].fill(0);
                self.ring[store] += s;
            }
        }
    }
}

/// Leaves at `depth` plies, a game that ends earlier counted once (perft's convention).
fn count(p: &Sim, depth: u32) -> u64 {
    if depth == 0 || p.over {
        return 1;
    }
    p.moves()
        .into_iter()
        .map(|mv| {
            let mut c = p.clone();
            c.play(mv);
            count(&c, depth - 1)
        })
        .sum()
}

fn start(rules: &str) -> KalahPos {
    let r: Rules = rules.parse().unwrap();
    KalahPos::<u8>::start(&KalahRules::new(&r).unwrap())
}

/// Kalah(7,7) as the Manchester protocol plays it: the first move earns no extra turn and
/// North may swap. Depth 1: South's 7 pits; depth 2: North's 7 pits and the swap after each.
#[test]
fn perft_of_the_manchester_rules_matches_a_separate_count() {
    let p = start("kalah,pits=7,seeds=7,first-move-extra-turn=false,pie");
    let sim = Sim::new(7, 7, false, true);
    let want = [7, 56, 364, 2_388, 15_653];
    for (d, &n) in (1..).zip(want.iter()) {
        assert_eq!(count(&sim, d), n, "separate count, depth {d}");
        assert_eq!(perft(&p, d), n, "perft, depth {d}");
    }
    // Each option alone, and the plain game, also agree with the separate count.
    for (rules, first_extra, pie) in [
        ("kalah,pits=7,seeds=7", true, false),
        (
            "kalah,pits=7,seeds=7,first-move-extra-turn=false",
            false,
            false,
        ),
        ("kalah,pits=7,seeds=7,pie", true, true),
        ("kalah,pits=4,seeds=3,pie", true, true),
    ] {
        let p = start(rules);
        let m = p.pits();
        let sim = Sim::new(
            m,
            p.pit(mancala_core::Side::South, 0) as u32,
            first_extra,
            pie,
        );
        for d in 1..=5 {
            assert_eq!(perft(&p, d), count(&sim, d), "{rules}, depth {d}");
        }
    }
}

/// The first move earning no extra turn and the swap show in the counts: by turns, the
/// Manchester start has 7 first turns (one move each) where plain Kalah(7,7) has more.
#[test]
fn the_opening_rules_change_the_counts_as_expected() {
    let plain = start("kalah,pits=7,seeds=7");
    let no_extra = start("kalah,pits=7,seeds=7,first-move-extra-turn=false");
    let pie = start("kalah,pits=7,seeds=7,first-move-extra-turn=false,pie");
    // One ply: the same 7 pits. Two plies: pit 1 ends in the store, so plain Kalah replies
    // with South's 6 pits there, the others with North's 7 (6 + 6 x 7 = 48).
    assert_eq!([perft(&plain, 1), perft(&plain, 2)], [7, 48]);
    assert_eq!([perft(&no_extra, 1), perft(&no_extra, 2)], [7, 49]);
    // Each of South's 7 moves is answered by 7 sowings and the swap.
    assert_eq!(perft(&pie, 2), 56);
    assert_eq!(perft_turns(&no_extra, 1), 7);
    assert!(perft_turns(&plain, 1) > 7);
}
