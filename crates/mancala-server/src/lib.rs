//! The mancala server (`mancala serve`): the browser client, a JSON and WebSocket API, games
//! saved in SQLite, the computer's moves in a bounded worker pool.
//!
//! # API
//! The routes are [`api::router`]'s; docs/server.md lists every request, its
//! body and its answer. Errors are 4xx/5xx with `{"error", "key", "args"}`; moves, undo, resign
//! and hint need `Authorization: Bearer TOKEN` (WebSocket: `"token"`).

#![warn(missing_docs)]

pub mod account_api;
pub mod accounts;
pub mod api;
pub mod app;
pub mod between;
pub mod challenges;
pub mod client_addr;
pub mod clock;
pub mod db;
pub mod history;
pub mod kgp;
pub mod lobby;
pub mod pairing;
pub mod ratings;
pub mod response;
pub mod store;
pub mod view;
pub mod web;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use tokio::net::TcpListener;

pub use app::App;
pub use store::Store;

/// `mancala serve` options.
#[derive(clap::Args, Clone, Debug)]
pub struct ServeArgs {
    /// Address to listen on (port 0: any free port; the address is printed).
    #[arg(long, default_value = "127.0.0.1:8080", value_parser = mancala_protocols::host_port)]
    pub addr: String,
    /// SQLite database file; its folder must exist (default: mancala/games.db in the user's
    /// data directory, created when missing). Or a PostgreSQL database:
    /// postgres://USER:PASSWORD@HOST/DB (one server a database).
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// Searches at once, 1-256 (default: one a core).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub ai_threads: Option<u16>,
    /// Most time the computer spends on one move, in milliseconds (1 to 600000).
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=600_000))]
    pub ai_time_ms: u64,
    /// API requests a second allowed from one client address, 0 (no limit) to 1000000;
    /// bursts of three times as many pass (the browser client's own files are not counted).
    #[arg(long, default_value_t = 30.0, value_parser = parse_rate)]
    pub rate_limit: f64,
    /// Largest request body in bytes (256 to 67108864).
    #[arg(long, default_value_t = 16 * 1024, value_parser = clap::value_parser!(u32).range(256..=64 << 20))]
    pub max_body: u32,
    /// Serve the browser client from this folder (it must exist) instead of the copy built in.
    #[arg(long)]
    pub web_dir: Option<PathBuf>,
    /// Probe the endgame tables in this folder (`mancala egdb build`) in hints, replay
    /// analysis and the analysis board.
    #[arg(long)]
    pub egdb: Option<PathBuf>,
    /// Also serve the Kalah Game Protocol (KGP 1.x, TCP) here: connected bots play
    /// `--kgp-level` at Kalah(6,6), their games stored and watchable as any game.
    #[arg(long, value_parser = mancala_protocols::host_port)]
    pub kgp_addr: Option<String>,
    /// Also accept KGP bots over WebSocket (ws://, any path) here.
    #[arg(long, value_parser = mancala_protocols::host_port)]
    pub kgp_ws_addr: Option<String>,
    /// The level KGP bots play (1-8).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(1..=8))]
    pub kgp_level: u8,
    /// KGP bots that ask for freeplay wait in a lobby (pinged every 10 s, listed at GET
    /// /api/kgp/bots and on the home page) until a person challenges one or two are paired
    /// (POST /api/kgp/pair), instead of playing --kgp-level at once; needs --kgp-addr or
    /// --kgp-ws-addr.
    #[arg(long)]
    pub kgp_lobby: bool,
    /// The server is reached through a proxy that terminates TLS (https): session cookies
    /// are marked `Secure`, and a state-changing request's `Origin` must be https.
    #[arg(long)]
    pub behind_tls: bool,
    /// A reverse proxy of this server (an address or a network, `10.0.0.0/8`; repeatable):
    /// requests from it are limited by the client address it names in `X-Forwarded-For`.
    /// From any other peer that header is ignored.
    #[arg(long = "trusted-proxy", value_name = "CIDR", value_parser = client_addr::parse_proxy)]
    pub trusted_proxy: Vec<ipnet::IpNet>,
    /// Seconds a player of a timed game between people may be gone (no connection open)
    /// before his opponent may claim the game.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..=3600))]
    pub claim_after_s: u32,
}

