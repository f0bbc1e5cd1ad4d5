//! junit/v1 — JUnit XML reports from any producer (pytest `--junitxml`,
//! jest-junit, Maven Surefire, Gradle, nextest), as `ctx digest report.xml`.
//!
//! **Decision.** Which test cases failed or errored, with what message,
//! and where in the report (and the code) is each one? The reader opens
//! the failing case's XML or the file it names.
//!
//! **Unsafe loss.** A case named by its `name` only (the same name under
//! many classnames), an `<error>` case (setup error, suite that failed to
//! run) left out because it is not a `<failure>`, a truncated report read
//! as complete.
//!
//! **Typed facts.** `FailingTest` per `<testcase>` with a `<failure>`,
//! `TestError` per one with only an `<error>`; identity
//! `<classname>::<name>` (just `<name>` when the classname is empty): the
//! only pair every producer fills. class = the `type` attribute, else the
//! element name; summary = the `message` attribute, else the first line of
//! the element's text; location = `file`/`line` attributes, else the last
//! `path:line` frame in the text outside site-packages and node_modules,
//! else the classname; no headline (the `<testcase>` line carries `time`);
//! detail = the `<failure>` line and `E` / Expected / Received lines; block
//! = the raw XML lines of the whole `<testcase>`. Counts: cases by result;
//! announced = the `<testsuite>` elements' `failures` + `errors`.
//!
//! **Ladder.** PASS_SUMMARY (counts) → FAIL_CENSUS (every identity, detail
//! while the budget lasts) → DENSE (census only; each case's XML by `--item
//! ID`) → FLOOD (grouped by classname and class with exact counts; `--items`).

use std::collections::HashMap;
use std::sync::LazyLock;

use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
use regex::Regex;

use crate::artifact::{Artifact, Span};
use crate::evidence::{
    CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Location, Outcome, Severity,
};

use super::{Profile, ProfileSpec, ReceiptGroup};
use super::testrun::{self, Facts};

mod kin;

pub struct Junit;

/// A `path:line` a traceback names: `tests/x.py:7: Error`, `(src/a.js:15:39)`.
/// Python's own frame and syntax-error form: `File "/abs/x.py", line 2`.
static PY_FILE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"File "([^"]+\.py)", line (\d+)"#).expect("static pattern"));
/// pytest's exception line in a report's text: `E   KeyError: 'medium'`.
static PY_EXCEPTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^E\s+([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)\b.*)$")
        .expect("static pattern")
});
static FRAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"([\w./@-]+\.(?:py|js|ts|jsx|tsx|mjs|java|kt|go|rs|rb|cs)):(\d+)")
        .expect("static pattern")
});
static DECISIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(E\s|Expected|Received|- Expected|\+ Received)").expect("static pattern")
});

/// A `<testcase>` being read.
#[derive(Default)]
struct Case {
    /// The case's whole name, when the format has one (NUnit's `fullname`,
    /// xUnit.net's `name`); else `classname::name`.
    identity: Option<String>,
    classname: String,
    name: String,
    file: Option<String>,
    line: Option<u32>,
    first: usize,
    failure: Option<(bool, usize)>, // (is a <failure>, line)
    class: Option<String>,
    message: Option<String>,
    text: String,
    skipped: bool,
}

static SPEC: ProfileSpec = ProfileSpec::new("junit/v1", "junit", ReceiptGroup::TestRunner);

