//! A batch against separate games of every preset, the fast board against the generic path
//! (alone and shared by a team), its state rebuilt, its draws, checks and rewards.

use super::step::CHUNK;
use super::*;
use mancala_core::{Game, Preset};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Every preset: a batch plays, rewards, ends, restarts and observes its games as
    /// separate `Game`s do.
    #[test]
    fn a_batch_plays_as_separate_games(
        preset in 0..Preset::ALL.len(),
        seed: u64,
        n in 1usize..24,
        steps in 1usize..300,
        margin: bool,
        mode in 0..3u8,
    ) {
        let rules = Preset::ALL[preset].rules();
        let start = Position::start(&rules).unwrap();
        let reward = if margin { Reward::Margin } else { Reward::Win };
        let mut b = Batch::new(start, n, seed, 0, reward);
        let mut games: Vec<Game> = (0..n).map(|_| Game::new(start)).collect();
        let mut a = vec![0i64; n];
        let mut out = Bufs::new(&b);
        let k = observation_len(&rules);
        let (mut obs, mut mask) = (vec![0.0; n * k], vec![false; n * rules.pits as usize]);
        for _ in 0..steps {
            match mode {
                0 => b.step(Actions::Random(&mut a), out.out()).unwrap(),
                1 => {
                    b.sample_actions(&mut a);
                    b.step(Actions::Given(&a), out.out()).unwrap();
                }
                _ => {
                    let l = some_logits(n, rules.pits as usize, a[0]);
                    b.step(Actions::Policy { logits: &l, out: &mut a }, out.out()).unwrap();
                }
            }
            b.write_observations(&mut obs);
            b.write_masks(&mut mask);
            prop_assert_eq!(&obs, &out.o);
            prop_assert_eq!(&mask, &out.m);
            let (r, d) = (&out.r, &out.d);
            for i in 0..n {
                let g = &mut games[i];
                let mover = g.to_move();
                prop_assert!(g.legal_moves().contains(a[i] as u8));
                g.play(a[i] as u8).unwrap();
                prop_assert_eq!(d[i], g.is_over());
                if d[i] {
                    prop_assert_eq!(r[i], reward.of(g, mover));
                    prop_assert_eq!(b.final_scores()[i], g.scores());
                    *g = Game::new(start);
                } else {
                    prop_assert_eq!(r[i], 0.0);
                }
                prop_assert_eq!(&b.position(i), g.position());
                let mut o = vec![0.0; k];
                write_observation(g.position(), &mut o);
                prop_assert_eq!(&obs[i * k..(i + 1) * k], &o[..]);
                let m = rules.pits as usize;
                let mut want = vec![false; m];
                write_mask(g, &mut want);
                prop_assert_eq!(&mask[i * m..(i + 1) * m], &want[..]);
            }
        }
    }
}

/// Logits for `n` games of `m` pits that vary with the game, the pit and `salt`, a few of
/// them so low that the pit is almost never drawn (-inf could leave a game no legal pit).
fn some_logits(n: usize, m: usize, salt: i64) -> Vec<f32> {
    (0..n * m)
        .map(|j| {
            let (i, p) = (j / m, j % m);
            match (i * 7 + p * 3 + salt as usize % 11) % 9 {
                0 => -40.0,
                x => x as f32 * 0.75 - 3.0,
            }
        })
        .collect()
}

/// A step's output buffers for the games of a batch.
struct Bufs {
    r: Vec<f32>,
    d: Vec<bool>,
    o: Vec<f32>,
    m: Vec<bool>,
}

impl Bufs {
    fn new(b: &Batch) -> Bufs {
        let n = b.len();
        Bufs {
            r: vec![0.0; n],
            d: vec![false; n],
            o: vec![0.0; n * observation_len(b.rules())],
            m: vec![false; n * b.rules().pits as usize],
        }
    }
    fn out(&mut self) -> StepOut<'_> {
        StepOut {
            rewards: &mut self.r,
            dones: &mut self.d,
            observations: &mut self.o,
            masks: &mut self.m,
        }
    }
}

