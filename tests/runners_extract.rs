//! The test-runner extractors against every captured fixture: classification
//! (argv and content), every failing identity of the fixture's truth file
//! (derived from the tool's machine-readable output) in the census, counts,
//! and the outcome rule. Plus adversarial input: colour, truncation, noise.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ctx::artifact::{Artifact, Exit};
use ctx::classify;
use ctx::evidence::{CoverageReceipt, EvidenceGraph, EvidenceItem, ItemKind, Outcome, Precision};
use ctx::fixture;
use ctx::profiles::{self, MatchedBy, Profile};
use serde::Deserialize;

/// The graph's census under its family's contract.
trait Census {
    fn census(&self, family: &str) -> std::vec::IntoIter<&EvidenceItem>;
}

impl Census for EvidenceGraph {
    fn census(&self, family: &str) -> std::vec::IntoIter<&EvidenceItem> {
        let contract = ctx::contract::for_family(family).unwrap();
        contract.census(self).collect::<Vec<_>>().into_iter()
    }
}

#[derive(Deserialize)]
struct Truth {
    #[serde(default)]
    counts: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    failures: Vec<TruthFailure>,
}

#[derive(Deserialize)]
struct TruthFailure {
    id: String,
    /// `session` (pytest INTERNALERROR, usage error, crash) or `crashed`
    /// (a test binary killed by a signal): the runner broke, so the report
    /// is partial by nature.
    #[serde(default)]
    kind: Option<String>,
    /// False where the tool's own report names no place for the failure
    /// (GoogleTest's `unknown file` of an escaped exception, a CTest test
    /// whose output was not shown): the item may then have no location.
    #[serde(default = "located")]
    located: bool,
}

fn located() -> bool {
    true
}

/// One family's expectations beyond the shared rules.
struct Family {
    dir: &'static str,
    version: &'static str,
    /// Cases whose first KiB alone must pick the profile (banner present).
    sniffed: &'static [&'static str],
    /// The identity rule of the profile, applied to a truth id (see each use).
    map_id: fn(&str, &str) -> String,
    /// Whether argv names the tool (a JUnit report is read with `cat`/`ctx digest`).
    by_argv: bool,
}

fn same(_case: &str, id: &str) -> String {
    id.to_string()
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Case directories of a family (those with a case.json and a truth.json).
fn cases(family: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root().join(family)) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("case.json").is_file() && p.join("truth.json").is_file())
        .collect();
    dirs.sort();
    dirs
}

fn profile(version: &str) -> &'static dyn Profile {
    profiles::registry()
        .iter()
        .copied()
        .find(|p| p.version() == version)
        .unwrap_or_else(|| panic!("{version} is not registered"))
}

fn count(graph: &EvidenceGraph, word: &str) -> Option<u64> {
    graph
        .counts
        .iter()
        .find(|(w, _)| w == word)
        .map(|(_, n)| *n)
}

/// One item as two printers of one run must agree on it.
type ItemFacts = (
    String,
    ItemKind,
    Option<String>,
    Option<ctx::evidence::Location>,
    Option<String>,
);

/// One fixture as its profile reads it, to compare two printers of one
/// run: every item's identity, kind, class, place and reason (sorted by
/// identity when `sorted`: a printer that orders them otherwise), the
/// counts, the outcome and whether the receipt says complete.
fn reading(
    version: &str,
    case: &str,
    sorted: bool,
) -> (Vec<ItemFacts>, Vec<(String, u64)>, Outcome, bool) {
    let dir = version.split('/').next().unwrap_or(version);
    let a = fixture::load(&root().join(dir).join(case)).unwrap();
    let (g, r) = profile(version).extract(&a);
    let mut items: Vec<ItemFacts> = g
        .items
        .iter()
        .map(|i| {
            (
                i.identity.clone(),
                i.kind,
                i.class.clone(),
                i.location.clone(),
                i.summary.clone(),
            )
        })
        .collect();
    if sorted {
        items.sort_by(|a, b| a.0.cmp(&b.0));
    }
    (items, g.counts, g.outcome, r.is_complete())
}

fn check_family(f: &Family) -> usize {
    let dirs = cases(f.dir);
    for dir in &dirs {
        check_case(f, dir);
    }
    dirs.len()
}

/// Cases read by what they printed: captured through a wrapper whose name
/// no family claims, or a test binary the project named as it liked.
const READ_BY_CONTENT: &[&str] = &[
    "jest/npm-test",
    "mocha/npm-test",
    "gtest/default",
    "gtest/green",
    "gtest/many",
    "gtest/crash",
    "minitest/one-file",
    "minitest/green",
];

fn check_case(f: &Family, dir: &Path) {
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("?")
        .to_string();
    let case = format!("{}/{name}", f.dir);
    let artifact = fixture::load(dir).unwrap_or_else(|e| panic!("{case}: {e}"));
    let truth: Truth = serde_json::from_slice(&std::fs::read(dir.join("truth.json")).unwrap())
        .unwrap_or_else(|e| panic!("{case}: truth.json: {e}"));

    let (chosen, how) = classify::choose(&artifact, None).unwrap();
    assert_eq!(chosen.version(), f.version, "{case}: classified as {how:?}");
    // A runner started by a wrapper (`npm test` running jest) is read by
    // what it printed: the wrapper's name is no family's command.
    let by = if f.by_argv && !READ_BY_CONTENT.contains(&case.as_str()) {
        MatchedBy::Command
    } else {
        MatchedBy::Content
    };
    assert_eq!(how.by, by, "{case}");
    let mut anonymous = artifact.clone();
    anonymous.argv.clear();
    let (sniffed, how) = classify::choose(&anonymous, None).unwrap();
    if f.sniffed.contains(&name.as_str()) {
        assert_eq!(
            sniffed.version(),
            f.version,
            "{case}: content sniffing ({how:?})"
        );
    }

    let (graph, receipt) = profile(f.version).extract(&artifact);
    let census: Vec<&str> = graph
        .census(f.version.split('/').next().unwrap())
        .map(|i| i.identity.as_str())
        .collect();
    for want in &truth.failures {
        let id = (f.map_id)(&name, &want.id);
        assert!(
            census.contains(&id.as_str()),
            "{case}: {id:?} missing from census {census:#?}"
        );
    }
    assert_eq!(
        census.len(),
        truth.failures.len(),
        "{case}: census {census:#?}"
    );
    // `failed` must agree always; `passed` wherever the tool prints it
    // (plain `go test` names no passing test).
    for word in ["failed", "passed"] {
        let want = truth
            .counts
            .get(word)
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0);
        let got = count(&graph, word);
        if word == "failed" || got.is_some() {
            assert_eq!(
                got.unwrap_or(0),
                want,
                "{case}: count {word} in {:?}",
                graph.counts
            );
        }
    }
    if artifact.exit.is_failure() {
        assert_ne!(graph.outcome, Outcome::Passed, "{case}");
    } else if artifact.exit == Exit::Code(0) && truth.failures.is_empty() {
        assert_eq!(graph.outcome, Outcome::Passed, "{case}");
    }
    let unlocated: Vec<&str> = truth
        .failures
        .iter()
        .filter(|f| !f.located)
        .map(|f| f.id.as_str())
        .collect();
    for item in graph.census(f.version.split('/').next().unwrap()) {
        // Only where the output names no file at all (a `-q` test that
        // returned `Err`, an exception GoogleTest places in `unknown
        // file`) may an item have no location.
        assert!(
            item.location.is_some()
                || item.identity.starts_with("[source unknown")
                || unlocated.contains(&item.identity.as_str()),
            "{case}: {} has no location",
            item.identity
        );
        assert!(
            item.detail.iter().map(|s| s.len()).sum::<usize>() <= 10,
            "{case}"
        );
        // A compiler's `error[E0308]: …` header names the error by code and
        // message; its location is on the next line.
        if let Some(h) = item
            .headline
            // A build failure, a compile error (`error[E0308]: …` over its
            // `--> file:line:col`) or a run that broke (`pytest: error: …`)
            // is shown by its decisive line, which need not repeat the label.
            .filter(|_| {
                !matches!(
                    item.kind,
                    ItemKind::BuildFailure | ItemKind::SuiteNotRun | ItemKind::Diagnostic
                )
            })
        {
            // The headline names the item: its whole identity, or (cargo)
            // the test path of a line that sits under its target's banner.
            let line = ctx::normalize::line(artifact.line(h.first)).into_owned();
            let name = item.fields.get("test").unwrap_or(&item.identity);
            assert!(line.contains(name.as_str()), "{case}: headline {line:?}");
        }
    }
    assert_eq!(receipt.items_parsed as usize, census.len(), "{case}");
    // A whole capture whose summary agrees with what was parsed is complete,
    // unless the runner broke before its summary.
    let broke = truth
        .failures
        .iter()
        .any(|f| matches!(f.kind.as_deref(), Some("session" | "crashed")));
    if !artifact.truncated
        && !broke
        && receipt
            .items_announced
            .is_none_or(|n| n as usize == census.len())
    {
        assert!(receipt.is_complete(), "{case}: {receipt:?}");
    }
}

