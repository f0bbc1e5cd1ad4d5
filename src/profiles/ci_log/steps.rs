//! A job log cut into its steps, with every annotation and the step it
//! belongs to. Three dialects:
//!
//! - GitHub Actions raw logs: every line behind a timestamp; a step opens
//!   with its `##[group]Run …` header group (the action or the script's
//!   first line), the lines before the first one are "Set up job", `Post
//!   job cleanup.` opens a post step and `Cleaning up orphan processes`
//!   the "Complete job" step. A step failed when it holds an `##[error]`
//!   line; `Process completed with exit code N` gives its status.
//! - `gh run view --log`: each line names its job and step in two
//!   tab-separated columns before the timestamp: the steps are those.
//! - GitLab job traces: `section_start:TS:name` / `section_end:TS:name`
//!   (behind `\e[0K`, before `\r\e[0K`) bound each section; lines outside
//!   any section are the runner's own. `ERROR: Job failed: exit code N`
//!   fails the job and is charged to the last section that ran the job's
//!   script (not the runner's after-script, cache and artifact sections).
//!
//! - Azure Pipelines logs: `##[section]Starting: NAME` opens a step and
//!   `##[section]Finishing: NAME` ends it (`steps/azure.rs`).
//! - Jenkins pipeline console logs: `[Pipeline] { (NAME)` opens a stage,
//!   `[Pipeline] // stage` ends it, `Finished: FAILURE` fails the job
//!   (`steps/jenkins.rs`).
//!
//! A log with none of these markers is one step: the whole log
//! (`parts::divide` then cuts it where one tool's output gives way to
//! another's).

use std::sync::LazyLock;

use regex::bytes::Regex;

use crate::artifact::Artifact;
use crate::evidence::{Location, Severity};
use crate::normalize;

use super::prefix;

mod azure;
mod jenkins;

/// The name of a GitLab step made of the runner's lines between sections.
const RUNNER: &str = "(runner)";

/// GitHub's first step, which the runner's own lines make up.
const SET_UP: &str = "Set up job";
/// The lines before the first step marker of a log cut from a job's middle.
const CUT: &str = "(before the first step marker)";

/// The longest step name kept; a script's first line can be long.
const NAME_CHARS: usize = 80;

/// Which CI wrote the log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    GitHub,
    GhView,
    GitLab,
    Azure,
    Jenkins,
    Plain,
}

impl Dialect {
    /// The header's tool name.
    pub fn tool(self) -> &'static str {
        match self {
            Dialect::GitHub | Dialect::GhView => "github actions job",
            Dialect::GitLab => "gitlab job",
            Dialect::Azure => "azure pipelines job",
            Dialect::Jenkins => "jenkins pipeline",
            Dialect::Plain => "ci log",
        }
    }

    /// What a step is called in this dialect.
    pub fn step_noun(self) -> (&'static str, &'static str) {
        match self {
            Dialect::GitLab => ("section", "sections"),
            Dialect::Jenkins => ("stage", "stages"),
            _ => ("step", "steps"),
        }
    }
}

/// What a step is called in the log a header's tool names (the planner
/// and the renderer know the dialect by the graph's tool only).
pub fn nouns(tool: &str) -> (&'static str, &'static str) {
    [Dialect::GitLab, Dialect::Jenkins]
        .into_iter()
        .find(|d| d.tool() == tool)
        .map_or(("step", "steps"), Dialect::step_noun)
}

/// One step of the job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub name: String,
    /// The job, when the log names it (`gh run view --log`).
    pub job: Option<String>,
    pub first: usize,
    pub last: usize,
    /// The first line of what the step printed, after its header group.
    pub content_first: usize,
    pub failed: bool,
    /// The status the step or the job ended with, when the log says it.
    pub exit: Option<i32>,
    /// A part of a step cut where one tool's output gives way to
    /// another's (`parts::divide`): read by its family, failed or not.
    pub part: bool,
    /// The CI says it did not run the step (Jenkins: `Stage "X" skipped
    /// due to earlier failure(s)`, `… due to when conditional`).
    pub skipped: bool,
}

/// One annotation, verbatim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Annotation {
    pub line: usize,
    pub severity: Severity,
    /// The line as shown (after its prefix and ANSI).
    pub text: String,
    /// `file=…,line=…,col=…` of a `::error` workflow command.
    pub location: Option<Location>,
    /// The step it belongs to (index into `Job::steps`).
    pub step: usize,
}