impl Profile for Junit {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }


    fn by_content(&self, head: &str) -> Option<String> {
        // A byte-order mark before the declaration (Windows tools, .NET
        // loggers write one) is not content.
        let start = head.trim_start_matches('\u{feff}').trim_start();
        let xml = start.starts_with("<?xml") || start.starts_with('<');
        if !xml {
            return None;
        }
        if let Some(d) = kin::of(start) {
            return Some(format!("{} XML `<{}>`", d.format, d.root));
        }
        (head.contains("<testsuite")).then(|| "JUnit XML `<testsuite>`".to_string())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let head = super::sniff::head(artifact);
        if let Some(d) = kin::of(head.trim_start_matches('\u{feff}')) {
            return kin::extract(artifact, d);
        }
        let cwd = artifact.cwd.as_deref();
        let mut graph = EvidenceGraph::empty();
        graph.reader = crate::evidence::Reader::family("junit");
        let mut reader = Reader::from_reader(artifact.bytes());
        reader.config_mut().trim_text(false);
        let line_of = |offset: u64| line_of(artifact, offset as usize);
        let (mut case, mut in_text) = (None::<Case>, false);
        let (mut announced, mut suites, mut complete) = (0u64, 0usize, false);
        let mut seen = LineFacts::default();
        let mut tally = Tally::default();
        loop {
            let before = reader.buffer_position();
            let event = match reader.read_event() {
                Ok(Event::Eof) => break,
                Ok(e) => e,
                Err(_) => break, // cut or malformed: what was read stands, the receipt says so
            };
            let empty = matches!(event, Event::Empty(_));
            match event {
                Event::Start(e) | Event::Empty(e) if e.name().into_inner() == "testsuite" => {
                    suites += 1;
                    announced += attr(&e, "failures")
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(0);
                    announced += attr(&e, "errors").and_then(|v| v.parse().ok()).unwrap_or(0);
                }
                Event::End(e) if e.name().into_inner() == "testsuites" => complete = true,
                Event::End(e) if e.name().into_inner() == "testsuite" => complete = true,
                Event::Start(e) if e.name().into_inner() == "testsuite" => {}
                Event::Start(e) | Event::Empty(e) if e.name().into_inner() == "testcase" => {
                    complete = false;
                    let c = Case {
                        classname: attr(&e, "classname").unwrap_or_default(),
                        name: attr(&e, "name").unwrap_or_default(),
                        file: attr(&e, "file"),
                        line: attr(&e, "line").and_then(|v| v.parse().ok()),
                        first: line_of(before),
                        ..Case::default()
                    };
                    // `status="disabled"` (and its kin) is a test that did
                    // not run, whether or not a <skipped/> says so too.
                    let not_run = attr(&e, "status").is_some_and(|s| {
                        matches!(
                            s.to_ascii_lowercase().as_str(),
                            "disabled" | "skipped" | "notrun" | "ignored"
                        )
                    });
                    let mut c = c;
                    c.skipped = not_run;
                    case = Some(c);
                    if empty {
                        if not_run {
                            tally.skipped += 1;
                        } else {
                            tally.passed += 1;
                        }
                        case = None;
                    }
                }
                Event::Start(e) | Event::Empty(e)
                    if matches!(e.name().into_inner(), "failure" | "error") =>
                {
                    if let Some(c) = case.as_mut() {
                        let is_failure = e.name().into_inner() == "failure";
                        // An <error> outranks a <failure> in the same case:
                        // consumers (Jenkins, junitparser) count it an error.
                        if c.failure.is_none_or(|(f, _)| f && !is_failure) {
                            c.failure = Some((is_failure, line_of(before)));
                            c.class = attr(&e, "type").filter(|t| !t.is_empty());
                            c.message = attr(&e, "message").filter(|m| !m.trim().is_empty());
                        }
                        in_text = !empty;
                    }
                }
                Event::End(e) if matches!(e.name().into_inner(), "failure" | "error") => {
                    in_text = false
                }
                Event::Start(e) | Event::Empty(e) if e.name().into_inner() == "skipped" => {
                    if let Some(c) = case.as_mut() {
                        c.skipped = true;
                    }
                }
                Event::Text(t) if in_text => {
                    if let Some(c) = case.as_mut().filter(|c| c.text.len() < 64 * 1024) {
                        c.text.push_str(&t);
                    }
                }
                Event::CData(t) if in_text => {
                    if let Some(c) = case.as_mut().filter(|c| c.text.len() < 64 * 1024) {
                        c.text.push_str(&t);
                    }
                }
                Event::GeneralRef(r) if in_text => {
                    if let Some(c) = case.as_mut() {
                        c.text.push_str(entity(&r[..]));
                    }
                }
                Event::End(e) if e.name().into_inner() == "testcase" => {
                    let Some(c) = case.take() else { continue };
                    let last = line_of(reader.buffer_position().saturating_sub(1));
                    match c.failure {
                        Some((true, _)) => tally.failed += 1,
                        Some((false, _)) => tally.errors += 1,
                        None if c.skipped => tally.skipped += 1,
                        None => tally.passed += 1,
                    }
                    if c.failure.is_some() {
                        graph.items.push(item(artifact, c, last, cwd, &mut seen));
                    }
                }
                _ => {}
            }
        }
        let summary_seen = complete && suites > 0;
        let receipt = conclude(artifact, &mut graph, tally, announced, summary_seen);
        // Suites that announce failures but list no <testcase> (summary
        // reports): never a pass.
        if graph.items.is_empty() && announced > 0 {
            graph.outcome = Outcome::Failed;
            graph.counts.push(("announced failures".into(), announced));
        }
        (graph, receipt)
    }
}

