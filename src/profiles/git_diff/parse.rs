//! Reads unified diffs line by line into file blocks, commit heads and
//! stray lines. Hunk bodies are delimited by the counts in their `@@`
//! header, so a `+++ ` or `diff --git` inside changed text never starts a
//! block; a hunk cut short (a truncated log) ends at the first line that
//! cannot belong to it.

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::Span;

/// `@@ -a[,b] +c[,d] @@` (and `@@@` combined diffs, counted by their first pair).
static HUNK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^@@+ -\d+(?:,(\d+))? (?:-\d+(?:,\d+)? )*\+\d+(?:,(\d+))? @@").expect("static")
});
/// `commit <sha>` as `git log` and `git show` print it (decorations allowed).
static COMMIT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^commit ([0-9a-f]{7,64})(?:\s|$)").expect("static"));

/// What one file's diff says about the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileDiff {
    /// The path after the change (before it, for a deletion).
    pub path: String,
    /// The path before a rename or copy.
    pub from: Option<String>,
    pub added: bool,
    pub deleted: bool,
    pub renamed: bool,
    pub copied: bool,
    pub similarity: Option<String>,
    /// `old mode` → `new mode`.
    pub mode: Option<(String, String)>,
    pub binary: bool,
    /// A hunk ended before its `@@` counts were met (a cut diff).
    pub cut: bool,
    pub insertions: u64,
    pub deletions: u64,
    /// `diff --git` through `+++` (or the whole block when it has no hunk).
    pub header: Span,
    pub hunks: Vec<Span>,
    /// The whole block: header and every hunk.
    pub block: Span,
}

impl FileDiff {
    /// A block that starts at line `n`, nothing known yet.
    fn at(n: usize) -> Self {
        FileDiff {
            path: String::new(),
            from: None,
            added: false,
            deleted: false,
            renamed: false,
            copied: false,
            similarity: None,
            mode: None,
            binary: false,
            cut: false,
            insertions: 0,
            deletions: 0,
            header: Span::line(n),
            hunks: Vec::new(),
            block: Span::line(n),
        }
    }
}

/// A `commit <sha>` head: the lines before its first file block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Commit {
    pub sha: String,
    pub head: Span,
    /// The commit and every file block under it.
    pub block: Span,
}

/// One piece of a diff output, in line order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    Commit(Commit),
    File(FileDiff),
    /// Lines outside any block and head (a warning, `Only in …`).
    Stray(Span),
}

enum State {
    Outside,
    Header,
    /// Inside a hunk: old and new lines still expected.
    Hunk(u64, u64),
}

