//! go_test/v1 — `go test`: plain, `-v`, `-json` (test2json), with
//! subtests, panics, Example mismatches, `-race` reports and packages that
//! fail to build.
//!
//! **Decision.** Which tests (and subtests) failed in which package, why,
//! and which packages did not build or run at all? The reader reruns
//! `go test ./pkg -run 'TestX/sub'` or opens the failing line.
//!
//! **Unsafe loss.** A subtest named without its parent or its package
//! (`TestX/case` exists in many packages), a `[build failed]` package left
//! out because it printed no `--- FAIL` line, or reduced to that status
//! word without the compiler lines that say why, a package that failed without
//! a failing test (panic in init, TestMain, timeout) dropped, a run cut
//! before its package lines read as complete.
//!
//! **Typed facts.** `FailingTest` per `--- FAIL:` line (parents of failing
//! subtests too, as go reports them), identity `<package> <TestName/sub>`;
//! in plain and `-v` output the package is the `FAIL <pkg>` line that
//! follows the package's output. class = `failed` (t.Error), `panic`,
//! `example` (got/want), `race`, `subtests failed` (a parent whose children
//! failed); summary = the first message; location = the message's
//! `file.go:N` (as go prints it, relative to the package directory) or a
//! panic's first frame in the project; headline: none (every go line that
//! names a test carries a duration); detail = messages, got/want, panic and
//! race lines; block = `=== RUN` … `--- FAIL` and what follows it.
//! Build failures come first: a `BuildFailure` per `# <pkg>` group of
//! compiler or vet lines (headline: that header), a `Diagnostic` per
//! `file.go:L:C: message` line under it (identity `file.go:L:C`, headline:
//! the line itself, field `package`, class `build failed` / `setup
//! failed`), and a `BuildFailure` per `FAIL <pkg> [build failed]` that no
//! group claims (its dependency did not build); `SuiteNotRun` per `FAIL
//! <pkg>` with no failing test.
//! Counts: `--- FAIL` / `--- PASS` / `--- SKIP` lines (json: events) and
//! package lines; durations never.
//!
//! **Ladder.** PASS_SUMMARY (test and package counts) → FAIL_CENSUS (every
//! identity, messages while the budget lasts) → DENSE (census only; each
//! block by `--item ID`) → FLOOD (grouped by package and class with exact
//! counts; the full list by `--items`).

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::{Artifact, Span};
use crate::evidence::{CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Location, Severity};
use crate::normalize;

use super::{Profile, ProfileSpec, ReceiptGroup};
use super::testrun::{self, Facts};

mod build;

use build::{BUILD_HEADER, COMPILE_ERROR, Group, build_items, build_line, continues_error};

pub struct GoTest;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("static pattern")
}

static RESULT: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(\s*)--- (FAIL|PASS|SKIP): (\S+) \([\d.]+s\)$"));
static RUN: LazyLock<Regex> = LazyLock::new(|| re(r"^=== (RUN|PAUSE|CONT|NAME)\s+(\S+)$"));
static PACKAGE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(ok|FAIL|\?)\s+(\S+)\s*(\[[^\]]+\]|\(cached\)|[\d.]+s|)(?:\s.*)?$"));
static MESSAGE: LazyLock<Regex> = LazyLock::new(|| re(r"^\s+([\w.-]+\.go):(\d+): (.*)$"));
static FRAME_FILE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s+(/\S+\.go):(\d+)(?: \+0x[0-9a-f]+)?$"));

