//! Re-run deltas inside the pipeline (`plan::delta` plans them): a
//! delivered digest replaced by its delta when the same command ran
//! recently, and a run that fitted the budget (printed verbatim) kept as
//! a last run and, when a delta is smaller than its output, delivered as
//! one. Any doubt — no previous run, a failed check, a fault — keeps the
//! normal delivery.

use crate::archive::Archive;
use crate::artifact::Artifact;
use crate::contract::Contract;
use crate::delivery::{Delivery, DeltaUse, Output};
use crate::fault;
use crate::guard;
use crate::ledger::last_run::DeltaSource;
use crate::plan::{self, Budget, DeliveryPlan};
use crate::render;
use crate::store::ArchiveKey;
use crate::tokens;

/// Replaces a delivered digest by its re-run delta, planned within
/// `budget`, and only when the delta is smaller (never worse). `shown`
/// is what the digest shows (the profile's view of `artifact`, or
/// `artifact` itself); the comparison reads the captured run.
pub(super) fn delta(
    artifact: &Artifact,
    shown: &Artifact,
    source: &DeltaSource,
    contract: &Contract,
    key: &ArchiveKey,
    budget: Budget,
    delivery: &mut Delivery,
) {
    let Some(trace) = delivery.trace.as_ref() else {
        return;
    };
    // A census that may be incomplete is never compared: a missing
    // failure would read as fixed.
    if !trace.receipt.is_complete() || artifact.truncated {
        return;
    }
    let normal = delivery.delivered_tokens;
    let made = guard::isolate("delta", || {
        fault::point("delta");
        let previous = source.previous(artifact, delivery.profile)?;
        let finish = |base_plan: &DeliveryPlan| {
            let plan = plan::delta::apply(contract, &trace.graph, base_plan, &previous)?;
            guard::check_census(contract, &trace.graph, &plan).ok()?;
            let rendered = render::render(shown, &trace.graph, &plan, Some(key));
            let bytes =
                guard::accept(shown, &plan, &rendered, Some(key), delivery.raw_tokens).ok()?;
            let tokens = tokens::estimate(&bytes);
            (tokens < normal).then_some((plan, bytes, tokens))
        };
        // Planned again with the still-failing detail set aside (the
        // budget it held goes to the new failures' detail, or to
        // warnings), and the normal plan without the still-failing items:
        // the smaller of the two.
        let deferred = plan::delta::deferring(contract, &trace.graph, &previous);
        let replanned = plan::resolve(
            shown,
            &deferred,
            &trace.receipt,
            contract,
            budget,
            delivery.raw_tokens,
        );
        let made = match (finish(&replanned), finish(&trace.plan)) {
            (Some(a), Some(b)) => Some(if b.2 < a.2 { b } else { a }),
            (a, b) => a.or(b),
        }?;
        Some((previous.key.clone(), previous.age_secs, made))
    });
    let Ok(Some((against, age_secs, (plan, bytes, tokens)))) = made else {
        return;
    };
    delivery.delta = Some(DeltaUse {
        against,
        age_secs,
        normal_tokens: normal,
    });
    delivery.delivered_tokens = tokens;
    delivery.output = Output::Digest(bytes);
    if let Some(trace) = delivery.trace.as_mut() {
        trace.plan = plan;
    }
}

