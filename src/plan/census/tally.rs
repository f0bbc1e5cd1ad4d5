//! Counting notes: values by how often they occur (worded by
//! `render::notes`, which names the most frequent).

use std::collections::HashMap;

use super::Planner;
use crate::delivery_plan::{Note, Tally};

impl Planner<'_> {
    /// The files of `items` by how many each holds, when more than one and
    /// the note fits under `limit` (a tally is a summary, never census).
    pub(super) fn top_files(&mut self, items: &[usize], of: Tally, limit: usize) {
        let files = tally(
            items
                .iter()
                .filter_map(|&i| self.item(i).location.as_ref().map(|l| l.file.as_str())),
        );
        let several = files.len() > 1;
        let note = Note::Tally { of, counts: files };
        if several && self.spent + self.note_cost(&note) <= limit {
            self.notice(note);
        }
    }
}

/// Counts in order of first appearance, then sorted by count (stable).
pub(super) fn tally<'s>(values: impl Iterator<Item = &'s str>) -> Vec<(String, usize)> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for v in values {
        match index.get(v) {
            Some(&c) => counts[c].1 += 1,
            None => {
                index.insert(v, counts.len());
                counts.push((v.to_string(), 1));
            }
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    counts
}
