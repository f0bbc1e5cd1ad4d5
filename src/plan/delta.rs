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
//! test is one fixed and one new. A diagnostic's identity for the
//! comparison is its file, code and message (`matching_key`): its line and
//! column are where it is, not what it is, so an edit above it that moves
//! it leaves it the same diagnostic (still failing, named at its current
//! location); a changed message is one fixed and one new. The arithmetic
//! always adds up: previous = fixed + still, current = still + new.

mod matching;

use std::collections::HashSet;

use super::{Address, Block, DeliveryPlan, Left, Omitted, Rung};
use crate::contract::Contract;
use crate::evidence::EvidenceGraph;
use matching::compare_warnings;
pub use matching::{Comparison, compare, matching_key, warnings};

/// The last run of the same command, as the ledger kept it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Previous {
    /// How long ago it ran, in whole seconds.
    pub age_secs: u64,
    /// The short archive key of its record (`ctx expand PREV`).
    pub key: String,
    /// Its census identities, each once, in its order.
    pub identities: Vec<String>,
    /// Their matching keys (`matching_key`), one per identity; empty
    /// when the ledger kept none (each identity is then its own key).
    pub keys: Vec<String>,
    /// The matching keys of its warnings (`warnings`), every occurrence;
    /// None when the ledger kept none.
    pub warnings: Option<Vec<String>>,
}

impl Previous {
    /// (identity, matching key) of each census item.
    pub fn entries(&self) -> Vec<(String, String)> {
        if self.keys.len() == self.identities.len() {
            self.identities
                .iter()
                .cloned()
                .zip(self.keys.iter().cloned())
                .collect()
        } else {
            self.identities
                .iter()
                .map(|id| (id.clone(), id.clone()))
                .collect()
        }
    }
}

pub use crate::delivery_plan::{Delta, WarningsDelta};
use crate::delivery_plan::{Note, Tally};

/// The census identities of a graph, each once, in the graph's order.
pub fn identities(contract: &Contract, graph: &EvidenceGraph) -> Vec<String> {
    census(contract, graph)
        .into_iter()
        .map(|(id, _)| id)
        .collect()
}

/// (identity, matching key) of each census item, each identity once, in
/// the graph's order.
pub fn census(contract: &Contract, graph: &EvidenceGraph) -> Vec<(String, String)> {
    let mut seen = HashSet::new();
    contract
        .census(graph)
        .filter(|i| seen.insert(i.identity.as_str()))
        .map(|i| (i.identity.clone(), matching_key(i)))
        .collect()
}

