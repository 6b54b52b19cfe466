//! The presets: each named game's family, what its game has and its default options.

use core::fmt;
use core::str::FromStr;

use serde::{Deserialize, Serialize};

use super::{
    Capture, DecidedLeftovers, EndCheck, GrandSlam, Leftovers, Repetition, Rules, Stage,
    MAX_TOTAL_SEEDS, WIDE_MAX_SEEDS,
};
use crate::i18n::{self, Lang};
use crate::notation::Notation;
use crate::{Error, Msg};

/// A named game. Every Kalah-family preset shares one rules engine ([`crate::kalah`]);
/// Kauri has its own ([`crate::kauri`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    /// Kalah, 6 x 2, 3 seeds a pit (Italian source page); Kalah(6,4) with `seeds=4`.
    Kalah,
    /// Kalah as taught in Brazilian classrooms: 3 3 4 4 3 3, three teaching stages.
    KalahBrazil,
    /// The 4 x 2 "Vaccean-inspired" mancala, 5 seeds a pit (Spanish source page).
    Vaccean,
    /// Cross-Kalah (W. Dan Troyka, 2004): a pit holding an odd number of seeds sows clockwise.
    CrossKalah,
    /// Dracala (Ralf Gering, 2010): compulsory maximum capture, misère.
    Dracala,
    /// Kauri (Ralf Gering, 2006): seeds and cowries.
    Kauri,
    /// Oware (Abapa): no stores on the ring, captures of 2s and 3s, must-feed.
    Oware,
}

/// The rules engine that plays a preset: each family is a module implementing
/// [`crate::Family`] and a variant of [`crate::Position`]'s state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameFamily {
    /// Sowing into stores, extra turns and captures from an own empty pit ([`crate::kalah`]).
    Kalah,
    /// Seeds and cowries ([`crate::kauri`]).
    Kauri,
    /// No stores on the ring, captures of 2s and 3s, must-feed ([`crate::oware`]).
    Oware,
}

/// One preset: its name, its family, what its game has and its rules with every option at
/// its default. Every field is stated in each entry, so that a preset cannot take another
/// family's rules by omission.
pub(super) struct PresetEntry {
    pub(super) name: &'static str,
    /// The rules engine that plays it.
    pub(super) family: GameFamily,
    /// How its records write moves.
    pub(super) notation: Notation,
    /// Its pits hold cowries besides seeds (Kauri).
    pub(super) cowries: bool,
    /// Fewer seeds wins (Dracala).
    pub(super) misere: bool,
    /// A last seed in the own store gives another move (in every stage that has them).
    pub(super) extra_turns: bool,
    /// Its game is taught in stages (`stage`): extra turns and captures come in later ones.
    pub(super) stages: bool,
    /// Each central pit starts with one seed more than the others (Brazilian classrooms).
    pub(super) central_extra_seed: bool,
    /// A pit holding an odd number of seeds sows clockwise (Cross-Kalah).
    pub(super) odd_sows_clockwise: bool,
    /// Only the moves with the largest capture are legal, with a first-move exception
    /// (Dracala).
    pub(super) compulsory_capture: bool,
    /// The occurrence of a position that ends the game; `None` where positions cannot repeat.
    pub(super) repeat_ends_at: Option<usize>,
    /// Most seeds in all a game of it may hold.
    pub(super) max_total_seeds: u32,
    /// It takes the opening rules `first-move-extra-turn` and `pie`.
    pub(super) opening_rules: bool,
    /// The translation key of why a pit holding pieces may not be sown, where some may not.
    pub(super) restriction: Option<&'static str>,
    pub(super) defaults: Rules,
}

/// The option values a preset keeps unless its entry in [`PRESETS`] says otherwise.
const BASE: Rules = Rules {
    preset: Preset::Kalah,
    pits: 6,
    seeds: 3,
    capture: Capture::Standard,
    end: EndCheck::AnyRowEmpty,
    leftovers: Leftovers::ToOwner,
    stop_when_decided: false,
    first_move_extra_turn: true,
    pie: false,
    stage: Stage::Full,
    grand_slam: GrandSlam::CaptureNothing,
    repetition: Repetition::OwnRow,
    decided_leftovers: DecidedLeftovers::NotCounted,
};

