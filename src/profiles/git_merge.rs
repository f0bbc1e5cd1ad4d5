//! git_merge/v1 — `git merge`, `git rebase`, `git cherry-pick`,
//! `git revert`: the result, and every conflicted path.
//!
//! **Decision.** Did the history combine, and if not, which files to
//! resolve before `--continue` (or whether to `--abort`).
//!
//! **Unsafe loss.** A conflicted path left unnamed (the reader resolves
//! some, commits, and ships conflict markers); an `error:` line reworded
//! or dropped; a failed merge read as a clean one.
//!
//! **Typed facts.** One `Conflict` per `CONFLICT (kind): …` line: identity
//! the path, class the kind (`content`, `modify/delete`…), `group` its
//! directory. `error:`/`fatal:` lines as error `Diagnostic`s, verbatim.
//! Result lines (`Merge made by…`, `Fast-forward`, `Automatic merge
//! failed…`, `Could not apply …`) kept verbatim, with a diffstat of up to
//! 20 files; `Auto-merging`, `hint:` and progress lines left out. Read by
//! `git_report`, shared with git_sync/v1.
//!
//! **Ladder.** VERBATIM (fits) → every conflict, error and result line →
//! FLOOD (the conflicts alone exceed the ceiling): listed while they fit,
//! the rest counted by directory, all of them behind `--items`.

use crate::artifact::Artifact;
use crate::evidence::{CoverageReceipt, EvidenceGraph};

use super::{Profile, ProfileSpec, ReceiptGroup};
use super::git_command::subcommand;

pub struct GitMerge;

const SUBCOMMANDS: &[&str] = &["merge", "rebase", "cherry-pick", "revert"];

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["git merge", "git rebase", "git cherry-pick", "git revert"],
    ..ProfileSpec::new("git_merge/v1", "git_merge", ReceiptGroup::Everyday)
};

impl Profile for GitMerge {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn by_command(&self, argv: &[String]) -> Option<String> {
        let (sub, _) = subcommand(argv)?;
        SUBCOMMANDS
            .contains(&sub)
            .then(|| format!("git {sub} (a merge: result and conflicts)"))
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let tool = subcommand(&artifact.argv)
            .map_or("git merge".to_string(), |(sub, _)| format!("git {sub}"));
        super::git_report::extract(artifact, &tool)
    }
}
