use super::*;
use crate::game::SearchGame;

/// Random games of every eligible rule set stepped on [`FastGame`] and on [`KalahPos`]:
/// the same legal moves, stores, sides, ends and positions, move by move.
#[test]
fn fast_games_step_as_the_rules_core() {
    let mut rng = mancala_core::rng::Rng::xorshift(0x0bad_cafe_f00d_1234);
    let variants = [
        "kalah",
        "kalah,seeds=6",
        "kalah,seeds=3,capture=empty",
        "kalah,seeds=3,capture=opposite-only,end=mover-empty",
        "kalah,pits=4,seeds=5,leftovers=not-counted",
        "kalah,pits=5,seeds=2,leftovers=last-mover",
        "kalah,pits=7,seeds=6,leftovers=last-mover,end=mover-empty",
        "kalah,pits=3,seeds=9",
        "kalah-brazil,stage=basic",
        "vaccean",
    ];
    for v in variants {
        let rules: mancala_core::Rules = v.parse().unwrap();
        let kr = KalahRules::new(&rules).unwrap();
        let fr = FastRules::new(&kr, None).unwrap_or_else(|| panic!("{v}: fast path"));
        let mut ended = 0;
        for _ in 0..200 {
            let mut p = KalahPos::<u8>::start(&kr);
            let mut g = fr.game(&p).unwrap();
            loop {
                assert_eq!(g.is_over(), p.is_over(), "{v} {p:?}");
                assert_eq!(g.scores().map(u16::from), p.scores(), "{v} {p:?}");
                if p.is_over() {
                    ended += 1;
                    break;
                }
                assert_eq!(g.to_move(), p.to_move(), "{v}");
                assert_eq!(g.legal_moves(), p.legal_moves(), "{v} {p:?}");
                let pos = g.position(&rules).unwrap();
                assert_eq!(pos.as_kalah(), Some(&p), "{v}");
                let moves = p.legal_moves();
                let mv = moves.as_slice()[(rng.next_u64() % moves.len() as u64) as usize];
                p.play_unchecked(mv);
                fr.step(&mut g, mv);
            }
        }
        assert_eq!(ended, 200);
    }
    // Opening rules take the generic path.
    for v in ["kalah,pie", "kalah,first-move-extra-turn=false"] {
        let kr = KalahRules::new(&v.parse().unwrap()).unwrap();
        let fr = FastRules::new(&kr, None).unwrap();
        assert!(fr.game(&KalahPos::<u8>::start(&kr)).is_none(), "{v}");
    }
}

/// Every move of random positions of every eligible rule set: the fast board's child,
/// gain and turn equal `KalahPos::play`'s.
#[test]
fn moves_match_the_rules_core() {
    let mut rng = mancala_core::rng::Rng::xorshift(0x1234_5678_9abc_def0);
    let mut rnd = |n: u64| rng.next_u64() % n;
    let variants = [
        "kalah,seeds=4",
        "kalah,seeds=6,capture=empty",
        "kalah,seeds=3,capture=opposite-only,end=mover-empty",
        "kalah,pits=4,seeds=5,leftovers=not-counted",
        "kalah,pits=7,seeds=6,leftovers=last-mover,end=mover-empty",
        "kalah-brazil,stage=basic",
        "vaccean",
    ];
    for v in variants {
        let rules: mancala_core::Rules = v.parse().unwrap();
        let kr = KalahRules::new(&rules).unwrap();
        let fr = FastRules::new(&kr, None).unwrap_or_else(|| panic!("{v} takes the fast path"));
        let mut checked = 0;
        for _ in 0..300 {
            let mut p = KalahPos::<u8>::start(&kr);
            let plies = rnd(40);
            for _ in 0..plies {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let mv = moves.as_slice()[rnd(moves.len() as u64) as usize];
                p.play_unchecked(mv);
            }
            if p.is_over() {
                continue;
            }
            let me = p.to_move();
            let b = fr.board(&p);
            let key = |b: &Board| match kr.pits {
                4 => fr.key::<4>(b),
                6 => fr.key::<6>(b),
                7 => fr.key::<7>(b),
                n => panic!("{n} pits: add them here"),
            };
            let play = |b: &Board, i| match kr.pits {
                4 => fr.play::<4>(b, i),
                6 => fr.play::<6>(b, i),
                _ => fr.play::<7>(b, i),
            };
            assert_eq!(key(&b), p.tt_key(), "{v}");
            for &mv in p.legal_moves().as_slice() {
                let mut q = p;
                q.play_unchecked(mv);
                let (c, gain, again) = play(&b, mv as usize);
                assert_eq!(gain, q.banked(me) - p.banked(me), "{v} {p:?} {mv}");
                if q.is_over() {
                    assert_eq!(c.seeds, 0, "{v}");
                } else {
                    assert_eq!(again, q.to_move() == me, "{v}");
                    let qb = fr.board(&q);
                    assert_eq!((c.cells, c.seeds), (qb.cells, qb.seeds), "{v} {p:?} {mv}");
                }
                checked += 1;
            }
        }
        assert!(checked > 500, "{v}: only {checked} moves checked");
    }
}
