//! `Store` for SQLite: the queries behind put, resolve, read and the
//! maintenance verbs.

use std::time::Duration;

use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};

use super::{SqliteStore, eligible, summary};
use crate::artifact::Artifact;
use crate::retention;
use crate::store::chunks::{self, ChunkInfo, Codec};
use crate::store::record::{self, RecordMeta};
use crate::store::{ArchiveKey, GcReport, PurgeReport, Retention, Stats, Store, StoreError};

/// Batches of records `gc` and `purge` delete per transaction, so that
/// writers never wait behind one long maintenance transaction.
const MAINTENANCE_BATCH: usize = 16;

/// How long a quarantined key is remembered (30 days).
const DAMAGED_KEPT_MS: i64 = 30 * 24 * 3_600_000;

impl SqliteStore {
    /// The error for a prefix that names no record: the damage report when
    /// it names a quarantined one, else `NotFound`.
    fn quarantined(&self, prefix: &str, upper: &str) -> Result<StoreError, StoreError> {
        let hit = self.with_retry(|c| {
            Ok(c.prepare_cached(
                "SELECT hex, why FROM damaged WHERE hex >= ?1 AND hex < ?2 ORDER BY found_ms DESC",
            )?
            .query_row(params![prefix, upper], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })
            .optional()?)
        })?;
        Ok(
            match hit.and_then(|(hex, why)| Some((ArchiveKey::from_hex(&hex)?, why))) {
                Some((key, why)) => StoreError::Damaged {
                    key: Some(key),
                    why: format!("quarantined: {why}"),
                },
                None => self.gone(prefix, upper)?,
            },
        )
    }

    /// `Gone` when the prefix names a record that was evicted or purged,
    /// else `NotFound`.
    fn gone(&self, prefix: &str, upper: &str) -> Result<StoreError, StoreError> {
        let hit = self.with_retry(|c| {
            Ok(c.prepare_cached(
                "SELECT hex, why, gone_ms FROM gone WHERE hex >= ?1 AND hex < ?2
                 ORDER BY gone_ms DESC",
            )?
            .query_row(params![prefix, upper], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get(2)?))
            })
            .optional()?)
        })?;
        Ok(
            match hit.and_then(|(hex, why, at)| Some((ArchiveKey::from_hex(&hex)?, why, at))) {
                Some((key, why, gone_ms)) => StoreError::Gone { key, why, gone_ms },
                None => StoreError::NotFound(prefix.to_string()),
            },
        )
    }

    /// SQLite's own structural check of the file (`PRAGMA quick_check`):
    /// `None` when it is sound, else the first problems it names.
    pub fn quick_check(&self) -> Result<Option<String>, StoreError> {
        let lines = self.with_retry(|c| {
            let mut q = c.prepare("PRAGMA quick_check(20)")?;
            let rows = q.query_map([], |r| r.get::<_, String>(0))?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })?;
        Ok((lines != ["ok"]).then(|| lines.join("; ")))
    }
}

impl Store for SqliteStore {
    fn put(&self, artifact: &Artifact) -> Result<ArchiveKey, StoreError> {
        if let Some(writer) = self.writer_for()? {
            return writer.put(artifact);
        }
        self.put_artifact(artifact)
    }

    fn resolve(&self, prefix: &str) -> Result<ArchiveKey, StoreError> {
        // Every hex string starting with `prefix` sorts in [prefix, prefix+"g").
        let upper = format!("{prefix}g");
        let found = self.with_retry(|c| {
            let mut q = c.prepare_cached(
                "SELECT hex, used_ms, argv, label, stored_bytes FROM records
                 WHERE hex >= ?1 AND hex < ?2 ORDER BY used_ms DESC LIMIT 20",
            )?;
            let rows = q.query_map(params![prefix, upper], summary)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })?;
        match found.len() {
            0 => Err(self.quarantined(prefix, &upper)?),
            1 => Ok(found[0].key),
            _ => Err(StoreError::Ambiguous {
                prefix: prefix.to_string(),
                candidates: found,
            }),
        }
    }

