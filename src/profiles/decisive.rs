//! Every profile's decisive words in one automaton: the whole-output scan
//! that classification runs, and that a CI log without step markers runs
//! again over its lines to find where one family's output gives way to
//! another's (`ci_log::window::split`). A line holding none of the words
//! costs one pass of the automaton's prefilter, never a pattern.

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, Input, MatchKind};

use crate::artifact::Artifact;

use super::{LINE_WINDOW, registry};

/// Every profile's decisive words, distinct, with the set of profiles
/// (bits by registry index) that own each word, in two automata: one
/// leftmost-first, whose literal prefilters skip through the output to the
/// next line holding any word, and one that reports every word of that
/// line, overlapping ones included. Built once, on first use; `None` only
/// if they cannot be built (or the registry outgrew the set), and then no
/// line is found by its words.
pub struct Words {
    scan: AhoCorasick,
    all: AhoCorasick,
    owners: Vec<u64>,
}

pub static WORDS: LazyLock<Option<Words>> = LazyLock::new(|| {
    let registry = registry();
    if registry.len() > 64 {
        return None;
    }
    let mut words: Vec<&str> = Vec::new();
    let mut owners: Vec<u64> = Vec::new();
    for (at, profile) in registry.iter().enumerate() {
        for word in profile.decisive_words() {
            match words.iter().position(|w| w == word) {
                Some(i) => owners[i] |= 1 << at,
                None => {
                    words.push(word);
                    owners.push(1 << at);
                }
            }
        }
    }
    let scan = AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostFirst)
        .build(&words)
        .ok()?;
    let all = AhoCorasick::new(&words).ok()?;
    Some(Words { scan, all, owners })
});

impl Words {
    /// The first line starting at or after byte `from` of the artifact
    /// that holds any profile's word: its number, its first
    /// [`LINE_WINDOW`] bytes, and the profiles (bits by registry index)
    /// whose words it holds.
    pub fn next_line<'a>(
        &self,
        artifact: &'a Artifact,
        from: usize,
    ) -> Option<(usize, &'a [u8], u64)> {
        let bytes = artifact.bytes();
        let hit = self.scan.find(Input::new(bytes).span(from..bytes.len()))?;
        let n = artifact.line_at(hit.start());
        let raw = artifact.line(n);
        let raw = &raw[..raw.len().min(LINE_WINDOW)];
        let held = self
            .all
            .find_overlapping_iter(raw)
            .fold(0u64, |set, w| set | self.owners[w.pattern().as_usize()]);
        Some((n, raw, held))
    }
}
