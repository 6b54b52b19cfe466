//! KGP over TCP: our client against our server in every mode and on both seats, and scripted
//! bots that break the protocol, each ending its connection for its own reason while the
//! server goes on serving.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use mancala_engine::Level;
use mancala_play::Computer;
use mancala_protocols::kgp::{
    self, run_client, ClientConfig, ClientReport, Link, Message, Mode, ServerConfig, SessionReport,
    Transport,
};

mod kgp_common;
use kgp_common::{config, report, serving};

fn server(cfg: ServerConfig) -> (String, Receiver<SessionReport>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    (addr, serving(vec![(listener, Transport::Tcp)], cfg))
}

fn client(addr: &str, mode: Mode, level: u8) -> ClientReport {
    let link = Link::tcp(TcpStream::connect(addr).unwrap()).unwrap();
    kgp_common::client(link, "our client", mode, level)
}

/// Level 5 as the client beats level 1 as the server on both seats; the bot is South in the
/// first game and North in the second, and both games end by the rules.
#[test]
fn freeplay_games_on_both_seats() {
    let (addr, rx) = server(config(1));
    let c = client(&addr, Mode::Freeplay, 5);
    let r = report(&rx);
    assert_eq!(r.fault, None);
    assert_eq!(r.mode.as_deref(), Some("freeplay"));
    assert_eq!(r.name.as_deref(), Some("our client"));
    assert!(c.goodbye);
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    assert_eq!(r.games.len(), 2);
    use mancala_core::Side::{North, South};
    assert_eq!(r.games[0].bot_seat, South);
    assert_eq!(r.games[1].bot_seat, North);
    for g in &r.games {
        assert_eq!(g.fault, None);
        assert_eq!(g.winner, Some(g.bot_seat), "{g:?}");
        // Ended by the rules: decided (a store above half of 72) or a row emptied and swept.
        assert!(g.scores.iter().any(|&s| s > 36) || g.scores[0] + g.scores[1] == 72);
        assert!(g.bot_moves > 3);
    }
    assert!(c.states >= r.games[0].bot_moves + r.games[1].bot_moves);
    assert!(c.moves >= c.states);
}

#[test]
fn eval_and_verify_modes() {
    let (addr, rx) = server(ServerConfig {
        move_time: Duration::from_millis(300),
        ..config(3)
    });
    let c = client(&addr, Mode::Eval, 5);
    let r = report(&rx);
    assert_eq!(r.fault, None);
    assert_eq!(r.evals.len(), 5);
    assert!(c.evals >= 5);
    // Final seed margins of a 72-seed game.
    assert!(r.evals.iter().all(|v| v.fract() == 0.0 && v.abs() <= 72.0));

    let c = client(&addr, Mode::Verify, 5);
    let r = report(&rx);
    assert_eq!(r.fault, None);
    assert_eq!(r.verified, [5, 0]);
    assert_eq!(c.solutions, 5);
}

/// A scripted bot: reads the server's lines, answers with `answer` (given the line; `None`:
/// say nothing), and returns every line it read until the server closed.
fn scripted(addr: &str, first: &[u8], answer: impl Fn(&Message) -> Option<String>) -> Vec<String> {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.write_all(first).unwrap();
    let input = BufReader::new(stream.try_clone().unwrap());
    let mut seen = Vec::new();
    for line in input.lines() {
        let Ok(line) = line else { break };
        if let Ok(m) = Message::parse(&line) {
            if let Some(a) = answer(&m) {
                if stream.write_all(a.as_bytes()).is_err() {
                    break;
                }
            }
        }
        seen.push(line);
    }
    seen
}

fn reply_to_state(m: &Message, text: &str) -> Option<String> {
    (m.name == "state").then(|| format!("@{} {text}\n", m.id.unwrap()))
}

