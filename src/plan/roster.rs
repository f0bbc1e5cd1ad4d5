//! Roster planning, for git's own listings: the paths `git status` lists,
//! the commits of `git log`, the conflicted paths of a merge, rebase,
//! cherry-pick or pull, the refs a push, fetch or pull moved. Each item
//! is one identity the reader acts on, and its raw line names it.
//!
//! - Required at every budget below the ceiling: every item's entry (its
//!   raw line, or the compact line the extractor wrote in field `line`
//!   when the tool spread the item over several lines) and every line the
//!   extractor kept as the run's conclusion (branch, upstream, errors
//!   verbatim, the tool's verdict), in output order.
//! - Elastic: each item's detail (a commit's body and stat), whole, in
//!   order while the target allows; one marker counts the rest, each item
//!   whole by `--item ID`.
//! - FLOOD, when the entries alone exceed the ceiling: entries while they
//!   fit (errors and conflicts first, then items ranked 0 before ranked 1:
//!   tracked paths before untracked ones), the rest grouped by field `group` with exact counts and their
//!   `date` range, all of them behind `--items`.
//!
//! Raw lines are never rewritten; every line ctx adds is a `[ctx]` note or
//! marker.

use std::collections::BTreeMap;

use crate::artifact::{Artifact, Span};
use crate::contract::Contract;
use crate::delivery_plan::{Group, Grouping, Note, RosterNote};
use crate::evidence::{EvidenceGraph, EvidenceItem, Outcome, Severity};
use crate::normalize;
use crate::render;
use crate::tokens;

use super::{
    Address, Block, Budget, DeliveryPlan, Left, MARKER_TOKENS, Omission, Omitted, Rung,
    frame_tokens,
};

/// Tokens kept free under the ceiling for the FLOOD notes and markers.
const FLOOD_RESERVE: usize = 240;
/// Bulk items (rank 1: untracked paths) of one group collapse into one
/// counted line from this many on, when the whole list would exceed the
/// ceiling.
const COLLAPSE_AT: usize = 10;

/// One line of the digest, at its place in the output.
enum Entry {
    Kept(Span),
    Item(usize),
    /// Bulk items of one group, collapsed: the group, its members.
    Bulk(String, Vec<usize>),
}

impl Entry {
    fn at(&self, graph: &EvidenceGraph) -> usize {
        let line = |i: usize| graph.items[i].headline.map_or(0, |h| h.first);
        match self {
            Entry::Kept(s) => s.first,
            Entry::Item(i) => line(*i),
            Entry::Bulk(_, members) => members.first().map_or(0, |&i| line(i)),
        }
    }
}

/// `build/out/ ×90 untracked`: a collapsed group's note.
fn bulk_note(group: &str, members: &[usize]) -> Note {
    Note::Roster(RosterNote::Bulk {
        group: group.to_string(),
        first: members[0],
        members: members.len(),
    })
}

/// The groups of bulk items large enough to collapse, in output order.
fn bulk_groups(graph: &EvidenceGraph, roster: &[usize]) -> Vec<(String, Vec<usize>)> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for &i in roster {
        let item = &graph.items[i];
        if item.fields.get("rank").map(String::as_str) != Some("1") {
            continue;
        }
        let Some(g) = item.fields.get("group") else {
            continue;
        };
        let key = format!("{g}\u{0}{}", item.class.as_deref().unwrap_or(""));
        match groups.iter_mut().find(|e| e.0 == key) {
            Some(e) => e.1.push(i),
            None => groups.push((key, vec![i])),
        }
    }
    groups
        .into_iter()
        .filter(|g| g.1.len() >= COLLAPSE_AT)
        .map(|(k, m)| (k.split('\u{0}').next().unwrap_or("").to_string(), m))
        .collect()
}

