//! shellcheck/v1 — shellcheck's tty report (the default, with or without
//! colour), its gcc format and its json/json1 reports.
//!
//! **Decision.** Which findings must I fix in which script (file, line,
//! column, SC code), which are errors (a script that does not parse was
//! not checked past the error), and how does a run over a large script
//! break down by code?
//!
//! **Unsafe loss.** A finding dropped from the census (shellcheck fails the
//! run for a finding of any level at or above `--severity`); an `SC1xxx`
//! parse error reduced to a count (the checks after it never ran); a column
//! lost, so that two findings on one line merge.
//!
//! **Typed facts.** One `Diagnostic` per finding, severity error whatever
//! its level (as ruff's and pylint's: each fails the run), class `SC2086`,
//! field `level` (`error`, `warning`, `info`, `style`; the gcc format says
//! `note` for info and style). tty: the `In FILE line N:` header, the
//! quoted source line and one caret line per finding (`^-- SC2086 (info):
//! message`), whose caret gives the column; a `Did you mean:` suggestion
//! joins the block of the finding above it. gcc: `FILE:L:C: level: message
//! [SC2086]`. json1 (`{"comments": […]}`) and json (`[…]`): one line, every
//! comment. `For more information:` and its wiki links are recognised.
//!
//! **Ladder.** PASS_SUMMARY (no output: nothing to say) → FAIL_CENSUS (every
//! finding; source and caret by rank) → DENSE (identities grouped by file)
//! → FLOOD (grouped by code with exact counts and two locations each).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::artifact::Artifact;
use crate::evidence::{CoverageReceipt, EvidenceGraph, Outcome, Severity};

use super::diagnostic::{Extraction, Found, num};
use super::{Profile, ProfileSpec, ReceiptGroup};

pub struct Shellcheck;

/// tty: `In scripts/deploy.sh line 7:`.
static IN_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^In (\S.*) line (\d+):$").expect("static pattern"));
/// tty: `      ^-- SC2086 (info): message`.
static CARET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^( *)\^-*\^? SC(\d{4}) \((error|warning|info|style)\): (.*)$")
        .expect("static pattern")
});
/// gcc: `scripts/deploy.sh:7:7: note: message [SC2086]`.
static GCC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\S.*?):(\d+):(\d+): (error|warning|note): (.*) \[SC(\d{4})\]$")
        .expect("static pattern")
});
static WIKI: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^  https://www\.shellcheck\.net/wiki/SC\d+ -- ").expect("static pattern")
});
static SNIFF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?m)^\s*\^-*\^? SC\d{4} \((error|warning|info|style)\): |",
        r"^\S+:\d+:\d+: (error|warning|note): .* \[SC\d{4}\]$|",
        r#"^\{"comments":\[|^\[\{"file":".*","line":\d+,"endLine":"#
    ))
    .expect("static pattern")
});

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["shellcheck"],
    // Every alternative of SNIFF needs one of these words.
    sniff_words: &[" SC", "[SC", "{\"comments\":[", "[{\"file\":"],
    sniff: Some(&SNIFF),
    sniff_reason: "a shellcheck finding (tty caret line, gcc `[SCnnnn]` line, or json)",
    decisive_words: &[" SC", "[SC"],
    ..ProfileSpec::new("shellcheck/v1", "shellcheck", ReceiptGroup::Diagnostics)
};