/// The cases a report's walk counted, by verdict.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    failed: u64,
    errors: u64,
    skipped: u64,
    passed: u64,
}

/// The ending every XML report shares (JUnit's and its kin's): the counts
/// by verdict, the outcome under the outcome rule with a file reader's
/// exit set aside, and the receipt against the failures the report
/// announced, when its summary (the root's end) was seen.
fn conclude(
    artifact: &Artifact,
    graph: &mut EvidenceGraph,
    tally: Tally,
    announced: u64,
    summary_seen: bool,
) -> CoverageReceipt {
    for (word, k) in [
        ("failures", tally.failed),
        ("errors", tally.errors),
        ("skipped", tally.skipped),
        ("passed", tally.passed),
    ] {
        if k > 0 || word == "passed" {
            graph.counts.push((word.into(), k));
        }
    }
    let facts = Facts {
        failures: graph.items.len(),
        summary_seen,
        ..Facts::default()
    };
    graph.outcome = testrun::outcome(run_exit(artifact), facts);
    let n = graph.items.len();
    testrun::receipt(
        artifact,
        n,
        summary_seen.then_some(announced),
        n,
        0,
        summary_seen,
    )
}

/// What the detail rule needs to know of a line: whether it carries a
/// volatile attribute, whether it is decisive. Learned once per line: in a
/// report written on one line (pytest's), every failing case is on line 1,
/// and looking at that line again per case was quadratic.
#[derive(Default)]
struct LineFacts(HashMap<usize, (bool, bool)>);

impl LineFacts {
    /// (volatile, decisive) for line `n`.
    fn of(&mut self, artifact: &Artifact, n: usize) -> (bool, bool) {
        *self.0.entry(n).or_insert_with(|| {
            let text = crate::profiles::visible(artifact, n);
            // NUnit's `start-time`/`duration`, xUnit.net's `run-time` too.
            let volatile = [" time=\"", " timestamp=\"", "-time=\"", " duration=\"", " run-date=\""]
                .iter()
                .any(|a| text.contains(a));
            (volatile, DECISIVE.is_match(&text))
        })
    }
}

