//! git_refs/v1 — git's ref listings: `git branch` (`-a`, `-r`, `-v`,
//! `-vv`, `--list`), `git tag` (`-l`, `-n`), `git stash list`,
//! `git remote` (`-v`).
//!
//! **Decision.** Which branches, tags, stash entries or remotes exist, to
//! check one out, delete, push, apply or fetch from it.
//!
//! **Unsafe loss.** A ref left unnamed (the reader believes a branch or
//! tag does not exist and makes it again, or drops a stash believed
//! gone); the current branch's mark lost.
//!
//! **Typed facts.** One `RefName` per listed line: identity the ref as the
//! tool names it (`main`, `remotes/origin/main`, `v0.3.0`, `stash@{0}`,
//! `origin (fetch)`), summary the rest of the line (`-v`'s sha and
//! subject, a stash's message, a remote's URL), field `current` for the
//! checked-out branch, `group` the ref's prefix (`remotes/origin/`, `v0.3.`,
//! `stash`). Each line is kept raw.
//!
//! **Ladder.** VERBATIM (fits) → every line raw up to the ceiling → FLOOD:
//! refs listed while they fit, the rest counted by prefix, all behind
//! `--items`.

use crate::artifact::{Artifact, Exit, Span};
use crate::evidence::{CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Outcome, Severity};

use super::git_command::subcommand;
use super::{Profile, ProfileSpec, ReceiptGroup};

pub struct GitRefs;

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["git branch", "git tag", "git stash list", "git remote"],
    ..ProfileSpec::new("git_refs/v1", "git_refs", ReceiptGroup::Everyday)
};

/// What one listing lists.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Listing {
    Branch,
    Tag,
    Stash,
    Remote,
}

/// The listing argv runs, when it lists (a `git branch NAME` creates).
fn listing(argv: &[String]) -> Option<Listing> {
    let (sub, args) = subcommand(argv)?;
    let operands = args.iter().filter(|a| !a.starts_with('-')).count();
    let listing_flag = args.iter().any(|a| {
        matches!(*a, "-l" | "--list" | "-a" | "--all" | "-r" | "--remotes")
            || a.starts_with("--merged")
            || a.starts_with("--no-merged")
            || a.starts_with("--contains")
            || a.starts_with("--sort")
    });
    match sub {
        "branch" if operands == 0 || listing_flag => Some(Listing::Branch),
        "tag" if operands == 0 || listing_flag => Some(Listing::Tag),
        "stash" if args.first() == Some(&"list") => Some(Listing::Stash),
        "remote" if operands == 0 => Some(Listing::Remote),
        _ => None,
    }
}

impl Profile for GitRefs {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn by_command(&self, argv: &[String]) -> Option<String> {
        listing(argv).map(|_| "a git ref listing".to_string())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let kind = listing(&artifact.argv).unwrap_or(Listing::Branch);
        let total = artifact.line_count();
        let mut graph = EvidenceGraph::empty();
        graph.reader = crate::evidence::Reader::family(match kind {
            Listing::Branch => "git branch",
            Listing::Tag => "git tag",
            Listing::Stash => "git stash list",
            Listing::Remote => "git remote",
        });
        let mut unmatched = 0u64;
        for n in 1..=total {
            let text = super::visible(artifact, n);
            if text.trim().is_empty() {
                continue;
            }
            if text.starts_with("fatal:") || text.starts_with("error:") {
                let mut item =
                    EvidenceItem::new(ItemKind::Diagnostic, Severity::Error, text.trim());
                item.headline = Some(Span::line(n));
                item.block = Some(Span::line(n));
                graph.items.push(item);
                // Kept verbatim as a result line.
                graph.conclusion.push(Span::line(n));
                continue;
            }
            match ref_item(kind, &text, n) {
                Some(item) => graph.items.push(item),
                None => unmatched += 1,
            }
        }
        let refs = graph
            .items
            .iter()
            .filter(|i| i.kind == ItemKind::RefName)
            .count() as u64;
        let noun = match (kind, refs == 1) {
            (Listing::Branch, true) => "branch",
            (Listing::Branch, false) => "branches",
            (Listing::Tag, true) => "tag",
            (Listing::Tag, false) => "tags",
            (Listing::Stash, true) => "stash entry",
            (Listing::Stash, false) => "stash entries",
            (Listing::Remote, true) => "remote line",
            (Listing::Remote, false) => "remote lines",
        };
        graph.counts.push((noun.to_string(), refs));
        let errors = graph.items.len() as u64 - refs;
        graph.outcome = match artifact.exit {
            Exit::Signal(_) => Outcome::Interrupted,
            e if e.is_failure() => Outcome::Error,
            _ if errors > 0 => Outcome::Error,
            Exit::Unknown => Outcome::Unknown,
            _ => Outcome::Ok,
        };
        let mut receipt = CoverageReceipt::new(total as u64);
        receipt.items_parsed = refs;
        receipt.blocks_parsed = refs;
        receipt.lines_unmatched = unmatched;
        receipt.truncated = artifact.truncated;
        (graph, receipt)
    }
}

