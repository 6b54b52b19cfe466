//! Accounts: names, passwords hashed with argon2id, sessions, and the login rate limit.
//!
//! Accounts are optional: a guest plays with the seat token each game hands out. An account
//! (a name and a password) is needed for rated games and a profile. Its session is a random
//! secret in an `HttpOnly` cookie; the database keeps only the secret's SHA-256, and a
//! password only as its argon2id hash (PHC string). Neither a password nor a hash is ever
//! answered or printed.
//!
//! The functions here work on a [`Store`] directly, so that `mancala user` (the person running
//! the server) and the HTTP routes ([`crate::account_api`]) share them.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use sha2::{Digest, Sha256};

use crate::clock::now_ms;
use crate::db::{vals, Row};
use crate::ids::random_hex;
use crate::store::Store;

/// Shortest and longest account name, in characters.
pub const NAME_LEN: std::ops::RangeInclusive<usize> = 2..=24;
/// Shortest password in characters, and longest in bytes.
pub const PASSWORD_MIN_CHARS: usize = 8;
/// Longest password in bytes (argon2 takes any length; this bounds the work a request asks).
pub const PASSWORD_MAX_BYTES: usize = 1024;
/// How long a session lasts after login.
pub const SESSION_DAYS: i64 = 30;
/// The session cookie's name.
pub const COOKIE: &str = "mancala_session";

/// Why a name or password is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CredentialError {
    /// The name's length is outside [`NAME_LEN`].
    #[error("a name has 2 to 24 characters")]
    NameLength,
    /// The name holds a character other than an ASCII letter, digit, `_` or `-`.
    #[error("a name holds only letters a-z and A-Z, digits, `_` and `-`")]
    NameChars,
    /// The password is shorter than [`PASSWORD_MIN_CHARS`].
    #[error("a password has at least 8 characters")]
    PasswordShort,
    /// The password is longer than [`PASSWORD_MAX_BYTES`].
    #[error("a password has at most 1024 bytes")]
    PasswordLong,
}

impl CredentialError {
    /// The translation key of the message.
    pub fn key(&self) -> &'static str {
        match self {
            CredentialError::NameLength => "server.account.name-length",
            CredentialError::NameChars => "server.account.name-chars",
            CredentialError::PasswordShort => "server.account.password-short",
            CredentialError::PasswordLong => "server.account.password-long",
        }
    }
}

/// Checks an account name: 2 to 24 ASCII letters, digits, `_` or `-`. Names are unique
/// without regard to case ([`name_key`]); the name keeps the case it was given.
pub fn check_name(name: &str) -> Result<(), CredentialError> {
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(CredentialError::NameChars);
    }
    if !NAME_LEN.contains(&name.len()) {
        return Err(CredentialError::NameLength);
    }
    Ok(())
}

/// The key a name is unique by: its lowercase form.
pub fn name_key(name: &str) -> String {
    name.to_ascii_lowercase()
}

/// Checks a new password's length (any characters are allowed).
pub fn check_password(password: &str) -> Result<(), CredentialError> {
    if password.len() > PASSWORD_MAX_BYTES {
        return Err(CredentialError::PasswordLong);
    }
    if password.chars().count() < PASSWORD_MIN_CHARS {
        return Err(CredentialError::PasswordShort);
    }
    Ok(())
}

/// The argon2id hash of `password` with a fresh random salt, as a PHC string (the crate's
/// default parameters: 19 MiB, 2 passes, 1 lane).
pub fn hash_password(password: &str) -> anyhow::Result<String> {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).map_err(|e| anyhow::anyhow!("no random salt: {e}"))?;
    let salt = SaltString::encode_b64(&salt).map_err(|e| anyhow::anyhow!("salt: {e}"))?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| anyhow::anyhow!("hashing the password: {e}"))
}

/// Whether `password` matches the PHC string `hash` (false for a malformed hash).
pub fn verify_password(hash: &str, password: &str) -> bool {
    match PasswordHash::new(hash) {
        Ok(h) => Argon2::default()
            .verify_password(password.as_bytes(), &h)
            .is_ok(),
        Err(_) => false,
    }
}