#[derive(Default)]
struct Scan {
    found: Found,
    /// Failing tests seen since the last package line, waiting for their package.
    pending: Vec<EvidenceItem>,
    /// `=== RUN` line per test name, for the block of a failure in `-v`.
    run_lines: BTreeMap<String, usize>,
    /// `# pkg` groups of compiler (or vet) lines, in order.
    groups: Vec<Group>,
    /// The last line belonged to a compile error: a tab-indented line
    /// continues it (`\thave ()` / `\twant (int)`).
    continues: bool,
    /// `FAIL <pkg> [build failed]` / `[setup failed]` lines: (line, package, status).
    not_built: Vec<(usize, String, &'static str)>,
    /// Message lines of `-v` output, by the test whose `=== RUN` precedes them.
    buffered: BTreeMap<String, Vec<usize>>,
    current: Option<String>,
    /// Lines of the last `WARNING: DATA RACE` report.
    race: Vec<usize>,
    race_location: Option<Location>,
    counts: [u64; 3],
    packages: BTreeMap<&'static str, u64>,
    saw_package: bool,
    unmatched: usize,
}

/// Items and conclusion lines found so far.
#[derive(Default)]
struct Found {
    items: Vec<EvidenceItem>,
    conclusion: Vec<Span>,
}

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["go test"],
    decisive_words: &["--- FAIL: ", "=== RUN   Test"],
    ..ProfileSpec::new("go_test/v1", "go_test", ReceiptGroup::TestRunner)
};

impl Profile for GoTest {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }


    fn by_content(&self, head: &str) -> Option<String> {
        let json = head
            .lines()
            .any(|l| l.starts_with("{\"Time\":") && l.contains("\"Package\":"));
        let text = head.lines().any(|l| l.starts_with("=== RUN   Test"))
            // RESULT needs `--- ` before it is compiled.
            || super::mentions_any(head, &["--- "])
                && head.lines().any(|l| RESULT.is_match(l))
                && head.lines().any(|l| PACKAGE.is_match(l));
        (json || text).then(|| "go test `=== RUN` / `--- FAIL:` / test2json lines".to_string())
    }

    fn decisive_line(&self, line: &str) -> Option<String> {
        // Top-level tests only: a subtest's indented verdict is also what a
        // diff's context line of go test output looks like.
        let top = line.starts_with("--- FAIL: ") && RESULT.is_match(line);
        (line.starts_with("=== RUN   Test") || top)
            .then(|| "go test `--- FAIL: Test (Ns)` / `=== RUN` line".to_string())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let cwd = artifact.cwd.as_deref();
        let mut s = Scan::default();
        // The failure whose block is open: later lines belong to it until a
        // line that starts something else.
        let mut open: Option<usize> = None;
        for n in 1..=artifact.line_count() {
            let raw = crate::profiles::visible(artifact, n);
            let text = raw.trim_end();
            // An event is parsed from the whole line, never the window.
            if text.starts_with('{')
                && let Ok(event) =
                    serde_json::from_str::<Event>(normalize::line(artifact.line(n)).trim_end())
            {
                open = None;
                if event.action != "build-output" {
                    s.continues = false;
                }
                json_event(&mut s, event, n, cwd);
                continue;
            }
            if let Some(c) = RESULT.captures(text) {
                open = None;
                match &c[2] {
                    "FAIL" => {
                        s.counts[0] += 1;
                        let name = &c[3];
                        let first = s.run_lines.get(name).copied().unwrap_or(n);
                        let mut item =
                            EvidenceItem::new(ItemKind::FailingTest, Severity::Error, name);
                        item.block = Some(Span::new(first, n));
                        // `-v` prints a test's messages before its verdict.
                        for m in s.buffered.remove(name).unwrap_or_default() {
                            let line = crate::profiles::visible(artifact, m);
                            take_message(&mut item, m, line.trim_end(), cwd);
                        }
                        s.pending.push(item);
                        open = Some(s.pending.len() - 1);
                    }
                    "PASS" => s.counts[1] += 1,
                    _ => s.counts[2] += 1,
                }
                continue;
            }
            // Compiler output on stderr can land inside a failure's block.
            let ends_block = RUN.is_match(text)
                || text == "FAIL"
                || text == "PASS"
                || PACKAGE.is_match(text)
                || BUILD_HEADER.is_match(text)
                || COMPILE_ERROR.is_match(text);
            if continues_error(&mut s, n, &raw) {
                continue;
            }
            if let Some(i) = open.filter(|_| !ends_block) {
                if let Some(item) = s.pending.get_mut(i) {
                    if let Some(b) = item.block.as_mut() {
                        b.last = n;
                    }
                    take_message(item, n, text, cwd);
                }
                continue;
            }
            open = None;
            if let Some(c) = RUN.captures(text) {
                s.run_lines.entry(c[2].to_string()).or_insert(n);
                s.current = Some(c[2].to_string());
            } else if let Some(c) = PACKAGE.captures(text) {
                let status = match &c[1] {
                    "ok" => "ok",
                    "?" => "no test files",
                    _ => "FAIL",
                };
                let pending = std::mem::take(&mut s.pending);
                package(&mut s, status, &c[2], &c[3], n, pending);
            } else if build_line(&mut s, n, text, false) {
            } else if text == "WARNING: DATA RACE" {
                s.race = vec![n];
                s.race_location = None;
            } else if let Some(c) = FRAME_FILE.captures(text).filter(|_| !s.race.is_empty()) {
                if s.race_location.is_none() && !is_library(&c[1]) {
                    s.race_location = Some(frame_location(&c[1], &c[2], cwd));
                    s.race.extend([n - 1, n]);
                }
            } else if let Some(name) = s.current.clone().filter(|_| MESSAGE.is_match(text)) {
                s.buffered.entry(name).or_default().push(n);
            } else if !text.is_empty() && text != "FAIL" && text != "PASS" {
                s.unmatched += 1;
            }
        }
        finish(s, artifact)
    }
}

