//! Rules strings and their JSON: parsing never panics; parsed rules print a string (and JSON)
//! that parses back equal, and their start position exists.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mancala_core::{Position, Rules};

fn check(r: Rules, from: &str) {
    let text = r.to_string();
    let back: Rules = text
        .parse()
        .unwrap_or_else(|e| panic!("`{text}` (from `{from}`) does not parse back: {e}"));
    assert_eq!(back, r, "`{text}` (from `{from}`)");
    let json = serde_json::to_string(&r).unwrap();
    assert_eq!(serde_json::from_str::<Rules>(&json).unwrap(), r, "{json}");
    let start = Position::start(&r).unwrap();
    assert_eq!(start.to_string().parse::<Position>().unwrap(), start);
    let _ = r.describe();
}

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(r) = s.parse::<Rules>() {
        check(r, s);
    }
    if let Ok(r) = serde_json::from_str::<Rules>(s) {
        check(r, s);
    }
});
