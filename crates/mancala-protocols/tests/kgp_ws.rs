//! KGP over WebSocket: our client against our server in every mode and on both seats, over
//! `ws://`, and bots that break the transport (a message over 16 KiB, a binary frame,
//! garbage), each ending its connection for that reason while the server goes on serving.

use std::net::{TcpListener, TcpStream};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use mancala_core::Side::{North, South};
use mancala_protocols::kgp::{self, ClientReport, Mode, ServerConfig, SessionReport, Transport};
use tungstenite::Message as Ws;

mod kgp_common;
use kgp_common::{config, report, serving};

/// A server on a TCP and a WebSocket listener; returns the `ws://` address.
fn server(cfg: ServerConfig) -> (String, Receiver<SessionReport>) {
    let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    let ws = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("ws://{}/kgp", ws.local_addr().unwrap());
    let listeners = vec![(tcp, Transport::Tcp), (ws, Transport::WebSocket)];
    (url, serving(listeners, cfg))
}

fn client(url: &str, mode: Mode, level: u8) -> ClientReport {
    let link = kgp::ws::connect(url, Duration::from_secs(5)).unwrap();
    kgp_common::client(link, "ws client", mode, level)
}

#[test]
fn every_mode_over_websocket() {
    let (url, rx) = server(config(1));
    let c = client(&url, Mode::Freeplay, 5);
    let r = report(&rx);
    assert_eq!(r.fault, None);
    assert_eq!(r.name.as_deref(), Some("ws client"));
    assert!(c.goodbye);
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    assert_eq!(r.games.len(), 2);
    assert_eq!(r.games[0].bot_seat, South);
    assert_eq!(r.games[1].bot_seat, North);
    for g in &r.games {
        assert_eq!(g.fault, None);
        assert_eq!(g.winner, Some(g.bot_seat), "{g:?}");
        assert!(g.scores.iter().any(|&s| s > 36) || g.scores.iter().sum::<u16>() == 72);
    }
    // At least one move a position (more where a deeper iteration changed its mind).
    let played = r.games.iter().map(|g| g.bot_moves).sum::<u32>();
    assert!(
        c.moves >= played && played >= 10,
        "{} moves for {played}",
        c.moves
    );

    // Each eval runs to the move time: a short one.
    let (url, rx) = server(ServerConfig {
        move_time: Duration::from_millis(300),
        ..config(3)
    });
    let c = client(&url, Mode::Eval, 5);
    let r = report(&rx);
    assert_eq!(r.fault, None);
    assert_eq!(r.evals.len(), 5);
    assert!(c.evals >= 5);
    assert!(r.evals.iter().all(|v| v.fract() == 0.0 && v.abs() <= 72.0));

    let c = client(&url, Mode::Verify, 5);
    let r = report(&rx);
    assert_eq!(r.fault, None);
    assert_eq!(r.verified, [5, 0]);
    assert_eq!(c.solutions, 5);
}

/// Says `mode freeplay`, waits for the first `state`, sends `bad`, and returns every text
/// message the server sent until it closed.
fn misbehave(url: &str, bad: Ws) -> Vec<String> {
    let stream =
        TcpStream::connect(url.trim_start_matches("ws://").trim_end_matches("/kgp")).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let (mut ws, _) = tungstenite::client::client(url, stream).unwrap();
    let mut seen = Vec::new();
    let mut bad = Some(bad);
    loop {
        match ws.read() {
            Ok(Ws::Text(t)) => {
                let t = t.to_string();
                if t.starts_with("kgp ") {
                    ws.send(Ws::text("mode freeplay")).unwrap();
                }
                if t.contains(" state ") {
                    if let Some(b) = bad.take() {
                        // Over the limit the server may close before the whole frame is sent.
                        let _ = ws.send(b);
                    }
                }
                seen.push(t);
            }
            Ok(Ws::Close(_)) | Err(_) => break,
            Ok(_) => {}
        }
    }
    seen
}

#[test]
fn transport_faults_end_that_connection_only() {
    let (url, rx) = server(config(1));
    let cases = [
        (
            Ws::text(format!("set info:comment \"{}\"", "a".repeat(20_000))),
            "a WebSocket message longer than 16384 bytes",
        ),
        (
            Ws::binary(b"1 move 3".to_vec()),
            "a binary WebSocket message (8 bytes): KGP is sent as text",
        ),
        (Ws::text("@1 move three"), "a move is a pit number"),
        (Ws::text("\u{1}\u{2} ?"), "a malformed message"),
    ];
    for (bad, why) in cases {
        let seen = misbehave(&url, bad);
        let r = report(&rx);
        let fault = r.fault.clone().unwrap_or_default();
        assert!(fault.contains(why), "{fault:?} should say {why:?}");
        // The bot is told why, then goodbye, each line a message of its own.
        let n = seen.len();
        assert!(n >= 2, "{seen:?}");
        assert!(seen[n - 2].starts_with("error \""), "{seen:?}");
        assert!(seen[n - 2].contains(why), "{seen:?}");
        assert_eq!(seen[n - 1], "goodbye");
    }
    // KGP's TCP lines sent to the WebSocket port: no handshake, said so.
    let addr = url.trim_start_matches("ws://").trim_end_matches("/kgp");
    let mut raw = TcpStream::connect(addr).unwrap();
    std::io::Write::write_all(&mut raw, b"mode freeplay\r\n\r\n").unwrap();
    let fault = report(&rx).fault.unwrap_or_default();
    assert!(
        fault.starts_with("no WebSocket handshake (this port speaks KGP over ws:// only): "),
        "{fault}"
    );
    // Still serving.
    let c = client(&url, Mode::Verify, 1);
    assert_eq!(c.solutions, 5);
    assert_eq!(report(&rx).fault, None);
}

