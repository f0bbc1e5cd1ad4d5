//! Line selection for output read as lines (text/v1, and any family that
//! falls back to raw text): collapse runs of identical lines, then keep the
//! lines that name census findings, the decisive tail, the decisive lines
//! of the middle and the head, in that order of priority, and declare
//! every removed region with one marker — and the census findings whose
//! lines did not fit with one marker naming `--items`.

use std::borrow::Cow;
use std::cell::Cell;

use crate::artifact::{Artifact, Span};
use crate::contract::{Contract, Noun};
use crate::evidence::{EvidenceGraph, ItemKind};
use crate::normalize;
use crate::tokens;

use super::{
    Address, Block, CensusEntry, CensusForm, DeliveryPlan, Left, MARKER_TOKENS, Omission, Omitted,
    Rung, frame_tokens,
};

/// A run of identical lines is collapsed when it is at least this long.
const MIN_RUN: usize = 3;

/// Shares of the budget, in percent, for the tail and the decisive middle;
/// the head gets what is left.
const TAIL_SHARE: usize = 45;
const DECISIVE_SHARE: usize = 30;
/// The share the lines naming census findings may take before the rest
/// are counted by one `--items` marker. Taken first: a finding is what
/// the reader acts on; the tail, the decisive lines and the head get their
/// shares of what is left.
const CENSUS_SHARE: usize = 50;

/// The findings a plan must name or count: the graph's census items (by
/// index, in the order they occur) and the noun a marker counts them in.
pub struct Census<'a> {
    pub indices: Vec<usize>,
    pub unit: &'a Noun,
    /// What the census alone may cost (the budget's ceiling): like every
    /// family's, it is exempt from the share of the raw output a digest
    /// otherwise aims at (`plan::MAX_SHARE_PERCENT`).
    pub ceiling: usize,
}

impl<'a> Census<'a> {
    /// The contract's census of `graph`, allowed up to `ceiling` tokens.
    pub fn of(contract: &'a Contract, graph: &EvidenceGraph, ceiling: usize) -> Self {
        Census {
            indices: contract.census_indices(graph),
            unit: contract.census_unit(graph),
            ceiling,
        }
    }
}

/// The artifact's lines as the planner sees them. Normalized text and
/// token costs are computed only for the lines a decision looks at: a
/// 100 MB log keeps a few hundred lines, and normalizing or pricing the
/// other million would dominate the digest's cost.
struct Lines<'a> {
    artifact: &'a Artifact,
    cost: Vec<Cell<u32>>,
    /// Line i (0-based) repeats line i-1 inside a collapsible run.
    collapsed: Vec<bool>,
    /// Tokens the collapsed lines would have cost.
    collapsed_cost: usize,
    /// Tokens of the digest's header and footer, as printed.
    frame: usize,
}

const UNPRICED: u32 = u32::MAX;

impl<'a> Lines<'a> {
    fn read(artifact: &'a Artifact, frame: usize) -> Self {
        let n = artifact.line_count();
        let mut lines = Lines {
            artifact,
            cost: vec![Cell::new(UNPRICED); n],
            collapsed: vec![false; n],
            collapsed_cost: 0,
            frame,
        };
        let mut start = 0;
        while start < n {
            let mut end = start + 1;
            while end < n && lines.same(start, end) {
                end += 1;
            }
            let repeats = end - start - 1;
            if end - start >= MIN_RUN && repeats * lines.cost(start) > MARKER_TOKENS {
                lines.collapsed[start + 1..end]
                    .iter_mut()
                    .for_each(|c| *c = true);
                lines.collapsed_cost += repeats * lines.cost(start);
            }
            start = end;
        }
        lines
    }

    fn len(&self) -> usize {
        self.collapsed.len()
    }

