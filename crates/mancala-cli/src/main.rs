//! The `mancala` command. Every subcommand that prints results takes `--json`; the exit code
//! is 0 on success and 2 on bad usage or bad input, with a one-line error on stderr.

mod bench;
mod bench_proofs;
mod board;
mod egdb_cmd;
mod engine_cmd;
mod engine_cmds;
mod input;
mod kgp_cmd;
mod manchester_cmd;
mod play;
mod progress;
mod simple_args;
mod split;
mod stats;
mod tables;
mod time_arg;
mod tournament_cmd;
mod tui;
mod user_cmd;

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use mancala_core::i18n::Lang;
use mancala_core::notation::{self, Notation};
use mancala_core::perft::{perft, perft_full_depth, perft_turns};
use mancala_core::rules::{RulesSpec, OPTIONS};
use mancala_core::with_family;
use mancala_core::{GameState, Position, Preset, Rules};
use serde_json::json;

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

/// The game and its options; every option defaults to the preset's value.
///
/// Besides `--variant`, every option of [`OPTIONS`] is a flag of its own name (`--seeds 4`),
/// generated from the registry with its help and values.
#[derive(Clone, Debug, Default)]
pub struct RulesArgs {
    /// Preset, options may follow after commas (`kalah,seeds=4`).
    pub variant: Option<String>,
    /// The option flags given, as `(name, value)` in [`OPTIONS`] order.
    pub options: Vec<(&'static str, String)>,
}

impl clap::Args for RulesArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        let presets = Preset::ALL.map(Preset::name).join(", ");
        let cmd = cmd.arg(
            clap::Arg::new("variant")
                .long("variant")
                .short('v')
                .value_name("VARIANT")
                .help(format!(
                    "Preset: {presets} (options may follow after commas: `kalah,seeds=4`)"
                )),
        );
        OPTIONS.iter().fold(cmd, |cmd, o| {
            let which = if o.presets().count() == Preset::ALL.len() {
                String::new()
            } else {
                format!(
                    " ({} only)",
                    o.presets().map(Preset::name).collect::<Vec<_>>().join(", ")
                )
            };
            cmd.arg(
                clap::Arg::new(o.name)
                    .long(o.name)
                    .value_name("VALUE")
                    .help(format!("{}: {}{which}", o.help(Lang::En), o.values())),
            )
        })
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl clap::FromArgMatches for RulesArgs {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let text = |id: &str| m.get_one::<String>(id).cloned();
        Ok(RulesArgs {
            variant: text("variant"),
            options: OPTIONS
                .iter()
                .filter_map(|o| Some((o.name, text(o.name)?)))
                .collect(),
        })
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl RulesArgs {
    /// The rules named, or `None` when no variant and no option was given.
    pub fn rules_opt(&self) -> Result<Option<Rules>> {
        if self.variant.is_none() && self.options.is_empty() {
            return Ok(None);
        }
        let variant = self.variant.as_deref().unwrap_or("kalah");
        let base: Rules = variant.parse()?;
        let mut spec = RulesSpec::from(base);
        // An option both in --variant and as a flag is refused, as one given twice in a
        // rules string is: which was meant is not for the program to guess.
        let in_variant: Vec<&str> = variant
            .split(',')
            .skip(1)
            .filter_map(|kv| kv.split_once('=').map(|(k, _)| k.trim()))
            .collect();
        for (name, value) in &self.options {
            if in_variant.contains(name) {
                bail!("option {name} is given twice: in `{variant}` and as --{name}");
            }
            spec.set(name, value)?;
        }
        Ok(Some(Rules::try_from(spec)?))
    }

    pub fn rules(&self) -> Result<Rules> {
        Ok(self.rules_opt()?.unwrap_or_default())
    }

    /// The position string given (it must play the rules named, if any), else the start of
    /// the rules.
    pub fn start_position(&self, position: Option<&str>) -> Result<Position> {
        match position {
            Some(p) => self.check_position(p.parse()?),
            None => Ok(Position::start(&self.rules()?)?),
        }
    }

    /// `p`, if it plays the rules named (when any are).
    pub fn check_position(&self, p: Position) -> Result<Position> {
        match self.rules_opt()? {
            Some(r) if &r != p.rules() => bail!("the position plays `{}`, not `{r}`", p.rules()),
            _ => Ok(p),
        }
    }
}

#[derive(Args)]
struct JsonArg {
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct ReplayArgs {
    /// Record file (text or JSON), or `-` for stdin.
    file: String,
    #[command(flatten)]
    rules: RulesArgs,
    /// Replay the moves even where the record's annotations disagree (reports the first).
    #[arg(long)]
    lenient: bool,
    /// Print the record as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    lang: LangArg,
}

#[derive(Args)]
struct PerftArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Depth in plies (or turns with --turns), 1-40.
    #[arg(long, short = 'd', value_parser = clap::value_parser!(u32).range(1..=40))]
    depth: u32,
    /// Count whole turns (a move and its extra moves) instead of plies.
    #[arg(long)]
    turns: bool,
    /// Count only move paths of the full depth (chess's convention); by default a game that
    /// ends before the depth counts once, where it ends.
    #[arg(long, conflicts_with = "turns")]
    full_depth: bool,
    /// Start from this position string instead of the start.
    #[arg(long)]
    position: Option<String>,
    /// Print time and leaves a second for the last depth.
    #[arg(long)]
    stats: bool,
    /// Threads for the last depth (root moves split between them).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct RulesCmdArgs {
    /// Preset name (options may follow after commas, or as flags).
    preset: String,
    #[command(flatten)]
    rules: RulesArgs,
    #[command(flatten)]
    lang: LangArg,
    /// The rules as JSON (its `text` in English, whatever --lang says).
    #[arg(long)]
    json: bool,
}

/// The language of the words a command prints for people: `--lang`, else the locale of the
/// environment (`LC_ALL`, `LC_MESSAGES`, `LANG`, the first set) where it names one of the
/// four, else English. Machine output (`--json`) is never translated.
#[derive(Args, Clone, Debug, Default)]
pub struct LangArg {
    /// Language of the words: en, pt, es or it (default: from LC_ALL, LC_MESSAGES or LANG, else en).
    #[arg(long, value_name = "LANG", value_parser = parse_lang)]
    pub lang: Option<Lang>,
}

/// A `--lang` value; a wrong one is said as what it is, not as a rules error.
fn parse_lang(s: &str) -> Result<Lang, String> {
    s.parse().map_err(|e| match e {
        mancala_core::Error::Rules(m) => m.to_string(),
        e => e.to_string(),
    })
}

impl LangArg {
    /// The language asked for, or the environment's.
    pub fn get(&self) -> Lang {
        self.lang
            .unwrap_or_else(|| lang_from_env(|k| std::env::var(k).ok()))
    }
}

/// An error in `lang`: each cause that is the core's (an illegal move, a bad record) said in
/// it, any other in English; the causes joined as `{e:#}` joins them.
pub fn error_in(e: &anyhow::Error, lang: Lang) -> String {
    e.chain()
        .map(|c| match c.downcast_ref::<mancala_core::Error>() {
            Some(core) => core.text_in(lang),
            None => c.to_string(),
        })
        .collect::<Vec<_>>()
        .join(": ")
}

/// The language the first set locale variable names (as `gettext` reads them: `LC_ALL`, then
/// `LC_MESSAGES`, then `LANG`), English where that is none of the four.
fn lang_from_env(var: impl Fn(&str) -> Option<String>) -> Lang {
    ["LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .filter_map(|k| var(k).filter(|v| !v.is_empty()))
        .next()
        .and_then(|v| Lang::from_locale(&v))
        .unwrap_or_default()
}

/// The command line's parser: [`Cli`], where every option that takes a value takes a
/// negative number as its value too (`--games -1`), so that the option's own parser says
/// what it takes instead of the number being read as an unknown flag.
fn command() -> clap::Command {
    fn negatives(cmd: clap::Command) -> clap::Command {
        let subs: Vec<String> = cmd
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .collect();
        let cmd = cmd.mut_args(|a| {
            if a.get_action().takes_values() {
                a.allow_negative_numbers(true)
            } else {
                a
            }
        });
        subs.iter()
            .fold(cmd, |cmd, name| cmd.mut_subcommand(name, negatives))
    }
    negatives(Cli::command())
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

/// A command-line error in one line, as every other error: clap's message (with the
/// values it lists) and the similar name it suggests, without its usage and other tips.
fn clap_error_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut parts = text.split("\n\n");
    let message = parts.next().unwrap_or_default();
    let message = message.strip_prefix("error: ").unwrap_or(message);
    let mut lines = message.lines().map(str::trim);
    let head = lines.next().unwrap_or_default();
    // A list after a colon (`the following required arguments were not provided:`).
    let sep = if head.ends_with(':') { ", " } else { " " };
    let rest = lines.collect::<Vec<_>>().join(sep);
    let mut line = format!("{head} {rest}").trim_end().to_string();
    for part in parts {
        let tip = part.trim().strip_prefix("tip: ").unwrap_or_default();
        if tip.contains("similar") {
            line += &format!(" ({tip})");
        }
    }
    mancala_core::printable(line.trim())
}

/// A whole number out of an option's range (`--games -1`, `--depth 0`), said as
/// `--games -1: give a number from 1 to 10000000`. The range is the option's parser's own:
/// from its error for this value, else from its errors for values that are out of every
/// range it could have (a parser of unsigned numbers refuses `-1` as no number at all).
fn range_error(
    e: &clap::Error,
    cmd: &clap::Command,
    args: &[std::ffi::OsString],
) -> Option<String> {
    if e.kind() != ErrorKind::ValueValidation {
        return None;
    }
    let text = |k| match e.get(k) {
        Some(ContextValue::String(s)) => Some(s.as_str()),
        _ => None,
    };
    let (shown, value) = (
        text(ContextKind::InvalidArg)?,
        text(ContextKind::InvalidValue)?,
    );
    let digits = value.strip_prefix('-').unwrap_or(value);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // The subcommand the option belongs to: the leading subcommand names of the line.
    let mut sub = cmd;
    for a in args.iter().skip(1) {
        match a.to_str().and_then(|a| sub.find_subcommand(a)) {
            Some(s) => sub = s,
            None => break,
        }
    }
    let parser = sub
        .get_arguments()
        .find(|a| a.to_string() == shown)?
        .get_value_parser()
        .clone();
    let probing = clap::Command::new("probe").arg(
        clap::Arg::new("n")
            .long("n")
            .allow_negative_numbers(true)
            .value_parser(parser),
    );
    let bounds = [value, "0", &i64::MAX.to_string(), &u64::MAX.to_string()]
        .into_iter()
        .find_map(|probe| {
            let err = probing
                .clone()
                .try_get_matches_from(["probe", "--n", probe])
                .err()?;
            let why = std::error::Error::source(&err)?.to_string();
            let (_, range) = why.split_once(" is not in ")?;
            let (low, high) = range.split_once("..")?;
            let high = match high.strip_prefix('=') {
                Some(h) => h.parse::<u64>().ok()?,
                None => high.parse::<u64>().ok()?.checked_sub(1)?,
            };
            Some((low.parse::<i64>().ok()?, high))
        })?;
    let flag = shown.split(' ').next().unwrap_or(shown);
    Some(match bounds {
        (low, high) if high >= i64::MAX as u64 => {
            format!("{flag} {value}: give a whole number of {low} or more")
        }
        (low, high) => format!("{flag} {value}: give a number from {low} to {high}"),
    })
}

fn replay(a: ReplayArgs) -> Result<()> {
    // Machine output (`--json`) stays English.
    let lang = if a.json { Lang::En } else { a.lang.get() };
    // The record's fault (an illegal move, a wrong annotation) in the reader's language.
    let (record, game) =
        input::load_record(&a.file, a.rules.rules_opt()?, a.lenient, lang, "replay").map_err(
            |e| match lang {
                Lang::En => e,
                _ => anyhow::anyhow!(error_in(&e, lang)),
            },
        )?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&record)?);
        return Ok(());
    }
    let t = |key: &str| mancala_core::i18n::text(lang, key);
    let notation = Notation::for_rules(game.rules());
    println!("{}: {}", game.rules(), game.rules().preset.summary_in(lang));
    if let Some(s) = &record.players.south {
        println!("{}: {}", t("side.south"), mancala_core::printable(s));
    }
    if let Some(n) = &record.players.north {
        println!("{}: {}", t("side.north"), mancala_core::printable(n));
    }
    println!();
    print!(
        "{}",
        board::diagram_in(game.start(), mancala_core::Side::South, None, lang)
    );
    let mut ply = 0;
    for (t, (side, moves)) in game.turns().iter().enumerate() {
        ply += moves.len();
        let pos = game.position_at(ply).expect("replayed");
        let number = t / 2 + 1;
        println!(
            "\n{number}{} {}: {}",
            if *side == mancala_core::Side::South {
                "."
            } else {
                "..."
            },
            mancala_core::i18n::side_msg(*side).text_in(lang),
            notation::turn_text(notation, *side, moves)
        );
        let last = moves.last().map(|m| (m.side, m.pit));
        print!(
            "{}",
            board::diagram_in(pos, mancala_core::Side::South, last, lang)
        );
    }
    println!();
    // A game that stopped unfinished (resigned, on time, abandoned, agreed): its stop.
    use mancala_core::record::Stop;
    match record.result.as_ref().and_then(|r| r.stop()) {
        Some(stop @ (Stop::Resigned(side) | Stop::Time(side) | Stop::Abandoned(side))) => {
            let s = game.position().scores();
            let name = |s: mancala_core::Side| mancala_core::i18n::side_msg(s).text_in(lang);
            let key = match stop {
                Stop::Time(_) => "result.time",
                Stop::Abandoned(_) => "result.abandoned",
                _ => "result.resigned",
            };
            let why = mancala_core::i18n::format(lang, key, &[("side", &name(side))]);
            let score = mancala_core::i18n::format(
                lang,
                "result.line.score",
                &[("south", &s[0]), ("north", &s[1])],
            );
            println!(
                "{}",
                mancala_core::i18n::format(
                    lang,
                    "result.line.wins-why",
                    &[
                        ("side", &name(side.other())),
                        ("why", &why),
                        ("score", &score)
                    ]
                )
            );
        }
        Some(Stop::Agreed) => {
            let s = game.position().scores();
            let why = mancala_core::i18n::format(lang, "result.agreed", &[]);
            let score = mancala_core::i18n::format(
                lang,
                "result.line.score",
                &[("south", &s[0]), ("north", &s[1])],
            );
            println!(
                "{}",
                mancala_core::i18n::format(
                    lang,
                    "result.line.draw-why",
                    &[("why", &why), ("score", &score)]
                )
            );
        }
        _ => println!("{}", board::result_line_in(&game, lang)),
    }
    Ok(())
}

