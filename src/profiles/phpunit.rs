//! phpunit/v1 — PHPUnit's default printer (progress, `--verbose`), run as
//! `phpunit`, `vendor/bin/phpunit` or by any script (`composer test`).
//!
//! **Decision.** Which tests failed, raised or warned, and where? A reader
//! reruns one with `--filter 'Class::method'` and opens the file and line
//! of the frame PHPUnit lists under it.
//!
//! **Unsafe loss.** An error (an exception or a PHP error in the test)
//! read as a failure or dropped; the cases of a data provider folded into
//! one test (`testCentsOf with data set #1` and `#2` are two facts); a
//! risky, skipped or incomplete test read as a failure; a run cut before
//! its `Tests: N, …` line read as green.
//!
//! **Typed facts.** One item per numbered entry of the `There were N
//! errors:`, `… failures:` and `… warnings:` sections (risky, skipped and
//! incomplete sections hold none): `FailingTest` for a failure,
//! `TestError` for an error or a warning. Identity = `Class::method`, with
//! a data set's name (`with data set #1`, `with data set "half"`) but not
//! its values, as PHPUnit's JUnit log names the case; location = the
//! first frame outside PHPUnit's own files and `vendor/`; class = an
//! error's exception (`DivisionByZeroError`), `warning` for a warning;
//! summary = the message's first line, with the first removed and added
//! lines of its `--- Expected` / `+++ Actual` diff; detail = the message
//! and that frame; block = the whole entry. Counts from `Tests: N,
//! Assertions: N, Errors: N, Failures: N, …` or `OK (N tests, …)`.
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

pub struct Phpunit;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("static pattern")
}

/// `PHPUnit 9.6.7 by Sebastian Bergmann and contributors.`
static BANNER: LazyLock<Regex> =
    LazyLock::new(|| re(r"^PHPUnit \d+\.\d+(?:\.\d+)?\S* by Sebastian Bergmann and contributors\.$"));
/// `There were 3 errors:`, `There was 1 risky test:`.
static SECTION: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^There (?:was|were) (\d+) (error|failure|warning|risky test|skipped test|incomplete test|deprecation|notice)s?:$")
});
/// `5) Shop\Tests\MoneyTest::testCentsOf with data set #1 (0.29, 29)`.
static ENTRY: LazyLock<Regex> = LazyLock::new(|| re(r"^(\d+)\) (\S.*)$"));
/// A data set's name ends the identity; its values after it do not.
static DATA_SET: LazyLock<Regex> =
    LazyLock::new(|| re(r#"^(.+? with data set (?:#\d+|"(?:[^"\\]|\\.)*"))(?: \(.*\))?$"#));
/// A frame: `/srv/app/tests/CartTest.php:23`.
static FRAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?P<file>(?:[A-Za-z]:)?[^\s:][^:]*\.php):(?P<line>\d+)$"));
/// `Tests: 15, Assertions: 9, Errors: 3, Failures: 7, Skipped: 1.`
static TALLY: LazyLock<Regex> =
    LazyLock::new(|| re(r"^Tests: (\d+), Assertions: \d+((?:, [A-Z][a-z]+: \d+)*)\.$"));
/// `OK (5 tests, 5 assertions)`.
static GREEN: LazyLock<Regex> = LazyLock::new(|| re(r"^OK \((\d+) tests?, \d+ assertions?\)$"));
/// An error's exception before its message: `DivisionByZeroError: …`,
/// `TypeError: …`, `Shop\CartException: …`.
static EXCEPTION: LazyLock<Regex> =
    LazyLock::new(|| re(r"^([A-Z][\w\\]*(?:Error|Exception)): "));

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["phpunit"],
    decisive_words: &["Tests: ", " assertions"],
    ..ProfileSpec::new("phpunit/v1", "phpunit", ReceiptGroup::TestRunner)
};

impl Profile for Phpunit {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn by_content(&self, head: &str) -> Option<String> {
        if !head.contains("by Sebastian Bergmann") {
            return None;
        }
        head.lines()
            .any(|l| BANNER.is_match(l.trim_end()))
            .then(|| "PHPUnit's `PHPUnit N by Sebastian Bergmann` banner".into())
    }

