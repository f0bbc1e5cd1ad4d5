//! The words of a diff's notes (`DiffNote`).

use crate::delivery_plan::DiffNote;
use crate::evidence::{EvidenceGraph, EvidenceItem};
use crate::words::{count, counted};

pub fn words(note: &DiffNote, graph: &EvidenceGraph) -> String {
    match note {
        DiffNote::File { index } => graph.items.get(*index).map(file).unwrap_or_default(),
        DiffNote::Shown {
            shown,
            files,
            hunks,
            left_files,
        } => format!(
            "shown: whole hunks of {} of {}; left: {} in {}",
            count(*shown),
            counted(*files, "files"),
            counted(*hunks, "hunks"),
            counted(*left_files, "files"),
        ),
        DiffNote::Grouped { budget } => format!(
            "census grouped (exceeds the {}-token budget): files by top directory",
            count(*budget)
        ),
        DiffNote::Directory {
            dir,
            files,
            insertions,
            deletions,
        } => {
            let name = if dir == "." {
                ".".to_string()
            } else {
                format!("{dir}/")
            };
            format!(
                "  {name} {} · +{} -{}",
                counted(*files, "files"),
                count(*insertions),
                count(*deletions)
            )
        }
        DiffNote::MoreDirectories { count: n } => {
            format!("  … {} more directories", count(*n))
        }
        DiffNote::Degraded { why } => format!("coverage: degraded: {why}"),
    }
}

/// One file's census line: `path | status · +a -d · N hunks`.
pub fn file(item: &EvidenceItem) -> String {
    let f = &item.fields;
    let mut parts = Vec::new();
    let from = f.get("from").map(String::as_str).unwrap_or("?");
    let similarity = f
        .get("similarity")
        .map(|s| format!(" ({s})"))
        .unwrap_or_default();
    match item.class.as_deref() {
        Some("renamed") => parts.push(format!("renamed from {from}{similarity}")),
        Some("copied") => parts.push(format!("copied from {from}{similarity}")),
        Some(s @ ("added" | "deleted")) => parts.push(s.to_string()),
        _ => {}
    }
    if let Some(mode) = f.get("mode") {
        parts.push(format!("mode {mode}"));
    }
    let number = |k: &str| f.get(k).and_then(|v| v.parse::<usize>().ok()).unwrap_or(0);
    let (plus, minus) = (number("insertions"), number("deletions"));
    if f.contains_key("binary") {
        parts.push("binary".into());
    }
    if !item.detail.is_empty() || (plus, minus) != (0, 0) {
        parts.push(format!("+{} -{}", count(plus), count(minus)));
    }
    if !item.detail.is_empty() {
        parts.push(counted(item.detail.len(), "hunks"));
    }
    if parts.is_empty() {
        parts.push("changed".into());
    }
    format!("{} | {}", item.identity, parts.join(" · "))
}
