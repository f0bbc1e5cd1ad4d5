//! The ordered profile registry. Classification tries every profile's
//! command table first, then content sniffing, in this order; the first
//! match wins and `text/v1` is last. A family-specific profile goes before
//! any more generic shape it could be mistaken for.

use crate::artifact::Artifact;
use crate::evidence::{CoverageReceipt, EvidenceGraph};

pub mod cargo_build;
pub mod cargo_test;
pub(crate) mod diagnostic;
pub mod eslint;
pub mod gcc;
pub mod git_diff;
pub mod go_test;
pub mod jest;
pub(crate) mod jestlike;
pub mod json;
pub mod junit;
#[cfg(test)]
mod linearity;
pub mod mypy;
pub mod pyright;
pub mod pytest;
pub mod ruff;
pub mod search;
pub mod table;
pub mod testrun;
pub mod text;
pub mod tsc;
pub mod vitest;

/// How a profile came to be chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchedBy {
    /// `--as FAMILY`.
    Forced,
    /// The command table (argv).
    Command,
    /// Content: the head of the output or of either stream, or a
    /// decisive line of the family anywhere in the output.
    Content,
    /// Nothing else matched: the universal fallback.
    Fallback,
}

/// Why a profile was chosen, for `ctx explain`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Match {
    pub by: MatchedBy,
    pub reason: String,
}

/// One output family: recognises its artifacts and extracts typed facts.
pub trait Profile: Sync {
    /// `<family>/vN`.
    fn version(&self) -> &'static str;

    /// The family name: the part of `version()` before the slash.
    fn family(&self) -> &'static str {
        let v = self.version();
        v.split_once('/').map_or(v, |(family, _)| family)
    }

    /// The command names this profile serves, for `ctx profiles` and shims.
    fn commands(&self) -> &'static [&'static str] {
        &[]
    }

    /// A reason when argv names a command of this family.
    fn by_command(&self, _argv: &[String]) -> Option<String> {
        None
    }

    /// A reason when a head (the first KiB of the output or of one stream,
    /// normalized) looks like this family.
    fn by_content(&self, _head: &str) -> Option<String> {
        None
    }

    /// Literal words every decisive line of this family contains. The
    /// whole-output scan looks for all profiles' words in one pass and asks
    /// `decisive_line` only about lines holding one, so a family whose
    /// words never occur costs nothing, not even its patterns' compilation.
    /// Empty: the family is recognised by its head alone.
    fn decisive_words(&self) -> &'static [&'static str] {
        &[]
    }

    /// A reason when one normalized line, found anywhere in the output, is
    /// a fact only this family prints and that decides what the output is
    /// (a located compiler diagnostic, a test verdict, a test summary):
    /// such a line claims the output however late it comes.
    fn decisive_line(&self, _line: &str) -> Option<String> {
        None
    }

    /// Typed facts and the attestation of what was understood.
    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt);
}

/// The longest prefix of a line an extractor's patterns look at. A line
/// longer than this (a minified bundle, a base64 blob, a report written on
/// one line) is matched on its first 64 KiB only: regex engines that
/// capture run at tens of MB/s, so a 50 MB line took seconds. The archive
/// and the renderer keep the whole line; JSON is parsed from the whole
/// line, never from the window.
pub const LINE_WINDOW: usize = 64 << 10;

/// The first [`LINE_WINDOW`] bytes of `raw`, cut at a character boundary.
pub(crate) fn window(raw: &[u8]) -> &[u8] {
    if raw.len() <= LINE_WINDOW {
        return raw;
    }
    let mut end = LINE_WINDOW;
    // Back off to the start of a UTF-8 sequence (at most three bytes).
    while end > LINE_WINDOW - 3 && raw[end] & 0xC0 == 0x80 {
        end -= 1;
    }
    &raw[..end]
}

/// What an extractor matches on: line `n`'s visible text, from at most
/// its first [`LINE_WINDOW`] bytes.
pub(crate) fn visible(artifact: &Artifact, n: usize) -> std::borrow::Cow<'_, str> {
    crate::normalize::line(window(artifact.line(n)))
}

/// Whether the sniffed head contains any of `needles`: the literal words a
/// profile's sniffing pattern cannot match without. `by_content` asks this
/// first, so output that mentions none of them (most output) is turned away
/// without compiling, let alone running, the pattern.
pub(crate) fn mentions_any(head: &str, needles: &[&str]) -> bool {
    needles
        .iter()
        .any(|n| memchr::memmem::find(head.as_bytes(), n.as_bytes()).is_some())
}

/// Every profile, in the order classification tries them; text/v1 last.
pub fn registry() -> &'static [&'static dyn Profile] {
    &[
        // First: a diff quotes any text, and other families' shapes with it.
        &git_diff::GitDiff,
        &pytest::Pytest,
        &cargo_test::CargoTest,
        &go_test::GoTest,
        &jest::Jest,
        &vitest::Vitest,
        &junit::Junit,
        &cargo_build::CargoBuild,
        &tsc::Tsc,
        &gcc::Gcc,
        &eslint::Eslint,
        &mypy::Mypy,
        &ruff::Ruff,
        &pyright::Pyright,
        &search::Search,
        &json::Json,
        &table::Table,
        &text::Text,
    ]
}

/// The profile of a family (`--as`), by family name or full version.
pub fn by_family(name: &str) -> Option<&'static dyn Profile> {
    registry()
        .iter()
        .copied()
        .find(|p| p.family() == name || p.version() == name)
}
