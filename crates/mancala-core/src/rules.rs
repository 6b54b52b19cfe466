//! The rules of every game as data: a [`Rules`] value names a preset and its options.
//!
//! Presets and their defaults follow the rules as docs/rules.md states them and the source
//! pages (the Italian *Kalah* article for `kalah` and `cross-kalah`, the Brazilian classroom
//! page *Jogo Kalah* for `kalah-brazil`, the Spanish page *Juego de Mancala de inspiración
//! vaccea* for `vaccean`, Ralf Gering's pages for `dracala` and `kauri`). Help text, option
//! menus and records are generated from this module, so the text a user reads can never
//! disagree with the engine.

use core::fmt;
use core::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::i18n::{self, Lang};
use crate::notation::Notation;
use crate::{Error, Msg};

/// Most pits a side any preset may be played with (KGP's largest boards have 12).
pub const MAX_PITS: usize = 12;
/// Most seeds in all of a game whose counts are bytes: Kauri, Oware, and Kalah-family games
/// on `u8` counts (larger Kalah-family games play on `u16` counts, up to
/// [`crate::kalah::WIDE_MAX_SEEDS`]; see [`Preset::max_total_seeds`]).
pub const MAX_TOTAL_SEEDS: u32 = 240;
/// Most seeds a pit may start with.
pub const MAX_SEEDS: u8 = 20;

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
struct PresetEntry {
    name: &'static str,
    /// The rules engine that plays it.
    family: GameFamily,
    /// How its records write moves.
    notation: Notation,
    /// Its pits hold cowries besides seeds (Kauri).
    cowries: bool,
    /// Fewer seeds wins (Dracala).
    misere: bool,
    /// A last seed in the own store gives another move (in every stage that has them).
    extra_turns: bool,
    /// Its game is taught in stages (`stage`): extra turns and captures come in later ones.
    stages: bool,
    /// Each central pit starts with one seed more than the others (Brazilian classrooms).
    central_extra_seed: bool,
    /// A pit holding an odd number of seeds sows clockwise (Cross-Kalah).
    odd_sows_clockwise: bool,
    /// Only the moves with the largest capture are legal, with a first-move exception
    /// (Dracala).
    compulsory_capture: bool,
    /// The occurrence of a position that ends the game; `None` where positions cannot repeat.
    repeat_ends_at: Option<usize>,
    /// Most seeds in all a game of it may hold.
    max_total_seeds: u32,
    /// It takes the opening rules `first-move-extra-turn` and `pie`.
    opening_rules: bool,
    /// The translation key of why a pit holding pieces may not be sown, where some may not.
    restriction: Option<&'static str>,
    defaults: Rules,
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
        max_total_seeds: crate::kalah::WIDE_MAX_SEEDS,
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
        max_total_seeds: crate::kalah::WIDE_MAX_SEEDS,
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
        max_total_seeds: crate::kalah::WIDE_MAX_SEEDS,
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
        max_total_seeds: crate::kalah::WIDE_MAX_SEEDS,
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
        max_total_seeds: crate::kalah::WIDE_MAX_SEEDS,
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

    fn entry(self) -> &'static PresetEntry {
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
    /// `grand-slam` and `repetition`.
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

