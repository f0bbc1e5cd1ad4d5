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
            // As the pipeline reads it: a family that leaves one of the
            // evidence layer's failures unread gives the output to text/v1.
            let (profile, graph, receipt) = classify::read(&artifact, None).unwrap();
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
            guard::check_census(&case.contract, &case.graph, &plan),
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
                guard::check_census(&case.contract, &case.graph, &plan),
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
            Block::Item { index, .. } => case.contract.requires(&case.graph.items[*index]),
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
        if guard::check_census(&case.contract, &case.graph, &plan).is_ok() {
            continue;
        }
        assert_eq!(
            guard::check_census(&case.contract, &case.graph, &plan),
            Err(Rejection::CensusLost(identity)),
            "{}",
            case.name
        );
        dropped += 1;
    }
    assert!(dropped > 20, "{dropped}");
}

/// Every class a contract requires is proven kept, driven by the contract
/// list: some fixture of the family has an item of that class (so dropping
/// the class from the contract changes a fixture's census, which the
/// extraction truth tests and the digest tests read), and a plan that
/// drops that item's census line without a marker is rejected by the
/// guard. A contract cannot require a class no fixture exercises.
#[test]
fn every_required_class_is_guarded_by_a_fixture() {
    let mut unproven = Vec::new();
    for (file, text) in contract::embedded() {
        let contract = Contract::parse(file, text).unwrap();
        for class in &contract.census.required {
            let proven = CASES
                .iter()
                .filter(|case| case.contract.family == contract.family)
                .any(|case| drop_is_caught(case, |item| class.matches(item)));
            if !proven {
                unproven.push(format!("{}: {class:?}", contract.family));
            }
        }
    }
    assert!(unproven.is_empty(), "no fixture proves {unproven:#?}");
}

/// Plans the case, takes out every line that names the first item `pick`
/// accepts (its census line, its entry in a compact block, its detail,
/// a raw span holding its headline, a note naming it),
/// and tells whether the guard rejects the plan for losing it. False when
/// no item is picked or the guard still accepts the plan.
fn drop_is_caught(case: &Case, pick: impl Fn(&ctx::evidence::EvidenceItem) -> bool) -> bool {
    let Some(target) = case
        .graph
        .items
        .iter()
        .position(|i| pick(i) && case.contract.requires(i))
    else {
        return false;
    };
    let identity = case.graph.items[target].identity.clone();
    let same = |i: &usize| case.graph.items[*i].identity == identity;
    // Planned as if the output exceeded the target, so that a small
    // fixture (printed verbatim) still gets a census to take a line out of.
    let budget = Budget::from_contract(&case.contract, None);
    let mut plan = plan::resolve(
        &case.artifact,
        &case.graph,
        &case.receipt,
        &case.contract,
        budget,
        case.raw_tokens.max(budget.target + 1),
    );
    if guard::check_census(&case.contract, &case.graph, &plan).is_err() {
        return false;
    }
    let headline = case.graph.items[target].headline;
    plan.blocks.retain(|b| match b {
        Block::Item { index, .. } | Block::Detail(index) => !same(index),
        Block::Raw(span) => !headline.is_some_and(|h| span.contains(h.first)),
        Block::Notice(note) => !note.names().iter().any(same),
        _ => true,
    });
    for block in &mut plan.blocks {
        if let Block::Census { entries, .. } = block {
            entries.retain(|e| !same(&e.index));
        }
    }
    matches!(
        guard::check_census(&case.contract, &case.graph, &plan),
        Err(Rejection::CensusLost(_))
    )
}

/// Every item an extractor emits over the fixtures is placed by a class
/// its family's contract names (required, preferred or retrievable): a new
/// kind of item never becomes retrievable by default, unseen by the census.
#[test]
fn every_emitted_item_is_placed_by_its_contract() {
    let mut unplaced = std::collections::BTreeSet::new();
    for case in CASES.iter() {
        let c = &case.contract.census;
        for item in &case.graph.items {
            let named = c
                .required
                .iter()
                .chain(&c.preferred)
                .chain(&c.retrievable)
                .any(|class| class.matches(item));
            if !named {
                unplaced.insert(format!(
                    "{}: {:?} {:?}",
                    case.contract.family, item.kind, item.severity
                ));
            }
        }
    }
    assert!(unplaced.is_empty(), "{unplaced:#?}");
}

/// A marker that counts findings outside the census (`N warnings not
/// named`, `--items`) never stands for a census identity the plan lost:
/// in every fixture whose digest has one, taking a required identity out
/// is still rejected.
#[test]
fn a_count_of_findings_never_covers_a_lost_identity() {
    use ctx::plan::{Left, Omitted};
    let mut checked = 0;
    for case in CASES.iter() {
        let budget = Budget::from_contract(&case.contract, None);
        let plan = plan::resolve(
            &case.artifact,
            &case.graph,
            &case.receipt,
            &case.contract,
            budget,
            case.raw_tokens.max(budget.target + 1),
        );
        let counts_findings = plan.omissions.iter().any(|o| {
            matches!(o.what, Omitted::Items(Left::FindingsNotNamed { .. }))
                && o.address == plan::Address::Items(None)
        });
        if !counts_findings || case.contract.census_indices(&case.graph).is_empty() {
            continue;
        }
        assert!(drop_is_caught(case, |_| true), "{}", case.name);
        checked += 1;
    }
    assert!(checked > 0);
}
