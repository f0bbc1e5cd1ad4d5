//! Planning for installs (npm, pnpm, yarn, pip, apt, go, bundle). A
//! failure's decisive lines come first, verbatim, right under the header;
//! then the lines that name what changed and the tool's own summary; a
//! note counts warnings by class and names their `--items` address; every
//! other run of lines is one marker with its `--lines` address. A success
//! is thus the header (its counts) and the lines naming the packages.
//!
//! Every line shown is a raw span, never rewritten; every line ctx adds is
//! a `[ctx]` note or marker.

use crate::artifact::{Artifact, Span};
use crate::contract::Contract;
use crate::delivery_plan::{InstallNote, Note};
use crate::evidence::{EvidenceGraph, ItemKind, Outcome, Severity};
use crate::normalize;
use crate::render::notes;
use crate::tokens;

use super::runs::runs;
use super::{
    Address, Block, Budget, DeliveryPlan, Left, MARKER_TOKENS, Omission, Omitted, Rung,
    frame_tokens,
};

pub fn plan(
    artifact: &Artifact,
    graph: &EvidenceGraph,
    contract: &Contract,
    budget: Budget,
) -> DeliveryPlan {
    let total = artifact.line_count();
    let cost = |n: usize| tokens::estimate(normalize::line(artifact.line(n)).as_bytes()) + 1;
    let mut keep = vec![false; total + 1];
    let mut blocks = vec![Block::Header];
    let mut omissions: Vec<Omission> = Vec::new();
    let mut spent = frame_tokens(artifact, graph);
    let mut rung = Rung::Dense;
    // The failures' lines first, in output order, while under the ceiling.
    let mut left = 0;
    for item in contract.census(graph) {
        let lines: Vec<usize> = item.detail.iter().map(|s| s.first).collect();
        let c: usize = lines.iter().map(|&n| cost(n)).sum();
        if left > 0 || spent + c + MARKER_TOKENS > budget.ceiling {
            left += 1;
            continue;
        }
        spent += c;
        for n in lines {
            if !keep[n] {
                keep[n] = true;
                blocks.push(Block::Raw(Span::line(n)));
            }
        }
    }
    merge_adjacent(&mut blocks);
    if left > 0 {
        rung = Rung::Flood;
        omissions.push(Omission {
            what: Omitted::Items(Left::More {
                unit: contract.census_unit(graph).clone(),
            }),
            count: left,
            address: Address::Items(None),
        });
        blocks.push(Block::Marker(omissions.len() - 1));
    }
    if let Some(note) = warnings_note(graph) {
        spent += tokens::estimate(notes::words(&note, artifact, graph).as_bytes()) + 2;
        blocks.push(Block::Notice(note));
        let next = Address::Items(Some("--severity warning".into()));
        spent += tokens::estimate(
            crate::render::next_line(crate::render::KEY_FOR_PRICING, &next).as_bytes(),
        ) + 1;
        blocks.push(Block::Next(next));
    }
    // What changed (the lines naming packages) and the tool's summary, in
    // order, while under the ceiling: they are the success's census.
    for s in &graph.conclusion {
        let n = s.first;
        if keep[n] || spent + cost(n) + MARKER_TOKENS > budget.ceiling {
            continue;
        }
        spent += cost(n);
        keep[n] = true;
        blocks.push(Block::Raw(Span::line(n)));
    }
    // Not a success and no failure line recognised (a cut output, an error
    // in a form not read): the tail of the output, where installers end
    // with their error, is shown as it is, never counts alone.
    if !matches!(graph.outcome, Outcome::Ok) && !keep.iter().any(|&k| k) {
        let mut first = total + 1;
        while first > 1 && spent + cost(first - 1) <= budget.target {
            first -= 1;
            spent += cost(first);
            keep[first] = true;
        }
        if first <= total {
            blocks.push(Block::Notice(Note::Install(InstallNote::NoFailureLine)));
            blocks.push(Block::Raw(Span::new(first, total)));
        }
    }
    merge_adjacent(&mut blocks);
    for (kept, span) in runs(&keep) {
        if !kept {
            omissions.push(Omission {
                what: Omitted::Lines,
                count: span.len(),
                address: Address::Lines(span),
            });
            blocks.push(Block::Marker(omissions.len() - 1));
            spent += crate::render::marker_tokens(&omissions[omissions.len() - 1]);
        }
    }
    blocks.push(Block::Footer);
    DeliveryPlan {
        rung,
        outcome: None,
        blocks,
        omissions,
        budget: budget.target,
        estimate: spent,
        why: "the failures' lines first, then what changed; the rest by --lines".to_string(),
    }
}

/// Adjacent single-line raw blocks as one span each run.
fn merge_adjacent(blocks: &mut Vec<Block>) {
    let mut out: Vec<Block> = Vec::with_capacity(blocks.len());
    for b in blocks.drain(..) {
        if let (Some(Block::Raw(prev)), Block::Raw(next)) = (out.last_mut(), &b)
            && next.first == prev.last + 1
        {
            prev.last = next.last;
            continue;
        }
        out.push(b);
    }
    *blocks = out;
}

/// The warnings by class (`3 warnings: deprecated ×2 · ERESOLVE ×1`).
fn warnings_note(graph: &EvidenceGraph) -> Option<Note> {
    let mut classes: Vec<(String, usize)> = Vec::new();
    let mut total = 0;
    for i in graph
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::Warning && i.severity == Severity::Warning)
    {
        total += 1;
        let class = i.class.as_deref().unwrap_or("warning");
        match classes.iter_mut().find(|c| c.0 == class) {
            Some(c) => c.1 += 1,
            None => classes.push((class.to_string(), 1)),
        }
    }
    (total > 0).then_some(Note::Install(InstallNote::Warnings { total, classes }))
}