/// A hash no password is checked against successfully in practice, verified when a login
/// names no account so that an unknown name takes as long as a wrong password.
fn decoy_hash() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| {
        let mut secret = [0u8; 24];
        let _ = getrandom::fill(&mut secret);
        let secret: String = secret.iter().map(|b| format!("{b:02x}")).collect();
        hash_password(&secret).unwrap_or_default()
    })
}

/// The SHA-256 of a session secret, in hex: what the database keeps of it.
pub fn session_hash(secret: &str) -> String {
    Sha256::digest(secret.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// An account as stored (without its password hash).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    /// The row id.
    pub id: i64,
    /// The name as its owner wrote it.
    pub name: String,
    /// When the account was made, in milliseconds since the Unix epoch.
    pub created_ms: i64,
    /// The account was disabled by the person running the server: it cannot log in.
    pub disabled: bool,
}

/// A user of a row whose first columns are `id, name, created_ms, disabled_ms`.
fn user_of(r: &Row) -> anyhow::Result<User> {
    Ok(User {
        id: r.int(0)?,
        name: r.text(1)?,
        created_ms: r.int(2)?,
        disabled: r.opt_int(3)?.is_some(),
    })
}

/// Why an account cannot be made or changed.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// The name or password is refused.
    #[error(transparent)]
    Credentials(#[from] CredentialError),
    /// Another account has this name (in any case).
    #[error("the name `{0}` is taken")]
    Taken(String),
    /// No account has this name.
    #[error("no account `{0}`")]
    NoSuchUser(String),
    /// The database failed.
    #[error("storage: {0}")]
    Storage(#[from] anyhow::Error),
}

/// Whether a write failed on a uniqueness constraint (either database's error).
fn is_unique_violation(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        let sqlite = c
            .downcast_ref::<rusqlite::Error>()
            .and_then(|e| e.sqlite_error_code())
            == Some(rusqlite::ErrorCode::ConstraintViolation);
        let pg = c.downcast_ref::<postgres::Error>().and_then(|e| e.code())
            == Some(&postgres::error::SqlState::UNIQUE_VIOLATION);
        sqlite || pg
    })
}

/// Makes an account; its password is hashed here.
pub fn add_user(store: &Store, name: &str, password: &str) -> Result<User, AccountError> {
    check_name(name)?;
    check_password(password)?;
    let hash = hash_password(password)?;
    let (n, key, now) = (name.to_string(), name_key(name), now_ms());
    let done = store.write(move |c| {
        c.exec(
            "INSERT INTO users (name, name_key, password, created_ms) VALUES ($1, $2, $3, $4)",
            vals![n, key, hash, now],
        )
        .map(|_| ())
    });
    match done.wait() {
        Ok(()) => {}
        Err(e) if is_unique_violation(&e) => return Err(AccountError::Taken(name.to_string())),
        Err(e) => return Err(e.into()),
    }
    user_by_name(store, name)?.ok_or_else(|| AccountError::NoSuchUser(name.to_string()))
}

/// The account named `name` (in any case), disabled or not.
pub fn user_by_name(store: &Store, name: &str) -> anyhow::Result<Option<User>> {
    let key = name_key(name);
    store.with(move |c| {
        c.query_opt(
            "SELECT id, name, created_ms, disabled_ms FROM users WHERE name_key = $1",
            vals![key],
        )?
        .as_ref()
        .map(user_of)
        .transpose()
    })
}

/// Sets a new password for `name` and ends its sessions.
pub fn reset_password(store: &Store, name: &str, password: &str) -> Result<User, AccountError> {
    check_password(password)?;
    let user = user_by_name(store, name)?.ok_or_else(|| AccountError::NoSuchUser(name.into()))?;
    let hash = hash_password(password)?;
    let id = user.id;
    store
        .write(move |c| {
            c.exec(
                "UPDATE users SET password = $2 WHERE id = $1",
                vals![id, hash],
            )?;
            c.exec("DELETE FROM sessions WHERE user_id = $1", vals![id])
                .map(|_| ())
        })
        .wait()?;
    Ok(user)
}