/// The job as its log tells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    pub dialect: Dialect,
    pub steps: Vec<Step>,
    pub annotations: Vec<Annotation>,
    /// The log reaches the job's end (GitHub's "Complete job", GitLab's
    /// `Job succeeded` or `Job failed`).
    pub completed: bool,
}

/// GitLab's section markers, in the raw bytes (a `\r` follows them).
static SECTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"section_(start|end):\d+:([A-Za-z0-9_.\-]+)").expect("a valid pattern")
});

/// `Process completed with exit code N.`, GitLab's `Job failed: exit code
/// N`, Jenkins' `script returned exit code N`, Azure's `Bash exited with
/// code 'N'.`
static EXIT_CODE: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(
        r"(?:Process completed with exit code|Job failed: exit code|script returned exit code) (\d+)|exited with code '(\d+)'",
    )
    .expect("a valid pattern")
});

/// The GitLab runner's own sections that run after the job's script.
const AFTER_SCRIPT: [&str; 8] = [
    "after_script",
    "cleanup_file_variables",
    "archive_cache",
    "archive_cache_on_failure",
    "upload_artifacts",
    "upload_artifacts_on_failure",
    "upload_artifacts_on_success",
    "cleanup_build_dir",
];

/// Which dialect the log is in, from its first lines and its markers.
pub fn dialect(artifact: &Artifact) -> Dialect {
    let total = artifact.line_count();
    let head = 1..=total.min(20);
    let prefixes: Vec<prefix::Prefix> = head.clone().map(|n| prefix::of(artifact.line(n))).collect();
    // The markers as the agent writes them, without colour: the raw bytes
    // after the prefix are compared, no line is normalized for this.
    let text = |n: usize| {
        let raw = artifact.line(n);
        &raw[prefix::of(raw).len..]
    };
    if head.clone().any(|n| text(n).starts_with(azure::STARTING.as_bytes())) {
        return Dialect::Azure;
    }
    // A Jenkins log opens with its cause and the checkout of its
    // Jenkinsfile, screens of lines before the pipeline starts.
    if (1..=total.min(jenkins::HEAD_LINES))
        .any(|n| text(n).trim_ascii_end() == jenkins::START.as_bytes())
    {
        return Dialect::Jenkins;
    }
    if prefixes.iter().any(|p| p.job_step.is_some()) {
        return Dialect::GhView;
    }
    if prefixes.iter().any(|p| p.len > 0) {
        return Dialect::GitHub;
    }
    let gitlab = head.clone().any(|n| {
        normalize::line(super::super::window(artifact.line(n))).starts_with("Running with gitlab")
    }) || (1..=total).any(|n| SECTION.is_match(super::super::window(artifact.line(n))));
    if gitlab {
        Dialect::GitLab
    } else {
        Dialect::Plain
    }
}

/// The steps and annotations of a job log.
pub fn read(artifact: &Artifact) -> Job {
    let dialect = dialect(artifact);
    let mut r = Reader {
        dialect,
        steps: Vec::new(),
        annotations: Vec::new(),
        completed: false,
        in_header: false,
        depth: 0,
        job_failed: None,
        skipped_after_failure: None,
    };
    for n in 1..=artifact.line_count() {
        let raw = super::super::window(artifact.line(n));
        let p = prefix::of(raw);
        let text = normalize::line(&raw[p.len..]);
        match dialect {
            Dialect::GitHub => r.github(n, &text),
            Dialect::GhView => r.gh_view(n, p.job_step, &text),
            Dialect::GitLab => r.gitlab(n, &raw[p.len..], &text),
            Dialect::Azure => r.azure(n, &text),
            Dialect::Jenkins => r.jenkins(n, &text),
            Dialect::Plain => r.open(n, "(whole log)".into(), None),
        }
        r.annotation(n, &text);
    }
    r.finish(artifact.line_count())
}

struct Reader {
    dialect: Dialect,
    steps: Vec<Step>,
    annotations: Vec<Annotation>,
    completed: bool,
    /// Inside a GitHub step's `##[group]Run …` header group.
    in_header: bool,
    /// GitLab: sections open (nested ones count toward the outer one).
    depth: usize,
    /// GitLab: `ERROR: Job failed: exit code N` was read; Jenkins:
    /// `Finished: FAILURE` (or UNSTABLE, ABORTED).
    job_failed: Option<i32>,
    /// Jenkins: the first stage that says it was skipped because an
    /// earlier one failed.
    skipped_after_failure: Option<usize>,
}

