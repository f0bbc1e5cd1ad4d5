//! format_check/v1 — formatters in check mode: `black --check` (and
//! `--diff`), `ruff format --check` (and `--diff`), `prettier --check` and
//! `--list-different`, `cargo fmt --check` (rustfmt), `gofmt -l` and
//! `gofmt -d`.
//!
//! **Decision.** Which files would the formatter change (so: run it in
//! write mode, or fix the one it cannot parse), and is the tree clean?
//!
//! **Unsafe loss.** A file that would be reformatted dropped from the
//! list (the CI gate stays red after "fixing" the ones shown); a file the
//! formatter could not parse (a syntax error: it was not checked at all)
//! shown as merely unformatted, or not at all; `gofmt -l`'s list read as
//! clean because gofmt exits 0.
//!
//! **Typed facts.** One `Diagnostic` (severity error) per file: class
//! `would reformat` or `cannot format`; identity = the path relative to
//! the working directory; summary = `would reformat` or the parse error;
//! field `first_change` = the first line the formatter changes, when its
//! report says (a ruff `-->` line, a `Diff in f:N:` line, a hunk header);
//! headline = the line naming the file (`would reformat f`, `[warn] f`,
//! `Diff in f:1:`, a bare path); block = the file's diff or frame when the
//! report has one, detail its first hunk from its `@@` (diff headers carry
//! the run's clock). Counts: files to reformat, files not parsed, files the
//! tool says it left unchanged.
//!
//! **Ladder.** PASS_SUMMARY (the tool's clean line) → FAIL_CENSUS (every
//! file, hunks while the budget lasts) → DENSE (every file) → FLOOD (files
//! grouped by folder with exact counts; `--items`).

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::{Artifact, Exit, Span};
use crate::evidence::{
    CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Location, Outcome, Severity,
};

use super::coverage::Coverage;
use super::{Profile, ProfileSpec, ReceiptGroup};

pub struct FormatCheck;

/// black: `would reformat PATH`.
static BLACK_FILE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^would reformat (\S.*)$").expect("static pattern"));
/// black: `error: cannot parse: PATH:L:C` (26.x) or `error: cannot format
/// PATH: Cannot parse: L:C: …` (earlier).
static BLACK_ERROR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^error: cannot (?:parse: (\S.*?):(\d+):\d+|format (\S.*?): (.*))$")
        .expect("static pattern")
});
/// ruff format: `unformatted: File would be reformatted` over a `-->`
/// line, `Would reformat: PATH` (earlier ruff), `error: Failed to parse
/// PATH:L:C: msg`, or an `invalid-syntax:` block.
static RUFF_FILE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^Would reformat: (\S.*)$").expect("static pattern"));
static RUFF_ERROR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^error: Failed to parse (\S.*?):(\d+):\d+: (.*)$").expect("static pattern")
});
static ARROW: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*--> (\S.*?):(\d+):\d+$").expect("static pattern"));
/// black and ruff's closing counts: `2 files would be reformatted, 3 files
/// would be left unchanged, 1 file would fail to reformat.`
static TALLY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(\d+) files? (would be reformatted|would be left unchanged|already formatted|left unchanged|would fail to reformat)")
        .expect("static pattern")
});
/// prettier: `[warn] PATH`, `[error] PATH: SyntaxError: …`.
static PRETTIER_ERROR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\[error\] (\S[^:]*): (\w*Error: .*)$").expect("static pattern")
});
static PRETTIER_ISSUES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\[warn\] Code style issues (?:found in (\d+) files|found in the above file|in the above file)")
        .expect("static pattern")
});
/// rustfmt: `Diff in PATH:N:` (1.7+) or `Diff in PATH at line N:`.
static RUSTFMT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Diff in (\S.*?)(?::(\d+):| at line (\d+):)$").expect("static pattern")
});
/// gofmt -d: `diff -u a.go.orig a.go` (or without `-u`).
static GOFMT_DIFF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^diff (?:-u )?(\S+)\.orig (\S+)$").expect("static pattern")
});
/// gofmt's syntax error: `PATH:L:C: expected …`.
static GO_ERROR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\S+\.go):(\d+):\d+: (.*)$").expect("static pattern"));
/// A unified diff's file header (`--- PATH[\tTIME]`) and hunk header.
static DIFF_FROM: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^--- (\S[^\t]*?)(?:\t.*)?$").expect("static pattern"));
static HUNK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^@@ -\d+(?:,\d+)? \+(\d+)").expect("static pattern"));

