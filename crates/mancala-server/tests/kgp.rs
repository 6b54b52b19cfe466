//! KGP bots in `serve`: our own client (level 1) plays the server's KGP port; each game is
//! stored like any game, listed at `/api/kgp/games`, replays from the database to the result
//! the KGP server reported, and a browser watching `/api/games/{id}/ws` sees its moves.

mod common;
#[path = "../../mancala-protocols/tests/kgp_common/mod.rs"]
#[allow(dead_code)]
mod kgp_common;

use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use common::{test_config, Client, Server};
use futures_util::StreamExt;
use mancala_core::{Game, Side};
use mancala_engine::Level;
use mancala_play::Computer;
use mancala_protocols::kgp::{self, run_client, ClientConfig, LineWrite, Link, Mode};
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
    let mut seen = 0;
    let last = loop {
        let m = tokio::time::timeout(Duration::from_secs(20), ws.next())
            .await
            .expect("a state in time")
            .expect("open")
            .expect("ok");
        let Message::Text(t) = m else { continue };
        let v: Value = serde_json::from_str(t.as_str()).unwrap();
        assert_eq!(v["type"], "state");
        // A change made while the socket opens may come again after the state on
        // connecting, under the same version: a client keeps the newest version.
        let version = v["game"]["version"].as_u64().unwrap();
        if version <= seen {
            continue;
        }
        seen = version;
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
    let store = mancala_server::Store::connect(&s.db).unwrap();
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
            g["result"]["south"].as_u64().unwrap() as u16,
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
    let store = mancala_server::Store::connect(&s.db).unwrap();
    assert!(store.bot_games(100).unwrap().is_empty());
}

/// A server with a KGP lobby (a ping every 50 ms) on a free TCP port: its address and the
/// KGP server's connection reports.
async fn lobby_server(
    s: &Server,
) -> (
    std::net::SocketAddr,
    std::sync::mpsc::Receiver<kgp::SessionReport>,
) {
    let mut cfg = mancala_server::kgp::config(&s.app, 1).unwrap();
    cfg.move_time = Duration::from_secs(5);
    mancala_server::kgp::open_lobby(&s.app, &mut cfg, Duration::from_millis(50)).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    std::thread::spawn(move || {
        kgp::serve(listener, cfg, move |r| {
            let _ = tx.lock().unwrap().send(r);
        })
    });
    (addr, rx)
}

/// Our client at `level`, named `name`, connected to `addr` in freeplay on a thread.
fn lobby_bot(
    addr: std::net::SocketAddr,
    name: &str,
    level: u8,
) -> std::thread::JoinHandle<kgp::ClientReport> {
    let name = name.to_string();
    std::thread::spawn(move || {
        let link = Link::tcp(TcpStream::connect(addr).unwrap()).unwrap();
        kgp_common::client_seeded(link, &name, Mode::Freeplay, level, 3)
    })
}

