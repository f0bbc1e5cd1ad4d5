//! The renderer: a pure function of (artifact, graph, plan, key) → lines.
//! No clock, no environment, no I/O, no decisions: what to show is the
//! plan's; how a ctx line is worded is here, in one place.

use crate::artifact::{Artifact, Span};
use crate::evidence::{EvidenceGraph, EvidenceItem, ItemKind, Location, Severity};
use crate::normalize;
use crate::plan::{Block, DeliveryPlan, Omission, Omitted};
use crate::store::ArchiveKey;

/// The prefix of every line ctx writes itself.
pub const CTX_PREFIX: &str = "[ctx]";

/// Where a rendered line came from, so the guard can check invariant 9.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The family header (`pytest: FAILED · … · exit 1`).
    Header,
    /// Line n of the artifact, normalized.
    Raw(usize),
    /// A line of ctx's own, starting with `[ctx]`.
    Ctx,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderedLine {
    pub origin: Origin,
    pub text: String,
}

/// A rendered digest, line by line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rendered {
    pub lines: Vec<RenderedLine>,
}

impl Rendered {
    /// The digest's bytes: every line ends with `\n`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for line in &self.lines {
            out.extend_from_slice(line.text.as_bytes());
            out.push(b'\n');
        }
        out
    }

    fn push(&mut self, origin: Origin, text: String) {
        self.lines.push(RenderedLine { origin, text });
    }
}

/// Executes the plan.
pub fn render(
    artifact: &Artifact,
    graph: &EvidenceGraph,
    plan: &DeliveryPlan,
    key: Option<&ArchiveKey>,
) -> Rendered {
    let key = key.map_or_else(|| "<not archived>".to_string(), |k| k.short());
    let mut out = Rendered::default();
    for block in &plan.blocks {
        match block {
            Block::Header => header(&mut out, artifact, graph, plan),
            Block::Item {
                index,
                detail: false,
            } => census_line(&mut out, artifact, &graph.items[*index]),
            Block::Item {
                index,
                detail: true,
            } => raw_spans(&mut out, artifact, &graph.items[*index].detail),
            Block::Detail(index) => {
                let item = &graph.items[*index];
                let location = item
                    .location
                    .as_ref()
                    .map(location)
                    .map(|l| format!(" ({l})"));
                out.push(
                    Origin::Ctx,
                    format!(
                        "{CTX_PREFIX} --- {}{}",
                        item.identity,
                        location.unwrap_or_default()
                    ),
                );
                raw_spans(&mut out, artifact, &item.detail);
            }
            Block::Next(address) => out.push(
                Origin::Ctx,
                format!("{CTX_PREFIX} next: ctx expand {key} {}", address.args()),
            ),
            Block::Raw(span) => {
                for n in span.first..=span.last {
                    out.push(
                        Origin::Raw(n),
                        normalize::line(artifact.line(n)).into_owned(),
                    );
                }
            }
            Block::Marker(i) => out.push(Origin::Ctx, marker(&plan.omissions[*i], &key)),
            Block::Note(text) => out.push(Origin::Ctx, format!("{CTX_PREFIX} {text}")),
            Block::Footer => out.push(
                Origin::Ctx,
                format!(
                    "{CTX_PREFIX} full output ({} lines): ctx expand {key}",
                    count(artifact.line_count())
                ),
            ),
        }
    }
    out
}

fn raw_spans(out: &mut Rendered, artifact: &Artifact, spans: &[Span]) {
    for span in spans {
        for n in span.first..=span.last {
            out.push(
                Origin::Raw(n),
                normalize::line(artifact.line(n)).into_owned(),
            );
        }
    }
}

/// An item's identity line: its raw headline when that names it, else a
/// ctx line built from the typed fields.
fn census_line(out: &mut Rendered, artifact: &Artifact, item: &EvidenceItem) {
    if let Some((n, text)) = crate::plan::census_headline(artifact, item) {
        out.push(Origin::Raw(n), text.into_owned());
        return;
    }
    let word = match item.kind {
        ItemKind::FailingTest => "FAILED",
        ItemKind::TestError => "ERROR",
        ItemKind::SuiteNotRun => "NOT RUN",
        ItemKind::BuildFailure => "BUILD FAILED",
        ItemKind::Diagnostic | ItemKind::Warning | ItemKind::DecisiveLine => match item.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Help => "help",
            Severity::Info => "info",
        },
    };
    let mut line = format!("{CTX_PREFIX} {word} {}", item.identity);
    if let Some(loc) = &item.location
        && !item.identity.contains(&loc.file)
    {
        line.push_str(&format!(" ({})", location(loc)));
    }
    // A summary is one line; a tool's multi-line message keeps its first.
    if let Some(summary) = item.summary.as_deref().and_then(|s| s.lines().next()) {
        line.push_str(" - ");
        line.push_str(summary);
    }
    out.push(Origin::Ctx, line);
}

fn location(loc: &Location) -> String {
    let mut s = loc.file.clone();
    if let Some(line) = loc.line {
        s.push_str(&format!(":{line}"));
        if let Some(col) = loc.column {
            s.push_str(&format!(":{col}"));
        }
    }
    s
}

fn header(out: &mut Rendered, artifact: &Artifact, graph: &EvidenceGraph, plan: &DeliveryPlan) {
    let exit = artifact.exit.describe();
    if graph.tool.is_empty() {
        let mut parts = vec![format!("{} lines", count(artifact.line_count()))];
        parts.extend(exit);
        let name = clip(&artifact.display_command(), 80);
        out.push(
            Origin::Ctx,
            format!("{CTX_PREFIX} {name}: {}", parts.join(" · ")),
        );
        return;
    }
    let outcome = plan.outcome.unwrap_or(graph.outcome);
    let mut parts = vec![outcome.word().to_string()];
    if !graph.counts.is_empty() {
        let counts: Vec<String> = graph
            .counts
            .iter()
            .map(|(what, n)| format!("{} {}", count(*n as usize), agree(what, *n)))
            .collect();
        parts.push(counts.join(", "));
    }
    parts.extend(exit);
    out.push(
        Origin::Header,
        format!("{}: {}", graph.tool, parts.join(" · ")),
    );
}

fn marker(omission: &Omission, key: &str) -> String {
    let args = omission.address.args();
    let n = omission.count;
    let what = match &omission.what {
        Omitted::Lines => format!("{} {} omitted", count(n), plural(n, "line", "lines")),
        Omitted::Repeats => format!(
            "previous line repeated {} more {}",
            count(n),
            plural(n, "time", "times")
        ),
        Omitted::Items(what) => format!("{} {what}", count(n)),
    };
    format!("{CTX_PREFIX} … {what}: ctx expand {key} {args}")
}

/// `1234567` → `1,234,567`, the same on every machine.
pub fn count(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1 errors` → `1 error`: count words come plural from the extractors;
/// the first word loses its plural `s` when the count is one.
fn agree(what: &str, n: u64) -> String {
    let (first, rest) = what.split_once(' ').map_or((what, ""), |(f, r)| (f, r));
    if n != 1 || !first.ends_with('s') || first.ends_with("ss") || first.len() < 3 {
        return what.to_string();
    }
    let singular = &first[..first.len() - 1];
    if rest.is_empty() {
        singular.to_string()
    } else {
        format!("{singular} {rest}")
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1000), "1,000");
        assert_eq!(count(1234567), "1,234,567");
    }
}
