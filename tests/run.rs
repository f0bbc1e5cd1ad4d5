//! `ctx run` against the built binary: exit statuses, death by signal,
//! signal forwarding, stdin, byte fidelity, stream order, the live pty
//! path, and launch failures (invariants 1, 2, 7, 8).

use std::fs;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};

use nix::sys::signal::{self, Signal};
use nix::unistd::Pid;
use tempfile::TempDir;

/// A fresh CTX_HOME and a scratch directory for one test.
struct Env {
    home: TempDir,
    scratch: TempDir,
}

impl Env {
    fn new() -> Env {
        Env {
            home: TempDir::new().expect("tempdir"),
            scratch: TempDir::new().expect("tempdir"),
        }
    }

    /// `ctx ARGS…`, run in the scratch directory.
    fn ctx(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ctx"));
        cmd.env("CTX_HOME", self.home.path())
            .env_remove("CTX_BUDGET")
            .current_dir(self.scratch.path())
            .args(args);
        cmd
    }

    /// `ctx run -- ARGS…`.
    fn ctx_run(&self, args: &[&str]) -> Command {
        let mut cmd = self.ctx(&["run", "--"]);
        cmd.args(args);
        cmd
    }

    /// `ctx run -- sh -c SCRIPT` with stdin closed, collected.
    fn sh(&self, script: &str) -> Output {
        self.ctx_run(&["sh", "-c", script])
            .stdin(Stdio::null())
            .output()
            .expect("ctx runs")
    }

