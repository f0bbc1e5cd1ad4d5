//! Census planning, for families whose facts are identities (failing tests,
//! error diagnostics). Identity survives before detail, and the digest
//! fits its budget (docs/tokens.md, "Budgets"):
//!
//! - PASS_SUMMARY: nothing failed — the header's counts, warnings counted.
//! - FAIL_CENSUS: every census identity, and every distinct cause's detail.
//! - DENSE: every census identity; detail for as many causes as fit, in
//!   the order the tool printed them, the rest declared (`ctx expand H
//!   --details`). The first cause's block may use the frame allowance past
//!   the target when it is short (`FIRST_DETAIL_TOKENS`): it is the root
//!   cause a compiler's later errors follow from, and the failure read
//!   first.
//! - FLOOD: no form of the census fits the budget — identities grouped by
//!   class with exact counts and examples, all of them behind `--items`.
//!
//! The census takes the first form that fits the budget with the digest's
//! frame and closing notes: the tool's own headlines, then each identity
//! whole with its reason, then whole without reasons (each id still
//! copyable into the runner), then parametrized cases sharing a line, and
//! only then FLOOD's groups and the `--items` hop.
//!
//! When the exit status says failure and no census item was parsed, the
//! facts and the status disagree: the header says UNKNOWN and more raw
//! output is kept, never less (invariant 10).

use std::collections::{BTreeMap, HashMap};

use crate::artifact::{Artifact, Exit};
use crate::contract::Contract;
use crate::delivery_plan::{Coverage, Note};
use crate::evidence::{CoverageReceipt, EvidenceGraph, EvidenceItem, Outcome};
use crate::render::{self, RenderedLine};
use crate::tokens;
use crate::words::CTX_PREFIX;

use super::{
    Address, Block, Budget, CensusEntry, CensusForm, DeliveryPlan, Left, Omission, Omitted, Rung,
    lines,
};

mod announced;
mod flood;
mod memo;
mod secondary;
mod tally;

use announced::{announced, announced_cost};
use memo::LineMemo;

/// Tokens a single detail line may have to be printed inline.
const LONGEST_DETAIL_LINE: usize = 300;
/// Tokens the first cause's detail may take beyond the target, within the
/// frame allowance: the first failure (for a compiler, the root cause;
/// later errors are often its knock-on effects) is what the reader opens
/// next, so a census that uses the whole budget still leaves room for that
/// one block when it is short.
const FIRST_DETAIL_TOKENS: usize = 160;

pub fn plan(
    artifact: &Artifact,
    graph: &EvidenceGraph,
    receipt: &CoverageReceipt,
    contract: &Contract,
    budget: Budget,
) -> DeliveryPlan {
    let census = contract.census_indices(graph);
    if census.is_empty() && artifact.exit.is_failure() {
        return disagreement(artifact, graph, budget);
    }
    // No exit status, an outcome that is not green, and no fact at all (a
    // cut log, a crash the profile has no words for): counts alone would
    // hide whatever happened, so the output's own lines go instead.
    let green = matches!(graph.outcome, Outcome::Passed | Outcome::Ok);
    if graph.items.is_empty() && !green && artifact.exit == Exit::Unknown {
        return unexplained(artifact, graph, budget);
    }
    let unit = &contract.census_unit(graph).many;
    let closing = closing_notes(graph, receipt, &census, unit);
    let closing_cost: usize = closing
        .iter()
        .map(|b| block_tokens(artifact, graph, b))
        .sum::<usize>()
        + secondary_reserve(graph, contract)
        + announced_cost(artifact, graph);
    let mut p = Planner::new(artifact, graph, contract, budget, closing_cost);
    if census.is_empty() {
        p.rung = Rung::PassSummary;
    } else {
        let entries = dedupe(graph, &census);
        let cost = measure_entries(artifact, graph, &entries, p.unit, closing_cost);
        // The census may use the budget as asked, even where a small
        // output's share cut lowered the target for everything else.
        let limit = budget.census.max(budget.target);
        match cost.form(limit) {
            Some((form, tokens)) => p.census(&entries, tokens, form),
            None => p.flood(&census, limit),
        }
    }
    p.secondary();
    p.blocks.extend(closing);
    p.finish()
}

