//! The evidence layer: recognisers for the shapes every tool shares,
//! under every reader of an output.
//!
//! A typed profile knows its tool deeply; users run hundreds of tools no
//! profile knows. This layer finds, in any output, the facts a reader must
//! never lose, each an ordinary [`EvidenceItem`] of the census vocabulary
//! with an identity the reader acts on (the test id, the `file:line`, the
//! file to reformat, the build step) and the span of the line that names
//! it:
//! - located diagnostics in their common dialects (`located`);
//! - test verdicts (`verdicts`);
//! - formatters' would-change lists (`changes`);
//! - crashes with their cause chains (`crashes`);
//! - build, package-manager and runner verdicts (`builds`);
//! - failing cases of JUnit, NUnit and xUnit.net XML reports (`reports`).
//!
//! text/v1 plans from these items directly (its contract makes them
//! census, so the guard holds it to them); a typed profile adds them where
//! its own facts do not already cover the line (`uncovered`).
//!
//! One pass finds the lines worth asking: the words of every dialect in
//! one automaton (`words`), plus the lines that open with a location
//! (`path:N:`, `path(N,M):`), found by a byte test. Each dialect's pattern
//! is compiled on first use, so output that holds none of its words never
//! pays for it. Sits below profiles and filters and imports neither.

mod builds;
mod changes;
mod crashes;
mod located;
mod page;
mod reports;
mod verdicts;

pub(crate) use verdicts::ctest_verdict;
mod words;

use std::collections::HashSet;

use crate::artifact::{Artifact, SpanSet};
use crate::evidence::{EvidenceItem, ItemKind, Severity};

pub use page::Page;

/// One recogniser: the words without which it cannot match a line (any
/// of them, ASCII case-insensitive), and what it reads at line `n`.
pub(crate) struct Dialect {
    pub words: &'static [&'static str],
    /// Whether a line that opens with a location is asked even without a
    /// word (the located dialects: `a.py:3:1: E501 …` holds no word).
    pub located: bool,
    pub read: fn(&Page, usize) -> Vec<EvidenceItem>,
}

/// Every dialect, in the order their items are reported for one line.
fn dialects() -> &'static [&'static Dialect] {
    static ALL: [&Dialect; 41] = [
        &located::GNU,
        &located::CODE_FIRST,
        &located::PYLINT_BRACKETS,
        &located::MSBUILD,
        &located::TSC_PRETTY,
        &located::RUSTC_ARROW,
        &located::MAVEN,
        &located::ESBUILD,
        &located::SHELLCHECK_TTY,
        &located::ESLINT_STYLISH,
        &located::ESLINT_UNIX,
        &located::GO,
        &reports::XML_CASES,
        &verdicts::UNITTEST,
        &verdicts::PYTEST,
        &verdicts::TAP,
        &verdicts::MARKS,
        &verdicts::GTEST,
        &verdicts::GO,
        &verdicts::CTEST,
        &verdicts::SUREFIRE,
        &verdicts::RSPEC,
        &verdicts::NUMBERED,
        &verdicts::MINITEST,
        &verdicts::JEST,
        &verdicts::VITEST,
        &verdicts::CARGO_TEST,
        &changes::BLACK,
        &changes::PRETTIER,
        &changes::CARGO_FMT,
        &crashes::PYTHON,
        &crashes::THROWN,
        &crashes::RUST_PANIC,
        &crashes::GO_PANIC,
        &builds::MAKE,
        &builds::LINKER,
        &builds::CARGO,
        &builds::JVM_BUILD,
        &builds::PACKAGE_MANAGER,
        &builds::RUNNER,
        &builds::SYSTEM,
    ];
    &ALL
}

/// What the layer found in an output.
#[derive(Debug, Default)]
pub struct Recognised {
    /// The items, in the order of their lines, each identity once (its
    /// first occurrence: a summary that repeats a failure names the same
    /// fix).
    pub items: Vec<EvidenceItem>,
}

