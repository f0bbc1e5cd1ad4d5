//! gtest/v1 — GoogleTest binaries (the default printer and
//! `--gtest_brief=1`), run directly or by a script, and CTest runs
//! (`ctest`, `ctest --output-on-failure`) of any tests, GoogleTest's among
//! them.
//!
//! **Decision.** Which tests failed, and where? A reader reruns one with
//! `--gtest_filter=Suite.Test` (or `ctest -R '^name$'`) and opens the file
//! and line of its first failed assertion.
//!
//! **Unsafe loss.** A test that crashed the binary (the run stops inside
//! `[ RUN ]`, with no summary) dropped or read as a short green run; the
//! cases of one value-parameterized test (`Sweep/NickelSweep.X/3`) folded
//! into one name; a CTest timeout or segfault, which has no assertion,
//! left out; the closing roster (`[  FAILED  ] 14 tests, listed below:`)
//! counted a second time; a disabled or skipped test read as a failure.
//!
//! **Typed facts.** One item per failed test. GoogleTest: a
//! `[  FAILED  ] Name (N ms)` verdict, identity = the full test name as
//! `--gtest_filter` takes it (`Suite.Test`, `Instance/Suite.Test/3`,
//! `TypedSuite/0.Test`), location and summary from its first `file:line:
//! Failure` and the message under it (a C++ exception is located in
//! `unknown file`: no location), detail = the assertion lines; a test
//! the binary died in is a `TestError` of class `crashed`. CTest: a
//! `N/M Test #k: name ....***Failed` line (or `***Timeout`,
//! `***Exception: SegFault`, `Subprocess aborted***Exception:`,
//! `***Not Run`), identity = CTest's test name, class = the verdict when
//! it is not a plain failure, location and summary from the GoogleTest
//! output `--output-on-failure` prints under it. A test that did not run
//! because its executable is missing is a `SuiteNotRun`. Counts from
//! GoogleTest's closing lines (`[  PASSED  ] 7 tests.`, `[  FAILED  ] 14
//! tests, listed below:`, `YOU HAVE 1 DISABLED TEST`) or CTest's (`67%
//! tests passed, 4 tests failed out of 12`), summed over every binary the
//! output holds.
//!
//! **Ladder.** PASS_SUMMARY (counts) → FAIL_CENSUS (every identity with its
//! location and reason, detail while the budget lasts) → DENSE (census
//! only; each block by `--item ID`) → FLOOD (the cases of one test on one
//! line, with exact counts; `--items`).

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::{Artifact, Exit, Span};
use crate::evidence::{
    CASE_FIELD, CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Location, SUITE_FIELD,
    Severity,
};

use crate::recognise::ctest_verdict;

use super::testrun;
use assertions::Assertions;
use super::{Profile, ProfileSpec, ReceiptGroup};

mod assertions;

pub struct Gtest;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("static pattern")
}

/// `[==========] Running 22 tests from 5 test suites.`
static RUNNING: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\[==========\] Running (\d+) tests? from \d+ test (?:suites?|cases?)\.$"));
/// `[==========] 22 tests from 5 test suites ran. (3000 ms total)`
static RAN: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^\[==========\] (\d+) tests? from \d+ test (?:suites?|cases?) ran\.(?: \(\d+ ms total\))?$")
});
/// A bracketed status: `[ RUN      ] Name`, `[  FAILED  ] Name, where
/// GetParam() = 3 (0 ms)`, `[  PASSED  ] 7 tests.`.
static STATUS: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^\[ *(RUN|OK|FAILED|SKIPPED|DISABLED|PASSED) *\] (.*)$")
});
/// A test's name at the start of a status line's text, and the timing that
/// marks a verdict (the closing roster has none).
static VERDICT: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^(?P<name>[A-Za-z_][\w/]*\.[\w/]+)(?:, where (?P<where>.*?))?(?P<time> \(\d+ ms\))?$")
});
/// The closing tallies: `7 tests.`, `14 tests, listed below:`.
static TALLY: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(\d+) tests?(?:\.|, listed below:)$"));
/// `  YOU HAVE 1 DISABLED TEST`
static DISABLED: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*YOU HAVE (\d+) DISABLED TESTS?$"));
/// A CTest result line: ` 2/33 Test  #2: MoneyTest.RoundsHalfUp ....***Failed    0.01 sec`.
static CTEST_RESULT: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^\s*\d+/\d+ Test\s+#\d+: (?P<name>\S+) \.*\s*(?P<verdict>.*?)\s+\d+\.\d+ sec$")
});
/// `      Start  2: MoneyTest.RoundsHalfUp`
static CTEST_START: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*Start\s+\d+: \S+$"));
/// `67% tests passed, 4 tests failed out of 12`
static CTEST_TALLY: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\d+% tests passed, (\d+) tests? failed out of (\d+)$"));
/// A roster line under `The following tests FAILED:`: `\t  9 - name (Failed)`.
static CTEST_ROSTER: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*\d+ - (?P<name>\S+) \((?P<why>[^()]+)\)$"));

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["ctest"],
    decisive_words: &["[==========] ", "tests failed out of"],
    ..ProfileSpec::new("gtest/v1", "gtest", ReceiptGroup::TestRunner)
};

