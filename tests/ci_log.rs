//! CI job logs (ci_log/v1) against their truth (fixtures/ci_log/*/truth.json,
//! written by fixtures/ci_log/truth.py from the logs' own markers): every
//! failing step, every annotation and the failing step's census survive
//! at the default budget and under budget pressure; digests are
//! deterministic and do not change when only the timestamps do; the
//! family claims job logs by content and nothing else; the three ways in
//! (`ctx digest`, `ctx pipe`, `ctx run`) agree.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use ctx::archive::Known;
use ctx::artifact::{Artifact, Exit};
use ctx::pipeline::{self, Delivery, Options, Output};
use ctx::store::ArchiveKey;

#[path = "support/markers.rs"]
mod markers;

const CTX: &str = env!("CARGO_BIN_EXE_ctx");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn cases() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures/ci_log"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("case.json").is_file())
        .collect();
    out.sort();
    assert!(out.len() >= 5, "ci_log fixtures missing: {out:?}");
    out
}

struct Truth {
    failing_steps: Vec<String>,
    annotations: Vec<String>,
    census: Vec<String>,
}

fn truth(case: &Path) -> Truth {
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(case.join("truth.json")).unwrap()).unwrap();
    let list = |k: &str| -> Vec<String> {
        v[k].as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    Truth {
        failing_steps: list("failing_steps"),
        annotations: list("annotations"),
        census: list("census"),
    }
}

fn digest(artifact: &Artifact, budget: Option<usize>) -> (String, Delivery) {
    let d = pipeline::digest(
        artifact,
        &Known(ArchiveKey([0x5c; 32])),
        &Options {
            budget,
            ..Options::default()
        },
    )
    .unwrap();
    let text = match &d.output {
        Output::Digest(bytes) => String::from_utf8(bytes.clone()).unwrap(),
        Output::Raw => String::new(),
    };
    (text, d)
}

fn name(case: &Path) -> String {
    case.file_name().unwrap().to_string_lossy().into_owned()
}

/// Every failing step, every annotation (a whole line of the digest) and
/// every failing test of the truth is in the digest, at the default budget
/// and at every budget down to the evidence floor.
#[test]
fn every_failing_step_annotation_and_census_identity_survives() {
    for case in cases() {
        let artifact = ctx::fixture::load(&case).unwrap();
        let t = truth(&case);
        for budget in [None, Some(1000), Some(600), Some(400), Some(256)] {
            let (text, d) = digest(&artifact, budget);
            let at = format!("{} at {budget:?}", name(&case));
            assert_eq!(d.profile, "ci_log/v1", "{at}");
            assert!(
                matches!(d.output, Output::Digest(_)),
                "{at}: raw output ({:?})",
                d.rejection
            );
            for step in &t.failing_steps {
                assert!(
                    text.lines()
                        .any(|l| l.starts_with("[ctx] ✗") && l.contains(step.as_str())),
                    "{at}: failing step {step:?} not named:\n{text}"
                );
            }
            // Every error annotation whole; a warning or notice whole, or
            // (past the budget as asked) counted behind `--items`: the
            // markers count exactly the annotations not printed.
            let mut missing = 0;
            for a in &t.annotations {
                let shown = text
                    .lines()
                    .any(|l| l == a || l.ends_with(&format!(": {a}")));
                if shown {
                    continue;
                }
                assert!(
                    !a.contains("##[error]") && budget.is_some(),
                    "{at}: annotation {a:?} lost:\n{text}"
                );
                missing += 1;
            }
            let counted = markers::counted_behind_items(&text, "annotation");
            assert!(
                counted >= missing,
                "{at}: {missing} annotations neither printed nor counted:\n{text}"
            );
            for id in &t.census {
                assert!(
                    text.contains(id.as_str()),
                    "{at}: census identity {id:?} lost:\n{text}"
                );
            }
        }
    }
}

