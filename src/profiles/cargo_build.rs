//! cargo_build/v1 — rustc, cargo build / check / clippy.
//!
//! **Decision.** Which compiler errors stop the build, where, and what does
//! rustc suggest? The reader fixes errors first; warnings matter as counts
//! (by lint, by file) until the errors are gone.
//!
//! **Unsafe loss.** An error buried among hundreds of warnings that does not
//! come out on top; an error's `--> file:line:col` or its caret line lost; a
//! build reported as fine when cargo exited non-zero.
//!
//! **Typed facts.** One `Diagnostic` per rustc diagnostic (error, warning,
//! standalone note): code (`E0308`, lint name from `#[warn(..)]` or the
//! clippy lint URL), primary location, the header as summary, the block up
//! to the next blank line. `--message-format=json` lines give the same facts
//! from the JSON; their spans point at the JSON line itself. Cargo's
//! "could not compile … due to N previous errors" and "generated N warnings"
//! lines are the conclusion and the announced totals.
//!
//! **Ladder.** PASS_SUMMARY (clean: header and warning counts) → FAIL_CENSUS
//! (every error, first, with snippet and help) → DENSE (warnings grouped by
//! lint and by file, identities while the budget allows) → FLOOD (warning
//! identities grouped by lint with exact counts and the `--items` command).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::artifact::Artifact;
use crate::evidence::{CoverageReceipt, EvidenceGraph, LABEL_FIELD, Severity};
use crate::normalize;

use super::{Profile, ProfileSpec, ReceiptGroup};
use super::diagnostic::{Extraction, Found, command_words, num, primary_label};

pub struct CargoBuild;

const SUBCOMMANDS: &[&str] = &["build", "b", "check", "c", "clippy", "rustc"];

static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(error|warning|note)(?:\[([A-Za-z0-9_:]+)\])?: (.*)$").expect("static")
});
static ARROW: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*--> (.+?):(\d+):(\d+)\s*$").expect("static"));
static LINT_ATTR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"#\[(?:warn|deny|forbid)\(([A-Za-z0-9_:]+)\)\]").expect("static"));
static CLIPPY_URL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"rust-clippy/.*index\.html#([a-z0-9_]+)").expect("static"));
/// Cargo's status lines (right-aligned verbs) and rustc's trailers.
static PROGRESS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^\s*(Compiling|Checking|Finished|Fresh|Running|Downloading|Downloaded|Updating|",
        r"Locking|Adding|Blocking|Building|Documenting|Packaging|Verifying|Archiving|",
        r"Installing|Installed|Replacing|Removing|Removed|Updated|Locked|Unpacking|",
        r"Waiting|Dirty|Ignored)\b|^Some errors have detailed explanations|",
        r"^For more information about (this|an) error"
    ))
    .expect("static")
});
/// Lines that continue a rustc block: indented, numbered snippet lines,
/// child `help:`/`note:` lines, `...` elisions.
static CONTINUES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\s|\d|=|\.\.\.|(help|note|suggestion)(\[\w+\])?: |Caused by:)").expect("static")
});
static COULD_NOT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^could not compile .*?due to (\d+) previous errors?(?:; (\d+) warnings? emitted)?")
        .expect("static")
});
static ABORTING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^aborting due to (?:(\d+) )?previous errors?").expect("static"));
static GENERATED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^`[^`]+` \(.*\) generated (\d+) warnings?(?: \((\d+) duplicates?\))?")
        .expect("static")
});
static EMITTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\d+) warnings? emitted").expect("static"));
static SNIFF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"(?m)^\{"reason":"(compiler-message|compiler-artifact|build-script-executed)"|"#,
        r#"^\{"\$message_type":"diagnostic"|"#,
        r"^(error|warning)(\[E\d{4}\])?: .*\n\s+--> \S+:\d+:\d+$|",
        r"^error: could not compile `"
    ))
    .expect("static")
});

