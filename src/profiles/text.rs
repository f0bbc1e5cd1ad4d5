//! text/v1 — the universal fallback, for output no family profile claims.
//!
//! **Decision.** What happened at the end of this command, and is there an
//! error line I must read? The reader of an unknown tool acts on its last
//! lines (the conclusion) and on the lines that report an error, a panic
//! or a fatal condition.
//!
//! **Unsafe loss.** Dropping the tail (where tools print their conclusion),
//! dropping an error line from the middle without an address to it, or a
//! digest that reads as success when the command failed.
//!
//! **Typed facts.** The evidence layer's findings (`crate::recognise`):
//! failing tests, located diagnostics, files to reformat, crashes and
//! build failures, each with the identity the reader acts on — the
//! census, which the guard holds this profile to as it holds any family.
//! Beside them `DecisiveLine` items: one per error-shaped line (a line
//! that opens the way tools report failures, see `DECISIVE`; never a line
//! that merely contains a failure word), with its span, never census. The
//! exit status comes from the artifact.
//!
//! **Ladder.** VERBATIM (fits the budget: the raw bytes, unchanged, no
//! footer) → DENSE (runs of identical lines collapsed with exact counts) →
//! DENSE with selection (the tail, every census finding's line the budget
//! allows, then decisive lines and the head; each removed region declared
//! by one marker naming its `ctx expand H --lines A-B`, and the findings
//! whose lines did not fit counted by one marker naming `--items`).

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, Input, MatchKind};
use regex::Regex;

use crate::artifact::{Artifact, Span};
use crate::evidence::{CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Severity};
use crate::normalize;

use super::{Profile, ProfileSpec, ReceiptGroup};

pub struct Text;

