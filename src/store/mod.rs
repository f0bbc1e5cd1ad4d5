//! The CCR store: originals archived by content address so that anything a
//! digest leaves out comes back with `ctx expand`.
//!
//! `Store` is what every backend provides (SQLite by default, PostgreSQL for fleets);
//! line and byte zooms are built once on top of it in `reader.rs`, so a
//! backend only moves records and chunks. docs/store.md has the schema,
//! the key encoding, chunking, retention and fault behaviour.

pub mod archive;
pub mod backend;
pub mod census_zoom;
pub mod chunks;
pub mod copy;
pub mod early;
pub mod key;
pub mod outbox;
pub mod postgres;
pub mod reader;
pub mod record;
pub mod sqlite;
pub mod sync;
pub mod verify;
pub mod zoom;

use std::time::Duration;

pub use crate::retention::Retention;
pub use backend::AnyStore;
pub use key::ArchiveKey;
pub use postgres::PgStore;
pub use reader::Reader;
pub use record::RecordMeta;
pub use sqlite::SqliteStore;

use crate::artifact::Artifact;
use chunks::ChunkInfo;

/// One record as listings show it (ambiguous prefixes, gc reports).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordSummary {
    pub key: ArchiveKey,
    /// Unix milliseconds of the last use.
    pub used_ms: i64,
    pub command: String,
    pub stored_bytes: u64,
}

/// Why the store could not do what was asked.
#[derive(Clone, Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no record {0} (never archived here, or removed over 30 days ago)")]
    NotFound(String),
    #[error("{prefix} is ambiguous: {} records match", candidates.len())]
    Ambiguous {
        prefix: String,
        candidates: Vec<RecordSummary>,
    },
    /// The size cap cannot be met without evicting records younger than
    /// the minimum age: the new record is refused.
    #[error(
        "store full: {needed} more bytes would exceed the {cap}-byte cap and \
         the {floor} bytes left are records younger than the minimum age"
    )]
    Full { needed: u64, cap: u64, floor: u64 },
    /// The database file itself is unusable.
    #[error("store damaged: {0}")]
    Corrupt(String),
    /// One record's bytes or index do not check out (a flipped bit on
    /// disk, a torn write): that record is quarantined, the store is fine.
    /// `key` is filled in where the record is known.
    #[error("record {} is damaged ({why})", key.map_or_else(|| "?".to_string(), |k| k.short()))]
    Damaged {
        key: Option<ArchiveKey>,
        why: String,
    },
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// The record was there and is no more: retention evicted it, or a
    /// purge removed it (`why`), `gone_ms` unix milliseconds ago-stamp.
    /// Told apart from a key the store never held, so the reader knows to
    /// rerun rather than to check the key.
    #[error("record {} was {why}", key.short())]
    Gone {
        key: ArchiveKey,
        why: String,
        gone_ms: i64,
    },
}

impl StoreError {
    /// Names the record a damage report is about.
    pub fn of_record(self, key: ArchiveKey) -> StoreError {
        match self {
            StoreError::Damaged { key: None, why } => StoreError::Damaged {
                key: Some(key),
                why,
            },
            other => other,
        }
    }
}

/// Totals for `ctx store stats`.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    pub records: u64,
    pub raw_bytes: u64,
    pub stored_bytes: u64,
    /// Unix milliseconds of the oldest and newest first archiving.
    pub oldest_ms: Option<i64>,
    pub newest_ms: Option<i64>,
    /// Bytes the backend's files take on disk (database, WAL).
    pub file_bytes: u64,
}

/// What `gc` did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GcReport {
    pub evicted: Vec<RecordSummary>,
    pub evicted_bytes: u64,
    pub records_left: u64,
    pub bytes_left: u64,
}

/// What `purge` removed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PurgeReport {
    pub records: u64,
    pub stored_bytes: u64,
}

/// A backend that keeps whole records.
pub trait Store {
    /// Archives the artifact; the same bytes twice give one record (whose
    /// last-use time is refreshed). Refuses with `Full` when the size cap
    /// cannot be met (see `retention`).
    fn put(&self, artifact: &Artifact) -> Result<ArchiveKey, StoreError>;

    /// The one key starting with `prefix` (6–64 lowercase hex).
    fn resolve(&self, prefix: &str) -> Result<ArchiveKey, StoreError>;

    fn meta(&self, key: &ArchiveKey) -> Result<RecordMeta, StoreError>;

