//! Without an exit status (`ctx digest FILE`, `CMD | ctx pipe`) the outcome
//! comes from the evidence alone, and evidence of anything but a clean,
//! complete pass is never PASSED or OK. Checked for every family on every
//! captured fixture: the run as captured, the run cut in the middle (a
//! size-capped CI log), and the run cut just before its last lines (the
//! summary lost).

use std::path::{Path, PathBuf};

use ctx::archive::Known;
use ctx::artifact::{Artifact, Exit};
use ctx::classify;
use ctx::evidence::Outcome;
use ctx::fixture;
use ctx::pipeline::{self, Options, Output};
use ctx::store::ArchiveKey;

fn cases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut out = Vec::new();
    for family in std::fs::read_dir(&root).unwrap().flatten() {
        if !family.path().is_dir() {
            continue;
        }
        for case in std::fs::read_dir(family.path()).unwrap().flatten() {
            if case.path().join("case.json").is_file() {
                out.push(case.path());
            }
        }
    }
    out.sort();
    out
}

/// The artifact as `ctx digest` reads it: same bytes, no exit status.
fn unknown(a: &Artifact, keep_lines: usize) -> Artifact {
    let end = a.line_start(keep_lines + 1).unwrap_or(a.bytes().len());
    let mut copy = Artifact::from_stdout(a.bytes()[..end].to_vec(), Exit::Unknown, a.argv.clone());
    copy.cwd = a.cwd.clone();
    copy
}

fn green(outcome: Outcome) -> bool {
    matches!(outcome, Outcome::Passed | Outcome::Ok)
}

