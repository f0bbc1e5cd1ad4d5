//! cargo_test/v1 — `cargo test` (libtest's human output, default and `-q`,
//! across unit, integration and doc-test targets) and `cargo nextest run`.
//!
//! **Decision.** Which tests failed in which test target, what did each
//! panic with and where, and did every target even build? The reader
//! reruns `cargo test --test T path` or opens the panicking line.
//!
//! **Unsafe loss.** A test path without its target (`tests::it` exists in
//! many binaries), a target that failed to compile read as "0 failed", a
//! `--no-fail-fast` run whose later targets drop out of the census, a run
//! cut before its `test result:` line read as complete.
//!
//! **Typed facts.** `FailingTest` per failing test, identity `<suite>
//! <test path>`: the suite is the test binary's source as cargo's `Running
//! <source> (…)` line names it (`src/lib.rs`, `tests/arith.rs`), after the
//! package when the rerun hint names one (a workspace), `Doc-tests <crate>`
//! for doc tests; with `-q` cargo prints no `Running` line, so the suite
//! comes from the test's own backtrace frame or a `panicked at` file that
//! is the binary's own source, else it reads `[source unknown: <hint>]`.
//! Nextest: `<binary-id> <test>` as
//! nextest prints it. class = `assertion` / `panic` / `should_panic` /
//! `timeout` / `signal`, summary = the panic message, location = `panicked
//! at` (else the first backtrace frame in the project), headline = the
//! `test … FAILED` line (nextest's status lines carry durations: none),
//! detail = the panic lines, block = the `---- t stdout ----` section.
//! `BuildFailure` per `could not compile `pkg` (target)`, identity `pkg
//! (target)`, class = the first error code, detail = each error's header
//! and `-->` line. Counts: libtest's `test result:` lines summed over
//! targets; nextest's `Summary` line plus "N tests were not run".
//!
//! **Ladder.** PASS_SUMMARY (summed counts) → FAIL_CENSUS (every failing
//! identity and build failure, panic lines while the budget lasts) → DENSE
//! (census only; each block by `--item ID`) → FLOOD (grouped by target
//! and class with exact counts; the full list by `--items`).

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::{Artifact, Span};
use crate::evidence::{
    CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, LABEL_FIELD, Location, Severity,
};

use super::{Profile, ProfileSpec, ReceiptGroup};
use super::diagnostic::primary_label;
use super::testrun;

mod graph;
mod panic;

pub struct CargoTest;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("static pattern")
}

static RUNNING: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^\s*Running (?:unittests )?(\S+) \((?:.*/)?([^/]+?)(?:-[0-9a-f]{8,})?(?:\.exe)?\)$")
});
static DOCTESTS: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*Doc-tests (\S+)$"));
static RUN_START: LazyLock<Regex> = LazyLock::new(|| re(r"^running \d+ tests?$"));
static TEST_LINE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^test (.+?) \.\.\. (FAILED|ok|ignored.*)$"));
static QUIET_FAIL: LazyLock<Regex> = LazyLock::new(|| re(r"^(\S.*?) --- FAILED$"));
static BLOCK_HEAD: LazyLock<Regex> = LazyLock::new(|| re(r"^---- (.+?) stdout ----$"));
static RESULT: LazyLock<Regex> =
    LazyLock::new(|| re(r"^test result: (?:ok|FAILED)\. (.+?); finished in .*$"));
static RERUN: LazyLock<Regex> =
    LazyLock::new(|| re(r"^error: (?:test|doctest) failed, to rerun pass `(.+?)`$"));
static NOT_COMPILED: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^error: could not compile `([^`]+)`(?: \((.+?)\))?(?: due to (\d+) previous errors?)?")
});
static COMPILE_ERROR: LazyLock<Regex> = LazyLock::new(|| re(r"^error(?:\[(E\d+)\])?: (.+)$"));
static ARROW: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*--> ([^:]+):(\d+):(\d+)$"));
/// cargo's note that a test binary died of a signal (abort, segfault):
/// `process didn't exit successfully: `…` (signal: 6, SIGABRT: …)`.
static KILLED: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^\s*process didn't exit successfully: `.+` \((signal: \d+(?:, [^)]*)?)\)$")
});
static PANICKED: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:panicked at|did not panic as expected at) ([^\s:]+):(\d+):(\d+):?$"));
static DOC_TEST_NAME: LazyLock<Regex> = LazyLock::new(|| re(r"^(\S+) - .* \(line (\d+)\)$"));
static FRAME_AT: LazyLock<Regex> = LazyLock::new(|| re(r"^at (\./)?([^\s:]+):(\d+):(\d+)$"));
static NEXTEST_STATUS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(FAIL|PASS|SKIP|TIMEOUT|ABORT|LEAK|LEAK-FAIL|SIG[A-Z]+|TRY \d+ \w+|FLAKY \d+/\d+)\s+\[[^\]]*\]\s+(?:\(\s*\d+/\s*\d+\)\s+)?(\S+)\s+(.+)$",
    )
});
static NEXTEST_SUMMARY: LazyLock<Regex> =
    LazyLock::new(|| re(r"^Summary \[[^\]]*\]\s+(?:\d+/)?\d+ tests? run: (.+)$"));
