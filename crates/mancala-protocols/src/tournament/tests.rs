use super::*;

fn bot(id: u64, name: Option<&str>) -> kgp::LobbyBot {
    kgp::LobbyBot {
        id,
        name: name.map(String::from),
        authors: None,
        since: 0,
        rules: String::new(),
    }
}

#[test]
fn connected_bots_get_names_of_their_own() {
    let bots = [
        bot(1, Some("x")),
        bot(2, None),
        bot(3, Some("  ")),
        bot(4, Some("bot 2")),
        bot(5, Some("x")),
        bot(6, Some("y")),
    ];
    assert_eq!(
        unique_names(&bots),
        ["x #1", "bot 2 #2", "bot 3", "bot 2 #4", "x #5", "y"]
    );
    // A name that a suffix would make shared again gets suffixed once more.
    let bots = [bot(1, Some("a")), bot(2, Some("a")), bot(3, Some("a #1"))];
    assert_eq!(unique_names(&bots), ["a #1 #1", "a #2", "a #1 #3"]);
}

/// A bot that asks for freeplay and reads every line the server sends it, until the
/// connection ends: the lines, `goodbye` last where the server said it.
fn listening_bot(addr: std::net::SocketAddr) -> Vec<String> {
    use std::io::{BufRead, BufReader, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(b"mode freeplay\r\n").unwrap();
    let lines: Vec<String> = BufReader::new(s).lines().map_while(Result::ok).collect();
    assert!(lines[0].starts_with("kgp 1"), "{lines:?}");
    assert_eq!(
        lines.last().map(String::as_str),
        Some("goodbye"),
        "{lines:?}"
    );
    lines
}

/// Two of our clients play a tournament of connected bots; a bot that comes once it is
/// over is told so and `goodbye`, not left waiting for games that will never come.
#[test]
fn a_bot_that_comes_after_the_end_is_told_so() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let bots: Vec<_> = (0..2)
        .map(|k| {
            std::thread::spawn(move || {
                let stream = std::net::TcpStream::connect(addr).unwrap();
                let link = kgp::Link::tcp(stream).unwrap();
                let mut computer = mancala_play::Computer::new(Level::new(1).unwrap(), k);
                let cfg = kgp::ClientConfig {
                    mode: kgp::Mode::Freeplay,
                    name: format!("c{k}"),
                    authors: None,
                    token: None,
                    per_move: None,
                };
                let sink = Box::new(std::io::sink());
                kgp::run_client(link.reader, link.writer, &mut computer, &cfg, sink)
            })
        })
        .collect();
    let mut cfg = Config::new(Protocol::Kgp);
    cfg.rules = kgp::rules_for(3, 18).unwrap();
    cfg.games = 1;
    let wait = Duration::from_secs(30);
    let r = run_connected(&cfg, listener, 2, wait, |_| {}, |_, _| {}).unwrap();
    assert_eq!(r.games.len(), 1);
    for b in bots {
        b.join().unwrap().unwrap();
    }
    let lines = listening_bot(addr);
    let over = "error \"the tournament is over\"";
    assert!(lines.iter().any(|l| l == over), "{lines:?}");
}

/// A bot that came to a tournament that never started is told why before `goodbye`.
#[test]
fn a_bot_of_a_tournament_that_did_not_start_is_told_why() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let bot = std::thread::spawn(move || listening_bot(addr));
    let cfg = Config::new(Protocol::Kgp);
    let wait = Duration::from_secs(1);
    let e = run_connected(&cfg, listener, 2, wait, |_| {}, |_, _| {}).unwrap_err();
    assert_eq!(e.to_string(), "1 of 2 bots connected within 1 s");
    let lines = bot.join().unwrap();
    let told = "error \"the tournament did not start: 1 of 2 bots connected within 1 s\"";
    assert!(lines.iter().any(|l| l == told), "{lines:?}");
}

#[test]
fn entrants_read_name_then_command() {
    let e = Entrant::parse("L2 = mancala agent kgp --server {addr} --x=1").unwrap();
    assert_eq!(e.name, "L2");
    assert_eq!(e.cmd, " mancala agent kgp --server {addr} --x=1");
    for bad in ["no-equals", "=cmd", "name=", " = "] {
        let err = Entrant::parse(bad).unwrap_err().to_string();
        assert!(err.ends_with("is not NAME=CMD"), "{bad}: {err}");
    }
    let cfg = Config::new(Protocol::Manchester);
    let a = Entrant::parse("a=true").unwrap();
    let e = run(&cfg, std::slice::from_ref(&a), |_| {}).unwrap_err();
    assert_eq!(e.to_string(), "a tournament needs two entrants or more");
    let e = run(&cfg, &[a.clone(), a], |_| {}).unwrap_err();
    assert_eq!(e.to_string(), "the name `a` is given twice");
}
