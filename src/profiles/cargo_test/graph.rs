//! From a finished scan to the evidence graph: each failure becomes an
//! item named by its target, and the counts, outcome and receipt follow.

use super::panic::{own_frame, panicked_file, read_block};
use super::{Run, Scan};
use crate::artifact::{Artifact, Span};
use crate::evidence::{
    CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Location, Precision, Severity,
};
use crate::profiles::testrun::{self, Facts};

pub(super) fn finish(
    s: Scan,
    artifact: &Artifact,
    unmatched: usize,
) -> (EvidenceGraph, CoverageReceipt) {
    let Scan {
        mut graph,
        failures,
        runs,
        counts,
        announced,
        nextest,
        summary_seen,
        crashed,
        ..
    } = s;
    // Build items (each rustc error, then its target) precede the tests.
    let build_items = graph.items.len();
    let build_failures = graph
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::BuildFailure)
        .count();
    let mut items = Vec::new();
    let shared = shared_sources(&runs);
    for f in &failures {
        let run = runs.get(f.run);
        let mut item = EvidenceItem::new(ItemKind::FailingTest, Severity::Error, f.name.clone());
        item.headline = f.headline.map(Span::line);
        item.block = f.block;
        item.fields.insert("test".into(), f.name.clone());
        match f.status.as_str() {
            "TIMEOUT" => item.class = Some("timeout".into()),
            s if s.starts_with("SIG") || s == "ABORT" => item.class = Some("signal".into()),
            _ => {}
        }
        if let Some(block) = f.block {
            read_block(artifact, &mut item, block);
        }
        // A doc test panics at a line of the generated program; its name
        // holds the line of the doc comment in the source file.
        if let Some(c) = super::DOC_TEST_NAME.captures(&f.name) {
            item.location = Some(Location {
                file: c[1].to_string(),
                line: c[2].parse().ok(),
                column: None,
            });
        }
        if !nextest {
            let suite = suite(artifact, run, f, &shared);
            item.identity = format!("{} {}", suite.label, f.name);
            if let Some(t) = run.and_then(|r| r.target.as_deref()) {
                item.fields.insert("target".into(), t.to_string());
            }
            if let Some(hint) = run.and_then(|r| r.hint.as_deref()) {
                item.fields.insert("rerun".into(), hint.to_string());
            }
            // A panic in the standard library or a dependency points where
            // the reader cannot fix anything: the suite's source is the better address.
            let outside = item
                .location
                .as_ref()
                .is_none_or(|l| l.file.starts_with('/'));
            if outside && let Some(file) = suite.file {
                item.location = Some(Location {
                    file,
                    line: None,
                    column: None,
                });
            }
        }
        item.class.get_or_insert_with(|| "failed".into());
        items.push(item);
    }
    let blocks = items.iter().filter(|i| i.block.is_some()).count() + build_items;
    graph.items.extend(items);

    let runs_closed = !runs.is_empty() && runs.iter().all(|r| r.closed);
    let summary_seen =
        summary_seen || runs_closed || (build_failures > 0 && runs.iter().all(|r| r.closed));
    graph.counts = ordered_counts(counts);
    if build_failures > 0 {
        graph
            .counts
            .push(("targets not built".into(), build_failures as u64));
    }
    let facts = Facts {
        failures: graph.items.len(),
        summary_seen,
        interrupted: false,
        not_run: build_failures > 0 && failures.is_empty(),
        announced,
        crashed,
    };
    graph.outcome = testrun::outcome(artifact.exit, facts);
    let announced = (summary_seen || announced > 0).then_some(announced);
    let mut receipt = testrun::receipt(
        artifact,
        graph.items.len(),
        announced,
        blocks,
        unmatched,
        summary_seen,
    );
    if crashed && !summary_seen {
        // Not cut upstream: a test binary died before its `test result:`.
        receipt.truncated = artifact.truncated;
        receipt.precision =
            Precision::Degraded("a test binary died before its test result line".into());
    }
    (graph, receipt)
}

/// Where a failing test lives, as the output says it.
struct Suite {
    /// What the census line names: `src/lib.rs`, `arith tests/arith.rs`,
    /// `Doc-tests ledger`, `[source unknown: --test arith]`.
    label: String,
    /// A file the reader can open, when the label names one.
    file: Option<String>,
}

