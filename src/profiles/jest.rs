//! jest/v1 — jest's default and verbose reporters (written to stderr), and
//! its `--json` report when that is all there is.
//!
//! **Decision.** Which tests failed in which file under which describe
//! chain, what did each expect and receive, and which test files did not
//! run at all? The reader reruns `jest FILE -t NAME` or opens the line.
//!
//! **Unsafe loss.** A title without its file and describe chain (the same
//! title in many files), a "Test suite failed to run" file dropped because
//! it has no failing test, a run cut before `Tests:` read as complete.
//!
//! **Typed facts.** `FailingTest` per `● a › b › title` block, identity
//! `<file> > a > b > title` (the file from the `FAIL <file>` line above;
//! jest's ` › ` written as ` > `, the chain the JSON report gives);
//! `SuiteNotRun` per `● Test suite failed to run`, identity = the file.
//! class = `assertion` / `timeout` / `snapshot` / `module not found` / an
//! error class; summary = the block's first line; location = the first
//! stack frame outside node_modules; headline = the `●` line (no duration);
//! detail = Expected/Received, diff header, the `>` source line, the frame;
//! block = the `●` section. Counts from `Tests:` (and `Test Suites:`
//! failures); `Summary of all failing tests` repeats blocks and adds none.
//!
//! **Ladder.** PASS_SUMMARY (counts) → FAIL_CENSUS (every identity, detail
//! while the budget lasts) → DENSE (census only; blocks by `--item ID`) →
//! FLOOD (grouped by file and class with exact counts; `--items`).

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::{Artifact, Span};
use crate::evidence::{CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Severity};

use super::{Profile, ProfileSpec, ReceiptGroup};
use super::jestlike;
use super::testrun;

pub struct Jest;

static FILE_HEAD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(FAIL|PASS) (\S+)(?: \(.*\))?$").expect("static pattern"));
static TITLE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^  ● (.+)$").expect("static pattern"));
static TESTS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^Tests:\s+(.+)$").expect("static pattern"));
static SUITES: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^Test Suites:\s+(.+)$").expect("static pattern"));
/// Babel's parse error as jest prints it: `SyntaxError: /abs/f.js: msg (5:52)`.
static SYNTAX_AT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^SyntaxError: (\S+?): .* \((\d+):(\d+)\)$").expect("static pattern")
});
static DECISIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(Expected|Received|- Expected|\+ Received|- Snapshot|\+ Received|Snapshot name:|Cannot find module|>\s*\d+ \|)")
        .expect("static pattern")
});

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["jest", "npx jest"],
    decisive_words: &["FAIL "],
    ..ProfileSpec::new("jest/v1", "jest", ReceiptGroup::TestRunner)
};

