//! `mancala egdb build|info|probe` and `solve --egdb --openings` end to end.

use std::process::{Command, Output};

fn mancala(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mancala"))
        .args(args)
        .output()
        .expect("run mancala")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn build_info_probe_and_solve_with_tables() {
    let path = std::env::temp_dir().join(format!("mancala-egdb-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    let d = path.to_str().unwrap();
    let o = mancala(&[
        "egdb",
        "build",
        "--variant",
        "kalah",
        "--pits",
        "4",
        "--capture",
        "empty",
        "--max-seeds",
        "10",
        "--dir",
        d,
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("built 11 levels"), "{}", text(&o));
    // A second build reuses everything.
    let o = mancala(&[
        "egdb",
        "build",
        "--variant",
        "kalah,pits=4,capture=empty",
        "--max-seeds",
        "10",
        "--dir",
        d,
        "--quiet",
    ]);
    assert!(text(&o).contains("reused 11 levels"), "{}", text(&o));
    let o = mancala(&["egdb", "info", d]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("p4-empty-any-row-empty-to-owner"),
        "{}",
        text(&o)
    );
    let o = mancala(&["egdb", "info", d, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let tables = v["tables"].as_array().unwrap();
    assert_eq!(tables.len(), 11);
    // Level 10 of 4 pits a row: every distribution of 10 seeds over 8 pits, C(17, 7).
    assert_eq!(tables[10]["seeds"], 10);
    assert_eq!(tables[10]["entries"], 19448);
    assert_eq!(tables[10]["bits"], 4);
    // 2 seeds facing 0 and 1: South sows pit 3 into pit 4 ... the tables know.
    let o = mancala(&[
        "egdb",
        "probe",
        "--dir",
        d,
        "kalah,pits=4,capture=empty/0-0-1-1/10/1-0-0-0/11/s",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("of the 3 seeds on the board"),
        "{}",
        text(&o)
    );
    // The best move: D, into the store, then C captures the last seed (+3 of 3).
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "South to move ends with 3 of the 3 seeds on the board (the opponent with 0): future net gain +3, final margin +2\nbest move: D\n"
    );
    // Two best moves: A, and D (an extra turn, then A), both +4 as `solve --openings` proves.
    let o = mancala(&[
        "egdb",
        "probe",
        "--dir",
        d,
        "kalah,pits=4,capture=empty/2-0-0-1/10/1-1-1-1/7/s",
    ]);
    assert!(
        String::from_utf8_lossy(&o.stdout).ends_with("final margin +4\nbest moves: A, D\n"),
        "{}",
        text(&o)
    );
    // The same as JSON: the position, its value for the side to move, every move's value.
    let o = mancala(&[
        "egdb",
        "probe",
        "--dir",
        d,
        "kalah,pits=4,capture=empty/2-0-0-1/10/1-1-1-1/7/s",
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v,
        serde_json::json!({
            "position": "kalah,pits=4,capture=empty/2-0-0-1/10/1-1-1-1/7/s",
            "tables": "p4-empty-any-row-empty-to-owner",
            "seeds_on_board": 7,
            "to_move": "south",
            "view": "south",
            "own": 4,
            "opponent": 3,
            "future_net_gain": 1,
            "final_margin": 4,
            "best_moves": [{"move": "A", "pit": 1}, {"move": "D", "pit": 4}],
            "from_book": false,
            "moves": [
                {"move": "A", "pit": 1, "future_net_gain": 1},
                {"move": "D", "pit": 4, "future_net_gain": 1}
            ]
        })
    );
    let o = mancala(&[
        "solve",
        "--variant",
        "kalah,pits=4,seeds=2,capture=empty",
        "--egdb",
        d,
        "--openings",
        "--tt-mb",
        "16",
    ]);
    let plain = mancala(&[
        "solve",
        "--variant",
        "kalah,pits=4,seeds=2,capture=empty",
        "--tt-mb",
        "16",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let value = |s: &str| {
        s.split("value ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .to_string()
    };
    assert_eq!(value(&text(&o)), value(&text(&plain)));
    assert!(
        text(&o).contains("valued by the endgame databases"),
        "{}",
        text(&o)
    );
    assert!(text(&o).contains("first turns of South"), "{}", text(&o));
    // A corrupt table is refused, naming the file.
    let f = std::fs::read_dir(&path)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with("-s10.egdb"))
        .unwrap();
    let mut b = std::fs::read(&f).unwrap();
    let n = b.len();
    b.truncate(n - 3);
    std::fs::write(&f, b).unwrap();
    let o = mancala(&["egdb", "info", d]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("-s10.egdb") && text(&o).contains("truncated"),
        "{}",
        text(&o)
    );
    // The build's JSON summary: the truncated level rebuilt (with its fault), one more
    // level built, the others reused.
    let o = mancala(&[
        "egdb",
        "build",
        "--variant",
        "kalah,pits=4,capture=empty",
        "--max-seeds",
        "11",
        "--dir",
        d,
        "--quiet",
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["rules"], "kalah,pits=4,capture=empty", "{v}");
    assert_eq!(v["tables"], "p4-empty-any-row-empty-to-owner", "{v}");
    assert_eq!(v["max_seeds"], 11, "{v}");
    let built: Vec<_> = v["built"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["seeds"].clone())
        .collect();
    assert_eq!(built, [10, 11], "{v}");
    // Level 11: C(18, 7) positions.
    assert_eq!(v["built"][1]["positions"], 31824, "{v}");
    assert_eq!(
        v["reused"],
        serde_json::json!([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
        "{v}"
    );
    assert_eq!(v["rebuilt"][0]["seeds"], 10, "{v}");
    assert!(
        v["rebuilt"][0]["fault"]
            .as_str()
            .unwrap()
            .contains("truncated"),
        "{v}"
    );
    let _ = std::fs::remove_dir_all(&path);
}

/// Tables built with every level in scratch files (`--memory-gib 0`) agree with the solver on
/// a sample of each level, and the summary says so; a bad `--memory-gib` is refused.
#[test]
fn scratch_built_tables_pass_the_solver_check() {
    let path = std::env::temp_dir().join(format!("mancala-egdb-check-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    let d = path.to_str().unwrap();
    let o = mancala(&[
        "egdb",
        "build",
        "--variant",
        "kalah,pits=4",
        "--max-seeds",
        "14",
        "--dir",
        d,
        "--quiet",
        "--memory-gib",
        "0",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("levels from 0 on were kept in scratch files"),
        "{}",
        text(&o)
    );
    let o = mancala(&[
        "egdb",
        "check",
        "--variant",
        "kalah,pits=4",
        "--dir",
        d,
        "--samples",
        "8",
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["agree"], true);
    let levels = v["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 14, "levels 1 to 14");
    let checked: u64 = levels
        .iter()
        .map(|l| l["positions"].as_u64().unwrap())
        .sum();
    assert!(checked > 80, "most draws are live positions: {checked}");
    // Tables of other rules are not there: said, not a panic.
    let o = mancala(&[
        "egdb",
        "check",
        "--variant",
        "kalah,pits=4,capture=empty",
        "--dir",
        d,
    ]);
    assert!(!o.status.success());
    assert!(text(&o).contains("no tables of"), "{}", text(&o));
    let o = mancala(&[
        "egdb",
        "build",
        "--variant",
        "kalah,pits=4",
        "--max-seeds",
        "4",
        "--dir",
        d,
        "--memory-gib=-1",
    ]);
    assert!(!o.status.success());
    assert!(text(&o).contains("--memory-gib"), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&path);
}

/// The check says how many sampled positions it left out and why: a game already over has
/// no move to value, so no entry to check against the solver.
#[test]
fn the_check_says_why_sampled_positions_were_left_out() {
    let path = std::env::temp_dir().join(format!("mancala-egdb-left-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    let d = path.to_str().unwrap();
    let o = mancala(&["egdb", "build", "--max-seeds", "3", "--dir", d, "--quiet"]);
    assert!(o.status.success(), "{}", text(&o));
    let o = mancala(&["egdb", "check", "--dir", d]);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    // One seed left on the board: a row is always empty, every game over.
    assert!(
        lines[0].starts_with(
            "level   1:   0 positions agree (20 sampled, 20 were already over and not checked; 0 nodes"
        ),
        "{out}"
    );
    assert!(
        lines[1].starts_with(
            "level   2:  11 positions agree (20 sampled, 9 were already over and not checked;"
        ),
        "{out}"
    );
    let o = mancala(&["egdb", "check", "--dir", d, "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let level2 = &v["levels"][1];
    assert_eq!(
        [
            &level2["sampled"],
            &level2["over"],
            &level2["not_tabled"],
            &level2["positions"]
        ],
        [20, 9, 0, 11]
    );
    for l in v["levels"].as_array().unwrap() {
        assert_eq!(
            l["over"].as_u64().unwrap()
                + l["not_tabled"].as_u64().unwrap()
                + l["positions"].as_u64().unwrap(),
            20,
            "{l}"
        );
    }
    let _ = std::fs::remove_dir_all(&path);
}
