//! The job's own failure verdicts, wherever they stand in the log. A job
//! is never read as passed while one of them is in it, whatever its steps
//! say: a Jenkins freestyle build ending `Finished: FAILURE` (no pipeline
//! markers, so no steps to fail), a Maven `BUILD FAILURE` inside a step
//! that exited 0, a GitLab `ERROR: Job failed`, a GitHub runner's
//! `Process completed with exit code N` outside any group.

use std::sync::LazyLock;

use aho_corasick::AhoCorasick;
use regex::Regex;

use crate::artifact::Artifact;
use crate::normalize;

/// Literal words without which no verdict matches (a buffer scan finds
/// the candidate lines; the pattern then reads each).
const WORDS: &[&str] = &[
    "Finished: ",
    "marked build as failure",
    "BUILD FAILURE",
    "Job failed",
    "Process completed with exit code",
    "FAILURE: Build failed",
];

static WORDS_IN_BUFFER: LazyLock<AhoCorasick> =
    LazyLock::new(|| AhoCorasick::new(WORDS).expect("static words build"));

/// A verdict line, after an optional timestamp or `[LEVEL]` prefix.
static VERDICT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:\S*\d\d:\d\d:\d\d\S*\s+)?(?:\[[A-Z]+\]\s+)?(?:##\[error\])?(?:",
        r"Finished: (?:FAILURE|UNSTABLE|ABORTED)\s*$",
        r"|Build step '[^']*' marked build as failure",
        r"|BUILD FAILURE\s*$",
        r"|ERROR: Job failed\b",
        r"|Process completed with exit code [1-9]\d*",
        r"|FAILURE: Build failed with an exception",
        r")",
    ))
    .expect("static pattern compiles")
});

/// The lines (1-based) of the log that are failure verdicts, in order.
pub fn lines(artifact: &Artifact) -> Vec<usize> {
    let bytes = artifact.bytes();
    let mut found = Vec::new();
    for hit in WORDS_IN_BUFFER.find_iter(bytes) {
        let n = artifact.line_at(hit.start());
        if found.last() == Some(&n) {
            continue;
        }
        if VERDICT.is_match(&normalize::line(artifact.line(n))) {
            found.push(n);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Exit;

    fn verdicts(log: &str) -> Vec<usize> {
        lines(&Artifact::from_stdout(log.as_bytes().to_vec(), Exit::Unknown, vec![]))
    }

    #[test]
    fn each_dialects_failure_verdict_is_found() {
        assert_eq!(
            verdicts("Started by user admin\nBuilding in workspace /x\n+ make\nBuild step 'Execute shell' marked build as failure\nFinished: FAILURE\n"),
            vec![4, 5]
        );
        assert_eq!(verdicts("[INFO] ----\n[INFO] BUILD FAILURE\n[INFO] ----\n"), vec![2]);
        assert_eq!(
            verdicts("2024-07-08T16:48:09.0000000Z ##[error]Process completed with exit code 2.\n"),
            vec![1]
        );
        assert_eq!(verdicts("ERROR: Job failed: exit code 1\n"), vec![1]);
        assert_eq!(verdicts("FAILURE: Build failed with an exception.\n"), vec![1]);
    }

    #[test]
    fn success_and_prose_are_not_verdicts() {
        assert!(verdicts("Finished: SUCCESS\n[INFO] BUILD SUCCESS\nProcess completed with exit code 0.\n").is_empty());
        assert!(verdicts("echo 'the build step marked build as failure when…'\n").is_empty());
        assert!(verdicts("  log.info(\"Finished: FAILURE path\")\n").is_empty());
    }
}
