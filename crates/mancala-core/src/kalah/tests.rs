use super::*;

fn rules(s: &str) -> KalahRules {
    KalahRules::new(&s.parse().unwrap()).unwrap()
}

fn pos(r: &str, south: &[u8], ss: u8, north: &[u8], ns: u8, side: Side) -> KalahPos {
    KalahPos::<u8>::from_parts(&rules(r), [south, north], [ss, ns], Some(side), None).unwrap()
}

/// Plays `pos` on `u16` counts beside the same position on `u8` counts, by seeded random
/// moves to the end: every move, effect and position agrees.
fn wide_agrees(text: &str, seed: u64) {
    let r = rules(text);
    let (mut narrow, mut wide) = (KalahPos::<u8>::start(&r), KalahPos::<u16>::start(&r));
    let mut x = seed;
    while !narrow.is_over() {
        let moves = narrow.legal_moves();
        assert_eq!(moves, wide.legal_moves(), "{text}");
        assert_eq!(narrow.count_moves(), wide.count_moves(), "{text}");
        x = crate::rng::mix(x);
        let mv = moves.as_slice()[(x % moves.len() as u64) as usize];
        assert_eq!(narrow.play(mv), wide.play(mv), "{text}");
        let widened: Vec<u16> = narrow.board().iter().map(|&c| c.into()).collect();
        assert_eq!(widened, wide.board(), "{text}");
        assert_eq!(
            narrow.row_word(Side::South) == 0,
            wide.row_word(Side::South) == 0
        );
        assert_eq!(
            (narrow.to_move(), narrow.opening(), narrow.last_capturer()),
            (wide.to_move(), wide.opening(), wide.last_capturer())
        );
    }
    assert!(wide.is_over());
    assert_eq!(narrow.outcome(), wide.outcome(), "{text}");
}

#[test]
fn u16_counts_play_as_u8_counts_do() {
    for (k, text) in [
        "kalah",
        "kalah,seeds=6,capture=empty,stop-when-decided",
        "kalah,pits=12,seeds=3,leftovers=last-capturer,pie",
        "kalah,pits=7,seeds=7,first-move-extra-turn=false,pie",
        "kalah,pits=1,seeds=20,capture=opposite-only",
        "kalah-brazil,stage=basic",
        "vaccean,end=mover-empty,leftovers=last-mover",
        "cross-kalah,pits=5,seeds=5",
        "dracala,pits=9,seeds=4",
    ]
    .into_iter()
    .enumerate()
    {
        for g in 0..20 {
            wide_agrees(text, (k * 100 + g) as u64);
        }
    }
}

#[test]
fn a_pit_of_more_than_255_seeds_sows_and_sweeps() {
    let r = rules("kalah,pits=12,seeds=12");
    let mut south = [0u16; 12];
    south[0] = 260;
    let north = [1u16; 12];
    let p = KalahPos::<u16>::from_parts(&r, [&south, &north], [10, 6], Some(Side::South), None)
        .unwrap();
    // One seed at a time round the ring of 25 places (North's store skipped): 10 laps
    // and 10 more seeds, the last in South's pit 11.
    let mut want = p.board().to_vec();
    want[0] = 0;
    let mut idx = 0;
    for _ in 0..260 {
        idx = (idx + 1) % 26;
        if idx == 25 {
            idx = 0;
        }
        want[idx] += 1;
    }
    assert_eq!(idx, 10);
    let mut q = p;
    let e = q.play(0).unwrap();
    assert_eq!(q.board(), want);
    assert_eq!((e.gain, e.in_store, e.again), (10, false, false));
    assert_eq!(q.scores(), [20, 6]);
    // A store past 255: North's row is swept to it when South's last seed empties his row.
    let mut south = [0u16; 12];
    south[11] = 1;
    let mut north = [0u16; 12];
    north[0] = 262;
    let mut p =
        KalahPos::<u16>::from_parts(&r, [&south, &north], [10, 15], Some(Side::South), None)
            .unwrap();
    let e = p.play(11).unwrap();
    assert!(e.ended && p.is_over());
    assert_eq!(p.scores(), [11, 277]);
    assert_eq!(p.outcome(), Some(Outcome::Win(Side::North)));
    // Bytes cannot hold these rules.
    let e = KalahRules::for_cell::<u8>(&"kalah,pits=12,seeds=12".parse().unwrap());
    assert!(e.unwrap_err().to_string().contains("288"));
}

