//! What prove (TAP::Harness) prints around the TAP it reads, and what
//! Test::More writes to stderr: a header per test file (`t/cart.t .... `,
//! `t/ok.t .... ok`), the file's verdict (`Dubious, test returned 2 (wstat
//! 512, 0x200)`, `Failed 2/5 subtests`, `No subtests run`), `Bailout called.
//! Further testing stopped: …`, the `Test Summary Report` (per file: `Failed
//! tests:  1-3, 6`, `Non-zero exit status: 2`, `Parse errors: No plan found
//! in TAP output`), `Files=N, Tests=M, …` and `Result: FAIL`; and
//! Test::More's `#   Failed test 'name'` / `#   at t/cart.t line 7.`
//! diagnostics, the only place a non-verbose run names a failing test.

use std::sync::LazyLock;

use regex::Regex;

/// `t/cart.t .... ` / `t/ok.t .. ok` / `t/net.t .. skipped: no network`.
static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\S+) \.{2,}(?: ?| (ok|skipped: .*|\d+/\d+.*))$").expect("static pattern")
});
static DUBIOUS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Dubious, test returned (\d+) \(wstat (\d+), 0x[0-9a-f]+\)$")
        .expect("static pattern")
});
static FAILED_OF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^Failed (\d+)/(\d+) subtests?\s*$").expect("static pattern"));
/// A Summary Report entry: `t/cart.t  (Wstat: 768 (exited 3) Tests: 7 Failed: 3)`.
static ENTRY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\S+)\s+\(Wstat: (\d+)(?: \([^)]*\))? Tests: (\d+) Failed: (\d+)\)$")
        .expect("static pattern")
});
static FILES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Files=(\d+), Tests=(\d+),").expect("static pattern")
});
/// Test::More's `#   Failed test 'name'` (its `at FILE line N.` on the
/// same line when the test has no name, else on the next).
static DIAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^#   Failed test(?: '(.*?)'?)?(?: at (\S+) line (\d+)\.)?$")
        .expect("static pattern")
});
static DIAG_AT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^#   at (\S+) line (\d+)\.$").expect("static pattern"));
/// Perl's own `die` message: `… at t/boot.t line 4.`
static DIED_AT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(.+) at (\S+) line (\d+)\.$").expect("static pattern"));

/// One test file as prove reported it.
#[derive(Clone, Debug, Default)]
pub struct File {
    pub name: String,
    /// The header line.
    pub line: usize,
    /// `Dubious, test returned N`: (status, line).
    pub dubious: Option<(u64, usize)>,
    /// `Failed N/M subtests` or `No subtests run`: the line.
    pub verdict: Option<usize>,
    pub no_tests: bool,
    /// The Summary Report's entry: its first and last line.
    pub entry: Option<(usize, usize)>,
    /// The entry's `Tests:` and `Failed:`.
    pub tests: u64,
    pub failed_count: u64,
    /// `Failed tests:` numbers.
    pub failed: Vec<u64>,
    /// `Parse errors:` lines (text, line).
    pub parse_errors: Vec<(String, usize)>,
    pub exit: Option<u64>,
    /// `Bailout called`: (reason, line).
    pub bail: Option<(String, usize)>,
}

impl File {
    /// Whether the file itself failed, beyond its failing tests: prove
    /// found its TAP malformed (no plan, ran other than planned), it bailed
    /// out, or it exited non-zero with no failing test.
    pub fn broke(&self) -> bool {
        self.bail.is_some()
            || !self.parse_errors.is_empty()
            || self.no_tests
            || (self.failed.is_empty() && self.failed_count == 0 && self.exit.is_some_and(|e| e != 0))
    }
}

/// A Test::More diagnostic: the test's name (empty when it had none), the
/// file and line it names, and its lines.
#[derive(Clone, Debug)]
pub struct Diag {
    pub name: String,
    pub file: Option<String>,
    pub line_no: Option<u32>,
    pub lines: Vec<usize>,
}

/// The harness around the TAP.
#[derive(Default)]
pub struct Harness {
    pub files: Vec<File>,
    pub diags: Vec<Diag>,
    /// `die` lines: (message, file, line, artifact line).
    pub deaths: Vec<(String, String, u32, usize)>,
    /// `Files=N, Tests=M`: (files, tests, line).
    pub totals: Option<(u64, u64, usize)>,
    /// `Result: PASS|FAIL|NOTESTS`.
    pub result: Option<(String, usize)>,
    pub current: Option<usize>,
    in_report: bool,
    bail: Option<(String, usize)>,
    /// The diagnostic whose lines are still running.
    open: Option<usize>,
    /// The `Failed tests:` list may wrap onto the next lines.
    numbers_open: bool,
}

