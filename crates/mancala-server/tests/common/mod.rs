//! Test helpers: a server on a free loopback port (in this process, or as a child process
//! that can be restarted and killed), and a small JSON client.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mancala_server::{App, Config, Store};
use serde_json::{json, Value};
use tokio::sync::oneshot;

/// A fresh database for one server of a test: a SQLite file in `dir`, or, where
/// `MANCALA_TEST_STORE=postgres`, an empty schema of the PostgreSQL server that
/// `MANCALA_TEST_POSTGRES` names (scripts/test.sh runs the server's tests both ways).
pub fn fresh_db(dir: &Path) -> String {
    if std::env::var("MANCALA_TEST_STORE").as_deref() == Ok("postgres") {
        let base = std::env::var("MANCALA_TEST_POSTGRES")
            .expect("MANCALA_TEST_STORE=postgres needs MANCALA_TEST_POSTGRES");
        return mancala_server::db::fresh_schema(&base).expect("a fresh PostgreSQL schema");
    }
    dir.join("games.db").to_string_lossy().into_owned()
}

pub struct Server {
    pub addr: SocketAddr,
    /// The server's database (`Store::connect` opens it again).
    pub db: String,
    pub base: String,
    pub app: Arc<App>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
    pub dir: tempfile::TempDir,
}

pub fn test_config() -> Config {
    Config {
        ai_threads: 2,
        ai_time: Duration::from_millis(300),
        analysis_time: Duration::from_millis(10),
        board_time: Duration::from_millis(500),
        tables: None,
        rate: 0.0,
        burst: 10.0,
        max_body: 16 * 1024,
        web_dir: None,
        ..Config::default()
    }
}

impl Server {
    /// A server on 127.0.0.1 with a fresh database in a temporary folder.
    pub async fn start(cfg: Config) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let db = fresh_db(dir.path());
        let store = Store::connect(&db).unwrap();
        let app = Arc::new(App::new(store, cfg));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (tx, rx) = oneshot::channel::<()>();
        let a = app.clone();
        let task = tokio::spawn(async move {
            mancala_server::serve_on(listener, a, async {
                let _ = rx.await;
            })
            .await
            .unwrap();
        });
        Server {
            addr,
            db,
            base: format!("http://{addr}"),
            app,
            stop: Some(tx),
            task: Some(task),
            dir,
        }
    }

    pub async fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.task.take() {
            let _ = tokio::time::timeout(Duration::from_secs(5), t).await;
        }
    }
}

