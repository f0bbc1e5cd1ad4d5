//! The digest in shapes other than text (`--format`): pure functions of
//! the same plan the text digest executes, never a reading of the text.
//!
//! `deliver` builds one [`Report`] from what the pipeline returned and
//! calls [`render`]; each shape is one file here. What a shape shows is
//! what the plan shows ([`shown`]): the census items the text digest
//! names, the plan's omissions with their `ctx expand` commands. SARIF
//! and JUnit are reports for other tools rather than digests: they carry
//! every finding of the graph, whatever the budget.

use std::collections::HashMap;

use crate::artifact::Artifact;
use crate::contract::Contract;
use crate::delivery_plan::{
    Address, Block, DeliveryPlan, DiffNote, ListingNote, Note, RosterNote, SearchNote,
};
use crate::evidence::{CoverageReceipt, EvidenceGraph, EvidenceItem};
use crate::format::{Format, Formatting};
use crate::store::ArchiveKey;

pub mod items;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod sarif;

/// Everything a shape is made from: what the pipeline found and planned,
/// and what the text delivery was.
#[derive(Clone, Copy, Debug)]
pub struct Report<'a> {
    pub artifact: &'a Artifact,
    /// `<family>/vN` of the profile that read the output.
    pub profile: &'a str,
    /// The facts and the plan, when the output was read that far.
    pub facts: Option<Facts<'a>>,
    /// The archive key, when the original was archived.
    pub key: Option<&'a ArchiveKey>,
    pub delivered: Delivered<'a>,
    /// Estimated tokens of the raw output.
    pub raw_tokens: usize,
    /// Estimated tokens of what the text delivery printed.
    pub text_tokens: usize,
}

/// The extractor's facts and the plan made over them.
#[derive(Clone, Copy, Debug)]
pub struct Facts<'a> {
    pub graph: &'a EvidenceGraph,
    pub receipt: &'a CoverageReceipt,
    pub plan: &'a DeliveryPlan,
    pub contract: &'a Contract,
}

/// What the text delivery printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivered<'a> {
    /// A digest: these bytes.
    Digest(&'a [u8]),
    /// The raw output, because it fits the budget.
    Verbatim,
    /// The raw output, because ctx refused or failed to digest it: why.
    Fallback(&'a str),
}

impl Delivered<'_> {
    /// True when the reader gets the raw output whole.
    pub fn is_raw(&self) -> bool {
        !matches!(self, Delivered::Digest(_))
    }
}

/// The report in `formatting`'s shape. Text is the text digest itself
/// (or the raw output when that is what went out).
pub fn render(formatting: &Formatting, report: &Report) -> Vec<u8> {
    match formatting.format {
        Format::Text => match report.delivered {
            Delivered::Digest(bytes) => bytes.to_vec(),
            _ => report.artifact.bytes().to_vec(),
        },
        Format::Json => json::document(report),
        Format::Markdown => {
            markdown::document(report, formatting.link_base.as_deref()).into_bytes()
        }
        Format::Sarif | Format::Junit => {
            // Output ctx did not read (a fault, a filter's) has no
            // findings; the document still tells how the run ended.
            let empty = EvidenceGraph::empty();
            let graph = report.facts.map_or(&empty, |f| f.graph);
            let render = if formatting.format == Format::Sarif {
                sarif::render
            } else {
                junit::render
            };
            render(
                report.artifact,
                graph,
                report.profile,
                &formatting.workspace,
                report.key,
            )
        }
    }
}

/// One census identity as a shape shows it: the first item of the
/// identity and how many times it occurred.
#[derive(Clone, Copy, Debug)]
pub struct Shown<'a> {
    pub item: &'a EvidenceItem,
    pub times: usize,
}

