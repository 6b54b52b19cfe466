//! The server as a separate process: games survive a restart, and a `kill -9` in the middle
//! of a game loses no move that was acknowledged.

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{legal, Client, Proc};
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::fresh_db(dir.path());
    let p = Proc::start(&db);
    let c = Client::new(&p.base);
    let (id, token, _) = c
        .create(json!({"rules": "kalah,seeds=4", "level": 2}))
        .await;
    let (fid, ftoken, v) = c.create(json!({"opponent": "friend"})).await;
    let invite = v["invite"].as_str().unwrap().to_string();
    let mut st = c
        .wait_for(&id, "my move", |g| g["to_move"] == "south")
        .await;
    for k in 0..3 {
        let l = legal(&st);
        c.play(&id, &token, l[k % l.len()]).await.ok();
        st = c
            .wait_for(&id, "my move", |g| {
                g["to_move"] == "south" || g["over"] == true
            })
            .await;
    }
    c.play(&fid, &ftoken, 1).await.ok();
    let before = st.clone();
    let fbefore = c.get(&format!("/api/games/{fid}"), None).await.ok();
    p.terminate();

    let p = Proc::start(&db);
    let c = Client::new(&p.base);
    let after = c.get(&format!("/api/games/{id}"), Some(&token)).await.ok();
    assert_eq!(after["board"], before["board"]);
    assert_eq!(after["turns"], before["turns"]);
    assert_eq!(after["you"], "south");
    let fafter = c.get(&format!("/api/games/{fid}"), None).await.ok();
    assert_eq!(fafter["board"], fbefore["board"]);
    // The invitation still works after the restart, and play goes on.
    let j = c.join(&fid, &invite).await.ok();
    let north = j["token"].as_str().unwrap();
    let l = legal(&fafter);
    c.play(&fid, north, l[0]).await.ok();
    let l = legal(&after);
    c.play(&id, &token, l[0]).await.ok();
    c.wait_for(&id, "the computer after the restart", |g| {
        g["to_move"] == "south" || g["over"] == true
    })
    .await;
    p.terminate();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_loses_no_acknowledged_move() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::fresh_db(dir.path());
    let p = Proc::start(&db);
    let c = Client::new(&p.base);
    // Two people, moves sent as fast as they are acknowledged, and a game against the
    // computer running at the same time.
    let (id, south, v) = c
        .create(json!({"rules": "kalah,seeds=6", "opponent": "friend"}))
        .await;
    let j = c.join(&id, v["invite"].as_str().unwrap()).await.ok();
    let north = j["token"].as_str().unwrap().to_string();
    let (aid, atoken, _) = c
        .create(json!({"rules": "kalah,seeds=6", "level": 1}))
        .await;

    let acked = Arc::new(AtomicU64::new(0));
    let acked_moves = Arc::new(std::sync::Mutex::new(Vec::<(u64, String)>::new()));
    let tokens = (south.clone(), north.clone());
    let player = {
        let c = c.clone();
        let acked = acked.clone();
        let acked_moves = acked_moves.clone();
        let id = id.clone();
        tokio::spawn(async move {
            let mut st = c.get(&format!("/api/games/{id}"), None).await.ok();
            let mut k = 0usize;
            loop {
                if st["over"] == true {
                    return;
                }
                let token = if st["to_move"] == "south" {
                    &south
                } else {
                    &north
                };
                let l = legal(&st);
                let pit = l[k % l.len()];
                k += 1;
                let r = c
                    .http
                    .post(format!("{}/api/games/{id}/moves", c.base))
                    .header("authorization", format!("Bearer {token}"))
                    .json(&json!({"pit": pit}))
                    .send()
                    .await;
                let Ok(r) = r else { return }; // the server died mid-request
                if r.status() != 200 {
                    return;
                }
                let Ok(body) = r.json::<Value>().await else {
                    return;
                };
                st = body;
                let ply = st["ply"].as_u64().unwrap();
                acked.store(ply, Ordering::SeqCst);
                acked_moves
                    .lock()
                    .unwrap()
                    .push((ply, st["board"]["position"].as_str().unwrap().to_string()));
            }
        })
    };
    let computer = {
        let c = c.clone();
        let aid = aid.clone();
        tokio::spawn(async move {
            for k in 0..100usize {
                let Ok(st) = tokio::time::timeout(
                    Duration::from_secs(5),
                    c.get(&format!("/api/games/{aid}"), None),
                )
                .await
                else {
                    return;
                };
                if st.status != 200 || st.body["over"] == true {
                    return;
                }
                if st.body["to_move"] == "south" {
                    let l = legal(&st.body);
                    if l.is_empty() {
                        return;
                    }
                    let _ = c.play(&aid, &atoken, l[k % l.len()]).await;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
    };
    // Let some moves through, then kill the server while requests are in flight.
    let t0 = std::time::Instant::now();
    while acked.load(Ordering::SeqCst) < 8 && t0.elapsed() < Duration::from_secs(20) {
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    assert!(acked.load(Ordering::SeqCst) >= 8, "moves were acknowledged");
    p.kill9();
    let _ = tokio::time::timeout(Duration::from_secs(10), player).await;
    let _ = tokio::time::timeout(Duration::from_secs(10), computer).await;
    let last_ack = acked.load(Ordering::SeqCst);

    let p = Proc::start(&db);
    let c = Client::new(&p.base);
    let st = c.get(&format!("/api/games/{id}"), None).await.ok();
    let stored = st["ply"].as_u64().unwrap();
    assert!(
        stored >= last_ack,
        "{stored} moves stored, {last_ack} acknowledged before the kill"
    );
    // Every acknowledged position is on the stored game's path.
    let rp = c.get(&format!("/api/games/{id}/replay"), None).await.ok();
    let positions = rp["positions"].as_array().unwrap();
    for (ply, pos) in acked_moves.lock().unwrap().iter() {
        assert_eq!(
            positions[*ply as usize]["position"].as_str().unwrap(),
            pos,
            "position after {ply} moves"
        );
    }
    // The game goes on after the restart.
    if st["over"] != true {
        let token = if st["to_move"] == "south" {
            &tokens.0
        } else {
            &tokens.1
        };
        let next = c.play(&id, token, legal(&st)[0]).await.ok();
        assert_eq!(next["ply"].as_u64().unwrap(), stored + 1);
    }
    let ast = c.get(&format!("/api/games/{aid}"), None).await.ok();
    assert!(ast["ply"].as_u64().unwrap() >= 1);
    c.wait_for(&aid, "the computer resumes after the restart", |g| {
        g["to_move"] == "south" || g["over"] == true
    })
    .await;
    p.kill9();
}

/// A KGP game in the store, as `serve` writes it: South a person (token `tok`), North a bot.
async fn bot_game(
    store: &mancala_server::Store,
    id: &str,
    start: &str,
    pits: &[u8],
    resigned: Option<u8>,
) {
    use mancala_server::store::{GameRow, MoveRow};
    let row = GameRow {
        id: id.into(),
        start: start.into(),
        created_ms: 1_700_000_000_000,
        ai: [false, false],
        bots: [false, true],
        ai_level: None,
        tokens: [Some("tok".into()), None],
        names: [Some("Ann".into()), Some("a bot".into())],
        invite: None,
        resigned: None,
        interrupted: false,
        seed: 1,
        between: Default::default(),
    };
    store.create_game(&row).done().await.unwrap();
    for (ply, &pit) in pits.iter().enumerate() {
        let m = MoveRow {
            ply: ply as u32,
            pit,
            eval: None,
            depth: None,
            time_ms: None,
        };
        store.add_move(id, &m, None).done().await.unwrap();
    }
    if let Some(side) = resigned {
        store.set_resigned(id, side).done().await.unwrap();
    }
}

/// A bot's game that a restart cut off stays unfinished (no winner, no draw) and takes no
/// move; its bot's resignation and a game its rules ended are left as they were.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_leaves_a_bots_cut_off_game_unfinished() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::fresh_db(dir.path());
    let rules = "kalah,seeds=6,stop-when-decided=true";
    let start = format!("{rules}/6-6-6-6-6-6/0/6-6-6-6-6-6/0/s");
    // South's last seed ends the game: South's row empties, North sweeps its 5.
    let ending = format!("{rules}/0-0-0-0-0-1/30/5-0-0-0-0-0/36/s");
    {
        let store = mancala_server::Store::connect(&db).unwrap();
        bot_game(&store, "cut0000000000001", &start, &[0], None).await;
        bot_game(&store, "gone000000000002", &start, &[0, 2], Some(1)).await;
        bot_game(&store, "done000000000003", &ending, &[5], None).await;
    }
    for round in 0..2 {
        // Twice: the mark is made once and kept.
        let p = Proc::start(&db);
        let c = Client::new(&p.base);
        let cut = c.get("/api/games/cut0000000000001", Some("tok")).await.ok();
        assert_eq!(cut["over"], true, "round {round}: {cut}");
        assert_eq!(cut["to_move"], Value::Null);
        let r = &cut["result"];
        assert_eq!(r["unfinished"], true, "{r}");
        assert_eq!(r["winner"], Value::Null);
        assert_eq!(r["why"]["key"], "result.interrupted");
        assert_eq!(
            r["reason"],
            "stopped unfinished: the server restarted while a bot played"
        );
        assert_eq!(r.get("outcome"), None);
        let refused = c.play("cut0000000000001", "tok", 1).await;
        assert_eq!(refused.status, 409, "{}", refused.body);
        assert_eq!(refused.body["key"], "server.over-no-moves");
        let gone = c.get("/api/games/gone000000000002", None).await.ok();
        assert_eq!(gone["result"]["winner"], "south");
        assert_eq!(gone["result"]["why"]["key"], "result.resigned");
        assert_eq!(gone["result"].get("unfinished"), None);
        let done = c.get("/api/games/done000000000003", None).await.ok();
        assert_eq!(done["result"]["winner"], "north");
        assert_eq!(done["result"]["north"], 41);
        assert_eq!(done["result"].get("unfinished"), None);
        let list = c.get("/api/kgp/games", None).await.ok();
        assert_eq!(list["games"].as_array().unwrap().len(), 3, "{list}");
        p.terminate();
    }
    let store = mancala_server::Store::connect(&db).unwrap();
    let interrupted = |id: &str| store.load_game(id).unwrap().unwrap().0.interrupted;
    assert!(interrupted("cut0000000000001"));
    assert!(!interrupted("gone000000000002"));
    assert!(!interrupted("done000000000003"));
}
