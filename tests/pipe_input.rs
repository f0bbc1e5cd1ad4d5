//! `CMD | ctx pipe` never loses its input (issue: a missing or full TMPDIR
//! printed nothing and exited 2). The input is larger than the in-memory
//! part, so it must be spilled; each test breaks the spill a different way
//! and checks that the reader still gets the same delivery as when nothing
//! breaks: the same digest (the spill moved on), the raw input (the store
//! could not archive either), never less.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use tempfile::TempDir;

const CTX: &str = env!("CARGO_BIN_EXE_ctx");

/// More than `ctx pipe` keeps in memory before spilling (64 MiB).
const INPUT_BYTES: usize = 70_000_000;

fn input() -> &'static [u8] {
    static INPUT: OnceLock<Vec<u8>> = OnceLock::new();
    INPUT.get_or_init(|| {
        let pad = "x".repeat(990);
        let mut v = Vec::with_capacity(INPUT_BYTES + 1000);
        let mut i = 0;
        while v.len() < INPUT_BYTES {
            v.extend_from_slice(format!("{i:08} {pad}\n").as_bytes());
            i += 1;
        }
        v
    })
}

/// One store shared by every test, so a digest is the same bytes (the same
/// archive key) whichever test printed it.
fn home() -> &'static Path {
    static HOME: OnceLock<TempDir> = OnceLock::new();
    HOME.get_or_init(|| TempDir::new().expect("tempdir")).path()
}

/// What `ctx pipe` prints when nothing breaks.
fn reference() -> &'static Output {
    static REFERENCE: OnceLock<Output> = OnceLock::new();
    REFERENCE.get_or_init(|| {
        let out = feed(&mut ctx_pipe(&[]));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        out
    })
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `sh -c 'PRELUDE; exec ctx pipe'` with `env`.
fn ctx_pipe(env: &[(&str, &Path)]) -> Command {
    ctx_pipe_after("", env)
}

fn ctx_pipe_after(prelude: &str, env: &[(&str, &Path)]) -> Command {
    let mut cmd = Command::new("sh");
    cmd.args(["-c", &format!("{prelude}\nexec \"$0\" pipe"), CTX])
        .env("CTX_HOME", home())
        .env_remove("CTX_BUDGET")
        .env_remove("CTX_TEST_SPILL_MEMORY_CAP");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// Runs `cmd` with the input on its stdin.
fn feed(cmd: &mut Command) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ctx starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        // ctx may stop reading early only by failing; the assertions say so.
        let _ = stdin.write_all(input());
    });
    let out = child.wait_with_output().expect("ctx ends");
    writer.join().expect("writer");
    out
}

/// The reader got what it gets when nothing breaks, or the raw input.
fn assert_nothing_lost(what: &str, out: &Output) {
    assert_eq!(out.status.code(), Some(0), "{what}: {}", text(&out.stderr));
    let same = out.stdout == reference().stdout || out.stdout == input();
    assert!(
        same,
        "{what}: {} bytes out, neither the reference digest nor the input; stderr: {}",
        out.stdout.len(),
        text(&out.stderr)
    );
}

#[test]
fn a_missing_tmpdir_loses_nothing() {
    let out = feed(&mut ctx_pipe(&[("TMPDIR", Path::new("/nonexistent/tmp"))]));
    assert_nothing_lost("TMPDIR missing", &out);
    assert_eq!(
        out.stdout,
        reference().stdout,
        "the spill should have moved on"
    );
}

#[test]
fn a_file_size_limit_of_zero_loses_nothing() {
    // Every file write fails at once (EFBIG), in TMPDIR and in the store.
    let out = feed(&mut ctx_pipe_after("ulimit -f 0", &[]));
    assert_nothing_lost("ulimit -f 0", &out);
}

#[test]
fn a_file_size_limit_reached_half_way_loses_nothing() {
    // Writes fail once a file reaches 20 MB: half-way through the spill.
    let out = feed(&mut ctx_pipe_after("ulimit -f 20480", &[]));
    assert_nothing_lost("ulimit -f 20480", &out);
}

#[test]
fn when_nothing_can_keep_the_input_it_passes_through_raw() {
    let scratch = TempDir::new().expect("tempdir");
    let not_a_dir = scratch.path().join("home-is-a-file");
    fs::write(&not_a_dir, "").expect("write");
    let mut cmd = ctx_pipe(&[
        ("TMPDIR", Path::new("/nonexistent/tmp")),
        ("CTX_HOME", &not_a_dir),
    ]);
    // Memory may hold no more than it holds before spilling.
    cmd.env("CTX_TEST_SPILL_MEMORY_CAP", (64usize << 20).to_string());
    let out = feed(&mut cmd);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        out.stdout == input(),
        "{} of {} bytes out",
        out.stdout.len(),
        input().len()
    );
    let stderr = text(&out.stderr);
    let notes: Vec<&str> = stderr.lines().filter(|l| l.starts_with("[ctx]")).collect();
    assert_eq!(notes.len(), 1, "{stderr}");
    assert!(notes[0].contains("passed through raw"), "{stderr}");
}

