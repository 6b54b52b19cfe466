//! The two databases behind one small interface, so that every query of the store is written
//! once: SQLite (rusqlite, the embedded default) and PostgreSQL (the `postgres` client).
//!
//! SQL uses PostgreSQL's numbered placeholders (`$1`, `$2`); for SQLite they become `?1`,
//! `?2`. Values are [`Val`]s (an integer, a real number, a text or NULL) both ways, and an
//! integer is written to whatever integer column it meets (range-checked); a real number is
//! SQLite's `REAL` and PostgreSQL's `DOUBLE PRECISION`. Transactions and savepoints are plain
//! statements (`BEGIN`, `SAVEPOINT`, `COMMIT`), which both understand.

use std::fmt;

use anyhow::{anyhow, bail, Context};

/// A value bound to a placeholder or read from a column.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// NULL.
    Null,
    /// Any integer column.
    Int(i64),
    /// A real number: SQLite's `REAL`, PostgreSQL's `DOUBLE PRECISION` (`FLOAT8`).
    Real(f64),
    /// Any text column.
    Text(String),
}

macro_rules! int_vals {
    ($($t:ty),*) => {$(
        impl From<$t> for Val {
            fn from(v: $t) -> Val {
                Val::Int(v as i64)
            }
        }
    )*};
}
int_vals!(u8, u16, u32, i32, i64);

impl From<u64> for Val {
    fn from(v: u64) -> Val {
        Val::Int(i64::try_from(v).unwrap_or(i64::MAX))
    }
}

impl From<f64> for Val {
    fn from(v: f64) -> Val {
        Val::Real(v)
    }
}

impl From<bool> for Val {
    fn from(v: bool) -> Val {
        Val::Int(i64::from(v))
    }
}

impl From<&str> for Val {
    fn from(v: &str) -> Val {
        Val::Text(v.to_string())
    }
}

impl From<String> for Val {
    fn from(v: String) -> Val {
        Val::Text(v)
    }
}

impl From<&String> for Val {
    fn from(v: &String) -> Val {
        Val::Text(v.clone())
    }
}

impl<T: Into<Val>> From<Option<T>> for Val {
    fn from(v: Option<T>) -> Val {
        v.map_or(Val::Null, Into::into)
    }
}

/// Placeholders' values: `vals![a, b, c]`.
macro_rules! vals {
    ($($v:expr),* $(,)?) => { &[$($crate::db::Val::from($v)),*][..] };
}
pub(crate) use vals;

/// One row of a query's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Row(pub Vec<Val>);

impl Row {
    fn get(&self, i: usize) -> anyhow::Result<&Val> {
        self.0
            .get(i)
            .ok_or_else(|| anyhow!("the query answered no column {i}"))
    }
    /// Column `i`, an integer or NULL.
    pub fn opt_int(&self, i: usize) -> anyhow::Result<Option<i64>> {
        match self.get(i)? {
            Val::Null => Ok(None),
            Val::Int(v) => Ok(Some(*v)),
            Val::Real(_) => bail!("column {i} is a real number, not an integer"),
            Val::Text(_) => bail!("column {i} is a text, not an integer"),
        }
    }
    /// Column `i`, an integer.
    pub fn int(&self, i: usize) -> anyhow::Result<i64> {
        self.opt_int(i)?
            .ok_or_else(|| anyhow!("column {i} is NULL, not an integer"))
    }
    /// Column `i` as a `T` (a narrower integer), or NULL.
    pub fn opt_num<T: TryFrom<i64>>(&self, i: usize) -> anyhow::Result<Option<T>> {
        self.opt_int(i)?
            .map(|v| T::try_from(v).map_err(|_| anyhow!("column {i} holds {v}, out of range")))
            .transpose()
    }
    /// Column `i` as a `T` (a narrower integer).
    pub fn num<T: TryFrom<i64>>(&self, i: usize) -> anyhow::Result<T> {
        self.opt_num(i)?
            .ok_or_else(|| anyhow!("column {i} is NULL, not an integer"))
    }
    /// Column `i`, a text or NULL.
    pub fn opt_text(&self, i: usize) -> anyhow::Result<Option<String>> {
        match self.get(i)? {
            Val::Null => Ok(None),
            Val::Text(s) => Ok(Some(s.clone())),
            Val::Int(_) | Val::Real(_) => bail!("column {i} is a number, not a text"),
        }
    }
    /// Column `i`, a text.
    pub fn text(&self, i: usize) -> anyhow::Result<String> {
        self.opt_text(i)?
            .ok_or_else(|| anyhow!("column {i} is NULL, not a text"))
    }
    /// Column `i`, a real number or NULL (an integer is read as one too: SQLite answers an
    /// expression over integers as an integer).
    pub fn opt_real(&self, i: usize) -> anyhow::Result<Option<f64>> {
        match self.get(i)? {
            Val::Null => Ok(None),
            Val::Real(v) => Ok(Some(*v)),
            Val::Int(v) => Ok(Some(*v as f64)),
            Val::Text(_) => bail!("column {i} is a text, not a number"),
        }
    }
    /// Column `i`, a real number.
    pub fn real(&self, i: usize) -> anyhow::Result<f64> {
        self.opt_real(i)?
            .ok_or_else(|| anyhow!("column {i} is NULL, not a number"))
    }
}

