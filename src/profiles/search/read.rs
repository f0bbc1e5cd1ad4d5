//! Reads the plain-text shapes of grep, rg and git grep output into
//! per-file groups: `path:line:text` lines (with `path-line-text` context
//! and `--` separators), headings, `path:count` lines and bare paths.
//!
//! A file's lines are contiguous in all of them, so a group is a run. A
//! line is attributed by the path the tool printed; a context line (`-`
//! separators, which paths may contain too) only to the file of a match
//! next to it, never by guessing where its path ends.

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::{Artifact, Stream};

use super::groups::{Found, Group};
use super::notices::binary_path;
use super::options::{Mode, Options};

static MATCH_N: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^(.+?):(\d+):").expect("static"));
static MATCH_COL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(.+?):(\d+):(\d+):").expect("static"));
static BARE_MATCH: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\d+:").expect("static"));
static BARE_CONTEXT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\d+-").expect("static"));
static COUNT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^(.*):(\d+)$").expect("static"));

/// The name grep gives its standard input.
const STDIN: &str = "(standard input)";

/// Reads every stdout line by the shape `o` names; stderr lines are
/// binary-file notices or errors.
pub fn read(artifact: &Artifact, o: &Options) -> Found {
    let mut found = Found::default();
    let stdout: Vec<usize> = (1..=artifact.line_count())
        .filter(|&n| artifact.stream_of_line(n) == Stream::Stdout)
        .collect();
    let text = |n: usize| crate::profiles::visible(artifact, n).into_owned();
    let with_path = o
        .with_path
        .unwrap_or_else(|| guess_with_path(o, stdout.first().map(|&n| text(n))));
    let single = o.only_path.clone().unwrap_or_else(|| STDIN.to_string());
    let mut reader = Reader {
        found: &mut found,
        pending: Vec::new(),
        expect_heading: true,
    };
    for &n in &stdout {
        let t = text(n);
        if let Some(path) = binary_path(&t) {
            reader.binary(path, n);
            continue;
        }
        // The tool's own error, on stdout once the streams were joined
        // (`grep -rn … 2>&1 > saved.log`): no match line starts `grep: `.
        if ["grep: ", "egrep: ", "fgrep: ", "rg: "]
            .iter()
            .any(|p| t.starts_with(p))
        {
            reader.found.errors.push(n);
            continue;
        }
        match o.mode {
            Mode::Files => reader.file_line(&t, n),
            Mode::Count => reader.count_line(&t, n, with_path, &single),
            Mode::Lines if o.heading => reader.heading_line(&t, n, o),
            Mode::Lines if with_path => reader.path_line(&t, n, o),
            Mode::Lines => reader.bare_line(&t, n, o, &single),
            Mode::Json => unreachable!("rg --json has its own reader"),
        }
    }
    reader.flush_pending();
    for n in (1..=artifact.line_count()).filter(|&n| artifact.stream_of_line(n) == Stream::Stderr) {
        let t = text(n);
        if t.trim().is_empty() {
            continue;
        }
        match binary_path(&t) {
            Some(path) => found.binary(path, n),
            None => found.errors.push(n),
        }
    }
    if o.mode == Mode::Lines && o.context && !o.line_numbers {
        found.degraded =
            Some("context without line numbers: context lines count as matches".into());
    }
    if o.null_separated {
        found.degraded = Some("NUL-separated paths are not split".into());
    }
    found
}

/// One operand that may be a file (no paths in the output) or a folder
/// (paths): the first line tells, by starting with the operand's path.
fn guess_with_path(o: &Options, first: Option<String>) -> bool {
    let (Some(path), Some(first)) = (o.only_path.as_deref(), first) else {
        return true;
    };
    let path = path.trim_end_matches('/');
    first
        .strip_prefix(path)
        .is_some_and(|rest| rest.starts_with(['/', ':', '-']))
}

struct Reader<'f> {
    found: &'f mut Found,
    /// Lines waiting for the match that tells whose context they are.
    pending: Vec<(usize, String)>,
    expect_heading: bool,
}

