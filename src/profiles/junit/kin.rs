//! JUnit's kin: the NUnit 3 (`<test-run>` / `<test-case>`), xUnit.net v2
//! (`<assemblies>` / `<test>`) and Visual Studio TRX (`<TestRun>` /
//! `<UnitTestResult>`) XML reports, which .NET runners write and other
//! producers copy (pytest-nunit, mocha-xunit-reporter,
//! jest-trx-results-processor). One walker reads all three; a [`Dialect`]
//! says where each fact sits.
//!
//! A case's verdict is its `result` attribute (and NUnit's `label`), never
//! the presence of a `<failure>` element: pytest-nunit writes an empty
//! `<failure>` under every passing case, and its `<test-run result=…>`
//! can say `Passed` over fifteen failures. The failure's `<message>` and
//! `<stack-trace>` children are its text.

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use crate::artifact::Artifact;
use crate::evidence::{CoverageReceipt, EvidenceGraph};

use super::{Case, LineFacts, Tally, attr, conclude, entity, item, line_of};
use crate::profiles::testrun;

/// How one case ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    Passed,
    Failed,
    Error,
    Skipped,
}

/// Where one report format keeps each fact.
pub(super) struct Dialect {
    /// The format's name, for `ctx explain`.
    pub format: &'static str,
    /// The root element, by which the format is recognised.
    pub root: &'static str,
    /// The element of one test case.
    pub case: &'static str,
    /// The case's attributes that name it, the first present wins.
    pub identity: &'static [&'static str],
    /// The attribute a producer puts the test's class (suite) in.
    pub classname: &'static str,
    /// The attribute holding a case's verdict.
    pub result: &'static str,
    /// The verdict of a case's result (and `label`) attributes.
    pub verdict: fn(&str, Option<&str>) -> Verdict,
    /// The element holding a failure's message and stack trace.
    pub failure: &'static str,
    /// Its children: the message, the stack trace.
    pub message: &'static str,
    pub stack: &'static str,
    /// The `<failure>` attribute naming the exception, when the format has one.
    pub exception: Option<&'static str>,
    /// The elements whose attributes announce the failures, and those
    /// attributes.
    pub announcing: &'static str,
    pub announced: &'static [&'static str],
    /// Where the format names a test's file apart from its result: the
    /// definition element, its id and file attributes, and the result's
    /// attribute that refers to it (TRX's `<UnitTest id storage>` and
    /// `<UnitTestResult testId>`).
    pub definitions: Option<(&'static str, &'static str, &'static str, &'static str)>,
}

pub(super) static NUNIT: Dialect = Dialect {
    format: "NUnit 3",
    root: "test-run",
    case: "test-case",
    identity: &["fullname", "name"],
    classname: "classname",
    result: "result",
    failure: "failure",
    message: "message",
    stack: "stack-trace",
    announced: &["failed"],
    definitions: None,
    // NUnit 3: result Passed/Failed/Skipped/Inconclusive/Warning; a failed
    // case labelled `Error` raised rather than failed an assertion.
    verdict: |result, label| match result {
        "Failed" if matches!(label, Some("Error" | "Invalid" | "Cancelled")) => Verdict::Error,
        "Failed" => Verdict::Failed,
        "Skipped" | "Inconclusive" | "Ignored" => Verdict::Skipped,
        _ => Verdict::Passed,
    },
    exception: None,
    announcing: "test-run",
};

pub(super) static XUNIT: Dialect = Dialect {
    format: "xUnit.net v2",
    root: "assemblies",
    case: "test",
    identity: &["name"],
    classname: "type",
    result: "result",
    failure: "failure",
    message: "message",
    stack: "stack-trace",
    announced: &["failed"],
    definitions: None,
    // xUnit.net v2: result Pass/Fail/Skip/NotRun.
    verdict: |result, _| match result {
        "Fail" => Verdict::Failed,
        "Skip" | "NotRun" => Verdict::Skipped,
        _ => Verdict::Passed,
    },
    exception: Some("exception-type"),
    announcing: "assembly",
};