/// Under budget pressure the steps that succeeded leave first, declared;
/// the digest stays smaller than at the default budget and every census
/// identity the graph holds is named or counted behind `--items`.
#[test]
fn budget_pressure_keeps_the_census_complete() {
    for case in cases() {
        let artifact = ctx::fixture::load(&case).unwrap();
        let (_, full) = digest(&artifact, None);
        let (text, d) = digest(&artifact, Some(256));
        let trace = d.trace.as_ref().expect("a trace");
        assert!(
            d.delivered_tokens <= full.delivered_tokens,
            "{}: {} tokens under pressure, {} at the default budget",
            name(&case),
            d.delivered_tokens,
            full.delivered_tokens
        );
        let grouped: usize = trace
            .plan
            .omissions
            .iter()
            .filter(|o| matches!(o.address, ctx::plan::Address::Items(None)))
            .map(|o| o.count)
            .sum();
        let view = ctx::profiles::by_family("ci_log").unwrap().view(&artifact);
        let shown = view.as_ref().unwrap_or(&artifact);
        let mut unnamed = Vec::new();
        for item in trace.contract.census(&trace.graph) {
            let headline = item.headline.is_some_and(|h| {
                let line = ctx::normalize::line(shown.line(h.first));
                text.lines().any(|l| l == line)
            });
            if !(text.contains(item.identity.as_str()) || headline) {
                unnamed.push(item.identity.clone());
            }
        }
        assert!(
            unnamed.len() <= grouped,
            "{}: {} census identities neither named nor counted ({grouped} counted): {unnamed:?}\n{text}",
            name(&case),
            unnamed.len()
        );
    }
}

#[test]
fn digests_are_deterministic_and_blind_to_timestamps() {
    let stamp =
        regex::bytes::Regex::new(r"(?m)^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.(\d{7})Z")
            .unwrap();
    for case in cases() {
        let artifact = ctx::fixture::load(&case).unwrap();
        let (first, _) = digest(&artifact, None);
        assert_eq!(first, digest(&artifact, None).0, "{}", name(&case));
        // The same job a day later, every timestamp moved.
        let moved = stamp.replace_all(artifact.bytes(), &b"2031-01-02T03:04:05.6789012Z"[..]);
        if moved.as_ref() == artifact.bytes() {
            continue;
        }
        let again = Artifact::from_stdout(moved.into_owned(), artifact.exit, artifact.argv.clone());
        assert_eq!(
            first,
            digest(&again, None).0,
            "{}: timestamps leak into the digest",
            name(&case)
        );
        assert!(
            !first.contains("T16:48:") && !first.contains("2024-07-08T"),
            "{}: a timestamp is shown",
            name(&case)
        );
    }
}

fn family(bytes: &[u8]) -> &'static str {
    let a = Artifact::from_stdout(bytes.to_vec(), Exit::Unknown, vec![]);
    ctx::classify::choose(&a, None).unwrap().0.family()
}

/// Every other family's fixture is read as before: none is a job log.
#[test]
fn no_other_fixture_is_taken_for_a_job_log() {
    let fixtures = root().join("fixtures");
    for family_dir in std::fs::read_dir(&fixtures).unwrap().flatten() {
        if family_dir.file_name() == "ci_log" || !family_dir.path().is_dir() {
            continue;
        }
        for case in std::fs::read_dir(family_dir.path()).unwrap().flatten() {
            if !case.path().join("case.json").is_file() {
                continue;
            }
            let artifact = ctx::fixture::load(&case.path()).unwrap();
            let (profile, m) = ctx::classify::choose(&artifact, None).unwrap();
            assert_ne!(
                profile.family(),
                "ci_log",
                "{}: taken for a CI log ({})",
                case.path().display(),
                m.reason
            );
        }
    }
}