pub fn plan(
    artifact: &Artifact,
    graph: &EvidenceGraph,
    contract: &Contract,
    budget: Budget,
) -> DeliveryPlan {
    let unit = &contract.unit;
    let cost_of = |s: Span| -> usize {
        (s.first..=s.last)
            .map(|n| tokens::estimate(normalize::line(artifact.line(n)).as_bytes()) + 1)
            .sum()
    };
    // An item's raw line, or the note `render` prints for it.
    let entry_cost = |i: usize| -> usize {
        let item = &graph.items[i];
        match (item.fields.get("line"), item.headline) {
            (None, Some(h)) => cost_of(h),
            _ => render::notice_tokens(
                &Note::Roster(RosterNote::Entry { index: i }),
                artifact,
                graph,
            ),
        }
    };
    let all: Vec<usize> = contract.census_indices(graph);
    // Nothing read and the run not known to be clean (a cut or failed run
    // whose lines no rule knows): counts alone would hide what happened,
    // so the output's own head, decisive lines and tail go instead.
    let green = matches!(graph.outcome, Outcome::Ok | Outcome::Passed);
    if all.is_empty() && graph.conclusion.is_empty() && !green {
        let mut plan = super::lines::plan(artifact, graph, budget.target + budget.target / 2);
        plan.why =
            "nothing parsed and the run not known to be clean: head, decisive lines, tail".into();
        return plan;
    }
    let mut spent =
        frame_tokens(artifact, graph) + graph.conclusion.iter().map(|s| cost_of(*s)).sum::<usize>();
    let whole: usize = all.iter().map(|&i| entry_cost(i)).sum();
    // Untracked bulk: collapsed by directory first when the list exceeds
    // the ceiling (below it, every identity is inline).
    let bulk = if spent + whole + MARKER_TOKENS * 2 > budget.census {
        bulk_groups(graph, &all)
    } else {
        Vec::new()
    };
    let collapsed: usize = bulk.iter().map(|g| g.1.len()).sum();
    let roster: Vec<usize> = all
        .iter()
        .copied()
        .filter(|i| !bulk.iter().any(|g| g.1.contains(i)))
        .collect();
    spent += bulk
        .iter()
        .map(|(g, m)| render::notice_tokens(&bulk_note(g, m), artifact, graph))
        .sum::<usize>();
    let census: usize = roster.iter().map(|&i| entry_cost(i)).sum();
    let flood = spent + census + MARKER_TOKENS * 2 > budget.census;
    let mut listed = vec![false; graph.items.len()];
    if flood {
        // Errors and conflicts first, then the rest by rank (bulk last).
        let rank = |i: usize| {
            let item = &graph.items[i];
            match item.fields.get("rank") {
                _ if item.severity == Severity::Error => "e",
                Some(r) => r.as_str(),
                None => "0",
            }
        };
        for r in ["e", "0", "1"] {
            for &i in roster.iter().filter(|&&i| rank(i) == r) {
                let cost = entry_cost(i);
                if spent + cost + FLOOD_RESERVE > budget.census {
                    break;
                }
                spent += cost;
                listed[i] = true;
            }
        }
    } else {
        spent += census;
        for &i in &roster {
            listed[i] = true;
        }
    }
    // Detail, whole per item and in order, while the target allows.
    let mut shown_detail = vec![false; graph.items.len()];
    let mut left: Vec<usize> = Vec::new();
    for &i in roster.iter().filter(|&&i| listed[i]) {
        let item = &graph.items[i];
        if item.detail.is_empty() {
            continue;
        }
        let cost: usize = item.detail.iter().map(|s| cost_of(*s)).sum();
        // First fit, in order: a commit too large to show whole does not
        // keep the smaller ones after it out (blame's import commit).
        if spent + cost + MARKER_TOKENS <= budget.target {
            spent += cost;
            shown_detail[i] = true;
        } else {
            left.push(i);
        }
    }
    let mut entries: Vec<Entry> = graph.conclusion.iter().map(|s| Entry::Kept(*s)).collect();
    entries.extend(
        roster
            .iter()
            .filter(|&&i| listed[i])
            .map(|&i| Entry::Item(i)),
    );
    entries.extend(bulk.iter().map(|(g, m)| Entry::Bulk(g.clone(), m.clone())));
    entries.sort_by_key(|e| e.at(graph));
    let mut blocks = vec![Block::Header];
    for e in &entries {
        match e {
            Entry::Kept(s) => blocks.push(Block::Raw(*s)),
            Entry::Bulk(g, members) => blocks.push(Block::Notice(bulk_note(g, members))),
            Entry::Item(i) => {
                let item = &graph.items[*i];
                match (item.fields.get("line"), item.headline) {
                    (None, Some(h)) => blocks.push(Block::Raw(h)),
                    _ => blocks.push(Block::Notice(Note::Roster(RosterNote::Entry { index: *i }))),
                }
                if shown_detail[*i] {
                    blocks.extend(item.detail.iter().map(|s| Block::Raw(*s)));
                }
            }
        }
    }
    let mut omissions = Vec::new();
    let mut omit = |blocks: &mut Vec<Block>, what: Left, n: usize, address: Address| {
        omissions.push(Omission {
            what: Omitted::Items(what),
            count: n,
            address,
        });
        blocks.push(Block::Marker(omissions.len() - 1));
    };
    let mut rung = Rung::FailCensus;
    if let Some(&first) = left.first() {
        rung = Rung::Dense;
        let what = Left::ShownWithoutDetail { unit: unit.clone() };
        let id = graph.items[first].identity.clone();
        omit(&mut blocks, what, left.len(), Address::Item(id));
    }
    if collapsed > 0 {
        omit(
            &mut blocks,
            Left::CollapsedByDirectory { unit: unit.clone() },
            collapsed,
            Address::Items(None),
        );
    }
    let unlisted: Vec<&EvidenceItem> = roster
        .iter()
        .filter(|&&i| !listed[i])
        .map(|&i| &graph.items[i])
        .collect();
    if collapsed > 0 {
        rung = Rung::Flood;
    }
    if !unlisted.is_empty() {
        rung = Rung::Flood;
        let note = Note::Roster(RosterNote::Flood {
            items: all.len(),
            noun: contract.unit.of(all.len()).to_string(),
            budget: budget.census,
            listed: all.len() - unlisted.len() - collapsed,
            more: unlisted.len(),
            grouping: grouping(&unlisted),
        });
        spent += render::notice_tokens(&note, artifact, graph);
        blocks.push(Block::Notice(note));
        omit(
            &mut blocks,
            Left::MoreListed { unit: unit.clone() },
            unlisted.len(),
            Address::Items(None),
        );
    }
    blocks.push(Block::Footer);
    // Each marker priced as `render` prints it (FLOOD_RESERVE and
    // MARKER_TOKENS above only kept room for them).
    spent += omissions.iter().map(render::marker_tokens).sum::<usize>();
    let why = match rung {
        Rung::Flood => "the list exceeds the ceiling: listed while it fits, the rest grouped",
        Rung::Dense => "every item; detail while the budget allows",
        _ => "every item and its detail",
    };
    DeliveryPlan {
        rung,
        outcome: None,
        blocks,
        omissions,
        budget: budget.target,
        estimate: spent,
        why: why.to_string(),
    }
}

