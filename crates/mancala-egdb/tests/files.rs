//! Bad files are refused with the file and the fault; the engine agrees with and without
//! the oracle.

use mancala_core::rng::Rng;
use mancala_core::{KalahRules, Position, Rules};
use mancala_egdb::{build, BuildOptions, Egdb, Table, TableRules};
use mancala_engine::{Engine, Limits};
use std::path::Path;
use std::sync::Arc;

fn build_dir(spec: &str, max: u32, dir: &Path) -> TableRules {
    let r: Rules = spec.parse().unwrap();
    let tr = TableRules::new(&KalahRules::new(&r).unwrap()).unwrap();
    let opts = BuildOptions {
        dir: dir.to_path_buf(),
        max_seeds: max,
        progress: false,
        memory_limit: None,
    };
    build(tr, &opts).unwrap();
    tr
}

fn err_of(p: &Path) -> String {
    match Table::open(p) {
        Ok(_) => panic!("{} accepted", p.display()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn truncated_corrupt_and_mismatched_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let tr = build_dir("kalah,pits=4", 8, dir.path());
    let p = tr.path(dir.path(), 8);
    let good = std::fs::read(&p).unwrap();
    assert!(Table::open(&p).is_ok());
    let name = p.display().to_string();

    // A directory named as a table: refused as no table file, not read as one.
    let sub = dir.path().join("sub.egdb");
    std::fs::create_dir(&sub).unwrap();
    let e = Egdb::open(dir.path()).err().expect("refused").to_string();
    assert!(
        e.contains("sub.egdb") && e.contains("not a table file"),
        "{e}"
    );
    std::fs::remove_dir(&sub).unwrap();

    std::fs::write(&p, &good[..good.len() - 10]).unwrap();
    let e = err_of(&p);
    assert!(e.contains(&name) && e.contains("truncated"), "{e}");
    std::fs::write(&p, &good[..20]).unwrap();
    let e = err_of(&p);
    assert!(e.contains(&name) && e.contains("truncated"), "{e}");

    let mut bad = good.clone();
    let n = bad.len();
    bad[n - 100] ^= 0x10;
    std::fs::write(&p, &bad).unwrap();
    let e = err_of(&p);
    assert!(e.contains(&name) && e.contains("checksum"), "{e}");
    // And the directory is refused as a whole.
    let e = Egdb::open(dir.path()).err().expect("refused").to_string();
    assert!(e.contains("checksum"), "{e}");

    let mut bad = good.clone();
    bad[0] = b'X';
    std::fs::write(&p, &bad).unwrap();
    assert!(err_of(&p).contains("magic"));
    let mut bad = good.clone();
    bad[8] = 9;
    std::fs::write(&p, &bad).unwrap();
    assert!(err_of(&p).contains("version"));
    let mut bad = good.clone();
    bad[24] ^= 1;
    std::fs::write(&p, &bad).unwrap();
    assert!(err_of(&p).contains("entries"));

    // A valid table of another level under this level's name: mismatched.
    std::fs::write(&p, std::fs::read(tr.path(dir.path(), 7)).unwrap()).unwrap();
    let t = Table::open(&p).unwrap();
    let e = t.expect(&tr, 8).unwrap_err().to_string();
    assert!(e.contains(&name) && e.contains("mismatched"), "{e}");
    // Resuming rebuilds the bad level and keeps the good ones.
    let rep = build(
        tr,
        &BuildOptions {
            dir: dir.path().to_path_buf(),
            max_seeds: 8,
            progress: false,
            memory_limit: None,
        },
    )
    .unwrap();
    assert_eq!(rep.reused, (0..8).collect::<Vec<_>>());
    assert_eq!(rep.built.len(), 1);
    assert_eq!(rep.rebuilt.len(), 1);
    assert!(rep.rebuilt[0].1.contains("mismatched"), "{:?}", rep.rebuilt);
    assert_eq!(std::fs::read(&p).unwrap(), good);
}

/// Rewrites the payload of a table file (at `offset`) and the header's bits, payload length
/// and checksum to match: a forged file, consistent in itself.
fn forge(file: &[u8], bits: u8, payload: &[u8]) -> Vec<u8> {
    let offset = 42 + u16::from_le_bytes([file[40], file[41]]) as usize;
    let mut f = file[..offset].to_vec();
    f[16] = bits;
    f[20..24].copy_from_slice(&crc32fast::hash(payload).to_le_bytes());
    f[32..40].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    f.extend_from_slice(payload);
    f
}

#[test]
fn forged_files_with_matching_checksums_are_refused_or_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let tr = build_dir("kalah,pits=4", 8, dir.path());
    let p = tr.path(dir.path(), 8);
    let good = std::fs::read(&p).unwrap();
    let offset = 42 + u16::from_le_bytes([good[40], good[41]]) as usize;
    let count = u64::from_le_bytes(good[24..32].try_into().unwrap());
    assert_eq!(good[16], 4, "level 8 of counted rules: 4 bits an entry");

    // Bits that disagree with the level (the entries packed at 5 bits, consistent in
    // themselves): the directory is refused.
    let five = vec![0u8; (count * 5).div_ceil(8) as usize + 1];
    std::fs::write(&p, forge(&good, 5, &five)).unwrap();
    assert!(Table::open(&p).is_ok(), "the file alone is consistent");
    let e = Egdb::open(dir.path()).err().expect("refused").to_string();
    assert!(
        e.contains(&p.display().to_string()) && e.contains("5 bits an entry, expected 4"),
        "{e}"
    );

    // An entry above the level's range (15 where 8 is the most): opened, never read as a
    // value, found by the entry check.
    let mut payload = good[offset..].to_vec();
    payload[0] |= 0x0f;
    std::fs::write(&p, forge(&good, 4, &payload)).unwrap();
    let db = Egdb::open(dir.path()).unwrap();
    let e = db.verify_entries().unwrap_err().to_string();
    assert!(
        e.contains(&p.display().to_string()) && e.contains("rank 0 holds 15"),
        "{e}"
    );
    // Every entry 15: a probe reads none as a value and the directory reports the file;
    // so does a proof that reached the level through the solver's own reads.
    let mut payload = good[offset..].to_vec();
    payload[..(count / 2) as usize].fill(0xff);
    std::fs::write(&p, forge(&good, 4, &payload)).unwrap();
    let db = Arc::new(Egdb::open(dir.path()).unwrap());
    assert!(db.fault().is_none());
    let pos: Position = "kalah,pits=4/2-2-0-0/8/1-1-1-1/8/s".parse().unwrap();
    let Some(k) = pos.as_kalah() else {
        unreachable!()
    };
    assert_eq!(db.net(k), None);
    let e = db.fault().expect("reported").to_string();
    assert!(
        e.contains(&p.display().to_string()) && e.contains("above level 8's range"),
        "{e}"
    );
    let db = Arc::new(Egdb::open(dir.path()).unwrap());
    let mut engine = Engine::new(1, 1);
    engine.oracle = Some(db.clone());
    let pos: Position = "kalah,pits=4/2-2-1-0/7/1-1-1-1/8/s".parse().unwrap();
    engine.solve(&pos, Limits::default(), &[]).unwrap();
    assert!(db.fault().is_some(), "the solver's reads report it too");
    // A build to more seeds does not build on the forged level: it rebuilds it first, and
    // the level above comes out as a clean build's.
    let clean = tempfile::tempdir().unwrap();
    build_dir("kalah,pits=4", 9, clean.path());
    let opts = BuildOptions {
        dir: dir.path().to_path_buf(),
        max_seeds: 9,
        progress: false,
        memory_limit: None,
    };
    let rep = build(tr, &opts).unwrap();
    assert_eq!(rep.reused, (0..8).collect::<Vec<_>>());
    assert_eq!(rep.rebuilt.len(), 1, "{:?}", rep.rebuilt);
    assert!(
        rep.rebuilt[0].1.contains("corrupt entry"),
        "{:?}",
        rep.rebuilt
    );
    assert_eq!(std::fs::read(&p).unwrap(), good);
    for s in [8, 9] {
        let (a, b) = (tr.path(dir.path(), s), tr.path(clean.path(), s));
        assert_eq!(
            std::fs::read(a).unwrap(),
            std::fs::read(b).unwrap(),
            "level {s}"
        );
    }
    std::fs::remove_file(tr.path(dir.path(), 9)).unwrap();
    Egdb::open(dir.path()).unwrap().verify_entries().unwrap();

    // A good table under another level's name: refused.
    let q = tr.path(dir.path(), 9);
    std::fs::rename(tr.path(dir.path(), 7), &q).unwrap();
    let e = Egdb::open(dir.path()).err().expect("refused").to_string();
    assert!(
        e.contains(&q.display().to_string()) && e.contains("header says level 7"),
        "{e}"
    );
}

/// Beyond the memory, levels go to scratch files; beyond the disk too, the build is refused
/// before it starts.
#[cfg(target_os = "linux")]
#[test]
fn too_little_memory_and_disk_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let r: Rules = "kalah".parse().unwrap();
    let tr = TableRules::new(&KalahRules::new(&r).unwrap()).unwrap();
    let e = build(
        tr,
        &BuildOptions {
            dir: dir.path().to_path_buf(),
            max_seeds: 60,
            progress: false,
            memory_limit: Some(1 << 30),
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("so from level") && e.contains("GiB of disk") && e.contains("is free"),
        "{e}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// Levels kept in scratch files (all of them, or from a level on) give the same files, byte
/// for byte, as levels kept in memory, and leave no scratch file behind.
#[test]
fn levels_in_scratch_files_give_the_same_tables() {
    let r: Rules = "kalah,pits=4".parse().unwrap();
    let tr = TableRules::new(&KalahRules::new(&r).unwrap()).unwrap();
    let max = 14;
    let run = |limit: Option<u64>| {
        let dir = tempfile::tempdir().unwrap();
        let report = build(
            tr,
            &BuildOptions {
                dir: dir.path().to_path_buf(),
                max_seeds: max,
                progress: false,
                memory_limit: limit,
            },
        )
        .unwrap();
        let files: Vec<Vec<u8>> = (0..=max)
            .map(|s| std::fs::read(tr.path(dir.path(), s)).unwrap())
            .collect();
        let names = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(names, max as usize + 1, "only the table files stay");
        (report.spilled_from, files)
    };
    let (none, mem) = run(Some(u64::MAX));
    assert_eq!(none, None);
    let (all, scratch) = run(Some(0));
    assert_eq!(all, Some(0));
    assert!(mem == scratch, "every level the same from scratch files");
    let mid = mancala_egdb::build::memory_needed(&tr, 9);
    let (from, partly) = run(Some(mid));
    assert_eq!(from, Some(10));
    assert!(
        mem == partly,
        "every level the same when the build moves to scratch files"
    );
}

fn solve(pos: &Position, db: Option<Arc<Egdb>>) -> (i32, u64, u64) {
    let mut e = Engine::new(16, 1);
    e.oracle = db.map(|d| d as Arc<dyn mancala_engine::Oracle + Send>);
    let s = e.solve(pos, Limits::default(), &[]).unwrap();
    (s.eval.margin, s.nodes, s.oracle_hits)
}

/// Positions after 1 to 12 seeded random moves from the start (games not over).
fn random_positions(r: &Rules, count: usize) -> Vec<Position> {
    let mut rng = Rng::xorshift(0x9e37_79b9_7f4a_7c15);
    let mut out = Vec::new();
    while out.len() < count {
        let mut p = Position::start(r).unwrap();
        for _ in 0..1 + rng.next_u64() % 12 {
            let m = p.legal_moves();
            if m.is_empty() {
                break;
            }
            let x = rng.next_u64();
            p.play(m.as_slice()[(x % m.len() as u64) as usize]).unwrap();
        }
        if !p.is_over() {
            out.push(p);
        }
    }
    out
}

#[test]
fn solving_with_the_tables_gives_the_same_values() {
    for spec in [
        "kalah,pits=4,seeds=3",
        "kalah,pits=4,seeds=3,capture=empty",
        "kalah,pits=4,seeds=2,leftovers=not-counted,end=mover-empty",
        "vaccean,seeds=2",
        "kalah,pits=5,seeds=2,capture=opposite-only,leftovers=last-mover",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let r: Rules = spec.parse().unwrap();
        let pits = r.pits as u32;
        build_dir(spec, if pits == 5 { 8 } else { 12 }, dir.path());
        let db = Arc::new(Egdb::open(dir.path()).unwrap());
        let start = Position::start(&r).unwrap();
        let (v0, n0, h0) = solve(&start, None);
        let (v1, n1, h1) = solve(&start, Some(db.clone()));
        assert_eq!(h0, 0);
        assert!(h1 > 0, "{spec}: no oracle hits");
        assert_eq!(v0, v1, "{spec}: nodes {n0} vs {n1}");
        // Tabled roots and roots above the tables, both seats.
        let (mut tabled, mut hits) = (0, 0);
        for p in random_positions(&r, 40) {
            let (v0, _, _) = solve(&p, None);
            let (v1, _, h) = solve(&p, Some(db.clone()));
            assert_eq!(v0, v1, "{spec}: {p}");
            hits += h;
            if let Some(k) = p.as_kalah() {
                tabled += (k.board_seeds() <= if pits == 5 { 8 } else { 12 }) as u32;
            }
        }
        assert!(
            hits > 0 && tabled > 0,
            "{spec}: {tabled} tabled roots, {hits} hits"
        );
    }
}