fn perft_cmd(a: PerftArgs) -> Result<()> {
    let pos = a.rules.start_position(a.position.as_deref())?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(usize::from(a.threads))
        .build()
        .context("starting threads")?;
    let mode = match (a.turns, a.full_depth) {
        (true, _) => Mode::Turns,
        (false, true) => Mode::FullDepth,
        (false, false) => Mode::Plies,
    };
    let mut counts = Vec::new();
    let mut seconds = 0.0;
    for d in 1..=a.depth {
        let t0 = Instant::now();
        let n = pool.install(|| with_family!(pos, p => count(p, d, mode)));
        seconds = t0.elapsed().as_secs_f64();
        counts.push(n);
        if !a.json {
            println!("depth {d:>2}: {n}");
        }
    }
    let leaves = *counts.last().unwrap_or(&1);
    let rate = leaves as f64 / seconds.max(1e-9);
    if a.json {
        let mut v = json!({
            "variant": pos.rules().to_string(),
            "position": pos.to_string(),
            "by": if a.turns { "turn" } else { "ply" },
            "ended_games": if a.full_depth { "not counted" } else { "counted once" },
            "depth": a.depth,
            "counts": counts,
            "leaves": leaves,
        });
        if a.stats {
            v["seconds"] = json!(seconds);
            v["leaves_per_second"] = json!(rate);
            v["threads"] = json!(a.threads);
        }
        println!("{v}");
        return Ok(());
    }
    if a.stats {
        println!(
            "time {seconds:.3} s, {:.1} million leaves a second ({} thread{})",
            rate / 1e6,
            a.threads,
            if a.threads == 1 { "" } else { "s" }
        );
    }
    println!("{leaves}");
    Ok(())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Plies,
    FullDepth,
    Turns,
}

