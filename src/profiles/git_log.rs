//! git_log/v1 — `git log` without a patch: the default format,
//! `--oneline`, `--stat`, `--graph`, `-n N`, `--format=…` (a format that
//! opens with the sha). `git log -p` is a diff and goes to git_diff/v1.
//!
//! **Decision.** What happened, in what order, by whom: which commits a
//! range holds, to pick one to show, revert, rebase onto or cite.
//!
//! **Unsafe loss.** A commit missing from the list, or its sha or subject
//! cut (the reader believes the range is shorter, or cites a commit that
//! is not the one meant); a list capped below what the user asked for.
//!
//! **Typed facts.** One `Commit` per commit: identity its sha (the first
//! 12 digits of a longer one), summary its subject, fields `author` and
//! `date` (`YYYY-MM-DD`) when printed, `group` the author; headline the
//! line naming the sha, and for a multi-line head a compact `line`
//! (`sha date author: subject`); detail the body and stat; block the whole
//! commit for `ctx expand H --item SHA`. `fatal:`/`error:` lines kept
//! verbatim.
//!
//! **Ladder.** VERBATIM (fits) → every commit's entry with bodies and
//! stats while the budget allows, the rest counted (DENSE) → FLOOD (the
//! entries alone exceed the ceiling): commits listed while they fit, the
//! rest counted exactly with their date range and authors, all behind
//! `--items`.

mod parse;
mod sniff;

use crate::artifact::{Artifact, Exit, Span};
use crate::evidence::{CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Outcome, Severity};

use super::{Profile, ProfileSpec, ReceiptGroup};
use super::git_command::{has_any, subcommand};

pub use parse::{LogCommit, compact_date, parse, strip_graph};

/// Flags after which `git log` prints patches (git_diff/v1's).
const PATCH: &[&str] = &["-p", "-u", "--patch"];

pub struct GitLog;

/// The identity of a sha: as printed, at most 12 digits.
fn short(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["git log"],
    ..ProfileSpec::new("git_log/v1", "git_log", ReceiptGroup::Everyday)
};

impl Profile for GitLog {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn by_command(&self, argv: &[String]) -> Option<String> {
        let (sub, args) = subcommand(argv)?;
        (sub == "log" && !has_any(&args, PATCH)).then(|| "git log (a commit list)".to_string())
    }

    fn by_content(&self, head: &str) -> Option<String> {
        sniff::detect(head)
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let total = artifact.line_count();
        let texts: Vec<String> = (1..=total)
            .map(|n| super::visible(artifact, n).into_owned())
            .collect();
        let log = parse(texts.iter().enumerate().map(|(i, t)| (i + 1, t.as_str())));
        let mut graph = EvidenceGraph::empty();
        graph.reader = crate::evidence::Reader::family("git log");
        let mut authors: Vec<&str> = Vec::new();
        for c in &log.commits {
            if let Some(a) = c.author.as_deref()
                && !authors.contains(&a)
            {
                authors.push(a);
            }
            graph.items.push(commit_item(c));
        }
        let mut warnings: Vec<Span> = Vec::new();
        for &n in &log.errors {
            // A warning is a result line, kept verbatim; an error is an item.
            if texts[n - 1].starts_with("warning:") {
                warnings.push(Span::line(n));
                continue;
            }
            let mut item =
                EvidenceItem::new(ItemKind::Diagnostic, Severity::Error, texts[n - 1].clone());
            item.headline = Some(Span::line(n));
            item.block = Some(Span::line(n));
            graph.items.push(item);
            warnings.push(Span::line(n));
        }
        // Warnings and errors alike are result lines, kept verbatim.
        warnings.sort_by_key(|s| s.first);
        graph.conclusion = warnings;
        let n = log.commits.len();
        let word = if n == 1 { "commit" } else { "commits" };
        graph.counts.push((word.into(), n as u64));
        if !authors.is_empty() {
            let word = if authors.len() == 1 {
                "author"
            } else {
                "authors"
            };
            graph.counts.push((word.into(), authors.len() as u64));
        }
        graph.outcome = match artifact.exit {
            Exit::Signal(_) => Outcome::Interrupted,
            e if e.is_failure() => Outcome::Error,
            Exit::Unknown => Outcome::Unknown,
            _ => Outcome::Ok,
        };
        let mut receipt = CoverageReceipt::new(total as u64);
        receipt.items_parsed = log.commits.len() as u64;
        receipt.blocks_parsed = log.commits.len() as u64;
        receipt.lines_unmatched = log.unmatched;
        receipt.truncated = artifact.truncated;
        (graph, receipt)
    }
}

fn commit_item(c: &LogCommit) -> EvidenceItem {
    let id = short(&c.sha);
    let mut item = EvidenceItem::new(ItemKind::Commit, Severity::Info, id);
    item.summary = (!c.subject.is_empty()).then(|| c.subject.clone());
    item.headline = Some(Span::line(c.head));
    item.detail = c.detail.into_iter().collect();
    item.block = Some(c.block);
    if let Some(a) = &c.author {
        item.fields.insert("author".into(), a.clone());
        item.fields.insert("group".into(), a.clone());
        item.fields.insert("group_by".into(), "author".into());
    }
    if let Some(d) = &c.date {
        item.fields.insert("date".into(), d.clone());
    }
    if c.multiline {
        let mut line = id.to_string();
        for part in [&c.date, &c.author].into_iter().flatten() {
            line.push(' ');
            line.push_str(part);
        }
        line.push_str(": ");
        line.push_str(&c.subject);
        item.fields.insert("line".into(), line);
    }
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
        let p = GitLog;
        assert!(p.by_command(&argv("git log --oneline")).is_some());
        assert!(p.by_command(&argv("git -C x log -n 5 --stat")).is_some());
        assert!(p.by_command(&argv("git log -p")).is_none());
        assert!(p.by_command(&argv("git status")).is_none());
    }
}