impl Reader {
    /// Opens a step named `name` at line n; outside GitHub's raw logs a
    /// line of the step already open (same name and job) continues it.
    fn open(&mut self, n: usize, name: String, job: Option<String>) {
        if let Some(last) = self.steps.last_mut() {
            if last.name == name && last.job == job && self.dialect != Dialect::GitHub {
                last.last = n;
                return;
            }
            last.last = n - 1;
        }
        self.steps.push(Step {
            name,
            job,
            first: n,
            last: n,
            content_first: n,
            failed: false,
            exit: None,
            part: false,
            skipped: false,
        });
    }

    /// Line n continues the current step, or opens the first one.
    fn extend(&mut self, n: usize, first: &str) {
        match self.steps.last_mut() {
            Some(step) => step.last = n,
            None => self.open(n, first.into(), None),
        }
    }

    fn github(&mut self, n: usize, text: &str) {
        if let Some(run) = text.strip_prefix("##[group]Run ") {
            self.open(n, clip(&format!("Run {}", run.trim())), None);
            self.in_header = true;
            return;
        }
        if text.starts_with("Post job cleanup.") {
            self.open(n, "Post job cleanup".into(), None);
            self.steps.last_mut().expect("opened").content_first = n + 1;
            self.in_header = false;
            return;
        }
        if text.starts_with("Cleaning up orphan processes") {
            self.open(n, "Complete job".into(), None);
            self.completed = true;
            self.in_header = false;
            return;
        }
        // The runner's own lines open a whole job log; a log cut from
        // the middle of one opens inside a step it cannot name.
        let first = if text.starts_with("Current runner version") {
            SET_UP
        } else {
            CUT
        };
        self.extend(n, first);
        if self.in_header && text == "##[endgroup]" {
            self.in_header = false;
            self.steps.last_mut().expect("extended").content_first = n + 1;
        }
    }

    fn gh_view(&mut self, n: usize, job_step: Option<(&[u8], &[u8])>, text: &str) {
        match job_step {
            Some((job, step)) => {
                let step = String::from_utf8_lossy(step).trim().to_string();
                if step == "Complete job" {
                    self.completed = true;
                }
                let job = String::from_utf8_lossy(job).trim().to_string();
                self.open(n, clip(&step), Some(job));
            }
            None => self.extend(n, "(unnamed)"),
        }
        let _ = text;
    }

    fn gitlab(&mut self, n: usize, raw: &[u8], text: &str) {
        let inside = self.depth > 0;
        let mut started: Option<String> = None;
        for m in SECTION.captures_iter(raw) {
            if &m[1] == b"start" {
                if self.depth == 0 {
                    started = Some(String::from_utf8_lossy(&m[2]).into_owned());
                }
                self.depth += 1;
            } else {
                self.depth = self.depth.saturating_sub(1);
            }
        }
        match started {
            Some(name) => self.open(n, clip(&name), None),
            // A section's own lines, its closing marker included.
            None if inside => self.extend(n, RUNNER),
            // The runner's lines between sections: one step per run of them.
            None => match self.steps.last() {
                Some(s) if s.name == RUNNER => self.extend(n, RUNNER),
                _ => self.open(n, RUNNER.into(), None),
            },
        }
        if text.starts_with("Job succeeded") {
            self.completed = true;
        }
        if text.starts_with("ERROR: Job failed") {
            self.job_failed = Some(exit_code(text).unwrap_or(1));
            self.completed = true;
        }
    }

    fn annotation(&mut self, n: usize, text: &str) {
        let Some((severity, location)) = annotation(self.dialect, text) else {
            return;
        };
        let step = self.steps.len().saturating_sub(1);
        if severity == Severity::Error
            && !matches!(self.dialect, Dialect::GitLab | Dialect::Jenkins)
            && let Some(s) = self.steps.last_mut()
        {
            s.failed = true;
            if let Some(code) = exit_code(text) {
                s.exit = Some(code);
            }
        }
        self.annotations.push(Annotation {
            line: n,
            severity,
            text: text.to_string(),
            location,
            step,
        });
    }

