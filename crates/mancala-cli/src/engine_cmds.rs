//! `mancala analyze`, `mancala solve` and `mancala match`: the engine's commands (a match is
//! played by `mancala_play::matches`; this prints it).

use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use mancala_core::i18n::{self, Lang};
use mancala_core::notation::{line_text, Notation};
use mancala_core::Position;
use mancala_engine::{think, Budget, Engine, Evaluation, Limits, Quality};
use mancala_play::matches::{play_match, MatchConfig, MatchResult};
use mancala_play::{Besides, Player};
use mancala_protocols::external::{play_external_match, ExternalMatch};
use serde_json::json;

use crate::progress::ProofProgress;
use crate::tables::{check_tables, open_egdb, oracle};
use crate::RulesArgs;

/// What `value` means in JSON: the final seed margin of the side to move, or where the value
/// is a tie decided by the cowrie rule (Kauri), equal seeds with the tie counted as one seed.
fn value_is(e: &Evaluation, how: &str, misere: &str) -> String {
    let side = e.side.name();
    if e.is_tie_break() {
        format!(
            "equal seeds{how}: a tie the cowrie rule decides ({}), counted as one seed for its winner, from {side}'s view (the side to move)",
            e.outcome_text()
        )
    } else {
        format!("final seed margin for {side} (the side to move){how}{misere}")
    }
}

#[derive(Args)]
pub struct AnalyzeArgs {
    /// A position string, or a record file (text or JSON; `-` for stdin).
    input: String,
    #[command(flatten)]
    rules: RulesArgs,
    /// Search depth in plies, 1-254.
    #[arg(long, conflicts_with = "time", value_parser = clap::value_parser!(u32).range(1..=254))]
    depth: Option<u32>,
    /// Search time with its unit (`500ms`, `2s`, `1.5m`, `1h`), up to a day, counted from the
    /// start (making the table included); default 1s for a position, 200ms a move for a
    /// record.
    #[arg(long, value_parser = crate::time_arg::within(1, 86_400))]
    time: Option<Duration>,
    /// Search threads.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    /// Transposition table size in MiB [default: for a position searched against the clock,
    /// sized to the time (a MiB for each 32 ms, 1 to 64), since a larger table takes time to
    /// map in (about 1.5 ms a MiB here); else 64]. The table is mapped in before the clock
    /// starts.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=65536))]
    tt_mb: Option<u32>,
    /// Probe the endgame databases in this directory (`mancala egdb build`).
    #[arg(long)]
    egdb: Option<std::path::PathBuf>,
    /// For a record: analyse the moves even where its annotations or claimed score
    /// disagree with them (reports the first).
    #[arg(long)]
    lenient: bool,
    /// For a position: the value of every legal move, best first, and the best line (each
    /// move proven where the proofs finish within three eighths of the time, else all searched
    /// to one depth; the rest of the time goes to the line), as the web's analysis board.
    #[arg(long)]
    all_moves: bool,
    #[command(flatten)]
    lang: crate::LangArg,
    /// Machine output (always in English).
    #[arg(long)]
    json: bool,
}

pub fn analyze(a: AnalyzeArgs) -> Result<()> {
    // Machine output (`--json`) stays English.
    let lang = if a.json { Lang::En } else { a.lang.get() };
    // A position string has `/`s; a path that names no file is taken for one.
    let is_position = a.input.contains('/') && !std::path::Path::new(&a.input).exists();
    // A position's clock starts here: making and mapping the table counts.
    let budget = Budget::from(Limits {
        depth: a.depth,
        time: Some(a.time.unwrap_or(Duration::from_millis(1000))).filter(|_| a.depth.is_none()),
        nodes: None,
    });
    let tt_mb = match (a.tt_mb, a.depth) {
        (Some(mb), _) => mb as usize,
        (None, None) if is_position => {
            mancala_engine::tt_mb_for(a.time.unwrap_or(Duration::from_millis(1000)))
        }
        _ => 64,
    };
    let engine = Engine::try_new(tt_mb, usize::from(a.threads)).map_err(anyhow::Error::msg)?;
    engine.prefault();
    if is_position {
        analyze_position(&a, engine, budget, lang)
    } else {
        analyze_record(&a, engine, lang)
    }
}

