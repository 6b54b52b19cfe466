//! KGP bots in `serve`: our own client (level 1) plays the server's KGP port; each game is
//! stored like any game, listed at `/api/kgp/games`, replays from the database to the result
//! the KGP server reported, and a browser watching `/api/games/{id}/ws` sees its moves.

mod common;

use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use common::{test_config, Client, Server};
use futures_util::StreamExt;
use mancala_core::{Game, Side};
use mancala_engine::Level;
use mancala_play::kgp::{self, run_client, ClientConfig, LineWrite, Link, Mode};
use mancala_play::Computer;
use serde_json::Value;
use tokio_tungstenite::tungstenite::Message;

/// A bot's writer that sends each move late, so that a watcher sees the game go on.
struct Slow(Box<dyn LineWrite>);

impl LineWrite for Slow {
    fn write_line(&mut self, line: &str) -> std::io::Result<()> {
        if line.contains(" move ") {
            std::thread::sleep(Duration::from_millis(20));
        }
        self.0.write_line(line)
    }

    fn close(&mut self) {
        self.0.close()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kgp_bots_games_are_stored_listed_and_watched() {
    let s = Server::start(test_config()).await;
    let mut cfg = mancala_server::kgp::config(&s.app, 1).unwrap();
    cfg.move_time = Duration::from_secs(5);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    std::thread::spawn(move || {
        kgp::serve(listener, cfg, move |r| {
            let _ = tx.lock().unwrap().send(r);
        })
    });
    std::thread::spawn(move || {
        let link = Link::tcp(TcpStream::connect(addr).unwrap()).unwrap();
        let mut computer = Computer::new(Level::new(1).unwrap(), 3);
        let cfg = ClientConfig {
            mode: Mode::Freeplay,
            name: "our bot".into(),
            authors: None,
            token: None,
            per_move: None,
        };
        let sink = Box::new(std::io::sink());
        run_client(link.reader, Slow(link.writer), &mut computer, &cfg, sink)
    });

    // A browser finds the first game in the list and watches it to its end.
    let c = Client::new(&s.base);
    let id = loop {
        let list = c.get("/api/kgp/games", None).await.ok();
        if let Some(g) = list["games"].as_array().and_then(|a| a.last()) {
            break g["id"].as_str().unwrap().to_string();
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    let url = format!("ws://{}/api/games/{id}/ws", s.addr);
    let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    let mut plies = Vec::new();
    let last = loop {
        let m = tokio::time::timeout(Duration::from_secs(20), ws.next())
            .await
            .expect("a state in time")
            .expect("open")
            .expect("ok");
        let Message::Text(t) = m else { continue };
        let v: Value = serde_json::from_str(t.as_str()).unwrap();
        assert_eq!(v["type"], "state");
        plies.push(v["game"]["ply"].as_u64().unwrap());
        if v["game"]["over"] == true {
            break v["game"].clone();
        }
    };
    // The state on connecting, then one a move: every ply from there to the end.
    let first = plies[0];
    assert_eq!(
        plies,
        (first..first + plies.len() as u64).collect::<Vec<_>>()
    );
    assert!(plies.len() >= 3, "{plies:?}");
    assert_eq!(last["players"]["south"]["kind"], "bot");
    assert_eq!(last["players"]["south"]["name"], "our bot");
    assert_eq!(last["players"]["north"]["kind"], "computer");
    assert_eq!(last["players"]["north"]["level"], 1);

    let report = tokio::task::spawn_blocking(move || rx.recv_timeout(Duration::from_secs(60)))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(report.fault, None);
    assert_eq!(report.games.len(), 2);
    let list = c.get("/api/kgp/games", None).await.ok();
    let games = list["games"].as_array().unwrap();
    assert_eq!(games.len(), 2);
    // Newest first: the second game (the bot North), then the first.
    assert_eq!(games[1]["id"], id.as_str());
    assert_eq!(games[1]["players"]["south"]["kind"], "bot");
    assert_eq!(games[0]["players"]["north"]["kind"], "bot");
    assert_eq!(games[0]["players"]["south"]["kind"], "computer");
    assert_eq!(last["ply"], games[1]["ply"]);

    // Each stored game, read back from the database, replays to the result reported.
    let store = mancala_server::Store::open(&s.dir.path().join("games.db")).unwrap();
    for (g, r) in games.iter().rev().zip(&report.games) {
        assert_eq!(g["over"], true);
        assert_eq!(g["rules"], "kalah,seeds=6,stop-when-decided=true");
        let (row, moves) = store.load_game(g["id"].as_str().unwrap()).unwrap().unwrap();
        let seat = r.bot_seat.index();
        assert_eq!((row.bots, row.ai[1 - seat]), ([seat == 0, seat == 1], true));
        let mut game = Game::new(row.start.parse().unwrap());
        for m in &moves {
            game.play(m.pit).unwrap();
        }
        assert!(game.is_over());
        assert_eq!(game.position().scores(), r.scores);
        assert_eq!(moves.len() as u64, g["ply"].as_u64().unwrap());
        let winner = r
            .winner
            .map(|w| if w == Side::South { "south" } else { "north" });
        assert_eq!(g["result"]["winner"], serde_json::json!(winner));
        assert_eq!(
            g["result"]["south"].as_u64().unwrap() as u8,
            r.scores[0],
            "{g}"
        );
        // The record the browser downloads replays to the same end.
        let rec = c
            .text(&format!("/api/games/{}/record", g["id"].as_str().unwrap()))
            .await;
        let replayed = mancala_core::Record::from_json(&rec, None)
            .unwrap()
            .replay()
            .unwrap();
        assert_eq!(replayed.position().scores(), r.scores);
    }
}

/// A bot that sends garbage right after `mode freeplay` ends its connection before any move:
/// no game is stored, so a flood of such bots leaves the list of bots' games as it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_that_breaks_off_before_any_move_leaves_no_game() {
    use std::io::{BufRead, BufReader, Write};
    let s = Server::start(test_config()).await;
    let cfg = mancala_server::kgp::config(&s.app, 1).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    std::thread::spawn(move || {
        kgp::serve(listener, cfg, move |r| {
            let _ = tx.lock().unwrap().send(r);
        })
    });
    let reports = tokio::task::spawn_blocking(move || {
        (0..3)
            .map(|_| {
                let mut bot = TcpStream::connect(addr).unwrap();
                let mut lines = BufReader::new(bot.try_clone().unwrap()).lines();
                let hello = lines.next().unwrap().unwrap();
                assert_eq!(hello, "kgp 1 0 1");
                bot.write_all(b"mode freeplay\r\n}{ garbage\r\n").unwrap();
                rx.recv_timeout(Duration::from_secs(20)).unwrap()
            })
            .collect::<Vec<_>>()
    })
    .await
    .unwrap();
    for r in &reports {
        let fault = r.fault.as_deref().unwrap_or_default();
        assert!(
            fault.starts_with("a malformed message `}{ garbage`"),
            "{fault}"
        );
        assert_eq!(r.games.len(), 1);
        assert_eq!(r.games[0].bot_moves, 0);
    }
    let c = Client::new(&s.base);
    let list = c.get("/api/kgp/games", None).await.ok();
    assert_eq!(list["games"], serde_json::json!([]), "{list}");
    let store = mancala_server::Store::open(&s.dir.path().join("games.db")).unwrap();
    assert!(store.bot_games(100).unwrap().is_empty());
}
