//! `mancala engine` over its line protocol: a whole game between two engine processes, bad
//! lines answered with an error while the engine keeps running, and `stop` ending a search.

use std::time::{Duration, Instant};

use mancala_core::{Position, Side};
use mancala_protocols::external::{play_game, EngineProcess};

fn engine(go: &str) -> EngineProcess {
    let cmd = format!("{} engine --tt-mb 4", env!("CARGO_BIN_EXE_mancala"));
    EngineProcess::start(&cmd, go, None).expect("the engine starts")
}

/// Waits for a line that satisfies `done`, failing after a generous 20 s.
fn expect(e: &mut EngineProcess, done: impl Fn(&str) -> bool) -> String {
    e.wait_for(done, Some(Duration::from_secs(20)))
        .expect("an answer")
}

#[test]
fn two_engine_processes_play_a_whole_game() {
    let start = Position::start(&"kalah,seeds=4".parse().unwrap()).unwrap();
    let (mut a, mut b) = (engine("depth 4"), engine("depth 4"));
    let r = play_game(&start, &mut a, &mut b, Side::South).unwrap();
    assert!([0.0, 0.5, 1.0].contains(&r));
    // Depth-limited, one thread, a new game each time: the same game again.
    let again = play_game(&start, &mut a, &mut b, Side::South).unwrap();
    assert_eq!(r, again);
    // B as "A" on North: the same seats as the first game, so B's score of it.
    let swapped = play_game(&start, &mut b, &mut a, Side::North).unwrap();
    assert_eq!(swapped, 1.0 - r);
    assert!(a.last_error.is_none() && b.last_error.is_none());
}

#[test]
fn a_game_with_repetition_is_sent_with_its_moves() {
    // Kauri's positions can repeat: the engine is given the start and every move.
    let start = Position::start(&"kauri,pits=4,seeds=2".parse().unwrap()).unwrap();
    let (mut a, mut b) = (engine("depth 3"), engine("depth 3"));
    let r = play_game(&start, &mut a, &mut b, Side::North).unwrap();
    assert!([0.0, 0.5, 1.0].contains(&r));
}

#[test]
fn bad_lines_get_an_error_and_the_engine_keeps_running() {
    let mut e = engine("depth 2");
    let bad = [
        ("fly", "unknown command `fly`"),
        ("go depth 3", "no position: send position first"),
        (
            "position kalah,seeds=4 moves z",
            "`z` is not a pit (A-F or 1-6)",
        ),
        ("position kalah,pits=13", "position: `kalah,pits=13`"),
        ("go movetime soon", "go: movetime: `soon` is not a number"),
        (
            "position kalah,seeds=1/0-0-0-0-0-0/6/0-0-0-0-0-0/6/s",
            "the game is already over",
        ),
        ("stop please", "`stop` takes no arguments"),
    ];
    for (line, err) in bad {
        e.send(line).unwrap();
        let got = expect(&mut e, |l| l.starts_with("info string error"));
        assert!(got.contains(err), "`{line}`: {got}");
    }
    e.send("isready").unwrap();
    assert_eq!(
        expect(&mut e, |l| l == "readyok" || l.starts_with("info string")),
        "readyok"
    );
    // Still plays after all that.
    e.send("position kalah,seeds=4 moves C").unwrap();
    e.send("go depth 3").unwrap();
    let info = expect(&mut e, |l| l.starts_with("info depth 3 "));
    assert!(
        info.contains(" value ") && info.contains(" nodes ") && info.contains(" pv "),
        "{info}"
    );
    let best = expect(&mut e, |l| l.starts_with("bestmove"));
    // South moves again after `C`: one of South's pits, written in capitals.
    let mv = best.strip_prefix("bestmove ").unwrap();
    assert!(["A", "B", "D", "E", "F"].contains(&mv), "{best}");
    // A refused position leaves none: `go` then says so instead of searching the last one.
    e.send("position kalah,seeds=4 moves Z").unwrap();
    expect(&mut e, |l| l.starts_with("info string error"));
    e.send("go depth 2").unwrap();
    let got = expect(&mut e, |l| {
        l.starts_with("info string error") || l.starts_with("bestmove")
    });
    assert!(got.contains("no position"), "{got}");
}

