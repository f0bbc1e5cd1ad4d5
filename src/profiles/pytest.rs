//! pytest/v1 — pytest's terminal report, any verbosity, `--tb` style,
//! colour, and pytest-xdist.
//!
//! **Decision.** Which tests failed or errored (setup, teardown,
//! collection), how did each fail, and where is its traceback? A reader
//! fixes failures one node id at a time and reruns exactly those ids.
//!
//! **Unsafe loss.** A node id shortened to its last segment (ambiguous
//! across files and parameter sets), a collection error counted as "no
//! tests", an exit-5 run ("no tests ran") or a run whose summary line is
//! missing read as green, a census that silently stops at N entries.
//!
//! **Typed facts.** One item per `FAILED` / `ERROR` line of the short test
//! summary: `FailingTest` or `TestError`, identity = the node id exactly as
//! pytest prints it (file, classes, parameters; non-ASCII escaped by
//! pytest), class = exception class (`XPASS(strict)` for strict xpasses),
//! summary = the first `E` line of its block (else the summary line's
//! message), location = the last traceback frame outside site-packages and
//! the interpreter, headline = the summary line, detail = the `>` line, the
//! `E` lines and the crash line, block = the `___ title ___` section with
//! captured output. Counts come from the final `= N failed, … in Xs =`
//! line (duration dropped). Without a short summary (`-rN`) identities are
//! rebuilt from block titles and the receipt says so.
//!
//! **Ladder.** PASS_SUMMARY (counts, warnings count; everything else by
//! `ctx expand`) → FAIL_CENSUS (every summary line, plus decisive lines per
//! failure while the budget lasts) → DENSE (census only; each block by
//! `--item ID`) → FLOOD (census grouped by file and class with exact counts;
//! the full list by `--items`).

use std::collections::{HashMap, VecDeque};
use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::{Artifact, Span};
use crate::evidence::{
    CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Location, Precision, Severity,
};

use super::{Profile, ProfileSpec, ReceiptGroup};
use super::testrun::{self, Facts};

mod breakdown;
use breakdown::{Breakdown, breakdown};

pub struct Pytest;

static SECTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^=+ (.+?) =+$").expect("static pattern"));
/// The final line: counts and a duration, with or without `=` rules (`-q`).
/// A count is `N word…` in any of pytest's words and a plugin's
/// (`3 failed`, `200 subtests passed`, `2 rerun`), `no tests ran`, or a
/// `--collect-only` total (`3/5 tests collected (2 deselected)`).
static FINAL: LazyLock<Regex> = LazyLock::new(|| {
    let part = r"(?:\d+(?:/\d+)? [a-z][a-z-]*(?: [a-z][a-z-]*)*|no tests (?:ran|collected))(?: \(\d+ deselected\))?";
    Regex::new(&format!(
        r"^(?:=+ )?({part}(?:, {part})*) in \d[\d.]*s(?: \([\d:]+\))?(?: =+)?$"
    ))
    .expect("static pattern")
});
/// A failed subtest in the short summary (pytest 9): `SUBFAILED[msg] (k=v)
/// path.py::T::test - message`; the description is `[msg]`, `(k=v, …)`,
/// both, or `(<subtest>)`.
static SUBFAILED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^SUBFAILED(\[.*?\](?: \(.*?\))?|\(.*?\)) (\S+\.py::.+)$").expect("static pattern")
});
static BLOCK_TITLE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^_{2,} (.+?) _{2,}$").expect("static pattern"));
static SUMMARY_ITEM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(FAILED|ERROR) (.+)$").expect("static pattern"));
/// A traceback frame or crash line: `path.py:12: in fn` / `path.py:12: KeyError`.
static FRAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([^\s:][^:]*\.py):(\d+):(?: (.*))?$").expect("static pattern"));
/// A SyntaxError's own frame, inside `E` lines.
static SYNTAX_FRAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"^E\s+File "([^"]+)", line (\d+)"#).expect("static pattern"));
static E_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^E(?:\s+(.*))?$").expect("static pattern"));
/// Session header and progress lines: recognised, carry no facts.
static CHROME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[a-z][\w -]*: .*|\S+\.py(?: [.FEsxXR]+|::\S.*)?|collect(?:ed|ing) .*|\d+ workers? \[.*\]|.*\[\s*\d+%\]|[.FEsxXR]+|!+ .* !+|-- Docs: .*|\(to show a full traceback.*|.*: KeyboardInterrupt|\s*)$")
        .expect("static pattern")
});

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    Session,
    Errors,
    Failures,
    ShortSummary,
    Other,
}

