//! mypy/v1 — the mypy type checker: plain, `--pretty`, colour,
//! `--show-column-numbers` / `--show-error-end`.
//!
//! **Decision.** Which type errors must I fix, where, under which error
//! code, and what hint does mypy attach (overload variants, stub links)?
//!
//! **Unsafe loss.** An error identity missing from the census (mypy reports
//! every error in every checked file; each is its own fix); the `[code]`
//! that tells whether to fix or to ignore; a non-zero exit shown as clean.
//!
//! **Typed facts.** One `Diagnostic` per `file:line[:col]: error: msg
//! [code]`; `--pretty` wraps the message onto unindented lines (the code
//! may sit alone on the last of them) and adds the source line with a
//! caret, all in the block. A `note:` at the same file and line as the
//! error above is part of that error's block (mypy's "hint"); a note
//! anywhere else (`reveal_type`) is an item of its own. "Found N errors in
//! M files" is the conclusion and the announced total; "Success: no issues
//! found" is the clean conclusion.
//!
//! **Ladder.** PASS_SUMMARY (the Success line) → FAIL_CENSUS (every error
//! identity with its first message line; hints and carets by rank) → DENSE
//! → FLOOD (identities grouped by code and by file, exact totals, `--items`).

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::Artifact;
use crate::evidence::{CoverageReceipt, EvidenceGraph, Severity};

use super::{Profile, ProfileSpec, ReceiptGroup};
use super::diagnostic::{Extraction, Found, command_words, num};

pub struct Mypy;

/// `file:line[:col[:eline:ecol]]: severity: message[  [code]]`
static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([^:\s][^:]*):(\d+):(?:(\d+):)?(?:\d+:\d+:)? (error|warning|note): (.*)$")
        .expect("static")
});
/// A file-less error: `mypy: error: …`, `error: …`, `pkg: error: …`.
static GLOBAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:[^:\s]+: )?error: (.*)$").expect("static"));
/// `  [code]` closing a message (one space or a line start when wrapped).
static CODE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?:^|\s)\[([a-z][a-z0-9-]*)\]$").expect("static"));
static CONTEXT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\S+: note: (In|At top level)").expect("static"));
static FOUND: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^Found (\d+) errors? in \d+ files?").expect("static"));
static SUCCESS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^Success: no issues found").expect("static"));
static SNIFF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?m)^\S+\.pyi?:\d+:(\d+:)?(\d+:\d+:)? (error|note): .*  \[[a-z][a-z0-9-]*\]$|",
        // --pretty wraps the message: the code closes a later line.
        r"^\S+\.pyi?:\d+:(\d+:)? error: .*\n(.*\n)?.*\[[a-z][a-z0-9-]*\]$|",
        r"^Success: no issues found in \d+ source files?$|",
        r"^Found \d+ errors? in \d+ files? \(checked \d+ source files?\)$"
    ))
    .expect("static")
});

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["mypy", "dmypy"],
    // Every alternative of SNIFF needs one of these words.
    sniff_words: &[
        " error: ",
        " note: ",
        "Success: no issues found in ",
        " source file",
    ],
    sniff: Some(&SNIFF),
    sniff_reason: "a mypy `file:line: error: … [code]` line",
    decisive_words: &["error: ", "Success: no issues found in "],
    ..ProfileSpec::new("mypy/v1", "mypy", ReceiptGroup::Diagnostics)
};

impl Profile for Mypy {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }


    fn decisive_line(&self, line: &str) -> Option<String> {
        // Every shape of ours has a colon in its first word (`file.py:3:`,
        // `Success:`): most lines are turned away before SNIFF.
        let first_word = line.split_whitespace().next().unwrap_or("");
        first_word
            .contains(':')
            .then(|| super::line_shaped(self, line))
            .flatten()
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let mut ex = Extraction::new(artifact);
        let mut current: Option<Found> = None;
        // A `--pretty` message still wrapping: its code has not been seen.
        let mut wrapping = false;
        for n in 1..=artifact.line_count() {
            let text = crate::profiles::visible(artifact, n);
            let text = text.trim_end();
            if CONTEXT.is_match(text) {
                flush(&mut ex, &mut current);
                ex.mark(n);
                continue;
            }
            if let Some(c) = HEADER.captures(text) {
                let (file, line) = (&c[1], num(c.get(2)));
                let severity = match &c[4] {
                    "error" => Severity::Error,
                    "warning" => Severity::Warning,
                    _ => Severity::Note,
                };
                // A note at the error's own file and line is its hint.
                if severity == Severity::Note
                    && let Some(f) = current.as_mut()
                    && f.file.as_deref() == Some(file)
                    && f.line == line
                {
                    f.block_last = n;
                    wrapping = false;
                    continue;
                }
                flush(&mut ex, &mut current);
                let msg = &c[5];
                let code = CODE.captures(msg).map(|k| k[1].to_string());
                wrapping = code.is_none() && severity != Severity::Note;
                let summary = CODE.replace(msg, "");
                let f = Found::new(severity, summary.trim_end(), n)
                    .at(file, line, num(c.get(3)))
                    .code(code.as_deref());
                current = Some(f);
                continue;
            }
            if let Some(c) = FOUND.captures(text) {
                flush(&mut ex, &mut current);
                ex.add_announced_errors(num(c.get(1)).unwrap_or(0).into());
                ex.conclude(n);
                continue;
            }
            if SUCCESS.is_match(text) {
                flush(&mut ex, &mut current);
                ex.add_announced_errors(0);
                ex.conclude(n);
                continue;
            }
            if let Some(f) = current.as_mut()
                && !text.is_empty()
            {
                // Wrapped message lines, then the indented source and caret.
                if wrapping && !text.starts_with("    ") {
                    if let Some(k) = CODE.captures(text) {
                        f.code = Some(k[1].to_string());
                        wrapping = false;
                    }
                    f.block_last = n;
                    continue;
                }
                if text.starts_with(' ') {
                    wrapping = false;
                    f.block_last = n;
                    continue;
                }
            }
            flush(&mut ex, &mut current);
            if let Some(c) = GLOBAL.captures(text) {
                ex.push(Found::new(Severity::Error, &c[1], n));
            } else if text.is_empty() {
                ex.mark(n);
            } else if text.contains("error:") {
                ex.suspicious += 1;
            }
        }
        flush(&mut ex, &mut current);
        let tool = command_words(&artifact.argv)
            .first()
            .filter(|w| self.commands().contains(w))
            .map_or("mypy".to_string(), |w| w.to_string());
        ex.finish(tool, |line| line.contains(": note: "))
    }
}

fn flush(ex: &mut Extraction<'_>, current: &mut Option<Found>) {
    if let Some(done) = current.take() {
        ex.push(done);
    }
}
