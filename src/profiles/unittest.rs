//! unittest/v1 — Python's `unittest` runner (`python -m unittest`, any
//! verbosity, `-b`, `-f`, `--durations`, CPython 3.10 to 3.13) and the
//! runners built on its TextTestRunner: Django's `manage.py test`.
//!
//! **Decision.** Which tests failed or errored, which test modules did not
//! import, which class or module fixtures broke, and how did each fail? A
//! reader reruns `python -m unittest <id>` with the dotted id unittest
//! printed, or opens the file and line of the failing frame.
//!
//! **Unsafe loss.** A test named by its method alone (`test_total` in three
//! classes); a module that did not import (`_FailedTest`) counted as one
//! error among many instead of as a suite that never ran; an unexpected
//! success dropped although it fails the run; a `NO TESTS RAN` run or a run
//! cut before `Ran N tests` read as green.
//!
//! **Typed facts.** One item per `FAIL:` / `ERROR:` / `UNEXPECTED SUCCESS:`
//! block: `FailingTest` (failures and unexpected successes, class
//! `unexpected success`), `TestError` (errors, fixture errors), or
//! `SuiteNotRun` (a module that did not import). Identity = unittest's own
//! test id: `tests.test_cart.TestCart.test_total` (rebuilt from class and
//! method on CPython before 3.11, which prints the class only), a subtest
//! with its description (`… test_x (n=4)`), a fixture error as unittest
//! names it (`setUpClass (tests.test_db.TestDatabase)`), a module that did
//! not import by its module name. class = the exception class of the
//! block's last traceback, summary = its exception line, location = that
//! traceback's last frame outside the interpreter and site-packages,
//! detail = the header, the docstring, that frame and the exception line
//! with a few lines of its message, block = the whole section. Counts from
//! `FAILED (failures=…, errors=…, …)` / `OK (…)` and `Ran N tests`.
//!
//! **Ladder.** PASS_SUMMARY (counts) → FAIL_CENSUS (every identity with its
//! location and reason, detail while the budget lasts) → DENSE (census only;
//! each block by `--item ID`) → FLOOD (grouped with exact counts; `--items`).

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::{Artifact, Span};
use crate::evidence::{
    CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Location, Severity,
};

use super::testrun::{self, Facts};
use super::{Profile, ProfileSpec, ReceiptGroup};

pub struct Unittest;

/// `FAIL: test_x (pkg.mod.Class.test_x)`, then a subtest's description.
static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(FAIL|ERROR|UNEXPECTED SUCCESS): (\S+) \(([A-Za-z_][\w.]*)\)(?: (.+))?$")
        .expect("static pattern")
});
/// A verbose verdict line, `name (id) ... verdict`, or its first line when
/// a docstring follows (`name (id)`, then `Docstring ... verdict`).
static VERBOSE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\S+) \(([A-Za-z_][\w.]*)\)(?: \.\.\. (.*))?$").expect("static pattern")
});
static RAN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^Ran (\d+) tests? in \d+(?:\.\d+)?s$").expect("static pattern"));
/// The verdict line: `FAILED (failures=2, errors=1)`, `OK`, `OK (skipped=3)`,
/// `NO TESTS RAN` (3.12+).
static VERDICT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(FAILED|OK|NO TESTS RAN)(?: \(((?:[a-z ]+=\d+)(?:, [a-z ]+=\d+)*)\))?$")
        .expect("static pattern")
});
static FRAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^\s+File "([^"]+)", line (\d+), in (.+)$"#).expect("static pattern")
});
/// An exception line at column 0: `KeyError: 'price'`, `StopIteration`,
/// `orders.models.Order.DoesNotExist: …`.
static EXCEPTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([A-Za-z_][\w.]*)(?::(?: (.*))?)?$").expect("static pattern")
});
/// Lines of the run that carry no facts: progress dots, verbose verdicts,
/// `--durations`, Django's database and system-check banners.
static CHROME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:[.EFsxu]+|.* \.\.\. (?:ok|FAIL|ERROR|skipped.*|expected failure|unexpected success)?",
        r"|(?:ok|FAIL|ERROR|skipped '.*'|expected failure|unexpected success)",
        r"|Slowest test durations|\d+\.\d+s +.*|\(durations < .*\)",
        r"|Found \d+ tests?\(s\)\.|Found \d+ test\(s\)\.|(?:Creating|Destroying) test database .*",
        r"|System check identified .*|Operations to perform:|Running migrations:",
        r"|  Apply all migrations: .*|  Applying .* OK|Synchroniz.*|Using existing test database .*",
        r"|-+|=+|\s*)$"
    ))
    .expect("static pattern")
});

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["python -m unittest", "manage.py test", "django-admin test"],
    decisive_words: &["Ran ", "FAIL: ", "ERROR: "],
    ..ProfileSpec::new("unittest/v1", "unittest", ReceiptGroup::TestRunner)
};

