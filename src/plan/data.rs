//! Planning for data sets (JSON documents, JSON Lines, tables), whose
//! census is the anomalous records. Required at every budget: the exact
//! totals (header), every collection with its exact length, and every
//! anomaly — whole while they fit the budget as asked (`Budget::census`),
//! then by identity and reason, then grouped by reason with exact counts
//! behind `--items`. Statistics yield to a census that would fit without
//! them.
//! Preferred while the target allows: the document's identity fields,
//! per-field or per-column statistics, and the deterministic samples (the
//! first and last records), disclosed as "N of M shown".
//!
//! A table's header and rows are raw lines, so the rows shown keep their
//! alignment; every gap between rows is one marker with its `--lines`
//! address. A JSON record is shown on a `[ctx]` line as its minified text
//! (the same value), with its pointer for `--item`.

use crate::artifact::{Artifact, Span};
use crate::contract::{Contract, Noun};
use crate::delivery_plan::{DataNote, NamesShown, Note};
use crate::evidence::{EvidenceGraph, EvidenceItem, ItemKind, Severity};
use crate::normalize;
use crate::render::notes;
use crate::render::notes::data::SAMPLE_CHARS;
use crate::tokens;

use super::{
    Address, Block, Budget, DeliveryPlan, Left, MARKER_TOKENS, Omission, Omitted, Rung,
    frame_tokens,
};

/// The contract decision unit planned here (contracts/json.toml, table.toml).
pub const DECISION_UNIT: &str = "record";

fn role(item: &EvidenceItem) -> &str {
    item.fields.get("role").map_or("", String::as_str)
}

fn get<'g>(item: &'g EvidenceItem, key: &str) -> &'g str {
    item.fields.get(key).map_or("", String::as_str)
}

/// Items of `graph` with their index, as notes name them.
type Indexed<'g> = Vec<(usize, &'g EvidenceItem)>;

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
    fn cost(text: &str) -> usize {
        tokens::estimate(text.as_bytes()) + 2
    }

    /// Tokens of a note as the renderer words it.
    fn note_cost(&self, note: &DataNote) -> usize {
        let note = Note::Data(note.clone());
        Self::cost(&notes::words(&note, self.artifact, self.graph))
    }

    fn line_cost(&self, n: usize) -> usize {
        tokens::estimate(normalize::line(self.artifact.line(n)).as_bytes()) + 1
    }

    /// Pushes a note when it fits under `limit`.
    fn note(&mut self, note: DataNote, limit: usize) -> bool {
        let c = self.note_cost(&note);
        if self.spent + c > limit {
            return false;
        }
        self.spent += c;
        self.blocks.push(Block::Notice(Note::Data(note)));
        true
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
}

