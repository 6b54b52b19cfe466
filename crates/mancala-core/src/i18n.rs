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
            Error::Rules(format!(
                "unknown language `{}` (languages: en, pt, es, it)",
                s.chars().take(40).collect::<String>()
            ))
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