static SPEC: ProfileSpec = ProfileSpec {
    commands: &[
        "black --check",
        "ruff format",
        "prettier --check",
        "cargo fmt",
        "rustfmt --check",
        "gofmt -l",
    ],
    decisive_words: &[
        "would reformat ",
        "Would reformat: ",
        "unformatted: File would be reformatted",
        "would be reformatted",
        "[warn] Code style issues",
        "Diff in ",
    ],
    ..ProfileSpec::new("format_check/v1", "format_check", ReceiptGroup::Everyday)
};

/// Which formatter printed the report.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tool {
    Black,
    Ruff,
    Prettier,
    Rustfmt,
    Gofmt,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Black => "black --check",
            Tool::Ruff => "ruff format",
            Tool::Prettier => "prettier --check",
            Tool::Rustfmt => "cargo fmt",
            Tool::Gofmt => "gofmt",
        }
    }

    /// The formatter a command runs in check mode, if it does.
    fn of_command(argv: &[String]) -> Option<Tool> {
        let words = crate::command::command_words(argv);
        let has = |flags: &[&str]| words.iter().skip(1).any(|w| flags.contains(w));
        match words.first().copied()? {
            "black" if has(&["--check", "--diff"]) => Some(Tool::Black),
            "ruff" if words.get(1) == Some(&"format") && has(&["--check", "--diff"]) => {
                Some(Tool::Ruff)
            }
            "prettier" if has(&["--check", "-c", "--list-different", "-l"]) => {
                Some(Tool::Prettier)
            }
            "cargo" if words.get(1) == Some(&"fmt") && has(&["--check"]) => Some(Tool::Rustfmt),
            "rustfmt" if has(&["--check"]) => Some(Tool::Rustfmt),
            "gofmt" if has(&["-l", "-d"]) => Some(Tool::Gofmt),
            _ => None,
        }
    }
}

impl Profile for FormatCheck {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn by_command(&self, argv: &[String]) -> Option<String> {
        Tool::of_command(argv).map(|t| format!("command {}", t.name()))
    }

    fn by_content(&self, head: &str) -> Option<String> {
        if !super::mentions_any(head, SPEC.decisive_words) {
            return None;
        }
        head.lines()
            .any(|l| self.decisive_line(l).is_some())
            .then(|| "a formatter's would-reformat line".to_string())
    }

    fn decisive_line(&self, line: &str) -> Option<String> {
        if !line.starts_with(|c: char| "wWu[D".contains(c) || c.is_ascii_digit()) {
            return None;
        }
        let hit = BLACK_FILE.is_match(line)
            || RUFF_FILE.is_match(line)
            || line == "unformatted: File would be reformatted"
            || PRETTIER_ISSUES.is_match(line)
            || RUSTFMT.is_match(line)
            || (line.starts_with(|c: char| c.is_ascii_digit())
                && line.contains(" would be reformatted")
                && TALLY.is_match(line));
        hit.then(|| "a formatter's `would reformat` / `Diff in` line".to_string())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        Reading::new(artifact).read()
    }
}

/// One file the formatter would change or could not read.
struct File {
    path: String,
    error: bool,
    summary: String,
    headline: usize,
    /// The parse error's line.
    line: Option<u32>,
    first_change: Option<u32>,
    block: Option<Span>,
    /// The first hunk's lines, from its `@@` (or the frame).
    detail: Vec<usize>,
}

struct Reading<'a> {
    artifact: &'a Artifact,
    tool: Option<Tool>,
    files: Vec<File>,
    recognised: Vec<bool>,
    conclusion: Vec<Span>,
    /// Files the tool counted as to reformat, and (black) as failing.
    announced: Option<u64>,
    announced_failing: Option<u64>,
    unchanged: Option<u64>,
    /// The tool's own word that nothing needs formatting.
    clean: bool,
}

