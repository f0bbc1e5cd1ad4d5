//! go_vet/v1 — Go's static checkers: `go vet` (its analyzers' findings
//! under `# package` headers, and `vet: ` for code that does not type
//! check) and staticcheck (`file:line:col: message (CODE)`; Debian ships
//! it as `go-staticcheck`).
//!
//! **Decision.** Which findings must I fix, where, and (staticcheck) under
//! which check code — a bug (`SA…`), a simplification (`S…`), a style rule
//! (`ST…`), unused code (`U1000`)?
//!
//! **Unsafe loss.** A finding missing from the census (each is its own
//! fix, and either tool fails the run for any one); two findings at one
//! position (staticcheck's two `ST1005`s on one string) folded into one; a
//! package that did not type check (`vet: …`, staticcheck's `(compile)`)
//! read as clean.
//!
//! **Typed facts.** One `Diagnostic` per finding, severity error: identity
//! `file:line:col` (go vet names no analyzer in its text output) or
//! `file:line:col CODE` (staticcheck), class = the code, summary = the
//! message. `# package` headers and `vet: ` prefixes are understood, not
//! items. Neither tool prints a total: the receipt counts what it parsed.
//!
//! **Ladder.** PASS_SUMMARY (no output: nothing to say) → FAIL_CENSUS (every
//! finding) → DENSE (identities grouped by file) → FLOOD (grouped by code
//! with exact counts).

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::Artifact;
use crate::evidence::{CoverageReceipt, EvidenceGraph, Severity};

use super::diagnostic::{Extraction, Found, command_words, num};
use super::{Profile, ProfileSpec, ReceiptGroup};

pub struct GoVet;

/// `cart/cart.go:25:2: message`, after an optional `vet: ` and with
/// staticcheck's `(CODE)` at the end.
static FINDING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(vet: )?((?:[A-Za-z]:)?[^\s:][^:]*\.go):(\d+):(\d+): (.+?)(?: \(([A-Z]+\d+|compile)\))?$")
        .expect("static pattern")
});
/// `# example.com/shop/cart`: the package the findings below belong to.
static PACKAGE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^# \S+$").expect("static pattern"));
/// staticcheck's own lines, unmistakable by their check codes.
static SNIFF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^\S+\.go:\d+:\d+: .+ \((?:SA|S|ST|QF|U)\d{4}\)$").expect("static pattern")
});

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["go vet", "staticcheck", "go-staticcheck"],
    sniff_words: &["(SA", "(S1", "(ST1", "(QF", "(U1000)"],
    sniff: Some(&SNIFF),
    sniff_reason: "a staticcheck `file.go:line:col: message (CODE)` line",
    decisive_words: &[".go:"],
    ..ProfileSpec::new("go_vet/v1", "go_vet", ReceiptGroup::Diagnostics)
};

impl Profile for GoVet {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn decisive_line(&self, line: &str) -> Option<String> {
        line.contains(".go:")
            .then(|| super::line_shaped(self, line))
            .flatten()
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let mut ex = Extraction::new(artifact);
        for n in 1..=artifact.line_count() {
            let text = crate::profiles::visible(artifact, n);
            let text = text.trim_end();
            if let Some(c) = FINDING.captures(text) {
                // A package that does not type check: `vet: …` or
                // staticcheck's `(compile)`.
                let code = c.get(6).map(|m| m.as_str());
                let code = match (c.get(1), code) {
                    (Some(_), None) => Some("compile"),
                    (_, code) => code,
                };
                let f = Found::new(Severity::Error, &c[5], n)
                    .at(&c[2], num(c.get(3)), num(c.get(4)))
                    .code(code);
                ex.push(f);
                continue;
            }
            if PACKAGE.is_match(text) || text.is_empty() {
                ex.mark(n);
            } else if text.contains(".go:") {
                ex.suspicious += 1;
            }
        }
        let words = command_words(&artifact.argv);
        // The tool the command names; without one, staticcheck's codes
        // say which printed the findings.
        let coded = ex
            .found
            .iter()
            .any(|f| f.code.as_deref().is_some_and(|c| c != "compile"));
        let tool = match words.first().copied() {
            Some("go") => "go vet",
            Some("staticcheck" | "go-staticcheck") => "staticcheck",
            _ if coded => "staticcheck",
            _ => "go vet",
        };
        ex.finish(tool, |_| false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_of_both_tools() {
        let c = FINDING
            .captures("cart/cart.go:25:13: Printf format %s reads arg #2, but call has only 1 args (SA5009)")
            .unwrap();
        assert_eq!((&c[2], &c[3], &c[4]), ("cart/cart.go", "25", "13"));
        assert_eq!(c.get(6).map(|m| m.as_str()), Some("SA5009"));
        let c = FINDING
            .captures("inventory/stock.go:22:2: self-assignment of level to level")
            .unwrap();
        assert!(c.get(6).is_none());
        let c = FINDING.captures("vet: cart/cart.go:28:1: missing return").unwrap();
        assert!(c.get(1).is_some());
        // A message with parentheses of its own keeps them.
        let c = FINDING
            .captures("a.go:3:2: call of f (defined at b.go:2) copies lock")
            .unwrap();
        assert_eq!(&c[5], "call of f (defined at b.go:2) copies lock");
        assert!(SNIFF.is_match("cart/cart.go:15:2: field mu is unused (U1000)"));
        assert!(!SNIFF.is_match("cart/cart.go:15:2: field mu is unused"));
    }
}
