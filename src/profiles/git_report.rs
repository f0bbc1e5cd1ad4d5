//! Reads what git prints while it merges or moves history — `merge`,
//! `rebase`, `cherry-pick`, `revert`, `pull`, `push`, `fetch`, `clone` —
//! into the facts both git_merge/v1 and git_sync/v1 keep: conflicted
//! paths, ref updates, errors verbatim, the result lines; progress,
//! `Auto-merging` and `hint:` lines counted and left out.

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::{Artifact, Exit, Span};
use crate::evidence::{
    CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Location, Outcome, Severity,
};

/// ` * [new branch]      release -> release`, `   a..b  main -> main`,
/// ` ! [rejected]        main -> main (fetch first)`.
static REF_UPDATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^ ([ +*!=t-]) (\[[^\]]+\]|[0-9a-f]+\.\.\.?[0-9a-f]+)\s+(\S.*?)\s+-> (\S+)(?: \((.+)\))?$",
    )
    .expect("static")
});

/// Words opening a progress line, after an optional `remote: `.
const PROGRESS: &[&str] = &[
    "Enumerating objects:",
    "Counting objects:",
    "Compressing objects:",
    "Receiving objects:",
    "Resolving deltas:",
    "Unpacking objects:",
    "Writing objects:",
    "Delta compression using",
    "Total ",
    "Updating files:",
    "Checking out files:",
    "Checking connectivity:",
];

/// The facts of one run, before they become a graph.
#[derive(Debug, Default)]
struct Report {
    items: Vec<EvidenceItem>,
    kept: Vec<usize>,
    left_out: u64,
}

fn is_progress(text: &str) -> bool {
    let t = text.strip_prefix("remote: ").unwrap_or(text);
    PROGRESS.iter().any(|p| t.starts_with(p)) || t.starts_with("Rebasing (")
}

/// The path of a `CONFLICT (kind): …` line.
fn conflict_path(text: &str) -> Option<String> {
    let rest = text.strip_prefix("CONFLICT (")?;
    let (_, what) = rest.split_once("): ")?;
    if let Some((_, p)) = what.split_once("Merge conflict in ") {
        return Some(p.trim().to_string());
    }
    // `modify/delete`, `rename/delete`, `file/directory`: the path first.
    what.split(' ').next().map(str::to_string)
}

fn read(texts: &[String]) -> Report {
    let mut r = Report::default();
    for (i, text) in texts.iter().enumerate() {
        let n = i + 1;
        let trimmed = text.trim();
        if trimmed.is_empty() {
            continue;
        }
        // The transfer's own total (`Receiving objects: 100% (258/258),
        // 61.17 KiB | 10 MiB/s, done.`) is a result; the steps before it are not.
        let total = text.starts_with("Receiving objects: 100%") && text.ends_with(", done.");
        if !total
            && (is_progress(text) || text.starts_with("hint:") || text.starts_with("Auto-merging "))
        {
            r.left_out += 1;
            continue;
        }
        if let Some(path) = conflict_path(text) {
            let mut item = EvidenceItem::new(ItemKind::Conflict, Severity::Error, path.clone());
            let kind = text["CONFLICT (".len()..].split(')').next().unwrap_or("");
            item.class = Some(kind.to_string());
            item.location = Some(Location {
                file: path.clone(),
                line: None,
                column: None,
            });
            item.headline = Some(Span::line(n));
            item.block = Some(Span::line(n));
            group_by_directory(&mut item, &path);
            r.items.push(item);
            continue;
        }
        if let Some(c) = REF_UPDATE.captures(text) {
            let flag = &c[1];
            let id = format!("{} -> {}", &c[3], &c[4]);
            let severity = if flag == "!" {
                Severity::Error
            } else {
                Severity::Info
            };
            let mut item = EvidenceItem::new(ItemKind::RefUpdate, severity, id);
            item.class = Some(c[2].trim_matches(['[', ']']).to_string());
            if let Some(why) = c.get(5) {
                item.summary = Some(why.as_str().to_string());
            }
            item.headline = Some(Span::line(n));
            item.block = Some(Span::line(n));
            r.items.push(item);
            continue;
        }
        if text.starts_with("error:") || text.starts_with("fatal:") {
            let mut item = EvidenceItem::new(ItemKind::Diagnostic, Severity::Error, trimmed);
            item.headline = Some(Span::line(n));
            item.block = Some(Span::line(n));
            r.items.push(item);
            continue;
        }
        // A diffstat's file line: ` src/lib.rs | 6 ++++++`. Every changed
        // file is an identity (the census lists them all up to the
        // ceiling, then by directory), never cut to the summary line.
        if text.starts_with(' ')
            && let Some((path, stat)) = text.split_once(" | ")
        {
            let path = path.trim();
            let mut item = EvidenceItem::new(ItemKind::ChangedFile, Severity::Info, path);
            item.summary = Some(stat.trim().to_string());
            item.headline = Some(Span::line(n));
            item.block = Some(Span::line(n));
            group_by_directory(&mut item, path);
            r.items.push(item);
            continue;
        }
        r.kept.push(n);
    }
    r
}

