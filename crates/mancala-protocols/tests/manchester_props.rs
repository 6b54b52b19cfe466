//! The Manchester protocol's parsers on any input: no panic, every referee's message they
//! accept prints back to the same text, and an agent's move is read as the course's Java
//! referee reads it.

mod common;

use mancala_protocols::manchester::{Action, ToAgent, Turn};
use proptest::prelude::*;

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![(1u8..=7).prop_map(Action::Move), Just(Action::Swap)]
}

fn message() -> impl Strategy<Value = ToAgent> {
    let turn = prop_oneof![Just(Turn::You), Just(Turn::Opp), Just(Turn::End)];
    prop_oneof![
        Just(ToAgent::Start(mancala_core::Side::South)),
        Just(ToAgent::Start(mancala_core::Side::North)),
        Just(ToAgent::End),
        (action(), any::<[u8; 16]>(), turn).prop_map(|(action, state, turn)| ToAgent::Change {
            action,
            state,
            turn
        }),
    ]
}

proptest! {
    #[test]
    fn messages_round_trip(m in message(), a in action()) {
        prop_assert_eq!(ToAgent::parse(&m.to_string()), Ok(m));
        prop_assert_eq!(Action::parse(&a.to_string()), Ok(a));
    }

    /// Any line, and a valid one damaged: an error or a message that prints back the same.
    #[test]
    fn parsers_never_panic(
        line in "(START|CHANGE|END|MOVE|SWAP|;|,|[0-9]{1,4}|YOU|OPP|South|North|\\PC){0,24}",
        m in message(),
        cut in any::<prop::sample::Index>(),
        junk in "\\PC{0,3}",
    ) {
        for text in [line.clone(), common::damaged(&m.to_string(), cut, &junk)] {
            if let Ok(back) = ToAgent::parse(&text) {
                prop_assert_eq!(ToAgent::parse(&back.to_string()), Ok(back));
            }
            check_action(&text)?;
        }
    }

    /// A move's number in any spelling `Integer.parseInt` takes (a sign, leading zeros):
    /// a move exactly where the value is a pit.
    #[test]
    fn move_numbers_read_as_java_reads_them(
        n in prop_oneof![-9i64..=16, any::<i32>().prop_map(i64::from), any::<i64>()],
        sign in prop_oneof![Just(""), Just("+")],
        zeros in 0usize..4,
    ) {
        let digits = format!("{}{}", "0".repeat(zeros), n.unsigned_abs());
        let text = if n < 0 { format!("MOVE;-{digits}") } else { format!("MOVE;{sign}{digits}") };
        let got = Action::parse(&text);
        match n {
            1..=7 => prop_assert_eq!(got, Ok(Action::Move(n as u8))),
            _ => prop_assert!(got.is_err(), "{}", text),
        }
        check_action(&text)?;
    }
}

/// An agent's line the referee reads: an error, or `SWAP`, or `MOVE;` and a number that
/// reads as `Integer.parseInt` reads it (an optional sign, ASCII digits, a 32-bit value)
/// and is the pit of the action.
fn check_action(text: &str) -> Result<(), TestCaseError> {
    let Ok(a) = Action::parse(text) else {
        return Ok(());
    };
    let line = text.strip_suffix('\r').unwrap_or(text);
    match a {
        Action::Swap => prop_assert_eq!(line, "SWAP"),
        Action::Move(k) => {
            let number = line.strip_prefix("MOVE;").unwrap_or_default();
            let unsigned = number.strip_prefix(['+', '-']).unwrap_or(number);
            prop_assert!(!unsigned.is_empty() && unsigned.bytes().all(|b| b.is_ascii_digit()));
            prop_assert_eq!(number.parse::<i32>(), Ok(i32::from(k)), "{}", text);
        }
    }
    Ok(())
}

/// Lines real agents sent, and the edges of the Java referee's reading of them.
#[test]
fn held_inputs() {
    for (line, want) in [
        ("MOVE;+3", Some(3)),
        ("MOVE;03", Some(3)),
        ("MOVE;+007", Some(7)),
        ("MOVE;3\r", Some(3)),
        ("MOVE;-0", None),
        ("MOVE;+0", None),
        ("MOVE;-3", None),
        ("MOVE;8", None),
        ("MOVE;2147483647", None),
        ("MOVE;2147483648", None),
        ("MOVE;-2147483649", None),
        ("MOVE; 3", None),
        ("MOVE;3 ", None),
        ("MOVE;+", None),
        ("MOVE;+-3", None),
        ("MOVE;--3", None),
        ("MOVE;\u{663}", None),
        ("MOVE;３", None),
        ("MOVE;", None),
        ("move;3", None),
    ] {
        assert_eq!(Action::parse(line).ok(), want.map(Action::Move), "{line:?}");
        check_action(line).unwrap();
    }
    // The referee's own messages stay in the one spelling it writes.
    for line in [
        "CHANGE;+3;7,7,7,7,7,7,7,0,7,7,7,7,7,7,7,0;YOU",
        "CHANGE;03;7,7,7,7,7,7,7,0,7,7,7,7,7,7,7,0;YOU",
    ] {
        assert!(ToAgent::parse(line).is_err(), "{line}");
    }
}
