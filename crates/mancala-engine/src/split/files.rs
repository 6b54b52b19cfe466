//! The files of a split proof: their names, reading them (checked) and writing them
//! (atomically).

use std::path::{Path, PathBuf};

use mancala_core::{Position, Side};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{
    Job, JobResult, Manifest, SplitError, JOB_FORMAT, MANIFEST_FORMAT, MAX_TURNS, RESULT_FORMAT,
};

/// The largest file read: a manifest of a deep split holds its guesses, still far below.
const MAX_FILE_BYTES: u64 = 4 << 20;

/// The file name of job `id`: `job-000042.json`.
pub fn job_name(id: u32) -> String {
    format!("job-{id:06}.json")
}

/// Where the result of the job in `job_file` goes: `job-000042.result.json` beside it.
pub fn result_path(job_file: &Path) -> PathBuf {
    let name = job_file
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("job.json");
    let stem = name.strip_suffix(".json").unwrap_or(name);
    job_file.with_file_name(format!("{stem}.result.json"))
}

/// The question of a split proof, in words.
pub(super) fn question(side: Side, k: i32) -> String {
    format!(
        "is {}'s final seed margin with perfect play from both sides at least {k:+}?",
        side.name()
    )
}

/// Writes `text` to `path` through a temporary file in the same directory renamed into
/// place, so a reader never sees half a file and an interrupted writer leaves none.
pub(super) fn write_atomic(path: &Path, text: &str) -> Result<(), SplitError> {
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    write().map_err(|source| SplitError::Io {
        path: path.to_path_buf(),
        action: "write",
        source,
    })
}

/// `value` as pretty JSON and a newline, written atomically to `path`.
pub(super) fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), SplitError> {
    let text = serde_json::to_string_pretty(value).map_err(|source| SplitError::Json {
        path: path.to_path_buf(),
        what: "JSON value",
        source,
    })?;
    write_atomic(path, &(text + "\n"))
}

/// The bytes of `path`, refusing a file over 4 MiB unread.
fn read_bytes(path: &Path, what: &'static str) -> Result<Vec<u8>, SplitError> {
    let io = |source| SplitError::Io {
        path: path.to_path_buf(),
        action: "read",
        source,
    };
    if std::fs::metadata(path).map_err(io)?.len() > MAX_FILE_BYTES {
        return Err(SplitError::TooLarge {
            path: path.to_path_buf(),
            what,
        });
    }
    std::fs::read(path).map_err(io)
}

/// `bytes` as the JSON of a file of kind `what`, from `path`.
fn parse_json<T: DeserializeOwned>(
    path: &Path,
    bytes: &[u8],
    what: &'static str,
) -> Result<T, SplitError> {
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(SplitError::TooLarge {
            path: path.to_path_buf(),
            what,
        });
    }
    serde_json::from_slice(bytes).map_err(|source| SplitError::Json {
        path: path.to_path_buf(),
        what,
        source,
    })
}

fn check_format(path: &Path, found: &str, expected: &'static str) -> Result<(), SplitError> {
    if found != expected {
        return Err(SplitError::Format {
            path: path.to_path_buf(),
            found: found.to_string(),
            expected,
        });
    }
    Ok(())
}

/// The position of a job, result or manifest: `position` must parse and play `rules`.
fn parse_position(path: &Path, rules: &str, position: &str) -> Result<Position, SplitError> {
    let pos: Position = position.parse().map_err(|source| SplitError::Parse {
        path: path.to_path_buf(),
        what: "position",
        text: position.to_string(),
        source,
    })?;
    let r: mancala_core::Rules = rules.parse().map_err(|source| SplitError::Parse {
        path: path.to_path_buf(),
        what: "rules",
        text: rules.to_string(),
        source,
    })?;
    if pos.rules() != &r {
        return Err(SplitError::Mismatch {
            path: path.to_path_buf(),
            reason: format!(
                "the position plays `{}`, the file says rules `{rules}`",
                pos.rules()
            ),
        });
    }
    Ok(pos)
}

