//! The words people read, in four languages: English, Portuguese, Spanish and Italian (the
//! languages of the source pages and of their players).
//!
//! Every translatable string lives in one file a language at the repository's root
//! (`locales/en.json`, `pt.json`, `es.json`, `it.json`): a flat JSON object of keys to
//! strings, with `{name}` placeholders. The same files are built in here and served to the
//! browser client, which reads them with its own one lookup function (`web/i18n.js`). English
//! is complete by definition; the tests below check that every other language has exactly its
//! keys and every placeholder of each string.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use crate::Error;

/// A language of the program's words.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Lang {
    /// English, the language the others translate.
    #[default]
    En,
    /// Portuguese (the Brazilian classroom Kalah, Dracala and Kauri pages).
    Pt,
    /// Spanish (the Vaccean mancala page).
    Es,
    /// Italian (the Kalah and Cross-Kalah page).
    It,
}

/// The files, in [`Lang::ALL`] order.
const FILES: [&str; 4] = [
    include_str!("../../../locales/en.json"),
    include_str!("../../../locales/pt.json"),
    include_str!("../../../locales/es.json"),
    include_str!("../../../locales/it.json"),
];

impl Lang {
    /// Every language, English first.
    pub const ALL: [Lang; 4] = [Lang::En, Lang::Pt, Lang::Es, Lang::It];

    /// Its code, as in `--lang pt`, `?lang=pt` and the files' names.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Pt => "pt",
            Lang::Es => "es",
            Lang::It => "it",
        }
    }

    /// The language a locale name such as `pt_BR.UTF-8`, `es-ES` or `it` names, where it is one
    /// of the four.
    pub fn from_locale(locale: &str) -> Option<Lang> {
        let code = locale
            .split(['_', '-', '.', '@'])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        Lang::ALL.into_iter().find(|l| l.code() == code)
    }

    fn table(self) -> &'static HashMap<String, String> {
        static TABLES: [OnceLock<HashMap<String, String>>; 4] = [
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
        ];
        TABLES[self as usize].get_or_init(|| {
            // The files are built in and checked by the tests below: a broken one is a bug.
            serde_json::from_str(FILES[self as usize]).unwrap_or_default()
        })
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl FromStr for Lang {
    type Err = Error;
    /// `en`, `pt`, `es` or `it` (a locale name such as `pt_BR` too).
    fn from_str(s: &str) -> Result<Lang, Error> {
        Lang::from_locale(s.trim()).ok_or_else(|| {
            Error::Rules(
                Msg::new("error.rules.unknown-language")
                    .arg("name", s.chars().take(40).collect::<String>()),
            )
        })
    }
}

/// The string of `key` in `lang`; English where `lang` lacks it (the tests forbid that), and
/// the key itself where English lacks it too.
pub fn text(lang: Lang, key: &str) -> &'static str {
    lang.table()
        .get(key)
        .or_else(|| Lang::En.table().get(key))
        .map(String::as_str)
        .unwrap_or_else(|| {
            // Only a key missing from every file reaches here: keep it visible, once.
            static MISSING: OnceLock<std::sync::Mutex<HashMap<String, &'static str>>> =
                OnceLock::new();
            let mut m = MISSING
                .get_or_init(Default::default)
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            m.entry(key.to_string())
                .or_insert_with(|| Box::leak(key.to_string().into_boxed_str()))
        })
}

/// The string of `key` in `lang` with each `{name}` of `args` replaced by its value.
pub fn format(lang: Lang, key: &str, args: &[(&str, &dyn fmt::Display)]) -> String {
    fill(text(lang, key), args)
}