/// Exit says failure, the facts found none: UNKNOWN, and the output's head,
/// decisive lines and tail with a larger budget than usual.
fn disagreement(artifact: &Artifact, graph: &EvidenceGraph, budget: Budget) -> DeliveryPlan {
    let mut plan = lines::plan(artifact, graph, budget.target + budget.target / 2);
    plan.outcome = Some(Outcome::Unknown);
    plan.blocks.insert(1, Block::Notice(Note::Disagreement));
    plan.why = "the exit status and the parsed facts disagree".into();
    plan
}

/// No exit status and no parsed fact, and the run is not known to be
/// clean: the outcome the profile found (UNKNOWN, ERROR, INTERRUPTED), and
/// the output's head, decisive lines and tail with the same larger budget.
fn unexplained(artifact: &Artifact, graph: &EvidenceGraph, budget: Budget) -> DeliveryPlan {
    let mut plan = lines::plan(artifact, graph, budget.target + budget.target / 2);
    plan.blocks.insert(1, Block::Notice(Note::Unexplained));
    plan.why = "no exit status, and the facts do not show a clean run".into();
    plan
}

/// The notes a census digest closes with, in order: the coverage note
/// (when there is a census or the receipt is not complete) and the `next:`
/// step to the first census item.
fn closing_notes(
    graph: &EvidenceGraph,
    receipt: &CoverageReceipt,
    census: &[usize],
    unit: &str,
) -> Vec<Block> {
    let mut blocks = Vec::new();
    if !census.is_empty() || !receipt.is_complete() {
        let degraded = match &receipt.precision {
            crate::evidence::Precision::Degraded(why) => Some(why.clone()),
            crate::evidence::Precision::Full => None,
        };
        blocks.push(Block::Notice(Note::Coverage(Coverage {
            census: !census.is_empty(),
            parsed: receipt.items_parsed,
            announced: receipt.items_announced,
            unit: unit.to_string(),
            blocks: receipt.blocks_parsed,
            unmatched: receipt.lines_unmatched,
            truncated: receipt.truncated,
            degraded,
        })));
    }
    if let Some(&first) = census.first() {
        blocks.push(Block::Next(Address::Item(
            graph.items[first].identity.clone(),
        )));
    }
    blocks
}

/// Room kept for the marker of the contract's preferred items (warnings):
/// they are planned after the census and its detail, and when none fits
/// their marker must still be printed within the budget (the frame
/// allowance holds one marker, the detail's).
fn secondary_reserve(graph: &EvidenceGraph, contract: &Contract) -> usize {
    let preferred = graph
        .items
        .iter()
        .any(|i| contract.tier(i) == crate::contract::Tier::Preferred);
    if preferred { super::MARKER_TOKENS } else { 0 }
}

/// Tokens of a closing block as the renderer prints it.
fn block_tokens(artifact: &Artifact, graph: &EvidenceGraph, block: &Block) -> usize {
    match block {
        Block::Notice(note) => note_tokens(artifact, graph, note),
        Block::Next(address) => {
            tokens::estimate(render::next_line(render::KEY_FOR_PRICING, address).as_bytes()) + 1
        }
        _ => 0,
    }
}

/// What the complete census costs in each form, priced on the renderer's
/// own lines (`render::census`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CensusCost {
    /// The raw headlines, when every item's names it by itself.
    pub headlines: Option<usize>,
    /// The compact block, each identity whole with its reason.
    pub whole: usize,
    /// The compact block, each identity whole without its reason.
    pub bare: usize,
    /// The compact block, parametrized cases sharing a line.
    pub grouped: usize,
    /// The notes every census digest closes with (coverage, `next:`),
    /// priced on the renderer's words for them.
    pub notes: usize,
    /// The digest's header and footer, priced on the renderer's lines.
    pub frame: usize,
}

impl CensusCost {
    /// The form the planner prints under `limit` and its tokens: the first
    /// of the ladder that fits (`None` for a raw headline), or None when
    /// none does (FLOOD).
    pub fn form(&self, limit: usize) -> Option<(Option<CensusForm>, usize)> {
        // The raw headlines, when they fit and cost at most half as much
        // again as the whole compact block (a tool's plain lines, as it
        // printed them, are worth a little more than ctx's rewording; JSON
        // records or absolute paths on every line are not).
        let headlines = self
            .headlines
            .filter(|&t| self.fits_as(t, limit) && t * 2 <= self.whole * 3)
            .map(|t| (None, t));
        headlines.or_else(|| {
            [
                (CensusForm::Whole, self.whole),
                (CensusForm::Bare, self.bare),
                (CensusForm::Grouped, self.grouped),
            ]
            .into_iter()
            .find(|&(_, t)| self.fits_as(t, limit))
            .map(|(form, t)| (Some(form), t))
        })
    }