/// One `___ title ___` section of ERRORS or FAILURES.
struct Block {
    title: String,
    in_errors: bool,
    span: Span,
    gt: Option<usize>,
    e_lines: Vec<usize>,
    message: Option<String>,
    /// (file, line, source line) of every frame, in order.
    frames: Vec<(String, u32, usize)>,
    /// The crash line `path:N: Class` and its class.
    crash: Option<(usize, String)>,
}

struct SummaryEntry {
    error: bool,
    /// The census identity: the node id, and for a failed subtest a space
    /// and pytest's description of it (`[msg] (k=v)`).
    id: String,
    /// The title pytest prints over this entry's block.
    title: String,
    /// A failed subtest's node id and description (`[msg] (k=v)`).
    subtest: Option<(String, String)>,
    message: Option<String>,
    line: usize,
}

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["pytest", "py.test", "python -m pytest"],
    decisive_words: &["test session starts", "FAILED ", "ERROR "],
    ..ProfileSpec::new("pytest/v1", "pytest", ReceiptGroup::TestRunner)
};

impl Profile for Pytest {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }


    fn by_content(&self, head: &str) -> Option<String> {
        // The banner's words first: most output never compiles SECTION here.
        (super::mentions_any(head, &["test session starts"])
            && head.lines().any(|l| {
                SECTION
                    .captures(l)
                    .is_some_and(|c| &c[1] == "test session starts")
            }))
        .then(|| "pytest session banner".to_string())
    }

    fn decisive_line(&self, line: &str) -> Option<String> {
        // The banner, or a short-summary verdict naming a test node id.
        let banner = SECTION
            .captures(line)
            .is_some_and(|c| &c[1] == "test session starts");
        let verdict = ["FAILED ", "ERROR "].iter().any(|v| {
            line.strip_prefix(v)
                .and_then(|rest| rest.split_whitespace().next())
                .is_some_and(|id| id.split_once("::").is_some_and(|(f, _)| f.ends_with(".py")))
        });
        (banner || verdict)
            .then(|| "pytest session banner or `FAILED file.py::test` verdict".into())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let cwd = artifact.cwd.as_deref();
        let mut graph = EvidenceGraph::empty();
        graph.reader = crate::evidence::Reader::family("pytest");
        let mut section = Section::Session;
        let mut blocks: Vec<Block> = Vec::new();
        let mut entries: Vec<SummaryEntry> = Vec::new();
        let mut final_line: Option<(usize, String)> = None;
        let (mut interrupted, mut collection_interrupted) = (false, false);
        let mut breakdowns: Vec<Breakdown> = Vec::new();
        let mut unmatched = 0usize;
        for n in 1..=artifact.line_count() {
            let text = crate::profiles::visible(artifact, n);
            let text = text.trim_end();
            // Captured output inside a block may say anything: only lines
            // of pytest's own report can tell that the runner broke.
            let report = matches!(section, Section::Session | Section::Other);
            if report && breakdown(&mut breakdowns, n, text, cwd, section == Section::Session) {
                continue;
            }
            if let Some(c) = FINAL.captures(text) {
                final_line = Some((n, c[1].to_string()));
                graph.conclusion.push(Span::line(n));
                section = Section::Other;
                continue;
            }
            if let Some(c) = SECTION.captures(text) {
                section = match &c[1] {
                    "ERRORS" => Section::Errors,
                    "FAILURES" => Section::Failures,
                    "short test summary info" => Section::ShortSummary,
                    "test session starts" => Section::Session,
                    _ => Section::Other,
                };
                continue;
            }
            if text.starts_with('!') {
                // `!!! KeyboardInterrupt !!!`, `!!! Interrupted: 3 errors during collection !!!`,
                // `!!! stopping after 1 failures !!!`: the run's own conclusion.
                interrupted |= text.contains("KeyboardInterrupt");
                collection_interrupted |= text.contains("during collection");
                graph.conclusion.push(Span::line(n));
                continue;
            }
            match section {
                Section::Errors | Section::Failures => {
                    if let Some(c) = BLOCK_TITLE.captures(text) {
                        blocks.push(Block::new(&c[1], section == Section::Errors, n));
                    } else if let Some(block) = blocks.last_mut().filter(|b| b.open_in(section)) {
                        block.take(n, text, cwd);
                    } else {
                        unmatched += 1;
                    }
                }
                Section::ShortSummary => {
                    if let Some(c) = SUMMARY_ITEM.captures(text) {
                        let (id, message) = split_summary(&c[2]);
                        let error = &c[1] == "ERROR";
                        let title = title_of(&id, error);
                        entries.push(SummaryEntry {
                            error,
                            id,
                            title,
                            subtest: None,
                            message,
                            line: n,
                        });
                    } else if let Some(c) = SUBFAILED.captures(text) {
                        let (node, message) = split_summary(&c[2]);
                        entries.push(SummaryEntry {
                            error: false,
                            id: format!("{node} {}", &c[1]),
                            title: format!("{} {}", id_to_domain(&node), &c[1]),
                            subtest: Some((node, c[1].to_string())),
                            message,
                            line: n,
                        });
                    }
                }
                Section::Session | Section::Other => {
                    if section == Section::Session && !CHROME.is_match(text) {
                        unmatched += 1;
                    }
                }
            }
        }

        let rebuilt = entries.is_empty();
        if rebuilt {
            entries = blocks.iter().map(Block::as_entry).collect();
        }
        let mut titles = Titles::of(&blocks);
        for entry in &entries {
            let block = claim(&mut titles, entry).map(|i| &blocks[i]);
            graph.items.push(item(entry, block, rebuilt));
        }
        let crashed = !breakdowns.is_empty();
        for b in &breakdowns {
            graph.items.push(b.item());
        }
        let blocks_parsed = graph.items.iter().filter(|i| i.block.is_some()).count();

        let mut announced = None;
        let mut no_tests = false;
        if let Some((_, body)) = &final_line {
            if body == "no tests ran" {
                no_tests = true;
                graph.counts.push(("tests ran".into(), 0));
            } else {
                graph.counts = parse_counts(body);
                no_tests = body.starts_with("no tests collected");
                let sum = graph
                    .counts
                    .iter()
                    .filter(|(w, _)| matches!(w.as_str(), "failed" | "error" | "errors"))
                    .map(|(_, n)| n)
                    .sum::<u64>();
                // A breakdown is a census item the summary does not count.
                announced = Some(sum + breakdowns.len() as u64);
            }
        }
        let facts = Facts {
            failures: graph.items.len(),
            summary_seen: final_line.is_some(),
            interrupted,
            not_run: collection_interrupted || no_tests,
            announced: announced.unwrap_or(0),
            crashed,
        };
        graph.outcome = testrun::outcome(artifact.exit, facts);
        let mut receipt = testrun::receipt(
            artifact,
            graph.items.len(),
            announced,
            blocks_parsed,
            unmatched,
            final_line.is_some(),
        );
        if crashed && final_line.is_none() {
            // The runner died before its summary: its census item says so.
            // Not "truncated upstream", but not complete either.
            receipt.truncated = artifact.truncated;
            receipt.precision =
                Precision::Degraded("pytest stopped before its summary line".into());
        }
        if rebuilt && !blocks.is_empty() && receipt.precision == Precision::Full {
            receipt.precision = Precision::Degraded(
                "no short test summary: node ids rebuilt from block titles".into(),
            );
        }
        (graph, receipt)
    }
}