/// `template` with each `{name}` of `args` replaced by its value; other braces are kept.
pub fn fill(template: &str, args: &[(&str, &dyn fmt::Display)]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find('}').map(|j| (&after[..j], j)) {
            Some((name, j)) => match args.iter().find(|(n, _)| *n == name) {
                Some((_, v)) => {
                    out.push_str(&v.to_string());
                    rest = &after[j + 1..];
                }
                None => {
                    out.push('{');
                    rest = after;
                }
            },
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Words to be said in the reader's language: a key of the translation files and the values
/// of its placeholders. The core's errors carry one ([`Error::text_in`]), so the reader's
/// language is chosen where they are shown, not where they are made; serialized (the server's
/// `{"key", "args"}`) a text value is escaped and cut as [`Error`]'s `Display` does, and a
/// nested message is an object of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Msg {
    /// The key (`error.move.empty`).
    pub key: &'static str,
    /// The values of its placeholders, in order.
    pub args: Vec<(&'static str, Arg)>,
}

/// The value of a placeholder of a [`Msg`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    /// Words that are the same in every language: a number, a pit list, quoted input.
    Text(String),
    /// Words to be said in the reader's language too (a side's name, a part of a sentence).
    Msg(Msg),
    /// An error that a larger one reports (said as [`Error::text_in`] says it).
    Error(Box<Error>),
}

impl Msg {
    /// The message of `key`, without arguments yet.
    pub fn new(key: &'static str) -> Msg {
        Msg {
            key,
            args: Vec::new(),
        }
    }

    /// With `{name}` standing for `value`, the same in every language.
    pub fn arg(mut self, name: &'static str, value: impl fmt::Display) -> Msg {
        self.args.push((name, Arg::Text(value.to_string())));
        self
    }

    /// With `{name}` standing for `value`, said in the reader's language.
    pub fn sub(mut self, name: &'static str, value: Msg) -> Msg {
        self.args.push((name, Arg::Msg(value)));
        self
    }

    /// With `{name}` standing for the side's name (`side.south`, `side.north`).
    pub fn side(self, name: &'static str, side: crate::Side) -> Msg {
        self.sub(name, side_msg(side))
    }

    /// With `{name}` standing for `error`, said in the reader's language.
    pub fn error(mut self, name: &'static str, error: Error) -> Msg {
        self.args.push((name, Arg::Error(Box::new(error))));
        self
    }

    /// The message in `lang`.
    pub fn text_in(&self, lang: Lang) -> String {
        let args: Vec<(&str, String)> = self
            .args
            .iter()
            .map(|(name, v)| {
                let v = match v {
                    Arg::Text(t) => t.clone(),
                    Arg::Msg(m) => m.text_in(lang),
                    Arg::Error(e) => e.text_in(lang),
                };
                (*name, v)
            })
            .collect();
        let shown: Vec<(&str, &dyn fmt::Display)> = args
            .iter()
            .map(|(k, v)| (*k, v as &dyn fmt::Display))
            .collect();
        format(lang, self.key, &shown)
    }
}

/// The items said as `a or b or c` (`list.or`), or the one item.
pub fn either<T: fmt::Display>(items: impl IntoIterator<Item = T>) -> Msg {
    let mut items = items.into_iter();
    let first = Msg::new("list.one").arg(
        "item",
        items.next().map_or(String::new(), |i| i.to_string()),
    );
    items.fold(first, |list, item| {
        Msg::new("list.or").sub("list", list).arg("item", item)
    })
}

/// The items said as `a, b or c` (`list.comma`, `list.or`), or the one item.
pub fn one_of<T: fmt::Display>(items: impl IntoIterator<Item = T>) -> Msg {
    let mut items: Vec<String> = items.into_iter().map(|i| i.to_string()).collect();
    let last = items.pop().unwrap_or_default();
    let mut init = items.into_iter();
    let Some(first) = init.next() else {
        return Msg::new("list.one").arg("item", last);
    };
    let list = init.fold(Msg::new("list.one").arg("item", first), |list, item| {
        Msg::new("list.comma").sub("list", list).arg("item", item)
    });
    Msg::new("list.or").sub("list", list).arg("item", last)
}

/// The key naming `side`.
fn side_key(side: crate::Side) -> &'static str {
    match side {
        crate::Side::South => "side.south",
        crate::Side::North => "side.north",
    }
}

/// The message naming `side` (`South`, `Sul`, `Sur`, `Sud`).
pub fn side_msg(side: crate::Side) -> Msg {
    Msg::new(side_key(side))
}