impl Profile for Gtest {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn by_command(&self, argv: &[String]) -> Option<String> {
        if let Some(entry) = SPEC.by_command(argv) {
            return Some(entry);
        }
        // A test binary is the project's, named as it likes; its
        // GoogleTest flags say what it is.
        argv.iter()
            .skip(1)
            .any(|a| a.starts_with("--gtest_"))
            .then(|| "a test binary run with --gtest_ flags".into())
    }

    fn by_content(&self, head: &str) -> Option<String> {
        if !head.contains("[==========] Running ") && !head.contains("tests failed out of") {
            return None;
        }
        head.lines()
            .find_map(|l| self.decisive_line(l))
    }

    fn decisive_line(&self, line: &str) -> Option<String> {
        let line = line.trim_end();
        if RUNNING.is_match(line) || RAN.is_match(line) {
            return Some("GoogleTest `[==========]` line".into());
        }
        CTEST_TALLY
            .is_match(line)
            .then(|| "CTest `N% tests passed` line".into())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let mut reading = Reading::new(artifact.cwd.as_deref());
        for n in 1..=artifact.line_count() {
            let text = crate::profiles::visible(artifact, n);
            reading.line(n, text.trim_end());
        }
        reading.finish(artifact)
    }
}

/// One failed test as read so far.
struct Failed {
    identity: String,
    kind: ItemKind,
    class: Option<String>,
    summary: Option<String>,
    location: Option<Location>,
    /// The assertion lines: header and message.
    detail: Vec<usize>,
    block: Span,
}

impl Failed {
    fn new(identity: &str, kind: ItemKind, n: usize) -> Self {
        Failed {
            identity: identity.to_string(),
            kind,
            class: None,
            summary: None,
            location: None,
            detail: Vec::new(),
            block: Span::line(n),
        }
    }

    fn item(self) -> EvidenceItem {
        let mut it = EvidenceItem::new(self.kind, Severity::Error, self.identity);
        // The JUnit report's classname: GoogleTest's suite, before the dot.
        if let Some((suite, _)) = it.identity.split_once('.') {
            it.fields.insert(SUITE_FIELD.to_string(), suite.to_string());
        }
        if let Some(case) = case_suffix(&it.identity) {
            it.fields.insert(CASE_FIELD.to_string(), case.to_string());
        }
        it.class = self.class;
        it.summary = self.summary;
        it.location = self.location;
        it.detail = testrun::spans(&self.detail, 10);
        it.block = Some(self.block);
        it
    }
}

/// A value-parameterized case's index after its test's name, as
/// GoogleTest writes it: `/3` of `Sweep/NickelSweep.RoundsHalfUp/3` (CTest's
/// `gtest_discover_tests` may write the value instead: `/25`). A typed
/// test's `/0` is before the dot, part of its suite: no case.
fn case_suffix(identity: &str) -> Option<&str> {
    let dot = identity.find('.')?;
    let slash = dot + identity[dot..].find('/')?;
    let case = &identity[slash..];
    (case.len() > 1 && slash > dot + 1).then_some(case)
}

