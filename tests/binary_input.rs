//! Binary and NUL-filled input is bounded in memory, described honestly
//! (sizes, NUL runs, bytes that are not UTF-8, the address of the bytes:
//! never empty lines, never U+FFFD), given back byte for byte by `ctx
//! expand`, and counted in `ctx gain` as nothing saved.

use std::io::Write;
use std::process::{Command, Stdio};

const CTX: &str = env!("CARGO_BIN_EXE_ctx");

/// Runs `ctx ARGS` with `input` streamed to stdin from a thread; returns
/// stdout and the child's peak resident set in bytes.
fn pipe_with_peak(
    home: &std::path::Path,
    args: &[&str],
    input: impl FnOnce(&mut dyn Write) + Send + 'static,
) -> (Vec<u8>, u64) {
    let mut child = Command::new(CTX)
        .args(args)
        .env("CTX_HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("ctx");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || input(&mut stdin));
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer");
    // SAFETY: getrusage fills a zeroed struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    (out.stdout, usage.ru_maxrss as u64 * 1024)
}

#[test]
fn a_stream_of_nuls_is_described_in_bounded_memory() {
    let home = tempfile::tempdir().expect("tempdir");
    const MB: usize = 1 << 20;
    let size = 256 * MB;
    let (out, peak) = pipe_with_peak(home.path(), &["pipe"], move |w| {
        let block = vec![0u8; MB];
        for _ in 0..size / MB {
            if w.write_all(&block).is_err() {
                return;
            }
        }
    });
    let text = String::from_utf8(out).expect("the description is UTF-8");
    assert!(!text.contains('\u{fffd}'), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines.iter().all(|l| l.starts_with("[ctx] ")), "{text}");
    assert!(
        lines[0].contains("binary output, 268,435,456 bytes · 268,435,456 NUL in 1 run"),
        "{text}"
    );
    let limit = 64 * MB as u64 + size as u64 / 10;
    assert!(peak <= limit, "peak RSS {peak} > {limit}");
    // Nothing saved: a billion NULs are not a billion tokens.
    let gain = Command::new(CTX)
        .args(["gain", "--format", "json"])
        .env("CTX_HOME", home.path())
        .output()
        .expect("gain");
    let json: serde_json::Value = serde_json::from_slice(&gain.stdout).expect("gain json");
    assert_eq!(json["totals"]["saved_tokens"], 0, "{json}");
    assert!(
        json["totals"]["raw_tokens"]
            .as_u64()
            .is_some_and(|n| n < 1000),
        "{json}"
    );
}

#[test]
fn random_bytes_are_described_and_given_back_exactly() {
    let home = tempfile::tempdir().expect("tempdir");
    let bytes: Vec<u8> = (0..300_000u64)
        .map(|i| (i.wrapping_mul(6_364_136_223_846_793_005) >> 37) as u8)
        .collect();
    let expected = bytes.clone();
    let out = Command::new(CTX)
        .args(["run", "--digest", "--", "sh", "-c", "cat; exit 3"])
        .env("CTX_HOME", home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().expect("stdin").write_all(&bytes)?;
            child.wait_with_output()
        })
        .expect("ctx run");
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(text.contains("binary output, 300,000 bytes"), "{text}");
    assert!(text.contains("not UTF-8"), "{text}");
    assert!(text.contains("exit 3"), "{text}");
    let key = text
        .split("ctx expand ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("an expand address");
    let back = Command::new(CTX)
        .args(["expand", key, "--all"])
        .env("CTX_HOME", home.path())
        .output()
        .expect("expand");
    assert!(
        back.stdout == expected,
        "ctx expand did not give the bytes back"
    );
}

/// Text with a stray NUL is text: every failure it reports is kept.
#[test]
fn text_with_a_stray_nul_keeps_its_failures() {
    let home = tempfile::tempdir().expect("tempdir");
    let mut input = Vec::new();
    for i in 0..3000 {
        input.extend_from_slice(format!("tests/test_x.py::test_{i} PASSED\n").as_bytes());
    }
    input.extend_from_slice(b"E       AssertionError: got b'\\x00' \0 here\n");
    input.extend_from_slice(b"FAILED tests/test_x.py::test_bad - AssertionError\n");
    input.extend_from_slice(b"========= 1 failed, 3000 passed in 1.00s =========\n");
    let (out, _) = pipe_with_peak(home.path(), &["pipe"], move |w| {
        let _ = w.write_all(&input);
    });
    let text = String::from_utf8_lossy(&out);
    assert!(!text.contains("binary output"), "{text}");
    assert!(text.contains("tests/test_x.py::test_bad"), "{text}");
}