/// `side`'s name in `lang` (`South`, `Sul`, `Sur`, `Sud`).
pub fn side_name(lang: Lang, side: crate::Side) -> &'static str {
    text(lang, side_key(side))
}

impl fmt::Display for Msg {
    /// The message in English.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text_in(Lang::En))
    }
}

impl serde::Serialize for Msg {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        struct Args<'a>(&'a [(&'static str, Arg)]);
        impl serde::Serialize for Args<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(Some(self.0.len()))?;
                for (name, v) in self.0 {
                    match v {
                        Arg::Text(t) => m.serialize_entry(name, &crate::shown(t))?,
                        Arg::Msg(msg) => m.serialize_entry(name, msg)?,
                        Arg::Error(e) => m.serialize_entry(name, &e.msg())?,
                    }
                }
                m.end()
            }
        }
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("key", self.key)?;
        m.serialize_entry("args", &Args(&self.args))?;
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn placeholders(s: &str) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let mut rest = s;
        while let Some(i) = rest.find('{') {
            let after = &rest[i + 1..];
            match after.find('}') {
                Some(j) => {
                    let name = &after[..j];
                    if !name.is_empty()
                        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    {
                        out.insert(name.to_string());
                    }
                    rest = &after[j + 1..];
                }
                None => break,
            }
        }
        out
    }

    fn parsed(lang: Lang) -> serde_json::Map<String, serde_json::Value> {
        let v: serde_json::Value = serde_json::from_str(FILES[lang as usize])
            .unwrap_or_else(|e| panic!("locales/{lang}.json: {e}"));
        let serde_json::Value::Object(map) = v else {
            panic!("locales/{lang}.json is not an object")
        };
        for (k, v) in &map {
            assert!(v.is_string(), "locales/{lang}.json: `{k}` is not a string");
            assert!(
                !v.as_str().unwrap().trim().is_empty(),
                "locales/{lang}.json: `{k}` is empty"
            );
        }
        map
    }

    #[test]
    fn every_language_has_exactly_the_keys_and_placeholders_of_english() {
        let en = parsed(Lang::En);
        assert!(en.len() > 100, "English has {} keys", en.len());
        for lang in &Lang::ALL[1..] {
            let other = parsed(*lang);
            let missing: Vec<_> = en.keys().filter(|k| !other.contains_key(*k)).collect();
            let extra: Vec<_> = other.keys().filter(|k| !en.contains_key(*k)).collect();
            assert!(missing.is_empty(), "locales/{lang}.json lacks {missing:?}");
            assert!(
                extra.is_empty(),
                "locales/{lang}.json has keys English lacks: {extra:?}"
            );
            for (k, v) in &en {
                let want = placeholders(v.as_str().unwrap());
                let got = placeholders(other[k].as_str().unwrap());
                assert_eq!(
                    got, want,
                    "locales/{lang}.json: `{k}` has other placeholders"
                );
            }
        }
    }

    #[test]
    fn a_string_is_found_and_filled() {
        assert_eq!(text(Lang::En, "rules.yes"), "yes");
        assert_eq!(text(Lang::Pt, "rules.yes"), "sim");
        assert_eq!(text(Lang::It, "no.such.key"), "no.such.key");
        assert_eq!(
            fill("{a} and {b}, {a}; {c} {", &[("a", &1), ("b", &"two")]),
            "1 and two, 1; {c} {"
        );
    }

    #[test]
    fn every_message_key_the_code_names_exists() {
        let en = parsed(Lang::En);
        let sources = [
            include_str!("game.rs"),
            include_str!("i18n.rs"),
            include_str!("kalah.rs"),
            include_str!("kauri.rs"),
            include_str!("lib.rs"),
            include_str!("notation.rs"),
            include_str!("oware.rs"),
            include_str!("position.rs"),
            include_str!("record.rs"),
            include_str!("rules.rs"),
            include_str!("rules/options.rs"),
            include_str!("rules/presets.rs"),
            include_str!("rules/spec.rs"),
        ];
        let mut named = 0;
        for src in sources {
            for part in src.split('"').skip(1).step_by(2) {
                if (part.starts_with("error.") || part.starts_with("list."))
                    && part
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || ".-_".contains(c))
                    && !part.ends_with('.')
                {
                    named += 1;
                    let plural = format!("{part}.one");
                    assert!(
                        en.contains_key(part) || en.contains_key(&plural),
                        "`{part}` is not in locales/en.json"
                    );
                }
            }
        }
        assert!(named > 100, "only {named} keys found");
    }

    #[test]
    fn an_error_is_said_in_every_language_with_its_arguments() {
        let mut pos = crate::Position::start(&"kalah".parse().unwrap()).unwrap();
        // Kalah(6,3): South's pit 4 ends in the store, South again, and pit 4 is empty.
        assert!(pos.play(3).unwrap().again);
        let e = pos.play(3).unwrap_err();
        assert_eq!(e.to_string(), "illegal move: pit 4 of South is empty");
        assert_eq!(e.text_in(Lang::En), e.to_string());
        assert_eq!(
            e.text_in(Lang::Pt),
            "jogada ilegal: a casa 4 do Sul está vazia"
        );
        assert_eq!(
            e.text_in(Lang::Es),
            "movimiento ilegal: el agujero 4 del Sur está vacío"
        );
        assert_eq!(
            e.text_in(Lang::It),
            "mossa illegale: la casa 4 del Sud è vuota"
        );
        assert_eq!(
            serde_json::to_value(e.msg()).unwrap(),
            serde_json::json!({"key": "error.illegal-move", "args": {"message": {
                "key": "error.move.empty",
                "args": {"pit": "4", "side": {"key": "side.south", "args": {}}}
            }}})
        );
        // A nested error is said in the reader's language too.
        let e = "kalah/4-4-4-4-4-4/0/4-4-4-4-4-4/0/x"
            .parse::<crate::Position>()
            .unwrap_err();
        assert_eq!(
            e.text_in(Lang::It),
            "posizione: il giocatore di turno deve essere `s`, `n` o `-`, non `x`"
        );
        let e = "kalah,pits=99".parse::<crate::Rules>().unwrap_err();
        assert_eq!(e.to_string(), "rules: pits must be 1 to 12, got 99");
        assert_eq!(
            e.text_in(Lang::Pt),
            "regras: pits tem de ser de 1 a 12, não 99"
        );
    }

    #[test]
    fn quoted_input_is_escaped_and_cut_in_every_language() {
        let long = format!("\u{1b}[31m{}", "x".repeat(1000));
        let e = long.parse::<crate::Rules>().unwrap_err();
        for lang in Lang::ALL {
            let t = e.text_in(lang);
            assert!(!t.contains('\u{1b}'), "{lang}: {t}");
            assert!(t.contains("\\u{1b}[31m"), "{lang}: {t}");
            assert!(
                t.chars().count() < 520,
                "{lang}: {} characters",
                t.chars().count()
            );
        }
        // Serialized, a quoted value is escaped and cut as well.
        let json = serde_json::to_string(&e.msg()).unwrap();
        assert!(
            json.len() < 700 && json.contains("more characters"),
            "{json}"
        );
        assert!(!json.contains("\\u001b"), "{json}");
    }

    #[test]
    fn languages_are_read_from_locale_names() {
        assert_eq!(Lang::from_locale("pt_BR.UTF-8"), Some(Lang::Pt));
        assert_eq!(Lang::from_locale("es-ES"), Some(Lang::Es));
        assert_eq!(Lang::from_locale("it"), Some(Lang::It));
        assert_eq!(Lang::from_locale("C.UTF-8"), None);
        assert_eq!(Lang::from_locale("de_DE"), None);
        assert_eq!("PT".parse::<Lang>().unwrap(), Lang::Pt);
        assert!("xx"
            .parse::<Lang>()
            .unwrap_err()
            .to_string()
            .contains("en, pt, es, it"));
    }
}
