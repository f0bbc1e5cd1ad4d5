//! Planning for CI job logs (ci_log/v1): the failing steps first, each
//! with its own output planned by the family that reads it and every
//! annotation it raised; then one line per step with its outcome and the
//! other steps' annotations.
//!
//! - A failing step's window (its lines after the step's header group)
//!   is planned as its family would plan it alone (`plan::resolve` with
//!   that family's contract), on the budget the required lines leave;
//!   its blocks are moved to the log's line numbers and item indices, its
//!   header becomes a `read as` note, its typed notes are worded against
//!   the window.
//! - Annotations are required: each is its raw line, or, when the
//!   window's plan left its line behind a marker, its census line. Past
//!   the budget as asked (errors) or the target (warnings, notices) the
//!   rest are counted behind `--items`.
//! - The step list is preferred: whole when it fits, else the steps that
//!   failed or raised annotations, the others counted behind `--items
//!   --code succeeded`.
//!
//! The plan reads the view (lines without timestamps): what it prices is
//! what is printed.

use crate::artifact::{Artifact, Exit, Span};
use crate::contract::{self, Contract, Noun};
use crate::delivery_plan::{CiLogNote, Header, Note};
use crate::evidence::{EvidenceGraph, EvidenceItem, ItemKind, Severity};
use crate::normalize;
use crate::profiles::ci_log::{
    self, CONTENT_FIRST, EXIT, FAILED, FAMILY, ITEMS_COUNT, ITEMS_FROM, NUMBER, SKIPPED, STEP,
    SUCCEEDED,
};
use crate::render;
use crate::tokens;

use super::{
    Address, Block, Budget, DeliveryPlan, Left, MARKER_TOKENS, Omission, Omitted, Rung,
    frame_tokens,
};

/// The least a window's digest is given, whatever the steps cost.
const WINDOW_FLOOR: usize = 256;