#[test]
fn misbehaving_bots_lose_for_their_own_fault() {
    let (addr, rx) = server(ServerConfig {
        move_time: Duration::from_millis(300),
        greeting_time: Duration::from_millis(500),
        ..config(2)
    });
    let fault = |first: &[u8], answer: &dyn Fn(&Message) -> Option<String>| {
        let seen = scripted(&addr, first, answer);
        let r = report(&rx);
        let f = r.fault.clone().unwrap_or_default();
        // The bot was told why, then goodbye.
        assert!(seen.iter().any(|l| l.starts_with("error ")), "{seen:?}");
        assert_eq!(seen.last().map(String::as_str), Some("goodbye"));
        (f, r)
    };
    let freeplay = b"mode freeplay\n";
    for (first, answer, needle) in [
        (&freeplay[..], "move 1,2", "malformed message"),
        (freeplay, "move 7", "a pit is 1 to 6"),
        (freeplay, "move 0", "a pit is 1 to 6"),
        (freeplay, "move x", "a move is a pit number"),
        (freeplay, "eval 1.0", "where a move is due"),
        (freeplay, "yield", "yield before any move"),
    ] {
        let (f, r) = fault(first, &|m| reply_to_state(m, answer));
        assert!(f.contains(needle), "{answer}: {f}");
        assert_eq!(r.games.len(), 1);
        assert_eq!(r.games[0].winner, Some(mancala_core::Side::North));
    }
    // A reference to a request never made.
    let (f, _) = fault(freeplay, &|m| {
        (m.name == "state").then(|| "@999 move 1\n".to_string())
    });
    assert!(f.contains("refers to @999"), "{f}");
    // Pit 1 of 6 seeds ends in the store: South moves again, and pit 1 is empty.
    let (f, r) = fault(freeplay, &|m| reply_to_state(m, "move 1"));
    assert!(f.contains("illegal move 1: its pit is empty"), "{f}");
    assert_eq!(r.games[0].bot_moves, 1);
    // Silent, or a line that never ends (slow loris).
    let (f, _) = fault(freeplay, &|_| None);
    assert!(f.contains("no move within 300 ms"), "{f}");
    let (f, _) = fault(freeplay, &|m| {
        reply_to_state(m, "move").map(|s| s.replace('\n', ""))
    });
    assert!(f.contains("no move within 300 ms"), "{f}");
    // Out of turn: a move before any position was asked about.
    let (f, _) = fault(b"move 1\nmode freeplay\n", &|_| None);
    assert!(f.contains("`move 1` before `mode`"), "{f}");
    // No mode at all, or one the server does not play.
    let (f, _) = fault(b"", &|_| None);
    assert!(f.contains("no `mode` within 0.5 s"), "{f}");
    let (f, _) = fault(b"mode chess\n", &|_| None);
    assert!(f.contains("unsupported activity `chess`"), "{f}");
    // An oversized line.
    let mut long = vec![b'a'; kgp::MAX_LINE + 10];
    long.push(b'\n');
    let (f, _) = fault(&long, &|_| None);
    assert!(f.contains("longer than 16384 bytes"), "{f}");
    // A wrong solution is an error message, not a fault; blank lines are skipped.
    let seen = scripted(&addr, b"\n \r\nmode verify\n", |m: &Message| {
        (m.name == "problem").then(|| format!("@{} solution <1,0,0,0,0> 0\n", m.id.unwrap()))
    });
    let r = report(&rx);
    assert_eq!(r.fault, None);
    assert_eq!(r.verified, [0, 5]);
    assert_eq!(
        seen.iter()
            .filter(|l| l.contains(" error \"wrong: move"))
            .count(),
        5
    );

    // A bot that disconnects mid-game: the server notes it and serves the next bot.
    {
        let mut s = TcpStream::connect(&addr).unwrap();
        s.write_all(freeplay).unwrap();
        let mut input = BufReader::new(s.try_clone().unwrap());
        let mut line = String::new();
        while !line.contains("state") {
            line.clear();
            input.read_line(&mut line).unwrap();
        }
    }
    let r = report(&rx);
    assert!(
        r.fault
            .as_deref()
            .is_some_and(|f| f.contains("closed the connection")),
        "{:?}",
        r.fault
    );
    let c = client(&addr, Mode::Verify, 1);
    assert_eq!(c.solutions, 5);
    assert_eq!(report(&rx).verified, [5, 0]);
}

/// The bot on North is sent the board mirrored: its own (empty) store first, its own row of
/// untouched pits first... and the server's store, which its first move filled, second.
#[test]
fn a_bot_on_north_sees_the_board_mirrored() {
    let (addr, rx) = server(ServerConfig {
        games: 2,
        ..config(2)
    });
    // The bot plays its leftmost pit that holds seeds.
    let seen = scripted(&addr, b"mode freeplay\n", |m: &Message| {
        let b = m.board(0)?;
        let n = b[0] as usize;
        let k = (0..n).find(|&i| b[3 + i] > 0)? + 1;
        Some(format!("@{} move {k}\n@{} yield\n", m.id?, m.id?))
    });
    let r = report(&rx);
    assert_eq!(r.fault, None, "{seen:?}");
    let game2 = seen.iter().position(|l| l == "set game:id \"2\"").unwrap();
    let first = seen[game2 + 1..]
        .iter()
        .find_map(|l| Message::parse(l).ok().filter(|m| m.name == "state"))
        .unwrap();
    let b = first.board(0).unwrap();
    assert_eq!(b[0], 6);
    assert_eq!(b[1], 0, "the bot's store: {b:?}");
    assert!(b[2] >= 1, "the server's store, which moved first: {b:?}");
    let states = seen.iter().filter(|l| l.contains(" state <")).count() as u32;
    assert_eq!(states, r.games[0].bot_moves + r.games[1].bot_moves);
}