    /// The tokens of the form the planner prints: the form that fits, else
    /// the cheapest (which FLOOD groups).
    pub fn chosen(&self, limit: usize) -> usize {
        self.form(limit)
            .map_or(self.whole.min(self.bare).min(self.grouped), |(_, t)| t)
    }

    /// True when the census is printed whole; false means FLOOD.
    pub fn fits(&self, limit: usize) -> bool {
        self.form(limit).is_some()
    }

    /// True when a form naming every identity whole (the headlines, or
    /// the ids with or without their reasons) fits under `limit`.
    pub fn fits_whole(&self, limit: usize) -> bool {
        self.form(limit)
            .is_some_and(|(form, _)| form != Some(CensusForm::Grouped))
    }

    /// A census of `tokens` fits under `limit` with the digest's frame and
    /// closing notes.
    fn fits_as(&self, tokens: usize, limit: usize) -> bool {
        tokens + self.frame + self.notes <= limit
    }
}

/// The census cost of every census item of `graph`, with the notes its
/// digest closes with.
pub fn measure(
    artifact: &Artifact,
    graph: &EvidenceGraph,
    receipt: &CoverageReceipt,
    contract: &Contract,
) -> CensusCost {
    let census = contract.census_indices(graph);
    let unit = &contract.census_unit(graph).many;
    let notes = closing_notes(graph, receipt, &census, unit)
        .iter()
        .map(|b| block_tokens(artifact, graph, b))
        .sum::<usize>()
        + secondary_reserve(graph, contract)
        + announced_cost(artifact, graph);
    measure_entries(artifact, graph, &dedupe(graph, &census), unit, notes)
}

fn measure_entries(
    artifact: &Artifact,
    graph: &EvidenceGraph,
    entries: &[CensusEntry],
    unit: &str,
    notes: usize,
) -> CensusCost {
    let headlines = entries
        .iter()
        .all(|e| render::census::names_itself(artifact, &graph.items[e.index]))
        .then(|| {
            entries
                .iter()
                .map(|e| {
                    let line = render::census::item_line(artifact, &graph.items[e.index]);
                    let repeats = Note::Repeats { times: e.times };
                    line_tokens(&line)
                        + if e.times > 1 {
                            note_tokens(artifact, graph, &repeats)
                        } else {
                            0
                        }
                })
                .sum()
        });
    let compact = |form| {
        render::census::compact(artifact, graph, entries, unit, form)
            .iter()
            .map(line_tokens)
            .sum()
    };
    CensusCost {
        headlines,
        whole: compact(CensusForm::Whole),
        bare: compact(CensusForm::Bare),
        grouped: compact(CensusForm::Grouped),
        notes,
        frame: super::frame_tokens(artifact, graph),
    }
}

/// Tokens of one rendered line with its newline.
fn line_tokens(line: &RenderedLine) -> usize {
    tokens::estimate(line.text.as_bytes()) + 1
}

/// Tokens of a note as the renderer words it, with its prefix and newline.
fn note_tokens(artifact: &Artifact, graph: &EvidenceGraph, note: &Note) -> usize {
    let words = render::notes::words(note, artifact, graph);
    tokens::estimate(format!("{CTX_PREFIX} {words}").as_bytes()) + 1
}

/// Groups census items by identity and summary, in order of first occurrence.
fn dedupe(graph: &EvidenceGraph, census: &[usize]) -> Vec<CensusEntry> {
    let mut entries: Vec<CensusEntry> = Vec::new();
    let mut index: BTreeMap<(&str, Option<&str>), usize> = BTreeMap::new();
    for &i in census {
        let item = &graph.items[i];
        let key = (item.identity.as_str(), item.summary.as_deref());
        match index.get(&key) {
            Some(&e) => entries[e].times += 1,
            None => {
                index.insert(key, entries.len());
                entries.push(CensusEntry { index: i, times: 1 });
            }
        }
    }
    entries
}

