use super::*;

/// JSON that is not an object is refused as JSON, not read as a text record.
#[test]
fn json_that_is_not_an_object_is_no_record() {
    for (text, kind) in [
        ("[1,2,3]", "an array"),
        ("null", "null"),
        ("\"kalah\"", "a string"),
        ("  [ ]\n", "an array"),
    ] {
        let e = Record::parse(text, None).unwrap_err().to_string();
        assert!(
            e.contains(&format!("a record is an object `{{...}}`, not {kind}")),
            "{text}: {e}"
        );
    }
}

/// A resignation ends an unfinished game: the record's result says who resigned, and the
/// replay checks the winner and the stores against it.
#[test]
fn a_resigned_result_is_checked() {
    let mut game = Game::new(Position::start(&Rules::default()).unwrap());
    game.play(0).unwrap();
    let mut rec = Record::from_game(&game, Players::default());
    let s = game.scores();
    let resigned = |winner, south| RecordResult {
        south,
        north: s[1],
        winner,
        reason: Some("South resigned".into()),
        resigned: Some(Side::South),
        stopped: None,
    };
    rec.result = Some(resigned(Some(Side::North), s[0]));
    let json = serde_json::to_string(&rec).unwrap();
    assert!(json.contains("\"resigned\":\"south\""), "{json}");
    assert_eq!(Record::parse(&json, None).unwrap(), rec);
    let text = rec.to_text().unwrap();
    assert!(
        text.contains("[Result \"North wins: South resigned\"]"),
        "{text}"
    );
    assert_eq!(Record::parse(&text, None).unwrap().result, rec.result);
    let finished =
        "[Variant \"kalah,pits=1,seeds=1\"]\n[Result \"North wins: South resigned\"]\n1. A\n";
    let e = Record::parse(finished, None).unwrap_err().to_string();
    assert!(e.contains("South resigned, but the game is over"), "{e}");
    rec.result = Some(resigned(Some(Side::South), s[0]));
    let e = rec.replay().unwrap_err().to_string();
    assert!(
        e.contains("South resigned, so North wins, but gives South wins"),
        "{e}"
    );
    rec.result = Some(resigned(Some(Side::North), s[0] + 1));
    let e = rec.replay().unwrap_err().to_string();
    assert!(e.contains("when South resigned, the replay gives"), "{e}");
}

