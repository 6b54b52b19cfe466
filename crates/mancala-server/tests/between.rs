//! Between two people: clocks and the flag, draw, takeback and rematch offers, a claim
//! against a player who left.

mod common;

use std::time::Duration;

use common::{legal, test_config, Client, Server};
use futures_util::{SinkExt, StreamExt};
use mancala_core::Record;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

/// A game between two guests with `clock` (or none): (id, South's token, North's token).
async fn two_guests(c: &Client, clock: Option<&str>) -> (String, String, String) {
    let mut req = json!({"rules": "kalah,pits=4,seeds=3", "opponent": "friend", "side": "south"});
    if let Some(k) = clock {
        req["clock"] = json!(k);
    }
    let (id, south, v) = c.create(req).await;
    let j = c.join(&id, v["invite"].as_str().unwrap()).await.ok();
    (id, south, j["token"].as_str().unwrap().to_string())
}

/// Plays the first legal pit for the side to move.
async fn play_first(c: &Client, id: &str, south: &str, north: &str) -> Value {
    let st = c.get(&format!("/api/games/{id}"), None).await.ok();
    let token = if st["to_move"] == "south" {
        south
    } else {
        north
    };
    c.play(id, token, legal(&st)[0]).await.ok()
}

/// 0.05+0 (3 s): the first moves are free; then the mover's clock runs out, the server ends
/// the game on its own (no request needed), the record says so, and no move is taken after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_flag_falls_on_the_server() {
    let s = Server::start(test_config()).await;
    let c = Client::new(&s.base);
    let (id, south, north) = two_guests(&c, Some("0.05+0")).await;
    let st = c.get(&format!("/api/games/{id}"), None).await.ok();
    assert_eq!(st["clock"]["control"], "0.05+0", "{st}");
    assert_eq!(st["clock"]["running"], "south");
    assert!(
        st["clock"]["first_move_ms"].as_i64().unwrap() > 25_000,
        "{st}"
    );
    // Each side's first move (extra turns included) until the turn is back with South.
    let mut st = play_first(&c, &id, &south, &north).await;
    while st["to_move"] != "south" || st["clock"]["first_move_ms"].is_i64() {
        st = play_first(&c, &id, &south, &north).await;
    }
    let left = st["clock"]["south_ms"].as_i64().unwrap();
    assert!((2500..=3000).contains(&left), "{st}");
    let mover = st["to_move"].as_str().unwrap().to_string();
    let over = c.wait_for(&id, "the flag", |v| v["over"] == true).await;
    assert_eq!(over["result"]["why"]["key"], "result.time", "{over}");
    assert_eq!(over["result"]["why"]["args"]["side"], mover.as_str());
    assert_ne!(over["result"]["winner"], mover.as_str());
    assert_eq!(over["clock"]["running"], Value::Null);
    assert_eq!(over["clock"][format!("{mover}_ms")], 0, "{over}");
    let token = if mover == "south" { &south } else { &north };
    c.play(&id, token, legal(&st)[0]).await.err(409, "");
    let text = c.text(&format!("/api/games/{id}/record?format=text")).await;
    assert!(text.contains("lost on time"), "{text}");
    // The record says what clock the game was played on.
    assert!(text.contains("[TimeControl \"0.05+0\"]\n"), "{text}");
    let json: Value =
        serde_json::from_str(&c.text(&format!("/api/games/{id}/record")).await).unwrap();
    assert_eq!(json["time_control"], "0.05+0", "{json}");
    // Two guests who gave no names are not named (a record is read by both).
    assert!(
        !text.contains("[South") && !text.contains("[North"),
        "{text}"
    );
    Record::parse(&text, None).unwrap();
    s.stop().await;
}

