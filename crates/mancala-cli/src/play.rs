//! `mancala play`: a game against the computer, line by line on stdin.

use std::io::{BufRead, IsTerminal, Write};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use mancala_core::i18n::{self, Lang};
use mancala_core::notation::{self, Notation};
use mancala_core::record::Players;
use mancala_core::{Game, Msg, PlayedMove, Side};
use mancala_engine::{Budget, Level};
use mancala_play::session::{Seat, Session};
use mancala_play::Computer;

use crate::board;
use crate::RulesArgs;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum First {
    Human,
    Ai,
}

#[derive(Args)]
pub struct PlayArgs {
    #[command(flatten)]
    rules: RulesArgs,
    /// Computer level, 1 (beginner) to 8 (strongest).
    #[arg(long, short = 'l', default_value = "3", value_parser = mancala_play::player::parse_level)]
    level: Level,
    /// Who moves first (the first player is South).
    #[arg(long, value_enum, default_value_t = First::Human)]
    first: First,
    /// Start from this position string instead of the start.
    #[arg(long)]
    position: Option<String>,
    /// Save the record here when the game ends (`.json` for JSON, else text); an existing
    /// file is refused unless --force is given.
    #[arg(long)]
    save: Option<String>,
    /// Let --save replace an existing file.
    #[arg(long, requires = "save")]
    force: bool,
    /// Seed for the computer's random choices (lower levels).
    #[arg(long)]
    seed: Option<u64>,
    /// The computer probes the endgame databases in this directory (`mancala egdb build`).
    #[arg(long)]
    egdb: Option<std::path::PathBuf>,
    #[command(flatten)]
    lang: crate::LangArg,
}

/// The commands, in the words of `play.help` in the translation files.
const HELP: &str = "play.help";

/// A hint's time: a proof within half of it, else a 20-ply search within the rest.
const HINT_TIME: Duration = Duration::from_secs(2);

/// The game session and what `play` keeps beside it.
struct Play {
    session: Session,
    human: Side,
    /// The endgame tables the computer's engine probes (`--egdb`).
    egdb: Option<std::sync::Arc<mancala_egdb::Egdb>>,
}

