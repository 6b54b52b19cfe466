//! Accounts and ratings over HTTP: sign-up, sessions, a rated game between two accounts and
//! the Glicko-2 ratings it gives, the Origin checks, the login limits, names shown as data, and
//! a password that never leaves the server.

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

use common::{next_json, test_config, Answer, Browser, Server};
use serde_json::{json, Value};
use skillratings::glicko2::{glicko2, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

fn rating(v: &Value) -> Glicko2Rating {
    Glicko2Rating {
        rating: v["rating"].as_f64().unwrap(),
        deviation: v["deviation"].as_f64().unwrap(),
        volatility: v["volatility"].as_f64().unwrap(),
    }
}

/// Two accounts play a rated game to its end: both ratings change exactly as Glicko-2 computes
/// from 1500/350/0.06 and the result, once; the other account's cookie cannot play a seat's
/// move; each profile shows the game from its own side; the leaderboard ranks them.
#[tokio::test]
async fn a_rated_game_changes_both_ratings_as_glicko2_says() {
    let server = Server::start(test_config()).await;
    let mut ann = Browser::new(&server.base);
    let mut bob = Browser::new(&server.base);
    let mut carol = Browser::new(&server.base);
    assert_eq!(ann.signup("Ann", "ann's secret 1").await.status, 201);
    assert_eq!(bob.signup("bob_2", "bob's secret 2").await.status, 201);
    assert_eq!(carol.signup("carol", "carol's secret").await.status, 201);
    assert_eq!(ann.get("/api/account").await.json()["name"], "Ann");

    let created = ann
        .post(
            "/api/account/games",
            json!({"rules": "kalah", "side": "south"}),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
    let c = created.json();
    assert_eq!(c["rated"], true);
    assert_eq!(c["preset"], "kalah");
    assert!(c.get("token").is_none(), "an account's seat has no token");
    let id = c["game"]["id"].as_str().unwrap().to_string();
    let invite = c["invite"].as_str().unwrap().to_string();
    // A guest cannot take a rated game's seat with the invitation.
    let mut guest = Browser::new(&server.base);
    let g = guest
        .post(&format!("/api/games/{id}/join"), json!({"invite": invite}))
        .await;
    assert_eq!(
        (g.status, g.key().as_str()),
        (409, "server.account.rated-join")
    );
    let j = bob
        .post(
            &format!("/api/account/games/{id}/join"),
            json!({"invite": invite}),
        )
        .await;
    assert_eq!(j.status, 200, "{}", j.text);
    assert_eq!(j.json()["seat"], "north");
    assert_eq!(
        ann.get(&format!("/api/games/{id}")).await.json()["you"],
        "south"
    );

    let mut refused = 0;
    loop {
        let state = guest.get(&format!("/api/games/{id}")).await.json();
        if state["over"] == true {
            break;
        }
        let pit = state["legal"][0].as_u64().unwrap();
        let (mover, other) = if state["to_move"] == "south" {
            (&mut ann, &mut bob)
        } else {
            (&mut bob, &mut ann)
        };
        let path = format!("/api/games/{id}/moves");
        // The seat's move is refused with the other account's cookie, with a third account's,
        // and with none.
        if refused < 2 {
            let r = other.post(&path, json!({"pit": pit})).await;
            assert_eq!(r.status, 409, "{}", r.text);
            assert_eq!(r.key(), "server.not-your-turn");
            let r = carol.post(&path, json!({"pit": pit})).await;
            assert_eq!(
                (r.status, r.key().as_str()),
                (403, "server.account.no-seat")
            );
            let r = guest.post(&path, json!({"pit": pit})).await;
            assert_eq!(r.status, 401, "{}", r.text);
            refused += 1;
        }
        let r = mover.post(&path, json!({"pit": pit})).await;
        assert_eq!(r.status, 200, "{}", r.text);
    }
    let end = guest.get(&format!("/api/games/{id}")).await.json();
    let winner = end["result"]["winner"].as_str().map(str::to_string);
    let outcome = match winner.as_deref() {
        Some("south") => Outcomes::WIN,
        Some("north") => Outcomes::LOSS,
        _ => Outcomes::DRAW,
    };
    let (want_ann, want_bob) = glicko2(
        &Glicko2Rating::new(),
        &Glicko2Rating::new(),
        &outcome,
        &Glicko2Config::new(),
    );
    // Settled once: nothing more changes a finished game.
    assert_eq!(
        ann.post(&format!("/api/games/{id}/resign"), json!({}))
            .await
            .status,
        409
    );

    let pa = ann.get("/api/users/ann?preset=kalah").await.json();
    let pb = bob.get("/api/users/BOB_2").await.json();
    assert_eq!(pa["name"], "Ann");
    assert_eq!(pb["name"], "bob_2");
    assert_eq!(pa["higher_is_better"], true);
    for (p, want) in [(&pa, want_ann), (&pb, want_bob)] {
        let r = &p["ratings"][0];
        assert_eq!(r["preset"], "kalah");
        assert_eq!(r["games"], 1);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        let got = rating(r);
        assert!(
            close(got.rating, want.rating)
                && close(got.deviation, want.deviation)
                && close(got.volatility, want.volatility),
            "{got:?} is not Glicko-2's {want:?}"
        );
        assert_eq!(r["provisional"], want.deviation > 110.0);
        assert_eq!(p["history"].as_array().unwrap().len(), 1);
        let h = &p["history"][0];
        assert!(close(h["rating"].as_f64().unwrap(), want.rating));
        assert!(close(h["deviation"].as_f64().unwrap(), want.deviation));
        assert_eq!(h["game"], id.as_str());
    }
    assert_ne!(want_ann.rating, 1500.0, "a decisive game moves the ratings");
    let side_result = |p: &Value| p["games"][0]["result"].as_str().unwrap().to_string();
    match winner.as_deref() {
        Some("south") => assert_eq!(
            (side_result(&pa), side_result(&pb)),
            ("win".into(), "loss".into())
        ),
        Some("north") => assert_eq!(
            (side_result(&pa), side_result(&pb)),
            ("loss".into(), "win".into())
        ),
        _ => assert_eq!(
            (side_result(&pa), side_result(&pb)),
            ("draw".into(), "draw".into())
        ),
    }
    assert_eq!(pa["games"][0]["opponent"], "bob_2");
    assert_eq!(pa["games"][0]["side"], "south");
    assert_eq!(pb["games"][0]["side"], "north");
    // Filtered by another rule set, the profile has no games.
    let other = ann.get("/api/users/ann?preset=oware").await.json();
    assert_eq!(other["games"], json!([]));
    assert_eq!(other["history"], json!([]));

    let board = guest.get("/api/leaderboard?preset=kalah").await.json();
    let players = board["players"].as_array().unwrap();
    assert_eq!(players.len(), 2, "{board}");
    assert!(players[0]["rating"].as_f64() >= players[1]["rating"].as_f64());
    assert_eq!(players[0]["rank"], 1);
    assert_eq!(board["higher_is_better"], true);
    let bad = guest.get("/api/leaderboard?preset=nonsense").await;
    assert_eq!(bad.status, 400);
    server.stop().await;
}

/// A casual game between accounts changes no rating but is in both profiles with its result.
#[tokio::test]
async fn a_casual_game_changes_no_rating() {
    let server = Server::start(test_config()).await;
    let mut ann = Browser::new(&server.base);
    let mut bob = Browser::new(&server.base);
    ann.signup("ann", "password-a").await;
    bob.signup("bob", "password-b").await;
    let c = ann
        .post(
            "/api/account/games",
            json!({"rules": "kalah", "options": {"seeds": 4}, "rated": false}),
        )
        .await
        .json();
    assert_eq!(c["preset"], "kalah,seeds=4");
    let id = c["game"]["id"].as_str().unwrap().to_string();
    let j = bob
        .post(
            &format!("/api/account/games/{id}/join"),
            json!({"invite": c["invite"]}),
        )
        .await;
    assert_eq!(j.json()["rated"], false);
    // Joining your own game is refused.
    let again = ann
        .post(
            &format!("/api/account/games/{id}/join"),
            json!({"invite": "x"}),
        )
        .await;
    assert_eq!(again.key(), "server.account.self");
    let r = bob
        .post(&format!("/api/games/{id}/resign"), json!({}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    let pa = ann.get("/api/users/ann").await.json();
    assert_eq!(pa["ratings"], json!([]));
    assert_eq!(pa["games"][0]["result"], "win");
    assert_eq!(pa["games"][0]["rated"], false);
    let pb = bob.get("/api/users/bob").await.json();
    assert_eq!(pb["games"][0]["result"], "loss");
    server.stop().await;
}

/// Every state-changing request with a session, and every account request, needs this site's
/// Origin; a foreign Origin is refused everywhere. Guests' API clients (no cookie, no Origin)
/// go on as before. Behind TLS the cookie is `Secure` and only https origins pass.
#[tokio::test]
async fn requests_from_other_sites_are_refused() {
    let server = Server::start(test_config()).await;
    let mut ann = Browser::new(&server.base);
    let s = ann.signup("ann", "password-a").await;
    let cookie = s.headers["set-cookie"].to_str().unwrap().to_string();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    assert!(!cookie.contains("Secure"));
    let c = ann.post("/api/account/games", json!({})).await.json();
    let id = c["game"]["id"].as_str().unwrap().to_string();

    for origin in [None, Some("http://evil.example"), Some("null")] {
        ann.origin = origin.map(str::to_string);
        let want = if origin.is_some() {
            "server.account.cross-site"
        } else {
            "server.account.no-origin"
        };
        for (path, body) in [
            ("/api/account/games".to_string(), json!({})),
            (format!("/api/games/{id}/moves"), json!({"pit": 1})),
            (format!("/api/games/{id}/resign"), json!({})),
            ("/api/account/logout".to_string(), json!({})),
            ("/api/games".to_string(), json!({"opponent": "friend"})),
        ] {
            let r = ann.post(&path, body).await;
            assert_eq!(
                (r.status, r.key().as_str()),
                (403, want),
                "{path}: {}",
                r.text
            );
        }
        // A login without a cookie needs the Origin too.
        let mut fresh = Browser::new(&server.base);
        fresh.origin = origin.map(str::to_string);
        let r = fresh
            .post(
                "/api/account/login",
                json!({"name": "ann", "password": "password-a"}),
            )
            .await;
        assert_eq!((r.status, r.key().as_str()), (403, want));
    }
    // Reading needs no Origin; the session still works.
    ann.origin = None;
    assert_eq!(ann.get("/api/account").await.status, 200);
    let state = ann.get(&format!("/api/games/{id}")).await.json();
    assert_eq!(state["ply"], 0, "no refused move was played");
    // A guest's API client sends neither cookie nor Origin, and goes on as before.
    let mut client = Browser::new(&server.base);
    client.origin = None;
    let g = client.post("/api/games", json!({"level": 1})).await;
    assert_eq!(g.status, 201, "{}", g.text);
    server.stop().await;

    let server = Server::start(mancala_server::Config {
        behind_tls: true,
        ..test_config()
    })
    .await;
    let mut ann = Browser::new(&server.base);
    let r = ann.signup("ann", "password-a").await;
    assert_eq!(
        r.key(),
        "server.account.cross-site",
        "http origin behind TLS"
    );
    ann.origin = Some(server.base.replace("http://", "https://"));
    let r = ann.signup("ann", "password-a").await;
    assert_eq!(r.status, 201, "{}", r.text);
    assert!(r.headers["set-cookie"]
        .to_str()
        .unwrap()
        .ends_with("; Secure"));
    server.stop().await;
}

/// Five failed logins hold the account, even for its right password, with `Retry-After`;
/// an unknown name and a wrong password get the same answer; another account from the same
/// address is not held until the address's own limit.
#[tokio::test]
async fn the_login_limit_holds() {
    let server = Server::start(test_config()).await;
    let mut ann = Browser::new(&server.base);
    ann.signup("ann", "right password").await;
    let mut bob = Browser::new(&server.base);
    bob.signup("bob", "bob password").await;
    let mut b = Browser::new(&server.base);
    let login = |name: &str, password: &str| json!({"name": name, "password": password});
    let unknown = b
        .post("/api/account/login", login("nobody", "whatever1"))
        .await;
    let wrong = b
        .post("/api/account/login", login("ann", "wrong one"))
        .await;
    assert_eq!((unknown.status, wrong.status), (401, 401));
    assert_eq!(unknown.text, wrong.text, "one answer for both");
    for _ in 1..accounts_limit() {
        let r = b
            .post("/api/account/login", login("ANN", "wrong again"))
            .await;
        assert_eq!(r.status, 401);
    }
    let held = b
        .post("/api/account/login", login("ann", "right password"))
        .await;
    assert_eq!(held.status, 429, "{}", held.text);
    assert_eq!(held.key(), "server.account.too-many-logins");
    let secs: u64 = held.headers["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((800..=900).contains(&secs), "{secs}");
    assert!(b.cookie.is_none());
    // Another account is not held by ann's failures.
    let r = b
        .post("/api/account/login", login("bob", "bob password"))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    // The address is held once it has failed 20 times in all.
    for k in 0..(20 - accounts_limit() - 1) {
        let r = b
            .post("/api/account/login", login(&format!("x{k}"), "nope nope"))
            .await;
        assert_eq!(r.status, 401);
    }
    let r = b
        .post("/api/account/login", login("bob", "bob password"))
        .await;
    assert_eq!(r.status, 429, "{}", r.text);
    server.stop().await;
}

fn accounts_limit() -> usize {
    mancala_server::accounts::LOGIN_FAILURES_PER_ACCOUNT
}

/// A name with markup is refused as an account name, and a guest's display name with markup
/// comes back as the same JSON string (data, never markup); a profile of a name no account
/// could have is not quoted back.
#[tokio::test]
async fn names_with_markup() {
    let server = Server::start(test_config()).await;
    let mut b = Browser::new(&server.base);
    let markup = "<img src=x onerror=alert(1)>";
    let r = b.signup(markup, "password-a").await;
    assert_eq!(
        (r.status, r.key().as_str()),
        (400, "server.account.name-chars")
    );
    assert!(!r.text.contains('<'), "{}", r.text);
    let r = b.signup("a", "password-a").await;
    assert_eq!(r.key(), "server.account.name-length");
    let r = b.signup("ann", "short").await;
    assert_eq!(r.key(), "server.account.password-short");
    b.signup("Ann", "password-a").await;
    let mut c = Browser::new(&server.base);
    let r = c.signup("aNN", "password-b").await;
    assert_eq!((r.status, r.key().as_str()), (409, "server.account.taken"));
    let r = c.get("/api/users/%3Cb%3Ex%3C%2Fb%3E").await;
    assert_eq!(r.status, 404);
    assert!(!r.text.contains("<b>"), "{}", r.text);
    let g = c
        .post(
            "/api/games",
            json!({"opponent": "friend", "name": "<b>x</b>"}),
        )
        .await
        .json();
    assert_eq!(g["game"]["players"]["south"]["name"], "<b>x</b>");
    server.stop().await;
}

/// `mancala user add|reset-password|disable` (the server crate's function): an account made
/// there logs in; a new password ends the old sessions; a disabled account cannot log in.
#[tokio::test]
async fn the_user_command() {
    use mancala_server::accounts::UserAction;
    let server = Server::start(test_config()).await;
    let db = server.db.clone();
    // The command blocks (as it does in the `mancala` binary): off the runtime's threads,
    // on a store of its own beside the server's.
    let user_command = |db: &str, a: UserAction, name: &str, pw: Option<&str>| {
        let (db, name, pw) = (db.to_string(), name.to_string(), pw.map(str::to_string));
        std::thread::spawn(move || {
            let store = mancala_server::Store::connect(&db)?;
            mancala_server::accounts::user_command(&store, a, &name, pw.as_deref())
        })
        .join()
        .unwrap()
    };
    let out = user_command(&db, UserAction::Add, "Dana", Some("dana password")).unwrap();
    assert_eq!(out, "account `Dana` made");
    let e = user_command(&db, UserAction::Add, "dana", Some("other password")).unwrap_err();
    assert_eq!(e.to_string(), "the name `dana` is taken");
    let mut b = Browser::new(&server.base);
    let login = |p: &str| json!({"name": "dana", "password": p});
    assert_eq!(
        b.post("/api/account/login", login("dana password"))
            .await
            .status,
        200
    );
    user_command(&db, UserAction::ResetPassword, "DANA", Some("new password")).unwrap();
    assert_eq!(
        b.get("/api/account").await.json()["name"],
        Value::Null,
        "the session ended"
    );
    assert_eq!(
        b.post("/api/account/login", login("dana password"))
            .await
            .status,
        401
    );
    assert_eq!(
        b.post("/api/account/login", login("new password"))
            .await
            .status,
        200
    );
    assert_eq!(b.get("/api/account").await.json()["name"], "Dana");
    user_command(&db, UserAction::Disable, "dana", None).unwrap();
    assert_eq!(b.get("/api/account").await.json()["name"], Value::Null);
    let r = b.post("/api/account/login", login("new password")).await;
    assert_eq!(
        (r.status, r.key().as_str()),
        (403, "server.account.disabled")
    );
    let e = user_command(&db, UserAction::Disable, "nobody", None).unwrap_err();
    assert_eq!(e.to_string(), "no account `nobody`");
    server.stop().await;
}

/// The server binary, its output captured: a password sent in sign-up, login (right and
/// wrong, and in malformed bodies) appears in no response body or header and in nothing the
/// server prints.
#[tokio::test]
async fn a_password_never_leaves_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let (out, err) = (dir.path().join("out.log"), dir.path().join("err.log"));
    let mut child = Command::new(common::bin())
        .args(["--addr", "127.0.0.1:0", "--rate-limit", "0", "--db"])
        .arg(common::fresh_db(dir.path()))
        .stdout(Stdio::from(std::fs::File::create(&out).unwrap()))
        .stderr(Stdio::from(std::fs::File::create(&err).unwrap()))
        .spawn()
        .unwrap();
    let mut base = String::new();
    for _ in 0..200 {
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        if let Some(addr) = text
            .strip_prefix("listening on ")
            .and_then(|l| l.split_whitespace().next())
        {
            base = addr.to_string();
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!base.is_empty(), "the server did not start");
    let secret = "Tr0ub4dor&3-unique-Pa55";
    let mut b = Browser::new(&base);
    let mut seen = Vec::new();
    let mut note = |a: Answer| {
        seen.push(format!("{:?}\n{}", a.headers, a.text));
        a
    };
    assert_eq!(note(b.signup("eve", secret).await).status, 201);
    note(b.signup("eve", secret).await);
    note(b.signup("x", secret).await);
    note(
        b.post(
            "/api/account/login",
            json!({"name": "eve", "password": secret}),
        )
        .await,
    );
    note(
        b.post(
            "/api/account/login",
            json!({"name": "eve", "password": format!("{secret}!")}),
        )
        .await,
    );
    note(
        b.post("/api/account/login", json!({"name": 7, "password": secret}))
            .await,
    );
    note(
        b.post(
            "/api/account/login",
            json!({"name": "eve", "password": secret, "x": 1}),
        )
        .await,
    );
    note(b.post("/api/account/login", json!([secret])).await);
    note(
        b.post(
            "/api/account/signup",
            json!({"name": secret, "password": 3}),
        )
        .await,
    );
    note(b.get("/api/account").await);
    note(b.get("/api/users/eve").await);
    note(b.post("/api/account/logout", json!({})).await);
    let pid = child.id().to_string();
    let _ = Command::new("kill").args(["-TERM", &pid]).status();
    let _ = child.wait();
    let printed = std::fs::read_to_string(&out).unwrap() + &std::fs::read_to_string(&err).unwrap();
    for s in &seen {
        assert!(!s.contains(secret), "a response holds the password: {s}");
    }
    assert!(
        !printed.contains(secret),
        "the server printed the password: {printed}"
    );
    assert!(seen.len() == 12);
}

/// The lobby: a seek posted by one account is shown live over the lobby's WebSocket; another
/// account accepts it, the game starts for both (the poster is told over the socket), and
/// the seek is gone. One's own seek cannot be accepted, a guest cannot accept, and a foreign
/// Origin cannot post.
#[tokio::test]
async fn a_seek_in_the_lobby_starts_a_game_for_both() {
    let server = Server::start(test_config()).await;
    let mut ann = Browser::new(&server.base);
    let mut bob = Browser::new(&server.base);
    ann.signup("ann", "password-a").await;
    bob.signup("bob", "password-b").await;
    let url = format!("ws://{}/api/lobby/ws", server.addr);
    let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
    assert_eq!(
        next_json(&mut ws).await,
        json!({"type": "seeks", "seeks": []})
    );

    let mut guest = Browser::new(&server.base);
    let r = guest.post("/api/lobby/seeks", json!({})).await;
    assert_eq!(
        (r.status, r.key().as_str()),
        (401, "server.account.no-session")
    );
    ann.origin = Some("http://evil.example".into());
    assert_eq!(ann.post("/api/lobby/seeks", json!({})).await.status, 403);
    ann.origin = Some(server.base.clone());
    let posted = ann
        .post(
            "/api/lobby/seeks",
            json!({"rules": "kalah", "options": {"seeds": 4}, "side": "south", "rated": true}),
        )
        .await;
    assert_eq!(posted.status, 201, "{}", posted.text);
    let seek = posted.json()["seek"].clone();
    assert_eq!(seek["name"], "ann");
    assert_eq!(seek["preset"], "kalah,seeds=4");
    let shown = next_json(&mut ws).await;
    assert_eq!(shown["seeks"], json!([seek]));
    assert_eq!(guest.get("/api/lobby").await.json()["seeks"], json!([seek]));

    let sid = seek["id"].as_str().unwrap();
    let path = format!("/api/lobby/seeks/{sid}/accept");
    let r = ann.post(&path, json!({})).await;
    assert_eq!((r.status, r.key().as_str()), (409, "server.account.self"));
    assert_eq!(guest.post(&path, json!({})).await.status, 401);
    let accepted = bob.post(&path, json!({})).await;
    assert_eq!(accepted.status, 201, "{}", accepted.text);
    let a = accepted.json();
    assert_eq!(a["seat"], "north");
    assert_eq!(a["rated"], true);
    let id = a["game"]["id"].as_str().unwrap().to_string();
    let started = next_json(&mut ws).await;
    assert_eq!(
        started,
        json!({"type": "started", "seek": sid, "game": id, "south": "ann", "north": "bob"})
    );
    assert_eq!(next_json(&mut ws).await["seeks"], json!([]));
    assert_eq!(bob.post(&path, json!({})).await.status, 404, "taken once");

    // Both play the game by their sessions.
    let state = ann.get(&format!("/api/games/{id}")).await.json();
    assert_eq!(state["you"], "south");
    assert_eq!(state["rules"]["name"], "kalah,seeds=4");
    let pit = state["legal"][0].clone();
    let r = ann
        .post(&format!("/api/games/{id}/moves"), json!({"pit": pit}))
        .await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(
        bob.get(&format!("/api/games/{id}")).await.json()["you"],
        "north"
    );

    // A new seek replaces the account's open one; withdrawing it empties the lobby.
    let one = ann
        .post("/api/lobby/seeks", json!({"rated": false}))
        .await
        .json();
    let two = ann.post("/api/lobby/seeks", json!({})).await.json();
    let list = guest.get("/api/lobby").await.json();
    assert_eq!(list["seeks"], json!([two["seek"]]));
    let gone = one["seek"]["id"].as_str().unwrap();
    assert_eq!(
        ann.send("DELETE", &format!("/api/lobby/seeks/{gone}"), None)
            .await
            .status,
        404
    );
    let open = two["seek"]["id"].as_str().unwrap();
    assert_eq!(
        bob.send("DELETE", &format!("/api/lobby/seeks/{open}"), None)
            .await
            .status,
        404
    );
    assert_eq!(
        ann.send("DELETE", &format!("/api/lobby/seeks/{open}"), None)
            .await
            .status,
        200
    );
    assert_eq!(guest.get("/api/lobby").await.json()["seeks"], json!([]));
    server.stop().await;
}

/// With `--trusted-proxy` the per-address login limit counts each client by the address the
/// proxy appended to `X-Forwarded-For` (as the rate limit does); without it, by the
/// connection's address, whatever the header says.
#[tokio::test]
async fn behind_a_proxy_clients_are_counted_apart() {
    for trusted in [true, false] {
        let proxies = if trusted {
            vec![mancala_server::client_addr::parse_proxy("127.0.0.1").unwrap()]
        } else {
            Vec::new()
        };
        let server = Server::start(mancala_server::Config {
            trusted_proxies: mancala_server::client_addr::TrustedProxies(proxies),
            ..test_config()
        })
        .await;
        let http = reqwest::Client::new();
        let via = |client: &'static str, name: String| {
            http.post(format!("{}/api/account/login", server.base))
                .header("origin", &server.base)
                .header("x-forwarded-for", client)
                .header("content-type", "application/json")
                .body(json!({"name": name, "password": "wrong password"}).to_string())
                .send()
        };
        for k in 0..mancala_server::accounts::LOGIN_FAILURES_PER_ADDRESS {
            let r = via("198.51.100.1", format!("u{k}")).await.unwrap();
            assert_eq!(r.status(), 401);
        }
        let same = via("198.51.100.1", "other".into()).await.unwrap();
        assert_eq!(same.status(), 429);
        let other = via("198.51.100.2", "other".into()).await.unwrap();
        assert_eq!(
            other.status(),
            if trusted { 401 } else { 429 },
            "trusted: {trusted}"
        );
        server.stop().await;
    }
}

/// The lobby's WebSocket of a signed-in browser (its session cookie).
async fn lobby_socket(
    server: &Server,
    b: &Browser,
) -> tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{}/api/lobby/ws", server.addr)
        .into_client_request()
        .unwrap();
    let cookie = format!("mancala_session={}", b.cookie.as_deref().unwrap());
    req.headers_mut().insert("cookie", cookie.parse().unwrap());
    tokio_tungstenite::connect_async(req).await.unwrap().0
}

/// The next message of `kind` on a lobby socket (others are skipped).
async fn next_of<S>(ws: &mut S, kind: &str) -> Value
where
    S: futures_util::Stream<
            Item = Result<
                tokio_tungstenite::tungstenite::Message,
                tokio_tungstenite::tungstenite::Error,
            >,
        > + Unpin,
{
    loop {
        let m = next_json(ws).await;
        if m["type"] == kind {
            return m;
        }
    }
}

/// Quick pairing: the first account to ask waits, the next in the same pool (rule set and
/// rated or casual) is matched with it and the game starts for both (the waiting one is told
/// over its lobby socket); a waiting account is matched once, never to two players, also when
/// two ask at the same moment; cancelling and closing the lobby socket leave the pool.
#[tokio::test]
async fn quick_pairing_matches_two_and_never_one_to_two() {
    let server = Server::start(test_config()).await;
    let mut b: Vec<Browser> = Vec::new();
    for name in ["ann", "bob", "cid", "dee", "eve", "fay"] {
        let mut x = Browser::new(&server.base);
        assert_eq!(
            x.signup(name, &format!("{name}-password")).await.status,
            201
        );
        b.push(x);
    }
    let mut guest = Browser::new(&server.base);
    let r = guest.post("/api/lobby/pool", json!({})).await;
    assert_eq!(r.status, 401, "{}", r.text);
    let mut ann_ws = lobby_socket(&server, &b[0]).await;
    let pool = json!({"rules": "kalah", "options": {"seeds": 4}, "rated": true});
    let r = b[0].post("/api/lobby/pool", pool.clone()).await;
    assert_eq!(r.status, 202, "{}", r.text);
    assert_eq!(
        r.json(),
        json!({"waiting": true, "pool": "kalah,seeds=4 rated", "preset": "kalah,seeds=4", "rated": true})
    );
    assert_eq!(b[0].get("/api/lobby/pool").await.json(), r.json());
    // Another pool (casual) does not meet Ann.
    let casual = json!({"rules": "kalah", "options": {"seeds": 4}, "rated": false});
    assert_eq!(b[2].post("/api/lobby/pool", casual).await.status, 202);
    let r = b[1].post("/api/lobby/pool", pool.clone()).await;
    assert_eq!(r.status, 201, "{}", r.text);
    let got = r.json();
    assert_eq!(got["opponent"], "ann");
    assert_eq!(
        (got["rated"].as_bool(), got["preset"].as_str()),
        (Some(true), Some("kalah,seeds=4"))
    );
    let id = got["game"]["id"].as_str().unwrap().to_string();
    let started = next_of(&mut ann_ws, "started").await;
    assert_eq!(started["pool"], "kalah,seeds=4 rated");
    assert_eq!(started["game"], id.as_str());
    let bob_seat = got["seat"].as_str().unwrap();
    assert_eq!(started[bob_seat], "bob");
    let ann_seat = if bob_seat == "south" {
        "north"
    } else {
        "south"
    };
    assert_eq!(started[ann_seat], "ann");
    assert_eq!(
        b[0].get(&format!("/api/games/{id}")).await.json()["you"],
        ann_seat
    );
    assert_eq!(
        b[1].get(&format!("/api/games/{id}")).await.json()["you"],
        bob_seat
    );
    assert_eq!(
        b[0].get("/api/lobby/pool").await.json(),
        json!({"waiting": false})
    );
    // Matched once: the next to ask waits.
    assert_eq!(b[3].post("/api/lobby/pool", pool.clone()).await.status, 202);
    // Two ask at once for Dee: one meets her, the other waits.
    let (mut eve, mut fay) = (b.remove(4), b.remove(4));
    let (re, rf) = tokio::join!(
        eve.post("/api/lobby/pool", pool.clone()),
        fay.post("/api/lobby/pool", pool.clone())
    );
    let mut statuses = [re.status, rf.status];
    statuses.sort();
    assert_eq!(statuses, [201, 202], "{} / {}", re.text, rf.text);
    let matched = if re.status == 201 {
        re.json()
    } else {
        rf.json()
    };
    assert_eq!(matched["opponent"], "dee");
    // The one left waiting leaves by cancelling.
    let waiter = if re.status == 202 { &mut eve } else { &mut fay };
    assert_eq!(waiter.get("/api/lobby/pool").await.json()["waiting"], true);
    assert_eq!(
        waiter.send("DELETE", "/api/lobby/pool", None).await.status,
        200
    );
    assert_eq!(waiter.get("/api/lobby/pool").await.json()["waiting"], false);
    // Ann waits again, then closes her lobby socket (leaves the page): she leaves the pool.
    assert_eq!(b[0].post("/api/lobby/pool", pool.clone()).await.status, 202);
    ann_ws.close(None).await.unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while b[0].get("/api/lobby/pool").await.json()["waiting"] == true {
        assert!(
            std::time::Instant::now() < deadline,
            "closing the socket left Ann waiting"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.stop().await;
}

/// A challenge to a named player: the challenged account sees it live on its lobby socket,
/// declines it (the challenger sees the decline), and accepts the next; the game starts for
/// both with the seat the challenger asked for, and is accepted once. Nobody else can accept
/// it; one cannot challenge oneself or a name no account has.
#[tokio::test]
async fn a_challenge_is_seen_live_declined_and_accepted() {
    let server = Server::start(test_config()).await;
    let (mut ann, mut bob, mut cid) = (
        Browser::new(&server.base),
        Browser::new(&server.base),
        Browser::new(&server.base),
    );
    ann.signup("ann", "password-a").await;
    bob.signup("Bob", "password-b").await;
    cid.signup("cid", "password-c").await;
    let mut ann_ws = lobby_socket(&server, &ann).await;
    let mut bob_ws = lobby_socket(&server, &bob).await;
    let none = json!({"type": "challenges", "incoming": [], "outgoing": []});
    assert_eq!(next_of(&mut ann_ws, "challenges").await, none);
    assert_eq!(next_of(&mut bob_ws, "challenges").await, none);

    let r = ann
        .post("/api/lobby/challenges", json!({"name": "nobody"}))
        .await;
    assert_eq!(
        (r.status, r.key().as_str()),
        (404, "server.account.no-user")
    );
    let r = ann
        .post("/api/lobby/challenges", json!({"name": "ANN"}))
        .await;
    assert_eq!(
        (r.status, r.key().as_str()),
        (409, "server.lobby.challenge-self")
    );
    let sent = ann
        .post(
            "/api/lobby/challenges",
            json!({"name": "bob", "rules": "kalah", "side": "north"}),
        )
        .await;
    assert_eq!(sent.status, 201, "{}", sent.text);
    let k = sent.json()["challenge"].clone();
    assert_eq!(
        (
            k["from"].as_str(),
            k["to"].as_str(),
            k["side"].as_str(),
            k["rated"].as_bool()
        ),
        (Some("ann"), Some("Bob"), Some("north"), Some(true))
    );
    let seen = next_of(&mut bob_ws, "challenges").await;
    assert_eq!(seen["incoming"], json!([k]));
    assert_eq!(
        next_of(&mut ann_ws, "challenges").await["outgoing"],
        json!([k])
    );
    let kid = k["id"].as_str().unwrap();
    // Only Bob answers it.
    let r = cid
        .post(&format!("/api/lobby/challenges/{kid}/accept"), json!({}))
        .await;
    assert_eq!(
        (r.status, r.key().as_str()),
        (404, "server.lobby.no-challenge")
    );
    let r = ann
        .post(&format!("/api/lobby/challenges/{kid}/decline"), json!({}))
        .await;
    assert_eq!(r.status, 404);
    assert_eq!(
        bob.post(&format!("/api/lobby/challenges/{kid}/decline"), json!({}))
            .await
            .status,
        200
    );
    let after = next_of(&mut ann_ws, "challenges").await;
    assert_eq!(after["outgoing"][0]["declined"], true, "{after}");
    assert_eq!(
        next_of(&mut bob_ws, "challenges").await["incoming"],
        json!([])
    );
    let r = bob
        .post(&format!("/api/lobby/challenges/{kid}/accept"), json!({}))
        .await;
    assert_eq!(r.status, 404, "a declined challenge is not accepted");
    // Ann dismisses it; a casual one of another rule set follows, and Bob accepts it.
    assert_eq!(
        ann.send("DELETE", &format!("/api/lobby/challenges/{kid}"), None)
            .await
            .status,
        200
    );
    assert_eq!(ann.get("/api/lobby/challenges").await.json(), none);
    let sent = ann
        .post(
            "/api/lobby/challenges",
            json!({"name": "bob", "rules": "kalah", "options": {"seeds": 4}, "side": "north", "rated": false}),
        )
        .await
        .json();
    let kid = sent["challenge"]["id"].as_str().unwrap().to_string();
    let incoming = bob.get("/api/lobby/challenges").await.json()["incoming"].clone();
    assert_eq!(incoming, json!([sent["challenge"]]));
    let path = format!("/api/lobby/challenges/{kid}/accept");
    let accepted = bob.post(&path, json!({})).await;
    assert_eq!(accepted.status, 201, "{}", accepted.text);
    let a = accepted.json();
    assert_eq!(
        (a["seat"].as_str(), a["rated"].as_bool()),
        (Some("south"), Some(false))
    );
    assert_eq!(a["preset"], "kalah,seeds=4");
    let id = a["game"]["id"].as_str().unwrap();
    let started =
        json!({"type": "started", "challenge": kid, "game": id, "south": "Bob", "north": "ann"});
    assert_eq!(next_of(&mut ann_ws, "started").await, started);
    assert_eq!(next_of(&mut bob_ws, "started").await, started);
    assert_eq!(
        bob.post(&path, json!({})).await.status,
        404,
        "accepted once"
    );
    assert_eq!(
        ann.get(&format!("/api/games/{id}")).await.json()["you"],
        "north"
    );
    server.stop().await;
}

/// An account's games, a page at a time, each from that player's side: the result, the
/// seeds of both stores as the game's own result gives them, the margin with its sign, how
/// it ended; filtered by rule set; the record of each downloads as text.
#[tokio::test]
async fn history_lists_each_game_from_each_side() {
    let server = Server::start(test_config()).await;
    let (mut ann, mut bob) = (Browser::new(&server.base), Browser::new(&server.base));
    ann.signup("ann", "password-a").await;
    bob.signup("bob", "password-b").await;
    let mut ids = Vec::new();
    for (rules, side) in [
        ("kalah,pits=4,seeds=2", "south"),
        ("kalah", "north"),
        ("kalah,pits=4,seeds=2", "south"),
    ] {
        let c = ann
            .post(
                "/api/account/games",
                json!({"rules": rules, "side": side, "rated": false}),
            )
            .await
            .json();
        let id = c["game"]["id"].as_str().unwrap().to_string();
        let j = bob
            .post(
                &format!("/api/account/games/{id}/join"),
                json!({"invite": c["invite"]}),
            )
            .await;
        assert_eq!(j.status, 200, "{}", j.text);
        ids.push(id);
    }
    // The first played to its end (pits in turn: the game ends with a margin), the second
    // resigned by Ann, the third goes on.
    let mut k = 0;
    let end = loop {
        let st = ann.get(&format!("/api/games/{}", ids[0])).await.json();
        if st["over"] == true {
            break st;
        }
        let legal = st["legal"].as_array().unwrap().clone();
        let mover = if st["you"] == st["to_move"] {
            &mut ann
        } else {
            &mut bob
        };
        let r = mover
            .post(
                &format!("/api/games/{}/moves", ids[0]),
                json!({"pit": legal[k % legal.len()]}),
            )
            .await;
        assert_eq!(r.status, 200, "{}", r.text);
        k += 1;
    };
    assert_eq!(
        ann.post(&format!("/api/games/{}/resign", ids[1]), json!({}))
            .await
            .status,
        200
    );
    let (south, north) = (
        end["result"]["south"].as_i64().unwrap(),
        end["result"]["north"].as_i64().unwrap(),
    );
    let winner = end["result"]["winner"].as_str();
    let all = |b: &Value| b["games"].as_array().unwrap().clone();
    let pa = ann.get("/api/users/ann/games").await.json();
    let pb = bob.get("/api/users/bob/games").await.json();
    let (ga, gb) = (all(&pa), all(&pb));
    assert_eq!(ga.len(), 3);
    assert_eq!(pa["next"], Value::Null);
    // Newest first.
    let order: Vec<&str> = ga.iter().map(|g| g["game"].as_str().unwrap()).collect();
    assert_eq!(order, [&ids[2], &ids[1], &ids[0]]);
    let (a0, b0) = (&ga[2], &gb[2]);
    assert_eq!(
        (a0["side"].as_str(), b0["side"].as_str()),
        (Some("south"), Some("north"))
    );
    assert_eq!(a0["seeds"], json!({"own": south, "opponent": north}));
    assert_eq!(b0["seeds"], json!({"own": north, "opponent": south}));
    assert_eq!(a0["margin"], south - north);
    assert_eq!(b0["margin"], north - south);
    assert_eq!(a0["ended_by"], "rules");
    assert_eq!(a0["fewer_seeds_win"], false);
    let (ra, rb) = match winner {
        Some("south") => ("win", "loss"),
        Some("north") => ("loss", "win"),
        _ => ("draw", "draw"),
    };
    assert_eq!(
        (a0["result"].as_str(), b0["result"].as_str()),
        (Some(ra), Some(rb))
    );
    // The winner's margin is positive, the loser's negative (more seeds win in Kalah).
    match ra {
        "win" => assert!(a0["margin"].as_i64().unwrap() > 0),
        "loss" => assert!(a0["margin"].as_i64().unwrap() < 0),
        _ => assert_eq!(a0["margin"], 0),
    }
    // Resigned by Ann (North): lost for her, won for Bob.
    assert_eq!(
        (ga[1]["result"].as_str(), gb[1]["result"].as_str()),
        (Some("loss"), Some("win"))
    );
    assert_eq!(
        (ga[1]["side"].as_str(), gb[1]["side"].as_str()),
        (Some("north"), Some("south"))
    );
    assert_eq!(ga[1]["ended_by"], "resignation");
    assert_eq!(ga[1]["opponent"], "bob");
    // Going on: no result, no seeds.
    assert_eq!(ga[0]["result"], Value::Null);
    assert_eq!(ga[0]["seeds"], Value::Null);
    // A page at a time.
    let mut seen = Vec::new();
    let mut next = String::new();
    loop {
        let p = bob
            .get(&format!("/api/users/ann/games?limit=2&before={next}"))
            .await
            .json();
        seen.extend(
            all(&p)
                .iter()
                .map(|g| g["game"].as_str().unwrap().to_string()),
        );
        match p["next"].as_str() {
            Some(n) => next = n.to_string(),
            None => break,
        }
    }
    assert_eq!(seen, [ids[2].clone(), ids[1].clone(), ids[0].clone()]);
    // Filtered by rule set.
    let f = ann.get("/api/users/ann/games?preset=kalah").await.json();
    assert_eq!(all(&f).len(), 1);
    assert_eq!(f["games"][0]["game"], ids[1].as_str());
    assert_eq!(f["preset"], "kalah");
    for bad in ["?limit=0", "?limit=101", "?before=x", "?preset=nonsense"] {
        let r = ann.get(&format!("/api/users/ann/games{bad}")).await;
        assert_eq!(r.status, 400, "{bad}: {}", r.text);
    }
    assert_eq!(ann.get("/api/users/nobody/games").await.status, 404);
    // The profile holds the first page.
    let profile = ann.get("/api/users/ann").await.json();
    assert_eq!(profile["games"], pa["games"]);
    assert_eq!(profile["games_next"], Value::Null);
    // The record of the finished game, as text.
    let text = ann
        .get(&format!("/api/games/{}/record?format=text", ids[0]))
        .await
        .text;
    assert!(text.contains("kalah,pits=4,seeds=2"), "{text}");
    assert!(text.contains(&format!("{south} : {north}")), "{text}");
    server.stop().await;
}
