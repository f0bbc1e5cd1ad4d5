//! Planning for listings (ls, find, tree, du), whose census is the list of
//! folders. The digest is the raw listing in its own order with runs of
//! entries left out: every folder's line, every anomaly and error line and
//! the tool's closing line stay; each folder's first entries come back
//! round by round while the budget allows (every folder's first before any
//! folder's second); each left-out run is one marker with its `--lines`
//! address. A note up front counts files by type with their sizes and
//! names what was kept whole. When the folders' lines alone exceed the
//! budget as asked (FLOOD), folders are named with their entry counts
//! while they fit, the rest counted by parent folder behind `--items`.
//!
//! Listed lines are raw spans, never rewritten or reordered; every line ctx
//! adds is a `[ctx]` note or marker.

use std::collections::{BTreeMap, BTreeSet};

use crate::artifact::Artifact;
use crate::contract::Contract;
use crate::delivery_plan::{ListingNote, Note, TypeCount};
use crate::evidence::{CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind};
use crate::normalize;
use crate::render::notes;
use crate::tokens;

use super::{
    Address, Block, Budget, DeliveryPlan, FLOOD_CLOSING_TOKENS, Left, MARKER_TOKENS, Omission,
    Omitted, Rung, frame_tokens,
};
use super::{census, runs};

/// The width of one FLOOD note listing folders, in characters.
const NOTE_WIDTH: usize = 160;
/// A left-out run this cheap is printed instead of its marker: a marker
/// that costs about what it replaces saves nothing.
const CHEAP_RUN: usize = MARKER_TOKENS * 3 / 4;

pub fn plan(
    artifact: &Artifact,
    graph: &EvidenceGraph,
    receipt: &CoverageReceipt,
    contract: &Contract,
    budget: Budget,
) -> DeliveryPlan {
    let total = artifact.line_count();
    let mut p = Planner {
        artifact,
        keep: vec![false; total + 1],
        spent: frame_tokens(artifact, graph),
        blocks: vec![Block::Header],
        omissions: Vec::new(),
        rung: Rung::Dense,
    };
    // The kept-whole note, where it was placed and what it cost: taken
    // back when the budget leaves some of those lines out.
    let mut kept_note: Option<(usize, usize)> = None;
    for (note, kept) in [(types_note(graph), false), (kept_whole_note(graph), true)] {
        let Some(note) = note else { continue };
        let note = Note::Listing(note);
        let cost = tokens::estimate(notes::words(&note, artifact, graph).as_bytes()) + 2;
        // The tally by type is preferred: at most a quarter of the target,
        // so that a small budget keeps its room for the folders.
        if !kept && cost > budget.target / 4 {
            continue;
        }
        p.spent += cost;
        if kept {
            kept_note = Some((p.blocks.len(), cost));
        }
        p.blocks.push(Block::Notice(note));
    }
    let census: Vec<&EvidenceItem> = contract.census(graph).collect();
    let mut must: BTreeSet<usize> = census
        .iter()
        .filter_map(|i| i.headline.map(|h| h.first))
        .collect();
    must.extend(graph.conclusion.iter().map(|s| s.first));
    let lines_cost: usize = must.iter().map(|&n| p.line_cost(n)).sum();
    let markers_cost = gaps(&must, total) * MARKER_TOKENS;
    let must_cost = lines_cost + markers_cost;
    let mut unnamed = 0;
    // FLOOD by the rule every family shares: the census in the form it is
    // printed (each folder's own line) exceeds the budget. The markers of
    // the runs between folders are declared omissions, not census.
    let named_cost = named_cost(graph);
    let mut named_form = false;
    let mut whole_left = 0;
    if !census::measure(artifact, graph, receipt, contract).fits(budget.census) {
        p.rung = Rung::Flood;
        (whole_left, unnamed) = p.named(graph, contract, budget.census);
    } else if p.spent + must_cost > budget.target
        && (markers_cost > lines_cost || p.spent + must_cost > budget.census)
        && named_cost < must_cost
    {
        // A big tree whose folders are a tenth of its lines: one marker
        // per run between folder lines would cost more than the folders
        // themselves (or more than the budget). The folders are named in
        // notes instead, in the listing's order, each with its entry count.
        named_form = true;
        (whole_left, unnamed) = p.named(graph, contract, budget.census);
        // Anomalies the budget left to `--items`: the census is no longer
        // whole inline.
        if unnamed > 0 {
            p.rung = Rung::Flood;
        }
    } else {
        p.spent += must_cost;
        for &n in &must {
            p.keep[n] = true;
        }
        p.rounds(graph, budget.target);
    }
    // "Kept whole" only when every one of them is.
    if whole_left > 0
        && let Some((at, cost)) = kept_note
    {
        p.blocks.remove(at);
        p.spent -= cost;
    }
    p.keep_cheap_runs();
    p.emit();
    if unnamed > 0 {
        p.omit(
            Omitted::Items(Left::MoreFoldersAndAnomalies),
            unnamed,
            Address::Items(None),
        );
    }
    p.blocks.push(Block::Footer);
    let why = match (p.rung, named_form) {
        (Rung::Flood, _) => {
            "the folders exceed the budget: named while they fit, the rest by parent and behind --items"
        }
        (_, true) => "folders named in notes: a marker per run would cost more than they do",
        _ => "the listing in order: every folder and anomaly, first entries of each folder",
    };
    DeliveryPlan {
        rung: p.rung,
        outcome: None,
        blocks: p.blocks,
        omissions: p.omissions,
        budget: budget.target,
        estimate: p.spent,
        why: why.to_string(),
    }
}

