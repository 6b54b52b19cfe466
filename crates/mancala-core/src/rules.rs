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
    /// Cross-Kalah (W. Dan Troyka, 2004): odd pits sow clockwise.
    CrossKalah,
    /// Dracala (Ralf Gering, 2010): compulsory maximum capture, misère.
    Dracala,
    /// Kauri (Ralf Gering, 2006): seeds and cowries.
    Kauri,
    /// Oware (Abapa): no stores on the ring, captures of 2s and 3s, must-feed.
    Oware,
}

impl Preset {
    pub const ALL: [Preset; 7] = [
        Preset::Kalah,
        Preset::KalahBrazil,
        Preset::Vaccean,
        Preset::CrossKalah,
        Preset::Dracala,
        Preset::Kauri,
        Preset::Oware,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Preset::Kalah => "kalah",
            Preset::KalahBrazil => "kalah-brazil",
            Preset::Vaccean => "vaccean",
            Preset::CrossKalah => "cross-kalah",
            Preset::Dracala => "dracala",
            Preset::Kauri => "kauri",
            Preset::Oware => "oware",
        }
    }

    /// One line: what the game is and where its rules come from.
    pub fn summary(self) -> &'static str {
        match self {
            Preset::Kalah => "Kalah (Italian Kalah page, source 004; 3 seeds a pit by default)",
            Preset::KalahBrazil => {
                "Kalah as taught in Brazilian classrooms, one more seed in the central pits, staged rules (source 002)"
            }
            Preset::Vaccean => "the Vaccean-inspired mancala, 4 x 2 with 5 seeds a pit by default (source 001)",
            Preset::CrossKalah => {
                "Cross-Kalah: odd pits sow clockwise, even counter-clockwise (source 004)"
            }
            Preset::Dracala => {
                "Dracala: compulsory maximum capture, misere, last mover takes all (source 000)"
            }
            Preset::Kauri => "Kauri: seeds and cowries, direct and indirect captures (source 003)",
            Preset::Oware => {
                "Oware (Abapa): captures of 2s and 3s in the opponent's row, must-feed, 25 seeds win"
            }
        }
    }

    pub fn is_kalah_family(self) -> bool {
        !matches!(self, Preset::Kauri | Preset::Oware)
    }

    /// The preset's rules with every option at its default.
    pub fn rules(self) -> Rules {
        let base = Rules {
            preset: self,
            pits: 6,
            seeds: 3,
            capture: Capture::Standard,
            end: EndCheck::AnyRowEmpty,
            leftovers: Leftovers::ToOwner,
            stop_when_decided: false,
            stage: Stage::Full,
            grand_slam: GrandSlam::CaptureNothing,
            repetition: Repetition::OwnRow,
        };
        match self {
            Preset::Kalah => base,
            Preset::KalahBrazil => Rules {
                capture: Capture::OppositeOnly,
                end: EndCheck::MoverEmpty,
                leftovers: Leftovers::NotCounted,
                ..base
            },
            Preset::Vaccean => Rules {
                pits: 4,
                seeds: 5,
                capture: Capture::OppositeOnly,
                ..base
            },
            Preset::CrossKalah => Rules { seeds: 6, ..base },
            Preset::Dracala => Rules {
                seeds: 6,
                leftovers: Leftovers::LastMover,
                stop_when_decided: true,
                ..base
            },
            Preset::Kauri => Rules {
                seeds: 5,
                stop_when_decided: true,
                ..base
            },
            Preset::Oware => Rules {
                seeds: 4,
                stop_when_decided: true,
                ..base
            },
        }
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

/// A pit or seed count out of its range, in the same words however it was given (option,
/// rules string, JSON record).
fn out_of_range(option: &str, got: impl fmt::Display) -> Error {
    let max = match option {
        "pits" => MAX_PITS,
        _ => MAX_SEEDS as usize,
    };
    Error::Rules(format!("{option} must be 1 to {max}, got {got}"))
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

fn json_option_count<'de, D: serde::Deserializer<'de>>(
    d: D,
    option: &str,
) -> Result<Option<u8>, D::Error> {
    Option::<Whole>::deserialize(d)?
        .map(|Whole(v)| {
            u8::try_from(v).map_err(|_| serde::de::Error::custom(out_of_range(option, v)))
        })
        .transpose()
}

fn json_pits<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u8>, D::Error> {
    json_option_count(d, "pits")
}

fn json_seeds<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u8>, D::Error> {
    json_option_count(d, "seeds")
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
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            pub fn name(self) -> &'static str { match self { $($name::$variant => $text),+ } }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.name()) }
        }
        impl FromStr for $name {
            type Err = Error;
            fn from_str(s: &str) -> Result<Self, Error> {
                $name::ALL.iter().copied().find(|v| v.name().eq_ignore_ascii_case(s.trim())).ok_or_else(|| {
                    // In the option's name, as the user wrote it (`--end`, `end=`).
                    let values: Vec<&str> = $name::ALL.iter().map(|v| v.name()).collect();
                    Error::Rules(format!("option `{}` is {}, got `{}`", $option, one_of(&values), s.trim()))
                })
            }
        }
    };
}

