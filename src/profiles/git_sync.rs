//! git_sync/v1 — `git push`, `git pull`, `git fetch`, `git clone`.
//!
//! **Decision.** Did the refs move as meant: what was pushed or fetched,
//! what the remote refused and why, what a pull merged or left in
//! conflict, where a clone went.
//!
//! **Unsafe loss.** A refused ref (`! [rejected]`) or an `error:`/`fatal:`
//! line dropped or reworded (the reader believes the push landed); a
//! conflicted path of a pull left unnamed; progress noise crowding out the
//! result.
//!
//! **Typed facts.** One `RefUpdate` per ref line (` * [new branch] a -> a`,
//! `   f9c28fa..4739b79  main -> main`, ` ! [rejected] …`): identity
//! `src -> dst`, class the summary (`new branch`, `rejected`, the range),
//! summary git's reason in parentheses, severity error when refused. Pull
//! conflicts as `Conflict`s, errors as error `Diagnostic`s, both verbatim;
//! each file of a pull's diffstat a `ChangedFile` (its line, required).
//! `To …`/`From …`, `Cloning into …`, `Updating a..b`, `Fast-forward` and
//! the other result lines kept verbatim; progress (`Receiving objects`,
//! `remote: Counting objects`…) and `hint:` lines left out. Read by
//! `git_report`, shared with git_merge/v1.
//!
//! **Ladder.** VERBATIM (fits: most runs without `--progress`) → every
//! ref update, conflict, error and result line, progress removed → FLOOD
//! (a fetch of thousands of refs): listed while they fit, all behind
//! `--items`.

use crate::artifact::Artifact;
use crate::evidence::{CoverageReceipt, EvidenceGraph};

use super::{Profile, ProfileSpec, ReceiptGroup};
use super::git_command::subcommand;

pub struct GitSync;

const SUBCOMMANDS: &[&str] = &["push", "pull", "fetch", "clone"];

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["git push", "git pull", "git fetch", "git clone"],
    ..ProfileSpec::new("git_sync/v1", "git_sync", ReceiptGroup::Everyday)
};

impl Profile for GitSync {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn by_command(&self, argv: &[String]) -> Option<String> {
        let (sub, _) = subcommand(argv)?;
        SUBCOMMANDS
            .contains(&sub)
            .then(|| format!("git {sub} (refs moved, errors verbatim)"))
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let tool = subcommand(&artifact.argv)
            .map_or("git push".to_string(), |(sub, _)| format!("git {sub}"));
        super::git_report::extract(artifact, &tool)
    }
}
