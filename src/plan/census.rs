//! Census planning, for families whose facts are identities (failing tests,
//! error diagnostics). Identity survives before detail:
//!
//! - PASS_SUMMARY: nothing failed — the header's counts, warnings counted.
//! - FAIL_CENSUS: every census identity, and every distinct cause's detail.
//! - DENSE: every census identity; detail for as many causes as fit, the
//!   rest declared (`ctx expand H --details`).
//! - FLOOD: the census alone exceeds the ceiling — identities grouped by
//!   class with exact counts and examples, all of them behind `--items`.
//!
//! When the exit status says failure and no census item was parsed, the
//! facts and the status disagree: the header says UNKNOWN and more raw
//! output is kept, never less (invariant 10).

use std::collections::{BTreeMap, HashMap};

use crate::artifact::Artifact;
use crate::evidence::{CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Outcome};
use crate::render::count;

use super::{
    Address, Block, Budget, DeliveryPlan, FRAME_TOKENS, MARKER_TOKENS, Omission, Omitted, Rung,
    lines,
};

mod flood;
mod memo;
mod secondary;
mod tally;

use memo::LineMemo;

/// Tokens reserved for the notes around the census (coverage, next, counts).
const NOTES_TOKENS: usize = 60;
/// Tokens a single detail line may have to be printed inline.
const LONGEST_DETAIL_LINE: usize = 300;

/// A census identity with every occurrence of it (the same diagnostic from
/// 40 translation units is one entry, ×40).
struct Entry {
    first: usize,
    times: usize,
}

pub fn plan(
    artifact: &Artifact,
    graph: &EvidenceGraph,
    receipt: &CoverageReceipt,
    budget: Budget,
) -> DeliveryPlan {
    let census: Vec<usize> = (0..graph.items.len())
        .filter(|&i| graph.items[i].is_census())
        .collect();
    if census.is_empty() && artifact.exit.is_failure() {
        return disagreement(artifact, graph, budget);
    }
    let mut p = Planner::new(artifact, graph, budget);
    if census.is_empty() {
        p.rung = Rung::PassSummary;
    } else {
        let entries = dedupe(graph, &census);
        let census_cost: usize = entries.iter().map(|e| p.line_cost(e.first)).sum();
        if census_cost + FRAME_TOKENS + NOTES_TOKENS > budget.ceiling {
            p.flood(&census, budget.ceiling);
        } else {
            p.census(&entries, census_cost);
        }
    }
    p.secondary();
    p.coverage(receipt, census.len());
    if let Some(&first) = census.first() {
        p.blocks.push(Block::Next(Address::Item(
            graph.items[first].identity.clone(),
        )));
    }
    p.finish()
}

/// Exit says failure, the facts found none: UNKNOWN, and the output's head,
/// decisive lines and tail with a larger budget than usual.
fn disagreement(artifact: &Artifact, graph: &EvidenceGraph, budget: Budget) -> DeliveryPlan {
    let mut plan = lines::plan(artifact, graph, budget.target + budget.target / 2);
    plan.outcome = Some(Outcome::Unknown);
    let exit = artifact.exit.describe().unwrap_or_default();
    plan.blocks.insert(
        1,
        Block::Note(format!(
            "{exit} but no failure was parsed: the head, decisive lines and tail of the output follow"
        )),
    );
    plan.why = "the exit status and the parsed facts disagree".into();
    plan
}

/// Groups census items by identity and summary, in order of first occurrence.
fn dedupe(graph: &EvidenceGraph, census: &[usize]) -> Vec<Entry> {
    let mut entries: Vec<Entry> = Vec::new();
    let mut index: BTreeMap<(&str, Option<&str>), usize> = BTreeMap::new();
    for &i in census {
        let item = &graph.items[i];
        let key = (item.identity.as_str(), item.summary.as_deref());
        match index.get(&key) {
            Some(&e) => entries[e].times += 1,
            None => {
                index.insert(key, entries.len());
                entries.push(Entry { first: i, times: 1 });
            }
        }
    }
    entries
}