fn batch(rules: &str, n: usize, seed: u64) -> Batch {
    let start = Position::start(&rules.parse().unwrap()).unwrap();
    Batch::new(start, n, seed, 0, Reward::Win)
}

/// A batch rebuilt from its games' states, generators and final scores continues as
/// the original does, on each kind of game; bad states are refused, the game unchanged.
#[test]
fn a_batch_rebuilt_from_its_state_continues_alike() {
    for rules in ["kalah,seeds=4", "oware", "kauri", "kalah,pits=8"] {
        let mut a = batch(rules, 9, 3);
        let mut acts = vec![0i64; 9];
        let mut out = Bufs::new(&a);
        for _ in 0..57 {
            a.step(Actions::Random(&mut acts), out.out()).unwrap();
        }
        let (start, opening, reward) = a.config();
        let mut b = Batch::new(start, 9, 99, opening, reward);
        for i in 0..9 {
            let (p, moves) = a.game_state(i);
            b.set_game(i, p, &moves).unwrap();
        }
        b.set_rng_states(&a.rng_states()).unwrap();
        b.set_final_scores(a.final_scores()).unwrap();
        assert_eq!(a.final_scores(), b.final_scores());
        let mut out_b = Bufs::new(&b);
        let mut acts_b = vec![0i64; 9];
        for t in 0..300 {
            a.step(Actions::Random(&mut acts), out.out()).unwrap();
            b.step(Actions::Random(&mut acts_b), out_b.out()).unwrap();
            assert_eq!(acts, acts_b, "{rules} step {t}");
            assert_eq!((&out.o, &out.r, &out.d), (&out_b.o, &out_b.r, &out_b.d));
            assert_eq!(a.final_scores(), b.final_scores());
        }
        let before = b.position(0);
        let other = Position::start(&"kalah,seeds=3".parse().unwrap()).unwrap();
        assert!(b.set_game(0, other, &[]).is_err());
        assert!(b.set_game(9, before, &[]).is_err());
        assert!(b.set_game(0, start, &[200]).is_err());
        assert!(b.set_rng_states(&[1, 2]).is_err());
        assert_eq!(b.position(0), before);
    }
}

#[test]
fn below_small_draws_as_below() {
    let (mut a, mut b) = (super::Rng::new(9), super::Rng::new(9));
    for i in 0..100_000u32 {
        let n = 1 + i % 8;
        assert_eq!(below_small(&mut a, n), b.below(n as usize), "{n}");
    }
    // Draws near the ends of the range: generators seeded at random, many draws.
    for seed in 0..200 {
        let (mut a, mut b) = (super::Rng::new(seed), super::Rng::new(seed));
        for n in (1..=8).cycle().take(800) {
            assert_eq!(below_small(&mut a, n), b.below(n as usize), "{n}");
        }
    }
}

/// Rules of the fast path, between them every option it plays: pit counts, seeds,
/// captures, end checks, leftovers, no extra turn.
const FAST_RULES: [&str; 14] = [
    "kalah",
    "kalah,seeds=4",
    "kalah,seeds=6",
    "kalah,seeds=4,capture=empty",
    "kalah,seeds=3,capture=opposite-only,end=mover-empty",
    "kalah,pits=4,seeds=4",
    "kalah,pits=4,seeds=5,leftovers=not-counted",
    "kalah,pits=5,seeds=3,leftovers=last-mover",
    "kalah,pits=7,seeds=6,leftovers=last-mover,end=mover-empty",
    "kalah,pits=3,seeds=2,end=mover-empty,leftovers=not-counted",
    "kalah-brazil",
    "kalah-brazil,stage=basic",
    "kalah-brazil,stage=extra-turn",
    "vaccean",
];