#[test]
fn stop_ends_an_infinite_search_at_once() {
    let mut e = engine("");
    e.send("position kalah,seeds=6").unwrap();
    e.send("go infinite").unwrap();
    expect(&mut e, |l| l.starts_with("info depth 3 "));
    // Answered while the search runs.
    e.send("isready").unwrap();
    expect(&mut e, |l| l == "readyok");
    let t = Instant::now();
    e.send("stop").unwrap();
    let best = expect(&mut e, |l| l.starts_with("bestmove "));
    // "At once": well within a second here (the search checks every 1024 nodes); the bound
    // is generous for a loaded machine.
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    let mv = best.strip_prefix("bestmove ").unwrap();
    assert!(("A"..="F").contains(&mv), "{best}");
    // A search under way refuses a second go.
    e.send("go infinite").unwrap();
    e.send("go depth 2").unwrap();
    let err = expect(&mut e, |l| l.starts_with("info string error"));
    assert!(err.contains("a search is under way"), "{err}");
    e.send("stop").unwrap();
    expect(&mut e, |l| l.starts_with("bestmove "));
}

#[test]
fn a_proof_is_reported_as_proven_and_misere_values_say_so() {
    let mut e = engine("");
    // Few seeds left: proven at once.
    e.send("position kalah,seeds=4/0-0-0-1-2-1/20/1-1-0-0-0-2/20/s")
        .unwrap();
    e.send("go movetime 1000").unwrap();
    let info = expect(&mut e, |l| l.starts_with("info depth"));
    assert!(info.contains(" proven"), "{info}");
    expect(&mut e, |l| l.starts_with("bestmove "));
    // The pie rule's choice, proven: +6 for North after A (`solve --openings` gives South's
    // first turn A -6), its depth the length of its one-move line, as a proof's is.
    e.send("position kalah,pits=4,seeds=3,pie=true moves A")
        .unwrap();
    e.send("go movetime 1000").unwrap();
    let info = expect(&mut e, |l| l.starts_with("info depth"));
    assert!(info.starts_with("info depth 1 value +6 proven "), "{info}");
    expect(&mut e, |l| l.starts_with("bestmove "));
    e.send("position dracala").unwrap();
    e.send("go depth 2").unwrap();
    let info = expect(&mut e, |l| l.starts_with("info depth 2 "));
    assert!(info.contains("depth 2 lower-is-better"), "{info}");
    let best = expect(&mut e, |l| l.starts_with("bestmove "));
    // Dracala writes pits as digits.
    assert!(
        ("1"..="6").contains(&best.strip_prefix("bestmove ").unwrap()),
        "{best}"
    );
}

