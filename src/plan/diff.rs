//! Diff planning: the unit is the changed file and its hunks, not a
//! failure. Required at every budget: what the contract requires (for
//! `git_diff`, every changed file with its status and +/- counts and, in
//! a log, every commit's head). Then whole hunks in
//! file order while the budget allows — a hunk is never cut, reflowed or
//! reordered — and per file one marker with the exact count of hunks left
//! out and `--item PATH`, which prints that file's whole diff.
//!
//! The budget holds the markers too: while hunks are chosen, every file
//! still to come keeps room for the marker it may need, so the digest
//! with its markers fits the target whenever its census does.
//!
//! FLOOD: when the file census alone exceeds the budget as asked, files
//! are grouped by top directory with exact counts and `--items` lists them
//! all.

use std::collections::BTreeMap;

use crate::artifact::{Artifact, Span};
use crate::contract::Contract;
use crate::delivery_plan::{DiffNote, Note};
use crate::evidence::{CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Precision};
use crate::normalize;
use crate::render::notes::diff::file as census_line;
use crate::tokens;

use super::{Address, Block, Budget, DeliveryPlan, Left, Omission, Omitted, Rung, frame_tokens};

/// Lines outside any file block (a warning, `Only in …`) kept before a marker.
const STRAY_KEPT: usize = 6;
/// Directory groups a FLOOD census names before counting the rest.
const FLOOD_GROUPS: usize = 40;

pub fn plan(
    artifact: &Artifact,
    graph: &EvidenceGraph,
    receipt: &CoverageReceipt,
    contract: &Contract,
    budget: Budget,
) -> DeliveryPlan {
    let mut p = Planner {
        artifact,
        graph,
        contract,
        budget,
        rung: Rung::FailCensus,
        blocks: vec![Block::Header],
        omissions: Vec::new(),
        spent: frame_tokens(artifact, graph),
        left_hunks: 0,
        left_files: Vec::new(),
        shown_files: 0,
        reserve: 0,
        compact: false,
        unshown: Vec::new(),
    };
    let census: usize = graph.items.iter().map(|i| p.census_cost(i)).sum();
    if census + p.spent > budget.census {
        p.flood();
    } else {
        p.spent += census;
        p.reserve = graph.items.iter().map(|i| p.marker_cost(i)).sum();
        // One marker per file would not fit: the census alone, and one
        // marker for every file's hunks.
        p.compact = p.spent + p.reserve > budget.target;
        p.walk();
    }
    // Said once, before the footer: a cut diff may lack files at its end.
    if let Precision::Degraded(why) = &receipt.precision {
        p.blocks.push(Block::Notice(Note::Diff(DiffNote::Degraded {
            why: why.clone(),
        })));
    }
    p.finish()
}

struct Planner<'a> {
    artifact: &'a Artifact,
    graph: &'a EvidenceGraph,
    contract: &'a Contract,
    budget: Budget,
    rung: Rung,
    blocks: Vec<Block>,
    omissions: Vec<Omission>,
    spent: usize,
    left_hunks: usize,
    /// Files with hunks left out, in order (the first is the `next:` step).
    left_files: Vec<String>,
    shown_files: usize,
    /// Room kept for the markers of the files not planned yet (each may
    /// need one for the hunks it leaves out).
    reserve: usize,
    /// The census with one marker for every file's hunks: one marker per
    /// file would exceed the target.
    compact: bool,
    /// Files whose hunks the compact form leaves out, in order.
    unshown: Vec<String>,
}

