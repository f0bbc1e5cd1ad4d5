//! git_status/v1 — `git status` long, `-s`, `-b`, `--porcelain` (v1, v2).
//!
//! **Decision.** What would the next commit hold, and what is left out of
//! it: which paths are staged, changed but unstaged, untracked or in
//! conflict, on which branch, how far from its upstream.
//!
//! **Unsafe loss.** A path left unnamed (the reader commits without it,
//! or believes the tree clean); a path shown under the wrong state (staged
//! read as unstaged); the branch, or ahead/behind, dropped.
//!
//! **Typed facts.** One `StatusPath` per path line: identity the path as
//! printed (the new one of a rename, field `from` the old one), class its
//! state (`staged`, `unstaged`, `staged+unstaged`, `untracked`, `ignored`,
//! `conflicted`), field `change` git's word for it, `group` its directory,
//! `rank` 1 for untracked and ignored paths (they yield first). The branch
//! line, upstream and ahead/behind, section headings and verdict are kept
//! verbatim; `(use "git …")` hints are not.
//!
//! **Ladder.** VERBATIM (fits) → every path line with its section (the
//! hints left out) → FLOOD (the paths alone exceed the ceiling): tracked
//! paths, then untracked ones, listed while they fit; the rest grouped by
//! directory with exact counts per state, all of them behind `--items`.

mod parse;
mod sniff;

use crate::artifact::{Artifact, Exit, Span};
use crate::evidence::{
    CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Location, Outcome, Severity,
};

use super::{Profile, ProfileSpec, ReceiptGroup};
use super::git_command::subcommand;

pub use parse::{PathLine, State, Status, parse};

pub struct GitStatus;

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["git status"],
    ..ProfileSpec::new("git_status/v1", "git_status", ReceiptGroup::Everyday)
};

impl Profile for GitStatus {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn by_content(&self, head: &str) -> Option<String> {
        sniff::detect(head)
    }

    fn by_command(&self, argv: &[String]) -> Option<String> {
        let (sub, _) = subcommand(argv)?;
        (sub == "status").then(|| "git status (the working tree's paths)".to_string())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let total = artifact.line_count();
        let texts: Vec<String> = (1..=total)
            .map(|n| super::visible(artifact, n).into_owned())
            .collect();
        let status = parse(texts.iter().enumerate().map(|(i, t)| (i + 1, t.as_str())));
        let mut graph = EvidenceGraph::empty();
        graph.reader = crate::evidence::Reader::family("git status");
        let mut by_state: Vec<(State, u64)> = Vec::new();
        for p in &status.paths {
            match by_state.iter_mut().find(|(s, _)| *s == p.state) {
                Some(e) => e.1 += 1,
                None => by_state.push((p.state, 1)),
            }
            graph.items.push(path_item(p));
        }
        let mut warnings: Vec<Span> = Vec::new();
        for &n in &status.errors {
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
            // Kept verbatim as a result line, like the warnings.
            warnings.push(Span::line(n));
        }
        graph.conclusion = status.kept.iter().map(|&n| Span::line(n)).collect();
        graph.conclusion.extend(warnings);
        graph.conclusion.sort_by_key(|s| s.first);
        if let Some(a) = status.ahead.filter(|a| *a > 0) {
            graph.counts.push(("ahead".into(), a));
        }
        if let Some(b) = status.behind.filter(|b| *b > 0) {
            graph.counts.push(("behind".into(), b));
        }
        by_state.sort_by_key(|(s, _)| *s as u8);
        for (s, n) in by_state {
            graph.counts.push((s.word().replace('+', " and "), n));
        }
        graph.outcome = match artifact.exit {
            Exit::Signal(_) => Outcome::Interrupted,
            e if e.is_failure() => Outcome::Error,
            _ if graph.items.iter().any(|i| i.kind == ItemKind::Diagnostic) => Outcome::Error,
            Exit::Unknown => Outcome::Unknown,
            _ => Outcome::Ok,
        };
        let mut receipt = CoverageReceipt::new(total as u64);
        receipt.items_parsed = status.paths.len() as u64;
        receipt.blocks_parsed = status.paths.len() as u64;
        receipt.truncated = artifact.truncated;
        (graph, receipt)
    }
}

fn path_item(p: &PathLine) -> EvidenceItem {
    let severity = match p.state {
        State::Conflicted => Severity::Error,
        _ => Severity::Info,
    };
    let mut item = EvidenceItem::new(ItemKind::StatusPath, severity, p.path.clone());
    item.class = Some(p.state.word().to_string());
    item.location = Some(Location {
        file: p.path.clone(),
        line: None,
        column: None,
    });
    item.headline = Some(Span::line(p.line));
    item.block = Some(Span::line(p.line));
    let dir = p
        .path
        .trim_end_matches('/')
        .rsplit_once('/')
        .map_or("./".to_string(), |(d, _)| format!("{d}/"));
    let f = &mut item.fields;
    f.insert("change".into(), p.change.clone());
    f.insert("group".into(), dir);
    f.insert("group_by".into(), "directory".into());
    if matches!(p.state, State::Untracked | State::Ignored) {
        f.insert("rank".into(), "1".into());
    }
    if let Some(from) = &p.from {
        f.insert("from".into(), from.clone());
    }
    item
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands() {
        let argv = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        assert!(GitStatus.by_command(&argv("git status -sb")).is_some());
        assert!(
            GitStatus
                .by_command(&argv("git -C repo status --porcelain=v2"))
                .is_some()
        );
        assert!(GitStatus.by_command(&argv("git stash")).is_none());
    }
}
