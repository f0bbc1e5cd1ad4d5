//! The words of a CI log's notes (`CiLogNote`).

use crate::delivery_plan::CiLogNote;
use crate::evidence::{EvidenceGraph, EvidenceItem};
use crate::profiles::ci_log::{EXIT, FAILED, NUMBER, SKIPPED};
use crate::words::count;

pub fn words(note: &CiLogNote, graph: &EvidenceGraph) -> String {
    let (one, many) = nouns(graph);
    match note {
        CiLogNote::Step { index, top } => graph
            .items
            .get(*index)
            .map(|item| step(one, item, *top))
            .unwrap_or_default(),
        CiLogNote::AllSteps { steps } => format!(
            "all {} {}:",
            count(*steps),
            if *steps == 1 { one } else { many }
        ),
        CiLogNote::StepsWithAnnotations => format!("{many} with annotations:"),
        CiLogNote::LinesFollow { first, last } => format!("its lines {first}-{last} follow"),
        CiLogNote::ReadAs(header) => format!("read as {}", super::super::header_text(header)),
    }
}

/// `step`/`steps`, GitLab's `section`/`sections`, Jenkins'
/// `stage`/`stages`.
fn nouns(graph: &EvidenceGraph) -> (&'static str, &'static str) {
    crate::profiles::ci_log::steps::nouns(graph.reader.tool().unwrap_or_default())
}

/// A step's line: `✗ Run pytest · exit 1 · lines 40–88`, with, for a
/// failing one at the top, what it is (`step 6 failed`).
fn step(one: &str, item: &EvidenceItem, top: bool) -> String {
    let number = item.fields.get(NUMBER).map_or("", String::as_str);
    let failed = item.class.as_deref() == Some(FAILED);
    let skipped = item.class.as_deref() == Some(SKIPPED);
    let mark = match (failed, skipped) {
        (true, _) => "✗",
        (false, true) => "–",
        (false, false) => "✓",
    };
    let mut words = if top && failed {
        format!("{mark} {one} {number} failed: {}", item.identity)
    } else if top {
        format!("{mark} {one} {number}: {}", item.identity)
    } else {
        format!("{mark} {}", item.identity)
    };
    if skipped {
        words.push_str(" · skipped");
    }
    if let Some(code) = item.fields.get(EXIT) {
        words.push_str(&format!(" · exit {code}"));
    }
    if let Some(b) = item.block {
        words.push_str(&format!(" · lines {}-{}", b.first, b.last));
    }
    words
}
