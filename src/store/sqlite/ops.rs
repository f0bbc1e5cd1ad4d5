//! `Store` for SQLite: the queries behind put, resolve, read and the
//! maintenance verbs.

use std::time::Duration;

use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};

use super::{SqliteStore, eligible, summary};
use crate::artifact::Artifact;
use crate::store::chunks::{self, ChunkInfo, Codec};
use crate::store::record::{self, ROW_ALLOWANCE, RecordMeta};
use crate::store::retention;
use crate::store::{ArchiveKey, GcReport, PurgeReport, Retention, Stats, Store, StoreError};

const REFRESH: &str = "UPDATE records SET used_ms = max(used_ms, ?1) WHERE hex = ?2";

impl Store for SqliteStore {
    fn put(&self, artifact: &Artifact) -> Result<ArchiveKey, StoreError> {
        let segments = record::canonical_segments(artifact.segments());
        let key = record::key_of(artifact.bytes(), &segments, artifact.exit);
        let hex = key.hex();
        let now = self.now_ms();
        let deadline = self.deadline();
        // The common repeat (same output again) costs one short write and
        // no compression.
        let seen = self.with_retry_until(deadline, |c| {
            Ok(c.prepare_cached(REFRESH)?.execute(params![now, hex])? > 0)
        })?;
        if seen {
            self.bound_wal(0);
            return Ok(key);
        }

        // Compression happens before the write lock is taken: other ctx
        // processes wait for the lock, never for lz4.
        let encoded = chunks::encode(artifact.bytes());
        let newlines: u64 = encoded.iter().map(|c| c.info.newlines).sum();
        let line_count = chunks::line_count(newlines, artifact.bytes().last().copied());
        let argv = serde_json::to_string(&artifact.argv)
            .map_err(|e| StoreError::Unavailable(format!("argv: {e}")))?;
        let text_len = [&artifact.cwd, &artifact.label, &artifact.family]
            .iter()
            .map(|s| s.as_ref().map_or(0, |s| s.len()))
            .sum::<usize>()
            + argv.len();
        let stored: u64 = encoded
            .iter()
            .map(|c| c.data.len() as u64 + 48)
            .sum::<u64>()
            + ROW_ALLOWANCE
            + text_len as u64;
        let (exit_kind, exit_value) = record::exit_parts(artifact.exit);
        let seg_blob = record::encode_segments(&segments);

        self.with_retry_until(deadline, |c| {
            let tx = Transaction::new_unchecked(c, TransactionBehavior::Immediate)?;
            // Another process may have archived the same output meanwhile.
            if tx.prepare_cached(REFRESH)?.execute(params![now, hex])? > 0 {
                tx.commit()?;
                return Ok(());
            }
            self.make_room(&tx, stored, now)?;
            tx.prepare_cached(
                "INSERT INTO records (hex, created_ms, used_ms, argv, cwd, label, family,
                    exit_kind, exit_value, truncated, segments, raw_bytes, stored_bytes, line_count)
                 VALUES (?1, ?2, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            )?
            .execute(params![
                hex,
                now,
                argv,
                artifact.cwd,
                artifact.label,
                artifact.family,
                exit_kind,
                exit_value,
                artifact.truncated,
                seg_blob,
                artifact.bytes().len() as i64,
                stored as i64,
                line_count as i64,
            ])?;
            let id = tx.last_insert_rowid();
            let mut ins = tx.prepare_cached(
                "INSERT INTO chunks (record, seq, offset, raw_len, lines_before, newlines, codec, data)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?;
            for (seq, c) in encoded.iter().enumerate() {
                ins.execute(params![
                    id,
                    seq as i64,
                    c.info.offset as i64,
                    c.info.len as i64,
                    c.info.lines_before as i64,
                    c.info.newlines as i64,
                    c.codec as i64,
                    c.data,
                ])?;
            }
            drop(ins);
            tx.commit()?;
            Ok(())
        })?;
        self.bound_wal(stored);
        Ok(key)
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
            0 => Err(StoreError::NotFound(prefix.to_string())),
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
                        raw_bytes, stored_bytes, line_count, created_ms, used_ms
                 FROM records WHERE hex = ?1",
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
                    ))
                })
                .optional()?;
            Ok(row)
        })?;
        let Some((argv, cwd, label, family, (kind, value, truncated), segs, n)) = row else {
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
        })
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
                "SELECT offset, raw_len, lines_before, newlines, codec, data FROM chunks
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
                ))
            })
            .optional()?)
        })?;
        let Some((info, codec, data)) = row else {
            return Err(StoreError::NotFound(meta.key.short()));
        };
        chunks::decode(&info, Codec::from_i64(codec)?, data)
    }

    fn touch(&self, key: &ArchiveKey) -> Result<(), StoreError> {
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
                        (SELECT min(created_ms) FROM records), (SELECT max(created_ms) FROM records)
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
        let now = self.now_ms();
        let report = self.with_retry(|c| {
            let tx = Transaction::new_unchecked(c, TransactionBehavior::Immediate)?;
            let total: i64 = tx.query_row("SELECT stored_bytes FROM totals", [], |r| r.get(0))?;
            let candidates = eligible(&tx, policy, now)?;
            let (ids, _) = retention::evict_lru(&candidates, total.max(0) as u64, 0, policy, now);
            let evicted = self.summaries(&tx, &ids)?;
            let mut del = tx.prepare_cached("DELETE FROM records WHERE id = ?1")?;
            for id in &ids {
                del.execute([id])?;
            }
            drop(del);
            let (left, bytes): (i64, i64) =
                tx.query_row("SELECT records, stored_bytes FROM totals", [], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })?;
            tx.commit()?;
            Ok(GcReport {
                evicted_bytes: evicted.iter().map(|s| s.stored_bytes).sum(),
                evicted,
                records_left: left.max(0) as u64,
                bytes_left: bytes.max(0) as u64,
            })
        })?;
        if !report.evicted.is_empty() {
            self.shrink();
        }
        Ok(report)
    }

    fn purge(&self, older_than: Option<Duration>) -> Result<PurgeReport, StoreError> {
        let cutoff = match older_than {
            Some(d) => self.now_ms().saturating_sub(d.as_millis() as i64),
            None => i64::MAX,
        };
        let report = self.with_retry(|c| {
            let tx = Transaction::new_unchecked(c, TransactionBehavior::Immediate)?;
            let (records, stored): (i64, i64) = tx.query_row(
                "SELECT count(*), coalesce(sum(stored_bytes), 0) FROM records WHERE used_ms < ?1",
                [cutoff],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
            tx.execute("DELETE FROM records WHERE used_ms < ?1", [cutoff])?;
            tx.commit()?;
            Ok(PurgeReport {
                records: records.max(0) as u64,
                stored_bytes: stored.max(0) as u64,
            })
        })?;
        if report.records > 0 {
            self.shrink();
        }
        Ok(report)
    }
}