/// The lobby's waiting bots once `n` wait.
async fn waiting(c: &Client, n: usize) -> Vec<Value> {
    for _ in 0..500 {
        let v = c.get("/api/kgp/bots", None).await.ok();
        assert_eq!(v["lobby"], true);
        let bots = v["bots"].as_array().unwrap().clone();
        if bots.len() == n {
            return bots;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{n} bots never waited");
}

/// The scores a stored game replays to, from the database.
fn stored_scores(s: &Server, id: &str) -> [u16; 2] {
    let store = mancala_server::Store::connect(&s.db).unwrap();
    let (row, moves) = store.load_game(id).unwrap().unwrap();
    let mut game = Game::new(row.start.parse().unwrap());
    for m in &moves {
        game.play(m.pit).unwrap();
    }
    game.position().scores()
}

/// A bot waits in the lobby, pinged and never faulted while nobody challenges it; a person
/// challenges it and plays the game to its end through the HTTP API, the bot's seat played
/// over KGP; the stored game replays to the scores the person saw; then the bot waits again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_challenges_a_waiting_bot() {
    let s = Server::start(test_config()).await;
    let (addr, rx) = lobby_server(&s).await;
    let c = Client::new(&s.base);
    let _bot = lobby_bot(addr, "lobby bot", 1);
    let bots = waiting(&c, 1).await;
    assert_eq!(bots[0]["name"], "lobby bot");
    assert_eq!(bots[0]["authors"], "tests");
    assert_eq!(bots[0]["rules"], "kalah,seeds=6,stop-when-decided=true");
    assert!(bots[0]["since"].as_u64().unwrap() > 1_700_000_000_000);
    let id = bots[0]["id"].as_u64().unwrap();
    // Ten pings later it still waits: nobody faulted it, no game was made.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(waiting(&c, 1).await[0]["id"], id);
    assert!(rx.try_recv().is_err());
    assert_eq!(
        c.get("/api/kgp/games", None).await.ok()["games"],
        serde_json::json!([])
    );

    let r = c
        .post(
            &format!("/api/kgp/bots/{id}/challenge"),
            serde_json::json!({"side": "south", "name": "Ann"}),
            None,
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let game = r.body["game"]["id"].as_str().unwrap().to_string();
    let token = r.body["token"].as_str().unwrap().to_string();
    assert_eq!(r.body["seat"], "south");
    assert_eq!(r.body["game"]["players"]["south"]["kind"], "human");
    assert_eq!(r.body["game"]["players"]["north"]["kind"], "bot");
    assert_eq!(r.body["game"]["players"]["north"]["name"], "lobby bot");
    // Busy: no longer listed, and a second challenge is refused.
    assert_eq!(waiting(&c, 0).await.len(), 0);
    let again = c
        .post(
            &format!("/api/kgp/bots/{id}/challenge"),
            serde_json::json!({}),
            None,
        )
        .await;
    again.err(409, &format!("bot {id} is playing a game"));
    assert_eq!(again.body["key"], "server.kgp.bot-busy");

    // The person plays the leftmost legal pit whenever it is South's turn.
    let mut mine = 0;
    let last = loop {
        let st = c
            .get(&format!("/api/games/{game}"), Some(&token))
            .await
            .ok();
        if st["over"] == true {
            break st;
        }
        if st["to_move"] == "south" {
            let pit = common::legal(&st)[0];
            let r = c
                .post(
                    &format!("/api/games/{game}/moves"),
                    serde_json::json!({"pit": pit, "ply": st["ply"]}),
                    Some(&token),
                )
                .await;
            assert_eq!(r.status, 200, "{}", r.body);
            mine += 1;
        } else {
            // Undo and hints are for games against the computer.
            assert_eq!(
                c.post(
                    &format!("/api/games/{game}/undo"),
                    serde_json::json!({}),
                    Some(&token)
                )
                .await
                .status,
                409
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    assert!(mine >= 3, "{mine}");
    // Ended by the rules (a resignation has no outcome).
    assert!(last["result"]["outcome"].is_string(), "{last}");
    let scores = stored_scores(&s, &game);
    assert_eq!(
        [
            last["result"]["south"].as_u64().unwrap() as u16,
            last["result"]["north"].as_u64().unwrap() as u16
        ],
        scores
    );
    assert!(
        scores.iter().any(|&x| x > 36) || scores[0] + scores[1] == 72,
        "{scores:?}"
    );
    // Listed among the bots' games; the bot waits again, under the same id.
    let list = c.get("/api/kgp/games", None).await.ok();
    assert_eq!(list["games"][0]["id"], game.as_str());
    assert_eq!(list["games"][0]["over"], true);
    assert_eq!(waiting(&c, 1).await[0]["id"], id);
    assert!(rx.try_recv().is_err(), "the bot's connection goes on");
}

/// Two waiting bots are paired; their game is stored, listed and replays from the database
/// and through the replay view; both wait again. Pairing refuses a bot with itself, an
/// unknown bot, and a server without a lobby.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_waiting_bots_are_paired() {
    let s = Server::start(test_config()).await;
    let (addr, _rx) = lobby_server(&s).await;
    let c = Client::new(&s.base);
    let _a = lobby_bot(addr, "alpha", 1);
    waiting(&c, 1).await;
    let _b = lobby_bot(addr, "beta", 3);
    let bots = waiting(&c, 2).await;
    let (a, b) = (bots[0]["id"].clone(), bots[1]["id"].clone());
    assert_eq!(bots[0]["name"], "alpha");

    let r = c
        .post(
            "/api/kgp/pair",
            serde_json::json!({"south": a, "north": a}),
            None,
        )
        .await;
    r.err(400, "cannot play itself");
    assert_eq!(r.body["key"], "server.kgp.same-bot");
    let r = c
        .post(
            "/api/kgp/pair",
            serde_json::json!({"south": a, "north": 999}),
            None,
        )
        .await;
    r.err(404, "no bot `999` waits");
    assert_eq!(r.body["key"], "server.kgp.no-bot");
    let r = c
        .post("/api/kgp/bots/x1/challenge", serde_json::json!({}), None)
        .await;
    assert_eq!(r.body["key"], "server.kgp.no-bot");
    assert_eq!(
        waiting(&c, 2).await.len(),
        2,
        "a refused pairing takes no bot"
    );

    let r = c
        .post(
            "/api/kgp/pair",
            serde_json::json!({"south": a, "north": b}),
            None,
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let game = r.body["game"]["id"].as_str().unwrap().to_string();
    assert_eq!(r.body["game"]["players"]["south"]["name"], "alpha");
    assert_eq!(r.body["game"]["players"]["north"]["name"], "beta");
    let last = loop {
        let st = c.get(&format!("/api/games/{game}"), None).await.ok();
        if st["over"] == true {
            break st;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let scores = stored_scores(&s, &game);
    assert_eq!(last["result"]["south"].as_u64().unwrap() as u16, scores[0]);
    assert_eq!(last["result"]["north"].as_u64().unwrap() as u16, scores[1]);
    let replay = c.get(&format!("/api/games/{game}/replay"), None).await.ok();
    assert_eq!(
        replay["positions"].as_array().unwrap().len() as u64,
        last["ply"].as_u64().unwrap() + 1
    );
    let list = c.get("/api/kgp/games", None).await.ok();
    assert_eq!(list["games"][0]["players"]["south"]["kind"], "bot");
    assert_eq!(list["games"][0]["players"]["north"]["kind"], "bot");
    assert_eq!(waiting(&c, 2).await.len(), 2);

    // Without a lobby: an empty list, and challenges are refused, saying why.
    let plain = Server::start(test_config()).await;
    let c = Client::new(&plain.base);
    assert_eq!(
        c.get("/api/kgp/bots", None).await.ok(),
        serde_json::json!({"lobby": false, "bots": []})
    );
    let r = c
        .post("/api/kgp/bots/1/challenge", serde_json::json!({}), None)
        .await;
    assert_eq!(
        (r.status, &r.body["key"]),
        (404, &Value::from("server.kgp.no-lobby"))
    );
}

/// A bot that disconnects leaves the lobby; one that sends garbage while it waits is told
/// why and leaves too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_that_leaves_leaves_the_list() {
    use std::io::{BufRead, BufReader, Write};
    let s = Server::start(test_config()).await;
    let (addr, rx) = lobby_server(&s).await;
    let c = Client::new(&s.base);
    let connect = move |name: &str| {
        let mut bot = TcpStream::connect(addr).unwrap();
        let mut lines = BufReader::new(bot.try_clone().unwrap()).lines();
        assert_eq!(lines.next().unwrap().unwrap(), "kgp 1 0 1");
        write!(bot, "set info:name \"{name}\"\r\nmode freeplay\r\n").unwrap();
        (bot, lines)
    };
    let (quiet, mut lines) = connect("quiet");
    let bots = waiting(&c, 1).await;
    assert_eq!(bots[0]["name"], "quiet");
    // It is pinged, and need not answer.
    let ping = lines.next().unwrap().unwrap();
    assert!(ping.ends_with(" ping"), "{ping}");
    drop((quiet, lines));
    waiting(&c, 0).await;
    let r = tokio::task::spawn_blocking(move || {
        rx.recv_timeout(Duration::from_secs(10)).map(|r| (r, rx))
    })
    .await
    .unwrap()
    .unwrap();
    let (r, rx) = r;
    assert_eq!(r.fault.as_deref(), Some("the bot closed the connection"));
    assert_eq!(r.name.as_deref(), Some("quiet"));

    let (mut rude, mut lines) = connect("rude");
    waiting(&c, 1).await;
    rude.write_all(b"move 3\r\n").unwrap();
    let told: Vec<String> = (0..5)
        .filter_map(|_| lines.next().and_then(Result::ok))
        .filter(|l| !l.ends_with("ping"))
        .collect();
    assert!(
        told[0].starts_with("error \"`move 3` out of turn"),
        "{told:?}"
    );
    assert_eq!(told[1], "goodbye");
    waiting(&c, 0).await;
    let r = tokio::task::spawn_blocking(move || rx.recv_timeout(Duration::from_secs(10)))
        .await
        .unwrap()
        .unwrap();
    assert!(r.fault.unwrap().contains("out of turn"));
    assert_eq!(
        c.get("/api/kgp/games", None).await.ok()["games"],
        serde_json::json!([])
    );

    // A blank name is no name.
    let (blank, lines) = connect("  ");
    let bots = waiting(&c, 1).await;
    assert!(bots[0]["name"].is_null(), "{}", bots[0]);
    drop((blank, lines));
    waiting(&c, 0).await;
}

/// A person who resigns frees the bot, which waits again; a bot that disconnects while the
/// person thinks forfeits: the game is stored as its resignation, and it leaves the list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resignation_frees_the_bot_and_a_bot_that_leaves_forfeits() {
    use std::io::{BufRead, BufReader, Write};
    let s = Server::start(test_config()).await;
    let (addr, _rx) = lobby_server(&s).await;
    let c = Client::new(&s.base);
    // A scripted bot: plays pit 2 in every position it is sent (at the start, a move that
    // ends on North's side: no extra turn), then yields.
    let (tx, moved) = std::sync::mpsc::channel::<()>();
    let (quit, quit_rx) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        let mut bot = TcpStream::connect(addr).unwrap();
        let lines = BufReader::new(bot.try_clone().unwrap()).lines();
        bot.write_all(b"set info:name \"pit one\"\r\nmode freeplay\r\n")
            .unwrap();
        for line in lines {
            let line = line.unwrap();
            if let Some((id, _)) = line.split_once(" state ") {
                write!(bot, "@{id} move 2\r\n@{id} yield\r\n").unwrap();
                let _ = tx.send(());
                if quit_rx.try_recv().is_ok() {
                    return; // the connection closes
                }
            }
        }
    });
    let id = waiting(&c, 1).await[0]["id"].as_u64().unwrap();
    let challenge = |c: Client| async move {
        let r = c
            .post(
                &format!("/api/kgp/bots/{id}/challenge"),
                serde_json::json!({"side": "north"}),
                None,
            )
            .await;
        assert_eq!(r.status, 201, "{}", r.body);
        (
            r.body["game"]["id"].as_str().unwrap().to_string(),
            r.body["token"].as_str().unwrap().to_string(),
        )
    };
    // The bot (South) opens; the person resigns on his turn.
    let (game, token) = challenge(c.clone()).await;
    let moved = tokio::task::spawn_blocking(move || {
        moved.recv_timeout(Duration::from_secs(10)).unwrap();
        moved
    })
    .await
    .unwrap();
    let st = loop {
        let st = c
            .get(&format!("/api/games/{game}"), Some(&token))
            .await
            .ok();
        if st["to_move"] == "north" {
            break st;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    assert_eq!(st["ply"], 1);
    c.post(
        &format!("/api/games/{game}/resign"),
        serde_json::json!({}),
        Some(&token),
    )
    .await
    .ok();
    assert_eq!(waiting(&c, 1).await[0]["id"], id, "the bot waits again");

    // Again; this time the bot disconnects after its opening move.
    quit.send(()).unwrap();
    let (game, token) = challenge(c.clone()).await;
    tokio::task::spawn_blocking(move || moved.recv_timeout(Duration::from_secs(10)).unwrap())
        .await
        .unwrap();
    let st = loop {
        let st = c
            .get(&format!("/api/games/{game}"), Some(&token))
            .await
            .ok();
        if st["over"] == true {
            break st;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert_eq!(st["ply"], 1);
    assert_eq!(st["result"]["winner"], "north", "{st}");
    assert_eq!(st["result"]["why"]["key"], "result.resigned", "{st}");
    let store = mancala_server::Store::connect(&s.db).unwrap();
    assert_eq!(store.load_game(&game).unwrap().unwrap().0.resigned, Some(0));
    assert_eq!(waiting(&c, 0).await.len(), 0);
}
