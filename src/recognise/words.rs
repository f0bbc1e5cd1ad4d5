//! The one pass over the output: the lines any dialect could read.
//!
//! Every dialect's words go into one automaton, built on first use. A
//! buffer scan finds the next line holding any word at the speed of a
//! literal search; the line is then asked which words it holds, and so
//! which dialects. Lines that open with a location (`path:12:`,
//! `path(12,3):`) are found by a byte test of each line's head, because the
//! located dialects need no word (`a.py:3:1: E501 line too long`).

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, Input, MatchKind};

use super::{Dialect, Page};

struct Automaton {
    scan: AhoCorasick,
    all: AhoCorasick,
    /// Per word, the dialects (bits by index) that own it.
    owners: Vec<u64>,
    /// The dialects that read a line opening with a location.
    located: u64,
}

fn build(dialects: &[&Dialect]) -> Option<Automaton> {
    if dialects.len() > 64 {
        return None;
    }
    let mut words: Vec<&str> = Vec::new();
    let mut owners: Vec<u64> = Vec::new();
    let mut located = 0;
    for (i, d) in dialects.iter().enumerate() {
        if d.located {
            located |= 1 << i;
        }
        for w in d.words {
            match words.iter().position(|x| x.eq_ignore_ascii_case(w)) {
                Some(at) => owners[at] |= 1 << i,
                None => {
                    words.push(w);
                    owners.push(1 << i);
                }
            }
        }
    }
    let scan = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::LeftmostFirst)
        .build(&words)
        .ok()?;
    let all = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(&words)
        .ok()?;
    Some(Automaton {
        scan,
        all,
        owners,
        located,
    })
}

static AUTOMATON: LazyLock<Option<Automaton>> = LazyLock::new(|| build(super::dialects()));

/// Every line worth asking, in order, with the dialects (bits by index of
/// `dialects`) that may read it.
pub(super) fn candidates(page: &Page, dialects: &[&Dialect]) -> Vec<(usize, u64)> {
    let Some(auto) = AUTOMATON.as_ref() else {
        return Vec::new();
    };
    debug_assert_eq!(dialects.len(), super::dialects().len());
    let artifact = page.artifact();
    let bytes = artifact.bytes();
    let mut found: Vec<(usize, u64)> = Vec::new();
    let mut at = 0;
    while let Some(hit) = auto.scan.find(Input::new(bytes).span(at..bytes.len())) {
        let n = artifact.line_at(hit.start());
        let line = artifact.line(n);
        let held = auto
            .all
            .find_overlapping_iter(line)
            .fold(0u64, |set, w| set | auto.owners[w.pattern().as_usize()]);
        found.push((n, held));
        match artifact.line_start(n + 1) {
            Some(next) => at = next,
            None => break,
        }
    }
    for n in 1..=artifact.line_count() {
        if opens_with_location(artifact.line(n)) {
            found.push((n, auto.located));
        }
    }
    found.sort_unstable_by_key(|(n, _)| *n);
    // One entry per line, its dialects merged.
    let mut merged: Vec<(usize, u64)> = Vec::with_capacity(found.len());
    for (n, bits) in found {
        match merged.last_mut() {
            Some((m, b)) if *m == n => *b |= bits,
            _ => merged.push((n, bits)),
        }
    }
    merged
}

/// Whether a line opens with `token:DIGITS` followed by `:`, `,` or `)`,
/// or with `token(DIGITS`: a path and a line number, the way located
/// diagnostics open. A leading escape sequence (a coloured path) counts as
/// a location too; the dialect then reads the visible text.
pub(super) fn opens_with_location(line: &[u8]) -> bool {
    let head = &line[..line.len().min(512)];
    if head.first() == Some(&0x1b) {
        return memchr::memchr(b':', head).is_some();
    }
    let Some(p) = head
        .iter()
        .position(|&b| matches!(b, b':' | b'(' | b' ' | b'\t'))
    else {
        return false;
    };
    if p == 0 || matches!(head[p], b' ' | b'\t') {
        return false;
    }
    // A path names a file (`main.c`, `App.java`) or a folder (`src/a`);
    // a timestamp (`2026-11-29T12:00:05Z`, `12:00:00`) or an address
    // (`10.0.0.1:8080`) opens the same way and is none.
    let token = &head[..p];
    let pathlike = token.iter().any(|b| matches!(b, b'.' | b'/' | b'\\'))
        && !token.iter().all(|b| b.is_ascii_digit() || *b == b'.');
    if !pathlike {
        return false;
    }
    let digits = head[p + 1..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 {
        return false;
    }
    match head.get(p + 1 + digits) {
        Some(b':' | b',' | b')') => true,
        None => false,
        _ => false,
    }
}
