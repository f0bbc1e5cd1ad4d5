//! What every test-runner extractor shares, and nothing else: the outcome
//! rule (facts and exit status together), the coverage receipt's precision
//! rule, and turning a set of decisive line numbers into spans.
//!
//! The rules live here once so that pytest, cargo test, go test, jest,
//! vitest and JUnit cannot drift apart on the two questions a reader relies
//! on most: "is this run green?" and "is this list of failures complete?".

use crate::artifact::{Artifact, Exit, Span};
use crate::evidence::{CoverageReceipt, EvidenceGraph, Outcome};

use super::coverage::Coverage;

pub use crate::command::command_words;

/// What an extractor established, for the outcome rule.
#[derive(Clone, Copy, Debug, Default)]
pub struct Facts {
    /// Census items parsed (failing tests, errors, suites that did not run).
    pub failures: usize,
    /// The tool's final summary line was seen.
    pub summary_seen: bool,
    /// The run was cut short by the user (KeyboardInterrupt, SIGINT).
    pub interrupted: bool,
    /// The run could not test anything: collection errors, no tests, build failure.
    pub not_run: bool,
    /// Failures and errors the tool's own summary announced (`2 errors`),
    /// whether or not their identities were parsed.
    pub announced: u64,
    /// The runner itself broke: an internal error, a usage error, a crash.
    pub crashed: bool,
}

/// The outcome the facts and the exit status together support. A failed
/// exit never reads as green; a green exit with failures parsed reads as
/// UNKNOWN, because one of the two is lying and the reader must look.
/// Without an exit status (`ctx digest`, `ctx pipe`) only evidence of a
/// clean, complete run reads as PASSED: the summary line seen, announcing
/// no failure or error, and nothing that says the runner broke.
pub fn outcome(exit: Exit, facts: Facts) -> Outcome {
    if facts.interrupted {
        return Outcome::Interrupted;
    }
    if facts.not_run || facts.crashed {
        return Outcome::Error;
    }
    match (facts.failures > 0 || facts.announced > 0, exit) {
        (true, Exit::Code(0)) => Outcome::Unknown,
        (true, _) => Outcome::Failed,
        (false, Exit::Code(0)) => Outcome::Passed,
        (false, Exit::Unknown) if facts.summary_seen => Outcome::Passed,
        (false, _) => Outcome::Unknown,
    }
}

/// The receipt's verdict on completeness. Missing summary lines mean the
/// output may have been cut; a count mismatch means a failure was missed.
pub fn receipt(
    artifact: &Artifact,
    parsed: usize,
    announced: Option<u64>,
    blocks: usize,
    unmatched: usize,
    summary_seen: bool,
) -> CoverageReceipt {
    let coverage = Coverage::of(artifact)
        .parsed(parsed as u64)
        .announced(announced)
        .blocks(blocks as u64)
        .unmatched(unmatched as u64)
        .maybe_cut(!summary_seen);
    if !summary_seen {
        return coverage
            .doubt("no summary line: output may be truncated")
            .finish();
    }
    match announced {
        Some(n) if n != parsed as u64 => coverage.doubt(format!(
            "parsed {parsed} of {n} failure{} the summary announced",
            if n == 1 { "" } else { "s" }
        )),
        _ => coverage,
    }
    .finish()
}

/// What a runner whose census is its own report's entries established:
/// each item parsed from one entry, the failures its closing line
/// announced (`None` when the line was not seen), whether the runner broke
/// (a binary that died in a test), the lines left unread, and whether the
/// report was whole (no entry cut before its end).
#[derive(Clone, Copy, Debug)]
pub struct Report {
    pub announced: Option<u64>,
    pub crashed: bool,
    pub unmatched: usize,
    pub whole: bool,
}

/// The outcome of `graph` (its items already read) under the outcome rule,
/// and its receipt: the shared ending of the report-shaped runners (mocha,
/// minitest, PHPUnit, GoogleTest).
pub fn conclude(artifact: &Artifact, graph: &mut EvidenceGraph, report: Report) -> CoverageReceipt {
    let items = graph.items.len();
    let summary_seen = report.announced.is_some();
    let facts = Facts {
        failures: items,
        summary_seen,
        interrupted: false,
        not_run: false,
        announced: report.announced.unwrap_or(0),
        crashed: report.crashed,
    };
    graph.outcome = outcome(artifact.exit, facts);
    receipt(
        artifact,
        items,
        report.announced,
        items,
        report.unmatched,
        summary_seen && report.whole,
    )
}

/// The longest one-line reason a report-shaped runner's item carries.
pub const SUMMARY_CHARS: usize = 120;

