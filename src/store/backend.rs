//! Which backend holds the archive: SQLite under the data directory by
//! default, PostgreSQL when `CTX_STORE` (or `store.url` in the config
//! file) is a `postgres://` URL.

use std::time::Duration;

use super::chunks::ChunkInfo;
use super::postgres::{PgOptions, PgStore};
use super::{
    ArchiveKey, GcReport, PurgeReport, RecordMeta, Retention, SqliteStore, Stats, Store, StoreError,
};
use crate::artifact::Artifact;

/// The store the CLI opened.
// One per process, opened once and never moved in a loop: the size of
// the larger variant costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
pub enum AnyStore {
    Sqlite(SqliteStore),
    Postgres(PgStore),
}

/// What the configuration asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    Sqlite,
    Postgres(String),
}

/// `CTX_STORE` over `store.url`; empty or `sqlite` is the default.
pub fn choice() -> Result<Choice, StoreError> {
    let env = std::env::var("CTX_STORE")
        .ok()
        .filter(|v| !v.trim().is_empty());
    let value = env.or_else(|| crate::config::current().store_url.clone());
    match value {
        None => Ok(Choice::Sqlite),
        Some(v) if v.trim() == "sqlite" => Ok(Choice::Sqlite),
        Some(v) if v.starts_with("postgres://") || v.starts_with("postgresql://") => {
            Ok(Choice::Postgres(v.trim().to_string()))
        }
        Some(v) => Err(StoreError::Unavailable(format!(
            "CTX_STORE={}: not `sqlite` or a postgres:// URL",
            super::postgres::redact(&v)
        ))),
    }
}

impl AnyStore {
    /// Opens the chosen store, creating the SQLite file or migrating the
    /// server's schema as needed.
    pub fn open_default() -> Result<AnyStore, StoreError> {
        match choice()? {
            Choice::Sqlite => SqliteStore::open_default().map(AnyStore::Sqlite),
            Choice::Postgres(url) => open_postgres(&url),
        }
    }

    /// The chosen store for a command's archive: as `open_default`, but a
    /// server's schema is checked by the put itself (one round trip less
    /// on every run).
    pub fn open_to_archive() -> Result<AnyStore, StoreError> {
        match choice()? {
            Choice::Sqlite => SqliteStore::open_default().map(AnyStore::Sqlite),
            Choice::Postgres(url) => {
                let (options, warnings) = PgOptions::from_env();
                let mut store = PgStore::open_to_archive(&url, options)?;
                store.warnings.extend(warnings);
                Ok(AnyStore::Postgres(store))
            }
        }
    }

    /// The chosen store if it exists: a SQLite file is not created by a
    /// read; a server always "exists" (unreachable is an error).
    pub fn open_existing() -> Result<Option<AnyStore>, StoreError> {
        match choice()? {
            Choice::Sqlite => Ok(SqliteStore::open_existing_default()?.map(AnyStore::Sqlite)),
            Choice::Postgres(url) => open_postgres_patiently(&url).map(Some),
        }
    }

    /// As `open_existing`, for a read: the SQLite file is opened so that
    /// nothing on disk changes (`sqlite/reads.rs`).
    pub fn open_existing_to_read() -> Result<Option<AnyStore>, StoreError> {
        match choice()? {
            Choice::Sqlite => Ok(SqliteStore::open_existing_to_read()?.map(AnyStore::Sqlite)),
            Choice::Postgres(url) => open_postgres_patiently(&url).map(Some),
        }
    }

    /// A store named on the command line (`ctx store copy`): `sqlite`
    /// (the local default), `sqlite:PATH`, or a `postgres://` URL.
    pub fn open_named(name: &str) -> Result<AnyStore, StoreError> {
        let name = name.trim();
        if name == "sqlite" {
            return SqliteStore::open_default().map(AnyStore::Sqlite);
        }
        if let Some(path) = name.strip_prefix("sqlite:") {
            let (options, _) = super::sqlite::Options::from_env();
            return SqliteStore::open(std::path::Path::new(path), options).map(AnyStore::Sqlite);
        }
        if name.starts_with("postgres://") || name.starts_with("postgresql://") {
            return open_postgres_patiently(name);
        }
        Err(StoreError::Unavailable(format!(
            "{}: not `sqlite`, `sqlite:PATH` or a postgres:// URL",
            super::postgres::redact(name)
        )))
    }

