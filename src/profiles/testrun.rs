//! What every test-runner extractor shares, and nothing else: the outcome
//! rule (facts and exit status together), the coverage receipt's precision
//! rule, the wrapper prefixes stripped before a command is recognised, and
//! turning a set of decisive line numbers into spans.
//!
//! The rules live here once so that pytest, cargo test, go test, jest,
//! vitest and JUnit cannot drift apart on the two questions a reader relies
//! on most: "is this run green?" and "is this list of failures complete?".

use crate::artifact::{Artifact, Exit, Span};
use crate::evidence::{CoverageReceipt, Outcome, Precision};

/// Launchers that run the next word as the command (`uv run pytest`,
/// `npx jest`). Classification looks through them; the command keeps them.
const WRAPPERS: &[(&str, &[&str])] = &[
    ("uv", &["run"]),
    ("poetry", &["run"]),
    ("pipenv", &["run"]),
    ("pdm", &["run"]),
    ("hatch", &["run"]),
    ("rye", &["run"]),
    ("npx", &[]),
    ("bunx", &[]),
    ("pnpm", &["exec", "dlx"]),
    ("yarn", &[]),
    ("env", &[]),
];

/// The command words with launchers, `python -m` and directory parts
/// removed: `["/usr/bin/python3", "-m", "pytest", "-q"]` → `["pytest", "-q"]`.
pub fn command_words(argv: &[String]) -> Vec<&str> {
    let mut words: Vec<&str> = argv.iter().map(String::as_str).collect();
    loop {
        let Some(first) = words.first().map(|w| basename(w)) else {
            return words;
        };
        if let Some((_, subs)) = WRAPPERS.iter().find(|(name, _)| *name == first) {
            let skip = match words.get(1) {
                Some(sub) if subs.contains(sub) => 2,
                _ if subs.is_empty() => 1,
                _ => return words,
            };
            words.drain(..skip);
            // `env A=1 cmd`, `npx --yes jest`: assignments and flags are not the command.
            while words
                .first()
                .is_some_and(|w| w.contains('=') || w.starts_with('-'))
            {
                words.remove(0);
            }
            continue;
        }
        if first.starts_with("python") && words.get(1) == Some(&"-m") && words.len() > 2 {
            words.drain(..2);
            continue;
        }
        words[0] = basename(words[0]);
        return words;
    }
}

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// What an extractor established, for the outcome rule.
#[derive(Clone, Copy, Debug, Default)]
pub struct Facts {
    /// Census items parsed (failing tests, errors, suites that did not run).
    pub failures: usize,
    /// The tool's final summary line was seen.
    pub summary_seen: bool,
    /// The run was cut short by the user (KeyboardInterrupt, SIGINT).
    pub interrupted: bool,
    /// The run could not test anything: collection errors, no tests, build failure.
    pub not_run: bool,
    /// Failures and errors the tool's own summary announced (`2 errors`),
    /// whether or not their identities were parsed.
    pub announced: u64,
    /// The runner itself broke: an internal error, a usage error, a crash.
    pub crashed: bool,
}

/// The outcome the facts and the exit status together support. A failed
/// exit never reads as green; a green exit with failures parsed reads as
/// UNKNOWN, because one of the two is lying and the reader must look.
/// Without an exit status (`ctx digest`, `ctx pipe`) only evidence of a
/// clean, complete run reads as PASSED: the summary line seen, announcing
/// no failure or error, and nothing that says the runner broke.
pub fn outcome(exit: Exit, facts: Facts) -> Outcome {
    if facts.interrupted {
        return Outcome::Interrupted;
    }
    if facts.not_run || facts.crashed {
        return Outcome::Error;
    }
    match (facts.failures > 0 || facts.announced > 0, exit) {
        (true, Exit::Code(0)) => Outcome::Unknown,
        (true, _) => Outcome::Failed,
        (false, Exit::Code(0)) => Outcome::Passed,
        (false, Exit::Unknown) if facts.summary_seen => Outcome::Passed,
        (false, _) => Outcome::Unknown,
    }
}