pub(super) static TRX: Dialect = Dialect {
    format: "TRX",
    root: "TestRun",
    case: "UnitTestResult",
    identity: &["testName"],
    classname: "",
    result: "outcome",
    // Visual Studio's outcomes: an error, a timeout or an abort is the
    // test's error; a test that did not execute is not a pass.
    verdict: |outcome, _| match outcome {
        "Failed" => Verdict::Failed,
        "Error" | "Timeout" | "Aborted" => Verdict::Error,
        "NotExecuted" | "Inconclusive" | "NotRunnable" | "Pending" => Verdict::Skipped,
        _ => Verdict::Passed,
    },
    failure: "ErrorInfo",
    message: "Message",
    stack: "StackTrace",
    exception: None,
    announcing: "Counters",
    announced: &["failed", "error", "timeout", "aborted"],
    definitions: Some(("UnitTest", "id", "storage", "testId")),
};

/// The dialect whose root element opens `head` (after the declaration and
/// any comment).
pub(super) fn of(head: &str) -> Option<&'static Dialect> {
    let mut reader = Reader::from_str(head);
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) | Ok(Event::Empty(e)) => {
                let name = e.name().into_inner();
                return [&NUNIT, &XUNIT, &TRX]
                    .into_iter()
                    .find(|d| name == d.root);
            }
            Ok(Event::Eof) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

/// Which child element's text is being read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Text {
    None,
    Message,
    Stack,
}

