//! What the commands read from files: record and position files (size capped, errors naming
//! the file).

use std::io::Read;

use anyhow::{bail, Context, Result};
use mancala_core::i18n::Lang;
use mancala_core::{Game, Record, Rules};

/// The largest record or position input read (the longest real games are a few KiB); larger
/// input is refused before it is parsed, so a wrong file cannot take the machine's memory.
pub const MAX_INPUT_BYTES: u64 = 4 << 20;

/// How an input is named in errors: its path, or `stdin` for `-`.
pub fn input_name(file: &str) -> &str {
    if file == "-" {
        "stdin"
    } else {
        file
    }
}

/// Reads a record or position file (`-`: stdin), at most [`MAX_INPUT_BYTES`].
pub fn read_input(file: &str) -> Result<String> {
    let name = input_name(file);
    let too_large = || {
        anyhow::anyhow!(
            "{name}: more than {} MiB, too large for a record or position",
            MAX_INPUT_BYTES >> 20
        )
    };
    let mut bytes = Vec::new();
    if file == "-" {
        std::io::stdin()
            .take(MAX_INPUT_BYTES + 1)
            .read_to_end(&mut bytes)
            .context("reading stdin")?;
    } else {
        let f = std::fs::File::open(file).with_context(|| format!("reading {file}"))?;
        if f.metadata().is_ok_and(|m| m.len() > MAX_INPUT_BYTES) {
            return Err(too_large());
        }
        f.take(MAX_INPUT_BYTES + 1)
            .read_to_end(&mut bytes)
            .with_context(|| format!("reading {file}"))?;
    }
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|_| anyhow::anyhow!("{name}: not UTF-8 text"))
}

/// Reads and replays a record file checked whole, as `replay` and `analyze` (the
/// `command` reading it) do. Where only a record's annotations or claimed score (result)
/// disagree, the error names the file and gives the command line that replays the moves
/// anyway (`mancala replay --lenient FILE`); with `lenient` they are replayed and the
/// disagreement is a note on stderr. The note is said in `lang`.
pub fn load_record(
    file: &str,
    rules: Option<Rules>,
    lenient: bool,
    lang: Lang,
    command: &str,
) -> Result<(Record, Game)> {
    let (rec, game, note) = load_record_noting(file, rules)?;
    if let Some(e) = note {
        if !lenient {
            let again = format!("mancala {command} --lenient {}", shell_word(file));
            bail!(
                "{} {}",
                crate::error_in(&e, lang),
                mancala_core::i18n::format(lang, "replay.use-lenient", &[("command", &again)])
            );
        }
        eprintln!("note: {}", crate::error_in(&e, lang));
    }
    Ok((rec, game))
}

/// `word` as a shell reads it back: as it is where it holds only letters, digits and
/// `_./-+,:=@%`, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./-+,:=@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// As [`load_record`] with `lenient`, handing back the disagreement (if any) instead of
/// printing it.
pub fn load_record_noting(
    file: &str,
    rules: Option<Rules>,
) -> Result<(Record, Game, Option<anyhow::Error>)> {
    let name = input_name(file);
    let (rec, game, note) =
        Record::parse_noting(&read_input(file)?, rules).with_context(|| name.to_string())?;
    Ok((
        rec,
        game,
        note.map(|e| anyhow::Error::new(e).context(name.to_string())),
    ))
}