    fn finish(mut self, total: usize) -> Job {
        if let Some(last) = self.steps.last_mut() {
            last.last = total.max(last.first);
        }
        if self.dialect == Dialect::Jenkins {
            self.jenkins_finish();
        }
        if self.dialect == Dialect::GitLab
            && let Some(code) = self.job_failed
        {
            let failing = self
                .steps
                .iter()
                .rposition(|s| s.name != RUNNER && !AFTER_SCRIPT.contains(&s.name.as_str()))
                .or(self.steps.len().checked_sub(1));
            if let Some(at) = failing {
                self.steps[at].failed = true;
                self.steps[at].exit = Some(code);
                // The job's failure line is told with the section it failed in.
                for a in &mut self.annotations {
                    if a.severity == Severity::Error && a.text.starts_with("ERROR: Job failed") {
                        a.step = at;
                    }
                }
            }
        }
        if matches!(self.dialect, Dialect::GitLab | Dialect::Jenkins) {
            // Any other runner ERROR line fails the step it stands in.
            for a in &self.annotations {
                if a.severity == Severity::Error
                    && !a.text.starts_with("ERROR: Job failed")
                    && !jenkins::is_verdict(&a.text)
                {
                    self.steps[a.step].failed = true;
                }
            }
        }
        Job {
            dialect: self.dialect,
            steps: self.steps,
            annotations: self.annotations,
            completed: self.completed,
        }
    }
}

/// The annotation a line is, if any: its severity and, for a workflow
/// command, the place it names.
fn annotation(dialect: Dialect, text: &str) -> Option<(Severity, Option<Location>)> {
    if dialect == Dialect::Jenkins && jenkins::is_verdict(text) && text != jenkins::SUCCESS {
        return Some((Severity::Error, None));
    }
    if matches!(dialect, Dialect::GitLab | Dialect::Jenkins) {
        return if text.starts_with("ERROR: ") {
            Some((Severity::Error, None))
        } else if text.starts_with("WARNING: ") {
            Some((Severity::Warning, None))
        } else {
            None
        };
    }
    for (word, severity) in [
        ("error", Severity::Error),
        ("warning", Severity::Warning),
        ("notice", Severity::Note),
    ] {
        if text
            .strip_prefix("##[")
            .and_then(|t| t.strip_prefix(word))
            .is_some_and(|t| t.starts_with(']'))
        {
            return Some((severity, None));
        }
        if let Some(rest) = text.strip_prefix("::").and_then(|t| t.strip_prefix(word))
            && (rest.starts_with(' ') || rest.starts_with("::"))
        {
            let params = rest.trim_start().split("::").next().unwrap_or("");
            return Some((severity, location(params)));
        }
    }
    None
}

/// `file=src/a.rs,line=3,col=5` → the place.
fn location(params: &str) -> Option<Location> {
    let mut file = None;
    let (mut line, mut column) = (None, None);
    for kv in params.split(',') {
        match kv.trim().split_once('=') {
            Some(("file", f)) => file = Some(f.to_string()),
            Some(("line", l)) => line = l.parse().ok(),
            Some(("col", c)) => column = c.parse().ok(),
            _ => {}
        }
    }
    Some(Location {
        file: file?,
        line,
        column,
    })
}

pub(super) fn exit_code(text: &str) -> Option<i32> {
    let c = EXIT_CODE.captures(text)?;
    c.get(1).or(c.get(2))?.as_str().parse().ok()
}

