//! The assertions GoogleTest prints under a failed test: where the first
//! failed and what it said, in one line for the census.

use std::sync::LazyLock;

use regex::Regex;

use crate::evidence::Location;
use crate::profiles::testrun;

use super::Failed;

/// An assertion's header: `path:line: Failure`, MSVC's `path(line):
/// error: Failure`, `unknown file: Failure`, and a skip's `path:line:
/// Skipped`.
static ASSERTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:(?P<file>(?:[A-Za-z]:)?[^\s:()][^:()]*?)(?::(?P<line>\d+)|\((?P<mline>\d+)\))|unknown file): (?:error: )?(?P<what>Failure|Skipped)$")
        .expect("static pattern")
});
/// The assertions under one test: where the first failed, what it said.
#[derive(Default)]
pub(super) struct Assertions {
    first: Option<(Option<Location>, usize)>,
    message: Vec<(usize, String)>,
    /// Lines of the first two assertions, for the detail.
    lines: Vec<usize>,
    pub(super) failures: usize,
    pub(super) in_failure: bool,
}

impl Assertions {
    pub(super) fn take(&mut self, n: usize, text: &str, cwd: Option<&str>) {
        if let Some(c) = ASSERTION.captures(text) {
            self.in_failure = &c["what"] == "Failure";
            if !self.in_failure {
                return;
            }
            self.failures += 1;
            let line = c
                .name("line")
                .or_else(|| c.name("mline"))
                .and_then(|l| l.as_str().parse().ok());
            let location = c.name("file").map(|f| Location {
                file: from_build_folder(f.as_str(), cwd),
                line,
                column: None,
            });
            if self.first.is_none() {
                self.first = Some((location, n));
            }
            if self.failures <= 2 {
                self.lines.push(n);
            }
            return;
        }
        if !self.in_failure || text.trim().is_empty() {
            return;
        }
        if self.failures == 1 && self.message.len() < 8 {
            self.message.push((n, text.to_string()));
        }
        if self.failures <= 2 && self.lines.len() < 10 {
            self.lines.push(n);
        }
    }

    /// The first failed assertion in a line: GoogleTest's two common
    /// shapes written compactly (`round_cents(2.345) (234) != 235`,
    /// `x is false, expected true`), any other as its first line, with
    /// the lines it announces when it ends in `:`; then the test's own
    /// message (`<< "…"`), the first line at column 0 after them.
    fn summary(&self) -> Option<String> {
        let lines: Vec<&str> = self.message.iter().map(|(_, t)| t.as_str()).collect();
        let (first, rest) = lines.split_first()?;
        let first = first.trim();
        let (core, said) = if first == "Expected equality of these values:" {
            let operands = rest.iter().take_while(|l| l.starts_with(' ')).count();
            (equality(&rest[..operands]), rest.get(operands))
        } else if let Some(expr) = first.strip_prefix("Value of: ") {
            let mut actual = None;
            let mut expected = None;
            let mut used = 0;
            for l in rest.iter().take(2) {
                let t = l.trim();
                if let Some(a) = t.strip_prefix("Actual: ") {
                    actual = Some(a);
                } else if let Some(e) = t.strip_prefix("Expected: ") {
                    expected = Some(e);
                } else {
                    break;
                }
                used += 1;
            }
            let core = match (actual, expected) {
                (Some(a), Some(e)) => format!("{expr} is {a}, expected {e}"),
                _ => first.to_string(),
            };
            (core, rest.get(used))
        } else if first.ends_with(':') {
            let operands = rest.iter().take_while(|l| l.starts_with(' ')).count();
            let mut core = first.to_string();
            for l in rest.iter().take(operands.min(4)) {
                core.push(' ');
                core.push_str(l.trim());
            }
            (core, rest.get(operands))
        } else {
            (first.to_string(), None)
        };
        let summary = match said.map(|s| s.trim()).filter(|s| !s.is_empty()) {
            Some(said) => format!("{core}; {said}"),
            None => core,
        };
        Some(testrun::clip_summary(summary, testrun::SUMMARY_CHARS))
    }

    pub(super) fn apply(self, failed: &mut Failed) {
        failed.summary = self.summary().or(failed.summary.take());
        if let Some((location, _)) = &self.first {
            failed.location.clone_from(location);
            if location.is_none() && failed.class.is_none() {
                // `unknown file: Failure`: an exception escaped the test.
                failed.class = Some("exception".to_string());
            }
        }
        failed.detail.extend(self.lines);
    }
}

