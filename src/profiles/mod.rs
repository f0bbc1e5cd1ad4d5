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
pub mod junit;
pub mod mypy;
pub mod pyright;
pub mod pytest;
pub mod ruff;
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
    /// Content sniffing of the first KiB.
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

    /// A reason when the first KiB of output (normalized) looks like this family.
    fn by_content(&self, _head: &str) -> Option<String> {
        None
    }

    /// Typed facts and the attestation of what was understood.
    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt);
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
