//! Planning for logs (log/v1), whose census is what went wrong: every
//! endpoint that answered 4xx/5xx with its exact count, and every error
//! event whole with its stack trace. Around them, the header's exact
//! counts (lines, requests by status class, events by level), the time
//! the log covers, the slowest requests, and the templates by count.
//!
//! - Failing endpoints: one note each, most requests first. Past a third of
//!   the ceiling they are counted by status with `--items --code STATUS`.
//! - Error events: every one whole while they fit the ceiling. Past it,
//!   the first event of each error template whole and the others counted
//!   per template (`--item TEMPLATE` prints them all); past that, the
//!   templates alone with their counts. A block longer than
//!   `LONG_BLOCK` lines keeps its head and last line, the middle by
//!   `--lines`.
//! - Slowest requests and templates fill what the target leaves; the
//!   templates not shown are counted behind `--items --code template`.
//!
//! Nothing here depends on a timestamp's value: the same log with other
//! times gives the same choices, counts and order.

use std::collections::HashMap;

use crate::artifact::{Artifact, Span};
use crate::contract::{Contract, Noun};
use crate::delivery_plan::{LogNote, Note};
use crate::evidence::{EvidenceGraph, EvidenceItem, ItemKind};
use crate::normalize;
use crate::render::notes;
use crate::tokens;

use super::{
    Address, Block, Budget, DeliveryPlan, Left, MARKER_TOKENS, Omission, Omitted, Rung,
    frame_tokens,
};

/// An error block longer than this keeps its head and its last line.
const LONG_BLOCK: usize = 40;
/// How many of a long block's first lines are kept.
const LONG_HEAD: usize = 30;
use crate::profiles::log::ERROR_EVENTS_FIELD;
pub use crate::profiles::log::TEMPLATE_CODE;
use crate::profiles::log::WARNING_FIELD;

pub fn plan(
    artifact: &Artifact,
    graph: &EvidenceGraph,
    contract: &Contract,
    budget: Budget,
) -> DeliveryPlan {
    let mut p = Planner {
        artifact,
        graph,
        contract,
        blocks: vec![Block::Header],
        omissions: Vec::new(),
        spent: frame_tokens(artifact, graph),
        rung: Rung::Dense,
    };
    let of = |kind: ItemKind| -> Vec<(usize, &EvidenceItem)> {
        graph
            .items
            .iter()
            .enumerate()
            .filter(|(_, i)| i.kind == kind)
            .collect()
    };
    if let Some((_, period)) = of(ItemKind::Period).first() {
        p.note(LogNote::Time {
            from: field(period, "from").to_string(),
            to: field(period, "to").to_string(),
        });
    }
    // Failing endpoints and error events are planned as far as the
    // contract requires them; one it does not require is left to `ctx
    // expand` (no log contract makes them preferred).
    let required = |kind: ItemKind| -> Vec<(usize, &EvidenceItem)> {
        of(kind)
            .into_iter()
            .filter(|(_, i)| contract.requires(i))
            .collect()
    };
    p.endpoints(&required(ItemKind::Endpoint), budget.census / 3);
    p.errors(&required(ItemKind::Diagnostic), budget);
    p.slowest(&of(ItemKind::SlowRequest), budget.target);
    p.templates(&of(ItemKind::LogTemplate), budget.target);
    p.blocks.push(Block::Footer);
    let why = match p.rung {
        Rung::Flood => "the error templates exceed the budget: counted behind --items past it",
        _ => "counts, failing endpoints and every error event; templates by count",
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

fn field<'a>(item: &'a EvidenceItem, key: &str) -> &'a str {
    item.fields.get(key).map_or("", String::as_str)
}

fn number(item: &EvidenceItem, key: &str) -> usize {
    field(item, key).parse().unwrap_or(0)
}

struct Planner<'a> {
    artifact: &'a Artifact,
    graph: &'a EvidenceGraph,
    contract: &'a Contract,
    blocks: Vec<Block>,
    omissions: Vec<Omission>,
    spent: usize,
    rung: Rung,
}

