//! A 100 MB JSON array through `ctx pipe`, run on demand:
//!
//!     cargo bench --bench json_crush [-- MB]
//!
//! The array (objects shaped like an API's list response, one in 311 with
//! `"status":"failed"`) is written to a temporary file; then, three times
//! each in a fresh `CTX_HOME`: `ctx pipe < file` (json/v1 crushes it: the
//! document is read one level at a time over borrowed raw values, never
//! built as a tree), the baseline `python3 -c 'json.load'` (a full tree)
//! and `cat file > /dev/null`. Reported: median wall time, throughput and
//! peak resident size (`ru_maxrss` from `wait4`). Recorded in
//! docs/performance.md.

use std::io::Write;
use std::path::Path;
use std::process::Command;

mod support;
use support::{measure, median};

const CTX: &str = env!("CARGO_BIN_EXE_ctx");

fn write_array(path: &Path, bytes: usize) -> usize {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    f.write_all(b"[").expect("write");
    let (mut n, mut i) = (1usize, 0u64);
    while n < bytes {
        let status = if i % 311 == 0 { "failed" } else { "succeeded" };
        let item = format!(
            "{}{{\"id\":{i},\"name\":\"job-{}\",\"status\":\"{status}\",\"duration_ms\":{},\"url\":\"https://ci.example/runs/{i}\"}}",
            if i == 0 { "" } else { "," },
            i % 97,
            i * 7919 % 100_000
        );
        f.write_all(item.as_bytes()).expect("write");
        n += item.len();
        i += 1;
    }
    f.write_all(b"]\n").expect("write");
    f.flush().expect("flush");
    i as usize
}

fn main() {
    let mb: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(100);
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("array.json");
    let items = write_array(&file, mb << 20);
    let size = std::fs::metadata(&file).expect("size").len() as f64 / 1e6;
    println!("{size:.0} MB JSON array, {items} objects");
    let input = || std::fs::File::open(&file).expect("open");
    let run = |label: &str, make: &dyn Fn(&Path) -> Command| {
        let mut walls = Vec::new();
        let mut rss = Vec::new();
        for k in 0..3 {
            let home = dir.path().join(format!("home-{label}-{k}"));
            let mut cmd = make(&home);
            cmd.stdin(input());
            let (r, w) = measure(cmd);
            walls.push(w);
            rss.push(r);
        }
        let w = median(walls);
        let r = median(rss);
        println!(
            "{label:<28} {:>8.0} ms  {:>7.0} MB/s  peak RSS {:>5} MB",
            w.as_secs_f64() * 1e3,
            size / w.as_secs_f64(),
            r >> 20
        );
    };
    run("cat", &|_| Command::new("cat"));
    run("python3 json.load (a tree)", &|_| {
        let mut c = Command::new("python3");
        c.args(["-c", "import json,sys; json.load(sys.stdin)"]);
        c
    });
    run("ctx pipe (json/v1)", &|home| {
        let mut c = Command::new(CTX);
        c.arg("pipe").env("CTX_HOME", home);
        c
    });
}
