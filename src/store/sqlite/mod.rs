//! The SQLite backend: one file, `$CTX_HOME/store.db` (0600), in WAL mode
//! so that readers never wait for writers and many ctx processes can
//! archive at once.
//!
//! Opening is on the hot path of every digest that omits something, so it
//! does the least it can (`schema.rs`): open the file, set per-connection
//! pragmas, read `user_version`, and run the DDL only when that is stale.
//! Every write is one `BEGIN IMMEDIATE` transaction (no read-to-write
//! upgrade that could fail with SQLITE_BUSY outside the busy handler), and
//! SQLITE_BUSY/LOCKED are retried until the busy timeout has passed in
//! total, so another process's lock costs at most that long and then
//! surfaces as `Unavailable`, never as a hang.

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, Transaction, params};

use super::{ArchiveKey, RecordSummary, StoreError};
use crate::retention::{self, Retention};

mod ops;
mod read_only;
mod reads;
mod schema;
pub mod touches;
mod write;

pub use schema::SCHEMA_VERSION;
pub use write::{Describe, RecordWriter};

/// How long an operation may wait for another process's lock in total.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// WAL pages after which a commit checkpoints.
const WAL_PAGES: u32 = 64;
/// Bytes the WAL file is truncated to after a checkpoint.
const WAL_LIMIT: u64 = 4 << 20;
/// A put that wrote more than this truncates the WAL right away, so the
/// next opener does not scan a large WAL to rebuild its index.
const BIG_WRITE: u64 = 4 << 20;
/// A put that leaves the WAL file longer than this truncates it.
///
/// Every ctx process is usually the only connection, so each one opens by
/// recovering the WAL index: it reads and checksums every frame in the WAL
/// file, and recovery forgets which frames were already checkpointed. A
/// PASSIVE autocheckpoint therefore never lets the next writer restart the
/// WAL from its start: the file only grew (about two pages per digest) and
/// every open read all of it (5.5 MB, 1,300 reads, ≈ 5 ms after a few
/// thousand digests). Truncating it once it passes `WAL_PAGES` pages bounds
/// what an opener reads to about that, for one fsync every few dozen puts.
const WAL_TRUNCATE_BYTES: u64 = WAL_PAGES as u64 * 4096;

/// However busy the store, one operation waits at most this many busy
/// timeouts in total.
const HARD_LIMIT_FACTOR: u32 = 6;
/// The longest single wait between two tries for a lock.
const MAX_BACKOFF: Duration = Duration::from_millis(25);

/// Pages `shrink` releases per transaction (1 MiB at 4 KiB pages).
const VACUUM_PAGES: u32 = 256;

/// The file name under the data directory.
pub const FILE_NAME: &str = "store.db";

/// How a store behaves: its retention policy and how long it waits for locks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub retention: Retention,
    pub busy_timeout: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            retention: Retention::default(),
            busy_timeout: DEFAULT_BUSY_TIMEOUT,
        }
    }
}

impl Options {
    /// Retention from `CTX_STORE_MAX_BYTES` / `CTX_STORE_MIN_AGE`, the busy
    /// timeout from `CTX_STORE_BUSY_TIMEOUT` (humantime, e.g. `500ms`).
    pub fn from_env() -> (Options, Vec<String>) {
        let (retention, mut warnings) = crate::config::retention();
        let mut busy_timeout = DEFAULT_BUSY_TIMEOUT;
        if let Some(v) = std::env::var_os("CTX_STORE_BUSY_TIMEOUT") {
            match v
                .to_str()
                .and_then(|s| humantime::parse_duration(s.trim()).ok())
            {
                Some(d) => busy_timeout = d,
                None => warnings.push(format!(
                    "CTX_STORE_BUSY_TIMEOUT={v:?} is not a duration; using 5s"
                )),
            }
        }
        (
            Options {
                retention,
                busy_timeout,
            },
            warnings,
        )
    }
}

/// Either a SQLite error (maybe worth a retry) or a verdict of ours.
enum Fail {
    Sql(rusqlite::Error),
    Store(StoreError),
}

impl From<rusqlite::Error> for Fail {
    fn from(e: rusqlite::Error) -> Self {
        Fail::Sql(e)
    }
}

impl From<StoreError> for Fail {
    fn from(e: StoreError) -> Self {
        Fail::Store(e)
    }
}

/// What a store was opened for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    /// Archiving and maintenance: the connection writes.
    Write,
    /// A read (`reads.rs`): the connection never writes; a write asked of
    /// it opens a writer of its own.
    Read,
}

pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
    options: Options,
    /// Settings that did not parse (shown by `ctx store stats`).
    pub warnings: Vec<String>,
    /// A fixed clock for tests; the system clock when `None`.
    now: Cell<Option<i64>>,
    access: Access,
    /// Last uses taken from `store.db-touched`, applied by each writing
    /// transaction that needs them (`touches.rs`).
    touched: RefCell<Vec<(String, i64)>>,
}