static NEXTEST_NOT_RUN: LazyLock<Regex> =
    LazyLock::new(|| re(r"^warning: (\d+)/\d+ tests? (?:were|was) not run"));

/// A failing test found so far, before it becomes an item.
struct Failure {
    run: usize,
    name: String,
    headline: Option<usize>,
    block: Option<Span>,
    status: String,
}

/// One `running N tests` section: its test binary, as far as the output
/// names it.
#[derive(Default)]
struct Run {
    /// The binary's name from the `Running` line (`arith`), or `Doc-tests <crate>`.
    target: Option<String>,
    /// The binary's source from the `Running` line (`tests/arith.rs`, `src/lib.rs`).
    source: Option<String>,
    /// cargo's rerun hint after the section (`-p arith --test arith`, `--lib`, `--doc`).
    hint: Option<String>,
    closed: bool,
    /// Its `test result:` said FAILED: cargo prints a rerun hint for it.
    failed: bool,
}

/// A rustc error above a `could not compile` line, as far as read.
struct CompileError {
    /// The `error[E…]: message` line.
    line: usize,
    code: Option<String>,
    message: String,
    location: Option<Location>,
    /// The primary label's line and words (`^^^ expected `u32`, found `u64``).
    label: Option<(usize, String)>,
    /// The diagnostic's last line (snippet, labels, help and notes).
    last: usize,
}

struct Scan {
    graph: EvidenceGraph,
    failures: Vec<Failure>,
    runs: Vec<Run>,
    /// The last `Running` / `Doc-tests` line, waiting for its `running N tests`.
    pending: Option<Run>,
    counts: Vec<(String, u64)>,
    announced: u64,
    compile_errors: Vec<CompileError>,
    nextest: bool,
    summary_seen: bool,
    /// A test binary died of a signal: the run broke.
    crashed: bool,
}

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["cargo test", "cargo nextest run"],
    decisive_words: &["test result: ", " ... FAILED", "Nextest run ID "],
    ..ProfileSpec::new("cargo_test/v1", "cargo_test", ReceiptGroup::TestRunner)
};

