//! The resolver: evidence graph + contract + budget → a `DeliveryPlan`.
//!
//! The plan is the whole policy: which rung of the ladder, which lines and
//! items stay, which leave and by what address they come back. The renderer
//! only executes it, so the same graph, contract and plan always give the
//! same bytes.

use serde::Serialize;

use crate::artifact::{Artifact, Span};
use crate::contract::{Contract, Planner};
use crate::evidence::{CoverageReceipt, EvidenceGraph, Outcome};

pub mod census;
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

/// Tokens a marker line costs, for planning (`[ctx] … N lines omitted …`).
pub const MARKER_TOKENS: usize = 28;
/// Tokens the header and the footer cost together, for planning.
pub const FRAME_TOKENS: usize = 40;

/// The rungs of the degradation ladder, least lossy first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Rung {
    /// Fits the budget: the raw bytes, unchanged, no footer.
    Verbatim,
    /// A green run: one line of counts, everything else retrievable.
    PassSummary,
    /// Every required identity plus ranked detail.
    FailCensus,
    /// Detail thinned to decisive lines; identities still complete.
    Dense,
    /// The census itself exceeds the ceiling: identities grouped with exact counts.
    Flood,
}

/// Where omitted evidence comes back from (the `ctx expand` arguments).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "by", content = "arg")]
pub enum Address {
    /// `--lines A-B`
    Lines(Span),
    /// `--item ID`
    Item(String),
    /// `--items [FILTER…]`
    Items(Option<String>),
    /// `--details`: the detail blocks of every census item.
    Details,
}

impl Address {
    /// The arguments after `ctx expand H`, shell-quoted where needed.
    pub fn args(&self) -> String {
        match self {
            Address::Lines(s) => format!("--lines {}-{}", s.first, s.last),
            Address::Item(id) => format!("--item {}", shell_quote(id)),
            Address::Items(None) => "--items".to_string(),
            Address::Items(Some(filter)) => format!("--items {filter}"),
            Address::Details => "--details".to_string(),
        }
    }
}

/// What an omission region held.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Omitted {
    /// Lines of any content.
    Lines,
    /// Lines identical to the line kept just before them.
    Repeats,
    /// Items (warnings, detail blocks…) left out; the words name them.
    Items(String),
}

/// One region left out of the digest, declared by exactly one marker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Omission {
    pub what: Omitted,
    /// How many lines (or items) left.
    pub count: usize,
    pub address: Address,
}

/// One piece of the digest, in output order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "block", content = "of")]
pub enum Block {
    /// `<tool>: <OUTCOME> · <counts> · exit N`.
    Header,
    /// Raw lines, after normalization.
    Raw(Span),
    /// The marker of `omissions[i]`.
    Marker(usize),
    /// A census entry: `items[index]`'s identity line, or with `detail`
    /// its decisive lines inline when they name it themselves.
    Item { index: usize, detail: bool },
    /// The complete census in its compact form: a `[ctx] census` opening
    /// line, then each file once with its items indented under it
    /// (`render::census`). `unit` is the plural noun the opening line counts.
    Census {
        entries: Vec<CensusEntry>,
        unit: String,
    },
    /// `items[index]`'s detail under a `[ctx] --- identity (location)` line.
    Detail(usize),
    /// A ctx line whose words the planner chose.
    Note(String),
    /// What changed since the last run of the same command: typed, worded
    /// by `render::delta`.
    Delta(delta::Delta),
    /// `[ctx] next: ctx expand H <address>`.
    Next(Address),
    /// `[ctx] full output (N lines): …` — what `ctx expand H` prints, and `--all`.
    Footer,
}

/// One census identity with every occurrence of it (the same diagnostic
/// from 40 translation units is one entry, ×40).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CensusEntry {
    /// The first item of the identity (`graph.items[index]`).
    pub index: usize,
    pub times: usize,
}

/// What the renderer executes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DeliveryPlan {
    pub rung: Rung,
    /// The outcome the header states, when the planner corrects the
    /// extractor's (facts and exit status disagree: invariant 10).
    pub outcome: Option<Outcome>,
    pub blocks: Vec<Block>,
    pub omissions: Vec<Omission>,
    /// The token budget the plan was made for.
    pub budget: usize,
    /// The planner's estimate of the digest's tokens.
    pub estimate: usize,
    /// Why this rung, in a few words (for `ctx explain`).
    pub why: String,
}

impl DeliveryPlan {
    /// The raw output as it is: nothing omitted, nothing added.
    pub fn verbatim(budget: usize, estimate: usize, why: impl Into<String>) -> Self {
        DeliveryPlan {
            rung: Rung::Verbatim,
            outcome: None,
            blocks: Vec::new(),
            omissions: Vec::new(),
            budget,
            estimate,
            why: why.into(),
        }
    }

    /// True when the digest leaves anything out (so it needs an archive key).
    pub fn omits(&self) -> bool {
        self.rung != Rung::Verbatim
    }

    /// How many marker blocks the plan has (one per omission, by construction).
    pub fn marker_count(&self) -> usize {
        self.blocks
            .iter()
            .filter(|b| matches!(b, Block::Marker(_)))
            .count()
    }
}

/// The budget a plan is made for, from the contract and any override.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Budget {
    /// What the digest should fit in.
    pub target: usize,
    /// What the census alone may use before it is grouped.
    pub ceiling: usize,
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
        Planner::Search => search::plan(artifact, graph, budget),
        Planner::Listing => listing::plan(artifact, graph, contract, budget),
        Planner::Install => install::plan(artifact, graph, contract, budget),
        Planner::Log => log::plan(artifact, graph, budget),
        Planner::Roster => roster::plan(artifact, graph, contract, budget),
        Planner::Data => data::plan(artifact, graph, contract, budget, raw_tokens),
        Planner::Lines => lines::plan_with(artifact, graph, budget.target, raw_tokens),
        Planner::Census => census::plan(artifact, graph, receipt, contract, budget),
    }
}

/// Quotes an argument for a POSIX shell when it needs it.
pub fn shell_quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=@%+,".contains(&b));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        graph.tool = "plan".into();
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

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("tests/a.py::t"), "tests/a.py::t");
        assert_eq!(shell_quote("t[a b]"), "'t[a b]'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
