//! The SQLite ledger: opening (0600, WAL, DDL only when `user_version` is
//! behind) and writing rows (runs, expands, the journal folded in). Reads
//! are in `read.rs`, the retention window in `prune.rs`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{
    Connection, OpenFlags, OptionalExtension, Transaction, TransactionBehavior, params,
};

use super::error::{io, sqlite};
use super::schema::{COPY_V1, FROM_V1, FROM_V2, SCHEMA, SCHEMA_VERSION};
use super::{LedgerError, journal};
use crate::artifact::Artifact;
use crate::delivery::Delivery;
use crate::store::ArchiveKey;

/// The file name under the data directory.
pub const FILE_NAME: &str = "ledger.db";
/// The longest a run waits for another process's lock before it drops its
/// row: a lost row costs a statistic, a wait costs the agent time.
pub const RECORD_WAIT: Duration = Duration::from_millis(500);
/// How long `ctx gain` waits for a lock.
pub const READ_WAIT: Duration = Duration::from_secs(5);

/// What to do with a delivered digest's text when its run is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Digests {
    /// Count it exactly now (tiktoken-rs: about 0.15 s to start), then
    /// drop it: `ctx gain` and the library.
    Count,
    /// Drop it; the run keeps its estimate (a fold on a command's path,
    /// which must not pay the tokenizer's start).
    Drop,
}

/// The SQLite ledger.
pub struct Ledger {
    pub(super) conn: Connection,
    pub(super) path: PathBuf,
}

impl Ledger {
    /// `$CTX_HOME/ledger.db`, without creating anything.
    pub fn default_path() -> std::io::Result<PathBuf> {
        crate::home::data_dir().map(|d| d.join(FILE_NAME))
    }

