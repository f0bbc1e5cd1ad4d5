//! The words of a listing's notes (`ListingNote`).

use crate::delivery_plan::ListingNote;
use crate::evidence::{EvidenceGraph, EvidenceItem};
use crate::words::count;

/// How many file types the note names before "… N more types".
const TOP_TYPES: usize = 8;
/// How many parent folders the FLOOD note names before "… N more": five
/// deep paths fit the closing lines' share of the smallest budget.
const TOP_PARENTS: usize = 5;
/// What separates the folders a note names.
pub const SEPARATOR: &str = " · ";

pub fn words(note: &ListingNote, graph: &EvidenceGraph) -> String {
    // du names its folders with their sizes (`folder`), other tools with
    // their entry counts.
    let sized = graph
        .items
        .iter()
        .any(|i| i.fields.contains_key(crate::profiles::listing::USAGE_FIELD));
    let (their, its) = if sized {
        ("their sizes", "its size")
    } else {
        ("their entry counts", "its entry count")
    };
    match note {
        ListingNote::Types { types } => {
            let mut parts: Vec<String> = types
                .iter()
                .take(TOP_TYPES)
                .map(|t| match t.bytes {
                    Some(b) => format!("{} ×{} ({})", t.name, count(t.files), size(b)),
                    None => format!("{} ×{}", t.name, count(t.files)),
                })
                .collect();
            if types.len() > TOP_TYPES {
                let rest = &types[TOP_TYPES..];
                let files: usize = rest.iter().map(|t| t.files).sum();
                parts.push(format!(
                    "… {} more types ({} files)",
                    count(rest.len()),
                    count(files)
                ));
            }
            format!("by type: {}", parts.join(" · "))
        }
        ListingNote::KeptWhole { kinds } => {
            let parts: Vec<String> = kinds
                .iter()
                .map(|(w, n)| format!("{w} ×{}", count(*n)))
                .collect();
            format!("kept whole: {}", parts.join(" · "))
        }
        ListingNote::FoldersFlood { folders, budget } => format!(
            "{} folders exceed the {}-token budget: named with {their} while they fit",
            count(*folders),
            count(*budget)
        ),
        ListingNote::FoldersInOrder { folders } => format!(
            "{} folders in the listing's order, each with {its}:",
            count(*folders)
        ),
        ListingNote::Folders { indices } => indices
            .iter()
            .filter_map(|&i| graph.items.get(i))
            .map(folder)
            .collect::<Vec<_>>()
            .join(SEPARATOR),
        ListingNote::Parents { parents } => {
            let mut parts: Vec<String> = parents
                .iter()
                .take(TOP_PARENTS)
                .map(|(p, n)| format!("{p}/ ×{}", count(*n)))
                .collect();
            if parents.len() > TOP_PARENTS {
                parts.push(format!(
                    "… {} more parents",
                    count(parents.len() - TOP_PARENTS)
                ));
            }
            format!("not named, by parent: {}", parts.join(", "))
        }
    }
}

/// One folder as a note names it: `./src ×17` (its entry count).
pub fn folder(item: &EvidenceItem) -> String {
    let usage = item.fields.get(crate::profiles::listing::USAGE_FIELD);
    if let Some(bytes) = usage.and_then(|u| u.parse::<u64>().ok()) {
        // du's folders: their size, which is what du was asked.
        return format!("{} {}", item.identity, size(bytes));
    }
    let entries = item.fields.get("entries").map_or("0", String::as_str);
    format!("{} ×{entries}", item.identity)
}

/// Bytes in binary units with one decimal: `3.0 MiB`, `812 B`.
pub fn size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(size(812), "812 B");
        assert_eq!(size(3_000_000), "2.9 MiB");
        assert_eq!(size(4096), "4.0 KiB");
    }
}