    /// The chunk directory of a record, in order.
    fn chunk_index(&self, meta: &RecordMeta) -> Result<Vec<ChunkInfo>, StoreError>;

    /// Chunk `seq`'s original bytes.
    fn chunk(&self, meta: &RecordMeta, seq: usize) -> Result<Vec<u8>, StoreError>;

    /// Marks the record as just used (an expand read it), best effort.
    fn touch(&self, key: &ArchiveKey) -> Result<(), StoreError>;

    fn stats(&self) -> Result<Stats, StoreError>;

    /// Applies `policy` now: least recently used records older than the
    /// minimum age go until the store fits the cap (or none are left).
    fn gc(&self, policy: Retention) -> Result<GcReport, StoreError>;

    /// Deletes every record, or those last used longer than `older_than`
    /// ago. Ignores the minimum age: the user asked.
    fn purge(&self, older_than: Option<Duration>) -> Result<PurgeReport, StoreError>;

    /// Removes a damaged record and remembers its key: the next identical
    /// run archives the output afresh, and until then `resolve` reports
    /// the damage instead of "unknown".
    fn quarantine(&self, key: &ArchiveKey, why: &str) -> Result<(), StoreError>;

    /// Every finished record's key, oldest first (`ctx store check`).
    fn keys(&self) -> Result<Vec<ArchiveKey>, StoreError>;

    /// The whole record as an `Artifact`, metadata included.
    fn load(&self, key: &ArchiveKey) -> Result<Artifact, StoreError> {
        let meta = self.meta(key)?;
        let index = self.chunk_index(&meta)?;
        let mut bytes = Vec::with_capacity(meta.raw_bytes as usize);
        for seq in 0..index.len() {
            bytes.extend_from_slice(&self.chunk(&meta, seq)?);
        }
        if bytes.len() as u64 != meta.raw_bytes
            || meta.segments.iter().map(|s| s.len).sum::<u64>() != meta.raw_bytes
        {
            return Err(StoreError::Damaged {
                key: Some(meta.key),
                why: "its chunks do not add up to its length".into(),
            });
        }
        let mut artifact = Artifact::new(bytes, meta.segments, meta.exit, meta.argv);
        artifact.cwd = meta.cwd;
        artifact.label = meta.label;
        artifact.family = meta.family;
        artifact.truncated = meta.truncated;
        Ok(artifact)
    }
}

/// A line reader over a stored record's interleaved bytes. Every chunk it
/// reads is checked (see `chunks::decode`); a failed check is
/// `StoreError::Damaged` naming the record.
pub fn reader<'s>(store: &'s dyn Store, meta: &RecordMeta) -> Result<Reader<'s>, StoreError> {
    let index = store.chunk_index(meta)?;
    let owned = meta.clone();
    let key = meta.key;
    Reader::new(
        index,
        meta.line_count,
        Box::new(move |seq| store.chunk(&owned, seq)),
    )
    .map_err(|e| e.of_record(key))
}

/// One stream's bytes, reassembled from the record's segments.
pub fn stream_bytes(
    store: &dyn Store,
    meta: &RecordMeta,
    stream: crate::artifact::Stream,
) -> Result<Vec<u8>, StoreError> {
    let mut r = reader(store, meta)?;
    let mut out = Vec::new();
    let mut at = 0u64;
    for s in &meta.segments {
        if s.stream == stream {
            r.copy_range(at, at + s.len, &mut |b| {
                out.extend_from_slice(b);
                true
            })?;
        }
        at += s.len;
    }
    Ok(out)
}

/// The store the CLI uses: `$CTX_HOME/store.db` (SQLite), created on
/// first use, or the PostgreSQL server `CTX_STORE` / `store.url` names.
pub fn open_default() -> Result<AnyStore, StoreError> {
    AnyStore::open_default()
}

/// The default store for a command's archive (`AnyStore::open_to_archive`).
pub fn open_to_archive() -> Result<AnyStore, StoreError> {
    AnyStore::open_to_archive()
}

/// The default store if it exists, without creating anything (reads must
/// not leave a database behind in a directory that never had one).
pub fn open_existing() -> Result<Option<AnyStore>, StoreError> {
    AnyStore::open_existing()
}

/// The default store if it exists, opened for a read that changes
/// nothing on disk (`ctx expand`, listings, `ctx gain`).
pub fn open_existing_to_read() -> Result<Option<AnyStore>, StoreError> {
    AnyStore::open_existing_to_read()
}