fn corrupt(path: &Path, reason: String) -> SplitError {
    SplitError::Corrupt {
        path: path.to_path_buf(),
        reason,
    }
}

impl Job {
    /// The job file `bytes`, read from `path` (named in errors): its format and its position
    /// checked.
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<(Job, Position), SplitError> {
        let job: Job = parse_json(path, bytes, "job file")?;
        check_format(path, &job.format, JOB_FORMAT)?;
        let pos = parse_position(path, &job.rules, &job.position)?;
        Ok((job, pos))
    }

    /// The job file at `path`, checked as [`Job::parse`].
    pub fn read(path: &Path) -> Result<(Job, Position), SplitError> {
        Job::parse(path, &read_bytes(path, "job file")?)
    }
}

impl JobResult {
    /// The result file `bytes`, read from `path` (named in errors), checked: its format, its
    /// position, a bound within the game's seeds, times of a proof that ran, and an answer
    /// that says what it claims (a bound on the right side of the threshold).
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<JobResult, SplitError> {
        let r: JobResult = parse_json(path, bytes, "job result file")?;
        check_format(path, &r.format, RESULT_FORMAT)?;
        let pos = parse_position(path, &r.rules, &r.position)?;
        // No margin exceeds every seed of the position.
        let s = pos.scores();
        let total = (pos.board_seeds() + s[0] as u32 + s[1] as u32) as i32;
        if r.bound.unsigned_abs() > total.unsigned_abs() {
            return Err(corrupt(
                path,
                format!("a bound of {:+}, beyond the game's {total} seeds", r.bound),
            ));
        }
        // Times of a proof that ran, within about 30 years.
        for (what, t) in [("seconds", r.seconds), ("wall_seconds", r.wall_seconds)] {
            if !(0.0..1e9).contains(&t) {
                return Err(corrupt(path, format!("{what} is {t}")));
            }
        }
        if r.holds != (r.bound >= r.at_least) {
            return Err(corrupt(
                path,
                format!(
                    "the answer ({}) contradicts its bound {:+} against the threshold {:+}",
                    if r.holds { "at least" } else { "below" },
                    r.bound,
                    r.at_least
                ),
            ));
        }
        Ok(r)
    }

    /// The result file at `path`, checked as [`JobResult::parse`].
    pub fn read(path: &Path) -> Result<JobResult, SplitError> {
        JobResult::parse(path, &read_bytes(path, "job result file")?)
    }
}

impl Manifest {
    /// The manifest `bytes`, read from `path` (named in errors), and its root: format,
    /// position, rules a split can combine, and a side and depth that fit the root.
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<(Manifest, Position), SplitError> {
        let m: Manifest = parse_json(path, bytes, "split proof manifest")?;
        check_format(path, &m.format, MANIFEST_FORMAT)?;
        let root = parse_position(path, &m.rules, &m.position)?;
        super::tree::check_rules(&root)?;
        if root.to_move() != m.side || m.turns > MAX_TURNS {
            return Err(corrupt(
                path,
                "the side or the depth does not fit the root".to_string(),
            ));
        }
        Ok((m, root))
    }

    /// The manifest at `path`, checked as [`Manifest::parse`].
    pub fn read(path: &Path) -> Result<(Manifest, Position), SplitError> {
        Manifest::parse(path, &read_bytes(path, "split proof manifest")?)
    }
}

/// Every file under `dir` (subdirectories too) whose name ends in `suffix`.
pub(super) fn files_under(
    dir: &Path,
    suffix: &str,
    out: &mut Vec<PathBuf>,
) -> Result<(), SplitError> {
    let list = |source| SplitError::Io {
        path: dir.to_path_buf(),
        action: "list",
        source,
    };
    for e in std::fs::read_dir(dir).map_err(list)? {
        let e = e.map_err(list)?;
        let p = e.path();
        if e.file_type().map_err(list)?.is_dir() {
            files_under(&p, suffix, out)?;
        } else if p.to_str().is_some_and(|s| s.ends_with(suffix)) {
            out.push(p);
        }
    }
    Ok(())
}