#[test]
fn shapes_that_are_not_job_logs_stay_where_they_were() {
    // A service's log with millisecond UTC timestamps is a log.
    let mut service = String::new();
    for i in 0..40 {
        service.push_str(&format!(
            "2024-07-08T16:48:{:02}.{:03}Z INFO request served path=/api/{i}\n",
            i % 60,
            i
        ));
    }
    service.push_str("2024-07-08T16:49:00.000Z ERROR upstream timed out\n");
    assert_eq!(family(service.as_bytes()), "log");
    // pytest with the GitHub annotation plugin, printed to a terminal:
    // `::error` lines without the runner's timestamps are pytest's.
    let pytest = "============================= test session starts ==============================\n\
platform linux -- Python 3.12.3, pytest-8.3.2, pluggy-1.5.0\n\
collected 2 items\n\ntests/test_a.py F.                                                      [100%]\n\n\
=================================== FAILURES ===================================\n\
::error file=tests/test_a.py,line=3::test_one failed\n\
=========================== short test summary info ============================\n\
FAILED tests/test_a.py::test_one - assert 1 == 2\n\
========================= 1 failed, 1 passed in 0.01s ==========================\n";
    assert_eq!(family(pytest.as_bytes()), "pytest");
    // A shell script that prints GitLab's markers inside its lines.
    let script =
        "#!/bin/sh\necho -e \"section_start:`date +%s`:build\\r\\e[0KBuilding\"\nmake all\n"
            .repeat(30);
    assert_ne!(family(script.as_bytes()), "ci_log");
    // One timestamped line among plain ones.
    let mut mixed = String::from("2024-07-08T16:48:09.3763139Z started\n");
    for i in 0..60 {
        mixed.push_str(&format!("plain line {i}\n"));
    }
    assert_ne!(family(mixed.as_bytes()), "ci_log");
}

#[test]
fn job_logs_are_claimed_by_content() {
    for case in cases() {
        let artifact = ctx::fixture::load(&case).unwrap();
        let (profile, m) = ctx::classify::choose(&artifact, None).unwrap();
        assert_eq!(profile.family(), "ci_log", "{}: {}", name(&case), m.reason);
    }
    // `gh run view --log` puts the job and the step before each line.
    let raw = std::fs::read(root().join("fixtures/ci_log/gha-pytest-reruns/stdout")).unwrap();
    let mut gh = Vec::new();
    for line in raw.split(|&b| b == b'\n').skip(1).take(200) {
        gh.extend_from_slice(b"test (inductor, 1)\tRun tests\t");
        gh.extend_from_slice(line);
        gh.push(b'\n');
    }
    assert_eq!(family(&gh), "ci_log");
    let a = Artifact::from_stdout(gh, Exit::Unknown, vec![]);
    let (text, _) = digest(&a, None);
    assert!(text.contains("Run tests"), "{text}");
    assert!(!text.contains("\tRun tests\t"), "{text}");
}