/// A JSON record's bad number or name is refused in the words a text record gets for it,
/// not serde's (`expected u8`, `unknown variant`).
#[test]
fn json_records_are_refused_in_the_words_of_text_records() {
    let refused = |text: &str| Record::parse(text, None).unwrap_err().to_string();
    for (rules, json_rules, says) in [
        (
            "kalah,seeds=300",
            r#"{"preset":"kalah","seeds":300}"#,
            "rules: seeds must be 1 to 20, got 300",
        ),
        (
            "kalah,seeds=25",
            r#"{"preset":"kalah","seeds":25}"#,
            "rules: seeds must be 1 to 20, got 25",
        ),
        (
            "kalah,pits=256",
            r#"{"preset":"kalah","pits":256}"#,
            "rules: pits must be 1 to 12, got 256",
        ),
        (
            "kalah,end=X",
            r#"{"preset":"kalah","end":"X"}"#,
            "rules: option `end` is any-row-empty or mover-empty, got `X`",
        ),
        (
            "chess",
            r#"{"preset":"chess"}"#,
            "rules: unknown preset `chess`",
        ),
    ] {
        let text = refused(&format!("[Variant \"{rules}\"]\n"));
        let json = refused(&format!(r#"{{"rules":{json_rules},"turns":[]}}"#));
        assert!(text.contains(says), "{text}");
        assert!(json.starts_with(&format!("record: JSON: {says}")), "{json}");
    }
    let json = refused(r#"{"rules":{"preset":"kalah","pits":-1},"turns":[]}"#);
    assert!(
        json.contains("JSON: rules: pits must be 1 to 12, got -1"),
        "{json}"
    );
    let json =
        refused(r#"{"rules":{"preset":"kalah"},"turns":[{"side":"south","moves":[{"pit":300}]}]}"#);
    assert!(
        json.contains(
            "JSON: field turns[0].moves[0].pit: pit 300 does not exist (a row has at most 12 pits)"
        ),
        "{json}"
    );
    let json = refused(
        r#"{"rules":{"preset":"kalah"},"turns":[],"result":{"south":999,"north":0,"winner":null}}"#,
    );
    assert!(
        json.contains("JSON: field result.south: a store holds 0 to 511 seeds, got 999"),
        "{json}"
    );
    // A value of the wrong type is named by its field.
    let json = refused(r#"{"rules":{"preset":"kalah"},"time_control":3,"turns":[]}"#);
    assert!(
        json.contains("JSON: field time_control: invalid type: integer `3`"),
        "{json}"
    );
    let json = refused(
        r#"{"rules":{"preset":"kalah"},"turns":[{"side":"south","moves":[{"pit":1,"eval":"abc"}]}]}"#,
    );
    assert!(
        json.contains("JSON: field turns[0].moves[0].eval: "),
        "{json}"
    );
    // Text after the record is refused, as a second record would be.
    let json = refused(
        r#"{"rules":{"preset":"kalah"},"turns":[]} {"rules":{"preset":"kalah"},"turns":[]}"#,
    );
    assert!(json.contains("JSON: trailing characters"), "{json}");
    // Numbers that fit still read.
    let rec = Record::parse(r#"{"rules":{"preset":"kalah","pits":4,"seeds":2},"turns":[{"side":"south","moves":[{"pit":1}]}]}"#, None).unwrap();
    assert_eq!(
        (rec.rules.pits, rec.rules.seeds, rec.turns[0].moves[0].pit),
        (4, 2, 1)
    );
}

#[test]
fn a_tag_given_twice_is_refused_with_its_lines() {
    let text = "[Variant \"kalah\"]\n[South \"Ann\"]\n[Variant \"kauri\"]\n1. A\n";
    let e = Record::parse(text, None).unwrap_err().to_string();
    assert!(
        e.contains("line 3: a second Variant tag (the first is on line 1)"),
        "{e}"
    );
    let text = "[Variant \"kalah\"]\n[North \"Bo\"]\n\n[North \"Cy\"]\n";
    let e = Record::parse(text, None).unwrap_err().to_string();
    assert!(
        e.contains("line 4: a second North tag (the first is on line 2)"),
        "{e}"
    );
    // Each tag once reads as before.
    let text = "[Variant \"kalah\"]\n[South \"Ann\"]\n[North \"Bo\"]\n1. A\n";
    assert_eq!(
        Record::parse(text, None).unwrap().players.north.as_deref(),
        Some("Bo")
    );
}

#[test]
fn slips_get_their_own_errors() {
    // Each slip as (record, what its error says).
    let refused = |text: &str, says: &str| {
        let e = Record::parse(text, None).unwrap_err().to_string();
        assert!(e.contains(says), "{text:?}: {e}");
    };
    // A position under another tag name, and a JSON array, are not read as text.
    refused(
        "[Variant \"kalah\"]\n[Start \"kalah/4-4-4-4-4-4/0/4-4-4-4-4-4/0/s\"]\n1. C\n",
        "line 2: tag Start holds a position",
    );
    refused(" [ ]", "not an array");
    refused(
        "[Variant \"kalah\"]\n1. C (+99999999999)\n",
        "more than any board holds",
    );
    // Kalah annotates store gains: a `-n` is refused, not dropped.
    refused(
        "[Variant \"kalah\"]\n1. D-C (-5) a\n",
        "annotated with its store gain",
    );
    // A final score on a game still going, and a move after the score.
    refused(
        "[Variant \"kalah\"]\n1. D-C (+1) a\n1 : 0\n",
        "but the game is not over",
    );
    refused(
        "[Variant \"kalah\"]\n1. D-C (+1) a\n1 : 0\n2. F\n",
        "a move after the final score",
    );
    // The game over, a further move is named without a side to move.
    let mut text = String::from("[Variant \"kalah,seeds=3\"]\n");
    let rules: Rules = "kalah,seeds=3".parse().unwrap();
    let mut game = Game::new(Position::start(&rules).unwrap());
    let mut n = 0;
    while !game.is_over() {
        // A turn's moves joined by `-` while the same side moves again.
        let side = game.to_move();
        n += 1;
        text.push_str(&format!("{n}. "));
        loop {
            let mv = *game.legal_moves().as_slice().last().unwrap();
            text.push_str(&crate::notation::Notation::Letters.move_text(side, mv));
            game.play(mv).unwrap();
            if game.is_over() || game.to_move() != side {
                break;
            }
            text.push('-');
        }
        text.push(' ');
    }
    text.push_str(&format!("{}. A\n", n + 1));
    let e = Record::parse(&text, None).unwrap_err().to_string();
    assert!(
        e.contains(&format!(
            "turn {}, move 1 `A`: the game is already over",
            n + 1
        )),
        "{e}"
    );
}

/// A swap reads and writes as `swap` in text and JSON, and replays as the same game.
#[test]
fn a_swap_round_trips_in_text_and_json() {
    let rules: Rules = "kalah,pits=4,seeds=2,first-move-extra-turn=false,pie"
        .parse()
        .unwrap();
    let mut game = Game::from_rules(&rules).unwrap();
    game.play(2).unwrap(); // C: South's first move ends in the store, North moves.
    game.play(crate::SWAP).unwrap();
    while !game.is_over() {
        let mv = game.legal_moves().as_slice()[0];
        game.play(mv).unwrap();
    }
    let rec = Record::from_game(&game, Players::default());
    assert_eq!(rec.turns[1].side, Side::North);
    assert_eq!(rec.turns[1].moves[0].pit, crate::SWAP);
    let json = serde_json::to_string(&rec).unwrap();
    assert!(
        json.contains(r#"{"side":"north","moves":[{"pit":"swap"}]}"#),
        "{json}"
    );
    let text = rec.to_text().unwrap();
    assert!(text.contains("1. C (+1)  swap\n2. "), "{text}");
    for back in [Record::parse(&json, None), Record::parse(&text, None)] {
        let back = back.unwrap();
        assert_eq!(back.turns, rec.turns);
        assert_eq!(back.replay().unwrap().position(), game.position());
    }
    // A swap out of place is refused with the reason; a number is never a swap.
    let e = Record::parse("[Variant \"kalah,pie\"]\n1. swap\n", None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("a swap is only North's first action"), "{e}");
    let e = Record::parse("[Variant \"kalah\"]\n1. C swap\n", None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no swap without the pie rule"), "{e}");
    let e = Record::parse(
        r#"{"rules":{"preset":"kalah","pie":true},"turns":[{"side":"south","moves":[{"pit":128}]}]}"#,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("pit 128 does not exist"), "{e}");
}

/// A loss on time, an abandoned game and an agreed draw end an unfinished game: each reads
/// back from JSON and from its text tag, and a winner or stores that do not fit are refused.
#[test]
fn stopped_results_read_back_and_are_checked() {
    let mut game = Game::new(Position::start(&Rules::default()).unwrap());
    game.play(0).unwrap();
    game.play(2).unwrap();
    for stop in [
        Stop::Time(Side::North),
        Stop::Abandoned(Side::South),
        Stop::Agreed,
        Stop::Resigned(Side::North),
    ] {
        let mut rec = Record::from_game(&game, Players::default());
        rec.result = RecordResult::stopped(&game, stop);
        let r = rec.result.clone().unwrap();
        assert_eq!(r.winner, stop.winner());
        assert_eq!(r.stop(), Some(stop));
        let json = serde_json::to_string(&rec).unwrap();
        assert_eq!(Record::parse(&json, None).unwrap(), rec, "{json}");
        let text = rec.to_text().unwrap();
        assert!(
            text.contains(&format!("[Result \"{}\"]", stop.tag().unwrap())),
            "{text}"
        );
        assert_eq!(Record::parse(&text, None).unwrap(), rec, "{text}");
        // The wrong winner is refused.
        let mut bad = rec.clone();
        bad.result.as_mut().unwrap().winner = match stop.winner() {
            Some(w) => Some(w.other()),
            None => Some(Side::South),
        };
        assert!(bad.replay().is_err(), "{stop:?}");
    }
    assert_eq!(
        Stop::Time(Side::South).tag().as_deref(),
        Some("North wins: South lost on time")
    );
    assert_eq!(Stop::from_tag("North wins: North lost on time"), None);
    assert_eq!(RecordResult::stopped(&game, Stop::Cancelled), None);
    // A finished game cannot have been stopped.
    let mut over = Record::from_game(&game, Players::default());
    over.result = RecordResult::stopped(&game, Stop::Agreed);
    over.result.as_mut().unwrap().south += 1;
    assert!(over.replay().is_err());
}

/// The clock a game was played on reads back from its `TimeControl` tag and its JSON field,
/// and a record without a clock has neither.
#[test]
fn a_time_control_round_trips_in_text_and_json() {
    let mut game = Game::from_rules(&"kalah,seeds=3".parse().unwrap()).unwrap();
    game.play(0).unwrap();
    let mut rec = Record::from_game(&game, Players::default());
    let plain = rec.to_text().unwrap();
    assert!(!plain.contains("TimeControl"), "{plain}");
    let json = serde_json::to_string(&rec).unwrap();
    assert!(!json.contains("time_control"), "{json}");
    rec.time_control = Some("3+2".parse().unwrap());
    let text = rec.to_text().unwrap();
    assert!(text.contains("\n[TimeControl \"3+2\"]\n1. A"), "{text}");
    let json = serde_json::to_string(&rec).unwrap();
    assert!(json.contains(r#""time_control":"3+2""#), "{json}");
    for back in [Record::parse(&json, None), Record::parse(&text, None)] {
        let back = back.unwrap();
        assert_eq!(back.time_control, rec.time_control);
        assert_eq!(back.turns, rec.turns);
    }
    let e = Record::parse(
        "[Variant \"kalah\"]\n[TimeControl \"3+2\"]\n[TimeControl \"5+0\"]\n",
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("line 3: a second TimeControl tag"), "{e}");
    // A value that is no time control is refused, in text and in JSON.
    for bad in ["", "abc", "3\"+2", "99999999999999999999+2"] {
        let text = format!("[Variant \"kalah\"]\n[TimeControl \"{bad}\"]\n1. A\n");
        let e = Record::parse(&text, None).unwrap_err().to_string();
        assert!(
            e.contains("line 2: time control: a clock is MINUTES+SECONDS"),
            "{bad}: {e}"
        );
    }
    let json = r#"{"rules":{"preset":"kalah"},"time_control":"3","turns":[]}"#;
    let e = Record::parse(json, None).unwrap_err().to_string();
    assert!(e.contains("a clock is MINUTES+SECONDS"), "{e}");
}

/// An empty record says so; a known tag written in another case is named, not passed over.
#[test]
fn an_empty_record_and_a_tag_in_the_wrong_case_say_so() {
    for empty in ["", "\n  \n", "\u{feff}"] {
        let e = Record::parse(empty, None).unwrap_err().to_string();
        assert_eq!(e, "record: the record is empty");
    }
    // With the rules given, no text is a game without moves, as before.
    let rules: Rules = "kalah".parse().unwrap();
    assert!(Record::parse("", Some(rules)).unwrap().turns.is_empty());
    let e = Record::parse("[variant \"kalah\"]\n1. A\n", None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("line 1: the tag is written Variant, not variant"),
        "{e}"
    );
    let e = Record::parse("[Variant \"kalah\"]\n[TIMECONTROL \"3+2\"]\n", None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("line 2: the tag is written TimeControl, not TIMECONTROL"),
        "{e}"
    );
    // Other tags are still comments.
    assert!(Record::parse("[Variant \"kalah\"]\n[Event \"Club\"]\n1. A\n", None).is_ok());
}
