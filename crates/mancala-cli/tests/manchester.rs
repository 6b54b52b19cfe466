//! `mancala agent manchester` against `mancala referee manchester`, and scripted agents that
//! break the protocol.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_mancala");

fn mancala(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("runs")
}

/// Our agent at `level`, logging to a file of the test's own.
fn agent(level: u8, log: &str) -> String {
    let dir = env!("CARGO_TARGET_TMPDIR");
    format!("{BIN} agent manchester --level {level} --log {dir}/{log}")
}

/// Runs the referee with `--json`: its summary and exit code.
fn referee(cmd1: &str, cmd2: &str, extra: &[&str]) -> (Value, Option<i32>, String) {
    let mut args = vec!["referee", "manchester", cmd1, cmd2, "--json"];
    args.extend_from_slice(extra);
    let out = mancala(&args);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let summary = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {text} {:?}", out.stderr));
    (
        summary,
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A full game each way: level 6 swaps after South's first move, level 2 does not; every
/// game ends by the rules, both agents' stores adding up to the 98 seeds.
#[test]
fn our_agent_plays_our_referee_on_both_seats_with_and_without_a_swap() {
    for (level, swaps) in [(6, true), (2, false)] {
        let (s, code, err) = referee(
            &agent(level, &format!("a1-{level}.log")),
            &agent(level, &format!("a2-{level}.log")),
            &["--games", "2", "--swap-seats"],
        );
        assert_eq!(code, Some(0), "{s} {err}");
        let games = s["games"].as_array().unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(
            (games[0]["south"].as_u64(), games[1]["south"].as_u64()),
            (Some(1), Some(2))
        );
        for g in games {
            assert!(g["fault"].is_null(), "{g}");
            assert_eq!(g["swapped"], swaps, "level {level}: {g}");
            let scores: Vec<u64> = g["scores"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            assert_eq!(scores.iter().sum::<u64>(), 98, "{g}");
            assert!(g["position"].as_str().unwrap().ends_with("/-"), "{g}");
            assert!(g["moves"][0].as_u64().unwrap() > 5, "{g}");
        }
        let points: f64 = s["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_f64().unwrap())
            .sum();
        assert_eq!(points, 2.0);
    }
}

/// The agent answers on standard output and writes nothing to standard error; the swap is
/// its choice where the value says so.
#[test]
fn the_agent_answers_on_stdout_only() {
    let dir = env!("CARGO_TARGET_TMPDIR");
    let mut child = Command::new(BIN)
        .args(["agent", "manchester", "--level", "6"])
        .args(["--log", &format!("{dir}/stdio.log")])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // South opened with pit 1 (into its store, no extra turn on the first move).
    let input = "START;North\nCHANGE;1;7,7,7,7,7,7,7,0,0,8,8,8,8,8,8,1;YOU\n";
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.stderr.is_empty(), "{:?}", out.stderr);
    assert_eq!(out.status.code(), Some(0));
    let line = said.trim();
    assert!(
        line == "SWAP" || (line.starts_with("MOVE;") && line.len() == 6),
        "{said}"
    );
    let log = std::fs::read_to_string(format!("{dir}/stdio.log")).unwrap();
    assert!(log.contains("<- START;North"), "{log}");
}

/// Agents that break the protocol lose, and the summary says which and why.
#[test]
fn misbehaving_agents_lose_for_the_right_reason() {
    let ours = agent(1, "opponent.log");
    // South that opens with pit 1 (no extra turn), then stays quiet.
    let opens = "read a; echo 'MOVE;1'; cat >/dev/null";
    // North that sows pit 1 (7 seeds: its store, an extra turn), then pit 1 again: empty.
    let empties = "read a; read b; echo 'MOVE;1'; read c; echo 'MOVE;1'; cat >/dev/null";
    let cases: [(&str, &str, &[&str], u64, &str); 6] = [
        ("read a; echo HELLO; cat >/dev/null", &ours, &[], 2, "agent 1 (`read a; echo HELLO; cat >/dev/null`) loses: malformed message: `HELLO` is not MOVE;k or SWAP"),
        ("read a; echo 'MOVE;9'; cat >/dev/null", &ours, &[], 2, "malformed message: `MOVE;9`: a move is MOVE;1 to MOVE;7"),
        (opens, empties, &[], 1, "cat >/...`) loses: illegal move MOVE;1: illegal move: pit 1 of North is empty"),
        ("read a; echo SWAP; cat >/dev/null", &ours, &[], 2, "loses: illegal move SWAP: illegal move: a swap is only North's first action"),
        ("read a; sleep 5", &ours, &["--game-time", "1"], 2, "agent 1 (`read a; sleep 5`) loses: timeout: its 1 s for the game ran out"),
        ("read a; sleep 0.3; echo 'MOVE;1'; cat >/dev/null", "echo 'MOVE;1'; cat >/dev/null", &[], 1, "agent 2 (`echo 'MOVE;1'; cat >/dev/null`) loses: sent `MOVE;1` when it was not its turn"),
    ];
    for (cmd1, cmd2, extra, winner, reason) in cases {
        let (s, code, err) = referee(cmd1, cmd2, extra);
        let g = &s["games"][0];
        assert_eq!(g["winner"].as_u64(), Some(winner), "{cmd1} / {cmd2}: {g}");
        let fault = g["fault"].as_str().unwrap_or_default();
        assert!(fault.contains(reason), "{cmd1} / {cmd2}: {fault}");
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains(reason), "{err}");
    }
    // An agent that exits at once: a broken pipe or a closed output, either way its loss.
    let (s, _, _) = referee("exit 0", &ours, &[]);
    let fault = s["games"][0]["fault"].as_str().unwrap();
    assert!(
        fault.starts_with("agent 1 (`exit 0`) loses: ")
            && (fault.contains("broken pipe") || fault.contains("closed its output")),
        "{fault}"
    );
    assert_eq!(s["games"][0]["winner"], 2);
}

/// An agent that times out is ended with everything it started: a child it left running
/// (here a `sleep` that would outlive the game) does not survive the referee.
#[test]
fn a_timed_out_agent_leaves_no_process_behind() {
    let ours = agent(1, "grandchild.log");
    let dir = std::env::temp_dir().join(format!("mancala-grandchild-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pid_file = dir.join("pid");
    let cmd1 = format!(
        "sleep 60 & echo $! > {}; read a; sleep 60",
        pid_file.display()
    );
    let (s, _, _) = referee(&cmd1, &ours, &["--game-time", "1"]);
    assert!(
        s["games"][0]["fault"].as_str().unwrap().contains("timeout"),
        "{s}"
    );
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let pid = pid.trim();
    // `kill -0` fails once the process is gone (a zombie has been reaped by init by then,
    // or shows as state Z, which counts as gone).
    let alive = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "kill -0 {pid} 2>/dev/null && ! grep -q '^State:.*Z' /proc/{pid}/status"
        ))
        .status()
        .unwrap()
        .success();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!alive, "the agent's child {pid} outlived the game");
}

/// A seeded random agent plays the same game again against the greedy one, and another
/// game with another seed; `--player` excludes `--level`.
#[test]
fn a_seeded_random_agent_repeats_its_game() {
    let dir = env!("CARGO_TARGET_TMPDIR");
    let simple = |player: &str, seed: u64| {
        format!("{BIN} agent manchester --player {player} --seed {seed} --log {dir}/simple.log")
    };
    let game = |seed: u64| {
        let (s, code, err) = referee(&simple("random", seed), &simple("greedy", 1), &[]);
        assert_eq!(code, Some(0), "{s} {err}");
        let g = &s["games"][0];
        assert!(g["fault"].is_null(), "{g}");
        g["position"].as_str().unwrap().to_string()
    };
    let first = game(5);
    assert!(first.ends_with("/-"), "{first}");
    assert_eq!(game(5), first);
    assert_ne!(game(6), first);
    // A level that errs on purpose takes the seed too; the same seed, the same game.
    let level2 = |seed: u64| {
        let me = format!("{BIN} agent manchester --level 2 --seed {seed} --log {dir}/l2.log");
        let (s, code, err) = referee(&me, &simple("greedy", 1), &[]);
        assert_eq!(code, Some(0), "{s} {err}");
        s["games"][0]["position"].as_str().unwrap().to_string()
    };
    let l2 = level2(1);
    assert_eq!(level2(1), l2);
    assert!(
        (2..6).any(|s| level2(s) != l2),
        "four seeds, one game: {l2}"
    );
    for args in [
        &["--player", "greedy", "--level", "3"][..],
        &["--player", "best"][..],
    ] {
        let mut all = vec!["agent", "manchester"];
        all.extend_from_slice(args);
        let out = mancala(&all);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}
