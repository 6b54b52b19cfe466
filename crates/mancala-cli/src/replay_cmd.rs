//! `mancala replay`: a game record replayed and checked move by move, printed turn by turn
//! with the board after each, or as JSON.

use anyhow::Result;
use clap::Args;
use mancala_core::i18n::Lang;
use mancala_core::notation::{self, Notation};

use crate::{board, error_in, input, LangArg, RulesArgs};

#[derive(Args)]
pub(crate) struct ReplayArgs {
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

pub(crate) fn replay(a: ReplayArgs) -> Result<()> {
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
    if let Some(c) = &record.time_control {
        println!("{}: {c}", t("record.time-control"));
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
