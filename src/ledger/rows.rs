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
    /// Tokens a re-run delta saved beyond the normal digest (estimate).
    pub delta_saved: Option<u64>,
}

/// One `ctx expand`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpandRow {
    pub at_ms: i64,
    pub key_hex: String,
    /// Tokens it printed (an estimate).
    pub tokens: u64,
}

/// An archive record that runs point at and that has no exact count yet.
#[derive(Clone, Debug)]
pub struct Uncounted {
    pub record: i64,
    pub key_hex: String,
}

/// The runs of one UTC day, command group and family, summed once they
/// left the retention window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DayRow {
    /// Days since the Unix epoch (UTC).
    pub day: i64,
    /// The `--by command` group.
    pub group: String,
    pub family: String,
    pub runs: u64,
    pub digested: u64,
    /// Hot-path estimates.
    pub raw_tokens: u64,
    pub delivered_tokens: u64,
    /// Exact counts where the run had both, else its estimates.
    pub raw_best: u64,
    pub delivered_best: u64,
    pub exact_runs: u64,
    pub expands: u64,
    pub expanded_tokens: u64,
}
