//! The one builder of a coverage receipt and the one reading of an exit
//! status that every family without a verdict of its own uses, so that the
//! families cannot drift apart on "was everything understood?" and "did it
//! succeed?".

use crate::artifact::{Artifact, Exit};
use crate::evidence::{CoverageReceipt, Outcome, Precision};

/// A coverage receipt under construction: counts set as the extractor
/// learns them, doubts gathered and joined into one degraded precision.
#[derive(Debug)]
pub struct Coverage {
    receipt: CoverageReceipt,
    doubts: Vec<String>,
}

impl Coverage {
    /// A receipt for `artifact`: its line count, and cut when the input
    /// was cut before ctx saw it.
    pub fn of(artifact: &Artifact) -> Self {
        let mut receipt = CoverageReceipt::new(artifact.line_count() as u64);
        receipt.truncated = artifact.truncated;
        Coverage {
            receipt,
            doubts: Vec::new(),
        }
    }

    /// Census items parsed.
    pub fn parsed(mut self, items: u64) -> Self {
        self.receipt.items_parsed = items;
        self
    }

    /// Census items the tool itself announced, when it did.
    pub fn announced(mut self, items: Option<u64>) -> Self {
        self.receipt.items_announced = items;
        self
    }

    /// Detail blocks parsed.
    pub fn blocks(mut self, blocks: u64) -> Self {
        self.receipt.blocks_parsed = blocks;
        self
    }

    /// Lines no rule of the profile recognised.
    pub fn unmatched(mut self, lines: u64) -> Self {
        self.receipt.lines_unmatched = lines;
        self
    }

    /// The output may be incomplete even though the input was not cut
    /// (no closing summary line).
    pub fn maybe_cut(mut self, cut: bool) -> Self {
        self.receipt.truncated |= cut;
        self
    }

    /// One reason the reading is not to be trusted in full.
    pub fn doubt(mut self, why: impl Into<String>) -> Self {
        self.doubts.push(why.into());
        self
    }

    /// Each of `whys`, as [`Coverage::doubt`].
    pub fn doubts(mut self, whys: impl IntoIterator<Item = String>) -> Self {
        self.doubts.extend(whys);
        self
    }

    /// The receipt: degraded, with every doubt, when there was one.
    pub fn finish(self) -> CoverageReceipt {
        let mut receipt = self.receipt;
        if !self.doubts.is_empty() {
            receipt.precision = Precision::Degraded(self.doubts.join("; "));
        }
        receipt
    }
}

/// The outcome when the exit status is all there is to go by: 0 is OK,
/// anything else (a status, a signal) FAILED, and without an exit status
/// (a pipe, a saved file) nothing says the command succeeded.
pub fn by_exit(exit: Exit) -> Outcome {
    match exit {
        Exit::Code(0) => Outcome::Ok,
        Exit::Unknown => Outcome::Unknown,
        Exit::Code(_) | Exit::Signal(_) => Outcome::Failed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn artifact() -> Artifact {
        Artifact::from_stdout(b"a\nb\n".to_vec(), Exit::Code(0), vec!["x".into()])
    }

    #[test]
    fn doubts_join_into_one_degraded_precision() {
        let r = Coverage::of(&artifact())
            .parsed(2)
            .doubt("one")
            .doubt("two")
            .finish();
        assert_eq!(r.lines_total, 2);
        assert_eq!(r.items_parsed, 2);
        assert_eq!(r.precision, Precision::Degraded("one; two".into()));
        let clean = Coverage::of(&artifact()).finish();
        assert_eq!(clean.precision, Precision::Full);
        assert!(clean.is_complete());
    }

    #[test]
    fn exit_status_alone() {
        assert_eq!(by_exit(Exit::Code(0)), Outcome::Ok);
        assert_eq!(by_exit(Exit::Code(1)), Outcome::Failed);
        assert_eq!(by_exit(Exit::Signal(9)), Outcome::Failed);
        assert_eq!(by_exit(Exit::Unknown), Outcome::Unknown);
    }
}
