//! The server's settings: the options of `mancala serve`, and the [`Config`] they make.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::client_addr;

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
    /// three times the rate (at least 10). The endgame tables are opened by [`crate::serve`].
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