    fn path(&self, name: &str) -> PathBuf {
        self.scratch.path().join(name)
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn every_exit_status_comes_through() {
    let env = Env::new();
    for n in 0..=255 {
        let out = env.sh(&format!("exit {n}"));
        assert_eq!(out.status.code(), Some(n), "exit {n}: {out:?}");
    }
}

#[test]
fn death_by_signal_gives_the_bare_commands_wait_status() {
    let env = Env::new();
    // Cores off in the child: a core-dumped flag would differ (ctx never
    // dumps its own core; see docs/capture.md).
    for name in ["HUP", "INT", "QUIT", "ABRT", "KILL", "SEGV", "PIPE", "TERM"] {
        let script = format!("ulimit -c 0; kill -{name} $$");
        let bare = Command::new("sh")
            .args(["-c", &script])
            .current_dir(env.scratch.path())
            .status()
            .expect("sh runs");
        let through = env.sh(&script).status;
        assert!(
            bare.signal().is_some(),
            "{name}: bare sh did not die: {bare:?}"
        );
        assert_eq!(through.into_raw(), bare.into_raw(), "SIG{name}");
    }
}

#[test]
fn a_real_time_signal_death_comes_through() {
    let env = Env::new();
    let out = env.sh("kill -35 $$");
    assert_eq!(out.status.signal(), Some(35), "{out:?}");
}

/// Starts `ctx run -- python3 -c …` whose child traps `sig`, announces
/// itself in a file once the trap is set, and exits 42 when the signal
/// arrives.
fn start_trapping(env: &Env, sig: Signal) -> Child {
    let ready = env.path("ready");
    let script = format!(
        "import os, signal, sys\n\
         def caught(n, _):\n    print('caught', n, flush=True)\n    sys.exit(42)\n\
         signal.signal({n}, caught)\n\
         signal.alarm(300)\n\
         open('{tmp}', 'w').write('ready')\n\
         os.rename('{tmp}', '{ready}')\n\
         while True:\n    signal.pause()\n",
        n = sig as i32,
        tmp = env.path("ready.tmp").display(),
        ready = ready.display(),
    );
    env.ctx_run(&["python3", "-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ctx starts")
}

/// Waits for the child's ready file; fails if ctx ends first.
fn await_ready(env: &Env, ctx: &mut Child) {
    while !env.path("ready").exists() {
        if let Some(status) = ctx.try_wait().expect("try_wait") {
            panic!("ctx ended ({status:?}) before its child was ready");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

#[test]
fn signals_sent_to_ctx_reach_the_child() {
    for sig in [
        Signal::SIGTERM,
        Signal::SIGINT,
        Signal::SIGHUP,
        Signal::SIGQUIT,
    ] {
        let env = Env::new();
        let mut ctx = start_trapping(&env, sig);
        await_ready(&env, &mut ctx);
        signal::kill(Pid::from_raw(ctx.id() as i32), sig).expect("kill ctx");
        let out = ctx.wait_with_output().expect("ctx ends");
        assert_eq!(
            text(&out.stdout),
            format!("caught {}\n", sig as i32),
            "{sig}"
        );
        assert_eq!(out.status.code(), Some(42), "{sig}: {out:?}");
    }
}

#[test]
fn output_of_a_background_process_holding_the_pipes_is_kept() {
    let env = Env::new();
    let out = env.sh("(sleep 0.2; echo late) & echo early; exit 5");
    assert_eq!(text(&out.stdout), "early\nlate\n");
    assert_eq!(out.status.code(), Some(5), "{out:?}");
}

#[test]
fn a_stop_request_after_the_child_ended_stops_waiting_for_its_background() {
    let env = Env::new();
    let ids = env.path("ids");
    let script = format!(
        "sleep 300 & echo \"$$ $!\" > {tmp}; mv {tmp} {ids}; echo early; exit 5",
        tmp = env.path("ids.tmp").display(),
        ids = ids.display(),
    );
    let mut ctx = env
        .ctx_run(&["sh", "-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ctx starts");
    while !ids.exists() {
        assert!(
            ctx.try_wait().expect("try_wait").is_none(),
            "ctx ended early"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let ids = fs::read_to_string(&ids).expect("ids");
    let (shell, holder) = ids.trim().split_once(' ').expect("two pids");
    // Until ctx reaps the shell, a signal would still be forwarded to it.
    while Path::new(&format!("/proc/{shell}")).exists() {
        assert!(
            ctx.try_wait().expect("try_wait").is_none(),
            "ctx ended early"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    signal::kill(Pid::from_raw(ctx.id() as i32), Signal::SIGTERM).expect("kill ctx");
    let out = ctx.wait_with_output().expect("ctx ends");
    let holder = Pid::from_raw(holder.parse().expect("a pid"));
    let _ = signal::kill(holder, Signal::SIGKILL);
    assert_eq!(text(&out.stdout), "early\n");
    assert_eq!(out.status.code(), Some(5), "{out:?}");
}

#[test]
fn binary_output_is_byte_identical() {
    let env = Env::new();
    let input = b"a\0b\xff";
    let mut ctx = env
        .ctx_run(&["cat"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ctx starts");
    ctx.stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write");
    let out = ctx.wait_with_output().expect("ctx ends");
    assert_eq!(out.stdout, input);
    assert_eq!(text(&out.stderr), "");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_heredoc_reaches_the_child() {
    let env = Env::new();
    let script = "\"$0\" run -- cat <<'EOF'\nline one\n  two\t$HOME\nEOF\n";
    let out = Command::new("sh")
        .args(["-c", script, env!("CARGO_BIN_EXE_ctx")])
        .env("CTX_HOME", env.home.path())
        .output()
        .expect("sh runs");
    assert_eq!(text(&out.stdout), "line one\n  two\t$HOME\n");
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn ctx_reads_none_of_stdin() {
    let env = Env::new();
    // If ctx consumed any of the input, the `cat` after it would miss it.
    let script = "\"$0\" run -- true; cat";
    let mut sh = Command::new("sh")
        .args(["-c", script, env!("CARGO_BIN_EXE_ctx")])
        .env("CTX_HOME", env.home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("sh runs");
    sh.stdin
        .take()
        .expect("stdin")
        .write_all(b"abcdef\n")
        .expect("write");
    let out = sh.wait_with_output().expect("sh ends");
    assert_eq!(text(&out.stdout), "abcdef\n");
}

#[test]
fn several_megabytes_of_stdin_arrive_intact() {
    let env = Env::new();
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let input: Vec<u8> = (0..6 * 1024 * 1024)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    let checksum = |mut cmd: Command| {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("starts");
        let mut stdin = child.stdin.take().expect("stdin");
        let data = input.clone();
        let writer = std::thread::spawn(move || stdin.write_all(&data));
        let out = child.wait_with_output().expect("ends");
        writer.join().expect("writer").expect("all input written");
        assert!(out.status.success(), "{out:?}");
        out.stdout
    };
    let bare = checksum(Command::new("sha256sum"));
    assert_eq!(checksum(env.ctx_run(&["sha256sum"])), bare);
}

/// A python3 child that writes lines alternately to stdout and stderr and,
/// after each, waits until ctx has read it (FIONREAD on its own pipe is 0),
/// so the arrival order is fixed without any timing assumption.
const INTERLEAVED: &str = "import fcntl, os, struct, termios, time\n\
    def unread(fd):\n    return struct.unpack('i', fcntl.ioctl(fd, termios.FIONREAD, b'0000'))[0]\n\
    for fd, line in [(1, 'out1'), (2, 'err1'), (1, 'out2'), (2, 'err2'), (1, 'out3')]:\n\
    \x20   os.write(fd, (line + '\\n').encode())\n\
    \x20   while unread(fd) > 0:\n        time.sleep(0.001)\n";

#[test]
fn streams_are_replayed_to_their_own_descriptors() {
    let env = Env::new();
    let out = env
        .ctx_run(&["python3", "-c", INTERLEAVED])
        .stdin(Stdio::null())
        .output()
        .expect("ctx runs");
    assert_eq!(text(&out.stdout), "out1\nout2\nout3\n");
    assert_eq!(text(&out.stderr), "err1\nerr2\n");
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn streams_are_replayed_in_arrival_order() {
    let env = Env::new();
    // Both of ctx's descriptors on one pipe: the replay order is visible.
    let out = Command::new("sh")
        .args(["-c", "\"$0\" run -- python3 -c \"$1\" 2>&1"])
        .args([env!("CARGO_BIN_EXE_ctx"), INTERLEAVED])
        .env("CTX_HOME", env.home.path())
        .stdin(Stdio::null())
        .output()
        .expect("sh runs");
    assert_eq!(text(&out.stdout), "out1\nerr1\nout2\nerr2\nout3\n");
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn large_output_is_digested_or_raw_and_the_status_is_kept() {
    let env = Env::new();
    let out = env.sh("seq 1 200000; exit 3");
    assert_eq!(out.status.code(), Some(3), "{:?}", text(&out.stderr));
    let raw: String = (1..=200_000).map(|n| format!("{n}\n")).collect();
    if out.stdout != raw.as_bytes() {
        let digest = text(&out.stdout);
        let last = digest.lines().last().unwrap_or_default();
        assert!(
            last.starts_with("[ctx] full output (200,000 lines): first 300 lines: ctx expand ")
                && last.ends_with(" --all"),
            "neither raw nor a digest with a footer; last line {last:?}"
        );
    }
}

/// The signals a `SigIgn:`/`SigBlk:` line of /proc/PID/status names.
fn signal_bits(status: &str, field: &str) -> u64 {
    let line = status
        .lines()
        .find(|l| l.starts_with(field))
        .unwrap_or_else(|| panic!("no {field} in {status:?}"));
    let hex = line[field.len()..].trim();
    u64::from_str_radix(hex, 16).expect("a hex mask")
}

const SIGPIPE_BIT: u64 = 1 << (libc::SIGPIPE - 1);
const SIGHUP_BIT: u64 = 1 << (libc::SIGHUP - 1);
const SIGXFSZ_BIT: u64 = 1 << (libc::SIGXFSZ - 1);

#[test]
fn the_child_inherits_signal_dispositions_not_rusts() {
    let env = Env::new();
    let out = env
        .ctx_run(&["grep", "-E", "^Sig(Ign|Blk):", "/proc/self/status"])
        .stdin(Stdio::null())
        .output()
        .expect("ctx runs");
    let status = text(&out.stdout);
    // Rust ignores SIGPIPE, ctx ignores SIGXFSZ while it captures (a spill
    // write past `ulimit -f` must fail, not kill it) and blocks the
    // forwarded signals; none of that may leak into the child.
    assert_eq!(signal_bits(&status, "SigIgn:") & SIGPIPE_BIT, 0, "{status}");
    assert_eq!(signal_bits(&status, "SigIgn:") & SIGXFSZ_BIT, 0, "{status}");
    assert_eq!(signal_bits(&status, "SigBlk:"), 0, "{status}");
    // An ignored SIGHUP (nohup) or SIGXFSZ stays ignored in the child.
    let script = "trap '' HUP XFSZ; exec \"$0\" run -- grep SigIgn /proc/self/status";
    let out = Command::new("sh")
        .args(["-c", script, env!("CARGO_BIN_EXE_ctx")])
        .env("CTX_HOME", env.home.path())
        .output()
        .expect("sh runs");
    let status = text(&out.stdout);
    assert_eq!(
        signal_bits(&status, "SigIgn:") & (SIGHUP_BIT | SIGXFSZ_BIT),
        SIGHUP_BIT | SIGXFSZ_BIT,
        "{status}"
    );
}

#[path = "run/launch.rs"]
mod launch;
#[path = "run/pty.rs"]
mod pty;
#[path = "run/stop.rs"]
mod stop;
