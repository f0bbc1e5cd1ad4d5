//! `ctx run` keeps the child's output in the same spill chain as `ctx
//! pipe` (memory up to a threshold, then an unlinked file, then fallbacks)
//! and never loses a byte of it, whatever fails. The threshold is lowered
//! with `CTX_TEST_SPILL_BYTES` (debug builds only) so that a small output
//! spills.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use tempfile::TempDir;

/// Writes `out N` and `err N` lines alternately to stdout and stderr,
/// then exits 3.
const SCRIPT: &str = "i=0; while [ $i -lt 5000 ]; do echo \"out $i\"; echo \"err $i\" >&2; \
                      i=$((i+1)); done; exit 3";

fn expected(stream: &str) -> String {
    (0..5000).map(|i| format!("{stream} {i}\n")).collect()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `sh -c 'PRELUDE; exec ctx run --digest -- sh -c SCRIPT'` with a spill
/// threshold of 4 KiB and `env`.
fn ctx_run(home: &Path, prelude: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new("sh");
    cmd.args([
        "-c",
        &format!("{prelude}\nexec \"$0\" run --digest -- sh -c \"$1\""),
        env!("CARGO_BIN_EXE_ctx"),
        SCRIPT,
    ])
    .env("CTX_HOME", home)
    .env("CTX_TEST_SPILL_BYTES", "4096")
    .env_remove("CTX_TEST_SPILL_MEMORY_CAP")
    .env_remove("CTX_BUDGET")
    .env_remove("CTX_STORE")
    .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("ctx runs")
}

/// The `[ctx]` lines of stderr, and stderr without them.
fn notes(stderr: &[u8]) -> (Vec<String>, String) {
    let stderr = text(stderr);
    let (notes, rest): (Vec<&str>, Vec<&str>) =
        stderr.lines().partition(|l| l.starts_with("[ctx]"));
    let rest: String = rest.iter().map(|l| format!("{l}\n")).collect();
    (notes.into_iter().map(String::from).collect(), rest)
}

#[test]
fn spilled_output_is_archived_whole_stream_by_stream() {
    let home = TempDir::new().expect("tempdir");
    // No temporary directory: the spill moves on to ctx's data directory.
    let out = ctx_run(home.path(), "", &[("TMPDIR", "/nonexistent/tmp")]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let digest = text(&out.stdout);
    let key = digest
        .split("ctx expand ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no record named in {digest}"));
    for stream in ["out", "err"] {
        let name = if stream == "out" { "stdout" } else { "stderr" };
        let back = Command::new(env!("CARGO_BIN_EXE_ctx"))
            .args(["expand", key, "--all", "--stream", name])
            .env("CTX_HOME", home.path())
            .env_remove("CTX_STORE")
            .output()
            .expect("ctx expand runs");
        assert!(back.status.success(), "{}", text(&back.stderr));
        assert!(
            back.stdout == expected(stream).as_bytes(),
            "{name}: {} bytes back, {} expected",
            back.stdout.len(),
            expected(stream).len()
        );
    }
}

#[test]
fn output_nothing_can_keep_passes_through_raw_with_one_note() {
    let scratch = TempDir::new().expect("tempdir");
    let not_a_dir = scratch.path().join("home-is-a-file");
    std::fs::write(&not_a_dir, "").expect("write");
    let out = ctx_run(
        &not_a_dir,
        "",
        &[
            ("TMPDIR", "/nonexistent/tmp"),
            // Memory, the last place, holds no more than 8 KiB.
            ("CTX_TEST_SPILL_MEMORY_CAP", "8192"),
        ],
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        out.stdout == expected("out").as_bytes(),
        "{} of {} bytes on stdout",
        out.stdout.len(),
        expected("out").len()
    );
    let (notes, rest) = notes(&out.stderr);
    assert_eq!(rest, expected("err"), "stderr without ctx's notes");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("passed through raw"), "{notes:?}");
}

#[test]
fn a_file_size_limit_of_zero_loses_nothing() {
    // Every file write fails at once (EFBIG, or SIGXFSZ were it not
    // ignored): the spill file, the store.
    let home = TempDir::new().expect("tempdir");
    let out = ctx_run(home.path(), "ulimit -f 0", &[]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let (_, rest) = notes(&out.stderr);
    let raw = out.stdout == expected("out").as_bytes() && rest == expected("err");
    let digest = text(&out.stdout).starts_with("[ctx] ");
    assert!(
        raw || digest,
        "neither the raw streams nor a digest: {} bytes out, stderr {}",
        out.stdout.len(),
        text(&out.stderr)
    );
}
