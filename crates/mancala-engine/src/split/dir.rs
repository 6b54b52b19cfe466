//! A split proof's directory: the split, the proof of one job, and the merge.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::clock::Instant;

use mancala_core::{Position, Side};
use serde_json::json;

use super::files::{files_under, question, write_atomic, write_json};
pub use super::tree::Status;
use super::tree::{check_rules, guesses, Merge};
use super::{
    job_name, result_path, Job, JobOptions, JobResult, Manifest, Progress, SplitError, Tables,
    Threshold, GUESS_DEPTH, JOB_FORMAT, MANIFEST, MANIFEST_FORMAT, RESULT_FORMAT,
};
use crate::{Engine, Limits};

/// The endgame tables of `oracle` for the rules of `pos` (every level from 0 on), as a job
/// names them.
fn tables_of(oracle: Option<&(dyn crate::Oracle + Send)>, pos: &Position) -> Option<Tables> {
    let (o, rules) = (oracle?, pos.as_kalah()?.rules());
    let max_seeds = o.tabled_seeds(rules).checked_sub(1)?;
    let name = o.tables_name(rules)?;
    Some(Tables { name, max_seeds })
}

/// Splits the proof of `threshold` about `pos` (for its side to move) `turns` turns deep
/// into `dir` (created where missing; it must hold no split proof): writes the manifest and
/// the first round of jobs, and returns that first merge. Without a threshold, the question
/// is whether the value is at least a short search's value of `pos`. The short searches
/// that order the turns run here; `oracle` only names the tables the jobs are split with.
pub fn split(
    pos: &Position,
    turns: u32,
    dir: &Path,
    threshold: Option<Threshold>,
    oracle: Option<std::sync::Arc<dyn crate::Oracle + Send>>,
    progress: &dyn Progress,
) -> Result<MergeReport, SplitError> {
    check_rules(pos)?;
    if turns > super::MAX_TURNS {
        return Err(SplitError::Unsplittable(format!(
            "a split {turns} turns deep: at most {} turns",
            super::MAX_TURNS
        )));
    }
    if pos.is_over() {
        return Err(SplitError::Unsplittable(
            "the game is over in this position".to_string(),
        ));
    }
    if dir.join(MANIFEST).exists() {
        return Err(SplitError::AlreadySplit {
            path: dir.to_path_buf(),
        });
    }
    if dir.exists() && !dir.is_dir() {
        return Err(SplitError::NotADirectory {
            path: dir.to_path_buf(),
        });
    }
    std::fs::create_dir_all(dir).map_err(|source| SplitError::Io {
        path: dir.to_path_buf(),
        action: "create",
        source,
    })?;
    let side = pos.to_move();
    let tables = tables_of(oracle.as_deref(), pos);
    let engine = Engine::try_new(16, 1).map_err(SplitError::Engine)?;
    let threshold = match threshold {
        Some(t) => t,
        None => {
            // No threshold asked: the short search's value of the root, a guess of the value.
            let lim = Limits {
                depth: Some(GUESS_DEPTH),
                ..Limits::default()
            };
            let r = engine
                .search(pos, lim, &[])
                .ok_or_else(|| SplitError::Engine("no legal move".to_string()))?;
            progress.threshold_guessed(r.eval.margin);
            Threshold::at_least(r.eval.margin)
        }
    };
    let mut g = BTreeMap::new();
    guesses(&engine, pos, side, turns, &mut g, progress);
    let m = Manifest {
        format: MANIFEST_FORMAT.into(),
        rules: pos.rules().to_string(),
        position: pos.to_string(),
        side,
        at_least: threshold.at_least,
        asked_at_most: threshold.asked_at_most,
        turns,
        question: question(side, threshold.at_least),
        tables,
        guess_depth: GUESS_DEPTH,
        guesses: g,
    };
    write_json(&dir.join(MANIFEST), &m)?;
    merge(dir)
}

/// A job whose answer refuted the hypothesis it was to prove.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailedJob {
    /// The job's number.
    pub id: u32,
    /// Its position.
    pub position: String,
    /// The proven bound: the root side's margin there is at most this.
    pub at_most: i32,
}