    fn meta(&self, key: &ArchiveKey) -> Result<RecordMeta, StoreError> {
        let hex = key.hex();
        let row = self.with_retry(|c| {
            let mut q = c.prepare_cached(
                "SELECT argv, cwd, label, family, exit_kind, exit_value, truncated, segments,
                        raw_bytes, stored_bytes, line_count, created_ms, used_ms,
                        NOT EXISTS (SELECT 1 FROM chunks WHERE record = records.id AND sum IS NULL)
                 FROM records WHERE hex = ?1 AND pending = 0",
            )?;
            let row = q
                .query_row([&hex], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, Option<String>>(1)?,
                        r.get::<_, Option<String>>(2)?,
                        r.get::<_, Option<String>>(3)?,
                        (
                            r.get::<_, i64>(4)?,
                            r.get::<_, i64>(5)?,
                            r.get::<_, bool>(6)?,
                        ),
                        r.get::<_, Vec<u8>>(7)?,
                        [
                            r.get::<_, i64>(8)?,
                            r.get(9)?,
                            r.get(10)?,
                            r.get(11)?,
                            r.get(12)?,
                        ],
                        r.get::<_, bool>(13)?,
                    ))
                })
                .optional()?;
            Ok(row)
        })?;
        let Some((argv, cwd, label, family, (kind, value, truncated), segs, n, checksummed)) = row
        else {
            return Err(StoreError::NotFound(key.short()));
        };
        Ok(RecordMeta {
            key: *key,
            argv: serde_json::from_str(&argv)
                .map_err(|_| record::corrupt("argv is not a JSON list"))?,
            cwd,
            label,
            family,
            exit: record::exit_from_parts(kind, value)?,
            truncated,
            segments: record::decode_segments(&segs)?,
            raw_bytes: n[0].max(0) as u64,
            stored_bytes: n[1].max(0) as u64,
            line_count: n[2].max(0) as u64,
            created_ms: n[3],
            used_ms: n[4],
            checksummed,
        })
        .map_err(|e: StoreError| e.of_record(*key))
    }

    fn chunk_index(&self, meta: &RecordMeta) -> Result<Vec<ChunkInfo>, StoreError> {
        let hex = meta.key.hex();
        self.with_retry(|c| {
            let mut q = c.prepare_cached(
                "SELECT offset, raw_len, lines_before, newlines FROM chunks
                 WHERE record = (SELECT id FROM records WHERE hex = ?1) ORDER BY seq",
            )?;
            let rows = q.query_map([&hex], |r| {
                Ok(ChunkInfo {
                    offset: r.get::<_, i64>(0)?.max(0) as u64,
                    len: r.get::<_, i64>(1)?.max(0) as u64,
                    lines_before: r.get::<_, i64>(2)?.max(0) as u64,
                    newlines: r.get::<_, i64>(3)?.max(0) as u64,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
    }

    fn chunk(&self, meta: &RecordMeta, seq: usize) -> Result<Vec<u8>, StoreError> {
        let hex = meta.key.hex();
        // By hash, not row id: a record evicted meanwhile must read as gone,
        // never as whatever reused its id.
        let row = self.with_retry(|c| {
            let mut q = c.prepare_cached(
                "SELECT offset, raw_len, lines_before, newlines, codec, data, sum FROM chunks
                 WHERE record = (SELECT id FROM records WHERE hex = ?1) AND seq = ?2",
            )?;
            Ok(q.query_row(params![hex, seq as i64], |r| {
                Ok((
                    ChunkInfo {
                        offset: r.get::<_, i64>(0)?.max(0) as u64,
                        len: r.get::<_, i64>(1)?.max(0) as u64,
                        lines_before: r.get::<_, i64>(2)?.max(0) as u64,
                        newlines: r.get::<_, i64>(3)?.max(0) as u64,
                    },
                    r.get::<_, i64>(4)?,
                    r.get::<_, Vec<u8>>(5)?,
                    r.get::<_, Option<Vec<u8>>>(6)?,
                ))
            })
            .optional()?)
        })?;
        let Some((info, codec, data, sum)) = row else {
            return Err(StoreError::NotFound(meta.key.short()));
        };
        Codec::from_i64(codec)
            .and_then(|codec| chunks::decode(&info, codec, data, sum.as_deref()))
            .map_err(|e| e.of_record(meta.key))
    }

    fn quarantine(&self, key: &ArchiveKey, why: &str) -> Result<(), StoreError> {
        if let Some(writer) = self.writer_for()? {
            return writer.quarantine(key, why);
        }
        let now = self.now_ms();
        let hex = key.hex();
        self.with_retry(|c| {
            let tx = Transaction::new_unchecked(c, TransactionBehavior::Immediate)?;
            tx.execute(
                "INSERT OR REPLACE INTO damaged (hex, found_ms, why) VALUES (?1, ?2, ?3)",
                params![hex, now, why],
            )?;
            // The list stays short: a damage older than the default
            // minimum age has long been re-archived or forgotten.
            tx.execute(
                "DELETE FROM damaged WHERE found_ms < ?1",
                [now.saturating_sub(DAMAGED_KEPT_MS)],
            )?;
            tx.execute("DELETE FROM records WHERE hex = ?1 AND pending = 0", [&hex])?;
            tx.commit()?;
            Ok(())
        })
    }

    fn keys(&self) -> Result<Vec<ArchiveKey>, StoreError> {
        let hexes = self.with_retry(|c| {
            let mut q =
                c.prepare_cached("SELECT hex FROM records WHERE pending = 0 ORDER BY id")?;
            let rows = q.query_map([], |r| r.get::<_, String>(0))?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })?;
        Ok(hexes
            .iter()
            .filter_map(|h| ArchiveKey::from_hex(h))
            .collect())
    }

    fn touch(&self, key: &ArchiveKey) -> Result<(), StoreError> {
        if self.is_read_only() {
            // A read writes nothing of the store: the next writer that
            // needs the last use folds this line in (touches.rs).
            return super::touches::append(&self.path, key, self.now_ms()).map_err(|e| {
                StoreError::Unavailable(format!("cannot note the use of {}: {e}", key.short()))
            });
        }
        // A read must not wait on a writer: one short try, then let it be.
        let _ = self.conn.busy_timeout(Duration::from_millis(50));
        let r = self.conn.execute(
            "UPDATE records SET used_ms = max(used_ms, ?1) WHERE hex = ?2",
            params![self.now_ms(), key.hex()],
        );
        let _ = self.conn.busy_timeout(self.options.busy_timeout);
        r.map(drop).map_err(|e| super::describe(e, &self.path))
    }

    fn stats(&self) -> Result<Stats, StoreError> {
        let (records, raw, stored, oldest, newest) = self.with_retry(|c| {
            Ok(c.query_row(
                "SELECT t.records, t.raw_bytes, t.stored_bytes,
                        (SELECT min(created_ms) FROM records WHERE pending = 0),
                        (SELECT max(created_ms) FROM records WHERE pending = 0)
                 FROM totals t",
                [],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, i64>(2)?,
                        r.get::<_, Option<i64>>(3)?,
                        r.get::<_, Option<i64>>(4)?,
                    ))
                },
            )?)
        })?;
        let file_bytes = ["", "-wal"]
            .iter()
            .filter_map(|s| {
                let mut p = self.path.as_os_str().to_owned();
                p.push(s);
                std::fs::metadata(p).ok().map(|m| m.len())
            })
            .sum();
        Ok(Stats {
            records: records.max(0) as u64,
            raw_bytes: raw.max(0) as u64,
            stored_bytes: stored.max(0) as u64,
            oldest_ms: oldest,
            newest_ms: newest,
            file_bytes,
        })
    }

    fn gc(&self, policy: Retention) -> Result<GcReport, StoreError> {
        if let Some(writer) = self.writer_for()? {
            return writer.gc(policy);
        }
        let now = self.now_ms();
        let deadline = self.deadline();
        let mut evicted = Vec::new();
        let mut swept = 0;
        // Short batches: each transaction deletes a few records and lets
        // any waiting writer in before the next.
        let (left, bytes) = loop {
            let (batch, left, bytes, dead) = self.with_retry_until(deadline, |c| {
                let tx = Transaction::new_unchecked(c, TransactionBehavior::Immediate)?;
                self.apply_touches(&tx)?;
                let dead = super::sweep_abandoned(&tx, now)?;
                let total: i64 =
                    tx.query_row("SELECT stored_bytes FROM totals", [], |r| r.get(0))?;
                let candidates = eligible(&tx, policy, now)?;
                let (mut ids, _) =
                    retention::evict_lru(&candidates, total.max(0) as u64, 0, policy, now);
                ids.truncate(MAINTENANCE_BATCH);
                let batch = self.summaries(&tx, &ids)?;
                super::remove(&tx, &ids, now, super::GONE_EVICTED)?;
                // The list of removed keys stays short.
                tx.execute(
                    "DELETE FROM gone WHERE gone_ms < ?1",
                    [now.saturating_sub(super::GONE_KEPT_MS)],
                )?;
                let (left, bytes): (i64, i64) =
                    tx.query_row("SELECT records, stored_bytes FROM totals", [], |r| {
                        Ok((r.get(0)?, r.get(1)?))
                    })?;
                tx.commit()?;
                Ok((batch, left, bytes, dead))
            })?;
            swept += dead;
            let done = batch.is_empty();
            evicted.extend(batch);
            if done {
                break (left, bytes);
            }
        };
        let report = GcReport {
            evicted_bytes: evicted.iter().map(|s| s.stored_bytes).sum(),
            evicted,
            records_left: left.max(0) as u64,
            bytes_left: bytes.max(0) as u64,
        };
        if !report.evicted.is_empty() || swept > 0 {
            self.shrink();
        }
        Ok(report)
    }

    fn purge(&self, older_than: Option<Duration>) -> Result<PurgeReport, StoreError> {
        if let Some(writer) = self.writer_for()? {
            return writer.purge(older_than);
        }
        let now = self.now_ms();
        let cutoff = match older_than {
            Some(d) => now.saturating_sub(d.as_millis() as i64),
            None => i64::MAX,
        };
        // Pending rows go too (their writers then give up and print the
        // raw output): purge means everything.
        let deadline = self.deadline();
        let mut report = PurgeReport::default();
        loop {
            let (records, stored) = self.with_retry_until(deadline, |c| {
                let tx = Transaction::new_unchecked(c, TransactionBehavior::Immediate)?;
                if older_than.is_some() {
                    self.apply_touches(&tx)?;
                }
                let ids: Vec<(i64, i64, bool)> = tx
                    .prepare_cached(
                        "SELECT id, stored_bytes, pending FROM records WHERE used_ms < ?1 LIMIT ?2",
                    )?
                    .query_map(params![cutoff, MAINTENANCE_BATCH as i64], |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                    })?
                    .collect::<rusqlite::Result<_>>()?;
                let removed: Vec<i64> = ids.iter().map(|(id, _, _)| *id).collect();
                super::remove(&tx, &removed, now, super::GONE_PURGED)?;
                tx.commit()?;
                let finished = ids.iter().filter(|(_, _, p)| !p);
                Ok((
                    if ids.is_empty() {
                        None
                    } else {
                        Some(finished.clone().count() as u64)
                    },
                    finished.map(|(_, s, _)| (*s).max(0) as u64).sum::<u64>(),
                ))
            })?;
            let Some(records) = records else { break };
            report.records += records;
            report.stored_bytes += stored;
        }
        if report.records > 0 {
            self.shrink();
        }
        Ok(report)
    }
}