/// `span` without the blank lines it ends with (the gap before the next
/// block belongs to no one); never shorter than its first line.
pub fn trim_blank_end(artifact: &Artifact, span: &mut Span) {
    while span.last > span.first
        && crate::profiles::visible(artifact, span.last)
            .trim()
            .is_empty()
    {
        span.last -= 1;
    }
}

/// A one-line reason of at most `max` characters, `…` marking a cut: the
/// item's detail and block hold the rest.
pub fn clip_summary(summary: String, max: usize) -> String {
    if summary.chars().count() <= max {
        return summary;
    }
    summary
        .chars()
        .take(max.saturating_sub(1))
        .collect::<String>()
        + "…"
}

/// The first removed and the first added line of the unified diff a
/// runner prints under a failure (`--- expected` / `+++ actual` / `@@`),
/// without their marks and trimmed: what was expected and what came.
pub fn diff_pair<'a>(lines: &[&'a str]) -> (Option<&'a str>, Option<&'a str>) {
    let first = |mark: char, header: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(mark) && !l.starts_with(header))
            .map(|l| l[1..].trim())
    };
    (first('-', "---"), first('+', "+++"))
}

/// Sorted, deduplicated line numbers as spans of consecutive lines, keeping
/// at most `cap` lines (the earliest: decisive lines are chosen in order).
pub fn spans(lines: &[usize], cap: usize) -> Vec<Span> {
    let mut sorted: Vec<usize> = lines.iter().copied().filter(|&n| n >= 1).collect();
    sorted.sort_unstable();
    sorted.dedup();
    sorted.truncate(cap);
    let mut out: Vec<Span> = Vec::new();
    for n in sorted {
        match out.last_mut() {
            Some(last) if last.last + 1 == n => last.last = n,
            _ => out.push(Span::line(n)),
        }
    }
    out
}

/// A path as the project names it: the run's cwd prefix removed.
pub fn relative(path: &str, cwd: Option<&str>) -> String {
    if let Some(cwd) = cwd {
        let cwd = cwd.trim_end_matches('/');
        if let Some(rest) = path.strip_prefix(cwd).and_then(|r| r.strip_prefix('/')) {
            return rest.to_string();
        }
    }
    path.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_exit_is_never_green() {
        let none = Facts {
            summary_seen: true,
            ..Facts::default()
        };
        assert_eq!(outcome(Exit::Code(1), none), Outcome::Unknown);
        assert_eq!(outcome(Exit::Code(0), none), Outcome::Passed);
        let one = Facts {
            failures: 1,
            ..none
        };
        assert_eq!(outcome(Exit::Code(0), one), Outcome::Unknown);
        assert_eq!(outcome(Exit::Code(1), one), Outcome::Failed);
    }

    #[test]
    fn unknown_exit_is_green_only_on_clean_evidence() {
        let clean = Facts {
            summary_seen: true,
            ..Facts::default()
        };
        assert_eq!(outcome(Exit::Unknown, clean), Outcome::Passed);
        assert_eq!(outcome(Exit::Unknown, Facts::default()), Outcome::Unknown);
        let announced = Facts {
            announced: 2,
            ..clean
        };
        assert_eq!(outcome(Exit::Unknown, announced), Outcome::Failed);
        assert_eq!(outcome(Exit::Code(0), announced), Outcome::Unknown);
        let crashed = Facts {
            crashed: true,
            ..clean
        };
        assert_eq!(outcome(Exit::Unknown, crashed), Outcome::Error);
        assert_eq!(
            outcome(Exit::Signal(11), Facts::default()),
            Outcome::Unknown
        );
    }

    #[test]
    fn summaries_and_diffs() {
        assert_eq!(clip_summary("short".into(), 10), "short");
        assert_eq!(clip_summary("abcdefghij".into(), 5), "abcd…");
        let diff = [
            "--- expected",
            "+++ actual",
            "@@ -1 +1 @@",
            "-'USD'",
            "+'EUR'",
        ];
        assert_eq!(diff_pair(&diff), (Some("'USD'"), Some("'EUR'")));
        assert_eq!(
            diff_pair(&["--- Expected", "+++ Actual", "+    2 => 'apple'"]),
            (None, Some("2 => 'apple'"))
        );
    }

    #[test]
    fn spans_merge_and_cap() {
        assert_eq!(
            spans(&[5, 3, 4, 9], 10),
            vec![Span::new(3, 5), Span::line(9)]
        );
        assert_eq!(spans(&[1, 2, 3], 2), vec![Span::new(1, 2)]);
    }
}