    /// Whether it takes the opening rules `first-move-extra-turn` and `pie` (see [`PRESETS`]
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

/// Any whole number of a JSON input, so that one too large for its field (a byte) is refused
/// in the words of that field, not serde's `expected u8`.
pub(crate) struct Whole(pub i128);

impl<'de> Deserialize<'de> for Whole {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Whole, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Whole;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a whole number")
            }
            fn visit_u64<E>(self, v: u64) -> Result<Whole, E> {
                Ok(Whole(v.into()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Whole, E> {
                Ok(Whole(v.into()))
            }
        }
        d.deserialize_any(V)
    }
}

/// A count of a JSON input that fits `T`, or the error `fault` words for the number given.
pub(crate) fn json_count<'de, T: TryFrom<i128>, D: serde::Deserializer<'de>>(
    d: D,
    fault: impl Fn(i128) -> String,
) -> Result<T, D::Error> {
    let Whole(v) = Whole::deserialize(d)?;
    T::try_from(v).map_err(|_| serde::de::Error::custom(fault(v)))
}

/// `a`, `a or b`, `a, b or c`: the values an option takes, in its error.
macro_rules! keyword_enum {
    ($(#[$m:meta])* $name:ident ($option:literal) { $($(#[$vm:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
        #[serde(rename_all = "kebab-case")]
        pub enum $name { $($(#[$vm])* $variant),+ }
        /// Read as its text form is (JSON records get the same words for a bad value).
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
            }
        }
        impl $name {
            /// Every value, in menu order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// The words of [`Self::ALL`], in the same order.
            pub const WORDS: &'static [&'static str] = &[$($text),+];
            /// The value's word, as written in rules strings and JSON.
            pub fn name(self) -> &'static str { match self { $($name::$variant => $text),+ } }
        }
        impl Keyword for $name {
            const ALL: &'static [$name] = $name::ALL;
            fn word(self) -> &'static str { self.name() }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.name()) }
        }
        impl FromStr for $name {
            type Err = Error;
            fn from_str(s: &str) -> Result<Self, Error> {
                let word = parse_word($option, $name::WORDS, s)?;
                Ok($name::ALL.iter().copied().find(|v| v.name() == word).unwrap_or($name::ALL[0]))
            }
        }
    };
}

keyword_enum!(
    /// What a last seed landing in an own empty pit does (docs/rules.md).
    Capture ("capture") {
        /// The last seed and the opposite seeds go to the store, if the opposite pit holds seeds.
        Standard = "standard",
        /// As standard, but the last seed goes to the store even when the opposite pit is empty.
        Empty = "empty",
        /// Only the opposite seeds go to the store; the capturing seed stays.
        OppositeOnly = "opposite-only",
    }
);

impl Capture {
    /// Seeds this rule takes to the mover's store when the last seed lands alone in an own pit
    /// facing `opposite` seeds; 0 when nothing is captured.
    #[inline]
    pub fn taken<C: crate::kalah::Cell>(self, opposite: C) -> C {
        let (none, one) = (C::default(), C::from(1));
        match self {
            Capture::Standard if opposite > none => opposite + one,
            Capture::Empty => opposite + one,
            Capture::OppositeOnly if opposite > none => opposite,
            _ => none,
        }
    }

    /// Whether a capture takes the capturing seed too.
    #[inline]
    pub fn takes_last_seed(self) -> bool {
        self != Capture::OppositeOnly
    }
}

keyword_enum!(
    /// When a Kalah-family game ends.
    EndCheck ("end") {
        /// After every move, if either row is empty.
        AnyRowEmpty = "any-row-empty",
        /// When the player to move has no seeds in his row.
        MoverEmpty = "mover-empty",
    }
);

keyword_enum!(
    /// Where the seeds still on the board go when the game ends.
    Leftovers ("leftovers") {
        /// Each row to its owner's store.
        ToOwner = "to-owner",
        /// Nobody scores them.
        NotCounted = "not-counted",
        /// All to the player who made the last move.
        LastMover = "last-mover",
        /// All to the player who last grew his store during a move (nobody yet: to their owners).
        LastCapturer = "last-capturer",
    }
);

keyword_enum!(
    /// Teaching stage of `kalah-brazil` (the *Jogo Kalah* classroom page: rules 1-5, then 6,
    /// then 7).
    Stage ("stage") {
        /// Rules 1-5: sowing only, no extra turn, no capture.
        Basic = "basic",
        /// Rule 6 added: last seed in the own store plays again.
        ExtraTurn = "extra-turn",
        /// Rule 7 added: capture.
        Full = "full",
    }
);

keyword_enum!(
    /// Oware: what a capture that would take every seed of the opponent's row does.
    GrandSlam ("grand-slam") {
        /// The move is played and captures nothing (Abapa).
        CaptureNothing = "capture-nothing",
        /// The move is illegal while another move exists (then it captures nothing).
        Forbidden = "forbidden",
        /// The move captures as any other.
        CaptureAll = "capture-all",
    }
);

keyword_enum!(
    /// Oware: who takes the seeds left when a position occurs a second time, which ends the
    /// game.
    Repetition ("repetition") {
        /// Each player takes the seeds in his row.
        OwnRow = "own-row",
        /// The seeds left are shared equally (an odd seed counts for nobody): a repetition
        /// changes nothing between the players, as in computer Awari.
        Split = "split",
    }
);

/// A game and its options. Build one with [`Preset::rules`] or parse `"kalah,seeds=4"`.
///
/// Serialised as `{"preset": "kalah", "pits": 6, "seeds": 4, ...}`; missing options take the
/// preset's defaults and the result is validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "RulesSpec", into = "RulesSpec")]
pub struct Rules {
    /// The game (Kalah, Kauri, Oware, ...) whose defaults the options start from.
    pub preset: Preset,
    /// Pits a side.
    pub pits: u8,
    /// Seeds a pit at the start (`kalah-brazil`: the central pits get one more).
    pub seeds: u8,
    /// Kalah family: what a last seed in an own empty pit captures.
    pub capture: Capture,
    /// Kalah family: when the game ends.
    pub end: EndCheck,
    /// Kalah family: who scores the seeds left on the board when the game ends.
    pub leftovers: Leftovers,
    /// End as soon as a store holds more than half of all seeds (seeds on the board then count
    /// for nobody). In Dracala (misère) that player loses.
    pub stop_when_decided: bool,
    /// Kalah family: the first player's very first move may earn an extra turn (when false, the
    /// turn passes to North even if its last seed lands in South's store).
    pub first_move_extra_turn: bool,
    /// Kalah family: the pie rule; the second player may, as his first action, swap seats
    /// instead of moving (see [`crate::SWAP`]).
    pub pie: bool,
    /// Only for `kalah-brazil`.
    pub stage: Stage,
    /// Only for `oware`.
    pub grand_slam: GrandSlam,
    /// Only for `oware`.
    pub repetition: Repetition,
}

/// A rules enum whose values are words (`capture=empty`): what the option registry needs to
/// store, read and print one of its values.
pub trait Keyword: Copy + 'static {
    /// Every value, in menu order.
    const ALL: &'static [Self];
    /// The value's word, as written in rules strings and JSON.
    fn word(self) -> &'static str;
}

/// The kind of value a rule option takes. It fixes the option's text form, its JSON form (a
/// number, a boolean or a string) and what menus offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// A whole number from `min` to `max`; a JSON number.
    Number {
        /// Smallest value allowed.
        min: u8,
        /// Largest value allowed.
        max: u8,
    },
    /// `true` or `false` (also `yes`/`no`, `on`/`off`; a bare name in a rules string means
    /// true); a JSON boolean.
    Bool,
    /// One of these words, in any case; a JSON string.
    Keyword(&'static [&'static str]),
}

/// One value of a rule option, of the option's [`OptionKind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OptionValue {
    /// Of an [`OptionKind::Number`] option.
    Number(u8),
    /// Of an [`OptionKind::Bool`] option.
    Bool(bool),
    /// Of an [`OptionKind::Keyword`] option: one of its words, as the registry spells it.
    Word(&'static str),
}

impl OptionValue {
    /// The value of a keyword option whose words are `T`'s.
    fn of<T: Keyword>(v: T) -> OptionValue {
        OptionValue::Word(v.word())
    }

    // The readers below serve the registry's setters, which only ever receive values read
    // through their own option's kind (`RuleOption::parse` or its JSON form).

    fn number(self) -> u8 {
        match self {
            OptionValue::Number(n) => n,
            other => unreachable!("a number option was given {other:?}"),
        }
    }

    fn flag(self) -> bool {
        match self {
            OptionValue::Bool(b) => b,
            other => unreachable!("a true/false option was given {other:?}"),
        }
    }

    fn keyword<T: Keyword>(self) -> T {
        match self {
            OptionValue::Word(w) => match T::ALL.iter().find(|v| v.word() == w) {
                Some(&v) => v,
                None => unreachable!("`{w}` is not a word of this option"),
            },
            other => unreachable!("a keyword option was given {other:?}"),
        }
    }
}

/// The text form: `4`, `true`, `opposite-only`.
impl fmt::Display for OptionValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionValue::Number(n) => write!(f, "{n}"),
            OptionValue::Bool(b) => write!(f, "{b}"),
            OptionValue::Word(w) => f.write_str(w),
        }
    }
}

/// The JSON form: a number, a boolean or a string.
impl Serialize for OptionValue {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            OptionValue::Number(n) => s.serialize_u8(n),
            OptionValue::Bool(b) => s.serialize_bool(b),
            OptionValue::Word(w) => s.serialize_str(w),
        }
    }
}

