//! `ctx read`'s memory on large inputs, as the kernel counts it: the
//! peak resident set of the ctx process (`wait4`), which must stay under
//! 64 MiB plus the size of the view it prints, whatever the file. A file
//! over the streaming threshold is read by lines, never whole; a line of
//! tens of MiB is clipped in the line-precision view, with the read that
//! shows it whole.
//!
//! One test in its own binary, on purpose: a child started while the
//! test process is large inherits its high-water mark (the spawn shares
//! its memory until `exec`), so this process keeps nothing large: files
//! are written through a buffer, output is counted, not kept.

mod support;

use std::io::{Read, Write};
use std::path::Path;
use std::process::Stdio;

use tempfile::TempDir;

/// The memory any read may use besides its view.
const BASE: u64 = 64 << 20;

/// What a read printed: its size, its first and last 64 KiB; and the
/// process's exit code and peak RSS in bytes.
struct Ran {
    code: Option<i32>,
    len: u64,
    head: String,
    tail: String,
    stderr: String,
    peak: u64,
}

const KEEP: usize = 64 << 10;

// The child is reaped by `wait4` (std's `wait` cannot report its
// resource usage or be polled with WNOHANG alongside it).
#[allow(clippy::zombie_processes)]
fn read(home: &Path, args: &[&str]) -> Ran {
    let mut all = vec!["read"];
    all.extend_from_slice(args);
    let mut child = support::ctx_cmd(home, &all)
        .env_remove("CTX_SESSION")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ctx read");
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let errors = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let (mut len, mut head, mut tail) = (0u64, Vec::new(), Vec::<u8>::new());
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = out.read(&mut buf).expect("read stdout");
        if n == 0 {
            break;
        }
        len += n as u64;
        if head.len() < KEEP {
            let take = (KEEP - head.len()).min(n);
            head.extend_from_slice(&buf[..take]);
        }
        tail.extend_from_slice(&buf[..n]);
        if tail.len() > KEEP {
            tail.drain(..tail.len() - KEEP);
        }
    }
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child with valid out-pointers.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert!(pid > 0, "wait4");
    Ran {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        len,
        head: String::from_utf8_lossy(&head).into_owned(),
        tail: String::from_utf8_lossy(&tail).into_owned(),
        stderr: errors.join().expect("stderr"),
        peak: usage.ru_maxrss as u64 * 1024,
    }
}

/// `count` lines of 66 bytes.
fn log_file(path: &Path, count: usize) {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    for i in 1..=count {
        writeln!(
            file,
            "2024-05-01T12:00:00Z INFO worker {:>6} handled request {i:>9}",
            i % 977
        )
        .expect("write");
    }
}