/// Steps a batch on the fast board and the same batch forced onto the generic path, and
/// asserts every output equal: actions, observations, masks, rewards, dones, final scores,
/// positions and sides to move, through restarts and openings. Returns the games ended.
fn fast_and_generic_agree(
    rules: &str,
    n: usize,
    seed: u64,
    opening: u32,
    steps: usize,
    team: &'static Team,
) -> usize {
    let start = Position::start(&rules.parse().unwrap()).unwrap();
    let mut ended = 0;
    for reward in [Reward::Win, Reward::Margin] {
        let mut f = Batch::new(start, n, seed, opening, reward).with_team(team);
        let mut g = Batch::new_generic(start, n, seed, opening, reward);
        assert!(f.is_fast(), "{rules}: the fast path");
        assert!(!g.is_fast());
        let (mut of, mut og) = (Bufs::new(&f), Bufs::new(&g));
        let (mut af, mut ag) = (vec![0i64; n], vec![0i64; n]);
        for t in 0..steps {
            if t % 3 == 0 {
                f.sample_actions(&mut af);
                g.sample_actions(&mut ag);
                assert_eq!(af, ag, "{rules} step {t}");
                f.step(Actions::Given(&af), of.out()).unwrap();
                g.step(Actions::Given(&ag), og.out()).unwrap();
            } else if t % 5 == 1 {
                let l = some_logits(n, start.pits(), t as i64);
                let (pf, pg) = (
                    Actions::Policy {
                        logits: &l,
                        out: &mut af,
                    },
                    Actions::Policy {
                        logits: &l,
                        out: &mut ag,
                    },
                );
                f.step(pf, of.out()).unwrap();
                g.step(pg, og.out()).unwrap();
                assert_eq!(af, ag, "{rules} step {t}");
            } else {
                f.step(Actions::Random(&mut af), of.out()).unwrap();
                g.step(Actions::Random(&mut ag), og.out()).unwrap();
                assert_eq!(af, ag, "{rules} step {t}");
            }
            assert_eq!(of.r, og.r, "{rules} step {t}: rewards");
            assert_eq!(of.d, og.d, "{rules} step {t}: dones");
            assert_eq!(of.o, og.o, "{rules} step {t}: observations");
            assert_eq!(of.m, og.m, "{rules} step {t}: masks");
            assert_eq!(f.final_scores(), g.final_scores(), "{rules} step {t}");
            ended += of.d.iter().filter(|&&d| d).count();
            if t % 97 == 0 {
                for i in 0..n {
                    assert_eq!(f.position(i), g.position(i), "{rules} step {t}");
                    assert_eq!(f.to_move(i), g.to_move(i));
                }
                let (mut wf, mut wg) = (Bufs::new(&f), Bufs::new(&g));
                f.write_observations(&mut wf.o);
                g.write_observations(&mut wg.o);
                f.write_masks(&mut wf.m);
                g.write_masks(&mut wg.m);
                assert_eq!((&wf.o, &wf.m), (&of.o, &of.m), "{rules} step {t}");
                assert_eq!((&wg.o, &wg.m), (&og.o, &og.m), "{rules} step {t}");
            }
        }
        f.reset(Some(seed + 1));
        g.reset(Some(seed + 1));
        for i in 0..n {
            assert_eq!(f.position(i), g.position(i), "{rules} after reset");
        }
    }
    ended
}

#[test]
fn the_fast_board_steps_as_the_generic_path() {
    for (j, rules) in FAST_RULES.iter().enumerate() {
        let ended = fast_and_generic_agree(
            rules,
            29,
            11 + j as u64,
            (j % 3) as u32 * 4,
            1500,
            Team::global(),
        );
        assert!(ended > 200, "{rules}: {ended} games ended");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Any seed, size and opening of the fast path's rules: the generic path's games.
    #[test]
    fn fast_batches_match_generic_ones(
        rules in 0..FAST_RULES.len(),
        seed: u64,
        n in 1usize..40,
        opening in 0u32..8,
        steps in 1usize..400,
    ) {
        fast_and_generic_agree(FAST_RULES[rules], n, seed, opening, steps, Team::global());
    }
}

/// A team of `helpers` helper threads, for the life of the tests.
fn team(helpers: usize) -> &'static Team {
    Box::leak(Box::new(Team::new(helpers)))
}