/// The server's `stop` ends the client's search at once: a client given 10 s a position
/// plays a whole game against a server that stops it after 600 ms.
#[test]
fn stop_ends_the_search() {
    let (addr, rx) = server(ServerConfig {
        games: 1,
        move_time: Duration::from_millis(600),
        ..config(1)
    });
    let start = std::time::Instant::now();
    let stream = TcpStream::connect(&addr).unwrap();
    stream.set_nodelay(true).unwrap();
    let input = BufReader::new(stream.try_clone().unwrap());
    let mut computer = Computer::new(Level::new(6).unwrap(), 7);
    let cfg = ClientConfig {
        mode: Mode::Freeplay,
        name: "slow".into(),
        authors: None,
        token: None,
        per_move: Some(Duration::from_secs(10)),
    };
    let c = run_client(
        input,
        stream,
        &mut computer,
        &cfg,
        Box::new(std::io::sink()),
    )
    .unwrap();
    let r = report(&rx);
    assert_eq!(r.fault, None);
    let g = &r.games[0];
    assert!(g.bot_moves >= 5, "{g:?}");
    // Each position took the server's 600 ms, not the client's 10 s.
    assert!(g.bot_avg_ms < 2500.0, "{g:?}");
    assert!(start.elapsed() < Duration::from_secs(60));
    assert!(c.goodbye);
}

/// A server's `ping` is answered `pong` at once, referring to it, even with no position
/// asked about; an unreadable line and a `state` without an id get an `error` and are
/// skipped; `time:clock` bounds a move.
#[test]
fn ping_is_answered_pong() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let handle = std::thread::spawn(move || client(&addr, Mode::Freeplay, 8));
    let (mut s, _) = listener.accept().unwrap();
    s.write_all(b"kgp 1 0 1\r\n").unwrap();
    let mut input = BufReader::new(s.try_clone().unwrap());
    let mut got = Vec::new();
    let mut line = String::new();
    while !line.starts_with("mode") {
        line.clear();
        input.read_line(&mut line).unwrap();
        got.push(line.trim_end().to_string());
    }
    assert_eq!(
        got,
        [
            "set info:name \"our client\"",
            "set info:authors tests",
            "mode freeplay"
        ]
    );
    s.write_all(b"<<garbage\r\nstate <1,0,0,1,1>\r\n7 ping\r\n")
        .unwrap();
    let mut next = || {
        line.clear();
        input.read_line(&mut line).unwrap();
        line.clone()
    };
    let unreadable = next();
    assert!(
        unreadable.starts_with("error \"unreadable: "),
        "{unreadable}"
    );
    // The reading thread answers `ping` at once, maybe before the `state` is looked at.
    let mut two = [next(), next()];
    two.sort();
    assert_eq!(
        two,
        [
            "@7 pong\r\n",
            "error \"a state without an id: a move could not refer to it\"\r\n"
        ]
    );
    // Level 8 thinks 3 s a move; with 2 s on its clock it takes a twentieth of that.
    s.write_all(b"set time:clock 2\r\n5 state <6,0,0,6,6,6,6,6,6,6,6,6,6,6,6>\r\n")
        .unwrap();
    let start = std::time::Instant::now();
    while !line.starts_with("@5 yield") {
        line.clear();
        input.read_line(&mut line).unwrap();
    }
    assert!(
        start.elapsed() < Duration::from_millis(1500),
        "{:?}",
        start.elapsed()
    );
    s.write_all(b"goodbye\r\n").unwrap();
    let c = handle.join().unwrap();
    assert!(c.goodbye);
    // The one without an id counts too.
    assert_eq!(c.states, 2);
}

/// A bot's `ping` is answered `pong`, before `mode` and during a mode, and costs it nothing.
#[test]
fn the_server_answers_a_bots_ping() {
    let (addr, rx) = server(config(1));
    let seen = scripted(&addr, b"5 ping\nmode verify\n", |m: &Message| {
        (m.name == "problem")
            .then(|| format!("9 ping\n@{} solution <1,0,0,0,0> 0\n", m.id.unwrap()))
    });
    let r = report(&rx);
    assert_eq!(r.fault, None);
    assert_eq!(r.verified, [0, 5]);
    assert!(seen.iter().any(|l| l.starts_with("@5 pong")), "{seen:?}");
    assert_eq!(
        seen.iter().filter(|l| l.contains("@9 pong")).count(),
        5,
        "{seen:?}"
    );
}
