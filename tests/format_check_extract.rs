//! format_check/v1 against every captured formatter run: chosen by its
//! command, every file of the fixture's truth (the formatter's own write
//! mode on a copy, and its per-file check status; see
//! fixtures/format_check/truth.py) named in the census with its class,
//! the outcome, and a complete receipt. Read without its command, a
//! report is this family's, a diff's (`--diff` modes print unified
//! diffs) or text/v1's, never another family's.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ctx::artifact::Exit;
use ctx::classify;
use ctx::evidence::{Outcome, Precision};
use ctx::fixture;
use serde::Deserialize;

#[derive(Deserialize)]
struct Truth {
    files: Vec<TruthFile>,
}

#[derive(Deserialize)]
struct TruthFile {
    path: String,
    kind: String,
}

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/format_check");
    let mut out: Vec<PathBuf> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("case.json").is_file())
        .collect();
    out.sort();
    out
}

/// Cases whose report alone (no command) must pick this family.
const SNIFFED: &[&str] = &[
    "black-check",
    "black-six",
    "cargo-fmt",
    "prettier-check",
    "ruff-format",
    "ruff-format-six",
];

#[test]
fn every_file_to_reformat_is_in_the_census() {
    let contract = ctx::contract::for_family("format_check").unwrap();
    let cases = cases();
    assert!(cases.len() >= 12, "fixtures missing");
    for dir in cases {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let artifact = fixture::load(&dir).unwrap();
        let truth: Truth =
            serde_json::from_slice(&std::fs::read(dir.join("truth.json")).unwrap()).unwrap();
        let (profile, how) = classify::choose(&artifact, None).unwrap();
        assert_eq!(profile.version(), "format_check/v1", "{name}: {how:?}");
        let (graph, receipt) = profile.extract(&artifact);
        let census: BTreeSet<(String, String)> = contract
            .census(&graph)
            .map(|i| (i.identity.clone(), i.class.clone().unwrap_or_default()))
            .collect();
        let want: BTreeSet<(String, String)> = truth
            .files
            .iter()
            .map(|f| {
                let class = if f.kind == "error" {
                    "cannot format"
                } else {
                    "would reformat"
                };
                (f.path.clone(), class.to_string())
            })
            .collect();
        assert_eq!(census, want, "{name}");
        let outcome = if want.is_empty() {
            Outcome::Ok
        } else {
            Outcome::Failed
        };
        assert_eq!(graph.outcome, outcome, "{name}");
        assert_eq!(receipt.precision, Precision::Full, "{name}: {receipt:?}");
        assert_eq!(receipt.lines_unmatched, 0, "{name}: {receipt:?}");
        for item in &graph.items {
            // A diff's `---`/`+++` header carries the run's clock: detail
            // starts at the hunk.
            for span in &item.detail {
                for n in span.first..=span.last {
                    let line = ctx::normalize::line(artifact.line(n)).into_owned();
                    assert!(
                        !line.starts_with("--- ") && !line.starts_with("+++ "),
                        "{name}: {line}"
                    );
                }
            }
        }

        let mut anonymous = artifact.clone();
        anonymous.argv.clear();
        anonymous.exit = Exit::Unknown;
        let (read_by, _) = classify::choose(&anonymous, None).unwrap();
        if SNIFFED.contains(&name.as_str()) {
            assert_eq!(read_by.version(), "format_check/v1", "{name}: by content");
        } else {
            assert!(
                ["format_check/v1", "git_diff/v1", "text/v1"].contains(&read_by.version()),
                "{name}: read by {}",
                read_by.version()
            );
        }
    }
}

/// gofmt exits 0 with the files it would change listed: not clean.
#[test]
fn gofmt_lists_fail_whatever_the_exit_status() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/format_check/gofmt-l");
    let artifact = fixture::load(&dir).unwrap();
    assert_eq!(artifact.exit, Exit::Code(0));
    let (graph, _) = ctx::profiles::by_family("format_check")
        .unwrap()
        .extract(&artifact);
    assert_eq!(graph.outcome, Outcome::Failed);
    assert_eq!(graph.counts, vec![("files to reformat".to_string(), 2)]);
}

/// A report cut in half never claims to be complete, and noise with a
/// failing exit never reads as clean.
#[test]
fn cut_and_noisy_reports_are_honest() {
    let profile = ctx::profiles::by_family("format_check").unwrap();
    for dir in cases() {
        let full = fixture::load(&dir).unwrap();
        if full.line_count() < 4 {
            continue;
        }
        let bytes = full.bytes();
        let mut cut = ctx::artifact::Artifact::from_stdout(
            bytes[..bytes.len() / 2].to_vec(),
            full.exit,
            full.argv.clone(),
        );
        cut.truncated = true;
        let (graph, receipt) = profile.extract(&cut);
        assert!(!receipt.is_complete(), "{}", dir.display());
        if full.exit.is_failure() {
            assert_ne!(graph.outcome, Outcome::Ok, "{}", dir.display());
        }
    }
    let noise = ctx::artifact::Artifact::from_stdout(
        b"\x00\xffgarbage\nmore\n".to_vec(),
        Exit::Code(1),
        vec!["black".into(), "--check".into(), ".".into()],
    );
    let (graph, receipt) = profile.extract(&noise);
    assert_eq!(graph.outcome, Outcome::Unknown);
    assert!(!receipt.is_complete());
}
