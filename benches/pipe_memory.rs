//! Peak memory of `ctx pipe` and `ctx run` on large inputs, run on demand:
//!
//!     cargo bench --bench pipe_memory [-- MB... ]
//!
//! For each size (default 100 and 500 MB; 1000 for 1 GB) a log of 70-byte
//! lines is written to a temporary file, then `ctx pipe < file`,
//! `ctx run -- cat file` and `ctx run -- sh -c 'cat file >&2'` (the same
//! output on stderr) run three times each in a fresh `CTX_HOME`. The peak
//! resident size is the child's `ru_maxrss` from `wait4`, the figure
//! `/usr/bin/time -v` prints as "Maximum resident set size" (mapped file
//! pages included); the baseline, measured three times in the same run, is
//! `cat file > /dev/null`. Goal: peak ≤ 64 MB + 0.1 × input, throughput
//! ≥ 200 MB/s. Every figure is a median of three. Results are recorded in
//! docs/performance.md.

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

mod support;
use support::{measure, median};

const CTX: &str = env!("CARGO_BIN_EXE_ctx");

fn write_log(path: &Path, bytes: usize) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    let (mut n, mut i) = (0usize, 0u64);
    while n < bytes {
        let line = format!(
            "2026-11-29T12:00:{:02}Z INFO  worker {}: processed batch {i} in {} ms\n",
            i % 60,
            i % 16,
            i * 7919 % 1000
        );
        f.write_all(line.as_bytes()).expect("write");
        n += line.len();
        i += 1;
    }
    f.flush().expect("flush");
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![100, 500]
    } else {
        sizes
    };
    let dir = tempfile::tempdir().expect("tempdir");
    for mb in sizes {
        let input = dir.path().join(format!("{mb}.log"));
        write_log(&input, mb * 1_000_000);
        let goal = 64_000_000 + mb as u64 * 100_000;
        let cats: Vec<(u64, Duration)> = (0..3)
            .map(|_| {
                let mut c = Command::new("cat");
                c.arg(&input);
                measure(c)
            })
            .collect();
        let cat_peak = median(cats.iter().map(|c| c.0).collect());
        let cat_took = median(cats.iter().map(|c| c.1).collect());
        println!(
            "{mb} MB: baseline `cat` peak {} MB, {:.0} MB/s",
            cat_peak / 1_000_000,
            mb as f64 / cat_took.as_secs_f64()
        );
        for mode in ["pipe", "run", "run-stderr"] {
            let mut peaks = Vec::new();
            let mut times = Vec::new();
            for _ in 0..3 {
                let home = tempfile::tempdir().expect("home");
                let mut c = Command::new(CTX);
                c.env("CTX_HOME", home.path())
                    .env_remove("CTX_STORE")
                    .env_remove("CTX_BUDGET");
                if mode == "pipe" {
                    c.arg("pipe")
                        .stdin(std::fs::File::open(&input).expect("open input"));
                } else if mode == "run" {
                    c.args(["run", "--digest", "--", "cat"]).arg(&input);
                } else {
                    c.args(["run", "--digest", "--", "sh", "-c", "cat \"$0\" >&2"])
                        .arg(&input);
                }
                let (peak, took) = measure(c);
                peaks.push(peak);
                times.push(took);
            }
            let peak = median(peaks.clone());
            let took = median(times);
            println!(
                "{mb} MB {mode}: peak {} MB median (runs {:?} MB), goal ≤ {} MB {}; \
                 {:.0} MB/s, {:.1}× cat's time",
                peak / 1_000_000,
                peaks.iter().map(|p| p / 1_000_000).collect::<Vec<_>>(),
                goal / 1_000_000,
                if peak <= goal { "met" } else { "NOT met" },
                mb as f64 / took.as_secs_f64(),
                took.as_secs_f64() / cat_took.as_secs_f64()
            );
        }
        let _ = std::fs::remove_file(&input);
    }
}
