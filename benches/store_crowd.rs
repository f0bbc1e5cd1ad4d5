//! Many large writers into one store at once, run on demand:
//!
//!     cargo bench --bench store_crowd [-- WRITERS LINES ROUNDS]
//!
//! WRITERS (default 32) concurrent `ctx run -- seq A B` of LINES (default
//! 1,000,000) lines each into one fresh store, with `ctx store gc` and
//! `ctx gain` running in a loop beside them. Reports how many outputs were
//! archived (the goal: all of them) and the wall time, against a baseline
//! measured in the same run: one writer alone. Results are recorded in
//! docs/performance.md and docs/store.md.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

mod support;
use support::median;

const CTX: &str = env!("CARGO_BIN_EXE_ctx");

fn ctx(home: &Path) -> Command {
    let mut c = Command::new(CTX);
    c.env("CTX_HOME", home)
        .env_remove("CTX_STORE")
        .env_remove("CTX_BUDGET")
        .env_remove("CTX_STORE_BUSY_TIMEOUT")
        .env_remove("CTX_STORE_MAX_BYTES")
        .env_remove("CTX_STORE_MIN_AGE");
    c
}

/// Runs `writers` concurrent `ctx run -- seq`; (archived, wall time).
fn round(writers: usize, lines: usize, maintenance: bool) -> (usize, Duration) {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path().to_path_buf();
    let stop = Arc::new(AtomicBool::new(false));
    let maint = maintenance.then(|| {
        let (stop, h) = (Arc::clone(&stop), h.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let _ = ctx(&h).args(["store", "gc"]).output();
                let _ = ctx(&h).arg("gain").output();
            }
        })
    });
    let start = Instant::now();
    let children: Vec<_> = (0..writers)
        .map(|i| {
            ctx(&h)
                .args(["run", "--", "seq"])
                .arg((i + 1).to_string())
                .arg((i + lines).to_string())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn ctx run")
        })
        .collect();
    let archived = children
        .into_iter()
        .map(|c| c.wait_with_output().expect("wait"))
        .filter(|out| String::from_utf8_lossy(&out.stdout).contains("ctx expand "))
        .count();
    let took = start.elapsed();
    stop.store(true, Ordering::Relaxed);
    if let Some(m) = maint {
        let _ = m.join();
    }
    (archived, took)
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let writers = args.first().copied().unwrap_or(32);
    let lines = args.get(1).copied().unwrap_or(1_000_000);
    let rounds = args.get(2).copied().unwrap_or(3);

    let alone = median((0..rounds).map(|_| round(1, lines, false).1).collect());
    println!("one writer alone, {lines} lines: median {alone:.2?}");
    let mut times = Vec::new();
    for r in 1..=rounds {
        let (archived, took) = round(writers, lines, true);
        println!("round {r}: {archived}/{writers} archived in {took:.2?} (gc and gain running)");
        times.push(took);
    }
    let crowd = median(times);
    println!(
        "{writers} writers: median {crowd:.2?} = {:.2}× one writer, {:.2}× {writers} writers one after another",
        crowd.as_secs_f64() / alone.as_secs_f64(),
        crowd.as_secs_f64() / (alone.as_secs_f64() * writers as f64)
    );
}
