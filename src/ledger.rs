//! The ledger: one row per digested run and per expand, for `ctx gain`.

use crate::artifact::Artifact;
use crate::pipeline::Delivery;
use crate::store::ArchiveKey;

/// Where the pipeline records what it delivered. Recording never fails a
/// command: an implementation swallows its own errors.
pub trait LedgerSink {
    fn record(&self, artifact: &Artifact, delivery: &Delivery);
}

/// Records nothing (`CTX_NO_LEDGER`, tests).
pub struct NoLedger;

impl LedgerSink for NoLedger {
    fn record(&self, _artifact: &Artifact, _delivery: &Delivery) {}
}

/// The ledger the CLI uses. Opening never fails: a broken ledger records nothing.
pub fn open_default() -> Box<dyn LedgerSink> {
    Box::new(NoLedger)
}

/// Records the tokens one `ctx expand` gave back. Never fails the expand.
pub fn record_expand(_key: &ArchiveKey, _tokens: usize) {}
