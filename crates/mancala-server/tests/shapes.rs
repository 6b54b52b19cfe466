//! The JSON shapes of the API's answers, compared with recorded answers so that a change of
//! how the server builds them cannot change what the client reads. Values that differ from
//! run to run (ids, tokens, invitations, versions, times) are masked before comparing.
//!
//! `MANCALA_RECORD_SHAPES=1 cargo test -p mancala-server --test shapes` rewrites the
//! recorded file.

mod common;

use common::{test_config, Client, Server};
use serde_json::{json, Map, Value};

const RECORDED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/shapes.json");

/// Keys whose values change from run to run; their values become `"<masked>"` (a null stays
/// null, so that null against absent against present is still compared).
const VOLATILE: &[&str] = &[
    "id", "token", "invite", "version", "date", "time", "time_ms", "ms", "created", "updated",
    "elapsed", "nodes", "game_id",
];

fn mask(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if VOLATILE.contains(&k.as_str()) && !x.is_null() {
                    *x = json!("<masked>");
                } else {
                    mask(x);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(mask),
        _ => {}
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_keep_their_recorded_shapes() {
    let s = Server::start(test_config()).await;
    let c = Client::new(&s.base);
    let mut got = Map::new();

    // Against the computer at level 1, South moving first.
    let (id, token, created) = c
        .create(
            json!({"rules": "kalah,seeds=3", "opponent": "computer", "level": 1, "side": "south"}),
        )
        .await;
    got.insert("create_vs_computer".into(), created);
    let played = c.play(&id, &token, 2).await.ok();
    // The computer at level 1 picks among good moves at random: from here on this game's
    // answers are compared by their keys and the kinds of their values only.
    got.insert("move_vs_computer".into(), skeleton(&played));
    let st = c
        .wait_for(&id, "the computer's answer", |g| {
            g["over"] == true || g["to_move"] == "south"
        })
        .await;
    got.insert("state_after_answer".into(), skeleton(&st));
    let hint = c
        .get(&format!("/api/games/{id}/hint"), Some(&token))
        .await
        .ok();
    // The hint's search may reach different depths on different machines.
    let mut hint = skeleton(&hint);
    // A proven value has no depth.
    hint["eval"]["depth"] = json!("null|number");
    got.insert("hint".into(), hint);
    let mine = c.get(&format!("/api/games/{id}"), Some(&token)).await.ok();
    got.insert("state_as_seat".into(), skeleton(&mine));
    let record = c.get(&format!("/api/games/{id}/record"), None).await;
    got.insert("record".into(), skeleton(&record.body));
    let mut replay = c.get(&format!("/api/games/{id}/replay"), None).await.ok();
    keys_of_values(&mut replay);
    got.insert("replay".into(), skeleton(&replay));

    // Two people: create, join, a move, a resignation.
    let (id2, token2, created2) = c
        .create(json!({"rules": "oware", "opponent": "friend", "name": "Ann", "side": "north"}))
        .await;
    got.insert("create_two_players".into(), created2.clone());
    let invite = created2["invite"].as_str().unwrap().to_string();
    let joined = c.join(&id2, &invite).await.ok();
    let token_s = joined["token"].as_str().unwrap().to_string();
    got.insert("join".into(), joined);
    got.insert(
        "move_two_players".into(),
        c.play(&id2, &token_s, 3).await.ok(),
    );
    let state2 = c
        .get(&format!("/api/games/{id2}"), Some(&token2))
        .await
        .ok();
    got.insert("state_two_players".into(), state2);
    let hint2 = c
        .get(&format!("/api/games/{id2}/hint"), Some(&token2))
        .await
        .body;
    got.insert("hint_two_players".into(), hint2);
    let record2 = c.get(&format!("/api/games/{id2}/record"), None).await;
    got.insert("record_two_players".into(), record2.body);
    let resigned = c
        .post(
            &format!("/api/games/{id2}/resign"),
            json!({}),
            Some(&token2),
        )
        .await;
    got.insert("resign".into(), resigned.body);
    let mut replay2 = c.get(&format!("/api/games/{id2}/replay"), None).await.ok();
    keys_of_values(&mut replay2);
    got.insert("replay_two_players".into(), replay2);

    // Kauri, with cowries on the board.
    let (_, _, kauri) = c
        .create(json!({"rules": "kauri", "opponent": "friend", "side": "south"}))
        .await;
    got.insert("create_kauri".into(), kauri);

    got.insert("variants".into(), c.get("/api/variants", None).await.ok());
    got.insert(
        "rules".into(),
        c.get("/api/rules?variant=kalah,seeds=4", None).await.ok(),
    );
    got.insert(
        "rules_misere".into(),
        c.get("/api/rules?variant=kalah,misere=true", None)
            .await
            .body,
    );
    got.insert("health".into(), c.get("/api/health", None).await.ok());
    got.insert(
        "error_rules".into(),
        c.get("/api/rules?variant=chess", None).await.body,
    );
    got.insert(
        "error_game".into(),
        c.get("/api/games/nosuchgame", None).await.body,
    );
    got.insert("error_move".into(), c.play(&id, &token, 99).await.body);
    // The analysis board: a Kalah endgame whose every move is proven at once.
    got.insert(
        "analysis".into(),
        c.post(
            "/api/analysis",
            json!({"position": "kalah/1-0-2-0-0-1/14/0-3-0-1-0-2/12/n"}),
            None,
        )
        .await
        .ok(),
    );
    got.insert(
        "error_analysis".into(),
        c.post("/api/analysis", json!({"position": "kalah/1-2/0"}), None)
            .await
            .body,
    );
    // A KGP bot that breaks the protocol at its first position: its game, stored as its
    // resignation, in the list of bots' games and as a state.
    let (kgp_games, kgp_state) = bot_game(&s, &c).await;
    got.insert("kgp_games".into(), kgp_games);
    got.insert("state_kgp_game".into(), kgp_state);
    s.stop().await;

    let mut got = Value::Object(got);
    mask(&mut got);
    if std::env::var_os("MANCALA_RECORD_SHAPES").is_some() {
        std::fs::write(RECORDED, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
        return;
    }
    let _ = std::fs::write(
        concat!(env!("CARGO_TARGET_TMPDIR"), "/shapes.json"),
        serde_json::to_string_pretty(&got).unwrap(),
    );
    let want: Value = serde_json::from_str(&std::fs::read_to_string(RECORDED).unwrap()).unwrap();
    let want = want.as_object().unwrap();
    for (k, v) in got.as_object().unwrap() {
        assert_eq!(Some(v), want.get(k), "the answer `{k}` changed");
    }
    assert_eq!(got.as_object().unwrap().len(), want.len());
}

/// Serves KGP for `s`, connects a bot named `shape bot` that plays pit 1 in its first
/// position and answers the next with garbage (a game is stored from its first move), and
/// returns the list of bots' games and that game's state.
async fn bot_game(s: &Server, c: &Client) -> (Value, Value) {
    use std::io::{BufRead, BufReader, Write};
    let cfg = mancala_server::kgp::config(&s.app, 1).unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || mancala_protocols::kgp::serve(listener, cfg, |_| {}));
    tokio::task::spawn_blocking(move || {
        let mut bot = std::net::TcpStream::connect(addr).unwrap();
        bot.write_all(b"set info:name \"shape bot\"\r\nmode freeplay\r\n")
            .unwrap();
        let mut moved = false;
        for line in BufReader::new(bot.try_clone().unwrap()).lines() {
            let line = line.unwrap();
            if line.contains(" state ") {
                let answer: &[u8] = if moved {
                    b"?\r\n"
                } else {
                    b"move 1\r\nyield\r\n"
                };
                bot.write_all(answer).unwrap();
                moved = true;
            }
            if line == "goodbye" {
                break;
            }
        }
    })
    .await
    .unwrap();
    let list = c.get("/api/kgp/games", None).await.ok();
    let id = list["games"][0]["id"].as_str().unwrap().to_string();
    let state = c.get(&format!("/api/games/{id}"), None).await.ok();
    (list, state)
}

/// The engine's values in a replay come from timed searches: only their keys are compared.
fn keys_of_values(replay: &mut Value) {
    for v in replay["values"].as_array_mut().unwrap() {
        *v = json!(v.as_object().unwrap().keys().collect::<Vec<_>>());
    }
}

/// The keys of `v` with the kinds of their values. An array of objects becomes one object
/// with the keys of all of them; any other array becomes `"array"`.
fn skeleton(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            Value::Object(m.iter().map(|(k, x)| (k.clone(), skeleton(x))).collect())
        }
        Value::Array(a) if !a.is_empty() && a.iter().all(Value::is_object) => {
            let mut all = Map::new();
            for x in a.iter().map(skeleton) {
                merge(&mut all, x);
            }
            json!([all])
        }
        Value::Array(_) => json!("array"),
        other => json!(kind(other)),
    }
}

/// Adds the keys of the skeleton `x` to `all`.
fn merge(all: &mut Map<String, Value>, x: Value) {
    let Value::Object(m) = x else { return };
    for (k, v) in m {
        match (all.get_mut(&k), v) {
            (None, v) => {
                all.insert(k, v);
            }
            (Some(Value::Object(a)), v @ Value::Object(_)) => merge(a, v),
            (Some(Value::Array(a)), Value::Array(b)) => {
                if let (Some(Value::Object(a)), Some(b)) = (a.first_mut(), b.into_iter().next()) {
                    merge(a, b);
                }
            }
            (Some(old), v) => {
                if *old != v {
                    let mut kinds: Vec<String> = format!(
                        "{}|{}",
                        old.as_str().unwrap_or("?"),
                        v.as_str().unwrap_or("?")
                    )
                    .split('|')
                    .map(str::to_string)
                    .collect();
                    kinds.sort();
                    kinds.dedup();
                    *old = json!(kinds.join("|"));
                }
            }
        }
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
