//! JUnit XML (`--format junit`): a test run's census as the report a CI
//! that only reads JUnit understands, whichever runner wrote the output.
//!
//! `<testsuites>` carries the run's counts as the runner printed them
//! (tests, failures, errors, skipped); one `<testsuite>` per file, module
//! or package the failing tests belong to, in the order they came; one
//! `<testcase>` per failing test (`<failure>`), setup or collection error,
//! suite that did not run and build error that kept the tests from running
//! (`<error>`), with the tool's message and
//! the item's whole block of output as its body. Passing tests are
//! counted, never listed: the output does not name them, and ctx writes
//! no test it did not see. A failing exit with no failure parsed becomes
//! one `<error>` test case of ctx's own, so a broken run never reads as a
//! clean report (invariant 10).
//!
//! Pure: the graph, the artifact (for the blocks' lines and the exit), a
//! [`Workspace`] and the archive key in, bytes out.

use std::borrow::Cow;

use quick_xml::Writer;
use quick_xml::events::attributes::Attribute;
use quick_xml::events::{BytesDecl, BytesText, Event};
use quick_xml::name::QName;

use crate::artifact::Artifact;
use crate::delivery_plan::Address;
use crate::evidence::{EvidenceGraph, EvidenceItem, ItemKind, Severity};
use crate::normalize;
use crate::render::detail::Part;
use crate::render::workflow::{is_test, reason};
use crate::store::ArchiveKey;
use crate::words::CTX_PREFIX;
use crate::workspace::Workspace;

/// Where an identity's suite ends and the test's own name starts:
/// `file > describe > test` (jest, vitest), `file.py::Class::test`
/// (pytest, JUnit reports), `package Test` (go), `target test` (cargo).
/// The earliest separator wins; at the same place, the longer.
pub const SEPARATORS: [&str; 3] = [" > ", "::", " "];

/// The JUnit report of one digested test run, ending with `\n`.
pub fn render(
    artifact: &Artifact,
    graph: &EvidenceGraph,
    profile: &str,
    workspace: &Workspace,
    key: Option<&ArchiveKey>,
) -> Vec<u8> {
    let tool = super::tool_name(graph, profile);
    let mut cases: Vec<Case> = graph
        .items
        .iter()
        .filter(|i| reported(i))
        .map(|item| Case::of(artifact, tool, item, workspace, key))
        .collect();
    if artifact.exit.is_failure() && cases.is_empty() {
        let how = artifact.exit.describe().unwrap_or_default();
        let expand = key.map_or_else(String::new, |k| format!("; ctx expand {}", k.short()));
        cases.push(Case {
            suite: "ctx".into(),
            name: tool.to_string(),
            file: None,
            line: None,
            verdict: Verdict::Error,
            message: format!("{how} but no failing test was parsed from the output{expand}"),
            class: None,
            body: String::new(),
        });
    }
    let totals = Totals::of(graph, &cases);

    let mut writer = Writer::new_with_indent(Vec::new(), b' ', 2);
    // Writing to a Vec cannot fail.
    let _ = write(&mut writer, tool, &totals, &cases);
    let mut bytes = writer.into_inner();
    bytes.push(b'\n');
    bytes
}

fn write(
    w: &mut Writer<Vec<u8>>,
    tool: &str,
    totals: &Totals,
    cases: &[Case],
) -> std::io::Result<()> {
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let mut suites: Vec<&str> = Vec::new();
    for case in cases {
        if !suites.contains(&case.suite.as_str()) {
            suites.push(&case.suite);
        }
    }
    w.create_element("testsuites")
        .with_attributes([
            attr("name", tool),
            attr("tests", &totals.tests.to_string()),
            attr("failures", &totals.failures.to_string()),
            attr("errors", &totals.errors.to_string()),
            attr("skipped", &totals.skipped.to_string()),
        ])
        .write_inner_content(|w| {
            for suite in &suites {
                let mine: Vec<&Case> = cases.iter().filter(|c| c.suite == *suite).collect();
                let failures = mine
                    .iter()
                    .filter(|c| c.verdict == Verdict::Failure)
                    .count();
                let errors = mine.len() - failures;
                w.create_element("testsuite")
                    .with_attributes([
                        attr("name", suite),
                        attr("tests", &mine.len().to_string()),
                        attr("failures", &failures.to_string()),
                        attr("errors", &errors.to_string()),
                        attr("skipped", "0"),
                    ])
                    .write_inner_content(|w| {
                        for case in mine {
                            write_case(w, case)?;
                        }
                        Ok(())
                    })?;
            }
            Ok(())
        })?;
    Ok(())
}

