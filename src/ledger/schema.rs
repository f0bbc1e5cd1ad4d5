//! The ledger's tables (docs/ledger.md describes each column) and the
//! version that says whether a file already has them.

/// Bump with a migration whenever the schema changes.
pub const SCHEMA_VERSION: i64 = 1;

pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS runs (
    id               INTEGER PRIMARY KEY,
    at_ms            INTEGER NOT NULL,
    argv             TEXT    NOT NULL,
    label            TEXT,
    family           TEXT    NOT NULL,
    profile          TEXT    NOT NULL,
    exit_kind        TEXT    NOT NULL,
    exit_value       INTEGER,
    raw_bytes        INTEGER NOT NULL,
    raw_tokens       INTEGER NOT NULL,
    delivered_tokens INTEGER NOT NULL,
    delivered        TEXT    NOT NULL CHECK (delivered IN ('digest', 'raw')),
    rejection        TEXT,
    key_hex          TEXT,
    digest           BLOB,
    raw_exact        INTEGER,
    delivered_exact  INTEGER
);
CREATE INDEX IF NOT EXISTS runs_at ON runs (at_ms);
CREATE INDEX IF NOT EXISTS runs_key ON runs (key_hex);
CREATE TABLE IF NOT EXISTS expands (
    id      INTEGER PRIMARY KEY,
    at_ms   INTEGER NOT NULL,
    key_hex TEXT    NOT NULL,
    tokens  INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS expands_key ON expands (key_hex);
";
