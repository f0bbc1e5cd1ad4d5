//! The archive's write. Every `ctx run` that archives pays for it, on a
//! connection of its own, so what costs is the number of times ctx waits
//! for the server, not the server's work. The usual put — the schema is
//! current, the record fits under the cap — is therefore one statement
//! sent in one flight (unnamed and typed: no separate prepare): it checks
//! the schema version, reads the clock and the namespace's running total,
//! refreshes the record if it exists or inserts it with its chunks, and
//! clears a quarantine of the same key, all or nothing (one statement is
//! one transaction: no BEGIN/COMMIT exchange). Anything unusual — an
//! older or newer schema, a full namespace, a record larger than a chunk
//! — falls back to the step-by-step transaction, which migrates, evicts
//! under the GC lock, or streams chunk by chunk.

use postgres::error::SqlState;
use postgres::types::{ToSql, Type};

use super::schema::SCHEMA_VERSION;
use super::{PgStore, describe};
use crate::artifact::Artifact;
use crate::retention;
use crate::store::chunks::{self, CHUNK_TARGET, EncodedChunk, Encoder};
use crate::store::record::{self, ROW_ALLOWANCE};
use crate::store::{ArchiveKey, StoreError};

/// Index-entry overhead the size cap charges per chunk (as in SQLite).
const CHUNK_ALLOWANCE: u64 = 48;

/// The largest output written in one statement: one chunk's worth, so no
/// statement carries more than the chunk-by-chunk path's statements do
/// (each is bounded by the statement timeout).
const ONE_STATEMENT_MAX_BYTES: usize = CHUNK_TARGET;

/// The one-flight put. `go` holds the server's clock when the schema is
/// this binary's and the record fits under the cap; without it nothing
/// is written. Every statement is scoped to the namespace `$1`.
const PUT_IN_ONE_STATEMENT: &str = r#"
WITH version AS (
    SELECT coalesce(max(version), 0) AS v FROM ctx_schema
),
go AS (
    SELECT (extract(epoch from now()) * 1000)::bigint + $3 AS now
    FROM version
    WHERE version.v = $4
      AND (SELECT coalesce(sum(stored_bytes), 0) FROM ctx_usage WHERE namespace = $1) + $5 <= $6
),
refreshed AS (
    UPDATE ctx_records r SET used_ms = greatest(r.used_ms, go.now)
    FROM go WHERE r.namespace = $1 AND r.hex = $2
    RETURNING r.id
),
inserted AS (
    INSERT INTO ctx_records (namespace, hex, created_ms, argv, cwd, label, family,
        exit_kind, exit_value, truncated, segments, raw_bytes, stored_bytes,
        line_count, machine, os_user, used_ms)
    SELECT $1, $2, go.now, $7, $8, $9, $10, $11, $12, $13, $14, $15, $5, $16, $17, $18, go.now
    FROM go WHERE NOT EXISTS (SELECT 1 FROM refreshed)
    ON CONFLICT (namespace, hex) DO NOTHING
    RETURNING id
),
stored_chunks AS (
    INSERT INTO ctx_chunks (record, seq, "offset", raw_len, lines_before, newlines, codec, data, sum)
    SELECT inserted.id, (c.n - 1)::integer, c.off, c.raw_len, c.lines_before, c.newlines,
           c.codec, c.data, c.sum
    FROM inserted,
         unnest($19::bigint[], $20::bigint[], $21::bigint[], $22::bigint[], $23::smallint[],
                $24::bytea[], $25::bytea[])
         WITH ORDINALITY AS c(off, raw_len, lines_before, newlines, codec, data, sum, n)
),
healed AS (
    DELETE FROM ctx_damaged
    WHERE namespace = $1 AND hex = $2 AND EXISTS (SELECT 1 FROM inserted)
)
SELECT version.v,
       EXISTS (SELECT 1 FROM go),
       EXISTS (SELECT 1 FROM inserted),
       EXISTS (SELECT 1 FROM refreshed)
FROM version
"#;

/// What the one statement did.
enum OneStatement {
    /// Inserted, or an existing record refreshed.
    Stored,
    /// Another writer inserted the same record while this one ran: its
    /// insert did nothing and its refresh saw no row yet.
    Raced,
    /// Nothing written: the namespace is full (eviction needed).
    OverCap,
    /// Nothing written: the server's schema is not this binary's (or
    /// missing).
    SchemaDiffers,
}

/// A record ready to write: its key, its encoded chunks and the columns
/// of its row.
struct NewRecord {
    hex: String,
    chunks: Vec<EncodedChunk>,
    raw_bytes: i64,
    stored_bytes: u64,
    line_count: i64,
    argv: String,
    exit_kind: i32,
    exit_value: i32,
    segments: Vec<u8>,
}