/// Disables `name`: it can no longer log in, its sessions end; its games and ratings stay
/// (the leaderboard leaves it out).
pub fn disable_user(store: &Store, name: &str) -> Result<User, AccountError> {
    let user = user_by_name(store, name)?.ok_or_else(|| AccountError::NoSuchUser(name.into()))?;
    let id = user.id;
    store
        .write(move |c| {
            c.exec(
                "UPDATE users SET disabled_ms = $2 WHERE id = $1 AND disabled_ms IS NULL",
                vals![id, now_ms()],
            )?;
            c.exec("DELETE FROM sessions WHERE user_id = $1", vals![id])
                .map(|_| ())
        })
        .wait()?;
    Ok(User {
        disabled: true,
        ..user
    })
}

/// What a login with a name and a password comes to.
#[derive(Debug, PartialEq, Eq)]
pub enum Login {
    /// The password is right: the account.
    Ok(User),
    /// The password is right but the account is disabled.
    Disabled,
    /// No account has this name, or the password is wrong: one answer for both.
    Refused,
}

/// Checks a name and password (blocking: argon2 takes tens of milliseconds). An unknown name
/// costs one hash check too.
pub fn check_login(store: &Store, name: &str, password: &str) -> anyhow::Result<Login> {
    let key = name_key(name);
    let row = store.with(move |c| {
        c.query_opt(
            "SELECT id, name, created_ms, disabled_ms, password FROM users WHERE name_key = $1",
            vals![key],
        )?
        .map(|r| Ok((user_of(&r)?, r.text(4)?)))
        .transpose()
    })?;
    let Some((user, hash)) = row else {
        let _ = verify_password(decoy_hash(), password);
        return Ok(Login::Refused);
    };
    if !verify_password(&hash, password) {
        return Ok(Login::Refused);
    }
    Ok(if user.disabled {
        Login::Disabled
    } else {
        Login::Ok(user)
    })
}

/// Starts a session for `user`; returns its secret (the cookie's value), which is stored
/// only as its hash.
pub fn start_session(store: &Store, user: &User) -> anyhow::Result<String> {
    let secret = random_hex(32);
    let (hash, id, now) = (session_hash(&secret), user.id, now_ms());
    let expires = now + SESSION_DAYS * 24 * 3600 * 1000;
    store
        .write(move |c| {
            // Expired sessions go whenever a new one starts.
            c.exec("DELETE FROM sessions WHERE expires_ms <= $1", vals![now])?;
            c.exec(
                "INSERT INTO sessions (id_hash, user_id, created_ms, expires_ms)
                 VALUES ($1, $2, $3, $4)",
                vals![hash, id, now, expires],
            )
            .map(|_| ())
        })
        .wait()?;
    Ok(secret)
}

/// The account whose live session has this secret; `None` for an unknown or expired session
/// or a disabled account.
pub fn session_user(store: &Store, secret: &str) -> anyhow::Result<Option<User>> {
    let hash = session_hash(secret);
    store.with(move |c| {
        c.query_opt(
            "SELECT u.id, u.name, u.created_ms, u.disabled_ms FROM sessions s
             JOIN users u ON u.id = s.user_id
             WHERE s.id_hash = $1 AND s.expires_ms > $2 AND u.disabled_ms IS NULL",
            vals![hash, now_ms()],
        )?
        .as_ref()
        .map(user_of)
        .transpose()
    })
}

/// Ends the session with this secret (nothing happens for an unknown one).
pub fn end_session(store: &Store, secret: &str) -> anyhow::Result<()> {
    let hash = session_hash(secret);
    store
        .write(move |c| {
            c.exec("DELETE FROM sessions WHERE id_hash = $1", vals![hash])
                .map(|_| ())
        })
        .wait()
}

