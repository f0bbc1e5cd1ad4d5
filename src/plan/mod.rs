//! The resolver: evidence graph + contract + budget → a `DeliveryPlan`.
//!
//! The plan is the whole policy: which rung of the ladder, which lines and
//! items stay, which leave and by what address they come back. The renderer
//! only executes it, so the same graph, contract and plan always give the
//! same bytes.

use serde::Serialize;

use crate::artifact::Artifact;
use crate::contract::{Contract, Planner};
use crate::evidence::{CoverageReceipt, EvidenceGraph};

pub mod census;
pub mod ci_log;
pub mod data;
pub mod delta;
pub mod diff;
pub mod install;
pub mod lines;
pub mod listing;
pub mod log;
pub mod roster;
pub mod runs;
pub mod search;

/// Tokens a planner reserves for a marker it may still add
/// (`[ctx] … N lines omitted …`); a marker it adds is priced as printed
/// (`render::marker_tokens`).
pub const MARKER_TOKENS: usize = 28;

/// Tokens a FLOOD that names its items in notes (a search's files, a
/// listing's folders) keeps for the lines that close it: the note counting
/// the rest by folder or parent (eight of them and a count, about 80) and
/// three markers or `next` lines.
pub const FLOOD_CLOSING_TOKENS: usize = MARKER_TOKENS * 3 + 80;

/// Tokens the digest's header and footer cost, priced on the renderer's
/// own lines for these facts (`render::frame_tokens`): a long command
/// line or many counts cost what they print.
pub fn frame_tokens(artifact: &Artifact, graph: &EvidenceGraph) -> usize {
    crate::render::frame_tokens(
        artifact,
        &crate::delivery_plan::Header::facts(artifact, graph, None),
    )
}

/// The frame allowance of a printed digest: what its header line, its
/// footer line (`[ctx] full output (…)`) and one marker cost, over and
/// above the budget (docs/tokens.md, "Budgets"). Every planner prices its
/// frame inside the budget; the allowance is the documented slack a digest
/// may exceed its budget by (a first cause's detail granted past the
/// target, a marker added last), and no more.
pub fn frame_allowance(digest: &str) -> usize {
    let line = |l: &str| crate::tokens::estimate(l.as_bytes()) + 1;
    let header = digest.lines().next().map_or(0, line);
    let footer = digest
        .lines()
        .rev()
        .find(|l| l.starts_with(crate::words::CTX_PREFIX) && l.contains(" full output ("))
        .map_or(0, line);
    header + footer + MARKER_TOKENS
}

pub use crate::delivery_plan::{
    Address, Block, CensusEntry, CensusForm, DeliveryPlan, Left, Omission, Omitted, Rung,
};
/// Where it always was for callers: the quoting lives in `words`.
pub use crate::words::shell_quote;

/// The budget a plan is made for, from the contract and any override.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Budget {
    /// What the digest should fit in.
    pub target: usize,
    /// What the census alone may use before it is grouped (the planners
    /// that do not yet plan their census within `census`).
    pub ceiling: usize,
    /// What the census planner's census may use: the budget as asked (the
    /// contract's target or `--budget`, the floor applied), before a small
    /// output's share cut. A census is exempt from that cut, never from
    /// the budget (docs/tokens.md, "Budgets").
    pub census: usize,
}

/// A digest aims at no more than this share (percent) of the raw output's
/// tokens: one that is not clearly smaller costs the reader a hop for
/// little gain. The census is exempt (it may grow to the ceiling).
pub const MAX_SHARE_PERCENT: usize = 35;

impl Budget {
    /// The contract's ceiling, or an override clamped to the evidence floor.
    pub fn from_contract(contract: &Contract, requested: Option<usize>) -> Budget {
        let r = &contract.rendering;
        let target = requested
            .unwrap_or_else(|| r.target())
            .max(r.evidence_floor_tokens);
        Budget {
            target,
            ceiling: r.hard_ceiling_tokens.max(target),
            census: target,
        }
    }
}