pub fn plan(
    artifact: &Artifact,
    graph: &EvidenceGraph,
    contract: &Contract,
    budget: Budget,
) -> DeliveryPlan {
    let mut p = Planner {
        artifact,
        graph,
        blocks: vec![Block::Header],
        omissions: Vec::new(),
        spent: frame_tokens(artifact, graph),
        shown: Vec::new(),
        hidden: Vec::new(),
        windows: Vec::new(),
    };
    let steps: Vec<usize> = of(graph, ItemKind::Step);
    let annotations: Vec<usize> = of(graph, ItemKind::Annotation);
    let windows: Vec<usize> = steps
        .iter()
        .copied()
        .filter(|&i| graph.items[i].fields.contains_key(FAMILY))
        .collect();
    p.windows = windows
        .iter()
        .filter_map(|&i| {
            let item = &graph.items[i];
            let first = field(item, CONTENT_FIRST)?;
            let last = item.block?.last;
            (first <= last).then(|| (i, Span::new(first, last)))
        })
        .collect();
    let first: Vec<usize> = steps
        .iter()
        .copied()
        .filter(|&i| contract.requires(&graph.items[i]) || windows.contains(&i))
        .collect();

    // What must be printed whatever the windows cost.
    let required: usize = first
        .iter()
        .map(|&i| {
            p.note_cost(&CiLogNote::Step {
                index: i,
                top: true,
            })
        })
        .sum::<usize>()
        + annotations
            .iter()
            .map(|&i| p.line_cost(graph.items[i].headline.map_or(1, |h| h.first)))
            .sum::<usize>()
        + MARKER_TOKENS * 2;
    let frame = frame_tokens(artifact, graph);
    let left = budget.target.saturating_sub(frame + required);
    let per_window = (left / windows.len().max(1)).max(WINDOW_FLOOR);

    // Error annotations are the failure's own words, as a failing step's
    // census is: exempt from the budget up to half the ceiling. Warnings
    // and notices fit the budget as asked, less room for the error
    // annotations still to come and the closing markers; past it they are
    // counted behind `--items`.
    let mut room = Room {
        errors: budget.ceiling / 2,
        others: budget.census.saturating_sub(MARKER_TOKENS * 3),
        owed: annotations
            .iter()
            .map(|&a| &graph.items[a])
            .filter(|a| a.severity == Severity::Error)
            .map(|a| p.line_cost(a.headline.map_or(1, |h| h.first)))
            .sum(),
    };
    let mut unshown_annotations: Vec<usize> = Vec::new();
    for &i in &first {
        p.note(CiLogNote::Step {
            index: i,
            top: true,
        });
        if windows.contains(&i) {
            // The window's detail gets what the log's budget as asked
            // leaves after the lines still owed (never raised to its own
            // family's floor past it); its census keeps the floor.
            let owed = room.owed + MARKER_TOKENS * 2;
            let detail = per_window.min(budget.census.saturating_sub(p.spent + owed));
            p.window(i, detail, left.max(per_window));
        }
        p.annotations(i, &annotations, &mut room, &mut unshown_annotations);
    }

    // The step list: whole when it fits what the target leaves.
    let list: Vec<usize> = steps
        .iter()
        .copied()
        .filter(|i| !first.contains(i))
        .collect();
    let list_cost: usize = list
        .iter()
        .map(|&i| {
            p.note_cost(&CiLogNote::Step {
                index: i,
                top: false,
            })
        })
        .sum();
    let whole = p.spent + list_cost <= budget.target;
    let mut left_out = Vec::new();
    let raised = |i: usize| {
        annotations
            .iter()
            .any(|&a| step_of(&graph.items[a]) == number(&graph.items[i]))
    };
    let (one, many) = nouns(graph);
    if whole && !list.is_empty() {
        p.note(CiLogNote::AllSteps { steps: steps.len() });
    } else if list.iter().any(|&i| raised(i)) {
        p.note(CiLogNote::StepsWithAnnotations);
    }
    for &i in &list {
        if whole || raised(i) {
            p.note(CiLogNote::Step {
                index: i,
                top: false,
            });
            p.annotations(i, &annotations, &mut room, &mut unshown_annotations);
        } else {
            left_out.push(i);
        }
    }
    // Each class left out behind its own filter: a skipped step is not
    // one that succeeded. A failed step is left out only when the contract
    // does not require it up front: then it is only not named.
    let unit = Noun::new(one, many);
    let failed = left_out
        .iter()
        .filter(|&&i| is_failed(&graph.items[i]))
        .count();
    if failed > 0 {
        p.omit(
            Omitted::Items(Left::NotNamed { unit: unit.clone() }),
            failed,
            Address::Items(None),
        );
    }
    let classes = [
        (SUCCEEDED, Left::OtherSucceeded { unit: unit.clone() }),
        (SKIPPED, Left::OtherSkipped { unit }),
    ];
    for (class, left) in classes {
        let n = left_out
            .iter()
            .filter(|&&i| graph.items[i].class.as_deref() == Some(class))
            .count();
        if n > 0 {
            p.omit(
                Omitted::Items(left),
                n,
                Address::Items(Some(format!("--code {class}"))),
            );
        }
    }
    // Annotations the contract requires stand for census identities in
    // their count; any other is only not named.
    let (required, other): (Vec<usize>, Vec<usize>) = unshown_annotations
        .into_iter()
        .partition(|&a| contract.requires(&graph.items[a]));
    let unit = || Noun::new("annotation", "annotations");
    if !required.is_empty() {
        p.omit(
            Omitted::Items(Left::Counted { unit: unit() }),
            required.len(),
            Address::Items(None),
        );
    }
    if !other.is_empty() {
        p.omit(
            Omitted::Items(Left::NotNamed { unit: unit() }),
            other.len(),
            Address::Items(None),
        );
    }
    p.blocks.push(Block::Footer);
    DeliveryPlan {
        rung: Rung::Dense,
        outcome: None,
        blocks: p.blocks,
        omissions: p.omissions,
        budget: budget.target,
        estimate: p.spent,
        why: "the failing steps with their family's digest and every annotation; the steps by outcome"
            .into(),
    }
}