/// Many games in chunks shared by four threads: the fast path's parallel step.
#[test]
fn the_fast_board_steps_as_the_generic_path_in_parallel() {
    let n = 20 * CHUNK + 5;
    let ended = fast_and_generic_agree("kalah,seeds=4", n, 3, 2, 60, team(3));
    assert!(ended > n, "{ended} games ended");
}

/// Rules the fast board does not play, or plays only without their opening rule, take the
/// generic path.
#[test]
fn other_rules_take_the_generic_path() {
    for rules in [
        "kalah,first-move-extra-turn=false",
        "kalah,leftovers=last-capturer",
        "kalah,stop-when-decided=true",
        "kalah,pits=8",
        "cross-kalah",
        "dracala",
        "kauri",
        "oware",
    ] {
        assert!(!batch(rules, 2, 1).is_fast(), "{rules}");
    }
    assert!(batch("kalah", 2, 1).is_fast());
}

#[test]
fn observation_is_from_the_movers_view() {
    let mut g = Game::from_rules(&"kalah,seeds=4".parse().unwrap()).unwrap();
    g.play(2).unwrap(); // C: the last seed in the store, South moves again
    g.play(5).unwrap(); // F: one seed in the store, four in North's pits 1-4
    assert_eq!(g.to_move(), Side::North);
    let mut o = vec![0.0; 14];
    write_observation(g.position(), &mut o);
    assert_eq!(&o[0..6], &[5.0, 5.0, 5.0, 5.0, 4.0, 4.0]);
    assert_eq!(&o[6..12], &[4.0, 4.0, 0.0, 5.0, 5.0, 0.0]);
    assert_eq!(&o[12..14], &[0.0, 2.0]);
}

#[test]
fn kauri_observations_carry_cowries() {
    let rules: Rules = "kauri".parse().unwrap();
    let m = rules.pits as usize;
    assert_eq!(observation_len(&rules), 4 * m + 2);
    let pos = Position::start(&rules).unwrap();
    let mut o = vec![0.0; 4 * m + 2];
    write_observation(&pos, &mut o);
    let cowries: f32 = o[2 * m + 2..].iter().sum();
    assert_eq!(
        cowries as u32,
        (0..m)
            .map(|i| 2 * pos.cowries(Side::South, i) as u32)
            .sum::<u32>()
    );
    assert!(cowries > 0.0);
}

#[test]
fn same_seed_same_games_and_games_restart() {
    let mut a = batch("kalah", 16, 7);
    let mut b = batch("kalah", 16, 7);
    let (mut out, mut out_b) = (Bufs::new(&a), Bufs::new(&b));
    let mut acts = vec![0i64; 16];
    let mut ended = 0;
    let mut total = 0.0;
    for _ in 0..400 {
        a.sample_actions(&mut acts);
        let mut acts_b = vec![0i64; 16];
        b.sample_actions(&mut acts_b);
        assert_eq!(acts, acts_b);
        a.step(Actions::Given(&acts), out.out()).unwrap();
        b.step(Actions::Given(&acts), out_b.out()).unwrap();
        let (r, d) = (&out.r, &out.d);
        for i in 0..16 {
            if d[i] {
                ended += 1;
                total += r[i];
                let s = a.final_scores()[i];
                assert_eq!(s[0] as u32 + s[1] as u32, 36);
                assert!([-1.0, 0.0, 1.0].contains(&r[i]));
            } else {
                assert_eq!(r[i], 0.0);
            }
        }
    }
    assert!(ended > 50, "{ended} games ended");
    assert!(total.abs() <= ended as f32);
    let mut oa = vec![0.0; 16 * 14];
    let mut ob = oa.clone();
    a.write_observations(&mut oa);
    b.write_observations(&mut ob);
    assert_eq!(oa, ob);
    assert_eq!(oa, out_b.o);
}