impl SqliteStore {
    /// `$CTX_HOME/store.db`, created (with its 0700 directory) if missing.
    pub fn open_default() -> Result<Self, StoreError> {
        let dir = crate::home::ensure_data_dir()
            .map_err(|e| StoreError::Unavailable(format!("data directory: {e}")))?;
        let (options, warnings) = Options::from_env();
        let mut store = Self::open(&dir.join(FILE_NAME), options)?;
        store.warnings = warnings;
        Ok(store)
    }

    /// The default store, or `None` when it was never created.
    pub fn open_existing_default() -> Result<Option<Self>, StoreError> {
        let path = Self::default_path()?;
        // Not `exists()`: a planted link (even a dangling one) must be
        // refused by `open`, not taken for "no store yet".
        if std::fs::symlink_metadata(&path).is_err() {
            return Ok(None);
        }
        Self::open_default().map(Some)
    }

    pub fn default_path() -> Result<PathBuf, StoreError> {
        crate::home::data_dir()
            .map(|d| d.join(FILE_NAME))
            .map_err(|e| StoreError::Unavailable(format!("data directory: {e}")))
    }

    /// Opens (creating if missing) the store at `path`. A store that
    /// cannot be written is opened for reading (read_only.rs): its writes
    /// then fail, each with one "cannot write" line.
    pub fn open(path: &Path, options: Options) -> Result<Self, StoreError> {
        crate::home::prepare_database(path)
            .map_err(|e| StoreError::Unavailable(format!("cannot use {}: {e}", path.display())))?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        match Self::connect(path, path.as_os_str(), flags, options) {
            Err(e) if !read_only::writable(path) => {
                let uri = read_only::immutable_uri(path);
                let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
                    | OpenFlags::SQLITE_OPEN_URI
                    | OpenFlags::SQLITE_OPEN_NO_MUTEX
                    | OpenFlags::SQLITE_OPEN_NOFOLLOW;
                // The first error says more than the second would.
                Self::connect(path, uri.as_ref(), flags, options).map_err(|_| e)
            }
            other => other,
        }
    }

