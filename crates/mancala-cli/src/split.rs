//! Proofs split into jobs: `solve --split`, `prove-job`, `run-jobs` and `solve --merge`.
//!
//! A split proof asks one question about a root position: is the final seed margin of the
//! side to move there (the root's side) at least K with perfect play? The positions a few
//! turns deep form an AND/OR tree: where the root's side moves, one turn that keeps the
//! margin at least K is enough (the one a short search values best is tried first); where the
//! opponent moves, every turn must. A turn is all the moves of one player up to the
//! opponent's move, so the levels alternate even with extra turns. Each leaf of the chosen
//! turns is a job: the same question for that position, proven by one threshold proof
//! ([`mancala_engine::Engine::prove_at_least`]) in its own process. The job and result files
//! are plain JSON in one directory, so any number of machines can run them; `--merge` reads
//! them back, combines the answers through the tree, and where a job's answer refuted the
//! turn it was proving (the hypothesis failed), writes the next round: the next-best turn
//! at that choice. Every answer is proven either way, so the root ends proven at least K
//! or proven below K.
//!
//! Files of a directory: `split.json` (the question, the rules, the root, the depth and the
//! short searches' guesses), `job-NNNNNN.json` (one question each), `job-NNNNNN.result.json`
//! (its answer, written next to it by `prove-job`: a temporary file renamed into place) and
//! `round-N.txt` (the job files of round N, one a line: the N-th line is the N-th job of a
//! job array). Results may also sit in subdirectories (copied back from other machines).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use clap::Args;
use mancala_core::{Position, Side};
use mancala_engine::{Engine, Limits};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::engine_cmds::{bound_text, check_tables, proof_engine, turns, SolveArgs};

const MANIFEST: &str = "split.json";
const MANIFEST_FORMAT: &str = "mancala-split/1";
const JOB_FORMAT: &str = "mancala-job/1";
const RESULT_FORMAT: &str = "mancala-job-result/1";
/// Plies of the short searches that order the root side's turns.
const GUESS_DEPTH: u32 = 12;

/// What the jobs of a split proof are run with, where they run on this machine (the
/// options `prove-job` and `run-jobs` share).
#[derive(Args, Clone, Debug, Default)]
pub struct JobOptions {
    /// Probe the endgame databases in this directory (`mancala egdb build`).
    #[arg(long)]
    pub egdb: Option<PathBuf>,
    /// Transposition table size of each job in MiB [default: as `solve`].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub tt_mb: Option<u32>,
    /// Search threads of each job.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: u16,
    /// Give up on a job after this time (seconds, or with a unit: `90s`, `10m`, `2h`); it
    /// stays without a result, so it can be run again.
    #[arg(long, value_parser = |s: &str| crate::engine_cmds::duration_arg(s, Duration::from_secs(1), 31_536_000))]
    pub time: Option<Duration>,
}

/// `split.json`: the question about the root and how it was split.
#[derive(Serialize, Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct Manifest {
    format: String,
    rules: String,
    position: String,
    /// The root's side to move: every question is about its final margin.
    side: Side,
    at_least: i32,
    /// The question was asked as "at most `at_least - 1`".
    asked_at_most: bool,
    turns: u32,
    question: String,
    /// Endgame tables the split was made with (the jobs prove faster with them).
    tables: Option<Tables>,
    guess_depth: u32,
    /// The short searches' values (the root side's final margin) of every turn of the root's
    /// side in the tree, by position: the best is tried first.
    guesses: BTreeMap<String, i32>,
}

/// Endgame tables: their rules' name and the top level.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct Tables {
    name: String,
    max_seeds: u32,
}

/// A job file: one threshold proof.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
struct Job {
    format: String,
    id: u32,
    round: u32,
    rules: String,
    position: String,
    side: Side,
    at_least: i32,
    question: String,
    tables: Option<Tables>,
}

/// A result file: the answer to a job, proven either way.
#[derive(Serialize, Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
struct JobResult {
    format: String,
    id: u32,
    rules: String,
    position: String,
    side: Side,
    at_least: i32,
    /// `side`'s final margin is at least `at_least`.
    holds: bool,
    /// At least this when `holds`, else at most this (`side`'s final margin).
    bound: i32,
    proven: String,
    nodes: u64,
    oracle_hits: u64,
    /// The proof's time, and the job's from start to end (the table mapped in too).
    seconds: f64,
    wall_seconds: f64,
    threads: u16,
    tt_mb: u32,
    tables: Option<Tables>,
}

