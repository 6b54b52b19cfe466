//! The mancala server (`mancala serve`): the browser client, a JSON and WebSocket API, games
//! saved in SQLite, the computer's moves in a bounded worker pool.
//!
//! # API
//! The routes are [`api::router`]'s; docs/server.md lists every request, its
//! body and its answer. Errors are 4xx/5xx with `{"error", "key", "args"}`; moves, undo, resign
//! and hint need `Authorization: Bearer TOKEN` (WebSocket: `"token"`).
//!
//! # Modules
//! From the ground up, each using only those below it: the views of positions and games
//! ([`view`]) and the database's one interface ([`db`]); small shared pieces (ids and
//! secrets, clocks, offers, settings, a request's parts, the API's answers); the [`store`];
//! accounts, ratings and an account's games; the games in play ([`app`]), what passes
//! between their players ([`between`]) and KGP bots ([`kgp`]); and the HTTP handlers on top
//! ([`api`], [`account_api`], the lobby's seeks, pools, challenges and socket). This file
//! wires them into a server.

#![warn(missing_docs)]

pub mod account_api;
pub mod account_games;
pub mod accounts;
pub mod api;
pub mod app;
pub mod between;
pub mod challenges;
pub mod client_addr;
pub mod clock;
pub mod config;
pub mod db;
pub mod glicko;
pub mod history;
pub mod ids;
pub mod kgp;
pub mod lobby;
pub mod lobby_socket;
pub mod offer;
pub mod pairing;
pub mod ratings;
mod request;
pub mod response;
pub mod seeks;
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
pub use config::{Config, ServeArgs, Tables};
pub use store::Store;

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
