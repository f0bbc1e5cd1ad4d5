//! rspec/v1 — RSpec 3 (`rspec`, `bundle exec rspec`, `rake spec`), in its
//! progress and documentation formats: the `Failures:` section, the
//! `Failed examples:` rerun list, the `N examples, N failures` line.
//!
//! **Decision.** Which examples failed, why, and how to rerun each? A
//! reader runs `rspec ./spec/cart_spec.rb:24` from the rerun list RSpec
//! prints, or opens the line of the failing expectation.
//!
//! **Unsafe loss.** An example named by its last words alone (`refuses`
//! under three contexts); a pending example's expected failure (listed
//! under `Pending:` with its own `Failure/Error:`) read as a failure, or a
//! failure read as pending; a spec file that did not load (`An error
//! occurred while loading …`, `0 examples, 0 failures, 1 error occurred
//! outside of examples`) read as a green run of nothing; an exception
//! (`NoMethodError`) told apart from an expectation not met no more.
//!
//! **Typed facts.** One item per numbered entry of `Failures:`:
//! `FailingTest` (an expectation not met: `expected: 225 / got: 240`,
//! `expected ArgumentError but nothing was raised`) or `TestError` (the
//! example raised: the exception class on a line of its own under
//! `Failure/Error:`). Identity = the example's full description as RSpec
//! prints it (`Cart#total with a percentage discount takes the percentage
//! off`); location = its rerun location from `Failed examples:` (the
//! example's own line), else the first backtrace frame; class = the
//! exception class; summary = the exception and its message, or the
//! expectation's first lines; field `rerun` = the rerun command RSpec
//! printed. A file that did not load, or a suite hook that raised, is
//! `SuiteNotRun` / `TestError` named by the file / the hook. Counts from
//! the summary line.
//!
//! **Ladder.** PASS_SUMMARY (counts) → FAIL_CENSUS (every identity with its
//! location and reason, detail while the budget lasts) → DENSE (census only;
//! each block by `--item ID`) → FLOOD (grouped with exact counts; `--items`).

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::{Artifact, Span};
use crate::evidence::{
    CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Location, Severity,
};

use super::testrun::{self, Facts};
use super::{Profile, ProfileSpec, ReceiptGroup};

pub struct Rspec;

/// `  3) Cart#tax rounds to the nearest cent`: a numbered entry of the
/// `Pending:` or `Failures:` section.
static ENTRY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^  (\d+)\) (\S.*)$").expect("static pattern"));
/// `16 examples, 9 failures, 3 pending` and the load error's form.
static SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(\d+) examples?, (\d+) failures?(?:, (\d+) pending)?",
        r"(?:, (\d+) errors? occurred outside of examples)?$"
    ))
    .expect("static pattern")
});
/// `rspec ./spec/cart_spec.rb:24 # Cart#total …`, or the bracketed id of
/// an example a line cannot tell (`'./spec/cart_spec.rb[1:1:2]'`).
static RERUN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^rspec ('?)(\S+?)'? # (.+)$").expect("static pattern"));
/// A backtrace frame: `# ./lib/inventory.rb:8:in `fetch'`.
static FRAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*# (\S+?):(\d+)(?::in .*)?$").expect("static pattern"));
/// The exception class alone on its line under `Failure/Error:`.
static EXCEPTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\s*)([A-Z]\w*(?:::[A-Z]\w*)*):$").expect("static pattern")
});
/// Errors outside examples: a spec file that did not load, a suite hook.
static OUTSIDE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^An error occurred (?:while loading (\S+?)\.(?: - Did you mean\?)?|in an? `(.+)` hook\.)$")
        .expect("static pattern")
});
/// Lines of the run that carry no facts outside the sections: progress
/// characters, the closing banners.
static CHROME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:[.F*E]+|Finished in .*|Randomized with seed \d+|Run options: .*",
        r"|No examples found\.|All examples were filtered out.*|\s*)$"
    ))
    .expect("static pattern")
});

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["rspec", "rake spec"],
    decisive_words: &[" examples, ", " example, "],
    ..ProfileSpec::new("rspec/v1", "rspec", ReceiptGroup::TestRunner)
};

