//! A usage error in `ctx pipe` or `ctx run` never loses the input or the
//! command (docs/invariants.md): the input passes through raw, the
//! command runs with its own status, and the error is one line on stderr
//! naming the nearest valid name.

use std::io::Write;
use std::process::{Command, Output, Stdio};

const CTX: &str = env!("CARGO_BIN_EXE_ctx");

fn pipe(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(CTX)
        .arg("pipe")
        .args(args)
        .env("CTX_HOME", tempfile::tempdir().expect("tempdir").keep())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ctx pipe");
    let mut stdin = child.stdin.take().expect("stdin");
    let bytes = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&bytes));
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer").expect("write input");
    out
}

fn run(args: &[&str]) -> Output {
    Command::new(CTX)
        .arg("run")
        .args(args)
        .env("CTX_HOME", tempfile::tempdir().expect("tempdir").keep())
        .stdin(Stdio::null())
        .output()
        .expect("ctx run")
}

fn one_line(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr).into_owned();
    assert_eq!(text.lines().count(), 1, "not one line: {text}");
    text
}

#[test]
fn pipe_passes_the_input_through_on_every_usage_error() {
    let input: Vec<u8> = (0..5000)
        .map(|i| format!("tests/test_x.py::test_{i} PASSED\n"))
        .collect::<String>()
        .into_bytes();
    for (args, hint) in [
        (&["--as", "pytets"][..], "did you mean pytest?"),
        (&["--format", "nope"][..], "possible values"),
        (&["--bogus"][..], "--bogus"),
        (&["--budget", "abc"][..], "abc"),
        (&["--format", "sarif", "--as", "pytest"][..], "sarif"),
    ] {
        let out = pipe(args, &input);
        assert!(
            out.stdout == input,
            "{args:?}: the input did not pass through"
        );
        let err = one_line(&out.stderr);
        assert!(err.contains(hint), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn run_still_runs_the_command_with_its_status() {
    let script = "echo out; echo err >&2; exit 3";
    for (args, hint) in [
        (&["--as", "pytets", "--"][..], "did you mean pytest?"),
        (&["--bogus", "--"][..], "unknown option --bogus"),
        (&["--budge", "--"][..], "did you mean --budget?"),
        (&["--format", "nope", "--"][..], "possible values"),
        (&["--format", "nope"][..], "possible values"),
        (&["--budget", "abc"][..], "abc"),
        (
            &["--keep-tail", "5", "--format", "json", "--"][..],
            "--keep-tail",
        ),
    ] {
        let mut argv = args.to_vec();
        argv.extend(["sh", "-c", script]);
        let out = run(&argv);
        assert_eq!(String::from_utf8_lossy(&out.stdout), "out\n", "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(err.ends_with("err\n"), "{args:?}: {err}");
        let ctx_lines: Vec<&str> = err.lines().filter(|l| l.starts_with("ctx")).collect();
        assert_eq!(ctx_lines.len(), 1, "{args:?}: {err}");
        assert!(ctx_lines[0].contains(hint), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(3), "{args:?}");
    }
    // No command at all: the error alone.
    let out = run(&["--format", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}