/// The receipt's verdict on completeness. Missing summary lines mean the
/// output may have been cut; a count mismatch means a failure was missed.
pub fn receipt(
    artifact: &Artifact,
    parsed: usize,
    announced: Option<u64>,
    blocks: usize,
    unmatched: usize,
    summary_seen: bool,
) -> CoverageReceipt {
    let mut r = CoverageReceipt::new(artifact.line_count() as u64);
    r.items_parsed = parsed as u64;
    r.items_announced = announced;
    r.blocks_parsed = blocks as u64;
    r.lines_unmatched = unmatched as u64;
    r.truncated = artifact.truncated || !summary_seen;
    r.precision = if !summary_seen {
        Precision::Degraded("no summary line: output may be truncated".into())
    } else {
        match announced {
            Some(n) if n != parsed as u64 => Precision::Degraded(format!(
                "parsed {parsed} of {n} failure{} the summary announced",
                if n == 1 { "" } else { "s" }
            )),
            _ => Precision::Full,
        }
    };
    r
}

/// Sorted, deduplicated line numbers as spans of consecutive lines, keeping
/// at most `cap` lines (the earliest: decisive lines are chosen in order).
pub fn spans(lines: &[usize], cap: usize) -> Vec<Span> {
    let mut sorted: Vec<usize> = lines.iter().copied().filter(|&n| n >= 1).collect();
    sorted.sort_unstable();
    sorted.dedup();
    sorted.truncate(cap);
    let mut out: Vec<Span> = Vec::new();
    for n in sorted {
        match out.last_mut() {
            Some(last) if last.last + 1 == n => last.last = n,
            _ => out.push(Span::line(n)),
        }
    }
    out
}

/// A path as the project names it: the run's cwd prefix removed.
pub fn relative(path: &str, cwd: Option<&str>) -> String {
    if let Some(cwd) = cwd {
        let cwd = cwd.trim_end_matches('/');
        if let Some(rest) = path.strip_prefix(cwd).and_then(|r| r.strip_prefix('/')) {
            return rest.to_string();
        }
    }
    path.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn wrappers_are_looked_through() {
        assert_eq!(command_words(&argv("uv run pytest -q")), ["pytest", "-q"]);
        assert_eq!(
            command_words(&argv("/usr/bin/python3 -m pytest")),
            ["pytest"]
        );
        assert_eq!(command_words(&argv("npx --yes jest")), ["jest"]);
        assert_eq!(
            command_words(&argv("env CI=1 go test ./...")),
            ["go", "test", "./..."]
        );
        assert_eq!(
            command_words(&argv("uv pip install")),
            ["uv", "pip", "install"]
        );
        assert!(command_words(&[]).is_empty());
    }

    #[test]
    fn failed_exit_is_never_green() {
        let none = Facts {
            summary_seen: true,
            ..Facts::default()
        };
        assert_eq!(outcome(Exit::Code(1), none), Outcome::Unknown);
        assert_eq!(outcome(Exit::Code(0), none), Outcome::Passed);
        let one = Facts {
            failures: 1,
            ..none
        };
        assert_eq!(outcome(Exit::Code(0), one), Outcome::Unknown);
        assert_eq!(outcome(Exit::Code(1), one), Outcome::Failed);
    }

    #[test]
    fn unknown_exit_is_green_only_on_clean_evidence() {
        let clean = Facts {
            summary_seen: true,
            ..Facts::default()
        };
        assert_eq!(outcome(Exit::Unknown, clean), Outcome::Passed);
        assert_eq!(outcome(Exit::Unknown, Facts::default()), Outcome::Unknown);
        let announced = Facts {
            announced: 2,
            ..clean
        };
        assert_eq!(outcome(Exit::Unknown, announced), Outcome::Failed);
        assert_eq!(outcome(Exit::Code(0), announced), Outcome::Unknown);
        let crashed = Facts {
            crashed: true,
            ..clean
        };
        assert_eq!(outcome(Exit::Unknown, crashed), Outcome::Error);
        assert_eq!(
            outcome(Exit::Signal(11), Facts::default()),
            Outcome::Unknown
        );
    }

    #[test]
    fn spans_merge_and_cap() {
        assert_eq!(
            spans(&[5, 3, 4, 9], 10),
            vec![Span::new(3, 5), Span::line(9)]
        );
        assert_eq!(spans(&[1, 2, 3], 2), vec![Span::new(1, 2)]);
    }
}