#[test]
fn threads_do_not_change_the_games() {
    let run = |helpers: usize| {
        let n = 9 * CHUNK + 7;
        let start = Position::start(&"kalah".parse().unwrap()).unwrap();
        let mut b = Batch::new(start, n, 5, 3, Reward::Margin).with_team(team(helpers));
        let mut a = vec![0i64; n];
        let mut out = Bufs::new(&b);
        let mut total = 0.0;
        for t in 0..100 {
            // Actions drawn in the step and before it.
            if t % 2 == 0 {
                b.step(Actions::Random(&mut a), out.out()).unwrap();
            } else {
                b.sample_actions(&mut a);
                b.step(Actions::Given(&a), out.out()).unwrap();
            }
            total += out.r.iter().map(|x| x.abs()).sum::<f32>();
        }
        let mut o = vec![0.0; n * 14];
        b.write_observations(&mut o);
        (total, o, b.final_scores().to_vec())
    };
    let one = run(0);
    assert!(one.0 > 0.0);
    assert_eq!(one, run(1));
    assert_eq!(one, run(3));
}

#[test]
fn an_illegal_action_moves_no_game() {
    let mut b = batch("kalah", 2, 1);
    let mut out = Bufs::new(&b);
    let before: Vec<Position> = (0..2).map(|i| b.position(i)).collect();
    let e = b.step(Actions::Given(&[0, 9]), out.out()).unwrap_err();
    assert!(e.to_string().contains("game 1: pit 9"), "{e}");
    assert!(b.step(Actions::Given(&[0]), out.out()).is_err());
    assert!(b.step(Actions::Given(&[-1, 0]), out.out()).is_err());
    assert!(b.step(Actions::Random(&mut [0; 3]), out.out()).is_err());
    let after: Vec<Position> = (0..2).map(|i| b.position(i)).collect();
    assert_eq!(before, after);
    let mut mask = vec![false; 12];
    b.write_masks(&mut mask);
    assert!(mask.iter().all(|&x| x));
}

/// After shared steps, openings and restarts, a step of the fast board and of the
/// generic path accepts exactly each game's legal moves.
#[test]
fn the_check_accepts_exactly_the_legal_moves() {
    let n = 3 * CHUNK;
    let start = Position::start(&"kalah,seeds=3".parse().unwrap()).unwrap();
    for fast in [true, false] {
        let mut b = if fast {
            Batch::new(start, n, 4, 3, Reward::Win).with_team(team(1))
        } else {
            Batch::new_generic(start, n, 4, 3, Reward::Win)
        };
        assert_eq!(b.is_fast(), fast);
        let mut out = Bufs::new(&b);
        let mut a = vec![0i64; n];
        for t in 0..60 {
            b.step(Actions::Random(&mut a), out.out()).unwrap();
            let i = t * 7 % n;
            let legal = b.position(i).legal_moves();
            b.sample_actions(&mut a);
            for pit in -1..10i64 {
                a[i] = pit;
                let ok = (0..=255).contains(&pit) && legal.contains(pit as u8);
                assert_eq!(
                    b.check(&a, None).is_ok(),
                    ok,
                    "fast {fast}, game {i}, pit {pit}"
                );
            }
        }
    }
}

#[test]
fn margin_rewards_follow_the_misere_rule() {
    let mut b = Batch::new(
        Position::start(&"dracala".parse().unwrap()).unwrap(),
        8,
        3,
        4,
        Reward::Margin,
    );
    let n = 8;
    let mut acts = vec![0i64; n];
    let mut out = Bufs::new(&b);
    let mut seen = 0;
    for _ in 0..2000 {
        let movers: Vec<Side> = (0..n).map(|i| b.position(i).to_move()).collect();
        b.step(Actions::Random(&mut acts), out.out()).unwrap();
        for (i, &m) in movers.iter().enumerate() {
            if out.d[i] {
                let s = b.final_scores()[i];
                let margin = s[m.index()] as f32 - s[m.other().index()] as f32;
                assert_eq!(out.r[i], -margin);
                seen += 1;
            }
        }
    }
    assert!(seen > 10);
}

