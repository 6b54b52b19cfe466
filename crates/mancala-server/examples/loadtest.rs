//! Load test on loopback: N games at once for a bounded time.
//!
//!     cargo run --release -p mancala-server --example loadtest -- --games 50 --seconds 20 --level 5
//!     cargo run --release -p mancala-server --example loadtest -- --mode people --games 50 --watchers 200
//!
//! Starts a server in this process on 127.0.0.1 (a fresh database in a temporary folder, or
//! `--db` a SQLite file or `postgres://` address), unless `--url http://127.0.0.1:PORT` names
//! one already running (loopback only; `--server-pid PID`, repeatable, then reports each
//! server process's CPU time and memory).
//!
//! `--mode computer` (the default): each game watches its WebSocket, plays a random legal move
//! when it is South's turn and starts a new game when one ends. Prints moves a second and the
//! 50th/99th percentile latency of a human move's acknowledgement (POST to reply) and of the
//! computer's answer (acknowledgement to the state in which South is to move again).
//!
//! `--mode people`: two bots a game play random moves over HTTP as fast as they are
//! acknowledged (North through `--url2` where given: a second server on the same database),
//! and `--watchers M` WebSockets watch the games (every other one on `--url2`). Prints moves a
//! second, the moves' acknowledgement latency, and the latency from a move's request to each
//! watcher's copy of its state (the fan-out).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

struct Opts {
    games: usize,
    seconds: u64,
    level: u8,
    rules: String,
    url: Option<String>,
    url2: Option<String>,
    ai_time_ms: u64,
    people: bool,
    watchers: usize,
    db: Option<String>,
    pids: Vec<u32>,
}

fn opts() -> Result<Opts, String> {
    let mut o = Opts {
        games: 50,
        seconds: 20,
        level: 5,
        rules: "kalah,seeds=4".into(),
        url: None,
        url2: None,
        ai_time_ms: 2000,
        people: false,
        watchers: 0,
        db: None,
        pids: Vec::new(),
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let v = args
            .get(i + 1)
            .cloned()
            .ok_or(format!("{} needs a value", args[i]))?;
        match args[i].as_str() {
            "--games" => o.games = v.parse().map_err(|_| "--games: a number, 1-500")?,
            "--seconds" => o.seconds = v.parse().map_err(|_| "--seconds: a number, 1-300")?,
            "--level" => o.level = v.parse().map_err(|_| "--level: 1-8")?,
            "--rules" => o.rules = v,
            "--url" => o.url = Some(v),
            "--url2" => o.url2 = Some(v),
            "--db" => o.db = Some(v),
            "--server-pid" => o
                .pids
                .push(v.parse().map_err(|_| "--server-pid: a process id")?),
            "--watchers" => {
                o.watchers = v
                    .parse()
                    .ok()
                    .filter(|w| *w <= 5000)
                    .ok_or("--watchers: a number, 0-5000")?
            }
            "--mode" => {
                o.people = match v.as_str() {
                    "people" => true,
                    "computer" => false,
                    _ => return Err("--mode: people or computer".into()),
                }
            }
            "--ai-time-ms" => {
                o.ai_time_ms = v
                    .parse()
                    .ok()
                    .filter(|t| (1..=600_000).contains(t))
                    .ok_or("--ai-time-ms: a number, 1-600000")?
            }
            a => return Err(format!("unknown option {a}")),
        }
        i += 2;
    }
    if !(1..=500).contains(&o.games) || !(1..=300).contains(&o.seconds) {
        return Err("bounded: --games 1-500, --seconds 1-300".into());
    }
    for u in o.url.iter().chain(&o.url2) {
        let host = u.trim_start_matches("http://");
        if !(host.starts_with("127.") || host.starts_with("localhost") || host.starts_with("[::1]"))
        {
            return Err("--url and --url2 must be loopback addresses".into());
        }
    }
    if o.url2.is_some() && !o.people {
        return Err("--url2 is for --mode people".into());
    }
    Ok(o)
}

#[derive(Default)]
struct Stats {
    ack_ms: Vec<f64>,
    /// From a move's request to a watcher's copy of the state it made.
    watch_ms: Vec<f64>,
    ai_ms: Vec<f64>,
    human_moves: u64,
    ai_moves: u64,
    games_done: u64,
    errors: u64,
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let k = ((p / 100.0) * (v.len() - 1) as f64).round() as usize;
    v[k.min(v.len() - 1)]
}