#[test]
fn thirteen_seeds_lap_into_the_emptied_origin_and_capture() {
    // Edge case 1: 13 seeds from South pit 1 come back to pit 1, now holding 1: a capture.
    let mut p = pos(
        "kalah,seeds=4",
        &[13, 1, 0, 0, 0, 2],
        10,
        &[4, 4, 4, 4, 4, 2],
        0,
        Side::South,
    );
    let e = p.play(0).unwrap();
    // The origin pit received 1 seed; North pit 6 (index 12) faced it with 2 + 1 = 3 seeds.
    assert_eq!(e.captured, 4);
    assert_eq!(p.pit(Side::South, 0), 0);
    assert_eq!(p.pit(Side::North, 5), 0);
    assert_eq!(p.store(Side::South), 10 + 1 + 4);
    assert_eq!(
        p.store(Side::North),
        0,
        "the opponent's store never receives a seed"
    );
    assert_eq!(p.to_move(), Side::North);
}

#[test]
fn sowing_skips_the_opponents_store_from_both_seats() {
    // Edge case 2: 10 seeds from South pit 6 go store, North 1-6, South 1-3.
    let mut p = pos(
        "kalah,seeds=4",
        &[4, 4, 4, 4, 0, 10],
        0,
        &[4, 4, 4, 4, 4, 2],
        0,
        Side::South,
    );
    p.play(5).unwrap();
    assert_eq!(p.row(Side::North), [5, 5, 5, 5, 5, 3]);
    assert_eq!(p.row(Side::South), [5, 5, 5, 4, 0, 0]);
    assert_eq!(p.scores(), [1, 0]);
    // North: 16 seeds from North pit 6: 13 one lap, then 3 more: store, South 1, 2.
    let mut p = pos(
        "kalah,seeds=4",
        &[4, 4, 4, 4, 2, 2],
        0,
        &[4, 4, 4, 4, 2, 10],
        0,
        Side::North,
    );
    let mut q = p.mirrored();
    p.play(5).unwrap();
    q.play(5).unwrap();
    assert_eq!(p, q.mirrored(), "mirrored moves give mirrored positions");
    // 16 seeds from North pit 6: one lap of 13 (South's store skipped), then North's store,
    // South pits 1 and 2.
    let mut p = pos(
        "kalah,seeds=4",
        &[4, 4, 4, 4, 4, 4],
        0,
        &[4, 0, 0, 0, 4, 16],
        0,
        Side::North,
    );
    p.play(5).unwrap();
    assert_eq!(p.store(Side::South), 0);
    assert_eq!(p.store(Side::North), 2);
    assert_eq!(p.row(Side::South), [6, 6, 5, 5, 5, 5]);
    assert_eq!(p.row(Side::North), [5, 1, 1, 1, 5, 1]);
}

#[test]
fn capture_rules_with_an_empty_opposite_pit() {
    // Edge case 3: South pit 1 (1 seed) lands in empty pit 2; North pit 5 opposite is empty.
    for (r, store, pit2) in [
        ("kalah,seeds=4", 0, 1),
        ("kalah,seeds=4,capture=empty", 1, 0),
        ("kalah,seeds=4,capture=opposite-only", 0, 1),
    ] {
        let mut p = pos(
            r,
            &[1, 0, 4, 4, 4, 4],
            0,
            &[4, 5, 6, 3, 0, 13],
            0,
            Side::South,
        );
        p.play(0).unwrap();
        assert_eq!(p.store(Side::South), store, "{r}");
        assert_eq!(p.pit(Side::South, 1), pit2, "{r}");
    }
    // With seeds opposite: standard takes 1 + 3, opposite-only takes 3 and leaves the seed.
    for (r, store, pit2) in [
        ("kalah,seeds=4", 4, 0),
        ("kalah,seeds=4,capture=empty", 4, 0),
        ("kalah,seeds=4,capture=opposite-only", 3, 1),
    ] {
        let mut p = pos(
            r,
            &[1, 0, 4, 4, 4, 4],
            0,
            &[4, 5, 6, 0, 3, 13],
            0,
            Side::South,
        );
        let e = p.play(0).unwrap();
        assert_eq!(p.store(Side::South), store, "{r}");
        assert_eq!(p.pit(Side::South, 1), pit2, "{r}");
        assert!(!e.again, "a capture never gives an extra turn");
    }
}