/// What a merge found.
#[derive(Clone, Debug, PartialEq)]
pub struct MergeReport {
    /// The root's answer to the split's question, "at least [`MergeReport::at_least`]".
    pub status: Status,
    /// The question, in words (as "at least").
    pub question: String,
    /// The question was asked as "at most `at_least - 1`".
    pub asked_at_most: bool,
    /// The threshold of the split's question.
    pub at_least: i32,
    /// The root's side.
    pub side: Side,
    /// Job files (the ones written now included).
    pub jobs: usize,
    /// Result files.
    pub results: usize,
    /// Nodes of every result's proof.
    pub nodes: u64,
    /// Seconds of every result's proof.
    pub seconds: f64,
    /// Jobs whose answer refuted their hypothesis.
    pub failed: Vec<FailedJob>,
    /// Job files without a result that the merge waits for (the ones written now included).
    pub unproven: Vec<PathBuf>,
    /// Jobs written by this merge.
    pub new_jobs: Vec<u32>,
    /// The round the directory is in.
    pub round: u32,
    /// The list of this merge's new jobs, where it wrote any.
    pub round_file: Option<PathBuf>,
}

impl MergeReport {
    /// The answer to the question as the user asked it ("at least" or "at most"), where the
    /// root is decided: a proof that the value is not at least `at_least` shows it at most
    /// `at_least - 1`.
    pub fn holds(&self) -> Option<bool> {
        match self.status {
            Status::Yes => Some(!self.asked_at_most),
            Status::No => Some(self.asked_at_most),
            Status::Open => None,
        }
    }

    /// The root's answer in the words of the question asked.
    pub fn answer(&self) -> String {
        let k = self.at_least;
        let side = self.side.name();
        let what = match (self.status, self.asked_at_most) {
            (Status::Yes, false) => format!("proven >= {k:+}"),
            (Status::No, false) => format!("proven < {k:+}"),
            (Status::Yes, true) => format!("proven > {:+} (not at most {:+})", k - 1, k - 1),
            (Status::No, true) => format!("proven <= {:+}", k - 1),
            (Status::Open, _) => return "not proven yet".into(),
        };
        format!("value for {side} (final seed margin with perfect play): {what}")
    }

    /// The report as JSON, its files named relative to `dir` (`solve --merge --json`).
    /// `status` is the split's own question's ("at least `at_least`"): `proven`, `refuted`
    /// or `open`; `holds` answers the question as asked ([`MergeReport::holds`]).
    pub fn to_json(&self, dir: &Path) -> serde_json::Value {
        let rel = |p: &Path| {
            p.strip_prefix(dir)
                .unwrap_or(p)
                .to_string_lossy()
                .into_owned()
        };
        json!({
            "question": self.question,
            "side": self.side,
            "at_least": self.at_least,
            "status": match self.status { Status::Yes => "proven", Status::No => "refuted", Status::Open => "open" },
            "holds": self.holds(),
            "answer": self.answer(),
            "jobs": self.jobs,
            "results": self.results,
            "nodes": self.nodes,
            "job_seconds": self.seconds,
            "failed": self.failed.iter().map(|f| json!({"id": f.id, "position": f.position, "at_most": f.at_most})).collect::<Vec<_>>(),
            "unproven": self.unproven.iter().map(|p| rel(p)).collect::<Vec<_>>(),
            "new_jobs": self.new_jobs,
            "round": self.round,
            "round_file": self.round_file.as_deref().map(rel),
        })
    }
}

/// The state of a directory: its manifest, jobs and results, checked against each other.
struct Loaded {
    m: Manifest,
    root: Position,
    jobs: BTreeMap<u32, (Job, PathBuf)>,
    results: BTreeMap<u32, (JobResult, PathBuf)>,
}

fn mismatch(path: String, reason: String) -> SplitError {
    SplitError::Mismatch {
        path: PathBuf::from(path),
        reason,
    }
}