impl Profile for CargoTest {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }


    fn by_command(&self, argv: &[String]) -> Option<String> {
        // The declared commands, and cargo's aliases `t` and `nextest r`.
        SPEC.by_command(argv).or_else(|| {
            let words = testrun::command_words(argv);
            if words.first() != Some(&"cargo") {
                return None;
            }
            let mut subs = words[1..]
                .iter()
                .filter(|w| !w.starts_with('+') && !w.starts_with('-'));
            match (subs.next(), subs.next()) {
                (Some(&"t"), _) => Some("command cargo test".into()),
                (Some(&"nextest"), Some(&"r")) => Some("command cargo nextest run".into()),
                _ => None,
            }
        })
    }

    fn by_content(&self, head: &str) -> Option<String> {
        // `running N tests` needs the word before RUN_START is compiled.
        let libtest = super::mentions_any(head, &["running "])
            && head.lines().any(|l| RUN_START.is_match(l))
            && head
                .lines()
                .any(|l| TEST_LINE.is_match(l) || RESULT.is_match(l) || QUIET_FAIL.is_match(l));
        let nextest = head
            .lines()
            .any(|l| l.trim_start().starts_with("Nextest run ID "));
        (libtest || nextest).then(|| "libtest `running N tests` / nextest banner".to_string())
    }

    fn decisive_line(&self, line: &str) -> Option<String> {
        // TEST_LINE's failing form, `test NAME ... FAILED`, as plain string tests.
        let failed_test = line.len() > "test  ... FAILED".len()
            && line.starts_with("test ")
            && line.ends_with(" ... FAILED");
        let verdict = failed_test
            || (line.starts_with("test result: ") && RESULT.is_match(line))
            || line.trim_start().starts_with("Nextest run ID ");
        verdict.then(|| "libtest `test result:` / `test … FAILED` / nextest banner".to_string())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let mut s = Scan {
            graph: EvidenceGraph::empty(),
            failures: Vec::new(),
            runs: Vec::new(),
            pending: None,
            counts: Vec::new(),
            announced: 0,
            compile_errors: Vec::new(),
            nextest: false,
            summary_seen: false,
            crashed: false,
        };
        s.graph.reader = crate::evidence::Reader::family("cargo test");
        let mut in_block: Option<(usize, usize)> = None; // (failure index, first line)
        let mut unmatched = 0usize;
        // Inside rustc's rendering of a compile error (snippet, labels,
        // notes): recognised lines, facts already taken from its head.
        let mut in_diagnostic = false;
        for n in 1..=artifact.line_count() {
            let raw = crate::profiles::visible(artifact, n);
            let text = raw.trim_end();
            let trimmed = text.trim_start();
            if let Some(c) = NEXTEST_STATUS.captures(trimmed) {
                s.nextest = true;
                close_block(&mut s, &mut in_block, n);
                let status = c[1].to_string();
                let failed = matches!(&c[1], "FAIL" | "TIMEOUT" | "ABORT" | "LEAK-FAIL")
                    || c[1].starts_with("SIG");
                let name = format!("{} {}", &c[2], &c[3]);
                if failed && !s.summary_seen {
                    s.failures.push(Failure {
                        run: 0,
                        name,
                        headline: None,
                        block: None,
                        status,
                    });
                    in_block = Some((s.failures.len() - 1, n));
                }
                continue;
            }
            if let Some(c) = NEXTEST_SUMMARY.captures(trimmed) {
                close_block(&mut s, &mut in_block, n);
                s.nextest = true;
                s.summary_seen = true;
                s.graph.conclusion.push(Span::line(n));
                for part in c[1].split(", ") {
                    if let Some((k, word)) = part.split_once(' ') {
                        let k: u64 = k.parse().unwrap_or(0);
                        if word == "failed" || word == "timed out" {
                            s.announced += k;
                        }
                        add_count(&mut s.counts, word, k);
                    }
                }
                continue;
            }
            if let Some(c) = NEXTEST_NOT_RUN.captures(trimmed) {
                s.graph.conclusion.push(Span::line(n));
                add_count(&mut s.counts, "not run", c[1].parse().unwrap_or(0));
                continue;
            }
            if trimmed.starts_with("────") {
                close_block(&mut s, &mut in_block, n);
                continue;
            }
            if s.nextest && in_block.is_some() {
                continue;
            }
            if let Some(c) = RUNNING.captures(text) {
                s.pending = Some(Run {
                    target: Some(c[2].to_string()),
                    source: Some(c[1].to_string()),
                    ..Run::default()
                });
            } else if let Some(c) = DOCTESTS.captures(text) {
                s.pending = Some(Run {
                    target: Some(format!("Doc-tests {}", &c[1])),
                    ..Run::default()
                });
            } else if RUN_START.is_match(text) {
                in_diagnostic = false;
                close_block(&mut s, &mut in_block, n);
                let run = s.pending.take().unwrap_or_default();
                s.runs.push(run);
            } else if let Some(c) = TEST_LINE.captures(text) {
                if &c[2] == "FAILED" {
                    let name = c[1].trim_end_matches(" - should panic").to_string();
                    fail(&mut s, name, Some(n));
                }
            } else if let Some(c) = QUIET_FAIL.captures(text) {
                fail(&mut s, c[1].to_string(), Some(n));
            } else if let Some(c) = BLOCK_HEAD.captures(text) {
                close_block(&mut s, &mut in_block, n);
                let i = fail(&mut s, c[1].to_string(), None);
                in_block = Some((i, n));
            } else if text == "failures:" || text == "successes:" {
                close_block(&mut s, &mut in_block, n);
            } else if let Some(c) = RESULT.captures(text) {
                close_block(&mut s, &mut in_block, n);
                if let Some(run) = s.runs.last_mut() {
                    run.closed = true;
                    run.failed = text.starts_with("test result: FAILED");
                }
                s.graph.conclusion.push(Span::line(n));
                for part in c[1].split("; ") {
                    if let Some((k, word)) = part.split_once(' ') {
                        let k: u64 = k.parse().unwrap_or(0);
                        if word == "failed" {
                            s.announced += k;
                        }
                        add_count(&mut s.counts, word, k);
                    }
                }
            } else if let Some(c) = KILLED.captures(text) {
                close_block(&mut s, &mut in_block, n);
                s.graph.conclusion.push(Span::line(n));
                killed(&mut s, n, &c[1]);
            } else if let Some(c) = RERUN.captures(text) {
                s.graph.conclusion.push(Span::line(n));
                // cargo prints the hint (stderr) after the section's result
                // (stdout): by then the next section may have started. It
                // belongs to the first failed section still without one.
                let owner = match s
                    .runs
                    .iter()
                    .position(|r| r.closed && r.failed && r.hint.is_none())
                {
                    Some(i) => Some(i),
                    None => s.runs.iter().rposition(|r| r.hint.is_none()),
                };
                if let Some(run) = owner.and_then(|i| s.runs.get_mut(i)) {
                    run.hint = Some(c[1].to_string());
                }
            } else if let Some(c) = NOT_COMPILED.captures(text) {
                in_diagnostic = false;
                close_block(&mut s, &mut in_block, n);
                s.graph.conclusion.push(Span::line(n));
                let id = match c.get(2) {
                    Some(what) => format!("{} ({})", &c[1], what.as_str()),
                    None => c[1].to_string(),
                };
                // The target, and each error cargo says stopped it.
                let errors = c.get(3).and_then(|m| m.as_str().parse().ok());
                s.announced += 1 + errors.unwrap_or(s.compile_errors.len() as u64);
                build_failure(&mut s, id, n);
            } else if let Some(c) = COMPILE_ERROR.captures(text) {
                if !text.starts_with("error: aborting")
                    && !text.ends_with(" targets failed:")
                    && text != "error: test run failed"
                {
                    in_diagnostic = true;
                    s.compile_errors.push(CompileError {
                        line: n,
                        code: c.get(1).map(|m| m.as_str().to_string()),
                        message: c[2].to_string(),
                        location: None,
                        label: None,
                        last: n,
                    });
                }
            } else if let Some(c) = ARROW.captures(text) {
                if let Some(last) = s.compile_errors.last_mut() {
                    last.last = n;
                    if last.location.is_none() {
                        last.location = Some(location(&c[1], &c[2], Some(&c[3])));
                    }
                }
            } else if in_diagnostic
                && is_rustc_snippet(trimmed)
                && let Some(last) = s.compile_errors.last_mut()
            {
                last.last = n;
                if last.label.is_none() {
                    last.label = primary_label(text).map(|l| (n, l.to_string()));
                }
            } else if in_block.is_none()
                && !in_diagnostic
                && !text.is_empty()
                && !is_chrome(trimmed)
                && !is_listed_failure(&s, text)
            {
                unmatched += 1;
            }
        }
        close_block(&mut s, &mut in_block, artifact.line_count() + 1);
        graph::finish(s, artifact, unmatched)
    }
}

