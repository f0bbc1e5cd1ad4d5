//! pylint/v1 — pylint's reports: text (the default), colorized, parseable,
//! msvs and json.
//!
//! **Decision.** Which messages must I fix to get pylint clean (file, line,
//! column, message id and symbol), which of them are errors (`E`, `F`:
//! likely bugs) rather than conventions, and how does a run over a whole
//! package break down by message and by file?
//!
//! **Unsafe loss.** A message dropped from the census (pylint fails the run
//! for a message of any type: its exit status is a bit mask of the types it
//! saw), above all an `E0001` syntax error (the module was not linted at
//! all) or an `E0401` import error; counts that disagree with the messages;
//! a run whose messages are all conventions read as clean.
//!
//! **Typed facts.** One `Diagnostic` per message, severity error whatever
//! its type (as ruff's findings: each is a reason for the failing exit),
//! class = the message id (`C0114`), fields `symbol`
//! (`missing-module-docstring`) and `type` (`convention`, `refactor`,
//! `warning`, `error`, `fatal`, `info`, from the id's letter). A text
//! message whose symbol is not on its first line (`R0801` duplicate-code
//! quotes the similar lines) runs to the line that closes with `(symbol)`.
//! `************* Module m` banners, the rule and `Your code has been rated
//! at X/10` are recognised; the rating is the conclusion. Counts: the
//! messages by type.
//!
//! **Ladder.** PASS_SUMMARY (the rating) → FAIL_CENSUS (every message's
//! line) → DENSE (identities grouped by file) → FLOOD (grouped by message id
//! with exact counts and two locations each, top files, `--items`).

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::artifact::Artifact;
use crate::evidence::{CoverageReceipt, EvidenceGraph, Outcome, Severity};

use super::diagnostic::{Extraction, Found, num};
use super::{Profile, ProfileSpec, ReceiptGroup};

pub struct Pylint;

/// `path:line:col: C0114: message (symbol)` (text, colorized).
static TEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\S.*?):(\d+):(\d+): ([CRWEFI]\d{4}): (.*)$").expect("static pattern")
});
/// `path:line: [C0114(symbol), obj] message` (parseable).
static PARSEABLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\S.*?):(\d+): \[([CRWEFI]\d{4})\(([a-z][a-z0-9-]*)\), [^\]]*\] (.*)$")
        .expect("static pattern")
});
/// `path(line): [C0114(symbol)obj] message` (msvs).
static MSVS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\S.*?)\((\d+)\): \[([CRWEFI]\d{4})\(([a-z][a-z0-9-]*)\)[^\]]*\] (.*)$")
        .expect("static pattern")
});
/// ` (symbol)` closing a text message.
static SYMBOL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?:^|\s)\(([a-z][a-z0-9-]*)\)$").expect("static pattern"));
static RATED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^Your code has been rated at -?[\d.]+/10").expect("static pattern")
});
static SNIFF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?m)^\*{13} Module \S+$|",
        r"^\S+:\d+:\d+: [CRWEFI]\d{4}: .* \([a-z][a-z0-9-]*\)$|",
        r"^\S+:\d+: \[[CRWEFI]\d{4}\([a-z][a-z0-9-]*\), |",
        r"^Your code has been rated at -?[\d.]+/10|",
        r#"^        "message-id": "[CRWEFI]\d{4}",?$"#
    ))
    .expect("static pattern")
});

static SPEC: ProfileSpec = ProfileSpec {
    commands: &["pylint"],
    // Every alternative of SNIFF needs one of these words.
    sniff_words: &[
        "************* Module ",
        ": [",
        "Your code has been rated at ",
        "\"message-id\": ",
        ": C",
        ": R",
        ": W",
        ": E",
        ": F",
        ": I",
    ],
    sniff: Some(&SNIFF),
    sniff_reason: "a pylint `************* Module` banner, message or rating",
    decisive_words: &["************* Module ", "Your code has been rated at "],
    ..ProfileSpec::new("pylint/v1", "pylint", ReceiptGroup::Diagnostics)
};

