//! The CI renderers over every captured fixture of their families: GitHub
//! annotations (test runners and diagnostics), JUnit XML (test runners),
//! SARIF 2.1.0 (diagnostics). Snapshots of each, and what the snapshots
//! cannot show at a glance: every annotation reads back through the
//! runner's own syntax as it was meant, the JUnit report parses back with
//! every failing identity of the fixture's truth, and the SARIF log holds
//! every error of the truth at its file, line, column and code.

use std::path::{Path, PathBuf};

use ctx::artifact::Artifact;
use ctx::evidence::{EvidenceGraph, EvidenceItem, ItemKind, Location, Outcome, Severity};
use ctx::profiles::{Profile, ReceiptGroup};
use ctx::render::formats::{junit, sarif};
use ctx::render::workflow::{self, Annotation, Level};
use ctx::store::ArchiveKey;
use ctx::workspace::Workspace;
use quick_xml::events::Event;
use serde::Deserialize;

#[path = "support/workflow.rs"]
mod runner;

const KEY: ArchiveKey = ArchiveKey([0x5c; 32]);

/// Every fixture case of the families of `group`, sorted.
fn cases(group: ReceiptGroup) -> Vec<(PathBuf, &'static dyn Profile)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut out = Vec::new();
    for profile in ctx::profiles::registry() {
        if profile.spec().group != group {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(root.join(profile.family())) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join("case.json").is_file())
            .collect();
        dirs.sort();
        out.extend(dirs.into_iter().map(|d| (d, *profile)));
    }
    assert!(out.len() > 20, "fixtures missing: {}", out.len());
    out
}

fn name(case: &Path) -> String {
    let family = case
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy();
    let case = case.file_name().unwrap().to_string_lossy();
    format!("{family}__{case}")
}

/// The fixture, read by its own family's profile, with the workspace at
/// the directory it was captured in (paths come out as the repository
/// names them, the same on every machine).
fn read(case: &Path, profile: &dyn Profile) -> (Artifact, EvidenceGraph, Workspace) {
    let artifact = ctx::fixture::load(case).unwrap();
    let (graph, _) = profile.extract(&artifact);
    let workspace = Workspace {
        root: artifact.cwd.clone(),
        cwd: artifact.cwd.clone(),
    };
    (artifact, graph, workspace)
}

/// A snapshot's text: the output's first lines (a flood fixture's report
/// runs to tens of thousands), then how much there was; the tests below
/// read every line.
fn head(bytes: &[u8]) -> String {
    const LINES: usize = 120;
    let text = String::from_utf8(bytes.to_vec()).expect("UTF-8");
    let total = text.lines().count();
    if total <= LINES {
        return text;
    }
    let mut out: String = text.lines().take(LINES).map(|l| format!("{l}\n")).collect();
    out.push_str(&format!(
        "(snapshot cut: {total} lines, {} bytes in all)\n",
        bytes.len()
    ));
    out
}

#[test]
fn annotations_as_snapshotted() {
    for group in [ReceiptGroup::TestRunner, ReceiptGroup::Diagnostics] {
        for (case, profile) in cases(group) {
            let (_, graph, workspace) = read(&case, profile);
            let bytes = workflow::annotations(&graph, &workspace).to_bytes();
            let text = String::from_utf8(bytes).unwrap();
            insta::assert_snapshot!(format!("annotations__{}", name(&case)), text);
        }
    }
}

#[test]
fn junit_as_snapshotted() {
    for (case, profile) in cases(ReceiptGroup::TestRunner) {
        let (artifact, graph, workspace) = read(&case, profile);
        let bytes = junit::render(&artifact, &graph, profile.version(), &workspace, Some(&KEY));
        insta::assert_snapshot!(format!("junit__{}", name(&case)), head(&bytes));
    }
}

#[test]
fn sarif_as_snapshotted() {
    for (case, profile) in cases(ReceiptGroup::Diagnostics) {
        let (artifact, graph, workspace) = read(&case, profile);
        let bytes = sarif::render(&artifact, &graph, profile.version(), &workspace, Some(&KEY));
        insta::assert_snapshot!(format!("sarif__{}", name(&case)), head(&bytes));
    }
}