pub fn run(a: PlayArgs) -> Result<()> {
    let level = a.level;
    let lang = a.lang.get();
    let t = |key: &str| i18n::text(lang, key);
    let f = |key: &str, args: &[(&str, &dyn std::fmt::Display)]| i18n::format(lang, key, args);
    let mut s = Play::new(&a)?;
    let rules = *s.game().rules();
    s.intro(level.level, lang);
    let stdin = std::io::stdin();
    let interactive = stdin.is_terminal();
    // Lines as bytes: a line that is not UTF-8 is refused like any bad command, not an end
    // of the session that would lose the game.
    let mut lines = stdin
        .lock()
        .split(b'\n')
        .map(|l| l.map(|b| String::from_utf8(b).map_err(|_| ())));
    let mut last: Option<(Side, u8)> = None;
    let mut show = true;
    // Files the `save` command wrote during this game.
    let mut saved: Vec<String> = Vec::new();
    loop {
        if s.game().is_over() {
            println!(
                "{}",
                board::diagram_in(s.game().position(), s.human, last, lang)
            );
            println!("{}", board::result_line_in(s.game(), lang));
            break;
        }
        if s.game().to_move() != s.human {
            last = s.computer_plays(lang)?;
            show = true;
            continue;
        }
        if show {
            print!(
                "{}",
                board::diagram_in(s.game().position(), s.human, last, lang)
            );
            show = false;
        }
        let legal: String = s
            .game()
            .legal_moves()
            .as_slice()
            .iter()
            .map(|&p| {
                Notation::for_rules(&rules)
                    .move_text(s.human, p)
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join(" ");
        print!("{}", f("play.prompt", &[("legal", &legal)]));
        std::io::stdout().flush().ok();
        let Some(line) = lines.next() else {
            println!("\n{}", t("play.eof"));
            break;
        };
        let line = match line {
            Ok(Ok(line)) => line,
            Ok(Err(())) => {
                println!("{}", t("play.not-utf8"));
                continue;
            }
            Err(e) => {
                // The game is kept: saved below with --save, as at the end of input.
                println!("\n{}", f("play.read-error", &[("error", &e)]));
                break;
            }
        };
        let input = line.trim();
        let (cmd, arg) = input.split_once(' ').unwrap_or((input, ""));
        match cmd.to_ascii_lowercase().as_str() {
            "" => {}
            "help" | "?" => println!("{}", t(HELP)),
            "quit" | "exit" | "q" => {
                println!("{}", t("play.quit"));
                break;
            }
            "board" => show = true,
            "rules" => println!("{}", rules.describe_in(lang)),
            "moves" if s.game().moves().is_empty() => println!("{}", t("play.no-moves")),
            "moves" => print!("{}", notation::game_text(s.game())),
            "save" => s.save_command(arg.trim(), &mut saved, &mut lines, lang),
            "undo" => {
                if s.session.undo(s.human).is_ok() {
                    last = s.game().moves().last().map(|m| (m.side, m.pit));
                    println!("{}", t("play.undone"));
                    show = true;
                } else {
                    println!("{}", t("tui.msg.no-undo"));
                }
            }
            "hint" => s.hint(lang),
            _ => match parse_pit(input, s.game().position().pits()) {
                Ok(pit) => match s.session.play(pit) {
                    Ok(e) => {
                        last = Some((s.human, pit));
                        println!("{}", your_move_text(&rules, s.human, pit, e, lang));
                        show = true;
                    }
                    Err(e) => println!("{}", e.text_in(lang)),
                },
                Err(e) => println!("{}", f("play.bad-input", &[("error", &e.text_in(lang))])),
            },
        }
    }
    save_at_end(&s, &a, saved, &mut lines, interactive)
}

/// The end of `play`: the record saved where `--save` asks (or, unasked, where the player
/// names a file after a finished game at a terminal); printed where it cannot be written.
fn save_at_end(
    s: &Play,
    a: &PlayArgs,
    mut saved: Vec<String>,
    lines: &mut impl Iterator<Item = std::io::Result<Result<String, ()>>>,
    interactive: bool,
) -> Result<()> {
    let lang = a.lang.get();
    let t = |key: &str| i18n::text(lang, key);
    let f = |key: &str, args: &[(&str, &dyn std::fmt::Display)]| i18n::format(lang, key, args);
    if let Some(path) = &a.save {
        // A file that appeared there since the start is not replaced unasked.
        if a.force {
            saved.push(path.clone());
        }
        let result = if may_write(path, &saved, lines, lang) {
            s.save(path)
        } else {
            Err(anyhow::anyhow!(
                "--save {path}: a file was made there during the game; not replaced"
            ))
        };
        if let Err(e) = result {
            // Checked at the start, but the disk may have changed since: the game is not lost.
            let rec = s.session.record();
            println!("{}", rec.to_text().unwrap_or_default());
            return Err(e.context("the record is printed above"));
        }
        println!("{}", f("play.record-saved", &[("path", &path)]));
    } else if interactive && s.game().is_over() {
        print!("{}", t("play.ask-save"));
        std::io::stdout().flush().ok();
        if let Some(Ok(Ok(name))) = lines.next() {
            let name = name.trim();
            if !name.is_empty() && may_write(name, &saved, lines, lang) {
                match s.save(name) {
                    Ok(()) => println!("{}", f("play.saved", &[("path", &name)])),
                    Err(e) => println!(
                        "{}",
                        f(
                            "play.save-failed",
                            &[("error", &mancala_core::printable(&format!("{e:#}")))]
                        )
                    ),
                }
            }
        }
    }
    Ok(())
}

/// What the person's move `pit` on `side` did: the move, a swap, captures, seeds handed
/// over, an extra turn or a pass.
fn your_move_text(
    rules: &mancala_core::Rules,
    side: Side,
    pit: u8,
    e: mancala_core::MoveEffect,
    lang: Lang,
) -> String {
    let t = |key: &str| i18n::text(lang, key);
    let f = |key: &str, args: &[(&str, &dyn std::fmt::Display)]| i18n::format(lang, key, args);
    let mut msg = f(
        "play.you-play",
        &[("move", &Notation::for_rules(rules).move_text(side, pit))],
    );
    if pit == mancala_core::SWAP {
        msg += t("play.you-swap");
    }
    if e.captured > 0 {
        msg += &f("play.you-captured", &[("n", &e.captured)]);
    }
    if e.handed > 0 {
        msg += &f("play.handed", &[("n", &e.handed)]);
    }
    if e.again {
        msg += t(if e.in_store {
            "play.again"
        } else {
            "play.pass"
        });
    }
    msg.trim().to_string()
}

/// Whether `save` may write `path`: a new file, one this game saved (`saved`), or another
/// that the player agrees to replace (asked on `lines`); never a directory (said, not asked).
fn may_write(
    path: &str,
    saved: &[String],
    lines: &mut impl Iterator<Item = std::io::Result<Result<String, ()>>>,
    lang: Lang,
) -> bool {
    if std::path::Path::new(path).is_dir() {
        println!(
            "{}",
            i18n::format(lang, "play.is-directory", &[("path", &path)])
        );
        return false;
    }
    if path.is_empty() || saved.iter().any(|p| p == path) || !std::path::Path::new(path).exists() {
        return true;
    }
    print!("{}", i18n::format(lang, "play.replace", &[("path", &path)]));
    std::io::stdout().flush().ok();
    matches!(lines.next(), Some(Ok(Ok(a))) if a.trim().eq_ignore_ascii_case("y"))
}

/// Fails now, before any move, if `path` cannot be written at the end of the game (a file
/// made for the check is removed again), is a directory, or holds a file already and
/// `force` is not given.
fn check_writable(path: &str, force: bool) -> Result<()> {
    if path.is_empty() {
        bail!("--save: give a file name");
    }
    if std::path::Path::new(path).is_dir() {
        bail!("--save {path}: {path} is a directory: give a file name");
    }
    let existed = std::path::Path::new(path).exists();
    if existed && !force {
        bail!("--save {path}: the file exists (add --force to replace it)");
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .with_context(|| format!("--save {path}: cannot write there"))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

fn captures_text(moves: &[PlayedMove], lang: Lang) -> String {
    let captured: u32 = moves.iter().map(|m| m.effect.captured as u32).sum();
    let handed: u32 = moves.iter().map(|m| m.effect.handed as u32).sum();
    let mut t = String::new();
    if captured > 0 {
        t += &i18n::format(lang, "play.capturing", &[("n", &captured)]);
    }
    if handed > 0 {
        t += &i18n::format(lang, "play.handing", &[("n", &handed)]);
    }
    t
}

/// A pit typed by the player: a letter a-h (either case) or a number from 1, from his left;
/// or `swap` (the pie rule's swap, whose legality the game checks).
fn parse_pit(input: &str, pits: usize) -> std::result::Result<u8, Msg> {
    let t = input.trim();
    if t.eq_ignore_ascii_case(notation::SWAP_TEXT) {
        return Ok(mancala_core::SWAP);
    }
    let pit = if let Ok(n) = t.parse::<usize>() {
        if n == 0 || n > pits {
            return Err(Msg::new("play.no-pit")
                .arg("pit", n)
                .arg("first", 1)
                .arg("last", pits));
        }
        n - 1
    } else if t.len() == 1 && t.as_bytes()[0].is_ascii_alphabetic() {
        let n = (t.as_bytes()[0].to_ascii_lowercase() - b'a') as usize;
        if n >= pits {
            // In the case typed (either is taken).
            let a = if t.as_bytes()[0].is_ascii_uppercase() {
                b'A'
            } else {
                b'a'
            };
            return Err(Msg::new("play.no-pit")
                .arg("pit", t)
                .arg("first", a as char)
                .arg("last", (a + pits as u8 - 1) as char));
        }
        n
    } else {
        // A long line is quoted by its start only.
        let cut: String = t.chars().take(40).collect();
        let mut shown = mancala_core::printable(&cut);
        if cut.len() < t.len() {
            shown += "...";
        }
        return Err(Msg::new("play.not-pit").arg("text", shown));
    };
    Ok(pit as u8)
}

impl Play {
    /// The session `a` asks for: the person's side, the computer at its level with its
    /// endgame tables; a `--save` path that may not be written is refused now.
    fn new(a: &PlayArgs) -> Result<Play> {
        let start = a.rules.start_position(a.position.as_deref())?;
        if start.is_over() {
            bail!("the game is already over in that position");
        }
        if let Some(path) = &a.save {
            check_writable(path, a.force)?;
        }
        let first_mover = start.to_move();
        let human = if a.first == First::Human {
            first_mover
        } else {
            first_mover.other()
        };
        let ai_name = mancala_play::player::computer_name(a.level.level);
        let players = match human {
            Side::South => Players {
                south: Some("you".into()),
                north: Some(ai_name),
            },
            Side::North => Players {
                south: Some(ai_name),
                north: Some("you".into()),
            },
        };
        let seed = mancala_play::rng::seed_or_clock(a.seed);
        let mut computer = Computer::new(a.level, seed);
        let egdb = crate::tables::open_egdb(a.egdb.as_deref(), &start)?;
        computer.engine.oracle = crate::tables::oracle(&egdb);
        let mut seats = [Seat::Person, Seat::Person];
        seats[human.other().index()] = Seat::Computer(Box::new(computer));
        Ok(Play {
            session: Session::new(start, seats, players),
            human,
            egdb,
        })
    }

    /// Says the game, the person's seat and the computer's level.
    fn intro(&self, level: u8, lang: Lang) {
        let rules = self.game().rules();
        let side = |s: Side| i18n::side_name(lang, s);
        let seat = if self.human == Side::South {
            "play.seat.first"
        } else {
            "play.seat.second"
        };
        println!("{}: {}", rules, rules.preset.summary_in(lang));
        println!(
            "{}\n",
            i18n::format(
                lang,
                "play.intro",
                &[
                    ("side", &side(self.human)),
                    ("seat", &i18n::text(lang, seat)),
                    ("other", &side(self.human.other())),
                    ("level", &level),
                ]
            )
        );
    }

    /// Plays the computer's turn and says it; its last move.
    fn computer_plays(&mut self, lang: Lang) -> Result<Option<(Side, u8)>> {
        let moves = self.computer_turn()?;
        let other = self.human.other();
        let turn = notation::turn_text(Notation::for_rules(self.game().rules()), other, &moves);
        println!(
            "{}",
            i18n::format(
                lang,
                "play.plays",
                &[
                    ("side", &i18n::side_name(lang, other)),
                    ("turn", &turn),
                    ("captures", &captures_text(&moves, lang)),
                ]
            )
        );
        Ok(moves.last().map(|m| (m.side, m.pit)))
    }

    /// Says the best move for the person and its value: a proof within a second first (the
    /// default game proves in well under one), else a 20-ply search within the rest.
    fn hint(&mut self, lang: Lang) {
        let r = self.session.computer(self.human.other()).and_then(|c| {
            self.session
                .hint(&c.engine, Budget::time(HINT_TIME).with_depth(Some(20)))
        });
        self.drop_bad_tables();
        if let Some(r) = r {
            let best = Notation::for_rules(self.game().rules()).move_text(self.human, r.best);
            let value = r.eval.text_in(lang);
            println!(
                "{}",
                i18n::format(lang, "play.hint", &[("move", &best), ("value", &value)])
            );
        }
    }

    /// The `save` command: the record written to `path` where [`may_write`] allows, and
    /// said; `saved` keeps the paths written.
    fn save_command(
        &self,
        path: &str,
        saved: &mut Vec<String>,
        lines: &mut impl Iterator<Item = std::io::Result<Result<String, ()>>>,
        lang: Lang,
    ) {
        if !may_write(path, saved, lines, lang) {
            println!("{}", i18n::text(lang, "play.not-saved"));
            return;
        }
        match self.save(path) {
            Ok(()) => {
                println!("{}", i18n::format(lang, "play.saved", &[("path", &path)]));
                saved.push(path.to_string());
            }
            Err(e) => {
                let error = mancala_core::printable(&format!("{e:#}"));
                println!(
                    "{}",
                    i18n::format(lang, "play.save-failed", &[("error", &error)])
                );
            }
        }
    }

    fn game(&self) -> &Game {
        self.session.game()
    }

    /// Plays the computer's whole turn and returns its moves.
    fn computer_turn(&mut self) -> Result<Vec<PlayedMove>> {
        let egdb = &mut self.egdb;
        self.session.computer_turn(|c| drop_bad_tables(egdb, c))
    }

    /// Stops probing the endgame tables once one has shown a forged entry: the game goes
    /// on (nothing is lost) with the engine's own search.
    fn drop_bad_tables(&mut self) {
        if let Some(c) = self.session.computer_mut(self.human.other()) {
            drop_bad_tables(&mut self.egdb, c);
        }
    }

    fn save(&self, path: &str) -> Result<()> {
        if path.is_empty() {
            bail!("give a file name: save FILE");
        }
        let rec = self.session.record();
        let text = if path.ends_with(".json") {
            serde_json::to_string_pretty(&rec)? + "\n"
        } else {
            rec.to_text()?
        };
        std::fs::write(path, text).with_context(|| format!("writing {path}"))
    }
}

/// Stops `computer` probing `egdb` once a table has shown a forged entry (a warning says so).
fn drop_bad_tables(egdb: &mut Option<std::sync::Arc<mancala_egdb::Egdb>>, computer: &mut Computer) {
    if let Err(e) = crate::tables::check_tables(egdb.as_deref()) {
        eprintln!("warning: {e:#}; playing on without the endgame tables");
        *egdb = None;
        computer.engine.oracle = None;
    }
}

#[cfg(test)]
mod tests {
    use super::parse_pit;
    use mancala_core::i18n::Lang;

    fn said(r: Result<u8, mancala_core::Msg>, lang: Lang) -> Result<u8, String> {
        r.map_err(|m| m.text_in(lang))
    }

    #[test]
    fn a_pit_that_is_not_there_is_said_in_the_players_language() {
        assert_eq!(
            said(parse_pit("9", 6), Lang::Pt),
            Err("não há nenhuma casa 9: as casas são 1-6".into())
        );
        assert_eq!(
            said(parse_pit("xy", 6), Lang::Es),
            Err("`xy` no es un agujero ni un comando".into())
        );
    }

    #[test]
    fn pits_typed_as_letters_or_numbers() {
        let parse_pit = |t: &str, pits| said(parse_pit(t, pits), Lang::En);
        assert_eq!(parse_pit("C", 6), Ok(2));
        assert_eq!(parse_pit("c", 6), Ok(2));
        assert_eq!(parse_pit(" 6 ", 6), Ok(5));
        assert_eq!(parse_pit("Swap", 6), Ok(mancala_core::SWAP));
        assert_eq!(
            parse_pit("G", 6),
            Err("there is no pit G: pits are A-F".into())
        );
        assert_eq!(
            parse_pit("z", 6),
            Err("there is no pit z: pits are a-f".into())
        );
        assert_eq!(
            parse_pit("7", 6),
            Err("there is no pit 7: pits are 1-6".into())
        );
        assert_eq!(
            parse_pit("xy", 6),
            Err("`xy` is not a pit or a command".into())
        );
        let long = "x".repeat(100_000);
        assert_eq!(
            parse_pit(&long, 6),
            Err(format!("`{}...` is not a pit or a command", "x".repeat(40)))
        );
    }
}