/// One rule option: everything the program knows about it apart from the code that plays it.
///
/// Rules strings, [`RulesSpec`] and its JSON form, the command line's option flags, `mancala
/// variants`, the server's menus and its JSON requests are all read from [`OPTIONS`]. An option
/// is added by its field in [`Rules`], its default in the preset table (the value most presets
/// play, and any preset's own where it differs; [`Preset::rules`] reads it back), its entry in
/// [`OPTIONS`] and the code that plays it.
pub struct RuleOption {
    /// Its name, in rules strings (`seeds=4`), as a flag (`--seeds 4`) and as a JSON key.
    pub name: &'static str,
    /// The values it takes.
    pub kind: OptionKind,
    /// Whether a preset takes it; giving it for another preset is an error.
    pub applies: fn(Preset) -> bool,
    /// Its value in a [`Rules`].
    get: fn(&Rules) -> OptionValue,
    /// Sets it in a [`Rules`] to a value of its kind.
    set: fn(&mut Rules, OptionValue),
}

/// Every rule option, in the order menus, rules strings and JSON show them.
pub const OPTIONS: &[RuleOption] = &[
    RuleOption {
        name: "pits",
        kind: OptionKind::Number {
            min: 1,
            max: MAX_PITS as u8,
        },
        applies: |_| true,
        get: |r| OptionValue::Number(r.pits),
        set: |r, v| r.pits = v.number(),
    },
    RuleOption {
        name: "seeds",
        kind: OptionKind::Number {
            min: 1,
            max: MAX_SEEDS,
        },
        applies: |_| true,
        get: |r| OptionValue::Number(r.seeds),
        set: |r, v| r.seeds = v.number(),
    },
    RuleOption {
        name: "capture",
        kind: OptionKind::Keyword(Capture::WORDS),
        applies: Preset::is_kalah_family,
        get: |r| OptionValue::of(r.capture),
        set: |r, v| r.capture = v.keyword(),
    },
    RuleOption {
        name: "end",
        kind: OptionKind::Keyword(EndCheck::WORDS),
        applies: Preset::is_kalah_family,
        get: |r| OptionValue::of(r.end),
        set: |r, v| r.end = v.keyword(),
    },
    RuleOption {
        name: "leftovers",
        kind: OptionKind::Keyword(Leftovers::WORDS),
        applies: Preset::is_kalah_family,
        get: |r| OptionValue::of(r.leftovers),
        set: |r, v| r.leftovers = v.keyword(),
    },
    RuleOption {
        name: "stop-when-decided",
        kind: OptionKind::Bool,
        applies: |_| true,
        get: |r| OptionValue::Bool(r.stop_when_decided),
        set: |r, v| r.stop_when_decided = v.flag(),
    },
    RuleOption {
        name: "first-move-extra-turn",
        kind: OptionKind::Bool,
        applies: Preset::takes_opening_rules,
        get: |r| OptionValue::Bool(r.first_move_extra_turn),
        set: |r, v| r.first_move_extra_turn = v.flag(),
    },
    RuleOption {
        name: "pie",
        kind: OptionKind::Bool,
        applies: Preset::takes_opening_rules,
        get: |r| OptionValue::Bool(r.pie),
        set: |r, v| r.pie = v.flag(),
    },
    RuleOption {
        name: "stage",
        kind: OptionKind::Keyword(Stage::WORDS),
        applies: Preset::has_stages,
        get: |r| OptionValue::of(r.stage),
        set: |r, v| r.stage = v.keyword(),
    },
    RuleOption {
        name: "grand-slam",
        kind: OptionKind::Keyword(GrandSlam::WORDS),
        applies: Preset::is_oware_family,
        get: |r| OptionValue::of(r.grand_slam),
        set: |r, v| r.grand_slam = v.keyword(),
    },
    RuleOption {
        name: "repetition",
        kind: OptionKind::Keyword(Repetition::WORDS),
        applies: Preset::is_oware_family,
        get: |r| OptionValue::of(r.repetition),
        set: |r, v| r.repetition = v.keyword(),
    },
];