/// Sources (`src/lib.rs`, `tests/api.rs`) that more than one binary of
/// this run has: a workspace. Their labels need the package.
fn shared_sources(runs: &[Run]) -> Vec<String> {
    let mut seen: Vec<(&str, &str)> = Vec::new();
    let mut shared = Vec::new();
    for r in runs {
        if let (Some(src), Some(bin)) = (r.source.as_deref(), r.target.as_deref()) {
            if seen.iter().any(|(s, b)| *s == src && *b != bin) || seen.contains(&(src, bin)) {
                shared.push(src.to_string());
            }
            seen.push((src, bin));
        }
    }
    shared
}

/// The package of a rerun hint (`-p arith --test arith` → `arith`).
fn package(hint: Option<&str>) -> Option<&str> {
    let mut words = hint?.split_whitespace();
    while let Some(w) = words.next() {
        if w == "-p" || w == "--package" {
            return words.next();
        }
    }
    None
}

/// The test binary's source for a failure. cargo's `Running <source>` line
/// says it (package-relative: in a workspace the rerun hint's package goes
/// first). With `-q` there is no such line: the doc-test section, the
/// test's own backtrace frame, or a `panicked at` file that is the
/// binary's own source (as the rerun hint names the binary) say it; when
/// nothing does, the label says so rather than guess.
fn suite(artifact: &Artifact, run: Option<&Run>, f: &super::Failure, shared: &[String]) -> Suite {
    let hint = run.and_then(|r| r.hint.as_deref());
    let pkg = package(hint);
    let qualified = |file: &str| match pkg {
        Some(p) => format!("{p} {file}"),
        None => file.to_string(),
    };
    if let Some(run) = run {
        if let Some(src) = run.source.as_deref() {
            let label = if pkg.is_some() {
                qualified(src)
            } else if shared.iter().any(|s| s == src) {
                format!("{src} ({})", run.target.as_deref().unwrap_or("?"))
            } else {
                src.to_string()
            };
            return Suite {
                label,
                file: Some(src.to_string()),
            };
        }
        if let Some(target) = run.target.as_deref() {
            return Suite {
                label: target.to_string(),
                file: None,
            };
        }
    }
    let doc = hint.is_some_and(|h| h.split_whitespace().any(|w| w == "--doc"))
        || super::DOC_TEST_NAME.is_match(&f.name);
    if doc {
        return Suite {
            label: "Doc-tests".into(),
            file: None,
        };
    }
    if let Some(block) = f.block {
        if let Some(file) = own_frame(artifact, block, &f.name) {
            return Suite {
                label: qualified(&file),
                file: Some(file),
            };
        }
        if let Some(file) = panicked_file(artifact, block).filter(|p| is_own_source(p, hint)) {
            return Suite {
                label: file.clone(),
                file: Some(file),
            };
        }
    }
    Suite {
        label: match hint {
            Some(h) => format!("[source unknown: {h}]"),
            None => "[source unknown]".into(),
        },
        file: None,
    }
}

/// Whether a `panicked at` file is the source of the binary the rerun
/// hint names: `tests/NAME.rs` (or under `tests/NAME/`) for `--test NAME`,
/// a file under `src/` for `--lib` / `--bin`; any project file without a hint.
fn is_own_source(file: &str, hint: Option<&str>) -> bool {
    if file.starts_with('/') || file.contains(".cargo/registry") {
        return false;
    }
    let Some(hint) = hint else { return true };
    let words: Vec<&str> = hint.split_whitespace().collect();
    if let Some(i) = words.iter().position(|w| *w == "--test") {
        let Some(name) = words.get(i + 1) else {
            return false;
        };
        let own = format!("tests/{name}.rs");
        let dir = format!("tests/{name}/");
        return file == own || file.ends_with(&format!("/{own}")) || file.contains(&dir);
    }
    if words.iter().any(|w| *w == "--lib" || *w == "--bin") {
        return file.starts_with("src/") || file.contains("/src/");
    }
    false
}

/// Failed first, then the rest as the tool orders them; zero-valued
/// bookkeeping counts (`0 measured`) dropped.
fn ordered_counts(counts: Vec<(String, u64)>) -> Vec<(String, u64)> {
    let (mut failed, rest): (Vec<_>, Vec<_>) = counts.into_iter().partition(|(w, _)| w == "failed");
    failed.extend(rest.into_iter().filter(|(w, n)| *n > 0 || w == "passed"));
    failed
}
