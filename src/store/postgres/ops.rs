//! `Store` for PostgreSQL: every query parameterised and scoped to the
//! store's namespace.

use std::time::Duration;

use postgres::Row;
use postgres::types::Type;

use super::client::Client;
use super::{LOCK_CLASS, PgStore, describe};
use crate::artifact::Artifact;
use crate::retention::{self, Candidate};
use crate::store::chunks::{self, ChunkInfo, Codec};
use crate::store::record::{self, RecordMeta};
use crate::store::{
    ArchiveKey, GcReport, PurgeReport, RecordSummary, Retention, Stats, Store, StoreError,
};

/// The server's clock in unix ms, plus the test offset `$1`.
const NOW_MS: &str = "SELECT (extract(epoch from now()) * 1000)::bigint + $1::bigint";

const SUMMARY_COLUMNS: &str = "hex, used_ms, argv, label, stored_bytes";

/// Removed records' keys are remembered (`ctx_gone`) so that expand tells
/// "evicted" from "never existed"; the statements that remove records
/// insert into it from their `RETURNING` rows.
const REMEMBER_GONE: &str = "INSERT INTO ctx_gone (namespace, hex, gone_ms, why)";
const REMEMBER_CONFLICT: &str =
    "ON CONFLICT (namespace, hex) DO UPDATE SET gone_ms = excluded.gone_ms, why = excluded.why";
const GONE_EVICTED: &str = "evicted by retention";
const GONE_PURGED: &str = "purged";

/// How long a removed record's key is remembered (30 days).
const GONE_KEPT_MS: i64 = 30 * 24 * 3_600_000;

impl PgStore {
    pub(super) fn now(&self, c: &mut Client) -> Result<i64, StoreError> {
        let offset = self.clock_offset_ms.get();
        Ok(c.query_one(NOW_MS, &[&offset]).map_err(describe)?.get(0))
    }

    pub(super) fn ns(&self) -> &str {
        &self.options.namespace
    }

    /// The GC lock of this namespace, held until the transaction ends:
    /// two clients never evict at once.
    pub(super) fn lock_gc(&self, c: &mut Client) -> Result<(), StoreError> {
        c.execute(
            "SELECT pg_advisory_xact_lock($1, hashtext($2) | 1)",
            &[&LOCK_CLASS, &self.ns()],
        )
        .map_err(describe)?;
        Ok(())
    }

    /// The namespace's record count and stored size, from the running
    /// totals the schema's trigger keeps (schema v3).
    pub(super) fn total(&self, c: &mut Client) -> Result<(i64, i64), StoreError> {
        let row = c
            .query_one(
                "SELECT coalesce(sum(records), 0)::bigint, coalesce(sum(stored_bytes), 0)::bigint
                 FROM ctx_usage WHERE namespace = $1",
                &[&self.ns()],
            )
            .map_err(describe)?;
        Ok((row.get(0), row.get(1)))
    }

    pub(super) fn candidates(
        &self,
        c: &mut Client,
        policy: Retention,
        now: i64,
    ) -> Result<Vec<Candidate>, StoreError> {
        let cutoff = now.saturating_sub(policy.min_age.as_millis() as i64);
        let rows = c
            .query(
                "SELECT id, used_ms, stored_bytes FROM ctx_records
                 WHERE namespace = $1 AND used_ms <= $2 ORDER BY used_ms, id",
                &[&self.ns(), &cutoff],
            )
            .map_err(describe)?;
        Ok(rows
            .iter()
            .map(|r| Candidate {
                id: r.get(0),
                used_ms: r.get(1),
                stored_bytes: r.get::<_, i64>(2).max(0) as u64,
            })
            .collect())
    }