fn job_name(id: u32) -> String {
    format!("job-{id:06}.json")
}

fn result_path(job_file: &Path) -> PathBuf {
    let name = job_file
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("job.json");
    let stem = name.strip_suffix(".json").unwrap_or(name);
    job_file.with_file_name(format!("{stem}.result.json"))
}

/// Writes `text` to `path` through a temporary file in the same directory renamed into
/// place, so a reader never sees half a file and an interrupted writer leaves none.
fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    };
    write().with_context(|| format!("{}: cannot write", path.display()))
}

/// Reads a JSON file of kind `what`, refusing one over 4 MiB unread (a manifest of a deep
/// split holds its guesses: still far below).
fn read_json<T: for<'de> Deserialize<'de>>(path: &Path, what: &str) -> Result<T> {
    let meta =
        std::fs::metadata(path).with_context(|| format!("{}: cannot read", path.display()))?;
    if meta.len() > 4 << 20 {
        bail!("{}: over 4 MiB: not a {what}", path.display());
    }
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("{}: cannot read", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{}: not a valid {what}", path.display()))
}

/// The position of a job, result or manifest: `position` must parse and play `rules`.
fn parse_position(path: &Path, rules: &str, position: &str) -> Result<Position> {
    let pos: Position = position
        .parse()
        .with_context(|| format!("{}: position `{position}`", path.display()))?;
    let r: mancala_core::Rules = rules
        .parse()
        .with_context(|| format!("{}: rules `{rules}`", path.display()))?;
    if pos.rules() != &r {
        bail!(
            "{}: the position plays `{}`, the file says rules `{rules}`",
            path.display(),
            pos.rules()
        );
    }
    Ok(pos)
}

fn check_format(path: &Path, format: &str, want: &str) -> Result<()> {
    if format != want {
        bail!(
            "{}: format `{format}`, expected `{want}` (a file of another kind or version)",
            path.display()
        );
    }
    Ok(())
}

fn read_job(path: &Path) -> Result<(Job, Position)> {
    let job: Job = read_json(path, "job file")?;
    check_format(path, &job.format, JOB_FORMAT)?;
    let pos = parse_position(path, &job.rules, &job.position)?;
    Ok((job, pos))
}

/// A result file, checked against its job when that is given: same question, and an
/// answer that says what it claims (a bound on the right side of the threshold).
fn read_result(path: &Path) -> Result<JobResult> {
    let r: JobResult = read_json(path, "job result file")?;
    check_format(path, &r.format, RESULT_FORMAT)?;
    let pos = parse_position(path, &r.rules, &r.position)?;
    // No margin exceeds every seed of the position.
    let s = pos.scores();
    let total = (pos.board_seeds() + s[0] as u32 + s[1] as u32) as i32;
    if r.bound.abs() > total {
        bail!(
            "{}: corrupt: a bound of {:+}, beyond the game's {total} seeds",
            path.display(),
            r.bound
        );
    }
    // Times of a proof that ran, within about 30 years.
    for (what, t) in [("seconds", r.seconds), ("wall_seconds", r.wall_seconds)] {
        if !(0.0..1e9).contains(&t) {
            bail!("{}: corrupt: {what} is {t}", path.display());
        }
    }
    if r.holds != (r.bound >= r.at_least) {
        bail!(
            "{}: corrupt: the answer ({}) contradicts its bound {:+} against the threshold {:+}",
            path.display(),
            if r.holds { "at least" } else { "below" },
            r.bound,
            r.at_least
        );
    }
    Ok(r)
}

fn question(side: Side, k: i32) -> String {
    format!(
        "is {}'s final seed margin with perfect play from both sides at least {k:+}?",
        side.name()
    )
}

/// The endgame tables of `dir` for the rules of `pos`, as a job names them.
fn tables_of(db: Option<&mancala_egdb::Egdb>, pos: &Position) -> Option<Tables> {
    let tr = mancala_egdb::TableRules::new(pos.as_kalah()?.rules()).ok()?;
    let top = db?.complete_to(&tr)?;
    Some(Tables {
        name: tr.name(),
        max_seeds: top,
    })
}

/// The root side's final margin in a finished position.
fn final_margin(pos: &Position, side: Side) -> i32 {
    mancala_engine::margin(pos, side)
}

/// Every turn of the side to move in `pos`, each position once, in the order of first
/// appearance.
fn children(pos: &Position) -> Vec<Position> {
    let mut seen = HashSet::new();
    turns(pos)
        .into_iter()
        .map(|(_, q)| q)
        .filter(|q| seen.insert(*q))
        .collect()
}

/// Refuses rules a split proof cannot combine: where positions repeat, a position's value
/// depends on the game before it, which a job does not carry; in a misère game the
/// players' choices run the other way round.
fn check_rules(pos: &Position) -> Result<()> {
    if pos.rules().can_repeat() {
        bail!(
            "{}: positions repeat in this game, and a position's value then depends on the game before it, which a job does not carry: split proofs take games without repetition",
            pos.rules()
        );
    }
    if pos.rules().misere() {
        bail!(
            "{}: a misère game (lower is better): split proofs take games where each player wants the higher margin",
            pos.rules()
        );
    }
    if pos.setup().opening != mancala_core::Opening::None {
        bail!("a first move or swap of the opening rules is pending in this position: split proofs start after the opening");
    }
    Ok(())
}

/// Short searches' values of the root side's turns in the tree to `depth` turns below `pos`.
fn guesses(
    engine: &Engine,
    pos: &Position,
    side: Side,
    depth: u32,
    out: &mut BTreeMap<String, i32>,
    bar: &indicatif::ProgressBar,
) {
    if depth == 0 || pos.is_over() {
        return;
    }
    for c in children(pos) {
        if pos.to_move() == side {
            let key = c.to_string();
            if let std::collections::btree_map::Entry::Vacant(e) = out.entry(key) {
                let v = if c.is_over() {
                    final_margin(&c, side)
                } else {
                    let lim = Limits {
                        depth: Some(GUESS_DEPTH),
                        ..Limits::default()
                    };
                    engine
                        .search(&c, lim, &[])
                        .map_or(0, |r| r.eval.seen_by(side).margin)
                };
                e.insert(v);
                bar.set_message(format!(
                    "choosing the turns to prove: {} positions searched to {GUESS_DEPTH} plies",
                    out.len()
                ));
            }
        }
        guesses(engine, &c, side, depth - 1, out, bar);
    }
}

/// `solve --split TURNS --jobs DIR`: writes the manifest and the first round of jobs.
pub fn split_cmd(pos: &Position, turns: u32, dir: &Path, a: &SolveArgs) -> Result<()> {
    check_rules(pos)?;
    if dir.join(MANIFEST).exists() {
        bail!(
            "{}: holds a split proof already (its {MANIFEST}); merge it with --merge, or choose an empty directory",
            dir.display()
        );
    }
    if dir.exists() && !dir.is_dir() {
        bail!(
            "{}: not a directory (--jobs names the directory of the job files)",
            dir.display()
        );
    }
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let side = pos.to_move();
    let opts = a.job_options();
    let db = match &opts.egdb {
        Some(d) => Some(mancala_egdb::Egdb::open(d)?),
        None => None,
    };
    let tables = tables_of(db.as_ref(), pos);
    drop(db);
    let engine = Engine::try_new(16, 1).map_err(anyhow::Error::msg)?;
    // A spinner on a terminal (hidden elsewhere): these searches take minutes on big boards.
    let bar = indicatif::ProgressBar::new_spinner();
    bar.enable_steady_tick(Duration::from_millis(200));
    bar.set_message(format!(
        "choosing the turns to prove: searching to {GUESS_DEPTH} plies"
    ));
    let (at_least, asked_at_most) = match a.threshold() {
        Some(t) => t,
        None => {
            // No threshold asked: the short search's value of the root, a guess of the value.
            let lim = Limits {
                depth: Some(GUESS_DEPTH),
                ..Limits::default()
            };
            let r = engine.search(pos, lim, &[]).context("no legal move")?;
            bar.suspend(|| {
                eprintln!(
                    "note: no --at-least/--at-most given: asking whether the value is at least {:+}, the {GUESS_DEPTH}-ply search's value",
                    r.eval.margin
                )
            });
            (r.eval.margin, false)
        }
    };
    let mut g = BTreeMap::new();
    guesses(&engine, pos, side, turns, &mut g, &bar);
    bar.finish_and_clear();
    let m = Manifest {
        format: MANIFEST_FORMAT.into(),
        rules: pos.rules().to_string(),
        position: pos.to_string(),
        side,
        at_least,
        asked_at_most,
        turns,
        question: question(side, at_least),
        tables,
        guess_depth: GUESS_DEPTH,
        guesses: g,
    };
    write_atomic(
        &dir.join(MANIFEST),
        &(serde_json::to_string_pretty(&m)? + "\n"),
    )?;
    merge_dir(dir, a.json(), a.parallel(), &a.job_options())
}

/// `solve --merge DIR`.
pub fn merge_cmd(dir: &Path, a: &SolveArgs) -> Result<()> {
    merge_dir(dir, a.json(), a.parallel(), &a.job_options())
}

/// What is known of a node of the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    /// The root side's margin there is at least K (proven).
    Yes,
    /// Below K (proven).
    No,
    /// Not known yet.
    Open,
}

