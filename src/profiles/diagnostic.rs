//! Shared building blocks of the diagnostics profiles (cargo_build, tsc,
//! gcc, eslint, mypy, ruff, pyright): one shape — file, line, column,
//! severity, code, message, snippet, notes — printed by many tools.
//!
//! A profile walks the artifact's lines with its own rules and hands each
//! diagnostic it recognises to an [`Extraction`] as a [`Found`]; the
//! extraction keeps track of which lines were understood and turns the lot
//! into an `EvidenceGraph` and a `CoverageReceipt` with the same outcome,
//! count and precision rules for every tool, so a reader learns them once.

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::{Artifact, Exit, Span};
use crate::evidence::{
    CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Location, Outcome, Severity,
};
use crate::normalize;

use super::coverage::Coverage;

/// Detail is a handful of decisive lines, never a whole flood.
pub const DETAIL_CAP: usize = 12;

/// Lines that carry a caret or underline marker (`^^^`, `~~~`): the point
/// where a code frame says what is wrong. Detail selection keeps up to here.
static CARET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[\s\d]*[|│]?\s*[\^~]").expect("static pattern compiles"));

/// A rustc primary label line: the gutter, any secondary marks (`---`),
/// then the first run of carets and the label's words.
static PRIMARY_LABEL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*\d*\s*\|[^\^]*\^+ +(\S.*)$").expect("static pattern compiles")
});

/// The words of a rustc primary label (`^^^ expected `u32`, found `u64``),
/// when `line` is one. An inline suggestion (`^^^ help: …`) is advice, not
/// what is wrong: it is not a label.
pub fn primary_label(line: &str) -> Option<&str> {
    PRIMARY_LABEL
        .captures(line.trim_end())
        .and_then(|c| c.get(1))
        .map(|m| m.as_str())
        .filter(|l| !l.starts_with("help:") && !l.starts_with("note:"))
}

/// `file:line[:col]: severity: message` — the shape gcc, clang and mypy
/// share (mypy adds `  [code]`, gcc/clang ` [-Wflag]`; callers split those).
static LINE_DIAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([^:\s][^:]*):(\d+):(?:(\d+):)? (fatal error|error|warning|note): (.*)$")
        .expect("static pattern compiles")
});

/// The parts of one `file:line:col: severity: message` line.
pub struct LineDiag<'t> {
    pub file: &'t str,
    pub line: Option<u32>,
    pub column: Option<u32>,
    pub severity: Severity,
    pub message: &'t str,
}

pub fn diagnostic_line(text: &str) -> Option<LineDiag<'_>> {
    let c = LINE_DIAG.captures(text)?;
    let severity = match c.get(4)?.as_str() {
        "note" => Severity::Note,
        "warning" => Severity::Warning,
        _ => Severity::Error,
    };
    Some(LineDiag {
        file: c.get(1)?.as_str(),
        line: num(c.get(2)),
        column: num(c.get(3)),
        severity,
        message: c.get(5)?.as_str(),
    })
}

/// One diagnostic as a profile recognised it; line numbers are 1-based
/// lines of the artifact's interleaved view.
#[derive(Clone, Debug)]
pub struct Found {
    pub kind: ItemKind,
    pub severity: Severity,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
    pub code: Option<String>,
    pub summary: String,
    pub headline: usize,
    /// Last line of the block (inclusive); the block starts at `headline`
    /// unless `block_first` says otherwise (`In file included from` lines).
    pub block_last: usize,
    pub block_first: Option<usize>,
    /// Decisive lines; when empty, chosen from the block by [`pick_detail`].
    pub detail: Vec<usize>,
    pub fields: Vec<(String, String)>,
}

impl Found {
    pub fn new(severity: Severity, summary: impl Into<String>, headline: usize) -> Self {
        Found {
            kind: ItemKind::Diagnostic,
            severity,
            file: None,
            line: None,
            column: None,
            code: None,
            summary: summary.into(),
            headline,
            block_last: headline,
            block_first: None,
            detail: Vec::new(),
            fields: Vec::new(),
        }
    }