fn write_case(w: &mut Writer<Vec<u8>>, case: &Case) -> std::io::Result<()> {
    let mut attrs = vec![attr("classname", &case.suite), attr("name", &case.name)];
    if let Some(file) = &case.file {
        attrs.push(attr("file", file));
    }
    if let Some(line) = case.line {
        attrs.push(attr("line", &line.to_string()));
    }
    w.create_element("testcase")
        .with_attributes(attrs)
        .write_inner_content(|w| {
            let tag = match case.verdict {
                Verdict::Failure => "failure",
                Verdict::Error => "error",
            };
            let mut attrs = vec![attr("message", &case.message)];
            if let Some(class) = &case.class {
                attrs.push(attr("type", class));
            }
            let element = w.create_element(tag).with_attributes(attrs);
            if case.body.is_empty() {
                element.write_empty()?;
            } else {
                // `<`, `>` and `&` escaped; quotes stay readable in a body.
                let text = quick_xml::escape::partial_escape(xml_text(&case.body));
                element.write_text_content(BytesText::from_escaped(text))?;
            }
            Ok(())
        })?;
    Ok(())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Failure,
    Error,
}

/// One `<testcase>`.
struct Case {
    suite: String,
    name: String,
    file: Option<String>,
    line: Option<u32>,
    verdict: Verdict,
    message: String,
    class: Option<String>,
    body: String,
}

impl Case {
    fn of(
        artifact: &Artifact,
        tool: &str,
        item: &EvidenceItem,
        workspace: &Workspace,
        key: Option<&ArchiveKey>,
    ) -> Case {
        // A test is split into its suite and name; a build error that
        // kept the tests from running is a case of the tool's, named by
        // its whole identity (`tests/a.rs:6:15 E0308`).
        let suite_field = item.fields.get(crate::evidence::SUITE_FIELD);
        let (suite, name) = if let Some(suite) = suite_field.filter(|_| is_test(item.kind)) {
            in_suite(&item.identity, suite)
                .unwrap_or_else(|| (tool.to_string(), item.identity.clone()))
        } else if is_test(item.kind) {
            split(&item.identity)
        } else {
            (tool.to_string(), item.identity.clone())
        };
        let location = item.location.as_ref().filter(|l| !l.file.trim().is_empty());
        Case {
            suite,
            name,
            // A location without a line is a package or module name, not
            // a file (go's `example.com/shop/cart`).
            file: location
                .filter(|l| l.line.is_some())
                .map(|l| workspace.place(&l.file).as_str().to_string()),
            line: location.and_then(|l| l.line),
            verdict: match item.kind {
                ItemKind::FailingTest => Verdict::Failure,
                _ => Verdict::Error,
            },
            message: reason(item),
            class: item.class.clone().filter(|c| !c.trim().is_empty()),
            body: body(artifact, item, key),
        }
    }
}

/// What becomes a test case: every failing test, test error and suite
/// that did not run, and the errors of a build that kept tests from
/// running (a test run's census counts them).
fn reported(item: &EvidenceItem) -> bool {
    is_test(item.kind)
        || (matches!(item.kind, ItemKind::Diagnostic | ItemKind::BuildFailure)
            && item.severity == Severity::Error)
}

/// `(suite, test)` of an identity, by [`SEPARATORS`]; an identity with no
/// separator is its own suite and test (a test file that did not run).
pub fn split(identity: &str) -> (String, String) {
    let mut best: Option<(usize, &str)> = None;
    for sep in SEPARATORS {
        if let Some(at) = identity.find(sep).filter(|&at| at > 0) {
            let better = match best {
                None => true,
                Some((b, s)) => at < b || (at == b && sep.len() > s.len()),
            };
            if better {
                best = Some((at, sep));
            }
        }
    }
    match best {
        Some((at, sep)) if at + sep.len() < identity.len() => (
            identity[..at].to_string(),
            identity[at + sep.len()..].to_string(),
        ),
        _ => (identity.to_string(), identity.to_string()),
    }
}

/// A test's identity split at the end of the suite its profile names:
/// mocha's `Cart total` under `Cart` is `total`, GoogleTest's
/// `MoneyTest.RoundsHalfUp` under `MoneyTest` is `RoundsHalfUp`,
/// minitest's `CartTest#test_total` under `CartTest` is `test_total`,
/// PHPUnit's `App\CartTest::testTotal` under `App\CartTest` is
/// `testTotal` (one separator, a space, `::`, GoogleTest's dot or
/// minitest's `#`, is dropped). None when the
/// identity does not start with the suite, or the suite is empty.
fn in_suite(identity: &str, suite: &str) -> Option<(String, String)> {
    let rest = identity.strip_prefix(suite).filter(|_| !suite.is_empty())?;
    let name = ["::", ".", "#"]
        .iter()
        .find_map(|sep| rest.strip_prefix(sep))
        .unwrap_or_else(|| rest.trim_start());
    Some((suite.to_string(), name.to_string()))
}

/// The item's decisive lines (as the digest shows raw lines: ANSI and
/// control sequences removed), then, when the output is archived, the
/// command that brings back the item's whole block. A test's block can
/// run to thousands of lines (go's verbose output interleaves tests):
/// the report stays a report, and nothing is out of reach.
fn body(artifact: &Artifact, item: &EvidenceItem, key: Option<&ArchiveKey>) -> String {
    let mut lines = Vec::new();
    let shown = key.map_or_else(|| "<not archived>".to_string(), ArchiveKey::short);
    for part in crate::render::detail::parts(artifact, &item.detail, item.block) {
        match part {
            Part::Lines(span) => {
                for n in span.first..=span.last.min(artifact.line_count()) {
                    lines.push(normalize::line(artifact.line(n)).into_owned());
                }
            }
            Part::Cut(span) => lines.push(crate::render::detail::marker(span, &shown)),
        }
    }
    if let (Some(key), Some(_)) = (key, item.block) {
        lines.push(format!(
            "{CTX_PREFIX} the whole block: ctx expand {} {}",
            key.short(),
            Address::Item(item.identity.clone()).args()
        ));
    }
    lines.join("\n")
}