impl Profile for Jest {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }


    fn by_content(&self, head: &str) -> Option<String> {
        // FILE_HEAD needs `FAIL ` or `PASS ` before it is compiled.
        let file = super::mentions_any(head, &["FAIL ", "PASS "])
            && head.lines().any(|l| {
                FILE_HEAD.captures(l).is_some_and(|c| {
                    c[2].contains(".test.") || c[2].contains(".spec.") || c[2].contains("__tests__")
                })
            });
        (file
            && head
                .lines()
                .any(|l| TITLE.is_match(l) || l.trim_start().starts_with(['✓', '✕'])))
        .then(|| "jest `FAIL <test file>` with `●` or ✓/✕ lines".to_string())
    }

    fn decisive_line(&self, line: &str) -> Option<String> {
        FILE_HEAD
            .captures(line)
            .is_some_and(|c| {
                &c[1] == "FAIL"
                    && (c[2].contains(".test.")
                        || c[2].contains(".spec.")
                        || c[2].contains("__tests__"))
            })
            .then(|| "jest `FAIL <test file>` line".to_string())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let cwd = artifact.cwd.as_deref();
        let mut graph = EvidenceGraph::empty();
        graph.reader = crate::evidence::Reader::family("jest");
        let mut file = String::new();
        let mut open: Option<(usize, Vec<usize>)> = None; // (item index, decisive lines)
        let mut repeats = false;
        let (mut tests_failed, mut suites_failed, mut summary_seen) = (0, 0, false);
        let mut json = None;
        let mut unmatched = 0;
        for n in 1..=artifact.line_count() {
            let raw = crate::profiles::visible(artifact, n);
            let text = raw.trim_end();
            let starts_other = FILE_HEAD.is_match(text)
                || TITLE.is_match(text)
                || text.starts_with("Summary of all failing tests")
                || text.starts_with("Snapshot Summary")
                || TESTS.is_match(text)
                || SUITES.is_match(text)
                || text.starts_with(" › ");
            if let Some((i, lines)) = open.as_mut().filter(|_| !starts_other) {
                let item = &mut graph.items[*i];
                if let Some(b) = item.block.as_mut().filter(|_| !text.is_empty()) {
                    b.last = n;
                }
                let t = text.trim();
                if item.summary.is_none() && !t.is_empty() {
                    item.summary = Some(t.to_string());
                    item.class = Some(jestlike::class_of(t));
                    lines.push(n);
                    // A file that does not parse: the error names where.
                    if let Some(c) = SYNTAX_AT.captures(t) {
                        item.location = Some(crate::evidence::Location {
                            file: testrun::relative(&c[1], cwd),
                            line: c[2].parse().ok(),
                            column: c[3].parse().ok(),
                        });
                    }
                } else if DECISIVE.is_match(text) {
                    lines.push(n);
                } else if let Some(loc) = jestlike::project_frame(text, cwd)
                    && item.location.as_ref().is_none_or(|l| l.line.is_none())
                {
                    item.location = Some(loc);
                    lines.push(n);
                }
                continue;
            }
            jestlike::close(&mut graph, &mut open);
            if let Some(c) = FILE_HEAD.captures(text) {
                file = c[2].to_string();
            } else if let Some(c) = TITLE.captures(text) {
                let (kind, id) = if &c[1] == "Test suite failed to run" {
                    (ItemKind::SuiteNotRun, file.clone())
                } else {
                    (
                        ItemKind::FailingTest,
                        format!("{file} > {}", c[1].replace(" › ", " > ")),
                    )
                };
                if repeats || graph.items.iter().any(|i| i.identity == id) {
                    continue;
                }
                let mut item = EvidenceItem::new(kind, Severity::Error, id);
                // The `●` line names the test but not its file. A file that
                // did not run has no headline: its `FAIL <file>` line is a
                // status word, and the census line must carry the reason
                // (the import or syntax error) with it.
                if kind != ItemKind::SuiteNotRun {
                    item.headline = Some(Span::line(n));
                    item.fields.insert("test".into(), c[1].to_string());
                }
                item.block = Some(Span::line(n));
                item.location = Some(crate::evidence::Location {
                    file: file.clone(),
                    line: None,
                    column: None,
                });
                graph.items.push(item);
                open = Some((graph.items.len() - 1, Vec::new()));
            } else if text.starts_with("Summary of all failing tests") {
                repeats = true;
            } else if let Some(c) = TESTS.captures(text) {
                summary_seen = true;
                graph.conclusion.push(Span::line(n));
                graph.counts = jestlike::counts(&c[1], ",");
                tests_failed = graph
                    .counts
                    .iter()
                    .find(|(w, _)| w == "failed")
                    .map_or(0, |c| c.1);
            } else if let Some(c) = SUITES.captures(text) {
                graph.conclusion.push(Span::line(n));
                let suites = jestlike::counts(&c[1], ",");
                suites_failed = suites
                    .iter()
                    .find(|(w, _)| w == "failed")
                    .map_or(0, |c| c.1);
            } else if text.starts_with('{')
                && let Some(facts) = jestlike::json_report(n, &jestlike::whole(artifact, n), cwd)
            {
                json = Some(facts);
            } else if !text.is_empty()
                && !text.starts_with(' ')
                && !text.starts_with("Snapshots:")
                && !text.starts_with("Time:")
                && !text.starts_with("Ran all")
            {
                unmatched += 1;
            }
        }
        jestlike::close(&mut graph, &mut open);
        let announced = jestlike::announced(tests_failed, suites_failed, &graph.items);
        jestlike::finish(artifact, graph, json, announced, summary_seen, unmatched)
    }
}