    /// Where the records are: the file path or the redacted URL.
    pub fn location(&self) -> String {
        match self {
            AnyStore::Sqlite(s) => s.path().display().to_string(),
            AnyStore::Postgres(p) => p.location().to_string(),
        }
    }

    pub fn warnings(&self) -> &[String] {
        match self {
            AnyStore::Sqlite(s) => &s.warnings,
            AnyStore::Postgres(p) => &p.warnings,
        }
    }

    /// The backend's own structural check: SQLite's `quick_check`; the
    /// server checks its own pages.
    pub fn quick_check(&self) -> Result<Option<String>, StoreError> {
        match self {
            AnyStore::Sqlite(s) => s.quick_check(),
            AnyStore::Postgres(_) => Ok(None),
        }
    }

    fn inner(&self) -> &dyn Store {
        match self {
            AnyStore::Sqlite(s) => s,
            AnyStore::Postgres(p) => p,
        }
    }
}

/// Waits between connection attempts of the reading verbs (`ctx expand`,
/// `ctx store …`): a server restarting or a network hiccup is ridden out;
/// the wrapped command's own put never waits (it prints raw instead).
const READ_RETRIES: [Duration; 3] = [
    Duration::from_millis(100),
    Duration::from_millis(300),
    Duration::from_millis(900),
];

fn open_postgres_patiently(url: &str) -> Result<AnyStore, StoreError> {
    let mut result = open_postgres(url);
    for wait in READ_RETRIES {
        match &result {
            // Only "could not reach it" is worth another try; a newer
            // schema or a bad URL stays what it is, and a server that did
            // not answer within the deadline has had its time (a hung
            // server costs a read one deadline, not four).
            Err(StoreError::Unavailable(why))
                if why.contains("connect") && !why.contains("did not answer") =>
            {
                std::thread::sleep(wait);
                result = open_postgres(url);
            }
            _ => break,
        }
    }
    result
}

fn open_postgres(url: &str) -> Result<AnyStore, StoreError> {
    let (options, warnings) = PgOptions::from_env();
    let mut store = PgStore::open(url, options)?;
    store.warnings.extend(warnings);
    Ok(AnyStore::Postgres(store))
}

impl Store for AnyStore {
    fn put(&self, artifact: &Artifact) -> Result<ArchiveKey, StoreError> {
        self.inner().put(artifact)
    }
    fn resolve(&self, prefix: &str) -> Result<ArchiveKey, StoreError> {
        self.inner().resolve(prefix)
    }
    fn meta(&self, key: &ArchiveKey) -> Result<RecordMeta, StoreError> {
        self.inner().meta(key)
    }
    fn chunk_index(&self, meta: &RecordMeta) -> Result<Vec<ChunkInfo>, StoreError> {
        self.inner().chunk_index(meta)
    }
    fn chunk(&self, meta: &RecordMeta, seq: usize) -> Result<Vec<u8>, StoreError> {
        self.inner().chunk(meta, seq)
    }
    fn touch(&self, key: &ArchiveKey) -> Result<(), StoreError> {
        self.inner().touch(key)
    }
    fn stats(&self) -> Result<Stats, StoreError> {
        self.inner().stats()
    }
    fn gc(&self, policy: Retention) -> Result<GcReport, StoreError> {
        self.inner().gc(policy)
    }
    fn purge(&self, older_than: Option<Duration>) -> Result<PurgeReport, StoreError> {
        self.inner().purge(older_than)
    }
    fn quarantine(&self, key: &ArchiveKey, why: &str) -> Result<(), StoreError> {
        self.inner().quarantine(key, why)
    }
    fn keys(&self) -> Result<Vec<ArchiveKey>, StoreError> {
        self.inner().keys()
    }
}