/// A line only rustc or cargo prints, wherever it comes: their closing
/// verdicts and JSON messages. Not the `-->` arrow alone: rustc indents it,
/// and so does a diff of a compiler test's expected output.
static DECISIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^error: could not compile `|",
        r"^warning: `[^`]+` \(.+\) generated \d+ warnings?|",
        r"^error: aborting due to |",
        r"^warning: \d+ warnings? emitted|",
        r#"^\{"reason":"compiler-message""#
    ))
    .expect("static")
});

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["cargo", "rustc", "clippy-driver"],
    // Every alternative of SNIFF needs one of these words.
    sniff_words: &[
        r#"{"reason":""#,
        r#"{"$message_type":"diagnostic""#,
        "--> ",
        "error: could not compile `",
    ],
    sniff: Some(&SNIFF),
    sniff_reason: "rustc diagnostic header with `-->` location, or cargo JSON",
    decisive_words: &[
        "could not compile `",
        ") generated ",
        "aborting due to ",
        " emitted",
        r#"{"reason":"compiler-message""#,
    ],
    ..ProfileSpec::new("cargo_build/v1", "cargo_build", ReceiptGroup::Diagnostics)
};

impl Profile for CargoBuild {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }


    fn by_command(&self, argv: &[String]) -> Option<String> {
        tool_of(argv).map(|t| format!("{t} (rustc diagnostics)"))
    }

    fn decisive_line(&self, line: &str) -> Option<String> {
        DECISIVE
            .is_match(line)
            .then(|| "cargo/rustc closing verdict or cargo JSON message".into())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let mut ex = Extraction::new(artifact);
        let mut current: Option<Found> = None;
        let (mut cargo_errors, mut rustc_errors) = (None::<u64>, None::<u64>);
        let (mut cargo_warnings, mut rustc_warnings) = (None::<u64>, None::<u64>);
        let mut saw_cargo = false;
        let add = |slot: &mut Option<u64>, n: u64| *slot = Some(slot.unwrap_or(0) + n);
        for n in 1..=artifact.line_count() {
            let raw = artifact.line(n);
            let text = normalize::line(crate::profiles::window(raw));
            let text = text.trim_end();
            if text.starts_with('{') {
                if let Some(found) = json_line(raw, n, &mut ex) {
                    ex.push(found);
                    continue;
                }
                if ex.conclusion.last() == Some(&n) || is_json_record(raw) {
                    saw_cargo |= text.starts_with("{\"reason\"");
                    ex.mark(n);
                    continue;
                }
            }
            // Inside a block: a blank line or a new top-level line ends it.
            if let Some(f) = current.as_mut() {
                if !text.is_empty() && CONTINUES.is_match(text) && !PROGRESS.is_match(text) {
                    f.block_last = n;
                    if f.file.is_none()
                        && let Some(c) = ARROW.captures(text)
                    {
                        let (line, col) = (num(c.get(2)), num(c.get(3)));
                        *f = f.clone().at(&c[1], line, col);
                    }
                    // An error's label goes on its census line; a
                    // warning's line stays short.
                    if f.severity == Severity::Error
                        && !f.fields.iter().any(|(k, _)| k == LABEL_FIELD)
                        && let Some(label) = primary_label(text)
                    {
                        f.fields.push((LABEL_FIELD.into(), label.to_string()));
                    }
                    if f.code.is_none() {
                        let lint =
                            LINT_ATTR
                                .captures(text)
                                .map(|c| c[1].to_string())
                                .or_else(|| {
                                    CLIPPY_URL
                                        .captures(text)
                                        .map(|c| format!("clippy::{}", &c[1]))
                                });
                        f.code = lint;
                    }
                    continue;
                }
                if let Some(done) = current.take() {
                    ex.push(done);
                }
            }
            if text.is_empty() || PROGRESS.is_match(text) {
                saw_cargo |= PROGRESS.is_match(text) && text.starts_with(' ');
                // cargo prints `Finished` only when the build succeeded: its
                // clean conclusion when no exit status is known.
                if text.trim_start().starts_with("Finished ") && ex.tool_says_failed.is_none() {
                    ex.tool_says_failed = Some(false);
                }
                ex.mark(n);
                continue;
            }
            let Some(c) = HEADER.captures(text) else {
                if text.starts_with("error") || text.starts_with("warning") {
                    ex.suspicious += 1;
                }
                continue;
            };
            let msg = c.get(3).map_or("", |m| m.as_str());
            if let Some(s) = COULD_NOT.captures(msg) {
                saw_cargo = true;
                add(&mut cargo_errors, num(s.get(1)).unwrap_or(0).into());
                ex.conclude(n);
                continue;
            }
            if let Some(s) = ABORTING.captures(msg) {
                add(&mut rustc_errors, num(s.get(1)).unwrap_or(1).into());
                ex.conclude(n);
                continue;
            }
            if let Some(s) = GENERATED.captures(msg) {
                let shown = num(s.get(1))
                    .unwrap_or(0)
                    .saturating_sub(num(s.get(2)).unwrap_or(0));
                add(&mut cargo_warnings, shown.into());
                ex.conclude(n);
                continue;
            }
            if let Some(s) = EMITTED.captures(msg) {
                add(&mut rustc_warnings, num(s.get(1)).unwrap_or(0).into());
                ex.conclude(n);
                continue;
            }
            if msg.starts_with("build failed, waiting for other jobs") {
                ex.mark(n);
                continue;
            }
            let severity = match &c[1] {
                "error" => Severity::Error,
                "warning" => Severity::Warning,
                _ => Severity::Note,
            };
            current = Some(Found::new(severity, msg, n).code(c.get(2).map(|m| m.as_str())));
        }
        if let Some(done) = current.take() {
            ex.push(done);
        }
        infer_lint_codes(&mut ex.found);
        // Cargo's per-crate totals win over rustc's own when both are there.
        // A build script that failed is cargo's own error, announced by its
        // own line and counted in no crate's total.
        let scripts = ex
            .found
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .filter(|f| f.summary.starts_with("failed to run custom build command for"))
            .count() as u64;
        if let Some(e) = cargo_errors.or(rustc_errors) {
            ex.add_announced_errors(e + scripts);
        }
        if let Some(w) = cargo_warnings.or(rustc_warnings) {
            ex.add_announced_warnings(w);
        }
        let tool = tool_of(&artifact.argv).unwrap_or_else(|| {
            if saw_cargo {
                "cargo".into()
            } else {
                "rustc".into()
            }
        });
        ex.finish(tool, is_note)
    }
}

