//! Invariant 8 through the built binary: a panic injected into each stage
//! after capture (`CTX_FAULT=<stage>`, honoured by debug builds only) still
//! prints the raw output, once, with the command's status and exactly one
//! `[ctx]` note, through `ctx run`, `ctx pipe`, `ctx digest` and a shim.

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use tempfile::TempDir;

const CTX: &str = env!("CARGO_BIN_EXE_ctx");

/// Every stage that can be made to fail.
const STAGES: [&str; 6] = ["classify", "extract", "plan", "archive", "render", "ledger"];

/// Output large enough to be digested (so every stage runs), exit 3.
const SCRIPT: &str = "i=0; while [ $i -lt 3000 ]; do echo \"line $i of the output\"; i=$((i+1)); done; echo oops >&2; exit 3";

fn raw_stdout() -> String {
    (0..3000)
        .map(|i| format!("line {i} of the output\n"))
        .collect()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn ctx(home: &Path, stage: &str) -> Command {
    let mut cmd = Command::new(CTX);
    cmd.env("CTX_HOME", home)
        .env("CTX_FAULT", stage)
        .env_remove("CTX_BUDGET");
    cmd
}

/// The raw output (or, for a fault in the ledger, which runs after the
/// output is out, the digest already written), and exactly one ctx note.
fn assert_fail_open(stage: &str, via: &str, out: &Output, raw: &str, status: i32) {
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(status), "{via} {stage}: {stderr}");
    if stage == "ledger" {
        let last = stdout.lines().last().unwrap_or_default();
        assert!(
            stdout == raw || last.starts_with("[ctx] full output"),
            "{via} {stage}: neither raw nor a whole digest:\n{stdout}"
        );
    } else {
        assert!(
            stdout == raw,
            "{via} {stage}: not the raw output:\n{stdout}"
        );
    }
    let notes: Vec<&str> = stderr.lines().filter(|l| l.starts_with("[ctx]")).collect();
    assert_eq!(notes.len(), 1, "{via} {stage}: notes {notes:?} in {stderr}");
    assert!(
        notes[0].contains("fault injected in"),
        "{via} {stage}: {stderr}"
    );
    assert!(
        !stderr.contains("panicked at"),
        "{via} {stage}: panic message leaked: {stderr}"
    );
}

#[test]
fn a_fault_in_any_stage_of_run_prints_the_raw_output() {
    let home = TempDir::new().expect("tempdir");
    for stage in STAGES {
        let out = ctx(home.path(), stage)
            .args(["run", "--", "sh", "-c", SCRIPT])
            .stdin(Stdio::null())
            .output()
            .expect("ctx runs");
        assert_fail_open(stage, "run", &out, &raw_stdout(), 3);
        if stage != "ledger" {
            // Replayed raw, each stream to its own descriptor.
            assert!(
                text(&out.stderr).starts_with("oops\n"),
                "run {stage}: {out:?}"
            );
        }
    }
}

#[test]
fn a_fault_in_any_stage_of_pipe_prints_the_raw_input() {
    let home = TempDir::new().expect("tempdir");
    let raw = raw_stdout();
    for stage in STAGES {
        let mut child = ctx(home.path(), stage)
            .arg("pipe")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("ctx starts");
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(raw.as_bytes()).expect("feed");
        drop(stdin);
        let out = child.wait_with_output().expect("ctx ends");
        assert_fail_open(stage, "pipe", &out, &raw, 0);
    }
}

#[test]
fn a_fault_in_any_stage_of_digest_prints_the_raw_file() {
    let home = TempDir::new().expect("tempdir");
    let log = home.path().join("saved.log");
    fs::write(&log, raw_stdout()).expect("write log");
    for stage in STAGES {
        let out = ctx(home.path(), stage)
            .arg("digest")
            .arg(&log)
            .stdin(Stdio::null())
            .output()
            .expect("ctx runs");
        assert_fail_open(stage, "digest", &out, &raw_stdout(), 0);
    }
}

#[test]
fn a_fault_in_any_stage_of_a_shim_prints_the_raw_output() {
    let dir = TempDir::new().expect("tempdir");
    let root = dir.path();
    for d in ["shims", "tools", "home"] {
        fs::create_dir(root.join(d)).expect("mkdir");
    }
    let tool = root.join("tools/chatty");
    fs::write(&tool, format!("#!/bin/sh\n{SCRIPT}\n")).expect("write tool");
    fs::set_permissions(&tool, fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = format!(
        "{}:{}:/usr/local/bin:/usr/bin:/bin",
        root.join("shims").display(),
        root.join("tools").display()
    );
    // A shim is only installed for a command found on PATH.
    let installed = Command::new(CTX)
        .env("CTX_HOME", root.join("home"))
        .env("PATH", &path)
        .args(["shims", "install", "--dir"])
        .arg(root.join("shims"))
        .arg("chatty")
        .output()
        .expect("ctx shims install");
    assert!(installed.status.success(), "{installed:?}");
    // Without a fault the shim digests (so the stages below really run).
    let digested = Command::new("bash")
        .args(["-c", "chatty"])
        .env("PATH", &path)
        .env("CTX_HOME", root.join("home"))
        // This test is the harness that introduces the variable: an agent.
        .env("CTX_AGENT", "test")
        .env_remove("CTX_FAULT")
        .env_remove("CTX_SHIM_DEPTH")
        .stdin(Stdio::null())
        .output()
        .expect("bash");
    assert_ne!(
        text(&digested.stdout),
        raw_stdout(),
        "the shim did not digest"
    );
    for stage in STAGES {
        let out = Command::new("bash")
            .args(["-c", "chatty"])
            .env("PATH", &path)
            .env("CTX_HOME", root.join("home"))
            .env("CTX_FAULT", stage)
            .env("CTX_AGENT", "test")
            .env_remove("CTX_BUDGET")
            .env_remove("CTX_DISABLE")
            .env_remove("CTX_SHIM_DEPTH")
            .stdin(Stdio::null())
            .output()
            .expect("bash");
        assert_fail_open(stage, "shim", &out, &raw_stdout(), 3);
    }
}
