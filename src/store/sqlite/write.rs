//! Writing a record: chunks go in as short transactions while the bytes
//! arrive, and the record becomes visible in one last short transaction.
//!
//! A record whose chunks fit one batch (nearly every digest) is written in
//! a single transaction, as it always was. A bigger one is written under a
//! *pending* row (`records.pending = 1`, a placeholder hex that never
//! resolves, not counted in the totals, never evicted): each batch of at
//! most `BATCH_BYTES` of stored chunks is its own transaction, so no writer
//! holds the lock for longer than one batch takes to insert, and none holds
//! it while compressing. The last transaction checks for the same output
//! archived meanwhile, makes room under the cap, and turns the pending row
//! into the record. A writer that fails or is dropped removes its pending
//! row; one that was killed leaves a row that `gc` (and any put that has
//! to evict) sweeps once it has not been touched for `ABANDONED_MS`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rusqlite::{Transaction, TransactionBehavior, params};

use super::{Fail, SqliteStore};
use crate::artifact::{Artifact, Exit, Segment};
use crate::store::chunks::{self, EncodedChunk, Encoder};
use crate::store::record::{self, ROW_ALLOWANCE};
use crate::store::{ArchiveKey, StoreError};

/// Stored bytes per write transaction.
const BATCH_BYTES: u64 = 1 << 20;
/// Bytes handed to the encoder at a time when a whole artifact is put, so
/// that batches are written while the rest is still being compressed.
const FEED_BYTES: usize = 4 << 20;
/// A pending row untouched this long belongs to a writer that died.
pub(super) const ABANDONED_MS: i64 = 3_600_000;
/// Index-entry overhead the size cap charges per chunk.
const CHUNK_ALLOWANCE: u64 = 48;

const REFRESH: &str =
    "UPDATE records SET used_ms = max(used_ms, ?1) WHERE hex = ?2 AND pending = 0";
const INSERT_CHUNK: &str =
    "INSERT INTO chunks (record, seq, offset, raw_len, lines_before, newlines, codec, data, sum)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";

/// What a record carries besides its bytes.
pub struct Describe<'a> {
    pub argv: &'a [String],
    pub cwd: Option<&'a str>,
    pub label: Option<&'a str>,
    pub family: Option<&'a str>,
    pub exit: Exit,
    pub truncated: bool,
    /// The segments as captured (made canonical here).
    pub segments: &'a [Segment],
}

impl<'a> Describe<'a> {
    pub fn of(artifact: &'a Artifact) -> Self {
        Describe {
            argv: &artifact.argv,
            cwd: artifact.cwd.as_deref(),
            label: artifact.label.as_deref(),
            family: artifact.family.as_deref(),
            exit: artifact.exit,
            truncated: artifact.truncated,
            segments: artifact.segments(),
        }
    }
}

/// A record being written; `finish` makes it visible.
pub struct RecordWriter<'s> {
    store: &'s SqliteStore,
    encoder: Encoder,
    batch: Vec<EncodedChunk>,
    batch_bytes: u64,
    /// The pending row (id and placeholder hex), once the first batch is
    /// written. Both identify it: a purge may delete the row and SQLite
    /// may give its id to another writer's row.
    pending: Option<(i64, String)>,
    next_seq: i64,
    /// Stored chunk bytes so far, allowances included.
    stored: u64,
    deadline: Instant,
    /// blake3 of the bytes, when the caller hashed them before writing.
    known_hash: Option<[u8; 32]>,
}

impl SqliteStore {
    /// Starts writing a record whose bytes will come through `write`.
    pub fn writer(&self) -> RecordWriter<'_> {
        RecordWriter {
            store: self,
            encoder: Encoder::default(),
            batch: Vec::new(),
            batch_bytes: 0,
            pending: None,
            next_seq: 0,
            stored: 0,
            deadline: self.deadline(),
            known_hash: None,
        }
    }

    /// `Store::put`: the common repeat (same output again) costs one short
    /// write and no compression.
    pub(super) fn put_artifact(&self, artifact: &Artifact) -> Result<ArchiveKey, StoreError> {
        let segments = record::canonical_segments(artifact.segments());
        // Both passes over the bytes go a window at a time and release
        // what they scanned (a mapped input need not become resident).
        let mut hasher = blake3::Hasher::new();
        let mut at = 0;
        for part in artifact.bytes().chunks(FEED_BYTES) {
            hasher.update(part);
            artifact.release(at..at + part.len());
            at += part.len();
        }
        let bytes_hash = *hasher.finalize().as_bytes();
        let key = record::key_from_hash(&bytes_hash, &segments, artifact.exit);
        let now = self.now_ms();
        let hex = key.hex();
        let seen =
            self.with_retry(|c| Ok(c.prepare_cached(REFRESH)?.execute(params![now, hex])? > 0))?;
        if seen {
            self.bound_wal(0);
            return Ok(key);
        }
        let mut w = self.writer();
        w.encoder = Encoder::without_hash();
        w.known_hash = Some(bytes_hash);
        let mut at = 0;
        for part in artifact.bytes().chunks(FEED_BYTES) {
            w.write(part)?;
            artifact.release(at..at + part.len());
            at += part.len();
        }
        w.finish(&Describe::of(artifact))
    }
}