impl<'a> Reading<'a> {
    fn new(artifact: &'a Artifact) -> Self {
        Reading {
            artifact,
            tool: Tool::of_command(&artifact.argv),
            files: Vec::new(),
            recognised: vec![false; artifact.line_count() + 1],
            conclusion: Vec::new(),
            announced: None,
            announced_failing: None,
            unchanged: None,
            clean: false,
        }
    }

    fn mark(&mut self, first: usize, last: usize) {
        for n in first..=last {
            if let Some(slot) = self.recognised.get_mut(n) {
                *slot = true;
            }
        }
    }

    fn relative(&self, path: &str) -> String {
        let path = path.trim().trim_start_matches("./");
        super::testrun::relative(path, self.artifact.cwd.as_deref())
    }

    /// The file's entry, made when first named.
    fn file(&mut self, path: &str, n: usize) -> &mut File {
        let path = self.relative(path);
        let at = match self.files.iter().position(|f| f.path == path) {
            Some(at) => at,
            None => {
                self.files.push(File {
                    path,
                    error: false,
                    summary: "would reformat".into(),
                    headline: n,
                    line: None,
                    first_change: None,
                    block: None,
                    detail: Vec::new(),
                });
                self.files.len() - 1
            }
        };
        &mut self.files[at]
    }

    fn error(&mut self, path: &str, line: Option<u32>, message: &str, n: usize) {
        let f = self.file(path, n);
        f.error = true;
        f.headline = n;
        f.line = line;
        f.summary = message.to_string();
    }

    fn text(&self, n: usize) -> String {
        super::visible(self.artifact, n).trim_end().to_string()
    }

    /// Line `n` with its trailing blanks: a diff's empty context line is
    /// one space.
    fn untrimmed(&self, n: usize) -> String {
        super::visible(self.artifact, n).into_owned()
    }

    fn read(mut self) -> (EvidenceGraph, CoverageReceipt) {
        let total = self.artifact.line_count();
        let bare_paths = self.bare_paths();
        let mut n = 0;
        while n < total {
            n += 1;
            let text = self.text(n);
            if let Some(end) = self.read_line(n, &text, bare_paths) {
                self.mark(n, end);
                n = end;
            }
        }
        self.finish()
    }

    /// Whether the report is a bare list of paths (`gofmt -l`, `prettier
    /// --list-different`): only the command can say so.
    fn bare_paths(&self) -> bool {
        let words = crate::command::command_words(&self.artifact.argv);
        let lists = |flags: &[&str]| words.iter().any(|w| flags.contains(w));
        match self.tool {
            Some(Tool::Gofmt) => lists(&["-l"]) && !lists(&["-d"]),
            Some(Tool::Prettier) => lists(&["-l", "--list-different"]),
            _ => false,
        }
    }

