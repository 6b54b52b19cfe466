//! Position strings: parsing never panics; a parsed position prints a string that parses
//! back equal (and prints the same); every legal move from it keeps the seed count and gives
//! a position that round-trips too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mancala_core::{Position, Side};

fn round_trip(p: &Position, from: &str) {
    let text = p.to_string();
    let back: Position = text
        .parse()
        .unwrap_or_else(|e| panic!("`{text}` (from `{from}`) does not parse back: {e}"));
    assert_eq!(
        back, *p,
        "`{text}` (from `{from}`) parses to another position"
    );
    assert_eq!(back.to_string(), text);
    assert_eq!(back.outcome(), p.outcome(), "`{text}`");
    let json = serde_json::to_string(p).unwrap();
    assert_eq!(serde_json::from_str::<Position>(&json).unwrap(), *p);
}

fn conserved(p: &Position) {
    let [s, n] = p.scores();
    assert_eq!(
        p.board_seeds() + s as u32 + n as u32,
        p.rules().total_seeds(),
        "seeds in {p}"
    );
    let cowries: u32 = Side::BOTH
        .iter()
        .flat_map(|&side| (0..p.pits()).map(move |i| p.cowries(side, i) as u32))
        .sum();
    if !p.rules().preset.is_kalah_family() {
        assert_eq!(cowries, 2 * p.pits() as u32, "cowries in {p}");
    }
    assert_eq!(
        p.legal_moves().is_empty(),
        p.is_over(),
        "legal moves in {p}"
    );
}

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(p) = s.parse::<Position>() else {
        return;
    };
    round_trip(&p, s);
    conserved(&p);
    if !p.is_over() {
        round_trip(&p.mirrored(), s);
    }
    for pit in &p.legal_moves() {
        let mut q = p;
        q.play(pit).unwrap();
        conserved(&q);
        assert!(q.scores()[0] >= p.scores()[0] && q.scores()[1] >= p.scores()[1]);
        round_trip(&q, s);
    }
});
