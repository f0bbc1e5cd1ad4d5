//! Planning for data sets (JSON documents, JSON Lines, tables), whose
//! census is the anomalous records. Required at every budget: the exact
//! totals (header), every collection with its exact length, and every
//! anomaly — whole while they fit the ceiling, then by identity and
//! reason, then grouped by reason with exact counts behind `--items`.
//! Preferred while the target allows: the document's identity fields,
//! per-field or per-column statistics, and the deterministic samples (the
//! first and last records), disclosed as "N of M shown".
//!
//! A table's header and rows are raw lines, so the rows shown keep their
//! alignment; every gap between rows is one marker with its `--lines`
//! address. A JSON record is shown on a `[ctx]` line as its minified text
//! (the same value), with its pointer for `--item`.

use crate::artifact::{Artifact, Span};
use crate::contract::Contract;
use crate::evidence::{EvidenceGraph, EvidenceItem, ItemKind, Severity};
use crate::normalize;
use crate::render::{count, counted};
use crate::tokens;

use super::{
    Address, Block, Budget, DeliveryPlan, FRAME_TOKENS, MARKER_TOKENS, Omission, Omitted, Rung,
};

/// The contract decision unit planned here (contracts/json.toml, table.toml).
pub const DECISION_UNIT: &str = "record";

/// Characters of a large sample's opening.
const SAMPLE_CHARS: usize = 240;
/// Anomaly reasons a FLOOD note names before "… N more".
const TOP_REASONS: usize = 12;

fn role(item: &EvidenceItem) -> &str {
    item.fields.get("role").map_or("", String::as_str)
}

fn get<'g>(item: &'g EvidenceItem, key: &str) -> &'g str {
    item.fields.get(key).map_or("", String::as_str)
}

struct Planner<'a> {
    artifact: &'a Artifact,
    blocks: Vec<Block>,
    omissions: Vec<Omission>,
    spent: usize,
    rung: Rung,
}

