//! The `mancala` command. Every subcommand that prints results takes `--json`; the exit code
//! is 0 on success and 2 on bad usage or bad input, with a one-line error on stderr.

mod args;
mod bench;
mod bench_proofs;
mod board;
mod book_cmd;
mod command_line;
mod egdb_cmd;
mod engine_cmd;
mod engine_cmds;
mod input;
mod kgp_cmd;
mod manchester_cmd;
mod perft_cmd;
mod play;
mod progress;
mod replay_cmd;
mod rules_cmd;
mod simple_args;
mod split;
mod stats;
mod tables;
mod time_arg;
mod tournament_cmd;
mod tui;
mod user_cmd;

use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{Args, FromArgMatches, Parser, Subcommand};

pub use args::{error_in, LangArg, RulesArgs};
use command_line::{clap_error_line, command, range_error};
use perft_cmd::{perft_cmd, PerftArgs};
use replay_cmd::{replay, ReplayArgs};
use rules_cmd::{rules_cmd, variants, RulesCmdArgs};

#[derive(Parser)]
#[command(
    name = "mancala",
    version,
    about = "Play, replay and analyse the sowing games of the Kalah family: Kalah, Cross-Kalah, Dracala, Kauri, the 4x2 Vaccean mancala, and Oware",
    after_help = "Run `mancala variants` for the games and their options, `mancala rules PRESET` for a game's rules."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play a game against the computer in the terminal.
    Play(play::PlayArgs),
    /// Replay a game record (text or JSON; `-` reads stdin), turn by turn.
    Replay(ReplayArgs),
    /// Count the leaves of the game tree by ply (or by turn).
    Perft(PerftArgs),
    /// Print the rules of a preset, generated from the rules data.
    Rules(RulesCmdArgs),
    /// List the presets and their options.
    Variants(JsonArg),
    /// Analyse a position (best move, value, principal variation) or every move of a record.
    Analyze(engine_cmds::AnalyzeArgs),
    /// Prove the exact value of a position (the start by default) with perfect play, or a
    /// bound on it (`--at-least`, `--at-most`), or split that proof into jobs (`--split`,
    /// `--merge`).
    Solve(engine_cmds::SolveArgs),
    /// Prove one job of a split proof and write its result file next to it.
    ProveJob(split::ProveJobArgs),
    /// Run the jobs of a split proof that its merge waits for (no result yet), N processes at
    /// once.
    RunJobs(split::RunJobsArgs),
    /// A long-lived engine speaking a line protocol on stdin/stdout (docs/protocols.md).
    Engine(engine_cmd::EngineArgs),
    /// Measure short searches from a fresh process and from `mancala engine`: wall time,
    /// nodes, depth, and the node rate against a long search.
    BenchEngine(bench::BenchArgs),
    /// Play games from the start with endgame tables as `mancala engine` plays them, and
    /// print the share of moves answered proven within each time, and the worst position.
    BenchProofs(bench_proofs::BenchProofsArgs),
    /// Play two levels against each other, both colours, and estimate their Elo difference.
    Match(engine_cmds::MatchArgs),
    /// Serve the browser client and its JSON/WebSocket API (games saved in SQLite).
    Serve(mancala_server::ServeArgs),
    /// Write a static copy of the browser client that plays with the engine in the browser
    /// (no server) and, after the first visit, offline: serve DIR with any file server.
    WebExport(WebExportArgs),
    /// Play many games and report length, branching factor, complexity and results.
    Stats(stats::StatsArgs),
    /// Play full-screen in the terminal: against the computer or two people at one keyboard.
    Tui(tui::TuiArgs),
    /// Endgame databases: build, info, probe.
    Egdb(egdb_cmd::EgdbArgs),
    /// Play a bot protocol: Manchester Kalah over standard input and output, KGP over TCP or WebSocket.
    Agent(manchester_cmd::AgentArgs),
    /// Serve the Kalah Game Protocol (KGP 1.x) over TCP and WebSocket: connected bots play our level.
    KgpServer(kgp_cmd::KgpServerArgs),
    /// Referee games between two agent programs (Manchester Kalah).
    Referee(manchester_cmd::RefereeArgs),
    /// A round robin between bot commands over Manchester Kalah or KGP, with standings.
    Tournament(tournament_cmd::TournamentArgs),
    /// Accounts of the web site (`serve`): add, reset-password, disable.
    User(user_cmd::UserArgs),
}

