//! The command line's parser, which takes negative numbers as values of options, and its
//! errors in one line each, an option's value out of range said with the range.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::CommandFactory;

use crate::Cli;

/// The command line's parser: [`Cli`], where every option that takes a value takes a
/// negative number as its value too (`--games -1`), so that the option's own parser says
/// what it takes instead of the number being read as an unknown flag.
pub(crate) fn command() -> clap::Command {
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

/// A command-line error in one line, as every other error: clap's message (with the
/// values it lists) and the similar name it suggests, without its usage and other tips.
pub(crate) fn clap_error_line(e: &clap::Error) -> String {
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
pub(crate) fn range_error(
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
