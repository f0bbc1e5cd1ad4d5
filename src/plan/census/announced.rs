//! The tool's own totals lines, printed right under a diagnostics
//! digest's header and priced into the frame its census is planned in.

use crate::artifact::{Artifact, Span};
use crate::evidence::{EvidenceGraph, ItemKind};
use crate::tokens;

/// The tool's own totals lines (`Found 330 errors in 30 files (checked 31
/// source files)`, eslint's `✖ 3587 problems (924 errors, 2663 warnings)`
/// and its fixable count), printed right under the header: they say what
/// the header's counts cannot (how many files, what `--fix` would fix).
/// A diagnostics tool's conclusion only (every item a diagnostic: a test
/// runner's summary lines carry durations, and its header says what they
/// do), at most two lines, none that is an item's own line (printed as the
/// census already).
pub(super) fn announced(artifact: &Artifact, graph: &EvidenceGraph) -> Vec<Span> {
    let diagnostics =
        !graph.items.is_empty() && graph.items.iter().all(|i| i.kind == ItemKind::Diagnostic);
    if !diagnostics {
        return Vec::new();
    }
    let headline = |n: usize| {
        graph
            .items
            .iter()
            .any(|i| i.headline.is_some_and(|h| h.contains(n)))
    };
    graph
        .conclusion
        .iter()
        .flat_map(|s| s.first..=s.last)
        // A machine-readable record (cargo's `build-finished`) says nothing
        // a reader needs beside the header.
        .filter(|&n| {
            let line = artifact.line(n);
            !headline(n) && !line.starts_with(b"{") && states_a_count(line)
        })
        .take(2)
        .map(Span::line)
        .collect()
}

/// Whether a line states a number of its own (`Found 21 errors`, `✖ 3587
/// problems`), not only codes (`D212`) or none (`For more information:`):
/// a totals line, not a remark the tool closed with.
fn states_a_count(line: &[u8]) -> bool {
    let mut i = 0;
    while i < line.len() {
        if line[i].is_ascii_digit() && (i == 0 || !line[i - 1].is_ascii_alphanumeric()) {
            let end = line[i..]
                .iter()
                .position(|b| !b.is_ascii_digit())
                .map_or(line.len(), |p| i + p);
            if line.get(end).is_none_or(|b| !b.is_ascii_alphabetic()) {
                return true;
            }
            i = end;
        }
        i += 1;
    }
    false
}

pub(super) fn announced_cost(artifact: &Artifact, graph: &EvidenceGraph) -> usize {
    announced(artifact, graph)
        .iter()
        .map(|s| tokens::estimate(crate::normalize::line(artifact.line(s.first)).as_bytes()) + 1)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::states_a_count;

    #[test]
    fn a_totals_line_states_a_count_and_a_code_does_not() {
        assert!(states_a_count("Found 21 errors.".as_bytes()));
        assert!(states_a_count(
            "✖ 3587 problems (924 errors, 2663 warnings)".as_bytes()
        ));
        assert!(states_a_count(b"Your code has been rated at 0.00/10"));
        assert!(!states_a_count(b"For more information:"));
        assert!(!states_a_count(
            b"warning: `x` (D212) and `y` (D213) are incompatible."
        ));
        assert!(!states_a_count(b"see E0308 and 2nd edition"));
    }
}
