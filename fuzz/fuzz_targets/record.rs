//! Game records, text and JSON: the first byte picks the rules passed to the parser (none, or
//! a preset's), the rest is the record. Parsing never panics; a parsed record replays, and its
//! JSON and its text form read back to the same game.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mancala_core::record::{Record, RecordTurn};
use mancala_core::{Position, Preset};

/// Sides and pits of each turn (what both forms carry).
fn moves(turns: &[RecordTurn]) -> Vec<(mancala_core::Side, Vec<u8>)> {
    turns
        .iter()
        .map(|t| (t.side, t.moves.iter().map(|m| m.pit).collect()))
        .collect()
}

/// Names the text form carries unchanged (a tag value is one line without `"`).
fn plain(name: &Option<String>) -> bool {
    name.as_deref()
        .is_none_or(|n| !n.contains('"') && !n.contains(char::is_control))
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    // Half the inputs name their own rules (a Variant or Position tag, or JSON).
    let rules =
        (pick % 2 == 1).then(|| Preset::ALL[(pick / 2) as usize % Preset::ALL.len()].rules());
    let Ok(rec) = Record::parse(text, rules) else {
        return;
    };
    let game = rec.replay().expect("a parsed record replays");
    if let Some(r) = rules {
        assert_eq!(rec.rules, r);
    }

    // JSON round trip (evaluations compared loosely: JSON floats need not read back bit-exact).
    let json = serde_json::to_string(&rec).unwrap();
    let mut back: Record = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    let mut orig = rec.clone();
    for (a, b) in orig.turns.iter_mut().zip(back.turns.iter_mut()) {
        for (x, y) in a.moves.iter_mut().zip(b.moves.iter_mut()) {
            match (x.eval.take(), y.eval.take()) {
                (Some(u), Some(v)) => assert!((u - v).abs() <= 1e-9 * u.abs().max(1.0)),
                (u, v) => assert_eq!(u, v),
            }
        }
    }
    assert_eq!(back, orig, "{json}");
    let g = Record::parse(&json, None)
        .unwrap_or_else(|e| panic!("{e}: {json}"))
        .replay()
        .unwrap();
    assert_eq!(g.moves(), game.moves());

    // Text round trip.
    let printed = rec.to_text().expect("a replayable record prints");
    let again = Record::parse(&printed, None)
        .unwrap_or_else(|e| panic!("{e}\n--- from {text:?}\n--- printed:\n{printed}"));
    assert_eq!(again.rules, rec.rules);
    let default_start = Position::start(&rec.rules).ok();
    assert_eq!(again.start, rec.start.filter(|s| Some(*s) != default_start));
    assert_eq!(moves(&again.turns), moves(&rec.turns), "{printed}");
    let g = again.replay().unwrap();
    assert_eq!(g.moves(), game.moves());
    assert_eq!(g.position(), game.position());
    assert_eq!(g.outcome(), game.outcome());
    assert_eq!(again.result.is_some(), game.is_over());
    if let Some(r) = &rec.result {
        let a = again.result.as_ref().unwrap();
        assert_eq!((a.south, a.north, a.winner), (r.south, r.north, r.winner));
    }
    if plain(&rec.players.south) && plain(&rec.players.north) {
        assert_eq!(again.players, rec.players, "{printed}");
    }
    // What the text form prints, it reads back exactly.
    assert_eq!(again.to_text().unwrap(), printed);
});