/// Lines cargo and libtest print that carry no facts of their own.
fn is_chrome(t: &str) -> bool {
    t.starts_with("Compiling ")
        || t.starts_with("Finished ")
        || t.starts_with("Running ")
        || t.starts_with("Starting ")
        || t.starts_with("Nextest run ID")
        || t.starts_with("warning: build failed")
        || t.starts_with("error: ")
        || t.starts_with("test ")
        || t.starts_with('`')
        || t.chars()
            .all(|c| matches!(c, '.' | 'i' | 'F' | ' ' | '/' | '0'..='9'))
        || t.starts_with("    ")
        || is_rustc_snippet(t)
}

/// The body of a rustc diagnostic (source snippet, labels, help and notes):
/// the error's header and `-->` line carry its facts.
fn is_rustc_snippet(t: &str) -> bool {
    let gutter = t
        .split_once(" |")
        .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    gutter
        || t == "|"
        || t.starts_with("| ")
        || t.starts_with("...")
        || t.starts_with("= ")
        || t.starts_with("-->")
        || t.starts_with("::: ")
        || t.starts_with("help:")
        || t.starts_with("note:")
        || t.starts_with("warning: ")
        || t.starts_with("Some errors have detailed explanations")
        || t.starts_with("For more information about")
}

/// libtest's closing `failures:` list: an indented name of a failure
/// already seen in this section.
fn is_listed_failure(s: &Scan, text: &str) -> bool {
    let run = s.runs.len().saturating_sub(1);
    text.starts_with("    ")
        && s.failures
            .iter()
            .any(|f| f.run == run && f.name == text.trim_start())
}

