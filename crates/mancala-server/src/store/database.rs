//! The store itself: a SQLite file or a PostgreSQL database opened and migrated, the reading
//! connection(s), and the one writer thread that commits whatever is queued together.

use std::path::Path;
use std::sync::{mpsc, Arc, Mutex};

use anyhow::{anyhow, Context};
use rusqlite::Connection;

use super::migrations::{migrate, schema_version};
use super::notify::{listen_loop, Change, LOBBY_CHANNEL};
use crate::db::{self, vals, Conn, Kind};
use crate::ids::random_hex;

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
    pub(super) instance: Arc<str>,
    /// The games other servers on the same database changed ([`Store::take_changes`]).
    changes: Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<Change>>>,
    /// What other servers on the same database changed in the lobby
    /// ([`Store::lobby_changes`]).
    lobby: tokio::sync::broadcast::Sender<Change>,
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
            instance: Arc::from(random_hex(8)),
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
        let instance: Arc<str> = Arc::from(random_hex(8));
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
}