/// rustc names a lint (`#[warn(unused_imports)]`) only at its first
/// occurrence; later warnings of the same lint carry none in human output.
/// A warning without a code takes the code of a warning whose message reads
/// the same up to its first quoted name (`unused import: `), so the human
/// and JSON renderings of one build give the same identities.
fn infer_lint_codes(found: &mut [Found]) {
    let stem = |s: &str| s.split('`').next().unwrap_or(s).trim_end().to_string();
    let known: Vec<(String, String)> = found
        .iter()
        .filter(|f| f.severity == Severity::Warning)
        .filter_map(|f| f.code.clone().map(|c| (stem(&f.summary), c)))
        .collect();
    for f in found
        .iter_mut()
        .filter(|f| f.severity == Severity::Warning && f.code.is_none())
    {
        let s = stem(&f.summary);
        if let Some((_, code)) = known.iter().find(|(k, _)| *k == s) {
            f.code = Some(code.clone());
            f.fields.push(("code_inferred".into(), "true".into()));
        }
    }
}

fn is_note(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("= ") || t.starts_with("help") || t.starts_with("note")
}

/// `cargo build` / `cargo clippy` / `rustc`, as the header names the run.
fn tool_of(argv: &[String]) -> Option<String> {
    let words = command_words(argv);
    match words.first().copied()? {
        "cargo" => {
            // `cargo +nightly build`, `cargo --locked check`: the first word
            // that is not a toolchain or an option is the subcommand.
            let sub = words[1..]
                .iter()
                .find(|w| !w.starts_with('+') && !w.starts_with('-'))?;
            SUBCOMMANDS.contains(sub).then(|| {
                let sub = match *sub {
                    "b" => "build",
                    "c" => "check",
                    s => s,
                };
                format!("cargo {sub}")
            })
        }
        "rustc" => Some("rustc".into()),
        "clippy-driver" => Some("clippy-driver".into()),
        _ => None,
    }
}

