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
/// [`WIDE_MAX_SEEDS`]; see [`Preset::max_total_seeds`]).
pub const MAX_TOTAL_SEEDS: u32 = 240;
/// Most seeds in all of a Kalah-family game (on `u16` counts, nine bits a pit in its hash
/// word); boards of at most [`MAX_TOTAL_SEEDS`] play on `u8` counts.
pub const WIDE_MAX_SEEDS: u32 = 511;
/// Most seeds a pit may start with.
pub const MAX_SEEDS: u8 = 20;

mod options;
mod presets;
mod spec;
#[cfg(test)]
mod tests;

use options::parse_word;
pub use options::{RuleOption, OPTIONS};
pub use presets::{GameFamily, Preset};
pub use spec::RulesSpec;

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
    pub fn taken<C>(self, opposite: C) -> C
    where
        C: Copy + Default + Ord + From<u8> + core::ops::Add<Output = C>,
    {
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

keyword_enum!(
    /// Oware, under `stop-when-decided`: who scores the seeds still on the board when a store
    /// passes half of the seeds, which ends the game.
    DecidedLeftovers ("decided-leftovers") {
        /// Nobody: they stay on the board.
        NotCounted = "not-counted",
        /// Each row to its owner's store (OpenSpiel's `oware`).
        ToOwner = "to-owner",
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
    /// Only for `oware`.
    pub decided_leftovers: DecidedLeftovers,
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
        // Paragraphs of sentences, joined by a space within and a blank line between.
        let mut paras: Vec<Vec<String>> = vec![vec![f(
            "rules.head",
            &[("rules", self), ("summary", &self.preset.summary_in(lang))],
        )]];
        let mut para =
            |sentences: &[&str]| paras.push(sentences.iter().map(|x| x.to_string()).collect());
        match self.preset.family() {
            GameFamily::Oware => self.describe_oware(lang, &ranges, total, needed, &mut para),
            GameFamily::Kauri => self.describe_kauri(lang, &ranges, total, needed, &mut para),
            GameFamily::Kalah => self.describe_kalah(lang, &ranges, total, needed, &mut para),
        }
        let mut t = paras
            .iter()
            .map(|p| p.join(" "))
            .collect::<Vec<_>>()
            .join("\n\n");
        t.push('\n');
        t
    }

    /// [`Rules::describe_in`]'s paragraphs after the first, for Oware.
    fn describe_oware(
        &self,
        lang: Lang,
        ranges: &[(&str, &dyn fmt::Display)],
        total: u32,
        needed: u32,
        para: &mut impl FnMut(&[&str]),
    ) {
        let s = |key: &str| i18n::text(lang, key);
        let f = |key: &str, args: &[(&str, &dyn fmt::Display)]| i18n::format(lang, key, args);
        let m = self.pits;
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
                match self.decided_leftovers {
                    DecidedLeftovers::NotCounted => "rules.oware.end-decided",
                    DecidedLeftovers::ToOwner => "rules.oware.end-decided-to-owner",
                },
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
        para(&[&f("rules.oware.notation", ranges)]);
    }

    /// [`Rules::describe_in`]'s paragraphs after the first, for Kauri.
    fn describe_kauri(
        &self,
        lang: Lang,
        ranges: &[(&str, &dyn fmt::Display)],
        total: u32,
        needed: u32,
        para: &mut impl FnMut(&[&str]),
    ) {
        let s = |key: &str| i18n::text(lang, key);
        let f = |key: &str, args: &[(&str, &dyn fmt::Display)]| i18n::format(lang, key, args);
        let m = self.pits;
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
        para(&[&f("rules.kauri.notation", ranges)]);
    }

    /// [`Rules::describe_in`]'s paragraphs after the first, for the Kalah family.
    fn describe_kalah(
        &self,
        lang: Lang,
        ranges: &[(&str, &dyn fmt::Display)],
        total: u32,
        needed: u32,
        para: &mut impl FnMut(&[&str]),
    ) {
        let s = |key: &str| i18n::text(lang, key);
        let f = |key: &str, args: &[(&str, &dyn fmt::Display)]| i18n::format(lang, key, args);
        let m = self.pits;
        let start: Vec<String> = (0..m as usize)
            .map(|i| self.start_seeds(i).to_string())
            .collect();
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
        para(&[&f(key, ranges)]);
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