/// Draws from a policy's logits follow their softmax over the legal moves, on the fast board
/// and the generic path alike: from the start of Kalah(6,4), where every pit is legal, a
/// -inf pit is never drawn and the others come as often as `exp(logit)` says (within four
/// standard deviations over 40,960 draws).
#[test]
fn policy_draws_follow_the_softmax() {
    let start = Position::start(&"kalah,seeds=4".parse().unwrap()).unwrap();
    let n = 4096;
    let row = [0.0, 2f32.ln(), 3f32.ln(), f32::NEG_INFINITY, 0.0, 4f32.ln()];
    let logits: Vec<f32> = (0..n).flat_map(|_| row).collect();
    for mut b in [
        Batch::new(start, n, 5, 0, Reward::Win),
        Batch::new_generic(start, n, 5, 0, Reward::Win),
    ] {
        let mut count = [0usize; 6];
        let mut a = vec![0i64; n];
        for _ in 0..10 {
            b.sample_policy(&logits, &mut a).unwrap();
            a.iter().for_each(|&p| count[p as usize] += 1);
        }
        let draws = 10 * n;
        for (p, want) in [1.0, 2.0, 3.0, 0.0, 1.0, 4.0].iter().enumerate() {
            let q = want / 11.0;
            let sd = (draws as f64 * q * (1.0 - q)).sqrt();
            let off = (count[p] as f64 - draws as f64 * q).abs();
            assert!(off <= 4.0 * sd, "pit {p}: {} draws, {q} expected", count[p]);
        }
        assert_eq!(count[3], 0);
    }
}

/// A step drawing from logits draws what `sample_policy` draws from the same generators, and
/// never an illegal pit, however large its logit.
#[test]
fn a_policy_step_draws_as_sample_policy_and_only_legal_moves() {
    let mut a = batch("kalah,seeds=4", 300, 9);
    let mut b = a.clone();
    let (mut oa, mut ob) = (Bufs::new(&a), Bufs::new(&b));
    let (mut xa, mut xb) = (vec![0i64; 300], vec![0i64; 300]);
    for t in 0..200 {
        // Legal pits 0, illegal ones a huge finite logit.
        let mut mask = vec![false; 300 * 6];
        a.write_masks(&mut mask);
        let l: Vec<f32> = mask.iter().map(|&on| if on { 0.0 } else { 1e30 }).collect();
        a.step(
            Actions::Policy {
                logits: &l,
                out: &mut xa,
            },
            oa.out(),
        )
        .unwrap();
        b.sample_policy(&l, &mut xb).unwrap();
        assert_eq!(xa, xb, "step {t}");
        assert!(
            xa.iter().zip(mask.chunks(6)).all(|(&p, m)| m[p as usize]),
            "step {t}"
        );
        b.step(Actions::Given(&xb), ob.out()).unwrap();
        assert_eq!(oa.o, ob.o);
    }
}

