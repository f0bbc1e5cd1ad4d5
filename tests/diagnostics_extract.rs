//! The diagnostics extractors against captured fixtures: classification by
//! argv and by content, every error of each fixture's truth.json (derived
//! from the tool's machine-readable output) found with its file, line,
//! column and code, exact error and warning counts, colour-blind
//! identities, and honest behaviour on malformed input.

use std::path::{Path, PathBuf};

use ctx::artifact::{Artifact, Exit};
use ctx::classify;
use ctx::evidence::{CoverageReceipt, EvidenceGraph, EvidenceItem, Precision, Severity};
use ctx::fixture;
use ctx::profiles::Profile;
use serde::Deserialize;

#[derive(Deserialize)]
struct Counts {
    error: usize,
    warning: usize,
}

#[derive(Deserialize, Debug)]
struct TruthDiag {
    severity: String,
    file: Option<String>,
    line: Option<u32>,
    col: Option<u32>,
    code: Option<String>,
    message: String,
}

#[derive(Deserialize)]
struct Truth {
    counts: Counts,
    diagnostics: Vec<TruthDiag>,
}

fn fixtures(family: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(family);
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.json").is_file())
        .collect();
    dirs.sort();
    dirs
}

fn case_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn load(dir: &Path) -> Artifact {
    fixture::load(dir).unwrap_or_else(|e| panic!("{e}"))
}

fn extract(dir: &Path) -> (EvidenceGraph, CoverageReceipt) {
    let artifact = load(dir);
    let (profile, _) = classify::choose(&artifact, None).expect("no forced family");
    profile.extract(&artifact)
}

fn norm(path: &str) -> &str {
    path.trim_start_matches("./")
}

/// Paths compare by suffix: tools print them relative, absolute, or `./`.
fn same_file(a: &str, b: &str) -> bool {
    let (a, b) = (norm(a), norm(b));
    a == b || a.ends_with(&format!("/{b}")) || b.ends_with(&format!("/{a}"))
}

/// A truth error has an error item at its file/line/col with its code; a
/// truth error with no file (linker, make, config) has one whose summary
/// or code says the same.
fn matches(item: &EvidenceItem, t: &TruthDiag) -> bool {
    if item.severity != Severity::Error {
        return false;
    }
    if t.code.is_some() && item.class != t.code {
        return false;
    }
    match (&t.file, &item.location) {
        (Some(file), Some(loc)) => {
            same_file(&loc.file, file)
                && (t.line.is_none() || loc.line == t.line)
                // A tool run without column numbers (mypy's default) prints
                // none; the JSON truth still has one. Nothing can be invented.
                && (t.col.is_none() || loc.column.is_none() || loc.column == t.col)
        }
        (Some(_), None) => false,
        (None, _) => {
            let summary = item.summary.as_deref().unwrap_or("");
            t.code.is_some() || (!summary.is_empty() && t.message.contains(summary))
        }
    }
}

fn count(graph: &EvidenceGraph, severity: Severity) -> usize {
    graph
        .items
        .iter()
        .filter(|i| i.severity == severity)
        .count()
}