/// Which database a connection speaks to (for the few statements that differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// SQLite.
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Sqlite => "SQLite",
            Kind::Postgres => "PostgreSQL",
        })
    }
}

/// A connection to either database.
pub trait Conn {
    /// Which database it is.
    fn kind(&self) -> Kind;
    /// Runs one statement; answers the rows it changed.
    fn exec(&mut self, sql: &str, params: &[Val]) -> anyhow::Result<u64>;
    /// Runs one query; answers its rows.
    fn query(&mut self, sql: &str, params: &[Val]) -> anyhow::Result<Vec<Row>>;
    /// Runs statements with no placeholders, separated by semicolons.
    fn batch(&mut self, sql: &str) -> anyhow::Result<()>;

    /// The first row of a query, or `None`.
    fn query_opt(&mut self, sql: &str, params: &[Val]) -> anyhow::Result<Option<Row>> {
        Ok(self.query(sql, params)?.into_iter().next())
    }
}

/// `$N` placeholders as SQLite's `?N` (the store's SQL has no `$` elsewhere).
fn sqlite_sql(sql: &str) -> std::borrow::Cow<'_, str> {
    if sql.contains('$') {
        sql.replace('$', "?").into()
    } else {
        sql.into()
    }
}

impl rusqlite::ToSql for Val {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(match self {
            Val::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Val::Int(v) => ToSqlOutput::Borrowed(ValueRef::Integer(*v)),
            Val::Real(v) => ToSqlOutput::Borrowed(ValueRef::Real(*v)),
            Val::Text(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
        })
    }
}

impl Conn for rusqlite::Connection {
    fn kind(&self) -> Kind {
        Kind::Sqlite
    }

    fn exec(&mut self, sql: &str, params: &[Val]) -> anyhow::Result<u64> {
        let mut st = self.prepare_cached(&sqlite_sql(sql))?;
        Ok(st.execute(rusqlite::params_from_iter(params))? as u64)
    }

    fn query(&mut self, sql: &str, params: &[Val]) -> anyhow::Result<Vec<Row>> {
        use rusqlite::types::ValueRef;
        let mut st = self.prepare_cached(&sqlite_sql(sql))?;
        let n = st.column_count();
        let mut rows = st.query(rusqlite::params_from_iter(params))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let mut row = Vec::with_capacity(n);
            for i in 0..n {
                row.push(match r.get_ref(i)? {
                    ValueRef::Null => Val::Null,
                    ValueRef::Integer(v) => Val::Int(v),
                    ValueRef::Real(v) => Val::Real(v),
                    ValueRef::Text(t) => Val::Text(
                        std::str::from_utf8(t)
                            .context("a text column holds bytes that are not UTF-8")?
                            .to_string(),
                    ),
                    other => bail!("column {i} holds a {:?}", other.data_type()),
                });
            }
            out.push(Row(row));
        }
        Ok(out)
    }

    fn batch(&mut self, sql: &str) -> anyhow::Result<()> {
        Ok(self.execute_batch(sql)?)
    }
}