/// Chooses the rung and what stays for this artifact.
pub fn resolve(
    artifact: &Artifact,
    graph: &EvidenceGraph,
    receipt: &CoverageReceipt,
    contract: &Contract,
    budget: Budget,
    raw_tokens: usize,
) -> DeliveryPlan {
    if raw_tokens <= budget.target {
        return DeliveryPlan::verbatim(budget.target, raw_tokens, "fits the budget");
    }
    let floor = contract.rendering.evidence_floor_tokens;
    let budget = Budget {
        target: budget
            .target
            .min((raw_tokens * MAX_SHARE_PERCENT / 100).max(floor)),
        ..budget
    };
    // The contract names the planner: nothing is inferred from the graph.
    match contract.planner {
        Planner::Diff => diff::plan(artifact, graph, receipt, contract, budget),
        Planner::Search => search::plan(artifact, graph, contract, budget),
        Planner::Listing => listing::plan(artifact, graph, receipt, contract, budget),
        Planner::Install => install::plan(artifact, graph, contract, budget),
        Planner::Log => log::plan(artifact, graph, contract, budget),
        Planner::Roster => roster::plan(artifact, graph, contract, budget),
        Planner::Data => data::plan(artifact, graph, contract, budget, raw_tokens),
        Planner::CiLog => ci_log::plan(artifact, graph, contract, budget),
        Planner::Lines => lines::plan_with(
            artifact,
            graph,
            Some(lines::Census::of(contract, graph, budget.ceiling)),
            budget.target,
            raw_tokens,
        ),
        Planner::Census => census::plan(artifact, graph, receipt, contract, budget),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Span;
    use crate::evidence::Outcome;

    /// The header, footer and markers are priced as the renderer prints
    /// them: a digest whose header is long (many counts) costs exactly
    /// what the planner estimated, so a long header cannot push it over
    /// its budget.
    #[test]
    fn the_frame_is_priced_as_printed() {
        use crate::artifact::Exit;
        use crate::evidence::{EvidenceItem, ItemKind, Severity};
        let contract = crate::contract::for_family("pytest").unwrap();
        let mut text = String::new();
        let mut graph = EvidenceGraph::empty();
        graph.reader = crate::evidence::Reader::family("pytest");
        graph.outcome = Outcome::Failed;
        for n in 0..40 {
            graph.counts.push((
                format!("results of the kind number {n} with a long description"),
                n as u64 + 1,
            ));
        }
        for n in 0..30 {
            let first = n * 4 + 1;
            text.push_str(&format!(
                "FAILED tests/test_m.py::test_case_{n} - AssertionError\n"
            ));
            for k in 0..3 {
                text.push_str(&format!(
                    "    assert compute({n}, {k}) == expected_value_{k}\n"
                ));
            }
            let mut item = EvidenceItem::new(
                ItemKind::FailingTest,
                Severity::Error,
                format!("tests/test_m.py::test_case_{n}"),
            );
            item.headline = Some(Span::line(first));
            item.detail = vec![Span::new(first + 1, first + 3)];
            graph.items.push(item);
        }
        let artifact =
            Artifact::from_stdout(text.into_bytes(), Exit::Code(1), vec!["pytest".into()]);
        let mut receipt = CoverageReceipt::new(artifact.line_count() as u64);
        receipt.items_parsed = 30;
        receipt.items_announced = Some(30);
        let raw = crate::tokens::estimate_bulk(artifact.bytes());
        let budget = Budget::from_contract(&contract, Some(300));
        let plan = resolve(&artifact, &graph, &receipt, &contract, budget, raw);
        // A key whose short form is the one the planner prices with.
        let hex = format!("{}{}", crate::render::KEY_FOR_PRICING, "0".repeat(52));
        let key = crate::store::ArchiveKey::from_hex(&hex).unwrap();
        let rendered = crate::render::render(&artifact, &graph, &plan, Some(&key));
        let frame: usize = rendered
            .lines
            .iter()
            .filter(|l| {
                l.origin == crate::render::Origin::Header || l.text.contains("full output (")
            })
            .map(|l| crate::tokens::estimate(l.text.as_bytes()) + 1)
            .sum();
        let total: usize = rendered
            .lines
            .iter()
            .map(|l| crate::tokens::estimate(l.text.as_bytes()) + 1)
            .sum();
        // Every line is priced as printed, markers included: the estimate
        // is the digest.
        assert_eq!(
            total, plan.estimate,
            "rendered {total} tokens, estimated {}",
            plan.estimate
        );
        assert!(plan.omits(), "a digest with markers: {:?}", plan.rung);
        assert_eq!(frame_tokens(&artifact, &graph), frame);
    }

    /// Tokens of `rendered` as printed, each line with its newline.
    fn printed(rendered: &crate::render::Rendered) -> usize {
        rendered
            .lines
            .iter()
            .map(|l| crate::tokens::estimate(l.text.as_bytes()) + 1)
            .sum()
    }

    /// The search and roster planners price every marker as printed
    /// (`render::marker_tokens`), not with the reserve: on real runs cut
    /// to a small budget, the estimate is the digest.
    #[test]
    fn search_and_roster_markers_are_priced_as_printed() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let hex = format!("{}{}", crate::render::KEY_FOR_PRICING, "0".repeat(52));
        let key = crate::store::ArchiveKey::from_hex(&hex).unwrap();
        for (case, family, budgets) in [
            ("search/grep-rn", "search", [150, 400, 900]),
            ("search/rg-heading", "search", [150, 400, 900]),
            ("search/grep-c", "search", [150, 400, 900]),
            ("search/git-grep", "search", [150, 400, 900]),
            ("git_log/stat", "git_log", [150, 400, 900]),
            ("git_log/default", "git_log", [150, 400, 900]),
            ("git_log/flood-default", "git_log", [150, 400, 900]),
            ("git_status/untracked-flood", "git_status", [150, 400, 900]),
        ] {
            let artifact = crate::fixture::load(&root.join(case)).unwrap();
            let (profile, graph, contract) =
                crate::store::census_zoom::evidence(&artifact).unwrap();
            assert_eq!(profile.family(), family, "{case}");
            let (_, receipt) = profile.extract(&artifact);
            let raw = crate::tokens::estimate_bulk(artifact.bytes());
            let mut marked = false;
            for tokens in budgets {
                let budget = Budget::from_contract(&contract, Some(tokens));
                let plan = resolve(&artifact, &graph, &receipt, &contract, budget, raw);
                if plan.rung == Rung::Verbatim {
                    // The raw output is delivered: no digest to price.
                    continue;
                }
                marked |= !plan.omissions.is_empty();
                let rendered = crate::render::render(&artifact, &graph, &plan, Some(&key));
                assert_eq!(
                    printed(&rendered),
                    plan.estimate,
                    "{case} at {tokens}: {:?}",
                    plan.rung
                );
            }
            assert!(marked, "{case}: no budget made a marker");
        }
    }

    /// A family that is neither a test runner nor a compiler is planned
    /// from its contract: its required classes make the census, and the
    /// digest counts them in its own noun, never as errors or failures.
    #[test]
    fn a_digest_counts_in_the_family_noun() {
        use crate::artifact::Exit;
        use crate::evidence::{EvidenceItem, ItemKind, Severity};
        let contract = Contract::parse(
            "plan.toml",
            r#"
schema = "ctx.evidence-contract/v2"
family = "plan"
profile = "plan/v1"
planner = "census"
[unit]
one = "resource change"
many = "resource changes"
[census]
required = [{ kind = "decisive_line", classes = ["destroy", "replace"] }]
preferred = [{ kind = "decisive_line" }]
[rendering]
stable_order = "occurrence"
evidence_floor_tokens = 256
hard_ceiling_tokens = 4000
target_tokens = 256
"#,
        )
        .unwrap();
        let mut text = String::new();
        let mut graph = EvidenceGraph::empty();
        graph.reader = crate::evidence::Reader::family("plan");
        graph.outcome = Outcome::Ok;
        for n in 0..200 {
            let class = ["update", "destroy", "replace", "update"][n % 4];
            text.push_str(&format!("  # aws_instance.web[{n}] will be {class}d\n"));
            let mut item = EvidenceItem::new(
                ItemKind::DecisiveLine,
                Severity::Info,
                format!("aws_instance.web[{n}]"),
            );
            item.class = Some(class.into());
            item.headline = Some(Span::line(n + 1));
            graph.items.push(item);
        }
        let artifact = Artifact::from_stdout(text.into_bytes(), Exit::Code(0), vec!["plan".into()]);
        let mut receipt = CoverageReceipt::new(artifact.line_count() as u64);
        receipt.items_parsed = 100;
        receipt.items_announced = Some(100);
        let raw = crate::tokens::estimate_bulk(artifact.bytes());
        let budget = Budget::from_contract(&contract, None);
        let plan = resolve(&artifact, &graph, &receipt, &contract, budget, raw);
        assert_eq!(crate::guard::check_census(&contract, &graph, &plan), Ok(()));
        let digest =
            String::from_utf8(crate::render::render(&artifact, &graph, &plan, None).to_bytes())
                .unwrap();
        assert!(
            digest.contains("100/100 resource changes parsed"),
            "{digest}"
        );
        assert!(
            !digest.contains("error") && !digest.contains("failure"),
            "{digest}"
        );
        for n in (0..200).filter(|n| n % 4 == 1 || n % 4 == 2) {
            let id = format!("aws_instance.web[{n}]");
            assert!(
                digest.contains(&id) || plan.rung == Rung::Flood,
                "{id}: {digest}"
            );
        }
    }
}