pub fn plan(
    artifact: &Artifact,
    graph: &EvidenceGraph,
    contract: &Contract,
    budget: Budget,
    raw_tokens: usize,
) -> DeliveryPlan {
    // Nothing was understood (a cut document, no table header): the head,
    // decisive lines and tail, as for any text.
    let read = graph
        .items
        .iter()
        .any(|i| matches!(role(i), "collection" | "table"));
    if !read {
        return super::lines::plan_with(artifact, graph, None, budget.target, raw_tokens);
    }
    let mut p = Planner {
        artifact,
        graph,
        contract,
        blocks: vec![Block::Header],
        omissions: Vec::new(),
        spent: frame_tokens(artifact, graph),
        rung: Rung::Dense,
    };
    let mut why = "shape, exact counts, every anomaly; statistics and samples while they fit";
    if let Some(index) = graph.items.iter().position(|i| role(i) == "lossless") {
        let doc = get(&graph.items[index], "value");
        if p.spent + Planner::cost(doc) + 30 <= budget.target {
            p.note(DataNote::LosslessHeading, usize::MAX);
            p.note(DataNote::Lossless { index }, usize::MAX);
            p.blocks.push(Block::Footer);
            return finish(
                p,
                budget,
                "the minified document fits the budget: printed whole",
            );
        }
    }
    let table = graph.items.iter().find(|i| role(i) == "table");
    if let Some(t) = table
        && let Some(h) = t.headline
    {
        p.spent += p.line_cost(h.first);
        p.blocks.push(Block::Raw(h));
    }
    let indexed = |keep: &dyn Fn(&EvidenceItem) -> bool| -> Indexed {
        graph
            .items
            .iter()
            .enumerate()
            .filter(|(_, i)| keep(i))
            .collect()
    };
    let collections = indexed(&|i| role(i) == "collection");
    let anomalies = indexed(&|i| contract.requires(i));
    // What is preferred (identity fields, keys, statistics) never pushes
    // out a census that would fit without it: the anomalies named and
    // every collection's length.
    let lengths: usize = collections
        .iter()
        .map(|&(index, _)| p.note_cost(&DataNote::CollectionLength { index }))
        .sum();
    // A names list costs at least its count and the marker of the names.
    let lists = graph.items.iter().filter(|i| role(i) == "names").count();
    let names_floor = if lists > 0 {
        MARKER_TOKENS + 20 * lists
    } else {
        0
    };
    let anomalies_cost = census_cost(&p, table, &anomalies, &collections);
    let preferred = budget
        .census
        .saturating_sub(anomalies_cost + lengths + names_floor);
    identity(&mut p, graph, budget, preferred);
    // Every collection's length is required; its keys while a share of
    // the census allows.
    let keys_room = (p.spent + budget.census / 3).min(preferred + lengths);
    for &(index, _) in &collections {
        if !p.note(DataNote::Collection { index }, keys_room) {
            p.note(DataNote::CollectionLength { index }, usize::MAX);
        }
    }
    // Statistics get a share of the target before records do; the
    // records' names come out of that share.
    let mut stats_room = (p.spent + budget.target / 3).min(preferred + lengths);
    if names(&mut p, graph, budget, collections.len()) {
        // The names' marker is priced on a placeholder key: a margin for
        // the printed one.
        stats_room = stats_room.saturating_sub(MARKER_TOKENS);
    }
    for (index, _) in indexed(&|i| role(i) == "stats") {
        if !p.note(DataNote::Stats { index }, stats_room.min(budget.target)) {
            break;
        }
    }
    if let Some(t) = table {
        rows(&mut p, t, &anomalies, anomalies_cost, budget);
        if !anomalies.is_empty() {
            p.blocks.push(Block::Next(Address::Items(None)));
        }
    } else {
        why = json_records(&mut p, &anomalies, &collections, budget);
    }
    p.blocks.push(Block::Footer);
    finish(p, budget, why)
}

/// What naming every anomaly costs at the least (a table's rows with the
/// markers between them, a document's pointers and reasons), with the
/// lines the digest closes with.
fn census_cost(
    p: &Planner,
    table: Option<&EvidenceItem>,
    anomalies: &Indexed,
    collections: &Indexed,
) -> usize {
    let Some(t) = table else {
        let pointers: usize = anomalies
            .iter()
            .map(|&(index, _)| p.note_cost(&DataNote::AnomalyByItem { index }))
            .sum();
        return pointers + collection_markers(collections) + NEXT_TOKENS;
    };
    table_census(p, t, anomalies)
}

/// What showing every anomalous row costs: the rows, a marker for each
/// gap they leave, and the closing lines.
fn table_census(p: &Planner, t: &EvidenceItem, anomalies: &Indexed) -> usize {
    let rows: Vec<usize> = t.detail.iter().flat_map(|s| s.first..=s.last).collect();
    let mut kept = Kept::new(rows.len());
    let mut cost = CLOSING_TOKENS;
    for a in anomalies {
        if let Some(i) = a.1.headline.and_then(|h| rows.binary_search(&h.first).ok()) {
            cost += p.line_cost(rows[i]);
            kept.keep(i);
        }
    }
    cost + kept.markers()
}

/// What closing a digest whose anomalies do not all fit costs at most:
/// the reasons of all of them, the `--items` marker and the closing lines.
fn flood_closing(p: &Planner, anomalies: &Indexed) -> usize {
    let all: Vec<&EvidenceItem> = anomalies.iter().map(|(_, a)| *a).collect();
    let reasons = DataNote::Reasons {
        reasons: reasons(&all),
    };
    p.note_cost(&reasons) + MARKER_TOKENS + CLOSING_TOKENS
}

/// What the markers of the collections not shown whole cost, priced on
/// their own counts and addresses.
fn collection_markers(collections: &Indexed) -> usize {
    collections
        .iter()
        .filter(|(_, c)| !c.fields.contains_key("values"))
        .map(|(_, c)| {
            let len: usize = get(c, "length").parse().unwrap_or(0);
            let what = Left::Counted {
                unit: Noun::new("item", "items"),
            };
            let omission = Omission {
                what: Omitted::Items(what),
                count: len,
                address: Address::Item(c.identity.clone()),
            };
            if len == 0 {
                0
            } else {
                crate::render::marker_tokens(&omission)
            }
        })
        .sum()
}