/// The counts on `<testsuites>`: the runner's own, never fewer than the
/// test cases listed.
struct Totals {
    tests: u64,
    failures: u64,
    errors: u64,
    skipped: u64,
}

impl Totals {
    fn of(graph: &EvidenceGraph, cases: &[Case]) -> Totals {
        let sum = |words: &[&str]| -> u64 {
            graph
                .counts
                .iter()
                .filter(|(w, _)| words.contains(&w.as_str()))
                .map(|(_, n)| *n)
                .sum()
        };
        let listed_failures = cases
            .iter()
            .filter(|c| c.verdict == Verdict::Failure)
            .count() as u64;
        let listed_errors = cases.len() as u64 - listed_failures;
        let failures = sum(&["failed", "failures"]).max(listed_failures);
        let errors = sum(&["errors", "error"]).max(listed_errors);
        let skipped = sum(&["skipped", "ignored", "todo", "xfailed"]);
        let passed = sum(&["passed", "xpassed"]);
        Totals {
            tests: failures + errors + skipped + passed,
            failures,
            errors,
            skipped,
        }
    }
}

/// An attribute whose value keeps its line breaks and tabs through a
/// parser (which would turn raw ones into spaces), and holds no character
/// XML 1.0 forbids.
fn attr<'a>(key: &'a str, value: &str) -> Attribute<'a> {
    let escaped = quick_xml::escape::escape(xml_text(value).as_ref())
        .replace('\n', "&#10;")
        .replace('\r', "&#13;")
        .replace('\t', "&#9;");
    Attribute {
        key: QName(key),
        value: Cow::Owned(escaped),
    }
}

/// `s` without the characters XML 1.0 cannot carry even escaped (control
/// characters other than tab and line breaks, unpaired surrogates cannot
/// occur in a `str`, U+FFFE and U+FFFF): each becomes U+FFFD.
fn xml_text(s: &str) -> Cow<'_, str> {
    let allowed = |c: char| {
        matches!(c, '\t' | '\n' | '\r') || (c >= ' ' && c != '\u{FFFE}' && c != '\u{FFFF}')
    };
    if s.chars().all(allowed) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.chars()
            .map(|c| if allowed(c) { c } else { '\u{FFFD}' })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_split_at_the_end_of_their_suite() {
        let pair = |s: &str, n: &str| Some((s.to_string(), n.to_string()));
        assert_eq!(in_suite("Cart total", "Cart"), pair("Cart", "total"));
        assert_eq!(
            in_suite("Cart .toFixed rounds", "Cart"),
            pair("Cart", ".toFixed rounds")
        );
        assert_eq!(
            in_suite("MoneyTest.RoundsHalfUp", "MoneyTest"),
            pair("MoneyTest", "RoundsHalfUp")
        );
        assert_eq!(
            in_suite("Sweep/NickelSweep.RoundsHalfUp/3", "Sweep/NickelSweep"),
            pair("Sweep/NickelSweep", "RoundsHalfUp/3")
        );
        assert_eq!(
            in_suite("Inventory::#level#test_0001_reports", "Inventory::#level"),
            pair("Inventory::#level", "test_0001_reports")
        );
        assert_eq!(
            in_suite(r"Shop\Tests\CartTest::testTotal", r"Shop\Tests\CartTest"),
            pair(r"Shop\Tests\CartTest", "testTotal")
        );
        assert_eq!(in_suite("total", ""), None);
        assert_eq!(in_suite("Other.Test", "MoneyTest"), None);
    }

    #[test]
    fn identities_split_at_their_first_separator() {
        let cases = [
            (
                "tests/a.py::T::test_x[a b]",
                ("tests/a.py", "T::test_x[a b]"),
            ),
            (
                "src/lib.rs tests::last_two",
                ("src/lib.rs", "tests::last_two"),
            ),
            (
                "a.test.js > cart > adds one",
                ("a.test.js", "cart > adds one"),
            ),
            (
                "example.com/shop TestX/sub",
                ("example.com/shop", "TestX/sub"),
            ),
            (
                "test/inventory.test.js",
                ("test/inventory.test.js", "test/inventory.test.js"),
            ),
        ];
        for (id, (suite, name)) in cases {
            assert_eq!(split(id), (suite.to_string(), name.to_string()), "{id}");
        }
    }

    #[test]
    fn forbidden_characters_are_replaced_and_breaks_kept() {
        assert_eq!(xml_text("a\u{1b}[0mb\u{0}"), "a\u{FFFD}[0mb\u{FFFD}");
        let a = attr("message", "x < y\n\"z\"\t&");
        assert_eq!(a.value, "x &lt; y&#10;&quot;z&quot;&#9;&amp;");
    }
}
