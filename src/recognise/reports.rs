//! Test cases of the XML reports runners write, wherever the report is
//! printed (`cat report.xml`, a CI step that shows it, a log that quotes
//! it): JUnit's `<testcase classname="C" name="N">` holding a `<failure>`
//! or `<error>`, NUnit 3's `<test-case fullname="X" result="Failed">`,
//! xUnit.net v2's `<test name="X" result="Fail">` and TRX's
//! `<UnitTestResult testName="X" outcome="Failed">`. The identity is the
//! case as junit/v1 names it: `C::N` (or `N`), NUnit's `fullname`,
//! xUnit.net's `name`, TRX's `testName`.
//!
//! A case's verdict is what the report says of it: JUnit's child element
//! (which may sit on the next lines), NUnit's and xUnit.net's `result`
//! attribute (pytest-nunit writes an empty `<failure>` under passing
//! cases, so there the element says nothing).

use std::sync::LazyLock;

use regex::Regex;

use crate::evidence::{ItemKind, Severity};

use super::Dialect;
use super::page::{compile, item};

/// How many lines after a JUnit `<testcase>` its `<failure>` may open.
const CHILD_LINES: usize = 4;

pub(super) static XML_CASES: Dialect = Dialect {
    words: &["<testcase", "<test-case", "<test ", "<UnitTestResult"],
    located: false,
    read: |page, n| {
        static TAG: LazyLock<Regex> =
            LazyLock::new(|| compile(r"<(testcase|test-case|test|UnitTestResult)\s([^<>]*?)(/?)>"));
        static ATTR: LazyLock<Regex> = LazyLock::new(|| compile(r#"([\w:-]+)="([^"]*)""#));
        let text = page.text(n);
        let mut out = Vec::new();
        let tags: Vec<_> = TAG.captures_iter(&text).collect();
        for (k, c) in tags.iter().enumerate() {
            let attrs: Vec<(&str, &str)> = ATTR
                .captures_iter(c.get(2).map_or("", |m| m.as_str()))
                .filter_map(|a| Some((a.get(1)?.as_str(), a.get(2)?.as_str())))
                .collect();
            let get = |name: &str| {
                attrs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| unescape(v))
            };
            let (identity, kind) = match &c[1] {
                "test-case" => {
                    let kind = match (get("result").as_deref(), get("label").as_deref()) {
                        (Some("Failed"), Some("Error" | "Invalid" | "Cancelled")) => {
                            ItemKind::TestError
                        }
                        (Some("Failed"), _) => ItemKind::FailingTest,
                        _ => continue,
                    };
                    (get("fullname").or_else(|| get("name")), kind)
                }
                "test" => {
                    if get("result").as_deref() != Some("Fail") {
                        continue;
                    }
                    (get("name"), ItemKind::FailingTest)
                }
                "UnitTestResult" => {
                    let kind = match get("outcome").as_deref() {
                        Some("Failed") => ItemKind::FailingTest,
                        Some("Error" | "Timeout" | "Aborted") => ItemKind::TestError,
                        _ => continue,
                    };
                    (get("testName"), kind)
                }
                _ => {
                    if &c[3] == "/" {
                        continue;
                    }
                    // The case's own text: up to the next case on this
                    // line, then the next few lines.
                    let end = tags
                        .get(k + 1)
                        .map_or(text.len(), |t| t.get(0).map_or(text.len(), |m| m.start()));
                    let own = &text[c.get(0).map_or(0, |m| m.end())..end];
                    let Some(kind) = junit_verdict(own).or_else(|| {
                        (k + 1 == tags.len())
                            .then(|| {
                                page.after(n, CHILD_LINES)
                                    .map(|m| page.text(m))
                                    .take_while(|t| !t.contains("<testcase"))
                                    .find_map(|t| junit_verdict(&t))
                            })
                            .flatten()
                    }) else {
                        continue;
                    };
                    let name = get("name").unwrap_or_default();
                    let id = match get("classname").filter(|c| !c.is_empty()) {
                        Some(class) => format!("{class}::{name}"),
                        None => name,
                    };
                    (Some(id), kind)
                }
            };
            if let Some(id) = identity.filter(|i| !i.is_empty()) {
                out.push(item(kind, Severity::Error, id, n));
            }
        }
        out
    },
};

/// A JUnit case's verdict from the text after its start tag, up to its
/// end tag: an `<error>` outranks a `<failure>`, as Jenkins counts them.
fn junit_verdict(text: &str) -> Option<ItemKind> {
    let text = text.split("</testcase>").next().unwrap_or(text);
    if text.contains("<error") {
        Some(ItemKind::TestError)
    } else if text.contains("<failure") {
        Some(ItemKind::FailingTest)
    } else {
        None
    }
}

/// An attribute's value with XML's five entities resolved.
fn unescape(v: &str) -> String {
    v.replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}