mod pg {
    use super::*;
    use postgres::types::{to_sql_checked, IsNull, ToSql, Type};

    impl ToSql for Val {
        fn to_sql(
            &self,
            ty: &Type,
            out: &mut bytes::BytesMut,
        ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
            match self {
                Val::Null => Ok(IsNull::Yes),
                Val::Int(v) => match *ty {
                    Type::INT2 => i16::try_from(*v)?.to_sql(ty, out),
                    Type::INT4 => i32::try_from(*v)?.to_sql(ty, out),
                    Type::BOOL => (*v != 0).to_sql(ty, out),
                    Type::FLOAT8 => (*v as f64).to_sql(ty, out),
                    _ => v.to_sql(ty, out),
                },
                Val::Real(v) => match *ty {
                    Type::FLOAT8 => v.to_sql(ty, out),
                    Type::FLOAT4 => (*v as f32).to_sql(ty, out),
                    _ => Err(format!("a real number bound to a {ty} column").into()),
                },
                Val::Text(s) => s.to_sql(ty, out),
            }
        }

        fn accepts(ty: &Type) -> bool {
            matches!(
                *ty,
                Type::INT2
                    | Type::INT4
                    | Type::INT8
                    | Type::BOOL
                    | Type::FLOAT4
                    | Type::FLOAT8
                    | Type::TEXT
                    | Type::VARCHAR
                    | Type::BPCHAR
                    | Type::NAME
                    | Type::UNKNOWN
            )
        }

        to_sql_checked!();
    }

    fn column(r: &postgres::Row, i: usize) -> anyhow::Result<Val> {
        let ty = r.columns()[i].type_().clone();
        let v = match ty {
            Type::INT2 => r.try_get::<_, Option<i16>>(i)?.map(|v| Val::Int(v.into())),
            Type::INT4 => r.try_get::<_, Option<i32>>(i)?.map(|v| Val::Int(v.into())),
            Type::INT8 => r.try_get::<_, Option<i64>>(i)?.map(Val::Int),
            Type::BOOL => r.try_get::<_, Option<bool>>(i)?.map(|v| Val::Int(v.into())),
            Type::FLOAT4 => r.try_get::<_, Option<f32>>(i)?.map(|v| Val::Real(v.into())),
            Type::FLOAT8 => r.try_get::<_, Option<f64>>(i)?.map(Val::Real),
            _ => r.try_get::<_, Option<String>>(i)?.map(Val::Text),
        };
        Ok(v.unwrap_or(Val::Null))
    }

    fn refs(params: &[Val]) -> Vec<&(dyn ToSql + Sync)> {
        params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
    }

    impl Conn for postgres::Client {
        fn kind(&self) -> Kind {
            Kind::Postgres
        }

        fn exec(&mut self, sql: &str, params: &[Val]) -> anyhow::Result<u64> {
            Ok(self.execute(sql, &refs(params))?)
        }

        fn query(&mut self, sql: &str, params: &[Val]) -> anyhow::Result<Vec<Row>> {
            let rows = postgres::Client::query(self, sql, &refs(params))?;
            rows.iter()
                .map(|r| {
                    Ok(Row((0..r.len())
                        .map(|i| column(r, i))
                        .collect::<anyhow::Result<_>>()?))
                })
                .collect()
        }

        fn batch(&mut self, sql: &str) -> anyhow::Result<()> {
            Ok(self.batch_execute(sql)?)
        }
    }
}

/// Whether `db` names a PostgreSQL database (`postgres://` or `postgresql://`) rather than a
/// SQLite file.
pub fn is_postgres_url(db: &str) -> bool {
    db.starts_with("postgres://") || db.starts_with("postgresql://")
}