/// The graph of one merge or transfer run, `tool` its header name.
pub(crate) fn extract(artifact: &Artifact, tool: &str) -> (EvidenceGraph, CoverageReceipt) {
    let total = artifact.line_count();
    let texts: Vec<String> = (1..=total)
        .map(|n| super::visible(artifact, n).into_owned())
        .collect();
    let mut r = read(&texts);
    let mut graph = EvidenceGraph::empty();
    graph.reader = crate::evidence::Reader::family(tool);
    r.kept.sort_unstable();
    graph.conclusion = r.kept.iter().map(|&n| Span::line(n)).collect();
    let count = |kind: ItemKind, sev: Option<Severity>| {
        r.items
            .iter()
            .filter(|i| i.kind == kind && sev.is_none_or(|s| i.severity == s))
            .count() as u64
    };
    let conflicts = count(ItemKind::Conflict, None);
    let refs = count(ItemKind::RefUpdate, None);
    let rejected = count(ItemKind::RefUpdate, Some(Severity::Error));
    let errors = count(ItemKind::Diagnostic, None);
    for (one, many, n) in [
        ("conflict", "conflicts", conflicts),
        ("ref update", "ref updates", refs),
        ("rejected", "rejected", rejected),
        ("error", "errors", errors),
    ] {
        if n > 0 {
            graph
                .counts
                .push((if n == 1 { one } else { many }.to_string(), n));
        }
    }
    graph.outcome = match artifact.exit {
        Exit::Signal(_) => Outcome::Interrupted,
        e if e.is_failure() && (conflicts > 0 || rejected > 0) => Outcome::Failed,
        e if e.is_failure() => Outcome::Error,
        _ if conflicts > 0 || errors > 0 => Outcome::Failed,
        Exit::Unknown => Outcome::Unknown,
        _ => Outcome::Ok,
    };
    let mut receipt = CoverageReceipt::new(total as u64);
    receipt.items_parsed = r.items.len() as u64;
    receipt.blocks_parsed = r.items.len() as u64;
    receipt.truncated = artifact.truncated;
    graph.items = r.items;
    (graph, receipt)
}

/// Files past the census ceiling are counted under their directory.
fn group_by_directory(item: &mut EvidenceItem, path: &str) {
    let dir = path
        .rsplit_once('/')
        .map_or("./".into(), |(d, _)| format!("{d}/"));
    item.fields.insert("group".into(), dir);
    item.fields.insert("group_by".into(), "directory".into());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(String::from).collect()
    }

    #[test]
    fn conflicts_refs_and_errors() {
        let r = read(&lines(concat!(
            "Auto-merging README.md\nCONFLICT (content): Merge conflict in README.md\n",
            "CONFLICT (modify/delete): src/x.rs deleted in HEAD and modified in feature.\n",
            "To file:///tmp/r.git\n ! [rejected]        main -> main (fetch first)\n",
            " * [new tag]         v0.4.0 -> v0.4.0\n   f9c28fa..4739b79  main       -> origin/main\n",
            "error: failed to push some refs to 'x'\nhint: Updates were rejected\n",
            "remote: Counting objects: 100% (3/3), done.\n",
        )));
        let ids: Vec<&str> = r.items.iter().map(|i| i.identity.as_str()).collect();
        assert_eq!(
            ids,
            [
                "README.md",
                "src/x.rs",
                "main -> main",
                "v0.4.0 -> v0.4.0",
                "main -> origin/main",
                "error: failed to push some refs to 'x'"
            ]
        );
        assert_eq!(r.items[2].severity, Severity::Error);
        assert_eq!(r.items[2].summary.as_deref(), Some("fetch first"));
        assert_eq!(r.kept, vec![4]);
        assert_eq!(r.left_out, 3);
    }
}
