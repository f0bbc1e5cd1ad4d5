//! tap/v1 — TAP test output: `node --test` (node 20's TAP reporter, the
//! default when stdout is not a terminal, or `--test-reporter=tap`),
//! `prove` (TAP::Harness, with `-v` and without) and `bats`; any TAP 13/14
//! stream piped in (`perl t/x.t | ctx pipe`, tape).
//!
//! **Decision.** Which tests failed, in which file under which parent, and
//! why (the assertion, expected and actual, the file and line from the YAML
//! block or the `#` diagnostics)? Which test files broke before or beyond
//! their tests (a crash at load, no plan, a bail-out)? Did the run pass?
//!
//! **Unsafe loss.** Any `not ok` dropped: a failing test, the parent a
//! failing subtest fails, a test cancelled by its parent's hook; a file
//! that crashed before its plan, bailed out, or that prove calls
//! `Dubious, test returned N` / `No plan found` with no failing test of its
//! own; a test named without its file (node and bats print none on the
//! test line); a run cut before its closing counts read as complete.
//!
//! **Typed facts.** One item per `not ok` without a TODO directive, at any
//! depth, identity `<file> > <parent> > … > <name>` (the file relative to
//! the working directory: node's YAML `location` of the outermost test,
//! prove's file header, bats's `# (in test file F, line N)`); an unnamed
//! test is `<file> > #N`; names repeated in one file take ` #N`. Kinds:
//! `FailingTest` (class = the YAML error `name` such as `AssertionError`,
//! `subtests failed` for a parent, `cancelled`, `timeout`, or `failed`),
//! `TestError` for a failed hook (node `hookFailed`, bats `setup_file
//! failed`) and a file that broke after some of its tests ran,
//! `SuiteNotRun` for a file that ran no test (node's load-time crash, a
//! Perl `die` before the plan), both identified by the file alone.
//! summary = the YAML `error` (its first lines), the bats diagnostic, the
//! Test::More `got`/`expected` lines, the file's crash message or prove's
//! parse error; location = the first stack frame in the test's file, else
//! the YAML `location`, the diagnostic's `at F line N`; detail = the test
//! line, error, expected/actual and that frame (at most 10 lines); block =
//! the test's whole region (its `# Subtest:` header to its YAML's end).
//! Counts from node's `# tests/pass/fail/cancelled/skipped/todo`, prove's
//! Summary Report and `Files=N, Tests=M`, else the test lines themselves.
//!
//! **Ladder.** PASS_SUMMARY (counts) → FAIL_CENSUS (every identity with its
//! location and reason, detail while the budget lasts) → DENSE (census only;
//! each block by `--item ID`) → FLOOD (grouped with exact counts; `--items`).

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::Artifact;
use crate::evidence::{CoverageReceipt, EvidenceGraph};

use super::coverage::Coverage;
use super::testrun::{self, Facts};
use super::{Profile, ProfileSpec, ReceiptGroup};

mod facts;
mod prove;
mod stream;

use stream::Line;

pub struct Tap;

/// A TAP test line in a head: `ok 3`, `not ok 12 - name`, indented or not.
static TEST_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^ *(?:not )?ok \d+(?: |$)").expect("static pattern"));
static PLAN_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^ *1\.\.\d+\s*$").expect("static pattern"));
static VERSION_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^TAP version 1[34]\s*$").expect("static pattern"));
/// prove's file header with its verdict on the same or the next line.
static PROVE_HEAD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?m)^\S+\.t \.{2,}(?: ok| skipped: .*| ?\n(?:Dubious, test returned|Failed \d+/\d+ subtests|No subtests run|1\.\.\d+))",
        r"|^Files=\d+, Tests=\d+, "
    ))
    .expect("static pattern")
});
/// prove's closing line, decisive wherever it comes.
static PROVE_FILES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Files=\d+, Tests=\d+, +\d+ wallclock secs").expect("static pattern")
});
/// node's (and tape's) closing counts: `# fail 7`, `# pass  3`.
static COUNT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(tests|suites|pass|fail|cancelled|skipped|todo) +(\d+)$").expect("static pattern")
});
/// bats's closing complaint: `bats warning: Executed 8 instead of expected 9 tests`.
static BATS_SHORT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^bats warning: Executed (\d+) instead of expected (\d+) tests").expect("static pattern")
});

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["node --test", "prove", "bats"],
    decisive_words: &["TAP version", "Files="],
    ..ProfileSpec::new("tap/v1", "tap", ReceiptGroup::TestRunner)
};

