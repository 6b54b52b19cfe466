//! The analysis board's endpoint (`POST /api/analysis`): every legal move valued, checked
//! against a brute-force minimax on small positions, misère values the right way round, the
//! best line in notation, and clear 400s for bad requests.

mod common;

use common::{test_config, Client, Server};
use mancala_core::{Position, Side};
use serde_json::{json, Value};

/// The final margin of `me` with perfect play from `p`, by plain minimax (no engine code):
/// the player to move takes the best margin for himself, fewer seeds best in misère games.
fn minimax(p: &Position, me: Side) -> i32 {
    if p.is_over() {
        let s = p.scores();
        return s[me.index()] as i32 - s[me.other().index()] as i32;
    }
    let mover = p.to_move();
    let good = |m: i32| {
        let m = if mover == me { m } else { -m };
        if p.rules().misere() {
            -m
        } else {
            m
        }
    };
    p.legal_moves()
        .as_slice()
        .iter()
        .map(|&pit| {
            let mut c = *p;
            c.play(pit).unwrap();
            minimax(&c, me)
        })
        .max_by_key(|&m| good(m))
        .unwrap()
}

/// Each move's proven value from the mover's view, by minimax.
fn truth(pos: &str) -> Vec<(u64, i64)> {
    let p: Position = pos.parse().unwrap();
    p.legal_moves()
        .as_slice()
        .iter()
        .map(|&pit| {
            let mut c = p;
            c.play(pit).unwrap();
            (u64::from(pit) + 1, i64::from(minimax(&c, p.to_move())))
        })
        .collect()
}

