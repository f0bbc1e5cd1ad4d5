//! Re-run delta receipts over every captured fix-up sequence, rerunnable
//! by anyone:
//!
//!     cargo run --locked --example delta_receipts
//!
//! Each sequence (`fixtures/deltas/<sequence>/step-N/`, real runs of one
//! command after each fix of a real project) is replayed twice through
//! the pipeline, as `ctx run` would deliver its steps one after the other:
//! with re-run deltas, and without. Tokens are exact o200k_base counts of
//! what the reader saw. At every step, each failure identity of the
//! step's truth file (derived from the tool's machine-readable output,
//! never from ctx) must be named in the delta digest. Writes
//! docs/receipts/deltas.md.

use std::fmt::Write as _;
use std::path::Path;

use ctx::testing::sequence::{self, Step};
use ctx::tokens;

/// The identities a step's truth requires, each as the words that must
/// appear: a failing test's id, or an error diagnostic's `file:line` (then
/// `:col` or a space) and code.
fn truth(step: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(step.join("truth.json")).unwrap_or_default();
    let truth: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let mut out = Vec::new();
    for f in truth["failures"].as_array().into_iter().flatten() {
        if let Some(id) = f["id"].as_str() {
            out.push(vec![id.to_string()]);
        }
    }
    for d in truth["diagnostics"].as_array().into_iter().flatten() {
        if d["severity"].as_str() != Some("error") {
            continue;
        }
        // An error of no file (make's `*** [...] Error 1`) is its message.
        let Some(file) = d["file"].as_str().map(|f| f.trim_start_matches("./")) else {
            out.push(vec![d["message"].as_str().unwrap_or("").to_string()]);
            continue;
        };
        let line = d["line"].as_u64().unwrap_or(0);
        let code = d["code"].as_str().unwrap_or("");
        // `@`: the place, followed by `:col` or a space (mypy's plain
        // lines name no column, so neither does its identity).
        out.push(vec![format!("@{file}:{line}"), code.to_string()]);
    }
    out
}

/// True when every word of `words` is in the digest, reading the delta's
/// grouped lists (`  FILE: rest, rest`) and compact census blocks back
/// into whole identities.
fn named(text: &str, words: &[String]) -> bool {
    let whole = sequence::spelled_out(text);
    let has = |w: &str| text.contains(w) || whole.contains(w);
    words.iter().all(|w| match w.strip_prefix('@') {
        Some(place) => has(&format!("{place}:")) || has(&format!("{place} ")),
        None => has(w),
    })
}

/// The whole-sequence ratios measured before deltas folded warnings,
/// matched diagnostics by file, code and message, and read small outputs
/// (the same example, the same fixtures; gcc-stock from its first
/// snapshots).
const BEFORE: [(&str, &str); 11] = [
    ("cargo-check-mixed", "87 %"),
    ("cargo-ledger", "62 %"),
    ("eslint-app", "81 %"),
    ("gcc-stock", "86 %"),
    ("go-shop", "72 %"),
    ("jest-shop", "56 %"),
    ("mypy-inventory", "63 %"),
    ("pytest-shop", "53 %"),
    ("ruff-webapp", "58 %"),
    ("tsc-errors", "73 %"),
    ("vitest-shop", "56 %"),
];

fn omits(step: &Step) -> bool {
    step.delivery.output != ctx::pipeline::Output::Raw
        && step.delivery.trace.as_ref().is_some_and(|t| t.plan.omits())
}

struct Line {
    step: String,
    with: usize,
    without: usize,
    delta: bool,
    truth: usize,
    kept: usize,
    /// What any delta of the step must print without hiding a current
    /// identity: the header, the counts line, the still-failing list (its
    /// opening line and identities), each new failure's identity, the
    /// footer. A step delivered without a delta counts whole.
    floor: usize,
}

/// The floor of a delta step (see `Line::floor`).
fn floor(step: &Step) -> usize {
    let Some(d) = step.delivery.trace.as_ref().and_then(|t| {
        t.plan.blocks.iter().find_map(|b| match b {
            ctx::plan::Block::Delta(d) => Some(d),
            _ => None,
        })
    }) else {
        return tokens::exact(step.text.as_bytes());
    };
    let lines: Vec<&str> = step.text.lines().collect();
    let cost = |l: &str| tokens::exact(format!("{l}\n").as_bytes());
    let mut total = cost(lines[0]) + cost(lines[1]) + lines.last().map_or(0, |l| cost(l));
    let mut in_still = false;
    for l in &lines[2..] {
        if l.starts_with("[ctx] still failing") {
            in_still = true;
            total += cost(l);
        } else if let Some(item) = l.strip_prefix("  ") {
            if in_still || lines[1].starts_with("[ctx] same ") {
                total += cost(item) + 1;
            }
        } else {
            in_still = false;
        }
    }
    total + d.new.iter().map(|id| cost(id)).sum::<usize>()
}

