//! tsc/v1 — the TypeScript compiler (`tsc`, `vue-tsc`, `tsgo`).
//!
//! **Decision.** Which type errors must I fix, in which file and line, and
//! what does the message chain say about the mismatch?
//!
//! **Unsafe loss.** Any `TSxxxx` error dropped from the census (tsc stops
//! nothing on the first error, so each one is independent work); the
//! indented message chain under an error that explains the real mismatch;
//! a run that exited non-zero shown as clean.
//!
//! **Typed facts.** One `Diagnostic` per `file(line,col): error TSnnnn: msg`
//! (plain) or `file:line:col - error TSnnnn: msg` (`--pretty`), and per
//! file-less `error TSnnnn:` (configuration errors). Identity
//! `file:line:col TSnnnn`. The block holds the message chain, the code
//! frame with its `~~~` underline and the related-information frames.
//! "Found N errors in M files" is the conclusion and the announced total;
//! the per-file table under it is recognised, not itemised.
//!
//! **Ladder.** PASS_SUMMARY (clean: one line) → FAIL_CENSUS (every error
//! identity with its first message line, then code frames by rank) → DENSE
//! (frames trimmed to header + underline) → FLOOD (identities grouped by
//! code and by file with exact counts, `--items` to list them all).

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::Artifact;
use crate::evidence::{CoverageReceipt, EvidenceGraph, Severity};

use super::{Profile, ProfileSpec, ReceiptGroup};
use super::diagnostic::{Extraction, Found, command_words, num};

pub struct Tsc;

/// `src/a.ts(3,7): error TS2322: msg` — the non-pretty form.
static PLAIN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\S.*?)\((\d+),(\d+)\): (error|warning|message) (TS\d+): (.*)$").expect("static")
});
/// `src/a.ts:3:7 - error TS2322: msg` — the `--pretty` form.
static PRETTY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\S.*?):(\d+):(\d+) - (error|warning|message) (TS\d+): (.*)$").expect("static")
});
/// `error TS5023: msg` — no file (options, tsconfig).
static GLOBAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(error|warning|message) (TS\d+): (.*)$").expect("static"));
static FOUND: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^Found (\d+) errors?\b").expect("static"));
/// The table under "Found N errors in M files" and watch-mode chatter.
static RECOGNISED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(Errors\s+Files$|\s+\d+\s+\S.*:\d+$|\[[\d:APM ]+\] |Version \d)").expect("static")
});
static SNIFF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?m)^\S.*\(\d+,\d+\): error TS\d+: |",
        r"^\S.*:\d+:\d+ - error TS\d+: |",
        r"^error TS\d+: "
    ))
    .expect("static")
});

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["tsc", "vue-tsc", "tsgo"],
    // Every alternative of SNIFF needs this word.
    sniff_words: &["error TS"],
    sniff: Some(&SNIFF),
    sniff_reason: "a tsc `error TSnnnn:` line",
    decisive_words: &["error TS"],
    ..ProfileSpec::new("tsc/v1", "tsc", ReceiptGroup::Diagnostics)
};

impl Profile for Tsc {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }


    fn decisive_line(&self, line: &str) -> Option<String> {
        super::line_shaped(self, line)
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let mut ex = Extraction::new(artifact);
        let mut current: Option<Found> = None;
        for n in 1..=artifact.line_count() {
            let text = crate::profiles::visible(artifact, n);
            let text = text.trim_end();
            let header = PLAIN
                .captures(text)
                .or_else(|| PRETTY.captures(text))
                .map(|c| {
                    let (line, col) = (num(c.get(2)), num(c.get(3)));
                    found(&c[4], &c[5], &c[6], n).at(&c[1], line, col)
                })
                .or_else(|| GLOBAL.captures(text).map(|c| found(&c[1], &c[2], &c[3], n)));
            if let Some(f) = header {
                if let Some(done) = current.replace(f) {
                    ex.push(done);
                }
                continue;
            }
            if let Some(c) = FOUND.captures(text) {
                if let Some(done) = current.take() {
                    ex.push(done);
                }
                ex.add_announced_errors(num(c.get(1)).unwrap_or(0).into());
                ex.conclude(n);
                continue;
            }
            // Everything indented or blank after a header is its block:
            // message chain, code frame, related information.
            if let Some(f) = current.as_mut() {
                if text.is_empty() || text.starts_with(' ') || text.starts_with('\t') {
                    if !text.is_empty() {
                        f.block_last = n;
                    }
                    ex.mark(n);
                    continue;
                }
                // A code frame line starts with the line number (`12 code`).
                if text
                    .split_once(' ')
                    .is_some_and(|(d, _)| d.bytes().all(|b| b.is_ascii_digit()))
                {
                    f.block_last = n;
                    continue;
                }
                if let Some(done) = current.take() {
                    ex.push(done);
                }
            }
            if text.is_empty() || RECOGNISED.is_match(text) {
                ex.mark(n);
            } else if text.contains(" error TS") || text.starts_with("error") {
                ex.suspicious += 1;
            }
        }
        if let Some(done) = current.take() {
            ex.push(done);
        }
        let tool = command_words(&artifact.argv)
            .first()
            .filter(|w| self.commands().contains(w))
            .map_or("tsc".to_string(), |w| w.to_string());
        ex.finish(tool, |line| {
            line.starts_with("  ") && !line.trim().is_empty()
        })
    }
}

fn found(severity: &str, code: &str, msg: &str, n: usize) -> Found {
    let severity = match severity {
        "error" => Severity::Error,
        "warning" => Severity::Warning,
        _ => Severity::Note,
    };
    Found::new(severity, msg, n).code(Some(code))
}