/// Classification, census and counts for every case of one fixture family;
/// `sniffs` names the cases whose output alone must pick the profile.
/// Returns (identities matched, truth errors) over the family.
fn check_family(family: &str, version: &str, sniffs: &[&str]) -> (usize, usize) {
    let (mut matched, mut total) = (0, 0);
    let mut sniffed = Vec::new();
    for dir in fixtures(family) {
        let name = case_name(&dir);
        let artifact = load(&dir);
        let (profile, why) = classify::choose(&artifact, None).expect("no forced family");
        assert_eq!(
            profile.version(),
            version,
            "{name}: chosen by argv ({why:?})"
        );

        let mut piped = artifact.clone();
        piped.argv.clear();
        piped.exit = Exit::Unknown;
        let (by_content, _) = classify::choose(&piped, None).expect("no forced family");
        if by_content.version() == version {
            sniffed.push(name.clone());
        } else {
            assert_eq!(
                by_content.version(),
                "text/v1",
                "{name}: sniffed as another family"
            );
        }

        let (graph, receipt) = profile.extract(&artifact);
        eprintln!(
            "{name}: {} items, {} unmatched lines",
            graph.items.len(),
            receipt.lines_unmatched
        );
        let truth: Truth = serde_json::from_slice(
            &std::fs::read(dir.join("truth.json")).unwrap_or_else(|e| panic!("{name}: {e}")),
        )
        .unwrap_or_else(|e| panic!("{name}: truth.json: {e}"));
        for t in truth.diagnostics.iter().filter(|t| t.severity == "error") {
            total += 1;
            if graph.items.iter().any(|i| matches(i, t)) {
                matched += 1;
            } else {
                panic!("{name}: no item for truth error {t:?}");
            }
        }
        assert_eq!(
            count(&graph, Severity::Error),
            truth.counts.error,
            "{name}: errors"
        );
        assert_eq!(
            count(&graph, Severity::Warning),
            truth.counts.warning,
            "{name}: warnings"
        );
        assert_eq!(
            receipt.items_parsed as usize, truth.counts.error,
            "{name}: receipt"
        );
        assert_eq!(receipt.precision, Precision::Full, "{name}: precision");
        let failed = truth.counts.error > 0 || artifact.exit.is_failure();
        let word = graph.outcome.word();
        assert_eq!(
            word,
            if failed { "FAILED" } else { "OK" },
            "{name}: outcome"
        );
        assert!(
            graph.reader.tool().is_some_and(|t| !t.is_empty()),
            "{name}: tool"
        );
    }
    assert_eq!(
        sniffed, sniffs,
        "{family}: cases recognised by content alone"
    );
    eprintln!("{family}: {matched}/{total} truth error identities matched");
    (matched, total)
}

/// The same build with and without colour (or in another format): the
/// same error and warning identities, in order. Notes are left out: gcc's
/// JSON lists as top-level a note its text output prints as a child.
fn same_identities(family: &str, a: &str, b: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(family);
    let ids = |case: &str| -> Vec<String> {
        let (graph, _) = extract(&dir.join(case));
        graph
            .items
            .iter()
            .filter(|i| matches!(i.severity, Severity::Error | Severity::Warning))
            .map(|i| i.identity.clone())
            .collect()
    };
    let (left, right) = (ids(a), ids(b));
    assert!(!left.is_empty(), "{a}: no items");
    assert_eq!(left, right, "{a} vs {b}");
}

/// A fixture cut in the middle of its first error block, and random bytes
/// after its head: no panic, and no claim of completeness it does not have.
fn malformed(family: &str, case: &str, profile: &dyn Profile) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(family)
        .join(case);
    let full = load(&dir);
    let (graph, receipt) = profile.extract(&full);
    let errors = count(&graph, Severity::Error);
    let bytes = full.bytes();
    let cut = bytes.len() / 2;
    let mut cut_art = Artifact::from_stdout(bytes[..cut].to_vec(), full.exit, full.argv.clone());
    cut_art.truncated = true;
    let (g, r) = profile.extract(&cut_art);
    assert!(r.truncated);
    assert!(!r.is_complete(), "{case}: a cut input is never complete");
    assert!(
        count(&g, Severity::Error) <= errors,
        "{case}: cut input grew errors"
    );
    assert!(receipt.items_parsed >= r.items_parsed);

    // Deterministic noise: a xorshift stream, some of it newline-separated.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut noise = bytes[..bytes.len().min(300)].to_vec();
    for _ in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        noise.push(if x.is_multiple_of(17) {
            b'\n'
        } else {
            (x >> 24) as u8
        });
    }
    let art = Artifact::from_stdout(noise, Exit::Code(1), full.argv.clone());
    let (g, r) = profile.extract(&art);
    assert!(r.lines_unmatched > 0 || r.precision != Precision::Full || g.items.is_empty());
    assert_ne!(g.outcome.word(), "OK", "{case}: exit 1 never reads as OK");
    let empty = Artifact::from_stdout(Vec::new(), Exit::Code(2), full.argv.clone());
    let (g, _) = profile.extract(&empty);
    assert_eq!(g.outcome.word(), "UNKNOWN", "exit 2 with nothing parsed");
}