impl Planner<'_> {
    fn span_cost(&self, span: Span) -> usize {
        (span.first..=span.last)
            .map(|n| tokens::estimate(normalize::line(self.artifact.line(n)).as_bytes()) + 1)
            .sum()
    }

    /// What an item costs in the census, which is kept at every budget:
    /// the items the contract requires.
    fn census_cost(&self, item: &EvidenceItem) -> usize {
        if !self.contract.requires(item) {
            return 0;
        }
        match item.kind {
            ItemKind::ChangedFile => tokens::estimate(census_line(item).as_bytes()) + 3,
            ItemKind::Commit => item.detail.iter().map(|s| self.span_cost(*s)).sum(),
            _ => 0,
        }
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

    /// A note, priced as printed.
    fn notice(&mut self, note: Note) {
        self.spent += crate::render::notice_tokens(&note, self.artifact, self.graph);
        self.blocks.push(Block::Notice(note));
    }

    fn fits(&self, cost: usize) -> bool {
        self.spent + cost + self.reserve <= self.budget.target
    }

    /// The marker a file's hunks left out would cost (`HunksOf`, or the
    /// header's when it has no hunks), priced as printed.
    fn marker_cost(&self, item: &EvidenceItem) -> usize {
        if item.kind != ItemKind::ChangedFile || item.headline.is_none() {
            return 0;
        }
        let path = item.identity.clone();
        let what = match item.detail.len() {
            0 => Left::HeaderLinesOf { path: path.clone() },
            _ => Left::HunksOf { path: path.clone() },
        };
        crate::render::marker_tokens(&Omission {
            what: Omitted::Items(what),
            count: item.detail.len().max(1),
            address: Address::Item(path),
        })
    }

    /// In order: each commit's head, its files' census lines, then their
    /// hunks. What the contract requires is kept whatever the budget; a
    /// commit head it does not require is left to `--lines`, a file it
    /// does not require is named only by its hunks' header when they fit.
    fn walk(&mut self) {
        let mut pending: Vec<usize> = Vec::new();
        for (i, item) in self.graph.items.iter().enumerate() {
            let required = self.contract.requires(item);
            match item.kind {
                ItemKind::Commit => {
                    self.flush(&mut pending);
                    if required {
                        self.blocks
                            .extend(item.detail.iter().map(|s| Block::Raw(*s)));
                    } else {
                        for head in &item.detail {
                            self.omit(Omitted::Lines, head.len(), Address::Lines(*head));
                        }
                    }
                    if let Some(rest) = item.fields.get("rest_of_head").and_then(|r| span_of(r)) {
                        self.omit(Omitted::Lines, rest.len(), Address::Lines(rest));
                    }
                }
                ItemKind::ChangedFile => {
                    if required {
                        self.blocks
                            .push(Block::Notice(Note::Diff(DiffNote::File { index: i })));
                    }
                    pending.push(i);
                }
                // Planned with the detail, so raw lines stay in raw order.
                _ => pending.push(i),
            }
        }
        self.flush(&mut pending);
        if let Some(first) = self.unshown.first().cloned() {
            self.rung = Rung::Dense;
            let unit = self.contract.unit.clone();
            let n = self.unshown.len();
            self.omit(
                Omitted::Items(Left::ShownWithoutDetail { unit }),
                n,
                Address::Item(first.clone()),
            );
            self.blocks.push(Block::Next(Address::Item(first)));
            return;
        }
        if self.left_hunks > 0 {
            self.rung = Rung::Dense;
            let files = self
                .graph
                .items
                .iter()
                .filter(|i| i.kind == ItemKind::ChangedFile);
            self.blocks.push(Block::Notice(Note::Diff(DiffNote::Shown {
                shown: self.shown_files,
                files: files.count(),
                hunks: self.left_hunks,
                left_files: self.left_files.len(),
            })));
            self.blocks
                .push(Block::Next(Address::Item(self.left_files[0].clone())));
        }
    }

    /// Lines outside any block: the first few, then a marker.
    fn stray(&mut self, span: Span) {
        let kept = Span::new(span.first, span.last.min(span.first + STRAY_KEPT - 1));
        self.spent += self.span_cost(kept);
        self.blocks.push(Block::Raw(kept));
        if kept.last < span.last {
            let rest = Span::new(kept.last + 1, span.last);
            self.omit(Omitted::Lines, rest.len(), Address::Lines(rest));
        }
    }

    /// The detail of the files whose census lines were just planned, and
    /// the stray lines between them, in output order.
    fn flush(&mut self, pending: &mut Vec<usize>) {
        for i in std::mem::take(pending) {
            let item = &self.graph.items[i];
            match (item.kind, item.block) {
                (ItemKind::ChangedFile, _) => self.file_detail(item),
                (_, Some(span)) => self.stray(span),
                _ => {}
            }
        }
    }

    /// The file's header and whole hunks while they fit; a marker for the rest.
    fn file_detail(&mut self, item: &EvidenceItem) {
        let Some(header) = item.headline else { return };
        if self.compact {
            self.unshown.push(item.identity.clone());
            return;
        }
        // This file's own marker, if it needs one, is priced below.
        self.reserve = self.reserve.saturating_sub(self.marker_cost(item));
        let path = item.identity.clone();
        let header_cost = self.span_cost(header);
        let Some(&first) = item.detail.first() else {
            if self.fits(header_cost) {
                self.spent += header_cost;
                self.blocks.push(Block::Raw(header));
                self.shown_files += 1;
            } else {
                let what = Left::HeaderLinesOf { path: path.clone() };
                self.omit(Omitted::Items(what), header.len(), Address::Item(path));
            }
            return;
        };
        let mut shown = 0;
        if self.fits(header_cost + self.span_cost(first)) {
            self.spent += header_cost;
            self.blocks.push(Block::Raw(header));
            for hunk in &item.detail {
                let cost = self.span_cost(*hunk);
                if !self.fits(cost) {
                    break;
                }
                self.spent += cost;
                self.blocks.push(Block::Raw(*hunk));
                shown += 1;
            }
            self.shown_files += 1;
        }
        let left = item.detail.len() - shown;
        if left > 0 {
            self.left_hunks += left;
            self.left_files.push(path.clone());
            let what = Left::HunksOf { path: path.clone() };
            self.omit(Omitted::Items(what), left, Address::Item(path));
        }
    }

    /// The census exceeds the ceiling: files by top directory, exact counts.
    fn flood(&mut self) {
        self.rung = Rung::Flood;
        let mut groups: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
        let mut ids: Vec<&str> = Vec::new();
        for item in &self.graph.items {
            if !self.contract.requires(item) {
                continue;
            }
            if !ids.contains(&item.identity.as_str()) {
                ids.push(item.identity.as_str());
            }
            if item.kind != ItemKind::ChangedFile {
                continue;
            }
            let dir = match item.identity.split_once('/') {
                Some((top, _)) => top,
                None => ".",
            };
            let g = groups.entry(dir).or_default();
            let number = |k: &str| {
                item.fields
                    .get(k)
                    .and_then(|v| v.parse::<usize>().ok())
                    .unwrap_or(0)
            };
            g.0 += 1;
            g.1 += number("insertions");
            g.2 += number("deletions");
        }
        let mut ranked: Vec<(&str, (usize, usize, usize))> = groups.into_iter().collect();
        ranked.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(b.0)));
        self.notice(Note::Diff(DiffNote::Grouped {
            budget: self.budget.census,
        }));
        // Groups while they fit the budget, room kept for the count of the
        // rest and the `--items` marker.
        let mut named = 0;
        for (dir, (files, plus, minus)) in ranked.iter().take(FLOOD_GROUPS) {
            let note = Note::Diff(DiffNote::Directory {
                dir: (*dir).to_string(),
                files: *files,
                insertions: *plus,
                deletions: *minus,
            });
            let cost = crate::render::notice_tokens(&note, self.artifact, self.graph);
            if named > 0 && self.spent + cost + 2 * super::MARKER_TOKENS > self.budget.census {
                break;
            }
            self.notice(note);
            named += 1;
        }
        if ranked.len() > named {
            self.notice(Note::Diff(DiffNote::MoreDirectories {
                count: ranked.len() - named,
            }));
        }
        let n = ids.len();
        self.omit(
            Omitted::Items(Left::FilesAndCommits),
            n,
            Address::Items(None),
        );
    }

    fn finish(self) -> DeliveryPlan {
        let mut blocks = self.blocks;
        blocks.push(Block::Footer);
        let why = match self.rung {
            Rung::Flood => "the file census exceeds the budget: grouped",
            Rung::Dense => "every file; whole hunks while the budget allows",
            _ => "every file and every hunk",
        };
        DeliveryPlan {
            rung: self.rung,
            outcome: None,
            blocks,
            omissions: self.omissions,
            budget: self.budget.target,
            estimate: self.spent,
            why: why.to_string(),
        }
    }
}

/// `A-B` as written by the extractor into a field.
fn span_of(text: &str) -> Option<Span> {
    let (a, b) = text.split_once('-')?;
    let (a, b) = (a.parse().ok()?, b.parse().ok()?);
    (a >= 1 && a <= b).then(|| Span::new(a, b))
}