/// Node options that take the next word as their value.
const NODE_VALUED: &[&str] = &[
    "--test-reporter",
    "--test-reporter-destination",
    "--test-name-pattern",
    "--test-skip-pattern",
    "--test-concurrency",
    "--test-timeout",
    "--test-shard",
    "--require",
    "-r",
    "--import",
    "--loader",
    "--experimental-loader",
    "--env-file",
    "--conditions",
    "-C",
];

impl Profile for Tap {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn by_command(&self, argv: &[String]) -> Option<String> {
        let words = testrun::command_words(argv);
        match words.first().copied()? {
            "node" | "nodejs" => node_tap(&words[1..]).then(|| "command node --test".into()),
            "prove" => Some("command prove".into()),
            // bats prints TAP whenever its output is not a terminal, unless
            // told to pretty-print or to write another format.
            "bats" => {
                let other = words.windows(2).any(|w| {
                    matches!(w[0], "-F" | "--formatter") && !w[1].starts_with("tap")
                }) || words.iter().any(|w| {
                    matches!(*w, "-p" | "--pretty")
                        || w.strip_prefix("--formatter=").is_some_and(|f| !f.starts_with("tap"))
                });
                (!other).then(|| "command bats".into())
            }
            _ => None,
        }
    }

    fn by_content(&self, head: &str) -> Option<String> {
        if !super::mentions_any(head, &["ok ", "ok\n", "TAP version", ".t ..", "Files="]) {
            return None;
        }
        if VERSION_LINE.is_match(head) {
            return Some("TAP `TAP version 13/14` head".into());
        }
        if PROVE_HEAD.is_match(head) {
            return Some("prove `t/x.t ..` file verdicts".into());
        }
        let tests = TEST_LINE.find_iter(head).count();
        (tests >= 3 || (tests >= 2 && PLAN_LINE.is_match(head)))
            .then(|| "TAP `ok N`/`not ok N` lines".into())
    }