/// What a census unit is called in ctx's notes.
fn unit(graph: &EvidenceGraph) -> &'static str {
    let tests = graph.census().any(|i| {
        matches!(
            i.kind,
            ItemKind::FailingTest | ItemKind::TestError | ItemKind::SuiteNotRun
        )
    });
    if tests { "failures" } else { "errors" }
}

struct Planner<'a> {
    artifact: &'a Artifact,
    graph: &'a EvidenceGraph,
    budget: Budget,
    rung: Rung,
    blocks: Vec<Block>,
    omissions: Vec<Omission>,
    spent: usize,
    memo: LineMemo<'a>,
}

impl<'a> Planner<'a> {
    fn new(artifact: &'a Artifact, graph: &'a EvidenceGraph, budget: Budget) -> Self {
        Planner {
            artifact,
            graph,
            budget,
            rung: Rung::FailCensus,
            blocks: vec![Block::Header],
            omissions: Vec::new(),
            spent: FRAME_TOKENS + NOTES_TOKENS,
            memo: LineMemo::new(artifact),
        }
    }

    fn item(&self, i: usize) -> &'a EvidenceItem {
        &self.graph.items[i]
    }

    /// Tokens of an item's census line (its raw headline when that names it).
    fn line_cost(&self, i: usize) -> usize {
        let item = self.item(i);
        if let Some((n, _)) = super::census_headline(self.artifact, item) {
            return self.memo.get(n).cost;
        }
        let synthetic = item.identity.len() + item.summary.as_ref().map_or(0, |s| s.len() + 3) + 16;
        synthetic / 3 + 6
    }

    /// Tokens of an item's detail lines.
    fn detail_cost(&self, i: usize) -> usize {
        self.item(i)
            .detail
            .iter()
            .flat_map(|s| s.first..=s.last)
            .map(|n| self.memo.get(n).cost)
            .sum::<usize>()
            + 12
    }

    /// The item's decisive lines (as digests of their visible text), the
    /// key of a shared cause.
    fn detail_key(&self, i: usize) -> Vec<[u8; 16]> {
        self.item(i)
            .detail
            .iter()
            .flat_map(|s| s.first..=s.last)
            .map(|n| self.memo.get(n).text)
            .collect()
    }

    /// True when the item has detail lines short enough to print (a JSON
    /// message line or a minified bundle is retrievable, not printable).
    fn detail_usable(&self, i: usize) -> bool {
        let item = self.item(i);
        !item.detail.is_empty()
            && item
                .detail
                .iter()
                .flat_map(|s| s.first..=s.last)
                .all(|n| self.memo.get(n).cost <= LONGEST_DETAIL_LINE + 1)
    }

    /// True when the item's detail contains its own headline, so showing the
    /// detail in place names the item (a compiler error's block).
    fn detail_names_item(&self, i: usize) -> bool {
        let item = self.item(i);
        item.headline
            .is_some_and(|h| item.detail.iter().any(|s| s.contains(h.first)))
    }

    fn omit(&mut self, what: Omitted, count: usize, address: Address) {
        self.omissions.push(Omission {
            what,
            count,
            address,
        });
        self.blocks.push(Block::Marker(self.omissions.len() - 1));
        self.spent += MARKER_TOKENS;
    }

    /// Every identity, then the detail of each distinct cause while it fits.
    fn census(&mut self, entries: &[Entry], census_cost: usize) {
        self.spent += census_cost;
        let census_at = self.blocks.len();
        for e in entries {
            self.blocks.push(Block::Item {
                index: e.first,
                detail: false,
            });
            if e.times > 1 {
                self.blocks.push(Block::Note(format!(
                    "the line above ×{} (identical occurrences)",
                    count(e.times)
                )));
            }
        }
        // One detail per cause: items whose decisive lines are identical
        // (the same failure at the same place) show them once. A shared
        // summary alone is not a shared cause: jest words every `toBe`
        // failure the same.
        let mut causes: Vec<(Option<&str>, Vec<usize>)> = Vec::new();
        let mut by_key: HashMap<Vec<[u8; 16]>, usize> = HashMap::new();
        for e in entries {
            let item = self.item(e.first);
            let key = self.detail_key(e.first);
            match by_key.get(&key).filter(|_| !key.is_empty()) {
                Some(&c) => causes[c].1.push(e.first),
                None => {
                    by_key.insert(key, causes.len());
                    causes.push((item.summary.as_deref(), vec![e.first]));
                }
            }
        }
        let mut detail_blocks = Vec::new();
        let mut missing = 0usize;
        for (summary, members) in &causes {
            let rep = members[0];
            if !self.detail_usable(rep) {
                continue;
            }
            let cost = self.detail_cost(rep);
            if self.spent + cost > self.budget.target {
                missing += members.len();
                continue;
            }
            self.spent += cost;
            let note = (members.len() > 1).then(|| {
                Block::Note(format!(
                    "same cause in {} {}: {}",
                    members.len(),
                    unit(self.graph),
                    summary.unwrap_or("")
                ))
            });
            let in_census = self.blocks[census_at..]
                .iter()
                .position(|b| matches!(b, Block::Item { index, .. } if *index == rep));
            match in_census {
                // The block names the item itself: shown in place of its census line.
                Some(pos) if self.detail_names_item(rep) => {
                    self.blocks[census_at + pos] = Block::Item {
                        index: rep,
                        detail: true,
                    };
                    if let Some(note) = note {
                        self.blocks.insert(census_at + pos, note);
                    }
                }
                _ => {
                    detail_blocks.extend(note);
                    detail_blocks.push(Block::Detail(rep));
                }
            }
        }
        self.blocks.extend(detail_blocks);
        if missing > 0 {
            self.rung = Rung::Dense;
            let what = format!("{} without their detail", unit(self.graph));
            self.omit(Omitted::Items(what), missing, Address::Details);
        }
    }

    /// Says what the extractor did not understand; silent when complete.
    fn coverage(&mut self, receipt: &CoverageReceipt, census: usize) {
        let mut parts = Vec::new();
        if let Some(announced) = receipt.items_announced {
            parts.push(format!(
                "{}/{} {} parsed",
                count(receipt.items_parsed as usize),
                count(announced as usize),
                unit(self.graph)
            ));
        } else if census > 0 {
            parts.push(format!(
                "{} {} parsed",
                count(receipt.items_parsed as usize),
                unit(self.graph)
            ));
        }
        if census > 0 {
            parts.push(format!(
                "{}/{} detail blocks",
                count(receipt.blocks_parsed as usize),
                count(receipt.items_parsed as usize)
            ));
        }
        parts.push(format!(
            "{} unmatched lines",
            count(receipt.lines_unmatched as usize)
        ));
        if receipt.truncated {
            parts.push("input truncated upstream: the census may be incomplete".into());
        }
        if let crate::evidence::Precision::Degraded(why) = &receipt.precision {
            parts.push(format!("degraded: {why}"));
        }
        if census > 0 || !receipt.is_complete() {
            self.blocks
                .push(Block::Note(format!("coverage: {}", parts.join(" · "))));
        }
    }

    fn finish(mut self) -> DeliveryPlan {
        self.blocks.push(Block::Footer);
        let why = match self.rung {
            Rung::PassSummary => "nothing failed: counts only",
            Rung::FailCensus => "every identity and every cause's detail fit",
            Rung::Dense => "every identity; detail thinned to the budget",
            Rung::Flood => "the census exceeds the ceiling: grouped",
            Rung::Verbatim => "fits",
        };
        DeliveryPlan {
            rung: self.rung,
            outcome: None,
            blocks: self.blocks,
            omissions: self.omissions,
            budget: self.budget.target,
            estimate: self.spent,
            why: why.to_string(),
        }
    }
}