/// Perft of `pos`, the root moves split across the current rayon pool.
fn count<P: GameState + Send + Sync>(pos: &P, depth: u32, mode: Mode) -> u64 {
    use rayon::prelude::*;
    let turns = mode == Mode::Turns;
    let f = |p: &P, d| match mode {
        Mode::Plies => perft(p, d),
        Mode::FullDepth => perft_full_depth(p, d),
        Mode::Turns => perft_turns(p, d),
    };
    if depth <= 3 || pos.is_over() || rayon::current_num_threads() == 1 {
        return f(pos, depth);
    }
    // Split two plies deep so both threads stay busy.
    let mut jobs = Vec::new();
    for m in &pos.legal_moves() {
        let mut c = *pos;
        c.play_unchecked(m);
        let d = if turns && c.to_move() == pos.to_move() && !c.is_over() {
            depth
        } else {
            depth - 1
        };
        jobs.push((c, d));
    }
    jobs.par_iter().map(|(c, d)| f(c, *d)).sum()
}

fn rules_cmd(a: RulesCmdArgs) -> Result<()> {
    let mut args = a.rules.clone();
    if let Some(v) = &args.variant {
        bail!(
            "give the preset once (`mancala rules {}`), not also --variant {v}",
            a.preset
        );
    }
    args.variant = Some(a.preset.clone());
    let rules = args.rules()?;
    if a.json {
        println!(
            "{}",
            json!({"rules": rules, "name": rules.to_string(), "text": rules.describe()})
        );
    } else {
        print!("{}", rules.describe_in(a.lang.get()));
    }
    Ok(())
}

