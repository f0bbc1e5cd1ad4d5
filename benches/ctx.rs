//! End-to-end benchmarks of the built binary, run on demand:
//!
//!     cargo bench --bench ctx            # all
//!     cargo bench --bench ctx -- run     # one group: run | pipe | expand
//!
//! Each figure is a median over interleaved repetitions, reported beside a
//! baseline measured in the same run (the machines are shared and noisy:
//! ratios and differences, not absolute times, are what carry over).
//! Results are recorded in docs/performance.md.

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod support;
use support::median;

const CTX: &str = env!("CARGO_BIN_EXE_ctx");

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Runs `cmd` with stdout and stderr on pipes (as an agent would), waits,
/// and returns the wall time.
fn time_once(cmd: &mut Command) -> Duration {
    let start = Instant::now();
    let out = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("spawn");
    let took = start.elapsed();
    assert!(out.status.code().is_some() || out.status.signal().is_some());
    took
}

fn run_group(home: &Path) {
    println!("## ctx run overhead (stdout a pipe)");
    let cases: [(&str, &[&str]); 2] = [
        (
            "small output (verbatim, no archive)",
            &["/bin/echo", "hello"],
        ),
        ("3,000 lines (digest, archive write)", &["seq", "1", "3000"]),
    ];
    for (label, argv) in cases {
        let (mut bare, mut wrapped) = (Vec::new(), Vec::new());
        for _ in 0..5 {
            time_once(Command::new(argv[0]).args(&argv[1..]));
            time_once(
                Command::new(CTX)
                    .env("CTX_HOME", home)
                    .arg("run")
                    .arg("--")
                    .args(argv),
            );
        }
        for _ in 0..200 {
            bare.push(time_once(Command::new(argv[0]).args(&argv[1..])));
            wrapped.push(time_once(
                Command::new(CTX)
                    .env("CTX_HOME", home)
                    .arg("run")
                    .arg("--")
                    .args(argv),
            ));
        }
        let (b, w) = (median(bare), median(wrapped));
        println!(
            "- {label}: bare {:.2} ms, ctx run {:.2} ms, added {:.2} ms (median of 200)",
            ms(b),
            ms(w),
            ms(w.saturating_sub(b))
        );
    }
}

fn big_log(dir: &Path, mb: usize) -> PathBuf {
    let path = dir.join(format!("log-{mb}mb.txt"));
    if path.exists() {
        return path;
    }
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).expect("create log"));
    let mut written = 0usize;
    let mut i = 0u64;
    while written < mb * 1_000_000 {
        let line = if i.is_multiple_of(9973) {
            format!(
                "2026-11-29T12:00:{:02}Z ERROR worker {i}: connection reset by peer\n",
                i % 60
            )
        } else {
            format!(
                "2026-11-29T12:00:{:02}Z INFO  worker {}: processed batch {i} in {} ms\n",
                i % 60,
                i % 16,
                i % 997
            )
        };
        written += line.len();
        f.write_all(line.as_bytes()).expect("write log");
        i += 1;
    }
    f.flush().expect("flush log");
    path
}

/// Peak RSS of the largest child waited for so far, in bytes.
fn children_max_rss() -> u64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a rusage struct into the pointer we own.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr());
        usage.assume_init()
    };
    usage.ru_maxrss as u64 * 1024
}

fn pipe_group(home: &Path, dir: &Path) {
    println!("## ctx pipe throughput (100 MB log)");
    let log = big_log(dir, 100);
    let size = std::fs::metadata(&log).expect("log").len() as f64;
    let (mut cat, mut pipe) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        let file = || std::fs::File::open(&log).expect("open log");
        cat.push(time_once(Command::new("cat").stdin(file())));
        let start = Instant::now();
        // A fresh store each time: a record already archived is not
        // written again, which would flatter every run after the first.
        let fresh = home.join(format!("pipe-{}", cat.len()));
        let out = Command::new(CTX)
            .env("CTX_HOME", &fresh)
            .arg("pipe")
            .stdin(file())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .expect("ctx pipe");
        pipe.push(start.elapsed());
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let (c, p) = (median(cat), median(pipe));
    println!(
        "- cat: {:.0} ms; ctx pipe: {:.0} ms = {:.0} MB/s end to end (median of 5)",
        ms(c),
        ms(p),
        size / 1e6 / p.as_secs_f64()
    );
    let rss = children_max_rss() as f64;
    println!(
        "- peak RSS of ctx pipe: {:.0} MB = {:.2}× the input",
        rss / 1e6,
        rss / size
    );
}