impl NewRecord {
    fn encode(artifact: &Artifact, hex: String, segments: Vec<u8>) -> Result<Self, StoreError> {
        let mut enc = Encoder::without_hash();
        let mut encoded = enc.push(artifact.bytes());
        let fin = enc.finish();
        encoded.extend(fin.chunks);
        let argv = serde_json::to_string(&artifact.argv)
            .map_err(|e| StoreError::Unavailable(format!("argv: {e}")))?;
        let text_len = [&artifact.cwd, &artifact.label, &artifact.family]
            .iter()
            .map(|s| s.as_deref().map_or(0, str::len))
            .sum::<usize>()
            + argv.len();
        let stored_bytes = encoded
            .iter()
            .map(|c| c.data.len() as u64 + CHUNK_ALLOWANCE)
            .sum::<u64>()
            + ROW_ALLOWANCE
            + text_len as u64;
        let (exit_kind, exit_value) = record::exit_parts(artifact.exit);
        Ok(NewRecord {
            hex,
            chunks: encoded,
            raw_bytes: fin.len as i64,
            stored_bytes,
            line_count: chunks::line_count(fin.newlines, fin.last) as i64,
            argv,
            exit_kind: i32::from(exit_kind),
            exit_value,
            segments,
        })
    }
}

impl PgStore {
    pub(super) fn put_artifact(&self, artifact: &Artifact) -> Result<ArchiveKey, StoreError> {
        let segments = record::canonical_segments(artifact.segments());
        let bytes_hash = *blake3::hash(artifact.bytes()).as_bytes();
        let key = record::key_from_hash(&bytes_hash, &segments, artifact.exit);
        let hex = key.hex();
        let seg_blob = record::encode_segments(&segments);
        if artifact.bytes().len() <= ONE_STATEMENT_MAX_BYTES {
            let rec = NewRecord::encode(artifact, hex, seg_blob)?;
            match self.put_in_one_statement(artifact, &rec)? {
                OneStatement::Stored => return Ok(key),
                OneStatement::Raced => {
                    self.refresh(&mut *self.session()?, &rec.hex)?;
                    return Ok(key);
                }
                OneStatement::OverCap => {}
                OneStatement::SchemaDiffers => self.forget_schema(),
            }
            self.ensure_schema()?;
            return self.put_in_transaction(artifact, &rec).map(|()| key);
        }
        self.ensure_schema()?;
        // A large repeat costs one short statement and no compression.
        if self.refresh(&mut *self.session()?, &hex)? {
            return Ok(key);
        }
        let rec = NewRecord::encode(artifact, hex, seg_blob)?;
        self.put_in_transaction(artifact, &rec).map(|()| key)
    }

    fn put_in_one_statement(
        &self,
        artifact: &Artifact,
        rec: &NewRecord,
    ) -> Result<OneStatement, StoreError> {
        let max_bytes = i64::try_from(self.options.retention.max_bytes).unwrap_or(i64::MAX);
        let stored = rec.stored_bytes as i64;
        let offset = self.clock_offset_ms.get();
        let column = |f: fn(&EncodedChunk) -> i64| rec.chunks.iter().map(f).collect::<Vec<i64>>();
        let offsets = column(|c| c.info.offset as i64);
        let raw_lens = column(|c| c.info.len as i64);
        let lines_before = column(|c| c.info.lines_before as i64);
        let newlines = column(|c| c.info.newlines as i64);
        let codecs: Vec<i16> = rec.chunks.iter().map(|c| c.codec as i16).collect();
        let data: Vec<&[u8]> = rec.chunks.iter().map(|c| &c.data[..]).collect();
        let sums: Vec<&[u8]> = rec.chunks.iter().map(|c| &c.sum[..]).collect();
        let params: [(&(dyn ToSql + Sync), Type); 25] = [
            (&self.ns(), Type::TEXT),
            (&rec.hex, Type::TEXT),
            (&offset, Type::INT8),
            (&SCHEMA_VERSION, Type::INT4),
            (&stored, Type::INT8),
            (&max_bytes, Type::INT8),
            (&rec.argv, Type::TEXT),
            (&artifact.cwd, Type::TEXT),
            (&artifact.label, Type::TEXT),
            (&artifact.family, Type::TEXT),
            (&rec.exit_kind, Type::INT4),
            (&rec.exit_value, Type::INT4),
            (&artifact.truncated, Type::BOOL),
            (&rec.segments, Type::BYTEA),
            (&rec.raw_bytes, Type::INT8),
            (&rec.line_count, Type::INT8),
            (&self.machine, Type::TEXT),
            (&self.user, Type::TEXT),
            (&offsets, Type::INT8_ARRAY),
            (&raw_lens, Type::INT8_ARRAY),
            (&lines_before, Type::INT8_ARRAY),
            (&newlines, Type::INT8_ARRAY),
            (&codecs, Type::INT2_ARRAY),
            (&data, Type::BYTEA_ARRAY),
            (&sums, Type::BYTEA_ARRAY),
        ];
        let mut session = self.session()?;
        let row = match session.query_typed_one(PUT_IN_ONE_STATEMENT, &params) {
            Ok(row) => row,
            // A server ctx never ran on has no tables yet.
            Err(e) if e.code() == Some(&SqlState::UNDEFINED_TABLE) => {
                return Ok(OneStatement::SchemaDiffers);
            }
            Err(e) => return Err(describe(e)),
        };
        session.commit()?;
        let (version, go, inserted, refreshed): (i32, bool, bool, bool) =
            (row.get(0), row.get(1), row.get(2), row.get(3));
        Ok(if version != SCHEMA_VERSION {
            OneStatement::SchemaDiffers
        } else {
            self.schema_checked.set(true);
            if !go {
                OneStatement::OverCap
            } else if inserted || refreshed {
                OneStatement::Stored
            } else {
                OneStatement::Raced
            }
        })
    }