fn add_count(counts: &mut Vec<(String, u64)>, word: &str, k: u64) {
    match counts.iter_mut().find(|(w, _)| w == word) {
        Some((_, n)) => *n += k,
        None => counts.push((word.to_string(), k)),
    }
}

/// Records a failing test of the current run once; returns its index.
fn fail(s: &mut Scan, name: String, headline: Option<usize>) -> usize {
    let run = s.runs.len().saturating_sub(1);
    if let Some(i) = s
        .failures
        .iter()
        .position(|f| f.run == run && f.name == name && !s.nextest)
    {
        if s.failures[i].headline.is_none() {
            s.failures[i].headline = headline;
        }
        return i;
    }
    let status = "FAILED".to_string();
    s.failures.push(Failure {
        run,
        name,
        headline,
        block: None,
        status,
    });
    s.failures.len() - 1
}

fn close_block(s: &mut Scan, open: &mut Option<(usize, usize)>, next: usize) {
    if let Some((i, first)) = open.take()
        && let Some(f) = s.failures.get_mut(i)
    {
        f.block = Some(Span::new(first, (next - 1).max(first)));
    }
}

/// A target that did not compile: each rustc error above its `could not
/// compile` line is a census item of its own (`file:line:col code`, as the
/// cargo build profile names them), so none can leave the digest unless
/// the census itself is grouped, then the target's `BuildFailure`.
fn build_failure(s: &mut Scan, id: String, n: usize) {
    let errors = std::mem::take(&mut s.compile_errors);
    for e in &errors {
        let mut identity = match &e.location {
            Some(l) => format!(
                "{}:{}:{}",
                l.file,
                l.line.unwrap_or(0),
                l.column.unwrap_or(0)
            ),
            None => e.message.clone(),
        };
        if let Some(code) = &e.code {
            identity.push(' ');
            identity.push_str(code);
        }
        let mut item = EvidenceItem::new(ItemKind::Diagnostic, Severity::Error, identity);
        item.class = Some(e.code.clone().unwrap_or_else(|| "error".into()));
        item.summary = Some(e.message.clone());
        item.location = e.location.clone();
        item.headline = Some(Span::line(e.line));
        // The decisive lines run from the header through the primary
        // label (the snippet that says what is wrong); without a label,
        // the header and its `-->` line.
        let last = match (&e.label, &e.location) {
            (Some((at, _)), _) => *at,
            (None, Some(_)) => e.line + 1,
            (None, None) => e.line,
        };
        item.detail = vec![Span::new(e.line, last)];
        item.block = Some(Span::new(e.line, e.last.max(last)));
        if let Some((_, label)) = &e.label {
            item.fields.insert(LABEL_FIELD.into(), label.clone());
        }
        item.fields.insert("target".into(), id.clone());
        s.graph.items.push(item);
    }
    let mut item = EvidenceItem::new(ItemKind::BuildFailure, Severity::Error, id);
    item.headline = Some(Span::line(n));
    let first = errors.first();
    item.class = first.and_then(|e| e.code.clone()).or(Some("build".into()));
    item.summary = first.map(|e| e.message.clone());
    item.location = first.and_then(|e| e.location.clone());
    item.block = Some(Span::new(first.map_or(n, |e| e.line), n));
    item.detail = vec![Span::line(n)];
    item.fields
        .insert("errors".into(), errors.len().to_string());
    s.graph.items.push(item);
}

/// A test binary killed by a signal before its `test result:` line: a
/// census item named by the target (the tests it was running have no
/// verdict), so the run reads ERROR and the line stays in the digest.
fn killed(s: &mut Scan, n: usize, signal: &str) {
    let target = s
        .runs
        .last()
        .filter(|r| !r.closed)
        .and_then(|r| r.target.clone())
        .unwrap_or_else(|| "test binary".into());
    let mut item = EvidenceItem::new(ItemKind::SuiteNotRun, Severity::Error, target.clone());
    item.class = Some("signal".into());
    item.summary = Some(signal.to_string());
    item.headline = Some(Span::line(n));
    item.block = Some(Span::line(n));
    item.detail = vec![Span::line(n)];
    item.location = Some(Location {
        file: target.clone(),
        line: None,
        column: None,
    });
    item.fields.insert("target".into(), target);
    s.crashed = true;
    s.announced += 1;
    s.graph.items.push(item);
}

fn location(file: &str, line: &str, col: Option<&str>) -> Location {
    Location {
        file: file.trim_start_matches("./").to_string(),
        line: line.parse().ok(),
        column: col.and_then(|c| c.parse().ok()),
    }
}