/// A run that fitted the budget and has failures to compare: archived, so
/// that the next run of the command can point at its detail (the ledger
/// keeps it as the last run), and delivered as a delta when the same
/// command ran recently and the delta is smaller than the output. The
/// delta is planned as if the output did not fit: a census plan within
/// the contract's budget, its still-failing items named by identity.
pub(super) fn verbatim(
    artifact: &Artifact,
    shown: &Artifact,
    archive: &dyn Archive,
    source: &DeltaSource,
    contract: &Contract,
    delivery: &mut Delivery,
) {
    let Some(trace) = delivery.trace.as_ref() else {
        return;
    };
    if !trace.receipt.is_complete()
        || artifact.truncated
        || plan::delta::identities(contract, &trace.graph).is_empty()
    {
        return;
    }
    let archived = guard::isolate("archive", || {
        fault::point("archive");
        archive.put(artifact)
    });
    let Ok(Ok(key)) = archived else {
        return;
    };
    delivery.key = Some(key);
    // Below the output's own size, so that the planner makes a census.
    let budget = Budget {
        target: delivery.raw_tokens.saturating_sub(1),
        ..trace.budget
    };
    delta(artifact, shown, source, contract, &key, budget, delivery);
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use crate::archive::Archive;
    use crate::artifact::Artifact;
    use crate::delivery::Output;
    use crate::ledger::last_run::{self, DeltaSource};
    use crate::pipeline::{Options, digest};
    use crate::store::{ArchiveKey, StoreError};

    /// Counts what it is asked to keep.
    #[derive(Default)]
    struct Counting(AtomicUsize);

    impl Archive for Counting {
        fn put(&self, _artifact: &Artifact) -> Result<ArchiveKey, StoreError> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Ok(ArchiveKey([3; 32]))
        }
    }

    fn load(case: &str) -> Artifact {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(case);
        crate::fixture::load(&dir).expect("fixture")
    }

    /// Options with deltas on, comparing against runs kept under `runs`.
    fn deltas_on(runs: &Path) -> Options {
        Options {
            delta: Some(DeltaSource {
                dir: runs.join(last_run::DIR_NAME),
                now_ms: 1,
                horizon: Duration::from_secs(60),
            }),
            ..Options::default()
        }
    }

    /// Only a failing run that fits, with deltas on, is archived for the
    /// next run to compare with; it is still printed as the tool wrote it.
    #[test]
    fn a_failing_run_that_fits_is_kept_for_the_next_one() {
        let runs = tempfile::tempdir().expect("tempdir");
        let on = deltas_on(runs.path());
        for (case, options, puts) in [
            ("deltas/tsc-errors/step-0", &on, 1),
            ("deltas/tsc-errors/step-0", &Options::default(), 0),
            ("cargo_test/green", &on, 0),
        ] {
            let artifact = load(case);
            let archive = Counting::default();
            let delivery = digest(&artifact, &archive, options).expect("digest");
            assert_eq!(delivery.output, Output::Raw, "{case}: printed as it is");
            assert_eq!(archive.0.load(Ordering::SeqCst), puts, "{case}");
            assert_eq!(delivery.key.is_some(), puts == 1, "{case}");
            // Read by its profile (not a small output printed unread).
            assert!(delivery.trace.is_some(), "{case}");
        }
    }

    /// Output within 256 tokens is read for a delta only when it fails,
    /// deltas are on, and a typed profile claims it: a passing run, a run
    /// with deltas off, and one no profile claims (filters, text/v1) stay
    /// unread and verbatim.
    #[test]
    fn a_small_run_is_read_only_when_it_fails_and_a_profile_claims_it() {
        use crate::artifact::Exit;
        let runs = tempfile::tempdir().expect("tempdir");
        let on = deltas_on(runs.path());
        let step = load("deltas/go-shop/step-4");
        let unknown = Artifact::from_stdout(
            b"error: widget 3 is broken\nFAILED\n".to_vec(),
            Exit::Code(1),
            vec!["mytool".into(), "check".into()],
        );
        let mut passing = step.clone();
        passing.exit = Exit::Code(0);
        for (artifact, options, read) in [
            (&step, &on, true),
            (&step, &Options::default(), false),
            (&unknown, &on, false),
            (&passing, &on, false),
        ] {
            assert!(
                crate::tokens::estimate_bulk(artifact.bytes())
                    <= crate::contract::SMALL_OUTPUT_TOKENS
            );
            let delivery = digest(artifact, &Counting::default(), options).expect("digest");
            assert_eq!(delivery.output, Output::Raw, "{:?}", artifact.argv);
            assert_eq!(delivery.trace.is_some(), read, "{:?}", artifact.argv);
        }
    }
}
