//! `mancala rules` and `mancala variants`: a preset's rules as text generated from the rules
//! data, and the presets and options of the registry.

use anyhow::{bail, Result};
use clap::Args;
use mancala_core::i18n::Lang;
use mancala_core::rules::OPTIONS;
use mancala_core::Preset;
use serde_json::json;

use crate::{LangArg, RulesArgs};

#[derive(Args)]
pub(crate) struct RulesCmdArgs {
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

pub(crate) fn rules_cmd(a: RulesCmdArgs) -> Result<()> {
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

pub(crate) fn variants(as_json: bool) -> Result<()> {
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
    use super::*;
    use crate::{Cli, Command};
    use clap::Parser;

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