#[test]
fn wss_and_bad_addresses_are_refused_clearly() {
    let e = kgp::ws::connect("wss://example.org/kgp", Duration::from_secs(1))
        .err()
        .unwrap()
        .to_string();
    assert_eq!(
        e,
        "wss://example.org/kgp: TLS (wss://) is not supported; use ws:// or HOST:PORT over TCP"
    );
    let e = kgp::ws::connect("http://x/", Duration::from_secs(1))
        .err()
        .unwrap()
        .to_string();
    assert_eq!(e, "http://x/: a WebSocket address starts with ws://");
    let e = kgp::ws::connect("ws:///kgp", Duration::from_secs(1))
        .err()
        .unwrap()
        .to_string();
    assert_eq!(e, "ws:///kgp: no HOST[:PORT] after ws://");
    // A TCP listener that does not speak HTTP: the handshake fails, it does not hang.
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    std::thread::spawn(move || {
        let (mut s, _) = l.accept().unwrap();
        use std::io::Write;
        let _ = s.write_all(b"kgp 1 0 1\r\n");
    });
    let e = kgp::ws::connect(&format!("ws://{addr}/"), Duration::from_secs(5))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("the WebSocket handshake failed"), "{e}");
}

/// A text message may hold several lines (each read as a message of its own) and end with a
/// line break.
#[test]
fn several_lines_in_one_message() {
    let (url, rx) = server(config(1));
    let stream =
        TcpStream::connect(url.trim_start_matches("ws://").trim_end_matches("/kgp")).unwrap();
    let (mut ws, _) = tungstenite::client::client(url.as_str(), stream).unwrap();
    loop {
        let Ws::Text(t) = ws.read().unwrap() else {
            continue;
        };
        if t.starts_with("kgp ") {
            ws.send(Ws::text("set info:name \"multi\"\r\nmode freeplay\r\n"))
                .unwrap();
        }
        if let Some((id, _)) = t.split_once(" state ") {
            ws.send(Ws::text(format!("@{id} move 1\n@{id} yield\n")))
                .unwrap();
            break;
        }
    }
    // Gone once the first move is in, with a close frame.
    ws.close(None).unwrap();
    while ws.read().is_ok() {}
    let r = report(&rx);
    assert_eq!(r.name.as_deref(), Some("multi"));
    assert_eq!(r.mode.as_deref(), Some("freeplay"));
    assert_eq!(r.games[0].bot_moves, 1, "{r:?}");
    assert_eq!(r.fault.as_deref(), Some("the bot closed the connection"));
}

/// Beyond `max_connections` a WebSocket bot is told the server is busy, after its handshake.
#[test]
fn a_busy_server_says_so_over_websocket() {
    let (url, rx) = server(ServerConfig {
        max_connections: 1,
        ..config(1)
    });
    let open = |url: &str| {
        let addr = url.trim_start_matches("ws://").trim_end_matches("/kgp");
        let stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        tungstenite::client::client(url, stream).unwrap().0
    };
    let mut first = open(&url);
    assert_eq!(first.read().unwrap(), Ws::text("kgp 1 0 1"));
    let mut second = open(&url);
    let mut seen = Vec::new();
    while let Ok(Ws::Text(t)) = second.read() {
        seen.push(t.to_string());
    }
    assert_eq!(seen, ["error \"the server is busy\"", "goodbye"]);
    first.close(None).unwrap();
    while first.read().is_ok() {}
    let fault = report(&rx).fault.unwrap_or_default();
    assert_eq!(fault, "the bot closed the connection");
}

/// The frames a server sends from here to the end of `raw`: (opcode, payload), unmasked.
fn raw_frames(raw: &mut TcpStream) -> Vec<(u8, Vec<u8>)> {
    let mut bytes = Vec::new();
    let _ = std::io::Read::read_to_end(raw, &mut bytes);
    let mut frames = Vec::new();
    let mut at = 0;
    while at + 2 <= bytes.len() {
        let op = bytes[at] & 0x0f;
        let (len, head) = match bytes[at + 1] & 0x7f {
            126 => (
                usize::from(u16::from_be_bytes([bytes[at + 2], bytes[at + 3]])),
                4,
            ),
            n => (usize::from(n), 2),
        };
        let end = (at + head + len).min(bytes.len());
        frames.push((op, bytes[at + head..end].to_vec()));
        at = end;
    }
    frames
}

/// A bot that closes the WebSocket in the middle of a game gets the close answered and
/// nothing after it: no `error`, no `goodbye`, no second close (RFC 6455, section 5.5.1).
#[test]
fn nothing_is_sent_after_a_bots_close() {
    let (url, rx) = server(config(1));
    let stream =
        TcpStream::connect(url.trim_start_matches("ws://").trim_end_matches("/kgp")).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let (mut ws, _) = tungstenite::client::client(url.as_str(), stream).unwrap();
    loop {
        let Ws::Text(t) = ws.read().unwrap() else {
            continue;
        };
        if t.starts_with("kgp ") {
            ws.send(Ws::text("mode freeplay")).unwrap();
        }
        if t.contains(" state ") {
            break;
        }
    }
    let mut raw = ws.into_inner();
    // A close frame with code 1000, masked with a zero key as a client's must be.
    std::io::Write::write_all(&mut raw, &[0x88, 0x82, 0, 0, 0, 0, 0x03, 0xe8]).unwrap();
    let frames = raw_frames(&mut raw);
    assert_eq!(
        frames,
        vec![(8, vec![0x03, 0xe8])],
        "the close answered, nothing else"
    );
    let r = report(&rx);
    assert_eq!(r.fault.as_deref(), Some("the bot closed the connection"));
    assert_eq!(r.games.len(), 1);
}