/// `--rate-limit`: a number of requests a second, 0 to 1000000.
fn parse_rate(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(r) if (0.0..=1e6).contains(&r) => Ok(r),
        Ok(_) => Err("requests a second go from 0 (no limit) to 1000000".into()),
        Err(_) => Err(format!("`{s}` is not a number")),
    }
}

impl Default for ServeArgs {
    fn default() -> Self {
        ServeArgs {
            addr: "127.0.0.1:8080".into(),
            db: None,
            ai_threads: None,
            ai_time_ms: 2000,
            rate_limit: 30.0,
            max_body: 16 * 1024,
            web_dir: None,
            egdb: None,
            kgp_addr: None,
            kgp_ws_addr: None,
            kgp_level: 4,
            kgp_lobby: false,
            behind_tls: false,
            trusted_proxy: Vec::new(),
            claim_after_s: 60,
        }
    }
}

/// The server's settings.
#[derive(Clone, Debug)]
pub struct Config {
    /// Searches run at once: the size of the computer's worker pool (at least 1).
    pub ai_threads: usize,
    /// Most time the computer spends on one move; shared out when more searches wait than the
    /// pool has threads.
    pub ai_time: Duration,
    /// The replay analysis's time for one position: 100 times this caps a game's judging.
    pub analysis_time: Duration,
    /// Time the analysis board's values of a position and its best line may take in all.
    pub board_time: Duration,
    /// The endgame tables the engine probes (`--egdb`).
    pub tables: Option<Tables>,
    /// Requests a second allowed on average from one client address; 0: no limit.
    pub rate: f64,
    /// Requests one client address may make at once before the rate applies.
    pub burst: f64,
    /// Largest request body in bytes (`POST /api/replay` takes records of at least 256 KiB).
    pub max_body: usize,
    /// Folder the browser client is served from; `None`: the copy built into the server.
    pub web_dir: Option<PathBuf>,
    /// The server is reached over TLS (`--behind-tls`): `Secure` session cookies, https
    /// origins only.
    pub behind_tls: bool,
    /// Reverse proxies whose `X-Forwarded-For` names the client (`--trusted-proxy`).
    pub trusted_proxies: client_addr::TrustedProxies,
    /// How long a player of a timed game may be gone before the game can be claimed.
    pub claim_after: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config::from_args(&ServeArgs::default())
    }
}

impl Config {
    /// The settings of `mancala serve`'s options: one search thread a core unless given, 40 ms
    /// of analysis a replayed position, a second for the analysis board's position, bursts of
    /// three times the rate (at least 10). The endgame tables are opened by [`serve`].
    pub fn from_args(a: &ServeArgs) -> Config {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Config {
            ai_threads: a.ai_threads.map_or(cores, usize::from).max(1),
            ai_time: Duration::from_millis(a.ai_time_ms.max(1)),
            analysis_time: Duration::from_millis(40),
            board_time: Duration::from_millis(1000),
            tables: None,
            rate: a.rate_limit.max(0.0),
            burst: (a.rate_limit * 3.0).max(10.0),
            max_body: (a.max_body as usize).max(256),
            web_dir: a.web_dir.clone(),
            behind_tls: a.behind_tls,
            trusted_proxies: client_addr::TrustedProxies(a.trusted_proxy.clone()),
            claim_after: Duration::from_secs(a.claim_after_s.into()),
        }
    }
}

/// Endgame tables the engine probes, opened once and shared by every search.
#[derive(Clone)]
pub struct Tables(pub Arc<mancala_egdb::Egdb>);

