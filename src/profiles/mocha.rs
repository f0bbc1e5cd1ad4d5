//! mocha/v1 — mocha's own reporters that close with its epilogue (`spec`,
//! the default; `dot`, `list`, `min`), run directly, through `npx` or an
//! `npm test` script.
//!
//! **Decision.** Which tests and which hooks failed, and how? A reader
//! reruns one with `mocha -g "<full title>"` (mocha's `--grep` matches the
//! full title: the describe path and the test's title joined by spaces)
//! or opens the file and line of the failing frame.
//!
//! **Unsafe loss.** A failed `before each`/`before all` hook dropped or
//! read as one failing test (it skips every test under it); a test named
//! by its last title alone (`loads stock levels` under two suites); a run
//! cut before `N passing` read as green; a timeout, whose message names
//! the file but no frame, left without a place.
//!
//! **Typed facts.** One item per numbered block of the epilogue
//! (`  1) Cart` / `total` / `multiplies quantity on every line:`):
//! `FailingTest`, or `TestError` for a hook (`"before each" hook for
//! "stores the sku"`). Identity = mocha's full title (the title lines
//! joined by spaces, as `fullTitle()` and `--grep` have it); class = the
//! error's name (`AssertionError`, `TypeError`), summary = its message's
//! first line, completed by the next when that line only announces it
//! (`Expected values to be strictly equal:` / `11 !== 21`); location = the
//! first stack frame outside node's internals and `node_modules`, or the
//! file a timeout names; detail = the message, the diff mocha prints under
//! it (a few lines) and that frame; block = the whole numbered block.
//! Counts from `N passing (…)`, `N pending`, `N failing`.
//!
//! **Ladder.** PASS_SUMMARY (counts) → FAIL_CENSUS (every identity with its
//! location and reason, detail while the budget lasts) → DENSE (census
//! only; each block by `--item ID`) → FLOOD (grouped with exact counts;
//! `--items`).

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::{Artifact, Span};
use crate::evidence::{CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Location, Severity};

use super::testrun;
use super::{Profile, ProfileSpec, ReceiptGroup};

pub struct Mocha;

/// The epilogue's count lines: `  2 passing (222ms)`, `  2 pending`,
/// `  7 failing`.
static COUNT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^ {2}(\d+) (passing|pending|failing)(?: \((\d+(?:\.\d+)?(?:ms|s|m|h))\))?$")
        .expect("static pattern")
});
/// A numbered failure block's first title line, at two spaces: `  1) Cart`.
static NUMBERED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^ {2}(\d+)\) (.*)$").expect("static pattern"));
/// A stack frame: `at f (path:line:col)` or `at path:line:col`.
static FRAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s+at (?:.*? \()?((?:[A-Za-z]:)?[^():\s][^():]*):(\d+):(\d+)\)?$")
        .expect("static pattern")
});
/// A timeout names the test's file in parentheses at the end of its message.
static TIMEOUT_FILE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Error: Timeout of \d+ms exceeded\..* \(([^()]+)\)$").expect("static pattern")
});
/// An error's name before its message: `AssertionError [ERR_ASSERTION]:`,
/// `TypeError:`, `Error:`.
static ERROR_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([A-Z][\w.]*(?:Error|Exception)|Error)(?: \[[A-Z_]+\])?(?::|$)")
        .expect("static pattern")
});
/// A hook's title: `"before each" hook for "stores the sku"`,
/// `"after all" hook in "suite"`, `"before all" hook: setup`.
static HOOK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^"(?:before|after) (?:each|all)" hook\b"#).expect("static pattern")
});
/// The legend mocha prints over a diff.
static LEGEND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\+ (?:expected - actual|actual - expected)$").expect("static pattern")
});

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["mocha", "_mocha"],
    decisive_words: &[" passing ("],
    ..ProfileSpec::new("mocha/v1", "mocha", ReceiptGroup::TestRunner)
};

impl Profile for Mocha {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn by_content(&self, head: &str) -> Option<String> {
        if !head.contains(" passing (") {
            return None;
        }
        head.lines()
            .any(is_passing_line)
            .then(|| "mocha `N passing (…)` line".into())
    }