impl RuleOption {
    /// The option called `name`, or the error that lists the options there are.
    pub fn find(name: &str) -> Result<&'static RuleOption, Error> {
        let name = name.trim();
        OPTIONS.iter().find(|o| o.name == name).ok_or_else(|| {
            Error::Rules(
                Msg::new("error.rules.unknown-option")
                    .arg("name", name)
                    .arg(
                        "options",
                        OPTIONS
                            .iter()
                            .map(|o| o.name)
                            .collect::<Vec<_>>()
                            .join(", "),
                    ),
            )
        })
    }

    /// Where it sits in [`OPTIONS`].
    fn index(&self) -> usize {
        OPTIONS
            .iter()
            .position(|o| o.name == self.name)
            .expect("every option is in OPTIONS")
    }

    /// Its name as menus show it to people (`End of the game`), in `lang`.
    pub fn title(&self, lang: Lang) -> &'static str {
        i18n::text(lang, &format!("option.{}.title", self.name))
    }

    /// One phrase saying what it does, for help texts and menus, in `lang`.
    pub fn help(&self, lang: Lang) -> &'static str {
        i18n::text(lang, &format!("option.{}.help", self.name))
    }

    /// What a word of a keyword option means (`Ends when a row is empty`), in `lang`.
    pub fn label(&self, lang: Lang, word: &str) -> &'static str {
        i18n::text(lang, &format!("option.{}.{word}", self.name))
    }

    /// What a value of this option means, in words people read in `lang`: a number as it is,
    /// `yes`/`no`, a keyword's label.
    pub fn value_text(&self, lang: Lang, value: OptionValue) -> String {
        match value {
            OptionValue::Number(n) => n.to_string(),
            OptionValue::Bool(b) => {
                i18n::text(lang, if b { "rules.yes" } else { "rules.no" }).to_string()
            }
            OptionValue::Word(w) => self.label(lang, w).to_string(),
        }
    }

    /// The values it takes in `preset`: its kind, except that a game whose notation writes
    /// pits as digits (Dracala) has at most 9 pits.
    pub fn kind_for(&self, preset: Preset) -> OptionKind {
        match self.kind {
            OptionKind::Number { min, max } if self.name == "pits" => OptionKind::Number {
                min,
                max: max.min(preset.notation().max_pits()),
            },
            kind => kind,
        }
    }

    /// The values it takes in `preset`, as typed: `1-12`, `true|false`,
    /// `standard|empty|opposite-only`.
    pub fn values_for(&self, preset: Preset) -> String {
        match self.kind_for(preset) {
            OptionKind::Number { min, max } => format!("{min}-{max}"),
            OptionKind::Bool => "true|false".into(),
            OptionKind::Keyword(words) => words.join("|"),
        }
    }

    /// The values it takes in any preset, as typed: `1-12`, `true|false`,
    /// `standard|empty|opposite-only`.
    pub fn values(&self) -> String {
        match self.kind {
            OptionKind::Number { min, max } => format!("{min}-{max}"),
            OptionKind::Bool => "true|false".into(),
            OptionKind::Keyword(words) => words.join("|"),
        }
    }

    /// The presets that take it, in [`Preset::ALL`] order.
    pub fn presets(&self) -> impl Iterator<Item = Preset> + '_ {
        Preset::ALL.into_iter().filter(|&p| (self.applies)(p))
    }

    /// Its value in `rules`.
    pub fn value(&self, rules: &Rules) -> OptionValue {
        (self.get)(rules)
    }

    /// Its value when `preset` is played with its defaults.
    pub fn default(&self, preset: Preset) -> OptionValue {
        self.value(&preset.rules())
    }

    /// Reads a value from its text form, as written in a rules string or on the command line.
    pub fn parse(&self, text: &str) -> Result<OptionValue, Error> {
        let v = text.trim();
        let name = self.name;
        match self.kind {
            OptionKind::Number { .. } => {
                if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(Error::Rules(
                        Msg::new("error.rules.not-number")
                            .arg("name", name)
                            .arg("got", v),
                    ));
                }
                // Too large for a byte: out of every range `validate` allows (said as it says it).
                v.parse::<u8>()
                    .map(OptionValue::Number)
                    .map_err(|_| self.out_of_range(v))
            }
            OptionKind::Bool => match v {
                "" | "true" | "yes" | "on" => Ok(OptionValue::Bool(true)),
                "false" | "no" | "off" => Ok(OptionValue::Bool(false)),
                _ => Err(Error::Rules(
                    Msg::new("error.rules.not-bool")
                        .arg("name", name)
                        .arg("got", v),
                )),
            },
            OptionKind::Keyword(words) => parse_word(name, words, v).map(OptionValue::Word),
        }
    }

    /// A number out of its range, in the same words however it was given (option, rules
    /// string, JSON record).
    fn out_of_range(&self, got: impl fmt::Display) -> Error {
        self.out_of_range_in(self.kind, got)
    }

    /// A number out of `kind`'s range (the option's own, or its range in a preset).
    fn out_of_range_in(&self, kind: OptionKind, got: impl fmt::Display) -> Error {
        let (min, max) = match kind {
            OptionKind::Number { min, max } => (min, max),
            _ => (0, 0),
        };
        Error::Rules(
            Msg::new("error.rules.out-of-range")
                .arg("name", self.name)
                .arg("min", min)
                .arg("max", max)
                .arg("got", got),
        )
    }

    /// Sets it in `rules` to `value`, which is of its kind: read by [`Self::parse`] or from its
    /// JSON form.
    fn apply(&self, rules: &mut Rules, value: OptionValue) {
        (self.set)(rules, value)
    }
}

/// The word of `words` that `text` names (in any case), or the error naming the option as the
/// user wrote it (`--end`, `end=`) and the words it takes.
fn parse_word(
    option: &str,
    words: &'static [&'static str],
    text: &str,
) -> Result<&'static str, Error> {
    let text = text.trim();
    words
        .iter()
        .copied()
        .find(|w| w.eq_ignore_ascii_case(text))
        .ok_or_else(|| {
            Error::Rules(
                Msg::new("error.rules.not-word")
                    .arg("name", option)
                    .sub("words", i18n::one_of(words))
                    .arg("got", text),
            )
        })
}

/// The serde and option-string shape of [`Rules`]: a preset and any of the [`OPTIONS`], each
/// given or not.
///
/// Its JSON form is an object: `preset`, then the options given under their names, in
/// [`OPTIONS`] order, each in the JSON form of its [`OptionKind`]; a `null` option counts as not
/// given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RulesSpec {
    /// The game; a spec without one builds no [`Rules`].
    pub preset: Option<Preset>,
    /// The value given for each option, by its place in [`OPTIONS`].
    values: [Option<OptionValue>; OPTIONS.len()],
}

impl RulesSpec {
    /// A spec of `preset` with no option given.
    pub fn new(preset: Preset) -> RulesSpec {
        RulesSpec {
            preset: Some(preset),
            ..RulesSpec::default()
        }
    }

    /// Sets option `name` from its text form, as written in a rules string or on the command line.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), Error> {
        let option = RuleOption::find(name)?;
        self.values[option.index()] = Some(option.parse(value)?);
        Ok(())
    }

    /// The value given for option `name`, if any.
    pub fn get(&self, name: &str) -> Option<OptionValue> {
        RuleOption::find(name)
            .ok()
            .and_then(|o| self.values[o.index()])
    }

    /// The options given and their values, in [`OPTIONS`] order.
    pub fn given(&self) -> impl Iterator<Item = (&'static RuleOption, OptionValue)> + '_ {
        OPTIONS
            .iter()
            .zip(self.values)
            .filter_map(|(o, v)| Some((o, v?)))
    }
}

impl TryFrom<RulesSpec> for Rules {
    type Error = Error;
    /// The preset's defaults with the options given; refuses an option the preset does not
    /// take and values that do not go together ([`Rules::validate`]).
    fn try_from(spec: RulesSpec) -> Result<Rules, Error> {
        let preset = spec
            .preset
            .ok_or_else(|| Error::Rules(Msg::new("error.rules.no-preset")))?;
        let mut rules = preset.rules();
        for (option, value) in spec.given() {
            if !(option.applies)(preset) {
                return Err(Error::Rules(
                    Msg::new("error.rules.not-applicable")
                        .arg("name", option.name)
                        .arg("preset", preset),
                ));
            }
            option.apply(&mut rules, value);
        }
        rules.validate()?;
        Ok(rules)
    }
}

impl From<Rules> for RulesSpec {
    /// Every option the preset takes, and any other that differs from its default (which
    /// [`Rules::try_from`] then refuses rather than drops).
    fn from(r: Rules) -> RulesSpec {
        let d = r.preset.rules();
        let mut spec = RulesSpec::new(r.preset);
        for (slot, option) in spec.values.iter_mut().zip(OPTIONS) {
            let v = option.value(&r);
            if (option.applies)(r.preset) || v != option.value(&d) {
                *slot = Some(v);
            }
        }
        spec
    }
}

