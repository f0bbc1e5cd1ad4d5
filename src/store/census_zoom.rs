//! Census zooms for `ctx expand`: `--item ID`, `--items [filters]`,
//! `--details`. They re-read an archived record with the profile that
//! digested it (classification is deterministic over argv, `--as` and
//! content), so every identity a digest named or grouped can be listed and
//! every block it left out can be printed.

use crate::artifact::{Artifact, Span};
use crate::classify;
use crate::contract::{self, Contract, ContractError};
use crate::evidence::{EvidenceGraph, EvidenceItem, ItemKind};
use crate::normalize;
use crate::profiles::Profile;
use crate::words::clip_chars;

#[derive(Debug, thiserror::Error)]
pub enum ZoomError {
    #[error("{0}")]
    Family(#[from] classify::UnknownFamily),
    #[error("{0}")]
    Contract(#[from] ContractError),
    #[error("no item {id:?} in this record ({profile} found {}; `--items` lists them)", crate::render::counted(*count, "items"))]
    NoItem {
        id: String,
        profile: &'static str,
        count: usize,
    },
}

/// Filters of `--items`.
#[derive(Clone, Debug, Default)]
pub struct ItemFilter {
    pub code: Option<String>,
    pub file: Option<String>,
    pub severity: Option<String>,
}

impl ItemFilter {
    fn accepts(&self, item: &EvidenceItem) -> bool {
        let code_ok = self
            .code
            .as_deref()
            .is_none_or(|c| item.class.as_deref() == Some(c));
        let file_ok = self.file.as_deref().is_none_or(|f| {
            item.location
                .as_ref()
                .is_some_and(|l| l.file == f || l.file.ends_with(&format!("/{f}")))
        });
        let severity_ok = self
            .severity
            .as_deref()
            .is_none_or(|s| item.severity.word() == s);
        code_ok && file_ok && severity_ok
    }
}

/// The words `--severity` accepts: every `Severity::word`.
pub const SEVERITY_WORDS: [&str; 5] = ["error", "warning", "note", "help", "info"];

/// The record's evidence, as its profile reads it, and the family's
/// contract, which says what its census is.
pub fn evidence(
    artifact: &Artifact,
) -> Result<(&'static dyn Profile, EvidenceGraph, Contract), ZoomError> {
    // As the pipeline read it: a family that left a failure unread gave
    // the digest to text/v1, so its items are text/v1's.
    let (profile, graph, _) = classify::read(artifact, artifact.family.as_deref())?;
    let contract = contract::for_family(profile.family())?;
    Ok((profile, graph, contract))
}

/// `--items`: one identity per line, every census item (or, with a filter,
/// every item that passes it), complete and in occurrence order.
pub fn items(contract: &Contract, graph: &EvidenceGraph, filter: &ItemFilter) -> Vec<String> {
    selected(contract, graph, filter)
        .into_iter()
        .map(|i| i.identity.clone())
        .collect()
}

/// The items `--items` lists: every census item, or with a filter every
/// item that passes it, in occurrence order.
pub fn selected<'g>(
    contract: &Contract,
    graph: &'g EvidenceGraph,
    filter: &ItemFilter,
) -> Vec<&'g EvidenceItem> {
    let filtered = filter.code.is_some() || filter.file.is_some() || filter.severity.is_some();
    graph
        .items
        .iter()
        .filter(|i| {
            if filtered {
                filter.accepts(i)
            } else {
                contract.requires(i)
            }
        })
        .collect()
}

/// Characters a `--items` reason keeps before it is clipped with `…`.
const REASON_CHARS: usize = 200;

/// `--items` as printed: one line per item (the same items as [`items`]),
/// each naming the identity, its code and place when the identity does not
/// already say them, and its one-line reason, so the list alone lets the
/// reader choose what to open next: `src/a.ts:8:25 TS2345 - Argument of…`.
pub fn listing(
    artifact: &Artifact,
    contract: &Contract,
    graph: &EvidenceGraph,
    filter: &ItemFilter,
) -> Vec<String> {
    selected(contract, graph, filter)
        .into_iter()
        .map(|i| listing_line(artifact, i))
        .collect()
}

