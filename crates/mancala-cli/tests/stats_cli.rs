//! `mancala stats` end to end: seeded runs are reproducible, JSON, plots and errors.

use std::process::{Command, Output};

fn mancala(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mancala"))
        .args(args)
        .output()
        .expect("runs")
}

fn ok(args: &[&str]) -> String {
    let o = mancala(args);
    assert!(o.status.success(), "{args:?}: {o:?}");
    String::from_utf8(o.stdout).unwrap()
}

/// `stats` on `variant` for `games` games, then `more` arguments.
fn stats(variant: &str, games: &str, more: &[&str]) -> String {
    ok(&[&["stats", "--variant", variant, "--games", games], more].concat())
}

#[test]
fn same_seed_same_report_whatever_the_threads() {
    let one = stats("kauri", "300", &["--seed", "9", "--threads", "1"]);
    let two = stats("kauri", "300", &["--seed", "9", "--threads", "2"]);
    assert_eq!(one, two);
    assert!(one.starts_with("kauri: 300 games, South random v North random, seed 9"));
    for label in [
        "game length, plies:",
        "game length, turns:",
        "branching per ply:",
        "branching per turn:",
        "complexity by ply:",
        "first player (South):",
        "final margin:",
    ] {
        assert!(one.contains(label), "{label} missing:\n{one}");
    }
    assert_ne!(one, stats("kauri", "300", &["--seed", "10"]));
}

#[test]
fn json_and_engine_players() {
    let text = stats("kalah,seeds=4", "20", &["--players", "random,2", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["games"], 20);
    assert_eq!(v["variant"], "kalah,seeds=4");
    assert_eq!(v["players"][1], "level 2");
    let rates = ["first_wins", "draws", "first_losses"]
        .iter()
        .map(|k| v[k]["rate"].as_f64().unwrap())
        .sum::<f64>();
    assert!((rates - 1.0).abs() < 1e-9);
    let b = v["branching_per_ply"]["mean"].as_f64().unwrap();
    assert!(b > 1.0 && b <= 6.0, "{b}");
    assert!(v["plies"]["min"].as_i64().unwrap() <= v["plies"]["median"].as_i64().unwrap());
}

#[test]
fn writes_a_plot() {
    let path = std::env::temp_dir().join(format!("mancala-stats-cli-{}.svg", std::process::id()));
    let p = path.to_string_lossy().into_owned();
    let out = stats("vaccean", "50", &["--plot", &p]);
    assert!(out.contains(&p));
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(svg.contains("final margin"));
    std::fs::remove_file(&path).ok();
}

#[test]
fn bad_arguments_are_one_line_errors() {
    for (args, needle) in [
        (
            vec!["--players", "9"],
            "level 9 does not exist (levels 1-8)",
        ),
        (vec!["--players", "random,3,4"], "one player or two"),
        (vec!["--plot", "x.pdf"], ".svg or .png"),
        (vec!["--variant", "nope"], "nope"),
        // Named with the reason, before any game is played.
        (
            vec!["--plot", "/nonexistent/dir/x.svg"],
            "--plot /nonexistent/dir/x.svg: cannot write the file: No such file or directory",
        ),
    ] {
        let o = mancala(&[&["stats"], &args[..]].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

/// A plot that cannot be written after the games (here a full disk: /dev/full) is one line
/// naming the file and the fault, not the drawing library's error dump.
#[cfg(target_os = "linux")]
#[test]
fn a_plot_write_error_is_one_line() {
    let dir = std::env::temp_dir().join(format!("mancala-plot-full-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["full.png", "full.svg"] {
        let path = dir.join(name);
        let _ = std::fs::remove_file(&path);
        std::os::unix::fs::symlink("/dev/full", &path).unwrap();
        let p = path.to_str().unwrap();
        let o = mancala(&["stats", "--games", "20", "--seed", "1", "--plot", p]);
        assert_eq!(o.status.code(), Some(2), "{o:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(
            err,
            format!(
                "error: --plot {p}: cannot write the file: No space left on device (os error 28)\n"
            )
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn games_and_threads_are_bounded() {
    for (args, needle) in [
        (
            ["--games", "0"],
            "--games 0: give a number from 1 to 10000000",
        ),
        // Once a capacity overflow: refused before anything is allocated.
        (["--games", "18446744073709551615"], "from 1 to 10000000"),
        (
            ["--threads", "0"],
            "--threads 0: give a number from 1 to 256",
        ),
        (
            ["--threads", "300"],
            "--threads 300: give a number from 1 to 256",
        ),
    ] {
        let o = mancala(&[&["stats"], &args[..]].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.lines().next().unwrap().contains(needle),
            "{args:?}: {err}"
        );
    }
}
