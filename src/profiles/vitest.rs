//! vitest/v1 — vitest's default and verbose reporters (tree on stdout,
//! failures on stderr), and its `--reporter=json` report.
//!
//! **Decision.** Which tests failed in which file under which describe
//! chain, what was expected and received, and which files failed to load?
//! The reader reruns `vitest run FILE -t NAME` or opens the line.
//!
//! **Unsafe loss.** A title without its file and chain, a file listed under
//! "Failed Suites" (import error) dropped because it has no failing test, a
//! run cut before the `Tests` line read as complete.
//!
//! **Typed facts.** `FailingTest` per ` FAIL  <file> > <chain> > <title>`
//! line of "Failed Tests", identity = that chain exactly as printed;
//! `SuiteNotRun` per ` FAIL  <file> [ … ]` of "Failed Suites", identity =
//! the file. class = `assertion` / `timeout` / `module not found` / an
//! error class; summary = the error line under it; location = the first
//! `❯ file:line:col` outside node_modules; headline: none (the `FAIL`
//! line holds neither the location nor the reason the census line must
//! carry); detail = the error line, `- Expected` / `+ Received` lines,
//! the location line; block = up to the `⎯⎯[i/n]⎯` rule. Counts from the
//! `Tests` line (`Test Files` failures too); the wall-clock `Start at` and
//! `Duration` lines are never facts.
//!
//! **Ladder.** PASS_SUMMARY (counts) → FAIL_CENSUS (every identity, detail
//! while the budget lasts) → DENSE (census only; blocks by `--item ID`) →
//! FLOOD (grouped by file and class with exact counts; `--items`).

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::{Artifact, Span};
use crate::evidence::{CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Location, Severity};

use super::{Profile, ProfileSpec, ReceiptGroup};
use super::jestlike;

pub struct Vitest;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("static pattern")
}

static BANNER: LazyLock<Regex> = LazyLock::new(|| re(r"^ RUN  v\d+\.\d+"));
static SECTION: LazyLock<Regex> = LazyLock::new(|| re(r"^⎯+ (.+?) \d+ ⎯+$"));
static RULE: LazyLock<Regex> = LazyLock::new(|| re(r"^⎯+(?:\[\d+/\d+\]⎯*)?$"));
static FAIL: LazyLock<Regex> = LazyLock::new(|| re(r"^ FAIL  (.+?)(?: \[ .+ \])?$"));
static TESTS: LazyLock<Regex> = LazyLock::new(|| re(r"^\s+Tests\s+(.+?)\s+\(\d+\)$"));
static FILES: LazyLock<Regex> = LazyLock::new(|| re(r"^\s+Test Files\s+(.+?)\s+\(\d+\)$"));

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["vitest", "npx vitest"],
    sniff_words: &[" RUN  v"],
    sniff: Some(&BANNER),
    sniff_reason: "vitest ` RUN  vX.Y` banner",
    decisive_words: &[" RUN  v"],
    ..ProfileSpec::new("vitest/v1", "vitest", ReceiptGroup::TestRunner)
};

impl Profile for Vitest {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn decisive_line(&self, line: &str) -> Option<String> {
        BANNER
            .is_match(line)
            .then(|| "vitest ` RUN  vX.Y` banner".to_string())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let cwd = artifact.cwd.as_deref();
        let mut graph = EvidenceGraph::empty();
        graph.reader = crate::evidence::Reader::family("vitest");
        let mut suites = false;
        let mut open: Option<(usize, Vec<usize>)> = None;
        let (mut tests_failed, mut files_failed, mut summary_seen) = (0, 0, false);
        let mut json = None;
        for n in 1..=artifact.line_count() {
            let raw = crate::profiles::visible(artifact, n);
            let text = raw.trim_end();
            if let Some(c) = SECTION.captures(text) {
                jestlike::close(&mut graph, &mut open);
                suites = &c[1] == "Failed Suites";
                continue;
            }
            if RULE.is_match(text) || TESTS.is_match(text) || FILES.is_match(text) {
                jestlike::close(&mut graph, &mut open);
            }
            if let Some(c) = FAIL.captures(text) {
                jestlike::close(&mut graph, &mut open);
                let (kind, id) = if suites {
                    (ItemKind::SuiteNotRun, c[1].to_string())
                } else {
                    (ItemKind::FailingTest, c[1].to_string())
                };
                if graph.items.iter().any(|i| i.identity == id) {
                    continue;
                }
                let file = id.split(" > ").next().unwrap_or(&id).to_string();
                let mut item = EvidenceItem::new(kind, Severity::Error, id);
                // No headline: the `FAIL` line names the test (or, under
                // "Failed Suites", only the file) but not where it failed
                // nor why; the census line is built so that it carries both.
                item.block = Some(Span::line(n));
                item.location = Some(Location {
                    file,
                    line: None,
                    column: None,
                });
                graph.items.push(item);
                open = Some((graph.items.len() - 1, Vec::new()));
                continue;
            }
            if let Some((i, lines)) = open.as_mut() {
                let item = &mut graph.items[*i];
                if let Some(b) = item.block.as_mut().filter(|_| !text.is_empty()) {
                    b.last = n;
                }
                let t = text.trim();
                if item.summary.is_none() && !t.is_empty() {
                    item.summary = Some(t.to_string());
                    item.class = Some(jestlike::class_of(t));
                    lines.push(n);
                } else if (t.starts_with("- ") || t.starts_with("+ ")) && lines.len() < 7 {
                    lines.push(n);
                } else if let Some(loc) = jestlike::project_frame(text, cwd)
                    && item.location.as_ref().is_none_or(|l| l.line.is_none())
                {
                    item.location = Some(loc);
                    lines.push(n);
                }
                continue;
            }
            if let Some(c) = TESTS.captures(text) {
                summary_seen = true;
                graph.conclusion.push(Span::line(n));
                graph.counts = jestlike::counts(&c[1], "|");
                tests_failed = graph
                    .counts
                    .iter()
                    .find(|(w, _)| w == "failed")
                    .map_or(0, |c| c.1);
            } else if let Some(c) = FILES.captures(text) {
                graph.conclusion.push(Span::line(n));
                let files = jestlike::counts(&c[1], "|");
                files_failed = files.iter().find(|(w, _)| w == "failed").map_or(0, |c| c.1);
            } else if text.starts_with('{')
                && let Some(facts) = jestlike::json_report(n, &jestlike::whole(artifact, n), cwd)
            {
                json = Some(facts);
            }
        }
        jestlike::close(&mut graph, &mut open);
        let announced = jestlike::announced(tests_failed, files_failed, &graph.items);
        // The tree and the failure sections are all vitest's own: nothing unmatched.
        jestlike::finish(artifact, graph, json, announced, summary_seen, 0)
    }
}