    fn connect(
        path: &Path,
        target: &std::ffi::OsStr,
        flags: OpenFlags,
        options: Options,
    ) -> Result<Self, StoreError> {
        let conn = Connection::open_with_flags(target, flags).map_err(|e| describe(e, path))?;
        let store = SqliteStore {
            conn,
            path: path.to_path_buf(),
            options,
            warnings: Vec::new(),
            now: Cell::new(None),
            access: Access::Write,
            touched: RefCell::new(Vec::new()),
        };
        store.configure()?;
        Ok(store)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn options(&self) -> Options {
        self.options
    }

    /// Pins the clock (unix ms) for tests of retention.
    pub fn set_now(&self, now_ms: Option<i64>) {
        self.now.set(now_ms);
    }

    fn now_ms(&self) -> i64 {
        self.now.get().unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as i64)
        })
    }

    /// Deletes the database, its WAL files and its pending last uses:
    /// the way out of a damaged store (`ctx store purge`).
    pub fn remove_files(path: &Path) -> std::io::Result<()> {
        for suffix in ["", "-wal", "-shm", touches::SUFFIX] {
            let mut p = path.as_os_str().to_owned();
            p.push(suffix);
            match std::fs::remove_file(&p) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Runs `f`, retrying SQLITE_BUSY/LOCKED (see `with_retry_until`).
    fn with_retry<T>(
        &self,
        f: impl FnMut(&Connection) -> Result<T, Fail>,
    ) -> Result<T, StoreError> {
        self.with_retry_until(self.deadline(), f)
    }

    /// The hard limit for an operation starting now: however busy the
    /// store, no operation waits for locks longer than this in total.
    fn deadline(&self) -> Instant {
        Instant::now() + self.options.busy_timeout * HARD_LIMIT_FACTOR
    }

    /// Runs `f`, retrying SQLITE_BUSY/LOCKED with jittered exponential
    /// backoff. It gives up when no other connection has committed anything
    /// for the busy timeout (the lock holder is stuck: a hung process, a
    /// long foreign transaction) or at `deadline` (shared by the steps of
    /// one operation). A queue of writers that keeps committing is waited
    /// for: 32 processes archiving 1 M lines each all get their turn, where
    /// a fixed 5 s budget let the unlucky ones fall out.
    ///
    /// SQLite's own busy handler is not used: it sleeps on a fixed schedule
    /// that grows to 100 ms per try, so a crowd of waiters is served in no
    /// particular order and a late arrival with short sleeps overtakes
    /// processes that have waited for seconds.
    fn with_retry_until<T>(
        &self,
        deadline: Instant,
        mut f: impl FnMut(&Connection) -> Result<T, Fail>,
    ) -> Result<T, StoreError> {
        let _ = self.conn.busy_timeout(Duration::ZERO);
        let mut attempt = 0u32;
        let mut progress = Instant::now();
        let mut seen = data_version(&self.conn);
        let result = loop {
            match f(&self.conn) {
                Ok(v) => break Ok(v),
                Err(Fail::Store(e)) => break Err(e),
                Err(Fail::Sql(e)) => {
                    let now = Instant::now();
                    let version = data_version(&self.conn);
                    if version != seen {
                        seen = version;
                        progress = now;
                    }
                    let stalled = now.duration_since(progress) >= self.options.busy_timeout;
                    if !is_busy(&e) || stalled || now >= deadline {
                        break Err(describe(e, &self.path));
                    }
                    attempt += 1;
                    let left = deadline
                        .saturating_duration_since(now)
                        .min(self.options.busy_timeout.saturating_sub(now - progress));
                    std::thread::sleep(backoff(attempt).min(left));
                }
            }
        };
        let _ = self.conn.busy_timeout(self.options.busy_timeout);
        result
    }

    /// Evicts least recently used old records until `incoming` more bytes
    /// fit the cap, or refuses.
    fn make_room(&self, tx: &Transaction, incoming: u64, now: i64) -> Result<(), Fail> {
        let policy = self.options.retention;
        // Before any eviction is decided: what reads used lately.
        self.apply_touches(tx)?;
        let total: i64 = tx.query_row("SELECT stored_bytes FROM totals", [], |r| r.get(0))?;
        let total = total.max(0) as u64;
        if total.saturating_add(incoming) <= policy.max_bytes {
            return Ok(());
        }
        sweep_abandoned(tx, now)?;
        let candidates = eligible(tx, policy, now)?;
        match retention::plan_eviction(&candidates, total, incoming, policy, now) {
            Ok(ids) => {
                remove(tx, &ids, now, GONE_EVICTED)?;
                Ok(())
            }
            Err(refusal) => Err(Fail::Store(StoreError::Full {
                needed: incoming,
                cap: policy.max_bytes,
                floor: refusal.floor_bytes,
            })),
        }
    }

    /// Releases pages freed by deletions and trims the WAL; best effort.
    fn shrink(&self) {
        // In steps of `VACUUM_PAGES`, each its own short transaction, so a
        // large release never keeps writers waiting; the pragma frees one
        // page per row it returns, so each statement is stepped to its end.
        let deadline = self.deadline();
        loop {
            let freed = self.with_retry_until(deadline, |c| {
                let mut vacuum =
                    c.prepare_cached(&format!("PRAGMA incremental_vacuum({VACUUM_PAGES})"))?;
                let mut rows = vacuum.query([])?;
                let mut n = 0u32;
                while rows.next()?.is_some() {
                    n += 1;
                }
                Ok(n)
            });
            let left: i64 = self
                .conn
                .query_row("PRAGMA freelist_count", [], |r| r.get(0))
                .unwrap_or(0);
            if !matches!(freed, Ok(n) if n > 0) || left == 0 {
                break;
            }
        }
        self.truncate_wal();
    }

    /// After a put that stored `stored` bytes: truncates the WAL when the
    /// put was big or the WAL has grown past `WAL_TRUNCATE_BYTES`.
    fn bound_wal(&self, stored: u64) {
        if stored > BIG_WRITE || self.wal_bytes() > WAL_TRUNCATE_BYTES {
            self.truncate_wal();
        }
    }

    /// The WAL file's length in bytes (0 when it is missing).
    fn wal_bytes(&self) -> u64 {
        let mut wal = self.path.as_os_str().to_owned();
        wal.push("-wal");
        std::fs::metadata(wal).map_or(0, |m| m.len())
    }

    /// Checkpoints and empties the WAL if nobody is using it right now;
    /// never waits (someone else will do it later).
    ///
    /// A TRUNCATE checkpoint holds the writer lock while it copies the WAL
    /// back and syncs the database: with many large writers that was the
    /// longest wait of all (and no commit happened meanwhile, which looks
    /// like a stuck lock). So the copying is done first by a PASSIVE
    /// checkpoint, which never blocks writers, and TRUNCATE only resets
    /// what is left (usually nothing).
    fn truncate_wal(&self) {
        let _ = self.conn.busy_timeout(Duration::ZERO);
        let _ = self
            .conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
        let _ = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        let _ = self.conn.busy_timeout(self.options.busy_timeout);
    }

    fn summaries(&self, tx: &Transaction, ids: &[i64]) -> Result<Vec<RecordSummary>, Fail> {
        let mut q = tx.prepare_cached(
            "SELECT hex, used_ms, argv, label, stored_bytes FROM records WHERE id = ?1",
        )?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(s) = q.query_row([id], summary).optional()? {
                out.push(s);
            }
        }
        Ok(out)
    }
}

