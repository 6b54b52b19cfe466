//! `Batch::step_some`: only the games named move, and each game that ends leaves its final
//! observation; checked against separate `Game`s, on every preset, alone and shared by a
//! team of threads.

use mancala_batch::batch::{
    observation_len, write_mask, write_observation, write_observation_for, Actions, Batch, Reward,
    StepOut, StepSome,
};
use mancala_batch::team::Team;
use mancala_core::rng::Rng;
use mancala_core::{Game, Position, Preset};
use proptest::prelude::*;

/// A team of one helper, made once (teams live as long as the process).
fn pair() -> &'static Team {
    static TEAM: std::sync::OnceLock<&'static Team> = std::sync::OnceLock::new();
    TEAM.get_or_init(|| Box::leak(Box::new(Team::new(1))))
}

/// Steps `n` games of preset `preset` for `steps` steps with a random half (about) of the
/// games moving, actions given or drawn, and checks every output against separate games;
/// the number of games that ended (each one's final observation checked).
fn check(preset: usize, n: usize, seed: u64, steps: usize, random: bool, shared: bool) -> usize {
    let rules = Preset::ALL[preset].rules();
    let start = Position::start(&rules).unwrap();
    let mut b = Batch::new(start, n, seed, 0, Reward::Margin);
    if shared {
        b = b.with_team(pair());
    }
    let (k, m) = (observation_len(&rules), rules.pits as usize);
    let mut games: Vec<Game> = (0..n).map(|_| Game::new(start)).collect();
    let mut choose = Rng::new(seed ^ 0x5eed);
    let (mut r, mut d) = (vec![0.0; n], vec![false; n]);
    let (mut o, mut mask) = (vec![0.0; n * k], vec![false; n * m]);
    let mut finals = vec![-7.0f32; n * k];
    let mut a = vec![0i64; n];
    let mut ended = 0;
    for _ in 0..steps {
        let active: Vec<bool> = (0..n).map(|_| choose.below(2) == 0).collect();
        let before = finals.clone();
        let out = StepOut {
            rewards: &mut r,
            dones: &mut d,
            observations: &mut o,
            masks: &mut mask,
        };
        let some = StepSome {
            active: Some(&active),
            finals: Some(&mut finals),
        };
        if random {
            b.step_some(Actions::Random(&mut a), out, some).unwrap();
        } else {
            b.sample_actions(&mut a);
            // A game that does not move may be given anything: it is not checked.
            for (x, &on) in a.iter_mut().zip(&active) {
                if !on {
                    *x = 99;
                }
            }
            b.step_some(Actions::Given(&a), out, some).unwrap();
        }
        for i in 0..n {
            let g = &mut games[i];
            let row = i * k..(i + 1) * k;
            if !active[i] {
                assert!(!d[i] && r[i] == 0.0, "game {i} did not move");
                assert_eq!(b.final_scores()[i], [0, 0]);
                if random {
                    assert_eq!(a[i], -1, "game {i} drew no move");
                }
                assert_eq!(finals[row.clone()], before[row.clone()]);
            } else {
                let mover = g.to_move();
                g.play(a[i] as u8).unwrap();
                assert_eq!(d[i], g.is_over(), "game {i}");
                if d[i] {
                    ended += 1;
                    assert_eq!(r[i], Reward::Margin.of(g, mover));
                    assert_eq!(b.final_scores()[i], g.scores());
                    let mut want = vec![0.0; k];
                    write_observation_for(g.position(), mover, &mut want);
                    assert_eq!(
                        finals[row.clone()],
                        want[..],
                        "game {i}'s final observation"
                    );
                    *g = Game::new(start);
                } else {
                    assert_eq!(r[i], 0.0);
                    assert_eq!(finals[row.clone()], before[row.clone()]);
                }
            }
            assert_eq!(&b.position(i), g.position(), "game {i}");
            let mut want = vec![0.0; k];
            write_observation(g.position(), &mut want);
            assert_eq!(o[row], want[..], "game {i}'s observation");
            let mut want = vec![false; m];
            write_mask(g, &mut want);
            assert_eq!(mask[i * m..(i + 1) * m], want[..], "game {i}'s mask");
        }
    }
    ended
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn only_the_active_games_move_and_finals_are_kept(
        preset in 0..Preset::ALL.len(),
        seed: u64,
        n in 1usize..12,
        steps in 1usize..250,
        random: bool,
    ) {
        check(preset, n, seed, steps, random, false);
    }
}

/// Games of every preset end under `step_some`, so their final observations are checked
/// (random games of Oware can outlast a short property case).
#[test]
fn games_of_every_preset_end_with_their_finals_kept() {
    for (preset, p) in Preset::ALL.iter().enumerate() {
        for random in [false, true] {
            let ended = check(preset, 6, 11, 600, random, false);
            assert!(ended > 0, "{}: no game ended", p.name());
        }
    }
}

/// Large enough to be cut into chunks shared by a team (256 games or more), on the fast
/// board (Kalah) and off it (Oware, which keeps its games for the repetition rule).
#[test]
fn shared_steps_move_only_the_active_games() {
    for name in ["kalah", "oware"] {
        let preset = Preset::ALL
            .iter()
            .position(|p| p.name() == name)
            .unwrap_or_else(|| panic!("{name} is a preset"));
        for random in [false, true] {
            let ended = check(preset, 300, 7, 160, random, true);
            assert!(ended > 0, "{name}: no game ended");
        }
    }
}

/// An illegal action of a game that moves is refused and no game moves; the same action in
/// a game that does not move is ignored.
#[test]
fn only_the_moving_games_actions_are_checked() {
    let start = Position::start(&"kalah,seeds=4".parse().unwrap()).unwrap();
    let mut b = Batch::new(start, 2, 1, 0, Reward::Win);
    let (k, m) = (observation_len(start.rules()), start.pits());
    let (mut r, mut d) = (vec![0.0; 2], vec![false; 2]);
    let (mut o, mut mask) = (vec![0.0; 2 * k], vec![false; 2 * m]);
    let mut step = |b: &mut Batch, active: [bool; 2]| {
        let out = StepOut {
            rewards: &mut r,
            dones: &mut d,
            observations: &mut o,
            masks: &mut mask,
        };
        let some = StepSome {
            active: Some(&active),
            finals: None,
        };
        b.step_some(Actions::Given(&[0, 42]), out, some)
    };
    assert!(step(&mut b, [true, true]).is_err());
    assert_eq!(b.position(0), start);
    step(&mut b, [true, false]).unwrap();
    assert_ne!(b.position(0), start);
    assert_eq!(b.position(1), start);
}
