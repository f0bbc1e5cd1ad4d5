//! The ledger: one row per digested run and per `ctx expand`, for
//! `ctx gain` (docs/ledger.md has the schema and the arithmetic).
//!
//! `$CTX_HOME/ledger.db` is SQLite in WAL mode, 0600 like the store. It is
//! written at the end of every run, after the output is out, so recording
//! must be cheap and can never fail a command: the connection is opened
//! only then, the DDL runs only when `PRAGMA user_version` is behind, a
//! lock held by another process is waited for at most [`RECORD_WAIT`], and
//! any error drops the row silently.
//!
//! Token figures recorded on the hot path are estimates
//! (`tokens::estimate`). The delivered digest's bytes are kept so that
//! `ctx gain` can count them exactly later, and the original's exact count
//! comes from the archive while it still holds the record; both are cached
//! in the row once counted.

pub mod gain;
pub mod journal;
pub mod last_run;

mod db;
mod error;
mod prune;
mod read;
mod rows;
mod schema;

use std::time::{SystemTime, UNIX_EPOCH};

use crate::artifact::Artifact;
use crate::delivery::Delivery;
use crate::store::ArchiveKey;

pub use db::{Digests, FILE_NAME, Ledger, READ_WAIT, RECORD_WAIT};
pub use error::LedgerError;
pub use prune::{DEFAULT_DAYS, Retention};
pub use rows::{DayRow, ExpandRow, RunRow, Uncounted};
pub use schema::SCHEMA_VERSION;

/// Where the pipeline records what it delivered. Recording never fails a
/// command: an implementation swallows its own errors.
pub trait LedgerSink {
    fn record(&self, artifact: &Artifact, delivery: &Delivery);
}

/// Milliseconds in a day; days are UTC days since the Unix epoch.
pub const DAY_MS: i64 = 86_400_000;

/// A journal longer than this after a run's append is folded into
/// `ledger.db` by that run (its digests' texts dropped, their estimates
/// kept): the journal stays small however long `ctx gain` is not run, at
/// the cost of one database write every few hundred runs.
pub const FOLD_BYTES: u64 = 256 << 10;

/// Records nothing (`CTX_NO_LEDGER`, tests).
pub struct NoLedger;

impl LedgerSink for NoLedger {
    fn record(&self, _artifact: &Artifact, _delivery: &Delivery) {}
}

impl LedgerSink for Ledger {
    fn record(&self, artifact: &Artifact, delivery: &Delivery) {
        let _ = self.record_run_at(artifact, delivery, now_ms());
    }
}

/// The ledger the CLI uses, opened on first use (after the output is out),
/// so that a run pays nothing for it before then. Records nothing when
/// `CTX_NO_LEDGER` is set or the ledger cannot be opened.
struct DefaultLedger;

impl LedgerSink for DefaultLedger {
    fn record(&self, artifact: &Artifact, delivery: &Delivery) {
        if let Ok(dir) = crate::home::ensure_data_dir() {
            let at_ms = now_ms();
            let entry = journal::RunEntry::new(artifact, delivery, at_ms);
            journal_run(&dir, entry);
            if delivery.compared {
                last_run::remember(&dir.join(last_run::DIR_NAME), artifact, delivery, at_ms);
            }
        }
    }
}

/// Appends a run to the journal in `dir`, folding the journal when it has
/// grown past [`FOLD_BYTES`].
pub fn journal_run(dir: &std::path::Path, entry: journal::RunEntry) {
    if let Ok(len) = journal::append(dir, &journal::Entry::Run(Box::new(entry)))
        && len > FOLD_BYTES
    {
        fold_in_passing(dir);
    }
}

/// Folds the journal on a command's path: no tokenizer, a short lock
/// wait, every error swallowed (the journal is folded by the next run or
/// by `ctx gain` instead).
fn fold_in_passing(dir: &std::path::Path) {
    if let Ok(ledger) = Ledger::open(&dir.join(FILE_NAME), RECORD_WAIT)
        && ledger.fold_journal_with(dir, Digests::Drop).is_ok()
    {
        let _ = ledger.prune(now_ms(), Retention::from_env().window_ms);
        ledger.checkpoint();
    }
    last_run::prune(&dir.join(last_run::DIR_NAME));
}

/// The ledger the CLI uses. Opening never fails: a broken ledger records
/// nothing, and says nothing (the reader of a command's output is no place
/// for ctx's bookkeeping; `ctx gain` reports the error).
pub fn open_default() -> Box<dyn LedgerSink> {
    if disabled() {
        Box::new(NoLedger)
    } else {
        Box::new(DefaultLedger)
    }
}

/// Records the tokens one `ctx expand` gave back. Never fails the expand.
pub fn record_expand(key: &ArchiveKey, tokens: usize) {
    if disabled() {
        return;
    }
    if let Ok(dir) = crate::home::ensure_data_dir() {
        let entry = journal::Entry::Expand {
            at_ms: now_ms(),
            key_hex: key.hex(),
            tokens: tokens as i64,
        };
        let _ = journal::append(&dir, &entry);
    }
}

#[cfg(test)]
mod tests;

fn disabled() -> bool {
    std::env::var_os("CTX_NO_LEDGER").is_some_and(|v| !v.is_empty())
}

/// Now, in unix milliseconds.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}