/// Parses the lines (1-based, normalized) into pieces.
pub fn parse<'a>(lines: impl Iterator<Item = (usize, &'a str)>) -> Vec<Piece> {
    let lines: Vec<(usize, &str)> = lines.collect();
    let mut pieces: Vec<Piece> = Vec::new();
    let mut state = State::Outside;
    // The index of the open commit in `pieces`, whose block grows.
    let mut commit: Option<usize> = None;
    let mut i = 0;
    while i < lines.len() {
        let (n, text) = lines[i];
        let next = lines.get(i + 1).map(|l| l.1);
        i += 1;
        if let State::Hunk(old, new) = state {
            let fits = match text.as_bytes().first() {
                Some(b' ') | None => old > 0 && new > 0,
                Some(b'-') => old > 0,
                Some(b'+') => new > 0,
                Some(b'\\') => true,
                _ => false,
            };
            if fits {
                let (old, new) = match text.as_bytes().first() {
                    Some(b' ') | None => (old - 1, new - 1),
                    Some(b'-') => (old - 1, new),
                    Some(b'+') => (old, new - 1),
                    _ => (old, new),
                };
                if let Some(Piece::File(f)) = pieces.last_mut() {
                    match text.as_bytes().first() {
                        Some(b'-') => f.deletions += 1,
                        Some(b'+') => f.insertions += 1,
                        _ => {}
                    }
                    extend_last_hunk(f, n);
                }
                // At (0, 0) only a `\ No newline` line still belongs here.
                state = State::Hunk(old, new);
                grow_commit(&mut pieces, commit, n);
                continue;
            }
            if (old, new) != (0, 0)
                && let Some(Piece::File(f)) = pieces.last_mut()
            {
                f.cut = true;
            }
            state = State::Header;
        }
        let starts_plain = text.starts_with("--- ") && next.is_some_and(|t| t.starts_with("+++ "));
        if let Some(rest) = text.strip_prefix("diff --git ") {
            let mut f = FileDiff::at(n);
            f.path = git_head_path(rest);
            pieces.push(Piece::File(f));
            state = State::Header;
        } else if matches!(state, State::Header)
            && let Some(Piece::File(f)) = pieces.last_mut()
            && header_line(f, text, n)
        {
        } else if matches!(state, State::Header | State::Outside)
            && let Some(caps) = HUNK.captures(text)
            && let Some(Piece::File(f)) = pieces.last_mut()
            && (f.block.last + 1 == n)
        {
            let old = caps.get(1).map_or(1, |m| m.as_str().parse().unwrap_or(1));
            let new = caps.get(2).map_or(1, |m| m.as_str().parse().unwrap_or(1));
            f.hunks.push(Span::line(n));
            f.block.last = n;
            state = State::Hunk(old, new);
        } else if text.starts_with("diff ") || starts_plain {
            // `diff -ru a b` or a bare `--- a` / `+++ b` pair.
            pieces.push(Piece::File(FileDiff::at(n)));
            if starts_plain && let Some(Piece::File(f)) = pieces.last_mut() {
                header_line(f, text, n);
            }
            state = State::Header;
        } else if let Some(caps) = COMMIT.captures(text) {
            commit = Some(pieces.len());
            pieces.push(Piece::Commit(Commit {
                sha: caps[1].to_string(),
                head: Span::line(n),
                block: Span::line(n),
            }));
            state = State::Outside;
        } else if let Some(Piece::Commit(c)) = pieces.last_mut() {
            c.head.last = n;
            c.block.last = n;
            state = State::Outside;
        } else if commit.is_some() && text.is_empty() {
            // The blank line `git log -p` puts between commits.
            state = State::Outside;
        } else {
            match pieces.last_mut() {
                Some(Piece::Stray(s)) if s.last + 1 == n => s.last = n,
                _ => pieces.push(Piece::Stray(Span::line(n))),
            }
            state = State::Outside;
        }
        grow_commit(&mut pieces, commit, n);
    }
    if let State::Hunk(old, new) = state
        && (old, new) != (0, 0)
        && let Some(Piece::File(f)) = pieces.last_mut()
    {
        f.cut = true;
    }
    for p in &mut pieces {
        if let Piece::File(f) = p
            && f.path.is_empty()
        {
            f.path = "(unnamed)".into();
        }
    }
    pieces
}

fn grow_commit(pieces: &mut [Piece], commit: Option<usize>, n: usize) {
    if let Some(c) = commit
        && let Some(Piece::Commit(c)) = pieces.get_mut(c)
    {
        c.block.last = c.block.last.max(n);
    }
}

fn extend_last_hunk(f: &mut FileDiff, n: usize) {
    if let Some(h) = f.hunks.last_mut() {
        h.last = n;
    }
    f.block.last = n;
}

/// Reads one line of a file header; false when it is not one.
fn header_line(f: &mut FileDiff, text: &str, n: usize) -> bool {
    if !f.hunks.is_empty() || f.block.last + 1 != n && f.block.first != n {
        return false;
    }
    let known = if let Some(p) = text.strip_prefix("rename from ") {
        f.renamed = true;
        f.from = Some(p.to_string());
        true
    } else if let Some(p) = text.strip_prefix("rename to ") {
        f.path = p.to_string();
        true
    } else if let Some(p) = text.strip_prefix("copy from ") {
        f.copied = true;
        f.from = Some(p.to_string());
        true
    } else if let Some(p) = text.strip_prefix("copy to ") {
        f.path = p.to_string();
        true
    } else if text.starts_with("new file mode ") {
        f.added = true;
        true
    } else if text.starts_with("deleted file mode ") {
        f.deleted = true;
        true
    } else if let Some(m) = text.strip_prefix("old mode ") {
        f.mode = Some((m.to_string(), String::new()));
        true
    } else if let Some(m) = text.strip_prefix("new mode ") {
        if let Some(mode) = &mut f.mode {
            mode.1 = m.to_string();
        }
        true
    } else if let Some(s) = text.strip_prefix("similarity index ") {
        f.similarity = Some(s.to_string());
        true
    } else if text.starts_with("dissimilarity index ") || text.starts_with("index ") {
        true
    } else if (text.starts_with("Binary files ") && text.ends_with(" differ"))
        || text == "GIT binary patch"
    {
        f.binary = true;
        true
    } else if f.binary && (text.starts_with("literal ") || text.starts_with("delta ")) {
        true
    } else if f.binary && !text.is_empty() && text.bytes().all(|b| b.is_ascii_graphic()) {
        // base85 lines of a binary patch
        true
    } else if let Some(p) = text.strip_prefix("--- ") {
        let p = plain_path(p);
        if f.path.is_empty() && p != "/dev/null" {
            f.path = strip_side(p, "a/").to_string();
        }
        if p == "/dev/null" {
            f.added = true;
        }
        true
    } else if let Some(p) = text.strip_prefix("+++ ") {
        let p = plain_path(p);
        if p == "/dev/null" {
            f.deleted = true;
        } else if !f.renamed && !f.copied {
            f.path = strip_side(p, "b/").to_string();
        }
        true
    } else {
        false
    };
    if known {
        f.header.last = n;
        f.block.last = n;
    }
    known
}