/// How many runs of lines lie outside `kept` (each costs a marker).
fn gaps(kept: &BTreeSet<usize>, total: usize) -> usize {
    let mut runs = 0;
    let mut prev = 0;
    for &n in kept.iter().chain(std::iter::once(&(total + 1))) {
        if n > prev + 1 {
            runs += 1;
        }
        prev = n;
    }
    runs
}

struct Planner<'a> {
    artifact: &'a Artifact,
    /// Lines kept, by line number (index 0 unused).
    keep: Vec<bool>,
    spent: usize,
    blocks: Vec<Block>,
    omissions: Vec<Omission>,
    rung: Rung,
}

impl Planner<'_> {
    fn line_cost(&self, n: usize) -> usize {
        tokens::estimate(normalize::line(self.artifact.line(n)).as_bytes()) + 1
    }

    /// Each folder's entries in turn: every folder's first, then every
    /// folder's second, … while the target allows. Entries under no listed
    /// folder (`ls -l` of one folder) are one more group.
    fn rounds(&mut self, graph: &EvidenceGraph, target: usize) {
        let mut grouped = BTreeSet::new();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for i in graph.items.iter().filter(|i| i.kind == ItemKind::Directory) {
            let lines: Vec<usize> = i.detail.iter().map(|s| s.first).collect();
            grouped.extend(lines.iter().copied());
            groups.push(lines);
        }
        let loose: Vec<usize> = graph
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::FileType)
            .flat_map(|i| i.detail.iter().map(|s| s.first))
            .filter(|n| !grouped.contains(n))
            .collect::<BTreeSet<usize>>()
            .into_iter()
            .collect();
        groups.push(loose);
        let longest = groups.iter().map(Vec::len).max().unwrap_or(0);
        for k in 0..longest {
            for g in &groups {
                let Some(&n) = g.get(k) else { continue };
                if self.keep[n] {
                    continue;
                }
                let alone = !self.keep[n - 1] && !self.keep.get(n + 1).copied().unwrap_or(false);
                let cost = self.line_cost(n) + if alone { MARKER_TOKENS } else { 0 };
                if self.spent + cost > target {
                    return;
                }
                self.spent += cost;
                self.keep[n] = true;
            }
        }
    }

    /// A left-out run cheaper than its marker (a blank line, a `total`
    /// line between two kept lines) is printed instead.
    fn keep_cheap_runs(&mut self) {
        let total = self.keep.len() - 1;
        let mut n = 1;
        while n <= total {
            if self.keep[n] {
                n += 1;
                continue;
            }
            let start = n;
            while n <= total && !self.keep[n] {
                n += 1;
            }
            let cost: usize = (start..n).map(|k| self.line_cost(k)).sum();
            if cost <= CHEAP_RUN {
                for k in start..n {
                    self.keep[k] = true;
                }
            }
        }
    }

    /// The listing in order: kept runs as raw spans, left-out runs as one
    /// marker each.
    fn emit(&mut self) {
        for (kept, span) in runs::runs(&self.keep) {
            if kept {
                self.blocks.push(Block::Raw(span));
            } else {
                self.omit(Omitted::Lines, span.len(), Address::Lines(span));
            }
        }
    }

    fn omit(&mut self, what: Omitted, n: usize, address: Address) {
        self.omissions.push(Omission {
            what,
            count: n,
            address,
        });
        self.blocks.push(Block::Marker(self.omissions.len() - 1));
    }

    /// Anomaly, error and closing lines whole while they fit in half the
    /// budget; folders named in notes, in the listing's order, while they
    /// fit; returns how many census identities are left to `--items`.
    /// Keeps the census lines that are not folders while half the budget
    /// allows and names the folders in notes; returns how many of the
    /// former were left out, and how many items in all are left to
    /// `--items`.
    fn named(
        &mut self,
        graph: &EvidenceGraph,
        contract: &Contract,
        budget: usize,
    ) -> (usize, usize) {
        let mut left = 0;
        let mut whole: Vec<usize> = graph
            .items
            .iter()
            .filter(|i| contract.requires(i) && i.kind != ItemKind::Directory)
            .filter_map(|i| i.headline.map(|h| h.first))
            .collect();
        whole.extend(graph.conclusion.iter().map(|s| s.first));
        whole.sort_unstable();
        whole.dedup();
        for n in whole {
            let cost = self.line_cost(n) + MARKER_TOKENS;
            if self.spent + cost > budget / 2 {
                left += 1;
                continue;
            }
            self.spent += cost;
            self.keep[n] = true;
        }
        let folders: Vec<(usize, &EvidenceItem)> = graph
            .items
            .iter()
            .enumerate()
            .filter(|(_, i)| i.kind == ItemKind::Directory)
            .collect();
        let heading = Note::Listing(if self.rung == Rung::Flood {
            ListingNote::FoldersFlood {
                folders: folders.len(),
                budget,
            }
        } else {
            ListingNote::FoldersInOrder {
                folders: folders.len(),
            }
        });
        self.spent += tokens::estimate(notes::words(&heading, self.artifact, graph).as_bytes()) + 2;
        self.blocks.push(Block::Notice(heading));
        let mut named = 0;
        // The folders of the note being filled, and its width as printed.
        let mut line: Vec<usize> = Vec::new();
        let mut width = 0;
        for &(index, f) in &folders {
            let entry = notes::listing::folder(f).len();
            if !line.is_empty() && width + entry + 3 > NOTE_WIDTH {
                let in_line = line.len();
                if !self.note_within(graph, &mut line, budget) {
                    break;
                }
                named += in_line;
                width = 0;
            }
            if !line.is_empty() {
                width += notes::listing::SEPARATOR.len();
            }
            width += entry;
            line.push(index);
        }
        let in_line = line.len();
        if in_line > 0 && self.note_within(graph, &mut line, budget) {
            named += in_line;
        }
        if named < folders.len() {
            self.blocks
                .push(Block::Notice(Note::Listing(ListingNote::Parents {
                    parents: parents(&folders[named..]),
                })));
        }
        // How to read any folder's own lines.
        if let Some((_, f)) = folders.iter().find(|(_, f)| !f.fields.contains_key("root")) {
            self.blocks
                .push(Block::Next(Address::Item(f.identity.clone())));
        }
        (left, left + folders.len() - named)
    }

    /// Pushes a note naming the folders `line` holds when it fits under
    /// the ceiling with room left for the closing lines; empties it when it
    /// does.
    fn note_within(
        &mut self,
        graph: &EvidenceGraph,
        line: &mut Vec<usize>,
        ceiling: usize,
    ) -> bool {
        let note = Note::Listing(ListingNote::Folders {
            indices: line.clone(),
        });
        let words = notes::words(&note, self.artifact, graph);
        let cost = tokens::estimate(words.as_bytes()) + 3;
        // The closing lines: the note counting the rest by parent (five
        // parents and a count), `next`, the `--lines` and `--items`
        // markers.
        if self.spent + cost + FLOOD_CLOSING_TOKENS > ceiling {
            return false;
        }
        self.spent += cost;
        line.clear();
        self.blocks.push(Block::Notice(note));
        true
    }
}

