//! The storage of games and their moves, in SQLite (the default: one file, WAL mode,
//! `synchronous=FULL`) or PostgreSQL (`--db postgres://...`), through [`crate::db`]: every
//! query below is written once for both.
//!
//! Schema versions live in SQLite's `PRAGMA user_version` and in PostgreSQL's table
//! `mancala_schema`; [`MIGRATIONS`] (SQLite) and [`PG_MIGRATIONS`] (PostgreSQL, the same
//! schema in its types) are applied in order on every open, each in its own transaction (in
//! PostgreSQL under an advisory lock, so servers starting together migrate once). A database
//! written by a newer server is refused. A move is committed before the server acknowledges it.
//!
//! Writes go to one writer thread that commits whatever is queued in one transaction (group
//! commit: each write in its own savepoint, one sync for the batch) and then answers each
//! caller. Reads use their own connection: in SQLite one beside the writer (WAL lets it
//! run), in PostgreSQL a few reader threads.

use std::path::Path;
use std::sync::{mpsc, Arc, Mutex};

use anyhow::{anyhow, Context};
use rusqlite::Connection;

use crate::clock::now_ms;
use crate::db::{self, vals, Conn, Kind};
use crate::view::Stop;
use mancala_core::Side;

/// Every schema change of a SQLite database, in order; index `k` takes the schema from
/// version `k` to `k + 1`.
pub const MIGRATIONS: &[&str] = &[
    // 1: games and their moves.
    "CREATE TABLE games (
        id          TEXT PRIMARY KEY,
        start       TEXT NOT NULL,      -- position string of the start
        created_ms  INTEGER NOT NULL,
        updated_ms  INTEGER NOT NULL,
        south_kind  TEXT NOT NULL,      -- 'human' | 'ai'
        north_kind  TEXT NOT NULL,
        ai_level    INTEGER,
        south_token TEXT,               -- NULL: seat not taken yet (or held by the computer)
        north_token TEXT,
        invite      TEXT,               -- code that claims the open seat, NULL once used
        resigned    TEXT,               -- 'south' | 'north' | NULL
        seed        INTEGER NOT NULL    -- drives the computer's randomness
    );
    CREATE TABLE moves (
        game_id    TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        ply        INTEGER NOT NULL,    -- 0 = first move of the game
        pit        INTEGER NOT NULL,    -- own pit, 0-based from the mover's left
        eval       INTEGER,             -- engine value after the move (mover's view), computer moves
        depth      INTEGER,
        time_ms    INTEGER,
        created_ms INTEGER NOT NULL,
        PRIMARY KEY (game_id, ply)
    ) WITHOUT ROWID;",
    // 2: the seats' display names.
    "ALTER TABLE games ADD COLUMN south_name TEXT;
     ALTER TABLE games ADD COLUMN north_name TEXT;",
    // 3: a bot's game that a restart of the server cut off (its connection is gone).
    "ALTER TABLE games ADD COLUMN interrupted_ms INTEGER;",
    // 4: accounts, their sessions, the games between accounts, the ratings and their
    // history (`accounts.rs`, `ratings.rs`), and the lobby's open seeks (`lobby.rs`).
    "CREATE TABLE users (
        id          INTEGER PRIMARY KEY,
        name        TEXT NOT NULL,          -- as its owner wrote it
        name_key    TEXT NOT NULL UNIQUE,   -- lowercase: names are unique in any case
        password    TEXT NOT NULL,          -- argon2id PHC string
        created_ms  INTEGER NOT NULL,
        disabled_ms INTEGER                 -- set by `mancala user disable`
    );
    CREATE TABLE sessions (
        id_hash    TEXT PRIMARY KEY,        -- SHA-256 (hex) of the cookie's secret
        user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_ms INTEGER NOT NULL,
        expires_ms INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX sessions_user ON sessions(user_id);
    CREATE TABLE account_games (
        game_id    TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
        rules      TEXT NOT NULL,           -- the rule set the ratings are kept by
        rated      INTEGER NOT NULL,        -- 1: rated, 0: casual
        south_user INTEGER REFERENCES users(id),
        north_user INTEGER REFERENCES users(id),
        created_ms INTEGER NOT NULL,
        result     TEXT,                    -- 'south' | 'north' | 'draw' once over
        ended_ms   INTEGER
    ) WITHOUT ROWID;
    CREATE INDEX account_games_south ON account_games(south_user, created_ms);
    CREATE INDEX account_games_north ON account_games(north_user, created_ms);
    CREATE TABLE ratings (
        user_id    INTEGER NOT NULL REFERENCES users(id),
        rules      TEXT NOT NULL,
        rating     REAL NOT NULL,
        deviation  REAL NOT NULL,
        volatility REAL NOT NULL,
        games      INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL,
        PRIMARY KEY (user_id, rules)
    ) WITHOUT ROWID;
    CREATE INDEX ratings_board ON ratings(rules, rating);
    CREATE TABLE rating_history (
        user_id    INTEGER NOT NULL REFERENCES users(id),
        game_id    TEXT NOT NULL,
        rules      TEXT NOT NULL,
        rating     REAL NOT NULL,           -- after the game
        deviation  REAL NOT NULL,
        volatility REAL NOT NULL,
        at_ms      INTEGER NOT NULL,
        PRIMARY KEY (user_id, game_id)
    ) WITHOUT ROWID;
    CREATE TABLE seeks (
        id         TEXT PRIMARY KEY,
        user_id    INTEGER NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
        rules      TEXT NOT NULL,           -- the rule set, as ratings key it
        rated      INTEGER NOT NULL,
        side       TEXT NOT NULL,           -- 'south' | 'north' | 'random': the poster's seat
        created_ms INTEGER NOT NULL
    ) WITHOUT ROWID;",
    // 5: clocks, ends off the board other than a resignation, offers between the players,
    // the rematch, when a seat's player left (`clock.rs`, `between.rs`), and a seek's clock.
    "ALTER TABLE games ADD COLUMN clock TEXT;          -- time control ('3+2', '3d'); NULL: none
     ALTER TABLE games ADD COLUMN clock_south_ms INTEGER;
     ALTER TABLE games ADD COLUMN clock_north_ms INTEGER;
     ALTER TABLE games ADD COLUMN clock_at_ms INTEGER; -- when the two were read; NULL: not started
     ALTER TABLE games ADD COLUMN stopped TEXT;        -- 'time:south' | 'abandoned:north' | 'agreed' | 'cancelled'
     ALTER TABLE games ADD COLUMN offer TEXT;          -- 'draw:south' | 'takeback:north' | 'rematch:south'
     ALTER TABLE games ADD COLUMN rematch TEXT;        -- the rematch's game id
     ALTER TABLE games ADD COLUMN south_away_ms INTEGER; -- since when the seat's player is gone
     ALTER TABLE games ADD COLUMN north_away_ms INTEGER;
     ALTER TABLE seeks ADD COLUMN clock TEXT;",
    // 6: the quick-pairing pools (`pairing.rs`) and the challenges to named players
    // (`challenges.rs`).
    "CREATE TABLE pool (
        user_id    INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        pool_key   TEXT NOT NULL,           -- what a match agrees on (`pairing::Pool::key`)
        rules      TEXT NOT NULL,           -- the rule set, as ratings key it
        rated      INTEGER NOT NULL,
        created_ms INTEGER NOT NULL
    );
    CREATE INDEX pool_waiting ON pool(pool_key, created_ms);
    CREATE TABLE challenges (
        id          TEXT PRIMARY KEY,
        from_user   INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        to_user     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        rules       TEXT NOT NULL,
        rated       INTEGER NOT NULL,
        side        TEXT NOT NULL,          -- 'south' | 'north' | 'random': the challenger's seat
        created_ms  INTEGER NOT NULL,
        declined_ms INTEGER,                -- set when the challenged player declines
        clock       TEXT,                   -- time control ('3+2', '3d'); NULL: none
        UNIQUE (from_user, to_user)
    ) WITHOUT ROWID;
    CREATE INDEX challenges_to ON challenges(to_user);",
];

