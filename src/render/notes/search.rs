//! The words of a search's notes (`SearchNote`).

use crate::delivery_plan::SearchNote;
use crate::evidence::{EvidenceGraph, EvidenceItem};
use crate::words::count;

/// How many folders the FLOOD note names before "… N more".
const TOP_FOLDERS: usize = 8;
/// What separates the files a FLOOD note names.
pub const SEPARATOR: &str = " · ";

pub fn words(note: &SearchNote, graph: &EvidenceGraph) -> String {
    match note {
        SearchNote::Flood { files, budget } => format!(
            "{} matching files with their first matches exceed the {}-token budget: named with their counts while they fit",
            count(*files),
            count(*budget)
        ),
        SearchNote::Files { indices } => indices
            .iter()
            .filter_map(|&i| graph.items.get(i))
            .map(file)
            .collect::<Vec<_>>()
            .join(SEPARATOR),
        SearchNote::Folders { folders } => {
            let mut parts: Vec<String> = folders
                .iter()
                .take(TOP_FOLDERS)
                .map(|f| {
                    format!(
                        "{}/ ×{} ({} matches)",
                        f.dir,
                        count(f.files),
                        count(f.matches as usize)
                    )
                })
                .collect();
            if folders.len() > TOP_FOLDERS {
                parts.push(format!(
                    "… {} more folders",
                    count(folders.len() - TOP_FOLDERS)
                ));
            }
            format!("not named, by folder: {}", parts.join(", "))
        }
    }
}

/// One matching file as a FLOOD note names it: `src/a.rs ×12`.
pub fn file(item: &EvidenceItem) -> String {
    let total = item
        .fields
        .get("matches")
        .cloned()
        .unwrap_or_else(|| count(item.detail.len()));
    format!("{} ×{total}", item.identity)
}
