//! `mancala analyze`: a position's best move, value and line, or a record's moves judged.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use mancala_core::i18n::{self, Lang};
use mancala_core::notation::{line_text, Notation};
use mancala_core::Position;
use mancala_engine::{think, Budget, Engine, Limits, Quality};
use serde_json::json;

use super::value_is;
use crate::tables::{check_tables, open_egdb, oracle};
use crate::RulesArgs;

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