fn run(args: &[&str], stdin: Option<&[u8]>, home: &Path) -> String {
    let mut child = Command::new(CTX)
        .args(args)
        .env("CTX_HOME", home)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(bytes) = stdin {
        child.stdin.take().unwrap().write_all(bytes).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `ctx digest job.log`, `cat job.log | ctx pipe` and `ctx run -- cat
/// job.log` give the same digest (ctx run adds the command's exit status).
#[test]
fn digest_pipe_and_run_agree() {
    let home = tempfile::TempDir::new().unwrap();
    let log = root().join("fixtures/ci_log/gha-pytorch-test-step/stdout");
    let log = log.to_str().unwrap();
    let digested = run(&["digest", log], None, home.path());
    let piped = run(&["pipe"], Some(&std::fs::read(log).unwrap()), home.path());
    let ran = run(&["run", "--digest", "--", "cat", log], None, home.path());
    assert!(
        digested.starts_with("github actions job: FAILED · 66 steps, 2 failed, 2 errors\n"),
        "{digested}"
    );
    assert_eq!(digested, piped);
    assert!(
        ran.starts_with("github actions job: FAILED · 66 steps, 2 failed, 2 errors · exit 0\n"),
        "{ran}"
    );
    // The record of `ctx run` holds the command and its status: another key.
    let key = regex::Regex::new(r"ctx expand [0-9a-f]{12}").unwrap();
    let unkeyed = |s: &str| {
        key.replace_all(s, "ctx expand H")
            .lines()
            .skip(1)
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(unkeyed(&ran), unkeyed(&digested));
    // The archive keeps the timestamps: a marker's lines come back whole.
    let marker = digested
        .lines()
        .find_map(|l| {
            l.split_once("ctx expand ")
                .map(|(_, rest)| rest.to_string())
        })
        .filter(|rest| rest.contains("--lines"))
        .expect("a --lines marker");
    let args: Vec<&str> = std::iter::once("expand").chain(marker.split(' ')).collect();
    let expanded = run(&args, None, home.path());
    assert!(
        expanded
            .lines()
            .next()
            .is_some_and(|l| l.starts_with("2024-07-08T")),
        "{expanded}"
    );
}

/// A step's output inside a GitHub job log: every line behind a
/// timestamp, between the runner's own lines and a failed step's
/// `##[error]`, as the runner writes it.
fn job_around(output: &[u8], run: &str, exit: i32) -> Vec<u8> {
    let mut log = Vec::new();
    let mut line = |text: &[u8]| {
        log.extend_from_slice(b"2026-11-30T10:00:00.1234567Z ");
        log.extend_from_slice(text);
        log.push(b'\n');
    };
    line(b"Current runner version: '2.321.0'");
    line(b"##[group]Run actions/checkout@v4");
    line(b"with:");
    line(b"##[endgroup]");
    line(b"Syncing repository: example/app");
    line(format!("##[group]Run {run}").as_bytes());
    line(run.as_bytes());
    line(b"shell: /usr/bin/bash -e {0}");
    line(b"##[endgroup]");
    let body = output.strip_suffix(b"\n").unwrap_or(output);
    for l in body.split(|&b| b == b'\n') {
        line(l);
    }
    line(format!("##[error]Process completed with exit code {exit}.").as_bytes());
    line(b"Post job cleanup.");
    line(b"Cleaning up orphan processes");
    log
}

/// A test run's or a build's real output (the families' own fixtures,
/// captured from the tools here) as a step of a job: the step is read by
/// that family, and every failure and error its truth names is in the
/// digest, as the family's own digest would name it.
#[test]
fn a_failing_step_gets_its_familys_census() {
    let cases = [
        ("cargo_test/default", "cargo test", "cargo test"),
        // A test target that does not compile reads as a build, as it
        // does through `ctx pipe`: no test ran.
        ("cargo_test/build-failed", "cargo test", "cargo"),
        (
            "cargo_build/clippy-deny-error",
            "cargo clippy -- -D warnings",
            "cargo",
        ),
        ("pytest/default", "pytest", "pytest"),
    ];
    for (case, run, tool) in cases {
        // 15 pytest ids with the log's frame do not fit 400 tokens (the
        // census would be grouped): the log is asked for more.
        let budget = if tool == "pytest" { 700 } else { 400 };
        let dir = root().join("fixtures").join(case);
        let captured = ctx::fixture::load(&dir).unwrap();
        let exit = match captured.exit {
            Exit::Code(c) => c,
            _ => 1,
        };
        let log = job_around(captured.bytes(), run, exit);
        let artifact = Artifact::from_stdout(log, Exit::Unknown, vec![]);
        // Small enough to be printed whole at the default budget: asked
        // for a digest under a tighter one.
        let (text, d) = digest(&artifact, Some(budget));
        assert_eq!(d.profile, "ci_log/v1", "{case}");
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("[ctx] read as {tool}")) && l.contains("FAILED")),
            "{case}: the step is not read as {tool}:\n{text}"
        );
        assert!(
            text.lines()
                .any(|l| l.starts_with("[ctx] ✗ step 3 failed: Run ") && l.contains(run)),
            "{case}:\n{text}"
        );
        let truth: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("truth.json")).unwrap()).unwrap();
        for f in truth["failures"].as_array().into_iter().flatten() {
            // Read as a build (no test ran), the errors are the census;
            // the test target's `could not compile` line is an item of the
            // test runner's reading only, as through `ctx pipe`.
            if f["kind"].as_str() == Some("build_failed") && tool == "cargo" {
                continue;
            }
            let id = f["id"].as_str().unwrap();
            // `src/lib.rs tests::x`: the test's name; `file:line:col CODE`:
            // the place and the code, on one line (the compact census
            // names the file once, `line:col CODE` under it).
            let named = match id.split_once(' ') {
                Some((_, name)) if !name.starts_with('E') => text.contains(name),
                Some((place, code)) => {
                    let (file, at) = place.split_once(':').unwrap();
                    text.contains(file)
                        && text
                            .lines()
                            .any(|l| l.contains(&format!("{at} {code}")) || l.contains(id))
                }
                // `file.py::Class::test[params]`: the file once, the test
                // under it (parametrized cases share their test's line).
                None => match id.split_once("::") {
                    Some((file, rest)) => {
                        let name = rest.split('[').next().unwrap_or(rest);
                        text.contains(file) && text.contains(name)
                    }
                    None => text.contains(id),
                },
            };
            assert!(named, "{case}: {id} lost:\n{text}");
        }
        for diag in truth["diagnostics"].as_array().into_iter().flatten() {
            if diag["severity"].as_str() != Some("error") {
                continue;
            }
            let file = diag["file"].as_str().unwrap();
            let line = &diag["line"];
            let at = format!("{file}:{line}");
            let under_file = text.contains(file)
                && text
                    .lines()
                    .any(|l| l.trim_start().starts_with(&format!("{line}:")));
            assert!(
                text.contains(&at) || under_file,
                "{case}: {at} lost:\n{text}"
            );
        }
    }
}