/// Cuts the output at `keep` lines: what an upstream size cap does.
fn cut(artifact: &Artifact, keep: usize) -> Artifact {
    let end = artifact
        .line_start(keep + 1)
        .unwrap_or(artifact.bytes().len());
    let bytes = artifact.bytes()[..end].to_vec();
    let mut a = Artifact::from_stdout(bytes, artifact.exit, artifact.argv.clone());
    a.cwd = artifact.cwd.clone();
    a
}

fn assert_honest(what: &str, receipt: &CoverageReceipt, graph: &EvidenceGraph, exit: Exit) {
    assert!(
        receipt.truncated || matches!(receipt.precision, Precision::Degraded(_)),
        "{what}: claims completeness: {receipt:?}"
    );
    if exit.is_failure() {
        assert_ne!(graph.outcome, Outcome::Passed, "{what}");
    }
}

/// Every family's profile survives a cut mid-way and random bytes.
fn check_malformed(f: &Family) {
    let p = profile(f.version);
    for dir in cases(f.dir) {
        let a = fixture::load(&dir).unwrap();
        if a.line_count() < 4 {
            continue;
        }
        let cut = cut(&a, a.line_count() / 2);
        let (g, r) = p.extract(&cut);
        assert_honest(&format!("{} cut", dir.display()), &r, &g, a.exit);
    }
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let noise: Vec<u8> = (0..20_000)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 24) as u8
        })
        .collect();
    let a = Artifact::from_stdout(noise, Exit::Code(1), vec![]);
    let (g, r) = p.extract(&a);
    assert_honest(&format!("{} noise", f.version), &r, &g, a.exit);
}

// ---------------------------------------------------------------- pytest

const PYTEST: Family = Family {
    dir: "pytest",
    version: "pytest/v1",
    sniffed: &[
        "default",
        "verbose",
        "color",
        "collection-error",
        "xdist",
        "tb-line",
    ],
    map_id: same,
    by_argv: true,
};

#[test]
fn pytest_fixtures() {
    assert!(check_family(&PYTEST) >= 20);
}

#[test]
fn pytest_malformed() {
    check_malformed(&PYTEST);
}

#[test]
fn pytest_color_and_plain_agree() {
    assert_eq!(
        reading("pytest/v1", "color", false),
        reading("pytest/v1", "default", false)
    );
}

#[test]
fn pytest_outcomes() {
    let p = profile("pytest/v1");
    let outcome = |case: &str| {
        let a = fixture::load(&root().join("pytest").join(case)).unwrap();
        p.extract(&a).0
    };
    let g = outcome("no-tests");
    assert_eq!(g.outcome, Outcome::Error);
    assert_eq!(g.counts, vec![("tests ran".to_string(), 0)]);
    assert_eq!(outcome("collection-error").outcome, Outcome::Error);
    assert_eq!(outcome("keyboard-interrupt").outcome, Outcome::Interrupted);
    assert_eq!(outcome("exitfirst").outcome, Outcome::Failed);
    let g = outcome("default");
    assert_eq!(g.counts[0], ("failed".to_string(), 12));
    let first = g
        .census("pytest")
        .find(|i| i.identity.ends_with("test_restock_new_sku"))
        .unwrap();
    let loc = first.location.as_ref().unwrap();
    assert_eq!(
        (loc.file.as_str(), loc.line),
        ("shop/inventory.py", Some(7))
    );
    assert_eq!(first.class.as_deref(), Some("KeyError"));
}

/// pytest 9 subtests: SUBFAILED lines are census items named by node id
/// and description, beside ordinary failures; every summary word is read.
#[test]
fn pytest_subtests() {
    let p = profile("pytest/v1");
    let load = |case: &str| {
        let a = fixture::load(&root().join("pytest").join(case)).unwrap();
        p.extract(&a)
    };
    let (g, r) = load("subtests-green");
    assert_eq!(g.outcome, Outcome::Passed);
    assert_eq!(
        g.counts,
        vec![("passed".into(), 2), ("subtests passed".into(), 200)]
    );
    assert!(r.is_complete(), "{r:?}");
    let (g, r) = load("subtests-quiet");
    assert_eq!(count(&g, "subtests passed"), Some(232));
    assert!(r.is_complete(), "{r:?}");
    let it = g
        .census("pytest")
        .find(|i| i.identity == "tests/test_grid.py::TestPrimes::test_small_primes (n=9)")
        .unwrap();
    assert_eq!(
        it.fields.get("test").map(String::as_str),
        Some("tests/test_grid.py::TestPrimes::test_small_primes")
    );
    assert_eq!(it.fields.get("subtest").map(String::as_str), Some("(n=9)"));
    assert_eq!(
        it.summary.as_deref(),
        Some("AssertionError: False is not true : 9 is not prime")
    );
    let loc = it.location.as_ref().unwrap();
    assert_eq!(
        (loc.file.as_str(), loc.line),
        ("tests/test_grid.py", Some(15))
    );
    // Without a short summary the ids come from the block titles, subtests too.
    let a = fixture::load(&root().join("pytest/subtests-mixed")).unwrap();
    let at = (1..=a.line_count())
        .find(|&n| ctx::normalize::line(a.line(n)).contains("short test summary info"))
        .unwrap();
    let (g, _) = p.extract(&cut(&a, at - 1));
    assert!(
        g.census("pytest")
            .any(|i| i.identity
                == "tests/test_grid.py::TestPrimes::test_labels [label gamma] (size=5)"),
        "{:#?}",
        g.items
    );
}

/// A run that broke reads ERROR with or without its exit status, and its
/// decisive line is a census item.
#[test]
fn pytest_breakdowns() {
    let p = profile("pytest/v1");
    for (case, identity, summary) in [
        (
            "internal-error",
            "INTERNALERROR",
            "RuntimeError: report hook failed: no database connection",
        ),
        (
            "usage-error",
            "usage error",
            "unrecognized arguments: --cov",
        ),
        ("crash", "Fatal Python error", "Segmentation fault"),
    ] {
        let mut a = fixture::load(&root().join("pytest").join(case)).unwrap();
        for exit in [a.exit, Exit::Unknown] {
            a.exit = exit;
            let (g, _) = p.extract(&a);
            assert_eq!(g.outcome, Outcome::Error, "{case} {exit:?}");
            let it = g.census("pytest").find(|i| i.identity == identity).unwrap();
            assert_eq!(it.summary.as_deref(), Some(summary), "{case}");
        }
    }
    let a = fixture::load(&root().join("pytest/internal-error")).unwrap();
    let (g, _) = p.extract(&a);
    let loc = g.census("pytest").next().unwrap().location.clone().unwrap();
    assert_eq!((loc.file.as_str(), loc.line), ("conftest.py", Some(4)));
    let a = fixture::load(&root().join("pytest/crash")).unwrap();
    let (g, _) = p.extract(&a);
    let loc = g.census("pytest").next().unwrap().location.clone().unwrap();
    assert_eq!(
        (loc.file.as_str(), loc.line),
        ("tests/test_native_crash.py", Some(10))
    );
}

// ---------------------------------------------------------------- cargo test

const CARGO_TEST: Family = Family {
    dir: "cargo_test",
    version: "cargo_test/v1",
    sniffed: &["quiet", "should-panic", "backtrace"],
    // truth.py names each failure as the raw output supports it (see its
    // docstring): the source from cargo's `Running` line, or with `-q` the
    // test's own frame or `panicked at` file, else `[source unknown: …]`.
    map_id: same,
    by_argv: true,
};

#[test]
fn cargo_test_fixtures() {
    assert!(check_family(&CARGO_TEST) >= 10);
}

#[test]
fn cargo_test_malformed() {
    check_malformed(&CARGO_TEST);
}

#[test]
fn cargo_test_build_failure_is_not_zero_failed() {
    let a = fixture::load(&root().join("cargo_test/build-failed")).unwrap();
    let (g, r) = profile("cargo_test/v1").extract(&a);
    assert_eq!(g.outcome, Outcome::Error);
    // Each rustc error is a census item of its own, before its target.
    let ids: Vec<&str> = g
        .census("cargo_test")
        .map(|i| i.identity.as_str())
        .collect();
    assert_eq!(
        ids,
        [
            "tests/accounts.rs:6:15 E0308",
            "tests/accounts.rs:14:7 E0599",
            "tests/accounts.rs:15:18 E0599",
            "broken (test \"accounts\")"
        ]
    );
    let item = g.census("cargo_test").last().unwrap();
    assert_eq!(item.class.as_deref(), Some("E0308"));
    let loc = item.location.as_ref().unwrap();
    assert_eq!(
        (loc.file.as_str(), loc.line),
        ("tests/accounts.rs", Some(6))
    );
    assert!(r.is_complete(), "{r:?}");
}