#[test]
fn endgame_tables_give_the_same_proven_value() {
    let path = std::env::temp_dir().join(format!("mancala-engine-egdb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    let d = path.to_str().unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_mancala"))
        .args(["egdb", "build", "--variant", "kalah,pits=4,seeds=3"])
        .args(["--max-seeds", "10", "--dir", d, "--quiet"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let value = |extra: &str| {
        let cmd = format!("{} engine --tt-mb 4 {extra}", env!("CARGO_BIN_EXE_mancala"));
        let mut e = EngineProcess::start(&cmd, "", None).unwrap();
        // 24 seeds on the board: proven first, within a quarter of the time.
        e.send("position kalah,pits=4,seeds=3 moves B").unwrap();
        e.send("go movetime 20000").unwrap();
        let info = expect(&mut e, |l| l.starts_with("info depth"));
        expect(&mut e, |l| l.starts_with("bestmove"));
        assert!(info.contains(" proven "), "{info}");
        let w: Vec<&str> = info.split_whitespace().collect();
        w[w.iter().position(|&x| x == "value").unwrap() + 1].to_string()
    };
    let with_tables = value(&format!("--egdb {d}"));
    assert_eq!(with_tables, value(""));
    let _ = std::fs::remove_dir_all(&path);
}

/// An engine that exits at once loses the match with an error naming it (exit code 2), not a
/// silent death of `mancala match` on the broken pipe.
#[test]
fn a_match_against_an_engine_that_exits_says_so() {
    let bin = env!("CARGO_BIN_EXE_mancala");
    let out = std::process::Command::new(bin)
        .args(["match", "--variant", "kalah", "--a-cmd", "true", "--b-cmd"])
        .arg(format!("{bin} engine --tt-mb 4"))
        .args(["--movetime", "10ms", "--games", "2"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    // Which one the match sees first depends on timing: its write, or the engine's end.
    assert!(
        err.contains("`true` stopped reading") || err.contains("`true` ended"),
        "{err}"
    );
}

/// Runs `mancala ARGS`: whether it succeeded, its standard output and its standard error.
fn mancala(args: &[&str]) -> (bool, String, String) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_mancala"))
        .args(args)
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (o.status.success(), text(o.stdout), text(o.stderr))
}

/// Runs `mancala ARGS`, which must succeed; its standard output.
fn mancala_ok(args: &[&str]) -> String {
    let (ok, out, err) = mancala(args);
    assert!(ok, "{err}");
    out
}

/// Runs `mancala ARGS`, which must fail; its standard error.
fn mancala_fails(args: &[&str]) -> String {
    let (ok, _, err) = mancala(args);
    assert!(!ok, "{err}");
    err
}

/// A fresh folder `mancala-engine-WHAT-PID` in the temporary folder, holding the endgame
/// tables of Kalah 4 x 3 to 10 seeds.
fn tables_4x3(what: &str) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("mancala-engine-{what}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    let d = path.to_str().unwrap();
    let variant = "kalah,pits=4,seeds=3";
    mancala_ok(&[
        "egdb",
        "build",
        "--variant",
        variant,
        "--max-seeds",
        "10",
        "--dir",
        d,
        "--quiet",
    ]);
    path
}

/// Asks engine `e` for a move in `pos` with `go`, and checks its answer: `proven`, a move the
/// solver finds best (every move valued by `solver` with no tables), and that value. Returns
/// the move and the `info` line.
fn proven_best(
    e: &mut EngineProcess,
    solver: &mancala_engine::Engine,
    pos: &Position,
    go: &str,
) -> (u8, String) {
    e.send(&format!("position {pos}")).unwrap();
    e.send(go).unwrap();
    let info = expect(e, |l| l.starts_with("info depth"));
    let best = expect(e, |l| l.starts_with("bestmove "));
    assert!(info.contains(" proven "), "{pos}: {info}");
    let pit = mancala_protocols::protocol::read_move(pos, best.strip_prefix("bestmove ").unwrap())
        .unwrap();
    let values = solver.analyze_moves(pos, mancala_engine::Budget::UNLIMITED, &[]);
    assert!(values.iter().all(|v| v.eval.is_proven()), "{pos}");
    let top = values.iter().map(|v| v.eval.score()).max().unwrap();
    let chosen = values.iter().find(|v| v.pit == pit).unwrap();
    assert_eq!(chosen.eval.score(), top, "{pos}: {best} against {values:?}");
    assert!(
        info.contains(&format!(" value {top:+} proven ")),
        "{pos}: {info}"
    );
    (pit, info)
}

/// With endgame tables built here (Kalah 4 x 3, levels to 10 seeds), `mancala engine --egdb`
/// answers every position of a game from the start on `proven`, and its move is one the
/// solver finds best: its proven value is the position's, which the info line gives.
#[test]
fn with_tables_every_position_from_the_start_is_proven_and_its_move_is_best() {
    let path = tables_4x3("proven");
    let d = path.to_str().unwrap();
    let cmd = format!(
        "{} engine --tt-mb 4 --threads 1 --egdb {d}",
        env!("CARGO_BIN_EXE_mancala")
    );
    let mut e = EngineProcess::start(&cmd, "", None).unwrap();
    let solver = mancala_engine::Engine::new(16, 1);
    let mut game =
        mancala_core::Game::from_rules(&"kalah,pits=4,seeds=3".parse().unwrap()).unwrap();
    while !game.is_over() {
        let pos = *game.position();
        let (pit, _) = proven_best(&mut e, &solver, &pos, "go movetime 2000");
        game.play(pit).unwrap();
    }
    assert!(game.moves().len() > 10);
    let _ = std::fs::remove_dir_all(&path);
}

/// `mancala egdb book` beside tables built here (Kalah 4 x 3: levels to 10 seeds, the book of
/// every position with at least 21 of the 24 seeds on the board): the book holds every such
/// position, a second run proves nothing again, and `mancala engine --egdb` answers each of
/// them at once, `proven`, with no node searched, with a move whose value the solver (no
/// tables, no book) finds best, and that value.
#[test]
fn with_an_opening_book_every_position_near_the_start_is_proven_at_once() {
    let path = tables_4x3("book");
    let d = path.to_str().unwrap();
    let variant = "kalah,pits=4,seeds=3";
    let command = ["egdb", "book", "--variant", variant, "--dir", d];
    let with = |more: &[&'static str]| -> Vec<&str> {
        command
            .iter()
            .copied()
            .chain(more.iter().copied())
            .collect()
    };
    let book = with(&[
        "--min-seeds",
        "21",
        "--threads",
        "1",
        "--tt-mb",
        "16",
        "--json",
    ]);
    let first: serde_json::Value = serde_json::from_str(&mancala_ok(&book)).unwrap();
    let start = Position::start(&variant.parse().unwrap()).unwrap();
    let positions = mancala_egdb::book::reachable(&start, 21, usize::MAX).unwrap();
    // Distinct boards of at least 21 seeds from the start, as a walk over the Python
    // package's `Game` counts them.
    assert_eq!(positions.len(), 1067);
    assert_eq!(first["positions"], 1067, "{first}");
    assert_eq!(first["proven"], 1067, "{first}");
    // Positions the tables hold (10 seeds or fewer) are not asked for.
    let low = with(&["--min-seeds", "10"]);
    let err = mancala_fails(&low);
    assert!(
        err.contains(
            "--min-seeds 10: the tables hold every position of at most 10 seeds; give 11 or more"
        ),
        "{err}"
    );
    let again: serde_json::Value = serde_json::from_str(&mancala_ok(&book)).unwrap();
    assert_eq!(again["proven"], 0, "{again}");
    assert_eq!(again["positions"], 1067, "{again}");

    // `egdb info` lists it; `egdb probe` of a position whose moves leave the book and the
    // tables gives the book's value and its one best move, said to be the book's.
    let info = mancala_ok(&["egdb", "info", d]);
    assert!(
        info.contains(
            "opening book of p4-standard-any-row-empty-to-owner: 1067 positions of 21 to 24 seeds"
        ),
        "{info}"
    );
    let db = mancala_egdb::Egdb::open(&path).unwrap();
    let low = *positions
        .iter()
        .find(|p| mancala_egdb::Oracle::move_values(&db, p.as_kalah().unwrap()).is_none())
        .unwrap();
    let probe: serde_json::Value = serde_json::from_str(&mancala_ok(&[
        "egdb",
        "probe",
        "--dir",
        d,
        &low.to_string(),
        "--json",
    ]))
    .unwrap();
    assert_eq!(probe["from_book"], true, "{probe}");
    assert_eq!(probe["moves"], serde_json::Value::Null, "{probe}");
    let solver = mancala_engine::Engine::new(16, 1);
    let proof = solver
        .solve(&low, mancala_engine::Budget::UNLIMITED, &[])
        .unwrap();
    assert_eq!(
        probe["final_margin"],
        proof.eval.seen_by(low.to_move()).margin,
        "{probe}"
    );
    let own = probe["own"].as_i64().unwrap();
    let seeds = i64::from(low.board_seeds());
    assert_eq!(2 * own - seeds, probe["future_net_gain"].as_i64().unwrap());
    // Under the pie rule, a board the book holds is not read while North may still swap,
    // and the refusal says so.
    let mut pie = Position::start(&"kalah,pits=4,seeds=3,pie=true".parse().unwrap()).unwrap();
    pie.play(0).unwrap();
    let mut plain = start;
    plain.play(0).unwrap();
    assert!(
        positions.contains(&plain),
        "the same board without the pie rule is booked"
    );
    let err = mancala_fails(&["egdb", "probe", "--dir", d, &pie.to_string()]);
    assert!(err.contains("North may still swap (the pie rule)"), "{err}");
    // A folder holding the book alone says that only the book is read, and answers from it.
    let alone = path.join("book-alone");
    std::fs::create_dir_all(&alone).unwrap();
    let name = "kalah-p4-standard-any-row-empty-to-owner.book";
    std::fs::copy(path.join(name), alone.join(name)).unwrap();
    let (ok, out, err) = mancala(&[
        "solve",
        "--threads",
        "1",
        "--egdb",
        alone.to_str().unwrap(),
        "--position",
        &low.to_string(),
        "--stats",
    ]);
    assert!(ok, "{err}");
    assert!(err.contains("only its opening book is read"), "{err}");
    let info = mancala_ok(&["egdb", "info", alone.to_str().unwrap()]);
    assert!(
        info.starts_with(
            "no endgame tables\nopening book of p4-standard-any-row-empty-to-owner: 1067 positions"
        ),
        "{info}"
    );
    assert!(out.contains("proof: 0 nodes"), "{out}");
    // Its line is the book's one move, and says that the game goes on.
    assert!(
        out.contains(" ... (the game goes on: no table kept the move of the next position)"),
        "{out}"
    );
    // The start's value is the book's, though every move's value is known (from the book
    // too): all its best moves are given.
    let start_probe: serde_json::Value = serde_json::from_str(&mancala_ok(&[
        "egdb",
        "probe",
        "--dir",
        d,
        &start.to_string(),
        "--json",
    ]))
    .unwrap();
    assert_eq!(start_probe["from_book"], true, "{start_probe}");
    assert!(start_probe["moves"].is_array(), "{start_probe}");

    // `egdb check` proves every entry again with the tables alone, values and moves; an
    // entry forged to another value of the right parity, its checksum made to match, is
    // found and named.
    let check = [
        "egdb",
        "check",
        "--variant",
        variant,
        "--dir",
        d,
        "--from",
        "10",
    ];
    let some: Vec<&str> = check.iter().copied().chain(["--samples", "5"]).collect();
    let out = mancala_ok(&some);
    assert!(
        out.contains(
            "opening book: 5 positions agree, values and moves (a random sample of its 1067;"
        ),
        "{out}"
    );
    let all: Vec<&str> = check.iter().copied().chain(["--samples", "2000"]).collect();
    let out = mancala_ok(&all);
    assert!(
        out.contains("opening book: 1067 positions agree, values and moves (all of its 1067;"),
        "{out}"
    );
    let file = path.join("kalah-p4-standard-any-row-empty-to-owner.book");
    let good = std::fs::read(&file).unwrap();
    let mut forged = good.clone();
    let payload = 26 + "p4-standard-any-row-empty-to-owner".len();
    forged[payload + 8] = (forged[payload + 8] as i8 + 2) as u8;
    let crc = crc32fast::hash(&forged[payload..]);
    forged[16..20].copy_from_slice(&crc.to_le_bytes());
    std::fs::write(&file, &forged).unwrap();
    let err = mancala_fails(&all);
    assert!(err.contains("the opening book: "), "{err}");
    std::fs::write(&file, &good).unwrap();

    let cmd = format!(
        "{} engine --tt-mb 4 --threads 1 --egdb {d}",
        env!("CARGO_BIN_EXE_mancala")
    );
    let mut e = EngineProcess::start(&cmd, "", None).unwrap();
    assert!(positions.contains(&start));
    for pos in &positions {
        let t = Instant::now();
        let (_, info) = proven_best(&mut e, &solver, pos, "go movetime 5000");
        assert!(t.elapsed() < Duration::from_secs(4), "{pos}: not at once");
        assert!(info.contains(" nodes 0 "), "{pos}: {info}");
    }
    let _ = std::fs::remove_dir_all(&path);
}