/// A game's WebSocket.
type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A game of `--mode computer` just made: its id, South's token, its socket and its state.
struct Started {
    id: String,
    token: String,
    ws: Socket,
    state: Value,
}

/// Game slot `g` of `--mode computer`: a game against the computer after another, South
/// playing random moves, until the deadline.
async fn one_game_loop(
    http: reqwest::Client,
    base: String,
    o: Arc<Opts>,
    stats: Arc<Mutex<Stats>>,
    deadline: Instant,
    g: usize,
) {
    let mut rng = mancala_play::Rng::new(g as u64);
    while Instant::now() < deadline {
        let Some(game) = start_game(&http, &base, &o).await else {
            stats.lock().unwrap().errors += 1;
            return;
        };
        if !play_game(&http, &base, game, &stats, deadline, &mut rng).await {
            return;
        }
    }
}

/// Makes a game against the computer, South's, and opens its WebSocket.
async fn start_game(http: &reqwest::Client, base: &str, o: &Opts) -> Option<Started> {
    let created = http
        .post(format!("{base}/api/games"))
        .json(&json!({"rules": o.rules, "level": o.level, "side": "south"}))
        .send()
        .await
        .ok()?;
    let v: Value = created.json().await.ok()?;
    let id = v["game"]["id"].as_str().unwrap_or_default().to_string();
    let token = v["token"].as_str().unwrap_or_default().to_string();
    let ws_url = format!("{}/api/games/{id}/ws", base.replacen("http", "ws", 1));
    let (ws, _) = tokio_tungstenite::connect_async(&ws_url).await.ok()?;
    Some(Started {
        id,
        token,
        ws,
        state: v["game"].clone(),
    })
}

/// Plays `game` as South to its end, timing each move's acknowledgement and the computer's
/// answers. True where the slot goes on with another game; false where it stops (the
/// deadline passed, or the socket failed while the computer was timed).
async fn play_game(
    http: &reqwest::Client,
    base: &str,
    game: Started,
    stats: &Mutex<Stats>,
    deadline: Instant,
    rng: &mut mancala_play::Rng,
) -> bool {
    let Started {
        id,
        token,
        mut ws,
        mut state,
    } = game;
    let mut last_ply = state["ply"].as_u64().unwrap_or(0);
    loop {
        if Instant::now() >= deadline {
            return false;
        }
        if state["over"] == true {
            stats.lock().unwrap().games_done += 1;
            return true;
        }
        if state["to_move"] != "south" {
            // Wait for the computer's answer on the socket.
            match next_state(&mut ws, last_ply).await {
                Ok(Some(s)) => state = s,
                Ok(None) => {}
                Err(()) => {
                    stats.lock().unwrap().errors += 1;
                    return true;
                }
            }
            continue;
        }
        let Some((s, t_ack)) = south_moves(http, base, &id, &token, &state, stats, rng).await
        else {
            return true;
        };
        state = s;
        last_ply = state["ply"].as_u64().unwrap_or(last_ply);
        if state["over"] == true || state["to_move"] == "south" {
            continue; // an extra turn, or the end: no answer to time
        }
        match computer_answer(&mut ws, last_ply, t_ack, stats, deadline).await {
            Some((s, ply)) => {
                state = s;
                last_ply = ply;
            }
            None => return false,
        }
    }
}

/// The next state the socket sends: `Some` where it is of ply `last_ply` or later, `None`
/// for any other message; an error where the socket fails or is silent for 30 s.
async fn next_state(ws: &mut Socket, last_ply: u64) -> Result<Option<Value>, ()> {
    let msg = tokio::time::timeout(Duration::from_secs(30), ws.next()).await;
    match msg {
        Ok(Some(Ok(Message::Text(t)))) => Ok(serde_json::from_str::<Value>(t.as_str())
            .ok()
            .filter(|m| m["game"]["ply"].as_u64().unwrap_or(0) >= last_ply)
            .map(|m| m["game"].clone())),
        Ok(Some(Ok(_))) => Ok(None),
        _ => Err(()),
    }
}