/// The same schema changes for PostgreSQL, one for each of [`MIGRATIONS`] (the tests compare
/// the tables and columns both make).
pub const PG_MIGRATIONS: &[&str] = &[
    "CREATE TABLE games (
        id          TEXT PRIMARY KEY,
        start       TEXT NOT NULL,
        created_ms  BIGINT NOT NULL,
        updated_ms  BIGINT NOT NULL,
        south_kind  TEXT NOT NULL,
        north_kind  TEXT NOT NULL,
        ai_level    BIGINT,
        south_token TEXT,
        north_token TEXT,
        invite      TEXT,
        resigned    TEXT,
        seed        BIGINT NOT NULL
    );
    CREATE TABLE moves (
        game_id    TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        ply        BIGINT NOT NULL,
        pit        BIGINT NOT NULL,
        eval       BIGINT,
        depth      BIGINT,
        time_ms    BIGINT,
        created_ms BIGINT NOT NULL,
        PRIMARY KEY (game_id, ply)
    );",
    "ALTER TABLE games ADD COLUMN south_name TEXT;
     ALTER TABLE games ADD COLUMN north_name TEXT;",
    "ALTER TABLE games ADD COLUMN interrupted_ms BIGINT;",
    "CREATE TABLE users (
        id          BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        name        TEXT NOT NULL,
        name_key    TEXT NOT NULL UNIQUE,
        password    TEXT NOT NULL,
        created_ms  BIGINT NOT NULL,
        disabled_ms BIGINT
    );
    CREATE TABLE sessions (
        id_hash    TEXT PRIMARY KEY,
        user_id    BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_ms BIGINT NOT NULL,
        expires_ms BIGINT NOT NULL
    );
    CREATE INDEX sessions_user ON sessions(user_id);
    CREATE TABLE account_games (
        game_id    TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
        rules      TEXT NOT NULL,
        rated      BIGINT NOT NULL,
        south_user BIGINT REFERENCES users(id),
        north_user BIGINT REFERENCES users(id),
        created_ms BIGINT NOT NULL,
        result     TEXT,
        ended_ms   BIGINT
    );
    CREATE INDEX account_games_south ON account_games(south_user, created_ms);
    CREATE INDEX account_games_north ON account_games(north_user, created_ms);
    CREATE TABLE ratings (
        user_id    BIGINT NOT NULL REFERENCES users(id),
        rules      TEXT NOT NULL,
        rating     DOUBLE PRECISION NOT NULL,
        deviation  DOUBLE PRECISION NOT NULL,
        volatility DOUBLE PRECISION NOT NULL,
        games      BIGINT NOT NULL,
        updated_ms BIGINT NOT NULL,
        PRIMARY KEY (user_id, rules)
    );
    CREATE INDEX ratings_board ON ratings(rules, rating);
    CREATE TABLE rating_history (
        user_id    BIGINT NOT NULL REFERENCES users(id),
        game_id    TEXT NOT NULL,
        rules      TEXT NOT NULL,
        rating     DOUBLE PRECISION NOT NULL,
        deviation  DOUBLE PRECISION NOT NULL,
        volatility DOUBLE PRECISION NOT NULL,
        at_ms      BIGINT NOT NULL,
        PRIMARY KEY (user_id, game_id)
    );
    CREATE TABLE seeks (
        id         TEXT PRIMARY KEY,
        user_id    BIGINT NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE,
        rules      TEXT NOT NULL,
        rated      BIGINT NOT NULL,
        side       TEXT NOT NULL,
        created_ms BIGINT NOT NULL
    );",
    "ALTER TABLE games ADD COLUMN clock TEXT;
     ALTER TABLE games ADD COLUMN clock_south_ms BIGINT;
     ALTER TABLE games ADD COLUMN clock_north_ms BIGINT;
     ALTER TABLE games ADD COLUMN clock_at_ms BIGINT;
     ALTER TABLE games ADD COLUMN stopped TEXT;
     ALTER TABLE games ADD COLUMN offer TEXT;
     ALTER TABLE games ADD COLUMN rematch TEXT;
     ALTER TABLE games ADD COLUMN south_away_ms BIGINT;
     ALTER TABLE games ADD COLUMN north_away_ms BIGINT;
     ALTER TABLE seeks ADD COLUMN clock TEXT;",
    "CREATE TABLE pool (
        user_id    BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        pool_key   TEXT NOT NULL,
        rules      TEXT NOT NULL,
        rated      BIGINT NOT NULL,
        created_ms BIGINT NOT NULL
    );
    CREATE INDEX pool_waiting ON pool(pool_key, created_ms);
    CREATE TABLE challenges (
        id          TEXT PRIMARY KEY,
        from_user   BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        to_user     BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        rules       TEXT NOT NULL,
        rated       BIGINT NOT NULL,
        side        TEXT NOT NULL,
        created_ms  BIGINT NOT NULL,
        declined_ms BIGINT,
        clock       TEXT,
        UNIQUE (from_user, to_user)
    );
    CREATE INDEX challenges_to ON challenges(to_user);",
];

/// One game's row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    /// The game's id in URLs (`/api/games/ID`): 16 random hex digits.
    pub id: String,
    /// The start position, as a position string.
    pub start: String,
    /// When the game was created, in milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// `[south, north]`: true where the computer plays.
    pub ai: [bool; 2],
    /// `[south, north]`: true where a KGP bot plays (seat kind `kgp`, a value of the kind
    /// columns, no schema change; its name in `names`).
    pub bots: [bool; 2],
    /// The computer's level (1-8) in a game against it; `None` between two people.
    pub ai_level: Option<u8>,
    /// `[south, north]`: the secret that acts for each seat; `None` while the seat is not taken,
    /// and where the computer plays.
    pub tokens: [Option<String>; 2],
    /// `[south, north]`: the players' display names; `None` where none was given.
    pub names: [Option<String>; 2],
    /// The code that claims the open seat of a game between two people; `None` once used, and in
    /// games against the computer.
    pub invite: Option<String>,
    /// 0 South, 1 North.
    pub resigned: Option<u8>,
    /// A KGP bot's game that a restart of the server cut off before its end: it stays
    /// unfinished, and nobody can move in it.
    pub interrupted: bool,
    /// Drives the computer's random choices in this game, mixed with the number of moves played.
    pub seed: i64,
    /// What games between people add: the clock, offers, the rematch, other ends.
    pub between: Between,
}