impl std::fmt::Debug for Tables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tables({})", self.0.dir.display())
    }
}

impl Tables {
    /// The tables as the engine's oracle.
    pub fn oracle(&self) -> Arc<dyn mancala_engine::Oracle + Send> {
        self.0.clone()
    }
}

/// The default database file: `$XDG_DATA_HOME/mancala/games.db`, else
/// `~/.local/share/mancala/games.db` (macOS: `~/Library/Application Support`, Windows:
/// `%APPDATA%`), else `./mancala-games.db`.
pub fn default_db_path() -> PathBuf {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = if cfg!(windows) {
        env("APPDATA")
    } else if cfg!(target_os = "macos") {
        env("HOME").map(|h| h.join("Library/Application Support"))
    } else {
        env("XDG_DATA_HOME").or_else(|| env("HOME").map(|h| h.join(".local/share")))
    };
    match base {
        Some(b) => b.join("mancala").join("games.db"),
        None => PathBuf::from("mancala-games.db"),
    }
}

/// The router over an app (for tests and for [`serve`]): the API's and the accounts' routes
/// behind [`account_api::guard`].
pub fn router(app: Arc<App>) -> axum::Router {
    let limiter = Arc::new(api::Limiter::new(app.cfg.rate, app.cfg.burst));
    let accounts = Arc::new(account_api::Accounts {
        app: app.clone(),
        limiter: accounts::LoginLimiter::default(),
        behind_tls: app.cfg.behind_tls,
        lobby: lobby::Lobby::default(),
    });
    api::router(api::Ctx { app, limiter }, account_api::routes()).layer(
        axum::middleware::from_fn_with_state(accounts, account_api::guard),
    )
}

/// Serves `app` on `listener` until `shutdown` resolves.
pub async fn serve_on(
    listener: TcpListener,
    app: Arc<App>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    // Other servers on the same PostgreSQL database: their changes reach this one's games.
    app.follow_other_servers();
    // Resume the computer's turns of stored games in the background.
    {
        let app = app.clone();
        tokio::spawn(async move { app.resume().await });
    }
    let evictor = {
        let app = app.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(60)).await;
                app.evict(2000);
            }
        })
    };
    let r = axum::serve(
        listener,
        router(app).into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await;
    evictor.abort();
    Ok(r?)
}

/// The database file of `args`: `--db`, whose folder must exist, or the default, whose
/// folder is created.
pub fn database_path(args: &ServeArgs) -> anyhow::Result<PathBuf> {
    let Some(db) = &args.db else {
        let db = default_db_path();
        if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("creating the folder {}", dir.display()))?;
        }
        return Ok(db);
    };
    let dir = db
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !dir.is_dir() {
        anyhow::bail!(
            "--db {}: the folder {} does not exist (create it first)",
            db.display(),
            dir.display()
        );
    }
    if db.is_dir() {
        anyhow::bail!(
            "--db {}: that is a folder; give the database file (such as {})",
            db.display(),
            db.join("games.db").display()
        );
    }
    Ok(db.clone())
}

/// Opens the database of `args` (`--db`: a PostgreSQL address or a SQLite file, else the
/// default file); answers it and its name to print (a PostgreSQL address without its
/// password).
pub fn open_store(args: &ServeArgs) -> anyhow::Result<(Store, String)> {
    let pg = args
        .db
        .as_ref()
        .and_then(|p| p.to_str())
        .filter(|s| db::is_postgres_url(s));
    Ok(match pg {
        Some(url) => {
            let shown = db::redacted(url);
            let store = Store::open_postgres(url)
                .with_context(|| format!("opening the database {shown}"))?;
            (store, shown)
        }
        None => {
            let db = database_path(args)?;
            let store = Store::open(&db)
                .with_context(|| format!("opening the database {}", db.display()))?;
            (store, db.display().to_string())
        }
    })
}