    /// The step-by-step put: the cap checked and, when the record does not
    /// fit, records evicted under the namespace's GC lock; chunks sent one
    /// statement each.
    fn put_in_transaction(&self, artifact: &Artifact, rec: &NewRecord) -> Result<(), StoreError> {
        let stored = rec.stored_bytes;
        let mut tx = self.transaction()?;
        let now = self.now(&mut tx)?;
        let policy = self.options.retention;
        let (_, total) = self.total(&mut tx)?;
        if (total.max(0) as u64).saturating_add(stored) > policy.max_bytes {
            self.lock_gc(&mut tx)?;
            let (_, total) = self.total(&mut tx)?;
            let candidates = self.candidates(&mut tx, policy, now)?;
            match retention::plan_eviction(&candidates, total.max(0) as u64, stored, policy, now) {
                Ok(ids) => {
                    self.evict(&mut tx, &ids)?;
                }
                Err(refusal) => {
                    return Err(StoreError::Full {
                        needed: stored,
                        cap: policy.max_bytes,
                        floor: refusal.floor_bytes,
                    });
                }
            }
        }
        let params: [&(dyn ToSql + Sync); 17] = [
            &self.ns(),
            &rec.hex,
            &now,
            &rec.argv,
            &artifact.cwd,
            &artifact.label,
            &artifact.family,
            &rec.exit_kind,
            &rec.exit_value,
            &artifact.truncated,
            &rec.segments,
            &rec.raw_bytes,
            &(stored as i64),
            &rec.line_count,
            &self.machine,
            &self.user,
            &now,
        ];
        // Two machines writing the same output at once: the second waits
        // for the first's commit, then inserts nothing and refreshes.
        let inserted = tx
            .query_opt(
                "INSERT INTO ctx_records (namespace, hex, created_ms, argv, cwd, label, family,
                    exit_kind, exit_value, truncated, segments, raw_bytes, stored_bytes,
                    line_count, machine, os_user, used_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
                 ON CONFLICT (namespace, hex) DO NOTHING RETURNING id",
                &params,
            )
            .map_err(describe)?;
        match inserted {
            Some(row) => {
                let id: i64 = row.get(0);
                let ins = tx
                    .prepare(
                        "INSERT INTO ctx_chunks (record, seq, \"offset\", raw_len, lines_before,
                            newlines, codec, data, sum)
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                    )
                    .map_err(describe)?;
                for (seq, c) in rec.chunks.iter().enumerate() {
                    tx.execute(
                        &ins,
                        &[
                            &id,
                            &(seq as i32),
                            &(c.info.offset as i64),
                            &(c.info.len as i64),
                            &(c.info.lines_before as i64),
                            &(c.info.newlines as i64),
                            &(c.codec as i16),
                            &c.data,
                            &&c.sum[..],
                        ],
                    )
                    .map_err(describe)?;
                }
                // A record quarantined under this key is whole again.
                tx.execute(
                    "DELETE FROM ctx_damaged WHERE namespace = $1 AND hex = $2",
                    &[&self.ns(), &rec.hex],
                )
                .map_err(describe)?;
            }
            None => {
                self.refresh(&mut tx, &rec.hex)?;
            }
        }
        tx.commit()
    }
}