/// `analyze POSITION`: the best move, its value and line (`--all-moves`: every move's).
fn analyze_position(a: &AnalyzeArgs, mut engine: Engine, budget: Budget, lang: Lang) -> Result<()> {
    let say = |key: &str, args: &[(&str, &dyn std::fmt::Display)]| i18n::format(lang, key, args);
    let pos: Position = a
        .input
        .parse()
        .with_context(|| format!("`{}`: no such file, and not a position string", a.input))?;
    let pos = a.rules.check_position(pos)?;
    if pos.is_over() {
        bail!("the game is over in this position: nothing to analyse");
    }
    let db = open_egdb(a.egdb.as_deref(), &pos)?;
    engine.oracle = oracle(&db);
    if a.all_moves {
        // The analysis board's values and best line, as the server gives them.
        let analysis = mancala_engine::think::analyse(&engine, &pos, &[], budget);
        check_tables(db.as_deref())?;
        return print_move_values(&pos, &analysis, a.json, lang);
    }
    let r = engine.search(&pos, budget, &[]).context("no legal move")?;
    check_tables(db.as_deref())?;
    let side = pos.to_move();
    let notation = Notation::for_rules(pos.rules());
    let nps = r.nodes as f64 / r.elapsed.as_secs_f64().max(1e-9);
    if a.json {
        println!(
            "{}",
            json!({
                "position": pos.to_string(),
                "side_to_move": side,
                "best": notation.move_text(side, r.best).to_string(),
                "best_pit": mancala_core::pit_number(r.best),
                "value": r.eval.margin,
                "value_is": value_is(&r.eval, "", if pos.rules().misere() { "; misère: lower is better" } else { "" }),
                "exact": r.eval.is_proven(),
                "eval": r.eval,
                "pv": line_text(&pos, &r.pv),
                "depth": r.depth,
                "nodes": r.nodes,
                "nodes_per_second": nps,
                "seconds": r.elapsed.as_secs_f64(),
            })
        );
    } else {
        println!("{pos}");
        let best = notation.move_text(side, r.best);
        let value = r.eval.text_in(lang);
        println!(
            "{}",
            say("analyze.best", &[("move", &best), ("value", &value)])
        );
        let line = line_text(&pos, &r.pv);
        println!("{}", say("analyze.line", &[("line", &line)]));
        let secs = format!("{:.2}", r.elapsed.as_secs_f64());
        let rate = format!("{:.1}", nps / 1e6);
        println!(
            "{}",
            say(
                "analyze.stats",
                &[
                    ("depth", &r.depth),
                    ("nodes", &r.nodes),
                    ("secs", &secs),
                    ("rate", &rate)
                ]
            )
        );
    }
    Ok(())
}

