//! `ctx read --mode outline` on a 5,000-line Rust file, end to end (the
//! process started, the file read and parsed, the outline printed), run on
//! demand:
//!
//!     cargo bench --bench read           # 60 rounds
//!     cargo bench --bench read -- 200    # more rounds
//!
//! The file is this repository's own `src/**/*.rs`, concatenated in path
//! order and cut at 5,000 lines (the cut leaves one error region at the
//! end, as a half-written file has). Interleaved in each round, the order
//! rotating: `outline cold` (a new, empty ctx home each run: the file is
//! parsed and its outline cached), `outline warm` (the home of the
//! earlier runs: the cached outline), `signatures` (warm), `full` (the
//! same process reading and printing the file with no syntax tree: the
//! baseline) and `cat` (a process that only reads and prints). Reported:
//! each case's median, the outline's cost over `full`, and in process
//! the parse, freeing its tree, the outline and the cached outline alone.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use ctx::read::{cache, languages, outline};

const CTX: &str = env!("CARGO_BIN_EXE_ctx");
const LINES: usize = 5_000;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("src/")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

fn input() -> String {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let mut text = String::new();
    for f in files {
        text.push_str(&std::fs::read_to_string(f).expect("read"));
        if text.lines().count() >= LINES {
            break;
        }
    }
    let mut out: String = text.lines().take(LINES).collect::<Vec<_>>().join("\n");
    out.push('\n');
    out
}

/// Wall time, and the child's CPU time (user + system) as the kernel
/// counts it: on a loaded machine the wall time measures the load, the
/// CPU time the work.
fn time(cmd: Command) -> (Duration, Duration) {
    let (status, usage, wall) = support::reaped(cmd);
    assert!(status == 0, "child failed");
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    (wall, tv(usage.ru_utime) + tv(usage.ru_stime))
}

/// This thread's CPU time.
fn thread_cpu() -> Duration {
    // SAFETY: an all-zero timespec is valid for clock_gettime to fill.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: a valid clock id and out-pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let rounds: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(60);
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("big.rs");
    let text = input();
    std::fs::write(&file, &text).expect("write");
    let f = file.to_str().expect("utf-8 path");
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("outline cold", vec![CTX, "read", f, "--mode", "outline"]),
        ("outline warm", vec![CTX, "read", f, "--mode", "outline"]),
        ("signatures", vec![CTX, "read", f, "--mode", "signatures"]),
        ("full", vec![CTX, "read", f, "--mode", "full"]),
        ("cat", vec!["cat", f]),
    ];
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); cases.len()];
    let mut cpu: Vec<Vec<Duration>> = vec![Vec::new(); cases.len()];
    for round in 0..rounds + 5 {
        for k in 0..cases.len() {
            let i = (k + round) % cases.len();
            let argv = &cases[i].1;
            let mut cmd = Command::new(argv[0]);
            // The cold case's home is new each run (created by ctx).
            let home = if i == 0 {
                dir.path().join(format!("cold-{round}"))
            } else {
                dir.path().join("home")
            };
            cmd.args(&argv[1..])
                .env("CTX_HOME", home)
                .env_remove("CTX_SESSION");
            let (t, c) = time(cmd);
            if round >= 5 {
                times[i].push(t);
                cpu[i].push(c);
            }
        }
    }
    let grammar = languages::by_name("rust").expect("rust");
    let cache_dir = dir.path().join("in-process");
    std::fs::create_dir(&cache_dir).expect("cache dir");
    cache::outline_in(&cache_dir, grammar, text.as_bytes()).expect("outline");
    let (mut parse, mut free, mut extract, mut cached) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut decls = 0;
    for _ in 0..rounds {
        let start = thread_cpu();
        let tree = outline::parse(grammar, text.as_bytes()).expect("parse");
        parse.push(thread_cpu() - start);
        // Timed apart: `ctx read` never frees its tree (it exits first).
        let start = thread_cpu();
        drop(tree);
        free.push(thread_cpu() - start);
        let start = thread_cpu();
        let o = outline::extract(grammar, text.as_bytes()).expect("parse");
        extract.push(thread_cpu() - start);
        decls = o.decls.len();
        let start = thread_cpu();
        cache::outline_in(&cache_dir, grammar, text.as_bytes()).expect("cached");
        cached.push(thread_cpu() - start);
    }
    println!(
        "input: {} lines, {} bytes, {decls} declarations; {rounds} rounds",
        LINES,
        text.len()
    );
    let medians: Vec<Duration> = times.into_iter().map(support::median).collect();
    let cpus: Vec<Duration> = cpu.into_iter().map(support::median).collect();
    for (((name, _), m), c) in cases.iter().zip(&medians).zip(&cpus) {
        println!("{name:>11}: median wall {}, CPU {}", ms(*m), ms(*c));
    }
    for (k, name) in [(0, "cold"), (1, "warm")] {
        println!(
            "outline {name} over full: wall +{} ({:.2}×), CPU +{}; over cat: {:.2}×",
            ms(medians[k].saturating_sub(medians[3])),
            medians[k].as_secs_f64() / medians[3].as_secs_f64(),
            ms(cpus[k].saturating_sub(cpus[3])),
            medians[k].as_secs_f64() / medians[4].as_secs_f64(),
        );
    }
    println!(
        "in process (thread CPU): parse alone {}, freeing the tree {}, parse and outline {}, cached outline {}",
        ms(support::median(parse)),
        ms(support::median(free)),
        ms(support::median(extract)),
        ms(support::median(cached))
    );
    let verdict = |d: Duration| {
        if d <= Duration::from_millis(20) {
            "met"
        } else {
            "NOT met"
        }
    };
    for (k, name) in [(0, "cold"), (1, "warm")] {
        println!(
            "goal: outline end to end ≤ 20 ms, {name}: wall {}, CPU {}",
            verdict(medians[k]),
            verdict(cpus[k])
        );
    }
}