/// Reads `artifact` with every dialect.
pub fn recognise(artifact: &Artifact) -> Recognised {
    recognise_outside(artifact, &SpanSet::default())
}

/// Reads `artifact` with every dialect, on the lines `held` does not hold
/// (a typed family's own items': asking its dialects there would only
/// find what the family read, at the cost of a pattern per line of a
/// 100 MB build).
fn recognise_outside(artifact: &Artifact, held: &SpanSet) -> Recognised {
    let page = Page::new(artifact);
    let all = dialects();
    let mut items: Vec<EvidenceItem> = Vec::new();
    for (n, found) in words::candidates(&page, all) {
        if held.holds(n) {
            continue;
        }
        for (i, dialect) in all.iter().enumerate() {
            if found & (1 << i) != 0 {
                items.extend((dialect.read)(&page, n));
            }
        }
    }
    // A block reader (mocha's, PHPUnit's) reports lines below its heading.
    items.sort_by_key(|i| i.headline.map_or(0, |h| h.first));
    crashes::fold_into_tests(&mut items);
    let mut seen: HashSet<String> = HashSet::new();
    items.retain(|item| seen.insert(item.identity.clone()));
    Recognised { items }
}

/// The lines some items hold: their headlines, details and blocks.
fn held_by(items: &[EvidenceItem]) -> SpanSet {
    items
        .iter()
        .flat_map(|i| {
            i.headline
                .iter()
                .chain(i.block.iter())
                .chain(i.detail.iter())
                .copied()
        })
        .collect()
}

/// The layer's items whose headline no item of `covered` already holds
/// (inside its headline, detail or block): what a typed profile's own
/// facts leave out of its census, and must not.
pub fn uncovered(found: Recognised, covered: &[EvidenceItem]) -> Vec<EvidenceItem> {
    let held = held_by(covered);
    found
        .items
        .into_iter()
        .filter(|i| i.headline.is_some_and(|h| !held.holds(h.first)))
        .collect()
}

/// The layer's failures a typed family's facts do not account for: found
/// on a line none of `covered` holds, not a verdict that sums others up
/// (`builds::VERDICT`), an error, and named by no identity of `covered`
/// (a runner's progress line `✕ ten percent off` is the test its own
/// block names `cart › applyDiscount › ten percent off`). Such a failure
/// is one the family did not understand; a digest must still show it.
pub fn orphans(found: Recognised, covered: &[EvidenceItem]) -> Vec<EvidenceItem> {
    let mut known = String::new();
    for item in covered {
        known.push_str(&item.identity);
        known.push('\n');
    }
    // A typed identity inside the finding's (`pkg TestX` in the layer's
    // longer form) is asked only of a bounded list: this is a check, not
    // a join.
    let short: Vec<&str> = covered
        .iter()
        .map(|i| i.identity.as_str())
        .filter(|id| id.len() >= 4)
        .take(4096)
        .collect();
    uncovered(found, covered)
        .into_iter()
        .filter(|i| i.severity == Severity::Error)
        .filter(|i| i.class.as_deref() != Some(builds::VERDICT))
        .filter(|i| {
            let id = i.identity.as_str();
            !known.contains(id) && !short.iter().any(|t| id.contains(t))
        })
        .collect()
}

/// The first of the layer's failures in `artifact` that `covered` (a
/// typed family's facts) leaves unaccounted for (`orphans`): when there is
/// one, text/v1 reads the output instead of that family — in the digest and
/// in every `ctx expand` of it alike.
pub fn unaccounted(artifact: &Artifact, covered: &[EvidenceItem]) -> Option<EvidenceItem> {
    let found = recognise_outside(artifact, &held_by(covered));
    orphans(found, covered).into_iter().next()
}

/// The kinds this layer yields: what a contract names to make them census.
pub const KINDS: &[ItemKind] = &[
    ItemKind::Diagnostic,
    ItemKind::FailingTest,
    ItemKind::TestError,
    ItemKind::SuiteNotRun,
    ItemKind::BuildFailure,
    ItemKind::Crash,
];

#[cfg(test)]
mod tests;