impl Planner<'_> {
    fn line_cost(&self, n: usize) -> usize {
        tokens::estimate(normalize::line(self.artifact.line(n)).as_bytes()) + 1
    }

    fn span_cost(&self, s: Span) -> usize {
        (s.first..=s.last).map(|n| self.line_cost(n)).sum()
    }

    /// Tokens of a note as the renderer words it.
    fn note_cost(&self, note: &LogNote) -> usize {
        let note = Note::Log(note.clone());
        tokens::estimate(notes::words(&note, self.artifact, self.graph).as_bytes()) + 2
    }

    fn note(&mut self, note: LogNote) {
        self.spent += self.note_cost(&note);
        self.blocks.push(Block::Notice(Note::Log(note)));
    }

    fn omit(&mut self, what: Omitted, n: usize, address: Address) {
        self.omissions.push(Omission {
            what,
            count: n,
            address,
        });
        self.blocks.push(Block::Marker(self.omissions.len() - 1));
        self.spent += crate::render::marker_tokens(&self.omissions[self.omissions.len() - 1]);
    }

    /// Every failing endpoint with its count, most requests first; past
    /// `room`, counted by status.
    fn endpoints(&mut self, endpoints: &[(usize, &EvidenceItem)], room: usize) {
        if endpoints.is_empty() {
            return;
        }
        let mut sorted: Vec<(usize, &EvidenceItem)> = endpoints.to_vec();
        sorted.sort_by(|(_, a), (_, b)| {
            number(b, "count")
                .cmp(&number(a, "count"))
                .then(number(a, "first").cmp(&number(b, "first")))
        });
        let notes: Vec<LogNote> = sorted
            .iter()
            .map(|&(index, _)| LogNote::Endpoint { index })
            .collect();
        let cost: usize = notes.iter().map(|n| self.note_cost(n)).sum();
        let requests: usize = sorted.iter().map(|(_, e)| number(e, "count")).sum();
        self.note(LogNote::FailingEndpoints {
            endpoints: sorted.len(),
            requests,
        });
        if self.spent + cost <= room {
            for n in notes {
                self.note(n);
            }
            return;
        }
        self.rung = Rung::Flood;
        let mut by_status: Vec<(String, usize, usize)> = Vec::new();
        for (_, e) in &sorted {
            let status = e.class.clone().unwrap_or_default();
            match by_status.iter_mut().find(|s| s.0 == status) {
                Some(s) => {
                    s.1 += 1;
                    s.2 += number(e, "count");
                }
                None => by_status.push((status, 1, number(e, "count"))),
            }
        }
        by_status.sort();
        for (status, endpoints, requests) in by_status {
            self.note(LogNote::ByStatus {
                status,
                endpoints,
                requests,
            });
        }
        self.omit(
            Omitted::Items(Left::CountedByStatus {
                unit: self
                    .contract
                    .noun_of(&self.graph.items[sorted[0].0])
                    .clone(),
            }),
            sorted.len(),
            Address::Items(None),
        );
    }

    /// Every error event whole while they fit the target; else the first
    /// of each template whole up to the ceiling and the rest counted per
    /// template: a repeated error's later copies add only their line
    /// numbers, which the count and `--item` keep.
    fn errors(&mut self, errors: &[(usize, &EvidenceItem)], budget: Budget) {
        let ceiling = budget.census;
        if errors.is_empty() {
            return;
        }
        let blocks: Vec<Span> = errors
            .iter()
            .map(|(_, e)| e.block.or(e.headline).unwrap_or(Span::line(1)))
            .collect();
        let all: usize = blocks.iter().map(|&b| self.block_cost(b)).sum();
        let distinct = errors
            .iter()
            .map(|(_, e)| e.identity.as_str())
            .collect::<std::collections::HashSet<_>>()
            .len();
        if self.spent + all <= budget.target
            || (distinct == errors.len() && self.spent + all <= ceiling)
        {
            for &b in &blocks {
                self.block(b);
            }
            return;
        }
        // Templates in order of first occurrence, with every event. Every
        // template named (by its first event whole, or by its text with its
        // count) is DENSE; FLOOD only once some are not even named.

        // Each template's first event (its index) and every event's lines.
        let mut order: Vec<(&str, usize)> = Vec::new();
        let mut events: HashMap<&str, Vec<Span>> = HashMap::new();
        for (&(index, e), &b) in errors.iter().zip(&blocks) {
            let id = e.identity.as_str();
            let list = events.entry(id).or_default();
            if list.is_empty() {
                order.push((id, index));
            }
            list.push(b);
        }
        // Past the extractor's cap the events are counted by template only:
        // every count here is then a lower bound, and says so.
        let of = errors
            .first()
            .and_then(|(_, e)| e.fields.get(ERROR_EVENTS_FIELD))
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&n| n > errors.len());
        let itemised = of.map(|_| errors.len());
        self.note(LogNote::ErrorTemplates {
            events: errors.len(),
            templates: order.len(),
            of,
        });
        let mut counted_only = 0;
        let mut silent = 0;
        for (id, index) in order {
            let list = &events[id];
            let first = list[0];
            // The marker of the template's other events names the template
            // in its address: priced as printed, with room for the marker
            // that would count the templates after it.
            let more = (list.len() > 1).then(|| Omission {
                what: Omitted::Items(Left::MoreOfTemplate {
                    total: list.len(),
                    last: list[list.len() - 1].first,
                    itemised,
                }),
                count: list.len() - 1,
                address: Address::Item(id.to_string()),
            });
            let marker = more.as_ref().map_or(0, crate::render::marker_tokens);
            let cost = self.block_cost(first) + marker + MARKER_TOKENS;
            if counted_only == 0 && self.spent + cost <= ceiling {
                self.block(first);
                if let Some(m) = more {
                    self.omit(m.what, m.count, m.address);
                }
                continue;
            }
            counted_only += 1;
            // A template counted with its text is still named (DENSE, its
            // events one `--item` away); FLOOD once one is not even named.
            let note = LogNote::CountedTemplate {
                index,
                events: list.len(),
                first: list[0].first,
                last: list[list.len() - 1].first,
                capped: of.is_some(),
            };
            if self.spent + self.note_cost(&note) + MARKER_TOKENS > ceiling {
                self.rung = Rung::Flood;
                silent += list.len();
                continue;
            }
            self.note(note);
        }
        if counted_only > 0 {
            // Templates only counted here are named in full by `--items`.
            let what = Left::TemplatesNotWhole { uncounted: silent };
            self.omit(Omitted::Items(what), counted_only, Address::Items(None));
        }
    }

    fn block_cost(&self, b: Span) -> usize {
        if b.len() > LONG_BLOCK {
            self.span_cost(Span::new(b.first, b.first + LONG_HEAD - 1))
                + self.line_cost(b.last)
                + MARKER_TOKENS
        } else {
            self.span_cost(b)
        }
    }

    /// An error event's lines; a long one keeps its head and last line.
    fn block(&mut self, b: Span) {
        self.spent += self.block_cost(b);
        if b.len() <= LONG_BLOCK {
            self.blocks.push(Block::Raw(b));
            return;
        }
        let head_end = b.first + LONG_HEAD - 1;
        self.blocks.push(Block::Raw(Span::new(b.first, head_end)));
        let middle = Span::new(head_end + 1, b.last - 1);
        self.omissions.push(Omission {
            what: Omitted::Lines,
            count: middle.len(),
            address: Address::Lines(middle),
        });
        self.blocks.push(Block::Marker(self.omissions.len() - 1));
        self.blocks.push(Block::Raw(Span::line(b.last)));
    }

    fn slowest(&mut self, slow: &[(usize, &EvidenceItem)], target: usize) {
        let Some(&(first, _)) = slow.first() else {
            return;
        };
        let lines: Vec<usize> = slow
            .iter()
            .filter_map(|(_, s)| s.headline)
            .map(|h| h.first)
            .collect();
        let cost: usize = lines.iter().map(|&n| self.line_cost(n)).sum::<usize>() + 12;
        if self.spent + cost > target {
            self.note(LogNote::SlowestRequest {
                index: first,
                line: lines[0],
            });
            return;
        }
        self.note(LogNote::SlowestRequests { count: slow.len() });
        for n in lines {
            self.spent += self.line_cost(n);
            self.blocks.push(Block::Raw(Span::line(n)));
        }
    }

    /// Templates by count while the target allows; the rest counted.
    fn templates(&mut self, templates: &[(usize, &EvidenceItem)], target: usize) {
        if templates.is_empty() {
            return;
        }
        // Warnings first (a warning is the next thing to read after the
        // errors, however rare), then by count.
        let warning = |t: &EvidenceItem| t.fields.contains_key(WARNING_FIELD);
        let mut sorted: Vec<(usize, &EvidenceItem)> = templates.to_vec();
        sorted.sort_by(|(_, a), (_, b)| {
            warning(b)
                .cmp(&warning(a))
                .then(number(b, "count").cmp(&number(a, "count")))
                .then(number(a, "first").cmp(&number(b, "first")))
        });
        let heading = LogNote::Templates {
            count: sorted.len(),
            warnings: sorted.iter().filter(|(_, t)| warning(t)).count(),
        };
        let first = LogNote::Template { index: sorted[0].0 };
        // Preferred: when not even the most frequent fits the target, the
        // templates are one marker.
        if self.spent + self.note_cost(&heading) + self.note_cost(&first) + MARKER_TOKENS > target {
            self.omit(
                Omitted::Items(Left::Counted {
                    unit: Noun::new("template", "templates"),
                }),
                sorted.len(),
                Address::Items(Some(format!("--code {TEMPLATE_CODE}"))),
            );
            return;
        }
        self.note(heading);
        let mut shown = 0;
        for &(index, _) in &sorted {
            let note = LogNote::Template { index };
            let cost = self.note_cost(&note);
            if self.spent + cost + MARKER_TOKENS > target && shown > 0 {
                break;
            }
            self.note(note);
            shown += 1;
        }
        if shown < sorted.len() {
            let lines: usize = sorted[shown..]
                .iter()
                .map(|(_, t)| number(t, "count"))
                .sum();
            self.omit(
                Omitted::Items(Left::MoreTemplates { lines }),
                sorted.len() - shown,
                Address::Items(Some(format!("--code {TEMPLATE_CODE}"))),
            );
        }
    }
}