/// GitLab's `Job failed` line is told with the section it failed in; when
/// the runner's lines around it are a window too (another `ERROR:` of the
/// runner failed them), the line is printed once and the digest stands.
#[test]
fn a_line_two_steps_claim_is_printed_once() {
    let mut trace = String::from("\x1b[0KRunning with gitlab-runner 17.0.0 (abc)\n");
    trace.push_str("\x1b[0Ksection_start:1700000000:step_script\r\x1b[0K\x1b[0K\x1b[36;1mExecuting \"step_script\" stage of the job script\x1b[0;m\n");
    for i in 0..200 {
        trace.push_str(&format!(
            "compiling unit {i} of 200 with the release profile\n"
        ));
    }
    trace.push_str("make: *** [Makefile:12: all] Error 2\n");
    trace.push_str("section_end:1700000100:step_script\r\x1b[0K\n");
    for i in 0..40 {
        trace.push_str(&format!("Uploading artifacts part {i} to coordinator\n"));
    }
    trace.push_str("\x1b[31;1mERROR: Uploading artifacts as \"archive\" to coordinator... 500 Internal Server Error\x1b[0;m\n");
    trace.push_str("\x1b[31;1mERROR: Job failed: exit code 2\x1b[0;m\n");
    let a = Artifact::from_stdout(trace.into_bytes(), Exit::Unknown, vec![]);
    let (text, d) = digest(&a, None);
    assert!(matches!(d.output, Output::Digest(_)), "{:?}", d.rejection);
    // Its raw line once (in the runner's window), its census line with
    // the section it failed in.
    assert_eq!(
        text.lines()
            .filter(|l| *l == "ERROR: Job failed: exit code 2")
            .count(),
        1,
        "{text}"
    );
    assert!(
        text.contains("[ctx] error step_script: ERROR: Job failed: exit code 2"),
        "{text}"
    );
    assert!(text.contains("ERROR: Uploading artifacts"), "{text}");
    assert!(
        text.contains("✗ section 2 failed: step_script · exit 2"),
        "{text}"
    );
}

/// Whether the digest names a failure of a family's truth (`failures[].id`)
/// as that family's digest names it: a test by its name under its file, a
/// diagnostic by its place and code.
fn failure_named(text: &str, id: &str) -> bool {
    let code = |w: &str| {
        w.strip_prefix('E')
            .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
    };
    match id.split_once(' ') {
        Some((_, name)) if !code(name) => text.contains(name),
        Some((place, code)) => {
            let (file, at) = place.split_once(':').unwrap();
            text.contains(file)
                && text
                    .lines()
                    .any(|l| l.contains(&format!("{at} {code}")) || l.contains(id))
        }
        None => match id.split_once("::") {
            Some((file, rest)) => {
                let name = rest.split('[').next().unwrap_or(rest);
                text.contains(file) && text.contains(name)
            }
            // `file:line:col`: whole, or its place under its file.
            None => match id.split_once(':') {
                Some((file, at)) if at.starts_with(|c: char| c.is_ascii_digit()) => {
                    text.contains(id)
                        || (text.contains(file)
                            && text
                                .lines()
                                .any(|l| l.trim_start().starts_with(&format!("{at} "))))
                }
                _ => text.contains(id),
            },
        },
    }
}

/// Whether the digest names a diagnostic of a family's truth: `file:line`,
/// or the file and, under it, a compact-census line opening with `line:`.
fn diagnostic_named(text: &str, diag: &serde_json::Value) -> bool {
    // A diagnostic that names no file (a linker's, a driver's) is a line.
    let Some(file) = diag["file"].as_str() else {
        return text.contains(diag["message"].as_str().unwrap());
    };
    let line = &diag["line"];
    text.contains(&format!("{file}:{line}"))
        || (text.contains(file)
            && text
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("{line}:"))))
}

