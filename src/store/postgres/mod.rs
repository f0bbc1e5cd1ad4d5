//! The PostgreSQL backend: one archive shared by CI runners and agents on
//! many machines, chosen with `CTX_STORE=postgres://…` (or `store.url` in
//! the config file).
//!
//! It keeps the SQLite backend's shape: a record row keyed by blake3 hex
//! (per namespace), its bytes in checksummed, compressed `bytea` chunks of
//! about 1 MiB with a line index, so a zoom reads only the chunks it needs.
//! Writes are idempotent (`INSERT … ON CONFLICT DO NOTHING`): two machines
//! archiving the same output at once make one row and both succeed.
//! Every time is the server's clock. A short timeout (default 300 ms),
//! enforced by the server on each statement and by the client on every
//! exchange (`client.rs`: a stopped server enforces nothing), bounds what
//! a slow, dead or hung server can cost a command.

use std::cell::{Cell, RefCell, RefMut};
use std::str::FromStr;
use std::time::Duration;

use tokio_postgres::Config;

use super::{Retention, StoreError};
use client::{Client, Failure};

mod client;
mod conninfo;
mod credentials;
mod ops;
mod put;
pub mod schema;
pub mod tls;

pub use schema::SCHEMA_VERSION;

/// The advisory-lock class of ctx (`ctx` in ASCII); key 0 is the
/// migration lock, any other key a namespace's GC lock.
pub(crate) const LOCK_CLASS: i32 = 0x0063_7478;

/// The default connect and statement timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(300);

/// How much longer than the timeout the client waits for an answer. The
/// server's own `statement_timeout` (the same timeout) answers first when
/// the server is alive: a clear error on a connection that stays usable.
/// The client's deadline is for a server that cannot answer at all.
const CLIENT_GRACE: Duration = Duration::from_millis(100);

/// The environment variable that selects a namespace.
pub const ENV_NAMESPACE: &str = "CTX_NAMESPACE";
/// The environment variable that sets the connect/statement timeout.
pub const ENV_TIMEOUT: &str = "CTX_STORE_TIMEOUT";

/// How a PostgreSQL store behaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgOptions {
    pub retention: Retention,
    /// Connect timeout, and the statement timeout of every query.
    pub timeout: Duration,
    /// Records of other namespaces are invisible (never read, never
    /// evicted); empty is the default namespace.
    pub namespace: String,
}

impl PgOptions {
    /// Retention from the configuration, the timeout from
    /// `CTX_STORE_TIMEOUT`, the namespace from `CTX_NAMESPACE`.
    pub fn from_env() -> (PgOptions, Vec<String>) {
        let (retention, mut warnings) = crate::config::retention();
        let mut timeout = DEFAULT_TIMEOUT;
        if let Some(v) = std::env::var_os(ENV_TIMEOUT) {
            match v.to_str().and_then(parse_timeout) {
                Some(d) => timeout = d,
                None => warnings.push(format!(
                    "{ENV_TIMEOUT}={v:?} is not a duration; using 300ms"
                )),
            }
        }
        let namespace = std::env::var(ENV_NAMESPACE).unwrap_or_default();
        (
            PgOptions {
                retention,
                timeout,
                namespace,
            },
            warnings,
        )
    }
}

/// `CTX_STORE_TIMEOUT`: milliseconds (`300`) or a duration (`300ms`,
/// `2s`); zero or anything else is not a timeout.
fn parse_timeout(s: &str) -> Option<Duration> {
    let s = s.trim();
    s.parse::<u64>()
        .ok()
        .map(Duration::from_millis)
        .or_else(|| humantime::parse_duration(s).ok())
        .filter(|d| !d.is_zero())
}

pub struct PgStore {
    client: RefCell<Client>,
    options: PgOptions,
    /// The URL without its password, for messages and `ctx store stats`.
    location: String,
    machine: String,
    user: String,
    /// Added to the server's clock: tests age records with it.
    clock_offset_ms: Cell<i64>,
    /// The server's schema is known to be this binary's.
    schema_checked: Cell<bool>,
    /// Settings that did not parse (shown by `ctx store stats`).
    pub warnings: Vec<String>,
    /// Behind a transaction-pooling proxy (PgBouncer), which refuses
    /// the start-up `options` that carry the timeouts and hands each
    /// transaction to any server connection: every operation then runs in
    /// a transaction of its own that sets its timeouts with `SET LOCAL`,
    /// so no session state (timeouts, prepared statements) is relied on.
    pooled: bool,
}