/// What a line belongs to.
enum Scope {
    /// GoogleTest's own lines, outside a test.
    Outside,
    /// Inside `[ RUN ] name` (or, for `--gtest_brief=1`, after the last
    /// verdict): its assertions.
    Test {
        name: Option<String>,
        first: usize,
        assertions: Assertions,
    },
    /// The output CTest prints under a failed test's result line.
    CtestOutput { at: usize, assertions: Assertions },
}

struct Reading<'a> {
    cwd: Option<&'a str>,
    failed: Vec<Failed>,
    scope: Scope,
    /// GoogleTest's closing lines of the current binary have begun (its
    /// `[  FAILED  ]` lines from here on are the roster).
    closing: bool,
    ran: u64,
    passed: u64,
    /// `[  FAILED  ] N tests, listed below:`, which `--gtest_brief=1`
    /// leaves out.
    announced_failed: Option<u64>,
    skipped: u64,
    skipped_tally: u64,
    disabled: u64,
    ctest_results: u64,
    ctest_passed: u64,
    ctest_tally: Option<u64>,
    /// CTest's `Could not find executable X` since the last `Start`.
    missing: Option<(usize, String)>,
    /// The last line number read: where a test the binary died in ends.
    last: usize,
    unmatched: usize,
    conclusion: Vec<Span>,
}

impl<'a> Reading<'a> {
    fn new(cwd: Option<&'a str>) -> Self {
        Reading {
            cwd,
            failed: Vec::new(),
            scope: Scope::Outside,
            closing: false,
            ran: 0,
            passed: 0,
            announced_failed: None,
            skipped: 0,
            skipped_tally: 0,
            disabled: 0,
            ctest_results: 0,
            ctest_passed: 0,
            ctest_tally: None,
            missing: None,
            last: 0,
            unmatched: 0,
            conclusion: Vec::new(),
        }
    }

    fn line(&mut self, n: usize, text: &str) {
        self.last = n;
        if self.ctest_line(n, text) {
            return;
        }
        if let Scope::CtestOutput { assertions, .. } = &mut self.scope {
            // GoogleTest's own lines under a CTest result belong to the
            // CTest test; only its assertions are read, each up to the
            // next status line.
            if STATUS.is_match(text) || RAN.is_match(text) || RUNNING.is_match(text) {
                assertions.in_failure = false;
            } else {
                assertions.take(n, text, self.cwd);
            }
            return;
        }
        if RUNNING.is_match(text) {
            self.end_test();
            self.closing = false;
            return;
        }
        if let Some(c) = RAN.captures(text) {
            self.end_test();
            self.closing = true;
            self.ran += c[1].parse::<u64>().unwrap_or(0);
            self.conclusion.push(Span::line(n));
            return;
        }
        if let Some(c) = DISABLED.captures(text) {
            self.disabled += c[1].parse::<u64>().unwrap_or(0);
            self.conclusion.push(Span::line(n));
            return;
        }
        if let Some(c) = STATUS.captures(text) {
            self.status(n, &c[1], &c[2]);
            return;
        }
        match &mut self.scope {
            Scope::Test { assertions, .. } => assertions.take(n, text, self.cwd),
            Scope::Outside if !self.closing => {
                // `--gtest_brief=1` prints a failure's assertions with no
                // `[ RUN ]` before them.
                let mut assertions = Assertions::default();
                assertions.take(n, text, self.cwd);
                if assertions.failures > 0 {
                    self.scope = Scope::Test {
                        name: None,
                        first: n,
                        assertions,
                    };
                }
            }
            Scope::Outside | Scope::CtestOutput { .. } => {}
        }
    }

