//! Re-run deltas: the same command run again, compared with its last run.
//!
//! An agent fixing tests runs the same command over and over. The census
//! of each run is complete on its own; what the reader needs on top is
//! what changed: which failures are fixed, which are still failing (their
//! detail was shown last time, and the earlier record still holds it),
//! which are new (news: their detail stays). This module turns a normal
//! census plan into a delta plan. It never removes a current identity
//! (invariant 4): only the detail of still-failing items leaves, declared
//! by the usual `--details` marker and by the pointer to the earlier run.
//!
//! Identities match exactly, never fuzzily: a renamed or re-parameterised
//! test is one fixed and one new. The arithmetic always adds up:
//! previous = fixed + still, current = still + new.

use std::collections::HashSet;

use serde::Serialize;

use super::{Address, Block, DeliveryPlan, Omission, Omitted, Rung};
use crate::evidence::{EvidenceGraph, ItemKind};

/// The last run of the same command, as the ledger kept it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Previous {
    /// How long ago it ran, in whole seconds.
    pub age_secs: u64,
    /// The short archive key of its record (`ctx expand PREV`).
    pub key: String,
    /// Its census identities, each once, in its order.
    pub identities: Vec<String>,
}

/// What the renderer words as the delta lines (`render::delta`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Delta {
    pub age_secs: u64,
    /// The short archive key of the earlier run.
    pub previous: String,
    /// `failures` or `errors`, as the census counts them.
    pub unit: String,
    pub fixed: Vec<String>,
    pub still: Vec<String>,
    pub new: Vec<String>,
}

impl Delta {
    /// Nothing fixed, nothing new: the same failures again.
    pub fn unchanged(&self) -> bool {
        self.fixed.is_empty() && self.new.is_empty()
    }
}

/// The census identities of a graph, each once, in the graph's order.
pub fn identities(graph: &EvidenceGraph) -> Vec<String> {
    let mut seen = HashSet::new();
    graph
        .census()
        .filter(|i| seen.insert(i.identity.as_str()))
        .map(|i| i.identity.clone())
        .collect()
}

/// Splits two identity lists into (fixed, still failing, new), by exact
/// equality. `previous` = fixed + still and `current` = still + new, as
/// sets; each list keeps its source order.
pub fn compare(previous: &[String], current: &[String]) -> (Vec<String>, Vec<String>, Vec<String>) {
    let now: HashSet<&str> = current.iter().map(String::as_str).collect();
    let before: HashSet<&str> = previous.iter().map(String::as_str).collect();
    let mut seen = HashSet::new();
    let fixed = previous
        .iter()
        .filter(|id| !now.contains(id.as_str()) && seen.insert(id.as_str()))
        .cloned()
        .collect();
    let mut seen = HashSet::new();
    let (still, new): (Vec<String>, Vec<String>) = current
        .iter()
        .filter(|id| seen.insert(id.as_str()))
        .cloned()
        .partition(|id| before.contains(id.as_str()));
    (fixed, still, new)
}