/// The connection for one operation.
///
/// Behind a pooler it is a transaction that begins with the timeouts
/// (`SET LOCAL`), so that all its statements run on one server
/// connection, and ends with `DEALLOCATE ALL` in the same message as
/// the `COMMIT`/`ROLLBACK` (the pooler hands the server connection on
/// only after the whole message): the client names its prepared
/// statements `s0`, `s1`, … in every process and closes them only when
/// the last row that uses one is dropped, possibly after the transaction,
/// so a statement left on the server connection would collide with the
/// next client's. A plain borrow otherwise, or a plain transaction for
/// `PgStore::transaction`.
pub(crate) struct Session<'a> {
    client: RefMut<'a, Client>,
    /// The statement that ends the transaction when the session is
    /// dropped without `commit`, if one is open.
    on_drop: Option<&'static str>,
    pooled: bool,
}

impl Session<'_> {
    /// Commits the operation's transaction, reporting a failure: writes
    /// call it, so that a lost commit is an error.
    pub(crate) fn commit(mut self) -> Result<(), StoreError> {
        if self.on_drop.take().is_some() {
            let sql = if self.pooled {
                "COMMIT; DEALLOCATE ALL"
            } else {
                "COMMIT"
            };
            self.client.batch_execute(sql).map_err(describe)?;
        }
        Ok(())
    }
}

impl std::ops::Deref for Session<'_> {
    type Target = Client;
    fn deref(&self) -> &Client {
        &self.client
    }
}

impl std::ops::DerefMut for Session<'_> {
    fn deref_mut(&mut self) -> &mut Client {
        &mut self.client
    }
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        if let Some(sql) = self.on_drop.take() {
            let _ = self.client.batch_execute(sql);
        }
    }
}

impl PgStore {
    /// Connects to `url`, checks the schema version and migrates an older
    /// schema (under the migration lock).
    pub fn open(url: &str, options: PgOptions) -> Result<PgStore, StoreError> {
        let store = Self::connect(url, options)?;
        store.ensure_schema()?;
        Ok(store)
    }

    /// Connects for a command's archive: the schema is checked within
    /// the put's own statement (no round trip of its own), and migrated
    /// only when that finds it older.
    pub fn open_to_archive(url: &str, options: PgOptions) -> Result<PgStore, StoreError> {
        Self::connect(url, options)
    }

    /// Checks the schema version once per connection, migrating an older
    /// schema under the migration lock.
    fn ensure_schema(&self) -> Result<(), StoreError> {
        if !self.schema_checked.get() {
            let v = schema::version(&mut *self.session()?)?;
            if v != SCHEMA_VERSION {
                let mut tx = self.transaction()?;
                schema::ensure(v, &mut tx)?;
                tx.commit()?;
            }
            self.schema_checked.set(true);
        }
        Ok(())
    }

    /// The schema changed under this connection: check it again.
    fn forget_schema(&self) {
        self.schema_checked.set(false);
    }

