//! gcc/v1 — gcc and clang, directly or through make, ninja and
//! `cmake --build` (either generator).
//!
//! **Decision.** What stops this build: which compiler errors (file, line,
//! column, message), which unresolved symbols at link time, and which make
//! targets or ninja build steps failed? Warnings matter as counts by flag
//! and by file.
//!
//! **Unsafe loss.** An error lost among warnings; a linker `undefined
//! reference` or make `*** [target] Error N` line dropped (a build can fail
//! with no compiler diagnostic at all); the `In file included from` chain
//! that tells which translation unit a header warning came from; a failed
//! make shown as clean.
//!
//! **Typed facts.** One `Diagnostic` per `file:line:col: error|warning:`
//! (gcc, clang; `-fdiagnostics-format=json` arrays too), code = the
//! `-W` flag in brackets; notes printed after a diagnostic and its
//! snippet/caret/fix-it lines are its block, the `In function` and
//! `In file included from` lines before it open the block. Linker
//! `undefined reference` lines, `collect2`/`clang: error: linker command
//! failed`, make's `*** … Error N` lines and ninja's `FAILED: target` lines
//! are `BuildFailure` items with severity error (identity: location, else
//! the line's own words). Progress lines (`[3/6] Building CXX object …`,
//! `[ 50%] Building …`, `Scanning dependencies of target …`), the echoed
//! commands and `ninja: build stopped: subcommand failed.` are understood
//! lines, never items.
//!
//! **Ladder.** PASS_SUMMARY (clean: counts by flag) → FAIL_CENSUS (every
//! error, linker and make failure; error frames) → DENSE (warnings by flag
//! and file; identical header warnings from many units counted as one) →
//! FLOOD (grouped identities with exact counts and `--items`).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::artifact::Artifact;
use crate::evidence::{CoverageReceipt, EvidenceGraph, ItemKind, Severity};
use crate::normalize;

use super::{Profile, ProfileSpec, ReceiptGroup};
use super::diagnostic::{Extraction, Found, command_words, diagnostic_line, num};

pub struct Gcc;

/// Context printed before a diagnostic, part of its block.
static CONTEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(In file included from \S+[:,]$|\s+from \S+[:,]$|",
        r"\S+: (In (member |static member )?function|In constructor|In destructor|",
        r"In instantiation of|At top level|At global scope|In lambda function)|",
        r"\S*ld(\.\w+)?: \S+: in function )"
    ))
    .expect("static")
});
/// ` [-Wflag]`, ` [-Werror,-Wflag]` or ` [-fpermissive]` at the end of a
/// gcc/clang message: the option that governs it, as gcc's JSON names it.
static FLAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r" \[(-W[^\],]+|-fpermissive)[^\]]*\]$").expect("static")
});
/// `file:line: undefined reference to `sym'` (with or without `ld: `).
static UNDEFINED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:\S*ld(?:\.\w+)?: )?([^:\s][^:]*):(?:(\d+)|\([^)]*\)): (undefined reference to .*)$",
    )
    .expect("static")
});
/// The driver's own failures: `collect2: error: ld returned 1 exit status`,
/// `clang: error: linker command failed …`, `/usr/bin/ld: cannot find -lx`.
static LINK_FAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:collect2|\S*clang(?:\+\+)?(?:-\d+)?|\S*g?cc|\S*[gc]\+\+): (?:fatal )?error: ",
        r"((?:ld returned|linker command failed).*)$|",
        r"^\S*ld(?:\.\w+)?: ((?:cannot find|error:) .*)$"
    ))
    .expect("static")
});
/// Other driver errors with no location (`gcc: error: x.c: No such file`).
static DRIVER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:\S*(?:gcc|g\+\+|cc|c\+\+|clang(?:\+\+)?)(?:-\d+)?|cc1\w*): (?:fatal )?error: (.*)$",
    )
    .expect("static")
});
static MAKE_FAIL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^g?make(?:\[\d+\])?: \*\*\* (.*)$").expect("static"));
static MAKE_END: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^g?make(?:\[\d+\])?: (Target .* not remade because of errors\.|Nothing to be done|.*is up to date|Entering directory|Leaving directory)")
        .expect("static")
});
/// A failed ninja build step: `FAILED: CMakeFiles/x.dir/src/a.cpp.o`.
static NINJA_FAIL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^FAILED: \S").expect("static"));
/// ninja's own lines; `build stopped` closes the run.
static NINJA_END: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^ninja: (build stopped: .*|Entering directory .*|no work to do\.)$")
        .expect("static")
});
/// Build progress: ninja's `[3/6] Building CXX object …`, CMake's make
/// generator's `[ 50%] Building …`, `Scanning dependencies of target x`,
/// `Consolidate compiler generated dependencies of target x`, `Built
/// target x`.
static PROGRESS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(\[\s*\d+/\d+\] |\[\s*\d+%\] |Scanning dependencies of target |",
        r"Consolidate compiler generated dependencies of target |Built target )"
    ))
    .expect("static")
});
/// Lines that are neither diagnostics nor their frames: clang's per-unit
/// totals, gcc's "compilation terminated.", make's recipe echo, ninja's
/// link command (`: && /usr/bin/g++ … && :`).
static CHATTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(\d+ (warnings?|errors?)( and \d+ errors?)? generated\.|compilation terminated\.|: && .*|",
        r"(mkdir|rm|cp|mv|install|ar|ranlib|ld|echo|touch|ln|\S*-?(gcc|g\+\+|cc|c\+\+|clang|clang\+\+)(-\d+)?) .*)$"
    ))
    .expect("static")
});
static SNIFF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?m)^\S+\.(c|h|cc|cpp|cxx|hpp|hh|m|mm|C|H):\d+:(\d+:)? (fatal error|error|warning): |",
        r"^\S+: In (member )?function ‘|^In file included from \S+:\d+[:,]$|",
        r"^collect2: error: ld returned|undefined reference to `|",
        r#"^\[\{"kind": "(error|warning|note)", "locations""#
    ))
    .expect("static")
});