    fn text(&self, i: usize) -> Cow<'a, str> {
        normalize::line(self.artifact.line(i + 1))
    }

    /// Lines i and j look the same: equal bytes, or (when either holds an
    /// escape or a carriage return) equal visible text.
    fn same(&self, i: usize, j: usize) -> bool {
        let (a, b) = (self.artifact.line(i + 1), self.artifact.line(j + 1));
        if a == b {
            return true;
        }
        let styled = |l: &[u8]| memchr::memchr2(0x1b, b'\r', l).is_some();
        (styled(a) || styled(b)) && self.text(i) == self.text(j)
    }

    fn cost(&self, i: usize) -> usize {
        let cached = self.cost[i].get();
        if cached != UNPRICED {
            return cached as usize;
        }
        let cost = tokens::estimate(self.text(i).as_bytes()) + 1;
        self.cost[i].set(cost.min(UNPRICED as usize - 1) as u32);
        cost
    }
}

/// Plans a digest of `artifact` as lines within `budget` tokens.
/// No census: the fallback of a family whose own planner could not read
/// the output, whose guard checks its census.
pub fn plan(artifact: &Artifact, graph: &EvidenceGraph, budget: usize) -> DeliveryPlan {
    plan_with(
        artifact,
        graph,
        None,
        budget,
        tokens::estimate(artifact.bytes()),
    )
}