fn is_json_record(raw: &[u8]) -> bool {
    raw.starts_with(b"{\"reason\":") || raw.starts_with(b"{\"$message_type\":")
}

/// One JSON line: a diagnostic becomes a `Found` whose spans are the line
/// itself; build-finished and rustc's count summaries feed the extraction.
fn json_line(raw: &[u8], n: usize, ex: &mut Extraction<'_>) -> Option<Found> {
    let value: Value = serde_json::from_slice(raw).ok()?;
    let message = match value.get("reason").and_then(Value::as_str) {
        Some("compiler-message") => value.get("message")?,
        Some("build-finished") => {
            let ok = value.get("success").and_then(Value::as_bool);
            ex.tool_says_failed = ok.map(|ok| !ok);
            ex.conclude(n);
            return None;
        }
        Some(_) => return None,
        None if value.get("$message_type").and_then(Value::as_str) == Some("diagnostic") => &value,
        None => return None,
    };
    let level = message.get("level").and_then(Value::as_str).unwrap_or("");
    let text = message.get("message").and_then(Value::as_str).unwrap_or("");
    let spans = message.get("spans").and_then(Value::as_array);
    let no_spans = spans.is_none_or(|s| s.is_empty());
    if level == "failure-note" {
        ex.mark(n);
        return None;
    }
    if no_spans {
        // rustc's count trailers restate totals; they are not diagnostics.
        if let Some(c) = ABORTING.captures(text) {
            ex.add_announced_errors(num(c.get(1)).unwrap_or(1).into());
            ex.conclude(n);
            return None;
        }
        if EMITTED.is_match(text) || PROGRESS.is_match(text) {
            ex.mark(n);
            return None;
        }
    }
    let severity = match level {
        "warning" => Severity::Warning,
        "note" => Severity::Note,
        "help" => Severity::Help,
        _ => Severity::Error,
    };
    let code = message
        .get("code")
        .and_then(|c| c.get("code"))
        .and_then(Value::as_str);
    let mut found = Found::new(severity, text.lines().next().unwrap_or(""), n).code(code);
    let primary = spans.and_then(|s| {
        s.iter()
            .find(|sp| sp.get("is_primary").and_then(Value::as_bool) == Some(true))
            .or_else(|| s.first())
    });
    if let Some(sp) = primary {
        let file = sp.get("file_name").and_then(Value::as_str).unwrap_or("");
        let field = |k: &str| {
            sp.get(k)
                .and_then(Value::as_u64)
                .and_then(|v| u32::try_from(v).ok())
        };
        if !file.is_empty() {
            found = found.at(file, field("line_start"), field("column_start"));
        }
        if let Some(label) = sp
            .get("label")
            .filter(|_| severity == Severity::Error)
            .and_then(Value::as_str)
            .filter(|l| !l.trim().is_empty())
        {
            found.fields.push((LABEL_FIELD.into(), label.to_string()));
        }
    }
    if let Some(rendered) = message.get("rendered").and_then(Value::as_str) {
        // The decoded text of this raw line, for a renderer that wants to
        // show rustc's own layout; ANSI (json-diagnostic-rendered-ansi) removed.
        let plain: Vec<String> = rendered
            .lines()
            .map(|l| normalize::line(l.as_bytes()).into_owned())
            .collect();
        found
            .fields
            .push(("rendered".into(), plain.join("\n").trim_end().to_string()));
    }
    found.detail = vec![n];
    Some(found)
}