/// Every annotation of every fixture reads back, through the runner's
/// syntax, as the finding it was made from: one command per line, the
/// level, the file, line, column, title and message unchanged.
#[test]
fn annotations_read_back_through_the_runner() {
    let mut seen = 0;
    for group in [ReceiptGroup::TestRunner, ReceiptGroup::Diagnostics] {
        for (case, profile) in cases(group) {
            let (_, graph, workspace) = read(&case, profile);
            let annotations = workflow::annotations(&graph, &workspace);
            for a in &annotations.shown {
                assert_reads_back(a, &name(&case));
                seen += 1;
            }
        }
    }
    assert!(seen > 200, "{seen}");
}

fn assert_reads_back(a: &Annotation, case: &str) {
    let line = a.command();
    assert!(!line.contains(['\n', '\r']), "{case}: {line:?}");
    let parsed = runner::parse(&line).unwrap_or_else(|| panic!("{case}: not a command: {line}"));
    assert_eq!(parsed.name, a.level.command(), "{case}: {line}");
    let prop = |k: &str| parsed.properties.get(k).cloned();
    assert_eq!(prop("file"), Some(a.file.clone()), "{case}: {line}");
    assert_eq!(prop("line"), Some(a.line.to_string()), "{case}: {line}");
    assert_eq!(prop("col"), a.col.map(|c| c.to_string()), "{case}: {line}");
    assert_eq!(prop("title"), Some(a.title.clone()), "{case}: {line}");
    assert_eq!(parsed.data, a.message, "{case}: {line}");
}

/// What a hostile tool can print: line breaks, `%` and escapes already
/// written out, `::` (the command separator), commas and colons in paths
/// and titles, `=` in a value, a would-be second command in a message.
#[test]
fn hostile_findings_read_back_unchanged() {
    let hostile = [
        ("a,b:c/x.py", "t::x[a,b]", "line one\nline two\r\nthree"),
        ("%25%0A.rs", "100% :: done", "50% %0A %25 ::error::injected"),
        (
            "dir: name/f.ts",
            "title=with=equals",
            "::warning file=x,line=1::y",
        ),
        ("x.c", "  padded  ", "ends with %"),
        ("C:\\src\\a.c", "é ü ∑", "tab\there, nul\u{0}there"),
    ];
    let mut items = Vec::new();
    for (i, (file, id, summary)) in hostile.iter().enumerate() {
        let mut item = EvidenceItem::new(ItemKind::FailingTest, Severity::Error, *id);
        item.location = Some(Location {
            file: file.to_string(),
            line: Some(i as u32 + 1),
            column: Some(7),
        });
        item.summary = Some(summary.to_string());
        items.push(item);
    }
    let graph = EvidenceGraph {
        reader: ctx::evidence::Reader::family("py,test: x"),
        outcome: Outcome::Failed,
        counts: Vec::new(),
        items,
        conclusion: Vec::new(),
    };
    let annotations = workflow::annotations(&graph, &Workspace::default());
    assert_eq!(annotations.shown.len(), hostile.len());
    for a in &annotations.shown {
        assert_reads_back(a, "hostile");
        let command = a.command();
        // Exactly one command separator outside the message.
        let info_end = command[2..].find("::").unwrap() + 2;
        assert!(!command[..info_end].contains('\n'));
    }
    let second = &annotations.shown[1];
    assert_eq!(
        second.command(),
        "::error file=%2525%250A.rs,line=2,col=7,title=py%2Ctest%3A x%3A 100%25 %3A%3A done::50%25 %250A %2525 ::error::injected"
    );
    // The message that quotes a command stays inside the first one.
    let third = runner::parse(&annotations.shown[2].command()).unwrap();
    assert_eq!(third.name, "error");
    assert_eq!(third.data, "::warning file=x,line=1::y");
}

/// GitHub keeps ten of each level per step: more are counted, not lost.
#[test]
fn the_excess_over_ten_is_counted_in_one_line() {
    let (case, profile) = cases(ReceiptGroup::Diagnostics)
        .into_iter()
        .find(|(c, _)| c.ends_with("tsc/mid-plain"))
        .expect("tsc/mid-plain");
    let (_, graph, workspace) = read(&case, profile);
    let annotations = workflow::annotations(&graph, &workspace);
    let errors = graph
        .items
        .iter()
        .filter(|i| i.severity == Severity::Error && i.location.is_some())
        .count();
    assert_eq!(annotations.shown.len(), workflow::PER_STEP);
    assert_eq!(
        annotations.withheld,
        vec![(Level::Error, errors - workflow::PER_STEP)]
    );
    let lines = annotations.lines();
    assert_eq!(lines.len(), workflow::PER_STEP + 1);
    let last = lines.last().unwrap();
    assert!(runner::parse(last).is_none(), "{last}");
    assert!(last.starts_with("[ctx] not annotated: 98 errors"), "{last}");
}

