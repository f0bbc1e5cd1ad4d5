//! Invariants 4 and 5 as one property over every captured fixture: at any
//! budget, every census identity the profile extracted is named by the plan
//! or counted by a declared omission that `ctx expand … --items` brings
//! back (`guard::check_census`). And the guard does reject a plan that
//! drops one silently.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use ctx::artifact::Artifact;
use ctx::classify;
use ctx::contract::{self, Contract};
use ctx::evidence::{CoverageReceipt, EvidenceGraph};
use ctx::guard::{self, Rejection};
use ctx::plan::{self, Block, Budget};
use ctx::tokens;
use proptest::prelude::*;

struct Case {
    name: String,
    artifact: Artifact,
    graph: EvidenceGraph,
    receipt: CoverageReceipt,
    contract: Contract,
    raw_tokens: usize,
}

fn dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut out = Vec::new();
    for family in std::fs::read_dir(&root).unwrap().flatten() {
        for case in std::fs::read_dir(family.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if case.path().join("case.json").is_file() {
                out.push(case.path());
            }
        }
    }
    out.sort();
    out
}

static CASES: LazyLock<Vec<Case>> = LazyLock::new(|| {
    dirs()
        .into_iter()
        .map(|dir| {
            let artifact = ctx::fixture::load(&dir).unwrap();
            let (profile, _) = classify::choose(&artifact, None).unwrap();
            let (graph, receipt) = profile.extract(&artifact);
            let contract = contract::for_family(profile.family()).unwrap();
            let raw_tokens = tokens::estimate_bulk(artifact.bytes());
            Case {
                name: dir.display().to_string(),
                artifact,
                graph,
                receipt,
                contract,
                raw_tokens,
            }
        })
        .collect()
});

fn plan_at(case: &Case, budget: Option<usize>) -> plan::DeliveryPlan {
    let budget = Budget::from_contract(&case.contract, budget);
    plan::resolve(
        &case.artifact,
        &case.graph,
        &case.receipt,
        &case.contract,
        budget,
        case.raw_tokens,
    )
}

#[test]
fn every_fixture_keeps_its_census_at_the_default_budget() {
    assert!(CASES.len() > 100, "{}", CASES.len());
    for case in CASES.iter() {
        let plan = plan_at(case, None);
        assert_eq!(
            guard::check_census(&case.graph, &plan),
            Ok(()),
            "{}: rung {:?}",
            case.name,
            plan.rung
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn every_fixture_keeps_its_census_at_any_budget(budget in 0usize..12_000) {
        for case in CASES.iter() {
            let plan = plan_at(case, Some(budget));
            prop_assert_eq!(
                guard::check_census(&case.graph, &plan),
                Ok(()),
                "{} at budget {}: rung {:?}",
                &case.name,
                budget,
                plan.rung
            );
        }
    }
}

/// The check can fail: a plan with one census line taken out (and no
/// marker for it) is rejected, naming the identity it lost.
#[test]
fn a_census_line_dropped_without_a_marker_is_rejected() {
    let mut dropped = 0;
    for case in CASES.iter() {
        let mut plan = plan_at(case, None);
        // The first census line: an item's own line, or the first entry
        // of a compact census block.
        let Some(at) = plan.blocks.iter().position(|b| match b {
            Block::Item { index, .. } => case.graph.items[*index].is_census(),
            Block::Census { entries, .. } => !entries.is_empty(),
            _ => false,
        }) else {
            continue;
        };
        let index = match &mut plan.blocks[at] {
            Block::Census { entries, .. } => entries.remove(0).index,
            _ => match plan.blocks.remove(at) {
                Block::Item { index, .. } => index,
                _ => unreachable!(),
            },
        };
        // Its detail block (the first cause's is shown) names it too.
        plan.blocks.retain(|b| *b != Block::Detail(index));
        let identity = case.graph.items[index].identity.clone();
        // Still named elsewhere (a detail block, a raw headline, duplicates)?
        if guard::check_census(&case.graph, &plan).is_ok() {
            continue;
        }
        assert_eq!(
            guard::check_census(&case.graph, &plan),
            Err(Rejection::CensusLost(identity)),
            "{}",
            case.name
        );
        dropped += 1;
    }
    assert!(dropped > 20, "{dropped}");
}
