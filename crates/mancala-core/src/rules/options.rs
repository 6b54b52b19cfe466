//! The rule options' registry: what each option is called, takes and applies to.

use super::*;

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
    RuleOption {
        name: "decided-leftovers",
        kind: OptionKind::Keyword(DecidedLeftovers::WORDS),
        applies: Preset::is_oware_family,
        get: |r| OptionValue::of(r.decided_leftovers),
        set: |r, v| r.decided_leftovers = v.keyword(),
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
    pub(super) fn index(&self) -> usize {
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
    pub(super) fn out_of_range(&self, got: impl fmt::Display) -> Error {
        self.out_of_range_in(self.kind, got)
    }

    /// A number out of `kind`'s range (the option's own, or its range in a preset).
    pub(super) fn out_of_range_in(&self, kind: OptionKind, got: impl fmt::Display) -> Error {
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
    pub(super) fn apply(&self, rules: &mut Rules, value: OptionValue) {
        (self.set)(rules, value)
    }
}

/// The word of `words` that `text` names (in any case), or the error naming the option as the
/// user wrote it (`--end`, `end=`) and the words it takes.
pub(super) fn parse_word(
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