#[derive(Deserialize)]
struct RunnerTruth {
    #[serde(default)]
    failures: Vec<TruthFailure>,
}

#[derive(Deserialize)]
struct TruthFailure {
    id: String,
    #[serde(default)]
    kind: Option<String>,
}

/// A test case read back from the XML.
#[derive(Debug)]
struct ParsedCase {
    classname: String,
    name: String,
    verdict: String,
    message: String,
}

/// Parses a report strictly (end names checked, every entity resolved)
/// and returns its test cases; panics on any XML error.
fn parse_junit(xml: &[u8], case: &str) -> Vec<ParsedCase> {
    let mut reader = quick_xml::Reader::from_reader(xml);
    reader.config_mut().check_end_names = true;
    let mut out = Vec::new();
    let mut current: Option<(String, String)> = None;
    let mut buf = Vec::new();
    let attr = |e: &quick_xml::events::BytesStart, key: &str| -> Option<String> {
        e.try_get_attribute(key)
            .unwrap_or_else(|err| panic!("{case}: {err}"))
            .map(|a| {
                a.normalized_value(quick_xml::XmlVersion::Explicit1_0)
                    .unwrap_or_else(|err| panic!("{case}: {err}"))
                    .into_owned()
            })
    };
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(Event::Eof) => break,
            Ok(Event::Start(e)) | Ok(Event::Empty(e)) => match e.name().into_inner() {
                "testcase" => {
                    current = Some((
                        attr(&e, "classname").expect("classname"),
                        attr(&e, "name").expect("name"),
                    ));
                }
                tag @ ("failure" | "error") => {
                    let (classname, name) = current.clone().expect("inside a testcase");
                    out.push(ParsedCase {
                        classname,
                        name,
                        verdict: tag.to_string(),
                        message: attr(&e, "message").unwrap_or_default(),
                    });
                }
                _ => {}
            },
            // Only XML's own entities and character references.
            Ok(Event::GeneralRef(r)) => {
                let name = r.into_inner();
                assert!(
                    matches!(&*name, "amp" | "lt" | "gt" | "quot" | "apos")
                        || name.starts_with('#'),
                    "{case}: &{name};"
                );
            }
            Ok(_) => {}
            Err(e) => panic!("{case}: at {}: {e}", reader.buffer_position()),
        }
        buf.clear();
    }
    out
}

/// Whether a test case's suite and name join back into `identity` (a
/// build error's case is named by its whole identity; GoogleTest joins
/// suite and test by a dot, minitest by `#`, as their runners print them).
fn names(c: &ParsedCase, identity: &str) -> bool {
    c.name == identity
        || junit::SEPARATORS
            .iter()
            .chain(&[".", "#"])
            .any(|sep| format!("{}{sep}{}", c.classname, c.name) == identity)
}

#[test]
fn junit_parses_back_with_every_failing_identity_of_the_truth() {
    let mut checked = 0;
    for (case, profile) in cases(ReceiptGroup::TestRunner) {
        let Ok(truth) = std::fs::read(case.join("truth.json")) else {
            continue;
        };
        let truth: RunnerTruth = serde_json::from_slice(&truth).unwrap();
        let label = name(&case);
        let (artifact, graph, workspace) = read(&case, profile);
        let xml = junit::render(&artifact, &graph, profile.version(), &workspace, Some(&KEY));
        let parsed = parse_junit(&xml, &label);
        for want in &truth.failures {
            let found = parsed
                .iter()
                .find(|c| names(c, &want.id))
                .unwrap_or_else(|| panic!("{label}: {:?} not in the report", want.id));
            assert!(!found.message.is_empty(), "{label}: {}", want.id);
            if want.kind.as_deref() == Some("error") {
                assert_eq!(found.verdict, "error", "{label}: {}", want.id);
            }
            checked += 1;
        }
        // A failing run never reads as a clean report.
        if artifact.exit.is_failure() {
            assert!(
                !parsed.is_empty(),
                "{label}: failing exit, no failing test case"
            );
        }
    }
    assert!(checked > 100, "{checked}");
}

