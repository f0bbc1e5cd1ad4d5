//! The CCR store: originals archived by content address so that anything a
//! digest leaves out comes back with `ctx expand`.

pub mod key;

pub use key::ArchiveKey;

use crate::artifact::Artifact;

/// Why the store could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no record matches {0}")]
    NotFound(String),
    #[error("{prefix} is ambiguous: {} records match", candidates.len())]
    Ambiguous {
        prefix: String,
        candidates: Vec<String>,
    },
    #[error("store unavailable: {0}")]
    Unavailable(String),
}

/// A backend that keeps whole records.
pub trait Store {
    /// Archives the artifact; the same bytes twice give one record.
    fn put(&self, artifact: &Artifact) -> Result<ArchiveKey, StoreError>;
}