fn finish(p: Planner, budget: Budget, why: &str) -> DeliveryPlan {
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

fn identity(p: &mut Planner, graph: &EvidenceGraph, budget: Budget, preferred: usize) {
    let ids: Vec<usize> = (0..graph.items.len())
        .filter(|&i| role(&graph.items[i]) == "identity")
        .collect();
    // Preferred, so a share of the target: the census comes after.
    if !ids.is_empty() {
        let limit = (p.spent + budget.target / 4).min(preferred);
        p.note(DataNote::Identity { indices: ids }, limit);
    }
    for index in (0..graph.items.len()).filter(|&i| role(&graph.items[i]) == "dependencies") {
        if !p.note(DataNote::Dependencies { index }, budget.target) {
            p.note(DataNote::DependenciesByItem { index }, budget.census);
        }
    }
}

/// Lists' record names (json/v1's `names` items): each list whole, else
/// its flagged records alone (pip's requested distributions), else its
/// count; every name left out is listed by `--items --code CODE` (the
/// list's `code`: each name is an item of that class). Names
/// are identities, so like a census they are priced against the budget as
/// asked (`census`), not the small output's share cut, less room for the
/// disclosures and markers that close the digest (`closing` collections).
/// True when some names were left out (a marker was placed).
fn names(p: &mut Planner, graph: &EvidenceGraph, budget: Budget, closing: usize) -> bool {
    let lists = graph.items.iter().filter(|i| role(i) == "names").count();
    // Each list may end counted, and the names left out are one marker.
    let reserve = (MARKER_TOKENS + 20) * (closing + 2) + 20 * lists;
    let limit = budget.census.saturating_sub(reserve);
    let mut left = 0usize;
    let mut code = "";
    for (index, list) in graph.items.iter().enumerate() {
        if role(list) != "names" {
            continue;
        }
        let n: usize = get(list, "count").parse().unwrap_or(0);
        let flagged: usize = get(list, "flagged_count").parse().unwrap_or(0);
        code = get(list, "code");
        let note = |shown| DataNote::Names { index, shown };
        if p.note(note(NamesShown::All), limit) {
            continue;
        }
        if flagged > 0 && p.note(note(NamesShown::Flagged), limit) {
            left += n - flagged;
        } else {
            // Counted where it fits a third of the target (statistics and the
            // closing disclosures still come); the marker below counts
            // every name left out either way.
            p.note(note(NamesShown::Counted), budget.target / 3);
            left += n;
        }
    }
    if left > 0 {
        p.omit(
            Omitted::Items(Left::MoreListed {
                unit: Noun::new("name", "names"),
            }),
            left,
            Address::Items(Some(format!("--code {code}"))),
        );
    }
    left > 0
}

/// JSON records: every anomaly within the census, whole while the ones
/// after it still fit by pointer and reason, else all by pointer, else as
/// many as fit with the rest grouped by reason behind `--items`; samples
/// within the target; each collection's "N of M shown" disclosure.
fn json_records<'r>(
    p: &mut Planner,
    anomalies: &Indexed,
    collections: &Indexed,
    budget: Budget,
) -> &'r str {
    let graph = p.graph;
    let mut named: Vec<&EvidenceItem> = Vec::new();
    let mut left: Vec<&EvidenceItem> = Vec::new();
    // Every collection not shown whole closes with its marker, the digest
    // with its `--items` hop.
    let closing = collection_markers(collections) + NEXT_TOKENS;
    let whole: Vec<usize> = anomalies
        .iter()
        .map(|&(index, _)| p.note_cost(&DataNote::Anomaly { index }))
        .collect();
    let by_item: Vec<usize> = anomalies
        .iter()
        .map(|&(index, _)| p.note_cost(&DataNote::AnomalyByItem { index }))
        .collect();
    // Each anomaly whole while the ones after it still fit by pointer,
    // else by pointer while the rest do too or room stays for the reasons
    // and the `--items` marker; the rest grouped by reason.
    let mut after: usize = by_item.iter().sum();
    let flood = flood_closing(p, anomalies);
    for (k, &(index, a)) in anomalies.iter().enumerate() {
        after -= by_item[k];
        let room = |cost: usize, spent: usize| {
            spent + cost + after + closing <= budget.census
                || spent + cost + closing + flood <= budget.census
        };
        if !left.is_empty() {
            left.push(a);
        } else if p.spent + whole[k] + after + closing <= budget.census {
            p.note(DataNote::Anomaly { index }, usize::MAX);
            named.push(a);
        } else if room(by_item[k], p.spent) {
            p.note(DataNote::AnomalyByItem { index }, usize::MAX);
            named.push(a);
        } else {
            left.push(a);
        }
    }
    if !left.is_empty() {
        p.rung = Rung::Flood;
        p.note(
            DataNote::Reasons {
                reasons: reasons(&left),
            },
            usize::MAX,
        );
        p.omit(
            Omitted::Items(Left::More {
                unit: p.contract.noun_of(left[0]).clone(),
            }),
            left.len(),
            Address::Items(None),
        );
    }
    let samples: Indexed = graph
        .items
        .iter()
        .enumerate()
        .filter(|(_, i)| i.kind == ItemKind::Record && i.severity == Severity::Info)
        .collect();
    let mut shown_samples = 0;
    for &(index, s) in &samples {
        // A sample too large to show whole is shown by its opening only,
        // said so on its line: never passed off as the whole item.
        let note = if get(s, "json").chars().count() > SAMPLE_CHARS * 2 {
            DataNote::SampleOpening { index }
        } else {
            DataNote::Sample { index }
        };
        let notes = collections.len() * SHOWN_NOTE_TOKENS;
        if !p.note(note, budget.target.saturating_sub(closing + notes)) {
            break;
        }
        shown_samples += 1;
    }
    for &(index, c) in collections {
        let len: usize = get(c, "length").parse().unwrap_or(0);
        let ptr = if c.identity == "/" {
            ""
        } else {
            c.identity.as_str()
        };
        let in_c = |i: &EvidenceItem| get(i, "collection") == ptr;
        let a = named.iter().filter(|i| in_c(i)).count();
        let s = samples[..shown_samples]
            .iter()
            .filter(|(_, i)| in_c(i))
            .count();
        let shown = a + s;
        if len == 0 || shown >= len || c.fields.contains_key("values") {
            continue;
        }
        // None shown: the marker alone says so, with its address.
        if shown > 0 {
            p.note(
                DataNote::CollectionShown {
                    index,
                    shown,
                    samples: s,
                    anomalies: a,
                },
                usize::MAX,
            );
        }
        let what = if shown > 0 {
            Left::MoreElements
        } else {
            Left::Counted {
                unit: Noun::new("item", "items"),
            }
        };
        p.omit(
            Omitted::Items(what),
            len - shown,
            Address::Item(c.identity.clone()),
        );
    }
    if !anomalies.is_empty() {
        p.blocks.push(Block::Next(Address::Items(None)));
    }
    if p.rung == Rung::Flood {
        "the anomalies exceed the ceiling: named while they fit, the rest grouped by reason"
    } else {
        "shape, exact counts, every anomaly whole; statistics and samples while they fit"
    }
}

