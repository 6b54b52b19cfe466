//! The browser engine's functions natively: a game against the computer, undo, a hint, the
//! analysis board's shape, a proof, and errors (never panics) for bad input.

use serde_json::Value;

fn json(s: String) -> Value {
    serde_json::from_str(&s).expect("JSON")
}

#[test]
fn a_game_against_the_computer_with_undo_and_a_hint() {
    let created = json(mancala_wasm::new_game(
        r#"{"rules":"kalah","opponent":"computer","level":1,"side":"south"}"#,
        7,
    ));
    let id = created["game"]["id"].as_str().unwrap().to_string();
    assert_eq!(created["seat"], "south");
    assert_eq!(created["game"]["legal"].as_array().unwrap().len(), 6);
    // The server's game view, marked as the browser's own.
    assert_eq!(created["game"]["local"], true);
    assert_eq!(created["game"]["you"], "south");
    assert_eq!(created["game"]["players"]["north"]["kind"], "computer");
    assert!(created["game"]["invite"].is_null() && created["game"]["result"].is_null());
    let hint = json(mancala_wasm::hint(&id, 100));
    assert!(hint["eval"]["side"] == "south", "{hint}");
    // The hint's value stands at the top from the asker's view, as the server's does.
    assert_eq!(hint["side"], "south", "{hint}");
    assert_eq!(hint["value"], hint["eval"]["margin"], "{hint}");
    assert_eq!(hint["lower_is_better"], false, "{hint}");
    let pit = hint["pit"].to_string();
    let after = json(mancala_wasm::play(&id, &pit, 0, 7));
    assert!(after["ply"].as_u64().unwrap() >= 1, "{after}");
    assert_eq!(after["thinking"], false);
    let undone = json(mancala_wasm::undo(&id));
    assert_eq!(undone["ply"], 0);
    // The same move twice at a stale ply is refused.
    let stale = json(mancala_wasm::play(&id, &pit, 5, 7));
    assert!(stale["error"].is_string());
}

#[test]
fn undo_after_an_extra_turn_takes_back_one_sowing() {
    // As `play`, the TUI and the server: pit 4 ends in the store (an extra turn), pit 1 ends
    // the turn; undo goes back before pit 1 alone, South still to move.
    let created = json(mancala_wasm::new_game(
        r#"{"rules":"kalah","opponent":"computer","level":1,"side":"south"}"#,
        3,
    ));
    let id = created["game"]["id"].as_str().unwrap().to_string();
    let extra = json(mancala_wasm::play(&id, "4", 0, 3));
    assert_eq!(extra["to_move"], "south", "{extra}");
    let after = json(mancala_wasm::play(&id, "1", 1, 3));
    assert!(after["ply"].as_u64().unwrap() >= 3, "{after}");
    let undone = json(mancala_wasm::undo(&id));
    assert_eq!(
        undone["board"]["position"],
        "kalah/3-3-3-0-4-4/1/3-3-3-3-3-3/0/s"
    );
    assert_eq!(undone["to_move"], "south");
    // A resigned game keeps its end through a snapshot, and refuses undo.
    json(mancala_wasm::resign(&id));
    let snap = mancala_wasm::snapshot(&id);
    assert_eq!(json(snap.clone())["resigned"], "south", "{snap}");
    let restored = json(mancala_wasm::restore(&snap));
    assert_eq!(restored["over"], true, "{restored}");
    assert!(json(mancala_wasm::undo(&id))["error"].is_string());
}

#[test]
fn bad_input_answers_an_error() {
    for answer in [
        mancala_wasm::new_game("not json", 1),
        mancala_wasm::new_game(r#"{"level":9}"#, 1),
        mancala_wasm::state("local-99"),
        mancala_wasm::play("nope", "1", 0, 1),
        mancala_wasm::analyse("kalah/garbage", "", 3, 100),
        mancala_wasm::analyse("kalah/3-3-3-3-3-3/0/3-3-3-3-3-3/0/s", "[1]", 3, 100),
        mancala_wasm::rules("chess", "en"),
        mancala_wasm::replay_record("", 10),
        mancala_wasm::search("kalah/0-0-0-0-0-0/18/0-0-0-0-0-0/18/s", 3, 1),
    ] {
        assert!(json(answer)["error"].is_string());
    }
}

#[test]
fn analysis_and_proof_say_whose_value_and_how_sure() {
    let pos = "kalah/3-3-0-4-4-4/0/3-3-3-3-3-3/0/n";
    let a = json(mancala_wasm::analyse(pos, "", 5, 10_000));
    assert_eq!(a["moves"][0]["eval"]["side"], "north");
    assert_eq!(a["moves"][0]["eval"]["depth"], 5);
    assert_eq!(a["moves"][0]["eval"]["proven"], false);
    let end = "kalah/1-0-2-0-0-1/14/0-3-0-1-0-2/12/n";
    let p = json(mancala_wasm::solve(end, 10_000));
    assert_eq!(p["proven"], true);
    assert_eq!(p["eval"]["proven"], true);
    assert_eq!(p["eval"]["side"], "north");
}

#[test]
fn a_snapshot_restores_the_same_game_and_bad_snapshots_are_refused() {
    let created = json(mancala_wasm::new_game(
        r#"{"rules":"kalah","opponent":"computer","level":2,"side":"north"}"#,
        11,
    ));
    let id = created["game"]["id"].as_str().unwrap().to_string();
    // The computer opened as South; the person plays a few moves.
    let mut state = created["game"].clone();
    for _ in 0..3 {
        if state["over"] == true {
            break;
        }
        let pit = state["legal"][0].to_string();
        let ply = state["ply"].as_u64().unwrap() as u32;
        state = json(mancala_wasm::play(&id, &pit, ply, 3));
    }
    let snap = mancala_wasm::snapshot(&id);
    // Another game of the same id (as in a new worker) is replaced by the restored one.
    let restored = json(mancala_wasm::restore(&snap));
    assert_eq!(restored, state, "{snap}");
    assert_eq!(json(mancala_wasm::state(&id)), state);
    assert!(
        json(mancala_wasm::snapshot(&id))["moves"]
            .as_array()
            .unwrap()
            .len()
            >= 4
    );

    let mut bad: Value = serde_json::from_str(&snap).unwrap();
    bad["moves"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!(9));
    let mut foreign = bad.clone();
    foreign["id"] = "game-1".into();
    for s in [
        "".to_string(),
        "[]".into(),
        bad.to_string(),
        foreign.to_string(),
        snap.replace("\"level\":2", "\"level\":12"),
        snap.replace("\"you\":\"north\"", "\"you\":\"east\""),
    ] {
        assert!(json(mancala_wasm::restore(&s))["error"].is_string(), "{s}");
    }
    // A refused snapshot leaves the game as it was.
    assert_eq!(json(mancala_wasm::state(&id)), state);
}