#[derive(Deserialize)]
struct DiagnosticTruth {
    diagnostics: Vec<TruthDiagnostic>,
}

#[derive(Deserialize)]
struct TruthDiagnostic {
    severity: String,
    file: Option<String>,
    line: Option<u32>,
    col: Option<u32>,
    code: Option<String>,
}

/// Paths compare by suffix: tools print them relative, absolute, or `./`.
fn same_file(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim_start_matches("./"), b.trim_start_matches("./"));
    a == b || a.ends_with(&format!("/{b}")) || b.ends_with(&format!("/{a}"))
}

#[test]
fn sarif_holds_every_error_of_the_truth() {
    let mut checked = 0;
    for (case, profile) in cases(ReceiptGroup::Diagnostics) {
        let Ok(truth) = std::fs::read(case.join("truth.json")) else {
            continue;
        };
        let truth: DiagnosticTruth = serde_json::from_slice(&truth).unwrap();
        let label = name(&case);
        let (artifact, graph, workspace) = read(&case, profile);
        let log: serde_json::Value = serde_json::from_slice(&sarif::render(
            &artifact,
            &graph,
            profile.version(),
            &workspace,
            Some(&KEY),
        ))
        .unwrap();
        let run = &log["runs"][0];
        let results = run["results"].as_array().cloned().unwrap_or_default();
        let notifications = run["invocations"][0]["toolExecutionNotifications"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for want in truth.diagnostics.iter().filter(|d| d.severity == "error") {
            let Some(file) = &want.file else {
                // Errors that name no file are the invocation's notes.
                assert!(
                    notifications.iter().any(|n| n["level"] == "error")
                        || results.iter().any(|r| r["level"] == "error"),
                    "{label}: no error for a fileless truth error"
                );
                continue;
            };
            let found = results.iter().any(|r| {
                let place = &r["locations"][0]["physicalLocation"];
                let uri = place["artifactLocation"]["uri"].as_str().unwrap_or("");
                let region = &place["region"];
                r["level"] == "error"
                    && same_file(uri, file)
                    && want.line.is_none_or(|l| region["startLine"] == l)
                    && (want.col.is_none()
                        || region["startColumn"].is_null()
                        || region["startColumn"] == want.col.unwrap())
                    && want.code.as_ref().is_none_or(|c| r["ruleId"] == c.as_str())
            });
            assert!(
                found,
                "{label}: {file}:{:?}:{:?} {:?} missing",
                want.line, want.col, want.code
            );
            checked += 1;
        }
        // Every result's rule is declared, at the index it names.
        let rules = run["tool"]["driver"]["rules"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for r in &results {
            let index = r["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(rules[index]["id"], r["ruleId"], "{label}");
        }
    }
    assert!(checked > 100, "{checked}");
}

/// The official SARIF 2.1.0 schema (docs/schema/, with its source and
/// licence beside it), compiled once with format assertions on (a URI
/// that is not one fails).
fn sarif_schema() -> (boon::Schemas, boon::SchemaIndex) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schema/sarif-schema-2.1.0.json");
    let schema: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler.enable_format_assertions();
    compiler
        .add_resource("sarif-schema-2.1.0.json", schema)
        .unwrap();
    let index = compiler
        .compile("sarif-schema-2.1.0.json", &mut schemas)
        .unwrap_or_else(|e| panic!("{e}"));
    (schemas, index)
}

fn assert_valid_sarif(
    schemas: &boon::Schemas,
    index: boon::SchemaIndex,
    bytes: &[u8],
    label: &str,
) {
    let log: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    if let Err(e) = schemas.validate(&log, index) {
        panic!("{label}: not valid SARIF 2.1.0: {e:#}");
    }
    // What GitHub code scanning asks beyond the schema: a rules array, and
    // each rule described, with help.
    for run in log["runs"].as_array().expect("runs") {
        let rules = run["tool"]["driver"]["rules"]
            .as_array()
            .unwrap_or_else(|| panic!("{label}: no rules array"));
        for rule in rules {
            for field in ["shortDescription", "fullDescription", "help"] {
                let text = rule[field]["text"].as_str().unwrap_or_default();
                assert!(
                    !text.trim().is_empty(),
                    "{label}: rule {} has no {field}",
                    rule["id"]
                );
            }
        }
    }
}

#[test]
fn every_sarif_log_is_valid_against_the_official_schema() {
    let (schemas, index) = sarif_schema();
    for (case, profile) in cases(ReceiptGroup::Diagnostics) {
        let (artifact, graph, workspace) = read(&case, profile);
        let bytes = sarif::render(&artifact, &graph, profile.version(), &workspace, Some(&KEY));
        assert_valid_sarif(&schemas, index, &bytes, &name(&case));
        // Without a workspace the paths stay as the tool wrote them,
        // absolute ones as `file://` URIs: valid too.
        let bare = sarif::render(
            &artifact,
            &graph,
            profile.version(),
            &Workspace::default(),
            None,
        );
        assert_valid_sarif(&schemas, index, &bare, &name(&case));
    }
}

/// The validation can fail: a log that breaks the schema is caught.
#[test]
fn the_schema_check_can_fail() {
    let (schemas, index) = sarif_schema();
    let broken = br#"{"version": "2.1.0", "runs": [{"tool": {"driver": {}}, "results": [{"level": "fatal", "message": {"text": "x"}}]}]}"#;
    let log: serde_json::Value = serde_json::from_slice(broken).unwrap();
    assert!(schemas.validate(&log, index).is_err());
}

/// Hostile paths and messages still make a valid log, and a run that failed
/// with nothing parsed says so in an error notification.
#[test]
fn hostile_and_unparsed_runs_make_valid_logs() {
    let (schemas, index) = sarif_schema();
    let mut items = Vec::new();
    for (i, file) in [
        "src/a b#c?.rs",
        "dir: name/100%.ts",
        "/abs/é ü/[x].c",
        "C:\\win\\path.c",
        "../up/x.py",
    ]
    .iter()
    .enumerate()
    {
        let mut item = EvidenceItem::new(ItemKind::Diagnostic, Severity::Warning, format!("d{i}"));
        item.location = Some(Location {
            file: file.to_string(),
            line: Some(i as u32 + 1),
            column: None,
        });
        item.summary = Some("line\nbreak \"quoted\" \u{0} nul".into());
        item.class = Some(format!("rule,{i}:x"));
        items.push(item);
    }
    let graph = EvidenceGraph {
        reader: ctx::evidence::Reader::family("lint"),
        outcome: Outcome::Failed,
        counts: Vec::new(),
        items,
        conclusion: Vec::new(),
    };
    let mut artifact = Artifact::new(
        b"x\n".to_vec(),
        vec![ctx::artifact::Segment {
            stream: ctx::artifact::Stream::Stdout,
            len: 2,
        }],
        ctx::artifact::Exit::Code(1),
        vec!["lint".into()],
    );
    let workspace = Workspace {
        root: Some("/w".into()),
        cwd: Some("/w/sub".into()),
    };
    let bytes = sarif::render(&artifact, &graph, "eslint/v1", &workspace, Some(&KEY));
    assert_valid_sarif(&schemas, index, &bytes, "hostile");
    let log: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let uris: Vec<&str> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(
        uris,
        [
            "sub/src/a%20b%23c%3F.rs",
            "sub/dir%3A%20name/100%25.ts",
            "file:///abs/%C3%A9%20%C3%BC/%5Bx%5D.c",
            "sub/C%3A%5Cwin%5Cpath.c",
            "up/x.py",
        ]
    );
    // Warnings only, exit 1: the log says the run failed unexplained.
    let notes = &log["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    assert_eq!(notes[0]["level"], "error", "{notes}");
    assert!(
        notes[0]["message"]["text"]
            .as_str()
            .unwrap()
            .starts_with("exit 1 but no error was parsed")
    );

    artifact.exit = ctx::artifact::Exit::Signal(9);
    let empty = EvidenceGraph::empty();
    let bytes = sarif::render(&artifact, &empty, "", &Workspace::default(), None);
    assert_valid_sarif(&schemas, index, &bytes, "empty");
}