#[test]
fn extra_turns_chain_and_end_the_game_when_the_row_empties() {
    // Edge case 4: pit 6 (1 seed) then pit 5 (2 seeds): two extra turns in a row.
    let mut p = pos(
        "kalah,seeds=4",
        &[4, 4, 4, 4, 2, 1],
        0,
        &[4, 4, 4, 4, 4, 9],
        0,
        Side::South,
    );
    assert!(p.play(5).unwrap().again);
    assert!(p.play(4).unwrap().again);
    assert_eq!(p.to_move(), Side::South);
    // Edge case 6: last seed in the store with the own row now empty: the game ends.
    let mut p = pos(
        "kalah,seeds=4",
        &[0, 0, 0, 0, 0, 1],
        20,
        &[4, 4, 4, 4, 4, 7],
        0,
        Side::South,
    );
    let e = p.play(5).unwrap();
    assert!(e.in_store && e.ended && !e.again);
    assert!(p.is_over());
    assert_eq!(p.scores(), [21, 27]);
    assert_eq!(p.outcome(), Some(Outcome::Win(Side::North)));
    assert!(p.legal_moves().is_empty());
    assert_eq!(p.play(0), Err(Error::GameOver), "edge case 8");
}

#[test]
fn leftovers_rules() {
    let cases = [
        ("kalah,seeds=4", [21, 27], 0),
        ("kalah,seeds=4,leftovers=not-counted", [21, 0], 27),
        ("kalah,seeds=4,leftovers=last-mover", [48, 0], 0),
    ];
    for (r, scores, left) in cases {
        let mut p = pos(
            r,
            &[0, 0, 0, 0, 0, 1],
            20,
            &[4, 4, 4, 4, 4, 7],
            0,
            Side::South,
        );
        p.play(5).unwrap();
        assert_eq!(p.scores(), scores, "{r}");
        assert_eq!(p.board_seeds(), left, "{r}");
    }
}

#[test]
fn cross_kalah_sows_odd_pits_clockwise() {
    let r = rules("cross-kalah");
    let mut p = KalahPos::<u8>::start(&r);
    // 6 seeds (even) from South pit 1: counter-clockwise into pits 2-6 and the store.
    assert!(p.play(0).unwrap().in_store);
    assert_eq!(p.row(Side::South), [0, 7, 7, 7, 7, 7]);
    // 7 seeds (odd) from South pit 2: clockwise into pit 1, skip North's store, North 6..1.
    let e = p.play(1).unwrap();
    assert_eq!(p.row(Side::South), [1, 0, 7, 7, 7, 7]);
    assert_eq!(p.row(Side::North), [7, 7, 7, 7, 7, 7]);
    assert_eq!(p.scores(), [1, 0]);
    assert!(!e.again);
    // North pit 1 (7, odd) clockwise: South's store is skipped, then South pits 6..1 and
    // North's own store: an extra turn.
    let mut q = p;
    assert!(q.play(0).unwrap().again);
    assert_eq!(q.row(Side::South), [2, 1, 8, 8, 8, 8]);
    assert_eq!(q.store(Side::North), 1);
    assert_eq!(q.scores()[0], 1);
}

#[test]
fn brazil_stages() {
    let basic = rules("kalah-brazil,stage=basic");
    let mut p = KalahPos::<u8>::start(&basic);
    assert_eq!(p.row(Side::South), [3, 3, 4, 4, 3, 3]);
    // Pit 3 (4 seeds) ends in the store: no extra turn at the basic stage.
    let e = p.play(2).unwrap();
    assert!(e.in_store && !e.again);
    assert_eq!(p.to_move(), Side::North);
    let full = rules("kalah-brazil");
    let mut p = KalahPos::<u8>::start(&full);
    assert!(p.play(2).unwrap().again);
}

#[test]
fn mover_empty_end_check() {
    // South empties his row with a move that does not end the game for North's turn.
    let r = "kalah-brazil";
    let mut p = pos(
        r,
        &[0, 0, 0, 0, 0, 2],
        10,
        &[3, 3, 4, 4, 3, 3],
        8,
        Side::South,
    );
    p.play(5).unwrap();
    assert!(!p.is_over(), "North can still move");
    assert_eq!(p.to_move(), Side::North);
    // North plays pit 1 (4 seeds): lands North pit 5; South still empty and to move: over.
    p.play(0).unwrap();
    assert!(p.is_over());
    assert_eq!(
        p.store(Side::North),
        8,
        "leftovers not counted in kalah-brazil"
    );
}

#[test]
fn count_moves_matches_legal_moves() {
    let p = pos(
        "kalah,seeds=4",
        &[0, 3, 0, 1, 0, 20],
        0,
        &[4, 0, 0, 0, 0, 0],
        20,
        Side::South,
    );
    assert_eq!(p.count_moves(), 3);
    assert_eq!(p.legal_moves().as_slice(), [1, 3, 5]);
    let r = rules("kalah,pits=8,seeds=3");
    let p = KalahPos::<u8>::start(&r);
    assert_eq!(p.count_moves(), 8);
}