/// `v0.3.` of `v0.3.7`, `remotes/origin/` of `remotes/origin/main`.
fn prefix(name: &str) -> String {
    if let Some((dir, _)) = name.rsplit_once('/') {
        return format!("{dir}/");
    }
    match name.rsplit_once('.') {
        Some((head, _)) => format!("{head}."),
        None => "(top level)".to_string(),
    }
}

fn ref_item(kind: Listing, text: &str, n: usize) -> Option<EvidenceItem> {
    let (id, rest, current, group) = match kind {
        Listing::Branch => {
            // `* main`, `  feature`, `+ wt`, `* (HEAD detached at 1a2b3c4)`.
            let mark = text.get(..2)?;
            if !matches!(mark, "* " | "  " | "+ ") {
                return None;
            }
            let body = &text[2..];
            let (id, rest) = if body.starts_with('(') {
                let end = body.find(')').map_or(body.len(), |e| e + 1);
                (&body[..end], body[end..].trim())
            } else {
                let mut w = body.splitn(2, ' ');
                (w.next()?, w.next().unwrap_or("").trim())
            };
            (id.to_string(), rest.to_string(), mark == "* ", prefix(id))
        }
        Listing::Tag => {
            let mut w = text.splitn(2, ' ');
            let id = w.next()?.to_string();
            let rest = w.next().unwrap_or("").trim().to_string();
            let group = prefix(&id);
            (id, rest, false, group)
        }
        Listing::Stash => {
            let (id, rest) = text.split_once(": ")?;
            (id.to_string(), rest.to_string(), false, "stash".to_string())
        }
        Listing::Remote => {
            // `origin\tURL (fetch)` or just `origin`.
            let (name, url) = text.split_once('\t').unwrap_or((text, ""));
            let dir = url
                .rsplit_once(" (")
                .map(|(_, d)| format!(" ({d}"))
                .unwrap_or_default();
            let url = url.rsplit_once(" (").map_or(url, |(u, _)| u);
            (format!("{name}{dir}"), url.to_string(), false, name.to_string())
        }
    };
    if id.is_empty() {
        return None;
    }
    let mut item = EvidenceItem::new(ItemKind::RefName, Severity::Info, id);
    item.summary = (!rest.is_empty()).then_some(rest);
    item.headline = Some(Span::line(n));
    item.block = Some(Span::line(n));
    if current {
        item.fields.insert("current".into(), "yes".into());
    }
    item.fields.insert("group".into(), group);
    item.fields.insert("group_by".into(), "prefix".into());
    Some(item)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    #[test]
    fn listings_not_creations() {
        assert!(listing(&argv("git branch -a")).is_some());
        assert!(listing(&argv("git branch new-one")).is_none());
        assert!(listing(&argv("git branch --list feat*")).is_some());
        assert!(listing(&argv("git tag")).is_some());
        assert!(listing(&argv("git tag v1.0")).is_none());
        assert!(listing(&argv("git stash list")).is_some());
        assert!(listing(&argv("git stash")).is_none());
        assert!(listing(&argv("git remote -v")).is_some());
        assert!(listing(&argv("git remote add o u")).is_none());
    }

    #[test]
    fn lines() {
        let b = ref_item(Listing::Branch, "* main  d8738f8 Merge branch 'docs'", 1).unwrap();
        assert_eq!(b.identity, "main");
        assert_eq!(b.fields.get("current").map(String::as_str), Some("yes"));
        let r = ref_item(Listing::Branch, "  remotes/origin/HEAD -> origin/main", 2).unwrap();
        assert_eq!(r.identity, "remotes/origin/HEAD");
        assert_eq!(r.fields["group"], "remotes/origin/");
        let s = ref_item(Listing::Stash, "stash@{0}: WIP on main: abc subject", 3).unwrap();
        assert_eq!(s.identity, "stash@{0}");
        let o = ref_item(Listing::Remote, "origin\t/tmp/r.git (fetch)", 4).unwrap();
        assert_eq!(o.identity, "origin (fetch)");
        let t = ref_item(Listing::Tag, "v0.3.7", 5).unwrap();
        assert_eq!(t.fields["group"], "v0.3.");
    }
}