/// A log without step markers, or a failing step, that holds two tools'
/// real output one after the other (the families' own fixtures, captured
/// here): a build with errors then a failing test run, or the other way
/// round. Each tool's part is read by its own family, and every failure
/// and every error of both truths is in the digest, whether the log
/// reaches ctx as a GitHub raw log without step markers, as plain lines
/// read with `--as ci_log`, or as one step (`Run make ci`) of a job.
#[test]
fn every_family_a_log_or_a_step_holds_is_read() {
    let home = tempfile::TempDir::new().unwrap();
    let cases: [(&str, &str); 4] = [
        ("cargo_build/clippy-deny-error", "pytest/default"),
        ("pytest/default", "cargo_build/clippy-deny-error"),
        ("gcc/gcc-make-errors", "pytest/many-failures"),
        ("cargo_build/build-flood-one-error", "go_test/plain"),
    ];
    for (one, two) in cases {
        let (a, b) = (
            root().join("fixtures").join(one),
            root().join("fixtures").join(two),
        );
        let mut plain = ctx::fixture::load(&a).unwrap().bytes().to_vec();
        plain.extend_from_slice(ctx::fixture::load(&b).unwrap().bytes());
        let mut stamped = Vec::new();
        for l in plain
            .strip_suffix(b"\n")
            .unwrap_or(&plain)
            .split(|&c| c == b'\n')
        {
            stamped.extend_from_slice(b"2026-11-30T10:00:00.1234567Z ");
            stamped.extend_from_slice(l);
            stamped.push(b'\n');
        }
        let log = home.path().join("job.log");
        std::fs::write(&log, &plain).unwrap();
        let forced = run(
            &["digest", "--as", "ci_log", log.to_str().unwrap()],
            None,
            home.path(),
        );
        let artifact = Artifact::from_stdout(stamped, Exit::Unknown, vec![]);
        let (sniffed, d) = digest(&artifact, None);
        assert_eq!(d.profile, "ci_log/v1", "{one} + {two}");
        let job = Artifact::from_stdout(job_around(&plain, "make ci", 2), Exit::Unknown, vec![]);
        let (step, _) = digest(&job, None);
        for part in ["1 of 2", "2 of 2"] {
            assert!(
                step.lines().any(|l| l.starts_with("[ctx] ✗ step")
                    && l.contains(&format!("Run make ci (part {part})"))),
                "{one} then {two}: part {part} of the step not named as failed:\n{step}"
            );
        }
        for (how, text) in [
            ("--as ci_log", &forced),
            ("timestamped", &sniffed),
            ("one step", &step),
        ] {
            let at = format!("{one} then {two} ({how})");
            for dir in [&a, &b] {
                let truth: serde_json::Value =
                    serde_json::from_slice(&std::fs::read(dir.join("truth.json")).unwrap())
                        .unwrap();
                for f in truth["failures"].as_array().into_iter().flatten() {
                    let id = f["id"].as_str().unwrap();
                    assert!(failure_named(text, id), "{at}: {id} lost:\n{text}");
                }
                // Errors by name; warnings, as the family's own digest
                // does beside errors, by count behind `--items`.
                let diagnostics = truth["diagnostics"].as_array().into_iter().flatten();
                for diag in diagnostics.filter(|d| d["severity"] == "error") {
                    assert!(diagnostic_named(text, diag), "{at}: {diag} lost:\n{text}");
                }
            }
        }
    }
}