fn load(dir: &Path) -> Result<Loaded, SplitError> {
    let mpath = dir.join(MANIFEST);
    if !mpath.exists() {
        return Err(SplitError::NoManifest {
            path: dir.to_path_buf(),
        });
    }
    let (m, root) = Manifest::read(&mpath)?;
    let mut names = Vec::new();
    files_under(dir, ".json", &mut names)?;
    names.sort();
    let name_of = |p: &Path| {
        p.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("")
            .to_string()
    };
    let mut jobs: BTreeMap<u32, (Job, PathBuf)> = BTreeMap::new();
    for p in names.iter().filter(|p| {
        let n = name_of(p);
        n.starts_with("job-") && !n.ends_with(".result.json")
    }) {
        let (job, pos) = Job::read(p)?;
        if pos.rules() != root.rules() || job.side != m.side {
            return Err(mismatch(
                p.display().to_string(),
                format!(
                    "a job of another proof (rules `{}`, side {}): this directory proves `{}` for {}",
                    job.rules,
                    job.side.name(),
                    m.rules,
                    m.side.name()
                ),
            ));
        }
        if let Some((other, op)) = jobs.get(&job.id) {
            // The same job twice (copied back with its result) is fine.
            if (&other.position, other.at_least) != (&job.position, job.at_least) {
                return Err(mismatch(
                    format!("{} and {}", op.display(), p.display()),
                    format!("two different jobs numbered {}", job.id),
                ));
            }
            continue;
        }
        jobs.insert(job.id, (job, p.clone()));
    }
    let mut results: BTreeMap<u32, (JobResult, PathBuf)> = BTreeMap::new();
    for p in names
        .iter()
        .filter(|p| name_of(p).ends_with(".result.json"))
    {
        let r = JobResult::read(p)?;
        let Some((job, _)) = jobs.get(&r.id) else {
            return Err(mismatch(
                p.display().to_string(),
                format!(
                    "the result of job {}, which this directory does not hold",
                    r.id
                ),
            ));
        };
        if (&job.position, job.side, job.at_least) != (&r.position, r.side, r.at_least) {
            return Err(mismatch(
                p.display().to_string(),
                format!(
                    "answers another question than job {} (position, side or threshold differ)",
                    r.id
                ),
            ));
        }
        // The same answer twice (copied from two machines) is fine; two answers that
        // disagree mean one is wrong.
        if let Some((o, op)) = results.get(&r.id) {
            if (o.holds != r.holds) || (o.holds && o.bound.min(r.bound) < r.at_least) {
                return Err(mismatch(
                    format!("{} and {}", op.display(), p.display()),
                    format!("two results of job {} disagree", r.id),
                ));
            }
            continue;
        }
        results.insert(r.id, (r, p.clone()));
    }
    Ok(Loaded {
        m,
        root,
        jobs,
        results,
    })
}

/// Reads `dir`, says what is proven of the root, and writes the jobs the hypotheses need
/// and lack as the next round (none where the root is decided).
pub fn merge(dir: &Path) -> Result<MergeReport, SplitError> {
    merge_once(dir, true)
}

/// The job files of `dir` whose results its merge waits for; writes nothing.
pub fn pending(dir: &Path) -> Result<Vec<PathBuf>, SplitError> {
    Ok(merge_once(dir, false)?.unproven)
}

/// Rounds until the root of `dir` is decided, from its merge `report`: while the root is
/// open, `run` proves the report's unproven jobs (each result written beside its job, as
/// [`prove_job`] does), and the directory is merged again. Returns the last merge.
pub fn run_rounds<E: From<SplitError>>(
    dir: &Path,
    mut report: MergeReport,
    mut run: impl FnMut(&MergeReport) -> Result<(), E>,
) -> Result<MergeReport, E> {
    while report.status == Status::Open {
        if report.unproven.is_empty() {
            return Err(SplitError::NothingToRun {
                path: dir.to_path_buf(),
            }
            .into());
        }
        run(&report)?;
        report = merge(dir)?;
    }
    Ok(report)
}

/// Writes the jobs of the positions `wanted` as round `round`, numbered after `last_id`,
/// with the list `round-N.txt`; returns their numbers and that list.
fn write_round(
    dir: &Path,
    m: &Manifest,
    wanted: &[Position],
    round: u32,
    last_id: u32,
) -> Result<(Vec<u32>, PathBuf), SplitError> {
    let mut id = last_id;
    let mut lines = String::new();
    let mut new_jobs = Vec::new();
    for pos in wanted {
        id += 1;
        let job = Job {
            format: JOB_FORMAT.into(),
            id,
            round,
            rules: pos.rules().to_string(),
            position: pos.to_string(),
            side: m.side,
            at_least: m.at_least,
            question: question(m.side, m.at_least),
            tables: m.tables.clone(),
        };
        let name = job_name(id);
        write_json(&dir.join(&name), &job)?;
        lines.push_str(&name);
        lines.push('\n');
        new_jobs.push(id);
    }
    let rf = dir.join(format!("round-{round}.txt"));
    write_atomic(&rf, &lines)?;
    Ok((new_jobs, rf))
}