/// Every preset, in [`Preset`] declaration order (the default first): a preset is added by
/// its variant, its entry here and, for a new family, the code that plays it.
///
/// Kalah-family games whose positions cannot repeat and that have no opening rule of their own
/// take `first-move-extra-turn` and `pie`; Cross-Kalah does not (its retrograde solver works
/// store level by store level, which a swap would cross), nor does Dracala (its first move
/// has its own exception).
const PRESETS: &[PresetEntry] = &[
    PresetEntry {
        name: "kalah",
        family: GameFamily::Kalah,
        notation: Notation::Letters,
        cowries: false,
        misere: false,
        extra_turns: true,
        stages: false,
        central_extra_seed: false,
        odd_sows_clockwise: false,
        compulsory_capture: false,
        repeat_ends_at: None,
        max_total_seeds: WIDE_MAX_SEEDS,
        opening_rules: true,
        restriction: None,
        defaults: BASE,
    },
    PresetEntry {
        name: "kalah-brazil",
        family: GameFamily::Kalah,
        notation: Notation::Letters,
        cowries: false,
        misere: false,
        extra_turns: true,
        stages: true,
        central_extra_seed: true,
        odd_sows_clockwise: false,
        compulsory_capture: false,
        repeat_ends_at: None,
        max_total_seeds: WIDE_MAX_SEEDS,
        opening_rules: true,
        restriction: None,
        defaults: Rules {
            preset: Preset::KalahBrazil,
            capture: Capture::OppositeOnly,
            end: EndCheck::MoverEmpty,
            leftovers: Leftovers::NotCounted,
            ..BASE
        },
    },
    PresetEntry {
        name: "vaccean",
        family: GameFamily::Kalah,
        notation: Notation::Letters,
        cowries: false,
        misere: false,
        extra_turns: true,
        stages: false,
        central_extra_seed: false,
        odd_sows_clockwise: false,
        compulsory_capture: false,
        repeat_ends_at: None,
        max_total_seeds: WIDE_MAX_SEEDS,
        opening_rules: true,
        restriction: None,
        defaults: Rules {
            preset: Preset::Vaccean,
            pits: 4,
            seeds: 5,
            capture: Capture::OppositeOnly,
            ..BASE
        },
    },
    PresetEntry {
        name: "cross-kalah",
        family: GameFamily::Kalah,
        notation: Notation::Letters,
        cowries: false,
        misere: false,
        extra_turns: true,
        stages: false,
        central_extra_seed: false,
        odd_sows_clockwise: true,
        compulsory_capture: false,
        repeat_ends_at: Some(3),
        max_total_seeds: WIDE_MAX_SEEDS,
        opening_rules: false,
        restriction: None,
        defaults: Rules {
            preset: Preset::CrossKalah,
            seeds: 6,
            ..BASE
        },
    },
    PresetEntry {
        name: "dracala",
        family: GameFamily::Kalah,
        notation: Notation::Digits,
        cowries: false,
        misere: true,
        extra_turns: true,
        stages: false,
        central_extra_seed: false,
        odd_sows_clockwise: false,
        compulsory_capture: true,
        repeat_ends_at: None,
        max_total_seeds: WIDE_MAX_SEEDS,
        opening_rules: false,
        restriction: Some("rules.restriction.dracala"),
        defaults: Rules {
            preset: Preset::Dracala,
            seeds: 6,
            leftovers: Leftovers::LastMover,
            stop_when_decided: true,
            ..BASE
        },
    },
    PresetEntry {
        name: "kauri",
        family: GameFamily::Kauri,
        notation: Notation::Kauri,
        cowries: true,
        misere: false,
        extra_turns: false,
        stages: false,
        central_extra_seed: false,
        odd_sows_clockwise: false,
        compulsory_capture: false,
        repeat_ends_at: Some(3),
        max_total_seeds: MAX_TOTAL_SEEDS,
        opening_rules: false,
        restriction: Some("rules.restriction.kauri"),
        defaults: Rules {
            preset: Preset::Kauri,
            seeds: 5,
            stop_when_decided: true,
            ..BASE
        },
    },
    PresetEntry {
        name: "oware",
        family: GameFamily::Oware,
        notation: Notation::Letters,
        cowries: false,
        misere: false,
        extra_turns: false,
        stages: false,
        central_extra_seed: false,
        odd_sows_clockwise: false,
        compulsory_capture: false,
        repeat_ends_at: Some(2),
        max_total_seeds: MAX_TOTAL_SEEDS,
        opening_rules: false,
        restriction: Some("rules.restriction.oware"),
        defaults: Rules {
            preset: Preset::Oware,
            seeds: 4,
            stop_when_decided: true,
            ..BASE
        },
    },
];