static SPEC: ProfileSpec = ProfileSpec {
    commands: &[
        "make", "gmake", "ninja", "gcc", "g++", "cc", "c++", "clang", "clang++",
    ],
    // Every alternative of SNIFF needs one of these words.
    sniff_words: &[
        "error: ",
        "warning: ",
        "function ‘",
        "In file included from ",
        "undefined reference to `",
        r#"[{"kind": ""#,
    ],
    sniff: Some(&SNIFF),
    sniff_reason: "a C-family diagnostic, include chain or linker failure",
    decisive_words: &["error: ", "warning: ", "undefined reference to `"],
    ..ProfileSpec::new("gcc/v1", "gcc", ReceiptGroup::Diagnostics)
};

impl Profile for Gcc {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }


    fn by_command(&self, argv: &[String]) -> Option<String> {
        let words = command_words(argv);
        let first = *words.first()?;
        // make and ninja run anything (a test suite, a linter): their
        // output is classified by content, never claimed by the command
        // name (so is `cmake --build`'s, which is not in the table).
        if matches!(first, "make" | "gmake" | "ninja") {
            return None;
        }
        let cross = first.ends_with("-gcc") || first.ends_with("-g++");
        (self.commands().contains(&first) || cross)
            .then(|| format!("{first} (gcc/clang diagnostics, linker and make failures)"))
    }

    fn decisive_line(&self, line: &str) -> Option<String> {
        // Every shape of ours has a colon in its first word (`file.c:3:`,
        // `collect2:`): most lines are turned away before SNIFF.
        let first_word = line.split_whitespace().next().unwrap_or("");
        first_word
            .contains(':')
            .then(|| super::line_shaped(self, line))
            .flatten()
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let mut ex = Extraction::new(artifact);
        let mut current: Option<Found> = None;
        // First line of `In function` / `In file included from` context
        // waiting for the diagnostic it introduces.
        let mut context: Option<usize> = None;
        let mut saw_make = false;
        let mut saw_ninja = false;
        // A failed ninja step, held until its diagnostics are read.
        let mut step: Option<Found> = None;
        for n in 1..=artifact.line_count() {
            let raw = artifact.line(n);
            let text = normalize::line(crate::profiles::window(raw));
            let text = text.trim_end();
            if (text.starts_with("[{") || text == "[]")
                && let Some(items) = json_array(raw, n)
            {
                flush(&mut ex, &mut current);
                items.into_iter().for_each(|f| ex.push(f));
                continue;
            }
            if CONTEXT.is_match(text) {
                // Not yet a flush: the context may introduce a note that
                // still belongs to the open diagnostic (gcc prints the
                // include chain of a system header before such a note).
                context.get_or_insert(n);
                ex.mark(n);
                continue;
            }
            if let Some(d) = diagnostic_line(text) {
                // A note after a diagnostic is its child, not an item.
                if d.severity == Severity::Note
                    && let Some(f) = current.as_mut()
                {
                    f.block_last = n;
                    context = None;
                    continue;
                }
                flush(&mut ex, &mut current);
                let code = FLAG.captures(d.message).map(|c| c[1].to_string());
                let summary = FLAG.replace(d.message, "");
                let mut f = Found::new(d.severity, summary, n)
                    .at(d.file, d.line, d.column)
                    .code(code.as_deref());
                f.block_first = context.take();
                current = Some(f);
                continue;
            }
            if let Some(c) = UNDEFINED.captures(text) {
                flush(&mut ex, &mut current);
                let mut f = Found::new(Severity::Error, &c[3], n).at(&c[1], num(c.get(2)), None);
                f.kind = ItemKind::BuildFailure;
                f.block_first = context.take();
                ex.push(f);
                continue;
            }
            if let Some(c) = LINK_FAIL.captures(text) {
                flush(&mut ex, &mut current);
                let msg = c.get(1).or_else(|| c.get(2)).map_or(text, |m| m.as_str());
                let mut f = Found::new(Severity::Error, msg, n);
                f.kind = ItemKind::BuildFailure;
                f.block_first = context.take();
                ex.push(f);
                continue;
            }
            if let Some(c) = DRIVER.captures(text) {
                flush(&mut ex, &mut current);
                ex.push(Found::new(Severity::Error, &c[1], n));
                continue;
            }
            if MAKE_FAIL.is_match(text) {
                flush(&mut ex, &mut current);
                saw_make = true;
                context = None;
                // The whole line is the identity: `[Makefile:13: build/x.o]`
                // names the rule line, which several targets share.
                let mut f = Found::new(Severity::Error, text, n);
                f.kind = ItemKind::BuildFailure;
                ex.push(f);
                continue;
            }
            if NINJA_FAIL.is_match(text) {
                flush(&mut ex, &mut current);
                flush(&mut ex, &mut step);
                saw_ninja = true;
                context = None;
                // As make's: the whole line, which names the step's target.
                // It follows the step's diagnostics in the facts, as make's
                // `*** … Error 1` follows them in make's output: the first
                // fact is the compiler's error, the cause.
                let mut f = Found::new(Severity::Error, text, n);
                f.kind = ItemKind::BuildFailure;
                step = Some(f);
                continue;
            }
            if NINJA_END.is_match(text) {
                flush(&mut ex, &mut current);
                flush(&mut ex, &mut step);
                saw_ninja = true;
                if text.starts_with("ninja: build stopped") {
                    ex.conclude(n);
                } else {
                    ex.mark(n);
                }
                continue;
            }
            if PROGRESS.is_match(text) {
                flush(&mut ex, &mut current);
                flush(&mut ex, &mut step);
                // `[3/6]` is ninja's count of steps; `[ 50%]` make's.
                let counter = text.strip_prefix('[').and_then(|t| t.split(']').next());
                saw_ninja |= counter.is_some_and(|c| c.contains('/'));
                ex.mark(n);
                continue;
            }
            if MAKE_END.is_match(text) {
                flush(&mut ex, &mut current);
                saw_make = true;
                if text.contains("not remade") {
                    ex.conclude(n);
                } else {
                    ex.mark(n);
                }
                continue;
            }
            if CHATTER.is_match(text) {
                // "compilation terminated." closes a fatal error's block.
                if let (Some(f), true) = (current.as_mut(), text.starts_with("compilation")) {
                    f.block_last = n;
                    continue;
                }
                flush(&mut ex, &mut current);
                ex.mark(n);
                continue;
            }
            // Snippet, caret, label and fix-it lines (clang prints the source
            // line unindented) continue the open block.
            if let Some(f) = current.as_mut()
                && !text.is_empty()
            {
                f.block_last = n;
                continue;
            }
            if text.is_empty() {
                flush(&mut ex, &mut current);
                ex.mark(n);
            } else if text.contains("error:") || text.contains("warning:") {
                ex.suspicious += 1;
            }
        }
        flush(&mut ex, &mut current);
        flush(&mut ex, &mut step);
        let tool = command_words(&artifact.argv)
            .first()
            .map(|w| w.to_string())
            .filter(|w| self.by_command(std::slice::from_ref(w)).is_some())
            .unwrap_or_else(|| {
                let tool = if saw_ninja {
                    "ninja"
                } else if saw_make {
                    "make"
                } else {
                    "cc"
                };
                tool.into()
            });
        ex.finish(tool, |line| {
            line.contains(": note: ") || line.contains("+++")
        })
    }
}

