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
    let db = dir.path().join("games.db");
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
    let db = dir.path().join("games.db");
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