/// The parts of a game's row that games between people use ([`crate::between`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Between {
    /// The game's clock; `None`: untimed.
    pub clock: Option<crate::clock::Clock>,
    /// How the game ended off the board other than a resignation or a restart (on time,
    /// abandoned, agreed, cancelled).
    pub stopped: Option<Stop>,
    /// An offer one player made the other, standing until answered or a move is made.
    pub offer: Option<crate::offer::Offer>,
    /// The id of the rematch, once one was agreed.
    pub rematch: Option<String>,
    /// `[south, north]`: since when the seat's player has had no connection open (for a
    /// claim against an absent player); `None` while connected or never seen.
    pub away_ms: [Option<i64>; 2],
}

/// A stop stored in `games.stopped`.
fn stop_text(s: Stop) -> Option<String> {
    Some(match s {
        Stop::Time(side) => format!("time:{}", side_name(side.index() as u8)),
        Stop::Abandoned(side) => format!("abandoned:{}", side_name(side.index() as u8)),
        Stop::Agreed => "agreed".into(),
        Stop::Cancelled => "cancelled".into(),
        Stop::Resigned(_) | Stop::Interrupted => return None,
    })
}

/// `games.stopped` read back.
pub(crate) fn stop_from(t: &str) -> Option<Stop> {
    let side = |s: &str| match s {
        "south" => Some(Side::South),
        "north" => Some(Side::North),
        _ => None,
    };
    match t.split_once(':') {
        Some(("time", s)) => side(s).map(Stop::Time),
        Some(("abandoned", s)) => side(s).map(Stop::Abandoned),
        None if t == "agreed" => Some(Stop::Agreed),
        None if t == "cancelled" => Some(Stop::Cancelled),
        _ => None,
    }
}

/// One stored move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveRow {
    /// The move's place in the game: 0 is the first move (one sowing each).
    pub ply: u32,
    /// Own pit sown, 0-based from the mover's left.
    pub pit: u8,
    /// The engine's value after a computer move, in seeds from the mover's view (the final
    /// margin it expected); `None` for a person's move or where the engine gave none.
    pub eval: Option<i32>,
    /// The search depth the computer's move came from; `None` for a person's move or a move
    /// chosen without a search to a depth.
    pub depth: Option<u32>,
    /// Milliseconds the computer took to choose the move; `None` for a person's move.
    pub time_ms: Option<u64>,
}

type Job = Box<dyn FnOnce(&mut dyn Conn) -> anyhow::Result<()> + Send>;
type ReadJob = Box<dyn FnOnce(&mut dyn Conn) + Send>;

struct WriteReq {
    job: Job,
    done: tokio::sync::oneshot::Sender<anyhow::Result<()>>,
}

/// A queued write: [`Pending::done`] (async) or [`Pending::wait`] (blocking) once committed.
pub struct Pending(tokio::sync::oneshot::Receiver<anyhow::Result<()>>);

impl Pending {
    /// Waits for the commit (never call it inside an async task).
    pub fn wait(self) -> anyhow::Result<()> {
        self.0
            .blocking_recv()
            .unwrap_or_else(|_| Err(anyhow!("the database writer stopped")))
    }
    /// Waits for the commit from an async task.
    pub async fn done(self) -> anyhow::Result<()> {
        self.0
            .await
            .unwrap_or_else(|_| Err(anyhow!("the database writer stopped")))
    }
}

/// Where reads go.
enum Reader {
    /// SQLite: a connection of its own, used by the caller's thread.
    Sqlite(Mutex<Connection>),
    /// PostgreSQL: a queue to the reader threads (its client blocks on a runtime of its own,
    /// which an async task's thread may not do).
    Postgres(Mutex<mpsc::Sender<ReadJob>>),
}

/// The game database: reads on their own connection(s) and a queue to the one writer thread.
pub struct Store {
    kind: Kind,
    read: Reader,
    writer: Mutex<mpsc::Sender<WriteReq>>,
    /// This server among those on one PostgreSQL database: the sender of its notifications.
    instance: Arc<str>,
    /// The games other servers on the same database changed ([`Store::take_changes`]).
    changes: Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<Change>>>,
    /// What other servers on the same database changed in the lobby
    /// ([`Store::lobby_changes`]).
    lobby: tokio::sync::broadcast::Sender<Change>,
}

/// What another server on the same PostgreSQL database changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// This game (its moves, seats or end).
    Game(String),
    /// The lobby, with the note its writer gave ([`Store::write_lobby`]).
    Lobby(String),
    /// Anything: notifications may have been missed (the listening connection was lost).
    All,
}

/// The PostgreSQL channel each change of a game is announced on, as `INSTANCE GAME-ID`.
const GAMES_CHANNEL: &str = "mancala_games";

/// The PostgreSQL channel each change of the lobby is announced on, as `INSTANCE NOTE`.
const LOBBY_CHANNEL: &str = "mancala_lobby";

/// Announces, in PostgreSQL, that this write changes game `id` (delivered when the write's
/// transaction commits; nothing in SQLite, which one server alone uses).
/// Stores a game's clock as read at a move.
fn set_clock(c: &mut dyn Conn, id: &str, k: &crate::clock::Clock) -> anyhow::Result<()> {
    c.exec(
        "UPDATE games SET clock_south_ms = $2, clock_north_ms = $3, clock_at_ms = $4
         WHERE id = $1",
        vals![id, k.ms[0], k.ms[1], k.at_ms],
    )
    .map(|_| ())
}

fn touched(c: &mut dyn Conn, instance: &str, id: &str) -> anyhow::Result<()> {
    if c.kind() == Kind::Postgres {
        c.exec(
            "SELECT pg_notify($1, $2)",
            vals![GAMES_CHANNEL, format!("{instance} {id}")],
        )?;
    }
    Ok(())
}

/// The listening connection: every game another server changes, as [`Change`]s on `tx`, and
/// every change of the lobby on `lobby`; after a lost connection it listens again and sends
/// [`Change::All`] on both. `listening` is told once it first listens.
fn listen_loop(
    url: &str,
    instance: &str,
    tx: tokio::sync::mpsc::UnboundedSender<Change>,
    lobby: tokio::sync::broadcast::Sender<Change>,
    listening: mpsc::SyncSender<()>,
) {
    let mut first = true;
    loop {
        let client = db::pg_connect(url).and_then(|mut c| {
            c.batch(&format!("LISTEN {GAMES_CHANNEL}; LISTEN {LOBBY_CHANNEL}"))?;
            Ok(c)
        });
        let Ok(mut client) = client else {
            std::thread::sleep(std::time::Duration::from_secs(1));
            continue;
        };
        if first {
            let _ = listening.send(());
        } else {
            // A lobby without listeners drops its notes.
            let _ = lobby.send(Change::All);
            if tx.send(Change::All).is_err() {
                return;
            }
        }
        first = false;
        use postgres::fallible_iterator::FallibleIterator;
        let mut notes = client.notifications();
        let mut notes = notes.blocking_iter();
        while let Ok(Some(n)) = notes.next() {
            let Some((from, what)) = n.payload().split_once(' ') else {
                continue;
            };
            if from == instance {
                continue;
            }
            if n.channel() == LOBBY_CHANNEL {
                let _ = lobby.send(Change::Lobby(what.to_string()));
            } else if tx.send(Change::Game(what.to_string())).is_err() {
                return;
            }
        }
    }
}