/// Anomalies by the first clause of their reason, most first.
fn reasons(items: &[&EvidenceItem]) -> Vec<(String, usize)> {
    let mut groups: Vec<(String, usize)> = Vec::new();
    for i in items {
        let r = i.summary.as_deref().unwrap_or("anomaly");
        let key = r.split(';').next().unwrap_or(r).trim().to_string();
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1 += 1,
            None => groups.push((key, 1)),
        }
    }
    groups.sort_by_key(|g| std::cmp::Reverse(g.1));
    groups
}
/// Table rows: every anomalous row while the census allows (priced with
/// the marker each gap it opens costs), then the first and last rows
/// while the target allows, in table order; each gap one marker with its
/// `--lines` address. Anomalous rows past the census are grouped by reason
/// behind `--items`. `cost` is what showing every anomalous row costs
/// (`table_census`), priced once by the plan.
fn rows(p: &mut Planner, table: &EvidenceItem, anomalies: &Indexed, cost: usize, budget: Budget) {
    let rows: Vec<usize> = table.detail.iter().flat_map(|s| s.first..=s.last).collect();
    let pos = |line: usize| rows.binary_search(&line).ok();
    let at: Vec<Option<usize>> = anomalies
        .iter()
        .map(|(_, a)| a.headline.and_then(|h| pos(h.first)))
        .collect();
    // All of them when they fit with the closing lines; else as many as
    // fit with room for the reasons and the `--items` marker.
    let whole = p.spent + cost <= budget.census;
    let mut kept = Kept::new(rows.len());
    let limit = if whole {
        budget.census.saturating_sub(CLOSING_TOKENS)
    } else {
        budget.census.saturating_sub(flood_closing(p, anomalies))
    };
    let mut left = 0usize;
    for i in at.iter().flatten().copied() {
        let c = p.line_cost(rows[i]);
        if left > 0 || p.spent + kept.markers_if_kept(i) + c > limit {
            left += 1;
            continue;
        }
        p.spent += c;
        kept.keep(i);
    }
    // First and last rows, alternating, while the target allows (the gaps
    // the kept rows leave priced as markers).
    let target = budget.target.saturating_sub(CLOSING_TOKENS);
    let (mut lo, mut hi) = (0usize, rows.len());
    let mut front = true;
    while lo < hi {
        let i = if front { lo } else { hi - 1 };
        if !kept.is(i) {
            let c = p.line_cost(rows[i]);
            if p.spent + kept.markers_if_kept(i) + c > target {
                break;
            }
            p.spent += c;
            kept.keep(i);
        }
        if front {
            lo += 1;
        } else {
            hi -= 1;
        }
        front = !front;
    }
    let keep = kept.rows;
    let mut i = 0;
    while i < rows.len() {
        let start = i;
        let k = keep[i];
        while i < rows.len() && keep[i] == k && (i == start || rows[i] == rows[i - 1] + 1) {
            i += 1;
        }
        let span = Span::new(rows[start], rows[i - 1]);
        if k {
            p.blocks.push(Block::Raw(span));
        } else {
            p.omit(Omitted::Lines, i - start, Address::Lines(span));
        }
    }
    let shown = keep.iter().filter(|k| **k).count();
    let a = anomalies.len() - left;
    p.note(
        DataNote::RowsShown {
            shown,
            rows: rows.len(),
            first_last: shown - a.min(shown),
            anomalies: a,
        },
        usize::MAX,
    );
    if left > 0 {
        p.rung = Rung::Flood;
        let unnamed: Vec<&EvidenceItem> = anomalies[anomalies.len() - left..]
            .iter()
            .map(|(_, a)| *a)
            .collect();
        p.note(
            DataNote::Reasons {
                reasons: reasons(&unnamed),
            },
            usize::MAX,
        );
        p.omit(
            Omitted::Items(Left::More {
                unit: p.contract.noun_of(unnamed[0]).clone(),
            }),
            left,
            Address::Items(None),
        );
    }
}