#[test]
fn failed_runs_without_exit_status_never_read_green() {
    let mut checked = 0;
    let mut wrong = Vec::new();
    for dir in cases() {
        let full = fixture::load(&dir).unwrap();
        let (profile, _) = classify::choose(&full, None).unwrap();
        if !full.exit.is_failure() {
            continue;
        }
        let a = unknown(&full, full.line_count());
        let (graph, _) = profile.extract(&a);
        if green(graph.outcome) {
            wrong.push(format!("{}: reads {:?}", dir.display(), graph.outcome));
        }
        checked += 1;
    }
    assert!(checked > 50, "{checked}");
    assert!(
        wrong.is_empty(),
        "failed runs read green:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn cut_runs_without_exit_status_never_read_green() {
    let mut wrong = Vec::new();
    for dir in cases() {
        let full = fixture::load(&dir).unwrap();
        let (profile, _) = classify::choose(&full, None).unwrap();
        if profile.family() == "text" || full.line_count() < 6 {
            continue;
        }
        // Cut mid-way, and cut just before the last lines, where every tool
        // prints its summary.
        for keep in [full.line_count() / 2, full.line_count() - 3] {
            let a = unknown(&full, keep);
            let (graph, receipt) = profile.extract(&a);
            if green(graph.outcome) {
                // Green is only allowed when the cut left a complete,
                // clean report (the cut fell after the summary).
                let (clean, _) = profile.extract(&unknown(&full, full.line_count()));
                if !(receipt.is_complete()
                    && ctx::contract::for_family(profile.family())
                        .unwrap()
                        .census(&graph)
                        .next()
                        .is_none()
                    && green(clean.outcome)
                    && !full.exit.is_failure())
                {
                    wrong.push(format!(
                        "{} cut at {keep}/{}: reads {:?} ({:?})",
                        dir.display(),
                        full.line_count(),
                        graph.outcome,
                        receipt.precision
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "cut runs read green:\n{}",
        wrong.join("\n")
    );
}

/// `pytest --cov` without pytest-cov's kind of end: a plugin raising in a
/// hook. The summary says `3 passed`, the exit status (3) is gone: the
/// digest must say ERROR and keep the INTERNALERROR line.
#[test]
fn pytest_internalerror_digest_without_exit_status() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pytest/internal-error");
    let full = fixture::load(&dir).unwrap();
    for argv in [full.argv.clone(), Vec::new()] {
        let mut a = unknown(&full, full.line_count());
        a.argv = argv;
        let d = pipeline::digest(&a, &Known(ArchiveKey([7; 32])), &Options::default()).unwrap();
        let Output::Digest(bytes) = &d.output else {
            panic!("raw output: {:?}", d.rejection)
        };
        let text = String::from_utf8_lossy(bytes);
        let header = text.lines().next().unwrap();
        assert!(header.starts_with("pytest: ERROR"), "{text}");
        assert!(
            text.contains(
                "INTERNALERROR> RuntimeError: report hook failed: no database connection"
            ),
            "{text}"
        );
    }
}

/// A run whose outcome is not green and where no item at all was parsed
/// (a cut log, a crash the profile has no words for) keeps the head, the
/// decisive lines and the tail of its output: never counts alone.
#[test]
fn not_green_without_census_keeps_raw_lines() {
    let mut wrong = Vec::new();
    for dir in cases() {
        let full = fixture::load(&dir).unwrap();
        let (profile, _) = classify::choose(&full, None).unwrap();
        if profile.family() == "text" || full.line_count() < 6 {
            continue;
        }
        for keep in [full.line_count() / 2, full.line_count()] {
            let a = unknown(&full, keep);
            let d = pipeline::digest(&a, &Known(ArchiveKey([7; 32])), &Options::default()).unwrap();
            let Some(trace) = &d.trace else { continue };
            if d.output == Output::Raw
                || green(trace.graph.outcome)
                || !trace.graph.items.is_empty()
            {
                continue;
            }
            let raw_lines = trace
                .plan
                .blocks
                .iter()
                .any(|b| matches!(b, ctx::plan::Block::Raw(_)));
            if !raw_lines {
                wrong.push(format!(
                    "{} cut at {keep}: {:?} with counts only ({:?})",
                    dir.display(),
                    trace.graph.outcome,
                    trace.plan.rung
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The other side: a clean run whose report is complete stays green
/// without its exit status (test runners always print a summary; cargo
/// prints `Finished` only on success).
#[test]
fn clean_complete_runs_stay_green_without_exit_status() {
    let runners = ["pytest", "cargo_test", "go_test", "jest", "vitest", "junit"];
    let mut checked = Vec::new();
    for dir in cases() {
        let full = fixture::load(&dir).unwrap();
        let (profile, _) = classify::choose(&full, None).unwrap();
        let (known, _) = profile.extract(&full);
        let contract = ctx::contract::for_family(profile.family()).unwrap();
        let clean = full.exit == Exit::Code(0) && contract.census(&known).next().is_none();
        let family = profile.family();
        if !clean || !(runners.contains(&family) || family == "cargo_build") {
            continue;
        }
        let (graph, _) = profile.extract(&unknown(&full, full.line_count()));
        assert!(
            green(graph.outcome),
            "{}: a clean run reads {:?} without its exit status",
            dir.display(),
            graph.outcome
        );
        checked.push(family);
    }
    for family in runners.iter().chain(&["cargo_build"]) {
        assert!(
            checked.contains(family),
            "no clean {family} fixture: {checked:?}"
        );
    }
}

/// The same through the built binary, as a user runs it: `ctx digest FILE`
/// and `CMD | ctx pipe` on a saved pytest run that ended in INTERNALERROR.
#[test]
fn ctx_digest_and_pipe_say_error_for_an_internalerror() {
    use std::io::Write;
    let home = tempfile::tempdir().unwrap();
    let log = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pytest/internal-error/stdout");
    let command = |args: &[&str]| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_ctx"));
        c.args(args)
            .env("CTX_HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join("config"))
            .env_remove("CTX_BUDGET")
            .env_remove("CTX_STORE")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        c
    };
    let digest = command(&["digest", log.to_str().unwrap()])
        .output()
        .unwrap();
    let mut pipe = command(&["pipe"]).spawn().unwrap();
    pipe.stdin
        .take()
        .unwrap()
        .write_all(&std::fs::read(&log).unwrap())
        .unwrap();
    let piped = pipe.wait_with_output().unwrap();
    for out in [digest, piped] {
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.starts_with("pytest: ERROR · 3 passed\n"), "{text}");
        assert!(
            text.contains(
                "INTERNALERROR> RuntimeError: report hook failed: no database connection"
            ),
            "{text}"
        );
    }
}
