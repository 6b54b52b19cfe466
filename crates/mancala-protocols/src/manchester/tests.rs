//! Manchester messages printed and read back, bad ones refused, the move budget, and the
//! default level against an agent that swaps.

use super::*;
use mancala_core::Opening;

#[test]
fn messages_print_and_read_back() {
    let start = Position::start(&rules()).unwrap();
    let state = state_of(&start, false);
    assert_eq!(state, [7, 7, 7, 7, 7, 7, 7, 0, 7, 7, 7, 7, 7, 7, 7, 0]);
    for msg in [
        ToAgent::Start(Side::South),
        ToAgent::Start(Side::North),
        ToAgent::End,
        ToAgent::Change {
            action: Action::Move(3),
            state,
            turn: Turn::Opp,
        },
        ToAgent::Change {
            action: Action::Swap,
            state,
            turn: Turn::You,
        },
    ] {
        let text = msg.to_string();
        assert_eq!(ToAgent::parse(&text), Ok(msg), "{text}");
    }
    assert_eq!(
        ToAgent::Change {
            action: Action::Move(1),
            state,
            turn: Turn::End
        }
        .to_string(),
        "CHANGE;1;7,7,7,7,7,7,7,0,7,7,7,7,7,7,7,0;END"
    );
    for a in [Action::Move(1), Action::Move(7), Action::Swap] {
        assert_eq!(Action::parse(&a.to_string()), Ok(a));
        assert_eq!(Action::from_core(a.to_core()), a);
    }
    // What the course's Java referee takes (`Integer.parseInt`): a sign, leading zeros.
    for (line, k) in [
        ("MOVE;+3", 3),
        ("MOVE;03", 3),
        ("MOVE;0007", 7),
        ("MOVE;+01", 1),
    ] {
        assert_eq!(Action::parse(line), Ok(Action::Move(k)), "{line}");
    }
}

#[test]
fn bad_messages_say_what_is_wrong() {
    for (line, needle) in [
        ("MOVE;0", "MOVE;1 to MOVE;7"),
        ("MOVE;8", "MOVE;1 to MOVE;7"),
        ("MOVE;-0", "MOVE;1 to MOVE;7"),
        ("MOVE;2147483647", "MOVE;1 to MOVE;7"),
        ("MOVE;2147483648", "a number, 1 to 7"),
        ("MOVE; 3", "a number, 1 to 7"),
        ("MOVE;3 ", "a number, 1 to 7"),
        ("MOVE;", "a number, 1 to 7"),
        ("MOVE;+", "a number, 1 to 7"),
        ("MOVE;+-3", "a number, 1 to 7"),
        ("MOVE;\u{663}", "a number, 1 to 7"),
        ("move;3", "is not MOVE;k or SWAP"),
        ("", "is not MOVE;k or SWAP"),
        ("SWAP;", "is not MOVE;k or SWAP"),
    ] {
        let e = Action::parse(line).unwrap_err().to_string();
        assert!(e.contains(needle), "{line}: {e}");
    }
    for (line, needle) in [
        ("START;East", "not a referee's message"),
        (
            "CHANGE;8;7,7,7,7,7,7,7,0,7,7,7,7,7,7,7,0;YOU",
            "1 to 7 or SWAP",
        ),
        ("CHANGE;1;7,7,7;YOU", "3 numbers, not 16"),
        (
            "CHANGE;1;7,7,7,7,7,7,7,0,7,7,7,7,7,7,7,x;YOU",
            "`x` is not a count",
        ),
        (
            "CHANGE;1;7,7,7,7,7,7,7,0,7,7,7,7,7,7,7,0;ME",
            "not YOU, OPP or END",
        ),
    ] {
        let e = ToAgent::parse(line).unwrap_err().to_string();
        assert!(e.contains(needle), "{line}: {e}");
    }
}

/// After South's first move and North's swap, the protocol's board is the one South
/// built, with the swapper now South: the core's mirrored once more.
#[test]
fn the_state_after_a_swap_keeps_the_board() {
    let mut g = Game::from_rules(&rules()).unwrap();
    g.play(0).unwrap();
    let before = state_of(g.position(), false);
    assert_eq!(before, [7, 7, 7, 7, 7, 7, 7, 0, 0, 8, 8, 8, 8, 8, 8, 1]);
    assert_eq!(g.position().setup().opening, Opening::Swap);
    g.play(SWAP).unwrap();
    assert_eq!(state_of(g.position(), swapped(&g)), before);
}

#[test]
fn the_budget_keeps_a_reserve() {
    let b = Budget::default();
    assert_eq!(b.move_limit(Duration::ZERO), Duration::from_secs(171));
    assert_eq!(b.move_limit(GAME_TIME), Duration::from_millis(5));
    let b = Budget {
        per_move: Some(Duration::from_millis(100)),
        ..b
    };
    assert_eq!(b.move_limit(Duration::ZERO), Duration::from_millis(100));
}

/// The agent at its default level (6) plays South against an opponent that always swaps
/// and then plays level 5: its first move leaves the swap nothing (the pie rule played
/// by value), and it wins or draws. The game's log is printed (`--nocapture`).
#[test]
fn the_default_level_as_south_holds_its_own_against_a_swapper() {
    let (agent_in, mut to_agent) = std::io::pipe().unwrap();
    let (from_agent, agent_out) = std::io::pipe().unwrap();
    let ours = std::thread::spawn(move || {
        let mut computer = Computer::new(mancala_engine::Level::new(6).unwrap(), 1);
        let mut log = Vec::new();
        let r = run_agent(
            BufReader::new(agent_in),
            agent_out,
            &mut computer,
            Budget::default(),
            &mut log,
        );
        (r, String::from_utf8(log).unwrap())
    });
    let mut replies = BufReader::new(from_agent).lines();
    let mut send = |m: ToAgent| writeln!(to_agent, "{m}").unwrap();
    send(ToAgent::Start(Side::South));
    let opponent = mancala_engine::Level::new(5).unwrap();
    let mut game = Game::from_rules(&rules()).unwrap();
    while !game.is_over() {
        let action = if game.to_move() == Side::South {
            Action::parse(&replies.next().unwrap().unwrap()).unwrap()
        } else if game.position().legal_moves().contains(SWAP) {
            Action::Swap
        } else {
            Action::from_core(opponent.choose(game.position(), game.history(), 1).unwrap())
        };
        game.play(action.to_core()).unwrap();
        let turn = if game.is_over() {
            Turn::End
        } else if game.to_move() == Side::South {
            Turn::You
        } else {
            Turn::Opp
        };
        send(ToAgent::Change {
            action,
            state: state_of(game.position(), swapped(&game)),
            turn,
        });
    }
    send(ToAgent::End);
    let (report, log) = ours.join().unwrap();
    let report = report.unwrap();
    eprintln!("{log}");
    assert!(swapped(&game), "{log}");
    let [south, north] = report.scores.unwrap();
    assert_eq!(u32::from(south) + u32::from(north), 98, "{log}");
    assert!(south >= north, "South {south}, North {north}: {log}");
}