/// The census items the text digest names, in the order it names them,
/// each identity once: every census item when the raw output went out
/// whole; otherwise the plan's census lines, compact census entries,
/// detail blocks, and the items whose headline a raw block prints.
pub fn shown<'a>(report: &Report<'a>) -> Vec<Shown<'a>> {
    let Some(facts) = report.facts else {
        return Vec::new();
    };
    let graph = facts.graph;
    let census = facts.contract.census_indices(graph);
    let mut order: Vec<(usize, usize)> = Vec::new();
    if report.delivered.is_raw() {
        for &i in &census {
            order.push((i, 1));
        }
    } else {
        for block in &facts.plan.blocks {
            match block {
                Block::Item { index, .. } | Block::Detail(index) => order.push((*index, 1)),
                Block::Census { entries, .. } => {
                    order.extend(entries.iter().map(|e| (e.index, e.times)));
                }
                // A FLOOD group's examples, the item a shared cause is
                // shown for, the item `next` names.
                Block::Notice(Note::Group { examples, .. }) => {
                    order.extend(examples.iter().map(|&i| (i, 1)));
                }
                Block::Notice(Note::SameCause { index, .. })
                | Block::Notice(Note::Diff(DiffNote::File { index }))
                | Block::Notice(Note::Roster(RosterNote::Entry { index })) => {
                    order.push((*index, 1));
                }
                Block::Notice(Note::Search(SearchNote::Files { indices }))
                | Block::Notice(Note::Listing(ListingNote::Folders { indices })) => {
                    order.extend(indices.iter().map(|&i| (i, 1)));
                }
                Block::Next(Address::Item(id)) => {
                    order.extend(
                        census
                            .iter()
                            .filter(|&&i| graph.items[i].identity == *id)
                            .map(|&i| (i, 1)),
                    );
                }
                Block::Raw(span) => {
                    for &i in &census {
                        if graph.items[i]
                            .headline
                            .is_some_and(|h| span.first <= h.first && h.first <= span.last)
                        {
                            order.push((i, 1));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    if !report.delivered.is_raw() {
        order.extend(named_in_words(facts, &census));
    }
    let mut out: Vec<Shown<'a>> = Vec::new();
    for (index, times) in order {
        let item = &graph.items[index];
        if !facts.contract.requires(item) {
            continue;
        }
        match out.iter_mut().find(|s| s.item.identity == item.identity) {
            Some(seen) => seen.times = seen.times.max(times),
            None => out.push(Shown { item, times }),
        }
    }
    if report.delivered.is_raw() {
        // Raw output names each occurrence: count them.
        for s in &mut out {
            s.times = census
                .iter()
                .filter(|&&i| graph.items[i].identity == s.item.identity)
                .count();
        }
    }
    out
}

/// Census items the planner's notes name (`Note::names`: by index, not
/// by reading words), and a marker whose address is an item. Facts the
/// plan states, not a reading of the rendered text.
fn named_in_words(facts: Facts, census: &[usize]) -> Vec<(usize, usize)> {
    let graph = facts.graph;
    let mut by_identity: HashMap<&str, Vec<usize>> = HashMap::new();
    for &i in census {
        by_identity
            .entry(graph.items[i].identity.as_str())
            .or_default()
            .push(i);
    }
    let mut out = Vec::new();
    let named = |id: &str, out: &mut Vec<(usize, usize)>| {
        if let Some(items) = by_identity.get(id) {
            out.extend(items.iter().map(|&i| (i, 1)));
        }
    };
    for block in &facts.plan.blocks {
        match block {
            // A typed note names items by index (a diff's file line, a
            // search's or listing's files, a roster's entry, a log's
            // endpoint).
            Block::Notice(note) => {
                for i in note.names() {
                    if let Some(item) = graph.items.get(i) {
                        named(item.identity.as_str(), &mut out);
                    }
                }
            }
            Block::Marker(m) => {
                if let Some(Address::Item(id)) = facts.plan.omissions.get(*m).map(|o| &o.address) {
                    named(id, &mut out);
                }
            }
            _ => {}
        }
    }
    out
}

/// The tool a report names: the reader's own name, else the family of
/// `profile` (`<family>/vN`), else `ctx`, never empty.
pub fn tool_name<'a>(graph: &'a EvidenceGraph, profile: &'a str) -> &'a str {
    let family = profile.split('/').next().unwrap_or(profile);
    [graph.reader.tool().unwrap_or_default().trim(), family]
        .into_iter()
        .find(|name| !name.is_empty())
        .unwrap_or("ctx")
}

/// The one-line reason of an item: the tool's summary, first line only.
pub fn reason(item: &EvidenceItem) -> Option<String> {
    let summary = item.summary.as_deref()?.lines().next()?.trim();
    (!summary.is_empty()).then(|| summary.to_string())
}

/// `ctx expand KEY ARGS`, as a reader types it.
pub fn expand_command(key: &ArchiveKey, args: &str) -> String {
    if args.is_empty() {
        format!("ctx expand {}", key.short())
    } else {
        format!("ctx expand {} {args}", key.short())
    }
}
