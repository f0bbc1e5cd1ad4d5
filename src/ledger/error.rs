//! What can go wrong opening, writing or reading the ledger.

use std::path::Path;

use super::schema::SCHEMA_VERSION;

/// Why the ledger could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error("ledger {path}: {source}")]
    Sqlite {
        path: String,
        source: rusqlite::Error,
    },
    #[error("ledger {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("ledger {path} has schema v{found}, newer than this ctx (v{SCHEMA_VERSION})")]
    Newer { path: String, found: i64 },
}

pub(super) fn sqlite(path: &Path, source: rusqlite::Error) -> LedgerError {
    LedgerError::Sqlite {
        path: path.display().to_string(),
        source,
    }
}

pub(super) fn io(what: &str, source: std::io::Error) -> LedgerError {
    LedgerError::Io {
        path: what.to_string(),
        source,
    }
}
