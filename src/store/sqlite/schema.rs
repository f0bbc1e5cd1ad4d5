//! Opening a store: the file, the per-connection settings, and the schema
//! (created or checked against `PRAGMA user_version`).

use rusqlite::config::DbConfig;
use rusqlite::{Transaction, TransactionBehavior};

use super::{SqliteStore, WAL_LIMIT, WAL_PAGES, describe};
use crate::store::StoreError;

/// Bump with a migration whenever the schema changes.
pub const SCHEMA_VERSION: i64 = 1;
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS records (
    id           INTEGER PRIMARY KEY,
    hex          TEXT    NOT NULL UNIQUE,
    created_ms   INTEGER NOT NULL,
    used_ms      INTEGER NOT NULL,
    argv         TEXT    NOT NULL,
    cwd          TEXT,
    label        TEXT,
    family       TEXT,
    exit_kind    INTEGER NOT NULL,
    exit_value   INTEGER NOT NULL,
    truncated    INTEGER NOT NULL,
    segments     BLOB    NOT NULL,
    raw_bytes    INTEGER NOT NULL,
    stored_bytes INTEGER NOT NULL,
    line_count   INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS records_used ON records (used_ms);
CREATE TABLE IF NOT EXISTS chunks (
    record       INTEGER NOT NULL,
    seq          INTEGER NOT NULL,
    offset       INTEGER NOT NULL,
    raw_len      INTEGER NOT NULL,
    lines_before INTEGER NOT NULL,
    newlines     INTEGER NOT NULL,
    codec        INTEGER NOT NULL,
    data         BLOB    NOT NULL,
    PRIMARY KEY (record, seq)
);
CREATE TABLE IF NOT EXISTS totals (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    records      INTEGER NOT NULL,
    raw_bytes    INTEGER NOT NULL,
    stored_bytes INTEGER NOT NULL
);
INSERT OR IGNORE INTO totals VALUES (1, 0, 0, 0);
CREATE TRIGGER IF NOT EXISTS records_added AFTER INSERT ON records BEGIN
    UPDATE totals SET records = records + 1,
        raw_bytes = raw_bytes + new.raw_bytes,
        stored_bytes = stored_bytes + new.stored_bytes;
END;
CREATE TRIGGER IF NOT EXISTS records_removed AFTER DELETE ON records BEGIN
    DELETE FROM chunks WHERE record = old.id;
    UPDATE totals SET records = records - 1,
        raw_bytes = raw_bytes - old.raw_bytes,
        stored_bytes = stored_bytes - old.stored_bytes;
END;
";

impl SqliteStore {
    pub(super) fn configure(&self) -> Result<(), StoreError> {
        let c = &self.conn;
        let setup = || -> rusqlite::Result<i64> {
            c.busy_timeout(self.options.busy_timeout)?;
            // Every ctx process is usually the only connection, so by
            // default each would checkpoint (fsync) and delete the WAL on
            // close, then recreate it (two more fsyncs) next time: several
            // ms per digest. Instead the WAL persists. Autocheckpointing
            // alone does not bound it (a lone opener rebuilds the WAL index
            // and forgets which frames were already copied back, so the WAL
            // never restarts); each put truncates it past a threshold
            // instead — see `WAL_TRUNCATE_BYTES` in sqlite/mod.rs.
            c.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
            // NORMAL in WAL mode loses at most the last commits on power
            // loss, never consistency; FULL would fsync on every digest.
            c.execute_batch(&format!(
                "PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = {WAL_PAGES}; \
                 PRAGMA journal_size_limit = {WAL_LIMIT};"
            ))?;
            c.query_row("PRAGMA user_version", [], |r| r.get(0))
        };
        let version = setup().map_err(|e| describe(e, &self.path))?;
        if version == SCHEMA_VERSION {
            return Ok(());
        }
        if version > SCHEMA_VERSION {
            return Err(StoreError::Unavailable(format!(
                "{} has schema v{version}, newer than this ctx (v{SCHEMA_VERSION})",
                self.path.display()
            )));
        }
        self.with_retry(|c| {
            // Both only take effect on a fresh file, and neither may run
            // inside a transaction.
            c.execute_batch("PRAGMA auto_vacuum = INCREMENTAL;")?;
            let _mode: String = c.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
            let tx = Transaction::new_unchecked(c, TransactionBehavior::Immediate)?;
            let v: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
            if v < SCHEMA_VERSION {
                tx.execute_batch(SCHEMA)?;
                tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION};"))?;
            }
            tx.commit()?;
            Ok(())
        })
    }
}