    /// Connects without looking at the schema (`ctx store migrate`, and
    /// the archive's put, which checks it as it writes).
    pub fn connect(url: &str, options: PgOptions) -> Result<PgStore, StoreError> {
        let location = redact(url);
        let in_location = |e: StoreError| match e {
            StoreError::Unavailable(why) => StoreError::Unavailable(format!("{location}: {why}")),
            other => other,
        };
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let (conninfo, tls) = tls::split(url, &env).map_err(in_location)?;
        let mut config = Config::from_str(&conninfo).map_err(|e| {
            StoreError::Unavailable(format!("{location} is not a PostgreSQL URL: {e}"))
        })?;
        let warnings = credentials::complete(&mut config, &env);
        config.ssl_mode(tls.mode.client_mode());
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(options.timeout);
        }
        if config.get_application_name().is_none() {
            config.application_name("ctx");
        }
        // The same settings without start-up options, for a pooler that
        // refuses them.
        let plain = config.clone();
        // Every statement is bounded too: a server that accepts the
        // connection and then stalls costs no more than a refused one.
        let ms = options.timeout.as_millis();
        let mut extra = config.get_options().unwrap_or("").to_string();
        extra.push_str(&format!(
            " -c statement_timeout={ms} -c lock_timeout={ms} -c idle_in_transaction_session_timeout={}",
            ms.max(1000) * 10
        ));
        config.options(extra.trim());
        let connector = tls::connector(&tls).map_err(in_location)?;
        let deadline = options.timeout + CLIENT_GRACE;
        let mut pooled = false;
        let client = match Client::connect(&config, connector.clone(), options.timeout, deadline) {
            // PgBouncer refuses start-up options: connect without them
            // and bound every transaction instead (`Session`).
            Err(e) if refuses_options(&e) && plain.get_options().is_none() => {
                pooled = true;
                Client::connect(&plain, connector, options.timeout, deadline).map_err(describe)
            }
            other => other.map_err(describe),
        }
        .map_err(|e| with_warnings(e, &warnings))
        .map_err(in_location)?;
        Ok(PgStore {
            client: RefCell::new(client),
            options,
            location,
            machine: machine(),
            user: user(),
            clock_offset_ms: Cell::new(0),
            schema_checked: Cell::new(false),
            warnings,
            pooled,
        })
    }

    /// The URL without its password.
    pub fn location(&self) -> &str {
        &self.location
    }

    pub fn options(&self) -> &PgOptions {
        &self.options
    }

    /// Shifts the clock this store reads from the server (tests of
    /// retention: records "age" without waiting).
    pub fn shift_clock(&self, by: Duration) {
        self.clock_offset_ms
            .set(self.clock_offset_ms.get() + by.as_millis() as i64);
    }

    /// Runs the missing migrations (`ctx store migrate`).
    pub fn migrate(&self) -> Result<(i32, i32), StoreError> {
        let mut tx = self.transaction()?;
        let versions = schema::migrate(&mut tx)?;
        tx.commit()?;
        Ok(versions)
    }

    /// Behind a pooler, the `SET LOCAL` statements that bound the
    /// current transaction (the start-up options carry them otherwise).
    /// It also clears statements another client may have left on the
    /// server connection (see `Session`).
    pub(crate) fn bounds(&self) -> Option<String> {
        self.pooled
            .then(|| format!("DEALLOCATE ALL; {}", timeouts_sql(self.options.timeout)))
    }

    /// The connection for one operation (see `Session`). Its statements
    /// stand alone: behind a pooler it commits when dropped (the server
    /// answers COMMIT of a failed transaction with a rollback).
    pub(crate) fn session(&self) -> Result<Session<'_>, StoreError> {
        let mut client = self.client.borrow_mut();
        if let Some(sql) = self.bounds() {
            client
                .batch_execute(&format!("BEGIN; {sql}"))
                .map_err(describe)?;
        }
        Ok(Session {
            client,
            on_drop: self.pooled.then_some("COMMIT; DEALLOCATE ALL"),
            pooled: self.pooled,
        })
    }

    /// A transaction of several statements, rolled back unless
    /// committed (`Session::commit`).
    pub(crate) fn transaction(&self) -> Result<Session<'_>, StoreError> {
        let mut client = self.client.borrow_mut();
        let begin = match self.bounds() {
            Some(sql) => format!("BEGIN; {sql}"),
            None => "BEGIN".to_string(),
        };
        client.batch_execute(&begin).map_err(describe)?;
        Ok(Session {
            client,
            on_drop: Some(if self.pooled {
                "ROLLBACK; DEALLOCATE ALL"
            } else {
                "ROLLBACK"
            }),
            pooled: self.pooled,
        })
    }

    /// The TLS version of this connection, `None` when it is plain text
    /// (`ctx store stats`).
    pub fn tls_version(&self) -> Result<Option<String>, StoreError> {
        let row = self
            .session()?
            .query_opt(
                "SELECT version FROM pg_stat_ssl WHERE pid = pg_backend_pid() AND ssl",
                &[],
            )
            .map_err(describe)?;
        Ok(row.map(|r| r.get(0)))
    }

    /// The schema version on the server.
    pub fn schema_version(&self) -> Result<i32, StoreError> {
        schema::version(&mut *self.session()?)
    }
}