#[test]
fn first_move_extra_turn_false_passes_the_turn_once() {
    // Kalah(7,7): South pit 1's 7 seeds end in South's store.
    for (r, again) in [
        ("kalah,pits=7,seeds=7", true),
        ("kalah,pits=7,seeds=7,first-move-extra-turn=false", false),
    ] {
        let mut p = KalahPos::<u8>::start(&rules(r));
        let e = p.play(0).unwrap();
        assert!(e.in_store, "{r}");
        assert_eq!(e.again, again, "{r}");
        assert_eq!(p.opening(), Opening::None, "{r}: no swap without pie");
    }
    // Later moves into the store earn their extra turn as usual: North's pit 1 too.
    let mut p = KalahPos::<u8>::start(&rules("kalah,pits=7,seeds=7,first-move-extra-turn=false"));
    p.play(0).unwrap();
    assert_eq!(p.to_move(), Side::North);
    assert_eq!(p.row(Side::North), [7; 7]);
    assert!(
        p.play(0).unwrap().again,
        "North's pit 1 (7 seeds) ends in its store"
    );
}

#[test]
fn the_swap_mirrors_the_board_and_passes_the_turn() {
    let r = rules("kalah,pits=7,seeds=7,first-move-extra-turn=false,pie");
    let mut p = KalahPos::<u8>::start(&r);
    assert_eq!(p.opening(), Opening::FirstMove);
    assert!(!p.legal_moves().contains(SWAP), "South cannot swap");
    assert_eq!(
        p.play(SWAP).unwrap_err(),
        Error::IllegalMove(Msg::new("error.move.swap-late"))
    );
    p.play(0).unwrap();
    assert_eq!(p.opening(), Opening::Swap);
    assert_eq!(p.legal_moves().as_slice(), [0, 1, 2, 3, 4, 5, 6, SWAP]);
    assert_eq!(p.count_moves(), 8);
    let before = p;
    let e = p.play(SWAP).unwrap();
    assert_eq!(e, MoveEffect::default());
    // North now holds the row and store South built; South has North's untouched row.
    assert_eq!(p.to_move(), Side::South);
    assert_eq!(p.row(Side::North), [0, 8, 8, 8, 8, 8, 8]);
    assert_eq!(p.scores(), [0, 1]);
    assert_eq!(p.row(Side::South), [7; 7]);
    assert_eq!(p.opening(), Opening::None);
    assert_eq!(p, before.mirrored());
    assert!(!p.legal_moves().contains(SWAP), "one swap a game");
    // Or North sows instead, and the swap is gone for good.
    let mut q = before;
    q.play(1).unwrap();
    assert_eq!(q.opening(), Opening::None);
    assert!(!q.legal_moves().contains(SWAP));
    // Without the pie rule there is no swap.
    let mut k = KalahPos::<u8>::start(&rules("kalah,pits=7,seeds=7"));
    k.play(1).unwrap();
    assert_eq!(
        k.play(SWAP).unwrap_err(),
        Error::IllegalMove(Msg::new("error.move.no-pie"))
    );
}

#[test]
fn with_pie_and_extra_turns_the_swap_waits_for_norths_turn() {
    // Kalah(6,4), pie: South's pit 3 ends in the store and South moves on (first turn).
    let mut p = KalahPos::<u8>::start(&rules("kalah,seeds=4,pie"));
    assert!(p.play(2).unwrap().again);
    assert_eq!(p.opening(), Opening::FirstTurn);
    assert!(!p.legal_moves().contains(SWAP));
    p.play(0).unwrap();
    assert_eq!(p.to_move(), Side::North);
    assert_eq!(p.opening(), Opening::Swap);
    assert!(p.legal_moves().contains(SWAP));
}

#[test]
fn opening_states_are_checked() {
    let r = rules("kalah,pits=7,seeds=7,first-move-extra-turn=false");
    let start = KalahPos::<u8>::start(&r);
    assert_eq!(start.opening(), Opening::FirstMove);
    let fault = |p: KalahPos, o: Opening| p.with_opening(o).unwrap_err().to_string();
    assert!(fault(start, Opening::Swap).contains("it needs pie=true"));
    let plain = KalahPos::<u8>::start(&rules("kalah"));
    assert_eq!(plain.opening(), Opening::None);
    assert!(fault(plain, Opening::FirstMove).contains("the rules have no opening rule"));
    let pie = KalahPos::<u8>::start(&rules("kalah,pie"));
    assert!(fault(pie, Opening::Swap).contains("the swap needs North to move"));
    assert!(fault(pie.mirrored(), Opening::FirstMove).contains("needs South to move"));
}