fn item(
    artifact: &Artifact,
    c: Case,
    last: usize,
    cwd: Option<&str>,
    seen: &mut LineFacts,
) -> EvidenceItem {
    let identity = match &c.identity {
        Some(id) => id.clone(),
        None if c.classname.is_empty() => c.name.clone(),
        None => format!("{}::{}", c.classname, c.name),
    };
    let (is_failure, failure_line) = c.failure.unwrap_or((true, c.first));
    let kind = if is_failure {
        ItemKind::FailingTest
    } else {
        ItemKind::TestError
    };
    let mut it = EvidenceItem::new(kind, Severity::Error, identity);
    // jest-junit opens the text with the `● <title>` heading (`● Test
    // suite failed to run`): a status, not the reason that follows it.
    let first_text = c
        .text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("● "))
        .map(String::from);
    // pytest writes `message="collection failure"` for a module that could
    // not be imported: a status word. The exception it ends with is the reason.
    let exception = c
        .text
        .lines()
        .rev()
        .find_map(|l| PY_EXCEPTION.captures(l.trim_end()))
        .map(|m| m[1].to_string());
    let generic = c
        .message
        .as_deref()
        .is_none_or(|m| m.is_empty() || m == "collection failure");
    it.summary = match (generic, exception) {
        (true, Some(e)) => Some(e),
        _ => c.message.clone().filter(|m| !m.is_empty()).or(first_text),
    };
    it.class = c
        .class
        .clone()
        .or_else(|| Some(if is_failure { "failure" } else { "error" }.into()));
    let frame = c
        .text
        .lines()
        .filter(|l| {
            !l.contains("site-packages") && !l.contains("node_modules") && !l.contains("<frozen")
        })
        .filter_map(|l| FRAME.captures(l))
        .map(|m| (testrun::relative(&m[1], cwd), m[2].parse().ok()))
        .rfind(|(f, _)| !f.starts_with('/'))
        .or_else(|| {
            // A syntax error names its file only as `File "…", line N`.
            c.text
                .lines()
                .filter(|l| !l.contains("site-packages") && !l.contains("/lib/python"))
                .rev()
                .find_map(|l| PY_FILE.captures(l))
                .map(|m| (testrun::relative(&m[1], cwd), m[2].parse().ok()))
        });
    it.location = Some(match (&c.file, frame) {
        // The report names the file; a stack frame in that file has the line.
        (Some(file), frame) => Location {
            file: file.clone(),
            line: c
                .line
                .or(frame.filter(|(f, _)| f == file).and_then(|(_, l)| l))
                .or_else(|| line_in(&c.text, file)),
            column: None,
        },
        (None, Some((file, line))) => Location {
            file,
            line,
            column: None,
        },
        (None, None) => Location {
            file: c.classname.clone(),
            line: None,
            column: None,
        },
    });
    it.block = Some(Span::new(c.first, last.max(c.first)));
    // A line carrying `time=`/`timestamp=` (pytest writes the suite header
    // and the first testcase on one line) would make reruns differ: such a
    // line stays in the block, never in the detail.
    let mut lines = Vec::new();
    if !seen.of(artifact, failure_line).0 {
        lines.push(failure_line);
    }
    for n in failure_line..=last.min(failure_line + 400) {
        let (volatile, decisive) = seen.of(artifact, n);
        if decisive && !volatile {
            lines.push(n);
        }
    }
    it.detail = testrun::spans(&lines, 10);
    it
}

/// The exit status that speaks for the run: none when the report was read
/// from a file (`cat report.xml`), whose reader's status says nothing of
/// the tests; the report's cases then decide alone.
fn run_exit(artifact: &Artifact) -> crate::artifact::Exit {
    const READERS: &[&str] = &["cat", "bat", "less", "more", "head", "tail", "type", "Get-Content"];
    let words = testrun::command_words(&artifact.argv);
    match words.first() {
        Some(w) if READERS.contains(w) => crate::artifact::Exit::Unknown,
        _ => artifact.exit,
    }
}

/// The line of the first frame in `text` that lies in `file`, the frame
/// absolute where the report names the file relative (TRX's `storage`).
fn line_in(text: &str, file: &str) -> Option<u32> {
    let suffix = format!("/{file}");
    text.lines()
        .filter_map(|l| FRAME.captures(l))
        .find(|m| &m[1] == file || m[1].ends_with(&suffix))
        .and_then(|m| m[2].parse().ok())
}

/// An attribute's value, entities resolved.
fn attr(e: &BytesStart, name: &str) -> Option<String> {
    let a = e.try_get_attribute(name).ok()??;
    a.normalized_value(XmlVersion::Implicit1_0)
        .ok()
        .map(|v| v.into_owned())
}

fn entity(r: &str) -> &'static str {
    match r {
        "quot" => "\"",
        "amp" => "&",
        "lt" => "<",
        "gt" => ">",
        "apos" => "'",
        _ => "?",
    }
}

/// The 1-based line a byte offset falls on.
fn line_of(artifact: &Artifact, offset: usize) -> usize {
    let (mut lo, mut hi) = (1usize, artifact.line_count().max(1));
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        match artifact.line_start(mid) {
            Some(start) if start <= offset => lo = mid,
            _ => hi = mid - 1,
        }
    }
    lo
}
