//! Azure Pipelines job logs: `##[section]Starting: NAME` opens a step
//! (the job's own section opens first, around them all) and
//! `##[section]Finishing: NAME` closes it; `##[error]` and `##[warning]`
//! lines are the annotations, as GitHub's (whose runner grew out of
//! Azure's agent); a failing task says `Bash exited with code 'N'.`.

use super::{CUT, Reader};

/// What opens a step.
pub(super) const STARTING: &str = "##[section]Starting: ";
const FINISHING: &str = "##[section]Finishing: ";
/// The agent's last step: the log reaches the job's end.
const FINALIZE: &str = "Finalize Job";

impl Reader {
    pub(super) fn azure(&mut self, n: usize, text: &str) {
        if let Some(name) = text.strip_prefix(STARTING) {
            self.open(n, super::clip(name.trim()), None);
            return;
        }
        // Lines after a step's closing marker and before the next one
        // (the agent's own) stay with the step that just closed.
        self.extend(n, CUT);
        if text
            .strip_prefix(FINISHING)
            .is_some_and(|name| name.trim() == FINALIZE)
        {
            self.completed = true;
        }
    }
}