    fn status(&mut self, n: usize, word: &str, rest: &str) {
        match word {
            "RUN" => {
                self.end_test();
                self.scope = Scope::Test {
                    name: Some(rest.to_string()),
                    first: n,
                    assertions: Assertions::default(),
                };
            }
            "OK" => self.scope = Scope::Outside,
            "SKIPPED" if !self.closing => {
                self.skipped += 1;
                self.scope = Scope::Outside;
            }
            "PASSED" | "FAILED" | "SKIPPED"
                if self.closing && let Some(c) = TALLY.captures(rest) =>
            {
                let count = c[1].parse::<u64>().unwrap_or(0);
                match word {
                    "PASSED" => self.passed += count,
                    "FAILED" => self.announced_failed = Some(self.announced_failed.unwrap_or(0) + count),
                    _ => self.skipped_tally += count,
                }
                self.conclusion.push(Span::line(n));
            }
            "FAILED" => match VERDICT.captures(rest) {
                Some(c) if !self.closing && c.name("time").is_some() => {
                    let name = c["name"].to_string();
                    self.verdict(n, &name);
                }
                Some(c) if self.closing => {
                    // The roster names every failure again; one with no
                    // verdict before it (a filtered printer) is read here.
                    let name = &c["name"];
                    if !self.failed.iter().any(|f| f.identity == name) {
                        self.failed
                            .push(Failed::new(name, ItemKind::FailingTest, n));
                    }
                }
                _ => self.unmatched += 1,
            },
            _ => {}
        }
    }

    /// A `[  FAILED  ] name (N ms)` verdict: the test in scope failed.
    fn verdict(&mut self, n: usize, name: &str) {
        let scope = std::mem::replace(&mut self.scope, Scope::Outside);
        let mut failed = Failed::new(name, ItemKind::FailingTest, n);
        if let Scope::Test {
            first, assertions, ..
        } = scope
        {
            failed.block = Span::new(first, n);
            assertions.apply(&mut failed);
        }
        // The verdict line, with its time, only stands for assertions the
        // printer did not show.
        if failed.detail.is_empty() {
            failed.detail.push(n);
        }
        self.failed.push(failed);
    }

    /// A new test, run or summary begins: a test still open has no
    /// verdict, which the printer never omits (a binary that died in it
    /// prints nothing after it; that is for `finish` to say).
    fn end_test(&mut self) {
        if let Scope::Test { name: Some(_), .. } = &self.scope {
            self.unmatched += 1;
        }
        self.scope = Scope::Outside;
    }

    /// CTest's own lines; true when `text` was one.
    fn ctest_line(&mut self, n: usize, text: &str) -> bool {
        if let Some(c) = CTEST_RESULT.captures(text) {
            self.end_ctest_output();
            self.ctest_results += 1;
            let name = c["name"].to_string();
            let verdict = c["verdict"].trim();
            if verdict == "Passed" {
                self.ctest_passed += 1;
                return true;
            }
            let Some(verdict) = ctest_verdict(verdict) else {
                // Skipped, disabled: not a failure.
                return true;
            };
            let mut failed = Failed::new(&name, verdict.kind, n);
            failed.class = verdict.class;
            failed.summary = Some(verdict.said);
            // A test that could not run: CTest said why just before its
            // result (`Could not find executable io_test`).
            if verdict.kind == ItemKind::SuiteNotRun
                && let Some((at, why)) = self.missing.take()
            {
                failed.summary = Some(why);
                failed.block.first = at;
            }
            // The detail is what the test printed (with
            // `--output-on-failure`); the result line is the census line's.
            self.failed.push(failed);
            self.scope = Scope::CtestOutput {
                at: self.failed.len() - 1,
                assertions: Assertions::default(),
            };
            return true;
        }
        if CTEST_START.is_match(text) {
            self.end_ctest_output();
            self.missing = None;
            return true;
        }
        if text.starts_with("Could not find executable ") {
            self.missing = Some((n, text.to_string()));
            return true;
        }
        if let Some(c) = CTEST_TALLY.captures(text) {
            self.end_ctest_output();
            self.ctest_tally = c[1].parse().ok();
            self.conclusion.push(Span::line(n));
            return true;
        }
        if self.ctest_tally.is_some()
            && let Some(c) = CTEST_ROSTER.captures(text)
        {
            let name = &c["name"];
            let listed = ctest_verdict(&format!("***{}", &c["why"]));
            if let Some(verdict) = listed
                && !self.failed.iter().any(|f| f.identity == name)
            {
                let mut failed = Failed::new(name, verdict.kind, n);
                failed.class = verdict.class;
                failed.summary = Some(verdict.said);
                self.failed.push(failed);
            }
            return true;
        }
        false
    }