impl Serialize for RulesSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("preset", &self.preset)?;
        for (option, value) in self.given() {
            map.serialize_entry(option.name, &value)?;
        }
        map.end()
    }
}

/// The keys a JSON rules object may hold, for serde's "unknown field" message.
static FIELDS: [&str; OPTIONS.len() + 1] = {
    let mut f = ["preset"; OPTIONS.len() + 1];
    let mut i = 0;
    while i < OPTIONS.len() {
        f[i + 1] = OPTIONS[i].name;
        i += 1;
    }
    f
};

/// Reads one option's JSON value as its kind says; `null` is not given.
struct JsonValue(&'static RuleOption);

impl<'de> serde::de::DeserializeSeed<'de> for JsonValue {
    type Value = Option<OptionValue>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        use serde::de::Error as _;
        let option = self.0;
        Ok(match option.kind {
            OptionKind::Number { .. } => match Option::<Whole>::deserialize(d)? {
                Some(Whole(v)) => Some(OptionValue::Number(
                    u8::try_from(v).map_err(|_| D::Error::custom(option.out_of_range(v)))?,
                )),
                None => None,
            },
            OptionKind::Bool => Option::<bool>::deserialize(d)?.map(OptionValue::Bool),
            OptionKind::Keyword(_) => match Option::<String>::deserialize(d)? {
                Some(s) => Some(option.parse(&s).map_err(D::Error::custom)?),
                None => None,
            },
        })
    }
}

impl<'de> Deserialize<'de> for RulesSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = RulesSpec;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("rules: an object with a preset and its options")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<RulesSpec, A::Error> {
                use serde::de::Error as _;
                let mut spec = RulesSpec::default();
                let mut seen = [false; OPTIONS.len() + 1];
                while let Some(key) = map.next_key::<String>()? {
                    let Some(at) = FIELDS.iter().position(|f| *f == key) else {
                        return Err(A::Error::unknown_field(&key, &FIELDS));
                    };
                    if core::mem::replace(&mut seen[at], true) {
                        return Err(A::Error::duplicate_field(FIELDS[at]));
                    }
                    match at {
                        0 => spec.preset = map.next_value()?,
                        _ => {
                            spec.values[at - 1] =
                                map.next_value_seed(JsonValue(&OPTIONS[at - 1]))?
                        }
                    }
                }
                Ok(spec)
            }
        }
        d.deserialize_map(V)
    }
}

impl Default for Rules {
    fn default() -> Self {
        Preset::Kalah.rules()
    }
}

impl Rules {
    /// Checks the option values against each other; every constructor calls it.
    pub fn validate(&self) -> Result<(), Error> {
        for option in OPTIONS {
            let kind = option.kind_for(self.preset);
            if let (OptionKind::Number { min, max }, OptionValue::Number(n)) =
                (kind, option.value(self))
            {
                if !(min..=max).contains(&n) {
                    return Err(option.out_of_range_in(kind, n));
                }
            }
        }
        if self.total_seeds() > self.preset.max_total_seeds() {
            return Err(Error::Rules(
                Msg::new("error.rules.too-many-seeds")
                    .arg("game", self.preset.name())
                    .arg("pits", self.pits)
                    .arg("seeds", self.seeds)
                    .arg("total", self.total_seeds())
                    .arg("max", self.preset.max_total_seeds()),
            ));
        }
        Ok(())
    }

    /// Seeds in the start position of pit `i` (0-based from the owner's left).
    pub fn start_seeds(&self, i: usize) -> u8 {
        let m = self.pits as usize;
        let central = if m.is_multiple_of(2) {
            i + 1 == m / 2 || i == m / 2
        } else {
            i == m / 2
        };
        self.seeds + u8::from(self.preset.entry().central_extra_seed && central)
    }

    /// All seeds in play (both rows at the start). Kauri's cowries are not seeds.
    pub fn total_seeds(&self) -> u32 {
        (0..self.pits as usize)
            .map(|i| self.start_seeds(i) as u32 * 2)
            .sum()
    }

    /// The game has cowries besides seeds (Kauri): displays show both in each pit.
    pub fn has_cowries(&self) -> bool {
        self.preset.entry().cowries
    }

    /// Fewer seeds wins (Dracala).
    pub fn misere(&self) -> bool {
        self.preset.entry().misere
    }

    /// Kalah family: a last seed in the mover's own store gives him another move; false in a
    /// staged game's basic stage (`kalah-brazil`).
    pub fn extra_turns(&self) -> bool {
        self.preset.entry().extra_turns && (!self.preset.has_stages() || self.stage != Stage::Basic)
    }

    /// Kalah family: a last seed in an own empty pit captures (see [`Rules::capture`]); false in
    /// a staged game before its full stage (`kalah-brazil`).
    pub fn captures(&self) -> bool {
        !self.preset.has_stages() || self.stage == Stage::Full
    }

    /// Cross-Kalah, Kauri and Oware can repeat positions (docs/rules.md).
    pub fn can_repeat(&self) -> bool {
        self.repeat_ends_at().is_some()
    }

    /// The occurrence of a position that ends the game: the third in Cross-Kalah and Kauri
    /// (a draw), the second in Oware ([`Repetition`] shares the seeds left); `None` where
    /// positions cannot repeat.
    pub fn repeat_ends_at(&self) -> Option<usize> {
        self.preset.entry().repeat_ends_at
    }

    /// The options that differ from the preset's defaults, as `(name, value)`.
    pub fn changed_options(&self) -> Vec<(&'static str, String)> {
        let d = self.preset.rules();
        OPTIONS
            .iter()
            .filter(|o| o.value(self) != o.value(&d))
            .map(|o| (o.name, o.value(self).to_string()))
            .collect()
    }

