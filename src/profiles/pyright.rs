//! pyright/v1 — the pyright type checker (plain and `--outputjson`).
//!
//! **Decision.** Which type errors must I fix, where, under which rule, and
//! what does the indented explanation under each say?
//!
//! **Unsafe loss.** An error identity missing from the census; the rule
//! name (which closes the last explanation line) lost; totals that disagree
//! with pyright's "N errors, M warnings, K informations"; a failed run
//! shown as clean.
//!
//! **Typed facts.** One `Diagnostic` per `  file:line:col - severity: msg`
//! (information → note), the rule (`reportCallIssue`) as code, the
//! indented explanation lines in the block. `--outputjson` gives the same
//! facts (positions made 1-based), each item pointing at its object's
//! lines. The totals line (or the JSON `summary`) is the conclusion and the
//! announced error count.
//!
//! **Ladder.** PASS_SUMMARY (the zero totals line) → FAIL_CENSUS (every
//! error with its first message line, explanations by rank) → DENSE →
//! FLOOD (grouped by rule and file with exact counts, `--items`).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::artifact::Artifact;
use crate::evidence::{CoverageReceipt, EvidenceGraph, Severity};

use super::{Profile, ProfileSpec, ReceiptGroup};
use super::diagnostic::{Extraction, Found, command_words, num};

pub struct Pyright;

static ROW: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s+(\S.*?):(\d+):(\d+) - (error|warning|information): (.*)$").expect("static")
});
/// ` (reportSomething)` closing a message or its last explanation line.
static RULE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r" \((report[A-Za-z]+)\)$").expect("static"));
static TOTALS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\d+) errors?, (\d+) warnings?, \d+ informations?\s*$").expect("static")
});
static SNIFF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?m)^\s+\S.*:\d+:\d+ - (error|warning|information): |",
        r"^\d+ errors?, \d+ warnings?, \d+ informations?\s*$|",
        r#"^\s+"generalDiagnostics": \["#
    ))
    .expect("static")
});

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["pyright", "basedpyright"],
    // Every alternative of SNIFF needs one of these words.
    sniff_words: &[
        " - error: ",
        " - warning: ",
        " information",
        r#""generalDiagnostics": ["#,
    ],
    sniff: Some(&SNIFF),
    sniff_reason: "a pyright diagnostic or totals line",
    ..ProfileSpec::new("pyright/v1", "pyright", ReceiptGroup::Diagnostics)
};

impl Profile for Pyright {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let mut ex = Extraction::new(artifact);
        let mut current: Option<Found> = None;
        let mut n = 0;
        while n < artifact.line_count() {
            n += 1;
            let text = crate::profiles::visible(artifact, n);
            let text = text.trim_end();
            if text == "{" {
                flush(&mut ex, &mut current);
                if let Some(end) = json_object(artifact, n, &mut ex) {
                    n = end;
                    continue;
                }
            }
            if let Some(c) = ROW.captures(text) {
                flush(&mut ex, &mut current);
                let severity = match &c[4] {
                    "error" => Severity::Error,
                    "warning" => Severity::Warning,
                    _ => Severity::Note,
                };
                let msg = &c[5];
                let rule = RULE.captures(msg).map(|r| r[1].to_string());
                let summary = RULE.replace(msg, "");
                let f = Found::new(severity, summary, n)
                    .at(&c[1], num(c.get(2)), num(c.get(3)))
                    .code(rule.as_deref());
                current = Some(f);
                continue;
            }
            // Any other indented line explains the row above (pyright
            // indents nested lines with no-break spaces after two spaces).
            if let Some(f) = current.as_mut()
                && text.starts_with(' ')
                && !text.trim().is_empty()
            {
                f.block_last = n;
                if f.code.is_none() {
                    f.code = RULE.captures(text).map(|r| r[1].to_string());
                }
                continue;
            }
            flush(&mut ex, &mut current);
            if let Some(c) = TOTALS.captures(text) {
                ex.add_announced_errors(num(c.get(1)).unwrap_or(0).into());
                ex.add_announced_warnings(num(c.get(2)).unwrap_or(0).into());
                ex.conclude(n);
            } else if text.is_empty() || !text.starts_with(' ') && !text.contains(": ") {
                // Blank lines and the per-file header lines.
                ex.mark(n);
            } else if text.contains("error") {
                ex.suspicious += 1;
            }
        }
        flush(&mut ex, &mut current);
        let tool = command_words(&artifact.argv)
            .first()
            .filter(|w| self.commands().contains(w))
            .map_or("pyright".to_string(), |w| w.to_string());
        ex.finish(tool, |line| line.starts_with("  \u{a0}"))
    }
}

fn flush(ex: &mut Extraction<'_>, current: &mut Option<Found>) {
    if let Some(done) = current.take() {
        ex.push(done);
    }
}

/// `--outputjson`: one pretty-printed object from a `{` line to a `}` line;
/// each diagnostic object opens with a line `        {`.
fn json_object(artifact: &Artifact, open: usize, ex: &mut Extraction<'_>) -> Option<usize> {
    let block = super::diagnostic::json_block(artifact, open, "        {", "}")?;
    let (value, starts, close) = (block.value, block.object_starts, block.close);
    let diags = value.get("generalDiagnostics")?.as_array()?;
    let summary_at = starts.last().map_or(open, |_| close);
    for (i, d) in diags.iter().enumerate() {
        let s = |k: &str| d.get(k).and_then(Value::as_str);
        let pos = |k: &str| {
            d.get("range")
                .and_then(|r| r.get("start"))
                .and_then(|p| p.get(k))
                .and_then(Value::as_u64)
                .and_then(|v| u32::try_from(v + 1).ok())
        };
        let severity = match s("severity") {
            Some("error") => Severity::Error,
            Some("warning") => Severity::Warning,
            _ => Severity::Note,
        };
        // Object lines when the layout is the usual one; else the `{` line.
        let first = starts.get(i).copied().unwrap_or(open);
        let last = starts.get(i + 1).map_or(first, |&next| next - 1);
        let msg = s("message").unwrap_or("");
        let mut f = Found::new(severity, msg.lines().next().unwrap_or(""), first)
            .code(s("rule"))
            .at(s("file").unwrap_or(""), pos("line"), pos("character"));
        f.block_last = last.max(first);
        f.detail = vec![first];
        ex.push(f);
    }
    if let Some(sum) = value.get("summary") {
        let count = |k: &str| sum.get(k).and_then(Value::as_u64).unwrap_or(0);
        ex.add_announced_errors(count("errorCount"));
        ex.add_announced_warnings(count("warningCount"));
    }
    ex.mark_range(open, close);
    ex.conclusion.push(summary_at);
    Some(close)
}
