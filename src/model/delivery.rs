//! What a digest run hands on: the output for the reader, the facts and
//! the plan behind it (for `ctx explain`), and what the ledger records.
//! A leaf the pipeline fills and `emit` and the ledger read, so neither
//! depends on the pipeline.

use crate::contract;
use crate::evidence::{CoverageReceipt, EvidenceGraph};
use crate::guard::Rejection;
use crate::plan::{Budget, DeliveryPlan};
use crate::profiles::Match;
use crate::store::ArchiveKey;

pub use crate::emit::Output;

/// The facts and the plan behind a delivery, for `ctx explain`.
#[derive(Clone, Debug)]
pub struct Trace {
    pub graph: EvidenceGraph,
    pub receipt: CoverageReceipt,
    pub plan: DeliveryPlan,
    pub budget: Budget,
    /// The family's contract the plan was made under.
    pub contract: contract::Contract,
}

/// The pipeline's result.
#[derive(Clone, Debug)]
pub struct Delivery {
    pub output: Output,
    /// `<family>/vN` of the profile that read the output.
    pub profile: &'static str,
    pub matched: Match,
    pub key: Option<ArchiveKey>,
    pub raw_tokens: usize,
    /// Tokens the reader got: the digest's, or the raw output's.
    pub delivered_tokens: usize,
    /// Why a planned digest was not delivered.
    pub rejection: Option<Rejection>,
    pub trace: Option<Trace>,
    /// This run takes part in re-run deltas: the ledger remembers it as
    /// its command's last run.
    pub compared: bool,
    /// The delta delivered instead of the normal digest, if any.
    pub delta: Option<DeltaUse>,
}

/// A re-run delta that went out (for `ctx explain` and `ctx gain`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeltaUse {
    /// The short archive key of the run compared with.
    pub against: String,
    pub age_secs: u64,
    /// Tokens the normal digest would have had.
    pub normal_tokens: usize,
}

impl Delivery {
    /// The ctx note for the reader, when the raw output went out for a
    /// reason worth knowing (a fault, not merely small output).
    pub fn note(&self) -> Option<String> {
        match &self.rejection {
            None | Some(Rejection::NotSmaller) => None,
            Some(r) => Some(format!("[ctx] {r}; output not shortened")),
        }
    }
}

/// The profile name binary output is delivered and recorded under (it is
/// described, not read: `pipeline::binary`).
pub const BINARY_PROFILE: &str = "binary";