    pub fn at(mut self, file: &str, line: Option<u32>, column: Option<u32>) -> Self {
        self.file = Some(clean_path(file));
        self.line = line;
        self.column = column;
        self
    }

    pub fn code(mut self, code: Option<&str>) -> Self {
        self.code = code.filter(|c| !c.is_empty()).map(str::to_string);
        self
    }

    /// `file:line:col code`, omitting what the tool did not say; the
    /// summary stands in when there is neither location nor code.
    pub fn identity(&self) -> String {
        let mut id = String::new();
        if let Some(file) = &self.file {
            id.push_str(file);
            for n in [self.line, self.column].into_iter().flatten() {
                id.push_str(&format!(":{n}"));
            }
        }
        if let Some(code) = &self.code {
            if !id.is_empty() {
                id.push(' ');
            }
            id.push_str(code);
        }
        if id.is_empty() {
            id = self.summary.clone();
        }
        id
    }
}

/// `./src/a.ts` and `src/a.ts` name the same file.
/// A pretty-printed JSON document (ruff's and pyright's JSON formats) read
/// from line `open` through the first line that is `close` alone, with the
/// lines where its objects open (a line equal to `object_open`), so items
/// can point at their own object's lines. None when the document never
/// closes or does not parse.
pub struct JsonBlock {
    pub value: serde_json::Value,
    pub object_starts: Vec<usize>,
    pub close: usize,
}

pub fn json_block(
    artifact: &Artifact,
    open: usize,
    object_open: &str,
    close: &str,
) -> Option<JsonBlock> {
    let mut text = String::new();
    let mut object_starts = Vec::new();
    for n in open..=artifact.line_count() {
        // JSON is read whole, never through the extractor's window.
        let line = normalize::line(artifact.line(n));
        if line == object_open {
            object_starts.push(n);
        }
        text.push_str(&line);
        text.push('\n');
        if line.trim_end() == close {
            let value = serde_json::from_str(&text).ok()?;
            return Some(JsonBlock {
                value,
                object_starts,
                close: n,
            });
        }
    }
    None
}

pub fn clean_path(path: &str) -> String {
    path.trim().trim_start_matches("./").to_string()
}

/// Parses a decimal field a regex already matched as digits; absurd values
/// (overflow) become `None` rather than a panic.
pub fn num(s: Option<regex::Match<'_>>) -> Option<u32> {
    s.and_then(|m| m.as_str().parse().ok())
}

/// Consecutive line numbers merged into spans, in order.
pub fn spans(lines: &[usize]) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::new();
    for &n in lines {
        if n == 0 {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.last + 1 == n => last.last = n,
            Some(last) if last.contains(n) => {}
            _ => out.push(Span::line(n)),
        }
    }
    out
}

/// The decisive lines of a block: all of it when it is short; otherwise
/// the header through the first caret line (location and snippet), then
/// the note/help lines `is_note` picks, up to [`DETAIL_CAP`] lines.
pub fn pick_detail(
    artifact: &Artifact,
    first: usize,
    last: usize,
    is_note: impl Fn(&str) -> bool,
) -> Vec<usize> {
    let visible = |n: usize| !crate::profiles::visible(artifact, n).trim().is_empty();
    if last + 1 - first <= DETAIL_CAP {
        return (first..=last).filter(|&n| visible(n)).collect();
    }
    let mut out = Vec::new();
    let mut after_caret = first;
    for n in first..=last {
        if out.len() >= DETAIL_CAP - 2 {
            after_caret = n;
            break;
        }
        if visible(n) {
            out.push(n);
        }
        after_caret = n + 1;
        if n > first && CARET.is_match(&crate::profiles::visible(artifact, n)) {
            break;
        }
    }
    for n in after_caret..=last {
        if out.len() >= DETAIL_CAP {
            break;
        }
        if is_note(&crate::profiles::visible(artifact, n)) {
            out.push(n);
        }
    }
    out
}