    fn decisive_line(&self, line: &str) -> Option<String> {
        if !line.starts_with(['T', 'F']) {
            return None;
        }
        if line.trim_end() == "TAP version 13" || line.trim_end() == "TAP version 14" {
            return Some("TAP `TAP version` line".into());
        }
        PROVE_FILES
            .is_match(line)
            .then(|| "prove `Files=N, Tests=M, … wallclock secs` line".into())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let mut stream = stream::Stream::default();
        let mut harness = prove::Harness::default();
        // The prove file each test line was read under.
        let mut point_file: Vec<Option<usize>> = Vec::new();
        let mut node_counts: Vec<(String, u64)> = Vec::new();
        let mut graph = EvidenceGraph::empty();
        let mut bats_short: Option<(u64, u64)> = None;
        let mut unmatched = 0usize;
        let mut seen_bats = false;
        for n in 1..=artifact.line_count() {
            let text = crate::profiles::visible(artifact, n);
            let text = text.trim_end();
            match stream.push(n, text) {
                Line::Test => point_file.push(harness.current),
                Line::Comment(0, c) => {
                    if let Some(m) = COUNT.captures(&c) {
                        node_counts.push((m[1].to_string(), m[2].parse().unwrap_or(0)));
                        graph.conclusion.push(crate::artifact::Span::line(n));
                    } else if let Some(m) = BATS_SHORT.captures(&c) {
                        bats_short = Some((m[1].parse().unwrap_or(0), m[2].parse().unwrap_or(0)));
                        graph.conclusion.push(crate::artifact::Span::line(n));
                    } else {
                        seen_bats |= c.starts_with("(in test file ") || c.starts_with("(from function ");
                        harness.push(n, text);
                    }
                }
                Line::Other => {
                    if let Some(m) = BATS_SHORT.captures(text) {
                        bats_short = Some((m[1].parse().unwrap_or(0), m[2].parse().unwrap_or(0)));
                        graph.conclusion.push(crate::artifact::Span::line(n));
                    } else if !harness.push(n, text) {
                        unmatched += 1;
                    }
                }
                _ => {}
            }
        }
        harness.finish();
        let tool = tool(artifact, &stream, &harness, !node_counts.is_empty(), seen_bats);
        graph.reader = crate::evidence::Reader::family(tool);
        let read = facts::Read {
            artifact,
            stream: &stream,
            harness: &harness,
            point_file: &point_file,
            cwd: artifact.cwd.as_deref(),
        };
        graph.items = read.items();
        if let Some((_, _, n)) = harness.totals {
            graph.conclusion.push(crate::artifact::Span::line(n));
        }
        if let Some((_, n)) = &harness.result {
            graph.conclusion.push(crate::artifact::Span::line(*n));
        }

        let (summary_seen, announced) = if !node_counts.is_empty() {
            let get = |w: &str| node_counts.iter().rev().find(|(k, _)| k == w).map(|(_, v)| *v);
            for (word, theirs, always) in [
                ("failed", "fail", true),
                ("cancelled", "cancelled", false),
                ("passed", "pass", true),
                ("skipped", "skipped", false),
                ("todo", "todo", false),
                ("tests", "tests", true),
            ] {
                let v = get(theirs).unwrap_or(0);
                if always || v > 0 {
                    graph.counts.push((word.to_string(), v));
                }
            }
            // node counts a failing describe block in neither `# fail` nor
            // `# cancelled`: it prints `not ok` for it all the same.
            let suites = stream
                .points
                .iter()
                .filter(|p| p.failed() && p.field("type") == Some("suite"))
                .count() as u64;
            let seen = get("fail").is_some() && get("tests").is_some();
            let announced = get("fail").unwrap_or(0) + get("cancelled").unwrap_or(0) + suites;
            (seen, Some(announced))
        } else if harness.totals.is_some() || harness.result.is_some() || !harness.files.is_empty() {
            let reported: Vec<&prove::File> =
                harness.files.iter().filter(|f| f.entry.is_some()).collect();
            let failed: u64 = reported.iter().map(|f| f.failed_count).sum();
            graph.counts.push(("failed".into(), failed));
            if !reported.is_empty() {
                graph.counts.push(("files failed".into(), reported.len() as u64));
            }
            if let Some((files, tests, _)) = harness.totals {
                graph.counts.push(("tests".into(), tests));
                graph.counts.push(("files".into(), files));
            }
            let announced = reported
                .iter()
                .map(|f| f.failed_count.max(f.failed.len() as u64) + u64::from(f.broke()))
                .sum::<u64>();
            // prove closes every run with them, one that bailed out too.
            let seen = harness.result.is_some() || harness.totals.is_some();
            (seen, seen.then_some(announced))
        } else {
            let top: Vec<&stream::Point> = stream.points.iter().filter(|p| p.depth == 0).collect();
            let failed = stream.points.iter().filter(|p| p.failed()).count() as u64;
            let skipped = top
                .iter()
                .filter(|p| p.ok && matches!(p.directive, Some(stream::Directive::Skip(_))))
                .count() as u64;
            let passed = top.iter().filter(|p| p.ok && p.directive.is_none()).count() as u64;
            let todo = top
                .iter()
                .filter(|p| matches!(p.directive, Some(stream::Directive::Todo(_))))
                .count() as u64;
            graph.counts.push(("failed".into(), failed));
            graph.counts.push(("passed".into(), passed));
            for (w, v) in [("skipped", skipped), ("todo", todo)] {
                if v > 0 {
                    graph.counts.push((w.into(), v));
                }
            }
            let planned = stream.plans.first().map(|(c, _)| *c);
            let ran = top.len() as u64;
            if let Some((_, n)) = stream.plans.first() {
                graph.conclusion.push(crate::artifact::Span::line(*n));
            }
            // Tests the plan promised that never ran (bats after a failed
            // `setup_file`, a bail-out): counted, as no line names them.
            if let Some(p) = planned
                && ran < p
            {
                graph.counts.push(("not run".into(), p - ran));
            }
            // The plan closes the stream when it comes last; when it comes
            // first, the stream is whole once that many tests have run (or
            // the producer said why not).
            let plan_last = stream
                .plans
                .first()
                .is_some_and(|(_, n)| top.last().is_none_or(|t| t.line < *n));
            let seen = planned.is_some_and(|p| plan_last || ran >= p)
                || bats_short.is_some()
                || !stream.bails.is_empty();
            (seen, None)
        };
        let not_run = graph.items.is_empty()
            && (harness.result.as_ref().is_some_and(|(r, _)| r == "NOTESTS")
                || (summary_seen && stream.points.is_empty() && harness.files.is_empty()));
        graph.outcome = testrun::outcome(
            artifact.exit,
            Facts {
                failures: graph.items.len(),
                summary_seen,
                interrupted: false,
                not_run,
                announced: announced.unwrap_or(0),
                crashed: false,
            },
        );
        let parsed = graph.items.len() as u64;
        let blocks = graph.items.iter().filter(|i| i.block.is_some()).count() as u64;
        let mut coverage = Coverage::of(artifact)
            .parsed(parsed)
            .announced(announced)
            .blocks(blocks)
            .unmatched(unmatched as u64)
            .maybe_cut(!summary_seen);
        if !summary_seen {
            coverage = coverage.doubt("no summary line: output may be truncated");
        } else if let Some(n) = announced.filter(|&n| n != parsed) {
            coverage = coverage.doubt(format!(
                "parsed {parsed} of {n} failure{} the summary announced",
                if n == 1 { "" } else { "s" }
            ));
        }
        (graph, coverage.finish())
    }
}