impl Reader<'_> {
    fn current(&mut self) -> Option<&mut Group> {
        self.found.groups.last_mut()
    }

    fn binary(&mut self, path: &str, n: usize) {
        self.flush_pending();
        self.found.binary(path, n);
    }

    fn file_line(&mut self, t: &str, n: usize) {
        if t.is_empty() {
            self.found.unmatched += 1;
            return;
        }
        let g = self.found.group_for(t, n);
        g.heading = Some(n);
        g.named_only = true;
    }

    fn count_line(&mut self, t: &str, n: usize, with_path: bool, single: &str) {
        let (path, count) = match COUNT.captures(t) {
            Some(c) if with_path => (c[1].to_string(), c[2].parse().ok()),
            _ if t.bytes().all(|b| b.is_ascii_digit()) && !t.is_empty() => {
                (single.to_string(), t.parse().ok())
            }
            _ => {
                self.found.unmatched += 1;
                return;
            }
        };
        let g = self.found.group_for(&path, n);
        g.heading = Some(n);
        g.count = count;
    }

    fn heading_line(&mut self, t: &str, n: usize, o: &Options) {
        if t.is_empty() {
            self.expect_heading = true;
            return;
        }
        if t == "--" {
            return;
        }
        let numbered = BARE_MATCH.is_match(t) || BARE_CONTEXT.is_match(t);
        // With line numbers, any line that is not numbered is a heading
        // (git grep --heading puts no blank line between files).
        let heading = if o.line_numbers {
            !numbered
        } else {
            self.expect_heading
        };
        self.expect_heading = false;
        if heading {
            self.found.groups.push(Group::new(t, n));
            if let Some(g) = self.current() {
                g.heading = Some(n);
            }
            return;
        }
        let is_match = !o.line_numbers || BARE_MATCH.is_match(t);
        match self.current() {
            Some(g) => {
                g.reach(n);
                if is_match {
                    g.matches.push(n);
                }
            }
            None => self.found.unmatched += 1,
        }
    }

    fn path_line(&mut self, t: &str, n: usize, o: &Options) {
        if t == "--" {
            self.flush_pending();
            return;
        }
        // A context line of the current file.
        if let Some(g) = self.found.groups.last_mut()
            && is_context_of(t, &g.path, o.line_numbers)
        {
            g.reach(n);
            return;
        }
        let path = if o.vimgrep {
            MATCH_COL.captures(t).map(|c| c[1].to_string())
        } else if o.line_numbers {
            MATCH_N.captures(t).map(|c| c[1].to_string())
        } else {
            t.split_once(':').map(|(p, _)| p.to_string())
        };
        let Some(path) = path else {
            self.pending.push((n, t.to_string()));
            return;
        };
        // Before-context of this file, printed ahead of its first match.
        let before: Vec<usize> = self
            .pending
            .iter()
            .filter(|(_, p)| is_context_of(p, &path, o.line_numbers))
            .map(|(k, _)| *k)
            .collect();
        self.found.unmatched += (self.pending.len() - before.len()) as u64;
        self.pending.clear();
        let g = self
            .found
            .group_for(&path, before.first().copied().unwrap_or(n));
        g.reach(n);
        g.matches.push(n);
    }

    fn bare_line(&mut self, t: &str, n: usize, o: &Options, single: &str) {
        if t == "--" && o.context {
            return;
        }
        let is_match = !o.line_numbers || BARE_MATCH.is_match(t);
        let is_context = o.line_numbers && BARE_CONTEXT.is_match(t);
        if !is_match && !is_context {
            self.found.unmatched += 1;
            return;
        }
        let g = self.found.group_for(single, n);
        if is_match {
            g.matches.push(n);
        }
    }

    fn flush_pending(&mut self) {
        self.found.unmatched += self.pending.len() as u64;
        self.pending.clear();
    }
}

