//! Re-run deltas over real fix-up sequences (`fixtures/deltas/`): a real
//! project's bugs fixed one at a time, the same command captured by the
//! real tool after each fix (pytest, cargo test, go test, jest, tsc,
//! eslint, ruff, mypy, cargo check, vitest, gcc through make). Each sequence is replayed as `ctx run` would deliver its
//! steps one after the other (`ctx::testing::sequence`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ctx::testing::sequence::{self, Step};

fn sequences() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/deltas");
    let mut out: Vec<PathBuf> = std::fs::read_dir(root)
        .expect("fixtures/deltas")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

fn name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The census identities of a step, each once.
fn census(step: &Step) -> Vec<String> {
    step.delivery
        .trace
        .as_ref()
        .map(|t| ctx::plan::delta::identities(&t.contract, &t.graph))
        .unwrap_or_default()
}

/// The age is the one volatile part of a delta (docs/deltas.md); the
/// replay's own clock makes it `1 min`, replaced all the same.
fn normalized(digest: &str) -> String {
    let age = regex::Regex::new(r"\d+ (s|min|h \d+ min)( ago)").expect("pattern");
    age.replace_all(digest, "AGE$2").into_owned()
}

#[test]
fn every_sequence_has_real_steps_with_truth() {
    let all = sequences();
    let names: Vec<String> = all.iter().map(|p| name(p)).collect();
    for family in [
        "pytest", "cargo", "go", "jest", "tsc", "eslint", "ruff", "gcc",
    ] {
        assert!(
            names.iter().any(|n| n.starts_with(&format!("{family}-"))),
            "{family}: {names:?}"
        );
    }
    for seq in &all {
        let steps = sequence::steps(seq);
        assert!(steps.len() >= 4, "{}: {} steps", seq.display(), steps.len());
        for step in steps {
            assert!(step.join("truth.json").is_file(), "{}", step.display());
        }
    }
}

/// Each step's digest with deltas, the age normalized.
#[test]
fn each_steps_digest() {
    for seq in sequences() {
        for step in sequence::replay(&seq, true) {
            let snapshot = format!("{}__{}", name(&seq), name(&step.dir));
            insta::assert_snapshot!(snapshot, normalized(&step.text));
        }
    }
}

/// At every step every current failure's identity is in the digest
/// (inline, or in the delta's list under its file), and the delta's
/// counts add up against the steps' own censuses.
#[test]
fn every_current_identity_is_kept_and_the_counts_add_up() {
    let mut deltas = 0;
    for seq in sequences() {
        let steps = sequence::replay(&seq, true);
        let mut before: Option<Vec<String>> = None;
        for step in &steps {
            let now = census(step);
            let omits = step.delivery.trace.as_ref().is_some_and(|t| t.plan.omits());
            if omits {
                let text = sequence::spelled_out(&step.text);
                for id in &now {
                    assert!(
                        text.contains(id.as_str()),
                        "{}: {id:?} missing from\n{}",
                        step.dir.display(),
                        step.text
                    );
                }
            }
            if let Some(used) = &step.delivery.delta {
                deltas += 1;
                let previous = before.as_ref().expect("a delta has a previous run");
                let plan = &step.delivery.trace.as_ref().expect("planned").plan;
                let d = plan
                    .blocks
                    .iter()
                    .find_map(|b| match b {
                        ctx::plan::Block::Delta(d) => Some(d),
                        _ => None,
                    })
                    .expect("the delta block");
                let set = |v: &[String]| v.iter().cloned().collect::<BTreeSet<_>>();
                // A diagnostic that moved is named at its current
                // location (`still`), and was at another (`still_before`).
                assert_eq!(d.still.len(), d.still_before.len());
                let mut prev_parts = set(&d.fixed);
                prev_parts.extend(set(&d.still_before));
                assert_eq!(prev_parts, set(previous), "{}", step.dir.display());
                assert_eq!(d.fixed.len() + d.still.len(), set(previous).len());
                let mut cur_parts = set(&d.still);
                cur_parts.extend(set(&d.new));
                assert_eq!(cur_parts, set(&now), "{}", step.dir.display());
                assert_eq!(d.still.len() + d.new.len(), set(&now).len());
                assert!(used.normal_tokens > step.delivery.delivered_tokens);
            }
            // The next step compares with this one only when it left a
            // last run behind (a census the ledger keeps).
            let kept = step.delivery.trace.is_some() && step.delivery.key.is_some();
            before = kept.then_some(now);
        }
    }
    assert!(deltas >= 15, "{deltas} deltas");
}

/// A whole sequence costs fewer tokens with deltas than without, and no
/// step costs more (never worse).
#[test]
fn deltas_never_cost_more() {
    for seq in sequences() {
        let with = sequence::replay(&seq, true);
        let without = sequence::replay(&seq, false);
        assert_eq!(with.len(), without.len());
        for (w, wo) in with.iter().zip(&without) {
            assert!(
                w.delivery.delivered_tokens <= wo.delivery.delivered_tokens,
                "{}",
                w.dir.display()
            );
            if w.delivery.delta.is_none() {
                assert_eq!(w.text, wo.text, "{}", w.dir.display());
            }
        }
    }
}

/// A failing run within 256 tokens, printed verbatim unread when deltas
/// are off, is read when they are on, and goes out as a delta when that
/// is smaller than the output (never worse: else the output as it is).
#[test]
fn a_small_failing_run_is_compared_too() {
    let seq = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/deltas/go-shop");
    let with = sequence::replay(&seq, true);
    let without = sequence::replay(&seq, false);
    let small = |s: &Step| s.delivery.raw_tokens <= ctx::contract::SMALL_OUTPUT_TOKENS;
    assert!(small(&with[3]) && small(&with[4]));
    assert!(
        without[3].delivery.trace.is_none(),
        "not read without deltas"
    );
    assert!(with[3].delivery.delta.is_some(), "{}", with[3].text);
    assert!(with[3].delivery.delivered_tokens < without[3].delivery.delivered_tokens);
    // One failure left: its delta would not be smaller than the output.
    assert!(with[4].delivery.delta.is_none());
    assert_eq!(with[4].text, without[4].text);
}