impl Block {
    fn new(title: &str, in_errors: bool, n: usize) -> Self {
        Block {
            title: title.to_string(),
            in_errors,
            span: Span::line(n),
            gt: None,
            e_lines: Vec::new(),
            message: None,
            frames: Vec::new(),
            crash: None,
        }
    }

    fn open_in(&self, section: Section) -> bool {
        self.in_errors == (section == Section::Errors)
    }

    fn take(&mut self, n: usize, text: &str, cwd: Option<&str>) {
        self.span.last = n;
        if let Some(c) = E_LINE.captures(text) {
            self.e_lines.push(n);
            if let Some(c) = SYNTAX_FRAME.captures(text) {
                self.frame(&c[1], &c[2], n, cwd);
            }
            let body = c.get(1).map_or("", |m| m.as_str()).trim();
            if self.message.is_none() && !body.is_empty() {
                self.message = Some(body.to_string());
            }
        } else if text.starts_with('>') && self.e_lines.is_empty() {
            self.gt = Some(n);
        } else if let Some(c) = FRAME.captures(text) {
            self.frame(&c[1], &c[2], n, cwd);
            let rest = c.get(3).map_or("", |m| m.as_str()).trim();
            if !rest.is_empty() && !rest.starts_with("in ") {
                self.crash = Some((n, class_of(rest)));
            }
        } else if self.message.is_none() && text.starts_with("[XPASS(strict)]") {
            self.message = Some(text.to_string());
            self.crash = Some((n, "XPASS(strict)".into()));
        }
    }

