//! git_blame/v1 — `git blame FILE` (default and `-s` line formats):
//! lines grouped by the commit that last changed them.
//!
//! **Decision.** Who changed these lines, when and in which commit: the
//! commit to show, the author to ask, the change to revert.
//!
//! **Unsafe loss.** A commit that owns lines left unnamed (the reader
//! blames the wrong change); a line attributed to the wrong commit; a line
//! of the file rewritten.
//!
//! **Typed facts.** One `Commit` per distinct sha (the `^` of a boundary
//! commit dropped): field `lines` its exact line count, `author` and
//! `date` when printed, a compact `line` (`sha author date: N lines
//! (1-40, 52-60)`), detail its runs of raw lines. Each later run is a
//! non-census item of the same identity, so `ctx expand H --item SHA`
//! prints every line the commit owns.
//!
//! **Ladder.** VERBATIM (fits) → every commit with its exact count and
//! line ranges, then its lines (commits in order of first appearance,
//! each whole while it fits, the rest counted) → FLOOD: commits listed
//! while they fit, the rest counted by author, all behind `--items`.
//!
//! **Detector.** With no command named (a pipe, a saved log): at least
//! three lines, every line of the head, in blame's own shape (`<sha>
//! (<author> <date> <time> <zone> <n>) code`, or `-s`'s `<sha> <n>) code`),
//! read whole by this profile. A head with any other line (a `--porcelain`
//! blame, a blame quoted in a log) is refused.

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::{Artifact, Exit, Span};
use crate::evidence::{CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Outcome, Severity};

use super::git_command::subcommand;
use super::{Profile, ProfileSpec, ReceiptGroup};

pub struct GitBlame;

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["git blame"],
    ..ProfileSpec::new("git_blame/v1", "git_blame", ReceiptGroup::Everyday)
};

/// `^c080ddb (Ada Example 2026-02-01 10:00:00 +0000   1) code`, with an
/// optional file name column; `-s`: `c080ddb  1) code`.
static LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^\^?([0-9a-f]{7,40}) (?:\S+ +)?(?:\((.+?) +(\d{4}-\d{2}-\d{2}) \d\d:\d\d:\d\d [+-]\d{4} +\d+\)|\s*\d+\))",
    )
    .expect("static")
});

/// One commit's share of the file: its sha, author and date as printed,
/// and the runs of output lines it owns.
struct Owner {
    sha: String,
    author: Option<String>,
    date: Option<String>,
    runs: Vec<Span>,
}

impl Profile for GitBlame {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn by_content(&self, head: &str) -> Option<String> {
        let first = *head.as_bytes().first()?;
        if !(first == b'^' || first.is_ascii_hexdigit()) || !head.contains(") ") {
            return None;
        }
        let lines = super::sniff::lines(head);
        (super::sniff::all_of(&lines, 3, |l| LINE.is_match(l))
            && super::sniff::reads_whole(self, &lines, &[], 1))
        .then(|| "a run of `<sha> (<author> <date> <n>)` blame lines".to_string())
    }

