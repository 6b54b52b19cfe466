//! Proofs split into jobs, on the command line: `solve --split`, `prove-job`, `run-jobs` and
//! `solve --merge`. The proofs, the files and the merge are [`mancala_engine::split`]'s;
//! here are the flags, the spinner and progress lines on standard error, the reports on
//! standard output, and the processes (`mancala prove-job`) that run jobs in parallel.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use mancala_core::Position;
use mancala_engine::split::{self, MergeReport, Status, Tables, GUESS_DEPTH};

use crate::progress::ProofProgress;

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
    /// Give up on a job after this time, with its unit (`90s`, `10m`, `2h`); it
    /// stays without a result, so it can be run again.
    #[arg(long, value_parser = crate::time_arg::within(1, 31_536_000))]
    pub time: Option<Duration>,
}

impl JobOptions {
    /// The options of the library's proofs, with the endgame tables of `--egdb` opened
    /// (their checksums checked), noting on stderr where they hold none of `pos`'s rules.
    fn library(&self, pos: &Position) -> Result<split::JobOptions> {
        let db = crate::tables::open_egdb(self.egdb.as_deref(), pos)?;
        Ok(split::JobOptions {
            oracle: crate::tables::oracle(&db),
            tt_mb: self.tt_mb,
            threads: self.threads,
            time: self.time,
        })
    }
}

/// The spinner of a split's short searches (hidden where stderr is no terminal): they take
/// minutes on big boards.
struct SplitSpinner(indicatif::ProgressBar);

impl split::Progress for SplitSpinner {
    fn threshold_guessed(&self, at_least: i32) {
        self.0.suspend(|| {
            eprintln!(
                "note: no --at-least/--at-most given: asking whether the value is at least {at_least:+}, the {GUESS_DEPTH}-ply search's value"
            )
        });
    }

    fn guessing(&self, searched: usize) {
        self.0.set_message(format!(
            "choosing the turns to prove: {searched} positions searched to {GUESS_DEPTH} plies"
        ));
    }
}

/// A job's proof on stderr: [`ProofProgress`], and a note where it has fewer tables than
/// the split had.
struct JobProgress(ProofProgress);

impl split::Progress for JobProgress {
    fn proving(&self, job: &split::Job, p: &mancala_engine::SolveProgress) {
        let what = format!("job {}, at least {:+}?", job.id, job.at_least);
        self.0.show(&what, p);
    }

    fn fewer_tables(&self, job_file: &Path, t: &Tables, used: Option<&Tables>) {
        eprintln!(
            "note: {}: the job was split with tables {} to {} seeds; this proof has {} (slower, same answer)",
            job_file.display(),
            t.name,
            t.max_seeds,
            used.map_or("none".to_string(), |u| format!("{} to {} seeds", u.name, u.max_seeds))
        );
    }
}

/// What `solve --split` and `solve --merge` were asked besides the jobs' directory.
pub struct SplitAsk {
    /// The options the jobs share.
    pub opts: JobOptions,
    /// The bound asked (`--at-least`, `--at-most`); `None`: the value.
    pub threshold: Option<split::Threshold>,
    /// `--json`.
    pub json: bool,
    /// `--parallel`.
    pub parallel: Option<u16>,
}

/// `solve --split TURNS --jobs DIR`: writes the manifest and the first round of jobs.
pub fn split_cmd(pos: &Position, turns: u32, dir: &Path, a: &SplitAsk) -> Result<()> {
    let opts = &a.opts;
    // The tables only name what the jobs are split with: opened, read, closed.
    let oracle = match &opts.egdb {
        Some(d) => Some(std::sync::Arc::new(mancala_egdb::Egdb::open(d)?)
            as std::sync::Arc<dyn mancala_engine::Oracle + Send>),
        None => None,
    };
    let bar = indicatif::ProgressBar::new_spinner();
    bar.enable_steady_tick(Duration::from_millis(200));
    bar.set_message(format!(
        "choosing the turns to prove: searching to {GUESS_DEPTH} plies"
    ));
    let spinner = SplitSpinner(bar);
    let report = split::split(pos, turns, dir, a.threshold, oracle, &spinner);
    spinner.0.finish_and_clear();
    finish(dir, report?, a.json, a.parallel, opts)
}

/// `solve --merge DIR`.
pub fn merge_cmd(dir: &Path, a: &SplitAsk) -> Result<()> {
    let report = split::merge(dir)?;
    finish(dir, report, a.json, a.parallel, &a.opts)
}

/// Prints the merge `report` of `dir`; with `parallel`, first runs the jobs here, that many
/// processes at once, round after round, until the root is decided.
fn finish(
    dir: &Path,
    report: MergeReport,
    json: bool,
    parallel: Option<u16>,
    opts: &JobOptions,
) -> Result<()> {
    let report = match parallel {
        None => report,
        Some(n) => {
            // The threads asked are shared out among the jobs run at once.
            let opts = JobOptions {
                threads: (opts.threads / n).max(1),
                ..opts.clone()
            };
            split::run_rounds(dir, report, |r| -> Result<()> {
                if !json {
                    println!(
                        "running {} job{} of round {}, {n} at once",
                        r.unproven.len(),
                        if r.unproven.len() == 1 { "" } else { "s" },
                        r.round
                    );
                }
                run_files(&r.unproven, n, &opts, json)
            })?
        }
    };
    print_report(dir, &report, json);
    Ok(())
}

fn print_report(dir: &Path, r: &MergeReport, json: bool) {
    if json {
        println!("{}", r.to_json(dir));
        return;
    }
    println!("{}: {}", dir.display(), r.question);
    println!(
        "jobs: {}, with results: {} ({} nodes, {:.1} s of proofs)",
        r.jobs, r.results, r.nodes, r.seconds
    );
    for f in &r.failed {
        println!(
            "hypothesis failed: job {} ({}) was to show at least {:+}, proven below it (at most {:+})",
            f.id, f.position, r.at_least, f.at_most
        );
    }
    println!("root: {}", r.answer());
    if r.status == Status::Open {
        if let Some(rf) = &r.round_file {
            println!(
                "round {}: {} new job{} written, listed in {}",
                r.round,
                r.new_jobs.len(),
                if r.new_jobs.len() == 1 { "" } else { "s" },
                rf.display()
            );
        }
        println!(
            "remaining: {} job{} without a result (run each with `mancala prove-job FILE`, or all with `mancala run-jobs {}`), then merge again",
            r.unproven.len(),
            if r.unproven.len() == 1 { "" } else { "s" },
            dir.display()
        );
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
    // The tables are opened only for a proof to run (opening checks their checksums).
    let opts = if a.force || !split::result_path(&a.file).exists() {
        let (_, pos) = split::Job::read(&a.file)?;
        a.opts.library(&pos)?
    } else {
        split::JobOptions::default()
    };
    let progress = JobProgress(ProofProgress::new());
    let r = split::prove_job(&a.file, &opts, a.force, &progress);
    progress.0.finish();
    let r = r?;
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
    let todo = split::pending(&a.dir)?;
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