/// The jobs and results of a directory, and the tree's walk over them.
struct Merge<'a> {
    m: &'a Manifest,
    /// Every job by (position, threshold), with its file.
    jobs: HashMap<(String, i32), (Job, PathBuf)>,
    /// The answers for each position: (holds, bound) at a threshold, any job's.
    answers: HashMap<String, Vec<(i32, bool, i32)>>,
    /// Positions that need a job and have none, in the order found.
    wanted: Vec<Position>,
    /// Statuses found without expanding, by position and depth.
    memo: HashMap<(Position, u32), Status>,
    /// Positions whose answers the current hypotheses wait for (with a job or without).
    needed: HashSet<String>,
}

impl Merge<'_> {
    /// What the answers say of `pos` at the threshold.
    fn answered(&self, pos: &str) -> Status {
        let k = self.m.at_least;
        for &(_, holds, bound) in self.answers.get(pos).into_iter().flatten() {
            if holds && bound >= k {
                return Status::Yes;
            }
            if !holds && bound < k {
                return Status::No;
            }
        }
        Status::Open
    }

    /// The status of `pos`, `depth` turns below the root. With `expand`, positions the
    /// current hypotheses need and that have no job are added to `wanted`.
    fn status(&mut self, pos: &Position, depth: u32, expand: bool) -> Status {
        if !expand {
            if let Some(&s) = self.memo.get(&(*pos, depth)) {
                return s;
            }
        }
        let s = self.walk(pos, depth, expand);
        if !expand {
            self.memo.insert((*pos, depth), s);
        }
        s
    }

    fn walk(&mut self, pos: &Position, depth: u32, expand: bool) -> Status {
        let (side, k) = (self.m.side, self.m.at_least);
        if pos.is_over() {
            return if final_margin(pos, side) >= k {
                Status::Yes
            } else {
                Status::No
            };
        }
        let key = pos.to_string();
        let known = self.answered(&key);
        if known != Status::Open {
            return known;
        }
        if depth >= self.m.turns {
            if expand {
                if !self.jobs.contains_key(&(key.clone(), k)) && !self.wanted.contains(pos) {
                    self.wanted.push(*pos);
                }
                self.needed.insert(key);
            }
            return Status::Open;
        }
        let mut kids = children(pos);
        if pos.to_move() == side {
            // One turn is enough: the best guess first; the next only once it is refuted.
            let guess = |c: &Position| self.m.guesses.get(&c.to_string()).copied();
            kids.sort_by_key(|c| std::cmp::Reverse(guess(c).unwrap_or(i32::MIN)));
            let s: Vec<Status> = kids
                .iter()
                .map(|c| self.status(c, depth + 1, false))
                .collect();
            if s.contains(&Status::Yes) {
                return Status::Yes;
            }
            let Some(first) = s.iter().position(|&x| x != Status::No) else {
                return Status::No;
            };
            if expand {
                self.status(&kids[first], depth + 1, true);
            }
            Status::Open
        } else {
            // Every turn of the opponent must keep the margin.
            let s: Vec<Status> = kids
                .iter()
                .map(|c| self.status(c, depth + 1, false))
                .collect();
            if s.contains(&Status::No) {
                return Status::No;
            }
            if s.iter().all(|&x| x == Status::Yes) {
                return Status::Yes;
            }
            if expand {
                for (c, _) in kids.iter().zip(&s).filter(|(_, &x)| x == Status::Open) {
                    self.status(c, depth + 1, true);
                }
            }
            Status::Open
        }
    }
}

