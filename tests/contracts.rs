//! The planner reads each requirement from the contract: for every
//! required class of every contract, a contract with that class dropped
//! makes the digest of some fixture holding one lose an identity the real
//! contract requires (which the census guard rejects, so `census_guard`
//! and the `digests` survival tests would fail). That a fixture holds
//! each class and that the guard catches its loss is
//! `census_guard::every_required_class_is_guarded_by_a_fixture`. The few
//! classes a planner still names by its own rule, or that every fixture
//! names by another route, are listed in `NOT_CONTRACT_DRIVEN` with why;
//! the test fails when that list is wrong either way.

use std::path::{Path, PathBuf};

use ctx::classify;
use ctx::contract::{self, Contract};
use ctx::evidence::{CoverageReceipt, EvidenceGraph};
use ctx::guard;
use ctx::plan::{self, Budget};
use ctx::tokens;

fn dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut out = Vec::new();
    for family in std::fs::read_dir(&root).unwrap().flatten() {
        for case in std::fs::read_dir(family.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if case.path().join("case.json").is_file() {
                out.push(case.path());
            }
        }
    }
    out.sort();
    out
}

/// The contracts shipped in `contracts/`, by family.
fn contracts() -> Vec<Contract> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("contracts");
    let mut out: Vec<Contract> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .filter_map(|f| {
            let name = f.file_name().to_string_lossy().into_owned();
            let family = name.strip_suffix(".toml")?.to_string();
            Some(contract::for_family(&family).unwrap())
        })
        .collect();
    out.sort_by(|a, b| a.family.cmp(&b.family));
    out
}

/// (family, item kind) pairs whose requirement no fixture shows the
/// planner reading from the contract, and why.
const NOT_CONTRACT_DRIVEN: &[(&str, &str, &str)] = &[
    // plan::ci_log puts up front the steps the contract requires, but in
    // every fixture a failed step is also a window (its output read by
    // the family that reads it, which the extractor decides), so it stays
    // up front when the contract is silent. A failing step's census is planned by that step's own family and
    // contract (whose requirements this test checks).
    ("ci_log", "Step", "a failed step is a window up front"),
    // An error annotation is printed by its severity (up to half the
    // ceiling, as a failing step's census is); a warning is read from the
    // contract (counted as census behind `--items` past the budget).
    ("ci_log", "Annotation(Error)", "errors printed by severity"),
    ("ci_log", "FailingTest", "planned by the step's own family"),
    ("ci_log", "Diagnostic", "planned by the step's own family"),
    // Dropped, these fall to the preferred tier or to the raw decisive
    // lines, which still name them in every fixture that holds one: a
    // larger fixture would show the difference.
    ("cargo_test", "SuiteNotRun", "named by the decisive lines"),
    ("go_test", "SuiteNotRun", "named by the decisive lines"),
    ("pytest", "SuiteNotRun", "named by the decisive lines"),
    // text/v1's findings, in its fixtures of the long tail, stand where
    // its lines planner keeps lines anyway: a crash's exception line is a
    // decisive line at the end, esbuild's report fits between the head and
    // the tail. A longer run of those tools would show the difference.
    (
        "text",
        "Crash",
        "the exception line is decisive and in the tail",
    ),
    (
        "text",
        "Diagnostic(Warning)",
        "the whole report is head and tail",
    ),
];

type Case = (
    PathBuf,
    String,
    ctx::artifact::Artifact,
    EvidenceGraph,
    CoverageReceipt,
);

fn cases() -> Vec<Case> {
    dirs()
        .into_iter()
        .map(|dir| {
            let artifact = ctx::fixture::load(&dir).unwrap();
            // As the pipeline reads it: a family that leaves one of the
            // evidence layer's failures unread gives the output to text/v1.
            let (profile, graph, receipt) = classify::read(&artifact, None).unwrap();
            (dir, profile.family().to_string(), artifact, graph, receipt)
        })
        .collect()
}

#[test]
fn the_planner_reads_each_requirement_from_the_contract() {
    let cases = cases();
    let mut unchecked = Vec::new();
    for real in contracts() {
        for (k, class) in real.census.required.iter().enumerate() {
            let mut dropped = real.clone();
            dropped.census.required.remove(k);
            let mut holders = 0;
            let caught = cases
                .iter()
                .filter(|c| c.1 == real.family)
                .filter(|c| {
                    c.3.items
                        .iter()
                        .any(|i| real.requires(i) && class.matches(i))
                })
                .inspect(|_| holders += 1)
                .any(|(_, _, artifact, graph, receipt)| {
                    let raw = tokens::estimate_bulk(artifact.bytes());
                    let floor = real.rendering.evidence_floor_tokens;
                    [None, Some(floor)].into_iter().any(|requested| {
                        let budget = Budget::from_contract(&dropped, requested);
                        let plan = plan::resolve(
                            artifact,
                            graph,
                            receipt,
                            &dropped,
                            budget,
                            raw.max(budget.target + 1),
                        );
                        guard::check_census(&real, graph, &plan).is_err()
                    })
                });
            let kind = format!("{:?}", class.kind);
            // An entry names the kind (every class of it) or the kind and
            // its severity (`Diagnostic(Warning)`).
            let with_severity = class.severity.map(|s| format!("{kind}({s:?})"));
            let listed = NOT_CONTRACT_DRIVEN.iter().any(|(f, k, _)| {
                *f == real.family && (*k == kind || Some(k.to_string()) == with_severity)
            });
            if caught == listed {
                unchecked.push(format!(
                    "{}: required {kind} ({holders} fixtures hold one): {}",
                    real.family,
                    if caught {
                        "now read from the contract: take it off NOT_CONTRACT_DRIVEN"
                    } else {
                        "dropping it from the contract changes no digest"
                    }
                ));
            }
        }
    }
    assert!(unchecked.is_empty(), "{}", unchecked.join("\n"));
}