    fn frame(&mut self, file: &str, line: &str, n: usize, cwd: Option<&str>) {
        if let Ok(line) = line.parse() {
            self.frames.push((testrun::relative(file, cwd), line, n));
        }
    }

    /// The node id this block's title implies, for runs without a short summary.
    fn as_entry(&self) -> SummaryEntry {
        let (error, domain) = match self.title.split_once(" of ") {
            Some((_, d)) if self.in_errors && self.title.starts_with("ERROR at ") => (true, d),
            _ => match self.title.strip_prefix("ERROR collecting ") {
                Some(path) if self.in_errors => (true, path),
                _ => (self.in_errors, self.title.as_str()),
            },
        };
        let file = self
            .frames
            .first()
            .map(|f| f.0.as_str())
            .filter(|f| !is_library(f));
        let id = match file {
            Some(file) if !domain.ends_with(".py") => format!("{file}::{}", domain_to_id(domain)),
            _ => domain.to_string(),
        };
        SummaryEntry {
            error,
            id,
            title: String::new(),
            subtest: None,
            message: None,
            line: self.span.first,
        }
    }
}

/// The blocks by the titles a summary entry can name them by, each title
/// with its blocks in order: pairing an entry is a lookup, not a walk
/// over every block (with many failures that walk was quadratic).
struct Titles<'a> {
    /// (in the errors section, title) → block indices, first unclaimed
    /// at the front.
    by: HashMap<(bool, &'a str), VecDeque<usize>>,
    blocks: &'a [Block],
}

impl<'a> Titles<'a> {
    fn of(blocks: &'a [Block]) -> Titles<'a> {
        let mut by: HashMap<(bool, &'a str), VecDeque<usize>> = HashMap::new();
        for (i, b) in blocks.iter().enumerate() {
            by.entry((b.in_errors, b.title.as_str()))
                .or_default()
                .push_back(i);
        }
        Titles { by, blocks }
    }

    fn first(&self, in_errors: bool, title: &str) -> Option<usize> {
        self.by.get(&(in_errors, title))?.front().copied()
    }

    /// Claims block `index`, the first of its title.
    fn take(&mut self, index: usize) {
        let b = &self.blocks[index];
        if let Some(queue) = self.by.get_mut(&(b.in_errors, b.title.as_str())) {
            queue.pop_front();
        }
    }
}

/// The block a summary entry refers to: the first unclaimed block whose
/// title pytest would print for that node id. Order within each kind is the
/// same in both places, so equal titles in different files pair correctly.
fn claim(titles: &mut Titles, entry: &SummaryEntry) -> Option<usize> {
    let candidates: Vec<String> = if entry.error {
        vec![
            format!("ERROR collecting {}", entry.id),
            format!("ERROR at setup of {}", entry.title),
            format!("ERROR at teardown of {}", entry.title),
        ]
    } else {
        vec![entry.title.clone()]
    };
    let index = candidates
        .iter()
        .filter_map(|t| titles.first(entry.error, t))
        .min()?;
    titles.take(index);
    Some(index)
}

fn item(entry: &SummaryEntry, block: Option<&Block>, rebuilt: bool) -> EvidenceItem {
    let kind = if entry.error {
        ItemKind::TestError
    } else {
        ItemKind::FailingTest
    };
    let mut it = EvidenceItem::new(kind, Severity::Error, entry.id.clone());
    if !rebuilt {
        it.headline = Some(Span::line(entry.line));
    }
    let file = entry.id.split("::").next().unwrap_or(&entry.id).to_string();
    it.location = Some(Location {
        file,
        line: None,
        column: None,
    });
    it.summary = entry.message.clone();
    it.class = entry.message.as_deref().map(class_of);
    if let Some((node, description)) = &entry.subtest {
        it.fields.insert("test".into(), node.clone());
        it.fields.insert("subtest".into(), description.clone());
    }
    if let Some(b) = block {
        it.block = Some(b.span);
        if b.message.is_some() {
            it.summary = b.message.clone();
        }
        if let Some((_, class)) = &b.crash {
            it.class = Some(class.clone());
        } else if let Some(m) = &b.message {
            it.class = Some(class_of(m));
        }
        if let Some((file, line, _)) = b.frames.iter().rev().find(|f| !is_library(&f.0)) {
            it.location = Some(Location {
                file: file.clone(),
                line: Some(*line),
                column: None,
            });
        }
        if let Some(phase) = b
            .title
            .strip_prefix("ERROR at ")
            .and_then(|t| t.split(' ').next())
        {
            it.fields.insert("phase".into(), phase.into());
        } else if b.title.starts_with("ERROR collecting ") {
            it.fields.insert("phase".into(), "collection".into());
        }
        let mut lines: Vec<usize> = b.gt.into_iter().collect();
        lines.extend(b.e_lines.iter().take(8));
        lines.extend(b.crash.as_ref().map(|c| c.0));
        it.detail = testrun::spans(&lines, 10);
    }
    it
}

/// `rest` without a leading `[1.25s] ` duration.
fn strip_duration(rest: &str) -> &str {
    let Some(inner) = rest.strip_prefix('[') else {
        return rest;
    };
    let Some((number, after)) = inner.split_once("s] ") else {
        return rest;
    };
    let numeric = !number.is_empty()
        && number.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && number.bytes().next().is_some_and(|b| b.is_ascii_digit());
    if numeric { after } else { rest }
}

/// The block title pytest prints for a summary entry's node id.
fn title_of(id: &str, error: bool) -> String {
    if error && !id.contains("::") {
        return id.to_string();
    }
    id_to_domain(id)
}

/// `FAILED <nodeid> - <message>`: the node id ends at the first ` - ` that
/// is outside its parameter brackets (ids may contain ` - ` themselves).
///
/// A duration a plugin prints before the node id (`FAILED [0.0114s]
/// t.py::test - …`, PyTorch's CI) is the run's, not the test's name.
fn split_summary(rest: &str) -> (String, Option<String>) {
    let rest = strip_duration(rest);
    let mut depth = 0i32;
    let bytes = rest.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'[' => depth += 1,
            b']' => depth -= 1,
            b' ' if depth <= 0 && rest[i..].starts_with(" - ") => {
                return (rest[..i].to_string(), Some(rest[i + 3..].to_string()));
            }
            _ => {}
        }
    }
    (rest.to_string(), None)
}

