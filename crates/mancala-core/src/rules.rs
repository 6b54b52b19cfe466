//! The rules of every game as data: a [`Rules`] value names a preset and its options.
//!
//! Presets and their defaults follow `design.md` section 3 and the source pages in
//! `shared/sources/` (Italian Kalah page for `kalah` and `cross-kalah`, the Brazilian classroom
//! page for `kalah-brazil`, the Spanish page for `vaccean`, Ralf Gering's pages for `dracala`
//! and `kauri`). Help text, option menus and records are generated from this module, so the
//! text a user reads can never disagree with the engine.

use core::fmt;
use core::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::notation::Notation;
use crate::Error;

/// Most pits a side any preset may be played with.
pub const MAX_PITS: usize = 8;
/// Most seeds a position may hold in all (stores are `u8`).
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

/// One preset: its name, its summary line and its rules with every option at its default.
struct PresetEntry {
    name: &'static str,
    /// The name people read in menus and titles.
    title: &'static str,
    summary: &'static str,
    /// How its records write moves.
    notation: Notation,
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
/// its variant, its entry here and the code that plays it.
const PRESETS: &[PresetEntry] = &[
    PresetEntry {
        name: "kalah",
        title: "Kalah",
        summary: "Kalah (Italian Kalah page, source 004; 3 seeds a pit by default)",
        notation: Notation::Letters,
        defaults: BASE,
    },
    PresetEntry {
        name: "kalah-brazil",
        title: "Brazilian classroom Kalah",
        summary: "Kalah as taught in Brazilian classrooms, one more seed in the central pits, staged rules (source 002)",
        notation: Notation::Letters,
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
        title: "Vaccean mancala",
        summary: "the Vaccean-inspired mancala, 4 x 2 with 5 seeds a pit by default (source 001)",
        notation: Notation::Letters,
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
        title: "Cross-Kalah",
        summary: "Cross-Kalah: a pit holding an odd number of seeds sows clockwise, an even number counter-clockwise (source 004)",
        notation: Notation::Letters,
        defaults: Rules {
            preset: Preset::CrossKalah,
            seeds: 6,
            ..BASE
        },
    },
    PresetEntry {
        name: "dracala",
        title: "Dracala",
        summary: "Dracala: compulsory maximum capture, misere, last mover takes all (source 000)",
        notation: Notation::Digits,
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
        title: "Kauri",
        summary: "Kauri: seeds and cowries, direct and indirect captures (source 003)",
        notation: Notation::Kauri,
        defaults: Rules {
            preset: Preset::Kauri,
            seeds: 5,
            stop_when_decided: true,
            ..BASE
        },
    },
    PresetEntry {
        name: "oware",
        title: "Oware (Abapa)",
        summary: "Oware (Abapa): captures of 2s and 3s in the opponent's row, must-feed, 25 seeds win",
        notation: Notation::Letters,
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
        self.entry().title
    }

    /// One line: what the game is and where its rules come from.
    pub fn summary(self) -> &'static str {
        self.entry().summary
    }

    /// The notation its records use.
    pub fn notation(self) -> Notation {
        self.entry().notation
    }

    /// Whether it is played by the Kalah rules engine ([`crate::kalah`]).
    pub fn is_kalah_family(self) -> bool {
        !matches!(self, Preset::Kauri | Preset::Oware)
    }