/// The items not listed, grouped by their `group` field with exact
/// counts (and, per group, their `class` counts), with their `date` range.
fn grouping(items: &[&EvidenceItem]) -> Grouping {
    let dates: Vec<&str> = items
        .iter()
        .filter_map(|i| i.fields.get("date").map(String::as_str))
        .collect();
    let dates = match (dates.iter().min(), dates.iter().max()) {
        (Some(min), Some(max)) => Some((min.to_string(), max.to_string())),
        _ => None,
    };
    let mut groups: Vec<(&str, usize, BTreeMap<&str, usize>)> = Vec::new();
    let mut by: Option<&str> = None;
    for item in items {
        let Some(g) = item.fields.get("group") else {
            continue;
        };
        by = by.or(item.fields.get("group_by").map(String::as_str));
        let class = item.class.as_deref().unwrap_or("");
        match groups.iter_mut().find(|e| e.0 == g) {
            Some(e) => {
                e.1 += 1;
                *e.2.entry(class).or_default() += 1;
            }
            None => groups.push((g, 1, BTreeMap::from([(class, 1)]))),
        }
    }
    groups.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    Grouping {
        dates,
        by: (!groups.is_empty()).then(|| by.unwrap_or("group").to_string()),
        groups: groups
            .into_iter()
            .map(|(name, items, classes)| Group {
                name: name.to_string(),
                items,
                classes: classes
                    .into_iter()
                    .map(|(c, n)| (c.to_string(), n))
                    .collect(),
            })
            .collect(),
    }
}
