//! The renderer: a pure function of (artifact, graph, plan, key) → lines.
//! No clock, no environment, no I/O, no decisions: what to show is the
//! plan's; how a ctx line is worded is here, in one place.

use crate::artifact::Artifact;
use crate::evidence::EvidenceGraph;
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
            Block::Header => header(&mut out, artifact, graph),
            Block::Raw(span) => {
                for n in span.first..=span.last {
                    out.push(Origin::Raw(n), normalize::line(artifact.line(n)).into_owned());
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

fn header(out: &mut Rendered, artifact: &Artifact, graph: &EvidenceGraph) {
    let exit = artifact.exit.describe();
    if graph.tool.is_empty() {
        let mut parts = vec![format!("{} lines", count(artifact.line_count()))];
        parts.extend(exit);
        let command = artifact.display_command();
        let name = if command.is_empty() { "output".to_string() } else { clip(&command, 80) };
        out.push(Origin::Ctx, format!("{CTX_PREFIX} {name}: {}", parts.join(" · ")));
        return;
    }
    let mut parts = vec![graph.outcome.word().to_string()];
    if !graph.counts.is_empty() {
        let counts: Vec<String> = graph
            .counts
            .iter()
            .map(|(what, n)| format!("{} {what}", count(*n as usize)))
            .collect();
        parts.push(counts.join(", "));
    }
    parts.extend(exit);
    out.push(Origin::Header, format!("{}: {}", graph.tool, parts.join(" · ")));
}

fn marker(omission: &Omission, key: &str) -> String {
    let args = omission.address.args();
    let n = omission.count;
    let what = match omission.what {
        Omitted::Lines => format!("{} {} omitted", count(n), plural(n, "line", "lines")),
        Omitted::Repeats => format!(
            "previous line repeated {} more {}",
            count(n),
            plural(n, "time", "times")
        ),
        Omitted::Items => format!("{} more {}", count(n), plural(n, "item", "items")),
    };
    format!("{CTX_PREFIX} … {what}: ctx expand {key} {args}")
}

/// `1234567` → `1,234,567`, the same on every machine.
pub fn count(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
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