/// A line inside a failure's block: messages, got/want, panics.
fn take_message(item: &mut EvidenceItem, n: usize, text: &str, cwd: Option<&str>) {
    let mut decisive = false;
    if let Some(c) = MESSAGE.captures(text) {
        decisive = true;
        if item.summary.is_none() {
            item.summary = Some(c[3].to_string());
            item.location = Some(Location {
                file: c[1].into(),
                line: c[2].parse().ok(),
                column: None,
            });
            let race = c[3].starts_with("race detected");
            item.class = Some(if race { "race" } else { "failed" }.into());
        }
    } else if text.starts_with("panic: ") {
        decisive = item.class.as_deref() != Some("panic");
        if decisive {
            item.class = Some("panic".into());
            item.summary = Some(text.trim_end_matches(" [recovered]").to_string());
            item.location = None;
        }
    } else if text == "got:" || text == "want:" {
        decisive = true;
        item.class = Some("example".into());
        item.summary
            .get_or_insert_with(|| "example output mismatch".into());
    } else if let Some(c) = FRAME_FILE.captures(text) {
        if item.class.as_deref() == Some("panic") && item.location.is_none() && !is_library(&c[1]) {
            item.location = Some(frame_location(&c[1], &c[2], cwd));
            decisive = true;
        }
    } else if item.class.as_deref() == Some("example") && item.detail.len() < 10 {
        decisive = true;
    }
    if decisive {
        let mut lines: Vec<usize> = item.detail.iter().flat_map(|s| s.first..=s.last).collect();
        lines.push(n);
        item.detail = testrun::spans(&lines, 10);
    }
}

fn frame_location(file: &str, line: &str, cwd: Option<&str>) -> Location {
    Location {
        file: testrun::relative(file, cwd),
        line: line.parse().ok(),
        column: None,
    }
}

/// Go's own sources and the module cache: not where a reader fixes a test.
fn is_library(file: &str) -> bool {
    file.contains("/src/runtime/")
        || file.contains("/src/testing/")
        || file.starts_with("/usr/lib/go")
        || file.starts_with("/usr/local/go")
        || file.contains("/pkg/mod/")
}

