//! `ctx pipe` on a large server log, where log/v1 reads every line
//! (template clustering, levels, access-log requests), run on demand:
//!
//!     cargo bench --bench log_pipe [-- MB]
//!
//! A log of the given size (default 100 MB) is written to a temporary
//! file: nginx combined access lines with a request time (4xx/5xx among
//! them), interleaved with an application's timestamped lines and a
//! Python traceback every few hundred lines. Then, interleaved five times,
//! the baseline `cat file > /dev/null` and `ctx pipe < file > /dev/null`
//! (a fresh `CTX_HOME` each run, archive write included). Reported:
//! median wall time, throughput, the ratio to `cat`, and ctx's median peak
//! resident size (`ru_maxrss` from `wait4`). Goal: ≥ 150 MB/s, and memory
//! bounded (≤ 64 MB + 0.1 × input). Results: docs/performance.md.

use std::io::Write;
use std::path::Path;
use std::process::Command;

mod support;
use support::{measure, median};

const CTX: &str = env!("CARGO_BIN_EXE_ctx");
const RUNS: usize = 5;

fn write_log(path: &Path, bytes: usize) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    let paths = [
        "/",
        "/api/orders",
        "/api/users",
        "/health",
        "/static/app.js",
    ];
    let (mut n, mut i) = (0usize, 0u64);
    while n < bytes {
        let s = i % 60;
        let line = if i % 5 == 4 {
            format!(
                "2026-11-30 12:{:02}:{s:02},{:03} INFO shop.api: request {} served in {} ms\n",
                i / 60 % 60,
                i % 1000,
                paths[(i % 5) as usize],
                i * 7 % 900
            )
        } else {
            let status = match i % 97 {
                0 => 502,
                1..=3 => 404,
                _ => 200,
            };
            format!(
                "10.0.{}.{} - - [30/Nov/2026:12:{:02}:{s:02} +0000] \"GET {}?page={} HTTP/1.1\" {status} {} \"-\" \"curl/7.88.1\" 0.{:03}\n",
                i % 7,
                i % 250,
                i / 60 % 60,
                paths[(i % 5) as usize],
                i % 40,
                100 + i % 900,
                i * 13 % 1000
            )
        };
        f.write_all(line.as_bytes()).expect("write");
        n += line.len();
        if i % 500 == 499 {
            let tb = "2026-11-30 12:00:00,000 ERROR shop.api: order pricing failed\n\
                      Traceback (most recent call last):\n  File \"app.py\", line 38, in price\n\
                      \x20   return order[\"total\"] / order[\"items\"]\nZeroDivisionError: division by zero\n";
            f.write_all(tb.as_bytes()).expect("write");
            n += tb.len();
        }
        i += 1;
    }
    f.flush().expect("flush");
}

fn main() {
    let mb: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(100);
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("server.log");
    write_log(&input, mb * 1_000_000);
    // The digest, once, to show the family read it.
    let home = tempfile::tempdir().expect("home");
    let out = Command::new(CTX)
        .env("CTX_HOME", home.path())
        .env_remove("CTX_STORE")
        .env_remove("CTX_BUDGET")
        .arg("pipe")
        .stdin(std::fs::File::open(&input).expect("open input"))
        .output()
        .expect("run ctx");
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{}", text.lines().next().unwrap_or(""));
    let (mut cat_t, mut ctx_t, mut peaks) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let mut c = Command::new("cat");
        c.arg(&input);
        cat_t.push(measure(c).1);
        let home = tempfile::tempdir().expect("home");
        let mut c = Command::new(CTX);
        c.env("CTX_HOME", home.path())
            .env_remove("CTX_STORE")
            .env_remove("CTX_BUDGET")
            .arg("pipe")
            .stdin(std::fs::File::open(&input).expect("open input"));
        let (peak, took) = measure(c);
        ctx_t.push(took);
        peaks.push(peak / 1_000_000);
    }
    let (cat, ctx) = (median(cat_t), median(ctx_t.clone()));
    let rate = mb as f64 / ctx.as_secs_f64();
    let goal = 64 + mb as u64 / 10;
    let peak = median(peaks.clone());
    println!(
        "{mb} MB log: cat {:.0} ms; ctx pipe {:.0} ms median (runs {:?} ms) = {rate:.0} MB/s, {:.1}× cat; goal ≥ 150 MB/s {}",
        cat.as_secs_f64() * 1e3,
        ctx.as_secs_f64() * 1e3,
        ctx_t.iter().map(|t| t.as_millis()).collect::<Vec<_>>(),
        ctx.as_secs_f64() / cat.as_secs_f64(),
        if rate >= 150.0 { "met" } else { "NOT met" },
    );
    println!(
        "peak RSS {peak} MB median (runs {peaks:?} MB), goal ≤ {goal} MB {}",
        if peak <= goal { "met" } else { "NOT met" }
    );
}