/// A tmpfs of `size` mounted on a fresh directory, unmounted on drop.
/// `None` when this process cannot mount (not root, no CAP_SYS_ADMIN).
struct Tmpfs {
    dir: TempDir,
}

impl Tmpfs {
    fn mount(size: &str) -> Option<Tmpfs> {
        let dir = TempDir::new().ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then_some(Tmpfs { dir })
    }

    fn path(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

#[test]
fn a_full_tmpfs_as_tmpdir_loses_nothing() {
    let Some(fs) = Tmpfs::mount("1m") else {
        eprintln!("skipped: cannot mount a tmpfs here (needs root)");
        return;
    };
    // Fill it: creating the spill file works, its first write fails.
    let mut filler = fs::File::create(fs.path().join("filler")).expect("create");
    while filler.write_all(&[0u8; 4096]).is_ok() {}
    let out = feed(&mut ctx_pipe(&[("TMPDIR", &fs.path())]));
    assert_nothing_lost("full tmpfs", &out);
    assert_eq!(
        out.stdout,
        reference().stdout,
        "the spill should have moved on"
    );
}

#[test]
fn a_tmpfs_that_fills_up_half_way_loses_nothing() {
    let Some(fs) = Tmpfs::mount("16m") else {
        eprintln!("skipped: cannot mount a tmpfs here (needs root)");
        return;
    };
    let out = feed(&mut ctx_pipe(&[("TMPDIR", &fs.path())]));
    assert_nothing_lost("16 MB tmpfs", &out);
    assert_eq!(
        out.stdout,
        reference().stdout,
        "the spill should have moved on"
    );
}

/// Feeds up to `total` bytes to `cmd`'s stdin, a megabyte at a time,
/// until ctx stops reading; how many it took and how it ended.
fn feed_until_refused(cmd: &mut Command, total: usize) -> (usize, std::process::ExitStatus) {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("ctx starts");
    // The reader of ctx's stdout is gone before ctx reads a byte.
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().expect("stdin");
    let block = vec![b'x'; 1 << 20];
    let mut written = 0;
    while written < total && stdin.write_all(&block).is_ok() {
        written += block.len();
    }
    drop(stdin);
    (written, child.wait().expect("ctx ends"))
}

#[test]
fn a_reader_gone_before_the_input_ends_stops_ctx_pipe_by_sigpipe() {
    use std::os::unix::process::ExitStatusExt;
    let total = 64 << 20;
    for args in [&["pipe"][..], &["digest", "-"][..]] {
        let mut cmd = Command::new(CTX);
        cmd.args(args)
            .env("CTX_HOME", home())
            .env_remove("CTX_BUDGET");
        let (written, status) = feed_until_refused(&mut cmd, total);
        // Bare, the writer would have met the broken pipe at once; with
        // ctx in between it meets it when ctx stops reading.
        assert!(written < total, "{args:?}: ctx read all {written} bytes");
        assert_eq!(status.signal(), Some(libc::SIGPIPE), "{args:?}: {status:?}");
    }
}

#[test]
fn a_reader_gone_during_the_output_ends_ctx_pipe_by_sigpipe() {
    // 229 KB that fit the budget go out raw: more than the pipe and
    // `head`'s buffer hold, so the write meets the reader's exit.
    let script = "seq 1 40000 | \"$0\" pipe --budget 10000000 | head -1; echo \"${PIPESTATUS[1]}\"";
    let out = Command::new("bash")
        .args(["-c", script, CTX])
        .env("CTX_HOME", home())
        .env_remove("CTX_BUDGET")
        .output()
        .expect("bash runs");
    assert_eq!(text(&out.stdout), "1\n141\n", "{}", text(&out.stderr));
}

#[test]
fn ctx_digest_of_stdin_never_loses_it() {
    let scratch = TempDir::new().expect("tempdir");
    let not_a_dir = scratch.path().join("home-is-a-file");
    fs::write(&not_a_dir, "").expect("write");
    let input: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
    let mut child = Command::new(CTX)
        .args(["digest", "-"])
        .env("CTX_HOME", &not_a_dir)
        .env("TMPDIR", "/nonexistent/tmp")
        .env("CTX_TEST_SPILL_BYTES", "4096")
        .env("CTX_TEST_SPILL_MEMORY_CAP", "8192")
        .env_remove("CTX_BUDGET")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ctx starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let bytes = input.clone().into_bytes();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&bytes);
    });
    let out = child.wait_with_output().expect("ctx ends");
    writer.join().expect("writer");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        out.stdout == input.as_bytes(),
        "{} of {} bytes out",
        out.stdout.len(),
        input.len()
    );
    let stderr = text(&out.stderr);
    let notes: Vec<&str> = stderr.lines().filter(|l| l.starts_with("[ctx]")).collect();
    assert_eq!(notes.len(), 1, "{stderr}");
    assert!(notes[0].contains("passed through raw"), "{stderr}");
}