fn flush(ex: &mut Extraction<'_>, current: &mut Option<Found>) {
    if let Some(done) = current.take() {
        ex.push(done);
    }
}


/// One `-fdiagnostics-format=json` array: every top-level diagnostic; its
/// children (notes, fix-its) stay in the JSON line that is its block.
fn json_array(raw: &[u8], n: usize) -> Option<Vec<Found>> {
    let value: Value = serde_json::from_slice(raw).ok()?;
    let mut out = Vec::new();
    for d in value.as_array()? {
        let kind = d.get("kind").and_then(Value::as_str).unwrap_or("error");
        let severity = match kind {
            "warning" => Severity::Warning,
            "note" => Severity::Note,
            _ => Severity::Error,
        };
        let msg = d.get("message").and_then(Value::as_str).unwrap_or("");
        let option = d.get("option").and_then(Value::as_str);
        let mut f = Found::new(severity, msg.lines().next().unwrap_or(""), n).code(option);
        let caret = d
            .get("locations")
            .and_then(Value::as_array)
            .and_then(|l| l.first())
            .and_then(|l| l.get("caret"));
        if let Some(caret) = caret {
            let field = |k: &str| {
                caret
                    .get(k)
                    .and_then(Value::as_u64)
                    .and_then(|v| u32::try_from(v).ok())
            };
            if let Some(file) = caret.get("file").and_then(Value::as_str) {
                f = f.at(file, field("line"), field("column"));
            }
        }
        f.detail = vec![n];
        out.push(f);
    }
    Some(out)
}