    /// Reads line `n`; the last line of what it recognised, if it did.
    fn read_line(&mut self, n: usize, text: &str, bare_paths: bool) -> Option<usize> {
        if text.is_empty() {
            return Some(n);
        }
        if let Some(c) = BLACK_FILE.captures(text) {
            self.tool.get_or_insert(Tool::Black);
            let f = self.file(&c[1], n);
            f.headline = n;
            return Some(n);
        }
        if let Some(c) = BLACK_ERROR.captures(text) {
            self.tool.get_or_insert(Tool::Black);
            let (path, line, message) = match (c.get(1), c.get(3)) {
                (Some(p), _) => (p.as_str(), c[2].parse().ok(), "cannot parse".to_string()),
                (None, Some(p)) => (p.as_str(), None, c[4].to_string()),
                _ => return None,
            };
            let path = path.to_string();
            // black 26 quotes the line and a caret, then `ParseError: …`.
            let mut end = n;
            let mut message = message;
            while end < self.artifact.line_count() {
                let next = self.text(end + 1);
                if next.starts_with(' ') {
                    end += 1;
                } else if next.contains("Error: ") && !next.starts_with("error:") {
                    message = format!("{message}: {next}");
                    end += 1;
                    break;
                } else {
                    break;
                }
            }
            self.error(&path, line, &message, n);
            let rel = self.relative(&path);
            if let Some(f) = self.files.iter_mut().find(|f| f.path == rel) {
                f.block = Some(Span::new(n, end));
                f.detail = (n..=end).collect();
            }
            return Some(end);
        }
        if let Some(c) = RUFF_FILE.captures(text) {
            self.tool.get_or_insert(Tool::Ruff);
            let f = self.file(&c[1], n);
            f.headline = n;
            return Some(n);
        }
        if let Some(c) = RUFF_ERROR.captures(text) {
            self.tool.get_or_insert(Tool::Ruff);
            let (path, line, msg) = (c[1].to_string(), c[2].parse().ok(), c[3].to_string());
            self.error(&path, line, &msg, n);
            return Some(n);
        }
        let ruff_block = text == "unformatted: File would be reformatted"
            || (text.starts_with("invalid-syntax: ") && self.tool != Some(Tool::Black));
        if ruff_block && let Some(a) = ARROW.captures(&self.text(n + 1)) {
            self.tool.get_or_insert(Tool::Ruff);
            let (path, line) = (a[1].to_string(), a[2].parse().ok());
            let end = self.frame_end(n + 1);
            if let Some(msg) = text.strip_prefix("invalid-syntax: ") {
                self.error(&path, line, msg, n + 1);
            } else {
                let f = self.file(&path, n + 1);
                f.first_change = line;
            }
            let rel = self.relative(&path);
            if let Some(f) = self.files.iter_mut().find(|f| f.path == rel) {
                f.block = Some(Span::new(n, end));
                f.detail = (n..=end.min(n + 9)).collect();
            }
            return Some(end);
        }
        if text.starts_with(|c: char| c.is_ascii_digit()) && TALLY.is_match(text) {
            self.tally(text, n);
            return Some(n);
        }
        if matches!(text, "Oh no! 💥 💔 💥" | "All done! ✨ 🍰 ✨") {
            return Some(n);
        }
        if text == "Checking formatting..." {
            self.tool.get_or_insert(Tool::Prettier);
            return Some(n);
        }
        if text == "All matched files use Prettier code style!" {
            self.clean = true;
            self.announced = Some(0);
            self.conclusion.push(Span::line(n));
            return Some(n);
        }
        if let Some(c) = PRETTIER_ISSUES.captures(text) {
            self.tool.get_or_insert(Tool::Prettier);
            self.announced = c.get(1).and_then(|m| m.as_str().parse().ok());
            self.conclusion.push(Span::line(n));
            return Some(n);
        }
        if let Some(path) = text.strip_prefix("[warn] ") {
            if !path.contains(' ') {
                self.tool.get_or_insert(Tool::Prettier);
                let f = self.file(path, n);
                f.headline = n;
                return Some(n);
            }
            return None;
        }
        if let Some(c) = PRETTIER_ERROR.captures(text) {
            self.tool.get_or_insert(Tool::Prettier);
            let (path, msg) = (c[1].to_string(), c[2].to_string());
            let line = msg
                .rsplit_once('(')
                .and_then(|(_, at)| at.split(':').next())
                .and_then(|l| l.parse().ok());
            self.error(&path, line, &msg, n);
            // The code frame prettier prints under it, each line `[error] `.
            let mut end = n;
            while end < self.artifact.line_count() {
                let next = self.text(end + 1);
                if next.starts_with("[error]   ") || next.starts_with("[error] >") {
                    end += 1;
                } else {
                    break;
                }
            }
            let rel = self.relative(&path);
            if let Some(f) = self.files.iter_mut().find(|f| f.path == rel) {
                f.block = Some(Span::new(n, end));
                f.detail = (n..=end).collect();
            }
            return Some(end);
        }
        if let Some(c) = RUSTFMT.captures(text) {
            self.tool.get_or_insert(Tool::Rustfmt);
            let line = c.get(2).or(c.get(3)).and_then(|m| m.as_str().parse().ok());
            let end = self.diff_body_end(n);
            let path = c[1].to_string();
            let f = self.file(&path, n);
            f.first_change = f.first_change.or(line);
            match &mut f.block {
                Some(b) => b.last = end,
                None => {
                    f.block = Some(Span::new(n, end));
                    f.detail = (n..=end.min(n + 9)).collect();
                }
            }
            return Some(end);
        }
        if let Some(c) = GOFMT_DIFF.captures(text) {
            self.tool.get_or_insert(Tool::Gofmt);
            let path = c[2].to_string();
            // Its `--- a.go.orig` / `+++ a.go` headers follow.
            let headers = self.text(n + 1).starts_with("--- ") && self.text(n + 2).starts_with("+++ ");
            let end = self.unified_end(if headers { n + 3 } else { n + 1 });
            self.hunks(&path, n, end);
            return Some(end);
        }
        if let Some(c) = DIFF_FROM.captures(text)
            && self.text(n + 1).starts_with("+++ ")
        {
            // black --diff and ruff format --diff: a unified diff per file.
            let path = c[1].to_string();
            let end = self.unified_end(n + 2);
            self.hunks(&path, n, end);
            return Some(end);
        }
        if let Some(c) = GO_ERROR.captures(text)
            && self.tool == Some(Tool::Gofmt)
        {
            let (path, line, msg) = (c[1].to_string(), c[2].parse().ok(), c[3].to_string());
            self.error(&path, line, &msg, n);
            return Some(n);
        }
        if bare_paths && !text.contains(' ') {
            let f = self.file(text, n);
            f.headline = n;
            return Some(n);
        }
        None
    }