/// Lines a reader must not lose, whatever the tool: lines *shaped* like a
/// failure report, not lines that contain a failure word. A diff, a JSON
/// document or a source listing says "error" in comments, keys, strings and
/// identifiers; none of those lines starts the way a tool reports a
/// failure, so none is picked (a diff line starts with `+`, `-`, a space or
/// `@@`; a JSON line with a brace, a quote or indentation). `warning` is
/// not among them (too common).
///
/// Each alternative is anchored at the line's start, after an optional
/// timestamp (CI logs prefix every line with one):
/// - a failure word as a label: `error:`, `error[E0308]:`, `Error:`,
///   `fatal:`, `panic:`, `FAILED:`, `npm ERR!`, `##[error]`, `[ERROR]`;
/// - a verdict or level in capitals: `FAILED tests/…`, `FAIL: …`, `ERROR …`;
/// - a traceback or exception: `Traceback (most recent call last):`,
///   `ValueError: …`, `java.lang.IllegalStateException: …`, `E   …`
///   (pytest), `thread 'main' panicked at`;
/// - a located error: `file:line[:col]: error`, `file(line,col): error`;
/// - a program's own complaint: `gcc: error:`, `make: *** […] Error 2`,
///   `ls: cannot access …`, `bash: x: command not found`;
/// - the end of a process: `Segmentation fault`, `Killed`, and a non-zero
///   `exit code N` / `exit status N` / `returned non-zero exit status N`;
/// - a test runner's verdict on one test, in the dialects of runners no
///   family reads: TAP's `not ok N` (`node --test`, `prove`, `bats`; also
///   indented, for subtests), a `✗`/`✕`/`×`/`✖` mark, gtest's `[  FAILED  ]`,
///   go's `--- FAIL:`, ctest's `The following tests FAILED:`, Surefire's
///   `<<< FAILURE!` / `<<< ERROR!`;
/// - a build's verdict: `BUILD FAILURE` (Maven), `Finished: FAILURE`
///   (Jenkins), and anywhere in a line `No space left on device` and the
///   linker's `undefined reference to`.
///
/// One `Regex` of one alternation, not a `RegexSet`: only "does any match"
/// is asked, and a set takes several times as long to compile, paid by
/// every digest of unknown output.
static DECISIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        // pytest's assertion lines, never behind a timestamp.
        r"^E\s|",
        // An optional timestamp: `2024-05-01T10:00:00.123Z `, `10:00:00 `.
        r"^(?:\[?(?:\d{4}-\d\d-\d\d[T ])?\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?\s+)?(?:",
        r"(?i:error|fatal(?: error)?|panic|failed|failure|abort(?:ed)?|exception)(?:\[[^\]]*\])?[:!](?:\s|$)",
        r"|(?:FAILED|FAIL|ERROR|FATAL|CRITICAL|PANIC)\b",
        r"|\[(?i:error|fatal|critical)\]|##\[error\]|::error\b|npm (?:ERR!|error) |error [A-Z]",
        r"|Traceback \(most recent call last\)|Exception in thread ",
        r"|thread '[^']*'(?: \(\d+\))? panicked at ",
        r"|[A-Za-z_][\w.$]*(?:Error|Exception|Interrupt)(?::\s|$)",
        r"|(?:Segmentation fault|Bus error|Killed|Aborted)\b",
        // One test's verdict: TAP, marks, gtest, go, ctest, Surefire.
        r"|\s*not ok \d+\b|\s*[✗✕×✖] \S",
        r"|\[  FAILED  \] |\s*--- FAIL: |The following tests FAILED:|.*<<< (?:FAILURE|ERROR)!",
        // A build's verdict, and faults a line may report anywhere.
        r"|(?:\[[A-Z]+\] )?BUILD FAILURE\b|Finished: FAILURE\b",
        r"|.*\b(?:No space left on device|undefined reference to)\b",
        // file:line[:col]: error · file(line,col): error
        r"|[\w./~][^\s:(]*(?::\d+)+:\s*(?i:fatal error|error)\b",
        r"|[\w./~][^\s:(]*\(\d+(?:,\d+)?\):\s*(?i:fatal error|error)\b",
        // prog[N]: … — a program naming itself, then what went wrong.
        r"|[A-Za-z][\w.+@-]*(?:\[\d+\])?: (?:[^:]*: )*(?:(?i:fatal error|error|fatal)\b|\*\*\*)",
        r"|[A-Za-z][\w.+@-]*(?:\[\d+\])?: .*\b(?i:cannot|could not|unable to|no such file or directory|permission denied|command not found|not found|connection refused|segmentation fault|core dumped|returned error)\b",
        // A non-zero exit reported in prose.
        r"|(?:[A-Za-z\[][^\n]*?)?\b(?i:exit(?:ed)? (?:with )?(?:code|status)|exit status|returned (?:a )?non-zero (?:exit )?(?:code|status))[: ]+[1-9]\d*\b",
        r")",
    ))
    .expect("static patterns compile")
});

/// Words (ASCII case-insensitive) without which no alternative of
/// `DECISIVE` matches a line: each alternative names one of them
/// (`Killed`, `exit status`, `make: ***`, `ValueError`, …). `E ` and `E\t`
/// at a line's start (pytest) are found as `\nE`, and the first line is
/// always asked. A buffer scan for these finds candidate lines at the
/// speed of a literal search: a 100 MB log has a million lines, and a
/// line-anchored pattern run over all of them costs several times that.
const WORDS: &[&str] = &[
    "error",
    "err!",
    "fatal",
    "panic",
    "fail",
    "abort",
    "exception",
    "critical",
    "traceback",
    "interrupt",
    "segmentation",
    "killed",
    "cannot",
    "could not",
    "unable to",
    "no such file",
    "denied",
    "not found",
    "refused",
    "core dumped",
    "***",
    "exit",
    "non-zero",
    "not ok",
    "✗",
    "✕",
    "×",
    "✖",
    "no space left",
    "undefined reference",
    "\nE ",
    "\nE\t",
];

