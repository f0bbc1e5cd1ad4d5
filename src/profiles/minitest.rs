//! minitest/v1 — minitest's default reporter (progress dots, or one line
//! per test with `-v`), run as `rake test`, `ruby -Itest test/x_test.rb`,
//! `bin/rails test` or by any script.
//!
//! **Decision.** Which tests failed or raised, and where? A reader reruns
//! one with `-n test_name` (or `ruby -Itest FILE -n /name/`) and opens the
//! file and line minitest names.
//!
//! **Unsafe loss.** An error (a test that raised) read as a failure, or
//! dropped because its block names no `[file:line]`; a spec-style test
//! (`Inventory::#level#test_0001_reports …`) cut at its first space; a
//! skip read as a failure; a run cut before its `N runs, …` line read as
//! green.
//!
//! **Typed facts.** One item per numbered block of the report (`  1)
//! Failure:` / `  2) Error:`; `Skipped:` blocks, printed under `-v`, are
//! none): `FailingTest` for a failure, `TestError` for an error.
//! Identity = `Class#test_name` as the block's first line has it (what
//! the progress line of `-v` prints). Location = the block's `[path:line]`
//! (a failure) or the first backtrace frame outside Ruby's and the gems'
//! own files (an error); class = the exception's name for an error;
//! summary = the message's first line, joined with minitest's
//! `Actual:` line or the first lines of its `--- expected` diff; detail =
//! the message and that frame; block = the whole numbered block. Counts
//! from `N runs, N assertions, N failures, N errors, N skips`.
//!
//! **Ladder.** PASS_SUMMARY (counts) → FAIL_CENSUS (every identity with its
//! location and reason, detail while the budget lasts) → DENSE (census
//! only; each block by `--item ID`) → FLOOD (grouped with exact counts;
//! `--items`).

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::{Artifact, Span};
use crate::evidence::{
    CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Location, SUITE_FIELD, Severity,
};

use super::testrun;
use super::{Profile, ProfileSpec, ReceiptGroup};

pub struct Minitest;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("static pattern")
}

/// `12 runs, 9 assertions, 6 failures, 2 errors, 1 skips`
static COUNTS: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^(\d+) runs, (\d+) assertions, (\d+) failures, (\d+) errors, (\d+) skips$")
});
/// A numbered block's first line: `  1) Failure:`, `  2) Error:`,
/// `  3) Skipped:`; the numbers are right-aligned (` 10) Failure:`,
/// `100) Failure:`).
static NUMBERED: LazyLock<Regex> =
    LazyLock::new(|| re(r"^ {0,2}(\d+)\) (Failure|Error|Skipped):$"));