/// A draw offer accepted ends the game drawn; a takeback offer declined leaves the game,
/// accepted takes the offerer's last move back; offers are for games between people.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draw_and_takeback_offers() {
    let s = Server::start(test_config()).await;
    let c = Client::new(&s.base);
    let (id, south, north) = two_guests(&c, Some("5+0")).await;
    let offer = |kind: &'static str, token: String| {
        let (c, id) = (c.clone(), id.clone());
        async move {
            c.post(
                &format!("/api/games/{id}/offer"),
                json!({ "kind": kind }),
                Some(&token),
            )
            .await
        }
    };
    let answer = |accept: bool, token: String| {
        let (c, id) = (c.clone(), id.clone());
        async move {
            c.post(
                &format!("/api/games/{id}/answer"),
                json!({ "accept": accept }),
                Some(&token),
            )
            .await
        }
    };
    // Nothing to take back yet; no offer to answer; a rematch only after the end.
    offer("takeback", south.clone()).await.err(409, "");
    answer(true, north.clone()).await.err(409, "");
    offer("rematch", south.clone()).await.err(409, "");
    offer("dance", south.clone()).await.err(400, "draw");
    c.play(&id, &south, 1).await.ok();
    let before = c.get(&format!("/api/games/{id}"), None).await.ok()["ply"].clone();
    let st = offer("takeback", south.clone()).await.ok();
    assert_eq!(st["offer"], json!({"kind": "takeback", "by": "south"}));
    // Declined: the offer is gone, the game as it was.
    let st = answer(false, north.clone()).await.ok();
    assert_eq!(st["offer"], Value::Null);
    assert_eq!(st["ply"], before);
    offer("takeback", south.clone()).await.ok();
    // The offerer cannot accept his own offer.
    answer(true, south.clone()).await.err(409, "your own offer");
    let st = answer(true, north.clone()).await.ok();
    assert_eq!(st["ply"], 0, "{st}");
    assert_eq!(st["to_move"], "south");
    // A draw offered and accepted; an offer of another kind while it stands is refused,
    // and leaves it standing.
    offer("draw", north.clone()).await.ok();
    offer("takeback", south.clone())
        .await
        .err(409, "your opponent's offer stands");
    let st = answer(true, south.clone()).await.ok();
    assert_eq!(st["over"], true);
    assert_eq!(st["result"]["why"]["key"], "result.agreed");
    assert_eq!(st["result"]["winner"], Value::Null);
    let rec = c.text(&format!("/api/games/{id}/record?format=text")).await;
    assert!(rec.contains("[Result \"Draw agreed\"]"), "{rec}");
    // A clock is for games between people.
    c.post(
        "/api/games",
        json!({"rules": "kalah", "level": 1, "clock": "3+2"}),
        None,
    )
    .await
    .err(400, "between people");
    // A clock that does not read is refused, saying the form.
    c.post(
        "/api/games",
        json!({"rules": "kalah", "opponent": "friend", "clock": "3+99"}),
        None,
    )
    .await
    .err(400, "time control: a clock is MINUTES+SECONDS");
    // Against the computer there is nobody to offer to.
    let (cid, ct, _) = c
        .create(json!({"rules": "kalah,pits=4,seeds=3", "level": 1}))
        .await;
    c.post(
        &format!("/api/games/{cid}/offer"),
        json!({"kind": "draw"}),
        Some(&ct),
    )
    .await
    .err(409, "");
    s.stop().await;
}