keyword_enum!(
    /// What a last seed landing in an own empty pit does (design.md 3.1).
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
    /// Teaching stage of `kalah-brazil` (source 002: rules 1-5, then 6, then 7).
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
    pub preset: Preset,
    /// Pits a side.
    pub pits: u8,
    /// Seeds a pit at the start (`kalah-brazil`: the central pits get one more).
    pub seeds: u8,
    pub capture: Capture,
    pub end: EndCheck,
    pub leftovers: Leftovers,
    /// End as soon as a store holds more than half of all seeds (seeds on the board then count
    /// for nobody). In Dracala (misère) that player loses.
    pub stop_when_decided: bool,
    /// Only for `kalah-brazil`.
    pub stage: Stage,
    /// Only for `oware`.
    pub grand_slam: GrandSlam,
    /// Only for `oware`.
    pub repetition: Repetition,
}

/// The serde and option-string shape of [`Rules`]: every option optional.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct RulesSpec {
    pub preset: Option<Preset>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "json_pits"
    )]
    pub pits: Option<u8>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "json_seeds"
    )]
    pub seeds: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capture: Option<Capture>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<EndCheck>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leftovers: Option<Leftovers>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_when_decided: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage: Option<Stage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grand_slam: Option<GrandSlam>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repetition: Option<Repetition>,
}

impl RulesSpec {
    /// Sets option `name` from its text form, as written in a rules string or on the command line.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), Error> {
        let num = |v: &str| -> Result<u8, Error> {
            let v = v.trim();
            if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
                return Err(Error::Rules(format!(
                    "option `{name}` needs a number, got `{v}`"
                )));
            }
            // Too large for a byte: out of every range `validate` allows (said as it says it).
            v.parse::<u8>().map_err(|_| out_of_range(name.trim(), v))
        };
        match name.trim() {
            "pits" => self.pits = Some(num(value)?),
            "seeds" => self.seeds = Some(num(value)?),
            "capture" => self.capture = Some(value.parse()?),
            "end" => self.end = Some(value.parse()?),
            "leftovers" => self.leftovers = Some(value.parse()?),
            "stop-when-decided" => {
                self.stop_when_decided = Some(match value.trim() {
                    "" | "true" | "yes" | "on" => true,
                    "false" | "no" | "off" => false,
                    v => {
                        return Err(Error::Rules(format!(
                            "option `stop-when-decided` is true or false, got `{v}`"
                        )))
                    }
                })
            }
            "stage" => self.stage = Some(value.parse()?),
            "grand-slam" => self.grand_slam = Some(value.parse()?),
            "repetition" => self.repetition = Some(value.parse()?),
            other => {
                return Err(Error::Rules(format!(
                    "unknown option `{other}` (options: {})",
                    OPTIONS
                        .iter()
                        .map(|o| o.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                )))
            }
        }
        Ok(())
    }
}

impl TryFrom<RulesSpec> for Rules {
    type Error = Error;
    fn try_from(spec: RulesSpec) -> Result<Rules, Error> {
        let preset = spec
            .preset
            .ok_or_else(|| Error::Rules("rules name no preset".into()))?;
        let d = preset.rules();
        for opt in OPTIONS {
            let given = match opt.name {
                "pits" => spec.pits.is_some(),
                "seeds" => spec.seeds.is_some(),
                "capture" => spec.capture.is_some(),
                "end" => spec.end.is_some(),
                "leftovers" => spec.leftovers.is_some(),
                "stop-when-decided" => spec.stop_when_decided.is_some(),
                "stage" => spec.stage.is_some(),
                "grand-slam" => spec.grand_slam.is_some(),
                "repetition" => spec.repetition.is_some(),
                _ => false,
            };
            if given && !(opt.applies)(preset) {
                return Err(Error::Rules(format!(
                    "option `{}` does not apply to `{preset}`",
                    opt.name
                )));
            }
        }
        let rules = Rules {
            preset,
            pits: spec.pits.unwrap_or(d.pits),
            seeds: spec.seeds.unwrap_or(d.seeds),
            capture: spec.capture.unwrap_or(d.capture),
            end: spec.end.unwrap_or(d.end),
            leftovers: spec.leftovers.unwrap_or(d.leftovers),
            stop_when_decided: spec.stop_when_decided.unwrap_or(d.stop_when_decided),
            stage: spec.stage.unwrap_or(d.stage),
            grand_slam: spec.grand_slam.unwrap_or(d.grand_slam),
            repetition: spec.repetition.unwrap_or(d.repetition),
        };
        rules.validate()?;
        Ok(rules)
    }
}