    fn decisive_line(&self, line: &str) -> Option<String> {
        let line = line.trim_end();
        (TALLY.is_match(line) || GREEN.is_match(line))
            .then(|| "PHPUnit `Tests: N, Assertions: N, …` line".into())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let cwd = artifact.cwd.as_deref();
        let mut graph = EvidenceGraph::empty();
        graph.reader = crate::evidence::Reader::family("phpunit");
        let mut entries: Vec<Entry> = Vec::new();
        let mut section: Option<Kind> = None;
        let mut tally: Option<Tally> = None;
        let mut unmatched = 0usize;
        for n in 1..=artifact.line_count() {
            let text = crate::profiles::visible(artifact, n);
            let text = text.trim_end();
            if let Some(c) = SECTION.captures(text) {
                close(&mut entries, artifact);
                section = Some(Kind::of(&c[2]));
                continue;
            }
            if text == "--" || text == "FAILURES!" || text == "ERRORS!" || text == "WARNINGS!" {
                close(&mut entries, artifact);
                section = None;
                continue;
            }
            if let Some(t) = Tally::read(text) {
                close(&mut entries, artifact);
                section = None;
                tally = Some(tally.map_or(t, |old| old.add(t)));
                graph.conclusion.push(Span::line(n));
                continue;
            }
            let Some(kind) = section else {
                continue;
            };
            if let Some(c) = ENTRY.captures(text) {
                close(&mut entries, artifact);
                entries.push(Entry::new(n, kind, &c[2]));
                continue;
            }
            match entries.last_mut().filter(|e| e.open) {
                Some(e) => e.take(n, text, cwd),
                None if !text.is_empty() => unmatched += 1,
                None => {}
            }
        }
        close(&mut entries, artifact);
        graph.items = entries
            .iter()
            .filter(|e| e.kind.is_failure())
            .map(Entry::item)
            .collect();

        if let Some(t) = tally {
            graph.counts.push(("failed".to_string(), t.failures));
            if t.errors > 0 {
                graph.counts.push(("errors".to_string(), t.errors));
            }
            if t.warnings > 0 {
                graph.counts.push(("warnings".to_string(), t.warnings));
            }
            graph.counts.push(("passed".to_string(), t.passed()));
            if t.skipped > 0 {
                graph.counts.push(("skipped".to_string(), t.skipped));
            }
        }
        let announced = tally.map(|t| t.failures + t.errors + t.warnings);
        let receipt = testrun::conclude(
            artifact,
            &mut graph,
            testrun::Report {
                announced,
                crashed: false,
                unmatched,
                whole: true,
            },
        );
        (graph, receipt)
    }
}

/// The section an entry is listed under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Error,
    Failure,
    Warning,
    /// Risky, skipped, incomplete, deprecations, notices: no failure.
    Other,
}

impl Kind {
    fn of(word: &str) -> Kind {
        match word {
            "error" => Kind::Error,
            "failure" => Kind::Failure,
            "warning" => Kind::Warning,
            _ => Kind::Other,
        }
    }

    fn is_failure(self) -> bool {
        self != Kind::Other
    }
}

/// The closing tally: `Tests: 15, Assertions: 9, Errors: 3, Failures: 7,
/// Skipped: 1, Incomplete: 1, Risky: 1.` or `OK (5 tests, 5 assertions)`.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    tests: u64,
    errors: u64,
    failures: u64,
    warnings: u64,
    skipped: u64,
    /// Incomplete and risky tests: neither passed nor failed.
    neither: u64,
}

impl Tally {
    fn read(text: &str) -> Option<Tally> {
        if let Some(c) = GREEN.captures(text) {
            return Some(Tally {
                tests: c[1].parse().unwrap_or(0),
                ..Tally::default()
            });
        }
        let c = TALLY.captures(text)?;
        let mut t = Tally {
            tests: c[1].parse().unwrap_or(0),
            ..Tally::default()
        };
        for part in c[2].split(", ").filter(|p| !p.is_empty()) {
            let Some((word, n)) = part.split_once(": ") else {
                continue;
            };
            let n: u64 = n.parse().unwrap_or(0);
            match word {
                "Errors" => t.errors = n,
                "Failures" => t.failures = n,
                "Warnings" => t.warnings = n,
                "Skipped" => t.skipped = n,
                "Incomplete" | "Risky" => t.neither += n,
                _ => {}
            }
        }
        Some(t)
    }

    fn add(self, o: Tally) -> Tally {
        Tally {
            tests: self.tests + o.tests,
            errors: self.errors + o.errors,
            failures: self.failures + o.failures,
            warnings: self.warnings + o.warnings,
            skipped: self.skipped + o.skipped,
            neither: self.neither + o.neither,
        }
    }

    fn passed(self) -> u64 {
        self.tests.saturating_sub(
            self.errors + self.failures + self.warnings + self.skipped + self.neither,
        )
    }
}

/// One numbered entry of a section, from its number to the next.
struct Entry {
    span: Span,
    kind: Kind,
    id: String,
    message: Vec<(usize, String)>,
    frame: Option<(Location, usize)>,
    in_frames: bool,
    open: bool,
}

impl Entry {
    fn new(n: usize, kind: Kind, title: &str) -> Self {
        let id = DATA_SET
            .captures(title)
            .map_or(title, |c| c.get(1).map_or(title, |m| m.as_str()));
        Entry {
            span: Span::line(n),
            kind,
            id: id.to_string(),
            message: Vec::new(),
            frame: None,
            in_frames: false,
            open: true,
        }
    }

