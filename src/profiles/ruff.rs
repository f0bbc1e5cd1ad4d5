//! ruff/v1 — `ruff check` with the full (default), concise, grouped and
//! json output formats; and flake8 and pycodestyle, whose reports are the
//! concise dialect (`path:line:col: CODE message`), with `--show-source`,
//! `--statistics` and `--count`.
//!
//! **Decision.** Which rule findings must I fix (file, line, column, rule
//! code), which are auto-fixable, and how does a flood of thousands of
//! findings break down by rule and by file?
//!
//! **Unsafe loss.** A finding dropped from the census, above all an
//! `invalid-syntax` one (the file was not linted at all); totals that
//! disagree with ruff's "Found N errors."; a flood listed partially without
//! saying so.
//!
//! **Typed facts.** One `Diagnostic` per finding, severity error (ruff
//! counts every finding as an error and exits 1): rule code (`F401`,
//! `invalid-syntax`), location, message without the `[*]` fixable mark
//! (kept as field `fixable`). The full format's block is the header, its
//! `-->` line, the code frame and its `help:`/`note:` lines; json items
//! point at their object's lines. "Found N errors." is the conclusion and
//! the announced total; ruff's own `warning:` lines on stderr are
//! recognised, not findings.
//!
//! **Ladder.** PASS_SUMMARY ("All checks passed!") → FAIL_CENSUS (every
//! finding's identity, frames by rank) → DENSE (frames dropped, identities
//! grouped by file) → FLOOD (grouped by code with exact counts and two
//! locations each, top files, `--items`).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::artifact::Artifact;
use crate::evidence::{CoverageReceipt, EvidenceGraph, Severity};

use super::{Profile, ProfileSpec, ReceiptGroup};
use super::diagnostic::{Extraction, Found, command_words, num};

pub struct Ruff;

/// A rule code or the syntax-error pseudo-code, then `[*]` when fixable.
const CODE: &str = r"([A-Z][A-Z0-9]*[0-9]|invalid-syntax|syntax-error):? (\[\*\] )?(.*)";

static FULL: LazyLock<Regex> = LazyLock::new(|| Regex::new(&format!("^{CODE}$")).expect("static"));
static ARROW: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*--> (.+?):(\d+):(\d+)\s*$").expect("static"));
static CONCISE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"^(\S.*?):(\d+):(\d+): {CODE}$")).expect("static"));
static GROUPED_FILE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^(\S.*):$").expect("static"));
static GROUPED_ROW: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"^\s+(\d+):(\d+)\s+{CODE}$")).expect("static"));
/// Lines inside a full-format block: frame, `help:`/`note:`, elisions.
static CONTINUES: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\s|\d|-->|\.\.\.|(help|note|info): )").expect("static"));
/// A caret alone on its line, under a `--show-source` line.
static CARET_ALONE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\^$").expect("static"));
/// A `--statistics` line: `2     F405 'User' may be undefined, …`.
static STATISTIC: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\d+\s+[A-Z][A-Z0-9]*[0-9] ").expect("static"));
/// The tools whose whole report is the concise dialect.
const CONCISE_TOOLS: &[&str] = &["flake8", "pycodestyle"];
static FOUND: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^Found (\d+) errors?\b").expect("static"));
static TRAILER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(All checks passed!|\[\*\] \d+ fixable|No fixes available|warning: |\d+ files? (left unchanged|already formatted))")
        .expect("static")
});
static SNIFF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?m)^([A-Z][A-Z0-9]*[0-9]|invalid-syntax):? (\[\*\] )?.*\n\s*--> \S+:\d+:\d+$|",
        r"^\S+\.pyi?:\d+:\d+: ([A-Z][A-Z0-9]*[0-9]|invalid-syntax):? |",
        r"^All checks passed!$|",
        r#"^\s+"noqa_row": "#
    ))
    .expect("static")
});

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["ruff", "flake8", "pycodestyle"],
    // Every alternative of SNIFF needs one of these words.
    sniff_words: &["--> ", ".py", "All checks passed!", r#""noqa_row": "#],
    sniff: Some(&SNIFF),
    sniff_reason: "a ruff finding or summary",
    ..ProfileSpec::new("ruff/v1", "ruff", ReceiptGroup::Diagnostics)
};

