//! Threshold proofs and proofs split into jobs, end to end through the binary: `solve
//! --at-least/--at-most`, `solve --split`, `prove-job`, `run-jobs` and `solve --merge`
//! agree with the direct proof of Kalah(6,3) (+2 for South), a wrong hypothesis is found and
//! the next round corrects it, and broken files are refused with one line naming them.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn mancala(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mancala"))
        .args(args)
        .output()
        .expect("runs")
}

fn ok_json(args: &[&str]) -> Value {
    let o = mancala(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = String::from_utf8_lossy(&o.stdout);
    serde_json::from_str(out.lines().last().expect("a line")).expect("JSON")
}

fn error_of(args: &[&str]) -> String {
    let o = mancala(args);
    assert_eq!(o.status.code(), Some(2), "{args:?} should fail");
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{args:?}: one line: {err}");
    err
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn bounds_answer_as_the_exact_value_does() {
    let exact = ok_json(&["solve", "--json", "--tt-mb", "16"]);
    assert_eq!(exact["value"], 2);
    let r = ok_json(&["solve", "--at-least", "2", "--json", "--tt-mb", "16"]);
    assert_eq!(
        (&r["holds"], &r["side"], &r["question"]),
        (
            &Value::from(true),
            &Value::from("south"),
            &Value::from("at-least")
        )
    );
    assert!(r["at_least"].as_i64().unwrap() >= 2);
    let r = ok_json(&["solve", "--at-least", "3", "--json", "--tt-mb", "16"]);
    assert_eq!(r["holds"], false);
    assert!(r["at_most"].as_i64().unwrap() <= 2);
    let r = ok_json(&["solve", "--at-most", "2", "--json", "--tt-mb", "16"]);
    assert_eq!(
        (&r["holds"], &r["threshold"]),
        (&Value::from(true), &Value::from(2))
    );
    let r = ok_json(&["solve", "--at-most", "0", "--json", "--tt-mb", "16"]);
    assert_eq!(r["holds"], false);
    // North's view of a position with North to move: the same game, signs turned.
    let pos = "kalah/0-4-4-0-4-4/5/3-3-0-3-3-3/0/n";
    let v = ok_json(&["solve", "--position", pos, "--json", "--tt-mb", "16"])["value"]
        .as_i64()
        .unwrap();
    let k = v.to_string();
    let above = (v + 1).to_string();
    let r = ok_json(&["solve", "--position", pos, "--at-least", &k, "--json"]);
    assert_eq!(
        (&r["holds"], &r["side"]),
        (&Value::from(true), &Value::from("north"))
    );
    let r = ok_json(&["solve", "--position", pos, "--at-least", &above, "--json"]);
    assert_eq!(r["holds"], false);
}

/// Both bounds of Kalah(6,3) through jobs give its exact value, +2: at least +2 (two turns
/// deep) and at most +2 (one turn deep: every first turn of South refuted), as the direct
/// proof gives.
#[test]
fn split_jobs_prove_both_bounds_of_the_exact_value() {
    let exact = ok_json(&["solve", "--json", "--tt-mb", "16"]);
    assert_eq!(exact["value"], 2);
    let dir = tempfile::tempdir().unwrap();
    let lo = dir.path().join("lo");
    let r = ok_json(&[
        "solve",
        "--split",
        "2",
        "--jobs",
        path(&lo),
        "--at-least",
        "2",
        "--parallel",
        "2",
        "--tt-mb",
        "8",
        "--json",
    ]);
    assert_eq!(
        (&r["status"], &r["holds"]),
        (&Value::from("proven"), &Value::from(true))
    );
    assert!(r["unproven"].as_array().unwrap().is_empty());
    // Merging again changes nothing and writes no job.
    let again = ok_json(&["solve", "--merge", path(&lo), "--json"]);
    assert_eq!(
        (&again["status"], &again["new_jobs"]),
        (&Value::from("proven"), &Value::from(Vec::<u32>::new()))
    );

    let hi = dir.path().join("hi");
    let r = ok_json(&[
        "solve",
        "--split",
        "1",
        "--jobs",
        path(&hi),
        "--at-most",
        "2",
        "--parallel",
        "2",
        "--tt-mb",
        "8",
        "--json",
    ]);
    // The split's own question (at least +3) is refuted: the one asked (at most +2) holds.
    assert_eq!(
        (&r["status"], &r["holds"]),
        (&Value::from("refuted"), &Value::from(true))
    );
    assert_eq!(r["at_least"], 3);
    assert!(
        r["answer"].as_str().unwrap().contains("proven <= +2"),
        "{r}"
    );
}

/// `holds` answers the question as asked, `--at-least K` or `--at-most K`, the same through
/// a split proof's merge as in the direct proof, on either side of the value of Kalah(4,3).
#[test]
fn merged_and_direct_bounds_answer_the_same_question() {
    let rules = ["solve", "--variant", "kalah", "--pits", "4", "--seeds", "3"];
    let with = |extra: &[&str]| -> Vec<String> {
        rules.iter().chain(extra).map(|s| s.to_string()).collect()
    };
    let run = |args: Vec<String>| ok_json(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let v = run(with(&["--json", "--tt-mb", "8"]))["value"]
        .as_i64()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut answers = Vec::new();
    for (flag, k) in [
        ("--at-least", v),
        ("--at-least", v + 1),
        ("--at-most", v),
        ("--at-most", v - 1),
    ] {
        let k = k.to_string();
        let direct = run(with(&[flag, &k, "--json", "--tt-mb", "8"]));
        let d = dir.path().join(format!("{flag}{k}"));
        let split = run(with(&[
            "--split",
            "2",
            "--jobs",
            path(&d),
            flag,
            &k,
            "--json",
        ]));
        assert_eq!(split["status"], "open", "{split}");
        let o = mancala(&["run-jobs", path(&d), "--tt-mb", "8"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let merged = run(vec![
            "solve".into(),
            "--merge".into(),
            path(&d).into(),
            "--json".into(),
            "--parallel".into(),
            "2".into(),
        ]);
        assert_eq!(
            merged["holds"], direct["holds"],
            "{flag} {k}: {merged} {direct}"
        );
        answers.push(direct["holds"].as_bool().unwrap());
    }
    // The value itself is within both bounds, one past it in neither.
    assert_eq!(answers, [true, false, true, false]);
}

/// Splits "South wins the default game by at least 2" two turns deep into `DIR/jobs`, the round
/// still open; returns that directory.
fn split_at_least_2(dir: &Path) -> std::path::PathBuf {
    let d = dir.join("jobs");
    let r = ok_json(&[
        "solve",
        "--split",
        "2",
        "--jobs",
        path(&d),
        "--at-least",
        "2",
        "--json",
    ]);
    assert_eq!(r["status"], "open");
    d
}

/// The short searches' order replaced by the worst first: the first round bets on a losing
/// turn, its jobs refute it, the merge says so and writes the next round, and the run by
/// hand (`run-jobs`, then `--merge`) ends with the root proven.
#[test]
fn a_wrong_hypothesis_is_refuted_and_the_next_round_fixes_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = split_at_least_2(dir.path());
    // Turn the guesses round: South's worst first turn first.
    let mpath = d.join("split.json");
    let mut m: Value = serde_json::from_str(&std::fs::read_to_string(&mpath).unwrap()).unwrap();
    for (_, v) in m["guesses"].as_object_mut().unwrap() {
        *v = Value::from(-v.as_i64().unwrap());
    }
    std::fs::write(&mpath, serde_json::to_string(&m).unwrap()).unwrap();
    for f in std::fs::read_dir(&d).unwrap() {
        let p = f.unwrap().path();
        if p.file_name().unwrap().to_str().unwrap().starts_with("job-")
            || p.ends_with("round-1.txt")
        {
            std::fs::remove_file(p).unwrap();
        }
    }
    let r = ok_json(&["solve", "--merge", path(&d), "--json"]);
    assert_eq!(
        (&r["status"], &r["round"]),
        (&Value::from("open"), &Value::from(1))
    );
    let mut rounds = 1;
    loop {
        let o = mancala(&["run-jobs", path(&d), "--parallel", "2", "--tt-mb", "8"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let r = ok_json(&["solve", "--merge", path(&d), "--json"]);
        if r["status"] != "open" {
            assert_eq!(r["status"], "proven", "{r}");
            assert!(!r["failed"].as_array().unwrap().is_empty(), "{r}");
            break;
        }
        rounds += 1;
        assert_eq!(r["round"], rounds, "{r}");
        assert!(!r["new_jobs"].as_array().unwrap().is_empty(), "{r}");
        assert!(rounds < 20, "no end: {r}");
    }
    assert!(rounds >= 2, "the worst turn first takes a second round");
}

/// Under `--time`, every job that gives up says so on its own line as it ends, and the jobs
/// that finished keep their results.
#[test]
fn run_jobs_names_every_job_that_gave_up() {
    let dir = tempfile::tempdir().unwrap();
    let d = split_at_least_2(dir.path());
    let o = mancala(&[
        "run-jobs",
        path(&d),
        "--parallel",
        "2",
        "--tt-mb",
        "8",
        "--time",
        "1ms",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    let jobs = |suffix: &str| {
        std::fs::read_dir(&d)
            .unwrap()
            .map(|f| f.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.starts_with("job-") && n.ends_with(suffix))
            .count()
    };
    let gave_up = err
        .lines()
        .filter(|l| l.starts_with(path(&d)) && l.contains("did not finish within the time limit"))
        .count();
    let (results, all) = (jobs(".result.json"), jobs(".json"));
    let questions = all - results;
    assert!(questions > 0);
    assert_eq!(
        gave_up,
        questions - results,
        "a line for each job without a result: {err}"
    );
    assert_eq!(o.status.success(), gave_up == 0, "{err}");
}

#[test]
fn broken_job_and_result_files_are_refused_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("jobs");
    ok_json(&[
        "solve",
        "--split",
        "1",
        "--jobs",
        path(&d),
        "--at-least",
        "2",
        "--json",
    ]);
    // A file where the jobs' directory should be.
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let e = error_of(&[
        "solve",
        "--split",
        "1",
        "--jobs",
        path(&file),
        "--at-least",
        "2",
    ]);
    assert!(e.contains("a-file: not a directory"), "{e}");
    let job = d.join("job-000001.json");
    let o = mancala(&["prove-job", path(&job), "--tt-mb", "8", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let result = d.join("job-000001.result.json");
    let good = std::fs::read_to_string(&result).unwrap();

    // A truncated result.
    std::fs::write(&result, &good[..good.len() / 2]).unwrap();
    let e = error_of(&["solve", "--merge", path(&d)]);
    assert!(
        e.contains("job-000001.result.json") && e.contains("not a valid job result"),
        "{e}"
    );
    // A result whose answer contradicts its bound.
    let mut v: Value = serde_json::from_str(&good).unwrap();
    v["holds"] = Value::from(!v["holds"].as_bool().unwrap());
    std::fs::write(&result, v.to_string()).unwrap();
    let e = error_of(&["solve", "--merge", path(&d)]);
    assert!(e.contains("corrupt"), "{e}");
    // Bounds past every seed of the game (36) and impossible times.
    for (key, bad) in [
        ("bound", Value::from(99)),
        ("bound", Value::from(-37)),
        ("seconds", Value::from(-5.0)),
        ("wall_seconds", Value::from(1e308)),
    ] {
        let mut v: Value = serde_json::from_str(&good).unwrap();
        if key == "bound" {
            v["holds"] = Value::from(bad.as_i64().unwrap() >= v["at_least"].as_i64().unwrap());
        }
        v[key] = bad;
        std::fs::write(&result, v.to_string()).unwrap();
        let e = error_of(&["solve", "--merge", path(&d)]);
        assert!(e.contains("corrupt") && e.contains(key), "{key}: {e}");
    }
    // A result of another question.
    let mut v: Value = serde_json::from_str(&good).unwrap();
    v["at_least"] = Value::from(-30);
    v["holds"] = Value::from(true);
    v["bound"] = Value::from(-30);
    std::fs::write(&result, v.to_string()).unwrap();
    let e = error_of(&["solve", "--merge", path(&d)]);
    assert!(e.contains("another question"), "{e}");
    std::fs::write(&result, &good).unwrap();

    // Job files: garbage, another format, a position that does not parse.
    let good_job = std::fs::read_to_string(&job).unwrap();
    std::fs::write(&job, "{\"format\": ").unwrap();
    let e = error_of(&["prove-job", path(&job)]);
    assert!(
        e.contains("job-000001.json") && e.contains("not a valid job file"),
        "{e}"
    );
    let other = d.join("job-000099.json");
    std::fs::write(&other, "\u{0}\u{1}binary").unwrap();
    let e = error_of(&["prove-job", path(&other)]);
    assert!(e.contains("not a valid job file"), "{e}");
    let mut j: Value = serde_json::from_str(&good_job).unwrap();
    j["id"] = Value::from(99);
    j["format"] = Value::from("mancala-job/9");
    std::fs::write(&other, j.to_string()).unwrap();
    let e = error_of(&["prove-job", path(&other)]);
    assert!(e.contains("format"), "{e}");
    j["format"] = Value::from("mancala-job/1");
    j["position"] = Value::from("kalah/3-3-x/0/3-3/0/s");
    std::fs::write(&other, j.to_string()).unwrap();
    let e = error_of(&["prove-job", path(&other)]);
    assert!(e.contains("position"), "{e}");
    // The merge names the broken job too.
    let e = error_of(&["solve", "--merge", path(&d)]);
    assert!(e.contains("job-0000"), "{e}");

    // No manifest; a second split into the same directory.
    let e = error_of(&["solve", "--merge", path(dir.path())]);
    assert!(e.contains("split.json"), "{e}");
    let e = error_of(&["solve", "--split", "1", "--jobs", path(&d)]);
    assert!(e.contains("already"), "{e}");
    // Rules a split cannot combine.
    let e = error_of(&[
        "solve",
        "--variant",
        "dracala",
        "--split",
        "1",
        "--jobs",
        path(&dir.path().join("x")),
    ]);
    assert!(e.contains("misère"), "{e}");
}