static WORDS_IN_BUFFER: LazyLock<AhoCorasick> = LazyLock::new(|| {
    AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::LeftmostFirst)
        .build(WORDS)
        .expect("static words build")
});

/// Lines that may be decisive, in order: the first line, every line
/// holding one of `WORDS`, and every line whose visible text differs from its bytes
/// (escapes, carriage returns, other controls), where normalization could
/// join a word the bytes split. Each is then checked as a line, so the
/// result is exactly that of checking every line.
fn candidates(artifact: &Artifact) -> Vec<usize> {
    let bytes = artifact.bytes();
    if std::str::from_utf8(bytes).is_err() {
        return (1..=artifact.line_count()).collect();
    }
    let mut lines: Vec<usize> = Vec::new();
    if !bytes.is_empty() {
        lines.push(1);
    }
    let mut at = 0;
    while let Some(hit) = WORDS_IN_BUFFER.find(Input::new(bytes).span(at..bytes.len())) {
        // The last byte of a word is on the line it names (`\nE ` starts
        // on the line before).
        let n = artifact.line_at(hit.end() - 1);
        lines.push(n);
        // One word makes a line a candidate: resume at the next line, from
        // this line's `\n` so that `\nE ` can still name the next one.
        match artifact.line_start(n + 1) {
            Some(next) => at = next - 1,
            None => break,
        }
    }
    // One entry per line with a control byte, not one per byte: a line of
    // a billion NULs is one candidate (and 8 bytes, not 8 GB).
    let control = |b: &u8| (*b < 0x20 && *b != b'\n' && *b != b'\t') || *b == 0x7f;
    let mut at = 0;
    while let Some(i) = bytes.get(at..).and_then(|rest| rest.iter().position(control)) {
        let n = artifact.line_at(at + i);
        lines.push(n);
        match artifact.line_start(n + 1) {
            Some(next) if next > at + i => at = next,
            _ => break,
        }
    }
    lines.sort_unstable();
    lines.dedup();
    lines
}

/// The header's counts of the layer's findings, each in a word that
/// needs no plural of its own (`7 failed, 2 errors, 1 crashed`).
fn census_counts(items: &[EvidenceItem]) -> Vec<(String, u64)> {
    let word = |item: &EvidenceItem| match item.kind {
        ItemKind::FailingTest | ItemKind::TestError | ItemKind::SuiteNotRun => Some("failed"),
        ItemKind::Diagnostic if item.severity == Severity::Error => Some("errors"),
        ItemKind::Diagnostic if item.severity == Severity::Warning => Some("warnings"),
        ItemKind::BuildFailure => Some("build failures"),
        ItemKind::Crash => Some("crashed"),
        _ => None,
    };
    let mut counts: Vec<(String, u64)> = Vec::new();
    for w in items.iter().filter_map(word) {
        match counts.iter_mut().find(|(c, _)| c == w) {
            Some((_, n)) => *n += 1,
            None => counts.push((w.to_string(), 1)),
        }
    }
    counts
}

static SPEC: ProfileSpec = ProfileSpec::new("text/v1", "text", ReceiptGroup::Fallback);