fn variants(as_json: bool) -> Result<()> {
    if as_json {
        let presets: Vec<_> = Preset::ALL
            .iter()
            .map(|p| {
                let options: Vec<&str> = OPTIONS
                    .iter()
                    .filter(|o| (o.applies)(*p))
                    .map(|o| o.name)
                    .collect();
                json!({"name": p.name(), "summary": p.summary(), "defaults": p.rules(), "options": options})
            })
            .collect();
        let options: Vec<_> = OPTIONS
            .iter()
            .map(|o| {
                let narrower: serde_json::Map<String, serde_json::Value> = narrower(o)
                    .map(|(p, v)| (p.name().to_string(), v.into()))
                    .collect();
                let mut v = json!({"name": o.name, "values": o.values(), "help": o.help(Lang::En)});
                if !narrower.is_empty() {
                    v["values_in"] = narrower.into();
                }
                v
            })
            .collect();
        println!("{}", json!({"presets": presets, "options": options}));
        return Ok(());
    }
    println!("Presets (default first):");
    for p in Preset::ALL {
        println!("  {:<13} {}", p.name(), p.summary());
        let d: Vec<String> = OPTIONS
            .iter()
            .filter(|o| (o.applies)(p))
            .map(|o| format!("{}={}", o.name, o.default(p)))
            .collect();
        println!("  {:<13} defaults: {}", "", d.join(" "));
    }
    println!("\nOptions (as --OPTION VALUE, or after the preset: --variant kalah,seeds=4):");
    for o in OPTIONS {
        let applies: Vec<&str> = o.presets().map(Preset::name).collect();
        let mut which = if applies.len() == Preset::ALL.len() {
            "all presets".to_string()
        } else {
            applies.join(", ")
        };
        for (p, v) in narrower(o) {
            which += &format!("; {} {v}", p.name());
        }
        println!(
            "  --{:<18} {:<45} {} ({which})",
            o.name,
            o.values(),
            o.help(Lang::En)
        );
    }
    Ok(())
}