/// The legal pits of a game's state.
pub fn legal(state: &Value) -> Vec<u64> {
    state["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

/// A reply: status and JSON body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub body: Value,
}

impl Reply {
    pub fn ok(self) -> Value {
        assert!(
            (200..300).contains(&self.status),
            "expected success, got {} {}",
            self.status,
            self.body
        );
        self.body
    }
    /// Asserts an error status with a JSON message containing `needle`.
    pub fn err(&self, status: u16, needle: &str) {
        assert_eq!(self.status, status, "body: {}", self.body);
        let msg = self.body["error"]
            .as_str()
            .unwrap_or_else(|| panic!("error reply without an `error` string: {}", self.body));
        assert!(
            msg.to_lowercase().contains(&needle.to_lowercase()),
            "`{msg}` does not mention `{needle}`"
        );
    }
}

#[derive(Clone)]
pub struct Client {
    pub base: String,
    pub http: reqwest::Client,
}

impl Client {
    pub fn new(base: &str) -> Client {
        Client {
            base: base.to_string(),
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .unwrap(),
        }
    }

    pub async fn send(
        &self,
        method: &str,
        path: &str,
        body: Option<String>,
        token: Option<&str>,
    ) -> Reply {
        let url = format!("{}{}", self.base, path);
        let mut rb = self
            .http
            .request(method.parse().unwrap(), url)
            .header("content-type", "application/json");
        if let Some(t) = token {
            rb = rb.header("authorization", format!("Bearer {t}"));
        }
        if let Some(b) = body {
            rb = rb.body(b);
        }
        let res = rb.send().await.expect("request");
        let status = res.status().as_u16();
        let text = res.text().await.unwrap_or_default();
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        Reply { status, body }
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> Reply {
        self.send("GET", path, None, token).await
    }
    /// The body of a successful GET of `path`, as text (a record, a page).
    pub async fn text(&self, path: &str) -> String {
        let res = self.http.get(format!("{}{}", self.base, path)).send().await;
        let res = res
            .expect("request")
            .error_for_status()
            .expect("a 2xx answer");
        res.text().await.expect("a text body")
    }
    pub async fn post(&self, path: &str, body: Value, token: Option<&str>) -> Reply {
        self.send("POST", path, Some(body.to_string()), token).await
    }

    /// Creates a game: returns (game id, seat token, full reply).
    pub async fn create(&self, req: Value) -> (String, String, Value) {
        let r = self.post("/api/games", req, None).await;
        assert_eq!(r.status, 201, "{}", r.body);
        let v = r.body;
        (
            v["game"]["id"].as_str().unwrap().to_string(),
            v["token"].as_str().unwrap().to_string(),
            v,
        )
    }

    pub async fn play(&self, id: &str, token: &str, pit: u64) -> Reply {
        self.post(
            &format!("/api/games/{id}/moves"),
            json!({ "pit": pit }),
            Some(token),
        )
        .await
    }

    /// Takes the free seat of game `id` with an invitation code.
    pub async fn join(&self, id: &str, invite: &str) -> Reply {
        self.post(
            &format!("/api/games/{id}/join"),
            json!({ "invite": invite }),
            None,
        )
        .await
    }

    /// Polls until `pred` holds for the game's state.
    pub async fn wait_for(&self, id: &str, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let t0 = Instant::now();
        loop {
            let s = self.get(&format!("/api/games/{id}"), None).await.ok();
            if pred(&s) {
                return s;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(30),
                "timed out waiting for {what}: {s}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// The `mancala-server` binary as a child process.
pub struct Proc {
    pub child: Child,
    pub base: String,
}

pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mancala-server"))
}

impl Proc {
    /// Starts the binary on a free port with `db`; waits for its "listening on" line.
    pub fn start(db: &str) -> Proc {
        let mut child = Command::new(bin())
            .args([
                "--addr",
                "127.0.0.1:0",
                "--rate-limit",
                "0",
                "--ai-time-ms",
                "200",
            ])
            .arg("--db")
            .arg(db)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start mancala-server");
        let out = child.stdout.take().unwrap();
        let mut line = String::new();
        BufReader::new(out).read_line(&mut line).unwrap();
        let addr = line
            .strip_prefix("listening on ")
            .and_then(|l| l.split_whitespace().next())
            .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
            .to_string();
        Proc { child, base: addr }
    }

    /// `kill -9`.
    pub fn kill9(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// SIGTERM, then wait for the graceful exit.
    pub fn terminate(mut self) {
        let pid = self.child.id().to_string();
        let ok = Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !ok {
            self.child.kill().unwrap();
        }
        let status = self.child.wait().unwrap();
        if ok {
            assert!(status.success(), "graceful exit: {status:?}");
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A browser-like client of one account: its session cookie and the site's Origin.
pub struct Browser {
    pub base: String,
    pub origin: Option<String>,
    pub cookie: Option<String>,
    http: reqwest::Client,
}

#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or(Value::Null)
    }
    pub fn key(&self) -> String {
        self.json()["key"].as_str().unwrap_or("").to_string()
    }
}

impl Browser {
    pub fn new(base: &str) -> Browser {
        Browser {
            base: base.to_string(),
            origin: Some(base.to_string()),
            cookie: None,
            http: reqwest::Client::new(),
        }
    }

    pub async fn send(&mut self, method: &str, path: &str, body: Option<Value>) -> Answer {
        let mut rb = self
            .http
            .request(method.parse().unwrap(), format!("{}{path}", self.base));
        if let Some(o) = &self.origin {
            rb = rb.header("origin", o);
        }
        if let Some(c) = &self.cookie {
            rb = rb.header("cookie", format!("mancala_session={c}"));
        }
        if let Some(b) = body {
            rb = rb
                .header("content-type", "application/json")
                .body(b.to_string());
        }
        let r = rb.send().await.unwrap();
        let status = r.status().as_u16();
        let headers = r.headers().clone();
        if let Some(v) = headers.get("set-cookie").and_then(|v| v.to_str().ok()) {
            let value = v
                .split(';')
                .next()
                .and_then(|kv| kv.strip_prefix("mancala_session="))
                .unwrap_or("");
            self.cookie = (!value.is_empty()).then(|| value.to_string());
        }
        let text = r.text().await.unwrap();
        Answer {
            status,
            headers,
            text,
        }
    }

    pub async fn post(&mut self, path: &str, body: Value) -> Answer {
        self.send("POST", path, Some(body)).await
    }

    pub async fn get(&mut self, path: &str) -> Answer {
        self.send("GET", path, None).await
    }

    pub async fn signup(&mut self, name: &str, password: &str) -> Answer {
        self.post(
            "/api/account/signup",
            json!({"name": name, "password": password}),
        )
        .await
    }
}

/// The next JSON text message of a WebSocket (within 10 s).
pub async fn next_json<S>(ws: &mut S) -> Value
where
    S: futures_util::Stream<
            Item = Result<
                tokio_tungstenite::tungstenite::Message,
                tokio_tungstenite::tungstenite::Error,
            >,
        > + Unpin,
{
    use futures_util::StreamExt;
    loop {
        let m = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("a message within 10 s")
            .expect("the socket is open")
            .unwrap();
        if let tokio_tungstenite::tungstenite::Message::Text(t) = m {
            return serde_json::from_str(t.as_str()).unwrap();
        }
    }
}
