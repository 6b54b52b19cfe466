//! Two servers on one PostgreSQL database (`MANCALA_TEST_POSTGRES`; skipped, saying so,
//! without it): a game created on A is joined and played through both, a watcher on A sees
//! every move made on B, and `kill -9` of A mid-game loses no acknowledged move (the game
//! finishes on B); a seek posted in B's lobby shows live in A's and is accepted there; quick
//! pairing asked of both servers at once matches every player once; a challenge sent on one
//! server is seen live and accepted on the other; a clock's flag falls on the server left when
//! the other is killed.

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{legal, next_json, Browser, Client, Proc};
use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

/// One pair of servers at a time: the latency measured is the servers', not two pairs'
/// fighting over two cores.
static ONE_PAIR: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Two servers on a fresh schema of the PostgreSQL database, holding [`ONE_PAIR`]; `None`
/// (saying why) without `MANCALA_TEST_POSTGRES`.
async fn two_servers() -> Option<(tokio::sync::MutexGuard<'static, ()>, String, Proc, Proc)> {
    let Ok(base) = std::env::var("MANCALA_TEST_POSTGRES") else {
        eprintln!("skipped: two servers need PostgreSQL (MANCALA_TEST_POSTGRES is not set)");
        return None;
    };
    let pair = ONE_PAIR.lock().await;
    let db = mancala_server::db::fresh_schema(&base).unwrap();
    let (a, b) = (Proc::start(&db), Proc::start(&db));
    Some((pair, db, a, b))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_share_a_game_and_survive_the_loss_of_one() {
    let Some((_pair, _db, a, b)) = two_servers().await else {
        return;
    };
    let (ca, cb) = (Client::new(&a.base), Client::new(&b.base));

    let (id, south, v) = ca
        .create(json!({"rules": "kalah,seeds=3", "opponent": "friend"}))
        .await;
    let joined = cb.join(&id, v["invite"].as_str().unwrap()).await.ok();
    let north = joined["token"].as_str().unwrap().to_string();
    // The join made on B is known on A.
    let seen = ca
        .wait_for(&id, "the join on A", |g| g["waiting_for_opponent"] == false)
        .await;
    assert_eq!(seen["players"]["north"]["joined"], true, "{seen}");

    // A watcher on A, noting when each ply's state arrives.
    let arrived: Arc<Mutex<Vec<(u64, Instant)>>> = Default::default();
    let url = format!("{}/api/games/{id}/ws", a.base.replacen("http", "ws", 1));
    let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    let watcher = {
        let arrived = arrived.clone();
        tokio::spawn(async move {
            while let Some(Ok(m)) = ws.next().await {
                if let Message::Text(t) = m {
                    let v: Value = serde_json::from_str(t.as_str()).unwrap();
                    if let Some(p) = v["game"]["ply"].as_u64() {
                        arrived.lock().unwrap().push((p, Instant::now()));
                    }
                }
            }
        })
    };

    // Half the game: South through A, North through B, each move as soon as the last is
    // acknowledged (A and B hear of each other's moves through the database).
    let mut st = joined["game"].clone();
    let mut sent: Vec<(u64, Instant)> = Vec::new();
    let mut k = 0usize;
    while st["over"] != true && st["ply"].as_u64().unwrap() < 8 {
        let (c, token) = if st["to_move"] == "south" {
            (&ca, &south)
        } else {
            (&cb, &north)
        };
        let l = legal(&st);
        let ply = st["ply"].as_u64().unwrap();
        let t0 = Instant::now();
        st = c.play(&id, token, l[k % l.len()]).await.ok();
        k += 1;
        if c.base == cb.base {
            sent.push((ply + 1, t0));
        }
    }
    let acknowledged = st.clone();
    // Every move made on B reached A's watcher.
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut late = Vec::new();
    for (ply, t0) in &sent {
        let at = loop {
            if let Some(&(_, t)) = arrived.lock().unwrap().iter().find(|(p, _)| p == ply) {
                break t;
            }
            assert!(
                Instant::now() < deadline,
                "ply {ply} never reached the watcher on A"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        late.push(at.duration_since(*t0));
    }
    late.sort();
    eprintln!("B's moves seen by a watcher on A after (from the request): {late:?}");
    assert!(!late.is_empty());
    assert!(
        late[late.len() / 2] < Duration::from_millis(200),
        "{late:?}"
    );

    // A dies; B finishes the game, with every move acknowledged before.
    watcher.abort();
    a.kill9();
    let on_b = cb.get(&format!("/api/games/{id}"), None).await.ok();
    assert_eq!(on_b["ply"], acknowledged["ply"]);
    assert_eq!(on_b["board"], acknowledged["board"]);
    let mut st = on_b;
    while st["over"] != true {
        let token = if st["to_move"] == "south" {
            &south
        } else {
            &north
        };
        let l = legal(&st);
        st = cb.play(&id, token, l[0]).await.ok();
    }
    assert_eq!(st["over"], true);
    b.terminate();
}

/// The lobby of people across two servers: a seek posted on B shows live on A's lobby socket,
/// an account signed in on A accepts it there, and the game starts for both: the poster hears
/// of it on B's lobby socket and plays its seat through B, and A sees that move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seek_posted_on_one_server_is_accepted_on_the_other() {
    let Some((_pair, _db, a, b)) = two_servers().await else {
        return;
    };
    let (mut ann, mut bob) = (Browser::new(&b.base), Browser::new(&a.base));
    assert_eq!(ann.signup("ann", "password-a").await.status, 201);
    assert_eq!(bob.signup("bob", "password-b").await.status, 201);
    let lobby = |p: &Proc| format!("{}/api/lobby/ws", p.base.replacen("http", "ws", 1));
    let (mut on_a, _) = tokio_tungstenite::connect_async(lobby(&a)).await.unwrap();
    let (mut on_b, _) = tokio_tungstenite::connect_async(lobby(&b)).await.unwrap();
    let empty = json!({"type": "seeks", "seeks": []});
    assert_eq!(next_json(&mut on_a).await, empty);
    assert_eq!(next_json(&mut on_b).await, empty);

    let posted = ann
        .post(
            "/api/lobby/seeks",
            json!({"rules": "kalah,seeds=3", "side": "south", "rated": true}),
        )
        .await;
    assert_eq!(posted.status, 201, "{}", posted.text);
    let seek = posted.json()["seek"].clone();
    // Live on A, and in A's list.
    assert_eq!(next_json(&mut on_a).await["seeks"], json!([seek]));
    assert_eq!(bob.get("/api/lobby").await.json()["seeks"], json!([seek]));
    assert_eq!(next_json(&mut on_b).await["seeks"], json!([seek]));

    let sid = seek["id"].as_str().unwrap();
    let accepted = bob
        .post(&format!("/api/lobby/seeks/{sid}/accept"), json!({}))
        .await;
    assert_eq!(accepted.status, 201, "{}", accepted.text);
    let got = accepted.json();
    assert_eq!(
        (got["seat"].as_str(), got["rated"].as_bool()),
        (Some("north"), Some(true))
    );
    let id = got["game"]["id"].as_str().unwrap().to_string();
    let started =
        json!({"type": "started", "seek": sid, "game": id, "south": "ann", "north": "bob"});
    // The poster, on B, is told: the seek is gone, then the game started.
    assert_eq!(next_json(&mut on_b).await["seeks"], json!([]));
    assert_eq!(next_json(&mut on_b).await, started);
    assert_eq!(next_json(&mut on_a).await, started);
    assert_eq!(ann.get("/api/lobby").await.json()["seeks"], json!([]));
    // Accepted once, whichever server is asked.
    let again = format!("/api/lobby/seeks/{sid}/accept");
    assert_eq!(bob.post(&again, json!({})).await.status, 404);

    // Ann plays South through B by her session; A shows the move to Bob.
    let state = ann.get(&format!("/api/games/{id}")).await.json();
    assert_eq!(state["you"], "south", "{state}");
    let pit = state["legal"][0].clone();
    let moved = ann
        .post(&format!("/api/games/{id}/moves"), json!({"pit": pit}))
        .await;
    assert_eq!(moved.status, 200, "{}", moved.text);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let seen = bob.get(&format!("/api/games/{id}")).await.json();
        if seen["ply"] == 1 {
            assert_eq!(seen["you"], "north");
            break;
        }
        assert!(Instant::now() < deadline, "A never showed B's move: {seen}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    a.terminate();
    b.terminate();
}

/// Quick pairing across two servers: eight accounts ask for the same pool at once, half on
/// each server; exactly four games start, each player in exactly one, and nobody waits.
/// Then a challenge sent through A is seen live by the challenged account's socket on B and
/// accepted there; the challenger hears of the game on A.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pairing_and_challenges_across_two_servers() {
    let Some((_pair, _db, a, b)) = two_servers().await else {
        return;
    };
    let mut players = Vec::new();
    for k in 0..8 {
        let mut p = Browser::new(if k % 2 == 0 { &a.base } else { &b.base });
        assert_eq!(p.signup(&format!("p{k}"), "password-p").await.status, 201);
        players.push(p);
    }
    let asks = players.iter_mut().map(|p| async move {
        let r = p.post("/api/lobby/pool", json!({"rules": "kalah"})).await;
        (r.status, r.json())
    });
    let answers = futures_util::future::join_all(asks).await;
    let mut games: std::collections::HashMap<String, Vec<String>> = Default::default();
    let mut waiting = Vec::new();
    for (k, (status, v)) in answers.iter().enumerate() {
        match status {
            201 => games
                .entry(v["game"]["id"].as_str().unwrap().to_string())
                .or_default()
                .push(format!("p{k}")),
            202 => waiting.push(k),
            s => panic!("p{k}: {s} {v}"),
        }
    }
    // Each 201 is one match of two: the asker and the one who waited.
    assert_eq!(games.len(), 4, "{answers:?}");
    assert_eq!(waiting.len(), 4, "{answers:?}");
    let mut seated: Vec<String> = Vec::new();
    for (id, askers) in &games {
        assert_eq!(askers.len(), 1, "two asked for one game: {askers:?}");
        let g = players[0].get(&format!("/api/games/{id}")).await.json();
        for side in ["south", "north"] {
            seated.push(g["players"][side]["name"].as_str().unwrap().to_string());
        }
    }
    seated.sort();
    let all: Vec<String> = (0..8).map(|k| format!("p{k}")).collect();
    assert_eq!(seated, all, "every player in exactly one game");
    for k in waiting {
        let w = players[k].get("/api/lobby/pool").await.json();
        assert_eq!(w["waiting"], false, "p{k} still waits");
    }

    // A challenge from p0 (on A) to p1 (watching on B).
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let socket = |p: &Browser| {
        let mut req = format!("{}/api/lobby/ws", p.base.replacen("http", "ws", 1))
            .into_client_request()
            .unwrap();
        let cookie = format!("mancala_session={}", p.cookie.as_deref().unwrap());
        req.headers_mut().insert("cookie", cookie.parse().unwrap());
        req
    };
    let (mut on_a, _) = tokio_tungstenite::connect_async(socket(&players[0]))
        .await
        .unwrap();
    let (mut on_b, _) = tokio_tungstenite::connect_async(socket(&players[1]))
        .await
        .unwrap();
    for ws in [&mut on_a, &mut on_b] {
        assert_eq!(next_json(ws).await["type"], "seeks");
        assert_eq!(next_json(ws).await["type"], "challenges");
    }
    let sent = players[0]
        .post(
            "/api/lobby/challenges",
            json!({"name": "p1", "side": "south"}),
        )
        .await;
    assert_eq!(sent.status, 201, "{}", sent.text);
    let k = sent.json()["challenge"].clone();
    let seen = next_json(&mut on_b).await;
    assert_eq!(seen["incoming"], json!([k]), "{seen}");
    let kid = k["id"].as_str().unwrap();
    let accepted = players[1]
        .post(&format!("/api/lobby/challenges/{kid}/accept"), json!({}))
        .await;
    assert_eq!(accepted.status, 201, "{}", accepted.text);
    let id = accepted.json()["game"]["id"].as_str().unwrap().to_string();
    loop {
        let m = next_json(&mut on_a).await;
        if m["type"] == "started" {
            assert_eq!(
                m,
                json!({"type": "started", "challenge": kid, "game": id, "south": "p0", "north": "p1"})
            );
            break;
        }
    }
    a.terminate();
    b.terminate();
}

/// A clock across two servers: a game timed 0.05+0 (3 s) is played through A and B, A is
/// killed, and B, which holds the game too, lets the mover's flag fall on its own timer; the
/// end is stored once and reads the same from a fresh look.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_flag_falls_on_the_server_left_when_one_dies() {
    let Some((_pair, db, a, b)) = two_servers().await else {
        return;
    };
    let (ca, cb) = (Client::new(&a.base), Client::new(&b.base));
    let (id, south, v) = ca
        .create(json!({"rules": "kalah,pits=4,seeds=3", "opponent": "friend", "clock": "0.05+0"}))
        .await;
    let joined = cb.join(&id, v["invite"].as_str().unwrap()).await.ok();
    let north = joined["token"].as_str().unwrap().to_string();
    // First moves, South's on A and North's on B, until a side that has moved is to move.
    let mut moved = [false, false];
    loop {
        let st = cb
            .wait_for(&id, "the state on B", |g| g["to_move"].is_string())
            .await;
        let k = usize::from(st["to_move"] == "north");
        if moved[k] && moved[1 - k] {
            break;
        }
        let (c, token) = if k == 0 { (&ca, &south) } else { (&cb, &north) };
        let before = st["ply"].as_u64().unwrap();
        c.play(&id, token, legal(&st)[0]).await.ok();
        moved[k] = true;
        cb.wait_for(&id, "the move on B", |g| g["ply"].as_u64() > Some(before))
            .await;
    }
    a.kill9();
    let over = cb
        .wait_for(&id, "the flag on B", |g| g["over"] == true)
        .await;
    assert_eq!(over["result"]["why"]["key"], "result.time", "{over}");
    // A server started afresh on the database reads the same end.
    let c2 = Proc::start(&db);
    let again = Client::new(&c2.base)
        .get(&format!("/api/games/{id}"), None)
        .await
        .ok();
    assert_eq!(again["result"], over["result"]);
    drop(b);
    drop(c2);
}
