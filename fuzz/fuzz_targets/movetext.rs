//! Movetext: the first byte picks the notation (and a game that uses it), the rest is the
//! text. Parsing and replaying never panic; where a replay succeeds, the game's own movetext
//! replays strictly (every annotation and the score checked) to the same game.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mancala_core::notation::{self, Check, Notation};
use mancala_core::{Game, Rules};

const LETTERS: &[&str] = &[
    "kalah",
    "kalah,seeds=4",
    "kalah-brazil",
    "vaccean",
    "cross-kalah",
    "kalah,pits=8,seeds=2,capture=empty,end=mover-empty",
];
const DIGITS: &[&str] = &["dracala", "dracala,pits=4,seeds=3,leftovers=last-capturer"];
const KAURI: &[&str] = &["kauri", "kauri,pits=3,seeds=2,stop-when-decided=false"];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let (notation, games) = match pick % 3 {
        0 => (Notation::Letters, LETTERS),
        1 => (Notation::Digits, DIGITS),
        _ => (Notation::Kauri, KAURI),
    };
    let rules: Rules = games[(pick / 3) as usize % games.len()].parse().unwrap();
    assert_eq!(Notation::for_rules(&rules), notation);
    let _ = notation::parse(notation, text);
    let mut strict = Game::from_rules(&rules).unwrap();
    let strict_ok = notation::replay(&mut strict, text, Check::Strict).is_ok();
    let mut game = Game::from_rules(&rules).unwrap();
    if notation::replay(&mut game, text, Check::MovesOnly).is_err() {
        assert!(
            !strict_ok,
            "strict accepts what moves-only refuses: {text:?}"
        );
        return;
    }
    if strict_ok {
        assert_eq!(strict.moves(), game.moves());
    }
    let printed = notation::game_text(&game);
    let mut again = Game::from_rules(&rules).unwrap();
    notation::replay(&mut again, &printed, Check::Strict)
        .unwrap_or_else(|e| panic!("{e}\n--- printed from {text:?}:\n{printed}"));
    assert_eq!(again.moves(), game.moves(), "{printed}");
    assert_eq!(again.position(), game.position());
    assert_eq!(again.outcome(), game.outcome());
    assert_eq!(notation::game_text(&again), printed);
});
