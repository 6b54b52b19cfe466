//! The opening book: what it holds is what the solver proves, it is read back as written, and
//! a damaged file is refused with the file and the fault.

use mancala_core::{KalahRules, Position, Rules};
use mancala_egdb::{book, build, Book, BuildOptions, Egdb, Proven, TableRules};
use mancala_engine::{Budget, Engine};
use std::path::Path;
use std::sync::Arc;

const VARIANT: &str = "kalah,pits=3,seeds=3";

fn rules() -> (Rules, TableRules) {
    let r: Rules = VARIANT.parse().unwrap();
    let tr = TableRules::new(&KalahRules::new(&r).unwrap()).unwrap();
    (r, tr)
}

/// Tables to 8 seeds and a book of every position with at least 15 seeds on the board
/// (Kalah 3 x 3 holds 18), each proven by the solver with the tables.
fn book_dir(dir: &Path) -> Vec<Position> {
    let (r, tr) = rules();
    let opts = BuildOptions {
        dir: dir.to_path_buf(),
        max_seeds: 8,
        progress: false,
        memory_limit: None,
    };
    build(tr, &opts).unwrap();
    let mut prover = Engine::new(16, 1);
    prover.oracle = Some(Arc::new(Egdb::open(dir).unwrap()));
    let start = Position::start(&r).unwrap();
    // The walk stops, with nothing, past its limit.
    assert!(book::reachable(&start, 15, 46).is_none());
    let positions = book::reachable(&start, 15, 47).unwrap();
    let mut b = Book::new(tr, dir);
    for pos in &positions {
        let k = pos.as_kalah().unwrap();
        let s = prover.solve(pos, Budget::UNLIMITED, &[]).unwrap();
        let me = k.to_move();
        let now = k.store(me) as i32 - k.store(me.other()) as i32;
        let p = Proven {
            net: s.eval.seen_by(me).margin - now,
            best: s.best,
        };
        b.insert(k, p).unwrap();
    }
    b.write().unwrap();
    positions
}

#[test]
fn the_book_holds_every_position_near_the_start_with_the_solvers_value() {
    let dir = tempfile::tempdir().unwrap();
    let positions = book_dir(dir.path());
    // Distinct boards (the mover's row first) of at least 15 seeds reachable from the start,
    // as counted by a walk over the Python package's `Game`.
    assert_eq!(positions.len(), 47);
    let db = Arc::new(Egdb::open(dir.path()).unwrap());
    let (_, tr) = rules();
    assert_eq!(db.book_of(&tr).unwrap().len(), positions.len());
    let mut with = Engine::new(16, 1);
    with.oracle = Some(db.clone());
    let plain = Engine::new(16, 1);
    for pos in &positions {
        let k = pos.as_kalah().unwrap();
        assert!(k.board_seeds() >= 15);
        let booked = db.book(k).unwrap();
        // Read from the book: no node searched, the solver's value, a best move.
        let r = with.solve(pos, Budget::UNLIMITED, &[]).unwrap();
        assert_eq!(r.nodes, 0, "{pos}");
        assert_eq!(r.best, booked.best);
        let s = plain.solve(pos, Budget::UNLIMITED, &[]).unwrap();
        assert_eq!(r.eval, s.eval, "{pos}");
        let values = plain.analyze_moves(pos, Budget::UNLIMITED, &[]);
        let chosen = values.iter().find(|v| v.pit == booked.best).unwrap();
        assert_eq!(chosen.eval.score(), s.eval.score(), "{pos}: {values:?}");
        // The best line, read through the book and then the tables: legal, and where it
        // reaches the end, at the value. (It stops where neither holds the position.)
        let mut end = *pos;
        for &mv in &r.pv {
            end.play(mv).unwrap();
        }
        let me = k.to_move();
        if end.is_over() {
            let [a, b] = [end.scores()[me.index()], end.scores()[me.other().index()]];
            assert_eq!(a as i32 - b as i32, s.eval.seen_by(me).margin, "{pos}");
        }
        // A bound is read from it too.
        let at = s.eval.seen_by(me).margin;
        let bound = with
            .prove_at_least(pos, me, at, Budget::UNLIMITED, &[])
            .unwrap();
        assert!(bound.holds && bound.nodes == 0);
        let above = with
            .prove_at_least(pos, me, at + 1, Budget::UNLIMITED, &[])
            .unwrap();
        assert!(!above.holds);
    }
    // Its value also answers the directory's own probe.
    let start = Position::start(&rules().0).unwrap();
    assert!(db.net(start.as_kalah().unwrap()).is_some());
}

