//! KGP: a line read as a message, and as a board literal's numbers. Reading never panics; a
//! message read prints back to a line that reads the same; a board that reads as a position
//! prints back to the same numbers.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mancala_protocols::kgp::{board_of, position_of, Message};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(m) = Message::parse(text) else {
        return;
    };
    let printed = m.to_string();
    let back = Message::parse(&printed).unwrap_or_else(|e| panic!("{printed:?}: {e}"));
    assert_eq!(back, m, "{printed}");
    for i in 0..m.args.len() {
        if let Some(b) = m.board(i) {
            if let Ok(pos) = position_of(b) {
                assert_eq!(board_of(&pos), b);
            }
        }
    }
});