/// `analyze RECORD`: every move's value against the best move's, and the seeds each side
/// gave away.
fn analyze_record(a: &AnalyzeArgs, mut engine: Engine, lang: Lang) -> Result<()> {
    let say = |key: &str, args: &[(&str, &dyn std::fmt::Display)]| i18n::format(lang, key, args);
    // A record: every move's value against the best move's, each position's moves valued
    // alike (proofs where they finish in the time, else one search depth for all).
    if a.all_moves {
        bail!("--all-moves values the moves of a position string; a record's moves are judged against the best one by one without it");
    }
    if a.input != "-" && !std::path::Path::new(&a.input).exists() {
        bail!(
            "`{}`: no such file, and not a position string (`RULES/SOUTH-PITS/SOUTH-STORE/\
             NORTH-PITS/NORTH-STORE/SIDE`, docs/rules.md: Position strings)",
            mancala_core::printable(&a.input)
        );
    }
    // Notes and errors go to stderr, for people: in the language asked even with `--json`.
    let human = a.lang.get();
    let (_, game) =
        crate::input::load_record(&a.input, a.rules.rules_opt()?, a.lenient, human, "analyze")
            .map_err(|e| match human {
                Lang::En => e,
                _ => anyhow::anyhow!(crate::error_in(&e, human)),
            })?;
    if game.moves().is_empty() {
        let (file, start) = (mancala_core::printable(&a.input), game.start().to_string());
        bail!(
            "{}",
            i18n::format(
                human,
                "analyze.no-moves",
                &[("file", &file), ("start", &start)]
            )
        );
    }
    let db = open_egdb(a.egdb.as_deref(), game.start())?;
    engine.oracle = oracle(&db);
    let notation = Notation::for_rules(game.rules());
    let limits = Limits {
        depth: a.depth,
        time: Some(a.time.unwrap_or(Duration::from_millis(200))).filter(|_| a.depth.is_none()),
        nodes: None,
    };
    let mut rows = Vec::new();
    let mut total_loss = [0i64; 2];
    // The moves are judged from the last to the first; a spinner on a terminal meanwhile.
    let bar = indicatif::ProgressBar::new(game.moves().len() as u64).with_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} moves judged, {elapsed}")
            .expect("a valid template"),
    );
    let judged = think::judge_game(&engine, &game, limits, None, &|n| {
        bar.set_position(n as u64)
    });
    bar.finish_and_clear();
    for (k, (mv, j)) in game.moves().iter().zip(judged).enumerate() {
        let j = j.context("the move played is not legal")?;
        let (played, best, loss) = (j.played, j.best, j.loss);
        // A loss is said as one only where both values are proven; a search's difference at
        // one depth is said as what it is.
        let proven = played.eval.is_proven() && best.eval.is_proven();
        total_loss[mv.side.index()] += loss.filter(|_| proven).unwrap_or(0) as i64;
        rows.push(json!({
            "move": k + 1,
            "side": mv.side,
            "played": notation.move_text(mv.side, mv.pit).to_string(),
            "value": played.eval.margin,
            "eval": played.eval,
            "best": notation.move_text(mv.side, best.pit).to_string(),
            "best_value": best.eval.margin,
            "best_eval": best.eval,
            "loss": loss,
            "loss_proven": proven && loss.is_some(),
        }));
        if !a.json {
            let row = judged_text(notation, mv, &played, &best, loss, lang);
            println!("{:>3}. {row}", k + 1);
        }
    }
    check_tables(db.as_deref())?;
    let values_are = |lang| {
        let key = if game.rules().misere() {
            "analyze.values-are.misere"
        } else {
            "analyze.values-are"
        };
        i18n::format(lang, key, &[])
    };
    if a.json {
        let values_are = values_are(Lang::En);
        println!(
            "{}",
            json!({"rules": game.rules().to_string(), "values_are": values_are, "moves": rows, "seeds_lost": {"south": total_loss[0], "north": total_loss[1]}})
        );
    } else {
        let values = values_are(lang);
        let line = say(
            "analyze.seeds-lost",
            &[
                ("south", &total_loss[0]),
                ("north", &total_loss[1]),
                ("values", &values),
            ],
        );
        println!("{line}");
    }
    Ok(())
}

/// A record's move judged, for people: the move and its value, the best move and its value,
/// and what the move gave away (a search's preference said as one, not as a loss).
fn judged_text(
    notation: Notation,
    mv: &mancala_core::PlayedMove,
    played: &mancala_engine::MoveValue,
    best: &mancala_engine::MoveValue,
    loss: Option<i32>,
    lang: Lang,
) -> String {
    let say = |key: &str, args: &[(&str, &dyn std::fmt::Display)]| i18n::format(lang, key, args);
    let row = say(
        "analyze.move",
        &[
            ("side", &i18n::side_name(lang, mv.side)),
            ("move", &notation.move_text(mv.side, mv.pit)),
            ("value", &short_value(&played.eval, lang)),
            ("best", &notation.move_text(mv.side, best.pit)),
            ("best_value", &short_value(&best.eval, lang)),
        ],
    );
    let loss = match (loss, best.eval.quality) {
        (Some(l), Quality::Searched { depth }) if l > 0 => {
            let best = notation.move_text(mv.side, best.pit);
            let args: [(&str, &dyn std::fmt::Display); 3] =
                [("depth", &depth), ("best", &best), ("n", &l)];
            format!("  ({})", say("analyze.search-prefers", &args))
        }
        (Some(l), _) if l > 0 => format!("  {}", say("analyze.loses", &[("n", &l)])),
        (Some(_), _) => String::new(),
        (None, _) => format!("  {}", say("analyze.not-compared", &[])),
    };
    format!("{row}{loss}")
}