    /// Why a pit holding pieces may not be sown, where these rules forbid some (Dracala's
    /// compulsory capture, Kauri's cowries, Oware's feeding and grand slam); `None` where any
    /// non-empty pit may be sown.
    pub fn move_restriction(&self) -> Option<&'static str> {
        self.move_restriction_in(Lang::En)
    }

    /// [`Rules::move_restriction`] in `lang`.
    pub fn move_restriction_in(&self, lang: Lang) -> Option<&'static str> {
        let key = self.preset.entry().restriction?;
        Some(i18n::text(lang, key))
    }

    /// The game's name and its options that differ from the preset's, in words people read:
    /// `Kalah · Seeds a pit: 4 · End of the game: Ends when the player to move has no seeds`.
    pub fn title(&self) -> String {
        self.title_in(Lang::En)
    }

    /// [`Rules::title`] in `lang`.
    pub fn title_in(&self, lang: Lang) -> String {
        let d = self.preset.rules();
        let mut t = self.preset.title_in(lang).to_string();
        for o in OPTIONS.iter().filter(|o| o.value(self) != o.value(&d)) {
            t += &format!(
                " · {}: {}",
                o.title(lang),
                o.value_text(lang, o.value(self))
            );
        }
        t
    }

    /// The rules in plain English, generated from the option values (`mancala rules`).
    pub fn describe(&self) -> String {
        self.describe_in(Lang::En)
    }

    /// The rules in `lang`, generated from the option values: one paragraph a subject (board,
    /// move, captures, end, notation), each sentence a key of the translation files.
    pub fn describe_in(&self, lang: Lang) -> String {
        let s = |key: &str| i18n::text(lang, key);
        let f = |key: &str, args: &[(&str, &dyn fmt::Display)]| i18n::format(lang, key, args);
        let m = self.pits;
        // The notation's pit names, as ranges for this board: `A-F`, `a-f`, `1-6`.
        let range = |first: u8| match m {
            1 => (first as char).to_string(),
            _ => format!("{}-{}", first as char, (first + m - 1) as char),
        };
        let (upper, lower, digits) = (range(b'A'), range(b'a'), range(b'1'));
        let ranges: [(&str, &dyn fmt::Display); 3] =
            [("upper", &upper), ("lower", &lower), ("digits", &digits)];
        let total = self.total_seeds();
        let needed = total / 2 + 1;
        let start: Vec<String> = (0..m as usize)
            .map(|i| self.start_seeds(i).to_string())
            .collect();
        // Paragraphs of sentences, joined by a space within and a blank line between.
        let mut paras: Vec<Vec<String>> = vec![vec![f(
            "rules.head",
            &[("rules", self), ("summary", &self.preset.summary_in(lang))],
        )]];
        let mut para =
            |sentences: &[&str]| paras.push(sentences.iter().map(|x| x.to_string()).collect());
        if self.preset.family() == GameFamily::Oware {
            para(&[&f(
                "rules.oware.board",
                &[("pits", &m), ("seeds", &self.seeds), ("total", &total)],
            )]);
            para(&[s("rules.oware.move")]);
            para(&[
                s("rules.oware.capture"),
                s(&format!("rules.oware.{}", self.grand_slam)),
            ]);
            let end = if self.stop_when_decided {
                f(
                    "rules.oware.end-decided",
                    &[("needed", &needed), ("total", &total)],
                )
            } else {
                s("rules.oware.end").to_string()
            };
            para(&[
                &end,
                s(&format!("rules.oware.{}", self.repetition)),
                s("rules.oware.more-wins"),
            ]);
            para(&[&f("rules.oware.notation", &ranges)]);
        } else if self.preset.family() == GameFamily::Kauri {
            para(&[&f(
                "rules.kauri.board",
                &[
                    ("pits", &m),
                    ("seeds", &self.seeds),
                    ("total", &total),
                    ("cowries", &(2 * m)),
                ],
            )]);
            para(&[s("rules.kauri.move")]);
            para(&[s("rules.kauri.capture")]);
            let decided = f(
                "rules.kauri.decided",
                &[("needed", &needed), ("total", &total)],
            );
            let mut end = vec![s("rules.kauri.end")];
            if self.stop_when_decided {
                end.push(&decided);
            }
            end.push(s("rules.kauri.tie"));
            para(&end);
            para(&[&f("rules.kauri.notation", &ranges)]);
        } else {
            let board = f(
                "rules.board",
                &[("pits", &m), ("start", &start.join(" ")), ("total", &total)],
            );
            para(&[&board]);
            let sow = if self.preset.odd_sows_clockwise() {
                "rules.move.cross"
            } else {
                "rules.move"
            };
            para(&[s(sow), s("rules.move.origin")]);
            if self.extra_turns() {
                if self.first_move_extra_turn {
                    para(&[s("rules.extra")]);
                } else {
                    para(&[s("rules.extra"), s("rules.extra.first")]);
                }
            } else {
                para(&[s("rules.extra.none")]);
            }
            if self.captures() {
                para(&[
                    s(&format!("rules.capture.{}", self.capture)),
                    s("rules.capture.no-extra"),
                ]);
            } else {
                para(&[s("rules.capture.none")]);
            }
            if self.pie {
                para(&[s("rules.pie")]);
            }
            if self.preset.compulsory_capture() {
                para(&[s("rules.dracala")]);
            }
            let decided = f(
                "rules.end.decided",
                &[("needed", &needed), ("total", &total)],
            );
            let mut end = vec![s(&format!("rules.end.{}", self.end))];
            if self.stop_when_decided {
                end.push(&decided);
            }
            end.push(s(&format!("rules.leftovers.{}", self.leftovers)));
            end.push(s(if self.misere() {
                "rules.misere"
            } else {
                "rules.more-wins"
            }));
            para(&end);
            if self.can_repeat() {
                para(&[s("rules.repetition.cross")]);
            }
            let key = if self.preset.notation() == Notation::Digits {
                "rules.notation.dracala"
            } else {
                "rules.notation"
            };
            para(&[&f(key, &ranges)]);
        }
        let mut t = paras
            .iter()
            .map(|p| p.join(" "))
            .collect::<Vec<_>>()
            .join("\n\n");
        t.push('\n');
        t
    }
}

impl fmt::Display for Rules {
    /// `kalah` or `kalah,seeds=4,capture=empty`: the preset and the options that differ.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.preset.name())?;
        for (k, v) in self.changed_options() {
            write!(f, ",{k}={v}")?;
        }
        Ok(())
    }
}