fn large_file(home: &Path, dir: &Path) {
    let path = dir.join("big.log");
    // 185 MB: over the streaming threshold and well over the bound, so a
    // reader that loads the file whole cannot stay under it.
    log_file(&path, 2_800_000);
    let size = std::fs::metadata(&path).expect("size").len();
    let shown = path.to_string_lossy().into_owned();

    let ran = read(home, &["--mode", "auto", &shown]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(ran.head.contains("2,800,000 lines"), "{}", ran.head);
    assert!(ran.head.contains("handled request         1\n"), "the head");
    assert!(ran.tail.contains("handled request   2800000\n"), "the tail");
    assert!(
        ran.head.contains("lines:61-2799980"),
        "the read of what is left out"
    );
    assert!(
        ran.peak < BASE + ran.len,
        "auto: peak {} MiB",
        ran.peak >> 20
    );

    let ran = read(
        home,
        &["--mode", "lines:1400000-1400002", "--anchors", &shown],
    );
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let lines: Vec<&str> = ran.head.lines().collect();
    assert!(lines[0].starts_with("1400000:"), "{}", ran.head);
    assert!(
        lines[2].ends_with("handled request   1400002"),
        "{}",
        ran.head
    );
    assert!(
        lines[3].contains("lines 1400000-1400002 of 2,800,000"),
        "{}",
        ran.head
    );
    assert!(ran.peak < BASE, "lines: peak {} MiB", ran.peak >> 20);

    // `--verify` compares every line, streamed: the anchors just read
    // are unchanged, at the memory of a line view.
    let anchor = |line: &str| line.split('|').next().expect("anchor").to_string();
    let (first, last) = (anchor(lines[0]), anchor(lines[2]));
    let ran = read(home, &[&shown, "--verify", &first, &last]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(ran.head.contains("all 2 anchors unchanged"), "{}", ran.head);
    assert!(ran.peak < BASE, "verify: peak {} MiB", ran.peak >> 20);

    let ran = read(home, &["--mode", "full", &shown]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_eq!(ran.len, size, "full is the file");
    assert!(
        ran.peak < BASE + size,
        "full: peak {} MiB for a {} MiB view",
        ran.peak >> 20,
        size >> 20
    );
}

fn huge_line(home: &Path, dir: &Path) {
    let path = dir.join("one-line.json");
    let line_len: usize = 40 << 20;
    {
        let mut file = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
        let block = vec![b'x'; 1 << 20];
        for _ in 0..line_len >> 20 {
            file.write_all(&block).expect("write");
        }
        file.write_all(b"\nshort second line\n").expect("write");
    }
    let shown = path.to_string_lossy().into_owned();
    let ran = read(home, &["--mode", "auto", &shown]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(ran.len < 16 << 10, "{} bytes shown", ran.len);
    let marker = format!(
        "[ctx] line 1 is 41,943,040 bytes, the first 4,096 shown · whole line: ctx read {shown} --mode lines:1-1"
    );
    assert!(ran.head.contains(&marker), "{}", ran.head);
    assert!(ran.head.contains("short second line\n"), "{}", ran.head);
    assert!(ran.peak < BASE, "peak {} MiB", ran.peak >> 20);
    // The address gives the line whole.
    let ran = read(home, &["--mode", "lines:1-1", &shown]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(ran.len > line_len as u64, "whole: {} bytes", ran.len);
    assert!(ran.head.starts_with("xxxxxxxx"), "whole");
    assert!(
        ran.peak < BASE + ran.len,
        "lines:1-1: peak {} MiB",
        ran.peak >> 20
    );

    // Under the streaming threshold the file is loaded; its long line is
    // clipped the same way.
    let path = dir.join("small.txt");
    let mut text = vec![b'y'; 1 << 20];
    text.push(b'\n');
    std::fs::write(&path, &text).expect("write");
    let shown = path.to_string_lossy().into_owned();
    let ran = read(home, &["--mode", "outline", &shown]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(
        ran.head
            .contains("[ctx] line 1 is 1,048,576 bytes, the first 4,096 shown"),
        "{}",
        ran.head
    );
}

#[test]
fn reads_of_large_files_stay_in_bounded_memory() {
    let home = TempDir::new().expect("tempdir");
    let dir = TempDir::new().expect("tempdir");
    large_file(home.path(), dir.path());
    std::fs::remove_file(dir.path().join("big.log")).expect("rm");
    huge_line(home.path(), dir.path());
    past_any_load(home.path(), dir.path());
}

/// A file past what any view loads (300 MiB of one line, sparse on disk):
/// `--verify` still answers, in bounded memory.
fn past_any_load(home: &Path, dir: &Path) {
    let path = dir.join("sparse.bin");
    let file = std::fs::File::create(&path).expect("create");
    file.set_len(300 << 20).expect("sparse");
    drop(file);
    let shown = path.to_string_lossy().into_owned();
    let ran = read(home, &[&shown, "--verify", "1:0000", "2:0000"]);
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert!(ran.head.contains("1:0000 changed, now 1:"), "{}", ran.head);
    assert!(
        ran.head.contains("2:0000 gone: the file has 1 line"),
        "{}",
        ran.head
    );
    assert!(ran.peak < BASE, "verify: peak {} MiB", ran.peak >> 20);
}
