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
        .args(["--pits", "4", "--seeds", "4", "--move-time", "2000"])
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
