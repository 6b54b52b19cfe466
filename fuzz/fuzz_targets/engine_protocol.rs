//! The engine protocol: a line read as a command. Reading never panics; a `position` read
//! holds a game whose position prints and reads back the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mancala_core::Position;
use mancala_protocols::protocol::Command;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(Some(Command::Position(game))) = Command::parse(text) {
        let printed = game.position().to_string();
        let back: Position = printed.parse().unwrap_or_else(|e| panic!("{printed}: {e}"));
        assert_eq!(back, *game.position(), "{printed}");
    }
});