fn eligible(
    tx: &Transaction,
    policy: Retention,
    now: i64,
) -> rusqlite::Result<Vec<retention::Candidate>> {
    let cutoff = now.saturating_sub(policy.min_age.as_millis() as i64);
    let mut q = tx.prepare_cached(
        "SELECT id, used_ms, stored_bytes FROM records
         WHERE used_ms <= ?1 AND pending = 0 ORDER BY used_ms, id",
    )?;
    let rows = q.query_map([cutoff], |r| {
        Ok(retention::Candidate {
            id: r.get(0)?,
            used_ms: r.get(1)?,
            stored_bytes: r.get::<_, i64>(2)?.max(0) as u64,
        })
    })?;
    rows.collect()
}

/// What a removed record's key is remembered as (`gone.why`).
pub(super) const GONE_EVICTED: &str = "evicted by retention";
pub(super) const GONE_PURGED: &str = "purged";

/// How long the key of a removed record is remembered (30 days).
pub(super) const GONE_KEPT_MS: i64 = 30 * 24 * 3_600_000;

/// Deletes finished or pending records by id, remembering the finished
/// ones' keys as gone (`why`), so that expand can say what became of them.
pub(super) fn remove(tx: &Transaction, ids: &[i64], now: i64, why: &str) -> rusqlite::Result<()> {
    let mut mark = tx.prepare_cached(
        "INSERT OR REPLACE INTO gone (hex, gone_ms, why)
         SELECT hex, ?2, ?3 FROM records WHERE id = ?1 AND pending = 0",
    )?;
    let mut del = tx.prepare_cached("DELETE FROM records WHERE id = ?1")?;
    for id in ids {
        mark.execute(params![id, now, why])?;
        del.execute([id])?;
    }
    Ok(())
}

/// Removes the pending rows of writers that died mid-record.
fn sweep_abandoned(tx: &Transaction, now: i64) -> rusqlite::Result<usize> {
    tx.prepare_cached("DELETE FROM records WHERE pending = 1 AND used_ms < ?1")?
        .execute([now.saturating_sub(write::ABANDONED_MS)])
}

fn summary(r: &rusqlite::Row) -> rusqlite::Result<RecordSummary> {
    let hex: String = r.get(0)?;
    let argv: String = r.get(2)?;
    let label: Option<String> = r.get(3)?;
    let command = label.unwrap_or_else(|| {
        serde_json::from_str::<Vec<String>>(&argv).map_or_else(|_| "?".into(), |a| a.join(" "))
    });
    Ok(RecordSummary {
        key: ArchiveKey::from_hex(&hex).unwrap_or(ArchiveKey([0; 32])),
        used_ms: r.get(1)?,
        command,
        stored_bytes: r.get::<_, i64>(4)?.max(0) as u64,
    })
}

/// A random wait in `[1 ms, 2^attempt ms]`, at most `MAX_BACKOFF`: short
/// enough that a waiter notices a free lock soon, random enough that a
/// crowd does not come back in lockstep.
fn backoff(attempt: u32) -> Duration {
    use std::hash::{BuildHasher, Hasher};
    let cap = (1u64 << attempt.min(10)).min(MAX_BACKOFF.as_millis() as u64);
    // RandomState is seeded per process and per call: randomness enough
    // for spreading retries, without a dependency.
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(attempt);
    Duration::from_millis(1 + h.finish() % cap)
}

/// Changes whenever another connection commits (`PRAGMA data_version`);
/// `None` when it cannot be read, which counts as no progress.
fn data_version(conn: &Connection) -> Option<i64> {
    conn.query_row("PRAGMA data_version", [], |r| r.get(0)).ok()
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

/// A SQLite error in the words a reader of a `[ctx]` note needs.
fn describe(e: rusqlite::Error, path: &Path) -> StoreError {
    let p = path.display();
    match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => StoreError::Corrupt(format!(
            "{p} is not a usable database (`ctx store purge` starts over)"
        )),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            StoreError::Unavailable(format!("{p} is locked by another process"))
        }
        Some(ErrorCode::DiskFull) => StoreError::Unavailable(format!("disk full writing {p}")),
        // A read-only home still serves reads: say that only writing is
        // out, in one line.
        Some(ErrorCode::ReadOnly) => StoreError::Unavailable(format!(
            "cannot write {p}: it is read-only here (reading still works)"
        )),
        Some(ErrorCode::CannotOpen | ErrorCode::PermissionDenied) => {
            StoreError::Unavailable(format!("cannot write {p}: {e}"))
        }
        _ => StoreError::Unavailable(format!("{p}: {e}")),
    }
}