#[test]
fn cargo_build() {
    // The JSON cases sniff by the start of their first record, which the
    // KiB classification reads keeps even when the line is cut.
    // `build-clean` has only `Compiling`/`Finished`, which cargo test prints too.
    check_family(
        "cargo_build",
        "cargo_build/v1",
        &[
            "build-flood-one-error",
            "build-link-and-script",
            "check-mixed-color",
            "check-mixed-json",
            "check-mixed-json-ansi",
            "check-mixed-nocolor",
            "check-warnings-replayed",
            // Its warnings come after a KiB of Downloaded/Checking lines:
            // cargo's closing `generated 2 warnings` line decides.
            "clippy-cold-deps",
            "clippy-deny-error",
            "clippy-warnings",
            "rustc-direct",
        ],
    );
    same_identities("cargo_build", "check-mixed-color", "check-mixed-nocolor");
    same_identities("cargo_build", "check-mixed-json", "check-mixed-nocolor");
    same_identities("cargo_build", "check-mixed-json-ansi", "check-mixed-json");
    malformed(
        "cargo_build",
        "check-mixed-nocolor",
        &ctx::profiles::cargo_build::CargoBuild,
    );
    malformed(
        "cargo_build",
        "check-mixed-json",
        &ctx::profiles::cargo_build::CargoBuild,
    );
}

#[test]
fn cargo_single_error_among_warnings_comes_with_its_frame() {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/cargo_build/build-flood-one-error");
    let (graph, receipt) = extract(&dir);
    let contract = ctx::contract::for_family("cargo_build").unwrap();
    let errors: Vec<&EvidenceItem> = contract.census(&graph).collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].identity, "app/src/main.rs:19:22 E0308");
    assert_eq!(errors[0].summary.as_deref(), Some("mismatched types"));
    assert_eq!(graph.counts[0], ("errors".to_string(), 1));
    assert!(errors[0].detail.iter().map(|s| s.len()).sum::<usize>() >= 5);
    assert_eq!(receipt.items_announced, Some(1));
    assert!(!graph.conclusion.is_empty());
}

#[test]
fn tsc() {
    // Every non-empty case sniffs; the clean runs print nothing at all.
    check_family(
        "tsc",
        "tsc/v1",
        &[
            "config-error",
            "mid-plain",
            "mid-pretty",
            "plain",
            "pretty",
            "single-pretty",
            "ts5-plain",
            "ts5-pretty",
        ],
    );
    same_identities("tsc", "plain", "pretty");
    same_identities("tsc", "ts5-plain", "ts5-pretty");
    same_identities("tsc", "mid-plain", "mid-pretty");
    malformed("tsc", "pretty", &ctx::profiles::tsc::Tsc);
    malformed("tsc", "plain", &ctx::profiles::tsc::Tsc);
}