/// A PostgreSQL address without its password, to print: `postgres://USER@HOST/DB`.
pub fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    match rest.rsplit_once('@') {
        Some((user, host)) => {
            let user = user.split_once(':').map_or(user, |(u, _)| u);
            format!("{scheme}://{user}@{host}")
        }
        None => url.to_string(),
    }
}

/// Runs `f` on a thread of its own: the `postgres` client runs a runtime of its own, which
/// may be neither started nor dropped on an async task's thread.
pub fn off_runtime<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| match s.spawn(f).join() {
        Ok(v) => v,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}

/// Connects to PostgreSQL at `url` (no TLS: a database on this machine or a private network).
pub fn pg_connect(url: &str) -> anyhow::Result<postgres::Client> {
    let config: postgres::Config = url.parse().map_err(|e| {
        anyhow!("not a PostgreSQL address ({e}): write postgres://USER:PASSWORD@HOST/DB")
    })?;
    config
        .connect(postgres::NoTls)
        .map_err(|e| anyhow::Error::new(e).context("cannot connect to PostgreSQL"))
}

/// Makes an empty schema (a random name) in the PostgreSQL database at `url` and answers the
/// address whose connections use it: one database server shared by tests, or by instances
/// that must not see each other's games.
pub fn fresh_schema(url: &str) -> anyhow::Result<String> {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).map_err(|e| anyhow!("no randomness: {e}"))?;
    let schema = format!("t_{:016x}", u64::from_le_bytes(b));
    off_runtime(|| pg_connect(url)?.batch(&format!("CREATE SCHEMA {schema}")))?;
    let sep = if url.contains('?') { '&' } else { '?' };
    Ok(format!("{url}{sep}options=-csearch_path%3D{schema}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_not_printed() {
        assert_eq!(
            redacted("postgres://ann:s3cr:et@db.example:5432/m?x=1"),
            "postgres://ann@db.example:5432/m?x=1"
        );
        assert_eq!(redacted("postgresql://db/m"), "postgresql://db/m");
    }

    #[test]
    fn placeholders_become_sqlite_s() {
        assert_eq!(
            sqlite_sql("UPDATE g SET a = $2 WHERE id = $1"),
            "UPDATE g SET a = ?2 WHERE id = ?1"
        );
    }

    #[test]
    fn sqlite_answers_values_of_each_kind_and_binds_out_of_order_placeholders() {
        let mut c = rusqlite::Connection::open_in_memory().unwrap();
        c.batch("CREATE TABLE t (a INTEGER, b TEXT, r REAL)")
            .unwrap();
        assert_eq!(
            c.exec("INSERT INTO t (b, a) VALUES ($2, $1)", vals![7, "x"])
                .unwrap(),
            1
        );
        c.exec(
            "INSERT INTO t (a, b) VALUES ($1, $2)",
            vals![None::<i64>, None::<String>],
        )
        .unwrap();
        let rows = c.query("SELECT a, b FROM t ORDER BY a", &[]).unwrap();
        assert_eq!(rows[0], Row(vec![Val::Null, Val::Null]));
        assert_eq!(rows[1].int(0).unwrap(), 7);
        assert_eq!(rows[1].text(1).unwrap(), "x");
        assert!(rows[1].text(0).is_err());
        assert!(rows[0].int(0).is_err());
        assert_eq!(rows[1].num::<u8>(0).unwrap(), 7);
        assert!(Row(vec![Val::Int(300)]).num::<u8>(0).is_err());
        c.exec("UPDATE t SET r = $1 WHERE a = 7", vals![1464.05_f64])
            .unwrap();
        let r = c
            .query_opt("SELECT r, a FROM t WHERE a = 7", &[])
            .unwrap()
            .unwrap();
        assert_eq!(r.real(0).unwrap(), 1464.05);
        assert_eq!(r.real(1).unwrap(), 7.0, "an integer read as a number");
        assert!(r.int(0).is_err() && r.text(0).is_err());
        assert_eq!(rows[0].opt_real(0).unwrap(), None);
    }
}