/// Lobby notes kept for a slow reader (one that falls further behind reads the lobby anew).
const LOBBY_NOTES: usize = 256;

/// Most writes committed in one transaction.
const BATCH: usize = 256;

/// PostgreSQL connections for reads.
const PG_READERS: usize = 4;

/// Commits `jobs` in one transaction, each in its own savepoint: a job that fails is rolled
/// back alone; a commit that fails fails them all.
fn commit_batch(conn: &mut dyn Conn, jobs: Vec<Job>) -> Vec<anyhow::Result<()>> {
    let mut results: Vec<anyhow::Result<()>> = (0..jobs.len()).map(|_| Ok(())).collect();
    let outcome = (|| -> anyhow::Result<()> {
        conn.batch("BEGIN")?;
        for (k, job) in jobs.into_iter().enumerate() {
            conn.batch("SAVEPOINT w")?;
            match job(conn) {
                Ok(()) => conn.batch("RELEASE SAVEPOINT w")?,
                Err(e) => {
                    conn.batch("ROLLBACK TO SAVEPOINT w; RELEASE SAVEPOINT w")?;
                    results[k] = Err(e);
                }
            }
        }
        conn.batch("COMMIT")
    })();
    if let Err(e) = outcome {
        let _ = conn.batch("ROLLBACK");
        for r in results.iter_mut() {
            *r = Err(anyhow!("commit failed: {e:#}"));
        }
    }
    results
}

/// The writer thread: takes what is queued (up to [`BATCH`]) and commits it together.
/// `reopen` makes a new connection where the old one broke (PostgreSQL restarted).
fn writer_loop<C: Conn>(
    mut conn: C,
    reopen: impl Fn() -> anyhow::Result<C>,
    broken: impl Fn(&C) -> bool,
    rx: mpsc::Receiver<WriteReq>,
) {
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        while batch.len() < BATCH {
            match rx.try_recv() {
                Ok(r) => batch.push(r),
                Err(_) => break,
            }
        }
        if broken(&conn) {
            if let Ok(c) = reopen() {
                conn = c;
            }
        }
        let (jobs, dones): (Vec<_>, Vec<_>) = batch.into_iter().map(|r| (r.job, r.done)).unzip();
        let results = commit_batch(&mut conn, jobs);
        // Answer only now: the batch is on disk.
        for (done, r) in dones.into_iter().zip(results) {
            let _ = done.send(r);
        }
    }
}

fn kind(ai: bool, bot: bool) -> &'static str {
    if ai {
        "ai"
    } else if bot {
        "kgp"
    } else {
        "human"
    }
}

fn side_name(s: u8) -> &'static str {
    if s == 0 {
        "south"
    } else {
        "north"
    }
}

fn spawn(name: &str, f: impl FnOnce() + Send + 'static) -> anyhow::Result<()> {
    std::thread::Builder::new()
        .name(name.into())
        .spawn(f)
        .map(|_| ())
        .with_context(|| format!("starting the thread {name}"))
}

impl Store {
    /// Opens the database `db`: a PostgreSQL address (`postgres://USER:PASSWORD@HOST/DB`) or
    /// a SQLite file (created where missing; its folder must exist).
    pub fn connect(db: &str) -> anyhow::Result<Store> {
        if db::is_postgres_url(db) {
            Store::open_postgres(db)
        } else {
            Store::open(Path::new(db))
        }
    }