/// What the annotations may bring the digest to: the errors, the others.
struct Room {
    errors: usize,
    others: usize,
    /// What the error annotations not placed yet cost.
    owed: usize,
}

fn of(graph: &EvidenceGraph, kind: ItemKind) -> Vec<usize> {
    (0..graph.items.len())
        .filter(|&i| graph.items[i].kind == kind)
        .collect()
}

fn is_failed(item: &EvidenceItem) -> bool {
    item.class.as_deref() == Some(FAILED)
}

fn number(item: &EvidenceItem) -> &str {
    item.fields.get(NUMBER).map_or("", String::as_str)
}

fn step_of(item: &EvidenceItem) -> &str {
    item.fields.get(STEP).map_or("", String::as_str)
}

fn field(item: &EvidenceItem, key: &str) -> Option<usize> {
    item.fields.get(key).and_then(|v| v.parse().ok())
}

/// `step`/`steps`, GitLab's `section`/`sections`, Jenkins'
/// `stage`/`stages`.
fn nouns(graph: &EvidenceGraph) -> (&'static str, &'static str) {
    crate::profiles::ci_log::steps::nouns(graph.reader.tool().unwrap_or_default())
}

struct Planner<'a> {
    artifact: &'a Artifact,
    graph: &'a EvidenceGraph,
    blocks: Vec<Block>,
    omissions: Vec<Omission>,
    spent: usize,
    /// Lines a window's plan prints raw.
    shown: Vec<Span>,
    /// Lines a window's plan leaves behind a marker.
    hidden: Vec<Span>,
    /// Each window's step and lines.
    windows: Vec<(usize, Span)>,
}

