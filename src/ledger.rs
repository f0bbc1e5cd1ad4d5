//! The ledger: one row per digested run and per expand, for `ctx gain`.

use crate::artifact::Artifact;
use crate::pipeline::Delivery;

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