    fn end_ctest_output(&mut self) {
        if !matches!(self.scope, Scope::CtestOutput { .. }) {
            return;
        }
        if let Scope::CtestOutput { at, assertions } =
            std::mem::replace(&mut self.scope, Scope::Outside)
            && let Some(failed) = self.failed.get_mut(at)
        {
            failed.block.last = self.last.saturating_sub(1).max(failed.block.first);
            assertions.apply(failed);
        }
    }

    fn finish(mut self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        self.end_ctest_output();
        // A test still open at the end, in a binary that never printed its
        // summary, is the test the binary died in.
        let died = match std::mem::replace(&mut self.scope, Scope::Outside) {
            Scope::Test {
                name: Some(name),
                first,
                assertions,
            } if !self.closing => {
                let mut failed = Failed::new(&name, ItemKind::TestError, first);
                failed.class = Some("crashed".to_string());
                failed.summary = Some(match artifact.exit {
                    Exit::Signal(s) => format!("the test binary died in this test (signal {s})"),
                    _ => "the output ends inside this test".to_string(),
                });
                failed.block = Span::new(first, self.last.max(first));
                failed.detail.push(first);
                assertions.apply(&mut failed);
                self.failed.push(failed);
                true
            }
            _ => false,
        };

        let mut graph = EvidenceGraph::empty();
        graph.reader = crate::evidence::Reader::family("gtest");
        graph.conclusion = self.conclusion;
        let ctest = self.ctest_tally.is_some() || self.ctest_results > 0;
        let summary_seen = if ctest {
            self.ctest_tally.is_some()
        } else {
            self.closing && !died
        };
        let skipped = self.skipped.max(self.skipped_tally);
        // Without the failed tally (`--gtest_brief=1`), what ran and did
        // not pass or skip failed: GoogleTest's own arithmetic.
        let announced = if ctest {
            self.ctest_tally
        } else {
            summary_seen.then(|| {
                self.announced_failed
                    .unwrap_or_else(|| self.ran.saturating_sub(self.passed + skipped))
            })
        };
        if summary_seen {
            let failed = announced.unwrap_or(0);
            let passed = if ctest { self.ctest_passed } else { self.passed };
            graph.counts.push(("failed".to_string(), failed));
            graph.counts.push(("passed".to_string(), passed));
            if skipped > 0 {
                graph.counts.push(("skipped".to_string(), skipped));
            }
            if self.disabled > 0 {
                graph.counts.push(("disabled".to_string(), self.disabled));
            }
        }
        graph.items = self.failed.into_iter().map(Failed::item).collect();
        let receipt = testrun::conclude(
            artifact,
            &mut graph,
            testrun::Report {
                announced,
                crashed: died,
                unmatched: self.unmatched,
                whole: true,
            },
        );
        (graph, receipt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_and_roster_lines() {
        let c = VERDICT
            .captures("Sweep/NickelSweep.RoundsHalfUp/5, where GetParam() = 25 (0 ms)")
            .unwrap();
        assert_eq!(&c["name"], "Sweep/NickelSweep.RoundsHalfUp/5");
        assert!(c.name("time").is_some());
        let c = VERDICT.captures("AmountTest/0.RoundsThird, where TypeParam = int").unwrap();
        assert_eq!(&c["name"], "AmountTest/0.RoundsThird");
        assert!(c.name("time").is_none());
        assert!(TALLY.is_match("14 tests, listed below:"));
        assert!(TALLY.is_match("1 test."));
        assert!(!VERDICT.is_match("14 tests, listed below:"));
    }

    #[test]
    fn value_parameterized_names_end_in_their_case() {
        assert_eq!(case_suffix("Sweep/NickelSweep.RoundsHalfUp/3"), Some("/3"));
        assert_eq!(case_suffix("Sweep/NickelSweep.RoundsHalfUp/25"), Some("/25"));
        assert_eq!(case_suffix("AmountTest/0.RoundsThird"), None);
        assert_eq!(case_suffix("AmountTest.RoundsThird<int>"), None);
        assert_eq!(case_suffix("MoneyTest.RoundsHalfUp"), None);
        assert_eq!(case_suffix("divide_by_zero"), None);
    }
}
