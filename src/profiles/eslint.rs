//! eslint/v1 — ESLint with the stylish (default), compact, unix and json
//! formatters.
//!
//! **Decision.** Which rule violations are errors I must fix (file, line,
//! column, rule), and how large is the warning backlog by rule and file?
//!
//! **Unsafe loss.** An error hidden among thousands of warnings; a parsing
//! error (no rule id, the file was not linted at all) dropped; totals that
//! disagree with eslint's own "✖ N problems (E errors, W warnings)".
//!
//! **Typed facts.** One `Diagnostic` per finding: severity, rule id as code
//! (none for parsing errors), location, message. Identity `file:line:col
//! rule`, with paths made relative to the run's directory. Stylish rows
//! take their file from the header line above them; that line and the row
//! are the detail. The json formatter's single line is every item's block.
//! The "✖ N problems" line is the conclusion and the announced totals.
//!
//! **Ladder.** PASS_SUMMARY (clean) → FAIL_CENSUS (every error row) → DENSE
//! (warnings grouped by rule and by file, identities while they fit) →
//! FLOOD (errors and warnings grouped by rule with exact counts and two
//! locations each, top files, `--items`).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::artifact::Artifact;
use crate::evidence::{CoverageReceipt, EvidenceGraph, Severity};
use crate::normalize;

use super::{Profile, ProfileSpec, ReceiptGroup};
use super::diagnostic::{Extraction, Found, num};

pub struct Eslint;

/// `  10:19  error  Expected '===' and instead saw '=='  eqeqeq`
static STYLISH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s+(\d+):(\d+)\s+(error|warning)\s+(.*?)(?:\s{2,}(\S+))?$").expect("static")
});
/// `file: line 2, col 8, Error - msg (rule)`
static COMPACT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(.+): line (\d+), col (\d+), (Error|Warning) - (.*?)(?: \(([^()\s]+)\))?$")
        .expect("static")
});
/// `file:2:8: msg [Error/rule]`
static UNIX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(.+?):(\d+):(\d+): (.*) \[(Error|Warning)(?:/(\S+))?\]$").expect("static")
});
static PROBLEMS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^✖ \d+ problems? \((\d+) errors?, (\d+) warnings?\)$").expect("static")
});
static TRAILER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\d+ problems?$|\s+\d+ errors? and \d+ warnings? potentially fixable)")
        .expect("static")
});
static SNIFF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?m)^\S.*\n\s+\d+:\d+\s+(error|warning)\s{2,}\S|",
        r"^\S.*: line \d+, col \d+, (Error|Warning) - |",
        r"^\S.*:\d+:\d+: .* \[(Error|Warning)/[@\w/-]+\]$|",
        r#"^\[\{"filePath":"[^"]*","messages":\["#
    ))
    .expect("static")
});

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["eslint"],
    // Every alternative of SNIFF needs one of these words.
    sniff_words: &[
        "error",
        "warning",
        ", col ",
        "Error/",
        "Warning/",
        r#"[{"filePath":""#,
    ],
    sniff: Some(&SNIFF),
    sniff_reason: "an eslint stylish/compact/unix/json finding",
    ..ProfileSpec::new("eslint/v1", "eslint", ReceiptGroup::Diagnostics)
};

impl Profile for Eslint {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let mut ex = Extraction::new(artifact);
        // The stylish file header the next rows belong to.
        let mut header: Option<(usize, String)> = None;
        for n in 1..=artifact.line_count() {
            let raw = artifact.line(n);
            let text = normalize::line(crate::profiles::window(raw));
            let text = text.trim_end();
            if (text.starts_with("[{") || text == "[]")
                && let Some(items) = json_line(raw, n)
            {
                items.into_iter().for_each(|f| ex.push(f));
                continue;
            }
            if let Some(c) = STYLISH.captures(text) {
                let Some((at, file)) = header.clone() else {
                    ex.suspicious += 1;
                    continue;
                };
                let mut f = found(&c[3], &c[4], c.get(5).map(|m| m.as_str()), n).at(
                    &file,
                    num(c.get(1)),
                    num(c.get(2)),
                );
                f.detail = vec![at, n];
                ex.mark(at);
                ex.push(f);
                continue;
            }
            if let Some(c) = COMPACT.captures(text) {
                let f = found(&c[4], &c[5], c.get(6).map(|m| m.as_str()), n);
                ex.push(f.at(&c[1], num(c.get(2)), num(c.get(3))));
                continue;
            }
            if let Some(c) = UNIX.captures(text) {
                let f = found(&c[5], &c[4], c.get(6).map(|m| m.as_str()), n);
                ex.push(f.at(&c[1], num(c.get(2)), num(c.get(3))));
                continue;
            }
            if let Some(c) = PROBLEMS.captures(text) {
                ex.add_announced_errors(num(c.get(1)).unwrap_or(0).into());
                ex.add_announced_warnings(num(c.get(2)).unwrap_or(0).into());
                ex.conclude(n);
                continue;
            }
            if TRAILER.is_match(text) {
                ex.conclude(n);
                continue;
            }
            if text.is_empty() {
                ex.mark(n);
            } else if !text.starts_with(char::is_whitespace) {
                // A stylish file header; it counts as recognised once a row follows.
                header = Some((n, text.to_string()));
            } else if text.contains("error") {
                ex.suspicious += 1;
            }
        }
        ex.finish("eslint", |_| false)
    }
}

fn found(severity: &str, msg: &str, rule: Option<&str>, n: usize) -> Found {
    let severity = if severity.eq_ignore_ascii_case("error") {
        Severity::Error
    } else {
        Severity::Warning
    };
    Found::new(severity, msg, n).code(rule)
}

/// The json formatter: one array of files with their messages, one line.
fn json_line(raw: &[u8], n: usize) -> Option<Vec<Found>> {
    let value: Value = serde_json::from_slice(raw).ok()?;
    let mut out = Vec::new();
    for file in value.as_array()? {
        let path = file.get("filePath").and_then(Value::as_str)?;
        for m in file
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let severity = if m.get("severity").and_then(Value::as_u64) == Some(2) {
                "error"
            } else {
                "warning"
            };
            let msg = m.get("message").and_then(Value::as_str).unwrap_or("");
            let rule = m.get("ruleId").and_then(Value::as_str);
            let field = |k: &str| {
                m.get(k)
                    .and_then(Value::as_u64)
                    .and_then(|v| u32::try_from(v).ok())
            };
            let mut f = found(severity, msg.lines().next().unwrap_or(""), rule, n).at(
                path,
                field("line"),
                field("column"),
            );
            f.detail = vec![n];
            out.push(f);
        }
    }
    Some(out)
}
