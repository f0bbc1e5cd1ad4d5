//! The SQLite ledger: opening (0600, WAL, DDL only when `user_version` is
//! behind), folding the journal in, and the reads and writes of `ctx gain`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior, params};

use super::error::{io, sqlite};
use super::schema::{SCHEMA, SCHEMA_VERSION};
use super::{ExpandRow, LedgerError, RunRow, Uncounted, journal};
use crate::artifact::{Artifact, Exit};
use crate::pipeline::Delivery;
use crate::store::ArchiveKey;

/// The file name under the data directory.
pub const FILE_NAME: &str = "ledger.db";
/// The longest a run waits for another process's lock before it drops its
/// row: a lost row costs a statistic, a wait costs the agent time.
pub const RECORD_WAIT: Duration = Duration::from_millis(500);
/// How long `ctx gain` waits for a lock.
pub const READ_WAIT: Duration = Duration::from_secs(5);

/// The SQLite ledger.
pub struct Ledger {
    conn: Connection,
    path: PathBuf,
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

    /// The default ledger with its journal folded in, or None when no run
    /// was ever recorded.
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
        let ledger = Ledger::open(&path, READ_WAIT)?;
        ledger.fold_journal(&dir)?;
        Ok(Some(ledger))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn configure(&self, wait: Duration) -> rusqlite::Result<()> {
        let c = &self.conn;
        c.busy_timeout(wait)?;
        // As for the store: each ctx process is usually the only connection,
        // and checkpointing on close would cost fsyncs on every run. The WAL
        // persists and is checkpointed every 256 pages instead.
        c.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
        // NORMAL in WAL mode may lose the last rows on power loss, never
        // consistency; FULL would fsync on every run.
        c.execute_batch(
            "PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 256; \
             PRAGMA journal_size_limit = 4194304;",
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
            tx.execute_batch(SCHEMA).map_err(err)?;
            tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION};"))
                .map_err(err)?;
        }
        tx.commit().map_err(err)
    }

    /// Records one run at `at_ms` (unix milliseconds).
    pub fn record_run_at(
        &self,
        artifact: &Artifact,
        delivery: &Delivery,
        at_ms: i64,
    ) -> Result<(), LedgerError> {
        self.insert_run(&journal::RunEntry::new(artifact, delivery, at_ms))
    }

    fn insert_run(&self, r: &journal::RunEntry) -> Result<(), LedgerError> {
        self.conn
            .prepare_cached(
                "INSERT INTO runs (at_ms, argv, label, family, profile, exit_kind, exit_value,
                     raw_bytes, raw_tokens, delivered_tokens, delivered, rejection, key_hex, digest)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            )
            .and_then(|mut st| {
                st.execute(params![
                    r.at_ms,
                    r.argv,
                    r.label,
                    r.family,
                    r.profile,
                    r.exit_kind,
                    r.exit_value,
                    r.raw_bytes,
                    r.raw_tokens,
                    r.delivered_tokens,
                    r.delivered,
                    r.rejection,
                    r.key_hex,
                    r.digest.as_ref().map(|d| d.as_bytes()),
                ])
            })
            .map(drop)
            .map_err(|e| sqlite(&self.path, e))
    }

    /// Moves the journal's entries (runs and expands recorded since the
    /// last read) into the database, in one transaction.
    pub fn fold_journal(&self, dir: &Path) -> Result<usize, LedgerError> {
        let (entries, _torn) = journal::take(dir).map_err(|e| io("ledger journal", e))?;
        if entries.is_empty() {
            journal::finish(dir);
            return Ok(0);
        }
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .map_err(|e| sqlite(&self.path, e))?;
        for entry in &entries {
            match entry {
                journal::Entry::Run(run) => self.insert_run(run)?,
                journal::Entry::Expand {
                    at_ms,
                    key_hex,
                    tokens,
                } => self
                    .conn
                    .execute(
                        "INSERT INTO expands (at_ms, key_hex, tokens) VALUES (?1, ?2, ?3)",
                        params![at_ms, key_hex, tokens],
                    )
                    .map(drop)
                    .map_err(|e| sqlite(&self.path, e))?,
            }
        }
        tx.commit().map_err(|e| sqlite(&self.path, e))?;
        journal::finish(dir);
        Ok(entries.len())
    }

    /// Records one `ctx expand` of `key` that printed `tokens`.
    pub fn record_expand_at(
        &self,
        key: &ArchiveKey,
        tokens: usize,
        at_ms: i64,
    ) -> Result<(), LedgerError> {
        self.conn
            .execute(
                "INSERT INTO expands (at_ms, key_hex, tokens) VALUES (?1, ?2, ?3)",
                params![at_ms, key.hex(), tokens as i64],
            )
            .map(drop)
            .map_err(|e| sqlite(&self.path, e))
    }

    /// Runs recorded at or after `since_ms` (all when None), oldest first.
    pub fn runs(&self, since_ms: Option<i64>) -> Result<Vec<RunRow>, LedgerError> {
        let err = |e| sqlite(&self.path, e);
        let mut st = self
            .conn
            .prepare(
                "SELECT id, at_ms, argv, label, family, profile, exit_kind, exit_value, raw_bytes,
                        raw_tokens, delivered_tokens, delivered, rejection, key_hex,
                        raw_exact, delivered_exact
                 FROM runs WHERE at_ms >= ?1 ORDER BY at_ms, id",
            )
            .map_err(err)?;
        let rows = st
            .query_map([since_ms.unwrap_or(i64::MIN)], |r| {
                let argv: String = r.get(2)?;
                let exit_kind: String = r.get(6)?;
                let exit_value: Option<i32> = r.get(7)?;
                let delivered: String = r.get(11)?;
                Ok(RunRow {
                    id: r.get(0)?,
                    at_ms: r.get(1)?,
                    argv: serde_json::from_str(&argv).unwrap_or_default(),
                    label: r.get(3)?,
                    family: r.get(4)?,
                    profile: r.get(5)?,
                    exit: match (exit_kind.as_str(), exit_value) {
                        ("code", Some(c)) => Exit::Code(c),
                        ("signal", Some(s)) => Exit::Signal(s),
                        _ => Exit::Unknown,
                    },
                    raw_bytes: count(r.get(8)?),
                    raw_tokens: count(r.get(9)?),
                    delivered_tokens: count(r.get(10)?),
                    digest: delivered == "digest",
                    rejection: r.get(12)?,
                    key_hex: r.get(13)?,
                    raw_exact: r.get::<_, Option<i64>>(14)?.map(count),
                    delivered_exact: r.get::<_, Option<i64>>(15)?.map(count),
                })
            })
            .map_err(err)?;
        rows.collect::<Result<_, _>>().map_err(err)
    }

    /// Every expand, oldest first (attribution needs those of older runs
    /// too; `gain` filters).
    pub fn expands(&self) -> Result<Vec<ExpandRow>, LedgerError> {
        let err = |e| sqlite(&self.path, e);
        let mut st = self
            .conn
            .prepare("SELECT at_ms, key_hex, tokens FROM expands ORDER BY at_ms, id")
            .map_err(err)?;
        let rows = st
            .query_map([], |r| {
                Ok(ExpandRow {
                    at_ms: r.get(0)?,
                    key_hex: r.get(1)?,
                    tokens: count(r.get(2)?),
                })
            })
            .map_err(err)?;
        rows.collect::<Result<_, _>>().map_err(err)
    }

    /// (unix ms, key) of every run that archived its output, for
    /// attributing expands to runs outside a `--since` window.
    pub fn keyed_runs(&self) -> Result<Vec<(i64, i64, String)>, LedgerError> {
        let err = |e| sqlite(&self.path, e);
        let mut st = self
            .conn
            .prepare("SELECT id, at_ms, key_hex FROM runs WHERE key_hex IS NOT NULL")
            .map_err(err)?;
        let rows = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(err)?;
        rows.collect::<Result<_, _>>().map_err(err)
    }

    /// Runs since `since_ms` that lack an exact count and might get one:
    /// a digest not yet counted, or an archived original not yet counted.
    pub fn uncounted(&self, since_ms: Option<i64>) -> Result<Vec<Uncounted>, LedgerError> {
        let err = |e| sqlite(&self.path, e);
        let mut st = self
            .conn
            .prepare(
                "SELECT id, key_hex, CASE WHEN delivered = 'digest' THEN digest END,
                        raw_exact, delivered_exact
                 FROM runs
                 WHERE at_ms >= ?1
                   AND ((delivered = 'digest' AND delivered_exact IS NULL)
                        OR (raw_exact IS NULL AND key_hex IS NOT NULL)
                        OR (delivered = 'raw' AND raw_exact IS NOT NULL
                            AND delivered_exact IS NULL))
                 ORDER BY id",
            )
            .map_err(err)?;
        let rows = st
            .query_map([since_ms.unwrap_or(i64::MIN)], |r| {
                Ok(Uncounted {
                    id: r.get(0)?,
                    key_hex: r.get(1)?,
                    digest: r.get(2)?,
                    raw_exact: r.get::<_, Option<i64>>(3)?.map(count),
                    delivered_exact: r.get::<_, Option<i64>>(4)?.map(count),
                })
            })
            .map_err(err)?;
        rows.collect::<Result<_, _>>().map_err(err)
    }

    /// Caches exact counts (None leaves a count as it was).
    pub fn set_exact(
        &self,
        id: i64,
        raw_exact: Option<u64>,
        delivered_exact: Option<u64>,
    ) -> Result<(), LedgerError> {
        self.conn
            .execute(
                "UPDATE runs SET raw_exact = COALESCE(?2, raw_exact),
                                 delivered_exact = COALESCE(?3, delivered_exact)
                 WHERE id = ?1",
                params![
                    id,
                    raw_exact.map(|n| n as i64),
                    delivered_exact.map(|n| n as i64)
                ],
            )
            .map(drop)
            .map_err(|e| sqlite(&self.path, e))
    }
}