    fn decisive_line(&self, line: &str) -> Option<String> {
        is_passing_line(line).then(|| "mocha `N passing (…)` line".into())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let cwd = artifact.cwd.as_deref();
        let mut graph = EvidenceGraph::empty();
        graph.reader = crate::evidence::Reader::family("mocha");
        let mut counts: [Option<u64>; 3] = [None; 3];
        let mut blocks: Vec<Block> = Vec::new();
        let mut epilogue = false;
        let mut unmatched = 0usize;
        for n in 1..=artifact.line_count() {
            let text = crate::profiles::visible(artifact, n);
            let text = text.trim_end();
            if let Some(c) = COUNT.captures(text) {
                let slot = match &c[2] {
                    "passing" => 0,
                    "pending" => 1,
                    _ => 2,
                };
                counts[slot] = c[1].parse().ok();
                graph.conclusion.push(Span::line(n));
                // The blocks follow `N failing`; a run with none ends here.
                epilogue = true;
                if let Some(b) = blocks.last_mut() {
                    b.open = false;
                }
                continue;
            }
            if epilogue && let Some(c) = NUMBERED.captures(text) {
                if let Some(b) = blocks.last_mut() {
                    b.close(artifact);
                }
                blocks.push(Block::new(n, &c[2]));
                continue;
            }
            if let Some(b) = blocks.last_mut().filter(|b| b.open) {
                b.take(n, text, cwd);
                continue;
            }
            // Before the epilogue: the reporter's listing (indented suite
            // titles, `✔`, `N)` and `-` lines, dot runs). A line at column 0
            // is not the reporter's (a test's console output, npm's banner).
            if !text.is_empty() && !text.starts_with(' ') {
                unmatched += 1;
            }
        }
        if let Some(b) = blocks.last_mut() {
            b.close(artifact);
        }
        graph.items = blocks.iter().map(Block::item).collect();

        let [passing, pending, failing] = counts;
        let summary_seen = passing.is_some();
        if summary_seen {
            graph
                .counts
                .push(("failed".to_string(), failing.unwrap_or(0)));
            graph
                .counts
                .push(("passed".to_string(), passing.unwrap_or(0)));
            if let Some(p) = pending.filter(|&p| p > 0) {
                graph.counts.push(("pending".to_string(), p));
            }
        }
        let announced = summary_seen.then(|| failing.unwrap_or(0));
        // The counts come before the blocks: a run cut inside its last
        // block (before that error's stack) is not whole, whatever they say.
        let whole = blocks.last().is_none_or(|b| b.in_stack);
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

/// `  2 passing (222ms)`, the line every mocha epilogue opens with.
fn is_passing_line(line: &str) -> bool {
    let line = line.trim_end();
    line.starts_with("  ")
        && line.ends_with(')')
        && COUNT
            .captures(line)
            .is_some_and(|c| &c[2] == "passing" && c.get(3).is_some())
}

/// One numbered block of the epilogue, from its number to the next.
struct Block {
    span: Span,
    /// The title lines, trimmed, the last without its closing `:`.
    titles: Vec<String>,
    /// The title is complete (its last line ended with `:`).
    titled: bool,
    /// The error's first message line, and the lines after it.
    message: Vec<usize>,
    /// The message's first line, completed (see the module doc).
    summary: Option<String>,
    class: Option<String>,
    /// Diff lines under the message.
    diff: Vec<usize>,
    /// The first frame the reader can fix: (file, line, column, artifact line).
    frame: Option<(String, u32, u32, usize)>,
    /// The file a timeout's message names.
    timeout_file: Option<String>,
    /// The stack has started: later lines are frames, not message.
    in_stack: bool,
    open: bool,
}

impl Block {
    fn new(n: usize, first_title: &str) -> Self {
        let mut b = Block {
            span: Span::line(n),
            titles: Vec::new(),
            titled: false,
            message: Vec::new(),
            summary: None,
            class: None,
            diff: Vec::new(),
            frame: None,
            timeout_file: None,
            in_stack: false,
            open: true,
        };
        b.title(first_title);
        b
    }

    fn title(&mut self, text: &str) {
        let text = text.trim();
        match text.strip_suffix(':') {
            Some(last) => {
                self.titles.push(last.to_string());
                self.titled = true;
            }
            None => self.titles.push(text.to_string()),
        }
    }

    fn take(&mut self, n: usize, text: &str, cwd: Option<&str>) {
        self.span.last = n;
        if !self.titled {
            self.title(text);
            return;
        }
        let trimmed = text.trim();
        if let Some(c) = FRAME.captures(text) {
            self.in_stack = true;
            let file = &c[1];
            if self.frame.is_none() && !is_library(file) {
                let file = testrun::relative(file, cwd);
                if let (Ok(line), Ok(col)) = (c[2].parse(), c[3].parse()) {
                    self.frame = Some((file, line, col, n));
                }
            }
            return;
        }
        if trimmed.is_empty() || self.in_stack {
            return;
        }
        if self.message.is_empty() {
            self.message.push(n);
            self.class = ERROR_NAME.captures(trimmed).map(|c| c[1].to_string());
            self.summary = Some(trimmed.to_string());
            if let Some(c) = TIMEOUT_FILE.captures(trimmed) {
                self.timeout_file = Some(testrun::relative(&c[1], cwd));
                // The advice after `exceeded.` is mocha's, the same for
                // every timeout; the file it ends with is the location.
                if let Some(end) = trimmed.find("exceeded.") {
                    self.summary = Some(trimmed[..end + "exceeded.".len()].to_string());
                }
            }
            return;
        }
        // The line after a message that only announces what follows
        // (`Expected values to be strictly equal:`) says what was compared.
        if self.message.len() == 1
            && self.diff.is_empty()
            && !LEGEND.is_match(trimmed)
            && let Some(summary) = self.summary.as_mut().filter(|s| s.ends_with(':'))
        {
            if trimmed.len() <= 80 {
                summary.push(' ');
                summary.push_str(trimmed);
            }
            self.message.push(n);
            return;
        }
        if self.diff.len() < 6 {
            self.diff.push(n);
        }
    }

    /// Blank lines at the block's end belong to no one.
    fn close(&mut self, artifact: &Artifact) {
        self.open = false;
        testrun::trim_blank_end(artifact, &mut self.span);
    }

    fn item(&self) -> EvidenceItem {
        let id = self.titles.join(" ");
        let hook = self.titles.last().is_some_and(|t| HOOK.is_match(t));
        let kind = if hook {
            ItemKind::TestError
        } else {
            ItemKind::FailingTest
        };
        let mut it = EvidenceItem::new(kind, Severity::Error, id);
        let suite = &self.titles[..self.titles.len().saturating_sub(1)];
        it.fields
            .insert(crate::evidence::SUITE_FIELD.to_string(), suite.join(" "));
        it.block = Some(self.span);
        it.class = self.class.clone();
        it.summary = self.summary.clone();
        it.location = match (&self.frame, &self.timeout_file) {
            (Some((file, line, col, _)), _) => Some(Location {
                file: file.clone(),
                line: Some(*line),
                column: Some(*col),
            }),
            (None, Some(file)) => Some(Location {
                file: file.clone(),
                line: None,
                column: None,
            }),
            (None, None) => None,
        };
        let mut lines = self.message.clone();
        lines.extend(&self.diff);
        if let Some((_, _, _, n)) = &self.frame {
            lines.push(*n);
        }
        it.detail = testrun::spans(&lines, 10);
        it
    }
}

/// Frames a reader cannot fix: node's internals, installed packages.
fn is_library(file: &str) -> bool {
    file.starts_with("node:")
        || file.starts_with("internal/")
        || file.contains("node_modules/")
        || !file.contains('.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_lines() {
        assert!(is_passing_line("  2 passing (222ms)"));
        assert!(is_passing_line("  0 passing (3s)"));
        assert!(!is_passing_line("  2 pending"));
        assert!(!is_passing_line("2 passing (222ms)"));
        assert!(!is_passing_line("  tests passing (nightly)"));
    }

    #[test]
    fn frames_and_hooks() {
        let c = FRAME
            .captures("      at Context.<anonymous> (test/cart.spec.js:11:14)")
            .unwrap();
        assert_eq!((&c[1], &c[2], &c[3]), ("test/cart.spec.js", "11", "14"));
        let c = FRAME.captures("    at /srv/app/test/a.js:3:9").unwrap();
        assert_eq!(&c[1], "/srv/app/test/a.js");
        assert!(is_library("node:internal/timers"));
        assert!(is_library("/app/node_modules/chai/index.js"));
        assert!(HOOK.is_match(r#""before each" hook for "stores the sku""#));
        assert!(HOOK.is_match(r#""after all" hook in "db""#));
        assert!(!HOOK.is_match("before each order"));
        let name = |s: &str| ERROR_NAME.captures(s).map(|c| c[1].to_string());
        assert_eq!(
            name("AssertionError [ERR_ASSERTION]: Expected values").as_deref(),
            Some("AssertionError")
        );
        assert_eq!(name("Error: report template missing").as_deref(), Some("Error"));
        assert_eq!(name("expected 3 to equal 4"), None);
    }
}
