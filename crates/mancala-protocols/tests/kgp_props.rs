//! The KGP message and board literal on any input: no panic, every message read prints back
//! to one that reads the same, and a position's board literal reads back to the position.

mod common;

use mancala_core::{Position, Rules, Side};
use mancala_protocols::kgp::{board_for, board_of, position_of, Arg, Message};
use proptest::prelude::*;

fn arg() -> impl Strategy<Value = Arg> {
    prop_oneof![
        any::<i64>().prop_map(Arg::Int),
        any::<f64>()
            .prop_filter("finite", |v| v.is_finite())
            .prop_map(Arg::Real),
        "[ -~]{0,12}".prop_map(Arg::Text),
        "[a-z:-][a-z0-9:-]{0,8}".prop_map(Arg::Text),
        prop::collection::vec(any::<u32>(), 1..20).prop_map(Arg::Board),
    ]
}

fn message() -> impl Strategy<Value = Message> {
    (
        any::<Option<u64>>(),
        any::<Option<u64>>(),
        "[a-z][a-z0-9]{0,7}",
        prop::collection::vec(arg(), 0..6),
    )
        .prop_map(|(id, reference, name, args)| Message {
            id,
            reference,
            name,
            args,
        })
}

/// A position of Kalah on 1 to 8 pits reached by random moves from the start.
fn position() -> impl Strategy<Value = Position> {
    (1u8..=8, 1u8..=15, prop::collection::vec(any::<u8>(), 0..60)).prop_filter_map(
        "rules within the core",
        |(pits, seeds, moves)| {
            let rules: Rules = format!("kalah,pits={pits},seeds={seeds},stop-when-decided")
                .parse()
                .ok()?;
            let mut pos = Position::start(&rules).ok()?;
            for m in moves {
                let legal = pos.legal_moves();
                if legal.is_empty() {
                    break;
                }
                let next = legal.as_slice()[m as usize % legal.len()];
                let mut after = pos;
                after.play(next).ok()?;
                if after.is_over() {
                    break;
                }
                pos = after;
            }
            Some(pos)
        },
    )
}

proptest! {
    #[test]
    fn messages_round_trip(m in message()) {
        let text = m.to_string();
        prop_assert_eq!(Message::parse(&text), Ok(m), "{}", text);
    }

    /// Any line, and a valid one damaged: an error or a message that prints back to a line
    /// that reads the same.
    #[test]
    fn the_parser_never_panics(
        line in "([0-9@<>,\" \\\\.+-]|move|state|[a-z]|\\PC){0,40}",
        m in message(),
        cut in any::<prop::sample::Index>(),
        junk in "\\PC{0,3}",
    ) {
        for text in [line.clone(), common::damaged(&m.to_string(), cut, &junk)] {
            if let Ok(back) = Message::parse(&text) {
                prop_assert_eq!(Message::parse(&back.to_string()), Ok(back));
            }
        }
    }

    #[test]
    fn board_literals_round_trip(pos in position(), junk in prop::collection::vec(any::<u32>(), 0..30)) {
        // South to move: the literal as it is; North to move: the literal the North player
        // is sent, which reads back as the mirrored position.
        let seat = pos.to_move();
        let literal = board_for(&pos, seat);
        let back = position_of(&literal).unwrap();
        let expected = if seat == Side::South { pos } else { pos.mirrored() };
        prop_assert_eq!(board_of(&back), board_of(&expected));
        prop_assert_eq!(back.legal_moves(), expected.legal_moves());
        let text = Message::new("state", vec![Arg::Board(literal.clone())]).to_string();
        let read = Message::parse(&text).unwrap();
        prop_assert_eq!(read.board(0), Some(&literal[..]));
        // Any numbers: a position or an error, never a panic.
        let _ = position_of(&junk);
    }
}