/// The test a block is about: `CartTest#test_x [path:line]:` (a failure)
/// or `CartTest#test_x:` (an error).
static TEST_LINE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^(?P<id>\S[^#]*#.+?)(?: \[(?P<file>[^\[\]]+?):(?P<line>\d+)\])?:$")
});
/// A backtrace frame: `    path:line:in 'method'` (backquote before Ruby
/// 3.4), or `path:line:in …` at column 0 under Rails.
static FRAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*(?P<file>[^\s:][^:]*):(?P<line>\d+):in [`'].*'$"));
/// An error's exception: `KeyError: key not found: "Z9"`,
/// `NoMethodError: undefined method …`, `Minitest::UnexpectedError: …`.
static EXCEPTION: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?P<class>[A-Z]\w*(?:::[A-Z]\w*)*): "));

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["rake test", "rails test"],
    decisive_words: &[" runs, ", " assertions, "],
    ..ProfileSpec::new("minitest/v1", "minitest", ReceiptGroup::TestRunner)
};

impl Profile for Minitest {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn by_content(&self, head: &str) -> Option<String> {
        if !head.contains("# Running:") {
            return None;
        }
        let mut lines = head.lines();
        lines
            .any(|l| l.starts_with("Run options: ") && l.contains("--seed "))
            .then(|| "minitest `Run options: … --seed N` / `# Running:` head".into())
    }

    fn decisive_line(&self, line: &str) -> Option<String> {
        COUNTS
            .is_match(line.trim_end())
            .then(|| "minitest `N runs, N assertions, …` line".into())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let cwd = artifact.cwd.as_deref();
        let mut graph = EvidenceGraph::empty();
        graph.reader = crate::evidence::Reader::family("minitest");
        let mut blocks: Vec<Block> = Vec::new();
        let mut counts: Option<[u64; 5]> = None;
        let mut unmatched = 0usize;
        for n in 1..=artifact.line_count() {
            let text = crate::profiles::visible(artifact, n);
            let text = text.trim_end();
            if let Some(c) = COUNTS.captures(text) {
                if let Some(b) = blocks.last_mut() {
                    b.close(artifact, n);
                }
                let mut v = [0u64; 5];
                for (i, slot) in v.iter_mut().enumerate() {
                    *slot = c[i + 1].parse().unwrap_or(0);
                }
                // Several runs in one output (a script running two test
                // files) add up.
                counts = Some(match counts {
                    Some(old) => std::array::from_fn(|i| old[i] + v[i]),
                    None => v,
                });
                graph.conclusion.push(Span::line(n));
                continue;
            }
            if let Some(c) = NUMBERED.captures(text) {
                if let Some(b) = blocks.last_mut() {
                    b.close(artifact, n);
                }
                blocks.push(Block::new(n, &c[2]));
                continue;
            }
            if let Some(b) = blocks.last_mut().filter(|b| b.open)
                && !b.take(n, text, cwd)
            {
                unmatched += 1;
            }
        }
        if let Some(b) = blocks.last_mut() {
            b.close(artifact, artifact.line_count() + 1);
        }
        let failures: Vec<&Block> = blocks.iter().filter(|b| b.label != "Skipped").collect();
        graph.items = failures.iter().filter_map(|b| b.item()).collect();
        // A block whose test line never came is not whole.
        let whole = failures.iter().all(|b| b.id.is_some());

        if let Some([runs, _, failed, errors, skips]) = counts {
            graph.counts.push(("failed".to_string(), failed));
            if errors > 0 {
                graph.counts.push(("errors".to_string(), errors));
            }
            graph.counts.push((
                "passed".to_string(),
                runs.saturating_sub(failed + errors + skips),
            ));
            if skips > 0 {
                graph.counts.push(("skipped".to_string(), skips));
            }
        }
        let announced = counts.map(|c| c[2] + c[3]);
        let receipt = testrun::conclude(
            artifact,
            &mut graph,
            testrun::Report {
                announced,
                crashed: false,
                unmatched,
                whole,
            },
        );
        (graph, receipt)
    }
}

/// One numbered block of the report, from its number to the next.
struct Block {
    span: Span,
    /// `Failure`, `Error` or `Skipped`.
    label: String,
    id: Option<String>,
    /// The `[path:line]` a failure's test line names.
    place: Option<Location>,
    /// The message's lines (line number, text).
    message: Vec<(usize, String)>,
    /// The first frame the reader can fix, and its line number.
    frame: Option<(Location, usize)>,
    in_backtrace: bool,
    open: bool,
}

impl Block {
    fn new(n: usize, label: &str) -> Self {
        Block {
            span: Span::line(n),
            label: label.to_string(),
            id: None,
            place: None,
            message: Vec::new(),
            frame: None,
            in_backtrace: false,
            open: true,
        }
    }

    /// Reads one line of the block; false when it is none of its parts.
    fn take(&mut self, n: usize, text: &str, cwd: Option<&str>) -> bool {
        self.span.last = n;
        if self.id.is_none() {
            let Some(c) = TEST_LINE.captures(text) else {
                return false;
            };
            self.id = Some(c["id"].to_string());
            if let (Some(file), Some(line)) = (c.name("file"), c.name("line")) {
                self.place = Some(Location {
                    file: testrun::relative(file.as_str(), cwd),
                    line: line.as_str().parse().ok(),
                    column: None,
                });
            }
            return true;
        }
        if let Some(c) = FRAME.captures(text) {
            self.in_backtrace = true;
            let file = &c["file"];
            if self.frame.is_none() && !is_library(file) {
                self.frame = Some((
                    Location {
                        file: testrun::relative(file, cwd),
                        line: c["line"].parse().ok(),
                        column: None,
                    },
                    n,
                ));
            }
            return true;
        }
        if !text.trim().is_empty() && !self.in_backtrace && self.message.len() < 8 {
            self.message.push((n, text.to_string()));
        }
        true
    }

    /// Ends the block before `next` (the next block's first line, or the
    /// counts): the blank lines before it belong to no one.
    fn close(&mut self, artifact: &Artifact, next: usize) {
        self.open = false;
        self.span.last = self.span.last.min(next.saturating_sub(1));
        testrun::trim_blank_end(artifact, &mut self.span);
    }