/// A package line: the failures above it are this package's.
fn package(
    s: &mut Scan,
    status: &'static str,
    pkg: &str,
    note: &str,
    n: usize,
    pending: Vec<EvidenceItem>,
) {
    s.saw_package = true;
    s.found.conclusion.push(Span::line(n));
    s.run_lines.clear();
    s.buffered.clear();
    s.current = None;
    if note == "[build failed]" || note == "[setup failed]" {
        *s.packages.entry("build failed").or_default() += 1;
        let status = if note == "[setup failed]" {
            "setup failed"
        } else {
            "build failed"
        };
        // Its compiler lines may still come (stderr): items are made at the end.
        s.not_built.push((n, pkg.to_string(), status));
        return;
    }
    *s.packages
        .entry(if status == "FAIL" {
            "packages failed"
        } else {
            status
        })
        .or_default() += 1;
    let has_failures = s
        .found
        .items
        .iter()
        .any(|i| i.fields.get("package").is_some_and(|p| p == pkg));
    if status == "FAIL" && pending.is_empty() && !has_failures {
        let mut item = EvidenceItem::new(ItemKind::SuiteNotRun, Severity::Error, pkg);
        item.class = Some("package failed".into());
        item.headline = Some(Span::line(n));
        item.location = Some(pkg_location(pkg));
        item.block = Some(Span::line(n));
        s.found.items.push(item);
    }
    for mut item in pending {
        finish_item(s, &mut item, pkg);
        s.found.items.push(item);
    }
}

fn pkg_location(pkg: &str) -> Location {
    Location {
        file: pkg.to_string(),
        line: None,
        column: None,
    }
}

fn finish_item(s: &Scan, item: &mut EvidenceItem, pkg: &str) {
    item.fields.insert("test".into(), item.identity.clone());
    item.fields.insert("package".into(), pkg.into());
    item.identity = if pkg.is_empty() {
        item.identity.clone()
    } else {
        format!("{pkg} {}", item.identity)
    };
    if item.class.as_deref() == Some("race") {
        if let Some(loc) = &s.race_location {
            item.location = Some(loc.clone());
        }
        let mut lines: Vec<usize> = item.detail.iter().flat_map(|s| s.first..=s.last).collect();
        lines.extend(&s.race);
        item.detail = testrun::spans(&lines, 10);
    }
    if item.class.is_none() {
        item.class = Some("subtests failed".into());
    }
    if item.location.is_none() {
        item.location = Some(pkg_location(pkg));
    }
}

/// One test2json event.
#[derive(serde::Deserialize)]
struct Event {
    #[serde(rename = "Action")]
    action: String,
    #[serde(rename = "Package", default)]
    package: String,
    #[serde(rename = "Test")]
    test: Option<String>,
    #[serde(rename = "Output")]
    output: Option<String>,
    /// go ≥ 1.24: on a package's `fail`, the build that failed.
    #[serde(rename = "FailedBuild")]
    failed_build: Option<String>,
}