    fn tally(&mut self, text: &str, n: usize) {
        let (mut announced, mut failing) = (0, None);
        let mut unchanged = None;
        for c in TALLY.captures_iter(text) {
            let count: u64 = c[1].parse().unwrap_or(0);
            match &c[2] {
                "would be reformatted" => announced += count,
                "would fail to reformat" => failing = Some(count),
                _ => unchanged = Some(count),
            }
        }
        self.announced = Some(announced);
        self.announced_failing = failing;
        self.unchanged = unchanged;
        self.clean = announced == 0 && failing.is_none();
        self.conclusion.push(Span::line(n));
    }

    /// The last line of a ruff frame opened by its `-->` line at `arrow`:
    /// the lines up to the next blank one.
    fn frame_end(&self, arrow: usize) -> usize {
        let mut end = arrow;
        while end < self.artifact.line_count() && !self.text(end + 1).is_empty() {
            end += 1;
        }
        end
    }

    /// The last line of a rustfmt `Diff in` body: context, `+` and `-`
    /// lines, up to the next header.
    fn diff_body_end(&self, header: usize) -> usize {
        let mut end = header;
        while end < self.artifact.line_count() {
            let next = self.text(end + 1);
            let body = next.is_empty() || next.starts_with([' ', '+', '-']);
            if !body || RUSTFMT.is_match(&next) {
                break;
            }
            end += 1;
        }
        end
    }

    /// The last line of a unified diff's hunks from line `from`.
    fn unified_end(&self, from: usize) -> usize {
        let mut end = from.saturating_sub(1);
        while end < self.artifact.line_count() {
            let next = self.untrimmed(end + 1);
            let body = next.starts_with(['@', ' ', '+', '-']) || next.starts_with("+++ ");
            let next_file = next.starts_with("--- ") && self.text(end + 2).starts_with("+++ ");
            if !body || next_file {
                break;
            }
            end += 1;
        }
        end
    }

    /// A file's unified diff, lines `first..=last`: its block, its first
    /// hunk from the `@@` line as detail, the hunk's start as first change.
    fn hunks(&mut self, path: &str, first: usize, last: usize) {
        let hunk = (first..=last).find(|&n| HUNK.is_match(&self.text(n)));
        let first_change = hunk.and_then(|h| {
            HUNK.captures(&self.text(h))
                .and_then(|c| c[1].parse().ok())
        });
        let f = self.file(path, first);
        f.block = Some(Span::new(first, last));
        f.first_change = f.first_change.or(first_change);
        if let Some(h) = hunk {
            f.detail = (h..=last.min(h + 9)).collect();
        }
    }

