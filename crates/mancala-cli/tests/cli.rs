//! The `mancala` binary end to end: outputs, exit codes and one-line errors.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn mancala(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mancala"))
        .args(args)
        // English whatever the machine's locale (see `the_language_comes_from_lang_or_the_locale`).
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env_remove("LANG")
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("runs")
}

fn with_stdin(args: &[&str], input: impl AsRef<[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mancala"))
        .args(args)
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env_remove("LANG")
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    // A command that refuses its input stops reading it: a broken pipe is its answer.
    let mut stdin = child.stdin.take().unwrap();
    let input = input.as_ref().to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit code 2 and exactly one line on stderr, containing `needle`.
fn assert_bad_input(o: &Output, needle: &str) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    if !needle.is_empty() {
        assert!(err.contains(needle), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    }
}

#[test]
fn perft_prints_the_count_last() {
    let o = mancala(&["perft", "--variant", "kalah,seeds=4", "--depth", "8"]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert_eq!(out.lines().last(), Some("563055"));
    assert!(out.contains("depth  5: 4690"));
    let o = mancala(&[
        "perft",
        "--variant",
        "kalah",
        "--seeds",
        "4",
        "-d",
        "6",
        "--json",
        "--stats",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["leaves"], 23233);
    assert_eq!(v["counts"][2], 185);
    assert!(v["leaves_per_second"].as_f64().unwrap() > 0.0);
    let o = mancala(&[
        "perft",
        "--variant",
        "kalah,seeds=4",
        "-d",
        "10",
        "--full-depth",
        "--threads",
        "2",
    ]);
    assert_eq!(stdout(&o).lines().last(), Some("13519607"));
    let o = mancala(&["perft", "--variant", "kalah,seeds=4", "-d", "1", "--turns"]);
    assert_eq!(stdout(&o).lines().last(), Some("10"));
    // The Manchester rules: North's swap counts as a move (7 x 8 at depth 2).
    let o = mancala(&[
        "perft",
        "--variant",
        "kalah,pits=7,seeds=7",
        "--first-move-extra-turn",
        "false",
        "--pie",
        "true",
        "-d",
        "4",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["counts"], serde_json::json!([7, 56, 364, 2388]));
}

/// A small pie game is solved with the swap among the moves, and `analyze` names it.
#[test]
fn solve_and_analyze_know_the_swap() {
    let rules = "kalah,pits=4,seeds=2,first-move-extra-turn=false,pie=true";
    let o = mancala(&["solve", "--variant", rules, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        v["value"].as_i64().unwrap() <= 0,
        "the swap never loses for North: {v}"
    );
    let pos = format!("{rules}/2-2-0-3/1/2-2-2-2/0/n/opening=swap");
    let o = mancala(&["analyze", &pos, "--all-moves", "--depth", "30", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("\"swap\""), "{out}");
}

#[test]
fn replay_reaches_the_published_scores() {
    let o = mancala(&["replay", "examples/records/dracala-tavares-gering.txt"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("North wins (fewer seeds wins). South 38 : North 26"));
    for (file, score) in [
        ("kauri-sandler-gering-2.txt", "South 33 : North 22"),
        ("kauri-gering-van-patten.txt", "South 34 : North 4"),
    ] {
        let o = mancala(&["replay", &format!("examples/records/{file}")]);
        assert!(stdout(&o).contains(score), "{file}: {}", stderr(&o));
    }
    // The first Kauri game's printed (+1) is a known slip: strict replay says where.
    let o = mancala(&["replay", "examples/records/kauri-sandler-gering-1.txt"]);
    assert_bad_input(&o, "turn 10 (North) `C`");
    let o = mancala(&[
        "replay",
        "examples/records/kauri-sandler-gering-1.txt",
        "--lenient",
    ]);
    assert!(stdout(&o).contains("South 8 : North 31"));
}

/// A resigned game (as the server writes its record) replays to the resignation, in both
/// forms, and keeps it in JSON.
#[test]
fn replay_shows_a_resignation() {
    let path = std::env::temp_dir().join(format!("mancala-resigned-{}.txt", std::process::id()));
    std::fs::write(
        &path,
        "[Variant \"kalah\"]\n[South \"Ann\u{1b}[2J\"]\n[Result \"North wins: South resigned\"]\n1. A  b\n",
    )
    .unwrap();
    let file = path.to_str().unwrap();
    let o = mancala(&["replay", file]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("North wins: South resigned. South 0 : North 0"),
        "{}",
        stdout(&o)
    );
    // A tag's control characters are shown escaped, never sent to the terminal.
    assert!(
        stdout(&o).contains("South: Ann\\u{1b}[2J"),
        "{}",
        stdout(&o)
    );
    assert!(!stdout(&o).contains('\u{1b}'));
    let o = mancala(&["replay", file, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["result"]["resigned"], "south", "{v}");
    std::fs::remove_file(&path).unwrap();
}

/// A game lost on time and one drawn by agreement replay to their ends, as the server's
/// records write them.
#[test]
fn replay_shows_a_loss_on_time_and_an_agreed_draw() {
    for (tag, line, json) in [
        (
            "North wins: South lost on time",
            "North wins: South lost on time. South 0 : North 0",
            serde_json::json!({"time": "south"}),
        ),
        (
            "Draw agreed",
            "Draw: draw agreed. South 0 : North 0",
            serde_json::json!("agreed"),
        ),
    ] {
        let path = std::env::temp_dir().join(format!(
            "mancala-stopped-{}-{}.txt",
            std::process::id(),
            json.is_string()
        ));
        std::fs::write(
            &path,
            format!("[Variant \"kalah\"]\n[TimeControl \"3+2\"]\n[Result \"{tag}\"]\n1. A  b\n"),
        )
        .unwrap();
        let file = path.to_str().unwrap();
        let o = mancala(&["replay", file]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stdout(&o).contains(line), "{}", stdout(&o));
        assert!(
            stdout(&o).contains("\nTime control: 3+2\n"),
            "{}",
            stdout(&o)
        );
        let o = mancala(&["replay", file, "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["result"]["stopped"], json, "{v}");
        assert_eq!(v["time_control"], "3+2", "{v}");
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
fn replay_json_round_trips() {
    let o = mancala(&[
        "replay",
        "examples/records/dracala-tavares-gering.txt",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["turns"].as_array().unwrap().len(), 27);
    assert_eq!(v["result"]["south"], 38);
    assert_eq!(v["result"]["winner"], "north");
    let json = stdout(&o);
    let o = with_stdin(&["replay", "-"], &json);
    assert!(stdout(&o).contains("South 38 : North 26"), "{}", stderr(&o));
    // A wrong result is refused as a text record's wrong score is, and replayed with
    // --lenient.
    let bad = json.replacen("\"south\": 38", "\"south\": 39", 1);
    assert_ne!(bad, json);
    assert_bad_input(
        &with_stdin(&["replay", "-"], &bad),
        "(`mancala replay --lenient -` replays the moves anyway)",
    );
    let o = with_stdin(&["replay", "-", "--lenient"], &bad);
    assert!(stdout(&o).contains("South 38 : North 26"), "{}", stderr(&o));
    assert!(stderr(&o).contains("note:"), "{}", stderr(&o));
}

#[test]
fn a_replay_and_its_note_speak_the_language_asked_for() {
    let slip = "[Variant \"kalah\"]\n[South \"Ana\"]\n1. C (+9) f\n";
    let o = with_stdin(&["replay", "-", "--lenient", "--lang", "pt"], slip);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("Sul: Ana"), "{}", stdout(&o));
    assert!(stdout(&o).contains("1. Sul: C"), "{}", stdout(&o));
    assert_eq!(
        stderr(&o).trim(),
        "note: stdin: registro: vez 1 (Sul) `C`: o registro dá ganho no armazém (+n) = 9, a \
         reprodução dá 0 [linha 3, coluna 4 (em `C (+9) f`)]"
    );
    // Without --lenient the fault ends the command, in the same language.
    let o = with_stdin(&["replay", "-", "--lang", "pt"], slip);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("error: stdin: registro: vez 1 (Sul) `C`: o registro dá"),
        "{}",
        stderr(&o)
    );
    let o = with_stdin(
        &["replay", "-", "--lang", "es"],
        "[Variant \"kalah\"]\n1. A a 2. A\n",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("del Sur"), "{}", stderr(&o));
    // English by default, as before.
    let o = with_stdin(&["replay", "-", "--lenient"], slip);
    assert!(stdout(&o).contains("South: Ana"), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("the record gives store gain (+n) = 9"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn bad_input_gets_one_line_and_exit_2() {
    assert_bad_input(
        &mancala(&["perft", "--variant", "chess", "-d", "2"]),
        "unknown preset",
    );
    assert_bad_input(
        &mancala(&["perft", "--variant", "kalah", "--seeds", "0", "-d", "2"]),
        "seeds",
    );
    assert_bad_input(
        &mancala(&[
            "perft",
            "--variant",
            "kauri",
            "--capture",
            "empty",
            "-d",
            "2",
        ]),
        "does not apply",
    );
    assert_bad_input(
        &mancala(&["perft", "--end", "X", "-d", "2"]),
        "error: rules: option `end` is any-row-empty or mover-empty, got `X`",
    );
    assert_bad_input(
        &mancala(&["perft", "--position", "kalah/1-2/0/0/0/s", "-d", "2"]),
        "position",
    );
    assert_bad_input(
        &mancala(&["replay", "no-such-file.txt"]),
        "no-such-file.txt",
    );
    assert_bad_input(
        &with_stdin(&["replay", "-", "--variant", "kalah"], "1. A z"),
        "unexpected `z`",
    );
    assert_bad_input(&with_stdin(&["replay", "-"], "1. A b"), "names no variant");
    assert_bad_input(&with_stdin(&["replay", "-"], "{\"rules\": 3}"), "JSON");
    assert_bad_input(&mancala(&["rules", "tic-tac-toe"]), "unknown preset");
    assert_bad_input(&mancala(&["perft"]), ""); // clap usage error
}

/// Errors quote their input with its control characters escaped: a record, a file name or a
/// typed line cannot send escape sequences to the terminal.
#[test]
fn errors_show_control_characters_escaped() {
    let o = with_stdin(&["replay", "-"], "[Variant \"kalah\"]\n1. E\u{1b}[2J f\n");
    assert_bad_input(
        &o,
        "line 2, column 5 (at `\\u{1b}[2J f`): unexpected `\\u{1b}`, expected a pit letter",
    );
    assert!(!stderr(&o).contains('\u{1b}'), "{:?}", stderr(&o));
    let o = mancala(&["replay", "no-such\u{1b}[2J.txt"]);
    assert_bad_input(&o, "reading no-such\\u{1b}[2J.txt");
    assert!(!stderr(&o).contains('\u{1b}'), "{:?}", stderr(&o));
    let o = with_stdin(&["play"], "x\u{1b}[2J\nquit\n");
    assert!(
        stdout(&o).contains("`x\\u{1b}[2J` is not a pit or a command"),
        "{}",
        stdout(&o)
    );
    assert!(!stdout(&o).contains('\u{1b}'), "{:?}", stdout(&o));
}

/// `tui --load` takes the rules named beside it as `replay` does (the record's own, or its
/// rules where it names none) and refuses a position beside it; neither is dropped silently.
#[test]
fn tui_load_refuses_options_that_conflict_with_the_record() {
    let record = "examples/records/dracala-tavares-gering.txt";
    assert_bad_input(
        &mancala(&["tui", "--variant", "kauri", "--load", record]),
        "the record plays `dracala`, not `kauri`",
    );
    assert_bad_input(
        &mancala(&["tui", "--seeds", "4", "--load", record]),
        "the record plays `dracala`, not `kalah,seeds=4`",
    );
    assert_bad_input(
        &mancala(&[
            "tui",
            "--position",
            "kalah/3-3-3-3-3-3/0/3-3-3-3-3-3/0/s",
            "--load",
            record,
        ]),
        "give --position or --load, not both",
    );
    // A record that names no variant opens with the one given (then the test, having no
    // terminal, stops).
    let path = temp_file("tui-untagged.txt", b"1. C c\n");
    let o = mancala(&[
        "tui",
        "--variant",
        "kalah",
        "--load",
        path.to_str().unwrap(),
    ]);
    assert_bad_input(&o, "`mancala tui` needs a terminal");
    std::fs::remove_file(path).ok();
}

/// Command-line errors are one line with exit code 2, as every other error: clap's message
/// and the similar name it suggests, without its usage lines and tips. Help and version
/// are printed whole, exit code 0.
#[test]
fn command_line_errors_are_one_line() {
    for (args, line) in [
        (
            vec!["perft"],
            "error: the following required arguments were not provided: --depth <DEPTH>",
        ),
        (
            vec!["egdb", "probe"],
            "error: the following required arguments were not provided: --dir <DIR>, <POSITION>",
        ),
        (
            vec!["play", "--first", "x"],
            "error: invalid value 'x' for '--first <FIRST>' [possible values: human, ai]",
        ),
        (
            vec!["perft", "-d", "0"],
            "error: --depth 0: give a number from 1 to 40",
        ),
        (
            vec!["pertf"],
            "error: unrecognized subcommand 'pertf' (a similar subcommand exists: 'perft')",
        ),
        (
            vec!["perft", "--dept", "3"],
            "error: unexpected argument '--dept' found (a similar argument exists: '--depth')",
        ),
        (
            vec!["replay", "--bogus", "x"],
            "error: unexpected argument '--bogus' found",
        ),
    ] {
        let o = mancala(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr(&o), format!("{line}\n"), "{args:?}");
    }
    let o = mancala(&["--version"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o),
        format!("mancala {}\n", env!("CARGO_PKG_VERSION"))
    );
    let o = mancala(&["perft", "--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("Usage: mancala perft [OPTIONS] --depth <DEPTH>"));
    assert!(stdout(&o).lines().count() > 10, "{}", stdout(&o));
}

#[test]
fn rules_and_variants() {
    let o = mancala(&["rules", "dracala"]);
    assert!(stdout(&o).contains("only the moves with the largest capture are legal"));
    let o = mancala(&["rules", "kalah", "--capture", "empty", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["name"], "kalah,capture=empty");
    let o = mancala(&["variants", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["presets"].as_array().unwrap().len(), 7);
    assert!(stdout(&mancala(&["variants"])).contains("kalah-brazil"));
}

#[test]
fn play_a_whole_game_from_stdin_and_save_it() {
    let dir = std::env::temp_dir().join(format!("mancala-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (variant, record) in [
        ("kalah", "game.txt"),
        ("kauri", "game.json"),
        ("dracala", "d.txt"),
    ] {
        let path = dir.join(record);
        // Cycle through every pit; illegal ones are refused with a message and play goes on.
        let moves: String = (0..400)
            .map(|k| format!("{}\n", (b'a' + (k % 6) as u8) as char))
            .collect();
        let input = format!("undo\nhint\n{moves}");
        let o = with_stdin(
            &[
                "play",
                "--variant",
                variant,
                "--level",
                "1",
                "--seed",
                "5",
                "--save",
                path.to_str().unwrap(),
            ],
            &input,
        );
        let out = stdout(&o);
        assert!(o.status.success(), "{variant}: {}", stderr(&o));
        assert!(out.contains("Nothing to undo."), "{variant}");
        assert!(out.contains("Hint:"), "{variant}");
        if variant == "kalah" {
            // The default game usually proves within the hint's second (a loaded machine
            // may fall back to the search); either way the hint says which.
            assert!(
                out.contains("Hint: E: +2 for South (South wins by 2), proven")
                    || out.contains("search to depth"),
                "{out}"
            );
        }
        if variant == "dracala" {
            // Fewer seeds win: the hint says so, with the outcome in words for South.
            let hint = out.lines().find(|l| l.contains("Hint:")).unwrap();
            assert!(
                hint.contains("for South (South")
                    && hint.contains("fewer seeds win)")
                    && (hint.contains("wins by")
                        || hint.contains("loses by")
                        || hint.contains("a draw")),
                "{hint}"
            );
        }
        assert!(
            out.contains("wins") || out.contains("Draw"),
            "{variant}: the game ends\n{out}"
        );
        let replayed = mancala(&["replay", path.to_str().unwrap()]);
        assert!(
            replayed.status.success(),
            "{variant}: {}",
            stderr(&replayed)
        );
        let last = out
            .lines()
            .rev()
            .find(|l| l.contains(" : North "))
            .unwrap()
            .to_string();
        let score = &last[last.find("South").unwrap()..];
        assert!(stdout(&replayed).contains(score), "{variant}: {score}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A `--save` path that cannot be written is refused before the first move, and the check
/// leaves no file behind where it could.
#[test]
fn play_refuses_an_unwritable_save_path_before_the_game() {
    let o = with_stdin(
        &["play", "--save", "/nonexistent-dir/x/game.txt"],
        "a\nb\nc\n",
    );
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains("--save /nonexistent-dir/x/game.txt: cannot write there"),
        "{e}"
    );
    assert!(
        !stdout(&o).contains("South"),
        "no board was shown: {}",
        stdout(&o)
    );
    let path = std::env::temp_dir().join(format!("mancala-save-{}.txt", std::process::id()));
    let o = with_stdin(&["play", "--save", path.to_str().unwrap()], "quit\n");
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::remove_file(&path).ok();
}

/// A directory is no place to save a record: `save DIR` says so without asking to replace
/// it, and `--save DIR` is refused before the game, with `--force` too.
#[test]
fn play_refuses_to_save_to_a_directory() {
    let dir = std::env::temp_dir();
    let d = dir.to_str().unwrap();
    let o = with_stdin(&["play"], format!("save /\nsave {d}\nquit\n"));
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("/ is a directory: give a file name (save FILE)\nNot saved."),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "{d} is a directory: give a file name (save FILE)\nNot saved."
        )),
        "{out}"
    );
    assert!(!out.contains("Replace it?"), "{out}");
    for force in [false, true] {
        let mut args = vec!["play", "--save", "/"];
        if force {
            args.push("--force");
        }
        let o = with_stdin(&args, "quit\n");
        assert_bad_input(&o, "--save /: / is a directory: give a file name");
        assert!(!stdout(&o).contains("South"), "no game: {}", stdout(&o));
    }
}

/// `--save` refuses a file that exists unless `--force` is given, and at the end does not
/// replace a file that appeared there during the game without asking.
#[test]
fn play_save_does_not_replace_a_file_unasked() {
    let path = temp_file("play-existing.txt", b"important\n");
    let p = path.to_str().unwrap();
    let o = with_stdin(&["play", "--save", p], "quit\n");
    assert_bad_input(
        &o,
        &format!("--save {p}: the file exists (add --force to replace it)"),
    );
    assert!(!stdout(&o).contains("South"), "no game: {}", stdout(&o));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "important\n");
    let o = with_stdin(&["play", "--save", p, "--force"], "quit\n");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&path).unwrap().contains("[Variant"));
    // A file made at the path after the start: asked about, and kept when the answer is no
    // (here the input ends).
    std::fs::remove_file(&path).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mancala"))
        .args(["play", "--save", p])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let mut out = child.stdout.take().unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 256];
    while !String::from_utf8_lossy(&seen).contains("Your move") {
        use std::io::Read;
        let n = out.read(&mut buf).unwrap();
        assert!(n > 0, "{}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buf[..n]);
    }
    std::fs::write(&path, "made meanwhile\n").unwrap();
    child.stdin.take().unwrap().write_all(b"quit\n").unwrap();
    std::io::Read::read_to_end(&mut out, &mut seen).unwrap();
    let o = child.wait_with_output().unwrap();
    let rest = String::from_utf8_lossy(&seen);
    assert!(
        rest.contains(&format!("{p} exists. Replace it? [y/N]")),
        "{rest}"
    );
    assert_bad_input(
        &o,
        &format!(
            "the record is printed above: --save {p}: a file was made there during the game; not replaced"
        ),
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "made meanwhile\n");
    std::fs::remove_file(&path).ok();
}

/// `moves` before the first move says so instead of printing nothing.
#[test]
fn play_moves_before_any_move() {
    let o = with_stdin(&["play"], "moves\nquit\n");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("No moves yet."), "{}", stdout(&o));
}

/// Under the pie rule North may type `swap` as its first action, and only then.
#[test]
fn play_takes_the_swap() {
    let args = [
        "play",
        "--variant",
        "kalah,pits=4,seeds=2",
        "--first-move-extra-turn",
        "false",
        "--pie",
        "true",
        "--first",
        "ai",
        "--level",
        "1",
    ];
    let o = with_stdin(&args, "swap\nswap\nmoves\nquit\n");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("[a b c d swap]"), "{out}");
    assert!(
        out.contains("You play swap. You take over the position South built; South moves."),
        "{out}"
    );
    assert!(
        out.contains("illegal move: a swap is only North's first action"),
        "{out}"
    );
    assert!(out.contains("  swap\n2. "), "{out}");
}

/// The end of the input ends the game, saying so.
#[test]
fn play_says_when_the_input_ends() {
    let o = with_stdin(&["play"], "moves\n");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("End of input: game left unfinished."),
        "{}",
        stdout(&o)
    );
}

/// `save` asks before replacing a file it did not write itself.
#[test]
fn play_save_asks_before_replacing() {
    let dir = std::env::temp_dir().join(format!("mancala-save-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("notes.txt");
    std::fs::write(&path, "important\n").unwrap();
    let p = path.to_str().unwrap();
    let o = with_stdin(&["play"], format!("save {p}\nn\nquit\n"));
    assert!(
        stdout(&o).contains("exists. Replace it? [y/N] Not saved."),
        "{}",
        stdout(&o)
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "important\n");
    let o = with_stdin(&["play"], format!("save {p}\ny\nsave {p}\nquit\n"));
    assert_eq!(
        stdout(&o).matches("Replace it?").count(),
        1,
        "{}",
        stdout(&o)
    );
    assert!(std::fs::read_to_string(&path).unwrap().contains("[Variant"));
    std::fs::remove_dir_all(&dir).ok();
}

/// A line that is not UTF-8 is refused like a bad command; the game goes on and is saved.
#[test]
fn play_survives_a_line_that_is_not_text() {
    let dir = std::env::temp_dir().join(format!("mancala-utf8-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("game.txt");
    let path = path.to_str().unwrap();
    let o = with_stdin(&["play", "--save", path], b"C\n\xff\xfe\nquit\n");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("That line is not text"),
        "{}",
        stdout(&o)
    );
    let saved = std::fs::read_to_string(path).unwrap();
    assert!(saved.contains("1. C"), "{saved}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `match --json` gives no made-up Elo: none after a sweep, open interval ends as null.
#[test]
fn match_json_elo_is_null_where_unbounded() {
    let run = |seed: &str| {
        let o = mancala(&[
            "match",
            "--variant",
            "kalah,seeds=3",
            "--a",
            "1",
            "--b",
            "1",
            "--games",
            "2",
            "--seed",
            seed,
            "--json",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    let sweep = run("1");
    assert_eq!(sweep["losses"], 2, "{sweep}");
    assert!(
        sweep["elo"].is_null() && sweep["elo_95"][0].is_null(),
        "{sweep}"
    );
    let even = run("4");
    assert_eq!(
        (&even["wins"], &even["losses"]),
        (&1.into(), &1.into()),
        "{even}"
    );
    assert_eq!(even["elo"], 0.0, "{even}");
    assert!(
        even["elo_95"][0].is_null() && even["elo_95"][1].is_null(),
        "{even}"
    );
}

/// `match` and `stats` read the scripted players `agent --player` has: greedy (and random)
/// play whole games there too.
#[test]
fn match_and_stats_take_greedy_and_random() {
    let o = mancala(&[
        "match",
        "--variant",
        "kalah,seeds=3",
        "--a",
        "greedy",
        "--b",
        "random",
        "--games",
        "2",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (&v["a"], &v["b"], &v["games"]),
        (&"greedy".into(), &"random".into(), &2.into())
    );
    let o = mancala(&[
        "stats",
        "--variant",
        "kalah,seeds=3",
        "--games",
        "10",
        "--players",
        "greedy,1",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["players"],
        serde_json::json!(["greedy", "level 1"]),
        "{v}"
    );
    assert_eq!(v["games"], 10);
}

/// Every game drawn bounds nothing: no 95% interval (it had been `+0 to +0`).
#[test]
fn match_all_drawn_gives_no_interval() {
    // One seed a pit on one pit: every game ends 1 : 1.
    let args = [
        "match",
        "--variant",
        "kalah,pits=1,seeds=1",
        "--a",
        "1",
        "--b",
        "2",
        "--games",
        "4",
    ];
    let o = mancala(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "kalah,pits=1,seeds=1: 1 vs 2, 4 games: +0 =4 -0, score 50.0%\n\
         Elo difference (A - B): +0, unbounded (every game was drawn: 4 draws alone cannot bound it; more games or openings are needed)\n"
    );
    let o = mancala(&[&args[..], &["--json"]].concat());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["draws"], 4, "{v}");
    assert_eq!(v["elo"], 0.0, "{v}");
    assert_eq!(v["elo_95"], serde_json::json!([null, null]), "{v}");
    assert_eq!(
        v["elo_note"],
        "every game was drawn: draws alone cannot bound the difference"
    );
}

/// An option both in `--variant` and as its flag is refused, not silently overridden.
#[test]
fn an_option_in_the_variant_and_as_a_flag_is_refused() {
    let o = mancala(&["solve", "--variant", "kalah,seeds=4", "--seeds", "3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("option seeds is given twice: in `kalah,seeds=4` and as --seeds"),
        "{}",
        stderr(&o)
    );
    // The `rules` command's preset is no --variant: the message quotes what was typed.
    let o = mancala(&["rules", "kalah,seeds=4", "--seeds", "3"]);
    assert!(
        stderr(&o).contains("option seeds is given twice: in `kalah,seeds=4` and as --seeds"),
        "{}",
        stderr(&o)
    );
    let o = mancala(&["rules", "kalah", "--capture", "empty"]);
    assert!(
        stdout(&o).starts_with("kalah,capture=empty"),
        "{}",
        stdout(&o)
    );
}

/// `--egdb` naming a directory without tables of these rules says so and still solves.
#[test]
fn solve_notes_endgame_tables_that_do_not_cover_the_rules() {
    let dir = std::env::temp_dir().join(format!("mancala-no-egdb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let o = mancala(&[
        "solve",
        "--variant",
        "kalah,pits=3,seeds=2",
        "--egdb",
        dir.to_str().unwrap(),
    ]);
    std::fs::remove_dir_all(&dir).ok();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("holds no endgame table of kalah,pits=3,seeds=2"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn solve_proves_kalah_6_3() {
    let o = mancala(&[
        "solve",
        "--variant",
        "kalah",
        "--json",
        "--stats",
        "--tt-mb",
        "64",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["value"], 2);
    assert!(v["nodes"].as_u64().unwrap() > 0);
    // A small board from a position, North to move.
    let o = mancala(&[
        "solve",
        "--position",
        "kalah,pits=3,seeds=2/0-1-1/5/2-0-3/0/n",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["value_is"].as_str().unwrap().contains("North"));
}

#[test]
fn analyze_a_position_and_a_record() {
    let o = mancala(&[
        "analyze",
        "kalah,seeds=4/1-0-4-4-4-4/0/4-5-6-0-9-0/7/s",
        "--depth",
        "6",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // C ends in the store, then A captures the 9 seeds opposite: both in one turn.
    assert_eq!(v["best"], "C");
    assert!(v["pv"].as_str().unwrap().starts_with("C-A"), "{}", v["pv"]);
    assert_eq!(v["depth"], 6);
    let o = mancala(&[
        "analyze",
        "examples/records/kauri-gering-van-patten.txt",
        "--depth",
        "2",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["moves"].as_array().unwrap().len(), 15);
    for m in v["moves"].as_array().unwrap() {
        // Null where the best move's value is less certain than the played one's.
        assert!(
            m["loss"].is_null() || m["loss"].as_i64().unwrap() >= 0,
            "{m}"
        );
    }
    assert_bad_input(&mancala(&["analyze", "kalah/0/0"]), "position");
    // A record is checked as replay checks it: the known slip of this one is refused, and
    // analysed with --lenient, the slip a note.
    let slip = "examples/records/kauri-sandler-gering-1.txt";
    assert_bad_input(
        &mancala(&["analyze", slip, "--depth", "1"]),
        "turn 10 (North) `C`",
    );
    let o = mancala(&["analyze", slip, "--depth", "1", "--lenient", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("note:"), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["moves"].as_array().unwrap().len(), 18);
    // An empty record is refused, not analysed as nothing.
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("mancala-empty.txt");
    std::fs::write(&empty, "").unwrap();
    let args = ["analyze", empty.to_str().unwrap(), "--variant", "kalah"];
    let o = mancala(&args);
    let it = mancala(&[&args[..], &["--lang", "it"]].concat());
    assert_bad_input(&o, "mancala-empty.txt: ");
    assert_bad_input(&o, "the record has no moves");
    assert_bad_input(&it, "la registrazione non ha mosse");
    assert!(
        stderr(&o).contains("`mancala analyze 'kalah/"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn analyze_speaks_the_language_asked_and_its_json_stays_english() {
    // The Dracala endgame of the test below: every move proven, the lowest margin first.
    let pos = "dracala/3-2-0-0-1-0/31/0-0-0-3-0-0/32/s";
    let o = mancala(&[
        "analyze",
        pos,
        "--all-moves",
        "--time",
        "2s",
        "--lang",
        "pt",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[1].contains("-10 para Sul (Sul vence por 10, menos sementes vence), provado"),
        "{out}"
    );
    assert!(lines[2].contains(", entrega 3"), "{out}");
    assert!(lines.last().unwrap().starts_with("melhor linha: "), "{out}");
    // One position's search, in Italian: the best move, its value and the line.
    let o = mancala(&["analyze", pos, "--depth", "6", "--lang", "it"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("mossa migliore "), "{out}");
    assert!(out.contains("variante principale: "), "{out}");
    // (A proof may finish below the depth asked: the depth reported varies.)
    let stats = out.lines().last().unwrap();
    assert!(
        stats.starts_with("profondità ") && stats.contains(" nodi, "),
        "{out}"
    );
    // A record, in Spanish: each move against the best, the seeds lost by each side.
    let rec = "examples/records/dracala-tavares-gering.txt";
    let o = mancala(&["analyze", rec, "--depth", "2", "--lang", "es"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.lines().next().unwrap().starts_with("  1. Sur "),
        "{out}"
    );
    assert!(out.contains("  mejor "), "{out}");
    assert!(out.contains("(búsqueda a profundidad 2)"), "{out}");
    let last = out.lines().last().unwrap();
    assert!(
        last.starts_with("semillas perdidas frente a las mejores jugadas: Sur "),
        "{out}"
    );
    assert!(last.contains("menos es mejor"), "{out}");
    // A note on stderr is for people: in the language asked, with --json too.
    let slip = "examples/records/kauri-sandler-gering-1.txt";
    let args = ["analyze", slip, "--depth", "1", "--lenient", "--lang", "it"];
    let o = mancala(&[&args[..], &["--json"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("turno 10 (Nord) `C`"), "{}", stderr(&o));
    // --json is for machines: English whatever --lang says.
    let o = mancala(&["analyze", rec, "--depth", "2", "--lang", "es", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["values_are"],
        "final seed margin for the mover (misère: lower is better); proven, or a search's value at the depth given"
    );
}

/// A record whose annotation disagrees with its moves (the Kauri source's slip) fails its
/// check in `replay` and `analyze` alike, the error naming the file and giving the command
/// that replays it anyway; that command replays it.
#[test]
fn a_failed_record_check_names_the_file_and_the_lenient_command() {
    let file = "examples/records/kauri-sandler-gering-1.txt";
    let fault = "record: turn 10 (North) `C`: the record gives direct capture (+n) = 1, the \
                 replay gives 0 [line 5, column 43 (at `C (+1); 6. a`)]";
    for command in ["replay", "analyze"] {
        let o = mancala(&[command, file]);
        assert_eq!(o.status.code(), Some(2), "{command}");
        assert_eq!(
            stderr(&o),
            format!(
                "error: {file}: {fault} (`mancala {command} --lenient {file}` replays the moves anyway)\n"
            )
        );
    }
    let o = mancala(&["replay", "--lenient", file]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).starts_with(&format!("note: {file}: {fault}")),
        "{}",
        stderr(&o)
    );
    let o = mancala(&["replay", file, "--lang", "es"]);
    assert!(
        stderr(&o).ends_with(&format!(
            "(`mancala replay --lenient {file}` reproduce los movimientos de todos modos)\n"
        )),
        "{}",
        stderr(&o)
    );
}

/// A record's analysis names the side whose value each one is, in every language.
#[test]
fn a_records_values_name_their_side() {
    let record = "examples/records/dracala-tavares-gering.txt";
    for (lang, first, third) in [
        (
            "en",
            "  1. South 1  value +1 for South (search to depth 4)  best 3 +0 for South (search to depth 4)  (not proven: the depth-4 search prefers 3 by 1)",
            "  3. North 5  value +0 for North (search to depth 4)  best 1 -1 for North (search to depth 4)  (not proven: the depth-4 search prefers 1 by 1)",
        ),
        (
            "pt",
            "  1. Sul 1  valor +1 para Sul (busca à profundidade 4)  melhor 3 +0 para Sul (busca à profundidade 4)  (não provado: a busca à profundidade 4 prefere 3 por 1)",
            "  3. Norte 5  valor +0 para Norte (busca à profundidade 4)  melhor 1 -1 para Norte (busca à profundidade 4)  (não provado: a busca à profundidade 4 prefere 1 por 1)",
        ),
    ] {
        let o = mancala(&["analyze", record, "--depth", "4", "--threads", "1", "--lang", lang]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = stdout(&o);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], first, "{lang}");
        assert_eq!(lines[2], third, "{lang}");
    }
}

#[test]
fn analyze_all_moves_values_every_move_as_the_analysis_board() {
    // A Kalah endgame, North to move: every move proven, best first, with the best line.
    let pos = "kalah/1-0-2-0-0-1/14/0-3-0-1-0-2/12/n";
    let o = mancala(&["analyze", pos, "--all-moves", "--time", "2s", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let moves = v["moves"].as_array().unwrap();
    let got: Vec<(&str, i64, i64)> = moves
        .iter()
        .map(|m| {
            assert_eq!(m["eval"]["proven"], true, "{m}");
            (
                m["move"].as_str().unwrap(),
                m["eval"]["margin"].as_i64().unwrap(),
                m["loss"].as_i64().unwrap(),
            )
        })
        .collect();
    // The server's recorded answer for this position (tests/shapes.rs) says the same.
    assert_eq!(got, [("b", -4, 0), ("d", -8, 4), ("f", -8, 4)]);
    assert!(
        v["line"].as_str().unwrap().starts_with("b "),
        "{}",
        v["line"]
    );
    // Dracala: the lowest margin first, in words that say fewer seeds win.
    let o = mancala(&[
        "analyze",
        "dracala/3-2-0-0-1-0/31/0-0-0-3-0-0/32/s",
        "--all-moves",
        "--time",
        "2s",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[1].contains("-10 for South (South wins by 10, fewer seeds win), proven"),
        "{out}"
    );
    assert!(lines[2].contains("gives away 3"), "{out}");
    assert!(lines.last().unwrap().starts_with("best line: "), "{out}");
    // A record's moves are judged one by one: --all-moves is for a position.
    assert_bad_input(
        &mancala(&[
            "analyze",
            "examples/records/kauri-gering-van-patten.txt",
            "--all-moves",
        ]),
        "--all-moves values the moves of a position string",
    );
}

/// Runs `mancala args` and fails the test if it has not finished within `limit`.
fn mancala_within(args: &[&str], limit: std::time::Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mancala"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let t0 = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > limit {
            child.kill().ok();
            panic!("`mancala {}` still running after {limit:?}", args.join(" "));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A record's analysis values a position's moves alike and calls a move a mistake only
/// against a value as sure as its own: B, proven best at +4 in the sixth move of this game,
/// was called a 9-seed blunder when an earlier search's depth was reused for it.
#[test]
fn record_analysis_agrees_with_the_proofs() {
    let dir = std::env::temp_dir().join(format!("mancala-analysis-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let short = dir.join("short.txt");
    std::fs::write(
        &short,
        "[Variant \"kalah\"]\n1. E (+1)  f (+1)\n2. D-F (+2)  a (+5)\n3. B\n",
    )
    .unwrap();
    let o = mancala(&[
        "analyze",
        short.to_str().unwrap(),
        "--time",
        "1s",
        "--threads",
        "1",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let moves = v["moves"].as_array().unwrap();
    let b = &moves[5];
    assert_eq!(b["played"], "B");
    assert_eq!(b["eval"]["proven"], true, "{b}");
    assert_eq!(b["eval"]["margin"], 4, "{b}");
    assert_eq!(b["loss"], 0, "{b}");
    // `solve --openings` of the positions: after D, F is +0 where C is +2; North's a is -4
    // where c is +0.
    assert_eq!(
        (moves[3]["eval"]["margin"].clone(), moves[3]["loss"].clone()),
        (0.into(), 2.into())
    );
    assert_eq!(
        (moves[4]["eval"]["margin"].clone(), moves[4]["loss"].clone()),
        ((-4).into(), 4.into())
    );
    for m in moves {
        if m["eval"]["proven"] == true && m["best_eval"]["proven"] == true {
            let want =
                m["best_eval"]["margin"].as_i64().unwrap() - m["eval"]["margin"].as_i64().unwrap();
            assert_eq!(m["loss"], want, "{m}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `--time` bounds every search of a record's analysis: this Kauri record's analysis at 50 ms
/// a move had never finished (each move was then searched again, untimed, to the depth the
/// timed search had reached).
#[test]
fn a_timed_analysis_of_a_kauri_record_finishes() {
    let dir = std::env::temp_dir().join(format!("mancala-kauri-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let k = dir.join("k.txt");
    std::fs::write(
        &k,
        "[Variant \"kauri\"]\n1. e E; 2. e F; 3. b C (+2); 4. e D; 5. c A (+2);\n6. e\n",
    )
    .unwrap();
    let args = [
        "analyze",
        k.to_str().unwrap(),
        "--time",
        "50ms",
        "--threads",
        "1",
    ];
    let o = mancala_within(&args, std::time::Duration::from_secs(60));
    assert!(o.status.success(), "{}", stderr(&o));
    // Every move of the record (the summary line says "values" too).
    let rows = stdout(&o)
        .lines()
        .filter(|l| l.contains("  value "))
        .count();
    assert_eq!(rows, 11, "{}", stdout(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn match_reports_results_and_elo() {
    let o = mancala(&[
        "match",
        "--variant",
        "kalah,pits=4,seeds=3",
        "--a",
        "5",
        "--b",
        "1",
        "--games",
        "8",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["games"], 8);
    let (w, d, l) = (
        v["wins"].as_u64().unwrap(),
        v["draws"].as_u64().unwrap(),
        v["losses"].as_u64().unwrap(),
    );
    assert_eq!(w + d + l, 8);
    assert!(w > l, "level 5 beats level 1: +{w} ={d} -{l}");
    assert_bad_input(&mancala(&["match", "--a", "0", "--b", "1"]), "level 0");
    assert_bad_input(&mancala(&["match", "--a", "mcts:x", "--b", "1"]), "mcts:N");
    // Monte Carlo tree search as a player (Kauri: it beats the shallow levels).
    let o = mancala(&[
        "match",
        "--variant",
        "kauri",
        "--a",
        "mcts:1500",
        "--b",
        "2",
        "--games",
        "4",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["score"].as_f64().unwrap() > 0.5, "{v}");
}

/// A clap error: exit code 2, and the first line names the value and its range.
fn assert_out_of_range(args: &[&str], needle: &str) {
    let o = mancala(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    let first = err.lines().next().unwrap_or_default();
    assert!(first.contains(needle), "{args:?}: {first}");
}

#[test]
fn numeric_flags_have_ranges() {
    let pos = "kalah/3-3-3-3-3-3/0/3-3-3-3-3-3/0/s";
    // A table larger than the memory left is refused before it is touched (the mapping
    // alone would succeed, and the table fill memory until the process was killed).
    if mancala_engine::tt::mem_available().is_some_and(|m| m < 64 << 30) {
        assert_bad_input(
            &mancala(&["solve", "--tt-mb", "65536", "--time", "3s"]),
            "a transposition table of 65536 MiB does not fit",
        );
    }
    for (args, needle) in [
        (
            vec!["analyze", pos, "--depth", "0"],
            "--depth 0: give a number from 1 to 254",
        ),
        (
            vec!["analyze", pos, "--time", "0ms"],
            "`0ms` is out of range: from 1 ms to 24 h",
        ),
        (
            vec!["analyze", pos, "--time", "25h"],
            "`25h` is out of range: from 1 ms to 24 h",
        ),
        (
            vec!["analyze", pos, "--time", "3 weeks"],
            "unknown time unit `weeks` (use ms, s, m or h)",
        ),
        (
            vec!["analyze", pos, "--threads", "99999"],
            "--threads 99999: give a number from 1 to 256",
        ),
        (
            vec!["analyze", pos, "--tt-mb", "0"],
            "--tt-mb 0: give a number from 1 to 65536",
        ),
        (vec!["perft", "--depth", "0"], "from 1 to 40"),
        (
            vec!["perft", "--depth", "41"],
            "--depth 41: give a number from 1 to 40",
        ),
        (
            vec!["solve", "--time", "99999999999999999s"],
            "out of range: from 1 ms to 8760 h",
        ),
        (
            vec!["solve", "--time", "5"],
            "`5` has no unit: write `5ms` or `5s` (or `m`, `h`)",
        ),
        (vec!["solve", "--time", "fast"], "`fast` is not a time"),
        (
            vec!["match", "--a", "1", "--b", "2", "--games", "9999999999"],
            "--games 9999999999: give a number from 1 to 1000000",
        ),
        (
            vec!["stats", "--games", "99999999999999999999"],
            "--games 99999999999999999999: give a number from 1 to 10000000",
        ),
        (
            vec!["stats", "--games", "18446744073709551615"],
            "give a number from 1 to 10000000",
        ),
        (
            vec!["match", "--a", "1", "--b", "2", "--openings", "5000"],
            "--openings 5000: give a number from 0 to 1000",
        ),
        (
            vec!["play", "--level", "300"],
            "level 300 does not exist (levels 1-8)",
        ),
        (vec!["tui", "--speed", "999999"], "from 0 to 5000"),
        (vec!["stats", "--max-plies", "0"], "from 1 to 1000000"),
        (vec!["stats", "--opening", "99999999999"], "from 0 to 1000"),
        (
            vec!["egdb", "build", "--max-seeds", "100", "--dir", "x"],
            "--max-seeds 100: give a number from 1 to 64",
        ),
        (
            vec![
                "egdb",
                "build",
                "--max-seeds",
                "4",
                "--threads",
                "100000",
                "--dir",
                "x",
            ],
            "--threads 100000: give a number from 1 to 256",
        ),
    ] {
        assert_out_of_range(&args, needle);
    }
    // Values too large for their type say so, with the range, in the checks of our own.
    for (args, needle) in [
        (
            vec!["perft", "--seeds", "300", "-d", "1"],
            "seeds must be 1 to 20, got 300",
        ),
        (
            vec!["stats", "--players", "300"],
            "level 300 does not exist (levels 1-8)",
        ),
        (
            vec!["tui", "--north", "99999999999999999999"],
            "does not exist (levels 1-8)",
        ),
        (
            vec!["match", "--a", "mcts:99999999999", "--b", "1"],
            "mcts:N takes 1 to 1000000 playouts",
        ),
    ] {
        assert_bad_input(&mancala(&args), needle);
    }
}

/// A negative number given to a numeric option is said as the option's range, as any
/// number out of it is, not as an unknown flag.
#[test]
fn negative_numbers_are_given_the_range() {
    let pos = "kalah/3-3-3-3-3-3/0/3-3-3-3-3-3/0/s";
    for (args, line) in [
        (
            vec!["stats", "--games", "-1"],
            "--games -1: give a number from 1 to 10000000",
        ),
        (
            vec!["perft", "--depth", "-1"],
            "--depth -1: give a number from 1 to 40",
        ),
        (
            vec!["analyze", pos, "--threads", "-5"],
            "--threads -5: give a number from 1 to 256",
        ),
        // A parser of unsigned numbers refuses `-3` as no number: its range is still said.
        (
            vec!["serve", "--ai-time-ms", "-3"],
            "--ai-time-ms -3: give a number from 1 to 600000",
        ),
        (
            vec!["kgp-server", "--games", "-2"],
            "--games -2: give a number from 1 to 1000",
        ),
        (
            vec!["tui", "--speed", "-1"],
            "--speed -1: give a number from 0 to 5000",
        ),
    ] {
        let o = mancala(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(stderr(&o), format!("error: {line}\n"), "{args:?}");
    }
}

/// Every address a command listens on or connects to is HOST:PORT, and a wrong one says
/// so before anything is bound.
#[test]
fn addresses_are_host_and_port() {
    let how = "write HOST:PORT, e.g. 127.0.0.1:8080";
    for (args, needle) in [
        (
            vec!["serve", "--addr", "localhost"],
            format!("--addr <ADDR>': `localhost` has no port: {how}"),
        ),
        (
            vec!["serve", "--kgp-addr", "2671"],
            format!("`2671` has no port: {how}"),
        ),
        (
            vec!["serve", "--kgp-ws-addr", ":2672"],
            format!("`:2672` has no host: {how}"),
        ),
        (
            vec!["kgp-server", "--addr", "localhost"],
            format!("`localhost` has no port: {how}"),
        ),
        (
            vec!["kgp-server", "--ws-addr", "localhost:ws"],
            format!("`ws` is not a port (0 to 65535): {how}"),
        ),
        (
            vec!["tournament", "--bots", "2", "--listen", "0.0.0.0"],
            format!("`0.0.0.0` has no port: {how}"),
        ),
        (
            vec!["agent", "kgp", "--server", "localhost"],
            format!("`localhost` has no port: {how}"),
        ),
    ] {
        assert_bad_input(&mancala(&args), &needle);
    }
}

/// A file in a fresh temporary folder.
fn temp_file(name: &str, contents: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mancala-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

#[test]
fn record_file_errors_name_the_file_and_line() {
    let bad = temp_file("bad.txt", b"[Variant \"kalah\"]\n\n1. A z\n");
    let p = bad.to_str().unwrap();
    for cmd in ["replay", "analyze"] {
        let o = mancala(&[cmd, p, "--depth", "1"][..if cmd == "replay" { 2 } else { 4 }]);
        assert_bad_input(&o, p);
        assert!(stderr(&o).contains("line 3"), "{cmd}: {}", stderr(&o));
    }
    let twice = temp_file(
        "twice.txt",
        b"[Variant \"kalah\"]\n[Variant \"kauri\"]\n1. A\n",
    );
    let p = twice.to_str().unwrap();
    let o = mancala(&["analyze", p, "--depth", "1"]);
    assert_bad_input(&o, p);
    assert!(
        stderr(&o).contains("line 2: a second Variant tag"),
        "{}",
        stderr(&o)
    );
    let json = temp_file(
        "bad.json",
        b"{\"rules\": \"kalah\", \"turns\": [{\"side\": \"north\", \"moves\": [{\"pit\": 1}]}]}",
    );
    let p = json.to_str().unwrap();
    assert_bad_input(&mancala(&["analyze", p, "--depth", "1"]), p);
    assert_bad_input(&mancala(&["replay", p]), p);
    // A path naming no file is not taken for a bad position alone.
    assert_bad_input(
        &mancala(&["analyze", "no/such/game.txt"]),
        "`no/such/game.txt`: no such file, and not a position string",
    );
    // Nor a word without `/`s, such as a preset's name.
    assert_bad_input(
        &mancala(&["analyze", "dracala"]),
        "`dracala`: no such file, and not a position string (`RULES/SOUTH-PITS/",
    );
    for f in [bad, twice, json] {
        std::fs::remove_dir_all(f.parent().unwrap()).ok();
    }
}

#[test]
fn input_over_4_mib_is_refused_before_parsing() {
    let big = vec![b'A'; 5 << 20];
    let path = temp_file("big.txt", &big);
    let p = path.to_str().unwrap();
    for cmd in ["replay", "analyze"] {
        assert_bad_input(&mancala(&[cmd, p]), &format!("{p}: more than 4 MiB"));
    }
    let o = with_stdin(&["replay", "-"], std::str::from_utf8(&big).unwrap());
    assert_bad_input(&o, "stdin: more than 4 MiB");
    std::fs::remove_dir_all(path.parent().unwrap()).ok();
}

/// A reader that stops early (`mancala replay ... | head -1`) ends the program quietly: killed
/// by SIGPIPE, as other command-line tools are, not a panic.
#[cfg(unix)]
#[test]
fn a_closed_output_pipe_is_no_panic() {
    use std::os::unix::process::ExitStatusExt;
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_mancala"))
        .args(["replay", "examples/records/dracala-tavares-gering.txt"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.signal(), Some(13), "{:?}", out.status);
}

/// A Kauri tie on seeds decided by the cowrie rule counts one seed for its winner in the
/// engine; `solve` says it is a tie, not a one-seed margin.
#[test]
fn solve_names_a_kauri_tie_break() {
    let p = "kauri,pits=2,seeds=1/0c1-0c1/2/0c1-0c1/2/s";
    let o = mancala(&["solve", "--position", p, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["value"], -1);
    assert_eq!(v["eval"]["tie_break"], true);
    let is = v["value_is"].as_str().unwrap();
    assert!(
        is.starts_with("equal seeds") && !is.contains("margin"),
        "{is}"
    );
    assert_eq!(
        v["eval"]["text"],
        "tie won by North (South loses on equal seeds by the cowrie rule), proven"
    );
    let o = mancala(&["solve", "--position", p]);
    assert!(stdout(&o).contains("South loses on equal seeds by the cowrie rule"));
}

/// `--lang` or the locale chooses the language of the rules text and of `play`; `--json`
/// stays English; a language that is not one of the four is refused.
#[test]
fn the_language_comes_from_lang_or_the_locale() {
    let pt = mancala(&["rules", "kauri", "--lang", "pt"]);
    assert!(pt.status.success());
    let text = String::from_utf8(pt.stdout).unwrap();
    assert!(
        text.contains("Cada casa começa com 5 sementes e 1 búzio (60 sementes, 12 búzios ao todo)"),
        "{text}"
    );
    let env = |vars: &[(&str, &str)], args: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_mancala"));
        c.args(args)
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .env_remove("LANG")
            .stdin(Stdio::null());
        for (k, v) in vars {
            c.env(k, v);
        }
        String::from_utf8(c.output().unwrap().stdout).unwrap()
    };
    let it = env(&[("LANG", "it_IT.UTF-8")], &["rules", "kalah"]);
    assert!(it.contains("Tavoliere: 6 case per lato"), "{it}");
    let en = env(
        &[("LANG", "it_IT.UTF-8"), ("LC_ALL", "C")],
        &["rules", "kalah"],
    );
    assert!(
        en.starts_with("kalah: sow counter-clockwise; a last seed in your store"),
        "{en}"
    );
    let json = env(&[("LANG", "es_ES.UTF-8")], &["rules", "kalah", "--json"]);
    assert!(json.contains("Board: 6 pits a side"), "{json}");
    let es = env(&[("LANG", "es_ES.UTF-8")], &["play", "--seed", "1"]);
    assert!(
        es.contains("Usted es Sur (fila de abajo, primer jugador)"),
        "{es}"
    );
    assert!(
        es.contains("Fin de la entrada: partida sin terminar."),
        "{es}"
    );
    assert!(
        es.contains("Norte a la izquierda, Sur a la derecha"),
        "{es}"
    );
    let out = mancala(&["rules", "kalah", "--lang", "de"]);
    assert_bad_input(&out, "unknown language `de`");
    let err = stderr(&out);
    assert!(
        err.contains("for '--lang <LANG>': unknown language `de` (languages: en, pt, es, it)"),
        "{err}"
    );
}

/// A record of a small game is proven whole, so no exactly best move is called a mistake: in
/// the Vaccean game A is the only best first move (+2 for South, `solve --variant vaccean`),
/// and a search-valued difference is never said as a loss.
#[test]
fn a_small_games_record_is_judged_by_proofs() {
    let rec = temp_file(
        "vaccean-short.txt",
        b"[Variant \"vaccean\"]\n1. A  c\n2. B  b\n",
    );
    let o = mancala(&["analyze", rec.to_str().unwrap(), "--json", "--time", "50ms"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let moves = v["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), 4);
    for m in moves {
        assert_eq!(m["eval"]["proven"], true, "{m}");
        assert_eq!(m["best_eval"]["proven"], true, "{m}");
    }
    assert_eq!(
        (moves[0]["value"].as_i64(), moves[0]["best"].as_str()),
        (Some(2), Some("A"))
    );
    assert_eq!(moves[0]["loss"], 0);
    // North's b gives away 4 against d, proven.
    assert_eq!(
        (moves[3]["loss"].as_i64(), moves[3]["loss_proven"].as_bool()),
        (Some(4), Some(true))
    );
}

/// Undo after an extra turn takes back one sowing, as in the TUI and on the server: South
/// sows D (an extra turn) and A, the computer answers, and undo leaves South after D, to
/// move again (the record saved then holds D alone).
#[test]
fn play_undo_after_an_extra_turn_takes_back_one_sowing() {
    let path = std::env::temp_dir().join(format!("mancala-undo-{}.json", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let input = format!("D\nA\nundo\nsave {}\nquit\n", path.display());
    let o = with_stdin(&["play", "--level", "1", "--seed", "1"], &input);
    assert!(o.status.success(), "{}", stderr(&o));
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let _ = std::fs::remove_file(&path);
    assert_eq!(
        rec["turns"],
        serde_json::json!([{"side": "south", "moves": [{"pit": 4}]}])
    );
}

/// `mancala user`: the password comes from standard input (never a flag), is checked, and
/// never printed; a second account of the same name in another case is refused.
#[test]
fn user_accounts_from_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    let db = db.to_str().unwrap();
    let o = with_stdin(&["user", "add", "Ann", "--db", db], "a long password\n");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "account `Ann` made\n");
    let o = with_stdin(&["user", "add", "ann", "--db", db], "another password\n");
    assert_bad_input(&o, "the name `ann` is taken");
    let o = with_stdin(&["user", "add", "Bob", "--db", db], "short\n");
    assert_bad_input(&o, "at least 8 characters");
    let o = with_stdin(
        &["user", "reset-password", "ANN", "--db", db],
        "new password!\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stdout(&o).contains("new password!") && !stderr(&o).contains("new password!"));
    let o = mancala(&["user", "disable", "nobody", "--db", db]);
    assert_bad_input(&o, "no account `nobody`");
    let o = mancala(&["user", "add", "Ann", "--password", "x", "--db", db]);
    assert!(!o.status.success(), "a password is never a flag");
}