/// PgBouncer's answer to a start-up packet with `options` in it.
fn refuses_options(e: &Failure) -> bool {
    e.as_db_error()
        .is_some_and(|d| d.message().starts_with("unsupported startup parameter"))
}

/// The statements that bound one transaction, as the start-up options
/// bound a direct session. Only numbers from ctx's own settings go in.
fn timeouts_sql(timeout: Duration) -> String {
    let ms = timeout.as_millis();
    format!(
        "SET LOCAL statement_timeout = {ms}; SET LOCAL lock_timeout = {ms}; \
         SET LOCAL idle_in_transaction_session_timeout = {}",
        ms.max(1000) * 10
    )
}

/// A failed connection also says what was skipped on the way (a password
/// file others can read): that is usually why it failed.
fn with_warnings(e: StoreError, warnings: &[String]) -> StoreError {
    match e {
        StoreError::Unavailable(why) if !warnings.is_empty() => {
            StoreError::Unavailable(format!("{why} ({})", warnings.join("; ")))
        }
        other => other,
    }
}

/// The host name records carry (best effort).
fn machine() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "?".into())
}

/// The user records carry: the account name of the real uid (not
/// `$USER`, which anyone can set), else the number.
fn user() -> String {
    account_name().unwrap_or_else(|| nix::unistd::getuid().to_string())
}

/// The account name of the real uid, when the system knows it.
pub(super) fn account_name() -> Option<String> {
    match nix::unistd::User::from_uid(nix::unistd::getuid()) {
        Ok(Some(u)) => Some(u.name),
        _ => None,
    }
}

/// `postgres://user:secret@host/db` → `postgres://user:***@host/db`, and
/// every `password=` parameter masked the same way, the string cut where
/// the client cuts it (`conninfo.rs`): what is shown of a URL in a note,
/// `ctx store stats`, the ledger and `ctx config`.
pub fn redact(url: &str) -> String {
    conninfo::redact(url)
}

/// A client error in the words a `[ctx]` note needs. The client never
/// puts the password in its messages; the URL is redacted by callers.
pub(crate) fn describe(e: Failure) -> StoreError {
    use postgres::error::SqlState;
    let e = match e {
        Failure::Server(e) => e,
        Failure::Late(deadline) => {
            return StoreError::Unavailable(format!(
                "the server did not answer within {}",
                humantime::format_duration(deadline)
            ));
        }
        Failure::GivenUp(deadline) => {
            return StoreError::Unavailable(format!(
                "the connection was given up: the server did not answer within {}",
                humantime::format_duration(deadline)
            ));
        }
        Failure::Local(why) => return StoreError::Unavailable(why),
    };
    if let Some(db) = e.as_db_error() {
        let code = db.code();
        if *code == SqlState::QUERY_CANCELED {
            return StoreError::Unavailable("the server did not answer in time".into());
        }
        if *code == SqlState::DISK_FULL {
            return StoreError::Unavailable("the server is out of disk".into());
        }
        return StoreError::Unavailable(format!("server: {}", db.message()));
    }
    if e.is_closed() {
        return StoreError::Unavailable("the connection to the server was lost".into());
    }
    let mut why = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        why.push_str(&format!(": {s}"));
        source = s.source();
    }
    StoreError::Unavailable(why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_is_milliseconds_or_a_duration() {
        assert_eq!(parse_timeout("300"), Some(Duration::from_millis(300)));
        assert_eq!(parse_timeout(" 300ms "), Some(Duration::from_millis(300)));
        assert_eq!(parse_timeout("2s"), Some(Duration::from_secs(2)));
        assert_eq!(parse_timeout("0"), None);
        assert_eq!(parse_timeout("soon"), None);
    }
}
