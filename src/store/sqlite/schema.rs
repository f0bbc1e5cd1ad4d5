//! Opening a store: the file, the per-connection settings, and the schema
//! (created or checked against `PRAGMA user_version`).

use rusqlite::config::DbConfig;
use rusqlite::{Transaction, TransactionBehavior};

use super::{SqliteStore, WAL_LIMIT, WAL_PAGES, describe};
use crate::store::StoreError;

/// Bump with a migration whenever the schema changes. Migrations run
/// forward only, each in the same transaction as the version bump; a store
/// newer than this ctx is refused (never misread).
pub const SCHEMA_VERSION: i64 = 3;

/// The steps from an empty file: `MIGRATIONS[i]` takes a store from
/// version `i` to `i + 1`.
const MIGRATIONS: [&str; 3] = [V1, V2, V3];

const V1: &str = "
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

/// v2: a checksum per chunk (blake3 of its original bytes; NULL for chunks
/// written by v1, which only the whole-record check covers); records being
/// written in several short transactions (`pending`, not counted, never
/// resolved or evicted); the keys of quarantined records (`damaged`), so
/// that expand names the damage instead of "unknown".
const V2: &str = "
ALTER TABLE chunks ADD COLUMN sum BLOB;
ALTER TABLE records ADD COLUMN pending INTEGER NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS damaged (
    hex          TEXT    PRIMARY KEY,
    found_ms     INTEGER NOT NULL,
    why          TEXT    NOT NULL
);
DROP TRIGGER IF EXISTS records_added;
DROP TRIGGER IF EXISTS records_removed;
CREATE TRIGGER records_added AFTER INSERT ON records BEGIN
    UPDATE totals SET records = records + 1 - new.pending,
        raw_bytes = raw_bytes + new.raw_bytes,
        stored_bytes = stored_bytes + new.stored_bytes;
END;
CREATE TRIGGER records_changed AFTER UPDATE OF pending, raw_bytes, stored_bytes ON records BEGIN
    UPDATE totals SET records = records + old.pending - new.pending,
        raw_bytes = raw_bytes - old.raw_bytes + new.raw_bytes,
        stored_bytes = stored_bytes - old.stored_bytes + new.stored_bytes;
END;
CREATE TRIGGER records_removed AFTER DELETE ON records BEGIN
    DELETE FROM chunks WHERE record = old.id;
    UPDATE totals SET records = records - 1 + old.pending,
        raw_bytes = raw_bytes - old.raw_bytes,
        stored_bytes = stored_bytes - old.stored_bytes;
END;
";

/// v3: the keys of records retention evicted or a purge removed (`gone`,
/// kept 30 days), so that expand tells "evicted" from "never existed".
const V3: &str = "
CREATE TABLE IF NOT EXISTS gone (
    hex          TEXT    PRIMARY KEY,
    gone_ms      INTEGER NOT NULL,
    why          TEXT    NOT NULL
);
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
                for step in &MIGRATIONS[v.max(0) as usize..] {
                    tx.execute_batch(step)?;
                }
                tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION};"))?;
            }
            tx.commit()?;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::{Artifact, Exit};
    use crate::store::sqlite::Options;
    use crate::store::{Store, chunks, record, verify};
    use rusqlite::{Connection, params};

    /// A store as ctx with schema v1 left it, holding one record.
    fn v1_store(path: &std::path::Path, bytes: &[u8]) -> crate::store::ArchiveKey {
        let c = Connection::open(path).expect("open");
        c.execute_batch(V1).expect("v1 schema");
        c.execute_batch("PRAGMA user_version = 1").expect("version");
        let art = Artifact::from_stdout(bytes.to_vec(), Exit::Code(1), vec!["old".into()]);
        let segments = record::canonical_segments(art.segments());
        let key = record::key_of(bytes, &segments, art.exit);
        c.execute(
            "INSERT INTO records (hex, created_ms, used_ms, argv, exit_kind, exit_value,
                truncated, segments, raw_bytes, stored_bytes, line_count)
             VALUES (?1, 1, 1, '[\"old\"]', 0, 1, 0, ?2, ?3, 1000, ?4)",
            params![
                key.hex(),
                record::encode_segments(&segments),
                bytes.len() as i64,
                art.line_count() as i64
            ],
        )
        .expect("record");
        let id = c.last_insert_rowid();
        for (seq, ch) in chunks::encode(bytes).iter().enumerate() {
            c.execute(
                "INSERT INTO chunks VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    id,
                    seq as i64,
                    ch.info.offset as i64,
                    ch.info.len as i64,
                    ch.info.lines_before as i64,
                    ch.info.newlines as i64,
                    ch.codec as i64,
                    ch.data
                ],
            )
            .expect("chunk");
        }
        key
    }

    #[test]
    fn a_v1_store_is_migrated_and_its_records_still_verify() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("store.db");
        let bytes: Vec<u8> = (0..60_000)
            .flat_map(|i| format!("old line {i}\n").into_bytes())
            .collect();
        let key = v1_store(&path, &bytes);

        let store = SqliteStore::open(&path, Options::default()).expect("migrates");
        let v: i64 = store
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .expect("version");
        assert_eq!(v, SCHEMA_VERSION);
        let meta = store.meta(&key).expect("the old record is there");
        assert!(!meta.checksummed);
        assert_eq!(store.load(&key).expect("load").bytes(), &bytes[..]);
        verify::record(&store, &meta).expect("intact");
        assert_eq!(store.stats().expect("stats").records, 1);

        // New records get checksums, and the triggers still keep totals.
        let new = Artifact::from_stdout(b"new\n".to_vec(), Exit::Code(0), vec![]);
        let k2 = store.put(&new).expect("put");
        assert!(store.meta(&k2).expect("meta").checksummed);
        assert_eq!(store.stats().expect("stats").records, 2);

        // A v1 record's damage is caught by the whole-record check.
        store
            .conn
            .execute(
                "UPDATE chunks SET data = zeroblob(length(data)), codec = 0
                 WHERE seq = 0 AND record = (SELECT id FROM records WHERE hex = ?1)",
                [key.hex()],
            )
            .expect("tamper");
        assert!(matches!(
            verify::record(&store, &meta),
            Err(crate::store::StoreError::Damaged { key: Some(k), .. }) if k == key
        ));
        store.quarantine(&key, "test").expect("quarantine");
        assert_eq!(store.stats().expect("stats").records, 1);
        assert!(matches!(
            store.resolve(&key.short()),
            Err(crate::store::StoreError::Damaged { .. })
        ));
    }
}