impl RecordWriter<'_> {
    /// Takes the next bytes of the record; completed chunks are compressed
    /// now and written once a batch is full.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        for c in self.encoder.push(bytes) {
            self.add(c);
        }
        if self.batch_bytes >= BATCH_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    fn add(&mut self, c: EncodedChunk) {
        self.batch_bytes += c.data.len() as u64;
        self.stored += c.data.len() as u64 + CHUNK_ALLOWANCE;
        self.batch.push(c);
    }

    /// Writes the batch under the pending row (created on the first one).
    fn flush(&mut self) -> Result<(), StoreError> {
        let store = self.store;
        let now = store.now_ms();
        let batch = std::mem::take(&mut self.batch);
        let first_seq = self.next_seq;
        let pending = self.pending.clone();
        let row = store.with_retry_until(self.deadline, |c| {
            let tx = Transaction::new_unchecked(c, TransactionBehavior::Immediate)?;
            let row = match &pending {
                Some((id, placeholder)) => {
                    // The heartbeat that keeps `gc` from sweeping the row;
                    // gone means a purge took it: give up.
                    let alive = tx
                        .prepare_cached(
                            "UPDATE records SET used_ms = ?1 WHERE id = ?2 AND hex = ?3",
                        )?
                        .execute(params![now, id, placeholder])?;
                    if alive == 0 {
                        return Err(Fail::Store(purged()));
                    }
                    (*id, placeholder.clone())
                }
                None => insert_pending(&tx, now)?,
            };
            insert_chunks(&tx, row.0, first_seq, &batch)?;
            tx.commit()?;
            Ok(row)
        })?;
        self.pending = Some(row);
        self.next_seq += batch.len() as i64;
        self.batch_bytes = 0;
        Ok(())
    }

    /// Makes the record visible under its key (or refreshes the one that
    /// another process archived meanwhile). Refuses with `Full` when the
    /// cap cannot be met; the chunks written so far are removed then.
    pub fn finish(mut self, what: &Describe) -> Result<ArchiveKey, StoreError> {
        let encoder = std::mem::take(&mut self.encoder);
        let fin = encoder.finish();
        for c in fin.chunks {
            self.add(c);
        }
        let segments = record::canonical_segments(what.segments);
        if segments.iter().map(|s| s.len).sum::<u64>() != fin.len {
            return Err(StoreError::Unavailable(
                "segments do not add up to the bytes written".into(),
            ));
        }
        let bytes_hash = self.known_hash.unwrap_or(fin.bytes_hash);
        let key = record::key_from_hash(&bytes_hash, &segments, what.exit);
        let hex = key.hex();
        let line_count = chunks::line_count(fin.newlines, fin.last);
        let argv = serde_json::to_string(what.argv)
            .map_err(|e| StoreError::Unavailable(format!("argv: {e}")))?;
        let text_len = [what.cwd, what.label, what.family]
            .iter()
            .map(|s| s.map_or(0, str::len))
            .sum::<usize>()
            + argv.len();
        let stored = self.stored + ROW_ALLOWANCE + text_len as u64;
        let (exit_kind, exit_value) = record::exit_parts(what.exit);
        let seg_blob = record::encode_segments(&segments);
        let store = self.store;
        let now = store.now_ms();
        let pending = self.pending.clone();
        let batch = std::mem::take(&mut self.batch);
        let first_seq = self.next_seq;

        let stored_now = store.with_retry_until(self.deadline, |c| {
            let tx = Transaction::new_unchecked(c, TransactionBehavior::Immediate)?;
            // Another process may have archived the same output meanwhile.
            if tx.prepare_cached(REFRESH)?.execute(params![now, hex])? > 0 {
                if let Some((id, placeholder)) = &pending {
                    tx.execute(
                        "DELETE FROM records WHERE id = ?1 AND hex = ?2",
                        params![id, placeholder],
                    )?;
                }
                tx.commit()?;
                return Ok(false);
            }
            store.make_room(&tx, stored, now)?;
            let (id, placeholder) = match &pending {
                Some(row) => row.clone(),
                None => insert_pending(&tx, now)?,
            };
            insert_chunks(&tx, id, first_seq, &batch)?;
            let made = tx
                .prepare_cached(
                    "UPDATE records SET hex = ?2, created_ms = ?3, used_ms = ?3, argv = ?4,
                        cwd = ?5, label = ?6, family = ?7, exit_kind = ?8, exit_value = ?9,
                        truncated = ?10, segments = ?11, raw_bytes = ?12, stored_bytes = ?13,
                        line_count = ?14, pending = 0
                     WHERE id = ?1 AND hex = ?15",
                )?
                .execute(params![
                    id,
                    hex,
                    now,
                    argv,
                    what.cwd,
                    what.label,
                    what.family,
                    exit_kind,
                    exit_value,
                    what.truncated,
                    seg_blob,
                    fin.len as i64,
                    stored as i64,
                    line_count as i64,
                    placeholder,
                ])?;
            if made == 0 {
                return Err(Fail::Store(purged()));
            }
            // A record quarantined under this key is whole again.
            tx.prepare_cached("DELETE FROM damaged WHERE hex = ?1")?
                .execute([&hex])?;
            tx.commit()?;
            Ok(true)
        });
        match stored_now {
            Ok(wrote) => {
                // The row is the record now (or already deleted).
                self.pending = None;
                store.bound_wal(if wrote { stored } else { 0 });
                Ok(key)
            }
            Err(e) => Err(e),
        }
    }
}