impl Profile for Rspec {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn by_content(&self, head: &str) -> Option<String> {
        if !super::mentions_any(head, &["Failure/Error: ", "An error occurred ", " example"]) {
            return None;
        }
        let mut entry = false;
        for line in head.lines() {
            if SUMMARY.is_match(line) || OUTSIDE.is_match(line) {
                return Some("rspec summary line or `An error occurred` block".into());
            }
            if ENTRY.is_match(line) {
                entry = true;
            } else if entry && line.trim_start().starts_with("Failure/Error: ") {
                return Some("rspec numbered entry with its `Failure/Error:` line".into());
            }
        }
        None
    }

    fn decisive_line(&self, line: &str) -> Option<String> {
        SUMMARY
            .is_match(line)
            .then(|| "rspec `N examples, N failures` line".into())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let cwd = artifact.cwd.as_deref();
        let mut graph = EvidenceGraph::empty();
        graph.reader = crate::evidence::Reader::family("rspec");
        let mut entries: Vec<Entry> = Vec::new();
        let mut reruns: Vec<(String, String, usize)> = Vec::new();
        let mut section = Section::Run;
        let mut summary: Option<[u64; 4]> = None;
        let mut unmatched = 0usize;
        let total = artifact.line_count();
        for n in 1..=total {
            let text = crate::profiles::visible(artifact, n);
            let text = text.trim_end();
            if let Some(c) = SUMMARY.captures(text) {
                let num = |i: usize| c.get(i).and_then(|m| m.as_str().parse().ok()).unwrap_or(0);
                summary = Some([num(1), num(2), num(3), num(4)]);
                graph.conclusion.push(Span::line(n));
                section = Section::Run;
                continue;
            }
            match text {
                "Failures:" => {
                    section = Section::Failures(0);
                    continue;
                }
                "Failed examples:" => {
                    section = Section::Reruns;
                    continue;
                }
                _ if text == "Pending:" || text.starts_with("Pending: (") => {
                    section = Section::Pending;
                    continue;
                }
                _ if text.starts_with("Finished in ") => section = Section::Run,
                _ => {}
            }
            if let Some(c) = OUTSIDE.captures(text) {
                let (kind, id) = match (c.get(1), c.get(2)) {
                    (Some(file), _) => (ItemKind::SuiteNotRun, file.as_str().to_string()),
                    (_, Some(hook)) => (ItemKind::TestError, format!("{} hook", hook.as_str())),
                    _ => continue,
                };
                entries.push(Entry::new(kind, id, n, 0));
                section = Section::Outside;
                continue;
            }
            match section {
                Section::Failures(last) => {
                    if let Some(c) = ENTRY.captures(text)
                        && c[1].parse::<usize>().ok() == Some(last + 1)
                    {
                        let id = c[2].to_string();
                        entries.push(Entry::new(ItemKind::FailingTest, id, n, c[1].len() + 4));
                        section = Section::Failures(last + 1);
                        continue;
                    }
                    if let Some(e) = entries.last_mut().filter(|_| last > 0)
                        && (text.is_empty() || text.starts_with(&" ".repeat(e.indent)))
                    {
                        e.take(n, text, cwd);
                        continue;
                    }
                }
                Section::Outside => {
                    if let Some(e) = entries.last_mut() {
                        e.take(n, text, cwd);
                        continue;
                    }
                }
                Section::Reruns => {
                    if let Some(c) = RERUN.captures(text) {
                        reruns.push((c[2].to_string(), c[3].to_string(), n));
                        continue;
                    }
                }
                // A pending entry is no failure, whatever it quotes.
                Section::Pending => {
                    if text.is_empty() || text.starts_with("  ") {
                        continue;
                    }
                }
                // The progress or documentation formatter's lines, and
                // whatever the examples printed.
                Section::Run => continue,
            }
            if !CHROME.is_match(text) {
                unmatched += 1;
            }
        }
        for e in &mut entries {
            e.trim_end(artifact);
        }
        // RSpec prints the rerun list in the order of the failures.
        let mut reruns = reruns.into_iter();
        graph.items = entries
            .iter()
            .map(|e| {
                let rerun = (e.kind == ItemKind::FailingTest)
                    .then(|| reruns.next())
                    .flatten()
                    .filter(|(_, desc, _)| *desc == e.id);
                e.item(rerun.map(|(at, _, n)| (at, n)), cwd)
            })
            .collect();

        let summary_seen = summary.is_some();
        let [examples, failures, pending, outside] = summary.unwrap_or_default();
        if summary_seen {
            graph.counts.push(("examples".into(), examples));
            graph.counts.push(("failed".into(), failures));
            if pending > 0 {
                graph.counts.push(("pending".into(), pending));
            }
            if outside > 0 {
                graph.counts.push(("errors outside of examples".into(), outside));
            }
        }
        let announced = summary_seen.then_some(failures + outside);
        let facts = Facts {
            failures: graph.items.len(),
            summary_seen,
            interrupted: false,
            not_run: outside > 0 && examples == 0,
            announced: announced.unwrap_or(0),
            crashed: false,
        };
        graph.outcome = testrun::outcome(artifact.exit, facts);
        let blocks = graph.items.iter().filter(|i| i.block.is_some()).count();
        let receipt = testrun::receipt(
            artifact,
            graph.items.len(),
            announced,
            blocks,
            unmatched,
            summary_seen,
        );
        (graph, receipt)
    }
}