    fn item(&self) -> Option<EvidenceItem> {
        let id = self.id.as_deref()?;
        let error = self.label == "Error";
        let kind = if error {
            ItemKind::TestError
        } else {
            ItemKind::FailingTest
        };
        let mut it = EvidenceItem::new(kind, Severity::Error, id);
        // The JUnit report's classname: the class before the test's name
        // (`Inventory::#level` of a spec's `…#level#test_0001_…`).
        if let Some(at) = id.rfind("#test_").or_else(|| id.rfind('#')) {
            it.fields
                .insert(SUITE_FIELD.to_string(), id[..at].to_string());
        }
        let first = self.message.first().map(|(_, t)| t.trim());
        if error {
            it.class = first
                .and_then(|t| EXCEPTION.captures(t))
                .map(|c| c["class"].to_string());
        }
        it.summary = summary(&self.message);
        it.location = self
            .place
            .clone()
            .or_else(|| self.frame.as_ref().map(|(l, _)| l.clone()));
        let mut lines: Vec<usize> = self.message.iter().map(|(n, _)| *n).collect();
        if let Some((_, n)) = &self.frame {
            lines.push(*n);
        }
        it.detail = testrun::spans(&lines, 10);
        it.block = Some(self.span);
        Some(it)
    }
}

/// The message's first line, with minitest's `Actual:` line after
/// `Expected: …`, or the first removed and added lines of its `---
/// expected` / `+++ actual` diff.
fn summary(message: &[(usize, String)]) -> Option<String> {
    let lines: Vec<&str> = message.iter().map(|(_, t)| t.trim()).collect();
    let first = *lines.first()?;
    let summary = if first == "--- expected" {
        match testrun::diff_pair(&lines) {
            (Some(r), Some(a)) => format!("expected {r}, actual {a}"),
            _ => first.to_string(),
        }
    } else {
        match lines.get(1).filter(|l| l.starts_with("Actual: ")) {
            Some(actual) if first.starts_with("Expected: ") => format!("{first}, {actual}"),
            _ => first.to_string(),
        }
    };
    Some(testrun::clip_summary(summary, testrun::SUMMARY_CHARS))
}

/// Frames a reader cannot fix: Ruby's own library, installed gems.
fn is_library(file: &str) -> bool {
    file.starts_with("/usr/lib/ruby")
        || file.starts_with("/usr/share/ruby")
        || file.contains("/gems/")
        || file.contains("/rubygems/")
        || file.starts_with('<')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_lines() {
        let c = TEST_LINE
            .captures("CartTest#test_summary [/w/test/cart_test.rb:25]:")
            .unwrap();
        assert_eq!(
            (&c["id"], &c["file"], &c["line"]),
            ("CartTest#test_summary", "/w/test/cart_test.rb", "25")
        );
        let c = TEST_LINE
            .captures("InventoryTest#test_unavailable_for_unknown:")
            .unwrap();
        assert_eq!(&c["id"], "InventoryTest#test_unavailable_for_unknown");
        assert!(c.name("file").is_none());
        let c = TEST_LINE
            .captures("Inventory::#level#test_0001_reports what is left [/w/t.rb:27]:")
            .unwrap();
        assert_eq!(&c["id"], "Inventory::#level#test_0001_reports what is left");
        for numbered in ["  1) Failure:", " 10) Error:", "100) Skipped:"] {
            assert!(NUMBERED.is_match(numbered), "{numbered}");
        }
        assert!(COUNTS.is_match("12 runs, 9 assertions, 6 failures, 2 errors, 1 skips"));
        let c = FRAME
            .captures("    /w/lib/inventory.rb:8:in `fetch'")
            .unwrap();
        assert_eq!((&c["file"], &c["line"]), ("/w/lib/inventory.rb", "8"));
        assert!(FRAME.is_match("    /w/lib/inventory.rb:8:in 'Inventory#fetch'"));
    }

    #[test]
    fn summaries() {
        let msg = |lines: &[&str]| -> Vec<(usize, String)> {
            lines
                .iter()
                .enumerate()
                .map(|(i, l)| (i + 1, l.to_string()))
                .collect()
        };
        assert_eq!(
            summary(&msg(&["Expected: 15", "  Actual: 14"])).as_deref(),
            Some("Expected: 15, Actual: 14")
        );
        assert_eq!(
            summary(&msg(&[
                "--- expected",
                "+++ actual",
                "@@ -1 +1 @@",
                "-{:currency=>\"USD\"}",
                "+{:currency=>\"EUR\"}"
            ]))
            .as_deref(),
            Some("expected {:currency=>\"USD\"}, actual {:currency=>\"EUR\"}")
        );
        assert_eq!(
            summary(&msg(&["ArgumentError expected but nothing was raised."])).as_deref(),
            Some("ArgumentError expected but nothing was raised.")
        );
    }
}