/// 30 mismatched types in one test target: 30 census items beside the
/// target, none folded into another's detail, and cargo's own count
/// ("due to 30 previous errors") agrees with what was parsed.
#[test]
fn cargo_test_every_compile_error_is_an_identity() {
    let a = fixture::load(&root().join("cargo_test/build-failed-many")).unwrap();
    let (g, r) = profile("cargo_test/v1").extract(&a);
    let errors: Vec<_> = g
        .census("cargo_test")
        .filter(|i| i.kind == ItemKind::Diagnostic)
        .collect();
    assert_eq!(errors.len(), 30);
    assert_eq!(errors[0].identity, "tests/sizes.rs:5:20 E0308");
    assert_eq!(errors[29].identity, "tests/sizes.rs:179:20 E0308");
    assert!(
        errors.iter().all(
            |e| e.fields.get("target").map(String::as_str) == Some("mismatch (test \"sizes\")")
        )
    );
    assert_eq!(r.items_announced, Some(31));
    assert!(r.is_complete(), "{r:?}");
    assert_eq!(g.outcome, Outcome::Error);
}

/// A test binary killed by SIGABRT: a census item named by its target, and
/// ERROR with or without the exit status (the tests it ran have no verdict).
#[test]
fn cargo_test_killed_binary_is_an_error() {
    let mut a = fixture::load(&root().join("cargo_test/crashed")).unwrap();
    for exit in [a.exit, Exit::Unknown] {
        a.exit = exit;
        let (g, _) = profile("cargo_test/v1").extract(&a);
        assert_eq!(g.outcome, Outcome::Error, "{exit:?}");
        let it = g.census("cargo_test").next().unwrap();
        assert_eq!(it.identity, "crashy");
        assert_eq!(it.class.as_deref(), Some("signal"));
        assert_eq!(
            it.summary.as_deref(),
            Some("signal: 6, SIGABRT: process abort signal")
        );
    }
}

#[test]
fn cargo_test_panic_facts() {
    let a = fixture::load(&root().join("cargo_test/no-fail-fast")).unwrap();
    let (g, _) = profile("cargo_test/v1").extract(&a);
    let find = |id: &str| g.census("cargo_test").find(|i| i.identity == id).unwrap();
    let it = find("tests/integration.rs totals_match");
    let loc = it.location.as_ref().unwrap();
    assert_eq!(
        (loc.file.as_str(), loc.line),
        ("tests/integration.rs", Some(6))
    );
    assert_eq!(it.class.as_deref(), Some("assertion"));
    assert_eq!(
        find("src/lib.rs tests::withdraw_exact_should_panic")
            .class
            .as_deref(),
        Some("should_panic")
    );
    assert_eq!(g.counts[0], ("failed".to_string(), 11));
}

/// Every census line names the test binary's source; in a workspace the
/// package too; with `-q` the source comes from the output itself or is
/// declared unknown; two tests of one name in two binaries stay apart.
#[test]
fn cargo_test_census_names_the_suite() {
    let p = profile("cargo_test/v1");
    let census = |case: &str| {
        let a = fixture::load(&root().join("cargo_test").join(case)).unwrap();
        let (g, _) = p.extract(&a);
        g.census("cargo_test")
            .map(|i| {
                let loc = i.location.as_ref().map(|l| (l.file.clone(), l.line));
                (i.identity.clone(), loc, i.summary.clone())
            })
            .collect::<Vec<_>>()
    };
    let ids = |case: &str| census(case).into_iter().map(|c| c.0).collect::<Vec<_>>();
    let default = ids("suites");
    for want in [
        "arith src/lib.rs tests::same_name",
        "arith tests/arith.rs same_name",
        "arith tests/overflow.rs same_name",
        "geom src/lib.rs tests::same_name",
        "geom tests/arith.rs same_name",
        "Doc-tests geom geom/src/lib.rs - area (line 5)",
    ] {
        assert!(
            default.iter().any(|i| i == want),
            "{want:?} in {default:#?}"
        );
    }
    let mut unique = default.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), default.len(), "{default:#?}");
    // A panic inside the standard library: the test's source is the address.
    let all = census("suites");
    let cap = all
        .iter()
        .find(|c| c.0 == "arith tests/arith.rs capacity")
        .unwrap();
    assert_eq!(cap.1, Some(("tests/arith.rs".to_string(), None)));
    assert_eq!(cap.2.as_deref(), Some("capacity overflow"));
    // A test that returns Err: its error is the reason.
    let err = all.iter().find(|c| c.0.ends_with(" returns_err")).unwrap();
    assert_eq!(err.2.as_deref(), Some("Error: \"div_round(1, 3) gave 0\""));

    let quiet = ids("suites-quiet");
    for want in [
        "arith/tests/arith.rs same_name",
        "geom/tests/arith.rs same_name",
        "arith/tests/overflow.rs same_name",
        "geom/src/lib.rs tests::same_name",
        // panicked in a helper file: not the binary's source, so unknown
        "[source unknown: -p arith --test arith] sum_is_even",
        "[source unknown: -p arith --test arith] returns_err",
        "Doc-tests arith/src/lib.rs - div_round (line 14)",
    ] {
        assert!(quiet.iter().any(|i| i == want), "{want:?} in {quiet:#?}");
    }
    // With a backtrace, the test's own frame names its file.
    let traced = ids("suites-quiet-backtrace");
    assert!(
        traced
            .iter()
            .any(|i| i == "arith tests/arith.rs sum_is_even"),
        "{traced:#?}"
    );
}

// ---------------------------------------------------------------- go test

const GO_TEST: Family = Family {
    dir: "go_test",
    version: "go_test/v1",
    sniffed: &["verbose", "json", "subtests", "panic-verbose"],
    map_id: same,
    by_argv: true,
};

#[test]
fn go_test_fixtures() {
    assert!(check_family(&GO_TEST) >= 10);
}

#[test]
fn go_test_malformed() {
    check_malformed(&GO_TEST);
}

#[test]
fn go_test_facts() {
    let p = profile("go_test/v1");
    let load = |case: &str| {
        p.extract(&fixture::load(&root().join("go_test").join(case)).unwrap())
            .0
    };
    let g = load("plain");
    let find = |id: &str| {
        g.census("go_test")
            .find(|i| i.identity == id)
            .unwrap()
            .clone()
    };
    let it = find("example.com/shop/cart TestDiscount/half/price");
    let loc = it.location.unwrap();
    assert_eq!((loc.file.as_str(), loc.line), ("cart_test.go", Some(25)));
    let it = find("example.com/shop/parse TestFieldMissing");
    assert_eq!(it.class.as_deref(), Some("panic"));
    assert_eq!(it.location.unwrap().file, "parse/parse.go");
    assert_eq!(
        find("example.com/shop/examples ExampleSum")
            .class
            .as_deref(),
        Some("example")
    );
    assert_eq!(find("example.com/shop/broken").kind, ItemKind::BuildFailure);
    let g = load("race");
    assert_eq!(
        g.census("go_test").next().unwrap().class.as_deref(),
        Some("race")
    );
    assert_eq!(load("build-failed").outcome, Outcome::Error);
    // -v buffers messages before the verdict; they still reach the item.
    let g = load("verbose");
    let it = g
        .census("go_test")
        .find(|i| i.identity.ends_with("TestLast"))
        .unwrap();
    assert_eq!(it.location.as_ref().unwrap().line, Some(34));
}