/// The graph a delta plan is made from: the items still failing since
/// `previous` keep their identity and headline but lose their detail, so
/// that the planner spends the budget on the new failures' detail.
pub fn deferring(contract: &Contract, graph: &EvidenceGraph, previous: &Previous) -> EvidenceGraph {
    let still: HashSet<String> = compare(&previous.entries(), &census(contract, graph))
        .still
        .into_iter()
        .map(|(_, now)| now)
        .collect();
    let mut deferred = graph.clone();
    for item in &mut deferred.items {
        if contract.requires(item) && still.contains(item.identity.as_str()) {
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
    let current = census(contract, graph);
    if current.is_empty() {
        return None;
    }
    let Comparison { fixed, still, new } = compare(&previous.entries(), &current);
    let (still_before, still): (Vec<String>, Vec<String>) = still.into_iter().unzip();
    let still_set: HashSet<String> = still.iter().cloned().collect();
    let is_still = |index: &usize| {
        graph
            .items
            .get(*index)
            .is_some_and(|i| still_set.contains(i.identity.as_str()))
    };
    let first_new = new.first().cloned();
    // Warnings are compared when the last run's were kept and the plan
    // sums them up by code and by file: those summaries then leave the
    // body for one line of what changed (the last run's digest had them;
    // the current warnings stay behind the usual marker), and so are they
    // when the plan left them all to that marker (the summaries did not
    // fit its budget). A plan that names its warnings gets no line: it
    // would only add to the digest.
    let summed = plan.blocks.iter().any(|b| {
        matches!(
            b,
            Block::Notice(Note::Tally {
                of: Tally::ByCode(_) | Tally::ByFile(_),
                ..
            })
        )
    }) || plan
        .omissions
        .iter()
        .any(|o| matches!(o.what, Omitted::Items(Left::FindingsNotNamed { .. })));
    let mut warnings = previous
        .warnings
        .as_ref()
        .filter(|_| summed)
        .map(|before| compare_warnings(contract, graph, before));
    let folds_tallies = warnings.is_some();
    // When no warning is named and none is new, the marker that declares
    // them says it all: `… 6 warnings as in the last run: ctx expand …`.
    let mut omissions = plan.omissions.clone();
    if let Some(w) = warnings.as_ref().filter(|w| w.new.is_empty()) {
        let findings = w.noun != "warnings";
        let not_named = Omitted::Items(Left::FindingsNotNamed {
            warnings: !findings,
        });
        if let Some(o) = omissions
            .iter_mut()
            .find(|o| o.what == not_named && o.count == w.same)
        {
            o.what = Omitted::Items(if w.fixed == 0 {
                Left::FindingsAsBefore {
                    warnings: !findings,
                }
            } else {
                Left::FindingsLeftOf {
                    warnings: !findings,
                    before: w.same + w.fixed,
                }
            });
            warnings = None;
        }
    }
    let delta = Delta {
        age_secs: previous.age_secs,
        previous: previous.key.clone(),
        unit: contract.census_unit(graph).many.clone(),
        fixed,
        still,
        still_before,
        new,
        warnings,
    };

    // Still-failing items leave the body: the delta names them by
    // identity, with the pointer to their earlier detail. What stays is
    // the news: the new failures' census lines and detail.
    let detailed: HashSet<usize> = plan
        .blocks
        .iter()
        .enumerate()
        .filter_map(|(at, b)| match b {
            Block::Detail(index) if !is_still(index) || after_shared_cause(&plan.blocks, at) => {
                Some(*index)
            }
            _ => None,
        })
        .collect();
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
            Block::Notice(Note::Tally {
                of: Tally::ByCode(_) | Tally::ByFile(_),
                ..
            }) if folds_tallies => {}
            // "×N" says how often the census line above occurred.
            Block::Notice(Note::Repeats { .. }) if was_dropped => {}
            // A detail block shared by several failures ("same cause in
            // N …") stays: its members may include new ones.
            Block::Detail(index) if is_still(index) && !after_shared_cause(&plan.blocks, at) => {}
            // New failures whose detail all follows are named by their
            // detail's headings (`[ctx] --- ID`): a census of them would
            // say each twice. A census of some of them stays whole, so
            // that it counts every new failure.
            Block::Census {
                entries,
                unit,
                form,
            } => {
                let entries: Vec<_> = entries
                    .iter()
                    .filter(|e| !is_still(&e.index))
                    .copied()
                    .collect();
                if !entries.iter().all(|e| detailed.contains(&e.index)) {
                    blocks.push(Block::Census {
                        entries,
                        unit: unit.clone(),
                        form: *form,
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
        omissions,
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

    /// The real gcc sequence: removing an unused variable moves the
    /// `totl` error from line 27 to 26 of src/stock.c.
    #[test]
    fn the_gcc_error_that_moved_keeps_its_identity() {
        let (_, before) = planned("fixtures/deltas/gcc-stock/step-2");
        let (_, after) = planned("fixtures/deltas/gcc-stock/step-3");
        let c = compare(
            &census(&before.contract, &before.graph),
            &census(&after.contract, &after.graph),
        );
        assert!(
            c.still.contains(&(
                "src/stock.c:27:12".to_string(),
                "src/stock.c:26:12".to_string()
            )),
            "{c:?}"
        );
        assert!(c.new.is_empty(), "{c:?}");
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
            keys: Vec::new(),
            warnings: None,
        };
        let big = super::super::Budget::from_contract(&contract, Some(2500));
        let raw = crate::tokens::estimate_bulk(artifact.bytes());
        let deferred = deferring(&contract, &trace.graph, &previous);
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

    /// Warnings not in the last run are named on the delta's warnings
    /// line, and their summaries leave the body (real cargo check steps:
    /// two unused variables appear when an error is fixed).
    #[test]
    fn new_warnings_are_named_and_their_summaries_folded() {
        let (_, before) = planned("fixtures/deltas/cargo-check-mixed/step-2");
        let (_, after) = planned("fixtures/deltas/cargo-check-mixed/step-3");
        let (identities, keys) = census(&before.contract, &before.graph).into_iter().unzip();
        let previous = Previous {
            age_secs: 60,
            key: "abcdefabcdef".into(),
            identities,
            keys,
            warnings: Some(warnings(&before.contract, &before.graph)),
        };
        let plan = apply(&after.contract, &after.graph, &after.plan, &previous).expect("a delta");
        let Some(Block::Delta(d)) = plan.blocks.get(1) else {
            panic!("{:?}", plan.blocks);
        };
        let w = d.warnings.as_ref().expect("warnings compared");
        assert_eq!((w.fixed, w.same, w.new.len()), (0, 5, 2), "{w:?}");
        assert!(
            !plan
                .blocks
                .iter()
                .any(|b| matches!(b, Block::Notice(Note::Tally { .. })))
        );
        // The same warnings again: one marker says so.
        let again = Previous {
            warnings: Some(warnings(&after.contract, &after.graph)),
            ..previous
        };
        let plan = apply(&after.contract, &after.graph, &after.plan, &again).expect("a delta");
        assert!(
            plan.omissions
                .iter()
                .any(|o| o.what == Omitted::Items(Left::FindingsAsBefore { warnings: true })),
            "{:?}",
            plan.omissions
        );
    }

    const CASES: [&str; 6] = [
        "fixtures/pytest/default",
        "fixtures/deltas/cargo-ledger/step-0",
        "fixtures/deltas/jest-shop/step-0",
        "fixtures/ruff/full",
        "fixtures/deltas/gcc-stock/step-0",
        "fixtures/deltas/eslint-app/step-0",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Whatever the last run's items (some of this run's, some at
        /// another location — a diagnostic moved, same key —, some gone,
        /// its warnings the same or not), the delta digest names every
        /// current failure identity at its current location, passes the
        /// census guard, and its counts add up.
        #[test]
        fn every_current_identity_is_in_the_delta_digest(
            case in 0..CASES.len(),
            keep in proptest::collection::vec(0..3u8, 64),
            gone in proptest::collection::vec("[a-z]{1,6}(::[a-z]{1,4})?", 0..5),
            same_warnings in any::<bool>(),
        ) {
            let (artifact, trace) = planned(CASES[case]);
            let entries = census(&trace.contract, &trace.graph);
            let current: Vec<String> = entries.iter().map(|(id, _)| id.clone()).collect();
            // 0: gone from the last run (new now), 1: as it is, 2: moved.
            let mut before: Vec<(String, String)> = entries
                .iter()
                .zip(keep.iter().cycle())
                .filter(|(_, k)| **k > 0)
                .map(|((id, key), k)| (if *k == 2 { format!("{id}~moved") } else { id.clone() }, key.clone()))
                .collect();
            before.extend(gone.into_iter().map(|g| (g.clone(), g)));
            let (identities, keys): (Vec<String>, Vec<String>) = before.iter().cloned().unzip();
            let warnings = same_warnings.then(|| super::warnings(&trace.contract, &trace.graph));
            let previous = Previous { age_secs: 61, key: "abcdefabcdef".into(), identities, keys, warnings };
            if let Some(plan) = apply(&trace.contract, &trace.graph, &trace.plan, &previous) {
                prop_assert!(crate::guard::check_census(&trace.contract, &trace.graph, &plan).is_ok());
                let Some(Block::Delta(d)) = plan.blocks.get(1) else {
                    panic!("the delta opens the digest: {:?}", plan.blocks);
                };
                let set = |v: &[String]| v.iter().cloned().collect::<std::collections::BTreeSet<_>>();
                let before_ids: Vec<String> = before.iter().map(|(id, _)| id.clone()).collect();
                prop_assert_eq!(d.fixed.len() + d.still_before.len(), set(&before_ids).len());
                prop_assert_eq!(d.still.len() + d.new.len(), set(&current).len());
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
}