    /// Whether it takes the opening rules `first-move-extra-turn` and `pie`: the Kalah-family
    /// presets whose positions cannot repeat and that have no opening rule of their own (not
    /// Cross-Kalah, whose retrograde solver works store level by store level, which a swap
    /// would cross; not Dracala, whose first move has its own exception).
    pub fn takes_opening_rules(self) -> bool {
        matches!(self, Preset::Kalah | Preset::KalahBrazil | Preset::Vaccean)
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
                Error::Rules(format!(
                    "unknown preset `{s}` (expected one of: {})",
                    Preset::ALL.map(Preset::name).join(", ")
                ))
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

/// A byte-sized count of a JSON input, or the error `fault` words for the number given.
pub(crate) fn json_byte<'de, D: serde::Deserializer<'de>>(
    d: D,
    fault: impl Fn(i128) -> String,
) -> Result<u8, D::Error> {
    let Whole(v) = Whole::deserialize(d)?;
    u8::try_from(v).map_err(|_| serde::de::Error::custom(fault(v)))
}

/// `a`, `a or b`, `a, b or c`: the values an option takes, in its error.
fn one_of(values: &[&str]) -> String {
    match values {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

macro_rules! keyword_enum {
    ($(#[$m:meta])* $name:ident ($option:literal) { $($(#[$vm:meta])* $variant:ident = $text:literal => $label:literal),+ $(,)? }) => {
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
            /// What each value of [`Self::ALL`] means, for menus people read.
            pub const LABELS: &'static [&'static str] = &[$($label),+];
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
    /// What a last seed landing in an own empty pit does (design.md 3.1).
    Capture ("capture") {
        /// The last seed and the opposite seeds go to the store, if the opposite pit holds seeds.
        Standard = "standard" => "The last seed and the opposite seeds",
        /// As standard, but the last seed goes to the store even when the opposite pit is empty.
        Empty = "empty" => "The last seed, even facing an empty pit",
        /// Only the opposite seeds go to the store; the capturing seed stays.
        OppositeOnly = "opposite-only" => "The opposite seeds only",
    }
);

impl Capture {
    /// Seeds this rule takes to the mover's store when the last seed lands alone in an own pit
    /// facing `opposite` seeds; 0 when nothing is captured.
    #[inline]
    pub fn taken(self, opposite: u8) -> u8 {
        match self {
            Capture::Standard if opposite > 0 => opposite + 1,
            Capture::Empty => opposite + 1,
            Capture::OppositeOnly if opposite > 0 => opposite,
            _ => 0,
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
        AnyRowEmpty = "any-row-empty" => "Ends when a row is empty",
        /// When the player to move has no seeds in his row.
        MoverEmpty = "mover-empty" => "Ends when the player to move has no seeds",
    }
);

keyword_enum!(
    /// Where the seeds still on the board go when the game ends.
    Leftovers ("leftovers") {
        /// Each row to its owner's store.
        ToOwner = "to-owner" => "Each row to its owner",
        /// Nobody scores them.
        NotCounted = "not-counted" => "Nobody",
        /// All to the player who made the last move.
        LastMover = "last-mover" => "The player who moved last",
        /// All to the player who last grew his store during a move (nobody yet: to their owners).
        LastCapturer = "last-capturer" => "The player who captured last",
    }
);

keyword_enum!(
    /// Teaching stage of `kalah-brazil` (source 002: rules 1-5, then 6, then 7).
    Stage ("stage") {
        /// Rules 1-5: sowing only, no extra turn, no capture.
        Basic = "basic" => "Sowing only",
        /// Rule 6 added: last seed in the own store plays again.
        ExtraTurn = "extra-turn" => "Sowing and extra turns",
        /// Rule 7 added: capture.
        Full = "full" => "Sowing, extra turns and captures",
    }
);

keyword_enum!(
    /// Oware: what a capture that would take every seed of the opponent's row does.
    GrandSlam ("grand-slam") {
        /// The move is played and captures nothing (Abapa).
        CaptureNothing = "capture-nothing" => "Played, captures nothing",
        /// The move is illegal while another move exists (then it captures nothing).
        Forbidden = "forbidden" => "Not allowed while another move exists",
        /// The move captures as any other.
        CaptureAll = "capture-all" => "Captures every seed",
    }
);

keyword_enum!(
    /// Oware: who takes the seeds left when a position occurs a second time, which ends the
    /// game.
    Repetition ("repetition") {
        /// Each player takes the seeds in his row.
        OwnRow = "own-row" => "Each player takes his row",
        /// The seeds left are shared equally (an odd seed counts for nobody): a repetition
        /// changes nothing between the players, as in computer Awari.
        Split = "split" => "Shared equally",
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
    /// Its name as menus show it to people (`End of the game`).
    pub title: &'static str,
    /// One phrase saying what it does, for help texts and menus.
    pub help: &'static str,
    /// Of a keyword option, what each word means, in the order of its words (`Ends when a
    /// row is empty`); empty for other kinds.
    pub labels: &'static [&'static str],
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
        title: "Pits a side",
        labels: &[],
        help: "pits a side",
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
        title: "Seeds a pit",
        labels: &[],
        help: "seeds a pit at the start (at most 240 seeds in all)",
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
        title: "What a last seed in an own empty pit captures",
        labels: Capture::LABELS,
        help: "what a last seed in an own empty pit captures",
        kind: OptionKind::Keyword(Capture::WORDS),
        applies: Preset::is_kalah_family,
        get: |r| OptionValue::of(r.capture),
        set: |r, v| r.capture = v.keyword(),
    },
    RuleOption {
        name: "end",
        title: "End of the game",
        labels: EndCheck::LABELS,
        help: "when the game ends",
        kind: OptionKind::Keyword(EndCheck::WORDS),
        applies: Preset::is_kalah_family,
        get: |r| OptionValue::of(r.end),
        set: |r, v| r.end = v.keyword(),
    },
    RuleOption {
        name: "leftovers",
        title: "Seeds left on the board at the end go to",
        labels: Leftovers::LABELS,
        help: "who scores the seeds left on the board at the end",
        kind: OptionKind::Keyword(Leftovers::WORDS),
        applies: Preset::is_kalah_family,
        get: |r| OptionValue::of(r.leftovers),
        set: |r, v| r.leftovers = v.keyword(),
    },
    RuleOption {
        name: "stop-when-decided",
        title: "End as soon as the result is decided",
        labels: &[],
        help: "end as soon as a store holds more than half of all seeds",
        kind: OptionKind::Bool,
        applies: |_| true,
        get: |r| OptionValue::Bool(r.stop_when_decided),
        set: |r, v| r.stop_when_decided = v.flag(),
    },
    RuleOption {
        name: "first-move-extra-turn",
        title: "The first move may earn an extra turn",
        labels: &[],
        help: "the first player's very first move may earn an extra turn",
        kind: OptionKind::Bool,
        applies: Preset::takes_opening_rules,
        get: |r| OptionValue::Bool(r.first_move_extra_turn),
        set: |r, v| r.first_move_extra_turn = v.flag(),
    },
    RuleOption {
        name: "pie",
        title: "Pie rule: the second player may swap instead of moving",
        labels: &[],
        help: "the second player may swap seats instead of his first move",
        kind: OptionKind::Bool,
        applies: Preset::takes_opening_rules,
        get: |r| OptionValue::Bool(r.pie),
        set: |r, v| r.pie = v.flag(),
    },
    RuleOption {
        name: "stage",
        title: "Teaching stage",
        labels: Stage::LABELS,
        help: "teaching stage: sowing only, then extra turns, then captures",
        kind: OptionKind::Keyword(Stage::WORDS),
        applies: |p| p == Preset::KalahBrazil,
        get: |r| OptionValue::of(r.stage),
        set: |r, v| r.stage = v.keyword(),
    },
    RuleOption {
        name: "grand-slam",
        title: "A capture of the whole opposing row (grand slam)",
        labels: GrandSlam::LABELS,
        help: "what a capture of every seed in the opponent's row does",
        kind: OptionKind::Keyword(GrandSlam::WORDS),
        applies: |p| p == Preset::Oware,
        get: |r| OptionValue::of(r.grand_slam),
        set: |r, v| r.grand_slam = v.keyword(),
    },
    RuleOption {
        name: "repetition",
        title: "When a position repeats, the seeds left go to",
        labels: Repetition::LABELS,
        help: "who takes the seeds left when a position repeats",
        kind: OptionKind::Keyword(Repetition::WORDS),
        applies: |p| p == Preset::Oware,
        get: |r| OptionValue::of(r.repetition),
        set: |r, v| r.repetition = v.keyword(),
    },
];

impl RuleOption {
    /// The option called `name`, or the error that lists the options there are.
    pub fn find(name: &str) -> Result<&'static RuleOption, Error> {
        let name = name.trim();
        OPTIONS.iter().find(|o| o.name == name).ok_or_else(|| {
            Error::Rules(format!(
                "unknown option `{name}` (options: {})",
                OPTIONS
                    .iter()
                    .map(|o| o.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
    }

    /// Where it sits in [`OPTIONS`].
    fn index(&self) -> usize {
        OPTIONS
            .iter()
            .position(|o| o.name == self.name)
            .expect("every option is in OPTIONS")
    }

    /// The values it takes, as typed: `1-8`, `true|false`, `standard|empty|opposite-only`.
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
                    return Err(Error::Rules(format!(
                        "option `{name}` needs a number, got `{v}`"
                    )));
                }
                // Too large for a byte: out of every range `validate` allows (said as it says it).
                v.parse::<u8>()
                    .map(OptionValue::Number)
                    .map_err(|_| self.out_of_range(v))
            }
            OptionKind::Bool => match v {
                "" | "true" | "yes" | "on" => Ok(OptionValue::Bool(true)),
                "false" | "no" | "off" => Ok(OptionValue::Bool(false)),
                _ => Err(Error::Rules(format!(
                    "option `{name}` is true or false, got `{v}`"
                ))),
            },
            OptionKind::Keyword(words) => parse_word(name, words, v).map(OptionValue::Word),
        }
    }

    /// A number out of its range, in the same words however it was given (option, rules
    /// string, JSON record).
    fn out_of_range(&self, got: impl fmt::Display) -> Error {
        let (min, max) = match self.kind {
            OptionKind::Number { min, max } => (min, max),
            _ => (0, 0),
        };
        Error::Rules(format!("{} must be {min} to {max}, got {got}", self.name))
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
            Error::Rules(format!(
                "option `{option}` is {}, got `{text}`",
                one_of(words)
            ))
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
            .ok_or_else(|| Error::Rules("rules name no preset".into()))?;
        let mut rules = preset.rules();
        for (option, value) in spec.given() {
            if !(option.applies)(preset) {
                return Err(Error::Rules(format!(
                    "option `{}` does not apply to `{preset}`",
                    option.name
                )));
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
            if let (OptionKind::Number { min, max }, OptionValue::Number(n)) =
                (option.kind, option.value(self))
            {
                if !(min..=max).contains(&n) {
                    return Err(option.out_of_range(n));
                }
            }
        }
        if self.total_seeds() > MAX_TOTAL_SEEDS {
            return Err(Error::Rules(format!(
                "{} pits x {} seeds makes {} seeds, more than {MAX_TOTAL_SEEDS}",
                self.pits,
                self.seeds,
                self.total_seeds()
            )));
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
        self.seeds + u8::from(self.preset == Preset::KalahBrazil && central)
    }

    /// All seeds in play (both rows at the start). Kauri's cowries are not seeds.
    pub fn total_seeds(&self) -> u32 {
        (0..self.pits as usize)
            .map(|i| self.start_seeds(i) as u32 * 2)
            .sum()
    }

    /// The game has cowries besides seeds (Kauri): displays show both in each pit.
    pub fn has_cowries(&self) -> bool {
        self.preset == Preset::Kauri
    }

    /// Fewer seeds wins (Dracala).
    pub fn misere(&self) -> bool {
        self.preset == Preset::Dracala
    }

    /// Kalah family: a last seed in the mover's own store gives him another move; false only in
    /// `kalah-brazil`'s basic stage.
    pub fn extra_turns(&self) -> bool {
        self.preset != Preset::KalahBrazil || self.stage != Stage::Basic
    }

    /// Kalah family: a last seed in an own empty pit captures (see [`Rules::capture`]); false in
    /// `kalah-brazil` before its full stage.
    pub fn captures(&self) -> bool {
        self.preset != Preset::KalahBrazil || self.stage == Stage::Full
    }

    /// Cross-Kalah, Kauri and Oware can repeat positions (design 3.5).
    pub fn can_repeat(&self) -> bool {
        self.repeat_ends_at().is_some()
    }

    /// The occurrence of a position that ends the game: the third in Cross-Kalah and Kauri
    /// (a draw), the second in Oware ([`Repetition`] shares the seeds left); `None` where
    /// positions cannot repeat.
    pub fn repeat_ends_at(&self) -> Option<usize> {
        match self.preset {
            Preset::CrossKalah | Preset::Kauri => Some(3),
            Preset::Oware => Some(2),
            _ => None,
        }
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
        match self.preset {
            Preset::Dracala => Some(
                "capture is compulsory: only the moves with the largest capture may be played, and of those ending in the own store only the one nearest it",
            ),
            Preset::Kauri => Some("only a pit holding a cowrie may be sown"),
            Preset::Oware => Some(
                "a move must give the opponent seeds when his row is empty, and a grand slam may be refused",
            ),
            _ => None,
        }
    }

    /// The game's name and its options that differ from the preset's, in words people read:
    /// `Kalah · Seeds a pit: 4 · End of the game: Ends when the player to move has no seeds`.
    pub fn title(&self) -> String {
        let d = self.preset.rules();
        let mut t = self.preset.title().to_string();
        for o in OPTIONS.iter().filter(|o| o.value(self) != o.value(&d)) {
            let v = match o.value(self) {
                OptionValue::Number(n) => n.to_string(),
                OptionValue::Bool(b) => (if b { "yes" } else { "no" }).to_string(),
                OptionValue::Word(w) => match o.kind {
                    OptionKind::Keyword(words) => words
                        .iter()
                        .position(|x| *x == w)
                        .and_then(|i| o.labels.get(i))
                        .copied()
                        .unwrap_or(w)
                        .to_string(),
                    _ => w.to_string(),
                },
            };
            t += &format!(" · {}: {v}", o.title);
        }
        t
    }

    /// The rules in plain English, generated from the option values (`mancala rules`).
    pub fn describe(&self) -> String {
        let mut t = String::new();
        let m = self.pits;
        let start: Vec<String> = (0..m as usize)
            .map(|i| self.start_seeds(i).to_string())
            .collect();
        t += &format!("{}: {}.\n\n", self, self.preset.summary());
        if self.preset == Preset::Oware {
            t += &format!(
                "Board: {m} pits a side and a store for each player. Each pit starts with {} seeds ({} in all). Stores hold captured seeds and are never sown into.\n\n",
                self.seeds, self.total_seeds());
            t += "Move: choose a non-empty own pit, lift its seeds and sow them one a pit counter-clockwise; the origin pit is skipped on later laps. \
When the opponent's row is empty the move must reach it; if no move can, the game ends and the mover takes the seeds of his row.\n\n";
            t += "Capture: when the last seed lands in the opponent's row and makes that pit 2 or 3, those seeds are captured, and so are those of the pits before it \
(clockwise, in the opponent's row) while each holds 2 or 3. ";
            t += match self.grand_slam {
                GrandSlam::CaptureNothing => "A capture that would take every seed of the opponent's row (a grand slam) is played and captures nothing.\n\n",
                GrandSlam::Forbidden => "A move that would capture every seed of the opponent's row (a grand slam) is illegal while another move exists; if none does, it captures nothing.\n\n",
                GrandSlam::CaptureAll => "A capture may take every seed of the opponent's row (a grand slam); the opponent then cannot move, the game ends and the mover takes the seeds of his row.\n\n",
            };
            if self.stop_when_decided {
                t += &format!("End: as soon as a player has captured more than half of the seeds ({} of {}) he wins; the seeds on the board then count for nobody. ",
                    self.total_seeds() / 2 + 1, self.total_seeds());
            } else {
                t += "End: when a player cannot move or feed (above). ";
            }
            t += match self.repetition {
                Repetition::OwnRow => "A position that occurs a second time with the same player to move ends the game; each player takes the seeds in his row.",
                Repetition::Split => "A position that occurs a second time with the same player to move ends the game; the seeds left are shared equally (an odd seed counts for nobody).",
            };
            t += " More captured seeds wins; equal is a draw.\n\n";
            t += "Notation: South's pits A-F, North's a-f, each from its owner's left; (+n) the seeds captured.\n";
            return t;
        }
        if self.preset == Preset::Kauri {
            t += &format!(
                "Board: {m} pits a side and a store for each player. Each pit starts with {} seeds and 1 cowrie ({} seeds, {} cowries in all). \
Seeds score; cowries move and guard, never score. Stores hold captured seeds and are never sown into.\n\n",
                self.seeds, self.total_seeds(), 2 * m);
            t += "Move: choose an own pit holding at least one cowrie (it may hold no seeds). Lift every piece, drop the seeds first and then the cowries, \
one per pit counter-clockwise from the next pit, skipping both stores; the origin pit is not skipped on later laps. A player with no cowrie passes and the opponent sows again.\n\n";
            t += "Captures happen at once, piece by piece, only in the opponent's row: a cowrie dropped into an opponent pit holding no cowrie takes all seeds there (direct capture, the cowrie stays); \
a seed dropped into an opponent pit holding cowries and no seeds goes to the opponent's store (indirect capture).\n\n";
            t += &format!("End: when no seeds remain on the board the player with more captured seeds wins.{} \
At a tie the game goes on with the cowries until the player to move has no cowrie: he loses. \
The third occurrence of a position with the same player to move is a draw (project rule; the source is silent).\n\n",
                if self.stop_when_decided { format!(" The game ends as soon as a player has captured more than half of the seeds ({} of {}).", self.total_seeds() / 2 + 1, self.total_seeds()) } else { String::new() });
            t += "Notation: move number, first player's sowing a-f, second player's A-F (each from the owner's left); sowings while the opponent passes joined by `-`; \
(+n) seeds taken by direct capture, (-n) seeds handed to the opponent.\n";
            return t;
        }
        t += &format!(
            "Board: {m} pits a side; each player owns the row nearest him and the store at his right. Start: {} seeds in each row's pits (left to right), {} in all.\n\n",
            start.join(" "),
            self.total_seeds()
        );
        t += "Move: choose a non-empty own pit, lift all its seeds and sow them one by one into the following pits";
        if self.preset == Preset::CrossKalah {
            t += ": a pit holding an odd number of seeds is sown clockwise, an even number counter-clockwise; either way the own store gets a seed and the opponent's store is skipped";
        } else {
            t += " counter-clockwise, including the own store and skipping the opponent's";
        }
        t += ". The emptied origin pit is not skipped on later laps.\n\n";
        if self.extra_turns() {
            t += "Extra turn: when the last seed lands in the own store the same player moves again, any number of times.";
            if !self.first_move_extra_turn {
                t += " The first player's very first move never does: the turn then passes to the second player.";
            }
            t += "\n\n";
        } else {
            t += "No extra turns at this stage.\n\n";
        }
        if self.captures() {
            t += match self.capture {
                Capture::Standard => "Capture: when the last seed lands in an own empty pit and the opposite pit holds seeds, the last seed and the opposite seeds go to the mover's store.",
                Capture::Empty => "Capture: when the last seed lands in an own empty pit, the opposite seeds and the last seed go to the mover's store (the last seed even when the opposite pit is empty).",
                Capture::OppositeOnly => "Capture: when the last seed lands in an own empty pit, the seeds of the opposite pit go to the mover's store; the capturing seed stays.",
            };
            t += " A capture never gives an extra turn.\n\n";
        } else {
            t += "No captures at this stage.\n\n";
        }
        if self.pie {
            t += "Pie rule: as his first action the second player may swap instead of moving: the rows and stores change places, so he takes over the position the first player built \
and the first player plays on from the second player's old side; then the first player moves. A swap is written `swap`.\n\n";
        }
        if self.preset == Preset::Dracala {
            t += "Dracala: capture is compulsory. Before every move (bonus steps included) a move's capture is the growth of the mover's store during it; \
only the moves with the largest capture are legal. Except on the very first move of the game, if any of those ends in the own store (a bonus step), \
only the rightmost such pit, nearest the store, is legal.\n\n";
        }
        t += match self.end {
            EndCheck::AnyRowEmpty => "End: after every move, if either row is empty the game ends.",
            EndCheck::MoverEmpty => {
                "End: the game ends when the player to move has no seeds in his row."
            }
        };
        if self.stop_when_decided {
            t += &format!(
                " It also ends as soon as a store holds more than half of all seeds ({} of {}); the seeds on the board then count for nobody.",
                self.total_seeds() / 2 + 1,
                self.total_seeds()
            );
        }
        t += match self.leftovers {
            Leftovers::ToOwner => " Seeds left in a row go to that row's owner.",
            Leftovers::NotCounted => " Seeds left on the board count for nobody.",
            Leftovers::LastMover => {
                " The player who made the last move takes every seed left on the board."
            }
            Leftovers::LastCapturer => {
                " The player who captured last takes every seed left on the board."
            }
        };
        t += if self.misere() {
            " Fewer seeds wins (misere); equal is a draw.\n\n"
        } else {
            " More seeds wins; equal is a draw.\n\n"
        };
        if self.preset == Preset::CrossKalah {
            t += "Repetition: the third occurrence of a position with the same player to move is a draw (project rule).\n\n";
        }
        t += if self.preset == Preset::Dracala {
            "Notation: pits as digits 1-6 from the mover's left, a turn's moves joined by `-`, the turn's capture as (-n).\n"
        } else {
            "Notation: South's pits A-F, North's a-f, each from its owner's left; a turn's moves joined by `-`; (+n) the turn's store gain.\n"
        };
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
                return Err(Error::Rules(format!(
                    "option `{}` is given twice",
                    k.trim()
                )));
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
        for o in OPTIONS {
            match o.kind {
                OptionKind::Keyword(words) => assert_eq!(words.len(), o.labels.len(), "{}", o.name),
                _ => assert!(o.labels.is_empty(), "{}", o.name),
            }
            assert!(!o.title.is_empty());
        }
        let end = RuleOption::find("end").unwrap();
        assert_eq!(end.labels[0], "Ends when a row is empty");
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
        assert!(e.contains("pits must be 1 to 8, got 99999999999"), "{e}");
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
        assert!("kalah,pits=9".parse::<Rules>().is_err());
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