/// The presets where `o` takes fewer values than its own range (Dracala's pits), with them.
fn narrower(o: &mancala_core::rules::RuleOption) -> impl Iterator<Item = (Preset, String)> + '_ {
    o.presets()
        .map(|p| (p, o.values_for(p)))
        .filter(|(_, v)| *v != o.values())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_language_comes_from_the_first_locale_variable_set() {
        use super::lang_from_env;
        use mancala_core::i18n::Lang;
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|p| p.0 == k).map(|p| p.1.to_string())
        };
        assert_eq!(lang_from_env(env(&[("LANG", "pt_BR.UTF-8")])), Lang::Pt);
        assert_eq!(
            lang_from_env(env(&[("LANG", "pt_BR.UTF-8"), ("LC_ALL", "it_IT.UTF-8")])),
            Lang::It
        );
        assert_eq!(
            lang_from_env(env(&[("LC_MESSAGES", "es_ES"), ("LANG", "it_IT")])),
            Lang::Es
        );
        assert_eq!(
            lang_from_env(env(&[("LC_ALL", ""), ("LANG", "es")])),
            Lang::Es
        );
        assert_eq!(lang_from_env(env(&[("LANG", "de_DE.UTF-8")])), Lang::En);
        assert_eq!(lang_from_env(env(&[("LANG", "C")])), Lang::En);
        assert_eq!(lang_from_env(env(&[])), Lang::En);
    }

    use super::*;

    /// Every registry option is a flag, read into the rules as its rules-string form is.
    #[test]
    fn every_option_is_a_flag() {
        for o in OPTIONS {
            let preset = o.presets().next().expect("an option some preset takes");
            let value = o.default(preset).to_string();
            let flag = format!("--{}", o.name);
            let cli = Cli::try_parse_from(["mancala", "rules", preset.name(), &flag, &value])
                .unwrap_or_else(|e| panic!("{flag}: {e}"));
            let Command::Rules(mut a) = cli.command else {
                unreachable!()
            };
            assert_eq!(a.rules.options, [(o.name, value.clone())]);
            a.rules.variant = Some(preset.name().into());
            assert_eq!(a.rules.rules().unwrap(), preset.rules(), "{flag}");
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
