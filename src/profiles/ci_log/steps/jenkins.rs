//! Jenkins pipeline console logs (`consoleText`): the build's cause and
//! the checkout of its Jenkinsfile, `[Pipeline] Start of Pipeline`, then
//! each stage between `[Pipeline] { (NAME)` and `[Pipeline] // stage`
//! (a parallel branch, `{ (Branch: NAME)`, is read as a stage too), the
//! pipeline's own lines between them, and the verdict, `Finished:
//! SUCCESS` or `FAILURE`, `UNSTABLE`, `ABORTED`. `ERROR:` lines are
//! Jenkins' errors (`ERROR: script returned exit code 2`); a stage that
//! failed is the one before the first that says it was `skipped due to
//! earlier failure(s)`, or the one an `ERROR:` line stands in.

use super::{Reader, clip};

/// The line every pipeline log holds once its Jenkinsfile is loaded.
pub(super) const START: &str = "[Pipeline] Start of Pipeline";
/// How far into a log the start is looked for.
pub(super) const HEAD_LINES: usize = 500;
/// The name of a step made of the pipeline's lines outside any stage.
const PIPELINE: &str = "(pipeline)";
/// The verdict of a build that passed.
pub(super) const SUCCESS: &str = "Finished: SUCCESS";
/// Stages Declarative Pipeline runs after the others, whatever happened.
const POST: &str = "Declarative: Post Actions";

/// `Finished: RESULT`, the last line of a build.
pub(super) fn is_verdict(text: &str) -> bool {
    text.strip_prefix("Finished: ").is_some_and(|r| {
        ["SUCCESS", "FAILURE", "UNSTABLE", "ABORTED", "NOT_BUILT"].contains(&r.trim_end())
    })
}

impl Reader {
    pub(super) fn jenkins(&mut self, n: usize, text: &str) {
        let text = text.trim_end();
        if let Some(name) = text
            .strip_prefix("[Pipeline] { (")
            .and_then(|t| t.strip_suffix(')'))
        {
            self.open(n, clip(name), None);
            self.depth = 1;
            return;
        }
        if self.depth > 0 {
            self.extend(n, PIPELINE);
            if text == "[Pipeline] // stage" || text == "[Pipeline] // parallel" {
                self.depth = 0;
            }
            if text.starts_with("Stage \"") && text.contains("\" skipped due to ") {
                let at = self.steps.len() - 1;
                self.steps[at].skipped = true;
                if text.contains("skipped due to earlier failure") && self.skipped_after_failure.is_none() {
                    self.skipped_after_failure = Some(at);
                }
            }
        } else {
            match self.steps.last() {
                Some(s) if s.name == PIPELINE => self.extend(n, PIPELINE),
                _ => self.open(n, PIPELINE.into(), None),
            }
        }
        if is_verdict(text) {
            self.completed = true;
            if text != SUCCESS {
                self.job_failed = Some(self.job_failed.unwrap_or(1));
            }
        }
        if let Some(code) = super::exit_code(text).filter(|_| text.starts_with("ERROR: ")) {
            self.job_failed = Some(code);
        }
    }

    /// A failed build's failing stage: the one before the first skipped
    /// because of an earlier failure, else the last stage that ran (the
    /// post actions aside), unless an `ERROR:` line already failed one;
    /// the `ERROR:` lines and the verdict outside any stage are told with it.
    pub(super) fn jenkins_finish(&mut self) {
        let Some(code) = self.job_failed else {
            return;
        };
        let stage = |s: &super::Step| s.name != PIPELINE && s.name != POST;
        let end = self.skipped_after_failure.unwrap_or(self.steps.len());
        let Some(at) = self.steps[..end].iter().rposition(stage) else {
            return;
        };
        let failed_inside = self.annotations.iter().any(|a| {
            a.severity == crate::evidence::Severity::Error
                && !is_verdict(&a.text)
                && stage(&self.steps[a.step])
        });
        if !failed_inside {
            self.steps[at].failed = true;
        }
        if self.steps[at].exit.is_none() {
            self.steps[at].exit = Some(code);
        }
        for a in &mut self.annotations {
            if a.severity == crate::evidence::Severity::Error && self.steps[a.step].name == PIPELINE {
                a.step = at;
            }
        }
    }
}