fn err_of(p: &Path) -> String {
    match Book::open(p) {
        Ok(_) => panic!("{} accepted", p.display()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn damaged_books_are_refused_and_no_byte_flip_panics() {
    let dir = tempfile::tempdir().unwrap();
    book_dir(dir.path());
    let (_, tr) = rules();
    let p = tr.book_path(dir.path());
    let good = std::fs::read(&p).unwrap();
    let n = Book::open(&p).unwrap().len();
    let with = |bytes: &[u8]| {
        std::fs::write(&p, bytes).unwrap();
        err_of(&p)
    };
    let name = "kalah-p3-standard-any-row-empty-to-owner.book";
    let e = with(&good[..good.len() - 1]);
    assert!(e.contains(name) && e.contains("payload of"), "{e}");
    let e = with(&good[..10]);
    assert!(e.contains("truncated"), "{e}");
    let mut b = good.clone();
    b[0] = b'X';
    assert!(with(&b).contains("bad magic"));
    let mut b = good.clone();
    *b.last_mut().unwrap() ^= 1;
    assert!(with(&b).contains("checksum mismatch"));
    // A value out of range, with its checksum made to match: refused by the entry check.
    let mut b = good.clone();
    let start = 26 + tr.name().len();
    b[start + 6] = 100;
    let crc = crc32fast::hash(&b[start..]);
    b[16..20].copy_from_slice(&crc.to_le_bytes());
    let e = with(&b);
    assert!(e.contains("corrupt entry 0: value 100"), "{e}");
    // Two entries swapped (the checksum made to match): refused as out of order.
    let mut b = good.clone();
    let size = 2 * 3 + 2;
    let (x, y) = b[start..].split_at_mut(size);
    x.swap_with_slice(&mut y[..size]);
    let crc = crc32fast::hash(&b[start..]);
    b[16..20].copy_from_slice(&crc.to_le_bytes());
    let e = with(&b);
    assert!(e.contains("corrupt entry 1: out of order"), "{e}");
    assert!(e.contains("remove the file"), "{e}");
    // A book under another file name than its rules': refused.
    std::fs::write(&p, &good).unwrap();
    let other = dir
        .path()
        .join("kalah-p3-empty-any-row-empty-to-owner.book");
    std::fs::copy(&p, &other).unwrap();
    assert!(err_of(&other).contains("mismatched book"));
    let e = Egdb::open(dir.path()).err().unwrap().to_string();
    assert!(e.contains("mismatched book"), "{e}");
    std::fs::remove_file(&other).unwrap();
    // Every single byte changed: refused or read, never a panic; read, it holds as many.
    for i in 0..good.len() {
        let mut b = good.clone();
        b[i] = b[i].wrapping_add(0x5b);
        std::fs::write(&p, &b).unwrap();
        if let Ok(book) = Book::open(&p) {
            assert_eq!(book.len(), n, "byte {i}");
        }
    }
}

#[test]
fn entries_that_cannot_be_values_are_not_booked() {
    let dir = tempfile::tempdir().unwrap();
    let (r, tr) = rules();
    let mut b = Book::new(tr, dir.path());
    let start = Position::start(&r).unwrap();
    let k = start.as_kalah().unwrap();
    // 18 seeds on the board: a future net gain of the seeds' parity, within them.
    assert!(b.insert(k, Proven { net: 3, best: 0 }).is_err());
    assert!(b.insert(k, Proven { net: 20, best: 0 }).is_err());
    assert!(b.insert(k, Proven { net: 2, best: 3 }).is_err());
    assert!(b.insert(k, Proven { net: 2, best: 1 }).is_ok());
    let other: Rules = "kalah,pits=3,capture=empty".parse().unwrap();
    let o = Position::start(&other).unwrap();
    assert!(b
        .insert(o.as_kalah().unwrap(), Proven { net: 2, best: 1 })
        .is_err());
    assert_eq!(b.len(), 1);
}