/// Logits that cannot be drawn from are refused, naming the game, and no game moves: a NaN or
/// +inf for a legal pit, -inf for every legal pit, the wrong number; a NaN for a game that
/// does not move is not read.
#[test]
fn bad_logits_move_no_game() {
    for fast in [true, false] {
        let start = Position::start(&"kalah,seeds=4".parse().unwrap()).unwrap();
        let mut b = if fast {
            Batch::new(start, 2, 1, 0, Reward::Win)
        } else {
            Batch::new_generic(start, 2, 1, 0, Reward::Win)
        };
        let copy = b.clone();
        let mut out = Bufs::new(&b);
        let mut a = vec![0i64; 2];
        let bad = |j: usize, x: f32| {
            let mut l = vec![0.0; 12];
            l[j] = x;
            l
        };
        let nan = bad(7, f32::NAN);
        let e = b
            .step(
                Actions::Policy {
                    logits: &nan,
                    out: &mut a,
                },
                out.out(),
            )
            .unwrap_err();
        assert!(
            e.to_string().contains("game 1: pit 1's logit is NaN"),
            "{e}"
        );
        let inf = bad(2, f32::INFINITY);
        let e = b.sample_policy(&inf, &mut a).unwrap_err();
        assert!(
            e.to_string().contains("game 0: pit 2's logit is inf"),
            "{e}"
        );
        let mut none = vec![0.0; 12];
        none[6..].fill(f32::NEG_INFINITY);
        let e = b
            .step(
                Actions::Policy {
                    logits: &none,
                    out: &mut a,
                },
                out.out(),
            )
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("game 1: every legal pit's logit is -inf"),
            "{e}"
        );
        let e = b
            .step(
                Actions::Policy {
                    logits: &[0.0; 11],
                    out: &mut a,
                },
                out.out(),
            )
            .unwrap_err();
        assert!(
            e.to_string().contains("11 logits for 2 games of 6 pits"),
            "{e}"
        );
        for i in 0..2 {
            assert_eq!(b.position(i), copy.position(i));
        }
        // Game 1 does not move: its NaN is not read.
        let some = StepSome {
            active: Some(&[true, false]),
            finals: None,
        };
        b.step_some(
            Actions::Policy {
                logits: &nan,
                out: &mut a,
            },
            out.out(),
            some,
        )
        .unwrap();
        assert_eq!(a[1], -1);
        assert_eq!(b.position(1), copy.position(1));
        assert_ne!(b.position(0), copy.position(0));
    }
}

/// `e^x` for `x <= 0` one lane at a time: the operations of [`draw::exp4`] in their order,
/// the reference its lanes are checked against.
fn exp_nonpositive(x: f32) -> f32 {
    let x = if x > -88.0 { x } else { -88.0 };
    let big = x * std::f32::consts::LOG2_E + 12_582_912.0;
    let k = big - 12_582_912.0;
    let f = (x - k * 0.693_359_4) - k * -2.121_944_4e-4;
    let mut p = 1.987_569_1e-4;
    for a in [
        1.398_2e-3,
        8.333_452e-3,
        4.166_579_6e-2,
        1.666_666_5e-1,
        0.5,
    ] {
        p = p * f + a;
    }
    let e = p * f * f + f + 1.0;
    e * f32::from_bits(big.to_bits().wrapping_sub(0x4B40_0000 - 127) << 23)
}

/// The exponential of the softmax draws: four lanes give the bits of the scalar reference,
/// which is within 3e-7 of `e^x` relatively on `[-87, 0]`, exactly 1 at 0 and 0 at -inf and
/// far below.
#[test]
fn the_draws_exponential_is_exact_enough() {
    use super::draw::{exp4, F4};
    assert_eq!(exp_nonpositive(0.0), 1.0);
    assert_eq!(exp_nonpositive(f32::NEG_INFINITY), 0.0);
    assert_eq!(exp_nonpositive(-1000.0), 0.0);
    let mut worst = 0f64;
    for i in 0..=870_000 {
        let x = -(i as f32) / 10_000.0;
        let (got, want) = (exp_nonpositive(x) as f64, (x as f64).exp());
        worst = worst.max((got - want).abs() / want);
    }
    assert!(worst < 3e-7, "worst relative error {worst}");
    for i in 0..100_000 {
        let x: [f32; 4] = std::array::from_fn(|j| -((i * 4 + j) as f32) / 3_000.0);
        let four = exp4(F4::new(x)).lanes();
        for j in 0..4 {
            assert_eq!(
                four[j].to_bits(),
                exp_nonpositive(x[j]).to_bits(),
                "{}",
                x[j]
            );
        }
    }
    let edge = exp4(F4::new([f32::NEG_INFINITY, 0.0, -1e9, -88.0])).lanes();
    assert_eq!(edge, [0.0, 1.0, 0.0, 0.0]);
}