/// `path-12-text` (or `path-text` without line numbers) for this path.
fn is_context_of(t: &str, path: &str, line_numbers: bool) -> bool {
    let Some(rest) = t.strip_prefix(path).and_then(|r| r.strip_prefix('-')) else {
        return false;
    };
    if !line_numbers {
        return true;
    }
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && rest.as_bytes().get(digits) == Some(&b'-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Exit;

    /// (path, matches, first, last) of each group of `cmd`'s `out`.
    fn groups(cmd: &str, out: &str) -> Vec<(String, usize, usize, usize)> {
        let argv: Vec<String> = cmd.split(' ').map(String::from).collect();
        let o = Options::from_argv(&argv).expect("a search");
        let a = Artifact::from_stdout(out.as_bytes().to_vec(), Exit::Code(0), argv);
        let found = read(&a, &o);
        assert_eq!(found.unmatched, 0, "{cmd}");
        found
            .groups
            .iter()
            .map(|g| (g.path.clone(), g.matches.len(), g.first, g.last))
            .collect()
    }

    fn g(path: &str, matches: usize, first: usize, last: usize) -> (String, usize, usize, usize) {
        (path.to_string(), matches, first, last)
    }

    #[test]
    fn headings_with_and_without_line_numbers() {
        assert_eq!(
            groups("rg --heading fn", "a.rs\nfn x\nfn y\n\nb.rs\nfn z\n"),
            [g("a.rs", 2, 1, 3), g("b.rs", 1, 5, 6)]
        );
        // git grep --heading puts no blank line between files.
        assert_eq!(
            groups(
                "git grep -n --heading fn",
                "a.rs\n1:fn x\nb.rs\n3:fn z\n4:fn w\n"
            ),
            [g("a.rs", 1, 1, 2), g("b.rs", 2, 3, 5)]
        );
    }

    #[test]
    fn before_context_goes_to_the_file_whose_match_follows() {
        let out = "a.rs-1-x\na.rs:2:fn\na.rs-3-y\n--\nb-c.rs-4-z\nb-c.rs:5:fn\n";
        assert_eq!(
            groups("rg -n -C1 fn", out),
            [g("a.rs", 1, 1, 3), g("b-c.rs", 1, 5, 6)]
        );
    }

    #[test]
    fn one_operand_is_a_file_or_a_folder_by_the_first_line() {
        assert_eq!(groups("grep -n fn a.rs", "3:fn x\n"), [g("a.rs", 1, 1, 1)]);
        assert_eq!(groups("rg -n fn a.rs", "3:fn x\n"), [g("a.rs", 1, 1, 1)]);
        assert_eq!(
            groups("rg fn src", "src/a.rs:fn x\nsrc/b.rs:fn y\n"),
            [g("src/a.rs", 1, 1, 1), g("src/b.rs", 1, 2, 2)]
        );
        assert_eq!(groups("grep fn", "fn x\n"), [g(STDIN, 1, 1, 1)]);
    }

    #[test]
    fn counts_and_file_lists() {
        assert_eq!(groups("grep -c fn a.rs", "5\n"), [g("a.rs", 0, 1, 1)]);
        assert_eq!(
            groups("grep -rc fn src", "src/a:b.rs:5\nsrc/c.rs:0\n"),
            [g("src/a:b.rs", 0, 1, 1), g("src/c.rs", 0, 2, 2)]
        );
        assert_eq!(
            groups("grep -rl fn src", "src/a.rs\nsrc/b.rs\n"),
            [g("src/a.rs", 0, 1, 1), g("src/b.rs", 0, 2, 2)]
        );
    }

    #[test]
    fn context_needs_the_path_and_its_separators() {
        assert!(is_context_of("src/a-b.rs-12-x", "src/a-b.rs", true));
        assert!(!is_context_of("src/a-b.rs:12:x", "src/a-b.rs", true));
        assert!(!is_context_of("src/a-b.rs-x", "src/a-b.rs", true));
        assert!(is_context_of("src/a-b.rs-x", "src/a-b.rs", false));
        assert!(!is_context_of("src/a.rs-1-x", "src/a-b.rs", true));
    }
}