#[test]
fn gcc() {
    // truth.json counts linker `undefined reference`, `collect2`/`clang:
    // error: linker command failed` and make `*** … Error N` lines as
    // errors; so does the profile (BuildFailure items, severity error), so
    // the counts compare one to one. gcc-json sniffs by its JSON array's
    // opening record, cut at the KiB classification reads.
    check_family(
        "gcc",
        "gcc/v1",
        &[
            "clang-header-x40",
            "clang-linker",
            "clang-make-errors",
            "clang-make-errors-color",
            "clang-make-k",
            "clang-ninja-k0",
            "gcc-cmake-make-k",
            "gcc-header-x40",
            "gcc-json",
            "gcc-linker",
            "gcc-make-errors",
            "gcc-make-errors-color",
            "gcc-make-k",
            // 120 compile commands first: stderr's own head decides.
            "gcc-make-k-late",
            // CMake: ninja (its FAILED steps, on stdout) and the make
            // generator (gmake).
            "gcc-ninja-k0",
            "gcc-ninja-linker",
            "gcc-ninja-stop",
        ],
    );
    same_identities("gcc", "gcc-make-errors", "gcc-make-errors-color");
    same_identities("gcc", "gcc-make-errors", "gcc-json");
    same_identities("gcc", "clang-make-errors", "clang-make-errors-color");
    malformed("gcc", "gcc-make-k", &ctx::profiles::gcc::Gcc);
    malformed("gcc", "clang-make-k", &ctx::profiles::gcc::Gcc);
    malformed("gcc", "gcc-ninja-k0", &ctx::profiles::gcc::Gcc);
}

#[test]
fn gcc_header_warning_keeps_its_include_chain() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/gcc/gcc-header-x40");
    let (graph, _) = extract(&dir);
    assert_eq!(graph.items.len(), 40);
    let first = &graph.items[0];
    assert_eq!(first.identity, "include/common.h:7:11 -Wsign-compare");
    let block = first.block.expect("block");
    assert!(
        block.first < first.headline.expect("headline").first,
        "include chain opens the block"
    );
}

#[test]
fn shellcheck() {
    check_family(
        "shellcheck",
        "shellcheck/v1",
        &[
            "errors-only",
            "gcc",
            "json1",
            "n-all",
            "n-all-gcc",
            "tty",
            "tty-color",
        ],
    );
    same_identities("shellcheck", "tty", "gcc");
    same_identities("shellcheck", "tty", "tty-color");
    same_identities("shellcheck", "n-all", "n-all-gcc");
    malformed("shellcheck", "tty", &ctx::profiles::shellcheck::Shellcheck);
    malformed(
        "shellcheck",
        "n-all-gcc",
        &ctx::profiles::shellcheck::Shellcheck,
    );
    // A parse error keeps its level; a `Did you mean:` joins its finding.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/shellcheck/tty");
    let (graph, _) = extract(&dir);
    let parse = graph
        .items
        .iter()
        .find(|i| i.identity == "scripts/broken.sh:3:1 SC1046")
        .expect("the parse error");
    assert_eq!(parse.fields.get("level").map(String::as_str), Some("error"));
    assert_eq!(graph.counts, vec![("findings".to_string(), 19)]);
}

#[test]
fn eslint() {
    check_family(
        "eslint",
        "eslint/v1",
        &[
            "compact",
            "flood",
            "flood-unix",
            "json",
            "mid",
            "mid-unix",
            "parse-error",
            "stylish",
            "stylish-color",
            "unix",
        ],
    );
    same_identities("eslint", "stylish", "stylish-color");
    same_identities("eslint", "stylish", "compact");
    same_identities("eslint", "stylish", "unix");
    same_identities("eslint", "stylish", "json");
    same_identities("eslint", "flood", "flood-unix");
    same_identities("eslint", "mid", "mid-unix");
    malformed("eslint", "stylish", &ctx::profiles::eslint::Eslint);
    malformed("eslint", "flood", &ctx::profiles::eslint::Eslint);
}

#[test]
fn pylint() {
    check_family(
        "pylint",
        "pylint/v1",
        &[
            "clean",
            "colorized",
            "errors-only",
            "json",
            "msvs",
            "parseable",
            "tabulate",
            "text",
        ],
    );
    same_identities("pylint", "text", "colorized");
    same_identities("pylint", "text", "json");
    malformed("pylint", "text", &ctx::profiles::pylint::Pylint);
    malformed("pylint", "json", &ctx::profiles::pylint::Pylint);
}