/// The value of the session cookie in a `Cookie` header (`a=1; mancala_session=...`), if it
/// is there and looks like a secret (64 hex digits).
pub fn session_cookie(header: &str) -> Option<&str> {
    header
        .split(';')
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v.trim())
        .filter(|v| v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The `Set-Cookie` value that holds a session (`secure`: the server is reached over TLS).
pub fn set_cookie(secret: &str, secure: bool) -> String {
    let max_age = SESSION_DAYS * 24 * 3600;
    let secure = if secure { "; Secure" } else { "" };
    format!("{COOKIE}={secret}; Path=/; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}")
}

/// The `Set-Cookie` value that removes the session cookie.
pub fn clear_cookie(secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax{secure}")
}

/// The parts of an `Origin` header: its scheme and its authority (`host[:port]`), lowercase;
/// `None` for `null` or anything that is not `scheme://authority` with no path.
pub fn parse_origin(origin: &str) -> Option<(String, String)> {
    let (scheme, rest) = origin.trim().split_once("://")?;
    if scheme.is_empty() || !scheme.bytes().all(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    let authority = rest.strip_suffix('/').unwrap_or(rest);
    if authority.is_empty()
        || authority
            .bytes()
            .any(|b| matches!(b, b'/' | b'?' | b'#' | b'@') || b.is_ascii_whitespace())
    {
        return None;
    }
    Some((scheme.to_ascii_lowercase(), authority.to_ascii_lowercase()))
}

/// Whether a request's `Origin` is this site: its authority is the request's `Host`, and its
/// scheme `https` when the server is behind TLS (`http` or `https` otherwise).
pub fn same_origin(origin: &str, host: &str, behind_tls: bool) -> bool {
    match parse_origin(origin) {
        Some((scheme, authority)) => {
            authority == host.trim().to_ascii_lowercase()
                && (scheme == "https" || (!behind_tls && scheme == "http"))
        }
        None => false,
    }
}

/// Failed logins allowed for one account name within [`LOGIN_WINDOW`].
pub const LOGIN_FAILURES_PER_ACCOUNT: usize = 5;
/// Failed logins allowed from one address within [`LOGIN_WINDOW`].
pub const LOGIN_FAILURES_PER_ADDRESS: usize = 20;
/// Accounts made from one address within [`LOGIN_WINDOW`].
pub const SIGNUPS_PER_ADDRESS: usize = 10;
/// The window the login limits count in.
pub const LOGIN_WINDOW: Duration = Duration::from_secs(15 * 60);

/// Sliding windows of recent events by key: failed logins by account and by address, accounts
/// made by address.
#[derive(Default)]
pub struct LoginLimiter {
    by_name: Mutex<HashMap<String, VecDeque<Instant>>>,
    by_addr: Mutex<HashMap<IpAddr, VecDeque<Instant>>>,
    signups: Mutex<HashMap<IpAddr, VecDeque<Instant>>>,
}

/// How long until the oldest of `limit` events in the window leaves it; `None` while fewer
/// than `limit` are in it.
fn wait_of(q: &mut VecDeque<Instant>, limit: usize, now: Instant) -> Option<Duration> {
    while q
        .front()
        .is_some_and(|t| now.duration_since(*t) >= LOGIN_WINDOW)
    {
        q.pop_front();
    }
    (q.len() >= limit).then(|| LOGIN_WINDOW.saturating_sub(now.duration_since(q[0])))
}

fn note<K: std::hash::Hash + Eq>(m: &Mutex<HashMap<K, VecDeque<Instant>>>, k: K, now: Instant) {
    let mut m = m.lock().unwrap_or_else(|e| e.into_inner());
    if m.len() > 100_000 {
        m.retain(|_, q| {
            q.back()
                .is_some_and(|t| now.duration_since(*t) < LOGIN_WINDOW)
        });
    }
    m.entry(k).or_default().push_back(now);
}

fn waiting<K: std::hash::Hash + Eq>(
    m: &Mutex<HashMap<K, VecDeque<Instant>>>,
    k: &K,
    limit: usize,
    now: Instant,
) -> Option<Duration> {
    let mut m = m.lock().unwrap_or_else(|e| e.into_inner());
    m.get_mut(k).and_then(|q| wait_of(q, limit, now))
}

impl LoginLimiter {
    /// How long a login for `name` from `addr` must wait; `None`: it may go ahead.
    pub fn login_wait(&self, name: &str, addr: Option<IpAddr>) -> Option<Duration> {
        let now = Instant::now();
        let a = waiting(
            &self.by_name,
            &name_key(name),
            LOGIN_FAILURES_PER_ACCOUNT,
            now,
        );
        let b = addr.and_then(|ip| waiting(&self.by_addr, &ip, LOGIN_FAILURES_PER_ADDRESS, now));
        a.max(b)
    }
    /// Counts a failed login.
    pub fn failed(&self, name: &str, addr: Option<IpAddr>) {
        let now = Instant::now();
        note(&self.by_name, name_key(name), now);
        if let Some(ip) = addr {
            note(&self.by_addr, ip, now);
        }
    }
    /// How long an account made from `addr` must wait; `None`: it may go ahead (and is
    /// counted).
    pub fn signup(&self, addr: Option<IpAddr>) -> Option<Duration> {
        let ip = addr?;
        let now = Instant::now();
        if let Some(w) = waiting(&self.signups, &ip, SIGNUPS_PER_ADDRESS, now) {
            return Some(w);
        }
        note(&self.signups, ip, now);
        None
    }
}

/// `mancala user`: what to do to an account.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UserAction {
    /// Make the account (needs a password).
    Add,
    /// Give it a new password (needs one), ending its sessions.
    ResetPassword,
    /// Disable it, ending its sessions.
    Disable,
}

/// `mancala user ACTION NAME` on the server's database `store` (opened as `mancala serve
/// --db` opens it, [`crate::open_store`]): does `action`; `password` is read by the caller
/// (never from a command-line flag). Returns the line to print.
pub fn user_command(
    store: &Store,
    action: UserAction,
    name: &str,
    password: Option<&str>,
) -> anyhow::Result<String> {
    let need = || password.ok_or_else(|| anyhow::anyhow!("this needs a password"));
    Ok(match action {
        UserAction::Add => {
            let u = add_user(store, name, need()?)?;
            format!("account `{}` made", u.name)
        }
        UserAction::ResetPassword => {
            let u = reset_password(store, name, need()?)?;
            format!("account `{}`: new password set, its sessions ended", u.name)
        }
        UserAction::Disable => {
            let u = disable_user(store, name)?;
            format!("account `{}` disabled, its sessions ended", u.name)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn names() {
        assert_eq!(check_name("ab"), Ok(()));
        assert_eq!(check_name("Ann_B-1"), Ok(()));
        assert_eq!(check_name(&"x".repeat(24)), Ok(()));
        assert_eq!(check_name("a"), Err(CredentialError::NameLength));
        assert_eq!(
            check_name(&"x".repeat(25)),
            Err(CredentialError::NameLength)
        );
        assert_eq!(check_name("<b>x</b>"), Err(CredentialError::NameChars));
        assert_eq!(check_name("an n"), Err(CredentialError::NameChars));
        assert_eq!(check_name("Zoë"), Err(CredentialError::NameChars));
        assert_eq!(name_key("AnN"), "ann");
    }

    #[test]
    fn passwords_hash_and_verify() {
        assert_eq!(check_password("short"), Err(CredentialError::PasswordShort));
        assert_eq!(check_password("çççççççç"), Ok(()));
        assert_eq!(
            check_password(&"x".repeat(1025)),
            Err(CredentialError::PasswordLong)
        );
        let h = hash_password("correct horse").unwrap();
        assert!(h.starts_with("$argon2id$"), "{h}");
        assert!(!h.contains("correct horse"));
        assert!(verify_password(&h, "correct horse"));
        assert!(!verify_password(&h, "correct horsE"));
        assert!(!verify_password("not a hash", "correct horse"));
        assert_ne!(h, hash_password("correct horse").unwrap(), "salted");
    }

    #[test]
    fn accounts_in_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("g.db")).unwrap();
        let ann = add_user(&store, "Ann", "password1").unwrap();
        assert!(matches!(
            add_user(&store, "ANN", "password2"),
            Err(AccountError::Taken(_))
        ));
        assert_eq!(
            check_login(&store, "ann", "password1").unwrap(),
            Login::Ok(ann.clone())
        );
        assert_eq!(
            check_login(&store, "ann", "password2").unwrap(),
            Login::Refused
        );
        assert_eq!(
            check_login(&store, "bob", "password1").unwrap(),
            Login::Refused
        );
        let s = start_session(&store, &ann).unwrap();
        assert_eq!(session_user(&store, &s).unwrap(), Some(ann.clone()));
        reset_password(&store, "Ann", "password3").unwrap();
        assert_eq!(session_user(&store, &s).unwrap(), None, "sessions end");
        let s = start_session(&store, &ann).unwrap();
        disable_user(&store, "ann").unwrap();
        assert_eq!(session_user(&store, &s).unwrap(), None);
        assert_eq!(
            check_login(&store, "ann", "password3").unwrap(),
            Login::Disabled
        );
        assert!(matches!(
            disable_user(&store, "nobody"),
            Err(AccountError::NoSuchUser(_))
        ));
    }

    #[test]
    fn cookies_and_origins() {
        let s = "ab".repeat(32);
        assert_eq!(
            session_cookie(&format!("x=1; {COOKIE}={s}; y=2")),
            Some(s.as_str())
        );
        assert_eq!(session_cookie(&format!("{COOKIE}=zz")), None);
        assert_eq!(session_cookie("x=1"), None);
        let c = set_cookie(&s, true);
        assert!(c.contains("HttpOnly") && c.contains("SameSite=Lax") && c.ends_with("Secure"));
        assert!(!set_cookie(&s, false).contains("Secure"));
        assert!(same_origin(
            "http://127.0.0.1:8080",
            "127.0.0.1:8080",
            false
        ));
        assert!(same_origin("https://Club.example", "club.example", true));
        assert!(!same_origin("http://club.example", "club.example", true));
        assert!(!same_origin("http://evil.example", "club.example", false));
        assert!(!same_origin("null", "club.example", false));
        assert!(!same_origin(
            "http://club.example@evil",
            "club.example@evil",
            false
        ));
        assert!(!same_origin(
            "http://club.example:81",
            "club.example",
            false
        ));
    }

    #[test]
    fn login_limits() {
        let l = LoginLimiter::default();
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        for _ in 0..LOGIN_FAILURES_PER_ACCOUNT {
            assert_eq!(l.login_wait("Ann", Some(ip)), None);
            l.failed("ann", Some(ip));
        }
        let w = l.login_wait("ANN", None).expect("the account is held");
        assert!(w <= LOGIN_WINDOW && w > LOGIN_WINDOW - Duration::from_secs(60));
        assert_eq!(l.login_wait("bob", Some(ip)), None, "another account");
        for k in 0..LOGIN_FAILURES_PER_ADDRESS - LOGIN_FAILURES_PER_ACCOUNT {
            l.failed(&format!("u{k}"), Some(ip));
        }
        assert!(
            l.login_wait("carol", Some(ip)).is_some(),
            "the address is held"
        );
        assert_eq!(
            l.login_wait("carol", Some("10.0.0.2".parse().unwrap())),
            None
        );
    }

    proptest! {
        /// Every accepted name is 2-24 of the allowed characters, and checking never panics.
        #[test]
        fn name_check_is_exact(name in "\\PC{0,30}") {
            let ok = (2..=24).contains(&name.chars().count())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            prop_assert_eq!(check_name(&name).is_ok(), ok);
        }

        /// Cookie headers and origins of any text are read without a panic; a cookie found is
        /// always a well-formed secret, an origin found never holds a path or user part.
        #[test]
        fn header_readers_never_panic(h in "\\PC{0,200}", host in "[a-z0-9.:]{0,20}") {
            if let Some(v) = session_cookie(&h) {
                prop_assert!(v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()));
            }
            if let Some((scheme, authority)) = parse_origin(&h) {
                prop_assert!(!scheme.is_empty() && !authority.is_empty());
                prop_assert!(!authority.contains('/') && !authority.contains('@'));
            }
            let _ = same_origin(&h, &host, false);
        }
    }
}
