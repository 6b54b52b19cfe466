//! KGP messages read and refused as the grammar says, and boards as the core holds them.

use super::*;

#[test]
fn messages_read_as_the_grammar_says() {
    let m = Message::parse("4 state <3,0,0,3,3,3,3,3,3>\r\n").unwrap();
    assert_eq!(m.id, Some(4));
    assert_eq!(m.reference, None);
    assert_eq!(m.name, "state");
    assert_eq!(m.board(0), Some(&[3, 0, 0, 3, 3, 3, 3, 3, 3][..]));
    let m = Message::parse("6@4 stop").unwrap();
    assert_eq!(
        (m.id, m.reference, m.name.as_str()),
        (Some(6), Some(4), "stop")
    );
    let m = Message::parse("@8 move 3").unwrap();
    assert_eq!((m.id, m.reference, m.int(0)), (None, Some(8), Some(3)));
    let m = Message::parse("kgp 1 0 1").unwrap();
    assert_eq!(m.args, vec![Arg::Int(1), Arg::Int(0), Arg::Int(1)]);
    let m = Message::parse(r#"set info:name "a \"quoted\" name" -.5 +3.25 x-1"#).unwrap();
    assert_eq!(
        m.args,
        vec![
            Arg::Text("info:name".into()),
            Arg::Text("a \"quoted\" name".into()),
            Arg::Real(-0.5),
            Arg::Real(3.25),
            Arg::Text("x-1".into()),
        ]
    );
    assert_eq!(
        Message::new("eval", vec![Arg::Real(2.0)])
            .answering(7)
            .to_string(),
        "@7 eval 2.0"
    );
    assert_eq!(
        Message::new("error", vec![Arg::Text("12".into())]).to_string(),
        "error \"12\""
    );
}

#[test]
fn bad_messages_say_what_is_wrong() {
    for (line, needle) in [
        ("", "command name"),
        ("@ move 1", "a number after `@`"),
        ("4state", "a space after the id"),
        (" 0", "command name"),
        ("move 1,2", "no integer, real, word, string or board"),
        ("state <3,0,>", "a count of seeds"),
        ("state <3,0", "`,` or `>`"),
        ("state <3>x", "a space after the board"),
        ("set x \"open", "not closed"),
        ("move 99999999999999999999", "out of range"),
        ("99999999999999999999 move 1", "too large"),
        ("state <99999999999>", "too many"),
        ("move 1\tä", "no integer"),
    ] {
        let e = Message::parse(line).unwrap_err().to_string();
        assert!(e.contains(needle), "{line:?}: {e}");
    }
    let long = format!("set x \"{}\"", "a".repeat(MAX_LINE));
    assert!(Message::parse(&long)
        .unwrap_err()
        .to_string()
        .contains("more than 16384"));
}

#[test]
fn the_board_literal_is_souths_view() {
    let pos = position_of(&[3, 10, 2, 1, 2, 3, 4, 2, 0]).unwrap();
    assert_eq!(pos.scores(), [10, 2]);
    assert_eq!(pos.seeds(Side::South, 0), 1);
    assert_eq!(pos.seeds(Side::North, 0), 4);
    assert_eq!(pos.to_move(), Side::South);
    assert_eq!(board_of(&pos), vec![3, 10, 2, 1, 2, 3, 4, 2, 0]);
    assert_eq!(
        board_for(&pos, Side::North),
        vec![3, 2, 10, 4, 2, 0, 1, 2, 3]
    );
    assert_eq!(
        pos.rules().to_string(),
        "kalah,pits=3,seeds=4,stop-when-decided=true"
    );
}

#[test]
fn boards_the_core_cannot_hold_are_refused() {
    for (board, needle) in [
        (vec![], "empty board"),
        (vec![3, 0, 0, 3], "holds 4 numbers, not 9"),
        (vec![13; 29], "at most 12 pits"),
        (
            vec![6, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            "a board of 1 seed on 6 pits a row",
        ),
        (
            vec![6, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
            "a board of 2 seeds on 6 pits a row: this engine plays only boards whose seeds could start evenly in the pits (a multiple of 12)",
        ),
        (
            vec![6, 400, 200, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            "at most 511",
        ),
        (vec![u32::MAX; 3], "holds 3 numbers"),
        // Over already: South's row is empty.
        (vec![3, 10, 2, 0, 0, 0, 4, 2, 0], "already over"),
    ] {
        let e = position_of(&board).unwrap_err().to_string();
        assert!(e.contains(needle), "{board:?}: {e}");
    }
}
