//! The archive stage: the original goes into the store before anything is
//! omitted. A failed archive is not an error for the command: the digest
//! simply omits nothing.

use crate::artifact::Artifact;
use crate::store::{ArchiveKey, StoreError};

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

/// The archive the CLI uses: the default store, opened on first use.
/// (Until the store lands this archives nothing, so nothing is omitted.)
pub fn open_default() -> Box<dyn Archive> {
    Box::new(Disabled("the store is not built yet".into()))
}