    /// Opens (creating it if needed) and migrates the SQLite database at `path`; its folder
    /// must exist.
    pub fn open(path: &Path) -> anyhow::Result<Store> {
        let mut conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        // WAL: readers never block the writer; FULL: a commit is on disk before it returns.
        let mode: String = conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))?;
        if mode != "wal" {
            anyhow::bail!("the database refused WAL mode (journal mode {mode})");
        }
        conn.execute_batch("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")?;
        migrate(&mut conn)?;
        let read = Connection::open(path)?;
        read.busy_timeout(std::time::Duration::from_secs(5))?;
        let (tx, rx) = mpsc::channel();
        spawn("mancala-db-writer", move || {
            writer_loop(
                conn,
                || anyhow::bail!("SQLite is not reopened"),
                |_| false,
                rx,
            )
        })?;
        Ok(Store {
            kind: Kind::Sqlite,
            read: Reader::Sqlite(Mutex::new(read)),
            writer: Mutex::new(tx),
            instance: Arc::from(crate::ids::random_hex(8)),
            changes: Mutex::new(None),
            lobby: tokio::sync::broadcast::channel(LOBBY_NOTES).0,
        })
    }

    /// Connects to PostgreSQL at `url` and migrates its schema. Each connection's
    /// `search_path` may be set in the address (`?options=-csearch_path%3DNAME`). Every
    /// connection lives on a thread of its own (see [`db::off_runtime`]).
    pub fn open_postgres(url: &str) -> anyhow::Result<Store> {
        db::off_runtime(|| migrate(&mut db::pg_connect(url)?))?;
        // A thread that keeps one connection; answers once it is connected.
        let start = |name: String, run: Box<dyn FnOnce(postgres::Client) + Send>| {
            let (ready, is_ready) = mpsc::sync_channel(1);
            let u = url.to_string();
            spawn(&name, move || match db::pg_connect(&u) {
                Ok(c) => {
                    let _ = ready.send(Ok(()));
                    run(c)
                }
                Err(e) => {
                    let _ = ready.send(Err(e));
                }
            })?;
            is_ready
                .recv()
                .unwrap_or_else(|_| Err(anyhow!("the thread {name} stopped")))
        };
        let (tx, rx) = mpsc::channel();
        let u = url.to_string();
        start(
            "mancala-db-writer".into(),
            Box::new(move |c| writer_loop(c, || db::pg_connect(&u), |c| c.is_closed(), rx)),
        )?;
        let (rtx, rrx) = mpsc::channel::<ReadJob>();
        let rrx = Arc::new(Mutex::new(rrx));
        for k in 0..PG_READERS {
            let (rrx, u) = (rrx.clone(), url.to_string());
            start(
                format!("mancala-db-reader-{k}"),
                Box::new(move |mut client| loop {
                    let job = rrx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                    let Ok(job) = job else { return };
                    if client.is_closed() {
                        if let Ok(c) = db::pg_connect(&u) {
                            client = c;
                        }
                    }
                    job(&mut client);
                }),
            )?;
        }
        let instance: Arc<str> = Arc::from(crate::ids::random_hex(8));
        let (ctx, crx) = tokio::sync::mpsc::unbounded_channel();
        let lobby = tokio::sync::broadcast::channel(LOBBY_NOTES).0;
        let (u, me, l) = (url.to_string(), instance.clone(), lobby.clone());
        let (listening, is_listening) = mpsc::sync_channel(1);
        spawn("mancala-db-listener", move || {
            listen_loop(&u, &me, ctx, l, listening)
        })?;
        // A server that answers hears the others from then on (it keeps trying past this).
        let _ = is_listening.recv_timeout(std::time::Duration::from_secs(10));
        Ok(Store {
            kind: Kind::Postgres,
            read: Reader::Postgres(Mutex::new(rtx)),
            writer: Mutex::new(tx),
            instance,
            changes: Mutex::new(Some(crx)),
            lobby,
        })
    }

    /// Which database this is.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The games other servers on the same PostgreSQL database change, as they commit them
    /// (`LISTEN/NOTIFY`); `None` on SQLite, and after the first call.
    pub fn take_changes(&self) -> Option<tokio::sync::mpsc::UnboundedReceiver<Change>> {
        self.changes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// What other servers on the same PostgreSQL database change in the lobby, as they
    /// commit it: [`Change::Lobby`] with the note of [`Store::write_lobby`], or
    /// [`Change::All`] where notes may have been missed (nothing comes on SQLite).
    pub fn lobby_changes(&self) -> tokio::sync::broadcast::Receiver<Change> {
        self.lobby.subscribe()
    }

    /// Queues a write that changes the lobby; in PostgreSQL its commit tells the other
    /// servers on the database `note` ([`Store::lobby_changes`]; at most a few kilobytes).
    pub fn write_lobby(
        &self,
        note: String,
        job: impl FnOnce(&mut dyn Conn) -> anyhow::Result<()> + Send + 'static,
    ) -> Pending {
        let me = self.instance.clone();
        self.write(move |c| {
            job(c)?;
            if c.kind() == Kind::Postgres {
                c.exec(
                    "SELECT pg_notify($1, $2)",
                    vals![LOBBY_CHANNEL, format!("{me} {note}")],
                )?;
            }
            Ok(())
        })
    }

    /// Runs a read on a reading connection and answers it (blocking the caller until then).
    pub(crate) fn with<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut dyn Conn) -> anyhow::Result<T> + Send + 'static,
    ) -> anyhow::Result<T> {
        match &self.read {
            Reader::Sqlite(c) => f(&mut *c.lock().unwrap_or_else(|e| e.into_inner())),
            Reader::Postgres(q) => {
                let (tx, rx) = mpsc::sync_channel(1);
                let job: ReadJob = Box::new(move |c| {
                    let _ = tx.send(f(c));
                });
                q.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .send(job)
                    .map_err(|_| anyhow!("the database readers stopped"))?;
                rx.recv()
                    .unwrap_or_else(|_| Err(anyhow!("the database reader stopped")))
            }
        }
    }

    /// Queues a write for the writer thread.
    pub(crate) fn write(
        &self,
        job: impl FnOnce(&mut dyn Conn) -> anyhow::Result<()> + Send + 'static,
    ) -> Pending {
        let (done, rx) = tokio::sync::oneshot::channel();
        let req = WriteReq {
            job: Box::new(job),
            done,
        };
        if let Err(mpsc::SendError(req)) = self
            .writer
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(req)
        {
            let _ = req.done.send(Err(anyhow!("the database writer stopped")));
        }
        Pending(rx)
    }

    /// The schema version of the open database: the number of migrations applied.
    pub fn schema_version(&self) -> anyhow::Result<u32> {
        self.with(|c| schema_version(c))
    }

    /// Queues the insertion of a new game's row.
    pub fn create_game(&self, g: &GameRow) -> Pending {
        let (g, me) = (g.clone(), self.instance.clone());
        let clock = g.between.clock;
        self.write(move |c| {
            touched(c, &me, &g.id)?;
            c.exec(
                "INSERT INTO games (id, start, created_ms, updated_ms, south_kind, north_kind,
                    ai_level, south_token, north_token, invite, resigned, seed, south_name,
                    north_name, clock, clock_south_ms, clock_north_ms, clock_at_ms)
                 VALUES ($1, $2, $3, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,
                    $16, $17)",
                vals![
                    &g.id,
                    &g.start,
                    g.created_ms,
                    kind(g.ai[0], g.bots[0]),
                    kind(g.ai[1], g.bots[1]),
                    g.ai_level,
                    g.tokens[0].clone(),
                    g.tokens[1].clone(),
                    g.invite.clone(),
                    g.resigned.map(side_name),
                    g.seed,
                    g.names[0].clone(),
                    g.names[1].clone(),
                    clock.map(|c| c.control.to_string()),
                    clock.map(|c| c.ms[0]),
                    clock.map(|c| c.ms[1]),
                    clock.and_then(|c| c.at_ms),
                ],
            )
            .map(|_| ())
        })
    }

    /// The game and its moves in order, or `None`.
    pub fn load_game(&self, id: &str) -> anyhow::Result<Option<(GameRow, Vec<MoveRow>)>> {
        let id = id.to_string();
        self.with(move |c| {
            let Some(r) = c.query_opt(
                "SELECT id, start, created_ms, south_kind, north_kind, ai_level, south_token,
                    north_token, invite, resigned, seed, south_name, north_name, interrupted_ms,
                    clock, clock_south_ms, clock_north_ms, clock_at_ms, stopped, offer, rematch,
                    south_away_ms, north_away_ms
                 FROM games WHERE id = $1",
                vals![&id],
            )?
            else {
                return Ok(None);
            };
            let kinds = [r.text(3)?, r.text(4)?];
            let row = GameRow {
                id: r.text(0)?,
                start: r.text(1)?,
                created_ms: r.int(2)?,
                ai: kinds.clone().map(|k| k == "ai"),
                bots: kinds.map(|k| k == "kgp"),
                ai_level: r.opt_num(5)?,
                tokens: [r.opt_text(6)?, r.opt_text(7)?],
                invite: r.opt_text(8)?,
                resigned: r.opt_text(9)?.map(|s| u8::from(s == "north")),
                seed: r.int(10)?,
                names: [r.opt_text(11)?, r.opt_text(12)?],
                interrupted: r.opt_int(13)?.is_some(),
                between: Between {
                    clock: match r.opt_text(14)? {
                        Some(t) => Some(crate::clock::Clock {
                            control: t.parse()?,
                            ms: [
                                r.opt_int(15)?.unwrap_or(0),
                                r.opt_int(16)?.unwrap_or(0),
                            ],
                            at_ms: r.opt_int(17)?,
                        }),
                        None => None,
                    },
                    stopped: r.opt_text(18)?.as_deref().and_then(stop_from),
                    offer: r.opt_text(19)?.as_deref().and_then(crate::offer::Offer::from_text),
                    rematch: r.opt_text(20)?,
                    away_ms: [r.opt_int(21)?, r.opt_int(22)?],
                },
            };
            let moves = c
                .query(
                    "SELECT ply, pit, eval, depth, time_ms FROM moves WHERE game_id = $1 ORDER BY ply",
                    vals![&id],
                )?
                .iter()
                .map(|r| {
                    Ok(MoveRow {
                        ply: r.num(0)?,
                        pit: r.num(1)?,
                        eval: r.opt_num(2)?,
                        depth: r.opt_num(3)?,
                        time_ms: r.opt_int(4)?.map(|t| t.max(0) as u64),
                    })
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            Ok(Some((row, moves)))
        })
    }

    /// Appends a move; its ply must be the next one (the primary key refuses a duplicate).
    /// A timed game's clock after the move is stored with it, and a standing offer lapses.
    pub fn add_move(&self, id: &str, m: &MoveRow, clock: Option<crate::clock::Clock>) -> Pending {
        let (id, m, me) = (id.to_string(), *m, self.instance.clone());
        self.write(move |tx| {
            touched(tx, &me, &id)?;
            tx.exec(
                "INSERT INTO moves (game_id, ply, pit, eval, depth, time_ms, created_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
                vals![&id, m.ply, m.pit, m.eval, m.depth, m.time_ms, now_ms()],
            )?;
            tx.exec(
                "UPDATE games SET updated_ms = $2, offer = NULL WHERE id = $1",
                vals![&id, now_ms()],
            )?;
            if let Some(c) = clock {
                set_clock(tx, &id, &c)?;
            }
            // A game between accounts that this move ends is settled with it.
            crate::ratings::settle(tx, &id)
        })
    }

    /// Deletes the moves from ply `from` on (undo).
    pub fn truncate(&self, id: &str, from: u32) -> Pending {
        let (id, me) = (id.to_string(), self.instance.clone());
        self.write(move |c| {
            touched(c, &me, &id)?;
            c.exec(
                "DELETE FROM moves WHERE game_id = $1 AND ply >= $2",
                vals![&id, from],
            )
            .map(|_| ())
        })
    }

    /// Queues the resignation of game `id` by `side` (0 South, 1 North).
    pub fn set_resigned(&self, id: &str, side: u8) -> Pending {
        let (id, me) = (id.to_string(), self.instance.clone());
        self.write(move |c| {
            touched(c, &me, &id)?;
            c.exec(
                "UPDATE games SET resigned = $2, updated_ms = $3 WHERE id = $1",
                vals![&id, side_name(side), now_ms()],
            )?;
            crate::ratings::settle(c, &id)
        })
    }

    /// Marks game `id` as cut off by a restart ([`GameRow::interrupted`]).
    pub fn set_interrupted(&self, id: &str) -> Pending {
        let (id, me) = (id.to_string(), self.instance.clone());
        self.write(move |c| {
            touched(c, &me, &id)?;
            c.exec(
                "UPDATE games SET interrupted_ms = $2, updated_ms = $2 WHERE id = $1",
                vals![&id, now_ms()],
            )
            .map(|_| ())
        })
    }

    /// Ends game `id` off the board with `stop` (on time, abandoned, agreed, cancelled) if it
    /// has still `plies` moves and has not ended: fails where another server moved or ended
    /// it meanwhile. Settles a game between accounts.
    pub fn set_stopped(
        &self,
        id: &str,
        stop: Stop,
        plies: u32,
        clock: Option<crate::clock::Clock>,
    ) -> Pending {
        let (id, me) = (id.to_string(), self.instance.clone());
        self.write(move |c| {
            touched(c, &me, &id)?;
            let n = c.exec(
                "UPDATE games SET stopped = $2, offer = NULL, updated_ms = $3
                 WHERE id = $1 AND stopped IS NULL AND resigned IS NULL
                   AND (SELECT COUNT(*) FROM moves WHERE game_id = $1) = $4",
                vals![&id, stop_text(stop), now_ms(), plies],
            )?;
            if n != 1 {
                return Err(anyhow!("the game moved on meanwhile"));
            }
            if let Some(k) = clock {
                set_clock(c, &id, &k)?;
            }
            crate::ratings::settle(c, &id)
        })
    }

    /// Stores the offer standing in game `id` (`None`: none) if the game still has `plies`
    /// moves; fails where it moved on.
    pub fn set_offer(&self, id: &str, offer: Option<crate::offer::Offer>, plies: u32) -> Pending {
        let (id, me) = (id.to_string(), self.instance.clone());
        self.write(move |c| {
            touched(c, &me, &id)?;
            let n = c.exec(
                "UPDATE games SET offer = $2, updated_ms = $3
                 WHERE id = $1 AND (SELECT COUNT(*) FROM moves WHERE game_id = $1) = $4",
                vals![&id, offer.map(|o| o.text()), now_ms(), plies],
            )?;
            if n != 1 {
                return Err(anyhow!("the game moved on meanwhile"));
            }
            Ok(())
        })
    }

    /// A takeback: deletes the moves from ply `from` on, the offer with them, and stores the
    /// clock as it now reads.
    pub fn take_back(&self, id: &str, from: u32, clock: Option<crate::clock::Clock>) -> Pending {
        let (id, me) = (id.to_string(), self.instance.clone());
        self.write(move |c| {
            touched(c, &me, &id)?;
            c.exec(
                "DELETE FROM moves WHERE game_id = $1 AND ply >= $2",
                vals![&id, from],
            )?;
            c.exec(
                "UPDATE games SET offer = NULL, updated_ms = $2 WHERE id = $1",
                vals![&id, now_ms()],
            )?;
            if let Some(k) = clock {
                set_clock(c, &id, &k)?;
            }
            Ok(())
        })
    }

    /// Links game `id` to its rematch `rematch` once (fails where one was linked meanwhile).
    pub fn set_rematch(&self, id: &str, rematch: &str) -> Pending {
        let (id, rematch, me) = (id.to_string(), rematch.to_string(), self.instance.clone());
        self.write(move |c| {
            touched(c, &me, &id)?;
            match c.exec(
                "UPDATE games SET rematch = $2, offer = NULL WHERE id = $1 AND rematch IS NULL",
                vals![&id, rematch],
            )? {
                1 => Ok(()),
                _ => Err(anyhow!("a rematch was agreed meanwhile")),
            }
        })
    }

    /// Stores since when seat `side`'s player has been gone (`None`: he is back).
    pub fn set_away(&self, id: &str, side: u8, since: Option<i64>) -> Pending {
        let sql = if side == 0 {
            "UPDATE games SET south_away_ms = $2 WHERE id = $1"
        } else {
            "UPDATE games SET north_away_ms = $2 WHERE id = $1"
        };
        let (id, me) = (id.to_string(), self.instance.clone());
        self.write(move |c| {
            touched(c, &me, &id)?;
            c.exec(sql, vals![&id, since]).map(|_| ())
        })
    }

    /// Gives the open seat `side` its token and name, and spends the invitation; fails where
    /// the seat was taken meanwhile (by another server on the same database).
    pub fn claim_seat(
        &self,
        id: &str,
        side: u8,
        token: &str,
        name: Option<&str>,
        now: i64,
    ) -> Pending {
        // A clock starts when the second seat is taken.
        let sql = if side == 0 {
            "UPDATE games SET south_token = $2, south_name = $3, invite = NULL, updated_ms = $4,
                clock_at_ms = CASE WHEN clock IS NULL THEN NULL ELSE CAST($4 AS BIGINT) END
             WHERE id = $1 AND invite IS NOT NULL AND south_token IS NULL"
        } else {
            "UPDATE games SET north_token = $2, north_name = $3, invite = NULL, updated_ms = $4,
                clock_at_ms = CASE WHEN clock IS NULL THEN NULL ELSE CAST($4 AS BIGINT) END
             WHERE id = $1 AND invite IS NOT NULL AND north_token IS NULL"
        };
        let (id, token, name) = (id.to_string(), token.to_string(), name.map(str::to_string));
        let me = self.instance.clone();
        self.write(move |c| {
            touched(c, &me, &id)?;
            match c.exec(sql, vals![&id, token, name, now])? {
                1 => Ok(()),
                _ => Err(anyhow!("the seat was taken meanwhile")),
            }
        })
    }

    /// Ids of the `limit` games between people (or bots) that moved last, where a move or a
    /// seat was taken since `since_ms` and nothing ended them off the board; newest first
    /// (the caller drops those over by the rules).
    pub fn live_games(&self, limit: u32, since_ms: i64) -> anyhow::Result<Vec<String>> {
        self.ids(
            "SELECT id FROM games WHERE south_kind <> 'ai' AND north_kind <> 'ai'
                AND invite IS NULL AND resigned IS NULL AND stopped IS NULL
                AND interrupted_ms IS NULL AND updated_ms > $2
             ORDER BY updated_ms DESC, id LIMIT $1",
            vec![limit.into(), since_ms.into()],
        )
    }

    /// Ids of the `limit` newest games with a KGP bot, newest first.
    pub fn bot_games(&self, limit: u32) -> anyhow::Result<Vec<String>> {
        self.ids(
            "SELECT id FROM games WHERE south_kind = 'kgp' OR north_kind = 'kgp'
             ORDER BY created_ms DESC, id LIMIT $1",
            vec![limit.into()],
        )
    }

    /// Ids of the KGP bots' games neither resigned nor already marked as interrupted, for
    /// marking those a restart cut off.
    pub fn open_bot_games(&self) -> anyhow::Result<Vec<String>> {
        self.ids(
            "SELECT id FROM games WHERE (south_kind = 'kgp' OR north_kind = 'kgp')
             AND resigned IS NULL AND interrupted_ms IS NULL",
            Vec::new(),
        )
    }

    /// Ids of games (not resigned, changed in the last week) where the computer plays, for
    /// resuming after a restart.
    pub fn ai_games(&self) -> anyhow::Result<Vec<String>> {
        let week = 7 * 24 * 3600 * 1000;
        self.ids(
            "SELECT id FROM games WHERE resigned IS NULL
             AND (south_kind = 'ai' OR north_kind = 'ai') AND updated_ms > $1
             ORDER BY updated_ms DESC LIMIT 1000",
            vec![(now_ms() - week).into()],
        )
    }

    /// The first column of a query's rows, as texts.
    fn ids(&self, sql: &'static str, params: Vec<db::Val>) -> anyhow::Result<Vec<String>> {
        self.with(move |c| c.query(sql, &params)?.iter().map(|r| r.text(0)).collect())
    }
}

/// The schema version: SQLite's `user_version`, PostgreSQL's `mancala_schema` row (0 before
/// the first migration).
fn schema_version(c: &mut dyn Conn) -> anyhow::Result<u32> {
    let row = match c.kind() {
        Kind::Sqlite => c.query_opt("PRAGMA user_version", &[])?,
        Kind::Postgres => {
            c.batch("CREATE TABLE IF NOT EXISTS mancala_schema (version BIGINT NOT NULL)")?;
            c.query_opt("SELECT version FROM mancala_schema", &[])?
        }
    };
    row.map_or(Ok(0), |r| r.num(0))
}

fn migrate(c: &mut dyn Conn) -> anyhow::Result<()> {
    let (list, kind) = match c.kind() {
        Kind::Sqlite => (MIGRATIONS, Kind::Sqlite),
        Kind::Postgres => (PG_MIGRATIONS, Kind::Postgres),
    };
    if kind == Kind::Postgres {
        // Servers starting together: the first migrates, the others wait and find it done.
        c.batch("BEGIN")?;
        c.exec("SELECT pg_advisory_xact_lock(7262)", &[])?;
    }
    let result = (|| {
        let version = schema_version(c)? as usize;
        if version > list.len() {
            anyhow::bail!(
                "the database has schema version {version}, newer than this server's {}",
                list.len()
            );
        }
        for (k, sql) in list.iter().enumerate().skip(version) {
            let next = (k + 1) as u32;
            match kind {
                Kind::Sqlite => {
                    c.batch("BEGIN")?;
                    c.batch(sql)?;
                    c.batch(&format!("PRAGMA user_version = {next}"))?;
                    c.batch("COMMIT")?;
                }
                Kind::Postgres => {
                    c.batch(sql)?;
                    c.exec("DELETE FROM mancala_schema", &[])?;
                    c.exec("INSERT INTO mancala_schema VALUES ($1)", vals![next])?;
                }
            }
        }
        Ok(())
    })();
    if kind == Kind::Postgres {
        c.batch(if result.is_ok() { "COMMIT" } else { "ROLLBACK" })?;
    } else if result.is_err() {
        let _ = c.batch("ROLLBACK");
    }
    result.with_context(|| format!("migrating the {kind} database"))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A fresh, empty PostgreSQL schema for one test: the address to give [`Store::connect`],
    /// or `None` (saying so) where `MANCALA_TEST_POSTGRES` names no server.
    pub(crate) fn pg_test_url(test: &str) -> Option<String> {
        let Ok(base) = std::env::var("MANCALA_TEST_POSTGRES") else {
            eprintln!("skipped on PostgreSQL ({test}): MANCALA_TEST_POSTGRES is not set");
            return None;
        };
        Some(db::fresh_schema(&base).expect("MANCALA_TEST_POSTGRES names a server"))
    }

    /// Each store test, on SQLite and (where a server is given) on PostgreSQL.
    fn on_both(test: &str, f: impl Fn(&dyn Fn() -> Store)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.db");
        f(&|| Store::open(&path).unwrap());
        if let Some(url) = pg_test_url(test) {
            f(&|| Store::connect(&url).unwrap());
        }
    }

    #[test]
    fn migrates_and_round_trips() {
        on_both("migrates_and_round_trips", |open| {
            let s = open();
            let n = match s.kind() {
                Kind::Sqlite => MIGRATIONS.len(),
                Kind::Postgres => PG_MIGRATIONS.len(),
            };
            assert_eq!(s.schema_version().unwrap() as usize, n);
            round_trip(s, open);
        });
    }

    fn round_trip(s: Store, open: &dyn Fn() -> Store) {
        let g = GameRow {
            id: "abc".into(),
            start: "kalah/3-3-3-3-3-3/0/3-3-3-3-3-3/0/s".into(),
            created_ms: 1_765_000_000_000,
            ai: [false, true],
            bots: [false, false],
            ai_level: Some(3),
            tokens: [Some("t".into()), None],
            names: [Some("Ann".into()), None],
            invite: None,
            resigned: None,
            interrupted: false,
            seed: -9,
            between: Between::default(),
        };
        s.create_game(&g).wait().unwrap();
        let m = MoveRow {
            ply: 0,
            pit: 2,
            eval: None,
            depth: None,
            time_ms: None,
        };
        s.add_move("abc", &m, None).wait().unwrap();
        assert!(
            s.add_move("abc", &m, None).wait().is_err(),
            "a ply is stored once"
        );
        // A failed write leaves the others of its batch alone.
        let a = s.add_move("abc", &m, None);
        let b = s.add_move(
            "abc",
            &MoveRow {
                ply: 1,
                eval: Some(-4),
                depth: Some(12),
                time_ms: Some(1500),
                ..m
            },
            None,
        );
        assert!(a.wait().is_err());
        b.wait().unwrap();
        drop(s);
        let s = open();
        let (row, moves) = s.load_game("abc").unwrap().unwrap();
        assert_eq!(row, g);
        assert_eq!(moves.len(), 2);
        assert_eq!(moves[0], m);
        assert_eq!(
            (moves[1].eval, moves[1].depth, moves[1].time_ms),
            (Some(-4), Some(12), Some(1500))
        );
        s.truncate("abc", 0).wait().unwrap();
        assert!(s.load_game("abc").unwrap().unwrap().1.is_empty());
        assert!(s.load_game("nope").unwrap().is_none());
        // A seat is claimed once, with the invitation.
        assert!(
            s.claim_seat("abc", 1, "tok", Some("Bo"), 1).wait().is_err(),
            "no invitation"
        );
        s.create_game(&GameRow {
            id: "inv".into(),
            invite: Some("code".into()),
            ..g.clone()
        })
        .wait()
        .unwrap();
        s.claim_seat("inv", 1, "tok", Some("Bo"), 1).wait().unwrap();
        assert!(
            s.claim_seat("inv", 1, "tok2", None, 1).wait().is_err(),
            "taken"
        );
        s.set_resigned("inv", 1).wait().unwrap();
        let (row, _) = s.load_game("inv").unwrap().unwrap();
        assert_eq!(
            (
                row.tokens[1].as_deref(),
                row.names[1].as_deref(),
                row.resigned
            ),
            (Some("tok"), Some("Bo"), Some(1))
        );
        // A KGP bot's seat is its own kind, and its games are listed.
        let bot = GameRow {
            id: "kgp1".into(),
            created_ms: 2,
            bots: [true, false],
            tokens: [None, None],
            names: [Some("bot".into()), None],
            ..g.clone()
        };
        s.create_game(&bot).wait().unwrap();
        assert_eq!(s.load_game("kgp1").unwrap().unwrap().0, bot);
        assert_eq!(s.bot_games(10).unwrap(), vec!["kgp1".to_string()]);
        assert_eq!(s.open_bot_games().unwrap(), vec!["kgp1".to_string()]);
        s.set_interrupted("kgp1").wait().unwrap();
        assert!(s.open_bot_games().unwrap().is_empty());
        assert!(s.load_game("kgp1").unwrap().unwrap().0.interrupted);
    }

    /// The move that ends a rated game between accounts and the ratings it gives commit
    /// together: where the ratings cannot be written the move is refused too, and where they
    /// can both are stored.
    #[test]
    fn a_final_move_and_its_ratings_commit_together() {
        use mancala_core::{Game, Position};
        on_both("a_final_move_and_its_ratings_commit_together", |open| {
            let s = open();
            let start: Position = "kalah/0-0-0-0-0-1/16/1-1-0-0-0-0/17/s".parse().unwrap();
            let pit = (0..6)
                .find(|&p| {
                    let mut g = Game::new(start);
                    g.play(p).is_ok() && g.outcome().is_some()
                })
                .expect("a move that ends the game");
            s.write(|c| {
                c.batch(
                    "INSERT INTO users (name, name_key, password, created_ms)
                     VALUES ('a', 'a', 'x', 0), ('b', 'b', 'x', 0)",
                )
            })
            .wait()
            .unwrap();
            let users = s
                .with(|c| {
                    c.query("SELECT id FROM users ORDER BY name_key", &[])?
                        .iter()
                        .map(|r| r.int(0))
                        .collect::<anyhow::Result<Vec<i64>>>()
                })
                .unwrap();
            for id in ["ends", "refused"] {
                s.create_game(&GameRow {
                    id: id.into(),
                    start: start.to_string(),
                    created_ms: 1,
                    ai: [false, false],
                    bots: [false, false],
                    ai_level: None,
                    tokens: [Some("s".into()), Some("n".into())],
                    names: [None, None],
                    invite: None,
                    resigned: None,
                    interrupted: false,
                    seed: 1,
                    between: Between::default(),
                })
                .wait()
                .unwrap();
                let (s_user, n_user) = (users[0], users[1]);
                s.write(move |c| {
                    c.exec(
                        "INSERT INTO account_games (game_id, rules, rated, south_user, north_user,
                            created_ms) VALUES ($1, 'kalah', 1, $2, $3, 0)",
                        vals![id, s_user, n_user],
                    )
                    .map(|_| ())
                })
                .wait()
                .unwrap();
            }
            let final_move = MoveRow {
                ply: 0,
                pit,
                eval: None,
                depth: None,
                time_ms: None,
            };
            let state = |id: &'static str| {
                s.with(move |c| {
                    let r = c
                        .query_opt(
                            "SELECT a.result, (SELECT COUNT(*) FROM moves WHERE game_id = $1),
                                (SELECT COUNT(*) FROM ratings),
                                (SELECT COALESCE(MAX(games), 0) FROM ratings)
                             FROM account_games a WHERE a.game_id = $1",
                            vals![id],
                        )?
                        .unwrap();
                    Ok((r.opt_text(0)?, r.int(1)?, (r.int(2)?, r.int(3)?)))
                })
                .unwrap()
            };
            s.add_move("ends", &final_move, None).wait().unwrap();
            let (result, moves, rated) = state("ends");
            assert!(result.is_some());
            assert_eq!((moves, rated), (1, (2, 1)), "the move and both ratings");
            s.write(|c| c.batch("DROP TABLE rating_history"))
                .wait()
                .unwrap();
            assert!(s.add_move("refused", &final_move, None).wait().is_err());
            assert_eq!(
                state("refused"),
                (None, 0, (2, 1)),
                "neither the move nor a rating"
            );
        });
    }

    /// The tables and columns of each schema version, as the database itself lists them.
    fn columns(s: &Store) -> Vec<(String, String)> {
        s.with(|c| {
            let sql = match c.kind() {
                Kind::Sqlite => {
                    "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p
                     WHERE m.type = 'table' ORDER BY 1, 2"
                }
                Kind::Postgres => {
                    "SELECT table_name::text, column_name::text FROM information_schema.columns
                     WHERE table_schema = current_schema() AND table_name <> 'mancala_schema'
                     ORDER BY 1, 2"
                }
            };
            c.query(sql, &[])?
                .iter()
                .map(|r| Ok((r.text(0)?, r.text(1)?)))
                .collect()
        })
        .unwrap()
    }

    #[test]
    fn both_databases_make_the_same_tables_and_columns() {
        assert_eq!(MIGRATIONS.len(), PG_MIGRATIONS.len());
        let dir = tempfile::tempdir().unwrap();
        let lite = columns(&Store::open(&dir.path().join("g.db")).unwrap());
        assert!(lite.contains(&("moves".into(), "time_ms".into())));
        if let Some(url) = pg_test_url("both_databases_make_the_same_tables_and_columns") {
            assert_eq!(columns(&Store::connect(&url).unwrap()), lite);
        }
    }

    #[test]
    fn a_newer_schema_is_refused() {
        on_both("a_newer_schema_is_refused", |open| {
            let s = open();
            s.write(|c| match c.kind() {
                Kind::Sqlite => c.batch("PRAGMA user_version = 99"),
                Kind::Postgres => c.batch("UPDATE mancala_schema SET version = 99"),
            })
            .wait()
            .unwrap();
            drop(s);
            let e = std::panic::catch_unwind(std::panic::AssertUnwindSafe(open));
            assert!(e.is_err(), "a database of schema 99 is opened");
        });
    }
}
