//! `mancala agent kgp` against `mancala kgp-server`, as processes over TCP and WebSocket.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_mancala");

/// The server on a free port plays two games (the bot on both seats), the agent at level 5
/// against level 1 wins both; the server reports each connection as a JSON line.
#[test]
fn our_agent_plays_our_server_over_tcp() {
    let mut server = Command::new(BIN)
        .args(["kgp-server", "--addr", "127.0.0.1:0", "--level", "1"])
        .args(["--pits", "4", "--seeds", "4", "--move-time", "2s"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    assert!(first.starts_with("KGP 1.0.1 on 127.0.0.1:"), "{first}");
    assert!(first.contains("kalah,pits=4,seeds=4,stop-when-decided=true, level 1"));
    let addr = first.split(' ').nth(3).unwrap().to_string();
    let out = Command::new(BIN)
        .args([
            "agent", "kgp", "--server", &addr, "--level", "5", "--name", "t",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text} {:?}", out.stderr);
    assert!(text.contains("the server said goodbye"), "{text}");
    let report: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(report["name"], "t");
    assert_eq!(report["fault"], Value::Null);
    let games = report["games"].as_array().unwrap();
    assert_eq!(games.len(), 2);
    for (g, seat) in games.iter().zip(["south", "north"]) {
        assert_eq!(g["bot_seat"], seat);
        assert_eq!(g["winner"], seat, "{g}");
    }
    // The agent says each game's result from its side, as the server scored it (the second
    // game ended on the server's move: its one possible end is the result).
    let said: Vec<String> = String::from_utf8_lossy(&out.stderr)
        .lines()
        .map(str::to_string)
        .collect();
    let scored: Vec<String> = games
        .iter()
        .enumerate()
        .map(|(n, g)| {
            let s = [
                g["scores"][0].as_u64().unwrap(),
                g["scores"][1].as_u64().unwrap(),
            ];
            let (ours, theirs, seat) = if g["bot_seat"] == "south" {
                (s[0], s[1], "South")
            } else {
                (s[1], s[0], "North")
            };
            format!("game {}: won {ours}:{theirs} as {seat}", n + 1)
        })
        .collect();
    assert_eq!(said, scored);
}

/// KGP's Kalah(10,10) and Kalah(12,12), played to the end on both seats.
#[test]
fn our_agent_plays_ten_and_twelve_pit_boards() {
    // Kalah(12,12) holds 288 seeds: more than bytes hold, so the core counts in `u16`.
    for (pits, seeds) in [(10, 10), (12, 12)] {
        let total = 2 * pits * seeds;
        let mut server = Command::new(BIN)
            .args(["kgp-server", "--addr", "127.0.0.1:0", "--level", "1"])
            .args(["--pits", &pits.to_string(), "--seeds", &seeds.to_string()])
            .args(["--move-time", "100ms"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
        let first = lines.next().unwrap().unwrap();
        let rules = format!("kalah,pits={pits},seeds={seeds},stop-when-decided=true");
        assert!(first.contains(&rules), "{first}");
        let addr = first.split(' ').nth(3).unwrap().to_string();
        let out = Command::new(BIN)
            .args(["agent", "kgp", "--server", &addr, "--level", "2"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{:?}", out);
        let report: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
        let _ = server.kill();
        let _ = server.wait();
        assert_eq!(report["fault"], Value::Null, "{report}");
        let games = report["games"].as_array().unwrap();
        assert_eq!(games.len(), 2);
        for g in games {
            let s = g["scores"].as_array().unwrap();
            let (a, b) = (s[0].as_u64().unwrap(), s[1].as_u64().unwrap());
            // Over when a store holds more than half the seeds, or every seed is in a store.
            assert!(a > total / 2 || b > total / 2 || a + b == total, "{g}");
        }
    }
}

/// The same over WebSocket: the server also listens for `ws://` bots, the agent connects to
/// one with a path; `wss://` is refused, saying why.
#[test]
fn our_agent_plays_our_server_over_websocket() {
    let mut server = Command::new(BIN)
        .args([
            "kgp-server",
            "--addr",
            "127.0.0.1:0",
            "--ws-addr",
            "127.0.0.1:0",
        ])
        .args([
            "--level", "1", "--pits", "4", "--seeds", "4", "--games", "2",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    assert!(first.starts_with("KGP 1.0.1 on 127.0.0.1:"), "{first}");
    let second = lines.next().unwrap().unwrap();
    assert!(
        second.starts_with("KGP over WebSocket on ws://127.0.0.1:"),
        "{second}"
    );
    let url = format!("{}kgp", second.split(' ').nth(4).unwrap());
    let out = Command::new(BIN)
        .args([
            "agent", "kgp", "--server", &url, "--level", "5", "--name", "w",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text} {:?}", out.stderr);
    assert!(text.contains("the server said goodbye"), "{text}");
    let report: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(report["name"], "w");
    assert_eq!(report["fault"], Value::Null);
    let games = report["games"].as_array().unwrap();
    assert_eq!(games.len(), 2);
    for (g, seat) in games.iter().zip(["south", "north"]) {
        assert_eq!(g["winner"], seat, "{g}");
    }

    let out = Command::new(BIN)
        .args(["agent", "kgp", "--server", "wss://127.0.0.1:1/kgp"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("TLS (wss://) is not supported"), "{err}");
}

/// `serve` with a KGP WebSocket port: the agent plays its two games there, and the web API
/// lists both, over, with the agent's name on its seat.
#[test]
fn serve_stores_the_games_of_a_websocket_bot() {
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    let mut server = Command::new(BIN)
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--db",
            db.to_str().unwrap(),
        ])
        .args(["--kgp-ws-addr", "127.0.0.1:0", "--kgp-level", "1"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
    let web = lines.next().unwrap().unwrap();
    let web = web.split(' ').nth(2).unwrap().trim_start_matches("http://");
    let kgp = lines.next().unwrap().unwrap();
    assert!(kgp.starts_with("KGP on ws://127.0.0.1:"), "{kgp}");
    let url = kgp.split(' ').nth(2).unwrap().to_string();
    let out = Command::new(BIN)
        .args([
            "agent", "kgp", "--server", &url, "--level", "5", "--name", "wsbot",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{:?}", out.stderr);
    let report: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(report["fault"], Value::Null);
    let mut http = std::net::TcpStream::connect(web).unwrap();
    http.write_all(b"GET /api/kgp/games HTTP/1.0\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    http.read_to_string(&mut answer).unwrap();
    let _ = server.kill();
    let _ = server.wait();
    let body = answer.split("\r\n\r\n").nth(1).unwrap();
    let list: Value = serde_json::from_str(body).unwrap();
    let games = list["games"].as_array().unwrap();
    assert_eq!(games.len(), 2, "{list}");
    // Newest first: the agent North in the second game, South in the first.
    for (g, seat) in games.iter().zip(["north", "south"]) {
        assert_eq!(g["over"], true);
        assert_eq!(g["players"][seat]["name"], "wsbot");
        assert_eq!(g["players"][seat]["kind"], "bot");
        assert_eq!(g["result"]["winner"], seat, "{g}");
    }
}

/// A bad address is refused before anything is printed or served: `kgp-server`'s WebSocket
/// address after a good TCP one, and `serve`'s KGP addresses after a good web one; so is a
/// lobby without a KGP address.
#[test]
fn a_bad_address_is_refused_before_any_banner() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    let db = db.to_str().unwrap();
    for args in [
        vec!["kgp-server", "--addr", "127.0.0.1:0", "--ws-addr", "foo"],
        vec![
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--db",
            db,
            "--kgp-addr",
            "127.0.0.1:0",
            "--kgp-ws-addr",
            "foo",
        ],
        vec![
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--db",
            db,
            "--kgp-addr",
            "foo",
        ],
    ] {
        let out = Command::new(BIN).args(&args).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "", "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        if args.contains(&"--kgp-lobby") {
            assert!(err.contains("--kgp-lobby needs a KGP address"), "{err}");
        } else {
            assert!(err.contains("foo"), "{args:?}: {err}");
        }
    }
}

/// A server that sends the agent away before any position (busy), or cuts it off before any
/// without a goodbye, or speaks another version, makes it exit with an error that says why,
/// so a script that starts bots can tell.
#[test]
fn an_agent_sent_away_unplayed_exits_with_an_error() {
    use std::io::{Read, Write};
    let agent_against = |greeting: &'static [u8]| {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let server = std::thread::spawn(move || {
            let (mut s, _) = listener.accept().unwrap();
            s.write_all(greeting).unwrap();
            // Reads what the agent sends for a moment, then closes.
            s.set_read_timeout(Some(std::time::Duration::from_millis(500)))
                .unwrap();
            let mut buf = [0u8; 4096];
            while matches!(s.read(&mut buf), Ok(n) if n > 0) {}
        });
        let out = Command::new(BIN)
            .args(["agent", "kgp", "--server", &addr, "--level", "1"])
            .output()
            .unwrap();
        server.join().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{err}");
        err
    };
    let err = agent_against(b"kgp 1 0 1\r\nerror \"the server is busy\"\r\ngoodbye\r\n");
    assert!(
        err.contains("error: the server sent no position: the server is busy"),
        "{err}"
    );
    let err = agent_against(b"kgp 1 0 1\r\n");
    assert!(
        err.contains("error: the server closed the connection before sending any position"),
        "{err}"
    );
    let err = agent_against(b"kgp 2 0 0\r\n");
    assert!(
        err.contains("error: the server speaks KGP 2.0.0, not 1.x"),
        "{err}"
    );
}

/// `analyze --all-moves --time 1s` and the server's analysis board (one second) run the one
/// analysis policy and spend the same time on a position no proof settles in it: within 10 %
/// (the Python package's `analyze(all_moves=True)` is held to the CLI's in its own tests).
#[test]
fn the_analysis_board_spends_the_time_analyze_all_moves_spends() {
    use std::io::{Read, Write};
    let pos = "kalah,seeds=6/6-6-6-6-6-6/0/6-6-6-6-6-6/0/s";
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("games.db");
    let mut server = Command::new(BIN)
        .args([
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--db",
            db.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
    let web = lines.next().unwrap().unwrap();
    let web = web
        .split(' ')
        .nth(2)
        .unwrap()
        .trim_start_matches("http://")
        .to_string();
    let board_ms = |_: ()| {
        let body = format!("{{\"position\":\"{pos}\"}}");
        let mut http = std::net::TcpStream::connect(&web).unwrap();
        write!(
            http,
            "POST /api/analysis HTTP/1.0\r\nHost: {web}\r\nOrigin: http://{web}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        http.read_to_string(&mut answer).unwrap();
        let body = answer.split("\r\n\r\n").nth(1).unwrap().to_string();
        let v: Value = serde_json::from_str(&body).unwrap_or_else(|_| panic!("{answer}"));
        v["ms"].as_u64().unwrap_or_else(|| panic!("{v}"))
    };
    let cli_ms = |_: ()| {
        let out = Command::new(BIN)
            .args([
                "analyze",
                pos,
                "--all-moves",
                "--time",
                "1s",
                "--threads",
                "1",
                "--json",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["ms"].as_u64().unwrap()
    };
    // Alternated, so that a burst of load on this shared machine falls on both.
    let (mut board, mut cli) = (Vec::new(), Vec::new());
    for _ in 0..2 {
        board.push(board_ms(()));
        cli.push(cli_ms(()));
    }
    let _ = server.kill();
    let _ = server.wait();
    let (b, c) = (
        board.iter().sum::<u64>() as f64,
        cli.iter().sum::<u64>() as f64,
    );
    assert!(
        (b - c).abs() <= 0.1 * c,
        "board {board:?} ms, analyze {cli:?} ms"
    );
    assert!(
        c >= 1800.0,
        "no proof settles this position in a second: {cli:?} ms"
    );
}
