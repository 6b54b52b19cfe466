//! Arguments that many subcommands share: the rules (`--variant`, and a flag for each option
//! of the registry) and the language of the words they print (`--lang`), in which errors are
//! said too.

use anyhow::{bail, Result};
use clap::Args;
use mancala_core::i18n::Lang;
use mancala_core::rules::{RulesSpec, OPTIONS};
use mancala_core::{Position, Preset, Rules};

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
}