/// The fixture methods unittest reports under their own name.
const FIXTURES: &[&str] = &[
    "setUpClass",
    "tearDownClass",
    "setUpModule",
    "tearDownModule",
];

impl Profile for Unittest {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn by_command(&self, argv: &[String]) -> Option<String> {
        let words = testrun::command_words(argv);
        match words.first().copied() {
            Some("unittest") => return Some("command python -m unittest".into()),
            Some("django-admin") if words.get(1) == Some(&"test") => {
                return Some("command django-admin test".into());
            }
            _ => {}
        }
        // `python manage.py test`, `./manage.py test --parallel 4`.
        let manage = words
            .iter()
            .position(|w| w.rsplit('/').next() == Some("manage.py"))?;
        let sub = words[manage + 1..].iter().find(|w| !w.starts_with('-'))?;
        (*sub == "test").then(|| "command manage.py test".into())
    }

    fn by_content(&self, head: &str) -> Option<String> {
        if !super::mentions_any(head, &["Ran ", "FAIL: ", "ERROR: "]) {
            return None;
        }
        // A block header under unittest's `=====` rule, or the count line.
        let mut lines = head.lines().peekable();
        while let Some(line) = lines.next() {
            let rule = line.len() >= 70 && line.bytes().all(|b| b == b'=');
            if (rule && lines.peek().is_some_and(|next| header(next).is_some()))
                || RAN.is_match(line)
            {
                return Some("unittest `FAIL:`/`ERROR:` block or `Ran N tests` line".into());
            }
        }
        None
    }