/// What naming every folder in notes costs (`./src ×17 · ` each).
fn named_cost(graph: &EvidenceGraph) -> usize {
    graph
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::Directory)
        .map(|i| tokens::estimate(i.identity.as_bytes()) + 4)
        .sum::<usize>()
        + MARKER_TOKENS * 2
}

/// Files by type, most files first (the listing's order among equals).
fn types_note(graph: &EvidenceGraph) -> Option<ListingNote> {
    let mut types: Vec<TypeCount> = graph
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::FileType)
        .map(|i| TypeCount {
            name: i.identity.clone(),
            files: i
                .fields
                .get("files")
                .and_then(|f| f.parse().ok())
                .unwrap_or(0),
            bytes: i.fields.get("bytes").and_then(|b| b.parse().ok()),
        })
        .collect();
    if types.is_empty() {
        return None;
    }
    types.sort_by_key(|t| std::cmp::Reverse(t.files));
    Some(ListingNote::Types { types })
}

/// The anomalies kept whole, by kind (`dangling symlink ×1 · setuid ×1`).
fn kept_whole_note(graph: &EvidenceGraph) -> Option<ListingNote> {
    let mut kinds: Vec<(String, usize)> = Vec::new();
    for i in graph.items.iter().filter(|i| i.kind == ItemKind::Anomaly) {
        for word in i.class.as_deref().unwrap_or("").split(", ") {
            match kinds.iter_mut().find(|k| k.0 == word) {
                Some(k) => k.1 += 1,
                None => kinds.push((word.to_string(), 1)),
            }
        }
    }
    (!kinds.is_empty()).then_some(ListingNote::KeptWhole { kinds })
}

/// Unnamed folders counted by their parent, most first.
fn parents(folders: &[(usize, &EvidenceItem)]) -> Vec<(String, usize)> {
    let mut by: BTreeMap<&str, usize> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    for (_, f) in folders {
        let p = f
            .identity
            .trim_end_matches('/')
            .rsplit_once('/')
            .map_or(".", |(d, _)| d);
        let n = by.entry(p).or_insert_with(|| {
            order.push(p);
            0
        });
        *n += 1;
    }
    order.sort_by_key(|p| std::cmp::Reverse(by[p]));
    order.iter().map(|p| (p.to_string(), by[p])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_outside_the_kept_lines() {
        let kept: BTreeSet<usize> = [2, 3, 6].into_iter().collect();
        // 1, 4-5, 7-8.
        assert_eq!(gaps(&kept, 8), 3);
        assert_eq!(gaps(&kept, 6), 2);
    }
}