impl Preset {
    /// Every preset, the default first.
    pub const ALL: [Preset; PRESETS.len()] = {
        let mut all = [Preset::Kalah; PRESETS.len()];
        let mut i = 0;
        while i < PRESETS.len() {
            all[i] = PRESETS[i].defaults.preset;
            i += 1;
        }
        all
    };

    pub(super) fn entry(self) -> &'static PresetEntry {
        &PRESETS[self as usize]
    }

    /// Its name, as in rules strings and JSON.
    pub fn name(self) -> &'static str {
        self.entry().name
    }

    /// The name people read in menus and titles (`Brazilian classroom Kalah`).
    pub fn title(self) -> &'static str {
        self.title_in(Lang::En)
    }

    /// [`Preset::title`] in `lang` (key `preset.NAME.title` of the translation files).
    pub fn title_in(self, lang: Lang) -> &'static str {
        i18n::text(lang, &format!("preset.{}.title", self.name()))
    }

    /// One line: what the game is and where its rules come from.
    pub fn summary(self) -> &'static str {
        self.summary_in(Lang::En)
    }

    /// [`Preset::summary`] in `lang` (key `preset.NAME.summary`).
    pub fn summary_in(self, lang: Lang) -> &'static str {
        i18n::text(lang, &format!("preset.{}.summary", self.name()))
    }

    /// The notation its records use.
    pub fn notation(self) -> Notation {
        self.entry().notation
    }

    /// The rules engine that plays it.
    pub fn family(self) -> GameFamily {
        self.entry().family
    }

    /// Whether it is played by the Kalah rules engine ([`crate::kalah`]).
    pub fn is_kalah_family(self) -> bool {
        self.family() == GameFamily::Kalah
    }

    /// Whether it is Oware ([`crate::oware`]), the only family whose options include
    /// `grand-slam`, `repetition` and `decided-leftovers`.
    pub fn is_oware_family(self) -> bool {
        self.family() == GameFamily::Oware
    }

    /// Whether its game is taught in stages (the `stage` option).
    pub fn has_stages(self) -> bool {
        self.entry().stages
    }

    /// Whether a pit holding an odd number of seeds sows clockwise (Cross-Kalah).
    pub fn odd_sows_clockwise(self) -> bool {
        self.entry().odd_sows_clockwise
    }

    /// Whether only the moves with the largest capture are legal (Dracala).
    pub fn compulsory_capture(self) -> bool {
        self.entry().compulsory_capture
    }

    /// Most seeds in all a game of this preset may hold.
    pub fn max_total_seeds(self) -> u32 {
        self.entry().max_total_seeds
    }

    /// Whether it takes the opening rules `first-move-extra-turn` and `pie` (see `PRESETS`
    /// for which presets do and why).
    pub fn takes_opening_rules(self) -> bool {
        self.entry().opening_rules
    }

    /// The preset's rules with every option at its default.
    pub fn rules(self) -> Rules {
        self.entry().defaults
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Read as its text form is (JSON records get the same words for a bad name).
impl<'de> Deserialize<'de> for Preset {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

impl FromStr for Preset {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        Preset::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                Error::Rules(
                    Msg::new("error.rules.unknown-preset")
                        .arg("name", s)
                        .arg("presets", Preset::ALL.map(Preset::name).join(", ")),
                )
            })
    }
}