/// South plays a random legal move of `state`: the state answered and when, its
/// acknowledgement timed. `None` where there is no move or the request failed.
async fn south_moves(
    http: &reqwest::Client,
    base: &str,
    id: &str,
    token: &str,
    state: &Value,
    stats: &Mutex<Stats>,
    rng: &mut mancala_play::Rng,
) -> Option<(Value, Instant)> {
    let legal: Vec<u64> = state["legal"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_u64()).collect())
        .unwrap_or_default();
    if legal.is_empty() {
        return None;
    }
    let pit = rng.pick(&legal);
    let t0 = Instant::now();
    let r = http
        .post(format!("{base}/api/games/{id}/moves"))
        .bearer_auth(token)
        .json(&json!({"pit": pit}))
        .send()
        .await;
    let ack = t0.elapsed();
    let Ok(r) = r else {
        stats.lock().unwrap().errors += 1;
        return None;
    };
    if !r.status().is_success() {
        stats.lock().unwrap().errors += 1;
        return None;
    }
    let s = r.json::<Value>().await.ok()?;
    let t_ack = Instant::now();
    let mut st = stats.lock().unwrap();
    st.ack_ms.push(ack.as_secs_f64() * 1000.0);
    st.human_moves += 1;
    Some((s, t_ack))
}

/// Times the computer's answer to South's move acknowledged at `t_ack`: until South is to
/// move again or the game ends, after ply `before`. Answers that state and its ply; `None`
/// where the socket fails or is silent for 30 s.
async fn computer_answer(
    ws: &mut Socket,
    before: u64,
    t_ack: Instant,
    stats: &Mutex<Stats>,
    deadline: Instant,
) -> Option<(Value, u64)> {
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(30), ws.next()).await;
        let Ok(Some(Ok(Message::Text(t)))) = msg else {
            if Instant::now() < deadline {
                stats.lock().unwrap().errors += 1;
            }
            return None;
        };
        let Ok(m) = serde_json::from_str::<Value>(t.as_str()) else {
            continue;
        };
        let g = &m["game"];
        let ply = g["ply"].as_u64().unwrap_or(0);
        if ply > before && (g["to_move"] == "south" || g["over"] == true) {
            let mut st = stats.lock().unwrap();
            st.ai_ms.push(t_ack.elapsed().as_secs_f64() * 1000.0);
            st.ai_moves += ply - before;
            return Some((g.clone(), ply));
        }
    }
}

/// When each move of each game was requested: (game, ply after it) -> instant.
type Sent = Arc<Mutex<std::collections::HashMap<(String, u64), Instant>>>;

async fn post(
    http: &reqwest::Client,
    url: String,
    body: Value,
    token: Option<&str>,
) -> Option<Value> {
    let mut rb = http.post(url).json(&body);
    if let Some(t) = token {
        rb = rb.bearer_auth(t);
    }
    let r = rb.send().await.ok()?;
    if !r.status().is_success() {
        return None;
    }
    r.json().await.ok()
}

/// Game slot `g` of `--mode people`: a game between two bots after another, South on `a`,
/// North on `b`; publishes each game's id to the slot's watchers.
#[allow(clippy::too_many_arguments)]
async fn people_loop(
    http: reqwest::Client,
    (a, b): (String, String),
    o: Arc<Opts>,
    stats: Arc<Mutex<Stats>>,
    sent: Sent,
    ids: tokio::sync::watch::Sender<String>,
    deadline: Instant,
    g: usize,
) {
    let mut rng = mancala_play::Rng::new(g as u64 + 1);
    let fail = || stats.lock().unwrap().errors += 1;
    while Instant::now() < deadline {
        let Some(v) = post(
            &http,
            format!("{a}/api/games"),
            json!({"rules": o.rules, "opponent": "friend"}),
            None,
        )
        .await
        else {
            return fail();
        };
        let id = v["game"]["id"].as_str().unwrap_or_default().to_string();
        let south = v["token"].as_str().unwrap_or_default().to_string();
        let invite = v["invite"].as_str().unwrap_or_default();
        let Some(j) = post(
            &http,
            format!("{b}/api/games/{id}/join"),
            json!({"invite": invite}),
            None,
        )
        .await
        else {
            return fail();
        };
        let north = j["token"].as_str().unwrap_or_default().to_string();
        let _ = ids.send(id.clone());
        let mut state = j["game"].clone();
        while Instant::now() < deadline && state["over"] != true {
            let (base, token) = if state["to_move"] == "south" {
                (&a, &south)
            } else {
                (&b, &north)
            };
            let legal: Vec<u64> = state["legal"]
                .as_array()
                .map(|l| l.iter().filter_map(Value::as_u64).collect())
                .unwrap_or_default();
            if legal.is_empty() {
                break;
            }
            let ply = state["ply"].as_u64().unwrap_or(0);
            let t0 = Instant::now();
            sent.lock().unwrap().insert((id.clone(), ply + 1), t0);
            let body = json!({"pit": rng.pick(&legal), "ply": ply});
            let Some(next) = post(
                &http,
                format!("{base}/api/games/{id}/moves"),
                body,
                Some(token),
            )
            .await
            else {
                fail();
                break;
            };
            let mut st = stats.lock().unwrap();
            st.ack_ms.push(t0.elapsed().as_secs_f64() * 1000.0);
            st.human_moves += 1;
            state = next;
        }
        if state["over"] == true {
            stats.lock().unwrap().games_done += 1;
        }
    }
}

