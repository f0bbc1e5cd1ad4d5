//! The words of a data set's notes (`DataNote`). A value quoted on a ctx
//! line stays on that line: its newlines are escaped.

use crate::delivery_plan::{DataNote, NamesShown};
use crate::evidence::{EvidenceGraph, EvidenceItem};
use crate::words::{clip_chars, count, counted};

/// Characters of a large sample's opening.
pub const SAMPLE_CHARS: usize = 240;
/// Anomaly reasons a FLOOD note names before "… N more".
const TOP_REASONS: usize = 12;

pub fn words(note: &DataNote, graph: &EvidenceGraph) -> String {
    let text = unescaped(note, graph);
    if text.contains(['\n', '\r']) {
        text.replace('\n', "\\n").replace('\r', "\\r")
    } else {
        text
    }
}

fn unescaped(note: &DataNote, graph: &EvidenceGraph) -> String {
    let item = |i: &usize| graph.items.get(*i);
    let with = |i: &usize, f: &dyn Fn(&EvidenceItem) -> String| item(i).map(f).unwrap_or_default();
    match note {
        DataNote::LosslessHeading => {
            "json minified losslessly (the same value; keys and numbers as written):".into()
        }
        DataNote::Lossless { index } => with(index, &|i| get(i, "value").to_string()),
        DataNote::Identity { indices } => {
            let ids: Vec<String> = indices
                .iter()
                .filter_map(item)
                .map(|i| format!("{} = {}", i.identity, get(i, "value")))
                .collect();
            format!("identity: {}", ids.join(" · "))
        }
        DataNote::Dependencies { index } => with(index, &|d| {
            format!(
                "{} ({}): {}",
                d.identity,
                count(number(d, "count")),
                get(d, "value")
            )
        }),
        DataNote::DependenciesByItem { index } => with(index, &|d| {
            format!(
                "{} ({}): listed by --item {}",
                d.identity,
                count(number(d, "count")),
                d.identity
            )
        }),
        DataNote::Names { index, shown } => with(index, &|l| names(l, *shown)),
        DataNote::Collection { index } => with(index, &|c| collection(c, true)),
        DataNote::CollectionLength { index } => with(index, &|c| collection(c, false)),
        DataNote::Stats { index } => with(index, &stats),
        DataNote::Anomaly { index } => with(index, &|a| {
            format!("{} ({}): {}", a.identity, reason(a), get(a, "json"))
        }),
        DataNote::AnomalyByItem { index } => with(index, &|a| {
            format!("{} ({}): whole by --item", a.identity, reason(a))
        }),
        DataNote::Reasons { reasons } => {
            let mut parts: Vec<String> = reasons
                .iter()
                .take(TOP_REASONS)
                .map(|(r, n)| format!("{r} ×{}", count(*n)))
                .collect();
            if reasons.len() > TOP_REASONS {
                parts.push(format!(
                    "… {} more reasons",
                    count(reasons.len() - TOP_REASONS)
                ));
            }
            format!("anomalies by reason: {}", parts.join(", "))
        }
        DataNote::Sample { index } => {
            with(index, &|s| format!("{}: {}", s.identity, get(s, "json")))
        }
        DataNote::SampleOpening { index } => with(index, &|s| {
            format!(
                "{} (opening {SAMPLE_CHARS} chars; whole by --item): {}",
                s.identity,
                clip_chars(get(s, "json"), SAMPLE_CHARS)
            )
        }),
        DataNote::CollectionShown {
            index,
            shown,
            samples,
            anomalies,
        } => with(index, &|c| {
            format!(
                "{}: {} of {} shown ({} samples, {})",
                c.identity,
                count(*shown),
                count(number(c, "length")),
                count(*samples),
                anomalies_word(*anomalies)
            )
        }),
        DataNote::RowsShown {
            shown,
            rows,
            first_last,
            anomalies,
        } => format!(
            "{} of {} rows shown ({} first/last, {})",
            count(*shown),
            count(*rows),
            count(*first_last),
            anomalies_word(*anomalies)
        ),
    }
}

fn get<'g>(item: &'g EvidenceItem, key: &str) -> &'g str {
    item.fields.get(key).map_or("", String::as_str)
}

fn number(item: &EvidenceItem, key: &str) -> usize {
    get(item, key).parse().unwrap_or(0)
}

fn reason(item: &EvidenceItem) -> &str {
    item.summary.as_deref().unwrap_or("")
}

fn collection(c: &EvidenceItem, with_keys: bool) -> String {
    let n = number(c, "length");
    let role = get(c, "role");
    let mut line = if role == "collection" && get(c, "rows") == "true" {
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
    if with_keys && !keys.is_empty() {
        line.push_str(&format!(" · keys: {}", clip_chars(keys, 400)));
    }
    line
}

/// `/installed by metadata/name@metadata/version (98 names): 11
/// requested: trio@0.22.2, … · 87 others: …`; a nested list says whose it
/// is (`/packages/44/dependencies of ctx@0.1.0 (in /workspace_members)`).
fn names(l: &EvidenceItem, shown: NamesShown) -> String {
    let n = number(l, "count");
    let flagged = number(l, "flagged_count");
    let mut head = l.identity.clone();
    if let Some(owner) = l.fields.get("owner") {
        head.push_str(&format!(" of {owner} (in {})", get(l, "owner_by")));
    }
    head.push_str(&format!(" by {} ({})", get(l, "key"), counted(n, "names")));
    let flagged_part = |f: &String| format!("{} {f}: {}", count(flagged), get(l, "flagged"));
    match (shown, l.fields.get("flag")) {
        (NamesShown::Counted, _) | (NamesShown::Flagged, None) => head,
        (NamesShown::All, None) => format!("{head}: {}", get(l, "others")),
        (NamesShown::All, Some(f)) if flagged == n => format!("{head}: {}", flagged_part(f)),
        (NamesShown::All, Some(f)) => format!(
            "{head}: {} · {} others: {}",
            flagged_part(f),
            count(n - flagged),
            get(l, "others")
        ),
        (NamesShown::Flagged, Some(f)) => format!("{head}: {}", flagged_part(f)),
    }
}

fn stats(s: &EvidenceItem) -> String {
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

/// `1 anomaly`, `7 anomalies` (the shared plural rule would cut the `s`).
fn anomalies_word(n: usize) -> String {
    if n == 1 {
        "1 anomaly".into()
    } else {
        format!("{} anomalies", count(n))
    }
}
