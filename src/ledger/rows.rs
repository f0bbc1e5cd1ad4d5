//! The ledger's rows as `ctx gain` reads them.

use crate::artifact::Exit;

/// One run, as recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunRow {
    pub id: i64,
    /// Unix milliseconds.
    pub at_ms: i64,
    pub argv: Vec<String>,
    pub label: Option<String>,
    pub family: String,
    pub profile: String,
    pub exit: Exit,
    pub raw_bytes: u64,
    /// Estimates made on the hot path.
    pub raw_tokens: u64,
    pub delivered_tokens: u64,
    /// A digest went out (else the raw output did).
    pub digest: bool,
    pub rejection: Option<String>,
    pub key_hex: Option<String>,
    /// Exact o200k counts, once `ctx gain` has made them.
    pub raw_exact: Option<u64>,
    pub delivered_exact: Option<u64>,
}

/// One `ctx expand`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpandRow {
    pub at_ms: i64,
    pub key_hex: String,
    /// Tokens it printed (an estimate).
    pub tokens: u64,
}

/// A run that still lacks an exact count, with what it takes to count it.
#[derive(Clone, Debug)]
pub struct Uncounted {
    pub id: i64,
    pub key_hex: Option<String>,
    /// The delivered digest's bytes (None when the raw output went out).
    pub digest: Option<Vec<u8>>,
    pub raw_exact: Option<u64>,
    pub delivered_exact: Option<u64>,
}
