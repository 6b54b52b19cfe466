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
        "oware,grand-slam=capture-all,decided-leftovers=to-owner",
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
        "rules: unknown option `colour` (options: pits, seeds, capture, end, leftovers, stop-when-decided, first-move-extra-turn, pie, stage, grand-slam, repetition, decided-leftovers)"
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