impl Harness {
    /// Whether line `n` is prove's (or Test::More's); the stream reads the
    /// rest.
    pub fn push(&mut self, n: usize, text: &str) -> bool {
        let diag = self.diag(n, text);
        if diag {
            return true;
        }
        if text == "Test Summary Report" {
            self.in_report = true;
            return true;
        }
        if self.in_report && let Some(done) = self.report(n, text) {
            return done;
        }
        if let Some(c) = FILES.captures(text) {
            self.in_report = false;
            self.totals = Some((c[1].parse().unwrap_or(0), c[2].parse().unwrap_or(0), n));
            return true;
        }
        if let Some(r) = text.strip_prefix("Result: ") {
            self.result = Some((r.trim().to_string(), n));
            return true;
        }
        if text == "All tests successful." {
            return true;
        }
        if let Some(reason) = text
            .strip_prefix("Bailout called.  Further testing stopped:")
            .or_else(|| text.strip_prefix("FAILED--Further testing stopped:"))
        {
            let reason = reason.trim().to_string();
            // prove prints it before the header of the file that bailed.
            // (The run's last line repeats it once the file has it.)
            if !self.files.iter().any(|f| f.bail.is_some()) {
                self.bail.get_or_insert((reason, n));
            }
            return true;
        }
        if let Some(c) = HEADER.captures(text)
            && looks_like_test_file(&c[1])
        {
            self.files.push(File {
                name: c[1].to_string(),
                line: n,
                ..File::default()
            });
            let at = self.files.len() - 1;
            self.current = Some(at);
            if let Some(b) = self.bail.take() {
                self.files[at].bail = Some(b);
            }
            return true;
        }
        let Some(at) = self.current else {
            return self.died(n, text);
        };
        if let Some(c) = DUBIOUS.captures(text) {
            self.files[at].dubious = Some((c[1].parse().unwrap_or(0), n));
            self.files[at].exit = c[1].parse().ok();
            return true;
        }
        if FAILED_OF.is_match(text) {
            self.files[at].verdict = Some(n);
            return true;
        }
        if text.trim_end() == "No subtests run" {
            self.files[at].verdict = Some(n);
            self.files[at].no_tests = true;
            return true;
        }
        if text.starts_with("All ") && text.trim_end().ends_with(" subtests passed") {
            self.files[at].verdict = Some(n);
            return true;
        }
        if text.starts_with('\t') && text.trim_start().starts_with('(') {
            return true;
        }
        self.died(n, text)
    }

    /// A bail-out announced after the last file's header.
    pub fn finish(&mut self) {
        if let Some(b) = self.bail.take()
            && let Some(f) = self.current.and_then(|at| self.files.get_mut(at))
        {
            f.bail.get_or_insert(b);
        }
    }

    fn file_mut(&mut self, name: &str, n: usize) -> &mut File {
        if let Some(at) = self.files.iter().position(|f| f.name == name) {
            return &mut self.files[at];
        }
        self.files.push(File {
            name: name.to_string(),
            line: n,
            ..File::default()
        });
        let at = self.files.len() - 1;
        &mut self.files[at]
    }

    /// A Summary Report line; None when it is not one (the report is over).
    fn report(&mut self, n: usize, text: &str) -> Option<bool> {
        if text.bytes().all(|b| b == b'-') {
            return Some(true);
        }
        if let Some(c) = ENTRY.captures(text) {
            let name = c[1].to_string();
            let wstat: u64 = c[2].parse().unwrap_or(0);
            let f = self.file_mut(&name, n);
            f.entry = Some((n, n));
            f.tests = c[3].parse().unwrap_or(0);
            f.failed_count = c[4].parse().unwrap_or(0);
            if wstat != 0 && f.exit.is_none() {
                f.exit = Some(wstat >> 8);
            }
            self.current = self.files.iter().position(|f| f.name == name);
            self.numbers_open = false;
            return Some(true);
        }
        let at = self.current?;
        let f = &mut self.files[at];
        if !text.starts_with("  ") {
            return None;
        }
        f.entry = f.entry.map(|(s, _)| (s, n));
        let t = text.trim();
        if let Some(list) = t
            .strip_prefix("Failed tests:")
            .or_else(|| t.strip_prefix("Failed test:"))
        {
            f.failed.extend(numbers(list));
            self.numbers_open = true;
        } else if let Some(e) = t.strip_prefix("Parse errors:") {
            f.parse_errors.push((e.trim().to_string(), n));
            self.numbers_open = false;
        } else if let Some(s) = t
            .strip_prefix("Non-zero exit status:")
            .or_else(|| t.strip_prefix("Non-zero wait status:"))
        {
            f.exit = s.trim().parse().ok().or(f.exit);
            self.numbers_open = false;
        } else if self.numbers_open && t.bytes().all(|b| b.is_ascii_digit() || b" ,-".contains(&b)) {
            f.failed.extend(numbers(t));
        } else if t.contains(':') {
            // `TODO passed:`, `Wstat` continuations: no failure of their own.
            self.numbers_open = false;
        } else if !f.parse_errors.is_empty() {
            // A parse error's continuation lines.
            f.parse_errors.push((t.to_string(), n));
        }
        Some(true)
    }