/// Packages that did not build lead the census: each `# pkg` group (named
/// by its header), each compiler or vet line (named `file:line:col`, with
/// its package), then packages whose dependency did not build; a
/// `[setup failed]` package keeps that class.
#[test]
fn go_test_build_failures_lead_the_census() {
    let p = profile("go_test/v1");
    let a = fixture::load(&root().join("go_test/build-mixed")).unwrap();
    let (g, r) = p.extract(&a);
    assert!(r.is_complete(), "{r:?}");
    let census: Vec<_> = g.census("go_test").collect();
    let first_test = census
        .iter()
        .position(|i| i.kind == ItemKind::FailingTest)
        .unwrap();
    assert!(
        census[first_test..]
            .iter()
            .all(|i| i.kind == ItemKind::FailingTest),
        "build items after a failing test"
    );
    let find = |id: &str| census.iter().find(|i| i.identity == id).unwrap();
    let setup = find("example.com/mixed/setupbad");
    assert_eq!(setup.kind, ItemKind::BuildFailure);
    assert_eq!(setup.class.as_deref(), Some("setup failed"));
    let dep = find("dep/dep.go:3:27");
    assert_eq!(dep.kind, ItemKind::Diagnostic);
    assert_eq!(
        dep.fields.get("package").map(String::as_str),
        Some("example.com/mixed/dep")
    );
    assert!(
        dep.summary
            .as_deref()
            .unwrap()
            .starts_with("cannot use \"seven\"")
    );
    // go continues a message on tab-indented lines: they are its detail.
    let call = find("many/many.go:18:9");
    assert_eq!(call.detail.iter().map(|s| s.len()).sum::<usize>(), 3);
    assert_eq!(find("example.com/mixed/user1").kind, ItemKind::BuildFailure);
    let vet = find("vetbad/vetbad.go:6:9");
    assert!(
        vet.summary
            .as_deref()
            .unwrap()
            .contains("wrong type string")
    );
    assert_eq!(g.outcome, Outcome::Failed);
    // Only a build failure: the run tested nothing.
    let (g, _) = p.extract(&fixture::load(&root().join("go_test/vet-failed")).unwrap());
    assert_eq!(g.outcome, Outcome::Error);
    assert_eq!(g.census("go_test").count(), 2);
}

// ---------------------------------------------------------------- jest, vitest

const JEST: Family = Family {
    dir: "jest",
    version: "jest/v1",
    sniffed: &["default", "verbose", "diff", "npm-test"],
    map_id: same,
    by_argv: true,
};

const VITEST: Family = Family {
    dir: "vitest",
    version: "vitest/v1",
    sniffed: &["default", "verbose", "diff"],
    map_id: same,
    by_argv: true,
};

/// A test file that does not parse never ran: it is a census item whose
/// census line carries the parse error and where it is, not `FAIL <file>`.
#[test]
fn jest_syntax_error_is_the_census() {
    let a = fixture::load(&root().join("jest/syntax-error")).unwrap();
    let (g, _) = profile("jest/v1").extract(&a);
    let item = g.census("jest").next().unwrap();
    assert_eq!(item.kind, ItemKind::SuiteNotRun);
    assert_eq!(item.identity, "broken/receipt.check.js");
    assert!(item.headline.is_none(), "the FAIL line is a status word");
    assert!(
        item.summary
            .as_deref()
            .unwrap()
            .starts_with("SyntaxError: "),
        "{:?}",
        item.summary
    );
    let loc = item.location.as_ref().unwrap();
    assert_eq!(
        (loc.file.as_str(), loc.line, loc.column),
        ("broken/receipt.check.js", Some(5), Some(52))
    );
}

/// vitest: a test file that does not parse (vite's Rollup parse failure)
/// is a census item carrying the error and its `At file:` location.
#[test]
fn vitest_syntax_error_is_the_census() {
    let a = fixture::load(&root().join("vitest/syntax-error")).unwrap();
    let (g, _) = profile("vitest/v1").extract(&a);
    let item = g.census("vitest").next().unwrap();
    assert_eq!(item.kind, ItemKind::SuiteNotRun);
    assert!(item.headline.is_none());
    assert!(
        item.summary.as_deref().unwrap().contains("Parse failure"),
        "{:?}",
        item.summary
    );
    let loc = item.location.as_ref().unwrap();
    assert_eq!(
        (loc.file.as_str(), loc.line, loc.column),
        ("broken/receipt.check.js", Some(6), Some(52))
    );
}

#[test]
fn jest_fixtures() {
    assert!(check_family(&JEST) >= 8);
}

#[test]
fn jest_malformed() {
    check_malformed(&JEST);
}

#[test]
fn vitest_fixtures() {
    assert!(check_family(&VITEST) >= 6);
}

#[test]
fn vitest_malformed() {
    check_malformed(&VITEST);
}

#[test]
fn jestlike_classes_and_locations() {
    let load = |dir: &str, case: &str, version: &str| {
        profile(version)
            .extract(&fixture::load(&root().join(dir).join(case)).unwrap())
            .0
    };
    let g = load("jest", "default", "jest/v1");
    let class = |id: &str| {
        g.census("jest")
            .find(|i| i.identity == id)
            .and_then(|i| i.class.clone())
    };
    assert_eq!(
        class("__tests__/timeout.test.js > rates > EUR rate resolves").as_deref(),
        Some("timeout")
    );
    assert_eq!(
        class("__tests__/snapshot.test.js > receipt layout").as_deref(),
        Some("snapshot")
    );
    assert_eq!(
        class("__tests__/inventory.test.js").as_deref(),
        Some("module not found")
    );
    let it = g
        .census("jest")
        .find(|i| i.identity.ends_with("ten percent off"))
        .unwrap();
    let loc = it.location.as_ref().unwrap();
    assert_eq!(
        (loc.file.as_str(), loc.line),
        ("__tests__/cart.test.js", Some(15))
    );
    let g = load("vitest", "default", "vitest/v1");
    let it = g
        .census("jest")
        .find(|i| i.identity.ends_with("ten percent off"))
        .unwrap();
    let loc = it.location.as_ref().unwrap();
    assert_eq!(
        (loc.file.as_str(), loc.line),
        ("test/cart.test.js", Some(16))
    );
    assert_eq!(it.class.as_deref(), Some("assertion"));
}

// ---------------------------------------------------------------- junit

const JUNIT: Family = Family {
    dir: "junit",
    version: "junit/v1",
    sniffed: &[
        "pytest-default",
        "jest-junit",
        "pytest-many-failures",
        "nunit-pytest",
        "nunit-pytest-many",
        "xunit-mocha",
        "xunit-mocha-many",
        "trx-jest",
    ],
    map_id: same,
    by_argv: false,
};

/// A report read from a file (`cat report.xml`) carries the reader's exit
/// status, not the run's: a report with failures is FAILED, one without is
/// PASSED, whatever `cat` returned.
#[test]
fn a_report_read_with_cat_is_judged_by_its_cases() {
    let p = profile("junit/v1");
    for case in ["pytest-default", "jest-junit", "pytest-collection-error"] {
        let a = fixture::load(&root().join("junit").join(case)).unwrap();
        assert_eq!(a.argv.first().map(String::as_str), Some("cat"), "{case}");
        let (g, _) = p.extract(&a);
        assert_eq!(g.outcome, Outcome::Failed, "{case}");
    }
    let a = fixture::load(&root().join("junit/pytest-large-green")).unwrap();
    assert_eq!(p.extract(&a).0.outcome, Outcome::Passed);
}

