//! grep's, rg's and git grep's own shapes, for output that no longer
//! names its command, and the flags each shape stands for (the reader
//! follows flags: `-c`, `--heading`, `--vimgrep`, context).
//!
//! Claimed, when every line of the head is one of them and there are at
//! least three: `path:line:text` (`grep -rn`, `git grep -n`, `rg -n`),
//! with `path-line-text` context and `--` separators; `path:line:col:text`
//! (`rg --vimgrep`); `path:count` (`grep -c`); rg's heading blocks (a path
//! line, then `line:text` lines, a blank line between files). Some path
//! must look like one (a `/` or a `.`), no path may be a bare number (a
//! clock's `12:30:45`), and no text may open like a diagnostic
//! (`error`, `warning`, `note`): a compiler no family claimed is
//! text/v1's, whose evidence layer keeps its failures.
//!
//! Refused, as they cannot be told by content: `grep -l`/`rg -l` (a bare
//! path list, the shape of `find`, `fd`, `gofmt -l`) and `rg` without line
//! numbers (`path:text`, the shape of any `key:value` list).

use std::sync::LazyLock;

use regex::Regex;

use crate::profiles::sniff;

/// `path:line:` or `path:line:col:`, and the text after it.
static LOCATED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([^\s:][^:]*):(\d+):(?:(\d+):)?(.*)$").expect("static"));
/// A context line, `path-line-text`.
static CONTEXT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[^\s:][^:]*?-\d+-").expect("static"));
/// `path:count`.
static COUNT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([^\s:][^:]*):(\d+)$").expect("static"));
/// A heading block's `line:text` or `line-text`.
static NUMBERED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\d+[:-]").expect("static"));

/// The least number of lines a shape must hold.
const RUN: usize = 3;

/// The shape of a head: the command it stands for, and why.
pub fn shape(head: &str) -> Option<(&'static [&'static str], &'static str)> {
    // Cheap: a search line names a line number after a colon.
    if !head.contains(':') {
        return None;
    }
    let lines = sniff::lines(head);
    if lines.len() < RUN {
        return None;
    }
    if located(&lines, false) {
        return Some(if lines.iter().any(|l| context(l)) {
            (&["grep", "-rn", "-C1", "x"], "a run of `path:line:text` lines with context")
        } else {
            (&["grep", "-rn", "x"], "a run of `path:line:text` lines")
        });
    }
    if located(&lines, true) {
        return Some((&["rg", "--vimgrep", "x"], "a run of `path:line:col:text` lines"));
    }
    if counts(&lines) {
        return Some((&["grep", "-rc", "x"], "a run of `path:count` lines"));
    }
    if headings(&lines) {
        return Some((&["rg", "-n", "--heading", "x"], "rg's heading blocks"));
    }
    None
}

/// Why a head is a search's, when it is: its shape, read whole by the
/// profile as the command the shape stands for.
pub fn detect(head: &str) -> Option<String> {
    let (argv, why) = shape(head)?;
    let lines = sniff::lines(head);
    sniff::reads_whole(&super::Search, &lines, argv, 1).then(|| why.to_string())
}

fn pathlike(path: &str) -> bool {
    path.contains(['/', '.'])
}

fn numeric(path: &str) -> bool {
    path.bytes().all(|b| b.is_ascii_digit())
}

/// A diagnostic's opening, which a match's text is not.
fn diagnostic(text: &str) -> bool {
    let t = text.trim_start().to_ascii_lowercase();
    ["error", "warning", "note:", "fatal", "info:"]
        .iter()
        .any(|w| t.starts_with(w))
}

fn context(line: &str) -> bool {
    line == "--" || (CONTEXT.is_match(line) && !LOCATED.is_match(line))
}

/// Every line located (`path:line:`, with a column when `columns`) or a
/// context line; at least [`RUN`] located ones.
fn located(lines: &[&str], columns: bool) -> bool {
    let mut hits = 0;
    let mut pathy = false;
    for line in lines {
        if let Some(c) = LOCATED.captures(line) {
            let path = &c[1];
            if numeric(path) || c.get(3).is_some() != columns || diagnostic(&c[4]) {
                return false;
            }
            pathy |= pathlike(path);
            hits += 1;
        } else if columns || !context(line) {
            return false;
        }
    }
    hits >= RUN && pathy
}

fn counts(lines: &[&str]) -> bool {
    let mut pathy = false;
    let all = lines.iter().all(|l| {
        COUNT.captures(l).is_some_and(|c| {
            pathy |= pathlike(&c[1]);
            !numeric(&c[1])
        })
    });
    all && pathy
}

/// rg --heading: a path line, its numbered lines, a blank line, the next
/// path. At least two files, or one with [`RUN`] lines.
fn headings(lines: &[&str]) -> bool {
    let mut expect_path = true;
    let (mut files, mut numbered) = (0, 0);
    for line in lines {
        if line.is_empty() {
            if expect_path {
                return false;
            }
            expect_path = true;
        } else if expect_path {
            if NUMBERED.is_match(line) || line.starts_with(char::is_whitespace) {
                return false;
            }
            files += 1;
            expect_path = false;
        } else if NUMBERED.is_match(line) {
            numbered += 1;
        } else if *line != "--" {
            return false;
        }
    }
    numbered >= 1 && (files >= 2 || numbered >= RUN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let rn = "src/a.rs:1:fn a\nsrc/a.rs:9:fn b\nsrc/b.rs:3:impl C\n";
        assert_eq!(shape(rn).map(|s| s.0[1]), Some("-rn"));
        let heading = "src/a.rs\n1:fn a\n9:fn b\n\nsrc/b.rs\n3:impl C\n";
        assert_eq!(shape(heading).map(|s| s.0[2]), Some("--heading"));
        let counts = "src/a.rs:2\nsrc/b.rs:0\nsrc/c.rs:7\n";
        assert_eq!(shape(counts).map(|s| s.0[1]), Some("-rc"));
    }

    #[test]
    fn refusals() {
        // Compiler diagnostics, clock times, bare paths.
        let cc = "a.c:1:2: error: x\na.c:3:4: warning: y\nb.c:5:6: error: z\n";
        assert!(shape(cc).is_none());
        assert!(shape("12:30:45 up\n12:31:00 down\n12:32:00 up\n").is_none());
        assert!(shape("src/a.rs\nsrc/b.rs\nsrc/c.rs\n").is_none());
    }
}