/// Whether a node command line runs the test runner with TAP on stdout:
/// `--test` or a `--test-reporter` option among node's own options (before
/// the script), and no reporter but `tap` bound for stdout.
fn node_tap(args: &[&str]) -> bool {
    let mut runner = false;
    let mut reporters: Vec<&str> = Vec::new();
    let mut destinations: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let w = args[i];
        if !w.starts_with('-') {
            // The script, or (under --test) a test file: node's options end
            // at the script; the test runner takes every path.
            if !runner {
                break;
            }
            i += 1;
            continue;
        }
        let (name, value) = match w.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (w, None),
        };
        let value = match value {
            Some(v) => Some(v),
            None if NODE_VALUED.contains(&name) => {
                i += 1;
                args.get(i).copied()
            }
            None => None,
        };
        match name {
            "--test" => runner = true,
            "--test-reporter" => {
                runner = true;
                reporters.extend(value);
            }
            "--test-reporter-destination" => destinations.extend(value),
            _ => {}
        }
        i += 1;
    }
    if !runner {
        return false;
    }
    if reporters.is_empty() {
        return true;
    }
    reporters.iter().enumerate().any(|(k, r)| {
        *r == "tap" && matches!(destinations.get(k).copied().unwrap_or("stdout"), "stdout" | "stderr")
    })
}

/// The tool a digest is headed by.
fn tool(
    artifact: &Artifact,
    stream: &stream::Stream,
    harness: &prove::Harness,
    node_counts: bool,
    bats: bool,
) -> &'static str {
    let words = testrun::command_words(&artifact.argv);
    match words.first().copied() {
        Some("node" | "nodejs") => return "node --test",
        Some("prove") => return "prove",
        Some("bats") => return "bats",
        _ => {}
    }
    let yaml_node = stream
        .points
        .iter()
        .any(|p| p.field("duration_ms").is_some() || p.field("failureType").is_some());
    if yaml_node && node_counts {
        "node --test"
    } else if harness.totals.is_some() || !harness.files.is_empty() {
        "prove"
    } else if bats {
        "bats"
    } else {
        "tap"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    #[test]
    fn node_is_claimed_only_as_the_tap_test_runner() {
        let claims = |s: &str| Tap.by_command(&argv(s)).is_some();
        assert!(claims("node --test"));
        assert!(claims("node --test test/"));
        assert!(claims("node --test --test-reporter=tap"));
        assert!(claims("node --test-reporter tap test/a.test.js"));
        assert!(claims("npx prove -v t/"));
        assert!(claims("prove -lr t"));
        assert!(claims("bats test/"));
        assert!(claims("bats --formatter tap13 test/"));
        assert!(claims(
            "node --test --test-reporter=spec --test-reporter-destination=out.txt --test-reporter=tap --test-reporter-destination=stdout"
        ));
        assert!(!claims("node server.js"));
        assert!(!claims("node script.js --test"));
        assert!(!claims("node"));
        assert!(!claims("node --test --test-reporter=spec"));
        assert!(!claims("node --test --test-reporter=junit"));
        assert!(!claims("bats --pretty test/"));
        assert!(!claims("bats -F junit test/"));
    }

    #[test]
    fn heads_that_are_tap() {
        let sniff = |s: &str| Tap.by_content(s).is_some();
        assert!(sniff("TAP version 13\n# Subtest: a\n"));
        assert!(sniff("1..3\nnot ok 1 adds\n# (in test file t.bats, line 3)\nok 2 b\n"));
        assert!(sniff("t/cart.t .. \nDubious, test returned 2 (wstat 512, 0x200)\n"));
        assert!(sniff("t/a.t .. ok\nt/b.t .. ok\nAll tests successful.\nFiles=2, Tests=4,  0 wallclock secs\n"));
        assert!(!sniff("ok\nok  \tgithub.com/x/y\t0.01s\n"));
        assert!(!sniff("test a ... ok\ntest b ... ok\n"));
        assert!(!sniff("ok 1 thing\n"));
    }
}