/// The title pytest prints over a node id's block: the part after the file,
/// `::` turned into `.` outside the parameter brackets.
fn id_to_domain(id: &str) -> String {
    let Some((_, rest)) = id.split_once("::") else {
        return id.to_string();
    };
    let (name, params) = rest.find('[').map_or((rest, ""), |i| rest.split_at(i));
    format!("{}{params}", name.replace("::", "."))
}

fn domain_to_id(domain: &str) -> String {
    let (name, params) = domain
        .find('[')
        .map_or((domain, ""), |i| domain.split_at(i));
    format!("{}{params}", name.replace('.', "::"))
}

/// The exception class a message or crash line names.
fn class_of(message: &str) -> String {
    if message.starts_with("[XPASS(strict)]") {
        return "XPASS(strict)".into();
    }
    if message.starts_with("assert ") {
        return "AssertionError".into();
    }
    let head = message.split(':').next().unwrap_or(message).trim();
    let looks_like_class = !head.is_empty()
        && !head.contains(' ')
        && head
            .rsplit('.')
            .next()
            .is_some_and(|s| s.starts_with(|c: char| c.is_ascii_uppercase()));
    if looks_like_class {
        head.to_string()
    } else {
        "failure".into()
    }
}

/// Frames a reader cannot fix: installed packages, the interpreter, frozen modules.
fn is_library(file: &str) -> bool {
    file.starts_with('<')
        || file.contains("site-packages/")
        || file.contains("dist-packages/")
        || file.contains("/lib/python")
}

