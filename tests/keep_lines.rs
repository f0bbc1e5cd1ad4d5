//! `ctx run --keep-tail N` / `--keep-head N` against bash itself: for every
//! recorded fixture, replayed by a script that writes its chunks to stdout
//! and stderr in their recorded order, the lines ctx keeps are byte for
//! byte what `bash -c 'replay 2>&1 | tail -N'` (or `| head -N`, or without
//! `2>&1`) prints, and the rest of ctx's output is its own digest.

#[path = "support/fixture_cases.rs"]
mod fixture_cases;

use std::path::Path;
use std::process::{Command, Output};

use ctx::artifact::Stream;

const CTX: &str = env!("CARGO_BIN_EXE_ctx");

/// A folder holding `replay`: the fixture's bytes, written chunk by chunk
/// to the descriptor each came from, then its exit status.
fn replayer(case: &Path, dir: &Path) -> std::path::PathBuf {
    let artifact = ctx::testing::fixture::load(case).expect("fixture");
    std::fs::write(dir.join("all.bin"), artifact.bytes()).unwrap();
    let mut manifest = String::new();
    for (stream, range) in artifact.segment_ranges() {
        let fd = match stream {
            Stream::Stdout => 1,
            Stream::Stderr => 2,
        };
        manifest += &format!("{fd} {} {}\n", range.start, range.len());
    }
    std::fs::write(dir.join("manifest"), manifest).unwrap();
    let code = match artifact.exit {
        ctx::artifact::Exit::Code(c) => c,
        _ => 1,
    };
    let script = dir.join("replay");
    std::fs::write(
        &script,
        format!(
            "#!/usr/bin/env python3\nimport os, sys\nd = os.path.dirname(os.path.abspath(__file__))\n\
             data = open(os.path.join(d, 'all.bin'), 'rb').read()\n\
             for line in open(os.path.join(d, 'manifest')):\n    fd, at, n = map(int, line.split())\n    \
             view = memoryview(data)[at:at + n]\n    while view:\n        view = view[os.write(fd, view):]\n\
             sys.exit({code})\n"
        ),
    )
    .unwrap();
    let mut perms = std::fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&script, perms).unwrap();
    script
}

fn bash(line: &str) -> Output {
    Command::new("bash").arg("-c").arg(line).output().unwrap()
}

fn ctx(home: &Path, args: &[&str]) -> Output {
    Command::new(CTX)
        .args(args)
        .env("CTX_HOME", home)
        .env_remove("CTX_STORE")
        .env("CTX_NO_LEDGER", "1")
        .output()
        .unwrap()
}

/// The part of ctx's output that is its own, above kept tail lines or
/// below kept head lines: a digest (a header, then any lines) ending in
/// ctx's separator, or nothing when the lines are the whole output.
fn own_part_is_a_digest(own: &[u8], what: &str) {
    if own.is_empty() {
        return;
    }
    let text = String::from_utf8_lossy(own);
    assert!(
        text.contains("[ctx] --- the "),
        "{what}: ctx's part names the kept lines:\n{text}"
    );
}

#[test]
fn kept_lines_are_what_bash_pipes_print_for_every_fixture() {
    let cases = fixture_cases::cases();
    assert!(cases.len() > 100, "every fixture: {}", cases.len());
    // Two workers: each case runs six short processes.
    let half = cases.len().div_ceil(2);
    std::thread::scope(|s| {
        for part in cases.chunks(half) {
            s.spawn(move || part.iter().for_each(|case| check(case)));
        }
    });
}

fn check(case: &Path) {
    let home = tempfile::tempdir().unwrap();
    let name = fixture_cases::name(case);
    let dir = tempfile::tempdir().unwrap();
    let replay = replayer(case, dir.path());
    let replay = replay.to_str().unwrap();
    // `2>&1 | tail -20`: the last lines, after the digest.
    let bare = bash(&format!("'{replay}' 2>&1 | tail -20"));
    let ours = ctx(
        home.path(),
        &["run", "--keep-tail", "20", "--exit-zero", "--", replay],
    );
    assert_eq!(
        ours.status.code(),
        Some(0),
        "{name}: --exit-zero, as tail's status"
    );
    assert!(
        ours.stdout.ends_with(&bare.stdout),
        "{name}: tail -20 kept byte for byte\n--- bash:\n{}\n--- ctx:\n{}",
        String::from_utf8_lossy(&bare.stdout),
        String::from_utf8_lossy(&ours.stdout)
    );
    own_part_is_a_digest(&ours.stdout[..ours.stdout.len() - bare.stdout.len()], &name);

    // `2>&1 | head -15`: the first lines, before the digest; the
    // command's own status without --exit-zero.
    let bare = bash(&format!("'{replay}' 2>&1 | head -15"));
    let ours = ctx(home.path(), &["run", "--keep-head", "15", "--", replay]);
    let expected = ctx::testing::fixture::load(case).unwrap().exit;
    if let ctx::artifact::Exit::Code(c) = expected {
        assert_eq!(ours.status.code(), Some(c), "{name}: the command's status");
    }
    assert!(
        ours.stdout.starts_with(&bare.stdout),
        "{name}: head -15 kept byte for byte\n--- bash:\n{}\n--- ctx:\n{}",
        String::from_utf8_lossy(&bare.stdout),
        String::from_utf8_lossy(&ours.stdout)
    );

    // `| tail -8` (stdout only): stderr goes past the pipe whole.
    let bare = bash(&format!("'{replay}' | tail -8"));
    let ours = ctx(
        home.path(),
        &[
            "run",
            "--keep-tail",
            "8",
            "--keep-streams",
            "stdout",
            "--exit-zero",
            "--",
            replay,
        ],
    );
    assert!(
        ours.stdout.ends_with(&bare.stdout),
        "{name}: stdout's tail -8"
    );
    assert!(
        ours.stderr.starts_with(&bare.stderr),
        "{name}: stderr whole"
    );
}