    fn decisive_line(&self, line: &str) -> Option<String> {
        if !line.starts_with(['R', 'F', 'E']) {
            return None;
        }
        (RAN.is_match(line) || header(line).is_some())
            .then(|| "unittest `Ran N tests` or `FAIL: test (module.Class)` line".into())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let cwd = artifact.cwd.as_deref();
        let mut graph = EvidenceGraph::empty();
        graph.reader = crate::evidence::Reader::family(tool(artifact));
        let mut blocks: Vec<Block> = Vec::new();
        let mut open = false;
        let mut ran: Option<u64> = None;
        let mut verdict: Option<Verdict> = None;
        let mut unmatched = 0usize;
        // Verbose `... unexpected success` lines, and a verbose line whose
        // verdict follows its docstring.
        let mut unexpected: Vec<(Header, usize)> = Vec::new();
        let mut pending: Option<(String, String)> = None;
        let total = artifact.line_count();
        for n in 1..=total {
            let text = crate::profiles::visible(artifact, n);
            let text = text.trim_end();
            let rule = text.len() >= 70 && text.bytes().all(|b| b == b'=');
            if rule {
                open = false;
                continue;
            }
            if let Some(h) = header(text) {
                blocks.push(Block::new(h, n));
                open = true;
                continue;
            }
            if let Some(c) = RAN.captures(text) {
                open = false;
                ran = c[1].parse().ok();
                graph.conclusion.push(Span::line(n));
                continue;
            }
            if let Some(c) = VERDICT.captures(text).filter(|_| ran.is_some()) {
                verdict = Some((c[1].to_string(), counts(c.get(2).map_or("", |m| m.as_str()))));
                graph.conclusion.push(Span::line(n));
                continue;
            }
            if !open && let Some(c) = VERBOSE.captures(text) {
                // CPython before 3.11 names an unexpected success only here.
                match c.get(3).map(|m| m.as_str()) {
                    Some("unexpected success") => {
                        unexpected.extend(header_of("UNEXPECTED SUCCESS", &c[1], &c[2], None).map(|h| (h, n)));
                    }
                    None => pending = Some((c[1].to_string(), c[2].to_string())),
                    Some(_) => pending = None,
                }
                continue;
            }
            if !open && text.ends_with(" ... unexpected success") {
                if let Some((name, paren)) = pending.take() {
                    unexpected.extend(header_of("UNEXPECTED SUCCESS", &name, &paren, None).map(|h| (h, n)));
                }
                continue;
            }
            if let Some(b) = blocks.last_mut().filter(|_| open) {
                if b.take(n, text, cwd) {
                    continue;
                }
                // The rule over `Ran N tests` closes the last block.
                open = false;
            }
            if !CHROME.is_match(text) {
                unmatched += 1;
            }
        }
        for b in &mut blocks {
            b.trim_end(artifact);
        }
        // An unexpected success named by its verbose line only (CPython
        // before 3.11 prints no block for it).
        for (h, n) in unexpected {
            if !blocks.iter().any(|b| b.header.id == h.id) {
                let mut b = Block::new(h, n);
                b.below_rule = true;
                blocks.push(b);
            }
        }
        graph.items = blocks.iter().map(Block::item).collect();

        let tally = |word: &str| {
            verdict
                .as_ref()
                .and_then(|(_, c)| c.iter().find(|(w, _)| w == word))
                .map_or(0, |(_, n)| *n)
        };
        let summary_seen = verdict.is_some();
        let announced = summary_seen
            .then(|| tally("failures") + tally("errors") + tally("unexpected successes"));
        if summary_seen {
            // (word, its form for one, unittest's key): the header agrees
            // a count's first word only, and these nouns come second.
            for (many, one, theirs) in [
                ("failed", "failed", "failures"),
                ("errors", "error", "errors"),
                ("unexpected successes", "unexpected success", "unexpected successes"),
                ("skipped", "skipped", "skipped"),
                ("expected failures", "expected failure", "expected failures"),
            ] {
                let n = tally(theirs);
                if n > 0 || many == "failed" {
                    let word = if n == 1 { one } else { many };
                    graph.counts.push((word.to_string(), n));
                }
            }
        }
        if let Some(n) = ran {
            graph.counts.push(("tests ran".to_string(), n));
        }
        let no_tests = verdict.as_ref().is_some_and(|(w, _)| w == "NO TESTS RAN");
        let facts = Facts {
            failures: graph.items.len(),
            summary_seen,
            interrupted: false,
            not_run: no_tests,
            announced: announced.unwrap_or(0),
            crashed: false,
        };
        graph.outcome = testrun::outcome(artifact.exit, facts);
        let blocks_parsed = graph.items.iter().filter(|i| i.block.is_some()).count();
        let receipt = testrun::receipt(
            artifact,
            graph.items.len(),
            announced,
            blocks_parsed,
            unmatched,
            summary_seen,
        );
        (graph, receipt)
    }
}

/// The verdict line's word (`FAILED`, `OK`, `NO TESTS RAN`) and its counts.
type Verdict = (String, Vec<(String, u64)>);

/// The tool a digest is headed by: Django's runner by its command.
fn tool(artifact: &Artifact) -> &'static str {
    let words = testrun::command_words(&artifact.argv);
    if words.iter().any(|w| w.rsplit('/').next() == Some("manage.py")) {
        "manage.py test"
    } else if words.first() == Some(&"django-admin") {
        "django-admin test"
    } else {
        "unittest"
    }
}

/// What a block header says.
struct Header {
    kind: ItemKind,
    unexpected: bool,
    id: String,
}

/// A block header's item kind and the test id unittest would run.
fn header(line: &str) -> Option<Header> {
    if !line.starts_with(['F', 'E', 'U']) {
        return None;
    }
    let c = HEADER.captures(line)?;
    header_of(&c[1], &c[2], &c[3], c.get(4).map(|m| m.as_str()))
}