/// A watcher of one game slot: follows each of its games over a WebSocket on `base` and
/// times every state it is sent against the move's request.
async fn watcher(
    base: String,
    mut ids: tokio::sync::watch::Receiver<String>,
    stats: Arc<Mutex<Stats>>,
    sent: Sent,
    deadline: Instant,
) {
    let ws_base = base.replacen("http", "ws", 1);
    while Instant::now() < deadline {
        let id = ids.borrow_and_update().clone();
        if id.is_empty() {
            if ids.changed().await.is_err() {
                return;
            }
            continue;
        }
        let Ok((mut ws, _)) =
            tokio_tungstenite::connect_async(format!("{ws_base}/api/games/{id}/ws")).await
        else {
            stats.lock().unwrap().errors += 1;
            return;
        };
        loop {
            tokio::select! {
                m = ws.next() => {
                    let Some(Ok(Message::Text(t))) = m else { break };
                    let now = Instant::now();
                    let Ok(m) = serde_json::from_str::<Value>(t.as_str()) else { continue };
                    let ply = m["game"]["ply"].as_u64().unwrap_or(0);
                    if let Some(t0) = sent.lock().unwrap().get(&(id.clone(), ply)) {
                        stats.lock().unwrap().watch_ms.push(now.duration_since(*t0).as_secs_f64() * 1000.0);
                    }
                }
                c = ids.changed() => { if c.is_err() { return } break }
                _ = tokio::time::sleep_until(deadline.into()) => return,
            }
        }
    }
}

/// A process's CPU time in seconds (user + system) and resident memory in MiB, from /proc.
fn proc_usage(pid: u32) -> Option<(f64, f64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let f: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let rss_kb: f64 = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some((ticks / 100.0, rss_kb / 1024.0))
}

fn main() {
    let o = match opts() {
        Ok(o) => Arc::new(o),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(run(o));
}

/// Runs the load test of `o` and prints what it measured.
async fn run(o: Arc<Opts>) {
    let dir = tempfile::tempdir().unwrap();
    let (base, stop) = match &o.url {
        Some(u) => (u.trim_end_matches('/').to_string(), None),
        None => start_server(&o, dir.path()).await,
    };
    let base2 = o
        .url2
        .clone()
        .map_or(base.clone(), |u| u.trim_end_matches('/').to_string());
    print_plan(&o, &base, &base2);
    let usage0: Vec<_> = o.pids.iter().map(|&p| proc_usage(p)).collect();
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(o.games)
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let stats = Arc::new(Mutex::new(Stats::default()));
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_secs(o.seconds);
    let tasks = spawn_slots(&o, &http, (&base, &base2), &stats, deadline);
    for t in tasks {
        let _ = tokio::time::timeout(Duration::from_secs(o.seconds + 40), t).await;
    }
    let secs = t0.elapsed().as_secs_f64();
    report(&o, &mut stats.lock().unwrap(), secs, usage0);
    if let Some(s) = stop {
        let _ = s.send(());
    }
}

/// A server in this process on a free loopback port, its database `--db` or a fresh one in
/// `dir`: its address, and the sender that stops it.
async fn start_server(
    o: &Opts,
    dir: &std::path::Path,
) -> (String, Option<tokio::sync::oneshot::Sender<()>>) {
    let db =
        o.db.clone()
            .unwrap_or_else(|| dir.join("load.db").to_string_lossy().into_owned());
    let store = mancala_server::Store::connect(&db).unwrap();
    let cfg = mancala_server::Config {
        rate: 0.0,
        ai_time: Duration::from_millis(o.ai_time_ms),
        ..Default::default()
    };
    let app = Arc::new(mancala_server::App::new(store, cfg));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(mancala_server::serve_on(listener, app, async {
        let _ = rx.await;
    }));
    (format!("http://{addr}"), Some(tx))
}

/// Says what the test does, where, on how many cores.
fn print_plan(o: &Opts, base: &str, base2: &str) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if o.people {
        println!(
            "load test: {} games between bots ({}) and {} watchers for {} s on {base}{}, {cores} cores",
            o.games, o.rules, o.watchers, o.seconds,
            if base2 != base { format!(" and {base2}") } else { String::new() }
        );
    } else {
        println!(
            "load test: {} games against the computer (level {}, {}) for {} s on {base}, {cores} cores",
            o.games, o.level, o.rules, o.seconds
        );
    }
}

