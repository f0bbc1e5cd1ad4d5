//! git_diff/v1 — unified diffs: `git diff` (`--cached`, `A B`), `git show`,
//! `git log -p`, and `diff -u` / `diff -ru`.
//!
//! **Decision.** What changed, where, and how much: which files, with what
//! status (added, deleted, renamed, mode change, binary), how many lines
//! each way; then the change itself, to review or to act on.
//!
//! **Unsafe loss.** A changed file missing from the digest (the reader
//! believes the change is smaller than it is); a diff line altered, moved
//! or cut inside a hunk (a review of text that is in no file); an empty
//! digest for a diff too large to show.
//!
//! **Typed facts.** One `ChangedFile` per file block: identity its path
//! (the new one for a rename, the old one for a deletion), status fields,
//! +/- line counts counted in the hunk bodies, the header span as its
//! headline, every hunk as a detail span, the whole block for
//! `ctx expand H --item PATH`. One `Commit` per `commit <sha>` head
//! (`git show`, `git log -p`), its whole commit as the block. Lines outside
//! both are kept as `DecisiveLine`s (warnings, `Only in …`).
//!
//! **Ladder.** Small diffs: verbatim. Otherwise FAIL_CENSUS: every file
//! with its counts and status, then whole hunks in file order while the
//! budget allows, each file's left-out hunks counted with their address
//! (DENSE when any are left out). FLOOD: the file census itself exceeds the
//! ceiling — files grouped by directory with exact counts, `--items` lists
//! every path.

mod parse;

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::{Artifact, Span};
use crate::evidence::{
    CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Location, Severity,
};

use super::coverage::Coverage;
use super::{Profile, ProfileSpec, ReceiptGroup};
use super::diagnostic::command_words;
use super::git_command::{git_words, has_any};

pub use parse::{Commit, FileDiff, Piece, parse};

pub struct GitDiff;

/// A diff's head: `diff --git a/` on any line; a bare `---`/`+++`/`@@`
/// triple only where a diff starts — the head's first line, or under a
/// `diff -u …` or `Index: …` line (and svn's `====` rule). Elsewhere the
/// triple is a diff a test runner quotes in a failure (minitest's `---
/// expected` / `+++ actual`), which its own family reads.
static SNIFF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?m)^diff --git a/|\A--- \S[^\n]*\n\+\+\+ \S[^\n]*\n@@ -\d|^(?:diff |Index: )[^\n]*\n(?:=+\n)?--- \S[^\n]*\n\+\+\+ \S[^\n]*\n@@ -\d",
    )
    .expect("static")
});

/// Flags after which `git diff` / `git show` print no patch.
const NO_PATCH: &[&str] = &[
    "--stat",
    "--numstat",
    "--shortstat",
    "--dirstat",
    "--name-only",
    "--name-status",
    "--summary",
    "--quiet",
    "--no-patch",
    "-s",
    "--raw",
    "--check",
];
const PATCH: &[&str] = &["-p", "-u", "--patch"];

/// The tool words for the header: `git diff`, `git show`, `git log -p`, `diff`.
fn tool_name(argv: &[String]) -> Option<&'static str> {
    let words = command_words(argv);
    if let Some((sub, args)) = git_words(&words) {
        let patch = has_any(&args, PATCH);
        let no_patch = has_any(&args, NO_PATCH);
        // `git show REV:PATH` prints a file or a tree listing, not a diff.
        let blob = args.iter().any(|a| !a.starts_with('-') && a.contains(':'));
        return match sub {
            "diff" if patch || !no_patch => Some("git diff"),
            "show" if !blob && (patch || !no_patch) => Some("git show"),
            "log" | "whatchanged" if patch => Some("git log -p"),
            _ => None,
        };
    }
    let first = *words.first()?;
    let unified = words[1..].iter().any(|a| {
        *a == "-u"
            || a.starts_with("-U")
            || a.starts_with("--unified")
            || (a.starts_with('-') && !a.starts_with("--") && a.contains('u'))
    });
    (first == "diff" && unified).then_some("diff")
}

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["git diff", "git show", "git log -p", "diff -u"],
    sniff_words: &["diff --git a/", "\n+++ "],
    sniff: Some(&SNIFF),
    sniff_reason: "a `diff --git` head or a `---`/`+++`/`@@` unified diff",
    ..ProfileSpec::new("git_diff/v1", "git_diff", ReceiptGroup::Everyday)
};

impl Profile for GitDiff {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }


    fn by_command(&self, argv: &[String]) -> Option<String> {
        tool_name(argv).map(|t| format!("{t} (a unified diff)"))
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let total = artifact.line_count();
        let texts: Vec<String> = (1..=total)
            .map(|n| super::visible(artifact, n).into_owned())
            .collect();
        let pieces = parse(texts.iter().enumerate().map(|(i, t)| (i + 1, t.as_str())));
        let mut graph = EvidenceGraph::empty();
        graph.reader = crate::evidence::Reader::family(tool_name(&artifact.argv).unwrap_or("diff"));
        let (mut blocks, mut unmatched) = (0u64, 0u64);
        let (mut commits, mut files, mut plus, mut minus) = (0u64, 0u64, 0u64, 0u64);
        let mut cut = false;
        for piece in pieces {
            match piece {
                Piece::File(f) => {
                    files += 1;
                    cut |= f.cut;
                    plus += f.insertions;
                    minus += f.deletions;
                    blocks += f.hunks.len() as u64;
                    graph.items.push(file_item(f));
                }
                Piece::Commit(c) => {
                    commits += 1;
                    graph.items.push(commit_item(c, &texts));
                }
                Piece::Stray(span) => {
                    unmatched += span.len() as u64;
                    let mut item = EvidenceItem::new(
                        ItemKind::DecisiveLine,
                        Severity::Info,
                        format!("line {}", span.first),
                    );
                    item.detail = vec![span];
                    item.block = Some(span);
                    graph.items.push(item);
                }
            }
        }
        let mut coverage = Coverage::of(artifact)
            .parsed(files + commits)
            .blocks(blocks)
            .unmatched(unmatched);
        if cut {
            coverage =
                coverage.doubt("a hunk is shorter than its @@ header says: the diff may be cut");
        }
        let receipt = coverage.finish();
        if commits > 0 {
            graph.counts.push(("commits".into(), commits));
        }
        graph.counts.push(("files changed".into(), files));
        graph.counts.push(("insertions".into(), plus));
        graph.counts.push(("deletions".into(), minus));
        // `git diff --exit-code` and `diff -u` say "there were differences"
        // with 1: the reader must see that it is not 0. A diff has no
        // closing line that proves it complete: without the exit status (a
        // pipe, a saved file) nothing says it was.
        graph.outcome = super::coverage::by_exit(artifact.exit);
        (graph, receipt)
    }
}