/// Lines a data digest closes with when every anomaly is shown: the
/// rows-shown disclosure and the `--items` hop.
const CLOSING_TOKENS: usize = 50;

/// The `next:` line that closes a digest with a census.
const NEXT_TOKENS: usize = 20;

/// A collection's "N of M shown" line, printed when some were shown.
const SHOWN_NOTE_TOKENS: usize = 24;

/// Which rows of a table are kept, and how many gaps (one marker each)
/// they leave.
struct Kept {
    rows: Vec<bool>,
    gaps: usize,
}

impl Kept {
    fn new(n: usize) -> Kept {
        Kept {
            rows: vec![false; n],
            gaps: usize::from(n > 0),
        }
    }

    fn is(&self, i: usize) -> bool {
        self.rows[i]
    }

    /// The gaps left were row `i` kept too: one more when it splits a
    /// gap, one fewer when it fills one.
    fn gaps_if_kept(&self, i: usize) -> usize {
        if self.rows[i] {
            return self.gaps;
        }
        let before = i > 0 && !self.rows[i - 1];
        let after = i + 1 < self.rows.len() && !self.rows[i + 1];
        match (before, after) {
            (true, true) => self.gaps + 1,
            (false, false) => self.gaps.saturating_sub(1),
            _ => self.gaps,
        }
    }

    fn keep(&mut self, i: usize) {
        self.gaps = self.gaps_if_kept(i);
        self.rows[i] = true;
    }

    /// What the gaps' markers cost.
    fn markers(&self) -> usize {
        self.gaps * MARKER_TOKENS
    }

    /// What the gaps' markers would cost were row `i` kept too.
    fn markers_if_kept(&self, i: usize) -> usize {
        self.gaps_if_kept(i) * MARKER_TOKENS
    }
}
