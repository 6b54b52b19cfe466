//! Split proofs of small boards, end to end in the library: the split, every job proven,
//! the merge against a direct proof; damaged files refused with their name, and never a
//! panic on any damage.

use std::path::{Path, PathBuf};

use mancala_core::{Position, Rules};
use proptest::prelude::*;

use super::*;
use crate::Engine;

const RULES: &str = "kalah,pits=4,seeds=3";

fn start() -> Position {
    Position::start(&RULES.parse::<Rules>().unwrap()).unwrap()
}

fn exact_value(pos: &Position) -> i32 {
    let r = Engine::new(16, 1)
        .solve(pos, crate::Limits::default(), &[])
        .unwrap();
    r.eval.margin
}

fn options() -> JobOptions {
    JobOptions {
        tt_mb: Some(8),
        threads: 1,
        ..JobOptions::default()
    }
}

/// Splits `threshold` about `pos` into `dir`, then proves every job each merge waits for,
/// round after round, until the root is decided.
fn split_and_prove(pos: &Position, turns: u32, dir: &Path, threshold: Threshold) -> MergeReport {
    let first = split(pos, turns, dir, Some(threshold), None, &()).unwrap();
    assert_eq!(first.round, 1);
    assert!(!first.new_jobs.is_empty() || first.status != Status::Open);
    run_rounds::<SplitError>(dir, first, |r| {
        for f in &r.unproven {
            prove_job(f, &options(), false, &())?;
        }
        Ok(())
    })
    .unwrap()
}

#[test]
fn a_split_bound_merges_to_the_direct_proof() {
    let pos = start();
    let v = exact_value(&pos);
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(16, 1);
    for (i, t) in [
        Threshold::at_least(v),
        Threshold::at_least(v + 1),
        Threshold::at_most(v),
        Threshold::at_most(v - 1),
    ]
    .into_iter()
    .enumerate()
    {
        let d = dir.path().join(format!("t{i}"));
        let r = split_and_prove(&pos, 2, &d, t);
        let direct = engine
            .prove_at_least(
                &pos,
                pos.to_move(),
                t.at_least,
                crate::Budget::UNLIMITED,
                &[],
            )
            .unwrap();
        let want = if t.asked_at_most {
            !direct.holds
        } else {
            direct.holds
        };
        assert_eq!(r.status == Status::Yes, direct.holds, "{t:?}: {r:?}");
        assert_eq!(r.holds(), Some(want), "{t:?}");
        assert_eq!(r.to_json(&d)["holds"], want, "{t:?}");
        assert!(r.unproven.is_empty());
        assert!(r.results > 0 && r.results <= r.jobs);
        // Merging again writes nothing and says the same.
        let again = merge(&d).unwrap();
        assert_eq!((again.status, again.new_jobs.len()), (r.status, 0));
        assert!(pending(&d).unwrap().is_empty());
    }
}

#[test]
fn a_job_with_a_result_is_not_proven_again() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("jobs");
    let r = split(&start(), 1, &d, Some(Threshold::at_least(0)), None, &()).unwrap();
    let job = d.join(job_name(r.new_jobs[0]));
    let first = prove_job(&job, &options(), false, &()).unwrap();
    assert_eq!(first.holds, first.bound >= 0);
    let want = if first.holds {
        "proven >= +0"
    } else {
        "proven < +0"
    };
    assert!(first.proven.starts_with(want), "{}", first.proven);
    let again = prove_job(&job, &options(), false, &()).unwrap();
    assert_eq!(again, first);
    assert_eq!(JobResult::read(&result_path(&job)).unwrap(), first);
}

fn split_one(dir: &Path) -> (PathBuf, String, String) {
    let d = dir.join("jobs");
    let r = split(&start(), 1, &d, Some(Threshold::at_least(1)), None, &()).unwrap();
    let job = d.join(job_name(r.new_jobs[0]));
    prove_job(&job, &options(), false, &()).unwrap();
    let job_text = std::fs::read_to_string(&job).unwrap();
    let result_text = std::fs::read_to_string(result_path(&job)).unwrap();
    (job, job_text, result_text)
}