impl Drop for RecordWriter<'_> {
    /// A writer that did not finish removes what it wrote (best effort:
    /// `gc` sweeps it later otherwise).
    fn drop(&mut self) {
        if let Some((id, placeholder)) = self.pending.take() {
            let store = self.store;
            let _ = store.with_retry(|c| {
                c.execute(
                    "DELETE FROM records WHERE id = ?1 AND hex = ?2",
                    params![id, placeholder],
                )?;
                Ok(())
            });
        }
    }
}

fn purged() -> StoreError {
    StoreError::Unavailable("the record was purged while it was being written".into())
}

/// A placeholder row that owns the chunks until the record is finished.
fn insert_pending(tx: &Transaction, now: i64) -> rusqlite::Result<(i64, String)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    // Unique among live writers; starts with `p`, which sorts after every
    // hex prefix range, so it never resolves.
    let placeholder = format!(
        "pending-{}-{now}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    tx.prepare_cached(
        "INSERT INTO records (hex, created_ms, used_ms, argv, exit_kind, exit_value, truncated,
            segments, raw_bytes, stored_bytes, line_count, pending)
         VALUES (?1, ?2, ?2, '[]', 2, 0, 0, x'', 0, 0, 0, 1)",
    )?
    .execute(params![placeholder, now])?;
    Ok((tx.last_insert_rowid(), placeholder))
}

fn insert_chunks(
    tx: &Transaction,
    id: i64,
    first_seq: i64,
    batch: &[EncodedChunk],
) -> rusqlite::Result<()> {
    let mut ins = tx.prepare_cached(INSERT_CHUNK)?;
    for (i, c) in batch.iter().enumerate() {
        ins.execute(params![
            id,
            first_seq + i as i64,
            c.info.offset as i64,
            c.info.len as i64,
            c.info.lines_before as i64,
            c.info.newlines as i64,
            c.codec as i64,
            c.data,
            &c.sum[..],
        ])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sqlite::Options;
    use crate::store::{Retention, Store};

    /// Bytes lz4 cannot shrink: `n` bytes store as about `n`.
    fn noise(n: usize) -> Vec<u8> {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if i % 80 == 79 {
                    b'\n'
                } else {
                    b'!' + (x % 90) as u8
                }
            })
            .collect()
    }

    fn rows(store: &SqliteStore) -> (i64, i64, i64) {
        store
            .conn
            .query_row(
                "SELECT (SELECT count(*) FROM records), (SELECT count(*) FROM records WHERE pending = 1),
                        (SELECT count(*) FROM chunks)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .expect("count")
    }

    #[test]
    fn a_big_record_goes_in_batches_and_a_dropped_one_leaves_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store =
            SqliteStore::open(&dir.path().join("store.db"), Options::default()).expect("open");
        let bytes = noise(3 << 20);

        let mut w = store.writer();
        for part in bytes.chunks(300_000) {
            w.write(part).expect("write");
        }
        // Batches are in the store already, under a pending row.
        assert_eq!(rows(&store).1, 1);
        drop(w);
        assert_eq!(rows(&store), (0, 0, 0));

        let art = Artifact::from_stdout(bytes.clone(), Exit::Code(0), vec!["gen".into()]);
        let key = store.put(&art).expect("put");
        let (records, pending, chunks) = rows(&store);
        assert_eq!((records, pending), (1, 0));
        assert!(chunks >= 3, "{chunks}");
        assert_eq!(store.load(&key).expect("load").bytes(), &bytes[..]);
        assert_eq!(store.stats().expect("stats").records, 1);
        // The same output again is the same record.
        assert_eq!(store.put(&art).expect("again"), key);
        assert_eq!(rows(&store).0, 1);
    }

    #[test]
    fn a_refused_record_leaves_no_chunks_behind() {
        let dir = tempfile::tempdir().expect("tempdir");
        let options = Options {
            retention: Retention {
                max_bytes: 1 << 20,
                ..Retention::default()
            },
            ..Options::default()
        };
        let store = SqliteStore::open(&dir.path().join("store.db"), options).expect("open");
        let art = Artifact::from_stdout(noise(3 << 20), Exit::Code(0), vec![]);
        assert!(matches!(store.put(&art), Err(StoreError::Full { .. })));
        assert_eq!(rows(&store), (0, 0, 0));
    }
}