/// Where in RSpec's report a line stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Section {
    /// Before the sections, between them: the formatter's own lines.
    Run,
    /// `Pending:`: entries that are no failures.
    Pending,
    /// `Failures:`, with the number of the last entry read.
    Failures(usize),
    /// An `An error occurred …` block.
    Outside,
    /// `Failed examples:`.
    Reruns,
}

/// One numbered entry of `Failures:`, or one error outside examples.
struct Entry {
    kind: ItemKind,
    /// The kind the block's own lines say (an exception raised).
    block_kind: Option<ItemKind>,
    id: String,
    span: Span,
    /// The indentation of the entry's body (`  10) ` → 6).
    indent: usize,
    /// The `Failure/Error:` line.
    failure_line: Option<usize>,
    /// The exception class and its line, when the example raised.
    exception: Option<(usize, String)>,
    /// The message's lines (the exception's, or the expectation's).
    message: Vec<(usize, String)>,
    /// The first backtrace frame: file, line, artifact line.
    frame: Option<(String, u32, usize)>,
    /// The message is still being read (no frame, no blank after it yet).
    message_open: bool,
}

impl Entry {
    fn new(kind: ItemKind, id: String, n: usize, indent: usize) -> Self {
        Entry {
            kind,
            block_kind: None,
            id,
            span: Span::line(n),
            indent,
            failure_line: None,
            exception: None,
            message: Vec::new(),
            frame: None,
            message_open: false,
        }
    }

    fn take(&mut self, n: usize, text: &str, cwd: Option<&str>) {
        self.span.last = n;
        let body = text.trim_start();
        if let Some(c) = FRAME.captures(text) {
            if self.frame.is_none()
                && let Ok(line) = c[2].parse()
            {
                let file = testrun::relative(c[1].trim_start_matches("./"), cwd);
                self.frame = Some((file, line, n));
            }
            self.message_open = false;
            return;
        }
        if body.starts_with("Failure/Error: ") {
            self.failure_line = Some(n);
            self.message_open = true;
            return;
        }
        if body.is_empty() {
            // A blank line ends the message once some of it was read.
            if !self.message.is_empty() {
                self.message_open = false;
            }
            return;
        }
        if self.frame.is_some() || self.exception.is_some() && !self.message_open {
            return;
        }
        let at_indent = text.len() - body.len() == self.indent;
        if self.exception.is_none()
            && self.message.is_empty()
            && (at_indent || self.indent == 0)
            && let Some(c) = EXCEPTION.captures(text)
        {
            self.exception = Some((n, c[2].to_string()));
            self.block_kind = Some(ItemKind::TestError);
            self.message_open = true;
            return;
        }
        if self.message_open && self.message.len() < 3 && !body.starts_with("(compared using") {
            self.message.push((n, body.to_string()));
        }
        // A message with no `Failure/Error:` over it (`Expected pending …
        // to fail`) opens where it stands.
        if self.failure_line.is_none() && self.message.is_empty() && self.indent > 0 {
            self.message.push((n, body.to_string()));
        }
    }

