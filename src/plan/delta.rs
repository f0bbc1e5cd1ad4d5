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

use super::{Address, Block, DeliveryPlan, Omission, Omitted, Rung};
use crate::contract::Contract;
use crate::evidence::EvidenceGraph;

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

pub use crate::delivery_plan::Delta;
use crate::delivery_plan::Note;

/// The census identities of a graph, each once, in the graph's order.
pub fn identities(contract: &Contract, graph: &EvidenceGraph) -> Vec<String> {
    let mut seen = HashSet::new();
    contract
        .census(graph)
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

/// The graph a delta plan is made from: the items still failing since
/// `previous` keep their identity and headline but lose their detail, so
/// that the planner spends the budget on the new failures' detail.
pub fn deferring(contract: &Contract, graph: &EvidenceGraph, previous: &[String]) -> EvidenceGraph {
    let before: HashSet<&str> = previous.iter().map(String::as_str).collect();
    let mut deferred = graph.clone();
    for item in &mut deferred.items {
        if contract.requires(item) && before.contains(item.identity.as_str()) {
            item.detail.clear();
        }
    }
    deferred
}

/// How the plan a delta is made from was planned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// From [`deferring`]`(graph)`: no still-failing detail in it, none
    /// counted by its markers.
    Deferred,
    /// The normal plan: its still-failing detail blocks are removed here,
    /// and those left out for the budget are already counted.
    Normal,
}

/// The delta plan made from a census plan, or None when the plan is not
/// one a delta can improve (verbatim, a green summary, a grouped flood, an
/// outcome the planner corrected) or the run has no census. The
/// still-failing detail left out is declared in the `--details` marker's
/// count.
pub fn apply(
    contract: &Contract,
    graph: &EvidenceGraph,
    plan: &DeliveryPlan,
    base: Base,
    previous: &Previous,
) -> Option<DeliveryPlan> {
    if !matches!(plan.rung, Rung::FailCensus | Rung::Dense) || plan.outcome.is_some() {
        return None;
    }
    let current = identities(contract, graph);
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
        unit: contract.census_unit(graph).many.clone(),
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
    // Still-failing items with detail that no block shows: their detail
    // left with `deferring` (or above).
    let shown: HashSet<usize> = blocks
        .iter()
        .filter_map(|b| match b {
            Block::Detail(i)
            | Block::Item {
                index: i,
                detail: true,
            } => Some(*i),
            _ => None,
        })
        .collect();
    let deferred = delta
        .still
        .iter()
        .filter(|id| {
            graph.items.iter().enumerate().any(|(i, item)| {
                contract.requires(item)
                    && item.identity == **id
                    && !item.detail.is_empty()
                    && !shown.contains(&i)
            })
        })
        .count();
    if base == Base::Deferred {
        removed += deferred;
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
                            || matches!(b, Block::Notice(Note::Coverage(_)))
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
    at > 0 && matches!(&blocks[at - 1], Block::Notice(Note::SameCause { .. }))
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

    /// The real pytest fixture, planned normally and as a delta against
    /// its own tests/test_params.py failures.
    #[test]
    fn a_delta_plan_keeps_the_census_and_counts_its_deferred_detail() {
        use crate::contract;
        use crate::pipeline::{Options, digest};
        use crate::store::ArchiveKey;
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pytest/default");
        let artifact = crate::fixture::load(&dir).expect("fixture");
        let known = crate::archive::Known(ArchiveKey([7; 32]));
        let delivery = digest(&artifact, &known, &Options::default()).expect("digest");
        let trace = delivery.trace.expect("planned");
        let contract = contract::for_family("pytest").expect("contract");
        let still: Vec<String> = identities(&contract, &trace.graph)
            .into_iter()
            .filter(|id| id.starts_with("tests/test_params.py::"))
            .collect();
        assert_eq!(still.len(), 4);
        let previous = Previous {
            age_secs: 1,
            key: "abcdefabcdef".into(),
            identities: [still.clone(), vec!["gone::t".to_string()]].concat(),
        };
        let big = super::super::Budget::from_contract(&contract, Some(2500));
        let raw = crate::tokens::estimate_bulk(artifact.bytes());
        let deferred = deferring(&contract, &trace.graph, &previous.identities);
        for (base_plan, base) in [
            (
                super::super::resolve(&artifact, &deferred, &trace.receipt, &contract, big, raw),
                Base::Deferred,
            ),
            (
                super::super::resolve(&artifact, &trace.graph, &trace.receipt, &contract, big, raw),
                Base::Normal,
            ),
        ] {
            let plan =
                apply(&contract, &trace.graph, &base_plan, base, &previous).expect("a delta");
            crate::guard::check_census(&contract, &trace.graph, &plan).expect("census complete");
            let Some(Block::Delta(d)) = plan.blocks.get(1) else {
                panic!("the delta opens the digest: {:?}", plan.blocks);
            };
            assert_eq!((d.fixed.len(), d.still.len(), d.new.len()), (1, 4, 11));
            let shown: Vec<&str> = plan
                .blocks
                .iter()
                .filter_map(|b| match b {
                    Block::Detail(i) => Some(trace.graph.items[*i].identity.as_str()),
                    _ => None,
                })
                .collect();
            assert!(
                shown.iter().all(|id| !still.iter().any(|s| s == id)),
                "{base:?}: {shown:?}"
            );
            // Every census item with detail is shown or counted by the marker.
            let with_detail = contract
                .census(&trace.graph)
                .filter(|i| !i.detail.is_empty())
                .count();
            let counted: usize = plan
                .omissions
                .iter()
                .filter(|o| o.address == Address::Details)
                .map(|o| o.count)
                .sum();
            // A detail shared by N failures ("same cause in N …") shows N.
            let shared: usize = plan
                .blocks
                .iter()
                .filter_map(|b| match b {
                    Block::Notice(Note::SameCause { members, .. }) => Some(*members),
                    _ => None,
                })
                .map(|n| n - 1)
                .sum();
            assert_eq!(shown.len() + shared + counted, with_detail, "{base:?}");
        }
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