fn expand_group(home: &Path, dir: &Path) {
    println!("## ctx expand --lines on a 100 MB record");
    let log = big_log(dir, 100);
    let out = Command::new(CTX)
        .env("CTX_HOME", home)
        .arg("pipe")
        .stdin(std::fs::File::open(&log).expect("open log"))
        .output()
        .expect("ctx pipe");
    let digest = String::from_utf8_lossy(&out.stdout);
    let key = digest
        .lines()
        .last()
        .and_then(|l| l.rsplit(' ').next())
        .expect("a footer with the key")
        .to_string();
    let mut times = Vec::new();
    for i in 0..21u64 {
        let first = 1 + (i * 67_369) % 1_200_000;
        let range = format!("{first}-{}", first + 99);
        times.push(time_once(
            Command::new(CTX)
                .env("CTX_HOME", home)
                .args(["expand", &key, "--lines", &range]),
        ));
    }
    let mut echo = Vec::new();
    for _ in 0..21 {
        echo.push(time_once(&mut Command::new("/bin/true")));
    }
    println!(
        "- 100 lines from a random place: {:.2} ms (process start of /bin/true: {:.2} ms; median of 21)",
        ms(median(times)),
        ms(median(echo))
    );
}

/// A shim passing through (stdout a file; stdout a pipe that the /proc
/// walk finds is not the agent's) vs the bare command, and a digesting
/// shim (`bash -c NAME`, stdout a pipe: the agent's own) vs
/// `bash -c 'ctx run -- TOOL'`.
fn shim_group(home: &Path, dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    println!("## shims (medians of 200 interleaved runs)");
    let (tools, shims) = (dir.join("shim-tools"), dir.join("shim-dir"));
    std::fs::create_dir_all(&tools).expect("tools dir");
    let tool = tools.join("fake-pytest");
    std::fs::write(&tool, "#!/bin/sh\nseq 1 3000\nexit 1\n").expect("tool");
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = format!("{}:{}:/usr/bin:/bin", shims.display(), tools.display());
    let out = Command::new(CTX)
        .env("CTX_HOME", home)
        .env("PATH", &path)
        .args(["shims", "install", "--dir"])
        .arg(&shims)
        .arg("fake-pytest")
        .output()
        .expect("ctx shims install");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sink = dir.join("shim-out");
    let to_file = |cmd: &mut Command| {
        let file = std::fs::File::create(&sink).expect("sink");
        let start = Instant::now();
        let status = cmd
            .stdin(Stdio::null())
            .stdout(file)
            .stderr(Stdio::null())
            .status();
        let took = start.elapsed();
        assert!(status.is_ok());
        took
    };
    let shim = shims.join("fake-pytest");
    let run_line = format!("{CTX} run -- {}", tool.display());
    let (mut bare, mut passthrough, mut run, mut digest) = (vec![], vec![], vec![], vec![]);
    let (mut bare_pipe, mut walked) = (vec![], vec![]);
    for i in 0..205 {
        let b = to_file(Command::new(&tool).env("PATH", &path));
        let p = to_file(Command::new(&shim).env("PATH", &path).env("CTX_HOME", home));
        let bp = time_once(Command::new(&tool).env("PATH", &path));
        let w = time_once(Command::new(&shim).env("PATH", &path).env("CTX_HOME", home));
        let r = time_once(
            Command::new("bash")
                .env("CTX_HOME", home)
                .args(["-c", &run_line]),
        );
        let d = time_once(
            Command::new("bash")
                .env("PATH", &path)
                .env("CTX_HOME", home)
                .args(["-c", "fake-pytest"]),
        );
        if i >= 5 {
            bare.push(b);
            passthrough.push(p);
            bare_pipe.push(bp);
            walked.push(w);
            run.push(r);
            digest.push(d);
        }
    }
    let (b, p) = (median(bare), median(passthrough));
    let (bp, w) = (median(bare_pipe), median(walked));
    let (r, d) = (median(run), median(digest));
    println!(
        "- passthrough (stdout a file): bare {:.2} ms, shim {:.2} ms, added {:.2} ms",
        ms(b),
        ms(p),
        ms(p.saturating_sub(b))
    );
    println!(
        "- passthrough (stdout a pipe, /proc walk): bare {:.2} ms, shim {:.2} ms, added {:.2} ms",
        ms(bp),
        ms(w),
        ms(w.saturating_sub(bp))
    );
    println!(
        "- digesting (bash -c, stdout a pipe): ctx run {:.2} ms, shim {:.2} ms, difference {:+.2} ms",
        ms(r),
        ms(d),
        ms(d) - ms(r)
    );
}

fn main() {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wants = |g: &str| filter.is_empty() || filter.iter().any(|f| f == g);
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    if wants("run") {
        run_group(&home);
    }
    if wants("pipe") {
        pipe_group(&home, dir.path());
    }
    if wants("expand") {
        expand_group(&home, dir.path());
    }
    if wants("shim") {
        shim_group(&home, dir.path());
    }
}