async fn analyse(c: &Client, pos: &str) -> Value {
    c.post("/api/analysis", json!({ "position": pos }), None)
        .await
        .ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_move_is_valued_as_minimax_proves_it() {
    let s = Server::start(test_config()).await;
    let c = Client::new(&s.base);

    // A Kalah endgame, North to move: every proof is instant.
    let pos = "kalah/1-0-2-0-0-1/14/0-3-0-1-0-2/12/n";
    let a = analyse(&c, pos).await;
    assert_eq!(a["board"]["position"], pos);
    assert_eq!(a["tables"], false);
    let mut want = truth(pos);
    let moves = a["moves"].as_array().unwrap();
    assert_eq!(moves.len(), want.len());
    let mut got: Vec<(u64, i64)> = moves
        .iter()
        .map(|m| {
            assert_eq!(m["eval"]["proven"], true, "{m}");
            assert_eq!(m["eval"]["side"], "north");
            (
                m["pit"].as_u64().unwrap(),
                m["eval"]["margin"].as_i64().unwrap(),
            )
        })
        .collect();
    // Best first, and the best move's loss is 0.
    assert!(got.windows(2).all(|w| w[0].1 >= w[1].1), "{got:?}");
    assert_eq!(moves[0]["loss"], 0);
    assert_eq!(a["best"], moves[0]["pit"]);
    let top = got[0].1;
    for m in moves {
        assert_eq!(
            m["loss"].as_i64().unwrap(),
            top - m["eval"]["margin"].as_i64().unwrap()
        );
    }
    got.sort();
    want.sort();
    assert_eq!(got, want);
    // The best line starts with the best move, in the game's notation (North: lower case).
    let line = a["line_text"].as_str().unwrap();
    assert!(
        line.starts_with(moves[0]["text"].as_str().unwrap()),
        "{line}"
    );
    assert_eq!(a["line"][0], a["best"]);

    // Dracala, fewer seeds win: the best move is the one of the lowest margin.
    let pos = "dracala/3-2-0-0-1-0/31/0-0-0-3-0-0/32/s";
    let a = analyse(&c, pos).await;
    let moves = a["moves"].as_array().unwrap();
    let mut want = truth(pos);
    let margins: Vec<i64> = moves
        .iter()
        .map(|m| {
            assert_eq!(m["eval"]["lower_is_better"], true);
            assert_eq!(m["eval"]["proven"], true);
            assert_eq!(
                m["eval"]["score"].as_i64().unwrap(),
                -m["eval"]["margin"].as_i64().unwrap()
            );
            m["eval"]["margin"].as_i64().unwrap()
        })
        .collect();
    assert!(margins.windows(2).all(|w| w[0] <= w[1]), "{margins:?}");
    assert!(margins[0] < margins[margins.len() - 1], "{margins:?}");
    let mut got: Vec<(u64, i64)> = moves
        .iter()
        .map(|m| {
            (
                m["pit"].as_u64().unwrap(),
                m["eval"]["margin"].as_i64().unwrap(),
            )
        })
        .collect();
    got.sort();
    want.sort();
    assert_eq!(got, want);
    assert!(moves[0]["eval"]["text"]
        .as_str()
        .unwrap()
        .contains("fewer seeds win"));
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_are_refused_clearly() {
    let s = Server::start(test_config()).await;
    let c = Client::new(&s.base);
    let post = |body: Value| {
        let c = &c;
        async move { c.post("/api/analysis", body, None).await }
    };
    post(json!({"position": "chess/1/2"}))
        .await
        .err(400, "position:");
    post(json!({"position": ""})).await.err(400, "position:");
    post(json!({"position": "kalah/0-0-0-0-0-0/18/0-0-0-0-0-0/18/s"}))
        .await
        .err(400, "over");
    // A move that ends the game leads to a finished position, shown with no moves.
    let a = post(json!({"position": "kalah/0-0-0-0-0-1/17/0-0-0-0-0-1/17/s"}))
        .await
        .ok();
    assert_eq!(a["moves"].as_array().unwrap().len(), 1);
    assert_eq!(a["moves"][0]["eval"]["margin"], 0);
    let after = a["moves"][0]["after"].as_str().unwrap().to_string();
    let end = post(json!({ "position": after })).await.ok();
    assert_eq!(end["moves"], json!([]));
    assert_eq!(end["best"], Value::Null);
    assert_eq!(end["board"]["to_move"], Value::Null);
    assert_eq!(end["board"]["stores"], json!([18, 18]));
    post(json!({"position": "kalah/3-3-3-3-3-3/0/3-3-3-3-3-3/0/s", "history": ["oware/4-4-4-4-4-4/0/4-4-4-4-4-4/0/s"]}))
        .await
        .err(400, "history[0]: rules oware differ");
    post(json!({"position": "kalah/3-3-3-3-3-3/0/3-3-3-3-3-3/0/s", "depth": 99}))
        .await
        .err(400, "depth");
    post(json!([1, 2])).await.err(400, "");
    let many = vec!["kalah/3-3-3-3-3-3/0/3-3-3-3-3-3/0/s"; 5000];
    let mut cfg_body = json!({"position": "kalah/3-3-3-3-3-3/0/3-3-3-3-3-3/0/s"});
    cfg_body["history"] = json!(many);
    post(cfg_body).await.err(400, "at most 4096");
    // The start of a large game: the answer comes within the server's time, with searched
    // values labelled by their depth.
    let t = std::time::Instant::now();
    let a = post(json!({"position": "kalah,pits=6,seeds=6/6-6-6-6-6-6/0/6-6-6-6-6-6/0/s"}))
        .await
        .ok();
    assert!(t.elapsed() < std::time::Duration::from_secs(20));
    let moves = a["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 6);
    for m in moves {
        let e = &m["eval"];
        assert!(
            e["proven"] == true || e["depth"].as_u64().unwrap() >= 1,
            "{e}"
        );
    }
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_endgame_tables_are_probed_when_given() {
    // Tables of Kalah up to 8 seeds on the board, built here.
    let dir = tempfile::tempdir().unwrap();
    let pos = "kalah/1-0-2-0-0-1/14/0-3-0-1-0-2/12/n";
    let p: Position = pos.parse().unwrap();
    let rules = mancala_egdb::TableRules::new(p.as_kalah().unwrap().rules()).unwrap();
    mancala_egdb::build::build(
        rules,
        &mancala_egdb::build::BuildOptions {
            dir: dir.path().to_path_buf(),
            max_seeds: 8,
            progress: false,
            memory_limit: None,
        },
    )
    .unwrap();
    let db = mancala_egdb::Egdb::open(dir.path()).unwrap();
    let mut cfg = test_config();
    cfg.tables = Some(mancala_server::Tables(std::sync::Arc::new(db)));
    let s = Server::start(cfg).await;
    let c = Client::new(&s.base);
    let a = analyse(&c, pos).await;
    assert_eq!(a["tables"], true);
    let mut got: Vec<(u64, i64)> = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            assert_eq!(m["eval"]["proven"], true);
            (
                m["pit"].as_u64().unwrap(),
                m["eval"]["margin"].as_i64().unwrap(),
            )
        })
        .collect();
    got.sort();
    let mut want = truth(pos);
    want.sort();
    assert_eq!(got, want);
    s.stop().await;
}