    pub(super) fn evict(
        &self,
        c: &mut Client,
        ids: &[i64],
    ) -> Result<Vec<RecordSummary>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let offset = self.clock_offset_ms.get();
        let rows = c
            .query(
                &format!(
                    "WITH gone AS (DELETE FROM ctx_records WHERE namespace = $1 AND id = ANY($2)
                                   RETURNING {SUMMARY_COLUMNS}),
                          marked AS ({REMEMBER_GONE} SELECT $1, hex,
                                     (extract(epoch from now()) * 1000)::bigint + $3::bigint,
                                     '{GONE_EVICTED}'
                                     FROM gone {REMEMBER_CONFLICT})
                     SELECT {SUMMARY_COLUMNS} FROM gone"
                ),
                &[&self.ns(), &ids, &offset],
            )
            .map_err(describe)?;
        Ok(rows.iter().map(summary).collect())
    }

    pub(super) fn refresh(&self, c: &mut Client, hex: &str) -> Result<bool, StoreError> {
        let offset = self.clock_offset_ms.get();
        // Typed, unnamed: one round trip, no separate prepare.
        let n = c
            .execute_typed(
                "UPDATE ctx_records
                 SET used_ms = greatest(used_ms, (extract(epoch from now()) * 1000)::bigint + $3)
                 WHERE namespace = $1 AND hex = $2",
                &[
                    (&self.ns(), Type::TEXT),
                    (&hex, Type::TEXT),
                    (&offset, Type::INT8),
                ],
            )
            .map_err(describe)?;
        Ok(n > 0)
    }

    fn quarantined(&self, prefix: &str, upper: &str) -> Result<StoreError, StoreError> {
        let row = self
            .session()?
            .query_opt(
                "SELECT hex, why FROM ctx_damaged
                 WHERE namespace = $1 AND hex >= $2 AND hex < $3 ORDER BY found_ms DESC LIMIT 1",
                &[&self.ns(), &prefix, &upper],
            )
            .map_err(describe)?;
        Ok(
            match row.and_then(|r| Some((ArchiveKey::from_hex(r.get(0))?, r.get::<_, String>(1)))) {
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
        let row = self
            .session()?
            .query_opt(
                "SELECT hex, why, gone_ms FROM ctx_gone
                 WHERE namespace = $1 AND hex >= $2 AND hex < $3 ORDER BY gone_ms DESC LIMIT 1",
                &[&self.ns(), &prefix, &upper],
            )
            .map_err(describe)?;
        Ok(
            match row.and_then(|r| {
                Some((
                    ArchiveKey::from_hex(r.get(0))?,
                    r.get::<_, String>(1),
                    r.get(2),
                ))
            }) {
                Some((key, why, gone_ms)) => StoreError::Gone { key, why, gone_ms },
                None => StoreError::NotFound(prefix.to_string()),
            },
        )
    }

    /// Who wrote the records: (machine, user, records), most first.
    pub fn writers(&self) -> Result<Vec<(String, String, u64)>, StoreError> {
        let rows = self
            .session()?
            .query(
                "SELECT machine, os_user, count(*) FROM ctx_records WHERE namespace = $1
                 GROUP BY machine, os_user ORDER BY count(*) DESC, machine, os_user LIMIT 20",
                &[&self.ns()],
            )
            .map_err(describe)?;
        Ok(rows
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get::<_, i64>(2).max(0) as u64))
            .collect())
    }
}

fn summary(r: &Row) -> RecordSummary {
    let hex: String = r.get(0);
    let argv: String = r.get(2);
    let label: Option<String> = r.get(3);
    let command = label.unwrap_or_else(|| {
        serde_json::from_str::<Vec<String>>(&argv).map_or_else(|_| "?".into(), |a| a.join(" "))
    });
    RecordSummary {
        key: ArchiveKey::from_hex(&hex).unwrap_or(ArchiveKey([0; 32])),
        used_ms: r.get(1),
        command,
        stored_bytes: r.get::<_, i64>(4).max(0) as u64,
    }
}

fn chunk_info(r: &Row) -> ChunkInfo {
    ChunkInfo {
        offset: r.get::<_, i64>(0).max(0) as u64,
        len: r.get::<_, i64>(1).max(0) as u64,
        lines_before: r.get::<_, i64>(2).max(0) as u64,
        newlines: r.get::<_, i64>(3).max(0) as u64,
    }
}

impl Store for PgStore {
    fn put(&self, artifact: &Artifact) -> Result<ArchiveKey, StoreError> {
        self.put_artifact(artifact)
    }