/// A source path as the reader opens it from where the run was: relative
/// under the working directory, and, for CTest's run in a build folder
/// (`nickel/build`) of sources beside it (`nickel/test/a.cpp`), through
/// `..` (`../test/a.cpp`), not absolute.
fn from_build_folder(path: &str, cwd: Option<&str>) -> String {
    let under = testrun::relative(path, cwd);
    if under != path {
        return under;
    }
    let parent = cwd
        .map(|c| c.trim_end_matches('/'))
        .and_then(|c| c.rsplit_once('/'))
        .map(|(parent, _)| parent)
        .filter(|p| !p.is_empty());
    match parent.and_then(|p| path.strip_prefix(p)?.strip_prefix('/')) {
        Some(rest) if !rest.is_empty() => format!("../{rest}"),
        _ => path.to_string(),
    }
}


/// `Expected equality of these values:`'s operands, each `expr` with its
/// `Which is: value` when GoogleTest printed one, joined by `!=`.
fn equality(operands: &[&str]) -> String {
    let mut shown: Vec<String> = Vec::new();
    for l in operands {
        let t = l.trim();
        match (t.strip_prefix("Which is: "), shown.last_mut()) {
            (Some(value), Some(last)) => {
                last.push_str(&format!(" ({value})"));
            }
            _ if l.starts_with("    ") => {}
            _ => shown.push(t.to_string()),
        }
    }
    shown.join(" != ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_from_the_build_folder() {
        let cwd = Some("/w/nickel/build");
        assert_eq!(
            from_build_folder("/w/nickel/test/a.cpp", cwd),
            "../test/a.cpp"
        );
        assert_eq!(from_build_folder("/w/nickel/build/gen.cpp", cwd), "gen.cpp");
        assert_eq!(from_build_folder("/elsewhere/a.cpp", cwd), "/elsewhere/a.cpp");
        assert_eq!(from_build_folder("test/a.cpp", cwd), "test/a.cpp");
        assert_eq!(from_build_folder("/a.cpp", Some("/build")), "/a.cpp");
        assert_eq!(from_build_folder("/w/a.cpp", None), "/w/a.cpp");
    }

    #[test]
    fn assertion_headers() {
        let c = ASSERTION.captures("/src/test/money_test.cpp:8: Failure").unwrap();
        assert_eq!((&c["file"], &c["line"]), ("/src/test/money_test.cpp", "8"));
        let c = ASSERTION.captures(r"C:\src\money_test.cpp(8): error: Failure");
        assert!(c.is_some());
        assert!(ASSERTION.captures("unknown file: Failure").unwrap().name("file").is_none());
    }

    fn summary_of(lines: &[&str]) -> Option<String> {
        let mut a = Assertions::default();
        a.take(1, "/src/t.cpp:8: Failure", None);
        for (i, l) in lines.iter().enumerate() {
            a.take(i + 2, l, None);
        }
        a.summary()
    }

    #[test]
    fn assertions_in_a_line() {
        let eq = [
            "Expected equality of these values:",
            "  parse_cents(\"3.5\")",
            "    Which is: 305",
            "  350",
            "\"3.5\" is three dollars fifty",
        ];
        assert_eq!(
            summary_of(&eq).as_deref(),
            Some("parse_cents(\"3.5\") (305) != 350; \"3.5\" is three dollars fifty")
        );
        let value = ["Value of: ok()", "  Actual: false", "Expected: true"];
        assert_eq!(
            summary_of(&value).as_deref(),
            Some("ok() is false, expected true")
        );
        let that = ["Value of: n", "Expected: is equal to 3", "  Actual: 2 (of type int)"];
        assert_eq!(
            summary_of(&that).as_deref(),
            Some("n is 2 (of type int), expected is equal to 3")
        );
        let ne = ["Expected: (a) != (b), actual: 1 vs 1"];
        assert_eq!(
            summary_of(&ne).as_deref(),
            Some("Expected: (a) != (b), actual: 1 vs 1")
        );
        let thrown = ["C++ exception with description \"boom\" thrown in the test body."];
        let mut a = Assertions::default();
        a.take(1, "unknown file: Failure", None);
        a.take(2, thrown[0], None);
        assert_eq!(a.summary().as_deref(), Some(thrown[0]));
        assert!(a.first.as_ref().is_some_and(|(loc, _)| loc.is_none()));
    }
}