fn clip(name: &str) -> String {
    if name.chars().count() <= NAME_CHARS {
        return name.to_string();
    }
    let mut out: String = name.chars().take(NAME_CHARS - 1).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Exit;

    fn job(text: &str) -> Job {
        read(&Artifact::from_stdout(
            text.as_bytes().to_vec(),
            Exit::Unknown,
            vec![],
        ))
    }

    #[test]
    fn github_steps_and_annotations() {
        let j = job("2024-07-08T16:48:09.0000000Z Current runner version: '2.317.0'\n\
2024-07-08T16:48:09.0000000Z ##[group]Run actions/checkout@v4\n\
2024-07-08T16:48:09.0000000Z with:\n\
2024-07-08T16:48:09.0000000Z ##[endgroup]\n\
2024-07-08T16:48:09.0000000Z Syncing repository\n\
2024-07-08T16:48:09.0000000Z ##[group]Run pytest -q\n\
2024-07-08T16:48:09.0000000Z ##[endgroup]\n\
2024-07-08T16:48:09.0000000Z ::warning file=a.py,line=3::slow\n\
2024-07-08T16:48:09.0000000Z ##[error]Process completed with exit code 1.\n\
2024-07-08T16:48:09.0000000Z Post job cleanup.\n\
2024-07-08T16:48:09.0000000Z Cleaning up orphan processes\n");
        assert_eq!(j.dialect, Dialect::GitHub);
        let names: Vec<&str> = j.steps.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Set up job",
                "Run actions/checkout@v4",
                "Run pytest -q",
                "Post job cleanup",
                "Complete job"
            ]
        );
        let test = &j.steps[2];
        assert!(test.failed);
        assert_eq!(test.exit, Some(1));
        assert_eq!((test.first, test.content_first, test.last), (6, 8, 9));
        assert!(!j.steps[1].failed);
        assert_eq!(j.annotations.len(), 2);
        assert_eq!(j.annotations[0].step, 2);
        assert_eq!(
            j.annotations[0].location.as_ref().map(|l| l.file.as_str()),
            Some("a.py")
        );
        assert!(j.completed);
    }

    #[test]
    fn gitlab_sections_and_the_failing_one() {
        let j = job("\x1b[0KRunning with gitlab-runner 18.4.0\n\
\x1b[0Ksection_start:1:prepare_script\r\x1b[0KPreparing\nok\n\
section_end:2:prepare_script\r\x1b[0K\n\
\x1b[0Ksection_start:3:step_script\r\x1b[0KExecuting\n$ make\nboom\n\
section_end:4:step_script\r\x1b[0K\n\
\x1b[0Ksection_start:5:cleanup_file_variables\r\x1b[0KCleaning\n\
section_end:6:cleanup_file_variables\r\x1b[0K\n\
\x1b[31;1mERROR: Job failed: exit code 2\x1b[0;m\n");
        assert_eq!(j.dialect, Dialect::GitLab);
        let names: Vec<&str> = j.steps.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "(runner)",
                "prepare_script",
                "step_script",
                "cleanup_file_variables",
                "(runner)"
            ]
        );
        let script = &j.steps[2];
        assert!(script.failed);
        assert_eq!(script.exit, Some(2));
        assert_eq!((script.first, script.last), (5, 8));
        assert_eq!(j.annotations.len(), 1);
        assert_eq!(j.annotations[0].step, 2);
        assert!(j.completed);
    }

    #[test]
    fn azure_steps_and_the_failing_task() {
        let j = job("##[section]Starting: Linux\n\
##[section]Starting: Initialize job\nAgent name: 'a'\n##[section]Finishing: Initialize job\n\
##[section]Starting: Build\nmake\n##[error]Bash exited with code '2'.\n##[section]Finishing: Build\n\
##[section]Starting: Finalize Job\n##[section]Finishing: Finalize Job\n");
        assert_eq!(j.dialect, Dialect::Azure);
        let names: Vec<&str> = j.steps.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["Linux", "Initialize job", "Build", "Finalize Job"]);
        assert!(j.steps[2].failed);
        assert_eq!(j.steps[2].exit, Some(2));
        assert!(!j.steps[1].failed);
        assert!(j.completed);
    }

    #[test]
    fn jenkins_stages_and_the_one_that_failed() {
        let j = job("Started by user admin\n[Pipeline] Start of Pipeline\n[Pipeline] node\n\
[Pipeline] {\n[Pipeline] stage\n[Pipeline] { (Build)\n+ make\nok\n[Pipeline] }\n[Pipeline] // stage\n\
[Pipeline] stage\n[Pipeline] { (Test)\n+ pytest\n1 failed\n[Pipeline] }\n[Pipeline] // stage\n\
[Pipeline] stage\n[Pipeline] { (Deploy)\nStage \"Deploy\" skipped due to earlier failure(s)\n\
[Pipeline] }\n[Pipeline] // stage\n[Pipeline] End of Pipeline\n\
ERROR: script returned exit code 3\nFinished: FAILURE\n");
        assert_eq!(j.dialect, Dialect::Jenkins);
        let names: Vec<&str> = j.steps.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            ["(pipeline)", "Build", "(pipeline)", "Test", "(pipeline)", "Deploy", "(pipeline)"]
        );
        let failed: Vec<&str> = j.steps.iter().filter(|s| s.failed).map(|s| s.name.as_str()).collect();
        assert_eq!(failed, ["Test"]);
        assert_eq!(j.steps[3].exit, Some(3));
        let skipped: Vec<&str> = j.steps.iter().filter(|s| s.skipped).map(|s| s.name.as_str()).collect();
        assert_eq!(skipped, ["Deploy"]);
        // The error and the verdict are told with the stage that failed.
        assert_eq!(j.annotations.len(), 2);
        assert!(j.annotations.iter().all(|a| a.step == 3));
        assert!(j.completed);
        // A build that passed fails nothing.
        let ok = job("[Pipeline] Start of Pipeline\n[Pipeline] { (Build)\nok\n[Pipeline] // stage\nFinished: SUCCESS\n");
        assert!(ok.steps.iter().all(|s| !s.failed));
        assert!(ok.annotations.is_empty());
    }
}
