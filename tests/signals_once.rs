//! Every stop request reaches the command exactly once (invariant 1): a
//! signal to ctx's process group (an agent's ^C or TERM to the group it
//! started) and a signal to ctx alone. A real child counts what it gets.
//! Run as agents run commands: no controlling terminal.

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CTX: &str = env!("CARGO_BIN_EXE_ctx");

/// Counts SIGINT and SIGTERM for a moment after the first, then prints the
/// counts. `ready` is created once the handlers are in place.
const COUNTER: &str = r#"
import os, signal, sys, time
counts = {"INT": 0, "TERM": 0}
first = []
def got(name):
    def handler(signum, frame):
        counts[name] += 1
        first.append(time.monotonic())
    return handler
signal.signal(signal.SIGINT, got("INT"))
signal.signal(signal.SIGTERM, got("TERM"))
open(sys.argv[1], "w").close()
deadline = time.monotonic() + 20
while time.monotonic() < deadline and (not first or time.monotonic() - first[0] < 0.3):
    time.sleep(0.01)
print(f"INT {counts['INT']} TERM {counts['TERM']}", flush=True)
"#;

#[derive(Clone, Copy, Debug)]
enum Send {
    Group(libc::c_int),
    Ctx(libc::c_int),
}

/// `ctx run --digest -- python3 -c SCRIPT READY` leading a process group
/// of its own (as the shell an agent starts would), once the script has
/// created READY (its handlers are in place).
fn start_ready(
    dir: &std::path::Path,
    script: &str,
    ready: &std::path::Path,
) -> std::process::Child {
    let child = Command::new(CTX)
        .args(["run", "--digest", "--", "python3", "-c", script])
        .arg(ready)
        .env("CTX_HOME", dir.join("home"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("ctx");
    let start = Instant::now();
    while !ready.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "child never ready"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child
}

fn one_run(dir: &std::path::Path, n: usize, how: Send) -> String {
    let ready = dir.join(format!("ready-{n}-{how:?}"));
    let child = start_ready(dir, COUNTER, &ready);
    let pid = child.id() as libc::pid_t;
    // SAFETY: plain kill/killpg on a process this test started.
    match how {
        Send::Group(sig) => unsafe { libc::killpg(pid, sig) },
        Send::Ctx(sig) => unsafe { libc::kill(pid, sig) },
    };
    let out = child.wait_with_output().expect("wait");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_stop_request_reaches_the_command_once() {
    if Command::new("python3").arg("-V").output().is_err() {
        eprintln!("skipped: no python3");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let cases = [
        (Send::Group(libc::SIGINT), "INT 1 TERM 0"),
        (Send::Group(libc::SIGTERM), "INT 0 TERM 1"),
        (Send::Ctx(libc::SIGTERM), "INT 0 TERM 1"),
        (Send::Ctx(libc::SIGINT), "INT 1 TERM 0"),
    ];
    std::thread::scope(|scope| {
        for (how, want) in cases {
            let dir = dir.path();
            scope.spawn(move || {
                for n in 0..50 {
                    let got = one_run(dir, n, how);
                    assert!(got.contains(want), "{how:?} run {n}: {got:?}");
                }
            });
        }
    });
}

/// Python's ^C: one clean KeyboardInterrupt traceback, not two.
#[test]
fn python_gets_one_keyboard_interrupt() {
    if Command::new("python3").arg("-V").output().is_err() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let ready = dir.path().join("ready");
    let script = "import sys, time\nopen(sys.argv[1], 'w').close()\ntry:\n    time.sleep(20)\nexcept KeyboardInterrupt:\n    time.sleep(0.3)\n    raise\n";
    let child = start_ready(dir.path(), script, &ready);
    // SAFETY: killpg on the group this test started.
    unsafe { libc::killpg(child.id() as libc::pid_t, libc::SIGINT) };
    let out = child.wait_with_output().expect("wait");
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(all.matches("KeyboardInterrupt").count(), 1, "{all}");
    assert!(!all.contains("During handling"), "{all}");
}
