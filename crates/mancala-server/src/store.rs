//! SQLite storage of games and their moves (rusqlite, WAL mode, `synchronous=FULL`).
//!
//! Schema versions live in `PRAGMA user_version`; [`MIGRATIONS`] are applied in order, each in
//! its own transaction, on every open. A database written by a newer server is refused.
//! A move is committed here before the server acknowledges it.
//!
//! Writes go to one writer thread that commits whatever is queued in one transaction (group
//! commit: each write in its own savepoint, one fsync for the batch) and then answers each
//! caller; reads use their own connection (WAL lets them run beside the writer).

use std::path::Path;
use std::sync::mpsc;
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension};

/// Every schema change, in order; index `k` takes the schema from version `k` to `k + 1`.
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
    // 4: accounts, their sessions, the games between accounts and the ratings.
    crate::ratings::SCHEMA,
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

type Job = Box<dyn FnOnce(&Connection) -> rusqlite::Result<()> + Send>;

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
            .unwrap_or_else(|_| Err(anyhow::anyhow!("the database writer stopped")))
    }
    /// Waits for the commit from an async task.
    pub async fn done(self) -> anyhow::Result<()> {
        self.0
            .await
            .unwrap_or_else(|_| Err(anyhow::anyhow!("the database writer stopped")))
    }
}

/// The game database: a connection for reads and a queue to the one writer thread.
pub struct Store {
    read: Mutex<Connection>,
    writer: Mutex<mpsc::Sender<WriteReq>>,
}

/// Most writes committed in one transaction.
const BATCH: usize = 256;

fn writer_loop(mut conn: Connection, rx: mpsc::Receiver<WriteReq>) {
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        while batch.len() < BATCH {
            match rx.try_recv() {
                Ok(r) => batch.push(r),
                Err(_) => break,
            }
        }
        let mut jobs = Vec::with_capacity(batch.len());
        let mut dones = Vec::with_capacity(batch.len());
        for r in batch {
            jobs.push(r.job);
            dones.push(r.done);
        }
        let mut results: Vec<anyhow::Result<()>> = (0..jobs.len()).map(|_| Ok(())).collect();
        let outcome = (|| -> rusqlite::Result<()> {
            let tx = conn.transaction()?;
            for (k, job) in jobs.into_iter().enumerate() {
                tx.execute_batch("SAVEPOINT w")?;
                match job(&tx) {
                    Ok(()) => tx.execute_batch("RELEASE w")?,
                    Err(e) => {
                        tx.execute_batch("ROLLBACK TO w; RELEASE w")?;
                        results[k] = Err(e.into());
                    }
                }
            }
            tx.commit()
        })();
        if let Err(e) = outcome {
            for r in results.iter_mut() {
                *r = Err(anyhow::anyhow!("commit failed: {e}"));
            }
        }
        // Answer only now: the batch is on disk.
        for (done, r) in dones.into_iter().zip(results) {
            let _ = done.send(r);
        }
    }
}

/// The wall clock in milliseconds since the Unix epoch (0 if the clock is set before it).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
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

