//! What can go wrong opening, writing or reading the ledger.

use std::path::Path;

use super::schema::SCHEMA_VERSION;

/// Why the ledger could not do what was asked. The underlying error is in
/// the message and deliberately not a `source`: the CLI prints the whole
/// chain, which would say it twice.
#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error("ledger {path}: {cause}")]
    Sqlite {
        path: String,
        cause: rusqlite::Error,
    },
    #[error("ledger {path}: {cause}")]
    Io { path: String, cause: std::io::Error },
    #[error("ledger {path} has schema v{found}, newer than this ctx (v{SCHEMA_VERSION})")]
    Newer { path: String, found: i64 },
}

pub(super) fn sqlite(path: &Path, cause: rusqlite::Error) -> LedgerError {
    LedgerError::Sqlite {
        path: path.display().to_string(),
        cause,
    }
}

pub(super) fn io(what: &str, cause: std::io::Error) -> LedgerError {
    LedgerError::Io {
        path: what.to_string(),
        cause,
    }
}

impl LedgerError {
    /// Whether the ledger could not be written because its home is
    /// read-only (or not writable by this user): it can still be read.
    pub fn is_read_only(&self) -> bool {
        match self {
            LedgerError::Io { cause, .. } => crate::home::is_read_only(cause),
            LedgerError::Sqlite { cause, .. } => matches!(
                cause.sqlite_error_code(),
                Some(
                    rusqlite::ErrorCode::ReadOnly
                        | rusqlite::ErrorCode::CannotOpen
                        | rusqlite::ErrorCode::PermissionDenied
                )
            ),
            LedgerError::Newer { .. } => false,
        }
    }
}
