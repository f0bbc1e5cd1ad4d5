//! The archive stage: the original goes into the store before anything is
//! omitted. A failed archive is not an error for the command: the digest
//! simply omits nothing.

use std::cell::OnceCell;

use crate::artifact::Artifact;
use crate::store::{self, AnyStore, ArchiveKey, SqliteStore, Store, StoreError};

/// Where the pipeline archives originals.
pub trait Archive {
    fn put(&self, artifact: &Artifact) -> Result<ArchiveKey, StoreError>;
}

/// An archive that refuses everything (`--no-archive`, tests of fail-open).
pub struct Disabled(pub String);

impl Archive for Disabled {
    fn put(&self, _artifact: &Artifact) -> Result<ArchiveKey, StoreError> {
        Err(StoreError::Unavailable(self.0.clone()))
    }
}

/// A record already stored under this key: `ctx explain` re-reads an
/// archived record through the pipeline, and tests and receipts run it
/// without a store.
pub struct Known(pub ArchiveKey);

impl Archive for Known {
    fn put(&self, _artifact: &Artifact) -> Result<ArchiveKey, StoreError> {
        Ok(self.0)
    }
}

/// The default store, opened on the first `put`: a digest that omits
/// nothing (most small outputs) never touches the database at all.
#[derive(Default)]
pub struct Lazy {
    /// The open store, or why it could not be opened (not retried within
    /// one process: a broken store stays broken for this run).
    store: OnceCell<Result<AnyStore, StoreError>>,
}

impl Archive for Lazy {
    fn put(&self, artifact: &Artifact) -> Result<ArchiveKey, StoreError> {
        // The connection made while the command ran, if any.
        let opened = self
            .store
            .get_or_init(|| store::early::take().unwrap_or_else(store::open_to_archive));
        match opened {
            Ok(s) => Store::put(s, artifact),
            Err(why) => Err(why.clone()),
        }
    }
}

/// Any store is an archive.
impl Archive for SqliteStore {
    fn put(&self, artifact: &Artifact) -> Result<ArchiveKey, StoreError> {
        Store::put(self, artifact)
    }
}

/// The archive the CLI uses: the default store, opened on first use.
pub fn open_default() -> Box<dyn Archive> {
    Box::new(Lazy::default())
}
