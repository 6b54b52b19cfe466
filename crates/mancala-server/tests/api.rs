//! The HTTP and WebSocket API against a server on a free loopback port.

mod common;

use std::time::Duration;

use common::{legal, test_config, Client, Server};
use futures_util::{SinkExt, StreamExt};
use mancala_core::i18n::{self, Lang};
use mancala_core::notation::Check;
use mancala_core::Record;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn variants_menus_come_from_the_rules_data() {
    let s = Server::start(test_config()).await;
    let c = Client::new(&s.base);
    let v = c.get("/api/variants", None).await.ok();
    let presets = v["presets"].as_array().unwrap();
    assert_eq!(presets.len(), mancala_core::Preset::ALL.len());
    let kalah = &presets[0];
    assert_eq!(kalah["name"], "kalah");
    let names: Vec<&str> = kalah["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"seeds") && names.contains(&"capture") && !names.contains(&"stage"));
    let r = c.get("/api/rules?variant=kalah,seeds=4", None).await.ok();
    assert!(r["text"].as_str().unwrap().contains("Capture"));
    c.get("/api/rules?variant=chess", None)
        .await
        .err(400, "chess");
    // The client's files are served.
    let page = c.http.get(format!("{}/", s.base)).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("app.js"));
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_against_the_computer_over_http() {
    let s = Server::start(test_config()).await;
    let c = Client::new(&s.base);
    let (id, token, v) = c
        .create(
            json!({"rules": "kalah,seeds=3", "opponent": "computer", "level": 2, "side": "south"}),
        )
        .await;
    assert_eq!(v["seat"], "south");
    assert!(v["invite"].is_null());
    assert_eq!(v["game"]["you"], "south");
    // The state never shows a token.
    let st = c.get(&format!("/api/games/{id}"), None).await.ok();
    assert!(!st.to_string().contains(&token));
    assert!(st["you"].is_null());
    let mine = c.get(&format!("/api/games/{id}"), Some(&token)).await.ok();
    assert_eq!(mine["you"], "south");

    // Hint, then play to the end, always answering the computer.
    let hint = c
        .get(&format!("/api/games/{id}/hint"), Some(&token))
        .await
        .ok();
    assert!(legal(&st).contains(&hint["pit"].as_u64().unwrap()));
    assert!(hint["proven"].is_boolean(), "{hint}");
    let mut moves = 0;
    loop {
        let st = c
            .wait_for(&id, "the computer's answer", |g| {
                g["over"] == true || g["to_move"] == "south"
            })
            .await;
        if st["over"] == true {
            break;
        }
        let pit = legal(&st)[moves % legal(&st).len()];
        let r = c.play(&id, &token, pit).await.ok();
        assert!(r["ply"].as_u64().unwrap() > st["ply"].as_u64().unwrap());
        moves += 1;
        assert!(moves < 200);
    }
    let st = c.get(&format!("/api/games/{id}"), None).await.ok();
    assert!(st["result"]["south"].is_u64());
    // Records: JSON replays to the same result; text too.
    let rec = c
        .http
        .get(format!("{}/api/games/{id}/record?format=json", s.base))
        .send()
        .await
        .unwrap();
    assert!(rec
        .headers()
        .get("content-disposition")
        .unwrap()
        .to_str()
        .unwrap()
        .contains("attachment"));
    let rec = Record::parse(&rec.text().await.unwrap(), None).unwrap();
    let game = rec.replay().unwrap();
    assert!(game.is_over());
    let text = c.text(&format!("/api/games/{id}/record?format=text")).await;
    let (_, g2) = Record::parse_text(&text, None, Check::Strict).unwrap();
    assert_eq!(g2.position(), game.position());
    // A game without a clock records none.
    assert!(
        !text.contains("TimeControl") && rec.time_control.is_none(),
        "{text}"
    );
    // The replay view has every position and a value for every move.
    let rp = c.get(&format!("/api/games/{id}/replay"), None).await.ok();
    let n = game.moves().len();
    assert_eq!(rp["positions"].as_array().unwrap().len(), n + 1);
    assert_eq!(rp["values"].as_array().unwrap().len(), n);
    // ...and the uploaded text record gives the same replay.
    let up = c
        .send("POST", "/api/replay", Some(text.clone()), None)
        .await
        .ok();
    assert_eq!(up["moves"].as_array().unwrap().len(), n);
    assert!(up["note"].is_null(), "{}", up["note"]);
    // A wrong annotation: the moves are shown, and the note says where it disagrees.
    let slip = c
        .send(
            "POST",
            "/api/replay",
            Some("[Variant \"kalah\"]\n1. C (+9) f\n".into()),
            None,
        )
        .await
        .ok();
    assert_eq!(slip["moves"].as_array().unwrap().len(), 2);
    assert!(
        slip["note"].as_str().unwrap().contains("the record gives"),
        "{}",
        slip["note"]
    );
    // ...and as a key and arguments, said the same in English and in the reader's language.
    assert_eq!(said(&slip["note_message"], Lang::En), slip["note"]);
    let pt = said(&slip["note_message"], Lang::Pt);
    assert!(pt.contains("o registro dá"), "{pt}");
    s.stop().await;
}

/// A `{"key", "args"}` message said in `lang`, as the client says it: each argument a text,
/// or a message of its own.
fn said(m: &Value, lang: Lang) -> String {
    let key = m["key"].as_str().unwrap_or_else(|| panic!("no key in {m}"));
    for l in Lang::ALL {
        assert_ne!(
            i18n::text(l, key),
            key,
            "`{key}` is not in locales/{l}.json"
        );
    }
    let args: Vec<(String, String)> = m["args"]
        .as_object()
        .unwrap_or_else(|| panic!("no args in {m}"))
        .iter()
        .map(|(k, v)| {
            let v = match v.as_str() {
                Some(t) => t.to_string(),
                None => said(v, lang),
            };
            (k.clone(), v)
        })
        .collect();
    let shown: Vec<(&str, &dyn std::fmt::Display)> = args
        .iter()
        .map(|(k, v)| (k.as_str(), v as &dyn std::fmt::Display))
        .collect();
    i18n::format(lang, key, &shown)
}

/// Undo after an extra turn takes back one sowing, as `play` and the TUI do: South sows D (an
/// extra turn) and A, the computer answers, and undo leaves South after D, to move.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undo_after_an_extra_turn_takes_back_one_sowing() {
    let s = Server::start(test_config()).await;
    let c = Client::new(&s.base);
    let (id, token, _) = c
        .create(json!({"rules": "kalah", "level": 1, "side": "south"}))
        .await;
    c.play(&id, &token, 4).await.ok();
    c.play(&id, &token, 1).await.ok();
    c.wait_for(&id, "the answer", |g| {
        g["to_move"] == "south" || g["over"] == true
    })
    .await;
    let u = c
        .post(&format!("/api/games/{id}/undo"), json!({}), Some(&token))
        .await
        .ok();
    assert_eq!(
        u["board"]["position"],
        "kalah/3-3-3-0-4-4/1/3-3-3-3-3-3/0/s"
    );
    assert_eq!(u["to_move"], "south");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undo_hint_and_resign_against_the_computer() {
    let s = Server::start(test_config()).await;
    let c = Client::new(&s.base);
    // North: the computer moves first.
    let (id, token, _) = c
        .create(json!({"rules": "kalah", "level": 1, "side": "north"}))
        .await;
    let st = c
        .wait_for(&id, "the computer's first move", |g| {
            g["to_move"] == "north"
        })
        .await;
    let before = st["ply"].as_u64().unwrap();
    c.post(&format!("/api/games/{id}/undo"), json!({}), Some(&token))
        .await
        .err(409, "nothing to undo");
    let pit = legal(&st)[0];
    c.play(&id, &token, pit).await.ok();
    let st = c
        .wait_for(&id, "the answer", |g| {
            g["to_move"] == "north" || g["over"] == true
        })
        .await;
    assert!(st["ply"].as_u64().unwrap() > before);
    let u = c
        .post(&format!("/api/games/{id}/undo"), json!({}), Some(&token))
        .await
        .ok();
    assert_eq!(
        u["ply"].as_u64().unwrap(),
        before,
        "undo takes back my move and the answer"
    );
    assert_eq!(u["to_move"], "north");
    let r = c
        .post(&format!("/api/games/{id}/resign"), json!({}), Some(&token))
        .await
        .ok();
    assert_eq!(r["over"], true);
    assert_eq!(r["result"]["winner"], "south");
    c.play(&id, &token, 1).await.err(409, "over");
    c.post(&format!("/api/games/{id}/resign"), json!({}), Some(&token))
        .await
        .err(409, "over");
    let text = c.text(&format!("/api/games/{id}/record?format=text")).await;
    assert!(
        text.contains("[Result \"South wins: North resigned\"]"),
        "{text}"
    );
    // The JSON record says so too, and replays with its result checked.
    let rec = c.text(&format!("/api/games/{id}/record")).await;
    let parsed = mancala_core::Record::parse(&rec, None).unwrap();
    let result = parsed.result.expect("a result");
    assert_eq!(result.resigned, Some(mancala_core::Side::North), "{rec}");
    assert_eq!(result.winner, Some(mancala_core::Side::South));
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_bad_input_is_a_4xx_with_a_json_error() {
    let mut cfg = test_config();
    cfg.max_body = 1024;
    let s = Server::start(cfg).await;
    let c = Client::new(&s.base);
    let (id, token, v) = c
        .create(json!({"opponent": "friend", "side": "south"}))
        .await;
    let invite = v["invite"].as_str().unwrap().to_string();
    let moves = format!("/api/games/{id}/moves");
    // The invitation is shown to the seat holder only.
    let mine = c.get(&format!("/api/games/{id}"), Some(&token)).await.ok();
    assert_eq!(mine["invite"], invite.as_str());
    let public = c.get(&format!("/api/games/{id}"), None).await.ok();
    assert!(public["invite"].is_null() && !public.to_string().contains(&invite));

    // Malformed JSON, wrong shapes, unknown fields, empty body.
    c.send("POST", &moves, Some("{\"pit\": ".into()), Some(&token))
        .await
        .err(400, "malformed JSON");
    c.send("POST", &moves, Some("\"hello\"".into()), Some(&token))
        .await
        .err(400, "a JSON object");
    // An array would read as the fields in order: refused.
    c.send("POST", &moves, Some("[3]".into()), Some(&token))
        .await
        .err(400, "a JSON object");
    c.send("POST", "/api/games", Some("[\"kauri\"]".into()), None)
        .await
        .err(400, "a JSON object");
    c.post(&moves, json!({"pit": "C"}), Some(&token))
        .await
        .err(400, "pit must be a number");
    c.post(&moves, json!({"pit": 2.5}), Some(&token))
        .await
        .err(400, "whole number");
    // A value of the wrong type is named by its field.
    c.post("/api/games", json!({"opponent": 3}), None)
        .await
        .err(
            400,
            "malformed JSON: field opponent: invalid type: integer `3`",
        );
    c.post(&moves, json!({"pit": 1, "colour": "red"}), Some(&token))
        .await
        .err(400, "unknown field");
    c.send("POST", &moves, None, Some(&token))
        .await
        .err(400, "JSON body");
    for (body, needle) in [
        (json!({"rules": "chess"}), "chess"),
        (json!({"rules": "kalah,seeds=0"}), "seeds"),
        (json!({"level": 9}), "level"),
        (json!({"opponent": "cat"}), "opponent"),
        (json!({"side": "east"}), "side"),
        (json!({"rules": 7}), "rules"),
        (
            json!({"rules": "kalah", "position": "kalah/3-3-3/0/3-3-3/0/s"}),
            "field 2",
        ),
    ] {
        c.post("/api/games", body, None).await.err(400, needle);
    }

    // Unknown game, unknown route, wrong method.
    c.play("0123456789abcdef", &token, 1)
        .await
        .err(404, "no game");
    c.get("/api/games/..%2F..%2Fetc", None)
        .await
        .err(404, "no game");
    c.get("/api/nothing-here", None).await.err(404, "no such");
    c.send("DELETE", &format!("/api/games/{id}"), None, None)
        .await
        .err(405, "method");
    c.get("/api/games/0123/ws", None).await.err(404, "no game");
    c.get(&format!("/api/games/{id}/ws"), None)
        .await
        .err(400, "websocket");

    // No token, wrong token, the other seat's move, out of turn.
    c.play(&id, "", 1).await.err(401, "token");
    c.send("POST", &moves, Some(r#"{"pit":1}"#.into()), None)
        .await
        .err(401, "token");
    c.play(&id, "not-a-real-token", 1).await.err(403, "no seat");
    let j = c.join(&id, "nope").await;
    j.err(403, "invitation");
    let j = c.join(&id, &invite).await.ok();
    let north = j["token"].as_str().unwrap().to_string();
    assert_eq!(j["seat"], "north");
    c.join(&id, &invite).await.err(409, "taken");
    c.play(&id, &north, 1).await.err(409, "not your turn");

    // Illegal moves.
    c.play(&id, &token, 0).await.err(422, "does not exist");
    c.play(&id, &token, 7).await.err(422, "does not exist");
    c.post(&moves, json!({"pit": -3}), Some(&token))
        .await
        .err(422, "does not exist");
    c.play(&id, &token, 4).await.ok();
    // South's pit 4 is now empty and South moves again (its last seed fell in the store).
    let empty = c.play(&id, &token, 4).await;
    empty.err(422, "empty");
    // The answer carries the message as a key and arguments, for the reader's language.
    assert_eq!(said(&empty.body, Lang::En), empty.body["error"]);
    assert_eq!(
        said(&empty.body, Lang::Pt),
        "jogada ilegal: a casa 4 do Sul está vazia"
    );
    // A stale ply.
    c.post(&moves, json!({"pit": 1, "ply": 0}), Some(&token))
        .await
        .err(409, "moved on");
    // Undo and hint belong to games against the computer.
    c.post(&format!("/api/games/{id}/undo"), json!({}), Some(&token))
        .await
        .err(409, "computer");
    c.get(&format!("/api/games/{id}/hint"), Some(&token))
        .await
        .err(409, "computer");

    // Oversized body.
    let big = format!("{{\"pit\": 1, \"x\": \"{}\"}}", "a".repeat(5000));
    c.send("POST", &moves, Some(big), Some(&token))
        .await
        .err(413, "too large");
    // Records that are not records.
    c.send("POST", "/api/replay", Some("hello".into()), None)
        .await
        .err(400, "record");
    c.send("POST", "/api/replay", Some("{\"rules\": 3}".into()), None)
        .await
        .err(400, "record");
    c.get(&format!("/api/games/{id}/record?format=pdf"), None)
        .await
        .err(400, "format");

    // The game and the server carry on.
    let st = c.play(&id, &token, 1).await.ok();
    assert_eq!(st["to_move"], "north");
    assert_eq!(st["ply"], 2);
    c.get("/api/health", None).await.ok();
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_many_requests_from_one_client_get_429() {
    let mut cfg = test_config();
    cfg.rate = 5.0;
    cfg.burst = 10.0;
    let s = Server::start(cfg).await;
    let c = Client::new(&s.base);
    let mut limited = None;
    for _ in 0..40 {
        let r = c.get("/api/health", None).await;
        if r.status == 429 {
            limited = Some(r);
            break;
        }
    }
    let r = limited.expect("a burst of 40 requests is limited");
    r.err(429, "too many requests");
    // The client's own files are not counted: a page loads a score of them at once.
    for _ in 0..40 {
        let res = reqwest::get(format!("{}/app.js", s.base)).await.unwrap();
        assert_eq!(res.status(), 200);
    }
    // A second later requests pass again.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    c.get("/api/health", None).await.ok();
    s.stop().await;
}

/// Statuses of GET /api/health sent with each `X-Forwarded-For` in turn.
async fn health_from(base: &str, forwarded: &[&str]) -> Vec<u16> {
    let http = reqwest::Client::new();
    let mut out = Vec::new();
    for f in forwarded {
        let r = http
            .get(format!("{base}/api/health"))
            .header("x-forwarded-for", *f)
            .send()
            .await
            .expect("request");
        out.push(r.status().as_u16());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn x_forwarded_for_is_read_only_from_a_trusted_proxy() {
    let mut cfg = test_config();
    // Three requests, then (almost) none.
    cfg.rate = 0.001;
    cfg.burst = 3.0;
    let a = "198.51.100.1";
    let b = "198.51.100.2";
    // An untrusted peer (this test, on 127.0.0.1) may not pose as other clients.
    let s = Server::start(cfg.clone()).await;
    assert_eq!(
        health_from(&s.base, &[a, a, a, b, "203.0.113.1"]).await,
        [200, 200, 200, 429, 429]
    );
    s.stop().await;
    // Behind a trusted proxy each client has its own bucket.
    cfg.trusted_proxies = mancala_server::client_addr::TrustedProxies(vec![
        mancala_server::client_addr::parse_proxy("127.0.0.0/8").unwrap(),
    ]);
    let s = Server::start(cfg).await;
    assert_eq!(
        health_from(&s.base, &[a, a, a, a, b, &format!("{a}, {b}")]).await,
        [200, 200, 200, 429, 200, 200]
    );
    s.stop().await;
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn ws_next(ws: &mut Ws) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(20), ws.next())
            .await
            .expect("a message in time")
            .expect("open")
            .expect("ok");
        if let Message::Text(t) = m {
            return serde_json::from_str(t.as_str()).unwrap();
        }
    }
}

/// Next message of `kind` (skipping the state pushes of others' moves).
async fn ws_next_of(ws: &mut Ws, kind: &str) -> Value {
    loop {
        let v = ws_next(ws).await;
        if v["type"] == kind {
            return v;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_seats_play_a_full_game_over_websockets() {
    let s = Server::start(test_config()).await;
    let c = Client::new(&s.base);
    let (id, south, v) = c
        .create(json!({"rules": "kalah,pits=4,seeds=3", "opponent": "friend", "side": "south", "name": "Ann"}))
        .await;
    let invite = v["invite"].as_str().unwrap();
    let url = format!("ws://{}/api/games/{id}/ws", s.addr);
    let (mut ws_s, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    let hello = ws_next(&mut ws_s).await;
    assert_eq!(hello["type"], "state");
    assert_eq!(hello["game"]["waiting_for_opponent"], true);
    assert!(!hello.to_string().contains(&south));
    let j = c
        .post(
            &format!("/api/games/{id}/join"),
            json!({"invite": invite, "name": "Bo"}),
            None,
        )
        .await
        .ok();
    let north = j["token"].as_str().unwrap().to_string();
    // South sees the friend arrive.
    let st = ws_next_of(&mut ws_s, "state").await;
    assert_eq!(st["game"]["waiting_for_opponent"], false);
    assert_eq!(st["game"]["players"]["north"]["name"], "Bo");
    let (mut ws_n, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    ws_next(&mut ws_n).await;

    // A message over the size limit closes the socket, with an error first.
    let (mut ws_big, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    ws_next(&mut ws_big).await;
    ws_big
        .send(Message::Text("x".repeat(70_000).into()))
        .await
        .unwrap();
    let e = ws_next_of(&mut ws_big, "error").await;
    assert!(
        e["error"].as_str().unwrap().contains("at most 16 KiB"),
        "{e}"
    );

    // Bad messages get errors; the socket stays open.
    ws_s.send(Message::Text("{oops".into())).await.unwrap();
    assert_eq!(ws_next_of(&mut ws_s, "error").await["status"], 400);
    ws_s.send(Message::Text(json!({"type": "dance"}).to_string().into()))
        .await
        .unwrap();
    assert!(ws_next_of(&mut ws_s, "error").await["error"]
        .as_str()
        .unwrap()
        .contains("unknown message type"));
    ws_n.send(Message::Text(
        json!({"type": "move", "token": north, "pit": 1})
            .to_string()
            .into(),
    ))
    .await
    .unwrap();
    let e = ws_next_of(&mut ws_n, "error").await;
    assert_eq!(e["status"], 409, "{e}");
    ws_s.send(Message::Text(
        json!({"type": "move", "token": "bad", "pit": 1})
            .to_string()
            .into(),
    ))
    .await
    .unwrap();
    assert_eq!(ws_next_of(&mut ws_s, "error").await["status"], 403);

    // Play to the end, each seat on its own socket.
    let mut state = hello["game"].clone();
    let mut k = 0u64;
    while state["over"] != true {
        let (ws, token) = if state["to_move"] == "south" {
            (&mut ws_s, &south)
        } else {
            (&mut ws_n, &north)
        };
        let l = legal(&state);
        let pit = l[(k as usize * 7) % l.len()];
        ws.send(Message::Text(
            json!({"type": "move", "token": token, "pit": pit, "id": k})
                .to_string()
                .into(),
        ))
        .await
        .unwrap();
        let ack = ws_next_of(ws, "ack").await;
        assert_eq!(ack["id"], k);
        state = ack["game"].clone();
        k += 1;
        assert!(k < 300);
    }
    // Both see the end.
    let fin = c.get(&format!("/api/games/{id}"), None).await.ok();
    assert_eq!(fin["over"], true);
    let total: u64 = fin["board"]["stores"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(total, 24);
    // The record names the players and replays to the same end.
    let rec = c.text(&format!("/api/games/{id}/record")).await;
    let rec = Record::parse(&rec, None).unwrap();
    assert_eq!(rec.players.south.as_deref(), Some("Ann"));
    assert_eq!(rec.players.north.as_deref(), Some("Bo"));
    assert_eq!(rec.replay().unwrap().moves().len() as u64, k);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_games_against_the_computer_all_get_answers() {
    // Twelve games at once against the strongest level on a pool of two: every game gets its
    // answers (the per-move limit keeps each search short, the pool is first come first
    // served).
    let mut cfg = test_config();
    cfg.ai_time = Duration::from_millis(100);
    let s = Server::start(cfg).await;
    let c = Client::new(&s.base);
    let mut tasks = Vec::new();
    for g in 0..12u64 {
        let c = c.clone();
        tasks.push(tokio::spawn(async move {
            let (id, token, _) = c
                .create(json!({"rules": "kalah,seeds=4", "level": 8}))
                .await;
            for k in 0..3u64 {
                let st = c
                    .wait_for(&id, "my turn", |s| {
                        s["to_move"] == "south" || s["over"] == true
                    })
                    .await;
                if st["over"] == true {
                    break;
                }
                let l = legal(&st);
                c.play(&id, &token, l[((g + k) as usize) % l.len()])
                    .await
                    .ok();
            }
            c.wait_for(&id, "the last answer", |s| {
                s["to_move"] == "south" || s["over"] == true
            })
            .await;
        }));
    }
    for t in tasks {
        tokio::time::timeout(Duration::from_secs(60), t)
            .await
            .expect("every game finished its moves")
            .unwrap();
    }
    s.stop().await;
}

/// Dracala is misère: a hint says so, and its value is the margin with "fewer seeds win", not a
/// margin shown as if more were better (South's proven +3 at the start is a loss by 3).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_misere_hint_says_fewer_seeds_win() {
    let s = Server::start(test_config()).await;
    let c = Client::new(&s.base);
    let (id, token, _) = c
        .create(json!({"rules": "dracala", "opponent": "computer", "level": 1, "side": "south"}))
        .await;
    let hint = c
        .get(&format!("/api/games/{id}/hint"), Some(&token))
        .await
        .ok();
    let e = &hint["eval"];
    assert_eq!(e["side"], "south", "{hint}");
    assert_eq!(e["lower_is_better"], true, "{hint}");
    assert_eq!(e["score"], -e["margin"].as_i64().unwrap(), "{hint}");
    assert!(
        e["text"].as_str().unwrap().contains("fewer seeds win"),
        "{hint}"
    );
    if e["proven"] == true {
        assert_eq!(e["margin"], 3, "{hint}");
        assert!(e["text"]
            .as_str()
            .unwrap()
            .contains("South loses by 3, fewer seeds win"));
    }
}

/// A hint's value is the asking seat's: North asks in a Dracala and a Kalah endgame; `side`,
/// `value` (the margin), `score` and `lower_is_better` stand at the top of the answer, from
/// North's view, and agree with the solver's value of the position.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hint_is_valued_for_the_seat_that_asks() {
    use mancala_core::{Position, Side};
    use mancala_engine::{Budget, Engine};
    let s = Server::start(test_config()).await;
    let c = Client::new(&s.base);
    for (position, misere) in [
        ("dracala/3-2-0-0-1-0/31/0-0-0-3-0-0/32/n", true),
        ("kalah/1-0-2-0-0-1/14/0-3-0-1-0-2/12/n", false),
    ] {
        let rules = position.split('/').next().unwrap();
        let (id, token, _) = c
            .create(
                json!({"rules": rules, "opponent": "computer", "level": 1, "side": "north",
                "position": position}),
            )
            .await;
        let hint = c
            .get(&format!("/api/games/{id}/hint"), Some(&token))
            .await
            .ok();
        let pos: Position = position.parse().unwrap();
        let solved = Engine::new(16, 1)
            .solve(&pos, Budget::UNLIMITED, &[])
            .unwrap()
            .eval
            .seen_by(Side::North);
        assert_eq!(hint["side"], "north", "{hint}");
        assert_eq!(hint["lower_is_better"], misere, "{hint}");
        assert_eq!(hint["proven"], true, "{hint}");
        assert_eq!(hint["value"], solved.margin, "{position}: {hint}");
        assert_eq!(hint["score"], solved.score(), "{position}: {hint}");
        assert_eq!(hint["eval"]["side"], "north", "{hint}");
        assert_eq!(hint["eval"]["margin"], hint["value"], "{hint}");
        // Fewer seeds win: the score is the margin turned.
        let turned = if misere {
            -solved.margin
        } else {
            solved.margin
        };
        assert_eq!(hint["score"], turned, "{hint}");
    }
    s.stop().await;
}

/// A pit with pieces that may not be played says why: in Kauri only a pit with a cowrie moves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forced_choice_says_why() {
    let s = Server::start(test_config()).await;
    let c = Client::new(&s.base);
    let (_, _, v) = c
        .create(json!({"rules": "kalah", "opponent": "computer", "level": 1, "side": "south"}))
        .await;
    assert!(v["game"]["forced"].is_null(), "{v}");
    let (_, _, v) = c
        .create(
            json!({"rules": "kauri,pits=3,seeds=2", "opponent": "friend", "side": "south",
            "position": "kauri,pits=3,seeds=2/2-0c2-1c1/0/1c1-4-0c2/4/s"}),
        )
        .await;
    assert_eq!(v["game"]["legal"], json!([2, 3]), "{v}");
    assert_eq!(
        v["game"]["forced"], "only a pit holding a cowrie may be sown",
        "{v}"
    );
    s.stop().await;
}

/// The pie rule between two seats: North's state offers the swap, `"pit": "swap"` plays it
/// (the board mirrored, South to move, `swap` in the moves), and a swap out of place is a 422
/// with the reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pie_rule_swap_over_http() {
    let s = Server::start(test_config()).await;
    let c = Client::new(&s.base);
    let rules = "kalah,pits=4,seeds=2,first-move-extra-turn=false,pie";
    let (id, south, v) = c
        .create(json!({"rules": rules, "opponent": "friend", "side": "south"}))
        .await;
    let north = c.join(&id, v["invite"].as_str().unwrap()).await.ok()["token"]
        .as_str()
        .unwrap()
        .to_string();
    let moves = format!("/api/games/{id}/moves");
    c.post(&moves, json!({"pit": "swap"}), Some(&south))
        .await
        .err(422, "a swap is only North's first action");
    c.post(&moves, json!({"pit": true}), Some(&south))
        .await
        .err(
            400,
            "pit must be a number (1 = your leftmost pit) or \"swap\"",
        );
    // South's pit 3 (2 seeds) ends in the store, but the first move earns no extra turn.
    let st = c.play(&id, &south, 3).await.ok();
    assert_eq!(st["to_move"], "north");
    assert_eq!(st["swap"], true);
    assert_eq!(st["legal"], json!([1, 2, 3, 4]));
    assert_eq!(st["board"]["south"], json!([2, 2, 0, 3]));
    assert_eq!(st["board"]["stores"], json!([1, 0]));
    let st = c
        .post(&moves, json!({"pit": "swap", "ply": 1}), Some(&north))
        .await
        .ok();
    assert_eq!(st["to_move"], "south");
    assert_eq!(st["swap"], false);
    assert_eq!(st["board"]["north"], json!([2, 2, 0, 3]));
    assert_eq!(st["board"]["south"], json!([2, 2, 2, 2]));
    assert_eq!(st["board"]["stores"], json!([0, 1]));
    let last = st["recent"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (last["pit"].as_u64(), last["text"].as_str()),
        (Some(0), Some("swap"))
    );
    assert!(last["path"].as_array().unwrap().is_empty());
    let text = c.text(&format!("/api/games/{id}/record?format=text")).await;
    assert!(text.contains("1. C (+1)  swap"), "{text}");
    c.post(&moves, json!({"pit": "swap"}), Some(&south))
        .await
        .err(422, "a swap is only North's first action");
    s.stop().await;
}