/// `+4 for South (proven)` or `+4 for South (search to depth 12)`: a move's value in a
/// record's analysis, with the side whose margin it is.
fn short_value(e: &mancala_engine::Evaluation, lang: Lang) -> String {
    let how = match e.quality {
        mancala_engine::Quality::Proven => i18n::format(lang, "value.proven", &[]),
        mancala_engine::Quality::Searched { depth } => {
            i18n::format(lang, "value.depth", &[("depth", &depth)])
        }
    };
    let margin = format!("{:+}", e.margin);
    i18n::format(
        lang,
        "analyze.value",
        &[
            ("margin", &margin),
            ("side", &i18n::side_name(lang, e.side)),
            ("how", &how),
        ],
    )
}

/// Every legal move of `pos` with its value, best first, and the best line (`analyze
/// --all-moves`): the server's analysis board, printed.
fn print_move_values(
    pos: &Position,
    a: &mancala_engine::think::Analysis,
    json: bool,
    lang: Lang,
) -> Result<()> {
    let notation = Notation::for_rules(pos.rules());
    let text = |pit: u8| notation.move_text(pos.to_move(), pit).to_string();
    let line_text = line_text(pos, &a.line);
    if json {
        let moves: Vec<_> = a
            .moves
            .iter()
            .map(|m| {
                json!({
                    "move": text(m.pit),
                    "pit": mancala_core::pit_number(m.pit),
                    "eval": m.eval,
                    "loss": a.loss(m.pit),
                })
            })
            .collect();
        println!(
            "{}",
            json!({
                "position": pos.to_string(),
                "side_to_move": pos.to_move(),
                "moves": moves,
                "line": line_text,
                "ms": a.elapsed.as_millis() as u64,
            })
        );
    } else {
        println!("{pos}");
        for m in &a.moves {
            let loss = match a.loss(m.pit) {
                Some(l) if l > 0 => i18n::format(lang, "analyze.gives-away", &[("n", &l)]),
                _ => String::new(),
            };
            println!("  {:<4} {}{loss}", text(m.pit), m.eval.text_in(lang));
        }
        let line = i18n::format(lang, "analyze.best-line", &[("line", &line_text)]);
        println!("{line}");
    }
    Ok(())
}

#[derive(Args)]
pub struct SolveArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Solve this position instead of the start.
    #[arg(long)]
    position: Option<String>,
    /// Search threads.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    /// Transposition table size in MiB [default: 64 when the position holds at most 24
    /// seeds more than the endgame tables reach, else 512 for Kalah rules the solver's fast
    /// path takes (8-byte entries) and 1024 for the others (16-byte entries)].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=65536))]
    tt_mb: Option<u32>,
    /// Give up after this time, with its unit (`500ms`, `90s`, `10m`, `2h`), up to a year,
    /// counted from the start (making the table included).
    #[arg(long, value_parser = crate::time_arg::within(1, 31_536_000))]
    time: Option<Duration>,
    /// Print time, nodes, nodes a second, endgame-table hits and peak memory (VmHWM).
    #[arg(long)]
    stats: bool,
    /// Probe the endgame databases in this directory (`mancala egdb build`).
    #[arg(long)]
    egdb: Option<std::path::PathBuf>,
    /// Also prove the value of every first turn (each sequence of moves of the side to move
    /// up to the opponent's turn).
    #[arg(long, conflicts_with_all = ["at_least", "at_most", "split", "merge"])]
    openings: bool,
    /// Prove only whether the value (final seed margin for the side to move with perfect
    /// play) is at least K: one null-window pass, no exact margin.
    #[arg(long, value_name = "K", allow_hyphen_values = true, conflicts_with = "at_most",
          value_parser = clap::value_parser!(i32).range(-1000..=1000))]
    at_least: Option<i32>,
    /// Prove only whether the value is at most K (the same pass as "at least K + 1").
    #[arg(long, value_name = "K", allow_hyphen_values = true,
          value_parser = clap::value_parser!(i32).range(-1000..=1000))]
    at_most: Option<i32>,
    /// Split the proof of a bound into jobs: the positions this many turns deep (a turn is
    /// all the moves of one player up to the opponent's move), written to --jobs.
    #[arg(long, value_name = "TURNS", requires = "jobs", conflicts_with = "merge",
          value_parser = clap::value_parser!(u32).range(0..=6))]
    split: Option<u32>,
    /// The directory of a split proof's job and result files.
    #[arg(long, value_name = "DIR")]
    jobs: Option<std::path::PathBuf>,
    /// Read the job and result files of a split proof in DIR: what is proven about the root,
    /// what remains, and the next round of jobs where a hypothesis failed.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["position", "at_least", "at_most", "jobs"])]
    merge: Option<std::path::PathBuf>,
    /// With --split or --merge: run the jobs here, this many processes at once, round after
    /// round until the root's bound is proven.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    parallel: Option<u16>,
    #[arg(long)]
    json: bool,
}