impl Planner<'_> {
    fn cost(text: &str) -> usize {
        tokens::estimate(text.as_bytes()) + 2
    }

    fn line_cost(&self, n: usize) -> usize {
        tokens::estimate(normalize::line(self.artifact.line(n)).as_bytes()) + 1
    }

    /// Pushes a note when it fits under `limit`.
    fn note(&mut self, text: String, limit: usize) -> bool {
        // A value quoted on a ctx line stays on that line.
        let text = if text.contains(['\n', '\r']) {
            text.replace('\n', "\\n").replace('\r', "\\r")
        } else {
            text
        };
        let c = Self::cost(&text);
        if self.spent + c > limit {
            return false;
        }
        self.spent += c;
        self.blocks.push(Block::Note(text));
        true
    }

    fn omit(&mut self, what: Omitted, n: usize, address: Address) {
        self.spent += MARKER_TOKENS;
        self.omissions.push(Omission {
            what,
            count: n,
            address,
        });
        self.blocks.push(Block::Marker(self.omissions.len() - 1));
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
        return super::lines::plan_with(artifact, graph, budget.target, raw_tokens);
    }
    let mut p = Planner {
        artifact,
        blocks: vec![Block::Header],
        omissions: Vec::new(),
        spent: FRAME_TOKENS,
        rung: Rung::Dense,
    };
    let mut why = "shape, exact counts, every anomaly; statistics and samples while they fit";
    if let Some(lossless) = graph.items.iter().find(|i| role(i) == "lossless") {
        let doc = get(lossless, "value");
        if p.spent + Planner::cost(doc) + 30 <= budget.target {
            p.note(
                "json minified losslessly (the same value; keys and numbers as written):".into(),
                usize::MAX,
            );
            p.note(doc.to_string(), usize::MAX);
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
    identity(&mut p, graph, budget);
    let collections: Vec<&EvidenceItem> = graph
        .items
        .iter()
        .filter(|i| role(i) == "collection")
        .collect();
    for c in &collections {
        p.note(collection_line(c), budget.ceiling);
    }
    let anomalies: Vec<&EvidenceItem> = graph
        .items
        .iter()
        .filter(|i| contract.requires(i))
        .collect();
    let stats: Vec<&EvidenceItem> = graph.items.iter().filter(|i| role(i) == "stats").collect();
    // Statistics get a share of the target before records do.
    let stats_room = p.spent + budget.target / 3;
    for s in &stats {
        if !p.note(stats_line(s), stats_room.min(budget.target)) {
            break;
        }
    }
    if let Some(t) = table {
        rows(&mut p, t, &anomalies, budget);
        if !anomalies.is_empty() {
            p.blocks.push(Block::Next(Address::Items(None)));
        }
    } else {
        why = json_records(&mut p, graph, &anomalies, &collections, budget);
    }
    p.blocks.push(Block::Footer);
    finish(p, budget, why)
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

fn identity(p: &mut Planner, graph: &EvidenceGraph, budget: Budget) {
    let ids: Vec<String> = graph
        .items
        .iter()
        .filter(|i| role(i) == "identity")
        .map(|i| format!("{} = {}", i.identity, get(i, "value")))
        .collect();
    if !ids.is_empty() {
        p.note(format!("identity: {}", ids.join(" · ")), budget.target);
    }
    for d in graph.items.iter().filter(|i| role(i) == "dependencies") {
        let n: usize = get(d, "count").parse().unwrap_or(0);
        let full = format!("{} ({}): {}", d.identity, count(n), get(d, "value"));
        if !p.note(full, budget.target) {
            p.note(
                format!(
                    "{} ({}): listed by --item {}",
                    d.identity,
                    count(n),
                    d.identity
                ),
                budget.ceiling,
            );
        }
    }
}

fn collection_line(c: &EvidenceItem) -> String {
    let n: usize = get(c, "length").parse().unwrap_or(0);
    let mut line = if role(c) == "collection" && get(c, "rows") == "true" {
        counted(n, "rows")
    } else {
        format!(
            "{}: {} ({})",
            c.identity,
            counted(n, "items"),
            get(c, "kinds")
        )
    };
    if let Some(v) = c.fields.get("values") {
        line.push_str(&format!(": {v}"));
    }
    let keys = get(c, "keys");
    if !keys.is_empty() {
        line.push_str(&format!(" · keys: {}", clip(keys, 400)));
    }
    line
}

fn stats_line(s: &EvidenceItem) -> String {
    let mut parts = vec![get(s, "types").to_string()];
    let (present, of) = (get(s, "present"), get(s, "of"));
    if present != of {
        parts.push(format!("present in {present} of {of}"));
    }
    if let Some(lo) = s.fields.get("min") {
        parts.push(format!(
            "min {lo} · max {} · mean {}",
            get(s, "max"),
            get(s, "mean")
        ));
    }
    if let Some(l) = s.fields.get("lengths") {
        parts.push(format!("lengths {l}"));
    }
    if let Some(d) = s.fields.get("distinct") {
        parts.push(format!("{d} distinct"));
        let top = get(s, "top");
        if !top.is_empty() {
            parts.push(format!("top: {top}"));
        }
    }
    if let Some(e) = s.fields.get("empty") {
        parts.push(format!("{e} empty"));
    }
    format!("{}: {}", s.identity, parts.join(" · "))
}

/// JSON records: anomalies whole within the ceiling, then by pointer and
/// reason, then grouped; samples within the target; the disclosure line.
fn json_records<'r>(
    p: &mut Planner,
    graph: &EvidenceGraph,
    anomalies: &[&EvidenceItem],
    collections: &[&EvidenceItem],
    budget: Budget,
) -> &'r str {
    let mut named: Vec<&EvidenceItem> = Vec::new();
    let mut left: Vec<&EvidenceItem> = Vec::new();
    let reserve = MARKER_TOKENS * 4;
    for a in anomalies {
        let reason = a.summary.as_deref().unwrap_or("");
        let whole = format!("{} ({reason}): {}", a.identity, get(a, "json"));
        if !left.is_empty() {
            left.push(a);
        } else if p.note(whole, budget.ceiling.saturating_sub(reserve))
            || p.note(
                format!("{} ({reason}): whole by --item", a.identity),
                budget.ceiling.saturating_sub(reserve),
            )
        {
            named.push(a);
        } else {
            left.push(a);
        }
    }
    if !left.is_empty() {
        p.rung = Rung::Flood;
        p.note(
            format!("anomalies by reason: {}", reasons(&left)),
            usize::MAX,
        );
        p.omit(
            Omitted::Items("more anomalies".into()),
            left.len(),
            Address::Items(None),
        );
    }
    let samples: Vec<&EvidenceItem> = graph
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::Record && i.severity == Severity::Info)
        .collect();
    let mut shown_samples = 0;
    for s in &samples {
        let json = get(s, "json");
        let whole = format!("{}: {json}", s.identity);
        // A sample too large to show whole is shown by its opening only,
        // said so on its line: never passed off as the whole item.
        let opening = format!(
            "{} (opening {SAMPLE_CHARS} chars; whole by --item): {}",
            s.identity,
            clip(json, SAMPLE_CHARS)
        );
        let shown = if json.chars().count() > SAMPLE_CHARS * 2 {
            p.note(opening, budget.target)
        } else {
            p.note(whole, budget.target)
        };
        if !shown {
            break;
        }
        shown_samples += 1;
    }
    for c in collections {
        let len: usize = get(c, "length").parse().unwrap_or(0);
        let ptr = if c.identity == "/" {
            ""
        } else {
            c.identity.as_str()
        };
        let in_c = |i: &&&EvidenceItem| get(i, "collection") == ptr;
        let a = named.iter().filter(in_c).count();
        let s = samples[..shown_samples].iter().filter(in_c).count();
        let shown = a + s;
        if len == 0 || shown >= len || c.fields.contains_key("values") {
            continue;
        }
        p.note(
            format!(
                "{}: {} of {} shown ({} samples, {})",
                c.identity,
                count(shown),
                count(len),
                count(s),
                anomalies_word(a)
            ),
            usize::MAX,
        );
        p.omit(
            Omitted::Items("more items".into()),
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

/// `status failed ×12, no version ×3, …` by the first word pair of each reason.
fn reasons(items: &[&EvidenceItem]) -> String {
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
    let mut parts: Vec<String> = groups
        .iter()
        .take(TOP_REASONS)
        .map(|(r, n)| format!("{r} ×{}", count(*n)))
        .collect();
    if groups.len() > TOP_REASONS {
        parts.push(format!(
            "… {} more reasons",
            count(groups.len() - TOP_REASONS)
        ));
    }
    parts.join(", ")
}

/// Table rows: every anomalous row (within the ceiling), then the first
/// and last rows while the target allows, in table order; each gap one
/// marker with its `--lines` address.
fn rows(p: &mut Planner, table: &EvidenceItem, anomalies: &[&EvidenceItem], budget: Budget) {
    let rows: Vec<usize> = table.detail.iter().flat_map(|s| s.first..=s.last).collect();
    let mut keep = vec![false; rows.len()];
    let pos = |line: usize| rows.binary_search(&line).ok();
    let mut left = 0usize;
    let reserve = MARKER_TOKENS * 6;
    for a in anomalies {
        let Some(i) = a.headline.and_then(|h| pos(h.first)) else {
            continue;
        };
        let c = p.line_cost(rows[i]);
        if left > 0 || p.spent + c + reserve > budget.ceiling {
            left += 1;
            continue;
        }
        p.spent += c;
        keep[i] = true;
    }
    // First and last rows, alternating, while the target allows, less a
    // marker for each gap the kept rows may leave.
    let gaps = keep.iter().filter(|k| **k).count() + 2;
    let target = budget.target.saturating_sub(MARKER_TOKENS * gaps);
    let (mut lo, mut hi) = (0usize, rows.len());
    let mut front = true;
    while lo < hi {
        let i = if front { lo } else { hi - 1 };
        if !keep[i] {
            let c = p.line_cost(rows[i]);
            if p.spent + c > target {
                break;
            }
            p.spent += c;
            keep[i] = true;
        }
        if front {
            lo += 1;
        } else {
            hi -= 1;
        }
        front = !front;
    }
    let mut i = 0;
    while i < rows.len() {
        let start = i;
        let kept = keep[i];
        while i < rows.len() && keep[i] == kept && (i == start || rows[i] == rows[i - 1] + 1) {
            i += 1;
        }
        let span = Span::new(rows[start], rows[i - 1]);
        if kept {
            p.blocks.push(Block::Raw(span));
        } else {
            p.omit(Omitted::Lines, i - start, Address::Lines(span));
        }
    }
    let shown = keep.iter().filter(|k| **k).count();
    let a = anomalies.len() - left;
    p.note(
        format!(
            "{} of {} rows shown ({} first/last, {})",
            count(shown),
            count(rows.len()),
            count(shown - a.min(shown)),
            anomalies_word(a)
        ),
        usize::MAX,
    );
    if left > 0 {
        p.rung = Rung::Flood;
        p.note(
            format!(
                "anomalies by reason: {}",
                reasons(&anomalies[anomalies.len() - left..])
            ),
            usize::MAX,
        );
        p.omit(
            Omitted::Items("more anomalous rows".into()),
            left,
            Address::Items(None),
        );
    }
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.push('…');
    out
}

/// `1 anomaly`, `7 anomalies` (the shared plural rule would cut the `s`).
fn anomalies_word(n: usize) -> String {
    if n == 1 {
        "1 anomaly".into()
    } else {
        format!("{} anomalies", count(n))
    }
}