    fn finish(self) -> (EvidenceGraph, CoverageReceipt) {
        let artifact = self.artifact;
        let mut graph = EvidenceGraph::empty();
        let tool = self.tool.map_or("formatter", Tool::name);
        graph.reader = crate::evidence::Reader::family(tool);
        let errors = self.files.iter().filter(|f| f.error).count() as u64;
        let reformat = self.files.len() as u64 - errors;
        for f in &self.files {
            let mut it = EvidenceItem::new(ItemKind::Diagnostic, Severity::Error, f.path.clone());
            it.class = Some(if f.error { "cannot format" } else { "would reformat" }.into());
            it.summary = Some(f.summary.clone());
            it.location = Some(Location {
                file: f.path.clone(),
                line: f.line,
                column: None,
            });
            it.headline = Some(Span::line(f.headline));
            it.block = f.block.or(Some(Span::line(f.headline)));
            it.detail = super::testrun::spans(&f.detail, 10);
            if let Some(line) = f.first_change {
                it.fields.insert("first_change".into(), line.to_string());
            }
            graph.items.push(it);
        }
        graph.counts.push(("files to reformat".into(), reformat));
        if errors > 0 {
            graph.counts.push(("files not parsed".into(), errors));
        }
        if let Some(n) = self.unchanged {
            graph.counts.push(("files unchanged".into(), n));
        }
        graph.conclusion = self.conclusion.clone();
        let parsed = self.files.len() as u64;
        // Every file named is a failing file, whatever the exit status
        // (`gofmt -l` exits 0 with files listed).
        graph.outcome = match (parsed > 0, artifact.exit) {
            (true, _) => Outcome::Failed,
            (false, Exit::Code(0)) => Outcome::Ok,
            (false, Exit::Unknown) if self.clean => Outcome::Ok,
            _ => Outcome::Unknown,
        };
        let unmatched = (1..=artifact.line_count())
            .filter(|&n| !self.recognised[n])
            .count() as u64;
        // The closing count covers the files to reformat (and, for black,
        // those it failed on); ruff and prettier announce each file they
        // cannot parse by its own error line.
        let failing = self.announced_failing.unwrap_or(errors);
        let mut coverage = Coverage::of(artifact)
            .parsed(parsed)
            .announced(self.announced.map(|n| n + failing))
            .blocks(self.files.iter().filter(|f| f.block.is_some()).count() as u64)
            .unmatched(unmatched);
        for (announced, found, what) in [
            (self.announced, reformat, "to reformat"),
            (self.announced_failing, errors, "it could not format"),
        ] {
            if let Some(n) = announced
                && n != found
            {
                coverage = coverage.doubt(format!(
                    "the formatter announced {n} file{} {what}, {found} parsed",
                    if n == 1 { "" } else { "s" }
                ));
            }
        }
        if parsed == 0 && artifact.exit.is_failure() {
            coverage = coverage.doubt("a failing exit status and no file named");
        }
        (graph, coverage.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    #[test]
    fn only_check_modes_are_claimed() {
        let tool = |s: &str| Tool::of_command(&argv(s)).map(Tool::name);
        assert_eq!(tool("black --check ."), Some("black --check"));
        assert_eq!(tool("black ."), None);
        assert_eq!(tool("ruff format --check src"), Some("ruff format"));
        assert_eq!(tool("ruff format src"), None);
        assert_eq!(tool("ruff check --diff"), None);
        assert_eq!(tool("npx prettier --check ."), Some("prettier --check"));
        assert_eq!(tool("prettier --write ."), None);
        assert_eq!(tool("cargo fmt --check"), Some("cargo fmt"));
        assert_eq!(tool("cargo fmt --all -- --check"), Some("cargo fmt"));
        assert_eq!(tool("cargo fmt"), None);
        assert_eq!(tool("gofmt -l ."), Some("gofmt"));
        assert_eq!(tool("gofmt -w ."), None);
    }

    #[test]
    fn decisive_lines() {
        let yes = |l: &str| FormatCheck.decisive_line(l).is_some();
        assert!(yes("would reformat /src/app/models.py"));
        assert!(yes("Would reformat: src/app.py"));
        assert!(yes("unformatted: File would be reformatted"));
        assert!(yes("2 files would be reformatted, 3 files already formatted"));
        assert!(yes("[warn] Code style issues found in 4 files. Run Prettier with --write to fix."));
        assert!(yes("Diff in /work/crate/src/lib.rs:1:"));
        assert!(yes("Diff in /work/crate/src/lib.rs at line 12:"));
        assert!(!yes("+would reformat x.py"));
        assert!(!yes("[warn] src/a.js"));
        assert!(!yes("Diff in the totals"));
    }
}
