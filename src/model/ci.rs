//! The CI outputs a run adds beside its digest (docs/ci.md): GitHub
//! workflow-command annotations for the findings, and the markdown digest
//! appended to the job's step summary. A leaf: the CLI resolves it from
//! its flags and the environment, `pipeline::ci` writes it.

use std::path::PathBuf;

/// What the CI side of a delivery writes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ci {
    /// Print one workflow command per finding that names a file and line
    /// (`--annotate github`, or `GITHUB_ACTIONS=true`).
    pub annotate: bool,
    /// `--summary`: the file the markdown digest is appended to
    /// (`$GITHUB_STEP_SUMMARY`), or why there is none.
    pub summary: Option<Result<PathBuf, String>>,
}

impl Ci {
    /// Nothing beside the digest (the shims, `ctx explain`).
    pub fn none() -> Ci {
        Ci::default()
    }

    /// True when the facts of even a small output must be read: the
    /// annotations and the summary are made from them.
    pub fn wants_facts(&self) -> bool {
        self.annotate || self.summary.is_some()
    }
}