/// One item's `--items` line.
pub fn listing_line(artifact: &Artifact, item: &EvidenceItem) -> String {
    let mut line = item.identity.clone();
    // The reason as printed: a code past its cut is not on the line.
    let reason = reason(artifact, item).map(|r| clip_chars(&r, REASON_CHARS).to_string());
    if let Some(code) = item.class.as_deref()
        && !line.contains(code)
        && !reason.as_deref().is_some_and(|r| r.contains(code))
    {
        line.push_str(&format!(" [{code}]"));
    }
    if let Some(loc) = &item.location {
        let mut at = loc.file.clone();
        for n in [loc.line, loc.column].into_iter().flatten() {
            at.push_str(&format!(":{n}"));
        }
        if !line.contains(&at) {
            line.push_str(&format!(" ({at})"));
        }
    }
    if let Some(reason) = reason {
        line.push_str(" - ");
        line.push_str(&reason);
    }
    line
}

/// The item's one-line reason: its summary's first line; else the first
/// line of its headline or detail that says more than the identity.
fn reason(artifact: &Artifact, item: &EvidenceItem) -> Option<String> {
    let useful = |s: &str| {
        let s = s.trim();
        (!s.is_empty() && s != item.identity).then(|| s.to_string())
    };
    if let Some(summary) = item
        .summary
        .as_deref()
        .and_then(|s| s.lines().find_map(useful))
    {
        return Some(summary);
    }
    let said = item
        .headline
        .iter()
        .chain(&item.detail)
        .chain(&item.block)
        .flat_map(|s| s.first..=s.last)
        .find_map(|n| useful(&normalize::line(artifact.line(n))));
    // The identity is the tool's whole message (`make: *** [all] Error 1`):
    // the kind is all there is left to say.
    said.or_else(|| Some(kind_reason(item.kind).to_string()))
}

fn kind_reason(kind: ItemKind) -> &'static str {
    match kind {
        ItemKind::FailingTest => "test failed",
        ItemKind::TestError => "error outside the test body",
        ItemKind::SuiteNotRun => "did not run",
        ItemKind::BuildFailure => "build step failed",
        ItemKind::Crash => "crashed",
        ItemKind::Diagnostic | ItemKind::Warning | ItemKind::DecisiveLine => "reported",
        ItemKind::MatchingFile => "matches",
        ItemKind::ChangedFile => "changed",
        ItemKind::Commit => "commit",
        ItemKind::Directory => "listed folder",
        ItemKind::FileType => "file type",
        ItemKind::Anomaly => "kept whole",
        ItemKind::LogTemplate => "template",
        ItemKind::Endpoint => "answered with an error status",
        ItemKind::Period => "time covered",
        ItemKind::SlowRequest => "slow request",
        ItemKind::StatusPath => "listed",
        ItemKind::Conflict => "conflict",
        ItemKind::RefUpdate => "ref update",
        ItemKind::RefName => "listed",
        ItemKind::Record => "anomalous record",
        ItemKind::Field => "field",
        ItemKind::Step => "step of the job",
        ItemKind::Annotation => "annotation",
    }
}

/// `--item ID`: the spans of that item's whole block (every occurrence).
pub fn item_spans(
    profile: &'static dyn Profile,
    graph: &EvidenceGraph,
    id: &str,
) -> Result<Vec<Span>, ZoomError> {
    let spans: Vec<Span> = graph
        .items
        .iter()
        .filter(|i| i.identity == id)
        .filter_map(|i| i.block.or(i.headline))
        .collect();
    if spans.is_empty() {
        return Err(ZoomError::NoItem {
            id: id.to_string(),
            profile: profile.version(),
            count: graph.items.len(),
        });
    }
    Ok(spans)
}

/// `--details`: the block spans of every census item, in order.
pub fn detail_spans(contract: &Contract, graph: &EvidenceGraph) -> Vec<(String, Span)> {
    contract
        .census(graph)
        .filter_map(|i| i.block.or(i.headline).map(|s| (i.identity.clone(), s)))
        .collect()
}
