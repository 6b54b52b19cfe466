use super::*;

#[test]
fn move_numbers_follow_on() {
    let err = |t: &str| parse(Notation::Letters, t).unwrap_err().to_string();
    assert!(err("1. C c 1. D d").contains("move number 1 again"));
    assert!(err("0. C c").contains("move numbers count from 1"));
    assert!(err("1. C c 3. D d")
        .contains("move number 3 does not follow on: 2 turns after move 1, the next number is 2"));
    assert!(err("2. C c 1. D d").contains("move number 1 does not follow on"));
    assert!(err("1. C 3. c").contains("1 turn after move 1, the next number is 2"));
    assert!(err("1. C c D 4. d").contains("3 turns after move 1, the next number is 2 or 3"));
    assert!(err("1. 2. C").contains("move number 1 has no move"));
    // A number at the end, with nothing after it to number.
    assert_eq!(
        err("1. E f 2."),
        "record: line 1, column 8 (at `2.`): move number 2 has no move"
    );
    assert!(
        err("1. E f\n2.\n").contains("line 2, column 1 (at `2.`): move number 2 has no move"),
        "{}",
        err("1. E f\n2.\n")
    );
    // An excerpt stops at the end of its line.
    let e = parse(Notation::Digits, "1-6 (+2)\n5 (-1)")
        .unwrap_err()
        .to_string();
    assert!(e.contains("(at `(+2)`)"), "{e}");
    assert!(err("1. E f 2").contains("`2` is not a move: pits are written as letters"));
    let e = parse(Notation::Digits, "1. 1-6 (-2) 5 (-1) 2.")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("column 20 (at `2.`): move number 2 has no move"),
        "{e}"
    );
    assert!(err("1. C c -5 : 3").contains("a final score is never negative"));
    assert!(err("1. C c 5 : -3").contains("a score is written `38 : 26`"));
    // Pits written as digits, as `play` takes them.
    assert!(err("1. 3 1").contains("`3` is not a move: pits are written as letters"));
    assert!(err("1. C f 2. B 7 c").contains("`7` is not a move"));
    // Any first number (a record from a position), North first after `...`, and
    // numbers left out for a while.
    for ok in [
        "7. C c 8. D",
        "1. ... c 2. C d",
        "1. C c D d 3. E e",
        "1. C c 2. D-E d",
    ] {
        assert!(parse(Notation::Letters, ok).is_ok(), "{ok}");
    }
}

#[test]
fn parses_the_source_layouts() {
    let t = parse(
        Notation::Digits,
        "- 1-6 (-2)....5 (-1)\n- 5 (-1).......2 (-1)\n1 (-2)",
    )
    .unwrap();
    assert_eq!(t.turns.len(), 5);
    assert_eq!(
        t.turns[0].moves.iter().map(|m| m.pit).collect::<Vec<_>>(),
        [0, 5]
    );
    assert_eq!(t.turns[0].minus, Some(2));
    let t = parse(Notation::Kauri, "8. c C (+1;-1); 9. d-a-f (+34) D! 38 : 26").unwrap();
    assert_eq!(t.turns.len(), 4);
    assert_eq!(t.turns[1].plus, Some(1));
    assert_eq!(t.turns[1].minus, Some(1));
    assert_eq!(t.turns[1].moves[0].side, Some(Side::North));
    assert_eq!(t.turns[2].moves.len(), 3);
    assert_eq!(t.turns[3].moves[0].comment.as_deref(), Some("!"));
    assert_eq!(t.score, Some([38, 26]));
}

#[test]
fn a_dracala_capture_with_a_plus_sign_is_refused() {
    let e = parse(Notation::Digits, "1-6 (+2) 5 (-1)")
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "record: line 1, column 5 (at `(+2) 5 (-1)`): annotation `+2`: a Dracala turn's capture is written `-n`"
    );
    assert_eq!(
        parse(Notation::Digits, "1-6 (-2)").unwrap().turns[0].minus,
        Some(2)
    );
}

#[test]
fn an_empty_annotation_is_refused() {
    for (n, text, inner) in [
        (Notation::Kauri, "a (;) A", "(;)"),
        (Notation::Kauri, "a ( ) A", "( )"),
        (Notation::Letters, "1. C () c", "()"),
        (Notation::Digits, "1-6 (,)", "(,)"),
    ] {
        let e = parse(n, text).unwrap_err().to_string();
        assert!(
            e.ends_with(&format!("annotation `{inner}` holds no `+n` or `-n`")),
            "{text}: {e}"
        );
    }
    let t = parse(Notation::Kauri, "a (+1; -2) A").unwrap();
    assert_eq!((t.turns[0].plus, t.turns[0].minus), (Some(1), Some(2)));
}

/// A bad move character is refused naming the pits the board has.
#[test]
fn bad_moves_name_the_boards_pits() {
    let replayed = |rules: &str, text: &str| {
        let mut game = Game::from_rules(&rules.parse().unwrap()).unwrap();
        replay(&mut game, text, Check::Strict)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        replayed("kalah", "1. E f Z"),
        "record: line 1, column 8 (at `Z`): unexpected `Z`, expected a pit letter a-f or A-F"
    );
    assert!(
        replayed("vaccean", "1. A z").ends_with("unexpected `z`, expected a pit letter a-d or A-D")
    );
    assert!(replayed("kauri", "a 7")
        .ends_with("`7` is not a move: pits are written as letters here (a-f, A-F)"));
    assert!(replayed("kalah", "1. E f 2")
        .ends_with("`2` is not a move: pits are written as letters here (a-f, A-F)"));
    assert!(replayed("dracala", "1-6 x").ends_with("expected a pit digit 1-6"));
    assert!(replayed("dracala,pits=4", "12 3").ends_with("`12` is not a pit (1-4)"));
    // Without a board, any the notation allows.
    let e = parse(Notation::Letters, "1. Z").unwrap_err().to_string();
    assert!(e.ends_with("expected a pit letter a-l or A-L"), "{e}");
    let e = parse(Notation::Digits, "1-6 x").unwrap_err().to_string();
    assert!(e.ends_with("expected a pit digit 1-9"), "{e}");
}

#[test]
fn parse_errors_say_where() {
    for (n, text, needle) in [
        (Notation::Digits, "1-6 (-2) 5 (-x)", "column 12"),
        (Notation::Digits, "1-6 (-2", "without"),
        (Notation::Letters, "1. C z", "unexpected `z`"),
        (Notation::Digits, "12 3", "not a pit"),
        (Notation::Letters, "(+1) A", "before any move"),
    ] {
        let e = parse(n, text).unwrap_err().to_string();
        assert!(e.contains(needle), "{text}: {e}");
    }
}
