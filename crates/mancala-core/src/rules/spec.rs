//! [`RulesSpec`]: the rules as given, in rules strings and JSON, before they are checked.

use super::*;

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