    /// Test::More's diagnostic lines, on stderr.
    fn diag(&mut self, n: usize, text: &str) -> bool {
        if let Some(c) = DIAG.captures(text)
            && !text.starts_with("#   Failed (TODO)")
        {
            self.diags.push(Diag {
                name: c.get(1).map_or("", |m| m.as_str()).to_string(),
                file: c.get(2).map(|m| m.as_str().to_string()),
                line_no: c.get(3).and_then(|m| m.as_str().parse().ok()),
                lines: vec![n],
            });
            self.open = Some(self.diags.len() - 1);
            return true;
        }
        let Some(at) = self.open else { return false };
        if !text.starts_with('#') || text.starts_with("# Looks like") {
            self.open = None;
            return text.starts_with("# Looks like");
        }
        let d = &mut self.diags[at];
        if d.file.is_none()
            && let Some(c) = DIAG_AT.captures(text)
        {
            d.file = Some(c[1].to_string());
            d.line_no = c[2].parse().ok();
        }
        if d.lines.len() < 6 {
            d.lines.push(n);
        }
        true
    }

    /// Perl's `die` message (`… at t/boot.t line 4.`): a file that broke.
    fn died(&mut self, n: usize, text: &str) -> bool {
        if text.starts_with('#') || text.starts_with(' ') {
            return false;
        }
        let Some(c) = DIED_AT.captures(text) else {
            return false;
        };
        if let Ok(line) = c[3].parse() {
            self.deaths
                .push((c[1].to_string(), c[2].to_string(), line, n));
        }
        true
    }
}

/// `1-3, 6` → 1, 2, 3, 6.
fn numbers(list: &str) -> Vec<u64> {
    let mut out = Vec::new();
    for part in list.split(',') {
        let part = part.trim();
        if let Some((a, b)) = part.split_once('-') {
            if let (Ok(a), Ok(b)) = (a.trim().parse::<u64>(), b.trim().parse::<u64>()) {
                // A range a harness printed is short; a corrupt one is capped.
                out.extend((a..=b).take(10_000));
            }
        } else if let Ok(v) = part.parse() {
            out.push(v);
        }
    }
    out
}

/// prove's header names a test file: `t/x.t`, `xt/y.t`, a `.pl` or a
/// script without extension under a folder.
fn looks_like_test_file(name: &str) -> bool {
    name.ends_with(".t") || name.ends_with(".pl") || name.ends_with(".sh") || name.contains('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_lists() {
        assert_eq!(numbers(" 1-3, 6"), vec![1, 2, 3, 6]);
        assert_eq!(numbers("2"), vec![2]);
    }

    #[test]
    fn a_non_verbose_run_reads_as_files_and_diagnostics() {
        let lines = [
            "#   Failed test 'total'",
            "#   at t/cart.t line 7.",
            "#          got: '7'",
            "# Looks like you failed 1 test of 2.",
            "t/cart.t .. ",
            "Dubious, test returned 1 (wstat 256, 0x100)",
            "Failed 1/2 subtests ",
            "Test Summary Report",
            "-------------------",
            "t/cart.t (Wstat: 256 (exited 1) Tests: 2 Failed: 1)",
            "  Failed test:  1",
            "  Non-zero exit status: 1",
            "Files=1, Tests=2,  0 wallclock secs",
            "Result: FAIL",
        ];
        let mut h = Harness::default();
        for (i, l) in lines.iter().enumerate() {
            assert!(h.push(i + 1, l), "{l}");
        }
        assert_eq!(h.files.len(), 1);
        let f = &h.files[0];
        assert_eq!((f.failed.clone(), f.exit, f.broke()), (vec![1], Some(1), false));
        assert_eq!(h.diags[0].name, "total");
        assert_eq!(h.diags[0].file.as_deref(), Some("t/cart.t"));
        assert_eq!(h.diags[0].line_no, Some(7));
        assert_eq!(h.totals, Some((1, 2, 13)));
    }
}