struct Planner<'a> {
    artifact: &'a Artifact,
    graph: &'a EvidenceGraph,
    contract: &'a Contract,
    /// The plural noun the census is counted in (the contract's).
    unit: &'a str,
    /// The noun the census is counted in, in both numbers.
    noun: &'a crate::contract::Noun,
    budget: Budget,
    rung: Rung,
    blocks: Vec<Block>,
    omissions: Vec<Omission>,
    spent: usize,
    memo: LineMemo<'a>,
}

impl<'a> Planner<'a> {
    fn new(
        artifact: &'a Artifact,
        graph: &'a EvidenceGraph,
        contract: &'a Contract,
        budget: Budget,
        closing: usize,
    ) -> Self {
        Planner {
            artifact,
            graph,
            contract,
            unit: &contract.census_unit(graph).many,
            noun: contract.census_unit(graph),
            budget,
            rung: Rung::FailCensus,
            blocks: std::iter::once(Block::Header)
                .chain(announced(artifact, graph).into_iter().map(Block::Raw))
                .collect(),
            omissions: Vec::new(),
            spent: super::frame_tokens(artifact, graph) + closing,
            memo: LineMemo::new(artifact),
        }
    }

    fn item(&self, i: usize) -> &'a EvidenceItem {
        &self.graph.items[i]
    }

    /// Tokens of an item's identity line, as the renderer writes it.
    fn line_cost(&self, i: usize) -> usize {
        line_tokens(&render::census::item_line(self.artifact, self.item(i)))
    }

    /// Tokens of an item's detail lines, shown in place of its census line.
    /// A cut between its picks is priced by its marker (`render::detail`).
    fn detail_lines_cost(&self, i: usize) -> usize {
        let item = self.item(i);
        render::detail::tokens(self.artifact, &item.detail, item.block, |n| {
            self.memo.get(n).cost
        })
    }

    /// Tokens of an item's detail under its `[ctx] --- identity` heading.
    fn detail_cost(&self, i: usize) -> usize {
        let heading = render::detail_heading(self.item(i));
        self.detail_lines_cost(i) + tokens::estimate(heading.as_bytes()) + 1
    }

    /// Tokens of a note as the renderer words it.
    fn note_cost(&self, note: &Note) -> usize {
        note_tokens(self.artifact, self.graph, note)
    }

    /// Adds a note, priced as printed.
    fn notice(&mut self, note: Note) {
        self.spent += self.note_cost(&note);
        self.blocks.push(Block::Notice(note));
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

    /// True when the item has detail lines short enough to print and meant
    /// for a reader (a JSON event line — which carries timestamps — or a
    /// minified bundle is retrievable, not printable). Detail that is only
    /// the item's own headline says nothing its census line does not.
    fn detail_usable(&self, i: usize) -> bool {
        let item = self.item(i);
        let only_headline = item.headline.is_some_and(|h| {
            item.detail
                .iter()
                .all(|s| s.first >= h.first && s.last <= h.last)
        });
        !item.detail.is_empty()
            && !only_headline
            && item.detail.iter().flat_map(|s| s.first..=s.last).all(|n| {
                // Priced once per line (memo); JSON event lines carry
                // timestamps and are retrievable, never printed inline.
                let raw = self.artifact.line(n);
                let json = raw.starts_with(b"{\"") && raw.trim_ascii_end().ends_with(b"}");
                !json && self.memo.get(n).cost <= LONGEST_DETAIL_LINE + 1
            })
    }

    /// True when the item's detail contains its own headline, so showing the
    /// detail in place names the item (a compiler error's block).
    fn detail_names_item(&self, i: usize) -> bool {
        let item = self.item(i);
        item.headline
            .is_some_and(|h| item.detail.iter().any(|s| s.contains(h.first)))
    }

    /// True when the first cause's detail may be shown past the target:
    /// it is short, and the digest stays within the budget as asked (like
    /// the census, the first cause is exempt from a small output's share
    /// cut) and its frame allowance (the frame is priced inside `spent`,
    /// and allowed again on top).
    fn first_detail_fits(&self, cost: usize) -> bool {
        let frame = super::frame_tokens(self.artifact, self.graph);
        let limit = self.budget.census.max(self.budget.target) + frame;
        cost <= FIRST_DETAIL_TOKENS && self.spent + cost <= limit
    }

    fn omit(&mut self, what: Omitted, count: usize, address: Address) {
        self.omissions.push(Omission {
            what,
            count,
            address,
        });
        self.blocks.push(Block::Marker(self.omissions.len() - 1));
        self.spent += crate::render::marker_tokens(&self.omissions[self.omissions.len() - 1]);
    }

    /// Every identity, then the detail of each distinct cause while it fits:
    /// the raw headlines (`form` None: a detail that names its item shown
    /// in its place), or the compact block in `form` with the detail after
    /// it.
    fn census(&mut self, entries: &[CensusEntry], census_cost: usize, form: Option<CensusForm>) {
        let compact = form.is_some();
        // Blocks that each name their item (a compiler's error with its
        // `--> file:line:col`), all within the budget: they are the census.
        if compact {
            let blocks: usize = entries
                .iter()
                .map(|e| self.detail_lines_cost(e.index))
                .sum();
            let whole = entries.iter().all(|e| {
                e.times == 1 && self.detail_usable(e.index) && self.detail_names_item(e.index)
            });
            if whole && self.spent + blocks <= self.budget.target {
                self.spent += blocks;
                self.blocks.extend(entries.iter().map(|e| Block::Item {
                    index: e.index,
                    detail: true,
                }));
                return;
            }
        }
        self.spent += census_cost;
        let census_at = self.blocks.len();
        if let Some(form) = form {
            self.blocks.push(Block::Census {
                entries: entries.to_vec(),
                unit: self.unit.to_string(),
                form,
            });
        } else {
            for e in entries {
                self.blocks.push(Block::Item {
                    index: e.index,
                    detail: false,
                });
                if e.times > 1 {
                    self.blocks
                        .push(Block::Notice(Note::Repeats { times: e.times }));
                }
            }
        }
        // One detail per cause: items whose decisive lines are identical
        // (the same failure at the same place) show them once. A shared
        // summary alone is not a shared cause: jest words every `toBe`
        // failure the same.
        let mut causes: Vec<(Option<&str>, Vec<usize>)> = Vec::new();
        let mut by_key: HashMap<Vec<[u8; 16]>, usize> = HashMap::new();
        for e in entries {
            let item = self.item(e.index);
            let key = self.detail_key(e.index);
            match by_key.get(&key).filter(|_| !key.is_empty()) {
                Some(&c) => causes[c].1.push(e.index),
                None => {
                    by_key.insert(key, causes.len());
                    causes.push((item.summary.as_deref(), vec![e.index]));
                }
            }
        }
        let mut detail_blocks = Vec::new();
        let mut missing = 0usize;
        let mut first = true;
        for (_, members) in &causes {
            let rep = members[0];
            if !self.detail_usable(rep) {
                continue;
            }
            let in_census = self.blocks[census_at..]
                .iter()
                .position(|b| matches!(b, Block::Item { index, .. } if *index == rep))
                .filter(|_| self.detail_names_item(rep));
            let note = (members.len() > 1).then(|| Note::SameCause {
                members: members.len(),
                unit: self.unit.to_string(),
                index: rep,
            });
            // Priced as printed: in place, the block has no heading of its own.
            let cost = match in_census {
                Some(_) => self.detail_lines_cost(rep),
                None => self.detail_cost(rep),
            } + note.as_ref().map_or(0, |n| self.note_cost(n));
            let granted = std::mem::take(&mut first) && self.first_detail_fits(cost);
            if self.spent + cost > self.budget.target && !granted {
                missing += members.len();
                continue;
            }
            self.spent += cost;
            let note = note.map(Block::Notice);
            match in_census {
                // The block names the item itself: shown in place of its census line.
                Some(pos) => {
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
            let what = Left::WithoutDetail {
                unit: self.noun.clone(),
            };
            self.omit(Omitted::Items(what), missing, Address::Details);
        }
    }

    fn finish(mut self) -> DeliveryPlan {
        self.blocks.push(Block::Footer);
        let why = match self.rung {
            Rung::PassSummary => "nothing failed: counts only",
            Rung::FailCensus => "every identity and every cause's detail fit",
            Rung::Dense => "every identity; detail thinned to the budget",
            Rung::Flood => "no form of the census fits the budget: grouped",
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
