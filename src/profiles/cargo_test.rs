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
//! **Typed facts.** `FailingTest` per failing test, identity `<target>
//! <test path>`: the target is the test binary's name from cargo's
//! `Running … (target/debug/deps/<name>-<hash>)` line, `Doc-tests <crate>`
//! for doc tests; with `-q` cargo prints no `Running` line, so the target
//! comes from its rerun hint (`lib` for `--lib`, `<name>` for `--test
//! <name>`, `Doc-tests` for `--doc`). Nextest: `<binary-id> <test>` as
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
use crate::evidence::{CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Location, Severity};

use super::Profile;
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
static PANICKED: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:panicked at|did not panic as expected at) ([^\s:]+):(\d+):(\d+):?$"));
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

/// One `running N tests` section: its target, known now or from the hint.
struct Run {
    target: Option<String>,
    closed: bool,
}

struct Scan {
    graph: EvidenceGraph,
    failures: Vec<Failure>,
    runs: Vec<Run>,
    pending_target: Option<String>,
    counts: Vec<(String, u64)>,
    announced: u64,
    compile_errors: Vec<(usize, Option<String>, String, Option<Location>)>,
    nextest: bool,
    summary_seen: bool,
}

impl Profile for CargoTest {
    fn version(&self) -> &'static str {
        "cargo_test/v1"
    }

    fn commands(&self) -> &'static [&'static str] {
        &["cargo test", "cargo nextest run"]
    }

    fn by_command(&self, argv: &[String]) -> Option<String> {
        let words = testrun::command_words(argv);
        if words.first() != Some(&"cargo") {
            return None;
        }
        // `cargo +nightly test`, `cargo --locked nextest run`.
        let mut subs = words[1..]
            .iter()
            .filter(|w| !w.starts_with('+') && !w.starts_with('-'));
        match (subs.next(), subs.next()) {
            (Some(&("test" | "t")), _) => Some("command cargo test".into()),
            (Some(&"nextest"), Some(&("run" | "r"))) => Some("command cargo nextest run".into()),
            _ => None,
        }
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

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let mut s = Scan {
            graph: EvidenceGraph::empty(),
            failures: Vec::new(),
            runs: Vec::new(),
            pending_target: None,
            counts: Vec::new(),
            announced: 0,
            compile_errors: Vec::new(),
            nextest: false,
            summary_seen: false,
        };
        s.graph.tool = "cargo test".into();
        let mut in_block: Option<(usize, usize)> = None; // (failure index, first line)
        let mut unmatched = 0usize;
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
                s.pending_target = Some(c[2].to_string());
            } else if let Some(c) = DOCTESTS.captures(text) {
                s.pending_target = Some(format!("Doc-tests {}", &c[1]));
            } else if RUN_START.is_match(text) {
                close_block(&mut s, &mut in_block, n);
                let target = s.pending_target.take();
                s.runs.push(Run {
                    target,
                    closed: false,
                });
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
            } else if let Some(c) = RERUN.captures(text) {
                s.graph.conclusion.push(Span::line(n));
                let hint = &c[1];
                let target = match hint.split_once(' ') {
                    Some((_, name)) => name.to_string(),
                    None if hint == "--doc" => "Doc-tests".to_string(),
                    None => hint.trim_start_matches('-').to_string(),
                };
                if let Some(run) = s.runs.last_mut().filter(|r| r.target.is_none()) {
                    run.target = Some(target);
                }
            } else if let Some(c) = NOT_COMPILED.captures(text) {
                close_block(&mut s, &mut in_block, n);
                s.graph.conclusion.push(Span::line(n));
                let id = match c.get(2) {
                    Some(what) => format!("{} ({})", &c[1], what.as_str()),
                    None => c[1].to_string(),
                };
                s.announced += 1;
                build_failure(&mut s, id, n);
            } else if let Some(c) = COMPILE_ERROR.captures(text) {
                if !text.starts_with("error: aborting")
                    && !text.ends_with(" targets failed:")
                    && text != "error: test run failed"
                {
                    s.compile_errors.push((
                        n,
                        c.get(1).map(|m| m.as_str().to_string()),
                        c[2].to_string(),
                        None,
                    ));
                }
            } else if let Some(c) = ARROW.captures(text) {
                if let Some(last) = s.compile_errors.last_mut().filter(|e| e.3.is_none()) {
                    last.3 = Some(location(&c[1], &c[2], Some(&c[3])));
                }
            } else if in_block.is_none() && !text.is_empty() && !is_chrome(trimmed) {
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

fn build_failure(s: &mut Scan, id: String, n: usize) {
    let errors = std::mem::take(&mut s.compile_errors);
    let mut item = EvidenceItem::new(ItemKind::BuildFailure, Severity::Error, id);
    item.headline = Some(Span::line(n));
    let first = errors.first();
    item.class = first.and_then(|e| e.1.clone()).or(Some("build".into()));
    item.summary = first.map(|e| e.2.clone());
    item.location = first.and_then(|e| e.3.clone());
    item.block = Some(Span::new(first.map_or(n, |e| e.0), n));
    let mut lines: Vec<usize> = Vec::new();
    for e in &errors {
        lines.push(e.0);
        if e.3.is_some() {
            lines.push(e.0 + 1);
        }
    }
    lines.push(n);
    item.detail = testrun::spans(&lines, 10);
    item.fields
        .insert("errors".into(), errors.len().to_string());
    s.graph.items.push(item);
}

fn location(file: &str, line: &str, col: Option<&str>) -> Location {
    Location {
        file: file.trim_start_matches("./").to_string(),
        line: line.parse().ok(),
        column: col.and_then(|c| c.parse().ok()),
    }
}