/// Every pylint message, whatever its type, keeps its id, symbol and type.
#[test]
fn pylint_messages_keep_symbol_and_type() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pylint/text");
    let (graph, _) = extract(&dir);
    let item = graph
        .items
        .iter()
        .find(|i| i.identity == "inventory/report.py:1:0 C0114")
        .expect("the convention message");
    assert_eq!(
        item.fields.get("symbol").map(String::as_str),
        Some("missing-module-docstring")
    );
    assert_eq!(
        item.fields.get("type").map(String::as_str),
        Some("convention")
    );
    assert_eq!(
        graph.counts,
        vec![
            ("messages".to_string(), 26),
            ("errors".to_string(), 8),
            ("warnings".to_string(), 6),
            ("refactor".to_string(), 1),
            ("convention".to_string(), 11),
        ]
    );
}

#[test]
fn mypy() {
    check_family(
        "mypy",
        "mypy/v1",
        &[
            "clean",
            "color",
            "columns",
            "many-errors",
            "many-errors-pretty",
            "mid",
            "mid-pretty",
            "plain",
            "pretty",
        ],
    );
    same_identities("mypy", "plain", "color");
    same_identities("mypy", "plain", "pretty");
    same_identities("mypy", "many-errors", "many-errors-pretty");
    same_identities("mypy", "mid", "mid-pretty");
    malformed("mypy", "pretty", &ctx::profiles::mypy::Mypy);
    malformed("mypy", "many-errors", &ctx::profiles::mypy::Mypy);
}

#[test]
fn ruff() {
    check_family(
        "ruff",
        "ruff/v1",
        &[
            "clean",
            "concise",
            "flake8",
            "flake8-count-statistics",
            "flake8-show-source",
            "flake8-tabulate",
            "flood",
            "flood-concise",
            "full",
            "full-color",
            "json",
            "pycodestyle",
            "pycodestyle-statistics",
        ],
    );
    // flake8 and pycodestyle print ruff's concise dialect; the digest is
    // headed by the tool that ran, and `--show-source`, `--statistics` and
    // `--count` lines are read, not left unmatched.
    same_identities("ruff", "flake8", "flake8-show-source");
    same_identities("ruff", "flake8", "flake8-count-statistics");
    same_identities("ruff", "pycodestyle", "pycodestyle-statistics");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ruff");
    for (case, tool) in [
        ("flake8-count-statistics", "flake8"),
        ("pycodestyle-statistics", "pycodestyle"),
    ] {
        let (graph, receipt) = extract(&dir.join(case));
        assert_eq!(graph.reader.tool(), Some(tool), "{case}");
        assert_eq!(receipt.lines_unmatched, 0, "{case}: {receipt:?}");
        assert!(receipt.items_announced.is_some(), "{case}: --count read");
    }
    same_identities("ruff", "full", "full-color");
    same_identities("ruff", "full", "concise");
    same_identities("ruff", "full", "grouped");
    same_identities("ruff", "full", "json");
    same_identities("ruff", "flood", "flood-concise");
    malformed("ruff", "full", &ctx::profiles::ruff::Ruff);
    malformed("ruff", "json", &ctx::profiles::ruff::Ruff);
}

#[test]
fn pyright() {
    check_family("pyright", "pyright/v1", &["clean", "json", "plain"]);
    same_identities("pyright", "plain", "json");
    malformed("pyright", "plain", &ctx::profiles::pyright::Pyright);
    malformed("pyright", "json", &ctx::profiles::pyright::Pyright);
}

/// A debugging aid, not a check: `CASE=gcc/gcc-make-k cargo test --test
/// diagnostics_extract dump -- --ignored --nocapture` lists the items.
#[test]
#[ignore]
fn dump() {
    let case = std::env::var("CASE").unwrap_or_default();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(case);
    let (graph, receipt) = extract(&dir);
    for i in &graph.items {
        eprintln!(
            "{:?} {} | {:?} | {:?} {:?}",
            i.severity, i.identity, i.summary, i.headline, i.block
        );
    }
    eprintln!("{receipt:?}");
}