/// A `---`/`+++` path without the timestamp `diff -u` appends after a tab.
fn plain_path(p: &str) -> &str {
    p.split('\t').next().unwrap_or(p)
}

fn strip_side<'a>(p: &'a str, side: &str) -> &'a str {
    p.strip_prefix(side).unwrap_or(p)
}

/// The path of `diff --git a/P b/P` when both sides agree (a rename's two
/// paths come from its `rename to` line instead).
fn git_head_path(rest: &str) -> String {
    let len = rest.len();
    if len > 3 && (len - 3).is_multiple_of(2) {
        let half = (len - 3) / 2;
        if rest.is_char_boundary(half)
            && rest.is_char_boundary(half + 3)
            && &rest[half..half + 3] == " b/"
            && rest.starts_with("a/")
            && rest[2..half] == rest[half + 3..]
        {
            return rest[2..half].to_string();
        }
    }
    match rest.rsplit_once(" b/") {
        Some((_, b)) => b.to_string(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(text: &str) -> Vec<Piece> {
        parse(text.lines().enumerate().map(|(i, l)| (i + 1, l)))
    }

    #[test]
    fn counts_lines_by_the_hunk_header() {
        let p = pieces(
            "diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-+++ a\n+--- b\n \ndiff --git a/y b/y\n",
        );
        let Piece::File(f) = &p[0] else { panic!() };
        assert_eq!(f.path, "x");
        assert_eq!((f.insertions, f.deletions), (1, 1));
        assert_eq!(f.hunks, vec![Span::new(5, 8)]);
        assert_eq!(f.header, Span::new(1, 4));
        assert!(matches!(&p[1], Piece::File(g) if g.path == "y"));
    }

    #[test]
    fn renames_modes_and_binaries() {
        let p = pieces(concat!(
            "diff --git a/a b/c\nsimilarity index 100%\nrename from a\nrename to c\n",
            "diff --git a/m b/m\nold mode 100644\nnew mode 100755\n",
            "diff --git a/l.bin b/l.bin\nnew file mode 100644\nindex 0..1\nBinary files /dev/null and b/l.bin differ\n",
        ));
        let files: Vec<&FileDiff> = p
            .iter()
            .filter_map(|p| match p {
                Piece::File(f) => Some(f),
                _ => None,
            })
            .collect();
        assert_eq!(files[0].path, "c");
        assert_eq!(files[0].from.as_deref(), Some("a"));
        assert_eq!(files[1].mode, Some(("100644".into(), "100755".into())));
        assert!(files[2].binary && files[2].added);
        assert_eq!(files[2].block, Span::new(8, 11));
    }

    #[test]
    fn commits_own_their_files() {
        let p = pieces(concat!(
            "commit 0123456789abcdef0123456789abcdef01234567\nAuthor: A <a@b>\n\n    subject\n\n",
            "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\n",
            "commit 1123456789abcdef0123456789abcdef01234567\n",
        ));
        let Piece::Commit(c) = &p[0] else { panic!() };
        assert_eq!(c.head, Span::new(1, 5));
        assert_eq!(c.block, Span::new(1, 12));
        assert!(matches!(&p[2], Piece::Commit(_)));
    }

    #[test]
    fn plain_unified_diff() {
        let p = pieces("--- a/x\t2026-01-01\n+++ b/x\t2026-01-02\n@@ -1 +1 @@\n-a\n+b\n");
        let Piece::File(f) = &p[0] else { panic!() };
        assert_eq!(f.path, "x");
        assert_eq!(f.hunks, vec![Span::new(3, 5)]);
        assert!(!f.cut);
    }

    #[test]
    fn a_hunk_short_of_its_counts_is_cut() {
        let p = pieces("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n");
        let Piece::File(f) = &p[0] else { panic!() };
        assert!(f.cut);
    }
}
