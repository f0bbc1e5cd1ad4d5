//! Typed facts an extractor found, and its own account of what it understood.
//!
//! Extractors produce these; the planner selects over them; the renderer
//! prints what the plan names. Nothing downstream re-parses rendered text.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::artifact::Span;

/// What kind of finding an item is. A closed vocabulary: planners and
/// contracts match on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    /// A test that ran and failed.
    FailingTest,
    /// A setup/teardown/collection error attributed to a test or file.
    TestError,
    /// A suite, file or package that did not run (import error, build failure).
    SuiteNotRun,
    /// A compiler/linter diagnostic (severity in `Severity`).
    Diagnostic,
    /// A build step that failed without a diagnostic of its own (make, linker).
    BuildFailure,
    /// A program or a test that died on an uncaught exception, a panic or
    /// a signal: identity what died at the innermost frame of the user's
    /// code (`ValueError at app.py:12`), block its stack and cause chain.
    Crash,
    /// A line the generic text profile judged decisive (error, panic, fatal…).
    DecisiveLine,
    /// A warning that is not a diagnostic (deprecations, runner warnings).
    Warning,
    /// A file a search matched in; identity its path, field `matches` its count.
    MatchingFile,
    /// A file a diff changes (status and line counts in the fields).
    ChangedFile,
    /// A commit a log or `git show` prints.
    Commit,
    /// A folder a listing names; identity its path, fields its counts.
    Directory,
    /// One kind of file in a listing (`.rs`, `(no extension)`,
    /// `(symlink)`): fields `files` and `bytes`, detail its entry lines.
    FileType,
    /// A listed entry the reader must see whatever the budget (a dangling
    /// symlink, setuid, world-writable, empty, one of the largest): class
    /// says which.
    Anomaly,
    /// A log line template (timestamps, numbers, ids, addresses, quoted
    /// strings abstracted): fields `count`, `first`, `last` (line numbers).
    LogTemplate,
    /// An access-log endpoint that answered 4xx/5xx: identity
    /// `STATUS METHOD PATH`, field `count`.
    Endpoint,
    /// The time a log covers: fields `from` and `to` as the log wrote them.
    Period,
    /// One of an access log's slowest requests: identity `METHOD PATH`,
    /// field `seconds`, headline its line.
    SlowRequest,
    /// A path `git status` lists; its state in `class` (staged, unstaged,
    /// untracked, conflicted, ignored).
    StatusPath,
    /// A path a merge, rebase, cherry-pick or pull left in conflict.
    Conflict,
    /// A ref a push, fetch or pull created, moved, deleted, or was refused.
    RefUpdate,
    /// A branch, tag, stash entry or remote a listing names.
    RefName,
    /// A record of a data set (a JSON array's item, a table's row). With
    /// severity error or warning it is an anomaly (a failed or non-OK
    /// status, a non-null error, an outlier, an odd shape) and part of the
    /// census; with severity info it is a sample the planner may show.
    Record,
    /// A fact about a data set as a whole: a collection's length, a
    /// field's or column's statistics, an identity field of the document.
    /// Never census: the planner shows it while the budget allows.
    Field,
    /// A step of a CI job (a GitHub Actions step, a GitLab section):
    /// identity its name, class its outcome (`failed`, `succeeded`),
    /// block its lines.
    Step,
    /// A CI annotation (`##[error]`, `##[warning]`, `::error file=…::`,
    /// GitLab's `ERROR:` line): identity the step's name and the line,
    /// severity its level, headline the line itself.
    Annotation,
}

/// How serious a finding is, for ordering and grouping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Note,
    Help,
    Info,
}

impl Severity {
    /// The word for it on a census line and in `--severity`.
    pub fn word(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Help => "help",
            Severity::Info => "info",
        }
    }
}

/// A source coordinate named by the tool.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Location {
    pub file: String,
    pub line: Option<u32>,
    pub column: Option<u32>,
}