impl Profile for Ruff {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }


    fn by_command(&self, argv: &[String]) -> Option<String> {
        let words = command_words(argv);
        if let Some(other) = words.first().filter(|w| CONCISE_TOOLS.contains(w)) {
            return Some(format!("command {other}"));
        }
        if words.first() != Some(&"ruff") {
            return None;
        }
        // `ruff format`, `ruff server`, `ruff rule` print no findings.
        let sub = words.get(1).copied().unwrap_or("check");
        (sub == "check" || sub.starts_with('-') || sub.contains('.') || sub.contains('/'))
            .then(|| "ruff check".to_string())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let mut ex = Extraction::new(artifact);
        let mut current: Option<Found> = None;
        let mut group: Option<String> = None;
        let tool = command_words(&artifact.argv)
            .first()
            .copied()
            .filter(|w| CONCISE_TOOLS.contains(w));
        let concise_tool = tool.is_some();
        let total = artifact.line_count();
        let mut n = 0;
        while n < total {
            n += 1;
            let text = crate::profiles::visible(artifact, n);
            let text = text.trim_end();
            if text == "["
                && let Some(end) = json_array(artifact, n, &mut ex)
            {
                n = end;
                continue;
            }
            if let Some(f) = current.as_mut() {
                if !text.is_empty() && CONTINUES.is_match(text) {
                    f.block_last = n;
                    continue;
                }
                flush(&mut ex, &mut current);
            }
            if let Some(c) = FULL.captures(text) {
                // A full-format header is only a header with its `-->` line.
                let next = crate::profiles::visible(artifact, n + 1).into_owned();
                if let Some(a) = ARROW.captures(&next) {
                    let f = found(&c, 1, n).at(&a[1], num(a.get(2)), num(a.get(3)));
                    current = Some(f);
                    continue;
                }
            }
            if let Some(c) = CONCISE.captures(text) {
                let mut f = found(&c, 4, n).at(&c[1], num(c.get(2)), num(c.get(3)));
                // `--show-source` (flake8, pycodestyle): the source line,
                // then a caret alone under the column.
                if n + 2 <= total && CARET_ALONE.is_match(&crate::profiles::visible(artifact, n + 2)) {
                    f.block_last = n + 2;
                    n += 2;
                }
                ex.push(f);
                continue;
            }
            if concise_tool && STATISTIC.is_match(text) {
                ex.mark(n);
                continue;
            }
            if concise_tool
                && let Ok(count) = text.parse::<u64>()
            {
                // `--count`: the total, on a line of its own at the end.
                ex.add_announced_errors(count);
                ex.conclude(n);
                continue;
            }
            if let Some(c) = GROUPED_ROW.captures(text) {
                if let Some(file) = &group {
                    let f = found(&c, 3, n).at(file, num(c.get(1)), num(c.get(2)));
                    ex.push(f);
                } else {
                    ex.suspicious += 1;
                }
                continue;
            }
            if let Some(c) = FOUND.captures(text) {
                ex.add_announced_errors(num(c.get(1)).unwrap_or(0).into());
                ex.conclude(n);
                continue;
            }
            if TRAILER.is_match(text) {
                if text.starts_with("All checks passed") {
                    ex.add_announced_errors(0);
                }
                ex.conclude(n);
                continue;
            }
            if let Some(c) = GROUPED_FILE.captures(text) {
                group = Some(c[1].to_string());
                ex.mark(n);
                continue;
            }
            if text.is_empty() {
                ex.mark(n);
            } else if FULL.is_match(text) || text.contains("error") {
                ex.suspicious += 1;
            }
        }
        flush(&mut ex, &mut current);
        ex.finish(tool.unwrap_or("ruff check"), |line| {
            let t = line.trim_start();
            t.starts_with("help:") || t.starts_with("note:")
        })
    }
}

fn flush(ex: &mut Extraction<'_>, current: &mut Option<Found>) {
    if let Some(done) = current.take() {
        ex.push(done);
    }
}

/// A finding from the capture groups of [`CODE`], starting at group `at`.
fn found(c: &regex::Captures<'_>, at: usize, n: usize) -> Found {
    let code = c.get(at).map(|m| m.as_str());
    let msg = c.get(at + 2).map_or("", |m| m.as_str());
    let mut f = Found::new(Severity::Error, msg, n).code(code);
    if c.get(at + 1).is_some() {
        f.fields.push(("fixable".into(), "true".into()));
    }
    f
}

/// `--output-format=json`: a pretty-printed array from a `[` line to its
/// `]` line. Each object opens with a line `  {`; the items point at the
/// object's own lines. Returns the `]` line, or `None` when it does not parse.
fn json_array(artifact: &Artifact, open: usize, ex: &mut Extraction<'_>) -> Option<usize> {
    let block = super::diagnostic::json_block(artifact, open, "  {", "]")?;
    let (value, starts, close) = (block.value, block.object_starts, block.close);
    let items = value.as_array()?;
    if items.len() != starts.len() {
        return None;
    }
    for (i, (obj, &first)) in items.iter().zip(&starts).enumerate() {
        let last = starts.get(i + 1).map_or(close - 1, |&next| next - 1);
        let s = |k: &str| obj.get(k).and_then(Value::as_str);
        let at = |k: &str| {
            obj.get("location")
                .and_then(|l| l.get(k))
                .and_then(Value::as_u64)
                .and_then(|v| u32::try_from(v).ok())
        };
        let msg = s("message").unwrap_or("");
        let mut f = Found::new(Severity::Error, msg.lines().next().unwrap_or(""), first)
            .code(s("code"))
            .at(s("filename").unwrap_or(""), at("row"), at("column"));
        f.block_last = last;
        f.detail = vec![first];
        if obj.get("fix").is_some_and(|v| !v.is_null()) {
            f.fields.push(("fixable".into(), "true".into()));
        }
        ex.push(f);
    }
    ex.mark_range(open, close);
    Some(close)
}