fn count(n: i64) -> u64 {
    n.max(0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::Output;
    use crate::profiles::{Match, MatchedBy};

    fn delivery(output: Output, raw: usize, delivered: usize, key: Option<ArchiveKey>) -> Delivery {
        Delivery {
            output,
            profile: "pytest/v1",
            matched: Match {
                by: MatchedBy::Command,
                reason: "argv".into(),
            },
            key,
            raw_tokens: raw,
            delivered_tokens: delivered,
            rejection: None,
            trace: None,
        }
    }

    #[test]
    fn records_and_reads_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(FILE_NAME);
        let ledger = Ledger::open(&path, READ_WAIT).expect("open");
        let art = Artifact::from_stdout(
            b"x\n".to_vec(),
            Exit::Code(1),
            vec!["pytest".into(), "-x".into()],
        );
        let key = ArchiveKey([7; 32]);
        ledger
            .record_run_at(
                &art,
                &delivery(Output::Digest(b"d\n".to_vec()), 100, 10, Some(key)),
                5,
            )
            .expect("record");
        ledger.record_expand_at(&key, 3, 6).expect("expand");
        let runs = ledger.runs(None).expect("runs");
        assert_eq!(runs.len(), 1);
        let r = &runs[0];
        assert_eq!(r.argv, ["pytest", "-x"]);
        assert_eq!(
            (r.family.as_str(), r.profile.as_str()),
            ("pytest", "pytest/v1")
        );
        assert_eq!(r.exit, Exit::Code(1));
        assert_eq!(
            (r.raw_bytes, r.raw_tokens, r.delivered_tokens),
            (2, 100, 10)
        );
        assert!(r.digest);
        assert_eq!(r.key_hex.as_deref(), Some(key.hex().as_str()));
        assert_eq!(ledger.runs(Some(6)).expect("runs").len(), 0);
        let ex = ledger.expands().expect("expands");
        assert_eq!(
            ex,
            [ExpandRow {
                at_ms: 6,
                key_hex: key.hex(),
                tokens: 3
            }]
        );
        let todo = ledger.uncounted(None).expect("uncounted");
        assert_eq!(todo.len(), 1);
        assert_eq!(todo[0].digest.as_deref(), Some(&b"d\n"[..]));
        ledger.set_exact(r.id, None, Some(2)).expect("set");
        ledger.set_exact(r.id, Some(90), None).expect("set");
        let r = &ledger.runs(None).expect("runs")[0];
        assert_eq!((r.raw_exact, r.delivered_exact), (Some(90), Some(2)));
        assert!(ledger.uncounted(None).expect("uncounted").is_empty());
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&path).expect("meta").permissions(),
        );
        assert_eq!(mode & 0o777, 0o600);
        // Reopening skips the DDL and keeps the rows.
        drop(ledger);
        let again = Ledger::open(&path, READ_WAIT).expect("reopen");
        assert_eq!(again.runs(None).expect("runs").len(), 1);
    }

    #[test]
    fn a_damaged_ledger_fails_to_open_and_records_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(FILE_NAME);
        std::fs::write(&path, vec![0x55u8; 8192]).expect("write");
        assert!(Ledger::open(&path, RECORD_WAIT).is_err());
    }
}