    fn by_command(&self, argv: &[String]) -> Option<String> {
        let (sub, args) = subcommand(argv)?;
        let porcelain = args
            .iter()
            .any(|a| *a == "-p" || *a == "--porcelain" || *a == "--line-porcelain");
        (sub == "blame" && !porcelain).then(|| "git blame (lines by commit)".to_string())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let total = artifact.line_count();
        let mut commits: Vec<Owner> = Vec::new();
        let mut errors = Vec::new();
        let mut unmatched = 0u64;
        for n in 1..=total {
            let text = super::visible(artifact, n);
            let Some(c) = LINE.captures(&text) else {
                if text.starts_with("fatal:") || text.starts_with("error:") {
                    errors.push((n, text.trim().to_string()));
                } else if !text.trim().is_empty() {
                    unmatched += 1;
                }
                continue;
            };
            let sha = c[1].to_string();
            let at = match commits.iter().position(|e| e.sha == sha) {
                Some(i) => i,
                None => {
                    commits.push(Owner {
                        sha,
                        author: c.get(2).map(|m| m.as_str().trim().to_string()),
                        date: c.get(3).map(|m| m.as_str().to_string()),
                        runs: Vec::new(),
                    });
                    commits.len() - 1
                }
            };
            let runs = &mut commits[at].runs;
            match runs.last_mut() {
                Some(r) if r.last + 1 == n => r.last = n,
                _ => runs.push(Span::line(n)),
            }
        }
        let mut graph = EvidenceGraph::empty();
        graph.reader = crate::evidence::Reader::family("git blame");
        let mut lines = 0usize;
        let mut authors: Vec<&str> = Vec::new();
        for Owner {
            sha,
            author,
            date,
            runs,
        } in &commits
        {
            let owned: usize = runs.iter().map(|r| r.len()).sum();
            lines += owned;
            if let Some(a) = author.as_deref()
                && !authors.contains(&a)
            {
                authors.push(a);
            }
            let mut item = EvidenceItem::new(ItemKind::Commit, Severity::Info, sha.clone());
            item.headline = Some(Span::line(runs[0].first));
            item.block = Some(runs[0]);
            item.detail = runs.clone();
            let ranges: Vec<String> = runs
                .iter()
                .map(|r| match r.len() {
                    1 => r.first.to_string(),
                    _ => format!("{}-{}", r.first, r.last),
                })
                .collect();
            let mut head = sha.clone();
            for part in [author, date].into_iter().flatten() {
                head.push(' ');
                head.push_str(part);
            }
            let noun = if owned == 1 { "line" } else { "lines" };
            let shown: Vec<&str> = ranges.iter().take(12).map(String::as_str).collect();
            let more = if ranges.len() > 12 {
                format!(", … {} more runs", ranges.len() - 12)
            } else {
                String::new()
            };
            item.fields.insert(
                "line".into(),
                format!("{head}: {owned} {noun} (output lines {}{more})", shown.join(", ")),
            );
            item.fields.insert("lines".into(), owned.to_string());
            if let Some(a) = author {
                item.fields.insert("author".into(), a.clone());
                item.fields.insert("group".into(), a.clone());
                item.fields.insert("group_by".into(), "author".into());
            }
            if let Some(d) = date {
                item.fields.insert("date".into(), d.clone());
            }
            graph.items.push(item);
            // Later runs: the same identity, outside the census, so
            // `--item SHA` returns every line the commit owns.
            for r in &runs[1..] {
                let mut run = EvidenceItem::new(ItemKind::DecisiveLine, Severity::Info, sha.clone());
                run.block = Some(*r);
                graph.items.push(run);
            }
        }
        for (n, text) in errors {
            let mut item = EvidenceItem::new(ItemKind::Diagnostic, Severity::Error, text);
            item.headline = Some(Span::line(n));
            item.block = Some(Span::line(n));
            graph.items.push(item);
            // Kept verbatim as a result line.
            graph.conclusion.push(Span::line(n));
        }
        graph.counts.push(("lines".into(), lines as u64));
        let noun = if commits.len() == 1 { "commit" } else { "commits" };
        graph.counts.push((noun.into(), commits.len() as u64));
        if !authors.is_empty() {
            let noun = if authors.len() == 1 { "author" } else { "authors" };
            graph.counts.push((noun.into(), authors.len() as u64));
        }
        let failed = graph.items.iter().any(|i| i.kind == ItemKind::Diagnostic);
        graph.outcome = match artifact.exit {
            Exit::Signal(_) => Outcome::Interrupted,
            e if e.is_failure() => Outcome::Error,
            _ if failed => Outcome::Error,
            Exit::Unknown => Outcome::Unknown,
            _ => Outcome::Ok,
        };
        let mut receipt = CoverageReceipt::new(total as u64);
        receipt.items_parsed = commits.len() as u64;
        receipt.blocks_parsed = commits.len() as u64;
        receipt.lines_unmatched = unmatched;
        receipt.truncated = artifact.truncated;
        (graph, receipt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_formats() {
        let c = LINE
            .captures("^c080ddb (Ada Example 2026-02-01 10:00:00 +0000   1) /*!")
            .unwrap();
        assert_eq!((&c[1], &c[2], &c[3]), ("c080ddb", "Ada Example", "2026-02-01"));
        let c = LINE
            .captures("e91bd5c4 src/old.rs (Ken Example 2026-02-04 01:00:00 +0000 12) x")
            .unwrap();
        assert_eq!(&c[2], "Ken Example");
        let c = LINE.captures("e91bd5c4  12) x").unwrap();
        assert_eq!(&c[1], "e91bd5c4");
        assert!(LINE.captures("not a blame line").is_none());
    }
}