impl Profile for Shellcheck {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn decisive_line(&self, line: &str) -> Option<String> {
        // A caret line opens with spaces and `^`; a gcc line closes with
        // `[SCnnnn]`: anything else is turned away before a pattern runs.
        let caret = line.trim_start().starts_with('^') && CARET.is_match(line);
        let gcc = line.ends_with(']') && !line.starts_with(['+', '-', ' ']) && GCC.is_match(line);
        (caret || gcc).then(|| "a shellcheck finding".into())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let mut ex = Extraction::new(artifact);
        // The tty block being read: its file and line, and its header line.
        let mut at: Option<(String, u32, usize)> = None;
        // After `Did you mean:`, the suggested line belongs to the block.
        let mut suggestion = false;
        let mut in_links = false;
        let total = artifact.line_count();
        for n in 1..=total {
            let text = crate::profiles::visible(artifact, n);
            let text = text.trim_end();
            if (text.starts_with('{') || text.starts_with("[{")) && json(text, n, &mut ex) {
                continue;
            }
            if let Some(c) = IN_LINE.captures(text) {
                in_links = false;
                at = num(c.get(2)).map(|line| (c[1].to_string(), line, n));
                ex.mark(n);
                // The quoted source line follows.
                ex.mark(n + 1);
                continue;
            }
            if let Some(c) = CARET.captures(text) {
                let Some((file, line, header)) = at.clone() else {
                    ex.suspicious += 1;
                    continue;
                };
                let column = u32::try_from(c[1].len() + 1).ok();
                let mut f = finding(&c[2], &c[3], &c[4], n).at(&file, Some(line), column);
                f.block_first = Some(header);
                f.detail = vec![header, header + 1, n];
                ex.push(f);
                continue;
            }
            if text == "Did you mean:" {
                suggestion = true;
                extend_last(&mut ex, n);
                continue;
            }
            if suggestion && !text.is_empty() {
                suggestion = false;
                extend_last(&mut ex, n);
                continue;
            }
            if let Some(c) = GCC.captures(text) {
                let f = finding(&c[6], &c[4], &c[5], n).at(&c[1], num(c.get(2)), num(c.get(3)));
                ex.push(f);
                continue;
            }
            if text == "For more information:" {
                in_links = true;
                ex.conclude(n);
                continue;
            }
            if in_links && WIKI.is_match(text) {
                ex.mark(n);
                continue;
            }
            if text.is_empty() {
                suggestion = false;
                ex.mark(n);
            } else if text.contains(" SC") {
                ex.suspicious += 1;
            }
        }
        let findings = ex.found.len() as u64;
        let (mut graph, receipt) = ex.finish("shellcheck", |_| false);
        graph.counts = vec![("findings".to_string(), findings)];
        // Every finding fails the run, whatever its level: facts and exit
        // status agree.
        if findings > 0 && graph.outcome == Outcome::Unknown && artifact.exit.is_failure() {
            graph.outcome = Outcome::Failed;
        }
        (graph, receipt)
    }
}

/// One finding: `SCnnnn` as class, its level as a field.
fn finding(code: &str, level: &str, message: &str, n: usize) -> Found {
    let mut f = Found::new(Severity::Error, message, n).code(Some(&format!("SC{code}")));
    f.fields.push(("level".into(), level.to_string()));
    f
}

/// A `Did you mean:` line joins the block of the finding above it.
fn extend_last(ex: &mut Extraction<'_>, n: usize) {
    ex.mark(n);
    if let Some(f) = ex.found.last_mut() {
        f.block_last = f.block_last.max(n);
    }
}

/// `-f json1` (`{"comments": […]}`) or `-f json` (`[…]`) on line `n`:
/// every comment, each pointing at that line. False when the line is not
/// shellcheck's report.
fn json(text: &str, n: usize, ex: &mut Extraction<'_>) -> bool {
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return false;
    };
    let comments = match &value {
        Value::Object(o) => o.get("comments").and_then(Value::as_array),
        Value::Array(a) => Some(a),
        _ => None,
    };
    let Some(comments) = comments else {
        return false;
    };
    if comments.iter().any(|c| c.get("code").is_none()) {
        return false;
    }
    for c in comments {
        let s = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("");
        let at = |k: &str| {
            c.get(k)
                .and_then(Value::as_u64)
                .and_then(|v| u32::try_from(v).ok())
        };
        let code = c.get("code").and_then(Value::as_u64).unwrap_or(0).to_string();
        let mut f = finding(&code, s("level"), s("message"), n).at(s("file"), at("line"), at("column"));
        f.detail = vec![n];
        ex.push(f);
    }
    ex.mark(n);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finding_lines() {
        let c = CARET
            .captures("      ^-- SC2086 (info): Double quote to prevent globbing.")
            .unwrap();
        assert_eq!((c[1].len(), &c[2], &c[3]), (6, "2086", "info"));
        assert!(CARET.is_match("^---------^ SC2045 (error): Iterating over ls output is fragile."));
        let c = GCC
            .captures("scripts/deploy.sh:9:1: warning: Use 'cd ... || exit'. [SC2164]")
            .unwrap();
        assert_eq!((&c[1], &c[2], &c[3], &c[6]), ("scripts/deploy.sh", "9", "1", "2164"));
        assert!(Shellcheck.decisive_line("  ^-- SC2086 (info): Double quote").is_some());
        assert!(Shellcheck.decisive_line("- ^-- SC2086 (info): x").is_none());
        assert!(Shellcheck.decisive_line("see SC2086 for details").is_none());
    }
}
