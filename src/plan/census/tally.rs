//! Counting notes: values by how often they occur, the most frequent named.

use std::collections::HashMap;

use super::Planner;
use crate::plan::Block;
use crate::words::count;

/// How many classes or files a counting note names before "… N more".
const TOP: usize = 8;

impl Planner<'_> {
    /// `[ctx] <label>: a ×390, b ×288, … N more files`.
    pub(super) fn top_files(&mut self, items: &[usize], label: &str) {
        let files = tally(
            items
                .iter()
                .filter_map(|&i| self.item(i).location.as_ref().map(|l| l.file.as_str())),
        );
        if files.len() > 1 {
            self.blocks.push(Block::Note(format!(
                "{label}: {}",
                top_list(&files, "files")
            )));
        }
    }
}

/// Counts in order of first appearance, then sorted by count (stable).
pub(super) fn tally<'s>(values: impl Iterator<Item = &'s str>) -> Vec<(&'s str, usize)> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for v in values {
        match index.get(v) {
            Some(&c) => counts[c].1 += 1,
            None => {
                index.insert(v, counts.len());
                counts.push((v, 1));
            }
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    counts
}

pub(super) fn top_list(counts: &[(&str, usize)], noun: &str) -> String {
    let mut parts: Vec<String> = counts
        .iter()
        .take(TOP)
        .map(|(v, n)| format!("{v} ×{}", count(*n)))
        .collect();
    if counts.len() > TOP {
        parts.push(format!("… {} more {noun}", count(counts.len() - TOP)));
    }
    parts.join(", ")
}
