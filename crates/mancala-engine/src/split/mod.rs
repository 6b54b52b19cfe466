//! Proofs split into jobs: one bound on a root position proven through many threshold proofs
//! that any number of processes or machines run.
//!
//! A split proof asks one question about a root position: is the final seed margin of the
//! side to move there (the root's side) at least K with perfect play? The positions a few
//! turns deep form an AND/OR tree: where the root's side moves, one turn that keeps the
//! margin at least K is enough (the one a short search values best is tried first); where the
//! opponent moves, every turn must. A turn is all the moves of one player up to the
//! opponent's move ([`crate::turns`]), so the levels alternate even with extra turns. Each
//! leaf of the chosen turns is a job: the same question for that position, proven by one
//! threshold proof ([`crate::Engine::prove_at_least`]). The job and result files are plain
//! JSON in one directory, so any number of machines can run them; [`merge`] reads them back,
//! combines the answers through the tree, and where a job's answer refuted the turn it was
//! proving (the hypothesis failed), writes the next round: the next-best turn at that
//! choice. Every answer is proven either way, so the root ends proven at least K or proven
//! below K.
//!
//! Files of a directory: `split.json` (the question, the rules, the root, the depth and the
//! short searches' guesses: [`Manifest`]), `job-NNNNNN.json` (one question each: [`Job`]),
//! `job-NNNNNN.result.json` (its answer, written next to it by [`prove_job`] through a
//! temporary file renamed into place: [`JobResult`]) and `round-N.txt` (the job files of
//! round N, one a line: the N-th line is the N-th job of a job array). Results may also sit
//! in subdirectories (copied back from other machines).
//!
//! Every file read is checked before it is believed (its format, its position against its
//! rules, a bound within the game's seeds, an answer that agrees with its bound, a result
//! that answers its job's question); a file that fails is refused with a [`SplitError`]
//! naming it. Nothing here prints: what a long step is doing goes to a [`Progress`].
//!
//! - [`split`]: writes the manifest and the first round of jobs.
//! - [`prove_job`]: proves one job and writes its result.
//! - [`merge`]: what the results prove of the root, and the next round where needed;
//!   [`pending`]: the jobs a merge waits for; [`run_rounds`]: rounds until the root is
//!   decided, the jobs run by the caller.

mod dir;
mod files;
#[cfg(test)]
mod tests;
mod tree;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mancala_core::Side;
use serde::{Deserialize, Serialize};

pub use dir::{merge, pending, prove_job, run_rounds, split, FailedJob, MergeReport, Status};
pub use files::{job_name, result_path};

use crate::{Oracle, SolveProgress};

/// The manifest's file name in a split proof's directory.
pub const MANIFEST: &str = "split.json";
/// The `format` of a manifest.
pub const MANIFEST_FORMAT: &str = "mancala-split/1";
/// The `format` of a job file.
pub const JOB_FORMAT: &str = "mancala-job/1";
/// The `format` of a result file.
pub const RESULT_FORMAT: &str = "mancala-job-result/1";
/// Plies of the short searches that order the root side's turns.
pub const GUESS_DEPTH: u32 = 12;
/// The deepest split a directory may hold, in turns.
pub const MAX_TURNS: u32 = 6;

/// `split.json`: the question about the root and how it was split.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// [`MANIFEST_FORMAT`].
    pub format: String,
    /// The root's rules.
    pub rules: String,
    /// The root position.
    pub position: String,
    /// The root's side to move: every question is about its final margin.
    pub side: Side,
    /// The threshold: is `side`'s final margin at least this?
    pub at_least: i32,
    /// The question was asked as "at most `at_least - 1`".
    pub asked_at_most: bool,
    /// Turns from the root to the jobs of the first round.
    pub turns: u32,
    /// The question, in words.
    pub question: String,
    /// Endgame tables the split was made with (the jobs prove faster with them).
    pub tables: Option<Tables>,
    /// Plies of the short searches behind `guesses`.
    pub guess_depth: u32,
    /// The short searches' values (the root side's final margin) of every turn of the root's
    /// side in the tree, by position: the best is tried first.
    pub guesses: std::collections::BTreeMap<String, i32>,
}

/// Endgame tables: their rules' name and the top level held from level 0 on.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Tables {
    /// The name of the tables' rules.
    pub name: String,
    /// The top level: the most seeds on the board of a tabled position.
    pub max_seeds: u32,
}

/// A job file: one threshold proof.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Job {
    /// [`JOB_FORMAT`].
    pub format: String,
    /// The job's number in its directory.
    pub id: u32,
    /// The round that wrote it (1: the split itself).
    pub round: u32,
    /// The position's rules.
    pub rules: String,
    /// The position to prove.
    pub position: String,
    /// The root's side: the question is about its final margin.
    pub side: Side,
    /// The threshold: is `side`'s final margin at least this?
    pub at_least: i32,
    /// The question, in words.
    pub question: String,
    /// Endgame tables the split was made with.
    pub tables: Option<Tables>,
}

/// A result file: the answer to a job, proven either way.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct JobResult {
    /// [`RESULT_FORMAT`].
    pub format: String,
    /// The job's number.
    pub id: u32,
    /// The job's rules.
    pub rules: String,
    /// The job's position.
    pub position: String,
    /// The job's side.
    pub side: Side,
    /// The job's threshold.
    pub at_least: i32,
    /// `side`'s final margin is at least `at_least`.
    pub holds: bool,
    /// At least this when `holds`, else at most this (`side`'s final margin).
    pub bound: i32,
    /// The answer in words ([`crate::BoundResult::text`]).
    pub proven: String,
    /// Positions the proof searched.
    pub nodes: u64,
    /// Positions the endgame tables valued.
    pub oracle_hits: u64,
    /// The proof's time.
    pub seconds: f64,
    /// The job's time from start to end (the tables mapped in too).
    pub wall_seconds: f64,
    /// Search threads of the proof.
    pub threads: u16,
    /// The proof's transposition table in MiB.
    pub tt_mb: u32,
    /// Endgame tables the proof had.
    pub tables: Option<Tables>,
}