/// One typed finding, with spans into the artifact for every claim.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EvidenceItem {
    pub kind: ItemKind,
    pub severity: Severity,
    /// Stable identity: a test node id, `file:line:col code`, a package name.
    pub identity: String,
    /// Failure class or diagnostic code (`AssertionError`, `E0308`, `no-unused-vars`).
    pub class: Option<String>,
    /// A one-line summary as the tool worded it.
    pub summary: Option<String>,
    pub location: Option<Location>,
    /// The raw line that names this item, when there is one.
    pub headline: Option<Span>,
    /// The few decisive lines (preferred detail), in display order.
    pub detail: Vec<Span>,
    /// The item's whole block (retrievable with `--item`).
    pub block: Option<Span>,
    /// Further typed fields a profile wants to keep (stable order).
    pub fields: BTreeMap<String, String>,
}

/// The `fields` key of a diagnostic's primary label: the words a compiler
/// writes under the code it points at (rustc's ``^^^ expected `u32`, found
/// `u64` ``). The census line carries it after the summary, because a
/// header such as `mismatched types` alone does not say what to change.
pub const LABEL_FIELD: &str = "label";

/// The `fields` key of a test's suite path, when the runner's identity
/// joins suite and test by a character a test's own name may hold (mocha's
/// full title joins them by spaces): the JUnit report's classname. Empty
/// for a test outside any suite.
pub const SUITE_FIELD: &str = "suite";

/// The `fields` key of the case suffix a runner writes after a
/// parameterized test's name, when it is not in brackets: GoogleTest's
/// `/3` of `Sweep/NickelSweep.RoundsHalfUp/3`. The identity ends with it.
pub const CASE_FIELD: &str = "case";

impl EvidenceItem {
    pub fn new(kind: ItemKind, severity: Severity, identity: impl Into<String>) -> Self {
        EvidenceItem {
            kind,
            severity,
            identity: identity.into(),
            class: None,
            summary: None,
            location: None,
            headline: None,
            detail: Vec::new(),
            block: None,
            fields: BTreeMap::new(),
        }
    }

    /// The test a parameterized case belongs to and the case as the
    /// runner writes it: (`tests/a.py::test_x`, `[1-2]`) of
    /// `tests/a.py::test_x[1-2]`, or the identity cut before its
    /// [`CASE_FIELD`] (`Sweep/NickelSweep.RoundsHalfUp`, `/3`). None for
    /// an identity that is no case. The cases of one test share a census
    /// line in the grouped form and a group in a flood.
    pub fn case(&self) -> Option<(&str, &str)> {
        let id = self.identity.as_str();
        if let Some(suffix) = self.fields.get(CASE_FIELD) {
            return id
                .strip_suffix(suffix.as_str())
                .filter(|test| !test.is_empty() && !suffix.is_empty())
                .map(|test| (test, &id[test.len()..]));
        }
        // The brackets after the test's own name: a path before its last
        // `::` may hold brackets of its own (`app/[slug]/t.py::test_x[1]`).
        let from = id.rfind("::").map_or(0, |at| at + 2);
        let open = from + id[from..].find('[')?;
        let (test, params) = id.split_at(open);
        let plain = test.len() > from && !test.ends_with(char::is_whitespace);
        (plain && params.len() > 2 && params.ends_with(']')).then_some((test, params))
    }
}

/// The run's outcome as the facts and the exit status together tell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Outcome {
    Passed,
    Failed,
    Error,
    Ok,
    Interrupted,
    /// The facts and the exit status disagree, or nothing could be told.
    Unknown,
}

impl Outcome {
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Passed => "PASSED",
            Outcome::Failed => "FAILED",
            Outcome::Error => "ERROR",
            Outcome::Ok => "OK",
            Outcome::Interrupted => "INTERRUPTED",
            Outcome::Unknown => "UNKNOWN",
        }
    }
}

/// Who read an artifact: the one fact that decides how its digest is
/// headed. Typed, so that no renderer infers "no family read this" from
/// an empty name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "read_by", content = "tool")]
pub enum Reader {
    /// A family's extractor; its tool's name (`pytest`, `cargo test`)
    /// heads the digest.
    Family(String),
    /// No family (the text/v1 fallback): a ctx line naming the command
    /// heads the digest.
    Text,
}