fn measure(seq: &Path) -> Vec<Line> {
    let with: Vec<Step> = sequence::replay(seq, true);
    let without: Vec<Step> = sequence::replay(seq, false);
    with.iter()
        .zip(&without)
        .map(|(w, wo)| {
            let truth = truth(&w.dir);
            Line {
                step: w
                    .dir
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
                with: tokens::exact(w.text.as_bytes()),
                without: tokens::exact(wo.text.as_bytes()),
                delta: w.delivery.delta.is_some(),
                // A digest that omits nothing is the tool's own output:
                // every identity is there as the tool wrote it.
                kept: if omits(w) {
                    truth.iter().filter(|t| named(&w.text, t)).count()
                } else {
                    truth.len()
                },
                truth: truth.len(),
                floor: floor(w),
            }
        })
        .collect()
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sequences: Vec<_> = std::fs::read_dir(root.join("fixtures/deltas"))
        .expect("fixtures/deltas")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    sequences.sort();
    let mut md = String::from(
        "# Receipts: re-run deltas\n\n\
         Generated by `cargo run --locked --example delta_receipts`. Each sequence is one \
         command run after each fix of a real project (`fixtures/deltas/`, regenerated by \
         `fixtures/deltas/regen.sh`), replayed as `ctx run` delivers its steps one after the \
         other, with deltas and with `CTX_DELTA=0`. Tokens are exact (o200k_base) counts of what \
         the reader saw. *kept*: the step's failure identities (from the tool's \
         machine-readable output) named in the delta digest.\n\n\
         Goal: a whole sequence costs ≤ 50 % of the same runs without deltas, with every \
         current failure identity kept at every step.\n\n\
         *re-runs*: the same ratio over the steps after the first, which a delta can shorten. \
         *before*: the whole-sequence ratio before this change (a delta then printed the \
         warning summaries again, matched a diagnostic by its line, and left outputs within \
         256 tokens unread; measured the same way). *floor*: the ratio if every delta \
         printed only its header, its counts line, the still-failing list, each new \
         failure's identity and its footer, and the first run whole: what no delta can go \
         below without hiding a current identity.\n\n\
         | sequence | steps | deltas | tokens with | without | ratio | before | re-runs | floor | identities kept |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    let mut detail = String::from(
        "\n## Per step\n\n| step | with | without | delta | kept |\n| --- | ---: | ---: | --- | ---: |\n",
    );
    for seq in &sequences {
        let name = seq
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let lines = measure(seq);
        let with: usize = lines.iter().map(|l| l.with).sum();
        let without: usize = lines.iter().map(|l| l.without).sum();
        let truth: usize = lines.iter().map(|l| l.truth).sum();
        let kept: usize = lines.iter().map(|l| l.kept).sum();
        let deltas = lines.iter().filter(|l| l.delta).count();
        let rerun_with: usize = lines.iter().skip(1).map(|l| l.with).sum();
        let rerun_without: usize = lines.iter().skip(1).map(|l| l.without).sum();
        let floor: usize = lines.iter().map(|l| l.floor).sum();
        let before = BEFORE
            .iter()
            .find(|(n, _)| *n == name)
            .map_or("—", |(_, b)| b);
        let _ = writeln!(
            md,
            "| {name} | {} | {deltas} | {with} | {without} | {:.0} % | {before} | {:.0} % | {:.0} % | {kept}/{truth} |",
            lines.len(),
            100.0 * with as f64 / without.max(1) as f64,
            100.0 * rerun_with as f64 / rerun_without.max(1) as f64,
            100.0 * floor as f64 / without.max(1) as f64,
        );
        for l in &lines {
            let _ = writeln!(
                detail,
                "| {name}/{} | {} | {} | {} | {}/{} |",
                l.step,
                l.with,
                l.without,
                if l.delta { "yes" } else { "no" },
                l.kept,
                l.truth
            );
        }
    }
    md.push_str(&detail);
    std::fs::write(root.join("docs/receipts/deltas.md"), &md).expect("write receipts");
    println!("{md}");
}