impl FromStr for Rules {
    type Err = Error;
    /// Parses `PRESET[,OPTION=VALUE]...`.
    fn from_str(s: &str) -> Result<Rules, Error> {
        let mut parts = s.split(',');
        let preset: Preset = parts.next().unwrap_or("").parse()?;
        let mut spec = RulesSpec::new(preset);
        let mut seen: Vec<&str> = Vec::new();
        for part in parts {
            let (k, v) = part.split_once('=').unwrap_or((part, ""));
            if seen.contains(&k.trim()) {
                return Err(Error::Rules(
                    Msg::new("error.rules.twice").arg("name", k.trim()),
                ));
            }
            seen.push(k.trim());
            spec.set(k, v)?;
        }
        Rules::try_from(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_names_the_game_and_its_changed_options() {
        let r: Rules = "kalah,seeds=4,end=mover-empty".parse().unwrap();
        assert_eq!(
            r.title(),
            "Kalah · Seeds a pit: 4 · End of the game: Ends when the player to move has no seeds"
        );
        assert_eq!(
            Preset::KalahBrazil.rules().title(),
            "Brazilian classroom Kalah"
        );
    }

    #[test]
    fn restricted_moves_have_a_reason() {
        assert!(Preset::Dracala
            .rules()
            .move_restriction()
            .unwrap()
            .starts_with("capture is compulsory"));
        assert_eq!(Preset::Kalah.rules().move_restriction(), None);
    }

    #[test]
    fn every_keyword_has_words_people_read() {
        // A key missing from every translation file comes back as the key itself.
        for lang in Lang::ALL {
            for o in OPTIONS {
                if let OptionKind::Keyword(words) = o.kind {
                    for w in words {
                        assert!(
                            !o.label(lang, w).starts_with("option."),
                            "{lang} {} {w}",
                            o.name
                        );
                    }
                }
                assert!(!o.title(lang).starts_with("option."), "{lang} {}", o.name);
                assert!(!o.help(lang).starts_with("option."), "{lang} {}", o.name);
            }
            for p in Preset::ALL {
                assert!(!p.title_in(lang).starts_with("preset."), "{lang} {p}");
                assert!(!p.summary_in(lang).starts_with("preset."), "{lang} {p}");
            }
        }
        let end = RuleOption::find("end").unwrap();
        assert_eq!(
            end.label(Lang::En, "any-row-empty"),
            "Ends when a row is empty"
        );
        assert_eq!(
            end.label(Lang::Pt, "any-row-empty"),
            "Termina quando uma fileira fica vazia"
        );
    }

    /// Every language's rules text is whole: each paragraph is translated (none is the
    /// English one), none names a key, and each says the same numbers as the English one.
    #[test]
    fn rules_text_is_complete_in_every_language() {
        let mut cases: Vec<Rules> = Preset::ALL.iter().map(|p| p.rules()).collect();
        for s in [
            "kalah,capture=empty,leftovers=last-capturer,pie=true,first-move-extra-turn=false",
            "kalah,capture=opposite-only,end=mover-empty,leftovers=not-counted,stop-when-decided=true",
            "kalah-brazil,stage=basic",
            "kalah-brazil,stage=extra-turn",
            "oware,grand-slam=forbidden,repetition=split,stop-when-decided=false",
            "oware,grand-slam=capture-all",
            "kauri,stop-when-decided=false",
        ] {
            cases.push(s.parse().unwrap());
        }
        let digits = |t: &str| {
            t.split(|c: char| !c.is_ascii_digit())
                .filter(|d| !d.is_empty())
                .map(String::from)
                .collect::<Vec<_>>()
        };
        for r in cases {
            let en = r.describe_in(Lang::En);
            assert_eq!(en, r.describe(), "{r}");
            let en_paras: Vec<&str> = en.split("\n\n").collect();
            for lang in &Lang::ALL[1..] {
                let t = r.describe_in(*lang);
                let paras: Vec<&str> = t.split("\n\n").collect();
                assert_eq!(paras.len(), en_paras.len(), "{lang} {r}");
                for (p, e) in paras.iter().zip(&en_paras) {
                    assert_ne!(p, e, "{lang} {r}: a paragraph left in English");
                    assert!(
                        !p.contains("rules.") && !p.contains("preset."),
                        "{lang} {r}: {p}"
                    );
                    assert_eq!(digits(p), digits(e), "{lang} {r}: other numbers in {p}");
                }
                if !r.changed_options().is_empty() {
                    assert_ne!(r.title_in(*lang), r.title(), "{lang} {r}");
                }
            }
        }
    }

    #[test]
    fn the_notation_names_the_pits_of_the_board() {
        for (spec, names) in [
            ("vaccean", "South's pits A-D, North's a-d"),
            ("kalah,pits=8", "South's pits A-H, North's a-h"),
            ("kalah,pits=1,seeds=2", "South's pits A, North's a,"),
            ("dracala,pits=5", "digits 1-5 from"),
            ("kalah", "South's pits A-F, North's a-f"),
        ] {
            let r: Rules = spec.parse().unwrap();
            assert!(r.describe().contains(names), "{spec}: {}", r.describe());
        }
        let r: Rules = "vaccean".parse().unwrap();
        assert!(
            r.describe_in(Lang::Pt).contains("Sul A-D"),
            "{}",
            r.describe_in(Lang::Pt)
        );
    }

    #[test]
    fn presets_have_names_people_read_and_true_summaries() {
        let titles: Vec<&str> = Preset::ALL.iter().map(|p| p.title()).collect();
        assert_eq!(
            titles,
            [
                "Kalah",
                "Brazilian classroom Kalah",
                "Vaccean mancala",
                "Cross-Kalah",
                "Dracala",
                "Kauri",
                "Oware (Abapa)"
            ]
        );
        // Cross-Kalah's direction is the parity of the seed count, not of the pit.
        assert!(Preset::CrossKalah
            .summary()
            .contains("a pit holding an odd number of seeds sows clockwise"));
    }

    #[test]
    fn rules_strings_round_trip() {
        for p in Preset::ALL {
            let r = p.rules();
            assert_eq!(r.to_string(), p.name());
            assert_eq!(r.to_string().parse::<Rules>().unwrap(), r);
        }
        let r: Rules = "kalah,seeds=4,capture=empty".parse().unwrap();
        assert_eq!(r.seeds, 4);
        assert_eq!(r.capture, Capture::Empty);
        assert_eq!(r.to_string(), "kalah,seeds=4,capture=empty");
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<Rules>(&json).unwrap(), r);
        let short: Rules = serde_json::from_str(r#"{"preset":"kalah","seeds":4}"#).unwrap();
        assert_eq!(short.seeds, 4);
    }

    /// The JSON form: numbers as numbers, booleans as booleans, in the registry's order, only
    /// the options the preset takes.
    #[test]
    fn json_shape() {
        let to_json = |r: Rules| serde_json::to_string(&r).unwrap();
        assert_eq!(
            to_json(Preset::Kalah.rules()),
            r#"{"preset":"kalah","pits":6,"seeds":3,"capture":"standard","end":"any-row-empty","leftovers":"to-owner","stop-when-decided":false,"first-move-extra-turn":true,"pie":false}"#
        );
        assert_eq!(
            to_json(Preset::Kauri.rules()),
            r#"{"preset":"kauri","pits":6,"seeds":5,"stop-when-decided":true}"#
        );
        assert!(to_json(Preset::KalahBrazil.rules()).ends_with(
            r#""stop-when-decided":false,"first-move-extra-turn":true,"pie":false,"stage":"full"}"#
        ));
        // `null` is not given; unknown and repeated keys are refused in serde's words.
        let r: Rules = serde_json::from_str(r#"{"preset":"kalah","seeds":null}"#).unwrap();
        assert_eq!(r, Preset::Kalah.rules());
        let e = serde_json::from_str::<Rules>(r#"{"preset":"kalah","colour":"red"}"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("unknown field `colour`, expected one of `preset`, `pits`"),
            "{e}"
        );
        let e = serde_json::from_str::<Rules>(r#"{"preset":"kalah","seeds":4,"seeds":5}"#)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("duplicate field `seeds`"), "{e}");
        let e = serde_json::from_str::<Rules>(r#"{"preset":"kauri","capture":"empty"}"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("rules: option `capture` does not apply to `kauri`"),
            "{e}"
        );
        let e = serde_json::from_str::<Rules>(r#"{"preset":"kalah","stop-when-decided":"yes"}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("expected a boolean"), "{e}");
    }

    /// Every option reads back the text it was set from, for every value of its kind.
    #[test]
    fn every_option_round_trips_through_its_text() {
        for o in OPTIONS {
            let texts: Vec<String> = match o.kind {
                OptionKind::Number { min, max } => (min..=max).map(|n| n.to_string()).collect(),
                OptionKind::Bool => vec!["true".into(), "false".into()],
                OptionKind::Keyword(words) => words.iter().map(|w| w.to_string()).collect(),
            };
            let preset = o.presets().next().unwrap();
            for text in texts {
                let mut spec = RulesSpec::new(preset);
                spec.set(o.name, &text).unwrap();
                let Ok(r) = Rules::try_from(spec) else {
                    continue; // too many seeds in all
                };
                assert_eq!(o.value(&r).to_string(), text, "{}", o.name);
                assert_eq!(r.to_string().parse::<Rules>().unwrap(), r);
            }
        }
        let e = "kalah,colour=red".parse::<Rules>().unwrap_err().to_string();
        assert_eq!(
            e,
            "rules: unknown option `colour` (options: pits, seeds, capture, end, leftovers, stop-when-decided, first-move-extra-turn, pie, stage, grand-slam, repetition)"
        );
        let e = "kalah,stop-when-decided=maybe"
            .parse::<Rules>()
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "rules: option `stop-when-decided` is true or false, got `maybe`"
        );
    }

    /// A message quoting a long input is cut, saying how much it left out.
    #[test]
    fn long_inputs_are_not_echoed_whole() {
        let name = "x".repeat(100_000);
        let e = name.parse::<Rules>().unwrap_err().to_string();
        assert!(e.len() < 600, "{} characters", e.len());
        assert!(e.starts_with("rules: unknown preset `xxx"), "{e}");
        assert!(e.ends_with("more characters)"), "{e}");
    }

    #[test]
    fn numbers_too_large_say_so_with_the_range() {
        // As a value a byte holds but `validate` refuses is worded.
        let e = "kalah,seeds=64".parse::<Rules>().unwrap_err().to_string();
        assert!(e.contains("seeds must be 1 to 20, got 64"), "{e}");
        let e = "kalah,seeds=300".parse::<Rules>().unwrap_err().to_string();
        assert!(e.contains("seeds must be 1 to 20, got 300"), "{e}");
        let e = "kalah,pits=99999999999"
            .parse::<Rules>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("pits must be 1 to 12, got 99999999999"), "{e}");
        let e = "kalah,seeds=x".parse::<Rules>().unwrap_err().to_string();
        assert!(e.contains("option `seeds` needs a number, got `x`"), "{e}");
    }

    /// A keyword option's error names the option as written (`--end`, `end=`) and its values.
    #[test]
    fn keyword_errors_name_the_option() {
        for (rules, msg) in [
            (
                "kalah,end=X",
                "rules: option `end` is any-row-empty or mover-empty, got `X`",
            ),
            (
                "kalah,capture=all",
                "rules: option `capture` is standard, empty or opposite-only, got `all`",
            ),
            (
                "kalah,leftovers=x",
                "rules: option `leftovers` is to-owner, not-counted, last-mover or last-capturer, got `x`",
            ),
            (
                "kalah-brazil,stage=x",
                "rules: option `stage` is basic, extra-turn or full, got `x`",
            ),
        ] {
            assert_eq!(rules.parse::<Rules>().unwrap_err().to_string(), msg);
        }
    }

    #[test]
    fn bad_rules_are_refused() {
        assert!("chess".parse::<Rules>().is_err());
        assert!("kalah,seeds=0".parse::<Rules>().is_err());
        assert!("kalah,pits=13".parse::<Rules>().is_err());
        let e = "dracala,pits=10".parse::<Rules>().unwrap_err().to_string();
        assert_eq!(e, "rules: pits must be 1 to 9, got 10");
        assert!("kalah,pits=12,seeds=10".parse::<Rules>().is_ok());
        assert!("kalah,capture=maybe".parse::<Rules>().is_err());
        assert!("kauri,capture=empty".parse::<Rules>().is_err());
        assert!("kalah,stage=basic".parse::<Rules>().is_err());
        assert!("kalah,colour=red".parse::<Rules>().is_err());
        assert!(serde_json::from_str::<Rules>(r#"{"preset":"kalah","seeds":0}"#).is_err());
    }

    /// The preset table is in declaration order, so a preset finds its entry by its number.
    #[test]
    fn presets_are_in_declaration_order() {
        for (i, p) in Preset::ALL.into_iter().enumerate() {
            assert_eq!(p as usize, i);
            assert_eq!(p.rules().preset, p);
            assert_eq!(p.name().parse::<Preset>().unwrap(), p);
        }
    }

    #[test]
    fn brazil_start_has_four_in_the_centre() {
        let r = Preset::KalahBrazil.rules();
        let row: Vec<u8> = (0..6).map(|i| r.start_seeds(i)).collect();
        assert_eq!(row, [3, 3, 4, 4, 3, 3]);
        assert_eq!(r.total_seeds(), 40);
        assert_eq!(Preset::Kalah.rules().total_seeds(), 36);
        assert_eq!(Preset::Dracala.rules().total_seeds(), 72);
        assert_eq!(Preset::Vaccean.rules().total_seeds(), 40);
    }
}
