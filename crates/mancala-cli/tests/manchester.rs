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

/// A full game each way: level 6 opens with a move that leaves the swap nothing, so level 6
/// does not swap; against a South that opens with pit 4, which the swap punishes, it swaps
/// (its own games from there); level 2 does not swap. Every game ends by the rules, both
/// agents' stores adding up to the 98 seeds.
#[test]
fn our_agent_plays_our_referee_on_both_seats_with_and_without_a_swap() {
    for (level, swaps) in [(6, false), (2, false)] {
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
    // South opens with pit 4 and then stops: North's answer is the swap.
    let opens = "read a; echo 'MOVE;4'; cat >/dev/null";
    let (s, _, err) = referee(opens, &agent(6, "swap.log"), &["--game-time", "2s"]);
    let g = &s["games"][0];
    assert_eq!(g["swapped"], true, "{g} {err}");
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
        ("read a; sleep 5", &ours, &["--game-time", "1s"], 2, "agent 1 (`read a; sleep 5`) loses: timeout: its 1 s for the game ran out"),
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
    let (s, _, _) = referee(&cmd1, &ours, &["--game-time", "1s"]);
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

/// With `--swap-seats` every line numbers the agents by the command line, as the header
/// does: in the second game agent 2 is South, and its moves, its fault and the result say
/// agent 2; the JSON's winner and fault agree.
#[test]
fn swapped_seats_keep_the_agents_numbers() {
    let ours = agent(1, "numbers.log");
    // South: plays pit 1, then sends a line out of turn. North: answers before any move.
    let rude = "read a; echo 'MOVE;1'; echo garbage; cat >/dev/null";
    let args = [
        "referee",
        "manchester",
        &ours,
        rude,
        "--games",
        "2",
        "--swap-seats",
    ];
    let out = mancala(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{text}");
    let game2 = &text[text.find("Game 2: agent 2 is South").expect("game 2")..];
    let rude_name = format!("agent 2 (`{rude}`)");
    assert!(
        game2.contains(&format!("  {rude_name} plays MOVE;1: ")),
        "{game2}"
    );
    let fault = format!("{rude_name} loses: sent `garbage` when it was not its turn");
    assert!(game2.contains("  agent 1 wins, agent 1 "), "{game2}");
    assert!(game2.contains(&format!("; {fault}\n")), "{game2}");
    assert!(game2.contains("  agent 2: 1 moves, "), "{game2}");

    let (s, code, _) = referee(&ours, rude, &["--games", "2", "--swap-seats"]);
    assert_eq!(code, Some(2));
    let g = &s["games"][1];
    assert_eq!(
        (g["south"].as_u64(), g["winner"].as_u64()),
        (Some(2), Some(1)),
        "{g}"
    );
    assert_eq!(g["fault"].as_str(), Some(fault.as_str()), "{g}");
    assert_eq!(g["moves"][1].as_u64(), Some(1), "{g}");
    // In game 1 agent 2 is North and sends its two lines at once: `MOVE;1` is out of turn
    // if it comes before South's move is read, and North's move if after; `garbage` is out of
    // turn either way. Which one loses depends on the timing, the loser does not.
    let first = s["games"][0]["fault"].as_str().unwrap();
    assert!(
        [
            format!("{rude_name} loses: sent `MOVE;1` when it was not its turn"),
            format!("{rude_name} loses: sent `garbage` when it was not its turn"),
        ]
        .iter()
        .any(|f| f == first),
        "{first}"
    );
    assert_eq!(s["points"], serde_json::json!([2.0, 0.0]));
}

/// The moves the course's Java referee takes (`Integer.parseInt`): a sign, leading zeros.
#[test]
fn moves_with_a_sign_or_leading_zeros_are_played() {
    let ours = agent(1, "java-moves.log");
    for (sent, pit) in [("MOVE;+3", 3), ("MOVE;03", 3), ("MOVE;+007", 7)] {
        let south = format!("read a; echo '{sent}'; cat >/dev/null");
        let out = mancala(&["referee", "manchester", &south, &ours, "--game-time", "1s"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(&format!("agent 1 (`{south}`) plays MOVE;{pit}: ")),
            "{sent}: {text}"
        );
        assert!(text.contains("  agent 1: 1 moves, "), "{sent}: {text}");
    }
    for (sent, why) in [
        ("MOVE;-3", "`MOVE;-3`: a move is MOVE;1 to MOVE;7"),
        ("MOVE;+0", "`MOVE;+0`: a move is MOVE;1 to MOVE;7"),
        ("MOVE; 3", "`MOVE; 3`: a move is MOVE; and a number, 1 to 7"),
        ("MOVE;99999999999", "a move is MOVE; and a number, 1 to 7"),
    ] {
        let south = format!("read a; echo '{sent}'; cat >/dev/null");
        let (s, code, _) = referee(&south, &ours, &[]);
        let fault = s["games"][0]["fault"].as_str().unwrap_or_default();
        assert!(fault.ends_with(why), "{sent}: {fault}");
        assert_eq!(code, Some(2));
    }
}

/// An agent that floods its output while the other thinks loses at once, its lines read
/// ahead bounded, instead of being buffered while the other agent thinks.
#[test]
fn an_agent_that_floods_its_output_loses_at_once() {
    let thinker = "read a; sleep 4; echo 'MOVE;1'; cat >/dev/null";
    let start = std::time::Instant::now();
    let (s, code, err) = referee(thinker, "yes", &["--game-time", "30s"]);
    let took = start.elapsed();
    let g = &s["games"][0];
    assert_eq!(
        g["fault"].as_str(),
        Some("agent 2 (`yes`) loses: it sent more than 64 lines while it was not its turn"),
        "{g}"
    );
    assert_eq!(g["winner"].as_u64(), Some(1), "{g}");
    assert_eq!(code, Some(2), "{err}");
    // Well before the thinking agent's move (4 s): the flood ended the game.
    assert!(took < std::time::Duration::from_millis(3000), "{took:?}");
}

/// A command that does not exist is named as one that cannot start, on either seat.
#[test]
fn a_command_that_does_not_exist_cannot_start() {
    let ours = agent(1, "missing.log");
    let missing = "no-such-command-xyz";
    let why = "cannot start `no-such-command-xyz`: not found (`sh -c` exited with status 127)";
    let (s, code, err) = referee(missing, &ours, &[]);
    let fault = format!("agent 1 (`{missing}`) loses: {why}");
    assert_eq!(s["games"][0]["fault"].as_str(), Some(fault.as_str()), "{s}");
    assert_eq!(code, Some(2));
    assert!(err.contains(&fault), "{err}");
    let (s, _, _) = referee(&ours, missing, &["--games", "2", "--swap-seats"]);
    for g in s["games"].as_array().unwrap() {
        let fault = format!("agent 2 (`{missing}`) loses: {why}");
        assert_eq!(g["fault"].as_str(), Some(fault.as_str()), "{g}");
        assert_eq!(g["winner"].as_u64(), Some(1), "{g}");
    }
}

/// `--time-per-move` holds from the first move on: the engine is made and its table mapped
/// in before the first message is read, and each move counts from the moment its message
/// was read. Every move of both agents, over two games, stays within ten times a 10 ms
/// budget (a margin for a loaded machine; a first move that paid for the table took 136 ms
/// to more than a second).
#[test]
fn time_per_move_holds_from_the_first_move() {
    let dir = env!("CARGO_TARGET_TMPDIR");
    let logs = ["timed1.log", "timed2.log"].map(|l| format!("{dir}/{l}"));
    for log in &logs {
        let _ = std::fs::remove_file(log);
    }
    let timed = |log: &str| format!("{BIN} agent manchester --time-per-move 10ms --log {log}");
    let (s, code, err) = referee(
        &timed(&logs[0]),
        &timed(&logs[1]),
        &["--games", "2", "--swap-seats"],
    );
    assert_eq!(code, Some(0), "{s} {err}");
    for log in &logs {
        let text = std::fs::read_to_string(log).unwrap();
        // Ready before the first message of each game (the log is appended to).
        let mut ready = 0;
        let mut times = Vec::new();
        for line in text.lines() {
            if line.starts_with("ready in ") {
                ready += 1;
            }
            if line.starts_with("<- START") {
                assert_eq!(ready, 1, "{text}");
                ready = 0;
            }
            if let Some(rest) = line.strip_prefix("-> ") {
                let ms = rest.split('(').nth(1).and_then(|t| t.split(' ').next());
                times.push(ms.and_then(|t| t.parse::<u64>().ok()).expect(line));
            }
        }
        assert!(times.len() > 10, "{text}");
        assert!(times.iter().all(|&t| t <= 100), "{times:?}\n{text}");
    }
}