/// Starts the game slots (and, in `--mode people`, their watchers, every other one on the
/// second server).
fn spawn_slots(
    o: &Arc<Opts>,
    http: &reqwest::Client,
    (base, base2): (&str, &str),
    stats: &Arc<Mutex<Stats>>,
    deadline: Instant,
) -> Vec<tokio::task::JoinHandle<()>> {
    let sent: Sent = Default::default();
    let mut tasks = Vec::new();
    let mut slots = Vec::new();
    for g in 0..o.games {
        if o.people {
            let (tx, rx) = tokio::sync::watch::channel(String::new());
            slots.push(rx);
            tasks.push(tokio::spawn(people_loop(
                http.clone(),
                (base.to_string(), base2.to_string()),
                o.clone(),
                stats.clone(),
                sent.clone(),
                tx,
                deadline,
                g,
            )));
        } else {
            tasks.push(tokio::spawn(one_game_loop(
                http.clone(),
                base.to_string(),
                o.clone(),
                stats.clone(),
                deadline,
                g,
            )));
        }
    }
    for w in 0..if o.people { o.watchers } else { 0 } {
        let b = if w % 2 == 0 { base } else { base2 };
        tasks.push(tokio::spawn(watcher(
            b.to_string(),
            slots[w % slots.len()].clone(),
            stats.clone(),
            sent.clone(),
            deadline,
        )));
    }
    tasks
}

/// Prints the moves made, the latencies' percentiles and each server process's usage since
/// `usage0`, over `secs` seconds.
fn report(o: &Opts, st: &mut Stats, secs: f64, usage0: Vec<Option<(f64, f64)>>) {
    let total = st.human_moves + st.ai_moves;
    println!(
        "{:.1} s: {} moves ({} human, {} computer), {:.0} moves/s, {} games finished, {} errors",
        secs,
        total,
        st.human_moves,
        st.ai_moves,
        total as f64 / secs,
        st.games_done,
        st.errors
    );
    let (a50, a99, amax) = (
        pct(&mut st.ack_ms, 50.0),
        pct(&mut st.ack_ms, 99.0),
        pct(&mut st.ack_ms, 100.0),
    );
    let (c50, c99, cmax) = (
        pct(&mut st.ai_ms, 50.0),
        pct(&mut st.ai_ms, 99.0),
        pct(&mut st.ai_ms, 100.0),
    );
    println!(
        "human move acknowledged: p50 {a50:.1} ms, p99 {a99:.1} ms, max {amax:.1} ms ({} samples)",
        st.ack_ms.len()
    );
    if o.people {
        let (w50, w99, wmax) = (
            pct(&mut st.watch_ms, 50.0),
            pct(&mut st.watch_ms, 99.0),
            pct(&mut st.watch_ms, 100.0),
        );
        println!(
            "watchers' copies:        p50 {w50:.1} ms, p99 {w99:.1} ms, max {wmax:.1} ms ({} copies, {:.0} a second)",
            st.watch_ms.len(),
            st.watch_ms.len() as f64 / secs
        );
    } else {
        println!("computer's answer:       p50 {c50:.1} ms, p99 {c99:.1} ms, max {cmax:.1} ms ({} samples)", st.ai_ms.len());
    }
    for (pid, u0) in o.pids.iter().zip(usage0) {
        if let (Some((c0, _)), Some((c1, rss))) = (u0, proc_usage(*pid)) {
            println!(
                "server {pid}: {:.0}% of a core, {rss:.0} MiB resident",
                (c1 - c0) / secs * 100.0
            );
        }
    }
}