impl Planner<'_> {
    fn line_cost(&self, n: usize) -> usize {
        tokens::estimate(normalize::line(self.artifact.line(n)).as_bytes()) + 1
    }

    /// Tokens of a note as the renderer words it.
    fn note_cost(&self, note: &CiLogNote) -> usize {
        let note = Note::CiLog(note.clone());
        tokens::estimate(render::notes::words(&note, self.artifact, self.graph).as_bytes()) + 3
    }

    fn note(&mut self, note: CiLogNote) {
        self.spent += self.note_cost(&note);
        self.blocks.push(Block::Notice(Note::CiLog(note)));
    }

    fn omit(&mut self, what: Omitted, count: usize, address: Address) {
        self.blocks.push(Block::Marker(self.omissions.len()));
        self.omissions.push(Omission {
            what,
            count,
            address,
        });
        self.spent += crate::render::marker_tokens(&self.omissions[self.omissions.len() - 1]);
    }

    /// The step's annotations, each its raw line (or its census line when
    /// the window's plan hid that line), while `room` allows.
    fn annotations(
        &mut self,
        step: usize,
        all: &[usize],
        room: &mut Room,
        unshown: &mut Vec<usize>,
    ) {
        let n = number(&self.graph.items[step]).to_string();
        for &a in all {
            let item = &self.graph.items[a];
            if step_of(item) != n {
                continue;
            }
            let Some(line) = item.headline.map(|h| h.first) else {
                continue;
            };
            if self.shown.iter().any(|s| s.contains(line)) {
                continue;
            }
            // A line another step's window plans (GitLab's `Job failed`,
            // told with the section it failed in, may stand in a runner
            // step that is a window too) is named by its census line, so
            // no line is printed twice; so is one a window's marker hides.
            let foreign = self
                .windows
                .iter()
                .any(|(w, span)| *w != step && span.contains(line));
            let as_item = foreign || self.hidden.iter().any(|s| s.contains(line));
            let cost = if as_item {
                let text = crate::render::census::item_line(self.artifact, item).text;
                tokens::estimate(text.as_bytes()) + 3
            } else {
                self.line_cost(line)
            };
            // An error is owed until it is placed; the others leave room
            // for the errors still to come.
            let limit = if item.severity == Severity::Error {
                room.owed = room.owed.saturating_sub(self.line_cost(line));
                room.errors
            } else {
                room.others.saturating_sub(room.owed)
            };
            if self.spent + cost > limit {
                unshown.push(a);
                continue;
            }
            self.spent += cost;
            if as_item {
                self.blocks.push(Block::Item {
                    index: a,
                    detail: false,
                });
            } else {
                self.blocks.push(Block::Raw(Span::line(line)));
            }
        }
    }

    /// The step's window, planned by its family on `target` tokens (its
    /// census on `census`, what the log's budget leaves), its blocks moved
    /// into the log.
    fn window(&mut self, step: usize, target: usize, census: usize) {
        let item = &self.graph.items[step];
        let (Some(first), Some(block), Some(from), Some(count)) = (
            field(item, CONTENT_FIRST),
            item.block,
            field(item, ITEMS_FROM),
            field(item, ITEMS_COUNT),
        ) else {
            return;
        };
        let family = item.fields.get(FAMILY).map_or("text", String::as_str);
        let exit = field(item, EXIT).map_or(Exit::Unknown, |c| Exit::Code(c as i32));
        let last = block.last;
        if first > last {
            return;
        }
        let w = ci_log::window::artifact(self.artifact, first, last, exit, false);
        let profile = ci_log::window_profile(family);
        let (graph, receipt) = profile.extract(&w);
        let Ok(contract) = contract::for_family(profile.family()) else {
            return;
        };
        // The window's items are the log's `from..from + count`: the same
        // extraction over the same lines. Anything else: its lines raw.
        if graph.items.len() != count {
            self.note(CiLogNote::LinesFollow { first, last });
            self.raw(Span::new(first, last));
            return;
        }
        let raw = tokens::estimate_bulk(w.bytes());
        // The window's detail takes its share of the log's budget; its
        // census may use all the log's budget leaves, since the failing
        // step's census is what the log is read for.
        let mut budget = Budget::from_contract(&contract, Some(target));
        budget.census = budget.census.max(census);
        budget.target = budget.target.min(target);
        let plan = super::resolve(&w, &graph, &receipt, &contract, budget, raw);
        self.note(CiLogNote::ReadAs(Header::of(&w, &graph, &plan)));
        if plan.rung == Rung::Verbatim {
            self.raw(Span::new(first, last));
            return;
        }
        let offset = first - 1;
        let moved = |s: Span| Span::new(s.first + offset, s.last + offset);
        let base = self.omissions.len();
        for o in &plan.omissions {
            let address = match &o.address {
                Address::Lines(s) => {
                    self.hidden.push(moved(*s));
                    Address::Lines(moved(*s))
                }
                other => other.clone(),
            };
            self.omissions.push(Omission {
                what: o.what.clone(),
                count: o.count,
                address,
            });
        }
        for b in plan.blocks {
            let block = match b {
                Block::Header | Block::Footer | Block::Delta(_) => continue,
                Block::Raw(s) => {
                    self.shown.push(moved(s));
                    Block::Raw(moved(s))
                }
                Block::Marker(i) => Block::Marker(base + i),
                Block::Item { index, detail } => Block::Item {
                    index: from + index,
                    detail,
                },
                Block::Census {
                    entries,
                    unit,
                    form,
                } => Block::Census {
                    form,
                    entries: entries
                        .into_iter()
                        .map(|mut e| {
                            e.index += from;
                            e
                        })
                        .collect(),
                    unit,
                },
                Block::Detail(i) => Block::Detail(from + i),
                // The window's items are the log's from `from` on.
                Block::Notice(note) => Block::Notice(note.shifted(from)),
                Block::Next(Address::Lines(s)) => Block::Next(Address::Lines(moved(s))),
                Block::Next(a) => Block::Next(a),
            };
            self.blocks.push(block);
        }
        self.spent += plan.estimate;
    }

    fn raw(&mut self, s: Span) {
        self.spent += (s.first..=s.last).map(|n| self.line_cost(n)).sum::<usize>();
        self.shown.push(s);
        self.blocks.push(Block::Raw(s));
    }
}
