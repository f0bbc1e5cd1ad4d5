//! What jest and vitest really share: the JSON report both write
//! (`jest --json`, `vitest --reporter=json`: the same jest-compatible
//! shape), the wording of their failure messages, and how a stack frame in
//! the project is told from one in `node_modules`.

use std::sync::LazyLock;

use regex::Regex;
use serde::Deserialize;

use crate::artifact::{Artifact, Span};
use crate::evidence::{CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Location, Severity};

use super::testrun;

/// `at fn (file:line:col)`, `at file:line:col`, vitest's `❯ file:line:col`.
static FRAME: LazyLock<Regex> = LazyLock::new(|| {
    // `at f (file:L:C)`, vitest's `❯ f file:L:C`, and vite/Rollup's parse
    // failure `At file: /abs/file:L:C` (a test file that does not parse).
    Regex::new(r"^\s*(?:at (?:.*? \()?|❯ (?:\S+ )?|At file: )([^()\s]+?):(\d+):(\d+)\)?$")
        .expect("static pattern")
});

/// The failure class a jest/vitest message implies.
pub fn class_of(message: &str) -> String {
    let m = message.trim();
    let class = if m.contains("Exceeded timeout") || m.contains("timed out in") {
        "timeout"
    } else if m.contains("Snapshot")
        || m.contains("toMatchSnapshot")
        || m.contains("toMatchInlineSnapshot")
    {
        "snapshot"
    } else if m.contains("Cannot find module") || m.contains("Failed to load url") {
        "module not found"
    } else if m.starts_with("expect(") || m.starts_with("AssertionError") {
        "assertion"
    } else if let Some((head, _)) = m.split_once(':').filter(|(h, _)| h.ends_with("Error")) {
        return head.trim_start_matches("thrown").trim().to_string();
    } else {
        "error"
    };
    class.to_string()
}