/// `plan`, holding the selection to `census` when there is one, with the
/// raw output's token estimate already at hand.
pub fn plan_with(
    artifact: &Artifact,
    graph: &EvidenceGraph,
    census: Option<Census>,
    budget: usize,
    raw_tokens: usize,
) -> DeliveryPlan {
    let lines = Lines::read(artifact, frame_tokens(artifact, graph));
    let n = lines.len();

    // Rung 1: only runs of identical lines collapsed. Priced exactly when
    // the output is near the budget; far above it, the raw estimate less
    // what collapsing saves is a safe upper bound.
    let kept: Vec<bool> = lines.collapsed.iter().map(|c| !c).collect();
    let estimate = if raw_tokens <= 4 * budget {
        digest_cost(&lines, &kept)
    } else {
        let markers = (1..n)
            .filter(|&i| lines.collapsed[i] && !lines.collapsed[i - 1])
            .count();
        lines.frame
            + (raw_tokens + n).saturating_sub(lines.collapsed_cost)
            + markers * MARKER_TOKENS
    };
    if estimate <= budget {
        return build(
            &lines,
            kept,
            Rung::Dense,
            budget,
            estimate,
            "runs of identical lines collapsed",
        );
    }

    // Rung 2: select the census findings, the tail, the decisive middle
    // and the head.
    let avail = budget.saturating_sub(lines.frame + MARKER_TOKENS);
    let longest = avail / 4;
    let eligible = |i: usize| !lines.collapsed[i] && lines.cost(i) <= longest;
    let mut kept = vec![false; n];
    let mut spent = 0usize;

    // First the lines that name census findings, in order, while their
    // share lasts; the rest are counted by one marker (priced here).
    let mut unnamed = 0usize;
    let mut named = 0usize;
    let mut listed: Option<Block> = None;
    let census_budget = avail * CENSUS_SHARE / 100;
    // The whole census as one compact block (`[ctx] census: …`, a line per
    // finding under its file) when it fits its share: every finding named
    // at a line each, where its raw line alone would cost a gap marker.
    if let Some(census) = census.as_ref().filter(|c| !c.indices.is_empty()) {
        let entries: Vec<CensusEntry> = census
            .indices
            .iter()
            .map(|&index| CensusEntry { index, times: 1 })
            .collect();
        let cost: usize = crate::render::census::compact(
            artifact,
            graph,
            &entries,
            &census.unit.many,
            CensusForm::Grouped,
        )
        .iter()
        .map(|l| tokens::estimate(l.text.as_bytes()) + 1)
        .sum();
        if cost <= census_budget.max(census.ceiling * CENSUS_SHARE / 100) {
            spent += cost;
            named = entries.len();
            listed = Some(Block::Census {
                entries,
                unit: census.unit.many.clone(),
                form: CensusForm::Grouped,
            });
        }
    }
    if let Some(census) = census.as_ref().filter(|_| listed.is_none()) {
        for &index in &census.indices {
            let Some(line) = graph.items[index].headline.map(|h| h.first - 1) else {
                unnamed += 1;
                continue;
            };
            if line >= n || lines.collapsed[line] {
                named += 1;
                continue;
            }
            let cost = lines.cost(line) + MARKER_TOKENS;
            if unnamed == 0 && eligible(line) && spent + cost + MARKER_TOKENS <= census_budget {
                kept[line] = true;
                spent += cost;
                named += 1;
            } else {
                unnamed += 1;
            }
        }
        if unnamed > 0 {
            spent += MARKER_TOKENS;
        }
    }

    // The decisive tail: where tools print their conclusion.
    let mut tail_from = n;
    let tail_budget = avail * TAIL_SHARE / 100;
    let mut tail_spent = 0;
    while tail_from > 0 {
        let i = tail_from - 1;
        if lines.collapsed[i] {
            tail_from -= 1;
            continue;
        }
        if kept[i] {
            tail_from -= 1;
            continue;
        }
        let cost = lines.cost(i);
        // The tail keeps its share when the census took more than its own.
        if !eligible(i)
            || tail_spent + cost > tail_budget
            || spent + tail_spent + cost > avail.max(spent + tail_budget)
        {
            break;
        }
        kept[i] = true;
        tail_spent += lines.cost(i);
        tail_from -= 1;
    }
    spent += tail_spent + repeat_markers(&lines, tail_from, n);

    // Decisive lines of the middle, alternating first and last, distinct texts.
    let decisive: Vec<usize> = graph
        .items
        .iter()
        .filter(|it| it.kind == ItemKind::DecisiveLine)
        .filter_map(|it| it.headline.map(|s| s.first - 1))
        .filter(|&i| i < tail_from && eligible(i))
        .collect();
    let decisive_budget = spent + avail * DECISIVE_SHARE / 100;
    let mut seen: std::collections::HashSet<Cow<str>> = std::collections::HashSet::new();
    let (mut lo, mut hi) = (0usize, decisive.len());
    let mut take_low = true;
    while lo < hi {
        let i = if take_low {
            lo += 1;
            decisive[lo - 1]
        } else {
            hi -= 1;
            decisive[hi]
        };
        take_low = !take_low;
        if !seen.insert(lines.text(i)) {
            continue;
        }
        let cost = lines.cost(i) + MARKER_TOKENS;
        if spent + cost > decisive_budget {
            break;
        }
        kept[i] = true;
        spent += cost;
    }

    // The head: what the command printed first (banners, the first error).
    let mut i = 0;
    while i < tail_from {
        if lines.collapsed[i] || kept[i] {
            i += 1;
            continue;
        }
        if !eligible(i) || spent + lines.cost(i) > avail {
            break;
        }
        kept[i] = true;
        spent += lines.cost(i);
        i += 1;
    }

    let estimate = digest_cost(&lines, &kept);
    let mut plan = build(
        &lines,
        kept,
        Rung::Dense,
        budget,
        estimate,
        "over budget: head, decisive lines and tail kept",
    );
    if let Some(block) = listed {
        // Under the header, before the lines it names.
        plan.blocks.insert(1, block);
    }
    if let Some(census) = census.filter(|_| unnamed > 0) {
        let unit = census.unit.clone();
        let left = if named > 0 {
            Left::MoreListed { unit }
        } else {
            Left::CountedNotNamed { unit }
        };
        plan.omissions.push(Omission {
            what: Omitted::Items(left),
            count: unnamed,
            address: Address::Items(None),
        });
        // Under the header, where the reader looks for what is missing.
        plan.blocks
            .insert(1, Block::Marker(plan.omissions.len() - 1));
        plan.estimate += MARKER_TOKENS;
    }
    plan
}

