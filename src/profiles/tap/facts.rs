//! From what the stream and the harness read to census items: one per
//! failing test line (any depth), one per Test::More diagnostic a
//! non-verbose prove run names by number only, one per test file that
//! broke beyond its tests.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::{Artifact, Span};
use crate::evidence::{EvidenceItem, ItemKind, Location, Severity};
use crate::profiles::testrun;

use super::prove::{self, Harness};
use super::stream::{Directive, Stream};

/// A stack frame naming a file: `fn (/abs/f.js:3:29)`, `/abs/f.js:11:25`,
/// `at Object.<anonymous> (/abs/f.js:5:30)`.
static FRAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|\(|\s)((?:file://)?/[^()\s]+):(\d+):(\d+)\)?$").expect("static pattern")
});
/// `file:line:col` at the end of node's YAML `location`.
static AT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(.+?):(\d+):(\d+)$").expect("static pattern"));
/// bats: `(in test file test/cart.bats, line 7)`, `(from function `f' in
/// test file test/x.bats, line 3)`.
static BATS_AT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"in test file (\S+), line (\d+)\)?$").expect("static pattern"));
/// An error line among a crashed file's output: `Error: ENOENT: …`,
/// `TypeError [ERR_X]: …`, `SyntaxError: Unexpected token`.
static ERROR_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[A-Z]\w*)?(?:Error|Exception)(?: \[\w+\])?: .+").expect("static pattern")
});

/// The longest summary kept: a message that runs on (Perl's `@INC
/// contains: …`) is cut, the whole of it stays in the block.
const SUMMARY_CHARS: usize = 200;

/// Everything the items are made from.
pub struct Read<'a> {
    pub artifact: &'a Artifact,
    pub stream: &'a Stream,
    pub harness: &'a Harness,
    pub point_file: &'a [Option<usize>],
    pub cwd: Option<&'a str>,
}

