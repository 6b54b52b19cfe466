//! The schema: every change of a SQLite database and the same for PostgreSQL, in order, and
//! their application when a database is opened.

use anyhow::Context;

use crate::db::{vals, Conn, Kind};

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

/// The schema version: SQLite's `user_version`, PostgreSQL's `mancala_schema` row (0 before
/// the first migration).
pub(super) fn schema_version(c: &mut dyn Conn) -> anyhow::Result<u32> {
    let row = match c.kind() {
        Kind::Sqlite => c.query_opt("PRAGMA user_version", &[])?,
        Kind::Postgres => {
            c.batch("CREATE TABLE IF NOT EXISTS mancala_schema (version BIGINT NOT NULL)")?;
            c.query_opt("SELECT version FROM mancala_schema", &[])?
        }
    };
    row.map_or(Ok(0), |r| r.num(0))
}

pub(super) fn migrate(c: &mut dyn Conn) -> anyhow::Result<()> {
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