/// Markers the collapsed runs between `from` and `to` (0-based, half-open) need.
fn repeat_markers(lines: &Lines, from: usize, to: usize) -> usize {
    (from..to)
        .filter(|&i| lines.collapsed[i] && (i == 0 || !lines.collapsed[i - 1]))
        .count()
        * MARKER_TOKENS
}

/// The digest's estimated tokens: frame, kept lines, one marker per gap.
fn digest_cost(lines: &Lines, kept: &[bool]) -> usize {
    let mut total = lines.frame;
    for i in 0..lines.len() {
        if kept[i] {
            total += lines.cost(i);
        } else if i == 0 || kept[i - 1] {
            total += MARKER_TOKENS;
        }
    }
    total
}

/// Turns a keep-mask into blocks: kept lines as raw spans, every maximal
/// run of removed lines as exactly one omission with its marker.
fn build(
    lines: &Lines,
    kept: Vec<bool>,
    rung: Rung,
    budget: usize,
    estimate: usize,
    why: &str,
) -> DeliveryPlan {
    let n = lines.len();
    let mut blocks = vec![Block::Header];
    let mut omissions = Vec::new();
    let mut i = 0;
    while i < n {
        let start = i;
        let keep = kept[i];
        while i < n && kept[i] == keep {
            i += 1;
        }
        let span = Span::new(start + 1, i);
        if keep {
            blocks.push(Block::Raw(span));
        } else {
            // Collapsed lines each repeat the line before them, so a region
            // of only collapsed lines repeats the kept line it follows.
            let repeats =
                start > 0 && kept[start - 1] && lines.collapsed[start..i].iter().all(|&c| c);
            omissions.push(Omission {
                what: if repeats {
                    Omitted::Repeats
                } else {
                    Omitted::Lines
                },
                count: span.len(),
                address: Address::Lines(span),
            });
            blocks.push(Block::Marker(omissions.len() - 1));
        }
    }
    blocks.push(Block::Footer);
    DeliveryPlan {
        rung,
        outcome: None,
        blocks,
        omissions,
        budget,
        estimate,
        why: why.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Exit;
    use crate::profiles::{Profile, text::Text};

    fn plan_of(s: &str, budget: usize) -> DeliveryPlan {
        let a = Artifact::from_stdout(s.as_bytes().to_vec(), Exit::Code(1), vec![]);
        let (g, _) = Text.extract(&a);
        plan(&a, &g, budget)
    }

    #[test]
    fn repeats_collapse_with_exact_counts() {
        let text = format!("start\n{}end\n", "same line again and again\n".repeat(50));
        let p = plan_of(&text, 400);
        assert_eq!(p.omissions.len(), 1);
        assert_eq!(p.omissions[0].what, Omitted::Repeats);
        assert_eq!(p.omissions[0].count, 49);
        assert_eq!(p.omissions[0].address, Address::Lines(Span::new(3, 51)));
    }

    #[test]
    fn keeps_tail_and_middle_error() {
        let mut text = String::new();
        for i in 0..2000 {
            text.push_str(&format!("step {i} compiling module number {i}\n"));
            if i == 1000 {
                text.push_str("error: the decisive failure\n");
            }
        }
        text.push_str("build finished with 1 error\n");
        let p = plan_of(&text, 600);
        let n = 2002;
        let kept: Vec<usize> = p
            .blocks
            .iter()
            .filter_map(|b| match b {
                Block::Raw(s) => Some((s.first..=s.last).collect::<Vec<_>>()),
                _ => None,
            })
            .flatten()
            .collect();
        assert!(kept.contains(&n), "tail kept");
        assert!(kept.contains(&1002), "middle error kept");
        assert!(kept.contains(&1), "head kept");
        let omitted: usize = p.omissions.iter().map(|o| o.count).sum();
        assert_eq!(kept.len() + omitted, n);
        assert_eq!(p.marker_count(), p.omissions.len());
    }
}