/// The delta plan made from a normal census plan, or None when the plan
/// is not one a delta can improve (verbatim, a green summary, a grouped
/// flood, an outcome the planner corrected) or the run has no census.
pub fn apply(
    graph: &EvidenceGraph,
    plan: &DeliveryPlan,
    previous: &Previous,
) -> Option<DeliveryPlan> {
    if !matches!(plan.rung, Rung::FailCensus | Rung::Dense) || plan.outcome.is_some() {
        return None;
    }
    let current = identities(graph);
    if current.is_empty() {
        return None;
    }
    let (fixed, still, new) = compare(&previous.identities, &current);
    let still_set: HashSet<String> = still.iter().cloned().collect();
    let is_still = |index: &usize| {
        graph
            .items
            .get(*index)
            .is_some_and(|i| still_set.contains(i.identity.as_str()))
    };
    let first_new = new.first().cloned();
    let delta = Delta {
        age_secs: previous.age_secs,
        previous: previous.key.clone(),
        unit: unit(graph).to_string(),
        fixed,
        still,
        new,
    };

    let mut blocks = Vec::with_capacity(plan.blocks.len() + 1);
    let mut removed = 0usize;
    for (at, block) in plan.blocks.iter().enumerate() {
        match block {
            Block::Header => {
                blocks.push(Block::Header);
                blocks.push(Block::Delta(delta.clone()));
            }
            // A detail block shared by several failures ("same cause in
            // N …") stays: its members may include new ones.
            Block::Detail(index) if is_still(index) && !after_shared_cause(&plan.blocks, at) => {
                removed += 1;
            }
            Block::Item {
                index,
                detail: true,
            } if is_still(index) => {
                removed += 1;
                blocks.push(Block::Item {
                    index: *index,
                    detail: false,
                });
            }
            Block::Next(Address::Item(id)) if still_set.contains(id) => {
                if let Some(id) = &first_new {
                    blocks.push(Block::Next(Address::Item(id.clone())));
                }
            }
            other => blocks.push(other.clone()),
        }
    }
    if !blocks.iter().any(|b| matches!(b, Block::Delta(_))) {
        return None;
    }
    let mut omissions = plan.omissions.clone();
    if removed > 0 {
        match omissions.iter_mut().find(|o| o.address == Address::Details) {
            Some(o) => o.count += removed,
            None => {
                omissions.push(Omission {
                    what: Omitted::Items(format!("{} without their detail", delta.unit)),
                    count: removed,
                    address: Address::Details,
                });
                let marker = Block::Marker(omissions.len() - 1);
                let at = blocks
                    .iter()
                    .position(|b| {
                        matches!(b, Block::Next(_) | Block::Footer)
                            || matches!(b, Block::Note(t) if t.starts_with("coverage:"))
                    })
                    .unwrap_or(blocks.len());
                blocks.insert(at, marker);
            }
        }
    }
    Some(DeliveryPlan {
        rung: plan.rung,
        outcome: plan.outcome,
        blocks,
        omissions,
        budget: plan.budget,
        estimate: plan.estimate,
        why: format!(
            "{}; re-run: detail of unchanged failures deferred",
            plan.why
        ),
    })
}

/// True when `blocks[at]` follows a "same cause in N …" note.
fn after_shared_cause(blocks: &[Block], at: usize) -> bool {
    at > 0 && matches!(&blocks[at - 1], Block::Note(t) if t.starts_with("same cause in "))
}

/// The census's noun, as the census planner counts it.
fn unit(graph: &EvidenceGraph) -> &'static str {
    let tests = graph.census().any(|i| {
        matches!(
            i.kind,
            ItemKind::FailingTest | ItemKind::TestError | ItemKind::SuiteNotRun
        )
    });
    if tests { "failures" } else { "errors" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn exact_matching_splits_a_rename_into_fixed_and_new() {
        let (fixed, still, new) = compare(
            &ids(&["a::t[1]", "a::u", "b::v"]),
            &ids(&["a::t[2]", "a::u", "c::w"]),
        );
        assert_eq!(fixed, ids(&["a::t[1]", "b::v"]));
        assert_eq!(still, ids(&["a::u"]));
        assert_eq!(new, ids(&["a::t[2]", "c::w"]));
    }

    proptest! {
        /// previous = fixed + still, current = still + new, as sets, and
        /// every current identity is still or new.
        #[test]
        fn the_arithmetic_adds_up(
            previous in proptest::collection::vec("[a-e]{1,2}", 0..12),
            current in proptest::collection::vec("[a-e]{1,2}", 0..12),
        ) {
            let (fixed, still, new) = compare(&previous, &current);
            let set = |v: &[String]| v.iter().cloned().collect::<std::collections::BTreeSet<_>>();
            prop_assert_eq!(set(&previous).len(), fixed.len() + still.len());
            prop_assert_eq!(set(&current).len(), still.len() + new.len());
            let mut prev_parts = set(&fixed);
            prev_parts.extend(set(&still));
            prop_assert_eq!(prev_parts, set(&previous));
            let mut cur_parts = set(&still);
            cur_parts.extend(set(&new));
            prop_assert_eq!(cur_parts, set(&current));
        }
    }
}
