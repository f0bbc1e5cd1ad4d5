//! From a finished scan to the evidence graph: each failure becomes an
//! item named by its target, and the counts, outcome and receipt follow.

use super::Scan;
use super::panic::read_block;
use crate::artifact::{Artifact, Span};
use crate::evidence::{
    CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Location, Precision, Severity,
};
use crate::profiles::testrun::{self, Facts};

pub(super) fn finish(
    s: Scan,
    artifact: &Artifact,
    unmatched: usize,
) -> (EvidenceGraph, CoverageReceipt) {
    let Scan {
        mut graph,
        failures,
        runs,
        counts,
        announced,
        nextest,
        summary_seen,
        crashed,
        ..
    } = s;
    let build_failures = graph
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::BuildFailure)
        .count();
    let crashes = graph
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::SuiteNotRun)
        .count();
    let compile_errors = graph.items.len() - build_failures - crashes;
    let mut items = Vec::new();
    for f in &failures {
        let target = runs.get(f.run).and_then(|r| r.target.as_deref());
        let identity = match (nextest, target) {
            (false, Some(t)) => format!("{t} {}", f.name),
            _ => f.name.clone(),
        };
        let mut item = EvidenceItem::new(ItemKind::FailingTest, Severity::Error, identity);
        item.headline = f.headline.map(Span::line);
        item.block = f.block;
        item.fields.insert("test".into(), f.name.clone());
        if let Some(t) = target.filter(|_| !nextest) {
            item.fields.insert("target".into(), t.to_string());
        }
        match f.status.as_str() {
            "TIMEOUT" => item.class = Some("timeout".into()),
            s if s.starts_with("SIG") || s == "ABORT" => item.class = Some("signal".into()),
            _ => {}
        }
        if let Some(block) = f.block {
            read_block(artifact, &mut item, block);
        }
        if item.location.is_none() {
            // No panic line (output not captured, or cut): the target's
            // source is the best address the output gives.
            let file = item.fields.get("target").cloned().unwrap_or_default();
            item.location = Some(Location {
                file,
                line: None,
                column: None,
            });
        }
        item.class.get_or_insert_with(|| "failed".into());
        items.push(item);
    }
    let blocks = items.iter().filter(|i| i.block.is_some()).count()
        + build_failures
        + compile_errors
        + crashes;
    graph.items.extend(items);

    let runs_closed = !runs.is_empty() && runs.iter().all(|r| r.closed);
    let summary_seen =
        summary_seen || runs_closed || (build_failures > 0 && runs.iter().all(|r| r.closed));
    graph.counts = ordered_counts(counts);
    if build_failures > 0 {
        graph
            .counts
            .push(("targets not built".into(), build_failures as u64));
    }
    let facts = Facts {
        failures: graph.items.len(),
        summary_seen,
        interrupted: false,
        not_run: build_failures > 0 && failures.is_empty(),
        announced,
        crashed,
    };
    graph.outcome = testrun::outcome(artifact.exit, facts);
    let announced = (summary_seen || announced > 0).then_some(announced);
    let mut receipt = testrun::receipt(
        artifact,
        graph.items.len(),
        announced,
        blocks,
        unmatched,
        summary_seen,
    );
    if crashed && !summary_seen {
        // Not cut upstream: a test binary died before its `test result:`.
        receipt.truncated = artifact.truncated;
        receipt.precision =
            Precision::Degraded("a test binary died before its test result line".into());
    }
    (graph, receipt)
}

/// Failed first, then the rest as the tool orders them; zero-valued
/// bookkeeping counts (`0 measured`) dropped.
fn ordered_counts(counts: Vec<(String, u64)>) -> Vec<(String, u64)> {
    let (mut failed, rest): (Vec<_>, Vec<_>) = counts.into_iter().partition(|(w, _)| w == "failed");
    failed.extend(rest.into_iter().filter(|(w, n)| *n > 0 || w == "passed"));
    failed
}