/// Why a proof of `pos` gave no result.
fn unfinished(pos: &Position) -> String {
    Engine::unproven_reason(pos)
}

/// The value of every first turn for the side to move, best first.
fn openings(engine: &Engine, pos: &Position, limits: Budget) -> Result<Vec<(String, i32, u64)>> {
    let me = pos.to_move();
    let mut v = Vec::new();
    for (line, q) in mancala_engine::turns(pos) {
        let (value, nodes) = if q.is_over() {
            let s = q.scores();
            (s[me.index()] as i32 - s[me.other().index()] as i32, 0)
        } else {
            let r = engine
                .solve(&q, limits, &[])
                .with_context(|| unfinished(&q))?;
            (r.eval.seen_by(me).margin, r.nodes)
        };
        v.push((line_text(pos, &line), value, nodes));
    }
    // Best first: in a misère game the lowest margin.
    let sign = if pos.rules().misere() { 1 } else { -1 };
    v.sort_by_key(|x| sign * x.1);
    Ok(v)
}

/// A proof's engine for `pos` ([`Engine::for_proof`]): `threads`, a table of `tt_mb` MiB
/// (by default as the position, its endgame tables and `time` ask), and the endgame tables
/// of `egdb`, opened once (opening checks every table's checksum).
pub fn proof_engine(
    pos: &Position,
    egdb: Option<&std::path::Path>,
    tt_mb: Option<u32>,
    threads: u16,
    time: Option<Duration>,
) -> Result<(Engine, Option<std::sync::Arc<mancala_egdb::Egdb>>)> {
    let db = open_egdb(egdb, pos)?;
    let engine =
        Engine::for_proof(pos, oracle(&db), tt_mb, threads, time).map_err(anyhow::Error::msg)?;
    Ok((engine, db))
}

pub fn solve(a: SolveArgs) -> Result<()> {
    // The clock starts here: opening the tables and making the table count.
    let limits = Budget::time_opt(a.time);
    if let Some(dir) = &a.merge {
        return crate::split::merge_cmd(dir, &a.split_ask());
    }
    let pos = a.rules.start_position(a.position.as_deref())?;
    if pos.is_over() {
        bail!("the game is over in this position");
    }
    if let Some(turns) = a.split {
        let dir = a.jobs.as_deref().context("--split needs --jobs DIR")?;
        return crate::split::split_cmd(&pos, turns, dir, &a.split_ask());
    }
    if a.jobs.is_some() || a.parallel.is_some() {
        bail!("--jobs and --parallel go with --split (or --parallel with --merge)");
    }
    let (engine, db) = proof_engine(&pos, a.egdb.as_deref(), a.tt_mb, a.threads, a.time)?;
    if let Some(k) = a.at_least.or(a.at_most.map(|k| k + 1)) {
        let progress = ProofProgress::new();
        let show = |p: &mancala_engine::SolveProgress| {
            progress.show(&format!("is the value at least {k:+}?"), p)
        };
        let r =
            engine.prove_at_least_with_progress(&pos, pos.to_move(), k, limits, &[], Some(&show));
        progress.finish();
        let r = r.with_context(|| unfinished(&pos))?;
        check_tables(db.as_deref())?;
        return print_bound(&pos, &r, a.at_most.is_some(), &a, engine.table_bytes());
    }
    let progress = ProofProgress::new();
    let show = |p: &mancala_engine::SolveProgress| {
        let range = match (p.at_least, p.at_most) {
            (Some(lo), Some(hi)) => format!("value {lo:+} to {hi:+}"),
            (Some(lo), None) => format!("value at least {lo:+}"),
            (None, Some(hi)) => format!("value at most {hi:+}"),
            (None, None) => "first pass".to_string(),
        };
        progress.show(&range, p);
    };
    let r = engine.solve_with_progress(&pos, limits, &[], Some(&show));
    progress.finish();
    let r = r.with_context(|| unfinished(&pos))?;
    check_tables(db.as_deref())?;
    let opening_values = if a.openings {
        let o = openings(&engine, &pos, limits)?;
        check_tables(db.as_deref())?;
        Some(o)
    } else {
        None
    };
    let side = pos.to_move();
    let notation = Notation::for_rules(pos.rules());
    let nps = r.nodes as f64 / r.elapsed.as_secs_f64().max(1e-9);
    let misere = if pos.rules().misere() {
        "; misère: lower is better"
    } else {
        ""
    };
    if a.json {
        let mut v = json!({
            "variant": pos.rules().to_string(),
            "position": pos.to_string(),
            "value": r.eval.margin,
            "value_is": value_is(&r.eval, " with perfect play", misere),
            "eval": r.eval,
            "best": notation.move_text(side, r.best).to_string(),
            "pv": line_text(&pos, &r.pv),
            "nodes": r.nodes,
        });
        if a.egdb.is_some() {
            v["oracle_hits"] = json!(r.oracle_hits);
        }
        if let Some(o) = &opening_values {
            v["openings"] = o
                .iter()
                .map(|(line, value, nodes)| json!({"turn": line, "value": value, "nodes": nodes}))
                .collect();
        }
        if a.stats {
            v["seconds"] = json!(r.elapsed.as_secs_f64());
            v["nodes_per_second"] = json!(nps);
            v["threads"] = json!(a.threads);
            v["tt_bytes"] = json!(engine.table_bytes());
            v["peak_memory_bytes"] = json!(mancala_egdb::build::peak_memory());
        }
        println!("{v}");
        return Ok(());
    }
    print_solved(
        &a,
        &pos,
        &r,
        &engine,
        db.as_deref(),
        opening_values.as_deref(),
    );
    Ok(())
}