/// What one extraction has understood so far.
pub struct Extraction<'a> {
    pub artifact: &'a Artifact,
    pub found: Vec<Found>,
    recognised: Vec<bool>,
    pub conclusion: Vec<usize>,
    /// Error/warning totals the tool printed itself, when it did.
    pub announced_errors: Option<u64>,
    pub announced_warnings: Option<u64>,
    /// Lines that looked like diagnostics but did not parse.
    pub suspicious: u64,
    /// The tool's own verdict when it states one outside the exit status
    /// (`build-finished {"success":false}`, "no issues found").
    pub tool_says_failed: Option<bool>,
}

impl<'a> Extraction<'a> {
    pub fn new(artifact: &'a Artifact) -> Self {
        Extraction {
            artifact,
            found: Vec::new(),
            recognised: vec![false; artifact.line_count() + 1],
            conclusion: Vec::new(),
            announced_errors: None,
            announced_warnings: None,
            suspicious: 0,
            tool_says_failed: None,
        }
    }

    pub fn mark(&mut self, n: usize) {
        if let Some(slot) = self.recognised.get_mut(n) {
            *slot = true;
        }
    }

    pub fn mark_range(&mut self, first: usize, last: usize) {
        for n in first..=last {
            self.mark(n);
        }
    }

    pub fn conclude(&mut self, n: usize) {
        self.mark(n);
        self.conclusion.push(n);
    }

    pub fn add_announced_errors(&mut self, n: u64) {
        self.announced_errors = Some(self.announced_errors.unwrap_or(0) + n);
    }

    pub fn add_announced_warnings(&mut self, n: u64) {
        self.announced_warnings = Some(self.announced_warnings.unwrap_or(0) + n);
    }

    /// Records a diagnostic; its block counts as recognised. A path under
    /// the run's working directory is made relative to it, so identities do
    /// not depend on where the project was checked out.
    pub fn push(&mut self, mut found: Found) {
        if let (Some(cwd), Some(file)) = (&self.artifact.cwd, &found.file) {
            let prefix = format!("{}/", cwd.trim_end_matches('/'));
            if let Some(rel) = file.strip_prefix(&prefix) {
                found.file = Some(rel.to_string());
            }
        }
        let first = found.block_first.unwrap_or(found.headline);
        self.mark_range(
            first.min(found.headline),
            found.block_last.max(found.headline),
        );
        self.found.push(found);
    }

