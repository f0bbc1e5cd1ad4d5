//! Checking a stored record end to end: every chunk against its checksum
//! and its index entry, and the whole record against its key. A record
//! that passes is byte for byte what was archived under that key.
//!
//! Reads check each chunk as it is decompressed (`chunks::decode`); this
//! adds what only a pass over the whole record can see: the index adding
//! up, newline counts, and the key (which also covers records written
//! before chunks had checksums).

use super::chunks;
use super::record::{self, RecordMeta, corrupt};
use super::{Store, StoreError};

/// Reads all of `meta`'s record and checks it; `StoreError::Damaged`
/// (naming the record) says what is wrong.
pub fn record(store: &dyn Store, meta: &RecordMeta) -> Result<(), StoreError> {
    check(store, meta).map_err(|e| e.of_record(meta.key))
}

fn check(store: &dyn Store, meta: &RecordMeta) -> Result<(), StoreError> {
    let index = store.chunk_index(meta)?;
    let mut hasher = Hasher::default();
    let (mut at, mut lines) = (0u64, 0u64);
    for (seq, info) in index.iter().enumerate() {
        if info.offset != at || info.lines_before != lines || info.len == 0 {
            return Err(corrupt("chunk index has a gap"));
        }
        let data = store.chunk(meta, seq)?;
        if memchr::memchr_iter(b'\n', &data).count() as u64 != info.newlines {
            return Err(corrupt(&format!(
                "chunk at byte {} holds a different number of lines than indexed",
                info.offset
            )));
        }
        hasher.update(&data);
        at = info.end();
        lines += info.newlines;
    }
    if at != meta.raw_bytes || meta.segments.iter().map(|s| s.len).sum::<u64>() != at {
        return Err(corrupt("its chunks do not add up to its length"));
    }
    if chunks::line_count(lines, hasher.last) != meta.line_count {
        return Err(corrupt("its line count disagrees with its chunks"));
    }
    hasher.check(meta)
}

/// blake3 over a record's bytes as they are read, compared with the key at
/// the end: `ctx expand --all` checks while it prints.
#[derive(Default)]
pub struct Hasher {
    inner: blake3::Hasher,
    last: Option<u8>,
}

impl Hasher {
    pub fn update(&mut self, bytes: &[u8]) {
        if let Some(&b) = bytes.last() {
            self.last = Some(b);
        }
        self.inner.update(bytes);
    }

    /// Whether the bytes seen, with `meta`'s segments and exit status,
    /// make `meta`'s key.
    pub fn check(&self, meta: &RecordMeta) -> Result<(), StoreError> {
        let hash = self.inner.finalize();
        let key = record::key_from_hash(hash.as_bytes(), &meta.segments, meta.exit);
        if key == meta.key {
            Ok(())
        } else {
            Err(StoreError::Damaged {
                key: Some(meta.key),
                why: "its bytes do not match its key".into(),
            })
        }
    }
}
