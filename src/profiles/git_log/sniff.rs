//! git log's own shapes, for output that no longer names its command
//! (`git log | ctx pipe`, `ctx digest saved.log`).
//!
//! Two shapes only git log prints: a `commit <40 hex>` head followed by
//! its `Author:` and `Date:` lines (the default format, `--stat`,
//! `--graph`), and a run of `<hex7+> subject` lines, each perhaps behind
//! `--graph`'s drawing (`* `, `| `) with drawing-only lines between
//! (`--oneline`, a `--format` that opens with the sha). What is refused:
//! a head whose first line is neither, one-line runs shorter than three
//! commits or whose shas are all digits or all letters (a numbered list,
//! an inode column, a word list), and a sha line with two spaces after it
//! (`sha1sum` output). `git log -p` is a diff: git_diff/v1 claims it first.

use crate::profiles::sniff;

use super::parse::{is_sha, strip_graph};
use super::GitLog;

/// The least number of one-line commits a head must hold.
const ONELINE_RUN: usize = 3;

/// Why a head is git log's, when it is.
pub fn detect(head: &str) -> Option<String> {
    let first = head.as_bytes().first()?;
    if !(first.is_ascii_hexdigit() || matches!(first, b'*' | b'c')) {
        return None;
    }
    let lines = sniff::lines(head);
    let claim = if full_format(&lines) {
        "a `commit <sha>` head with its Author: and Date: lines"
    } else if one_line(&lines) {
        "a run of `<sha> subject` lines (git log --oneline)"
    } else {
        return None;
    };
    sniff::reads_whole(&GitLog, &lines, &[], 1).then(|| claim.to_string())
}

/// `commit <40 hex>` first, then `Author:` and `Date:` among the head lines.
fn full_format(lines: &[&str]) -> bool {
    let Some(first) = lines.first() else {
        return false;
    };
    let sha = strip_graph(first)
        .strip_prefix("commit ")
        .and_then(|r| r.split(' ').next());
    if !sha.is_some_and(|s| s.len() == 40 && is_sha(s)) {
        return false;
    }
    let has = |field: &str| {
        lines
            .iter()
            .take(8)
            .any(|l| strip_graph(l).starts_with(field))
    };
    has("Author: ") && (has("Date: ") || has("AuthorDate: "))
}

/// Every line a `<sha> subject` line or drawing only, the first a sha
/// line, at least [`ONELINE_RUN`] of them, their shas mixing digits and
/// letters somewhere.
fn one_line(lines: &[&str]) -> bool {
    let mut commits = 0;
    let mut mixed = false;
    for (i, raw) in lines.iter().enumerate() {
        // A drawing starts at the margin: leading spaces are another shape.
        if raw.starts_with(' ') {
            return false;
        }
        let text = strip_graph(raw);
        if text.is_empty() && i > 0 {
            continue;
        }
        let Some((sha, rest)) = text.split_once(' ') else {
            return false;
        };
        if !is_sha(sha) || sha.len() > 40 || rest.is_empty() || rest.starts_with(' ') {
            return false;
        }
        commits += 1;
        mixed |= sha.bytes().any(|b| b.is_ascii_digit()) && sha.bytes().any(|b| b.is_ascii_alphabetic());
    }
    commits >= ONELINE_RUN && mixed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_git_log_prints() {
        let oneline = "d8738f8 Merge branch 'docs'\n66bfc15 Point the README\n178f304 Reword\n";
        assert!(detect(oneline).is_some());
        let graph = "*   d8738f8 (HEAD -> main) Merge\n|\\  \n| * 66bfc15 Point\n* | f74b56a Tag\n";
        assert!(detect(graph).is_some());
    }

    #[test]
    fn shapes_it_refuses() {
        // sha1sum: two spaces after the hash.
        let sums = "da39a3ee5e6b4b0d3255bfef95601890afd80709  a\n\
                    da39a3ee5e6b4b0d3255bfef95601890afd80709  b\n\
                    da39a3ee5e6b4b0d3255bfef95601890afd80709  c\n";
        assert!(detect(sums).is_none());
        // Numbers, not shas.
        assert!(detect("1234567 one\n2345678 two\n3456789 three\n").is_none());
        // Too short a run.
        assert!(detect("d8738f8 Merge\n66bfc15 Point\n").is_none());
        // A commit head without its fields.
        assert!(detect("commit d8738f8439e153b418a138f521d8d35cad20a750\nhello\n").is_none());
    }
}