/// The header for a verdict, the test's name, the parenthesis after it
/// and a subtest's description.
fn header_of(verdict: &str, name: &str, paren: &str, sub: Option<&str>) -> Option<Header> {
    let failed_import = paren == "unittest.loader._FailedTest"
        || paren.strip_prefix("unittest.loader._FailedTest.") == Some(name);
    let (kind, mut id) = if failed_import {
        (ItemKind::SuiteNotRun, name.to_string())
    } else if FIXTURES.contains(&name) {
        (ItemKind::TestError, format!("{name} ({paren})"))
    } else {
        // 3.11+ prints the whole id; earlier versions the class alone.
        let id = if paren.ends_with(&format!(".{name}")) {
            paren.to_string()
        } else if paren.contains('.') {
            format!("{paren}.{name}")
        } else {
            return None;
        };
        let kind = if verdict == "ERROR" {
            ItemKind::TestError
        } else {
            ItemKind::FailingTest
        };
        (kind, id)
    };
    if let Some(sub) = sub {
        id.push(' ');
        id.push_str(sub);
    }
    Some(Header {
        kind,
        unexpected: verdict == "UNEXPECTED SUCCESS",
        id,
    })
}

/// One `FAIL:`/`ERROR:` section, from its header to the next rule.
struct Block {
    header: Header,
    span: Span,
    /// Lines before the `----` rule under the header: the docstring.
    doc: Vec<usize>,
    below_rule: bool,
    /// (file, line, artifact line) of each frame of the last traceback.
    frames: Vec<(String, u32, usize)>,
    /// The exception line closing the last traceback, and its class and message.
    exception: Option<(usize, String, String)>,
    /// Lines of the exception's message after its first line.
    message_lines: Vec<usize>,
    /// The exception's message is still running (no blank line yet).
    message_open: bool,
}

impl Block {
    fn new(header: Header, n: usize) -> Self {
        Block {
            header,
            span: Span::line(n),
            doc: Vec::new(),
            below_rule: false,
            frames: Vec::new(),
            exception: None,
            message_lines: Vec::new(),
            message_open: false,
        }
    }

    /// Takes line `n` into the block; false when it is the rule that
    /// closes the block instead (the one over `Ran N tests`).
    fn take(&mut self, n: usize, text: &str, cwd: Option<&str>) -> bool {
        let dashes = !text.is_empty() && text.bytes().all(|b| b == b'-');
        if !self.below_rule {
            self.span.last = n;
            if dashes {
                self.below_rule = true;
            } else if !text.trim().is_empty() {
                self.doc.push(n);
            }
            return true;
        }
        if dashes && text.len() >= 70 {
            return false;
        }
        self.span.last = n;
        if text.starts_with("Traceback (most recent call last)") {
            // A chained exception: the last traceback is the one raised.
            self.frames.clear();
            self.exception = None;
            self.message_lines.clear();
            self.message_open = false;
            return true;
        }
        if let Some(c) = FRAME.captures(text) {
            if let Ok(line) = c[2].parse() {
                self.frames.push((testrun::relative(&c[1], cwd), line, n));
            }
            return true;
        }
        if text.trim().is_empty() {
            self.message_open = false;
        } else if self.exception.is_none() {
            if !text.starts_with(' ')
                && let Some(c) = EXCEPTION.captures(text)
                && text != "Stdout:"
                && text != "Stderr:"
            {
                let message = c.get(2).map_or("", |m| m.as_str()).to_string();
                self.exception = Some((n, c[1].to_string(), message));
                self.message_open = true;
            }
        } else if self.message_open && self.message_lines.len() < 3 {
            self.message_lines.push(n);
        }
        true
    }

    /// Blank lines at the block's end belong to no one.
    fn trim_end(&mut self, artifact: &Artifact) {
        while self.span.last > self.span.first
            && crate::profiles::visible(artifact, self.span.last)
                .trim()
                .is_empty()
        {
            self.span.last -= 1;
        }
    }