/// A stack frame or location line in the project (not node_modules, not node's own).
pub fn project_frame(text: &str, cwd: Option<&str>) -> Option<Location> {
    let c = FRAME.captures(text)?;
    let file = &c[1];
    if file.contains("node_modules/") || file.starts_with("node:") || file.starts_with('<') {
        return None;
    }
    let file = testrun::relative(file.trim_start_matches("file://"), cwd);
    Some(Location {
        file,
        line: c[2].parse().ok(),
        column: c[3].parse().ok(),
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Report {
    num_failed_tests: Option<u64>,
    num_passed_tests: Option<u64>,
    num_pending_tests: Option<u64>,
    num_todo_tests: Option<u64>,
    num_failed_test_suites: Option<u64>,
    #[serde(default)]
    test_results: Vec<FileResult>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FileResult {
    name: String,
    status: Option<String>,
    message: Option<String>,
    #[serde(default)]
    assertion_results: Vec<Assertion>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Assertion {
    #[serde(default)]
    ancestor_titles: Vec<String>,
    title: String,
    status: String,
    #[serde(default)]
    failure_messages: Vec<String>,
    location: Option<Position>,
}

#[derive(Deserialize)]
struct Position {
    line: Option<u32>,
    column: Option<u32>,
}

/// What a JSON report on one line says.
pub struct JsonFacts {
    pub items: Vec<EvidenceItem>,
    pub counts: Vec<(String, u64)>,
    /// Failed tests plus suites that failed without a failing test.
    pub announced: u64,
}

/// Line `n` whole, for the JSON report (which jest prints on one line of
/// any length): the extractor's window would cut it.
pub fn whole(artifact: &Artifact, n: usize) -> String {
    crate::normalize::line(artifact.line(n))
        .trim_end()
        .to_string()
}

/// Reads a jest-compatible JSON report from line `n`; None when it is not one.
pub fn json_report(n: usize, text: &str, cwd: Option<&str>) -> Option<JsonFacts> {
    if !text.starts_with('{') || !text.contains("\"testResults\"") {
        return None;
    }
    let report: Report = serde_json::from_str(text).ok()?;
    let mut items = Vec::new();
    let mut not_run = 0;
    for file in &report.test_results {
        let rel = testrun::relative(&file.name, cwd);
        let failed: Vec<&Assertion> = file
            .assertion_results
            .iter()
            .filter(|a| a.status == "failed")
            .collect();
        if failed.is_empty() && file.status.as_deref() == Some("failed") {
            not_run += 1;
            let mut item = EvidenceItem::new(ItemKind::SuiteNotRun, Severity::Error, rel.clone());
            let message = file.message.as_deref().map(first_line).unwrap_or_default();
            item.class = Some(class_of(&message));
            item.summary = Some(message).filter(|m| !m.is_empty());
            item.location = Some(Location {
                file: rel.clone(),
                line: None,
                column: None,
            });
            item.block = Some(Span::line(n));
            items.push(item);
            continue;
        }
        for a in failed {
            let mut chain = vec![rel.clone()];
            chain.extend(a.ancestor_titles.iter().cloned());
            chain.push(a.title.clone());
            let mut item =
                EvidenceItem::new(ItemKind::FailingTest, Severity::Error, chain.join(" > "));
            let message = a
                .failure_messages
                .first()
                .map(|m| first_line(m))
                .unwrap_or_default();
            item.class = Some(class_of(&message));
            item.summary = Some(message).filter(|m| !m.is_empty());
            let (line, column) = a
                .location
                .as_ref()
                .map_or((None, None), |p| (p.line, p.column));
            item.location = Some(Location {
                file: rel.clone(),
                line,
                column,
            });
            item.block = Some(Span::line(n));
            items.push(item);
        }
    }
    let mut counts = Vec::new();
    for (word, k) in [
        ("failed", report.num_failed_tests),
        ("passed", report.num_passed_tests),
        ("skipped", report.num_pending_tests),
        ("todo", report.num_todo_tests),
    ] {
        if let Some(k) = k.filter(|&k| k > 0 || word == "failed" || word == "passed") {
            counts.push((word.to_string(), k));
        }
    }
    if let Some(k) = report.num_failed_test_suites.filter(|&k| k > 0) {
        counts.push(("suites failed".into(), k));
    }
    let announced = report.num_failed_tests.unwrap_or(0) + not_run;
    Some(JsonFacts {
        items,
        counts,
        announced,
    })
}

/// The first non-empty line of a message, ANSI removed.
pub fn first_line(message: &str) -> String {
    message
        .lines()
        .map(|l| crate::normalize::line(l.as_bytes()).trim().to_string())
        .find(|l| !l.is_empty())
        .unwrap_or_default()
}

/// Failed tests plus failed files that had no failing test (they did not
/// run): what the summary lines announce as census items.
pub fn announced(tests_failed: u64, files_failed: u64, items: &[EvidenceItem]) -> u64 {
    let mut files: Vec<&str> = items
        .iter()
        .filter(|i| i.kind == ItemKind::FailingTest)
        .filter_map(|i| i.identity.split(" > ").next())
        .collect();
    files.sort_unstable();
    files.dedup();
    tests_failed + files_failed.saturating_sub(files.len() as u64)
}

/// `7 failed, 12 passed, 21 total` (jest) or `8 failed | 7 passed` (vitest):
/// the counts in the tool's order, totals dropped (they repeat the others).
pub fn counts(body: &str, separator: &str) -> Vec<(String, u64)> {
    body.split(separator)
        .filter_map(|part| {
            let (n, word) = part.trim().split_once(' ')?;
            Some((word.trim().to_string(), n.parse().ok()?))
        })
        .filter(|(word, _)| word != "total")
        .collect()
}

/// Keeps `lines` that say what was expected and what came instead, the
/// source line and the frame, at most ten.
pub fn detail(lines: &[usize]) -> Vec<Span> {
    testrun::spans(lines, 10)
}

/// Closes the open failure section: its collected lines become the
/// item's detail.
pub fn close(graph: &mut EvidenceGraph, open: &mut Option<(usize, Vec<usize>)>) {
    if let Some((i, lines)) = open.take()
        && let Some(item) = graph.items.get_mut(i)
    {
        item.detail = detail(&lines);
    }
}

/// The end of a jest or vitest extraction. The `--json` report stands in
/// for the human one only when that is absent (the JSON reporter alone is
/// the whole record); then the outcome and the receipt, alike for both.
pub fn finish(
    artifact: &crate::artifact::Artifact,
    mut graph: EvidenceGraph,
    json: Option<JsonFacts>,
    mut announced: u64,
    mut summary_seen: bool,
    unmatched: usize,
) -> (EvidenceGraph, CoverageReceipt) {
    if let Some(j) = json.filter(|_| graph.items.is_empty() && !summary_seen) {
        graph.items = j.items;
        graph.counts = j.counts;
        announced = j.announced;
        summary_seen = true;
    }
    let facts = super::testrun::Facts {
        failures: graph.items.len(),
        summary_seen,
        ..super::testrun::Facts::default()
    };
    graph.outcome = super::testrun::outcome(artifact.exit, facts);
    let blocks = graph.items.iter().filter(|i| !i.detail.is_empty()).count();
    let receipt = super::testrun::receipt(
        artifact,
        graph.items.len(),
        summary_seen.then_some(announced),
        blocks,
        unmatched,
        summary_seen,
    );
    (graph, receipt)
}