/// `solve`'s answer for people: the value and best move, the perfect line, the proof's
/// nodes, whether the tables solve the game strongly, the first turns' values
/// (`--openings`) and the figures (`--stats`).
fn print_solved(
    a: &SolveArgs,
    pos: &Position,
    r: &mancala_engine::SolveResult,
    engine: &Engine,
    db: Option<&mancala_egdb::Egdb>,
    opening_values: Option<&[(String, i32, u64)]>,
) {
    let side = pos.to_move();
    let notation = Notation::for_rules(pos.rules());
    let nps = r.nodes as f64 / r.elapsed.as_secs_f64().max(1e-9);
    let misere = if pos.rules().misere() {
        "; misère: lower is better"
    } else {
        ""
    };
    println!(
        "{}: value {:+} for {} (to move): {}, best move {}",
        pos.rules(),
        r.eval.margin,
        side.name(),
        r.eval.outcome_text(),
        notation.move_text(side, r.best)
    );
    println!("perfect play: {}", line_text(pos, &r.pv));
    if a.egdb.is_some() {
        println!(
            "proof: {} nodes, {} valued by the endgame databases",
            r.nodes, r.oracle_hits
        );
    } else {
        println!("proof: {} nodes", r.nodes);
    }
    if let (Some(dir), Some(db), Some(k)) = (&a.egdb, db, pos.as_kalah()) {
        let total = k.rules().total as u32;
        if let Ok(tr) = mancala_egdb::TableRules::new(k.rules()) {
            if db.complete_to(&tr).is_some_and(|n| n >= total) {
                println!(
                    "strongly solved: the tables in {} value every position of this game (levels 0-{total} of {})",
                    dir.display(),
                    tr.name()
                );
            }
        }
    }
    if let Some(o) = opening_values {
        println!(
            "first turns of {} (final margin for {} with perfect play after it{misere}; each its own proof, its nodes not in the count above):",
            side.name(),
            side.name()
        );
        for (line, value, nodes) in o {
            println!("  {line:<12} {value:+4}   ({nodes} nodes)");
        }
    }
    if a.stats {
        println!(
            "time {:.2} s, {} nodes ({:.1} M nodes/s), {} endgame-table hits, {} thread{}, table {} MiB, peak memory {}",
            r.elapsed.as_secs_f64(),
            r.nodes,
            nps / 1e6,
            r.oracle_hits,
            a.threads,
            if a.threads == 1 { "" } else { "s" },
            engine.table_bytes() >> 20,
            peak_text()
        );
    }
}

