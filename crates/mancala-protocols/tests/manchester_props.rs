//! The Manchester protocol's parsers on any input: no panic, and every message they accept
//! prints back to the same text.

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
            if let Ok(a) = Action::parse(&text) {
                prop_assert_eq!(a.to_string(), text.trim_end_matches('\r'));
            }
        }
    }
}