/// A rematch offered after the end and accepted: a new game, seats swapped, same rules and
/// clock; each player's old token gets his new seat's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematch_swaps_the_seats() {
    let s = Server::start(test_config()).await;
    let c = Client::new(&s.base);
    let (id, south, north) = two_guests(&c, Some("3+2")).await;
    c.post(&format!("/api/games/{id}/resign"), json!({}), Some(&north))
        .await
        .ok();
    let st = c
        .post(
            &format!("/api/games/{id}/offer"),
            json!({"kind": "rematch"}),
            Some(&south),
        )
        .await
        .ok();
    assert_eq!(st["offer"]["kind"], "rematch");
    // The same offer from the other side accepts it.
    let st = c
        .post(
            &format!("/api/games/{id}/offer"),
            json!({"kind": "rematch"}),
            Some(&north),
        )
        .await
        .ok();
    let new_id = st["rematch"].as_str().expect("a rematch").to_string();
    let seat = |token: String| {
        let (c, id) = (c.clone(), id.clone());
        async move {
            c.post(&format!("/api/games/{id}/rematch"), json!({}), Some(&token))
                .await
                .ok()
        }
    };
    let a = seat(south.clone()).await;
    let b = seat(north.clone()).await;
    assert_eq!(
        (a["seat"].as_str(), b["seat"].as_str()),
        (Some("north"), Some("south"))
    );
    assert_eq!(a["game"]["id"], new_id.as_str());
    assert_eq!(a["game"]["clock"]["control"], "3+2");
    assert_eq!(a["game"]["rules"]["name"], st["rules"]["name"]);
    let (ta, tb) = (a["token"].as_str().unwrap(), b["token"].as_str().unwrap());
    assert_ne!(ta, south);
    // The new South (the old North) moves first with his new token.
    c.play(&new_id, ta, 1).await.err(409, "");
    c.play(&new_id, tb, 1).await.ok();
    s.stop().await;
}

/// A player who closes his last connection to a timed game can be claimed against once the
/// server's claim time has passed, not before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gone_player_is_claimed_against() {
    let mut cfg = test_config();
    cfg.claim_after = Duration::from_millis(800);
    let s = Server::start(cfg).await;
    let c = Client::new(&s.base);
    let (id, south, north) = two_guests(&c, Some("5+0")).await;
    let url = format!("ws://{}/api/games/{id}/ws", s.addr);
    let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    ws.send(Message::Text(
        json!({"type": "here", "token": north}).to_string().into(),
    ))
    .await
    .unwrap();
    loop {
        let m = ws.next().await.unwrap().unwrap();
        if let Message::Text(t) = m {
            let v: Value = serde_json::from_str(t.as_str()).unwrap();
            if v["type"] == "ack" {
                break;
            }
        }
    }
    let path = format!("/api/games/{id}/claim");
    let claim = || c.post(&path, json!({}), Some(&south));
    claim().await.err(409, "");
    drop(ws);
    let st = c
        .wait_for(&id, "North gone", |v| v["away"]["side"] == "north")
        .await;
    assert!(st["away"]["claim_in_ms"].as_i64().unwrap() <= 800, "{st}");
    tokio::time::sleep(Duration::from_millis(900)).await;
    let st = claim().await.ok();
    assert_eq!(st["result"]["why"]["key"], "result.abandoned", "{st}");
    assert_eq!(st["result"]["winner"], "south");
    s.stop().await;
}

/// The list of games being played: a game between two people once both seats are taken, not
/// a game against the computer, not a game that has ended.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_games_list_the_games_between_people() {
    let s = Server::start(test_config()).await;
    let c = Client::new(&s.base);
    let listed = |c: Client| async move {
        let v = c.get("/api/games/live", None).await.ok();
        v["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let (waiting, _, _) = c
        .create(json!({"rules": "kalah", "opponent": "friend"}))
        .await;
    let (computer, _, _) = c.create(json!({"rules": "kalah", "level": 1})).await;
    let (id, south, _north) = two_guests(&c, Some("5+0")).await;
    let ids = listed(c.clone()).await;
    assert!(ids.contains(&id), "{ids:?}");
    assert!(
        !ids.contains(&waiting) && !ids.contains(&computer),
        "{ids:?}"
    );
    let v = c.get("/api/games/live", None).await.ok();
    let g = v["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == id.as_str())
        .unwrap()
        .clone();
    assert_eq!(g["clock"], "5+0");
    assert_eq!(g["over"], false);
    c.post(&format!("/api/games/{id}/resign"), json!({}), Some(&south))
        .await
        .ok();
    assert!(!listed(c.clone()).await.contains(&id));
    s.stop().await;
}