impl SolveArgs {
    /// What `--split` and `--merge` were asked: the jobs' options (endgame tables, table
    /// size, threads, time), the bound (`--at-most K` is "at least K + 1", read the other
    /// way round), `--json` and `--parallel`.
    pub fn split_ask(&self) -> crate::split::SplitAsk {
        use mancala_engine::split::Threshold;
        crate::split::SplitAsk {
            opts: crate::split::JobOptions {
                egdb: self.egdb.clone(),
                tt_mb: self.tt_mb,
                threads: self.threads,
                time: self.time,
            },
            threshold: self
                .at_least
                .map(Threshold::at_least)
                .or(self.at_most.map(Threshold::at_most)),
            json: self.json,
            parallel: self.parallel,
        }
    }
}

/// Prints the answer of `solve --at-least/--at-most`.
fn print_bound(
    pos: &Position,
    r: &mancala_engine::BoundResult,
    at_most: bool,
    a: &SolveArgs,
    tt_bytes: usize,
) -> Result<()> {
    let side = r.side.name();
    let value_is = format!(
        "final seed margin for {side} (the side to move) with perfect play from both sides{}; a proven bound, not the exact value",
        if r.lower_is_better { "; misère: lower is better" } else { "" }
    );
    let nps = r.nodes as f64 / r.elapsed.as_secs_f64().max(1e-9);
    if a.json {
        let (question, threshold, answer) = if at_most {
            ("at-most", r.at_least - 1, !r.holds)
        } else {
            ("at-least", r.at_least, r.holds)
        };
        let mut v = json!({
            "variant": pos.rules().to_string(),
            "position": pos.to_string(),
            "side": r.side,
            "question": question,
            "threshold": threshold,
            "holds": answer,
            "proven": r.text(at_most),
            // What the pass showed, whichever way it went.
            "at_least": r.holds.then_some(r.bound),
            "at_most": (!r.holds).then_some(r.bound),
            "value_is": value_is,
            "nodes": r.nodes,
        });
        if a.egdb.is_some() {
            v["oracle_hits"] = json!(r.oracle_hits);
        }
        if a.stats {
            v["seconds"] = json!(r.elapsed.as_secs_f64());
            v["nodes_per_second"] = json!(nps);
            v["threads"] = json!(a.threads);
            v["tt_bytes"] = json!(tt_bytes);
        }
        println!("{v}");
        return Ok(());
    }
    println!(
        "{}: value for {side} (to move): {}",
        pos.rules(),
        r.text(at_most)
    );
    println!("value: {value_is}");
    if a.egdb.is_some() {
        println!(
            "proof: {} nodes, {} valued by the endgame databases (one null-window pass)",
            r.nodes, r.oracle_hits
        );
    } else {
        println!("proof: {} nodes (one null-window pass)", r.nodes);
    }
    if a.stats {
        println!(
            "time {:.2} s, {} nodes ({:.1} M nodes/s), {} thread{}, table {} MiB, peak memory {}",
            r.elapsed.as_secs_f64(),
            r.nodes,
            nps / 1e6,
            a.threads,
            if a.threads == 1 { "" } else { "s" },
            tt_bytes >> 20,
            peak_text()
        );
    }
    Ok(())
}

#[derive(Args)]
pub struct MatchArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Player A: a level 1-8, a level with a time a move (`8@100ms`), `random`, `greedy`
    /// (the move that fills its store most this turn) or `mcts:N` (Monte Carlo tree search,
    /// N playouts a move).
    #[arg(long, required_unless_present = "a_cmd", conflicts_with = "a_cmd")]
    a: Option<String>,
    /// Player B, as for A.
    #[arg(long, required_unless_present = "b_cmd", conflicts_with = "b_cmd")]
    b: Option<String>,
    /// Player A as an engine command speaking the engine protocol (docs/protocols.md),
    /// run by `sh -c`, such as `mancala engine`; with --b-cmd.
    #[arg(long, requires = "b_cmd")]
    a_cmd: Option<String>,
    /// Player B as an engine command.
    #[arg(long, requires = "a_cmd")]
    b_cmd: Option<String>,
    /// Engines: time a move, in milliseconds or with a unit (`100ms`, `0.5s`), sent as
    /// Each move's `go movetime`, with its unit (`100ms`, `1s`) [default: 100ms].
    #[arg(long, requires = "a_cmd", conflicts_with = "go",
          value_parser = crate::time_arg::within(1, 3600))]
    movetime: Option<Duration>,
    /// Engines: the arguments of every `go` instead (`depth 12`, `nodes 100000`).
    #[arg(long, requires = "a_cmd")]
    go: Option<String>,
    /// Games to play, 1 to 1000000 (rounded up to an even number: each opening with both
    /// colours).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    games: u32,
    /// Games played at once.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: u16,
    /// Random plies before the players take over, 0-1000 (pairs after the first use openings
    /// of 1 to this many plies).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(0..=1000))]
    openings: u16,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long)]
    json: bool,
}