    fn item(&self) -> EvidenceItem {
        let h = &self.header;
        let mut it = EvidenceItem::new(h.kind, Severity::Error, h.id.clone());
        it.block = Some(self.span);
        let frame = self
            .frames
            .iter()
            .rev()
            .find(|f| !is_library(&f.0))
            .or(self.frames.last());
        if let Some((file, line, _)) = frame {
            it.location = Some(Location {
                file: file.clone(),
                line: Some(*line),
                column: None,
            });
        } else {
            // No frame (an unexpected success): the file of the module the
            // id names, as discovery maps one to the other.
            it.location = module_file(&h.id).map(|file| Location {
                file,
                line: None,
                column: None,
            });
        }
        if h.unexpected {
            it.class = Some("unexpected success".into());
            it.summary = Some("unexpected success: marked expectedFailure, but it passed".into());
        } else if let Some((_, class, message)) = &self.exception {
            it.class = Some(class.clone());
            it.summary = Some(if message.is_empty() {
                class.clone()
            } else {
                format!("{class}: {message}")
            });
        }
        let mut lines = vec![self.span.first];
        lines.extend(self.doc.iter().take(2));
        if let Some((_, _, n)) = frame {
            lines.extend([*n, n + 1]);
        }
        if let Some((n, _, _)) = &self.exception {
            lines.push(*n);
        }
        lines.extend(&self.message_lines);
        it.detail = testrun::spans(&lines, 10);
        it
    }
}

/// `tests/test_marks.py` for `tests.test_marks.TestMarks.test_x`: the
/// module, without its class and method, as a path.
fn module_file(id: &str) -> Option<String> {
    let dotted = id.split(' ').next()?;
    let parts: Vec<&str> = dotted.split('.').collect();
    (parts.len() >= 3).then(|| format!("{}.py", parts[..parts.len() - 2].join("/")))
}

/// `failures=9, errors=8, expected failures=1` → (word, count) pairs.
fn counts(body: &str) -> Vec<(String, u64)> {
    body.split(", ")
        .filter_map(|part| {
            let (word, n) = part.split_once('=')?;
            Some((word.to_string(), n.parse().ok()?))
        })
        .collect()
}

/// Frames a reader cannot fix: installed packages, the interpreter.
fn is_library(file: &str) -> bool {
    file.starts_with('<')
        || file.contains("site-packages/")
        || file.contains("dist-packages/")
        || file.contains("/lib/python")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_name_the_test_unittest_would_run() {
        let id = |l: &str| header(l).map(|h| (h.kind, h.id));
        assert_eq!(
            id("FAIL: test_total (tests.test_cart.TestCart.test_total)"),
            Some((ItemKind::FailingTest, "tests.test_cart.TestCart.test_total".into()))
        );
        // CPython 3.10 prints the class only.
        assert_eq!(
            id("ERROR: test_total (tests.test_cart.TestCart)"),
            Some((ItemKind::TestError, "tests.test_cart.TestCart.test_total".into()))
        );
        assert_eq!(
            id("FAIL: test_x (tests.t.T.test_x) (n=4)"),
            Some((ItemKind::FailingTest, "tests.t.T.test_x (n=4)".into()))
        );
        assert_eq!(
            id("ERROR: setUpClass (tests.test_db.TestDatabase)"),
            Some((ItemKind::TestError, "setUpClass (tests.test_db.TestDatabase)".into()))
        );
        for line in [
            "ERROR: tests.test_broken (unittest.loader._FailedTest.tests.test_broken)",
            "ERROR: tests.test_broken (unittest.loader._FailedTest)",
        ] {
            assert_eq!(
                id(line),
                Some((ItemKind::SuiteNotRun, "tests.test_broken".into()))
            );
        }
        // A log's `ERROR: word (word)` names no test.
        assert!(id("ERROR: timeout (primary)").is_none());
        assert!(id("FAILED tests/t.py::test_x - assert 1").is_none());
    }

    #[test]
    fn verdict_counts() {
        let c = VERDICT
            .captures("FAILED (failures=9, errors=8, expected failures=1)")
            .unwrap();
        assert_eq!(
            counts(&c[2]),
            vec![
                ("failures".to_string(), 9),
                ("errors".to_string(), 8),
                ("expected failures".to_string(), 1)
            ]
        );
        assert!(VERDICT.is_match("OK"));
        assert!(VERDICT.is_match("NO TESTS RAN"));
        assert!(VERDICT.is_match("OK (skipped=2)"));
    }
}