    fn resolve(&self, prefix: &str) -> Result<ArchiveKey, StoreError> {
        let upper = format!("{prefix}g");
        let rows = self
            .session()?
            .query(
                &format!(
                    "SELECT {SUMMARY_COLUMNS} FROM ctx_records
                     WHERE namespace = $1 AND hex >= $2 AND hex < $3
                     ORDER BY used_ms DESC LIMIT 20"
                ),
                &[&self.ns(), &prefix, &upper],
            )
            .map_err(describe)?;
        let found: Vec<RecordSummary> = rows.iter().map(summary).collect();
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
        let row = self
            .session()?
            .query_opt(
                "SELECT argv, cwd, label, family, exit_kind, exit_value, truncated, segments,
                        raw_bytes, stored_bytes, line_count, created_ms, used_ms
                 FROM ctx_records WHERE namespace = $1 AND hex = $2",
                &[&self.ns(), &key.hex()],
            )
            .map_err(describe)?;
        let Some(r) = row else {
            return Err(StoreError::NotFound(key.short()));
        };
        let argv: String = r.get(0);
        Ok(RecordMeta {
            key: *key,
            argv: serde_json::from_str(&argv)
                .map_err(|_| record::corrupt("argv is not a JSON list"))?,
            cwd: r.get(1),
            label: r.get(2),
            family: r.get(3),
            exit: record::exit_from_parts(
                i64::from(r.get::<_, i32>(4)),
                i64::from(r.get::<_, i32>(5)),
            )?,
            truncated: r.get(6),
            segments: record::decode_segments(r.get(7))?,
            raw_bytes: r.get::<_, i64>(8).max(0) as u64,
            stored_bytes: r.get::<_, i64>(9).max(0) as u64,
            line_count: r.get::<_, i64>(10).max(0) as u64,
            created_ms: r.get(11),
            used_ms: r.get(12),
            checksummed: true,
        })
        .map_err(|e: StoreError| e.of_record(*key))
    }

    fn chunk_index(&self, meta: &RecordMeta) -> Result<Vec<ChunkInfo>, StoreError> {
        let rows = self
            .session()?
            .query(
                "SELECT c.\"offset\", c.raw_len, c.lines_before, c.newlines
                 FROM ctx_chunks c JOIN ctx_records r ON c.record = r.id
                 WHERE r.namespace = $1 AND r.hex = $2 ORDER BY c.seq",
                &[&self.ns(), &meta.key.hex()],
            )
            .map_err(describe)?;
        Ok(rows.iter().map(chunk_info).collect())
    }

    fn chunk(&self, meta: &RecordMeta, seq: usize) -> Result<Vec<u8>, StoreError> {
        // By key, not row id: a record evicted meanwhile reads as gone.
        let row = self
            .session()?
            .query_opt(
                "SELECT c.\"offset\", c.raw_len, c.lines_before, c.newlines, c.codec, c.data, c.sum
                 FROM ctx_chunks c JOIN ctx_records r ON c.record = r.id
                 WHERE r.namespace = $1 AND r.hex = $2 AND c.seq = $3",
                &[&self.ns(), &meta.key.hex(), &(seq as i32)],
            )
            .map_err(describe)?;
        let Some(r) = row else {
            return Err(StoreError::NotFound(meta.key.short()));
        };
        let info = chunk_info(&r);
        let codec: i16 = r.get(4);
        let data: Vec<u8> = r.get(5);
        let sum: Vec<u8> = r.get(6);
        Codec::from_i64(i64::from(codec))
            .and_then(|codec| chunks::decode(&info, codec, data, Some(&sum)))
            .map_err(|e| e.of_record(meta.key))
    }

    fn touch(&self, key: &ArchiveKey) -> Result<(), StoreError> {
        self.refresh(&mut *self.session()?, &key.hex()).map(drop)
    }

