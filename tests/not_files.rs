//! Files that are not files: every file ctx reads because a path names
//! it — the configuration, a user's filter, a project's trusted filter,
//! `ctx read`'s file, `ctx digest`'s input — may be a FIFO, a device, a
//! socket or a file of gigabytes. Each is refused with one line naming
//! what it is, never waited on (every run here has a deadline), never
//! read without end; the command ctx wraps runs as if the file were not
//! there (invariant 8). `ctx read` of large files: tests/read_memory.rs.

mod support;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;

/// How long any run here may take: a read that waits on a FIFO would
/// wait forever.
const DEADLINE: Duration = Duration::from_secs(20);

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `cmd` with `input` on stdin, killed (and the test failed) past
/// the deadline.
// The child is reaped by `wait4` (std's `wait` cannot report its
// resource usage or be polled with WNOHANG alongside it).
#[allow(clippy::zombie_processes)]
fn run(mut cmd: Command, input: &[u8]) -> Ran {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ctx");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let ereader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let pid = child.id() as i32;
    let started = Instant::now();
    let status = loop {
        let mut status = 0;
        // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: waits for our own child with valid out-pointers.
        let got = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if got == pid {
            break status;
        }
        if started.elapsed() > DEADLINE {
            let _ = child.kill();
            panic!("ctx still running after {DEADLINE:?}: it waited on something");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = writer.join();
    let stdout = reader.join().expect("stdout thread");
    let stderr = ereader.join().expect("stderr thread");
    Ran {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    }
}

fn fifo(path: &Path) {
    nix::unistd::mkfifo(path, nix::sys::stat::Mode::from_bits_truncate(0o600)).expect("mkfifo");
}

/// Each kind of non-file at `path` in turn (the socket's listener kept
/// open while it is tested): a FIFO, a socket, an oversized regular file.
/// `/dev/zero` is tested by pointing at it.
fn each_kind(path: &Path, mut test: impl FnMut(&str)) {
    fifo(path);
    test("is a FIFO, not a regular file");
    std::fs::remove_file(path).expect("rm");
    let listener = std::os::unix::net::UnixListener::bind(path).expect("bind");
    test("is a socket, not a regular file");
    drop(listener);
    std::fs::remove_file(path).expect("rm");
    std::fs::write(path, vec![b'#'; 3 << 20]).expect("write");
    test("is larger than 1 MiB");
    std::fs::remove_file(path).expect("rm");
}

#[test]
fn a_config_that_is_not_a_file_is_refused_and_the_command_runs() {
    let home = TempDir::new().expect("tempdir");
    let dir = TempDir::new().expect("tempdir");
    let config = dir.path().join("config.toml");
    let check = |config: &Path, want: &str| {
        let mut cmd = support::ctx_cmd(home.path(), &["pipe"]);
        cmd.env("CTX_CONFIG", config);
        let ran = run(cmd, b"hello\n");
        assert_eq!(ran.code, Some(0), "{want}: {}", ran.stderr);
        assert_eq!(ran.stdout, "hello\n", "{want}");
        let mut cmd = support::ctx_cmd(home.path(), &["run", "--", "sh", "-c", "echo ran; exit 3"]);
        cmd.env("CTX_CONFIG", config);
        let ran = run(cmd, b"");
        assert_eq!(ran.code, Some(3), "{want}: {}", ran.stderr);
        assert!(ran.stdout.contains("ran"), "{want}: {}", ran.stdout);
        let mut cmd = support::ctx_cmd(home.path(), &["config"]);
        cmd.env("CTX_CONFIG", config);
        let ran = run(cmd, b"");
        assert_eq!(ran.code, Some(1), "{want}");
        let line = format!("{} {want}", config.display());
        let lines: Vec<&str> = ran.stderr.lines().filter(|l| l.contains(&line)).collect();
        assert_eq!(lines.len(), 1, "one line naming it: {}", ran.stderr);
        assert!(
            lines[0].ends_with("its settings are ignored"),
            "{}",
            lines[0]
        );
    };
    each_kind(&config, |want| check(&config, want));
    check(
        Path::new("/dev/zero"),
        "is a character device, not a regular file",
    );
}

#[test]
fn a_user_filter_that_is_not_a_file_is_skipped_with_a_note() {
    let home = TempDir::new().expect("tempdir");
    let xdg = TempDir::new().expect("tempdir");
    let filters = xdg.path().join("ctx/filters");
    std::fs::create_dir_all(&filters).expect("mkdir");
    let path = filters.join("mine.toml");
    each_kind(&path, |want| {
        let mut cmd = support::ctx_cmd(home.path(), &["run", "--digest", "--", "seq", "1", "3000"]);
        cmd.env("XDG_CONFIG_HOME", xdg.path());
        let ran = run(cmd, b"");
        assert_eq!(ran.code, Some(0), "{want}: {}", ran.stderr);
        assert!(ran.stdout.contains("3000"), "{}", ran.stdout);
        let note = format!("[ctx] filter {} {want}", path.display());
        assert!(ran.stderr.contains(&note), "{want}: {}", ran.stderr);
    });
}

#[test]
fn a_project_filter_that_is_not_a_file_revokes_trust_without_waiting() {
    let home = TempDir::new().expect("tempdir");
    let project = TempDir::new().expect("tempdir");
    let filters = project.path().join(".ctx/filters");
    std::fs::create_dir_all(&filters).expect("mkdir");
    let path = filters.join("team.toml");
    each_kind(&path, |want| {
        let mut cmd = support::ctx_cmd(home.path(), &["run", "--digest", "--", "seq", "1", "3000"]);
        cmd.current_dir(project.path());
        let ran = run(cmd, b"");
        assert_eq!(ran.code, Some(0), "{want}: {}", ran.stderr);
        assert!(ran.stdout.contains("3000"), "{}", ran.stdout);
        assert!(ran.stderr.contains(want), "{want}: {}", ran.stderr);
    });
}

fn read(home: &Path, args: &[&str]) -> Ran {
    let mut all = vec!["read"];
    all.extend_from_slice(args);
    let mut cmd = support::ctx_cmd(home, &all);
    cmd.env_remove("CTX_SESSION");
    run(cmd, b"")
}

#[test]
fn ctx_read_refuses_fifos_devices_and_sockets_at_once() {
    let home = TempDir::new().expect("tempdir");
    let dir = TempDir::new().expect("tempdir");
    let pipe = dir.path().join("log.fifo");
    fifo(&pipe);
    let socket = dir.path().join("s.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).expect("bind");
    let cases: [(PathBuf, &str); 4] = [
        (pipe, "is a FIFO"),
        (PathBuf::from("/dev/zero"), "is a character device"),
        (PathBuf::from("/dev/null"), "is a character device"),
        (socket, "is a socket"),
    ];
    for (path, want) in cases {
        for mode in ["auto", "full", "lines:1-3"] {
            let shown = path.to_string_lossy().into_owned();
            let ran = read(home.path(), &["--mode", mode, &shown]);
            assert_eq!(ran.code, Some(2), "{shown} {mode}: {}", ran.stderr);
            assert!(ran.stdout.is_empty(), "{shown}: {}", ran.stdout);
            let line = format!("{shown} {want}, not a regular file; ctx read reads regular files");
            assert!(ran.stderr.contains(&line), "{shown} {mode}: {}", ran.stderr);
        }
    }
}

#[test]
fn ctx_digest_refuses_a_device_and_reads_a_fifo_as_a_pipe() {
    let home = TempDir::new().expect("tempdir");
    let ran = run(support::ctx_cmd(home.path(), &["digest", "/dev/zero"]), b"");
    assert_eq!(ran.code, Some(2), "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("/dev/zero is a character device, not a regular file"),
        "{}",
        ran.stderr
    );
    // A FIFO is what `ctx digest <(cmd)` reads: a stream with a writer.
    let dir = TempDir::new().expect("tempdir");
    let pipe = dir.path().join("out.fifo");
    fifo(&pipe);
    let writer = {
        let pipe = pipe.clone();
        std::thread::spawn(move || std::fs::write(pipe, b"line one\nline two\n"))
    };
    let ran = run(
        support::ctx_cmd(home.path(), &["digest", &pipe.to_string_lossy()]),
        b"",
    );
    writer.join().expect("writer").expect("written");
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(ran.stdout.contains("line two"), "{}", ran.stdout);
}