    fn take(&mut self, n: usize, text: &str, cwd: Option<&str>) {
        self.span.last = n;
        if let Some(c) = FRAME.captures(text) {
            self.in_frames = true;
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
            return;
        }
        if !text.trim().is_empty() && !self.in_frames && self.message.len() < 8 {
            self.message.push((n, text.to_string()));
        }
    }

    fn item(&self) -> EvidenceItem {
        let kind = match self.kind {
            Kind::Failure => ItemKind::FailingTest,
            _ => ItemKind::TestError,
        };
        let mut it = EvidenceItem::new(kind, Severity::Error, self.id.clone());
        // The JUnit report's classname: the class before `::`.
        if let Some((class, _)) = self.id.split_once("::") {
            it.fields
                .insert(SUITE_FIELD.to_string(), class.to_string());
        }
        let first = self.message.first().map(|(_, t)| t.trim());
        it.class = match self.kind {
            Kind::Warning => Some("warning".to_string()),
            Kind::Error => first
                .and_then(|t| EXCEPTION.captures(t))
                .map(|c| c[1].to_string()),
            _ => None,
        };
        it.summary = summary(&self.message);
        it.location = self.frame.as_ref().map(|(l, _)| l.clone());
        let mut lines: Vec<usize> = self.message.iter().map(|(n, _)| *n).collect();
        if let Some((_, n)) = &self.frame {
            lines.push(*n);
        }
        it.detail = testrun::spans(&lines, 10);
        it.block = Some(self.span);
        it
    }
}

/// Ends the last entry: the blank lines at its end belong to no one.
fn close(entries: &mut [Entry], artifact: &Artifact) {
    let Some(e) = entries.last_mut().filter(|e| e.open) else {
        return;
    };
    e.open = false;
    testrun::trim_blank_end(artifact, &mut e.span);
}

/// The message's first line, then (for a `--- Expected` / `+++ Actual`
/// diff under it) the first removed and added lines.
fn summary(message: &[(usize, String)]) -> Option<String> {
    let lines: Vec<&str> = message.iter().map(|(_, t)| t.as_str()).collect();
    let first = lines.first()?.trim();
    let mut summary = first.to_string();
    if lines.contains(&"--- Expected") {
        match testrun::diff_pair(&lines) {
            (Some(r), Some(a)) => summary = format!("{first} expected {r}, actual {a}"),
            (None, Some(a)) => summary = format!("{first} actual has {a}"),
            _ => {}
        }
    }
    Some(testrun::clip_summary(summary, testrun::SUMMARY_CHARS))
}

/// Frames a reader cannot fix: PHPUnit's own files, installed packages.
fn is_library(file: &str) -> bool {
    file.contains("/vendor/")
        || file.starts_with("vendor/")
        || file.starts_with("/usr/share/php/")
        || file.contains("/phpunit/phpunit/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_and_tallies() {
        let id = |t: &str| Entry::new(1, Kind::Failure, t).id;
        assert_eq!(
            id(r"Shop\Tests\MoneyTest::testCentsOf with data set #1 (0.29, 29)"),
            r"Shop\Tests\MoneyTest::testCentsOf with data set #1"
        );
        assert_eq!(
            id(r#"Shop\Tests\MoneyTest::testCentsOf with data set "half" (0.005, 1)"#),
            r#"Shop\Tests\MoneyTest::testCentsOf with data set "half""#
        );
        assert_eq!(id(r"Shop\Tests\CartTest::testTotal"), r"Shop\Tests\CartTest::testTotal");
        let t = Tally::read(
            "Tests: 15, Assertions: 9, Errors: 3, Failures: 7, Skipped: 1, Incomplete: 1, Risky: 1.",
        )
        .unwrap();
        assert_eq!((t.errors, t.failures, t.skipped, t.passed()), (3, 7, 1, 2));
        assert_eq!(Tally::read("OK (5 tests, 5 assertions)").unwrap().passed(), 5);
        assert!(Tally::read("Tests: many").is_none());
        assert!(SECTION.is_match("There was 1 risky test:"));
        assert!(SECTION.is_match("There were 7 failures:"));
        assert!(FRAME.is_match("/srv/app/tests/CartTest.php:23"));
        assert!(is_library("/srv/app/vendor/phpunit/phpunit/src/Framework/Assert.php"));
    }

    #[test]
    fn summaries_say_what_was_compared() {
        let msg = |lines: &[&str]| -> Vec<(usize, String)> {
            lines
                .iter()
                .enumerate()
                .map(|(i, l)| (i + 1, l.to_string()))
                .collect()
        };
        assert_eq!(
            summary(&msg(&[
                "Failed asserting that two strings are identical.",
                "--- Expected",
                "+++ Actual",
                "@@ @@",
                "-'-$12.50'",
                "+'$12.50'"
            ]))
            .as_deref(),
            Some("Failed asserting that two strings are identical. expected '-$12.50', actual '$12.50'")
        );
        assert_eq!(
            summary(&msg(&["Failed asserting that 234 is identical to 235."])).as_deref(),
            Some("Failed asserting that 234 is identical to 235.")
        );
    }
}