/// Every file under `dir` (subdirectories too) whose name ends in `suffix`.
fn files_under(dir: &Path, suffix: &str, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("{}: cannot list", dir.display()))?;
    for e in entries {
        let e = e.with_context(|| format!("{}: cannot list", dir.display()))?;
        let p = e.path();
        if e.file_type()?.is_dir() {
            files_under(&p, suffix, out)?;
        } else if p.to_str().is_some_and(|s| s.ends_with(suffix)) {
            out.push(p);
        }
    }
    Ok(())
}

/// The state of a directory: its manifest, jobs and results, checked against each other.
struct Loaded {
    m: Manifest,
    root: Position,
    jobs: BTreeMap<u32, (Job, PathBuf)>,
    results: BTreeMap<u32, (JobResult, PathBuf)>,
}

fn load(dir: &Path) -> Result<Loaded> {
    let mpath = dir.join(MANIFEST);
    if !mpath.exists() {
        bail!(
            "{}: no {MANIFEST}: not the directory of a split proof (`mancala solve --split TURNS --jobs DIR` makes one)",
            dir.display()
        );
    }
    let m: Manifest = read_json(&mpath, "split proof manifest")?;
    check_format(&mpath, &m.format, MANIFEST_FORMAT)?;
    let root = parse_position(&mpath, &m.rules, &m.position)?;
    check_rules(&root)?;
    if root.to_move() != m.side || m.turns > 6 {
        bail!(
            "{}: corrupt: the side or the depth does not fit the root",
            mpath.display()
        );
    }
    let mut jobs: BTreeMap<u32, (Job, PathBuf)> = BTreeMap::new();
    let mut names = Vec::new();
    files_under(dir, ".json", &mut names)?;
    names.sort();
    for p in names.iter().filter(|p| {
        let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        n.starts_with("job-") && !n.ends_with(".result.json")
    }) {
        let (job, pos) = read_job(p)?;
        if pos.rules() != root.rules() || job.side != m.side {
            bail!(
                "{}: a job of another proof (rules `{}`, side {}): this directory proves `{}` for {}",
                p.display(),
                job.rules,
                job.side.name(),
                m.rules,
                m.side.name()
            );
        }
        if let Some((other, op)) = jobs.get(&job.id) {
            // The same job twice (copied back with its result) is fine.
            if (&other.position, other.at_least) != (&job.position, job.at_least) {
                bail!(
                    "{} and {}: two different jobs numbered {}",
                    op.display(),
                    p.display(),
                    job.id
                );
            }
            continue;
        }
        jobs.insert(job.id, (job.clone(), p.clone()));
    }
    let mut results: BTreeMap<u32, (JobResult, PathBuf)> = BTreeMap::new();
    for p in names.iter().filter(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(".result.json"))
    }) {
        let r = read_result(p)?;
        let Some((job, _)) = jobs.get(&r.id) else {
            bail!(
                "{}: the result of job {}, which this directory does not hold",
                p.display(),
                r.id
            );
        };
        if (&job.position, job.side, job.at_least) != (&r.position, r.side, r.at_least) {
            bail!(
                "{}: answers another question than job {} (position, side or threshold differ)",
                p.display(),
                r.id
            );
        }
        // The same answer twice (copied from two machines) is fine; two answers that
        // disagree mean one is wrong.
        if let Some((other, op)) = results.get(&r.id) {
            let o: &JobResult = other;
            if (o.holds != r.holds) || (o.holds && o.bound.min(r.bound) < r.at_least) {
                bail!(
                    "{} and {}: two results of job {} disagree",
                    op.display(),
                    p.display(),
                    r.id
                );
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

/// Reads the directory, says what is proven, writes the next round's jobs; with
/// `parallel`, runs the jobs here, round after round, until the root is decided.
fn merge_dir(dir: &Path, json: bool, parallel: Option<u16>, opts: &JobOptions) -> Result<()> {
    // The threads asked are shared out among the jobs run at once.
    let opts = &JobOptions {
        threads: (opts.threads / parallel.unwrap_or(1)).max(1),
        ..opts.clone()
    };
    loop {
        let report = merge_once(dir, true)?;
        let open = report.status == Status::Open;
        match parallel {
            Some(n) if open => {
                let todo = report.unproven.clone();
                if todo.is_empty() {
                    bail!(
                        "{}: the root is open, yet no job is left to run",
                        dir.display()
                    );
                }
                if !json {
                    println!(
                        "running {} job{} of round {}, {n} at once",
                        todo.len(),
                        if todo.len() == 1 { "" } else { "s" },
                        report.round
                    );
                }
                run_files(&todo, n, opts, json)?;
            }
            _ => {
                report.print(dir, json);
                return Ok(());
            }
        }
    }
}

/// What a merge found.
struct Report {
    status: Status,
    question: String,
    asked_at_most: bool,
    at_least: i32,
    side: Side,
    jobs: usize,
    results: usize,
    nodes: u64,
    seconds: f64,
    failed: Vec<(u32, String, i32)>,
    /// Job files without a result (the ones written now included).
    unproven: Vec<PathBuf>,
    new_jobs: Vec<u32>,
    round: u32,
    round_file: Option<PathBuf>,
}

/// One merge of `dir`; with `write`, the jobs the hypotheses need and lack are written as the
/// next round.
fn merge_once(dir: &Path, write: bool) -> Result<Report> {
    let l = load(dir)?;
    let mut answers: HashMap<String, Vec<(i32, bool, i32)>> = HashMap::new();
    for (r, _) in l.results.values() {
        answers
            .entry(r.position.clone())
            .or_default()
            .push((r.at_least, r.holds, r.bound));
    }
    let mut mg = Merge {
        m: &l.m,
        jobs: l
            .jobs
            .values()
            .map(|(j, p)| ((j.position.clone(), j.at_least), (j.clone(), p.clone())))
            .collect(),
        answers,
        wanted: Vec::new(),
        memo: HashMap::new(),
        needed: HashSet::new(),
    };
    let status = mg.status(&l.root, 0, true);
    let wanted = std::mem::take(&mut mg.wanted);
    // Jobs of the round the directory is in; new ones start the next round.
    let last_round = l.jobs.values().map(|(j, _)| j.round).max().unwrap_or(0);
    let mut round = last_round;
    let mut new_jobs = Vec::new();
    let mut round_file = None;
    if write && status == Status::Open && !wanted.is_empty() {
        round = last_round + 1;
        let mut id = l.jobs.keys().max().copied().unwrap_or(0);
        let mut lines = String::new();
        for pos in &wanted {
            id += 1;
            let job = Job {
                format: JOB_FORMAT.into(),
                id,
                round,
                rules: pos.rules().to_string(),
                position: pos.to_string(),
                side: l.m.side,
                at_least: l.m.at_least,
                question: question(l.m.side, l.m.at_least),
                tables: l.m.tables.clone(),
            };
            let name = job_name(id);
            write_atomic(
                &dir.join(&name),
                &(serde_json::to_string_pretty(&job)? + "\n"),
            )?;
            lines.push_str(&name);
            lines.push('\n');
            new_jobs.push(id);
        }
        let rf = dir.join(format!("round-{round}.txt"));
        write_atomic(&rf, &lines)?;
        round_file = Some(rf);
    }
    // The jobs the hypotheses wait for, those just written included; a job without a result
    // whose answer no longer matters (a sibling refuted its parent) is left out.
    let needed = std::mem::take(&mut mg.needed);
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
        .map(|(r, _)| (r.id, r.position.clone(), r.bound))
        .collect();
    Ok(Report {
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

impl Report {
    /// The root's answer in the words of the question asked.
    fn answer(&self) -> String {
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

    fn print(&self, dir: &Path, json: bool) {
        let rel = |p: &Path| {
            p.strip_prefix(dir)
                .unwrap_or(p)
                .to_string_lossy()
                .into_owned()
        };
        if json {
            let v = json!({
                "question": self.question,
                "side": self.side,
                "at_least": self.at_least,
                "status": match self.status { Status::Yes => "proven", Status::No => "refuted", Status::Open => "open" },
                "holds": match self.status { Status::Yes => Some(true), Status::No => Some(false), Status::Open => None },
                "answer": self.answer(),
                "jobs": self.jobs,
                "results": self.results,
                "nodes": self.nodes,
                "job_seconds": self.seconds,
                "failed": self.failed.iter().map(|(id, p, b)| json!({"id": id, "position": p, "at_most": b})).collect::<Vec<_>>(),
                "unproven": self.unproven.iter().map(|p| rel(p)).collect::<Vec<_>>(),
                "new_jobs": self.new_jobs,
                "round": self.round,
                "round_file": self.round_file.as_deref().map(rel),
            });
            println!("{v}");
            return;
        }
        println!("{}: {}", dir.display(), self.question);
        println!(
            "jobs: {}, with results: {} ({} nodes, {:.1} s of proofs)",
            self.jobs, self.results, self.nodes, self.seconds
        );
        for (id, p, b) in &self.failed {
            println!(
                "hypothesis failed: job {id} ({p}) was to show at least {:+}, proven below it (at most {b:+})",
                self.at_least
            );
        }
        println!("root: {}", self.answer());
        if self.status == Status::Open {
            if let Some(rf) = &self.round_file {
                println!(
                    "round {}: {} new job{} written, listed in {}",
                    self.round,
                    self.new_jobs.len(),
                    if self.new_jobs.len() == 1 { "" } else { "s" },
                    rf.display()
                );
            }
            println!(
                "remaining: {} job{} without a result (run each with `mancala prove-job FILE`, or all with `mancala run-jobs {}`), then merge again",
                self.unproven.len(),
                if self.unproven.len() == 1 { "" } else { "s" },
                dir.display()
            );
        }
    }
}

#[derive(Args)]
pub struct ProveJobArgs {
    /// A job file written by `mancala solve --split` (or `--merge`); the result goes next to
    /// it (`job-NNNNNN.result.json`).
    file: PathBuf,
    #[command(flatten)]
    opts: JobOptions,
    /// Prove it again even where a result exists.
    #[arg(long)]
    force: bool,
    #[arg(long)]
    json: bool,
}

/// `mancala prove-job FILE`.
pub fn prove_job_cmd(a: ProveJobArgs) -> Result<()> {
    let r = prove_job(&a.file, &a.opts, a.force)?;
    if a.json {
        println!("{}", serde_json::to_string(&r)?);
    } else {
        println!(
            "job {} ({}): {}: {} ({} nodes, {:.2} s)",
            r.id,
            r.position,
            r.side.name(),
            r.proven,
            r.nodes,
            r.seconds
        );
    }
    Ok(())
}

/// Proves the job of `file` and writes its result next to it (kept where one exists, unless
/// `force`).
fn prove_job(file: &Path, opts: &JobOptions, force: bool) -> Result<JobResult> {
    let (job, pos) = read_job(file)?;
    let out = result_path(file);
    if out.exists() && !force {
        let r = read_result(&out)?;
        if (&r.position, r.side, r.at_least) == (&job.position, job.side, job.at_least) {
            return Ok(r);
        }
        bail!(
            "{}: answers another question than its job {}; remove it (or give --force)",
            out.display(),
            file.display()
        );
    }
    if pos.is_over() {
        bail!("{}: the game is over in this position", file.display());
    }
    let start = Instant::now();
    let (engine, db) = proof_engine(
        &pos,
        opts.egdb.as_deref(),
        opts.tt_mb,
        opts.threads,
        opts.time,
    )?;
    let used = tables_of(db.as_deref(), &pos);
    if let Some(t) = &job.tables {
        if used
            .as_ref()
            .is_none_or(|u| u.name != t.name || u.max_seeds < t.max_seeds)
        {
            eprintln!(
                "note: {}: the job was split with tables {} to {} seeds; this proof has {} (slower, same answer)",
                file.display(),
                t.name,
                t.max_seeds,
                used.as_ref()
                    .map_or("none".to_string(), |u| format!("{} to {} seeds", u.name, u.max_seeds))
            );
        }
    }
    let limits = Limits {
        time: opts.time,
        ..Limits::default()
    };
    let progress = crate::engine_cmds::ProofProgress::new();
    let what = format!("job {}, at least {:+}?", job.id, job.at_least);
    let show = |p: &mancala_engine::SolveProgress| progress.show(&what, p);
    let b =
        engine.prove_at_least_with_progress(&pos, job.side, job.at_least, limits, &[], Some(&show));
    progress.finish();
    let b = b.with_context(|| {
        format!(
            "{}: the proof did not finish within the time limit",
            file.display()
        )
    })?;
    check_tables(db.as_deref())?;
    let r = JobResult {
        format: RESULT_FORMAT.into(),
        id: job.id,
        rules: job.rules.clone(),
        position: job.position.clone(),
        side: job.side,
        at_least: job.at_least,
        holds: b.holds,
        bound: b.bound,
        proven: bound_text(&b, false),
        nodes: b.nodes,
        oracle_hits: b.oracle_hits,
        seconds: b.elapsed.as_secs_f64(),
        wall_seconds: start.elapsed().as_secs_f64(),
        threads: opts.threads,
        tt_mb: (engine.table_bytes() >> 20) as u32,
        tables: used,
    };
    write_atomic(&out, &(serde_json::to_string_pretty(&r)? + "\n"))?;
    Ok(r)
}

#[derive(Args)]
pub struct RunJobsArgs {
    /// The directory of a split proof.
    dir: PathBuf,
    /// Jobs run at once, each its own process.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=256))]
    parallel: u16,
    #[command(flatten)]
    opts: JobOptions,
    #[arg(long)]
    json: bool,
}

/// `mancala run-jobs DIR`: every job the merge of the directory waits for.
pub fn run_jobs_cmd(a: RunJobsArgs) -> Result<()> {
    // The jobs the merge waits for (none is written here).
    let todo = merge_once(&a.dir, false)?.unproven;
    run_files(&todo, a.parallel, &a.opts, a.json)?;
    if !a.json {
        println!(
            "{} job{} proven; merge with `mancala solve --merge {}`",
            todo.len(),
            if todo.len() == 1 { "" } else { "s" },
            a.dir.display()
        );
    }
    Ok(())
}

/// Runs `mancala prove-job` on each of `files`, `parallel` processes at once (each with
/// `opts.threads` threads). Fails, naming the job, when one fails.
fn run_files(files: &[PathBuf], parallel: u16, opts: &JobOptions, quiet: bool) -> Result<()> {
    let exe = std::env::current_exe().context("cannot find this program to run the jobs")?;
    let queue = std::sync::Mutex::new(files.iter());
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..parallel.max(1) {
            s.spawn(|| loop {
                let Some(f) = queue.lock().unwrap_or_else(|e| e.into_inner()).next() else {
                    break;
                };
                let mut cmd = std::process::Command::new(&exe);
                cmd.arg("prove-job").arg(f);
                cmd.arg("--threads").arg(opts.threads.to_string());
                if let Some(d) = &opts.egdb {
                    cmd.arg("--egdb").arg(d);
                }
                if let Some(mb) = opts.tt_mb {
                    cmd.arg("--tt-mb").arg(mb.to_string());
                }
                if let Some(t) = opts.time {
                    cmd.arg("--time").arg(format!("{}ms", t.as_millis().max(1)));
                }
                match cmd.output() {
                    Ok(o) if o.status.success() => {
                        if !quiet {
                            print!("{}", String::from_utf8_lossy(&o.stdout));
                        }
                    }
                    Ok(o) => {
                        // Said as it happens, so that a log shows every job that gave up
                        // (a time limit) or failed, not only the first.
                        let line = format!(
                            "{}: {}",
                            f.display(),
                            String::from_utf8_lossy(&o.stderr).trim()
                        );
                        eprintln!("{line}");
                        failures
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push(line);
                    }
                    Err(e) => failures
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(format!(
                            "{}: cannot start {}: {e}",
                            f.display(),
                            exe.display()
                        )),
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some(first) = failures.first() {
        bail!(
            "{} job{} failed; the first: {first}",
            failures.len(),
            if failures.len() == 1 { "" } else { "s" }
        );
    }
    Ok(())
}