#[derive(Args)]
struct JsonArg {
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let mut cmd = command();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let parsed = cmd
        .try_get_matches_from_mut(&args)
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        // --help, --version (stdout, exit 0), and the help shown for a bare `mancala`.
        Err(e)
            if !e.use_stderr()
                || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand =>
        {
            e.exit()
        }
        Err(e) => {
            let line = range_error(&e, &cmd, &args).unwrap_or_else(|| clap_error_line(&e));
            eprintln!("error: {line}");
            return ExitCode::from(2);
        }
    };
    // Output cut short by its reader (`mancala solve | head`) ends the program quietly, as
    // other command-line tools do, instead of a panic on the broken pipe. The server, the
    // TUI, the referee, a tournament and a match of engine processes (an agent or engine
    // that exits is a broken pipe they report) keep Rust's default (the signal ignored).
    #[cfg(unix)]
    let reports_pipes = match &cli.command {
        Command::Serve(_)
        | Command::Tui(_)
        | Command::Referee(_)
        | Command::KgpServer(_)
        | Command::Tournament(_) => true,
        Command::Agent(a) => a.over_network(),
        Command::Match(a) => a.plays_processes(),
        _ => false,
    };
    #[cfg(unix)]
    if !reports_pipes {
        // SAFETY: restoring a signal's default disposition before any thread is started.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    let result = match cli.command {
        Command::Play(a) => play::run(a),
        Command::Replay(a) => replay(a),
        Command::Perft(a) => perft_cmd(a),
        Command::Rules(a) => rules_cmd(a),
        Command::Variants(a) => variants(a.json),
        Command::Analyze(a) => engine_cmds::analyze(a),
        Command::Solve(a) => engine_cmds::solve(a),
        Command::ProveJob(a) => split::prove_job_cmd(a),
        Command::RunJobs(a) => split::run_jobs_cmd(a),
        Command::Match(a) => engine_cmds::match_cmd(a),
        Command::Engine(a) => engine_cmd::run(a),
        Command::BenchEngine(a) => bench::run(a),
        Command::BenchProofs(a) => bench_proofs::run(a),
        Command::Serve(a) => mancala_server::run(a),
        Command::WebExport(a) => web_export(a),
        Command::Stats(a) => stats::run(a),
        Command::Tui(a) => tui::run(a),
        Command::Egdb(a) => egdb_cmd::run(a),
        Command::Agent(a) => manchester_cmd::agent(a),
        Command::Referee(a) => manchester_cmd::referee(a),
        Command::KgpServer(a) => kgp_cmd::server(a),
        Command::Tournament(a) => tournament_cmd::run(a),
        Command::User(a) => user_cmd::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line, and what it quotes (a file name, a record) escaped.
            let msg = mancala_core::printable(&format!("{e:#}").replace('\n', " "));
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}

#[derive(Args)]
struct WebExportArgs {
    /// The folder to write (made where missing; files of the same names are replaced).
    dir: std::path::PathBuf,
    /// The engine built for the browser: the folder scripts/wasm-build.sh writes.
    #[arg(long, default_value = "web/pkg")]
    pkg: std::path::PathBuf,
}

fn web_export(a: WebExportArgs) -> anyhow::Result<()> {
    let files = mancala_server::web::export(&a.dir, &a.pkg)?;
    println!(
        "wrote {} files to {}: serve it with any static file server",
        files.len(),
        a.dir.display()
    );
    Ok(())
}