    fn stats(&self) -> Result<Stats, StoreError> {
        let mut c = self.session()?;
        let r = c
            .query_one(
                "SELECT count(*), coalesce(sum(raw_bytes), 0)::bigint,
                        coalesce(sum(stored_bytes), 0)::bigint, min(created_ms), max(created_ms),
                        (pg_total_relation_size('ctx_records')
                         + pg_total_relation_size('ctx_chunks'))::bigint
                 FROM ctx_records WHERE namespace = $1",
                &[&self.ns()],
            )
            .map_err(describe)?;
        Ok(Stats {
            records: r.get::<_, i64>(0).max(0) as u64,
            raw_bytes: r.get::<_, i64>(1).max(0) as u64,
            stored_bytes: r.get::<_, i64>(2).max(0) as u64,
            oldest_ms: r.get(3),
            newest_ms: r.get(4),
            file_bytes: r.get::<_, i64>(5).max(0) as u64,
        })
    }

    fn gc(&self, policy: Retention) -> Result<GcReport, StoreError> {
        let mut tx = self.transaction()?;
        self.lock_gc(&mut tx)?;
        let now = self.now(&mut tx)?;
        let (_, total) = self.total(&mut tx)?;
        let candidates = self.candidates(&mut tx, policy, now)?;
        let (ids, _) = retention::evict_lru(&candidates, total.max(0) as u64, 0, policy, now);
        let evicted = self.evict(&mut tx, &ids)?;
        // The list of removed keys stays short.
        tx.execute(
            "DELETE FROM ctx_gone WHERE namespace = $1 AND gone_ms < $2",
            &[&self.ns(), &now.saturating_sub(GONE_KEPT_MS)],
        )
        .map_err(describe)?;
        let (left, bytes) = self.total(&mut tx)?;
        tx.commit()?;
        Ok(GcReport {
            evicted_bytes: evicted.iter().map(|s| s.stored_bytes).sum(),
            evicted,
            records_left: left.max(0) as u64,
            bytes_left: bytes.max(0) as u64,
        })
    }

    fn purge(&self, older_than: Option<Duration>) -> Result<PurgeReport, StoreError> {
        let mut client = self.session()?;
        let now = self.now(&mut client)?;
        let cutoff = match older_than {
            Some(d) => now.saturating_sub(d.as_millis() as i64),
            None => i64::MAX,
        };
        let r = client
            .query_one(
                &format!(
                    "WITH gone AS (DELETE FROM ctx_records WHERE namespace = $1 AND used_ms < $2
                                   RETURNING hex, stored_bytes),
                          marked AS ({REMEMBER_GONE} SELECT $1, hex, $3, '{GONE_PURGED}'
                                     FROM gone {REMEMBER_CONFLICT})
                     SELECT count(*), coalesce(sum(stored_bytes), 0)::bigint FROM gone"
                ),
                &[&self.ns(), &cutoff, &now],
            )
            .map_err(describe)?;
        client.commit()?;
        Ok(PurgeReport {
            records: r.get::<_, i64>(0).max(0) as u64,
            stored_bytes: r.get::<_, i64>(1).max(0) as u64,
        })
    }

    fn quarantine(&self, key: &ArchiveKey, why: &str) -> Result<(), StoreError> {
        let mut tx = self.transaction()?;
        let now = self.now(&mut tx)?;
        let hex = key.hex();
        tx.execute(
            "INSERT INTO ctx_damaged (namespace, hex, found_ms, why) VALUES ($1, $2, $3, $4)
             ON CONFLICT (namespace, hex) DO UPDATE SET found_ms = $3, why = $4",
            &[&self.ns(), &hex, &now, &why],
        )
        .map_err(describe)?;
        tx.execute(
            "DELETE FROM ctx_records WHERE namespace = $1 AND hex = $2",
            &[&self.ns(), &hex],
        )
        .map_err(describe)?;
        tx.commit()
    }

    fn keys(&self) -> Result<Vec<ArchiveKey>, StoreError> {
        let rows = self
            .session()?
            .query(
                "SELECT hex FROM ctx_records WHERE namespace = $1 ORDER BY id",
                &[&self.ns()],
            )
            .map_err(describe)?;
        Ok(rows
            .iter()
            .filter_map(|r| ArchiveKey::from_hex(r.get(0)))
            .collect())
    }
}