/// A task's output inside an Azure Pipelines job log, every line behind
/// the agent's timestamp: the job's section around the agent's steps and
/// a failing command-line task's, as the agent writes them (no licensed
/// Azure log was found to keep as a fixture).
fn azure_around(output: &[u8], task: &str, exit: i32) -> Vec<u8> {
    let mut log = Vec::new();
    let mut line = |text: &[u8]| {
        log.extend_from_slice(b"2026-11-30T10:00:00.1234567Z ");
        log.extend_from_slice(text);
        log.push(b'\n');
    };
    for l in [
        "##[section]Starting: Linux",
        "##[section]Starting: Initialize job",
        "Agent name: 'Azure Pipelines 2'",
        "##[section]Finishing: Initialize job",
        "##[section]Starting: Checkout example/app@main to s",
        "##[command]git checkout --progress --force refs/remotes/origin/main",
        "##[section]Finishing: Checkout example/app@main to s",
    ] {
        line(l.as_bytes());
    }
    line(format!("##[section]Starting: {task}").as_bytes());
    line(b"========================== Starting Command Output ===========================");
    line(b"[command]/usr/bin/bash --noprofile --norc /home/vsts/work/_temp/a1b2.sh");
    let body = output.strip_suffix(b"\n").unwrap_or(output);
    for l in body.split(|&b| b == b'\n') {
        line(l);
    }
    line(format!("##[error]Bash exited with code '{exit}'.").as_bytes());
    line(format!("##[section]Finishing: {task}").as_bytes());
    for l in [
        "##[section]Starting: Finalize Job",
        "Cleaning up task key",
        "##[section]Finishing: Finalize Job",
        "##[section]Finishing: Linux",
    ] {
        line(l.as_bytes());
    }
    log
}

/// A stage's output inside a Jenkins pipeline console log: the checkout,
/// the failing stage's `sh` step, a later stage skipped because of it and
/// the verdict, as Jenkins writes them (no licensed Jenkins log was found
/// to keep as a fixture).
fn jenkins_around(output: &[u8], stage: &str, command: &str, exit: i32) -> Vec<u8> {
    let mut log = String::from(
        "Started by user admin\n\
Obtained Jenkinsfile from git https://example.com/app.git\n\
[Pipeline] Start of Pipeline\n[Pipeline] node\n\
Running on Jenkins in /var/jenkins_home/workspace/app\n[Pipeline] {\n\
[Pipeline] stage\n[Pipeline] { (Declarative: Checkout SCM)\n[Pipeline] checkout\n\
Checking out Revision 0123456789abcdef (refs/remotes/origin/main)\n[Pipeline] }\n[Pipeline] // stage\n\
[Pipeline] withEnv\n[Pipeline] {\n[Pipeline] stage\n",
    )
    .into_bytes();
    log.extend_from_slice(
        format!("[Pipeline] {{ ({stage})\n[Pipeline] sh\n+ {command}\n").as_bytes(),
    );
    log.extend_from_slice(output);
    if !output.ends_with(b"\n") {
        log.push(b'\n');
    }
    log.extend_from_slice(
        format!(
            "[Pipeline] }}\n[Pipeline] // stage\n[Pipeline] stage\n[Pipeline] {{ (Deploy)\n\
Stage \"Deploy\" skipped due to earlier failure(s)\n[Pipeline] }}\n[Pipeline] // stage\n\
[Pipeline] }}\n[Pipeline] // withEnv\n[Pipeline] }}\n[Pipeline] // node\n[Pipeline] End of Pipeline\n\
ERROR: script returned exit code {exit}\nFinished: FAILURE\n"
        )
        .as_bytes(),
    );
    log
}