    /// Opens the ledger at `path`, creating it (0600) if missing.
    pub fn open(path: &Path, wait: Duration) -> Result<Ledger, LedgerError> {
        crate::home::prepare_database(path).map_err(|e| io(&path.display().to_string(), e))?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| sqlite(path, e))?;
        let ledger = Ledger {
            conn,
            path: path.to_path_buf(),
        };
        ledger.configure(wait).map_err(|e| sqlite(path, e))?;
        ledger.migrate()?;
        Ok(ledger)
    }

    /// The default ledger with its journal folded in (digests counted) and
    /// its retention window applied, or None when no run was ever recorded.
    pub fn open_existing_default() -> Result<Option<Ledger>, LedgerError> {
        let dir = crate::home::data_dir().map_err(|e| io("data directory", e))?;
        if std::fs::symlink_metadata(&dir).is_err() {
            return Ok(None);
        }
        crate::home::verify_dir(&dir).map_err(|e| io("data directory", e))?;
        let path = dir.join(FILE_NAME);
        // Not `exists()`, which follows a planted link.
        let present = |p: &Path| std::fs::symlink_metadata(p).is_ok();
        if !present(&path) && !present(&dir.join(journal::FILE_NAME)) {
            return Ok(None);
        }
        let opened = Ledger::open(&path, READ_WAIT).and_then(|ledger| {
            ledger.fold_journal_with(&dir, Digests::Count)?;
            ledger.prune(super::now_ms(), super::Retention::from_env().window_ms)?;
            ledger.checkpoint();
            Ok(ledger)
        });
        match opened {
            Ok(ledger) => Ok(Some(ledger)),
            // A home that cannot be written is still reported on.
            Err(e) if e.is_read_only() => Ledger::read_only_copy(&dir).map(Some),
            Err(e) => Err(e),
        }
    }

    /// The ledger of a home that cannot be written (a read-only mount, a
    /// CI cache restored read-only), for `ctx gain`: `ledger.db` copied
    /// into memory (SQLite's backup API, the file opened read-only) and
    /// the journal's entries folded into the copy, its retention window
    /// applied there. Nothing on disk changes, and exact counts made now
    /// are not cached.
    pub fn read_only_copy(dir: &Path) -> Result<Ledger, LedgerError> {
        let path = dir.join(FILE_NAME);
        let mut conn = Connection::open_in_memory().map_err(|e| sqlite(&path, e))?;
        if std::fs::symlink_metadata(&path).is_ok() {
            // The side files too: SQLite opens them by path, links and all.
            crate::home::check_database(&path).map_err(|e| io(&path.display().to_string(), e))?;
            let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
                | OpenFlags::SQLITE_OPEN_NO_MUTEX
                | OpenFlags::SQLITE_OPEN_NOFOLLOW;
            let disk = Connection::open_with_flags(&path, flags).map_err(|e| sqlite(&path, e))?;
            let _ = disk.busy_timeout(READ_WAIT);
            let backup =
                rusqlite::backup::Backup::new(&disk, &mut conn).map_err(|e| sqlite(&path, e))?;
            backup
                .run_to_completion(1024, Duration::ZERO, None)
                .map_err(|e| sqlite(&path, e))?;
        }
        let ledger = Ledger { conn, path };
        ledger.migrate()?;
        let (entries, _torn) = journal::read(dir).map_err(|e| io("ledger journal", e))?;
        ledger.insert_entries(&entries, Digests::Count)?;
        ledger.prune(super::now_ms(), super::Retention::from_env().window_ms)?;
        Ok(ledger)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn configure(&self, wait: Duration) -> rusqlite::Result<()> {
        let c = &self.conn;
        c.busy_timeout(wait)?;
        // As for the store: each ctx process is usually the only connection,
        // and checkpointing on close would cost fsyncs. Folds and prunes
        // checkpoint explicitly (`checkpoint`).
        c.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
        // NORMAL in WAL mode may lose the last rows on power loss, never
        // consistency; FULL would fsync on every write.
        c.execute_batch(
            "PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 256; \
             PRAGMA journal_size_limit = 1048576;",
        )
    }

    fn migrate(&self) -> Result<(), LedgerError> {
        let err = |e| sqlite(&self.path, e);
        let version: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(err)?;
        if version == SCHEMA_VERSION {
            return Ok(());
        }
        if version > SCHEMA_VERSION {
            return Err(LedgerError::Newer {
                path: self.path.display().to_string(),
                found: version,
            });
        }
        // Not allowed inside a transaction; takes effect on a fresh file.
        let _mode: String = self
            .conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(err)?;
        let tx =
            Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate).map_err(err)?;
        // Another process may have migrated while this one waited.
        let v: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(err)?;
        if v < SCHEMA_VERSION {
            if v == 1 {
                tx.execute_batch(FROM_V1).map_err(err)?;
            }
            if v == 2 {
                tx.execute_batch(FROM_V2).map_err(err)?;
            }
            tx.execute_batch(SCHEMA).map_err(err)?;
            if v == 1 {
                tx.execute_batch(COPY_V1).map_err(err)?;
            }
            tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION};"))
                .map_err(err)?;
        }
        tx.commit().map_err(err)
    }

    /// Records one run at `at_ms` (unix milliseconds), its digest counted
    /// exactly.
    pub fn record_run_at(
        &self,
        artifact: &Artifact,
        delivery: &Delivery,
        at_ms: i64,
    ) -> Result<(), LedgerError> {
        let entry = journal::RunEntry::new(artifact, delivery, at_ms);
        self.insert_run(&entry, Digests::Count)
    }

    /// The id of a command line, interned.
    fn command_id(&self, r: &journal::RunEntry) -> rusqlite::Result<i64> {
        let label = r.label.as_deref().unwrap_or("");
        let found = self
            .conn
            .prepare_cached(
                "SELECT id FROM commands WHERE argv = ?1 AND label = ?2 AND profile = ?3",
            )?
            .query_row(params![r.argv, label, r.profile], |row| row.get(0))
            .optional()?;
        if let Some(id) = found {
            return Ok(id);
        }
        self.conn
            .prepare_cached(
                "INSERT INTO commands (argv, label, family, profile) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![r.argv, label, r.family, r.profile])?;
        Ok(self.conn.last_insert_rowid())
    }

    /// The id of an archive record, interned.
    pub(super) fn record_id(&self, key: &[u8; 32]) -> rusqlite::Result<i64> {
        let found = self
            .conn
            .prepare_cached("SELECT id FROM records WHERE key = ?1")?
            .query_row([&key[..]], |row| row.get(0))
            .optional()?;
        if let Some(id) = found {
            return Ok(id);
        }
        self.conn
            .prepare_cached("INSERT INTO records (key) VALUES (?1)")?
            .execute([&key[..]])?;
        Ok(self.conn.last_insert_rowid())
    }

    fn insert_run(&self, r: &journal::RunEntry, digests: Digests) -> Result<(), LedgerError> {
        let err = |e| sqlite(&self.path, e);
        let command = self.command_id(r).map_err(err)?;
        let record = match r.key_hex.as_deref().and_then(ArchiveKey::from_hex) {
            Some(key) => Some(self.record_id(&key.0).map_err(err)?),
            None => None,
        };
        let exit = match (r.exit_kind.as_str(), r.exit_value) {
            ("code", Some(c)) => Some(c),
            ("signal", Some(s)) => Some(-s),
            _ => None,
        };
        let delivered_exact = match (digests, &r.digest) {
            (Digests::Count, Some(d)) => crate::tokens::try_exact(d.as_bytes()).map(|n| n as i64),
            _ => None,
        };
        self.conn
            .prepare_cached(
                "INSERT INTO runs (at_ms, command, exit, raw_bytes, raw_tokens, delivered_tokens,
                                   delivered_exact, digest, rejection, record, delta_saved,
                                   delta_against)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            )
            .and_then(|mut st| {
                st.execute(params![
                    r.at_ms,
                    command,
                    exit,
                    r.raw_bytes,
                    r.raw_tokens,
                    r.delivered_tokens,
                    delivered_exact,
                    r.digest.is_some(),
                    r.rejection,
                    record,
                    r.delta_saved,
                    r.delta_against,
                ])
            })
            .map(drop)
            .map_err(err)
    }

    fn insert_expand(&self, key: &[u8; 32], tokens: i64, at_ms: i64) -> Result<(), LedgerError> {
        let err = |e| sqlite(&self.path, e);
        let record = self.record_id(key).map_err(err)?;
        self.conn
            .prepare_cached("INSERT INTO expands (at_ms, record, tokens) VALUES (?1, ?2, ?3)")
            .and_then(|mut st| st.execute(params![at_ms, record, tokens]))
            .map(drop)
            .map_err(err)
    }

    /// Moves the journal's entries (runs and expands recorded since the
    /// last fold) into the database in one transaction, digests counted.
    pub fn fold_journal(&self, dir: &Path) -> Result<usize, LedgerError> {
        self.fold_journal_with(dir, Digests::Count)
    }

    /// [`fold_journal`](Self::fold_journal), saying what becomes of the
    /// digests' texts.
    pub fn fold_journal_with(&self, dir: &Path, digests: Digests) -> Result<usize, LedgerError> {
        let (entries, _torn) = journal::take(dir).map_err(|e| io("ledger journal", e))?;
        if entries.is_empty() {
            journal::finish(dir);
            return Ok(0);
        }
        match self.insert_entries(&entries, digests) {
            Ok(()) => {
                journal::finish(dir);
                Ok(entries.len())
            }
            Err(e) => {
                // Nothing was written: the entries go back to the journal.
                let _ = journal::restore(dir);
                Err(e)
            }
        }
    }

    /// Writes journal entries in one transaction.
    fn insert_entries(
        &self,
        entries: &[journal::Entry],
        digests: Digests,
    ) -> Result<(), LedgerError> {
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .map_err(|e| sqlite(&self.path, e))?;
        for entry in entries {
            match entry {
                journal::Entry::Run(run) => self.insert_run(run, digests)?,
                journal::Entry::Expand {
                    at_ms,
                    key_hex,
                    tokens,
                } => {
                    if let Some(key) = ArchiveKey::from_hex(key_hex) {
                        self.insert_expand(&key.0, *tokens, *at_ms)?;
                    }
                }
            }
        }
        tx.commit().map_err(|e| sqlite(&self.path, e))
    }

    /// Records one `ctx expand` of `key` that printed `tokens`.
    pub fn record_expand_at(
        &self,
        key: &ArchiveKey,
        tokens: usize,
        at_ms: i64,
    ) -> Result<(), LedgerError> {
        self.insert_expand(&key.0, tokens as i64, at_ms)
    }

    /// Moves the WAL's pages into the database and truncates it, so that
    /// the files on disk are the rows and little more.
    pub fn checkpoint(&self) {
        let _ = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    }
}