/// pylint's message types, by the letter of a message id.
const TYPES: &[(char, &str, &str)] = &[
    ('F', "fatal", "fatal"),
    ('E', "error", "errors"),
    ('W', "warning", "warnings"),
    ('R', "refactor", "refactor"),
    ('C', "convention", "convention"),
    ('I', "info", "info"),
];

impl Profile for Pylint {
    fn spec(&self) -> &'static ProfileSpec {
        &SPEC
    }

    fn decisive_line(&self, line: &str) -> Option<String> {
        let banner = line
            .strip_prefix("************* Module ")
            .is_some_and(|m| !m.is_empty() && !m.contains(' '));
        (banner || RATED.is_match(line))
            .then(|| "pylint `************* Module` banner or rating".into())
    }

    fn extract(&self, artifact: &Artifact) -> (EvidenceGraph, CoverageReceipt) {
        let mut ex = Extraction::new(artifact);
        // A text message whose `(symbol)` has not been seen yet.
        let mut open: Option<Found> = None;
        let total = artifact.line_count();
        let mut n = 0;
        while n < total {
            n += 1;
            let text = crate::profiles::visible(artifact, n);
            let text = text.trim_end();
            if text == "["
                && let Some(end) = json_array(artifact, n, &mut ex)
            {
                n = end;
                continue;
            }
            if let Some(c) = TEXT.captures(text) {
                flush(&mut ex, &mut open);
                let msg = &c[5];
                let symbol = SYMBOL.captures(msg).map(|s| s[1].to_string());
                let summary = SYMBOL.replace(msg, "");
                let mut f = message(&c[4], symbol.as_deref(), summary.trim_end(), n)
                    .at(&c[1], num(c.get(2)), num(c.get(3)));
                if symbol.is_none() {
                    f.fields.push(("symbol".into(), String::new()));
                    open = Some(f);
                } else {
                    ex.push(f);
                }
                continue;
            }
            // duplicate-code's continuation: `==module:[a:b]` lines, then
            // the similar lines indented. Anything else: the message never
            // closed (a cut line).
            let continues = text.starts_with("==") || text.starts_with(' ');
            if open.is_some() && !continues {
                ex.suspicious += 1;
                flush(&mut ex, &mut open);
            }
            if let Some(f) = open.as_mut() {
                f.block_last = n;
                if let Some(s) = SYMBOL.captures(text) {
                    if let Some(slot) = f.fields.iter_mut().find(|(k, _)| k == "symbol") {
                        slot.1 = s[1].to_string();
                    }
                    flush(&mut ex, &mut open);
                }
                continue;
            }
            if let Some(c) = PARSEABLE.captures(text) {
                ex.push(message(&c[3], Some(&c[4]), &c[5], n).at(&c[1], num(c.get(2)), None));
                continue;
            }
            if let Some(c) = MSVS.captures(text) {
                ex.push(message(&c[3], Some(&c[4]), &c[5], n).at(&c[1], num(c.get(2)), None));
                continue;
            }
            if RATED.is_match(text) {
                ex.conclude(n);
                continue;
            }
            let banner = text.starts_with("************* Module ");
            let rule = !text.is_empty() && text.bytes().all(|b| b == b'-');
            if banner || rule || text.is_empty() {
                ex.mark(n);
            } else if text.contains(": [") || TEXT.is_match(text) {
                ex.suspicious += 1;
            }
        }
        flush(&mut ex, &mut open);
        let messages = ex.found.len() as u64;
        let mut by_type = vec![0u64; TYPES.len()];
        for f in &ex.found {
            let letter = f.code.as_deref().and_then(|c| c.chars().next());
            if let Some(i) = TYPES.iter().position(|(l, _, _)| Some(*l) == letter) {
                by_type[i] += 1;
            }
        }
        let (mut graph, receipt) = ex.finish("pylint", |_| false);
        graph.counts = vec![("messages".to_string(), messages)];
        for ((_, _, word), n) in TYPES.iter().zip(by_type) {
            if n > 0 {
                graph.counts.push((word.to_string(), n));
            }
        }
        // Every message fails the run: a run of conventions only is not
        // "unknown" (the facts and the exit status agree).
        if messages > 0 && graph.outcome == Outcome::Unknown && artifact.exit.is_failure() {
            graph.outcome = Outcome::Failed;
        }
        (graph, receipt)
    }
}

