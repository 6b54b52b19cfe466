//! Manchester Kalah: a line read as a referee's message and as an agent's move. Reading never
//! panics; a referee's message read prints back to a line that reads the same; a move read
//! is `SWAP` or `MOVE;` and a number `Integer.parseInt` reads as its pit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mancala_protocols::manchester::{Action, ToAgent};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(m) = ToAgent::parse(text) {
        let printed = m.to_string();
        assert_eq!(ToAgent::parse(&printed), Ok(m), "{printed}");
    }
    if let Ok(a) = Action::parse(text) {
        let line = text.strip_suffix('\r').unwrap_or(text);
        match a {
            Action::Swap => assert_eq!(line, "SWAP"),
            Action::Move(k) => {
                assert!((1..=7).contains(&k), "{text:?}");
                let number = line.strip_prefix("MOVE;").expect("a move starts MOVE;");
                assert_eq!(number.parse::<i32>(), Ok(i32::from(k)), "{text:?}");
            }
        }
        assert_eq!(Action::parse(&a.to_string()), Ok(a));
    }
});