    fn trim_end(&mut self, artifact: &Artifact) {
        while self.span.last > self.span.first
            && crate::profiles::visible(artifact, self.span.last)
                .trim()
                .is_empty()
        {
            self.span.last -= 1;
        }
    }

    /// The item, with its line of the rerun list (the location and the
    /// command), when RSpec printed one.
    fn item(&self, rerun: Option<(String, usize)>, cwd: Option<&str>) -> EvidenceItem {
        let kind = match (self.kind, self.block_kind) {
            (ItemKind::FailingTest, Some(k)) => k,
            (k, _) => k,
        };
        let mut it = EvidenceItem::new(kind, Severity::Error, self.id.clone());
        it.block = Some(self.span);
        let at = rerun.as_ref().and_then(|(r, _)| rerun_location(r, cwd));
        it.location = at.or_else(|| {
            self.frame.as_ref().map(|(file, line, _)| Location {
                file: file.clone(),
                line: Some(*line),
                column: None,
            })
        });
        if kind == ItemKind::SuiteNotRun && it.location.is_none() {
            it.location = Some(Location {
                file: self.id.trim_start_matches("./").to_string(),
                line: None,
                column: None,
            });
        }
        if let Some((r, _)) = &rerun {
            it.fields.insert("rerun".into(), format!("rspec {r}"));
        }
        let message: Vec<&str> = self.message.iter().map(|(_, m)| m.as_str()).take(2).collect();
        if let Some((_, class)) = &self.exception {
            it.class = Some(class.clone());
            it.summary = Some(match message.first() {
                Some(m) => format!("{class}: {m}"),
                None => class.clone(),
            });
        } else if !message.is_empty() {
            it.summary = Some(message.join(", "));
        }
        let mut lines = vec![self.span.first];
        lines.extend(self.failure_line);
        lines.extend(self.exception.as_ref().map(|(n, _)| *n));
        lines.extend(self.message.iter().map(|(n, _)| *n));
        lines.extend(self.frame.as_ref().map(|(_, _, n)| *n));
        lines.truncate(9);
        // The rerun command closes the detail: what the reader runs next.
        lines.extend(rerun.map(|(_, n)| n));
        it.detail = testrun::spans(&lines, 10);
        it
    }
}

/// `./spec/cart_spec.rb:24` → spec/cart_spec.rb line 24; a bracketed id
/// (`./spec/cart_spec.rb[1:1:2]`) names the file only.
fn rerun_location(rerun: &str, cwd: Option<&str>) -> Option<Location> {
    let path = rerun.trim_start_matches("./");
    let (file, line) = match path.split_once('[') {
        Some((file, _)) => (file, None),
        None => match path.rsplit_once(':') {
            Some((file, line)) => (file, Some(line.parse().ok()?)),
            None => (path, None),
        },
    };
    Some(Location {
        file: testrun::relative(file, cwd),
        line,
        column: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_lines() {
        let c = SUMMARY.captures("16 examples, 9 failures, 3 pending").unwrap();
        assert_eq!((&c[1], &c[2], &c[3]), ("16", "9", "3"));
        let c = SUMMARY
            .captures("0 examples, 0 failures, 1 error occurred outside of examples")
            .unwrap();
        assert_eq!(&c[4], "1");
        assert!(SUMMARY.is_match("1 example, 0 failures"));
        assert!(!SUMMARY.is_match("7 runs, 8 assertions, 1 failures, 1 errors, 1 skips"));
    }

    #[test]
    fn rerun_locations() {
        let at = rerun_location("./spec/cart_spec.rb:24", None).unwrap();
        assert_eq!((at.file.as_str(), at.line), ("spec/cart_spec.rb", Some(24)));
        let at = rerun_location("./spec/cart_spec.rb[1:1:2]", None).unwrap();
        assert_eq!((at.file.as_str(), at.line), ("spec/cart_spec.rb", None));
    }

    #[test]
    fn errors_outside_examples() {
        let c = OUTSIDE
            .captures("An error occurred while loading ./spec/boot_spec.rb. - Did you mean?")
            .unwrap();
        assert_eq!(&c[1], "./spec/boot_spec.rb");
        let c = OUTSIDE
            .captures("An error occurred in a `before(:suite)` hook.")
            .unwrap();
        assert_eq!(&c[2], "before(:suite)");
    }
}