pub(super) fn extract(artifact: &Artifact, d: &Dialect) -> (EvidenceGraph, CoverageReceipt) {
    let cwd = artifact.cwd.as_deref();
    let mut graph = EvidenceGraph::empty();
    graph.reader = crate::evidence::Reader::family("junit");
    let mut reader = Reader::from_reader(artifact.bytes());
    reader.config_mut().trim_text(false);
    let mut seen = LineFacts::default();
    // The files the definitions name, by id (TRX writes them before the
    // results).
    let mut files: std::collections::HashMap<String, String> = Default::default();
    // The case being read, its verdict, and that verdict as the report
    // words it.
    let mut case: Option<(Case, Verdict, String)> = None;
    let mut text = Text::None;
    let mut message = String::new();
    // The lines of the failure's <message>: its detail, with the
    // <failure> line (the case's own line carries volatile times).
    let mut message_lines: Option<(usize, usize)> = None;
    let (mut announced, mut announcing, mut complete) = (0u64, 0usize, false);
    let mut tally = Tally::default();
    let mut count = |v: Verdict| match v {
        Verdict::Failed => tally.failed += 1,
        Verdict::Error => tally.errors += 1,
        Verdict::Skipped => tally.skipped += 1,
        Verdict::Passed => tally.passed += 1,
    };
    loop {
        let before = reader.buffer_position();
        let event = match reader.read_event() {
            Ok(Event::Eof) => break,
            Ok(e) => e,
            Err(_) => break, // cut or malformed: the receipt says so
        };
        let empty = matches!(event, Event::Empty(_));
        match event {
            Event::Start(e) | Event::Empty(e) if name(&e) == d.announcing => {
                announcing += 1;
                for a in d.announced {
                    announced += attr(&e, a)
                        .and_then(|v| v.parse::<u64>().ok())
                        .unwrap_or(0);
                }
            }
            Event::End(e) if e.name().into_inner() == d.root => complete = true,
            Event::Start(e) | Event::Empty(e)
                if d.definitions.is_some_and(|(el, ..)| name(&e) == el) =>
            {
                if let Some((_, id, file, _)) = d.definitions
                    && let (Some(id), Some(file)) = (attr(&e, id), attr(&e, file))
                {
                    files.insert(id, file);
                }
            }
            Event::Start(e) | Event::Empty(e) if name(&e) == d.case => {
                let identity = d.identity.iter().find_map(|a| attr(&e, a).filter(|v| !v.is_empty()));
                let result = attr(&e, d.result).unwrap_or_default();
                let verdict = (d.verdict)(&result, attr(&e, "label").as_deref());
                let file = d
                    .definitions
                    .and_then(|(.., by)| attr(&e, by))
                    .and_then(|id| files.get(&id).cloned());
                let c = Case {
                    identity,
                    file,
                    classname: (!d.classname.is_empty())
                        .then(|| attr(&e, d.classname))
                        .flatten()
                        .unwrap_or_default(),
                    name: attr(&e, "name").unwrap_or_default(),
                    first: line_of(artifact, before as usize),
                    ..Case::default()
                };
                if empty {
                    count(verdict);
                } else {
                    case = Some((c, verdict, result));
                }
            }
            Event::Start(e) | Event::Empty(e) if name(&e) == d.failure => {
                if let Some((c, v, _)) = case.as_mut().filter(|(_, v, _)| *v != Verdict::Passed) {
                    c.failure = Some((*v != Verdict::Error, line_of(artifact, before as usize)));
                    c.class = d
                        .exception
                        .and_then(|a| attr(&e, a))
                        .filter(|t| !t.is_empty());
                }
            }
            Event::Start(e) if name(&e) == d.message && case.is_some() => {
                text = Text::Message;
                message.clear();
                let at = line_of(artifact, before as usize);
                message_lines = Some((at, at));
            }
            Event::Start(e) if name(&e) == d.stack && case.is_some() => text = Text::Stack,
            Event::End(e) if [d.message, d.stack].contains(&e.name().into_inner()) => {
                if text == Text::Message
                    && let Some((c, ..)) = case.as_mut()
                {
                    c.message = Some(message.trim().to_string()).filter(|m| !m.is_empty());
                    if let Some((_, end)) = message_lines.as_mut() {
                        *end = line_of(artifact, reader.buffer_position().saturating_sub(1) as usize);
                    }
                }
                text = Text::None;
            }
            Event::Text(t) if text != Text::None => push(&mut case, &mut message, text, &t),
            Event::CData(t) if text != Text::None => {
                push(&mut case, &mut message, text, &t)
            }
            Event::GeneralRef(r) if text != Text::None => {
                push(&mut case, &mut message, text, entity(&r[..]))
            }
            Event::End(e) if e.name().into_inner() == d.case => {
                let Some((mut c, verdict, result)) = case.take() else {
                    continue;
                };
                let said = message_lines.take();
                count(verdict);
                if matches!(verdict, Verdict::Failed | Verdict::Error) {
                    // A failing case with no <failure> child is still one.
                    c.failure
                        .get_or_insert((verdict != Verdict::Error, c.first));
                    // pytest-nunit writes an empty message and stack trace
                    // for a setup error: say so, rather than let a report's
                    // line stand for the reason.
                    if c.message.is_none() && c.text.trim().is_empty() {
                        c.message = Some(format!("{result} (the report gives no message)"));
                    }
                    let last = line_of(artifact, reader.buffer_position().saturating_sub(1) as usize);
                    let mut it = item(artifact, c, last, cwd, &mut seen);
                    if let Some((first, end)) = said {
                        let mut lines: Vec<usize> = it.detail.iter().flat_map(|s| s.first..=s.last).collect();
                        lines.extend((first..=end).filter(|&n| !seen.of(artifact, n).0).take(6));
                        it.detail = testrun::spans(&lines, 10);
                    }
                    graph.items.push(it);
                }
            }
            _ => {}
        }
    }
    let receipt = conclude(
        artifact,
        &mut graph,
        tally,
        announced,
        complete && announcing > 0,
    );
    (graph, receipt)
}

fn name<'e>(e: &'e BytesStart) -> &'e str {
    e.name().into_inner()
}

/// Text of a failure's `<message>` or `<stack-trace>`: the message whole
/// for the summary, both in the case's text for its frames.
fn push(case: &mut Option<(Case, Verdict, String)>, message: &mut String, text: Text, t: &str) {
    let Some((c, ..)) = case.as_mut() else {
        return;
    };
    if text == Text::Message && message.len() < 16 * 1024 {
        message.push_str(t);
    }
    if c.text.len() < 64 * 1024 {
        c.text.push_str(t);
        if !c.text.ends_with('\n') {
            c.text.push('\n');
        }
    }
}