fn file_item(f: FileDiff) -> EvidenceItem {
    let mut item = EvidenceItem::new(ItemKind::ChangedFile, Severity::Info, f.path.clone());
    item.location = Some(Location {
        file: f.path.clone(),
        line: None,
        column: None,
    });
    item.class = Some(status(&f).to_string());
    item.headline = Some(f.header);
    item.detail = f.hunks.clone();
    item.block = Some(f.block);
    let fields = &mut item.fields;
    fields.insert("insertions".into(), f.insertions.to_string());
    fields.insert("deletions".into(), f.deletions.to_string());
    if let Some(from) = f.from {
        fields.insert("from".into(), from);
    }
    if let Some(s) = f.similarity {
        fields.insert("similarity".into(), s);
    }
    if let Some((old, new)) = f.mode {
        fields.insert("mode".into(), format!("{old} → {new}"));
    }
    if f.binary {
        fields.insert("binary".into(), "yes".into());
    }
    item
}

/// The file's status word, git's own: added, deleted, renamed, copied, modified.
fn status(f: &FileDiff) -> &'static str {
    if f.added {
        "added"
    } else if f.deleted {
        "deleted"
    } else if f.renamed {
        "renamed"
    } else if f.copied {
        "copied"
    } else {
        "modified"
    }
}

/// A commit: its sha, the head lines (commit, Author, Date, subject) as
/// detail, the whole commit as its block.
fn commit_item(c: Commit, texts: &[String]) -> EvidenceItem {
    let mut item = EvidenceItem::new(ItemKind::Commit, Severity::Info, c.sha.clone());
    item.headline = Some(Span::line(c.head.first));
    // The head through the subject: the first indented message line.
    let subject = (c.head.first..=c.head.last).find(|&n| texts[n - 1].starts_with("    "));
    let kept_to = subject.unwrap_or(c.head.last);
    item.detail = vec![Span::new(c.head.first, kept_to)];
    if kept_to < c.head.last {
        item.fields.insert(
            "rest_of_head".into(),
            format!("{}-{}", kept_to + 1, c.head.last),
        );
    }
    if let Some(s) = subject {
        item.summary = Some(texts[s - 1].trim().to_string());
    }
    item.block = Some(c.block);
    item
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    #[test]
    fn commands() {
        assert_eq!(tool_name(&argv("git diff")), Some("git diff"));
        assert_eq!(tool_name(&argv("git diff --cached")), Some("git diff"));
        assert_eq!(
            tool_name(&argv("git -C x --no-pager diff A B")),
            Some("git diff")
        );
        assert_eq!(tool_name(&argv("git show HEAD")), Some("git show"));
        assert_eq!(tool_name(&argv("git show HEAD:src/lib.rs")), None);
        assert_eq!(tool_name(&argv("git log -p -n 5")), Some("git log -p"));
        assert_eq!(
            tool_name(&argv("timeout 5 git log --patch")),
            Some("git log -p")
        );
        assert_eq!(tool_name(&argv("git log -n 5")), None);
        assert_eq!(tool_name(&argv("git diff --stat")), None);
        assert_eq!(tool_name(&argv("git diff --stat -p")), Some("git diff"));
        assert_eq!(tool_name(&argv("diff -ru a b")), Some("diff"));
        assert_eq!(tool_name(&argv("diff a b")), None);
        assert_eq!(tool_name(&argv("git status")), None);
    }

    #[test]
    fn sniffs_diff_heads() {
        let p = GitDiff;
        assert!(p.by_content("diff --git a/x b/x\nindex 1..2\n").is_some());
        assert!(p.by_content("--- a\t1\n+++ b\t2\n@@ -1 +1 @@\n").is_some());
        assert!(p.by_content("--- not a diff\n").is_none());
        let svn = "Index: a.c\n===================\n--- a.c\t(r1)\n+++ a.c\t(wc)\n@@ -1 +1 @@\n";
        assert!(p.by_content(svn).is_some());
        let ru = "diff -ru a/x.c b/x.c\n--- a/x.c\t1\n+++ b/x.c\t2\n@@ -1 +1 @@\n";
        assert!(p.by_content(ru).is_some());
        // A diff a test runner quotes under a failure is the runner's.
        let quoted = "Run options: --seed 42\n\n  1) Failure:\nT#test_x [t.rb:3]:\n--- expected\n+++ actual\n@@ -1 +1 @@\n-1\n+2\n";
        assert!(p.by_content(quoted).is_none());
    }
}