impl MatchArgs {
    /// Whether the match plays engine processes, whose exit is a broken pipe it reports.
    pub fn plays_processes(&self) -> bool {
        self.a_cmd.is_some()
    }
}

pub fn match_cmd(m: MatchArgs) -> Result<()> {
    let rules = m.rules.rules()?;
    let (r, a_name, b_name) = match (&m.a_cmd, &m.b_cmd, &m.a, &m.b) {
        (Some(a_cmd), Some(b_cmd), _, _) => {
            let movetime = m.movetime.unwrap_or(Duration::from_millis(100));
            let (go, budget) = match &m.go {
                Some(g) => (g.clone(), None),
                None => (format!("movetime {}", movetime.as_millis()), Some(movetime)),
            };
            let cfg = ExternalMatch {
                rules,
                a_cmd: a_cmd.clone(),
                b_cmd: b_cmd.clone(),
                go,
                budget,
                games: m.games,
                threads: usize::from(m.threads),
                openings: usize::from(m.openings),
                seed: m.seed,
            };
            let bar = indicatif::ProgressBar::new(u64::from(m.games.div_ceil(2) * 2));
            let r = play_external_match(&cfg, &|n| bar.set_position(n as u64))?;
            bar.finish_and_clear();
            (r, a_cmd.clone(), b_cmd.clone())
        }
        (_, _, Some(a), Some(b)) => {
            let cfg = MatchConfig {
                rules,
                a: Player::parse(a, Besides::Mcts)?,
                b: Player::parse(b, Besides::Mcts)?,
                games: m.games,
                threads: usize::from(m.threads),
                openings: usize::from(m.openings),
                seed: m.seed,
            };
            (play_match(&cfg)?, a.clone(), b.clone())
        }
        _ => bail!("give --a and --b, or --a-cmd and --b-cmd"),
    };
    let MatchResult {
        wins,
        draws,
        losses,
        score,
        sweep,
        all_drawn,
        elo: d,
        elo_95: (lo, hi),
        ref results,
    } = r;
    if results.len() != m.games as usize {
        eprintln!(
            "note: {} games played (each opening with both colours)",
            results.len()
        );
    }
    if m.json {
        println!(
            "{}",
            json!({"variant": rules.to_string(), "a": a_name, "b": b_name, "games": results.len(),
                   "wins": wins, "draws": draws, "losses": losses, "score": score,
                   "elo": (!sweep).then_some(d).flatten(), "elo_95": [lo, hi],
                   "elo_note": if sweep { "one side won every game: more games are needed" }
                               else if all_drawn { "every game was drawn: draws alone cannot bound the difference" }
                               else { "elo_95 ends are null where unbounded (beyond 1200)" }})
        );
    } else {
        println!(
            "{rules}: {} vs {}, {} games: +{wins} ={draws} -{losses}, score {:.1}%",
            a_name,
            b_name,
            results.len(),
            score * 100.0
        );
        if sweep {
            println!(
                "Elo difference (A - B): {} (one side won every game: more games are needed to measure it)",
                if wins > 0 { "above +500" } else { "below -500" }
            );
        } else if all_drawn {
            println!(
                "Elo difference (A - B): +0, unbounded (every game was drawn: {} draws alone cannot bound it; more games or openings are needed)",
                results.len()
            );
        } else {
            let end =
                |e: Option<f64>, open: &str| e.map_or(open.to_string(), |e| format!("{e:+.0}"));
            println!(
                "Elo difference (A - B): {} (95%: {} to {})",
                end(d, "beyond 1200"),
                end(lo, "below -1200"),
                end(hi, "above +1200")
            );
        }
    }
    Ok(())
}

/// Peak resident memory of this process (`VmHWM`), for `--stats`.
pub(crate) fn peak_text() -> String {
    match mancala_egdb::build::peak_memory() {
        Some(b) => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        None => "unknown".to_string(),
    }
}
