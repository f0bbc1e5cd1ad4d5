//! The words of a log's notes (`LogNote`).

use crate::delivery_plan::LogNote;
use crate::evidence::{EvidenceGraph, EvidenceItem};
use crate::words::{clip_chars, count};

/// The characters of a template a note keeps.
const TEMPLATE_CHARS: usize = 160;

pub fn words(note: &LogNote, graph: &EvidenceGraph) -> String {
    let item = |i: &usize| graph.items.get(*i);
    match note {
        LogNote::Time { from, to } if from == to => format!("time: {from}"),
        LogNote::Time { from, to } => format!("time: {from} → {to}"),
        LogNote::FailingEndpoints {
            endpoints,
            requests,
        } => format!(
            "{} answered 4xx/5xx ({}):",
            count_word(*endpoints, "endpoint", "endpoints"),
            count_word(*requests, "request", "requests")
        ),
        LogNote::Endpoint { index } => item(index).map_or_else(String::new, |e| {
            format!(
                "  {} ×{} ({})",
                clip_chars(&e.identity, TEMPLATE_CHARS),
                count(number(e, "count")),
                lines_word(number(e, "first"), number(e, "last"))
            )
        }),
        LogNote::ByStatus {
            status,
            endpoints,
            requests,
        } => format!(
            "  {status}: {}, {}: --items --code {status}",
            count_word(*endpoints, "endpoint", "endpoints"),
            count_word(*requests, "request", "requests")
        ),
        LogNote::ErrorTemplates {
            events,
            templates,
            of: None,
        } => format!(
            "{} in {}: the first of each whole while they fit, the others counted",
            count_word(*events, "error event", "error events"),
            count_word(*templates, "template", "templates")
        ),
        LogNote::ErrorTemplates {
            events,
            templates,
            of: Some(of),
        } => format!(
            "the first {} of {} error events, in {}: the first of each whole while they fit, \
             the others counted; the events past them are counted only in the templates by count",
            count(*events),
            count(*of),
            count_word(*templates, "template", "templates")
        ),
        LogNote::CountedTemplate {
            index,
            events,
            first,
            last,
            capped,
        } => format!(
            "×{}{} {} ({}): {}",
            count(*events),
            if *capped { "+" } else { "" },
            if *events == 1 && !*capped {
                "event"
            } else {
                "events"
            },
            lines_word(*first, *last),
            clip_chars(
                item(index).map_or("", |i| i.identity.as_str()),
                TEMPLATE_CHARS
            )
        ),
        LogNote::SlowestRequest { index, line } => item(index).map_or_else(String::new, |r| {
            format!(
                "slowest request: {}s {} ({})",
                r.fields.get("seconds").map_or("", String::as_str),
                r.identity,
                lines_word(*line, *line)
            )
        }),
        LogNote::SlowestRequests { count: n } => format!("{} slowest requests:", count(*n)),
        LogNote::Templates {
            count: n,
            warnings: 0,
        } => format!("{} by count:", count_word(*n, "template", "templates")),
        LogNote::Templates { count: n, warnings } => format!(
            "{}, warnings first ({}), then by count:",
            count_word(*n, "template", "templates"),
            count(*warnings)
        ),
        LogNote::Template { index } => item(index).map_or_else(String::new, |t| {
            format!(
                "  ×{} ({}): {}",
                count(number(t, "count")),
                lines_word(number(t, "first"), number(t, "last")),
                clip_chars(&t.identity, TEMPLATE_CHARS)
            )
        }),
    }
}

fn number(item: &EvidenceItem, key: &str) -> usize {
    item.fields
        .get(key)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// `lines 4–2,390` or `line 4`.
fn lines_word(first: usize, last: usize) -> String {
    if first == last {
        format!("line {}", count(first))
    } else {
        format!("lines {}–{}", count(first), count(last))
    }
}

fn count_word(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", count(n), if n == 1 { one } else { many })
}