impl Store {
    /// Opens (creating it if needed) and migrates the database at `path`; its folder must
    /// exist.
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
        std::thread::Builder::new()
            .name("mancala-db-writer".into())
            .spawn(move || writer_loop(conn, rx))?;
        Ok(Store {
            read: Mutex::new(read),
            writer: Mutex::new(tx),
        })
    }

    pub(crate) fn with<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T>,
    ) -> anyhow::Result<T> {
        let mut c = self.read.lock().unwrap_or_else(|e| e.into_inner());
        Ok(f(&mut c)?)
    }

    /// Queues a write for the writer thread.
    pub(crate) fn write(
        &self,
        job: impl FnOnce(&Connection) -> rusqlite::Result<()> + Send + 'static,
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
            let _ = req
                .done
                .send(Err(anyhow::anyhow!("the database writer stopped")));
        }
        Pending(rx)
    }

    /// The schema version of the open database (`PRAGMA user_version`): the number of
    /// [`MIGRATIONS`] applied.
    pub fn schema_version(&self) -> anyhow::Result<u32> {
        self.with(|c| c.query_row("PRAGMA user_version", [], |r| r.get(0)))
    }

    /// Queues the insertion of a new game's row.
    pub fn create_game(&self, g: &GameRow) -> Pending {
        let g = g.clone();
        self.write(move |c| {
            c.execute(
                "INSERT INTO games (id, start, created_ms, updated_ms, south_kind, north_kind,
                    ai_level, south_token, north_token, invite, resigned, seed, south_name, north_name)
                 VALUES (?1, ?2, ?3, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                params![
                    g.id,
                    g.start,
                    g.created_ms,
                    kind(g.ai[0], g.bots[0]),
                    kind(g.ai[1], g.bots[1]),
                    g.ai_level,
                    g.tokens[0],
                    g.tokens[1],
                    g.invite,
                    g.resigned.map(side_name),
                    g.seed,
                    g.names[0],
                    g.names[1],
                ],
            )
            .map(|_| ())
        })
    }

    /// The game and its moves in order, or `None`.
    pub fn load_game(&self, id: &str) -> anyhow::Result<Option<(GameRow, Vec<MoveRow>)>> {
        self.with(|c| {
            let row = c
                .query_row(
                    "SELECT id, start, created_ms, south_kind, north_kind, ai_level, south_token,
                        north_token, invite, resigned, seed, south_name, north_name,
                        interrupted_ms
                     FROM games WHERE id = ?1",
                    [id],
                    |r| {
                        let kinds = [r.get::<_, String>(3)?, r.get::<_, String>(4)?];
                        Ok(GameRow {
                            id: r.get(0)?,
                            start: r.get(1)?,
                            created_ms: r.get(2)?,
                            ai: kinds.clone().map(|k| k == "ai"),
                            bots: kinds.map(|k| k == "kgp"),
                            ai_level: r.get(5)?,
                            tokens: [r.get(6)?, r.get(7)?],
                            invite: r.get(8)?,
                            resigned: r
                                .get::<_, Option<String>>(9)?
                                .map(|s| u8::from(s == "north")),
                            seed: r.get(10)?,
                            names: [r.get(11)?, r.get(12)?],
                            interrupted: r.get::<_, Option<i64>>(13)?.is_some(),
                        })
                    },
                )
                .optional()?;
            let Some(row) = row else { return Ok(None) };
            let mut st = c.prepare_cached(
                "SELECT ply, pit, eval, depth, time_ms FROM moves WHERE game_id = ?1 ORDER BY ply",
            )?;
            let moves = st
                .query_map([id], |r| {
                    Ok(MoveRow {
                        ply: r.get(0)?,
                        pit: r.get(1)?,
                        eval: r.get(2)?,
                        depth: r.get(3)?,
                        time_ms: r.get::<_, Option<i64>>(4)?.map(|t| t.max(0) as u64),
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(Some((row, moves)))
        })
    }

    /// Appends a move; its ply must be the next one (the primary key refuses a duplicate).
    pub fn add_move(&self, id: &str, m: &MoveRow) -> Pending {
        let (id, m) = (id.to_string(), *m);
        self.write(move |tx| {
            tx.execute(
                "INSERT INTO moves (game_id, ply, pit, eval, depth, time_ms, created_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    id,
                    m.ply,
                    m.pit,
                    m.eval,
                    m.depth,
                    m.time_ms.map(|t| t as i64),
                    now_ms()
                ],
            )?;
            tx.execute(
                "UPDATE games SET updated_ms = ?2 WHERE id = ?1",
                params![id, now_ms()],
            )?;
            // A game between accounts that this move ends is settled with it.
            crate::ratings::settle(tx, &id)
        })
    }

    /// Deletes the moves from ply `from` on (undo).
    pub fn truncate(&self, id: &str, from: u32) -> Pending {
        let id = id.to_string();
        self.write(move |c| {
            c.execute(
                "DELETE FROM moves WHERE game_id = ?1 AND ply >= ?2",
                params![id, from],
            )
            .map(|_| ())
        })
    }

    /// Queues the resignation of game `id` by `side` (0 South, 1 North).
    pub fn set_resigned(&self, id: &str, side: u8) -> Pending {
        let id = id.to_string();
        self.write(move |c| {
            c.execute(
                "UPDATE games SET resigned = ?2, updated_ms = ?3 WHERE id = ?1",
                params![id, side_name(side), now_ms()],
            )?;
            crate::ratings::settle(c, &id)
        })
    }

    /// Marks game `id` as cut off by a restart ([`GameRow::interrupted`]).
    pub fn set_interrupted(&self, id: &str) -> Pending {
        let id = id.to_string();
        self.write(move |c| {
            let now = now_ms();
            c.execute(
                "UPDATE games SET interrupted_ms = ?2, updated_ms = ?2 WHERE id = ?1",
                params![id, now],
            )
            .map(|_| ())
        })
    }

    /// Gives the open seat `side` its token and name, and spends the invitation.
    pub fn claim_seat(&self, id: &str, side: u8, token: &str, name: Option<&str>) -> Pending {
        let sql = if side == 0 {
            "UPDATE games SET south_token = ?2, south_name = ?3, invite = NULL WHERE id = ?1"
        } else {
            "UPDATE games SET north_token = ?2, north_name = ?3, invite = NULL WHERE id = ?1"
        };
        let (id, token, name) = (id.to_string(), token.to_string(), name.map(str::to_string));
        self.write(move |c| c.execute(sql, params![id, token, name]).map(|_| ()))
    }

    /// Ids of the `limit` newest games with a KGP bot, newest first.
    pub fn bot_games(&self, limit: u32) -> anyhow::Result<Vec<String>> {
        self.with(|c| {
            let mut st = c.prepare_cached(
                "SELECT id FROM games WHERE south_kind = 'kgp' OR north_kind = 'kgp'
                 ORDER BY created_ms DESC, id LIMIT ?1",
            )?;
            let ids = st
                .query_map([limit], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>();
            ids
        })
    }

    /// Ids of the KGP bots' games neither resigned nor already marked as interrupted, for
    /// marking those a restart cut off.
    pub fn open_bot_games(&self) -> anyhow::Result<Vec<String>> {
        self.with(|c| {
            let mut st = c.prepare(
                "SELECT id FROM games WHERE (south_kind = 'kgp' OR north_kind = 'kgp')
                 AND resigned IS NULL AND interrupted_ms IS NULL",
            )?;
            let ids = st
                .query_map([], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>();
            ids
        })
    }

    /// Ids of games (not resigned, changed in the last week) where the computer plays, for
    /// resuming after a restart.
    pub fn ai_games(&self) -> anyhow::Result<Vec<String>> {
        self.with(|c| {
            let mut st = c.prepare(
                "SELECT id FROM games WHERE resigned IS NULL
                 AND (south_kind = 'ai' OR north_kind = 'ai') AND updated_ms > ?1
                 ORDER BY updated_ms DESC LIMIT 1000",
            )?;
            let week = 7 * 24 * 3600 * 1000;
            let ids = st
                .query_map([now_ms() - week], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>();
            ids
        })
    }
}

fn migrate(conn: &mut Connection) -> anyhow::Result<()> {
    let version: u32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version as usize > MIGRATIONS.len() {
        anyhow::bail!(
            "the database has schema version {version}, newer than this server's {}",
            MIGRATIONS.len()
        );
    }
    for (k, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (k + 1) as u32)?;
        tx.commit()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrates_and_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.db");
        let s = Store::open(&path).unwrap();
        assert_eq!(s.schema_version().unwrap() as usize, MIGRATIONS.len());
        let g = GameRow {
            id: "abc".into(),
            start: "kalah/3-3-3-3-3-3/0/3-3-3-3-3-3/0/s".into(),
            created_ms: 1,
            ai: [false, true],
            bots: [false, false],
            ai_level: Some(3),
            tokens: [Some("t".into()), None],
            names: [Some("Ann".into()), None],
            invite: None,
            resigned: None,
            interrupted: false,
            seed: 9,
        };
        s.create_game(&g).wait().unwrap();
        let m = MoveRow {
            ply: 0,
            pit: 2,
            eval: None,
            depth: None,
            time_ms: None,
        };
        s.add_move("abc", &m).wait().unwrap();
        assert!(
            s.add_move("abc", &m).wait().is_err(),
            "a ply is stored once"
        );
        // A failed write leaves the others of its batch alone.
        let a = s.add_move("abc", &m);
        let b = s.add_move("abc", &MoveRow { ply: 1, ..m });
        assert!(a.wait().is_err());
        b.wait().unwrap();
        drop(s);
        let s = Store::open(&path).unwrap();
        let (row, moves) = s.load_game("abc").unwrap().unwrap();
        assert_eq!(row, g);
        assert_eq!(moves, vec![m, MoveRow { ply: 1, ..m }]);
        s.truncate("abc", 0).wait().unwrap();
        assert!(s.load_game("abc").unwrap().unwrap().1.is_empty());
        assert!(s.load_game("nope").unwrap().is_none());
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
    }
}