fn json_event(s: &mut Scan, e: Event, n: usize, cwd: Option<&str>) {
    let key = |t: &str| format!("{}\u{0} {t}", e.package);
    match (e.action.as_str(), e.test.as_deref()) {
        ("run", Some(t)) => {
            s.run_lines.insert(key(t), n);
        }
        ("output", Some(t)) => {
            // Messages of a test still running: kept on a provisional item.
            let out = e.output.as_deref().unwrap_or("").trim_end_matches('\n');
            let first = s.run_lines.get(&key(t)).copied().unwrap_or(n);
            let idx = s
                .pending
                .iter()
                .position(|i| i.fields.get("key") == Some(&key(t)));
            let idx = idx.unwrap_or_else(|| {
                let mut item = EvidenceItem::new(ItemKind::FailingTest, Severity::Error, t);
                item.fields.insert("key".into(), key(t));
                item.block = Some(Span::new(first, n));
                s.pending.push(item);
                s.pending.len() - 1
            });
            if let Some(item) = s.pending.get_mut(idx)
                && !out.starts_with("=== ")
                && !out.trim_start().starts_with("--- ")
            {
                take_message(item, n, out, cwd);
            }
        }
        ("fail" | "pass" | "skip", Some(t)) => {
            let slot = match e.action.as_str() {
                "fail" => 0,
                "pass" => 1,
                _ => 2,
            };
            s.counts[slot] += 1;
            let idx = s
                .pending
                .iter()
                .position(|i| i.fields.get("key") == Some(&key(t)));
            let item = idx.map(|i| s.pending.remove(i));
            if slot == 0 {
                let first = s.run_lines.get(&key(t)).copied().unwrap_or(n);
                let mut item = item.unwrap_or_else(|| {
                    EvidenceItem::new(ItemKind::FailingTest, Severity::Error, t)
                });
                item.fields.remove("key");
                item.block = Some(Span::new(first.min(n), n));
                let pkg = e.package.clone();
                finish_item(s, &mut item, &pkg);
                s.found.items.push(item);
            }
        }
        ("build-output", _) => {
            // go ≥ 1.24 puts the compiler's lines in JSON (`ImportPath`,
            // no `Package`): read them as the plain lines they carry.
            let out = e.output.as_deref().unwrap_or("").trim_end_matches('\n');
            if !continues_error(s, n, out) {
                build_line(s, n, out.trim_end(), true);
            }
        }
        ("fail", None) if e.failed_build.is_some() => {
            s.saw_package = true;
            s.found.conclusion.push(Span::line(n));
            *s.packages.entry("build failed").or_default() += 1;
            s.not_built.push((n, e.package.clone(), "build failed"));
        }
        ("fail" | "pass" | "skip", None) => {
            // Tests of this package that logged output but passed: not items.
            let prefix = format!("{}\u{0}", e.package);
            s.pending
                .retain(|i| !i.fields.get("key").is_some_and(|k| k.starts_with(&prefix)));
            let status = match e.action.as_str() {
                "fail" => "FAIL",
                "pass" => "ok",
                _ => "no test files",
            };
            package(s, status, &e.package, "", n, Vec::new());
        }
        _ => {}
    }
}

fn finish(mut s: Scan, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
    let mut graph = EvidenceGraph::empty();
    graph.reader = crate::evidence::Reader::family("go test");
    // Anything still pending: the output stopped before go named the
    // package. `--- FAIL` items are kept without one; test2json's
    // provisional entries (tests that had not finished) are not failures.
    let pending = std::mem::take(&mut s.pending);
    let trailing = !pending.is_empty();
    for mut item in pending
        .into_iter()
        .filter(|i| !i.fields.contains_key("key"))
    {
        finish_item(&s, &mut item, "");
        s.found.items.push(item);
    }
    // What did not build comes first: it explains every test that never ran.
    let (mut items, build_whole) = build_items(&mut s);
    items.append(&mut s.found.items);
    graph.items = items;
    graph.conclusion = s.found.conclusion;
    let [failed, passed, skipped] = s.counts;
    for (word, k) in [("failed", failed), ("passed", passed), ("skipped", skipped)] {
        if k > 0 {
            graph.counts.push((word.into(), k));
        }
    }
    let words = [
        ("packages failed", "packages failed"),
        ("build failed", "packages not built"),
        ("ok", "packages ok"),
        ("no test files", "no test files"),
    ];
    for (key, word) in words {
        if let Some(k) = s.packages.get(key) {
            graph.counts.push((word.to_string(), *k));
        }
    }
    let summary_seen = s.saw_package && !trailing && build_whole;
    let not_built = graph.items.iter().all(|i| i.kind != ItemKind::FailingTest)
        && graph.items.iter().any(|i| i.kind == ItemKind::BuildFailure);
    let facts = Facts {
        failures: graph.items.len(),
        summary_seen,
        interrupted: false,
        not_run: not_built,
        ..Facts::default()
    };
    graph.outcome = testrun::outcome(artifact.exit, facts);
    let blocks = graph.items.iter().filter(|i| i.block.is_some()).count();
    let receipt = testrun::receipt(
        artifact,
        graph.items.len(),
        None,
        blocks,
        s.unmatched,
        summary_seen,
    );
    (graph, receipt)
}