impl Profile for Text {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let total = artifact.line_count();
        let mut graph = EvidenceGraph::empty();
        graph.outcome = super::coverage::by_exit(artifact.exit);
        graph.counts.push(("lines".to_string(), total as u64));
        // The evidence layer's findings are the census (contracts/text.toml):
        // whatever the tool, a failure it reports in a shape tools share is
        // shown or counted with its `--items` address.
        graph.items = crate::recognise::recognise(artifact).items;
        graph.counts.extend(census_counts(&graph.items));
        for n in candidates(artifact) {
            let raw = artifact.line(n);
            // Overlong lines (minified bundles, base64) are never decisive prose.
            if raw.len() > 4096 {
                continue;
            }
            let text = normalize::line(crate::profiles::window(raw));
            if DECISIVE.is_match(&text) {
                let mut item =
                    EvidenceItem::new(ItemKind::DecisiveLine, Severity::Error, format!("line {n}"));
                item.headline = Some(Span::line(n));
                graph.items.push(item);
            }
        }
        // Text reads every line as a line: nothing is unmatched, nothing announced.
        (graph, super::coverage::Coverage::of(artifact).finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Exit;
    use crate::evidence::Outcome;

    #[test]
    fn finds_decisive_lines() {
        let a = Artifact::from_stdout(
            b"building\nerror: disk full\nok\nthread 'main' panicked at x\nE   assert 1 == 2\n"
                .to_vec(),
            Exit::Code(1),
            vec!["x".into()],
        );
        let (g, r) = Text.extract(&a);
        let lines: Vec<usize> = g
            .items
            .iter()
            .filter_map(|i| i.headline)
            .map(|s| s.first)
            .collect();
        assert_eq!(lines, vec![2, 4, 5]);
        assert_eq!(g.outcome, Outcome::Failed);
        assert_eq!(r.lines_total, 5);
    }

    /// The buffer scan finds exactly the lines a line-by-line check finds,
    /// including words only normalization joins.
    #[test]
    fn candidates_miss_nothing() {
        let text = b"ok\nerr\x1b[0mor: split by colour\nfine\nE   assert\nwE x\nfa\rFATAL again\nxerror\nE\nnot found\n";
        let a = Artifact::from_stdout(text.to_vec(), Exit::Code(1), vec![]);
        let (g, _) = Text.extract(&a);
        let found: Vec<usize> = g
            .items
            .iter()
            .filter_map(|i| i.headline)
            .map(|s| s.first)
            .collect();
        let every: Vec<usize> = (1..=a.line_count())
            .filter(|&n| DECISIVE.is_match(&crate::profiles::visible(&a, n)))
            .collect();
        assert_eq!(found, every);
        assert_eq!(found, vec![2, 4, 6]);
    }

    /// Every shape of `DECISIVE` holds one of `WORDS`: the word scan finds
    /// each one, including a pytest `E` line right after another candidate.
    #[test]
    fn words_cover_every_shape() {
        let lines = [
            "E   first line",
            "error: x",
            "error[E0308]: mismatched types",
            "Error: Cannot find module 'x'",
            "fatal: not a git repository",
            "FAILED tests/t.py::t - KeyError",
            "E       assert 1 == 2",
            "FAIL: test_parse (m.T)",
            "CRITICAL disk",
            "panic: runtime error",
            "thread 'main' (7) panicked at src/main.rs:3:5:",
            "Traceback (most recent call last):",
            "ValueError: bad",
            "KeyboardInterrupt",
            "Exception in thread \"main\" java.lang.X: y",
            "src/a.c:3:5: error: x",
            "src/app.ts(4,7): error TS2322: x",
            "make: *** [Makefile:13: all] Error 2",
            "ls: cannot access 'x': No such file or directory",
            "bash: x: command not found",
            "ssh: connect to host h port 22: Connection refused",
            "npm ERR! code E404",
            "##[error]Process completed with exit code 1.",
            "Process completed with exit code 2.",
            "x: returned non-zero code: 2",
            "exit status 1",
            "Killed",
            "Segmentation fault (core dumped)",
            "Bus error",
            "2024-05-01T10:00:00.123Z ERROR request failed",
            "10:00:00 fatal: x",
            "[ERROR] Failed to execute goal",
            "E\tassert",
        ];
        let text = lines.join("\n");
        let a = Artifact::from_stdout(text.into_bytes(), Exit::Code(1), vec![]);
        let found = candidates(&a);
        for n in 1..=a.line_count() {
            let line = normalize::line(a.line(n));
            assert!(DECISIVE.is_match(&line), "not a shape: {line:?}");
            assert!(found.contains(&n), "word scan missed {line:?}");
        }
    }
}