#[test]
fn malformed_job_and_result_files_are_refused_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let (job, job_text, result_text) = split_one(dir.path());
    let result = result_path(&job);
    let name = |e: &SplitError| e.to_string();

    std::fs::write(&job, &job_text[..job_text.len() / 2]).unwrap();
    let e = Job::read(&job).unwrap_err();
    assert!(matches!(e, SplitError::Json { .. }), "{e}");
    assert!(name(&e).starts_with(&job.display().to_string()), "{e}");
    assert!(name(&e).contains("not a valid job file"), "{e}");
    let e = prove_job(&job, &options(), false, &()).unwrap_err();
    assert!(name(&e).contains("job-000001.json"), "{e}");
    std::fs::write(&job, &job_text).unwrap();

    // An unknown field, another format, a position that does not parse.
    let e = Job::parse(&job, job_text.replacen('{', "{\"extra\": 1,", 1).as_bytes()).unwrap_err();
    assert!(matches!(e, SplitError::Json { .. }), "{e}");
    let e = Job::parse(
        &job,
        job_text
            .replace("mancala-job/1", "mancala-job/9")
            .as_bytes(),
    )
    .unwrap_err();
    assert!(name(&e).contains("format `mancala-job/9`"), "{e}");
    let mut v: serde_json::Value = serde_json::from_str(&job_text).unwrap();
    v["position"] = "kalah,pits=4/3-x/0/3-3/0/s".into();
    let e = Job::parse(&job, v.to_string().as_bytes()).unwrap_err();
    assert!(
        matches!(
            e,
            SplitError::Parse {
                what: "position",
                ..
            }
        ),
        "{e}"
    );

    std::fs::write(&result, "{\"format\": ").unwrap();
    let e = merge(job.parent().unwrap()).unwrap_err();
    assert!(
        name(&e).contains("job-000001.result.json") && name(&e).contains("not a valid job result"),
        "{e}"
    );
    // A bound past every seed of the game (24), an answer against its bound.
    let mut v: serde_json::Value = serde_json::from_str(&result_text).unwrap();
    v["bound"] = 25.into();
    v["holds"] = true.into();
    let e = JobResult::parse(&result, v.to_string().as_bytes()).unwrap_err();
    assert!(matches!(e, SplitError::Corrupt { .. }), "{e}");
    assert!(name(&e).contains("beyond the game's 24 seeds"), "{e}");
    let mut v: serde_json::Value = serde_json::from_str(&result_text).unwrap();
    v["holds"] = (!v["holds"].as_bool().unwrap()).into();
    let e = JobResult::parse(&result, v.to_string().as_bytes()).unwrap_err();
    assert!(name(&e).contains("corrupt: the answer"), "{e}");
    let mut v: serde_json::Value = serde_json::from_str(&result_text).unwrap();
    v["bound"] = i32::MIN.into();
    assert!(JobResult::parse(&result, v.to_string().as_bytes()).is_err());
    // A result of another question than its job.
    let mut v: serde_json::Value = serde_json::from_str(&result_text).unwrap();
    v["at_least"] = (-20).into();
    v["holds"] = true.into();
    v["bound"] = (-20).into();
    std::fs::write(&result, v.to_string()).unwrap();
    let e = merge(job.parent().unwrap()).unwrap_err();
    assert!(matches!(e, SplitError::Mismatch { .. }), "{e}");
    assert!(name(&e).contains("another question"), "{e}");
    let e = prove_job(&job, &options(), false, &()).unwrap_err();
    assert!(name(&e).contains("remove it"), "{e}");
    // Put back, both parse again.
    assert!(Job::parse(&job, job_text.as_bytes()).is_ok());
    assert!(JobResult::parse(&result, result_text.as_bytes()).is_ok());
}

#[test]
fn splits_refuse_what_they_cannot_combine() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let e = split(&start(), 1, &file, None, None, &()).unwrap_err();
    assert!(matches!(e, SplitError::NotADirectory { .. }), "{e}");
    let d = dir.path().join("d");
    split(&start(), 1, &d, None, None, &()).unwrap();
    let e = split(&start(), 1, &d, None, None, &()).unwrap_err();
    assert!(matches!(e, SplitError::AlreadySplit { .. }), "{e}");
    let e = merge(dir.path()).unwrap_err();
    assert!(matches!(e, SplitError::NoManifest { .. }), "{e}");
    let dracala = Position::start(&"dracala".parse::<Rules>().unwrap()).unwrap();
    let e = split(&dracala, 1, &dir.path().join("x"), None, None, &()).unwrap_err();
    assert!(e.to_string().contains("misère"), "{e}");
}

/// `text` with `len` bytes at `at` removed, then `insert` put in there (positions taken
/// modulo the text's length).
fn damage(text: &str, at: usize, len: usize, insert: &[u8]) -> Vec<u8> {
    let mut b = text.as_bytes().to_vec();
    let at = at % (b.len() + 1);
    let end = (at + len).min(b.len());
    b.splice(at..end, insert.iter().copied());
    b
}

fn real_files() -> &'static (String, String) {
    static FILES: std::sync::OnceLock<(String, String)> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let (_, job, result) = split_one(dir.path());
        (job, result)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Bytes inserted into or removed from a real job or result file give a file that is
    /// read or refused, never a panic; one that is read passed its checks.
    #[test]
    fn damaged_files_never_panic(
        at in 0usize..4096,
        len in 0usize..16,
        insert in proptest::collection::vec(any::<u8>(), 0..8),
    ) {
        let (job, result) = real_files();
        let path = Path::new("damaged.json");
        if let Ok((j, pos)) = Job::parse(path, &damage(job, at, len, &insert)) {
            prop_assert_eq!(j.format, JOB_FORMAT);
            prop_assert_eq!(pos.rules(), &j.rules.parse::<Rules>().unwrap());
        }
        if let Ok(r) = JobResult::parse(path, &damage(result, at, len, &insert)) {
            prop_assert_eq!(r.holds, r.bound >= r.at_least);
        }
    }
}
