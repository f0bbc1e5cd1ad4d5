//! text/v1 — the universal fallback, for output no family profile claims.
//!
//! **Decision.** What happened at the end of this command, and is there an
//! error line I must read? The reader of an unknown tool acts on its last
//! lines (the conclusion) and on lines that say error, panic or fatal.
//!
//! **Unsafe loss.** Dropping the tail (where tools print their conclusion),
//! dropping an error line from the middle without an address to it, or a
//! digest that reads as success when the command failed.
//!
//! **Typed facts.** `DecisiveLine` items: one per line matching the error
//! vocabulary below, with its span. The exit status comes from the artifact.
//! No census: nothing here is an identity the contract requires by name.
//!
//! **Ladder.** VERBATIM (fits the budget: the raw bytes, unchanged, no
//! footer) → DENSE (runs of identical lines collapsed with exact counts) →
//! DENSE with selection (head, every decisive line the budget allows, the
//! decisive tail; each removed region declared by one marker naming its
//! `ctx expand H --lines A-B`). Text has no census, so no FLOOD rung.

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::{Artifact, Exit, Span};
use crate::evidence::{CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Outcome, Severity};
use crate::normalize;

use super::Profile;

pub struct Text;

/// Lines a reader must not lose, whatever the tool. Case-insensitive words
/// that tools use for failure; `warning` is not among them (too common).
///
/// One `Regex` of one alternation, not a `RegexSet` of three patterns: only
/// "does any match" is asked, and the set took about five times as long to
/// compile (≈ 1.8 ms against ≈ 0.4 ms), paid by every digest of unknown output.
static DECISIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        // Each flag group scoped: `^E\s` stays case-sensitive.
        r"(?i:\b(?:error|errors|fatal|panic(?:ked)?|exception|traceback|failed|failure|abort(?:ed)?)\b)",
        r"|(?i:\b(?:segmentation fault|core dumped|killed|denied|not found|no such file|cannot|could not|unable to)\b)",
        r"|^E\s",
    ))
    .expect("static patterns compile")
});

impl Profile for Text {
    fn version(&self) -> &'static str {
        "text/v1"
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let total = artifact.line_count();
        let mut graph = EvidenceGraph::empty();
        graph.outcome = match artifact.exit {
            Exit::Code(0) => Outcome::Ok,
            Exit::Code(_) | Exit::Signal(_) => Outcome::Failed,
            Exit::Unknown => Outcome::Unknown,
        };
        graph.counts.push(("lines".to_string(), total as u64));
        for n in 1..=total {
            let raw = artifact.line(n);
            // Overlong lines (minified bundles, base64) are never decisive prose.
            if raw.len() > 4096 {
                continue;
            }
            let text = normalize::line(raw);
            if DECISIVE.is_match(&text) {
                let mut item =
                    EvidenceItem::new(ItemKind::DecisiveLine, Severity::Error, format!("line {n}"));
                item.headline = Some(Span::line(n));
                graph.items.push(item);
            }
        }
        let mut receipt = CoverageReceipt::new(total as u64);
        receipt.truncated = artifact.truncated;
        // Text reads every line as a line: nothing is unmatched, nothing announced.
        (graph, receipt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_decisive_lines() {
        let a = Artifact::from_stdout(
            b"building\nerror: disk full\nok\nthread 'main' panicked at x\nE   assert 1 == 2\n"
                .to_vec(),
            Exit::Code(1),
            vec!["x".into()],
        );
        let (g, r) = Text.extract(&a);
        let lines: Vec<usize> = g
            .items
            .iter()
            .filter_map(|i| i.headline)
            .map(|s| s.first)
            .collect();
        assert_eq!(lines, vec![2, 4, 5]);
        assert_eq!(g.outcome, Outcome::Failed);
        assert_eq!(r.lines_total, 5);
    }
}