impl Read<'_> {
    fn text(&self, n: usize) -> String {
        crate::profiles::visible(self.artifact, n).trim_end().to_string()
    }

    /// Census items, in the order the output names them, identities made
    /// unique within their file.
    pub fn items(&self) -> Vec<EvidenceItem> {
        let mut items: Vec<(usize, EvidenceItem, Option<u64>)> = Vec::new();
        // Each test line's file, once: a crashed file asks whether any other
        // test lies in it.
        let files: Vec<Option<String>> = (0..self.stream.points.len())
            .map(|at| self.file_of(at).map(|(f, _)| f))
            .collect();
        for (at, p) in self.stream.points.iter().enumerate() {
            if p.failed() {
                items.push((p.line, self.point(at, &files), p.number));
            }
        }
        self.prove_items(&mut items);
        items.sort_by_key(|(n, _, _)| *n);
        // The same name twice in a file: each takes its test number.
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (_, it, _) in &items {
            *seen.entry(it.identity.clone()).or_default() += 1;
        }
        items
            .into_iter()
            .map(|(_, mut it, number)| {
                if seen.get(&it.identity).is_some_and(|&c| c > 1)
                    && let Some(number) = number
                {
                    it.identity = format!("{} #{number}", it.identity);
                }
                it
            })
            .collect()
    }

    /// The file a test line belongs to, relative to the working directory.
    fn file_of(&self, at: usize) -> Option<(String, Option<(u32, u32)>)> {
        let p = &self.stream.points[at];
        let root = &self.stream.points[self.stream.root(at)];
        if let Some(loc) = root.field("location").and_then(|l| AT.captures(l)) {
            let file = testrun::relative(loc[1].trim_start_matches("file://"), self.cwd);
            let own = p.field("location").and_then(|l| AT.captures(l));
            let line = own.and_then(|c| Some((c[2].parse().ok()?, c[3].parse().ok()?)));
            return Some((file, line));
        }
        if let Some(f) = self.point_file.get(at).copied().flatten() {
            return Some((self.harness.files[f].name.clone(), None));
        }
        p.comments.iter().rev().find_map(|&n| {
            let text = self.text(n);
            let c = BATS_AT.captures(&text)?;
            Some((c[1].to_string(), Some((c[2].parse().ok()?, 0))))
        })
    }

    fn point(&self, at: usize, files: &[Option<String>]) -> EvidenceItem {
        let p = &self.stream.points[at];
        let chain = self.stream.chain(at);
        let file = self.file_of(at);
        let file_name = file.as_ref().map(|(f, _)| f.as_str());
        // node reports a test file that failed outside its tests as a
        // top-level test named by the file's own path.
        let whole_file = p.parent.is_none()
            && file_name.is_some_and(|f| {
                p.name == f || testrun::relative(&p.name, self.cwd) == f
            });
        let identity = match file_name {
            Some(f) if whole_file => f.to_string(),
            Some(f) => {
                let mut parts = vec![f.to_string()];
                parts.extend(chain.iter().map(|c| c.to_string()));
                if p.name.is_empty()
                    && let Some(last) = parts.last_mut()
                {
                    *last = format!("#{}", p.number.unwrap_or(0));
                }
                parts.join(" > ")
            }
            None if p.name.is_empty() => format!("#{}", p.number.unwrap_or(0)),
            None => chain.join(" > "),
        };
        let failure = p.field("failureType");
        let (kind, class) = if whole_file {
            let others = files
                .iter()
                .enumerate()
                .any(|(i, f)| i != at && f.as_deref() == file_name);
            let kind = if others {
                ItemKind::TestError
            } else {
                ItemKind::SuiteNotRun
            };
            (kind, "file failed".to_string())
        } else {
            match failure {
                Some("hookFailed") => (ItemKind::TestError, "hook failed".into()),
                Some("subtestsFailed") => (ItemKind::FailingTest, "subtests failed".into()),
                Some("cancelledByParent") => (ItemKind::FailingTest, "cancelled".into()),
                Some("testTimeoutFailure") => (ItemKind::FailingTest, "timeout".into()),
                _ if p.name.ends_with("setup_file failed")
                    || p.name.ends_with("teardown_file failed")
                    || p.name.ends_with("setup_suite failed")
                    || p.name.ends_with("teardown_suite failed") =>
                {
                    (ItemKind::TestError, p.name.clone())
                }
                _ if matches!(p.directive, Some(Directive::Skip(_))) => {
                    (ItemKind::FailingTest, "not ok # SKIP".into())
                }
                _ => (
                    ItemKind::FailingTest,
                    p.field("name")
                        .filter(|n| !n.is_empty())
                        .unwrap_or("failed")
                        .to_string(),
                ),
            }
        };
        let mut it = EvidenceItem::new(kind, Severity::Error, identity);
        it.class = Some(class);
        if !whole_file {
            it.headline = Some(Span::line(p.line));
            it.fields.insert("test".into(), p.name.clone());
        }
        it.block = Some(Span::new(p.first.min(p.line), p.last()));
        // The test line names the test but not its file: it stays out of
        // the detail, so the census line (which names both) is kept and the
        // detail follows it, rather than standing in its place.
        let mut detail: Vec<usize> = Vec::new();
        let mut summary = None;
        // node's YAML: the error, expected/actual, the frame in the file.
        if let Some(error) = p.field("error").filter(|e| !e.is_empty()) {
            let lines: Vec<String> = p.error_lines.iter().map(|&n| self.text(n).trim().to_string()).collect();
            summary = Some(match lines.as_slice() {
                [first, second, ..] if first.ends_with(':') => format!("{first} {second}"),
                [first, ..] => first.clone(),
                [] => error.to_string(),
            });
            detail.extend(p.error_lines.iter().take(3));
            if p.error_lines.is_empty() {
                detail.extend(p.field_line("error"));
            }
        }
        for key in ["expected", "actual"] {
            if p.field(key).is_some_and(|v| !v.is_empty()) {
                detail.extend(p.field_line(key));
            }
        }
        let mut location = file.as_ref().map(|(f, line)| Location {
            file: f.clone(),
            line: line.map(|l| l.0),
            column: line.and_then(|l| (l.1 > 0).then_some(l.1)),
        });
        if let (Some((start, end)), Some(file)) = (p.yaml, file_name) {
            // The first frame in the test's own file is where it failed.
            let frame = (start..=end).find_map(|n| {
                let text = self.text(n);
                let c = FRAME.captures(text.trim())?;
                let path = testrun::relative(c[1].trim_start_matches("file://"), self.cwd);
                (path == file).then(|| (n, c[2].parse().ok(), c[3].parse().ok()))
            });
            if let Some((n, line, column)) = frame {
                location = Some(Location {
                    file: file.to_string(),
                    line,
                    column,
                });
                detail.push(n);
            }
        }
        if whole_file {
            // What the file printed before node reported it: its crash.
            let (why, lines) = self.crash_before(at);
            summary = why.or(summary);
            detail = lines;
            if let Some(frame) = detail.iter().find_map(|&n| {
                let text = self.text(n);
                let c = FRAME.captures(text.trim_start_matches('#').trim())?;
                let path = testrun::relative(c[1].trim_start_matches("file://"), self.cwd);
                (Some(path.as_str()) == file_name).then(|| (c[2].parse().ok(), c[3].parse().ok()))
            }) && let Some(loc) = location.as_mut()
            {
                loc.line = frame.0;
                loc.column = frame.1;
            }
            if let Some(b) = it.block.as_mut() {
                b.first = b.first.min(detail.first().copied().unwrap_or(b.first));
            }
        }
        // bats and Test::More write their diagnostics as `#` lines under the test.
        let comments: Vec<String> = p.comments.iter().map(|&n| self.text(n)).collect();
        if summary.is_none() {
            summary = comments
                .iter()
                .map(|c| c.trim_start_matches('#').trim())
                .find(|c| !c.is_empty() && !c.starts_with('(') && !c.starts_with("in test file"))
                .map(str::to_string);
        }
        detail.extend(p.comments.iter().take(6));
        // A verbose prove run: Test::More's diagnostic for this test.
        if let Some(f) = self.point_file.get(at).copied().flatten()
            && let Some(d) = self.diag_for(&self.harness.files[f].name, &p.name)
        {
            summary = summary.or_else(|| diag_summary(self, d));
            detail.extend(d.lines.iter().take(5));
            if let (Some(loc), Some(line)) = (location.as_mut(), d.line_no) {
                loc.line = Some(line);
            }
        }
        it.summary = summary.map(|s| cut(&s));
        it.location = location;
        // A parent failed by its children, a test its parent cancelled:
        // the summary says all there is, the children carry the detail.
        if !matches!(failure, Some("subtestsFailed" | "cancelledByParent")) {
            it.detail = testrun::spans(&detail, 10);
        }
        it
    }

    /// The `#` lines node printed for a file before its `# Subtest:` line
    /// (the file's own stderr): the error line, and the lines to show.
    fn crash_before(&self, at: usize) -> (Option<String>, Vec<usize>) {
        let p = &self.stream.points[at];
        let after = self
            .stream
            .points
            .iter()
            .filter(|q| q.depth == 0 && q.line < p.line)
            .map(|q| q.last())
            .max()
            .unwrap_or(0);
        let comments: Vec<usize> = (after + 1..p.first)
            .filter(|&n| self.text(n).starts_with('#'))
            .collect();
        let error = comments.iter().find(|&&n| {
            ERROR_LINE.is_match(self.text(n).trim_start_matches('#').trim())
        });
        let mut lines = vec![p.line];
        if let Some(&e) = error {
            lines.push(e);
            // Its first frames say where.
            lines.extend(comments.iter().filter(|&&n| n > e).take(2));
        }
        let why = error.map(|&n| self.text(n).trim_start_matches('#').trim().to_string());
        (why, lines)
    }

    fn diag_for(&self, file: &str, name: &str) -> Option<&prove::Diag> {
        self.harness
            .diags
            .iter()
            .find(|d| d.file.as_deref() == Some(file) && d.name == name)
    }

    /// prove without `-v`: the failing tests its Summary Report numbers
    /// (named by Test::More's diagnostics where their count agrees), and
    /// every file that broke.
    fn prove_items(&self, items: &mut Vec<(usize, EvidenceItem, Option<u64>)>) {
        for (fi, f) in self.harness.files.iter().enumerate() {
            let has_points = self.point_file.contains(&Some(fi));
            if !has_points && !f.failed.is_empty() {
                let diags: Vec<&prove::Diag> = self
                    .harness
                    .diags
                    .iter()
                    .filter(|d| d.file.as_deref() == Some(f.name.as_str()))
                    .collect();
                let named = diags.len() == f.failed.len();
                let names: Vec<&str> = diags.iter().map(|d| d.name.as_str()).collect();
                for (k, &number) in f.failed.iter().enumerate() {
                    let d = diags.get(k).filter(|_| named);
                    let name = d.map_or("", |d| d.name.as_str());
                    let identity = if name.is_empty() {
                        format!("{} > #{number}", f.name)
                    } else if names.iter().filter(|n| **n == name).count() > 1 {
                        format!("{} > {name} #{number}", f.name)
                    } else {
                        format!("{} > {name}", f.name)
                    };
                    let mut it = EvidenceItem::new(ItemKind::FailingTest, Severity::Error, identity);
                    it.class = Some("failed".into());
                    it.fields.insert("number".into(), number.to_string());
                    let line = d.map_or(f.entry.map_or(f.line, |e| e.0), |d| d.lines[0]);
                    it.location = Some(Location {
                        file: f.name.clone(),
                        line: d.and_then(|d| d.line_no),
                        column: None,
                    });
                    match d {
                        Some(d) => {
                            it.summary = diag_summary(self, d).map(|s| cut(&s));
                            it.detail = testrun::spans(&d.lines, 10);
                            it.block = Some(Span::new(d.lines[0], *d.lines.last().unwrap_or(&d.lines[0])));
                        }
                        None => {
                            it.summary = Some(format!("test {number} failed (prove's Summary Report)"));
                            it.detail = vec![Span::line(line)];
                            it.block = f.entry.map(|(a, b)| Span::new(a, b));
                        }
                    }
                    items.push((line, it, Some(number)));
                }
            }
            if f.broke() {
                // After the file's own failing tests, where prove gives its verdict.
                let at = f.verdict.or(f.dubious.map(|d| d.1)).unwrap_or(f.line);
                items.push((at, self.broken_file(f), None));
            }
        }
    }

    /// A test file that broke beyond its failing tests.
    fn broken_file(&self, f: &prove::File) -> EvidenceItem {
        let kind = if f.no_tests || (f.entry.is_some() && f.tests == 0) {
            ItemKind::SuiteNotRun
        } else {
            ItemKind::TestError
        };
        let mut it = EvidenceItem::new(kind, Severity::Error, f.name.clone());
        let parse = f.parse_errors.first().map(|(e, _)| e.as_str()).unwrap_or("");
        let class = if f.bail.is_some() {
            "bail out"
        } else if parse.starts_with("No plan found") {
            "no plan"
        } else if parse.starts_with("Bad plan") {
            "bad plan"
        } else {
            "dubious"
        };
        it.class = Some(class.into());
        let death = self.harness.deaths.iter().find(|d| d.1 == f.name);
        let exit = f.exit.map(|e| format!("exited {e}"));
        it.summary = Some(cut(&if let Some((reason, _)) = &f.bail {
            format!("Bail out! {reason}")
        } else if let Some((message, _, _, _)) = death {
            // Perl's `Can't locate X.pm in @INC (… (@INC contains: every
            // folder))`: the folders are in the block, not the reason.
            match message.split_once(" (@INC contains:") {
                Some((head, _)) => head.to_string(),
                None => message.clone(),
            }
        } else {
            [Some(parse.to_string()).filter(|p| !p.is_empty()), exit]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join("; ")
        }));
        it.location = Some(Location {
            file: f.name.clone(),
            line: death.map(|d| d.2),
            column: None,
        });
        let mut lines = vec![f.line];
        lines.extend(f.dubious.map(|d| d.1));
        lines.extend(f.verdict);
        lines.extend(f.bail.as_ref().map(|b| b.1));
        lines.extend(death.map(|d| d.3));
        lines.extend(f.parse_errors.iter().map(|(_, n)| *n).take(3));
        it.detail = testrun::spans(&lines, 10);
        let last = f.verdict.or(f.dubious.map(|d| d.1)).unwrap_or(f.line);
        it.block = Some(match f.entry {
            Some((a, b)) if last <= f.line => Span::new(a, b),
            _ => Span::new(f.line, last.max(f.line)),
        });
        it
    }
}

/// Test::More's diagnostic lines after `at F line N.`, as one line:
/// `got: '7'; expected: '19'`.
fn diag_summary(read: &Read<'_>, d: &prove::Diag) -> Option<String> {
    let parts: Vec<String> = d
        .lines
        .iter()
        .skip(1)
        .map(|&n| read.text(n).trim_start_matches('#').trim().to_string())
        .filter(|t| !(t.is_empty() || (t.starts_with("at ") && t.ends_with('.'))))
        .take(3)
        .collect();
    // `Structures begin differing at:` leads into the lines after it.
    let mut out = String::new();
    for p in &parts {
        if !out.is_empty() {
            out.push_str(if out.ends_with(':') { " " } else { "; " });
        }
        out.push_str(p);
    }
    (!out.is_empty()).then_some(out)
}

/// A summary of at most [`SUMMARY_CHARS`] characters.
fn cut(s: &str) -> String {
    match s.char_indices().nth(SUMMARY_CHARS) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}
