//! git status's own shapes, for output that no longer names its command.
//!
//! The long form opens with `On branch X`, `HEAD detached at/from X` or
//! `Not currently on any branch.` and goes on with one of git's own
//! sentences (`Your branch …`, `Changes to be committed:`, `nothing to
//! commit`…) within a few lines. Short and porcelain v1: at least two
//! lines, every line of the head, of `XY path` (two status letters from
//! git's set, then a space) after an optional `## branch` line.
//! Porcelain v2: `# branch.oid`/`# branch.head` headers or `1 `/`2 `/`u `
//! records with their `XY` and submodule fields. Refused: a status quoted
//! among other lines (a log, a CI job), a single `XY path` line, and the
//! `-z` forms (one NUL-separated line).

use std::sync::LazyLock;

use regex::Regex;

use crate::profiles::sniff;

/// The short form's `XY path`: index and work-tree columns from git's
/// status letters, at least one of them set.
static SHORT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:[MTADRCU?!][ MTADRCU?!]|[ ][MTADRCU]) \S").expect("static"));

/// Porcelain v2: an ordinary (`1`), renamed (`2`) or unmerged (`u`)
/// record with its `XY` and submodule field, or an untracked/ignored path.
static V2: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[12u] [.MTADRCU]{2} [NS][.C][.M][.U] |[?!] \S|# branch\.)").expect("static")
});

/// The sentences of the long form, one of which follows its branch line.
const LONG_FOLLOWERS: &[&str] = &[
    "Your branch ",
    "Changes to be committed:",
    "Changes not staged for commit:",
    "Untracked files:",
    "nothing to commit",
    "nothing added to commit",
    "no changes added to commit",
    "You have unmerged paths.",
    "All conflicts fixed",
    "No commits yet",
    "Unmerged paths:",
    "You are currently ",
    "interactive rebase in progress",
];

/// Why a head is git status's, when it is.
pub fn detect(head: &str) -> Option<String> {
    let lines = sniff::lines(head);
    let first = *lines.first()?;
    if first.starts_with("On branch ")
        || first.starts_with("HEAD detached ")
        || first == "Not currently on any branch."
    {
        let followed = lines
            .iter()
            .skip(1)
            .take(8)
            .any(|l| LONG_FOLLOWERS.iter().any(|f| l.starts_with(f)));
        return followed.then(|| "`On branch …` and git status's sections".to_string());
    }
    if first.starts_with("# branch.") || first.starts_with("1 ") || first.starts_with("2 ") {
        return sniff::all_of(&lines, 2, |l| V2.is_match(l))
            .then(|| "git status --porcelain=v2 records".to_string());
    }
    let paths = lines.strip_prefix(&[first][..]).filter(|_| first.starts_with("## "));
    let paths = paths.unwrap_or(&lines);
    sniff::all_of(paths, 2, |l| SHORT.is_match(l))
        .then(|| "a run of `XY path` lines (git status --short)".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert!(detect("## main\n M a.rs\n?? b.rs\n").is_some());
        assert!(detect("On branch main\nnothing to commit, working tree clean\n").is_some());
        // One path line, or a sentence that starts like a branch line.
        assert!(detect(" M a.rs\n").is_none());
        assert!(detect("On branch protection, see below\nhello\n").is_none());
        assert!(detect("AB cd\nEF gh\n").is_none());
    }
}