/// Opens the database, binds the address, prints `listening on http://ADDR` and serves
/// until Ctrl-C or SIGTERM.
pub async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    if args.kgp_lobby && args.kgp_addr.is_none() && args.kgp_ws_addr.is_none() {
        anyhow::bail!("--kgp-lobby needs a KGP address: --kgp-addr or --kgp-ws-addr");
    }
    if let Some(dir) = &args.web_dir {
        if !dir.is_dir() {
            anyhow::bail!("--web-dir {}: no such folder", dir.display());
        }
    }
    let mut cfg = Config::from_args(&args);
    if let Some(dir) = &args.egdb {
        let tables = mancala_egdb::Egdb::open(dir)
            .with_context(|| format!("--egdb {}: opening the endgame tables", dir.display()))?;
        cfg.tables = Some(Tables(Arc::new(tables)));
    }
    let (store, shown) = open_store(&args)?;
    let listener = TcpListener::bind(&args.addr)
        .await
        .with_context(|| format!("listening on {}", args.addr))?;
    // Every address is bound before anything is printed: a bad one is refused alone.
    let kgp_listeners = bind_kgp(&args)?;
    let addr = listener.local_addr()?;
    println!("listening on http://{addr} (database {shown})");
    let app = Arc::new(App::new(store, cfg));
    // Before any bot connects: the bots' games a restart cut off can never go on.
    app.interrupt_bot_games()
        .await
        .map_err(|e| anyhow::anyhow!("the stored bots' games: {}", e.message))?;
    serve_kgp(&args, kgp_listeners, &app)?;
    use std::io::Write;
    let _ = std::io::stdout().flush();
    serve_on(listener, app, shutdown_signal()).await
}

/// The listeners of `--kgp-addr` (TCP) and `--kgp-ws-addr` (WebSocket), bound.
fn bind_kgp(
    args: &ServeArgs,
) -> anyhow::Result<Vec<(std::net::TcpListener, mancala_protocols::kgp::Transport)>> {
    use mancala_protocols::kgp::Transport;
    let mut listeners = Vec::new();
    for (addr, transport, flag) in [
        (&args.kgp_addr, Transport::Tcp, "--kgp-addr"),
        (&args.kgp_ws_addr, Transport::WebSocket, "--kgp-ws-addr"),
    ] {
        let Some(addr) = addr else { continue };
        let listener =
            std::net::TcpListener::bind(addr).with_context(|| format!("{flag} {addr}"))?;
        listeners.push((listener, transport));
    }
    Ok(listeners)
}

/// Serves KGP on the listeners of [`bind_kgp`] on threads of its own
/// (`mancala_protocols::kgp::serve_all`), the games stored in `app` ([`kgp::config`]), a JSON line
/// a finished connection on standard output. Call it within the runtime.
fn serve_kgp(
    args: &ServeArgs,
    listeners: Vec<(std::net::TcpListener, mancala_protocols::kgp::Transport)>,
    app: &Arc<App>,
) -> anyhow::Result<()> {
    use mancala_protocols::kgp::Transport;
    if listeners.is_empty() {
        return Ok(());
    }
    for (listener, transport) in &listeners {
        match transport {
            Transport::Tcp => println!("KGP on {}", listener.local_addr()?),
            Transport::WebSocket => println!("KGP on ws://{}/", listener.local_addr()?),
        }
    }
    let mut cfg = kgp::config(app, args.kgp_level)?;
    if args.kgp_lobby {
        kgp::open_lobby(app, &mut cfg, kgp::LOBBY_PING)?;
    }
    std::thread::spawn(move || {
        mancala_protocols::kgp::serve_all(listeners, cfg, |r| {
            println!("{}", serde_json::to_string(&r).unwrap_or_default());
        })
    });
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}

/// Runs [`serve`] on a new multi-threaded runtime (the `mancala serve` command).
pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?
        .block_on(serve(args))
}