/// JUnit's kin (NUnit 3, xUnit.net v2, TRX) are read by each case's
/// verdict: pytest-nunit writes an
/// empty `<failure>` under every passing case and `result="Passed"` on a
/// run with fifteen failures; neither makes a failure or a green run.
#[test]
fn nunit_and_xunit_reports_are_read_by_their_verdicts() {
    let p = profile("junit/v1");
    for (case, failures, passed) in [
        ("nunit-pytest", 15, 32),
        ("xunit-mocha", 8, 2),
        ("trx-jest", 8, 12),
    ] {
        let a = fixture::load(&root().join("junit").join(case)).unwrap();
        let (g, r) = p.extract(&a);
        assert_eq!(g.items.len(), failures, "{case}");
        assert_eq!(count(&g, "passed"), Some(passed), "{case}");
        // Read with `cat`, whose exit 0 is the reader's, not the run's: the
        // report's own verdicts decide.
        assert_eq!(g.outcome, Outcome::Failed, "{case}");
        assert!(r.is_complete(), "{case}: {r:?}");
    }
    let a = fixture::load(&root().join("junit/xunit-mocha")).unwrap();
    let (g, _) = p.extract(&a);
    let hook = g
        .items
        .iter()
        .find(|i| i.identity == r#"inventory report "before all" hook for "lists every sku""#)
        .unwrap();
    assert_eq!(hook.class.as_deref(), Some("Error"));
    assert_eq!(hook.summary.as_deref(), Some("report template missing"));
    let at = hook.location.as_ref().unwrap();
    assert_eq!((at.file.as_str(), at.line), ("test/sku.spec.js", Some(30)));
}

#[test]
fn junit_fixtures() {
    assert!(check_family(&JUNIT) >= 5);
}

#[test]
fn junit_malformed() {
    check_malformed(&JUNIT);
}

/// A module pytest could not import is reported as `message="collection
/// failure"`: the census carries the exception and the file instead.
#[test]
fn junit_collection_errors_carry_their_exception() {
    let a = fixture::load(&root().join("junit/pytest-collection-error")).unwrap();
    let (g, _) = profile("junit/v1").extract(&a);
    let find = |id: &str| g.census("junit").find(|i| i.identity == id).unwrap();
    assert_eq!(
        find("tests.test_missing_module").summary.as_deref(),
        Some("ModuleNotFoundError: No module named 'shop_utils'")
    );
    let syntax = find("tests.test_syntax");
    assert_eq!(
        syntax.summary.as_deref(),
        Some("SyntaxError: '[' was never closed")
    );
    let loc = syntax.location.as_ref().unwrap();
    assert!(loc.file.ends_with("tests/test_syntax.py"), "{loc:?}");
    assert_eq!(loc.line, Some(2));
}

#[test]
fn junit_spans_point_at_the_testcase() {
    let a = fixture::load(&root().join("junit/pytest-xunit1")).unwrap();
    let (g, r) = profile("junit/v1").extract(&a);
    assert!(r.is_complete(), "{r:?}");
    for item in g.census("junit") {
        let block = item.block.unwrap();
        let first = ctx::normalize::line(a.line(block.first)).into_owned();
        assert!(first.contains("<testcase"), "{}: {first}", item.identity);
        assert!(
            item.location.as_ref().unwrap().line.is_some(),
            "{}",
            item.identity
        );
    }
    let errors = g
        .census("junit")
        .filter(|i| i.kind == ItemKind::TestError)
        .count();
    assert_eq!(errors, 3);
}

/// `CASE=pytest/default cargo test --test runners_extract dump -- --ignored --nocapture`
/// prints what the chosen profile extracts, for eyeballing a new fixture.
#[test]
#[ignore]
fn dump() {
    let case = std::env::var("CASE").unwrap_or_else(|_| "pytest/default".into());
    let a = fixture::load(&root().join(&case)).unwrap();
    let (p, how) = classify::choose(&a, None).unwrap();
    let (g, r) = p.extract(&a);
    println!(
        "{} {how:?}\n{:?} {:?}\n{r:?}",
        p.version(),
        g.outcome,
        g.counts
    );
    for i in &g.items {
        let loc = i
            .location
            .as_ref()
            .map(|l| format!("{}:{:?}", l.file, l.line));
        println!(
            "  {:?} {} | {:?} | {:?} | {loc:?}",
            i.kind, i.identity, i.class, i.summary
        );
        println!(
            "      head {:?} detail {:?} block {:?}",
            i.headline, i.detail, i.block
        );
    }
}

// -------------------------------------------------------------- unittest

const UNITTEST: Family = Family {
    dir: "unittest",
    version: "unittest/v1",
    sniffed: &[
        "default",
        "verbose",
        "quiet",
        "buffer",
        "py310",
        "py310-verbose",
        "py312-durations",
        "many-failures",
        "green",
        "green-verbose",
        "django",
        "django-verbose",
    ],
    map_id: same,
    by_argv: true,
};

#[test]
fn unittest_fixtures() {
    assert!(check_family(&UNITTEST) >= 12);
}

#[test]
fn unittest_malformed() {
    check_malformed(&UNITTEST);
}

/// The same tests under CPython 3.10 (class only in the header) and 3.11
/// (the whole id): the same identities, kinds, locations and reasons.
#[test]
fn unittest_versions_agree() {
    let p = profile("unittest/v1");
    let items = |case: &str| {
        let a = fixture::load(&root().join("unittest").join(case)).unwrap();
        let (g, r) = p.extract(&a);
        assert!(r.is_complete(), "{case}: {r:?}");
        let mut items: Vec<_> = g
            .items
            .iter()
            .map(|i| {
                (
                    i.identity.clone(),
                    i.kind,
                    i.location.clone(),
                    i.summary.clone(),
                )
            })
            .collect();
        items.sort_by(|a, b| a.0.cmp(&b.0));
        items
    };
    let new = items("default");
    assert_eq!(new.len(), 18);
    // 3.10 names an unexpected success only in its verbose line.
    assert_eq!(items("py310-verbose"), new);
    assert_eq!(items("verbose"), new);
    assert_eq!(items("buffer"), new);
    let without_marks: Vec<_> = new
        .iter()
        .filter(|i| !i.0.contains("test_marks"))
        .cloned()
        .collect();
    assert_eq!(items("py310"), without_marks);
}

#[test]
fn unittest_items_say_where_and_why() {
    let p = profile("unittest/v1");
    let a = fixture::load(&root().join("unittest/default")).unwrap();
    let (g, _) = p.extract(&a);
    let find = |id: &str| {
        g.items
            .iter()
            .find(|i| i.identity == id)
            .unwrap_or_else(|| panic!("{id} missing: {:#?}", g.items))
    };
    let broken = find("tests.test_broken");
    assert_eq!(broken.kind, ItemKind::SuiteNotRun);
    let loc = broken.location.as_ref().unwrap();
    assert_eq!(
        (loc.file.as_str(), loc.line),
        ("tests/test_broken.py", Some(3))
    );
    assert_eq!(
        broken.summary.as_deref(),
        Some("ModuleNotFoundError: No module named 'shopkit.shipping'")
    );
    // An error raised in the code under test is placed where it was raised.
    let empty = find("tests.test_import.TestCsvImport.test_import_empty_file");
    assert_eq!(empty.kind, ItemKind::TestError);
    let loc = empty.location.as_ref().unwrap();
    assert_eq!(
        (loc.file.as_str(), loc.line),
        ("shopkit/importer.py", Some(8))
    );
    assert_eq!(empty.class.as_deref(), Some("StopIteration"));
    // A chained exception: the one raised last is the reason.
    let chained = find("tests.test_import.TestCsvImport.test_chained");
    assert_eq!(
        chained.summary.as_deref(),
        Some("RuntimeError: could not read the quantity column")
    );
    assert_eq!(
        find("tests.test_grid.TestPrimes.test_composites (n=6)").kind,
        ItemKind::FailingTest
    );
    assert_eq!(
        find("setUpClass (tests.test_db.TestDatabase)").kind,
        ItemKind::TestError
    );
    let unexpected = find("tests.test_marks.TestMarks.test_fixed_already");
    assert_eq!(unexpected.class.as_deref(), Some("unexpected success"));
    assert_eq!(
        unexpected.location.as_ref().unwrap().file,
        "tests/test_marks.py"
    );
    assert_eq!(
        g.counts,
        vec![
            ("failed".to_string(), 9),
            ("errors".to_string(), 8),
            ("unexpected success".to_string(), 1),
            ("skipped".to_string(), 2),
            ("expected failure".to_string(), 1),
            ("tests ran".to_string(), 24),
        ]
    );
    let (g, _) = p.extract(&fixture::load(&root().join("unittest/no-tests")).unwrap());
    assert_eq!(g.outcome, Outcome::Error);
    let (g, _) = p.extract(&fixture::load(&root().join("unittest/django")).unwrap());
    assert_eq!(g.reader.tool(), Some("manage.py test"));
    assert_eq!(g.outcome, Outcome::Failed);
}

// ---------------------------------------------------------------- maven

const MAVEN: Family = Family {
    dir: "maven",
    version: "maven/v1",
    sniffed: &[
        "compile-errors",
        "test-failures",
        "test-failures-color",
        "test-failures-full-trace",
        "green",
        "many-failures",
        "reactor-fail-fast",
        "reactor-fail-at-end",
        "javac-errors",
    ],
    map_id: same,
    by_argv: true,
};

#[test]
fn maven_fixtures() {
    assert!(check_family(&MAVEN) >= 10);
}

#[test]
fn maven_malformed() {
    check_malformed(&MAVEN);
}

/// Where and why: the assertion or exception, the end of its cause chain,
/// the first frame in the project's code; javac's missing symbol; the
/// modules that failed and those the reactor skipped.
#[test]
fn maven_items_say_where_and_why() {
    let p = profile("maven/v1");
    let load = |case: &str| {
        p.extract(&fixture::load(&root().join("maven").join(case)).unwrap())
            .0
    };
    let find = |g: &EvidenceGraph, id: &str| {
        g.items
            .iter()
            .find(|i| i.identity == id)
            .cloned()
            .unwrap_or_else(|| panic!("{id} missing: {:#?}", g.items))
    };
    let g = load("test-failures-full-trace");
    let npe = find(&g, "com.example.shop.CartTest.unknownItemCostsNothing");
    assert_eq!(npe.kind, ItemKind::TestError);
    assert_eq!(npe.class.as_deref(), Some("java.lang.NullPointerException"));
    let loc = npe.location.unwrap();
    // Raised in the code under test, not in the test.
    assert_eq!(
        (loc.file.as_str(), loc.line),
        ("com/example/shop/Catalogue.java", Some(35))
    );
    let chained = find(
        &g,
        "com.example.shop.CatalogueTest.parsesPricesWithCurrency",
    );
    assert_eq!(
        chained.fields.get("label").map(String::as_str),
        Some("caused by java.lang.NumberFormatException: For input string: \"0.45 EUR\"")
    );
    let g = load("test-failures");
    let failed = find(&g, "com.example.shop.CartTest.countsItems");
    assert_eq!(failed.kind, ItemKind::FailingTest);
    assert_eq!(
        failed.summary.as_deref(),
        Some("java.lang.AssertionError: expected:<3> but was:<2>")
    );
    let loc = failed.location.unwrap();
    assert_eq!(
        (loc.file.as_str(), loc.line),
        ("com/example/shop/CartTest.java", Some(22))
    );
    let g = load("compile-errors");
    let sym = find(&g, "src/main/java/com/example/calc/Calculator.java:16:13");
    assert_eq!(sym.summary.as_deref(), Some("cannot find symbol"));
    assert_eq!(
        sym.fields.get("label").map(String::as_str),
        Some("variable totl")
    );
    assert_eq!(g.outcome, Outcome::Failed);
    let g = load("javac-errors");
    let sym = find(&g, "src/com/example/tally/Main.java:13:9");
    assert_eq!(
        sym.fields.get("label").map(String::as_str),
        Some("variable Printer")
    );
    assert_eq!(g.reader.tool(), Some("javac"));
    let g = load("reactor-fail-at-end");
    assert_eq!(find(&g, "web").kind, ItemKind::SuiteNotRun);
    assert_eq!(
        find(&g, "tools maven-compiler-plugin:compile").kind,
        ItemKind::BuildFailure
    );
    assert_eq!(
        find(&g, "service maven-surefire-plugin:test")
            .summary
            .as_deref(),
        Some("There are test failures.")
    );
    let g = load("green");
    assert_eq!(g.outcome, Outcome::Passed);
    assert!(g.counts.contains(&("tests run".to_string(), 4)));
}

// ----------------------------------------------------------------- gtest

const GTEST: Family = Family {
    dir: "gtest",
    version: "gtest/v1",
    // `--gtest_brief=1` prints no banner; CTest's tally is at the end.
    sniffed: &["default", "filtered", "green", "many", "crash"],
    map_id: same,
    by_argv: true,
};

#[test]
fn gtest_fixtures() {
    assert!(check_family(&GTEST) >= 8);
}

#[test]
fn gtest_malformed() {
    check_malformed(&GTEST);
}

/// The brief printer and the default one are one run: the same failures,
/// places, reasons and counts.
#[test]
fn gtest_printers_agree() {
    assert_eq!(
        reading("gtest/v1", "brief", false),
        reading("gtest/v1", "default", false)
    );
}

#[test]
fn gtest_items_say_where_and_why() {
    let p = profile("gtest/v1");
    let item = |case: &str, id: &str| {
        let a = fixture::load(&root().join("gtest").join(case)).unwrap();
        let (g, _) = p.extract(&a);
        g.items
            .into_iter()
            .find(|i| i.identity == id)
            .unwrap_or_else(|| panic!("{case}: {id} not read"))
    };
    let eq = item("default", "MoneyTest.ParsesOneDecimal");
    let at = eq.location.as_ref().unwrap();
    assert_eq!(
        (at.file.as_str(), at.line),
        ("test/money_test.cpp", Some(15))
    );
    // The operands and the test's own message, not `Expected equality of
    // these values:` alone.
    assert_eq!(
        eq.summary.as_deref(),
        Some(r#"parse_cents("3.5") (305) != 350; "3.5" is three dollars fifty"#)
    );
    let thrown = item("default", "MoneyTest.SplitsIntoZeroWays");
    assert!(thrown.location.is_none());
    assert_eq!(thrown.class.as_deref(), Some("exception"));
    assert!(thrown.summary.unwrap().contains("split into zero ways"));
    // A value-parameterized case keeps its index; a typed test its type's.
    item("default", "Sweep/NickelSweep.RoundsHalfUp/3");
    item("default", "AmountTest/0.RoundsThird");
    // CTest: the verdict is the class; under --output-on-failure the
    // place and reason come from GoogleTest's lines under it.
    let timeout = item("ctest-default", "MoneyTest.FoldsSlowly");
    assert_eq!(timeout.class.as_deref(), Some("Timeout"));
    let segv = item("ctest-default", "CrashTest.ReadsThroughNull");
    assert_eq!(segv.class.as_deref(), Some("SegFault"));
    let shown = item("ctest-output-on-failure", "AmountTest.RoundsThird<int>");
    assert_eq!(shown.location.as_ref().and_then(|l| l.line), Some(50));
    assert_eq!(
        shown.summary.as_deref(),
        Some("round_cents(static_cast<double>(third)) (0) != 33")
    );
    // A test that could not run says why, as CTest did before its result.
    let a = fixture::load(&root().join("text/ctest-failures")).unwrap();
    let (g, _) = p.extract(&a);
    let missing = g
        .items
        .iter()
        .find(|i| i.identity == "io_roundtrip")
        .unwrap();
    assert_eq!(missing.kind, ItemKind::SuiteNotRun);
    assert_eq!(
        missing.summary.as_deref(),
        Some("Could not find executable io_test")
    );
    // The binary that died: the test it died in, as an error.
    let died = item("crash", "CrashTest.ReadsThroughNull");
    assert_eq!(died.kind, ItemKind::TestError);
    assert_eq!(died.class.as_deref(), Some("crashed"));
}

/// Neither a disabled nor a skipped test is a failure, under either
/// runner; CTest's own tally counts timeouts and crashes as failed.
#[test]
fn gtest_skips_are_no_failures() {
    let p = profile("gtest/v1");
    for case in ["default", "ctest-default", "ctest-output-on-failure"] {
        let a = fixture::load(&root().join("gtest").join(case)).unwrap();
        let (g, _) = p.extract(&a);
        for skipped in ["ConvertsCurrency", "SplitsRemainder"] {
            assert!(
                !g.items.iter().any(|i| i.identity.contains(skipped)),
                "{case}: {skipped} read as a failure"
            );
        }
    }
}

// -------------------------------------------------------------- minitest

const MINITEST: Family = Family {
    dir: "minitest",
    version: "minitest/v1",
    sniffed: &["rake-default", "verbose", "one-file", "green", "many"],
    map_id: same,
    by_argv: true,
};

#[test]
fn minitest_fixtures() {
    assert!(check_family(&MINITEST) >= 5);
}

#[test]
fn minitest_malformed() {
    check_malformed(&MINITEST);
}

/// `-v` prints one line per test and a block for each skip; the failures,
/// their places and reasons, and the counts are the default reporter's.
#[test]
fn minitest_reporters_agree() {
    // Two runs: a `NoMethodError`'s message quotes the object's address,
    // which differs between them; the rest is one run's.
    let unaddressed = |case: &str| {
        let (items, counts, outcome, complete) = reading("minitest/v1", case, true);
        let items: Vec<_> = items
            .into_iter()
            .map(|(id, kind, class, at, reason)| {
                let reason = reason.map(|r| r.split("#<").next().unwrap_or("").to_string());
                (id, kind, class, at, reason)
            })
            .collect();
        (items, counts, outcome, complete)
    };
    assert_eq!(unaddressed("verbose"), unaddressed("rake-default"));
}

#[test]
fn minitest_items_say_where_and_why() {
    let p = profile("minitest/v1");
    let a = fixture::load(&root().join("minitest/rake-default")).unwrap();
    let (g, _) = p.extract(&a);
    let item = |id: &str| {
        g.items
            .iter()
            .find(|i| i.identity == id)
            .unwrap_or_else(|| panic!("{id} not read"))
    };
    let failure = item("CartTest#test_tax_rounds_to_nearest");
    assert_eq!(failure.kind, ItemKind::FailingTest);
    let at = failure.location.as_ref().unwrap();
    assert_eq!((at.file.as_str(), at.line), ("test/cart_test.rb", Some(17)));
    assert_eq!(failure.summary.as_deref(), Some("Expected: 15, Actual: 14"));
    // An error names no `[file:line]`: its place is the first frame of
    // the project's own, its class the exception's.
    let error = item("InventoryTest#test_unavailable_for_unknown");
    assert_eq!(error.kind, ItemKind::TestError);
    assert_eq!(error.class.as_deref(), Some("KeyError"));
    let at = error.location.as_ref().unwrap();
    assert_eq!((at.file.as_str(), at.line), ("lib/inventory.rb", Some(8)));
    // A spec-style test keeps its whole description.
    item("Inventory::#level#test_0001_reports what is left after a reservation");
    // The skip is no failure.
    assert!(!g.items.iter().any(|i| i.identity.contains("coupons")));
}

// --------------------------------------------------------------- phpunit

const PHPUNIT: Family = Family {
    dir: "phpunit",
    version: "phpunit/v1",
    sniffed: &["default", "verbose", "one-file", "green", "many"],
    map_id: same,
    by_argv: true,
};

#[test]
fn phpunit_fixtures() {
    assert!(check_family(&PHPUNIT) >= 5);
}

#[test]
fn phpunit_malformed() {
    check_malformed(&PHPUNIT);
}

/// `--verbose` adds the skipped and incomplete sections; the failures,
/// their places and reasons, and the counts are the default printer's.
#[test]
fn phpunit_printers_agree() {
    assert_eq!(
        reading("phpunit/v1", "verbose", false),
        reading("phpunit/v1", "default", false)
    );
}

#[test]
fn phpunit_items_say_where_and_why() {
    let p = profile("phpunit/v1");
    let a = fixture::load(&root().join("phpunit/default")).unwrap();
    let (g, _) = p.extract(&a);
    let item = |id: &str| {
        g.items
            .iter()
            .find(|i| i.identity == id)
            .unwrap_or_else(|| panic!("{id} not read"))
    };
    let error = item(r"Shop\Tests\CartTest::testAverageOfEmptyCart");
    assert_eq!(error.kind, ItemKind::TestError);
    assert_eq!(error.class.as_deref(), Some("DivisionByZeroError"));
    let at = error.location.as_ref().unwrap();
    assert_eq!((at.file.as_str(), at.line), ("src/Cart.php", Some(27)));
    let diff = item(r"Shop\Tests\MoneyTest::testFormatsNegative");
    assert_eq!(
        diff.summary.as_deref(),
        Some(
            "Failed asserting that two strings are identical. expected '-$12.50', actual '$12.50'"
        )
    );
    // A data set by its name, its values left out.
    item(r#"Shop\Tests\MoneyTest::testCentsOf with data set "half""#);
    item(r"Shop\Tests\MoneyTest::testCentsOf with data set #1");
    // Risky, incomplete and skipped tests are no failures.
    for none in ["testNothingChecked", "testCoupons", "testConvertsCurrency"] {
        assert!(!g.items.iter().any(|i| i.identity.contains(none)), "{none}");
    }
}

// ----------------------------------------------------------------- mocha

const MOCHA: Family = Family {
    dir: "mocha",
    version: "mocha/v1",
    // The spec listing of a long run pushes `N passing` past the head:
    // those are read by their decisive line.
    sniffed: &["spec-one-file", "spec-green", "spec-bail", "dot-default"],
    map_id: same,
    by_argv: true,
};

#[test]
fn mocha_fixtures() {
    assert!(check_family(&MOCHA) >= 8);
}

#[test]
fn mocha_malformed() {
    check_malformed(&MOCHA);
}

/// The spec and dot reporters of the same run: the same identities, kinds,
/// locations and reasons (the epilogue is shared; only the listing differs).
#[test]
fn mocha_reporters_agree() {
    let p = profile("mocha/v1");
    let items = |case: &str| {
        let a = fixture::load(&root().join("mocha").join(case)).unwrap();
        let (g, r) = p.extract(&a);
        assert!(r.is_complete(), "{case}: {r:?}");
        let items: Vec<_> = g
            .items
            .iter()
            .map(|i| {
                (
                    i.identity.clone(),
                    i.kind,
                    i.location.clone(),
                    i.summary.clone(),
                )
            })
            .collect();
        (items, g.counts)
    };
    let spec = items("spec-default");
    assert_eq!(spec.0.len(), 8);
    assert_eq!(items("dot-default"), spec);
    assert_eq!(items("npm-test"), spec);
    assert_eq!(items("list-many"), items("spec-many"));
}

#[test]
fn mocha_items_say_where_and_why() {
    let p = profile("mocha/v1");
    let a = fixture::load(&root().join("mocha/spec-default")).unwrap();
    let (g, _) = p.extract(&a);
    let find = |id: &str| {
        g.items
            .iter()
            .find(|i| i.identity == id)
            .unwrap_or_else(|| panic!("{id} missing: {:#?}", g.items))
            .clone()
    };
    // A failed hook is an error of its own, placed at its frame.
    let hook = find(r#"parseSku with a database "before each" hook for "stores the sku""#);
    assert_eq!(hook.kind, ItemKind::TestError);
    assert_eq!(hook.class.as_deref(), Some("TypeError"));
    let loc = hook.location.unwrap();
    assert_eq!(
        (loc.file.as_str(), loc.line),
        ("test/sku.spec.js", Some(37))
    );
    // An assertion's message says what was compared.
    let total = find("Cart total multiplies quantity on every line");
    assert_eq!(total.kind, ItemKind::FailingTest);
    assert_eq!(
        total.summary.as_deref(),
        Some("AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: 11 !== 21")
    );
    let loc = total.location.unwrap();
    assert_eq!(
        (loc.file.as_str(), loc.line, loc.column),
        ("test/cart.spec.js", Some(11), Some(14))
    );
    // A timeout names its file only.
    let stock = find("Cart stock loads stock levels");
    // mocha's advice after it, the same for every timeout, is left out.
    assert_eq!(
        stock.summary.as_deref(),
        Some("Error: Timeout of 200ms exceeded.")
    );
    assert_eq!(stock.location.unwrap().file, "test/cart.spec.js");
    // A test outside any describe, its title alone.
    let root_test = find("parses a bare sku");
    assert_eq!(root_test.location.unwrap().file, "src/cart.js");
    assert!(g.counts.contains(&("pending".to_string(), 2)));
}

// ------------------------------------------------------------------- tap

const TAP: Family = Family {
    dir: "tap",
    version: "tap/v1",
    sniffed: &[
        "node-default",
        "node-one-file",
        "node-green",
        "node-many",
        "node-third-party",
        "prove-default",
        "prove-verbose",
        "prove-bail",
        "prove-green",
        "bats-default",
        "bats-green",
    ],
    map_id: same,
    by_argv: true,
};

#[test]
fn tap_fixtures() {
    assert!(check_family(&TAP) >= 11);
}

#[test]
fn tap_malformed() {
    check_malformed(&TAP);
}

/// prove with and without `-v`: the same identities, kinds, locations and
/// reasons, although only `-v` prints the test lines (without it the names
/// come from Test::More's diagnostics, the numbers from the Summary Report).
#[test]
fn tap_prove_verbose_and_plain_agree() {
    let p = profile("tap/v1");
    let items = |case: &str| {
        let a = fixture::load(&root().join("tap").join(case)).unwrap();
        let (g, r) = p.extract(&a);
        assert!(r.is_complete(), "{case}: {r:?}");
        let mut items: Vec<_> = g
            .items
            .iter()
            .map(|i| {
                (
                    i.identity.clone(),
                    i.kind,
                    i.location.clone(),
                    i.summary.clone(),
                )
            })
            .collect();
        items.sort_by(|a, b| a.0.cmp(&b.0));
        (items, g.counts)
    };
    let plain = items("prove-default");
    assert_eq!(plain.0.len(), 8);
    assert_eq!(items("prove-verbose"), plain);
}

#[test]
fn tap_items_say_where_and_why() {
    let p = profile("tap/v1");
    let a = fixture::load(&root().join("tap/node-default")).unwrap();
    let (g, _) = p.extract(&a);
    let find = |g: &EvidenceGraph, id: &str| {
        g.items
            .iter()
            .find(|i| i.identity == id)
            .unwrap_or_else(|| panic!("{id} missing: {:#?}", g.items))
            .clone()
    };
    // A file that throws at load: the file, placed at the throwing line.
    let boot = find(&g, "test/boot.test.js");
    assert_eq!(boot.kind, ItemKind::SuiteNotRun);
    let loc = boot.location.unwrap();
    assert_eq!(
        (loc.file.as_str(), loc.line),
        ("test/boot.test.js", Some(5))
    );
    assert!(
        boot.summary
            .unwrap()
            .starts_with("Error: ENOENT: no such file")
    );
    // Three deep: the chain names every parent; the frame in the test's
    // file is the assertion's line.
    let deep = find(
        &g,
        "test/sku.test.js > parseSku > numbers > keeps leading zeros",
    );
    assert_eq!(deep.class.as_deref(), Some("AssertionError"));
    assert_eq!(
        deep.summary.as_deref(),
        Some("Expected values to be strictly equal: 7 !== '007'")
    );
    assert_eq!(deep.location.unwrap().line, Some(15));
    assert_eq!(
        find(&g, "test/sku.test.js > parseSku").class.as_deref(),
        Some("subtests failed")
    );
    let hook = find(&g, "test/sku.test.js > prices");
    assert_eq!(hook.kind, ItemKind::TestError);
    assert_eq!(hook.summary.as_deref(), Some("price source not configured"));
    assert_eq!(
        find(&g, "test/sku.test.js > prices > has a price for ABC")
            .class
            .as_deref(),
        Some("cancelled")
    );
    // A TODO that fails is no failure; node's counts are the header's.
    assert!(!g.items.iter().any(|i| i.identity.ends_with("gift wrap")));
    assert_eq!(count(&g, "cancelled"), Some(2));
    assert_eq!(count(&g, "todo"), Some(1));

    let a = fixture::load(&root().join("tap/prove-default")).unwrap();
    let (g, _) = p.extract(&a);
    let boot = find(&g, "t/boot.t");
    assert_eq!(boot.kind, ItemKind::SuiteNotRun);
    assert_eq!(boot.class.as_deref(), Some("no plan"));
    assert_eq!(
        boot.summary.as_deref(),
        Some(
            "Can't locate Shop/Shipping.pm in @INC (you may need to install the Shop::Shipping module)"
        )
    );
    let stock = find(&g, "t/stock.t");
    assert_eq!(stock.kind, ItemKind::TestError);
    assert_eq!(
        stock.summary.as_deref(),
        Some("warehouse connection refused")
    );
    assert_eq!(
        find(&g, "t/cart.t > total multiplies quantity")
            .summary
            .as_deref(),
        Some("got: '7'; expected: '19'")
    );

    let a = fixture::load(&root().join("tap/prove-bail")).unwrap();
    let (g, _) = p.extract(&a);
    let bail = find(&g, "t/00-env.t");
    assert_eq!(bail.class.as_deref(), Some("bail out"));
    assert_eq!(
        bail.summary.as_deref(),
        Some("Bail out! fixture server not mounted at /nonexistent/fixture-server")
    );

    let a = fixture::load(&root().join("tap/bats-default")).unwrap();
    let (g, _) = p.extract(&a);
    let helper = find(&g, "test/cart.bats > formats the total");
    let loc = helper.location.unwrap();
    assert_eq!((loc.file.as_str(), loc.line), ("test/cart.bats", Some(17)));
    assert_eq!(
        find(&g, "test/stock.bats > setup_file failed").kind,
        ItemKind::TestError
    );
    // One test of the plan never ran: counted, as nothing names it.
    assert_eq!(count(&g, "not run"), Some(1));
}

/// Every test runner the registry knows has its expectations here, under
/// its one name: a new runner family fails this test until it has a
/// `Family` table (and its fixtures are checked against their truth).
#[test]
fn every_registered_test_runner_is_checked_here() {
    let checked: Vec<(&str, &str)> = [
        &MAVEN,
        &TAP,
        &GTEST,
        &PYTEST,
        &UNITTEST,
        &RSPEC,
        &MINITEST,
        &PHPUNIT,
        &CARGO_TEST,
        &GO_TEST,
        &MOCHA,
        &JEST,
        &VITEST,
        &JUNIT,
    ]
    .iter()
    .map(|f| (f.dir, f.version))
    .collect();
    let registered: Vec<(&str, &str)> = profiles::registry()
        .iter()
        .filter(|p| p.spec().group == profiles::ReceiptGroup::TestRunner)
        .map(|p| (p.family(), p.version()))
        .collect();
    assert_eq!(checked, registered);
}

/// A JUnit report that opens with a UTF-8 byte-order mark (Windows tools
/// and .NET loggers write one) is classified and read as the same report:
/// every fixture, with a BOM put in front, gives the same census.
#[test]
fn junit_with_a_byte_order_mark_is_the_same_report() {
    for dir in cases("junit") {
        let plain = fixture::load(&dir).unwrap();
        let mut bytes = b"\xef\xbb\xbf".to_vec();
        bytes.extend_from_slice(plain.bytes());
        let bom = Artifact::from_stdout(bytes, plain.exit, vec![]);
        let (chosen, _) = classify::choose(&bom, None).unwrap();
        assert_eq!(chosen.version(), "junit/v1", "{}", dir.display());
        let ids = |a: &Artifact| -> Vec<String> {
            let (g, _) = profile("junit/v1").extract(a);
            g.census("junit").map(|i| i.identity.clone()).collect()
        };
        assert_eq!(ids(&bom), ids(&plain), "{}", dir.display());
    }
}

/// Edge shapes of JUnit producers: a `status="disabled"` test is skipped,
/// not passed; a case holding both `<failure>` and `<error>` is an error,
/// as Jenkins and junitparser count it; suites that announce failures but
/// list no test case are never a pass.
#[test]
fn junit_edge_shapes_are_counted_as_consumers_count_them() {
    let read = |xml: &str| {
        let a = Artifact::from_stdout(xml.as_bytes().to_vec(), Exit::Unknown, vec![]);
        profile("junit/v1").extract(&a).0
    };
    let g = read(
        "<?xml version=\"1.0\"?>\n<testsuites>\n<testsuite name=\"s\" tests=\"3\">\n\
         <testcase classname=\"s\" name=\"off\" status=\"disabled\"/>\n\
         <testcase classname=\"s\" name=\"ok\"/>\n\
         <testcase classname=\"s\" name=\"both\">\n<failure message=\"f\">x</failure>\n<error message=\"e\">y</error>\n</testcase>\n\
         </testsuite>\n</testsuites>\n",
    );
    assert_eq!(count(&g, "skipped"), Some(1));
    assert_eq!(count(&g, "passed"), Some(1));
    assert_eq!(count(&g, "errors"), Some(1));
    assert_eq!(count(&g, "failures"), None);
    let both = g
        .items
        .iter()
        .find(|i| i.identity == "s::both")
        .expect("both");
    assert_eq!(both.kind, ItemKind::TestError);
    let g = read(
        "<?xml version=\"1.0\"?>\n<testsuites>\n<testsuite name=\"s\" tests=\"12\" failures=\"2\" errors=\"1\"/>\n</testsuites>\n",
    );
    assert_eq!(g.outcome, Outcome::Failed);
}

// ----------------------------------------------------------------- rspec

const RSPEC: Family = Family {
    dir: "rspec",
    version: "rspec/v1",
    sniffed: &[
        "default",
        "documentation",
        "one-file",
        "many-failures",
        "green",
        "load-error",
    ],
    map_id: same,
    by_argv: true,
};

#[test]
fn rspec_fixtures() {
    assert!(check_family(&RSPEC) >= 6);
}

#[test]
fn rspec_malformed() {
    check_malformed(&RSPEC);
}

/// The progress and documentation formats: the same identities, kinds,
/// locations and reasons.
#[test]
fn rspec_formats_agree() {
    let p = profile("rspec/v1");
    let items = |case: &str| {
        let a = fixture::load(&root().join("rspec").join(case)).unwrap();
        let (g, r) = p.extract(&a);
        let items: Vec<_> = g
            .items
            .iter()
            .map(|i| {
                (
                    i.identity.clone(),
                    i.kind,
                    i.location.clone(),
                    // Object addresses differ from run to run.
                    i.summary
                        .as_deref()
                        .map(|s| s.split("0x").next().unwrap_or(s).to_string()),
                )
            })
            .collect();
        (items, g.counts, g.outcome, r.is_complete())
    };
    assert_eq!(items("documentation"), items("default"));
}

#[test]
fn rspec_items_say_where_and_why() {
    let p = profile("rspec/v1");
    let a = fixture::load(&root().join("rspec/default")).unwrap();
    let (g, _) = p.extract(&a);
    let by = |id: &str| g.items.iter().find(|i| i.identity == id).unwrap();
    let i = by("Cart#total with a percentage discount takes the percentage off");
    assert_eq!(i.kind, ItemKind::FailingTest);
    let loc = i.location.as_ref().unwrap();
    assert_eq!(
        (loc.file.as_str(), loc.line),
        ("spec/cart_spec.rb", Some(24))
    );
    assert_eq!(i.summary.as_deref(), Some("expected: 225, got: 240"));
    assert_eq!(
        i.fields.get("rerun").map(String::as_str),
        Some("rspec ./spec/cart_spec.rb:24")
    );
    let i = by("Inventory#available? is false for unknown items");
    assert_eq!(i.kind, ItemKind::TestError);
    assert_eq!(i.class.as_deref(), Some("KeyError"));
    assert_eq!(
        i.summary.as_deref(),
        Some("KeyError: key not found: \"Z9\"")
    );
    // A pending example's expected failure is no failure.
    assert!(g.items.iter().all(|i| !i.identity.contains("coupon")));
    let (g, _) = p.extract(&fixture::load(&root().join("rspec/load-error")).unwrap());
    assert_eq!(g.items.len(), 1);
    assert_eq!(g.items[0].kind, ItemKind::SuiteNotRun);
    assert_eq!(g.items[0].identity, "./spec/boot_spec.rb");
    assert_eq!(g.items[0].class.as_deref(), Some("LoadError"));
    assert_eq!(g.outcome, Outcome::Error);
}
