//! `mancala-server`'s options: a wrong folder is refused with one line, before anything is
//! created or served.

mod common;

use std::ffi::OsStr;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs the server binary with `args` (on any free port) and returns its exit code and
/// stderr; a server that starts anyway is killed after a few seconds, with code `None`.
fn exit(args: &[&OsStr]) -> (Option<i32>, String) {
    let mut child = Command::new(common::bin())
        .args(["--addr", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() && t0.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let o = child.wait_with_output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The server must exit 2 with a one-line error containing each of `needles`.
fn refused(args: &[&OsStr], needles: &[&str]) {
    let (code, err) = exit(args);
    assert_eq!(code, Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: `{n}` missing from {err}");
    }
}

#[test]
fn a_missing_web_dir_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let web = dir.path().join("no-such-web");
    let db = dir.path().join("games.db");
    refused(
        &[
            "--web-dir".as_ref(),
            web.as_os_str(),
            "--db".as_ref(),
            db.as_os_str(),
        ],
        &["--web-dir", &web.display().to_string(), "no such folder"],
    );
    assert!(!db.exists(), "no database is created");
}

#[test]
fn a_missing_egdb_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("no-tables");
    let db = dir.path().join("games.db");
    refused(
        &[
            "--egdb".as_ref(),
            tables.as_os_str(),
            "--db".as_ref(),
            db.as_os_str(),
        ],
        &["--egdb", &tables.display().to_string(), "endgame tables"],
    );
    assert!(!db.exists(), "no database is created");
}

#[test]
fn a_db_in_a_missing_folder_is_refused_and_nothing_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("missing/games.db");
    refused(
        &["--db".as_ref(), db.as_os_str()],
        &[&db.display().to_string(), "does not exist"],
    );
    assert!(!dir.path().join("missing").exists());
}

#[test]
fn a_db_that_is_a_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().display().to_string();
    refused(
        &["--db".as_ref(), dir.path().as_os_str()],
        &[&format!(
            "error: --db {db}: that is a folder; give the database file (such as {db}/games.db)"
        )],
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn numeric_options_have_ranges() {
    for (flag, value, needle) in [
        ("--ai-threads", "0", "1..=256"),
        ("--ai-threads", "100000", "1..=256"),
        ("--ai-time-ms", "0", "1..=600000"),
        ("--max-body", "99999999999", "256..=67108864"),
        ("--rate-limit", "nan", "0 (no limit) to 1000000"),
        ("--rate-limit", "-1", "0 (no limit) to 1000000"),
        ("--rate-limit", "x", "not a number"),
    ] {
        let (code, err) = exit(&[format!("{flag}={value}").as_ref()]);
        assert_eq!(code, Some(2), "{flag} {value}: {err}");
        let first = err.lines().next().unwrap_or_default();
        assert!(first.contains(needle), "{flag} {value}: {first}");
    }
}

#[test]
fn an_unreachable_or_malformed_postgresql_address_is_refused_without_its_password() {
    // Port 1: nothing listens there.
    let (code, err) = exit(&[
        "--db".as_ref(),
        "postgres://ann:s3cret@127.0.0.1:1/x".as_ref(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("postgres://ann@127.0.0.1:1/x: cannot connect to PostgreSQL"),
        "{err}"
    );
    assert!(!err.contains("s3cret"), "{err}");
    refused(
        &[
            "--db".as_ref(),
            "postgres://ann:s3cret@h/x?sslmode=bogus".as_ref(),
        ],
        &[
            "not a PostgreSQL address",
            "postgres://USER:PASSWORD@HOST/DB",
        ],
    );
}