impl From<Rules> for RulesSpec {
    fn from(r: Rules) -> RulesSpec {
        let d = r.preset.rules();
        let kalah = r.preset.is_kalah_family();
        let brazil = r.preset == Preset::KalahBrazil;
        RulesSpec {
            preset: Some(r.preset),
            pits: Some(r.pits),
            seeds: Some(r.seeds),
            capture: kalah.then_some(r.capture),
            end: kalah.then_some(r.end),
            leftovers: kalah.then_some(r.leftovers),
            stop_when_decided: Some(r.stop_when_decided),
            stage: (brazil || r.stage != d.stage).then_some(r.stage),
            grand_slam: (r.preset == Preset::Oware).then_some(r.grand_slam),
            repetition: (r.preset == Preset::Oware).then_some(r.repetition),
        }
    }
}

/// One option of the rules: its name, values and which presets take it.
pub struct OptionInfo {
    pub name: &'static str,
    /// The values it takes, as typed.
    pub values: &'static str,
    pub help: &'static str,
    pub applies: fn(Preset) -> bool,
}

/// Every rule option, in the order menus show them.
pub const OPTIONS: &[OptionInfo] = &[
    OptionInfo {
        name: "pits",
        values: "1-8",
        help: "pits a side",
        applies: |_| true,
    },
    OptionInfo {
        name: "seeds",
        values: "1-20",
        help: "seeds a pit at the start (at most 240 seeds in all)",
        applies: |_| true,
    },
    OptionInfo {
        name: "capture",
        values: "standard|empty|opposite-only",
        help: "what a last seed in an own empty pit captures",
        applies: Preset::is_kalah_family,
    },
    OptionInfo {
        name: "end",
        values: "any-row-empty|mover-empty",
        help: "when the game ends",
        applies: Preset::is_kalah_family,
    },
    OptionInfo {
        name: "leftovers",
        values: "to-owner|not-counted|last-mover|last-capturer",
        help: "who scores the seeds left on the board at the end",
        applies: Preset::is_kalah_family,
    },
    OptionInfo {
        name: "stop-when-decided",
        values: "true|false",
        help: "end as soon as a store holds more than half of all seeds",
        applies: |_| true,
    },
    OptionInfo {
        name: "stage",
        values: "basic|extra-turn|full",
        help: "teaching stage: sowing only, then extra turns, then captures",
        applies: |p| p == Preset::KalahBrazil,
    },
    OptionInfo {
        name: "grand-slam",
        values: "capture-nothing|forbidden|capture-all",
        help: "what a capture of every seed in the opponent's row does",
        applies: |p| p == Preset::Oware,
    },
    OptionInfo {
        name: "repetition",
        values: "own-row|split",
        help: "who takes the seeds left when a position repeats",
        applies: |p| p == Preset::Oware,
    },
];

impl Default for Rules {
    fn default() -> Self {
        Preset::Kalah.rules()
    }
}

impl Rules {
    /// Checks the option values against each other; every constructor calls it.
    pub fn validate(&self) -> Result<(), Error> {
        if self.pits == 0 || self.pits as usize > MAX_PITS {
            return Err(out_of_range("pits", self.pits));
        }
        if self.seeds == 0 || self.seeds > MAX_SEEDS {
            return Err(out_of_range("seeds", self.seeds));
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

    pub fn extra_turns(&self) -> bool {
        self.preset != Preset::KalahBrazil || self.stage != Stage::Basic
    }

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
        let mut v = Vec::new();
        if self.pits != d.pits {
            v.push(("pits", self.pits.to_string()));
        }
        if self.seeds != d.seeds {
            v.push(("seeds", self.seeds.to_string()));
        }
        if self.capture != d.capture {
            v.push(("capture", self.capture.to_string()));
        }
        if self.end != d.end {
            v.push(("end", self.end.to_string()));
        }
        if self.leftovers != d.leftovers {
            v.push(("leftovers", self.leftovers.to_string()));
        }
        if self.stop_when_decided != d.stop_when_decided {
            v.push(("stop-when-decided", self.stop_when_decided.to_string()));
        }
        if self.stage != d.stage {
            v.push(("stage", self.stage.to_string()));
        }
        if self.grand_slam != d.grand_slam {
            v.push(("grand-slam", self.grand_slam.to_string()));
        }
        if self.repetition != d.repetition {
            v.push(("repetition", self.repetition.to_string()));
        }
        v
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
            t += "Extra turn: when the last seed lands in the own store the same player moves again, any number of times.\n\n";
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
        let mut spec = RulesSpec {
            preset: Some(preset),
            ..RulesSpec::default()
        };
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