/// The bound a split proof asks about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Threshold {
    /// Is the root side's final margin at least this?
    pub at_least: i32,
    /// Asked as "at most `at_least - 1`": the same proof, its answer read the other way round.
    pub asked_at_most: bool,
}

impl Threshold {
    /// "At least `k`".
    pub fn at_least(k: i32) -> Threshold {
        Threshold {
            at_least: k,
            asked_at_most: false,
        }
    }

    /// "At most `k`": proven as "at least `k + 1`", read the other way round.
    pub fn at_most(k: i32) -> Threshold {
        Threshold {
            at_least: k.saturating_add(1),
            asked_at_most: true,
        }
    }
}

/// What the jobs of a split proof are proven with, where they run in this process.
#[derive(Clone, Default)]
pub struct JobOptions {
    /// Endgame tables the proofs probe.
    pub oracle: Option<Arc<dyn Oracle + Send>>,
    /// Transposition table size of each proof in MiB (`None`: as [`crate::Engine::for_proof`]
    /// chooses).
    pub tt_mb: Option<u32>,
    /// Search threads of each proof (0 is taken as 1).
    pub threads: u16,
    /// Give up on a proof after this time; its job stays without a result.
    pub time: Option<Duration>,
}

/// What a split proof's long steps are doing, for a caller that shows it. Every method does
/// nothing by default; `()` shows nothing.
pub trait Progress: Sync {
    /// No threshold was given: the question asks whether the value is at least `at_least`,
    /// the short search's value of the root.
    fn threshold_guessed(&self, _at_least: i32) {}
    /// The short searches that order the turns have valued `searched` positions.
    fn guessing(&self, _searched: usize) {}
    /// The proof of `job` has come this far.
    fn proving(&self, _job: &Job, _progress: &SolveProgress) {}
    /// The job in `job_file` was split with tables `split_with`; its proof has only `used`
    /// (fewer levels, or none): it will be slower, with the same answer.
    fn fewer_tables(
        &self,
        _job_file: &std::path::Path,
        _split_with: &Tables,
        _used: Option<&Tables>,
    ) {
    }
}

impl Progress for () {}

/// Why a split proof's step failed. Errors about a file name it first.
#[derive(Debug, thiserror::Error)]
pub enum SplitError {
    /// A file or directory could not be read, written, listed or created.
    #[error("{}: cannot {action}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// `read`, `write`, `list` or `create`.
        action: &'static str,
        /// The system's reason.
        #[source]
        source: std::io::Error,
    },
    /// A file too large to be of its kind, refused unread.
    #[error("{}: over 4 MiB: not a {what}", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The kind of file expected.
        what: &'static str,
    },
    /// A file whose text is not the JSON of its kind.
    #[error("{}: not a valid {what}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The kind of file expected.
        what: &'static str,
        /// Where and why the JSON failed.
        #[source]
        source: serde_json::Error,
    },
    /// A file of another kind or version.
    #[error("{}: format `{found}`, expected `{expected}` (a file of another kind or version)", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// Its `format`.
        found: String,
        /// The format of its kind.
        expected: &'static str,
    },
    /// A file's position or rules do not parse.
    #[error("{}: {what} `{text}`", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// `position` or `rules`.
        what: &'static str,
        /// The text that failed.
        text: String,
        /// Why.
        #[source]
        source: mancala_core::Error,
    },
    /// A file whose values cannot be true (a bound beyond the game's seeds, an answer
    /// against its bound, an impossible time, a side or depth that does not fit).
    #[error("{}: corrupt: {reason}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A file that does not fit the others of its directory or its job (another proof,
    /// another question, two answers that disagree).
    #[error("{}: {reason}", path.display())]
    Mismatch {
        /// The file (or the directory).
        path: PathBuf,
        /// What does not fit.
        reason: String,
    },
    /// Rules or a position a split proof cannot combine.
    #[error("{0}")]
    Unsplittable(String),
    /// `--jobs` names a file, not a directory.
    #[error("{}: not a directory (--jobs names the directory of the job files)", path.display())]
    NotADirectory {
        /// The path given.
        path: PathBuf,
    },
    /// The directory holds a split proof already.
    #[error("{}: holds a split proof already (its {MANIFEST}); merge it with --merge, or choose an empty directory", path.display())]
    AlreadySplit {
        /// The directory.
        path: PathBuf,
    },
    /// The directory holds no split proof.
    #[error("{}: no {MANIFEST}: not the directory of a split proof (`mancala solve --split TURNS --jobs DIR` makes one)", path.display())]
    NoManifest {
        /// The directory.
        path: PathBuf,
    },
    /// The root is open and no job is left to run (a directory changed under the merge).
    #[error("{}: the root is open, yet no job is left to run", path.display())]
    NothingToRun {
        /// The directory.
        path: PathBuf,
    },
    /// A job whose game is over: nothing to prove.
    #[error("{}: the game is over in this position", path.display())]
    GameOver {
        /// The job file.
        path: PathBuf,
    },
    /// The proof gave up at its time limit; the job stays without a result.
    #[error("{}: the proof did not finish within the time limit", path.display())]
    Unfinished {
        /// The job file.
        path: PathBuf,
    },
    /// The engine's table could not be had (or no legal move at the root).
    #[error("{0}")]
    Engine(String),
    /// The endgame tables were found damaged while probing: the result is not shown.
    #[error("{0}")]
    Tables(String),
}