impl Reader {
    pub fn family(tool: impl Into<String>) -> Self {
        Reader::Family(tool.into())
    }

    /// The family's tool name; `None` for output no family read.
    pub fn tool(&self) -> Option<&str> {
        match self {
            Reader::Family(tool) => Some(tool),
            Reader::Text => None,
        }
    }
}

/// Everything an extractor found in one artifact.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EvidenceGraph {
    /// Who read the artifact: a family (by its tool's name) or text/v1.
    pub reader: Reader,
    pub outcome: Outcome,
    /// Aggregate counts in display order (`failed`, `passed`, `skipped`…).
    pub counts: Vec<(String, u64)>,
    pub items: Vec<EvidenceItem>,
    /// Raw lines that carry the tool's own conclusion (summary lines).
    pub conclusion: Vec<Span>,
}

impl EvidenceGraph {
    /// A graph with no facts, read by no family: each family's extractor
    /// names itself (`reader`) before it fills the graph.
    pub fn empty() -> Self {
        EvidenceGraph {
            reader: Reader::Text,
            outcome: Outcome::Unknown,
            counts: Vec::new(),
            items: Vec::new(),
            conclusion: Vec::new(),
        }
    }
}

/// How much of its input the extractor understood.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "label", content = "why")]
pub enum Precision {
    Full,
    Degraded(String),
}

/// The extractor's attestation, computed before anything is rendered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CoverageReceipt {
    /// Census items parsed.
    pub items_parsed: u64,
    /// Census items the tool itself announced (summary line), when it did.
    pub items_announced: Option<u64>,
    /// Detail blocks (tracebacks, snippets) parsed, of census items.
    pub blocks_parsed: u64,
    pub lines_total: u64,
    /// Lines no rule of the profile recognised.
    pub lines_unmatched: u64,
    /// The input was cut before ctx saw it.
    pub truncated: bool,
    pub precision: Precision,
}

impl CoverageReceipt {
    pub fn new(lines_total: u64) -> Self {
        CoverageReceipt {
            items_parsed: 0,
            items_announced: None,
            blocks_parsed: 0,
            lines_total,
            lines_unmatched: 0,
            truncated: false,
            precision: Precision::Full,
        }
    }

    /// True when every announced census item was parsed and nothing was cut.
    pub fn is_complete(&self) -> bool {
        !self.truncated
            && self.precision == Precision::Full
            && self.items_announced.is_none_or(|n| n == self.items_parsed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test(identity: &str) -> EvidenceItem {
        EvidenceItem::new(ItemKind::FailingTest, Severity::Error, identity)
    }

    #[test]
    fn cases_as_their_runners_write_them() {
        let case = |id: &str| test(id).case().map(|(t, c)| (t.to_string(), c.to_string()));
        let pair = |t: &str, c: &str| Some((t.to_string(), c.to_string()));
        assert_eq!(
            case("tests/a.py::test_x[1-2]"),
            pair("tests/a.py::test_x", "[1-2]")
        );
        assert_eq!(
            case("test_slug[[draft] Plan]"),
            pair("test_slug", "[[draft] Plan]")
        );
        assert_eq!(
            case("app/[slug]/t.py::test_x[1]"),
            pair("app/[slug]/t.py::test_x", "[1]")
        );
        assert_eq!(case("test_rows [row] (i=2)"), None);
        assert_eq!(case("T::test_labels [label alpha]"), None);
        assert_eq!(case("test_plain"), None);
        assert_eq!(case("test_empty[]"), None);
        assert_eq!(case("[1]"), None);
        // A runner's own suffix, where the profile marked it.
        let mut g = test("Sweep/NickelSweep.RoundsHalfUp/3");
        g.fields.insert(CASE_FIELD.to_string(), "/3".to_string());
        assert_eq!(g.case(), Some(("Sweep/NickelSweep.RoundsHalfUp", "/3")));
        g.fields.insert(CASE_FIELD.to_string(), "/4".to_string());
        assert_eq!(g.case(), None);
    }
}