    /// The graph and the receipt; `is_note` picks note/help lines for detail.
    pub fn finish(
        self,
        tool: impl Into<String>,
        is_note: impl Fn(&str) -> bool,
    ) -> (EvidenceGraph, CoverageReceipt) {
        let artifact = self.artifact;
        let total = artifact.line_count();
        let mut graph = EvidenceGraph::empty();
        graph.reader = crate::evidence::Reader::family(tool);
        let (mut errors, mut warnings, mut notes) = (0u64, 0u64, 0u64);
        let mut blocks = 0u64;
        for f in &self.found {
            match f.severity {
                Severity::Error => errors += 1,
                Severity::Warning => warnings += 1,
                _ => notes += 1,
            }
        }
        for f in self.found {
            let first = f.block_first.unwrap_or(f.headline).min(f.headline);
            let last = f.block_last.max(f.headline);
            let mut item = EvidenceItem::new(f.kind, f.severity, f.identity());
            item.class = f.code.clone();
            item.summary = Some(f.summary.clone());
            item.location = f.file.clone().map(|file| Location {
                file,
                line: f.line,
                column: f.column,
            });
            item.headline = Some(Span::line(f.headline));
            let detail = if f.detail.is_empty() {
                pick_detail(artifact, f.headline, last, &is_note)
            } else {
                f.detail.clone()
            };
            item.detail = spans(&detail);
            item.block = Some(Span::new(first, last));
            for (k, v) in f.fields {
                item.fields.insert(k, v);
            }
            if item.severity == Severity::Error {
                blocks += 1;
            }
            graph.items.push(item);
        }
        graph.counts.push(("errors".to_string(), errors));
        graph.counts.push(("warnings".to_string(), warnings));
        if notes > 0 {
            graph.counts.push(("notes".to_string(), notes));
        }
        graph.conclusion = spans(&self.conclusion);

        let unmatched = (1..=total)
            .filter(|&n| {
                !self.recognised.get(n).copied().unwrap_or(false)
                    && !crate::profiles::visible(artifact, n).trim().is_empty()
            })
            .count() as u64;
        let mut doubts = Vec::new();
        if let Some(n) = self.announced_errors
            && n != errors
        {
            let s = if n == 1 { "" } else { "s" };
            doubts.push(format!("the tool announced {n} error{s}, {errors} parsed"));
        }
        if let Some(n) = self.announced_warnings
            && n != warnings
        {
            let s = if n == 1 { "" } else { "s" };
            doubts.push(format!(
                "the tool announced {n} warning{s}, {warnings} parsed"
            ));
        }
        if self.suspicious > 0 {
            doubts.push(format!(
                "{} {} like diagnostics but did not parse",
                self.suspicious,
                if self.suspicious == 1 {
                    "line looked"
                } else {
                    "lines looked"
                }
            ));
        }
        // What the tool announces (`Found 3 errors`) is its errors: the
        // receipt counts those, the census of every diagnostics contract.
        let receipt = Coverage::of(artifact)
            .parsed(errors)
            .announced(self.announced_errors)
            .blocks(blocks)
            .unmatched(unmatched)
            .doubts(doubts)
            .finish();
        graph.outcome = outcome(
            artifact.exit,
            errors,
            self.tool_says_failed,
            self.announced_errors,
            &receipt,
        );
        (graph, receipt)
    }
}

/// Errors parsed → FAILED. The exit status (or the tool) says failure
/// but no error parsed → UNKNOWN, never OK (invariant 10). Without an
/// exit status OK needs the tool's own clean conclusion (`Found 0
/// errors`, `Success: no issues found`, a successful build record) in a
/// complete reading: a cut or crashed run is not known to be clean.
fn outcome(
    exit: Exit,
    errors: u64,
    tool_says_failed: Option<bool>,
    announced_errors: Option<u64>,
    receipt: &CoverageReceipt,
) -> Outcome {
    if errors > 0 {
        return Outcome::Failed;
    }
    if exit.is_failure() || tool_says_failed == Some(true) {
        return Outcome::Unknown;
    }
    let concluded_clean = tool_says_failed == Some(false) || announced_errors == Some(0);
    match exit {
        Exit::Code(0) => Outcome::Ok,
        _ if concluded_clean && receipt.is_complete() => Outcome::Ok,
        _ => Outcome::Unknown,
    }
}

pub use crate::command::command_words;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rustc_primary_labels() {
        let label = "  |              ---   ^^^^^^^^^ expected `u32`, found `u64`";
        assert_eq!(primary_label(label), Some("expected `u32`, found `u64`"));
        assert_eq!(
            primary_label("5 |     ^^^ not found in this scope"),
            Some("not found in this scope")
        );
        assert_eq!(
            primary_label("  |              --- expected due to this"),
            None
        );
        assert_eq!(
            primary_label("  |                             ++++++++"),
            None
        );
        assert_eq!(primary_label("  |     ^^^^"), None);
        assert_eq!(primary_label("  |     ^^^^ help: try: `flag`"), None);
    }

    #[test]
    fn spans_merge_runs() {
        assert_eq!(
            spans(&[1, 2, 3, 5, 7, 8]),
            vec![Span::new(1, 3), Span::line(5), Span::new(7, 8)]
        );
    }
}