fn flush(ex: &mut Extraction<'_>, open: &mut Option<Found>) {
    if let Some(done) = open.take() {
        ex.push(done);
    }
}

/// One message: its id as class, symbol and type as fields.
fn message(id: &str, symbol: Option<&str>, summary: &str, n: usize) -> Found {
    let mut f = Found::new(Severity::Error, summary, n).code(Some(id));
    if let Some(symbol) = symbol {
        f.fields.push(("symbol".into(), symbol.to_string()));
    }
    let letter = id.chars().next();
    if let Some((_, name, _)) = TYPES.iter().find(|(l, _, _)| Some(*l) == letter) {
        f.fields.push(("type".into(), name.to_string()));
    }
    f
}

/// `-f json`: a pretty-printed array whose objects open with a line
/// `    {`; each item points at its object's lines. Returns the `]` line,
/// or `None` when it does not parse as pylint's report.
fn json_array(artifact: &Artifact, open: usize, ex: &mut Extraction<'_>) -> Option<usize> {
    let block = super::diagnostic::json_block(artifact, open, "    {", "]")?;
    let items = block.value.as_array()?;
    if items.len() != block.object_starts.len()
        || items.iter().any(|m| m.get("message-id").is_none())
    {
        return None;
    }
    for (i, (obj, &first)) in items.iter().zip(&block.object_starts).enumerate() {
        let last = block
            .object_starts
            .get(i + 1)
            .map_or(block.close - 1, |&next| next - 1);
        let s = |k: &str| obj.get(k).and_then(Value::as_str);
        let at = |k: &str| {
            obj.get(k)
                .and_then(Value::as_u64)
                .and_then(|v| u32::try_from(v).ok())
        };
        let mut f = message(
            s("message-id").unwrap_or(""),
            s("symbol"),
            s("message").unwrap_or("").lines().next().unwrap_or(""),
            first,
        )
        .at(s("path").unwrap_or(""), at("line"), at("column"));
        f.block_last = last;
        f.detail = vec![first];
        ex.push(f);
    }
    ex.mark_range(open, block.close);
    Some(block.close)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_line_shapes() {
        let c = TEXT
            .captures("inventory/report.py:9:7: C0121: Comparison 'x == True' (singleton-comparison)")
            .unwrap();
        assert_eq!((&c[1], &c[2], &c[3], &c[4]), ("inventory/report.py", "9", "7", "C0121"));
        let c = PARSEABLE
            .captures("inventory/report.py:1: [E0401(import-error), ] Unable to import 'x'")
            .unwrap();
        assert_eq!((&c[3], &c[4], &c[5]), ("E0401", "import-error", "Unable to import 'x'"));
        let c = MSVS
            .captures("inventory/stock.py(20): [E0602(undefined-variable)Stock.load] Undefined variable 'levels'")
            .unwrap();
        assert_eq!((&c[1], &c[2], &c[3]), ("inventory/stock.py", "20", "E0602"));
        // ruff's concise shape has no colon after its code and no symbol.
        assert!(!SNIFF.is_match("a.py:1:1: F401 [*] `os` imported but unused"));
        assert!(Pylint.decisive_line("************* Module inventory.stock").is_some());
        assert!(Pylint.decisive_line("Your code has been rated at 8.68/10").is_some());
        assert!(Pylint.decisive_line("************* Module").is_none());
    }
}
