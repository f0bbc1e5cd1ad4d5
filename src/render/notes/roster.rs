//! The words of a roster's notes (`RosterNote`).

use crate::delivery_plan::{Grouping, RosterNote};
use crate::evidence::{EvidenceGraph, EvidenceItem};
use crate::words::count;

/// Groups a FLOOD note names before "… N more".
const TOP_GROUPS: usize = 12;

pub fn words(note: &RosterNote, graph: &EvidenceGraph) -> String {
    match note {
        RosterNote::Entry { index } => graph.items.get(*index).map(entry).unwrap_or_default(),
        RosterNote::Bulk {
            group,
            first,
            members,
        } => {
            let class = graph
                .items
                .get(*first)
                .and_then(|i| i.class.as_deref())
                .unwrap_or("");
            format!("{group} ×{} {class}", count(*members))
        }
        RosterNote::Flood {
            items,
            noun,
            budget,
            listed,
            more,
            grouping: g,
        } => {
            let groups = grouping(g);
            format!(
                "{} {noun} exceed the {}-token budget: {} listed above, {} more{}{groups}",
                count(*items),
                count(*budget),
                count(*listed),
                count(*more),
                if groups.is_empty() { "" } else { " " },
            )
        }
    }
}

/// An item's entry: the compact line its extractor wrote when the tool
/// spread the item over several lines, else its identity.
pub fn entry(item: &EvidenceItem) -> String {
    match item.fields.get("line") {
        Some(line) => line.clone(),
        None => item.identity.clone(),
    }
}

/// `from 2026-02-01 to 2026-02-18, by author: Ada ×152, Ken ×80`.
fn grouping(g: &Grouping) -> String {
    let mut out = String::new();
    if let Some((min, max)) = &g.dates {
        out.push_str(&format!("from {min} to {max}"));
    }
    if !g.groups.is_empty() {
        if !out.is_empty() {
            out.push_str(", ");
        }
        out.push_str(&format!("by {}: ", g.by.as_deref().unwrap_or("group")));
        let parts: Vec<String> = g
            .groups
            .iter()
            .take(TOP_GROUPS)
            .map(|group| {
                let (name, n) = (&group.name, &group.items);
                let split: Vec<String> = group
                    .classes
                    .iter()
                    .filter(|(c, _)| !c.is_empty())
                    .map(|(c, k)| format!("{c} {}", count(*k)))
                    .collect();
                if split.len() > 1 {
                    format!("{name} ×{} ({})", count(*n), split.join(", "))
                } else {
                    format!("{name} ×{}", count(*n))
                }
            })
            .collect();
        out.push_str(&parts.join(", "));
        if g.groups.len() > TOP_GROUPS {
            out.push_str(&format!(", … {} more", count(g.groups.len() - TOP_GROUPS)));
        }
    }
    out
}