/// `8 failed, 7 passed, 232 subtests passed` → (word, count) pairs in
/// order; `3/5 tests collected (2 deselected)` → `tests collected` 3 and
/// `deselected` 2.
fn parse_counts(body: &str) -> Vec<(String, u64)> {
    let mut counts = Vec::new();
    for part in body.split(", ") {
        let (part, deselected) = match part.split_once(" (") {
            Some((p, rest)) => (p, rest.strip_suffix(" deselected)")),
            None => (part, None),
        };
        if let Some((n, word)) = part.split_once(' ')
            && let Ok(n) = n.split('/').next().unwrap_or(n).parse()
        {
            counts.push((word.to_string(), n));
        }
        if let Some(Ok(d)) = deselected.map(str::parse) {
            counts.push(("deselected".to_string(), d));
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Exit;
    use crate::evidence::Outcome;

    #[test]
    fn summary_lines_split_outside_brackets() {
        let (id, msg) = split_summary("t.py::test_a[x - y] - KeyError: 'k'");
        assert_eq!(id, "t.py::test_a[x - y]");
        assert_eq!(msg.as_deref(), Some("KeyError: 'k'"));
        assert_eq!(split_summary("tests/test_x.py").0, "tests/test_x.py");
        let (id, msg) = split_summary("[0.0114s] t.py::K::test_b - TypeError: x");
        assert_eq!(id, "t.py::K::test_b");
        assert_eq!(msg.as_deref(), Some("TypeError: x"));
        // A parameter that looks like a duration is the test's own.
        assert_eq!(split_summary("[1s]").0, "[1s]");
    }

    #[test]
    fn titles_follow_node_ids() {
        assert_eq!(
            id_to_domain("t.py::TestA::test_b[edge::19]"),
            "TestA.test_b[edge::19]"
        );
        assert_eq!(domain_to_id("TestA.test_b[1.5]"), "TestA::test_b[1.5]");
        assert_eq!(class_of("assert 1 == 2"), "AssertionError");
        assert_eq!(class_of("mod.CustomError: boom"), "mod.CustomError");
        assert_eq!(class_of("expected half of 2500"), "failure");
    }

    /// Captured output inside a failure's block may say `ERROR:` or
    /// `INTERNALERROR>`: it is the test's, not pytest's, and breaks nothing.
    #[test]
    fn captured_output_is_not_a_breakdown() {
        let out = "\
============================= test session starts ==============================
collected 2 items

tests/test_db.py F.                                                      [100%]

=================================== FAILURES ===================================
_________________________________ test_connect _________________________________

    def test_connect():
>       assert connect()
E       assert False

tests/test_db.py:3: AssertionError
----------------------------- Captured stdout call -----------------------------
ERROR: connection refused
INTERNALERROR> not ours
Fatal Python error: printed by a subprocess
=========================== short test summary info ============================
FAILED tests/test_db.py::test_connect - assert False
========================= 1 failed, 1 passed in 0.02s ==========================
";
        let a = Artifact::from_stdout(out.as_bytes().to_vec(), Exit::Unknown, vec![]);
        let (g, r) = Pytest.extract(&a);
        let ids: Vec<&str> = crate::contract::for_family("pytest")
            .unwrap()
            .census(&g)
            .map(|i| i.identity.as_str())
            .collect();
        assert_eq!(ids, ["tests/test_db.py::test_connect"]);
        assert_eq!(g.outcome, Outcome::Failed);
        assert!(r.is_complete(), "{r:?}");
    }

    #[test]
    fn summary_grammar_takes_every_pytest_word() {
        for line in [
            "8 failed, 7 passed, 232 subtests passed in 0.09s",
            "==== 2 passed, 200 subtests passed in 0.06s ====",
            "= 1 failed, 2 subtests failed, 1 subtests skipped, 3 rerun in 1.20s (0:00:01) =",
            "5 tests collected in 0.01s",
            "== 3/5 tests collected (2 deselected) in 0.01s ==",
            "no tests collected (4 deselected) in 0.01s",
            "1 test collected, 1 error in 0.03s",
        ] {
            assert!(FINAL.is_match(line), "{line}");
        }
        assert_eq!(
            parse_counts("8 failed, 232 subtests passed"),
            vec![
                ("failed".to_string(), 8),
                ("subtests passed".to_string(), 232)
            ]
        );
        assert_eq!(
            parse_counts("3/5 tests collected (2 deselected)"),
            vec![
                ("tests collected".to_string(), 3),
                ("deselected".to_string(), 2)
            ]
        );
        let c = SUBFAILED
            .captures("SUBFAILED[label a] (size=5) t.py::T::test_x - AssertionError: 5")
            .unwrap();
        assert_eq!(
            (&c[1], &c[2]),
            ("[label a] (size=5)", "t.py::T::test_x - AssertionError: 5")
        );
        let c = SUBFAILED
            .captures("SUBFAILED(n='9') t.py::T::test_p")
            .unwrap();
        assert_eq!(&c[1], "(n='9')");
    }
}
