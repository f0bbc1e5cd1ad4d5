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

/// The same alternatives over the whole buffer, to find candidate lines in
/// one scan: a 100 MB log has a million lines, and asking each one costs
/// several times the scan. `(?m)` keeps `^E` at line starts.
static DECISIVE_IN_BUFFER: LazyLock<regex::bytes::Regex> = LazyLock::new(|| {
    regex::bytes::Regex::new(&format!("(?m){}", DECISIVE.as_str()))
        .expect("static patterns compile")
});

/// Lines that may be decisive, in order: every line the buffer scan
/// matches, and every line whose visible text differs from its bytes
/// (escapes, carriage returns, other controls), where normalization could
/// join a word the bytes split. Each is then checked as a line, so the
/// result is exactly that of checking every line.
fn candidates(artifact: &Artifact) -> Vec<usize> {
    let bytes = artifact.bytes();
    if std::str::from_utf8(bytes).is_err() {
        return (1..=artifact.line_count()).collect();
    }
    let mut lines: Vec<usize> = DECISIVE_IN_BUFFER
        .find_iter(bytes)
        .map(|m| artifact.line_at(m.start()))
        .collect();
    for (chunk_at, chunk) in bytes.chunks(64).enumerate() {
        if !chunk
            .iter()
            .any(|&b| (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f)
        {
            continue;
        }
        for (i, &b) in chunk.iter().enumerate() {
            if (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f {
                lines.push(artifact.line_at(chunk_at * 64 + i));
            }
        }
    }
    lines.sort_unstable();
    lines.dedup();
    lines
}

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
        for n in candidates(artifact) {
            let raw = artifact.line(n);
            // Overlong lines (minified bundles, base64) are never decisive prose.
            if raw.len() > 4096 {
                continue;
            }
            let text = normalize::line(crate::profiles::window(raw));
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

    /// The buffer scan finds exactly the lines a line-by-line check finds,
    /// including words only normalization joins.
    #[test]
    fn candidates_miss_nothing() {
        let text = b"ok\nerr\x1b[0mor: split by colour\nfine\nE   assert\nwE x\nfa\rFATAL again\nxerror\nE\nnot found\n";
        let a = Artifact::from_stdout(text.to_vec(), Exit::Code(1), vec![]);
        let (g, _) = Text.extract(&a);
        let found: Vec<usize> = g
            .items
            .iter()
            .filter_map(|i| i.headline)
            .map(|s| s.first)
            .collect();
        let every: Vec<usize> = (1..=a.line_count())
            .filter(|&n| DECISIVE.is_match(&crate::profiles::visible(&a, n)))
            .collect();
        assert_eq!(found, every);
        assert_eq!(found, vec![2, 4, 6, 9]);
    }
}
