//! How fast `ctx run` ends when the bare command would, run on demand:
//!
//!     cargo bench --bench stop
//!
//! - `CMD | head -1` in a shell: ctx's output leads to another program, so
//!   ctx runs the command in place; the pipeline's time and status are the
//!   bare command's.
//! - A stop request (SIGTERM) in the middle of a large output, and while a
//!   background process holds the pipes: the time from the signal to ctx's
//!   death, beside the bare command's.
//!
//! Medians over interleaved repetitions, each beside its baseline measured
//! in the same run. Results are recorded in docs/performance.md.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod support;
use support::median;

const CTX: &str = env!("CARGO_BIN_EXE_ctx");

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// `bash -c LINE` with `$CTX` set; wall time and the first PIPESTATUS.
fn pipeline(home: &Path, line: &str) -> (Duration, String) {
    let start = Instant::now();
    let out = Command::new("bash")
        .args(["-c", &format!("{line}; echo \"${{PIPESTATUS[0]}}\" >&2")])
        .env("CTX", CTX)
        .env("CTX_HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("bash");
    let took = start.elapsed();
    let status = String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string();
    (took, status)
}

fn head_group(home: &Path) {
    println!("## `seq 1 10000000 | head -1` (wall time of the bash line)");
    let (mut bare, mut through) = (Vec::new(), Vec::new());
    let mut statuses = (String::new(), String::new());
    for _ in 0..21 {
        let (t, s) = pipeline(home, "seq 1 10000000 | head -1");
        bare.push(t);
        statuses.0 = s;
        let (t, s) = pipeline(home, "$CTX run -- seq 1 10000000 | head -1");
        through.push(t);
        statuses.1 = s;
    }
    let (b, t) = (median(bare), median(through));
    println!(
        "- bare {:.2} ms (status {}), ctx run {:.2} ms (status {}), ratio {:.2} (median of 21)",
        ms(b),
        statuses.0,
        ms(t),
        statuses.1,
        ms(t) / ms(b)
    );
}

/// Starts `argv` with stdout and stderr drained by threads (an agent
/// reading), waits `after`, sends SIGTERM, and returns the time from the
/// signal to the process's end, and how it ended.
fn term_after(argv: &[&str], home: &Path, after: Duration) -> (Duration, String) {
    let mut child: Child = Command::new(argv[0])
        .args(&argv[1..])
        .env("CTX_HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let drain_out = std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    let drain_err = std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    std::thread::sleep(after);
    // SAFETY: kill(2) on a pid this process spawned and has not reaped.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let start = Instant::now();
    let status = child.wait().expect("wait");
    let took = start.elapsed();
    // Not joined: a background holder keeps the pipes open after the end;
    // the drains end with it.
    drop((drain_out, drain_err));
    let how = match (status.code(), status.signal()) {
        (Some(c), _) => format!("exit {c}"),
        (_, Some(s)) => format!("signal {s}"),
        _ => "?".into(),
    };
    (took, how)
}

fn term_group(home: &Path, scratch: &Path) {
    println!("## SIGTERM to a command (time from the signal to its end)");
    let big = ["seq", "1", "1000000000"];
    let mut wrapped_big = vec![CTX, "run", "--"];
    wrapped_big.extend_from_slice(&big);
    let (mut bare, mut through) = (Vec::new(), Vec::new());
    let mut how = (String::new(), String::new());
    for _ in 0..11 {
        let (t, h) = term_after(&big, home, Duration::from_millis(500));
        bare.push(t);
        how.0 = h;
        let (t, h) = term_after(&wrapped_big, home, Duration::from_millis(500));
        through.push(t);
        how.1 = h;
    }
    println!(
        "- mid-way through a large output (after 0.5 s of seq): bare {:.2} ms ({}), ctx run {:.2} ms ({}) (median of 11)",
        ms(median(bare)),
        how.0,
        ms(median(through)),
        how.1
    );

    // The child (sleep, exec'd by sh) dies of the signal; its background
    // sibling holds both pipes for a minute.
    let (mut bare, mut through) = (Vec::new(), Vec::new());
    for i in 0..11 {
        let ids = scratch.join(format!("holder-{i}"));
        let script = format!(
            "sleep 60 & echo $! > {ids}; echo early; exec sleep 61",
            ids = ids.display()
        );
        let (t, _) = term_after(&["sh", "-c", &script], home, Duration::from_millis(200));
        bare.push(t);
        kill_holder(&ids);
        let (t, h) = term_after(
            &[CTX, "run", "--", "sh", "-c", &script],
            home,
            Duration::from_millis(200),
        );
        through.push(t);
        how.1 = h;
        kill_holder(&ids);
    }
    println!(
        "- a background process holding the pipes: bare {:.2} ms, ctx run {:.2} ms ({}) (median of 11)",
        ms(median(bare)),
        ms(median(through)),
        how.1
    );
}

fn kill_holder(ids: &Path) {
    if let Some(pid) = std::fs::read_to_string(ids)
        .ok()
        .and_then(|s| s.trim().parse::<i32>().ok())
    {
        // SAFETY: kill(2) with a pid this benchmark's script started.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
}

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    head_group(&home);
    term_group(&home, dir.path());
}