#[test]
fn go_vet() {
    // go vet's lines are a Go compile error's: only staticcheck's carry a
    // mark of their own (the check code). The clean runs print nothing.
    check_family(
        "go_vet",
        "go_vet/v1",
        &["staticcheck", "staticcheck-broken", "staticcheck-many"],
    );
    malformed("go_vet", "vet", &ctx::profiles::go_vet::GoVet);
    malformed("go_vet", "staticcheck", &ctx::profiles::go_vet::GoVet);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/go_vet");
    // Two findings at one place are two items.
    let (graph, _) = extract(&dir.join("staticcheck"));
    let st1005: Vec<_> = graph
        .items
        .iter()
        .filter(|i| i.identity == "inventory/stock.go:8:16 ST1005")
        .collect();
    assert_eq!(st1005.len(), 2, "{:#?}", graph.items);
    // A package that does not type check is a finding, not silence.
    let (graph, _) = extract(&dir.join("vet-broken"));
    assert!(
        graph
            .items
            .iter()
            .any(|i| i.identity == "broken/broken.go:5:3 compile"),
        "{:#?}",
        graph.items
    );
    let (graph, receipt) = extract(&dir.join("vet"));
    assert_eq!(graph.reader.tool(), Some("go vet"));
    // go vet's `# package` headers are understood, not unread lines.
    assert_eq!(receipt.lines_unmatched, 0, "{receipt:?}");
}

/// The families checked above against their truth, one test each.
const CHECKED: &[&str] = &[
    "cargo_build",
    "tsc",
    "gcc",
    "shellcheck",
    "go_vet",
    "eslint",
    "pylint",
    "mypy",
    "ruff",
    "pyright",
];

/// Every compiler, type checker and linter the registry knows is checked
/// here, under its one name: a new diagnostics family fails this test
/// until it has its truth test above.
#[test]
fn every_registered_diagnostics_family_is_checked_here() {
    let registered: Vec<&str> = ctx::profiles::registry()
        .iter()
        .filter(|p| p.spec().group == ctx::profiles::ReceiptGroup::Diagnostics)
        .map(|p| p.family())
        .collect();
    assert_eq!(CHECKED, registered.as_slice());
}

/// The tool's own totals line (mypy's and tsc's `Found N errors…`,
/// eslint's `✖ N problems…`), as the tool printed it, is the digest's
/// second line: it says what the header's counts cannot (files checked,
/// what `--fix` would fix).
#[test]
fn the_tools_totals_line_follows_the_header() {
    use ctx::archive::Known;
    use ctx::pipeline::{self, Options, Output};
    use ctx::store::ArchiveKey;
    let mut checked = 0;
    for (family, opens) in [("mypy", "Found "), ("tsc", "Found "), ("eslint", "✖ ")] {
        for dir in fixtures(family) {
            let artifact = load(&dir);
            // The totals line as the tool wrote it: the last line that
            // opens with the tool's word and states a number after it.
            let text = String::from_utf8_lossy(artifact.bytes()).into_owned();
            let Some(totals) = text.lines().rev().find(|l| {
                let plain = ctx::normalize::line(l.as_bytes());
                plain.starts_with(opens)
                    && plain[opens.len()..].starts_with(|c: char| c.is_ascii_digit())
            }) else {
                continue;
            };
            let totals = ctx::normalize::line(totals.as_bytes()).into_owned();
            let d = pipeline::digest(&artifact, &Known(ArchiveKey([7; 32])), &Options::default())
                .unwrap();
            let Output::Digest(bytes) = d.output else {
                continue;
            };
            let digest = String::from_utf8(bytes).unwrap();
            let second = digest.lines().nth(1).unwrap_or_default();
            assert_eq!(second, totals, "{}:\n{digest}", case_name(&dir));
            checked += 1;
        }
    }
    assert!(checked >= 5, "only {checked} digests with a totals line");
}