/// Azure Pipelines and Jenkins logs around real tool output (the
/// families' own fixtures): claimed by content, the failing step or
/// stage named first and read by its family with every failure and error
/// of its truth, the job's error lines kept verbatim, the other steps
/// listed with their outcome.
#[test]
fn azure_and_jenkins_logs_name_the_failing_step_and_its_census() {
    let cases = [
        ("pytest/default", "pytest", "pytest"),
        (
            "cargo_build/clippy-deny-error",
            "cargo clippy -- -D warnings",
            "cargo",
        ),
    ];
    for (case, command, tool) in cases {
        let dir = root().join("fixtures").join(case);
        let captured = ctx::fixture::load(&dir).unwrap();
        let exit = match captured.exit {
            Exit::Code(c) => c,
            _ => 1,
        };
        let logs = [
            (
                "azure",
                azure_around(captured.bytes(), "Run tests", exit),
                "azure pipelines job: FAILED",
                "[ctx] ✗ step 4 failed: Run tests",
                vec![format!("##[error]Bash exited with code '{exit}'.")],
            ),
            (
                "jenkins",
                jenkins_around(captured.bytes(), "Test", command, exit),
                "jenkins pipeline: FAILED · 7 stages, 1 failed, 1 skipped,",
                "[ctx] ✗ stage 4 failed: Test",
                vec![
                    format!("ERROR: script returned exit code {exit}"),
                    "Finished: FAILURE".to_string(),
                ],
            ),
        ];
        for (dialect, log, header, failing, errors) in logs {
            let at = format!("{case} in {dialect}");
            assert_eq!(family(&log), "ci_log", "{at}");
            let artifact = Artifact::from_stdout(log, Exit::Unknown, vec![]);
            let (text, d) = digest(&artifact, Some(600));
            assert!(
                matches!(d.output, Output::Digest(_)),
                "{at}: {:?}",
                d.rejection
            );
            assert!(text.starts_with(header), "{at}:\n{text}");
            assert!(
                text.lines().any(|l| l.starts_with(failing)),
                "{at}: the failing step is not named first:\n{text}"
            );
            assert!(
                text.lines().any(
                    |l| l.starts_with(&format!("[ctx] read as {tool}")) && l.contains("FAILED")
                ),
                "{at}: not read as {tool}:\n{text}"
            );
            for e in &errors {
                assert!(
                    text.lines()
                        .any(|l| l == e || l.ends_with(&format!(": {e}"))),
                    "{at}: {e:?} lost:\n{text}"
                );
            }
            let truth: serde_json::Value =
                serde_json::from_slice(&std::fs::read(dir.join("truth.json")).unwrap()).unwrap();
            for f in truth["failures"].as_array().into_iter().flatten() {
                let id = f["id"].as_str().unwrap();
                assert!(failure_named(&text, id), "{at}: {id} lost:\n{text}");
            }
            let diagnostics = truth["diagnostics"].as_array().into_iter().flatten();
            for diag in diagnostics.filter(|d| d["severity"] == "error") {
                assert!(diagnostic_named(&text, diag), "{at}: {diag} lost:\n{text}");
            }
            // Timestamps stay in the archive.
            assert!(!text.contains("2026-11-30T10:00:00"), "{at}:\n{text}");
        }
    }
}

/// Fixtures that are several tools' output by design: `ctest`, then
/// `python -m unittest`, from one check script.
const SEVERAL_TOOLS: &[&str] = &["text/ci-script-mixed"];

/// One tool's real output as a log without step markers stays one part:
/// a `cargo test` run's build lines, a make-driven gcc build, a pytest run
/// with its warnings summary, go test's build failures among its tests,
/// a pip install that compiles a native package are each one family's
/// output, never cut into two. Every other family's fixture is taken.
#[test]
fn one_tools_output_is_never_cut() {
    let ci_log = ctx::profiles::by_family("ci_log").unwrap();
    let mut seen = 0;
    for dir in std::fs::read_dir(root().join("fixtures"))
        .unwrap()
        .flatten()
    {
        if dir.file_name() == "ci_log" || !dir.path().is_dir() {
            continue;
        }
        for case in std::fs::read_dir(dir.path()).unwrap().flatten() {
            if !case.path().join("case.json").is_file() {
                continue;
            }
            let captured = ctx::fixture::load(&case.path()).unwrap();
            let body = captured.bytes();
            let mut log = Vec::new();
            for l in body
                .strip_suffix(b"\n")
                .unwrap_or(body)
                .split(|&b| b == b'\n')
            {
                log.extend_from_slice(b"2026-11-30T10:00:00.1234567Z ");
                log.extend_from_slice(l);
                log.push(b'\n');
            }
            let artifact = Artifact::from_stdout(log, Exit::Unknown, vec![]);
            let (graph, _) = ci_log.extract(&artifact);
            let steps = graph
                .items
                .iter()
                .filter(|i| i.kind == ctx::evidence::ItemKind::Step)
                .count();
            // A check script that runs two tools in turn is two tools'
            // output: the cutter gives each its part.
            let name = format!(
                "{}/{}",
                dir.file_name().to_string_lossy(),
                case.file_name().to_string_lossy()
            );
            let tools = if SEVERAL_TOOLS.contains(&name.as_str()) {
                2
            } else {
                1
            };
            assert_eq!(
                steps,
                tools,
                "{}: cut into {steps} parts",
                case.path().display()
            );
            seen += 1;
        }
    }
    assert!(seen > 200, "only {seen} fixtures read");
}
