//! The rules as the client draws with them, and the new-game menus of every preset and its
//! options.

use mancala_core::i18n::Lang;
use mancala_core::notation::Notation;
use mancala_core::rules::{OptionKind, OptionValue, OPTIONS};
use mancala_core::{Game, Preset, Rules};
use serde::Serialize;

use super::board::notation_str;

/// The rules facts the client draws with.
#[derive(Debug, Clone, Serialize)]
pub struct RulesView {
    /// The rules as text (`kalah,seeds=4`).
    pub name: String,
    /// The preset's name.
    pub preset: &'static str,
    /// The game and its changed options as people read them (`Kalah · Seeds a pit: 4`).
    pub title: String,
    /// The preset's one-line summary.
    pub summary: &'static str,
    /// Every option's value.
    pub rules: Rules,
    /// Pits a side.
    pub pits: u8,
    /// How moves are written: `"letters"`, `"digits"` or `"kauri"`.
    pub notation: &'static str,
    /// Whether fewer seeds win.
    pub misere: bool,
    /// Whether the board has cowries.
    pub kauri: bool,
}

/// Rules facts the client draws with (the rules text is at `/api/rules`).
pub fn rules_view(game: &Game) -> RulesView {
    let r = game.rules();
    RulesView {
        name: r.to_string(),
        preset: r.preset.name(),
        title: r.title(),
        summary: r.preset.summary(),
        rules: *r,
        pits: r.pits,
        notation: notation_str(Notation::for_rules(r)),
        misere: r.misere(),
        kauri: r.has_cowries(),
    }
}

/// The answer of `/api/variants`: the new-game menus.
#[derive(Debug, Clone, Serialize)]
pub struct Variants {
    /// Every preset.
    pub presets: Vec<PresetView>,
    /// The computer's levels.
    pub levels: Vec<u8>,
}

/// A preset, its defaults, and the options that apply to it.
#[derive(Debug, Clone, Serialize)]
pub struct PresetView {
    /// The preset's name.
    pub name: &'static str,
    /// Its name as people read it.
    pub title: &'static str,
    /// Its one-line summary.
    pub summary: &'static str,
    /// Its rules with every option at its default.
    pub defaults: Rules,
    /// The position string of its start with every option at its default (the analysis
    /// board opens on it).
    pub start: String,
    /// The options that apply to it.
    pub options: Vec<OptionView>,
    /// Its rules in words.
    pub text: String,
}

/// One option of a preset for the menus.
#[derive(Debug, Clone, Serialize)]
pub struct OptionView {
    /// The option's name.
    pub name: &'static str,
    /// Its name as people read it (`End of the game`).
    pub title: &'static str,
    /// Its values in words (`1-20`, `standard|empty`).
    pub values: String,
    /// What it does.
    pub help: &'static str,
    /// Its default under this preset.
    pub default: String,
    /// How the menu offers it.
    #[serde(flatten)]
    pub kind: OptionChoice,
}

/// How a menu offers an option: `"kind": "range"` with its bounds, or `"kind": "choice"`
/// with its words.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum OptionChoice {
    /// A number from `min` to `max`.
    Range {
        /// The least value.
        min: u8,
        /// The greatest value.
        max: u8,
    },
    /// One of `choices`.
    Choice {
        /// The words allowed.
        choices: Vec<&'static str>,
        /// What each word means, for people (`Ends when a row is empty`), in the same order.
        labels: Vec<String>,
    },
}

/// Every preset, its defaults, and the options that apply to it, for the new-game menus, in
/// `lang`'s words (names and values stay the rules' own).
pub fn variants(lang: Lang) -> Variants {
    let presets = Preset::ALL
        .iter()
        .map(|p| {
            let options = OPTIONS
                .iter()
                .filter(|o| (o.applies)(*p))
                .map(|o| OptionView {
                    name: o.name,
                    title: o.title(lang),
                    values: o.values_for(*p),
                    help: o.help(lang),
                    default: o.default(*p).to_string(),
                    kind: match o.kind_for(*p) {
                        OptionKind::Number { min, max } => OptionChoice::Range { min, max },
                        OptionKind::Bool => OptionChoice::Choice {
                            choices: vec!["true", "false"],
                            labels: vec![
                                o.value_text(lang, OptionValue::Bool(true)),
                                o.value_text(lang, OptionValue::Bool(false)),
                            ],
                        },
                        OptionKind::Keyword(words) => OptionChoice::Choice {
                            choices: words.to_vec(),
                            labels: words.iter().map(|w| o.label(lang, w).to_string()).collect(),
                        },
                    },
                })
                .collect();
            PresetView {
                name: p.name(),
                title: p.title_in(lang),
                summary: p.summary_in(lang),
                defaults: p.rules(),
                start: Game::from_rules(&p.rules())
                    .map(|g| g.start().to_string())
                    .unwrap_or_default(),
                options,
                text: p.rules().describe_in(lang),
            }
        })
        .collect();
    Variants {
        presets,
        levels: mancala_engine::LEVELS.collect(),
    }
}