/// One merge of `dir`; with `write`, the jobs the hypotheses need and lack are written as the
/// next round.
fn merge_once(dir: &Path, write: bool) -> Result<MergeReport, SplitError> {
    let l = load(dir)?;
    let mut answers: HashMap<String, Vec<(i32, bool, i32)>> = HashMap::new();
    for (r, _) in l.results.values() {
        answers
            .entry(r.position.clone())
            .or_default()
            .push((r.at_least, r.holds, r.bound));
    }
    let mut mg = Merge::new(&l.m, l.jobs.values().map(|(j, _)| j), answers);
    let status = mg.status(&l.root, 0, true);
    let wanted = std::mem::take(&mut mg.wanted);
    let needed = std::mem::take(&mut mg.needed);
    // Jobs of the round the directory is in; new ones start the next round.
    let last_round = l.jobs.values().map(|(j, _)| j.round).max().unwrap_or(0);
    let mut round = last_round;
    let mut new_jobs = Vec::new();
    let mut round_file = None;
    if write && status == Status::Open && !wanted.is_empty() {
        round = last_round.saturating_add(1);
        let last_id = l.jobs.keys().max().copied().unwrap_or(0);
        let (ids, rf) = write_round(dir, &l.m, &wanted, round, last_id)?;
        new_jobs = ids;
        round_file = Some(rf);
    }
    // The jobs the hypotheses wait for, those just written included; a job without a result
    // whose answer no longer matters (a sibling refuted its parent) is left out.
    let mut unproven: Vec<PathBuf> = l
        .jobs
        .iter()
        .filter(|(id, (j, _))| !l.results.contains_key(id) && needed.contains(&j.position))
        .map(|(_, (_, p))| p.clone())
        .collect();
    unproven.extend(new_jobs.iter().map(|&id| dir.join(job_name(id))));
    let failed = l
        .results
        .values()
        .filter(|(r, _)| !r.holds)
        .map(|(r, _)| FailedJob {
            id: r.id,
            position: r.position.clone(),
            at_most: r.bound,
        })
        .collect();
    Ok(MergeReport {
        status,
        question: l.m.question.clone(),
        asked_at_most: l.m.asked_at_most,
        at_least: l.m.at_least,
        side: l.m.side,
        jobs: l.jobs.len() + new_jobs.len(),
        results: l.results.len(),
        nodes: l
            .results
            .values()
            .fold(0u64, |s, (r, _)| s.saturating_add(r.nodes)),
        seconds: l.results.values().fold(0.0, |s, (r, _)| s + r.seconds),
        failed,
        unproven,
        new_jobs,
        round,
        round_file,
    })
}

/// Proves the job of `file` with `opts` and writes its result next to it
/// ([`result_path`]); where a result exists it is read and returned instead, unless `force`.
pub fn prove_job(
    file: &Path,
    opts: &JobOptions,
    force: bool,
    progress: &dyn Progress,
) -> Result<JobResult, SplitError> {
    let (job, pos) = Job::read(file)?;
    let out = result_path(file);
    if out.exists() && !force {
        let r = JobResult::read(&out)?;
        if (&r.position, r.side, r.at_least) == (&job.position, job.side, job.at_least) {
            return Ok(r);
        }
        return Err(SplitError::Mismatch {
            path: out,
            reason: format!(
                "answers another question than its job {}; remove it (or give --force)",
                file.display()
            ),
        });
    }
    if pos.is_over() {
        return Err(SplitError::GameOver {
            path: file.to_path_buf(),
        });
    }
    let start = Instant::now();
    let threads = opts.threads.max(1);
    let engine = Engine::for_proof(&pos, opts.oracle.clone(), opts.tt_mb, threads, opts.time)
        .map_err(SplitError::Engine)?;
    let used = tables_of(engine.oracle.as_deref(), &pos);
    if let Some(t) = &job.tables {
        if used
            .as_ref()
            .is_none_or(|u| u.name != t.name || u.max_seeds < t.max_seeds)
        {
            progress.fewer_tables(file, t, used.as_ref());
        }
    }
    let limits = Limits {
        time: opts.time,
        ..Limits::default()
    };
    let show = |p: &crate::SolveProgress| progress.proving(&job, p);
    let b = engine
        .prove_at_least_with_progress(&pos, job.side, job.at_least, limits, &[], Some(&show))
        .ok_or_else(|| SplitError::Unfinished {
            path: file.to_path_buf(),
        })?;
    if let Some(fault) = engine.tables_fault() {
        return Err(SplitError::Tables(fault));
    }
    let r = JobResult {
        format: RESULT_FORMAT.into(),
        id: job.id,
        rules: job.rules.clone(),
        position: job.position.clone(),
        side: job.side,
        at_least: job.at_least,
        holds: b.holds,
        bound: b.bound,
        proven: b.text(false),
        nodes: b.nodes,
        oracle_hits: b.oracle_hits,
        seconds: b.elapsed.as_secs_f64(),
        wall_seconds: start.elapsed().as_secs_f64(),
        threads,
        tt_mb: (engine.table_bytes() >> 20) as u32,
        tables: used,
    };
    write_json(&out, &r)?;
    Ok(r)
}
