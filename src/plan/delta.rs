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

use super::{Address, Block, DeliveryPlan, Rung};
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

/// The delta plan made from a census plan, or None when the plan is not
/// one a delta can improve (verbatim, a green summary, a grouped flood, an
/// outcome the planner corrected) or the run has no census. The
/// still-failing items leave the body for the delta's own list, which
/// names each of them and points at their detail in the earlier record.
pub fn apply(
    contract: &Contract,
    graph: &EvidenceGraph,
    plan: &DeliveryPlan,
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

    // Still-failing items leave the body: the delta names them by
    // identity, with the pointer to their earlier detail. What stays is
    // the news: the new failures' census lines and detail.
    let mut blocks = Vec::with_capacity(plan.blocks.len() + 1);
    let mut dropped_item = false;
    for (at, block) in plan.blocks.iter().enumerate() {
        let was_dropped = std::mem::take(&mut dropped_item);
        match block {
            Block::Header => {
                blocks.push(Block::Header);
                blocks.push(Block::Delta(delta.clone()));
            }
            Block::Item { index, .. } if is_still(index) => dropped_item = true,
            // The delta is only made of a complete census (the caller
            // checks the receipt), which the coverage line would repeat.
            Block::Notice(Note::Coverage(_)) => {}
            // "×N" says how often the census line above occurred.
            Block::Notice(Note::Repeats { .. }) if was_dropped => {}
            // A detail block shared by several failures ("same cause in
            // N …") stays: its members may include new ones.
            Block::Detail(index) if is_still(index) && !after_shared_cause(&plan.blocks, at) => {}
            Block::Census { entries, unit } => {
                let entries: Vec<_> = entries
                    .iter()
                    .filter(|e| !is_still(&e.index))
                    .copied()
                    .collect();
                if !entries.is_empty() {
                    blocks.push(Block::Census {
                        entries,
                        unit: unit.clone(),
                    });
                }
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
    Some(DeliveryPlan {
        rung: plan.rung,
        outcome: plan.outcome,
        blocks,
        omissions: plan.omissions.clone(),
        budget: plan.budget,
        estimate: plan.estimate,
        why: format!(
            "{}; re-run: unchanged failures by identity, their detail in the last run's record",
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
    fn a_delta_plan_names_unchanged_failures_once_and_keeps_the_news() {
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
        for base_plan in [
            super::super::resolve(&artifact, &deferred, &trace.receipt, &contract, big, raw),
            super::super::resolve(&artifact, &trace.graph, &trace.receipt, &contract, big, raw),
        ] {
            let plan = apply(&contract, &trace.graph, &base_plan, &previous).expect("a delta");
            crate::guard::check_census(&contract, &trace.graph, &plan).expect("census complete");
            let Some(Block::Delta(d)) = plan.blocks.get(1) else {
                panic!("the delta opens the digest: {:?}", plan.blocks);
            };
            assert_eq!((d.fixed.len(), d.still.len(), d.new.len()), (1, 4, 11));
            // Still-failing items are the delta's to name: no census line
            // or detail of theirs is left in the body; every new one is.
            let body: Vec<&str> = plan
                .blocks
                .iter()
                .flat_map(|b| match b {
                    Block::Item { index, .. } | Block::Detail(index) => vec![*index],
                    Block::Census { entries, .. } => entries.iter().map(|e| e.index).collect(),
                    _ => Vec::new(),
                })
                .map(|i| trace.graph.items[i].identity.as_str())
                .collect();
            assert!(
                body.iter().all(|id| !still.iter().any(|s| s == id)),
                "{body:?}"
            );
            assert!(
                d.new.iter().all(|id| body.contains(&id.as_str())),
                "{body:?}"
            );
        }
    }

    /// A real fixture's graph and normal plan, for the properties below.
    fn planned(case: &str) -> (crate::artifact::Artifact, crate::delivery::Trace) {
        use crate::pipeline::{Options, digest};
        use crate::store::ArchiveKey;
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(case);
        let artifact = crate::fixture::load(&dir).expect("fixture");
        let known = crate::archive::Known(ArchiveKey([7; 32]));
        let delivery = digest(&artifact, &known, &Options::default()).expect("digest");
        (artifact, delivery.trace.expect("planned"))
    }

    const CASES: [&str; 4] = [
        "fixtures/pytest/default",
        "fixtures/deltas/cargo-ledger/step-0",
        "fixtures/deltas/jest-shop/step-0",
        "fixtures/ruff/full",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Whatever the last run's identities (some of this run's, some
        /// gone), the delta digest names every current failure identity
        /// and passes the census guard.
        #[test]
        fn every_current_identity_is_in_the_delta_digest(
            case in 0..CASES.len(),
            keep in proptest::collection::vec(any::<bool>(), 64),
            gone in proptest::collection::vec("[a-z]{1,6}(::[a-z]{1,4})?", 0..5),
        ) {
            let (artifact, trace) = planned(CASES[case]);
            let current = identities(&trace.contract, &trace.graph);
            let mut before: Vec<String> = current
                .iter()
                .zip(keep.iter().cycle())
                .filter(|(_, k)| **k)
                .map(|(id, _)| id.clone())
                .collect();
            before.extend(gone);
            let previous = Previous { age_secs: 61, key: "abcdefabcdef".into(), identities: before };
            if let Some(plan) = apply(&trace.contract, &trace.graph, &trace.plan, &previous) {
                prop_assert!(crate::guard::check_census(&trace.contract, &trace.graph, &plan).is_ok());
                let key = crate::store::ArchiveKey([9; 32]);
                let text = String::from_utf8_lossy(
                    &crate::render::render(&artifact, &trace.graph, &plan, Some(&key)).to_bytes(),
                )
                .into_owned();
                let spelled = crate::testing::sequence::spelled_out(&text);
                for id in &current {
                    prop_assert!(spelled.contains(id.as_str()), "{id:?} missing from\n{text}");
                }
            }
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
