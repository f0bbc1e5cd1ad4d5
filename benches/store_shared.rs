//! The shared store under a build farm's load, run on demand:
//!
//!     eval "$(bash .ci/postgres.sh start)"
//!     cargo bench --bench store_shared [-- WRITERS RUNS LINES]
//!
//! WRITERS (default 8) threads each run RUNS (default 1,000) `ctx run
//! --digest -- seq A B` of LINES (default 2,000) lines, every output
//! different, so every run archives a new record. The same load runs
//! against: the bare `seq` (the baseline), the local SQLite store, and the
//! PostgreSQL server named by `CTX_TEST_POSTGRES_URL` (plain text, and
//! TLS when the server offers it: `sslmode=prefer`). Reports per run the
//! wall time's p50/p99, the added time over the baseline's median, records
//! per second, and checks that every run was archived exactly once (keys
//! from the digests; records counted in the store). Results are recorded
//! in docs/performance.md.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CTX: &str = env!("CARGO_BIN_EXE_ctx");

#[derive(Clone, Copy)]
struct Load {
    writers: usize,
    runs: usize,
    lines: usize,
}

/// One thread's runs: the wall time of each and the key each digest named.
fn writer(
    load: Load,
    w: usize,
    make: &(dyn Fn(usize, usize) -> Command + Sync),
) -> Vec<(Duration, Option<String>)> {
    (0..load.runs)
        .map(|r| {
            let first = w * 1_000_000_000 + r * 10 * load.lines + 1;
            let last = first + load.lines - 1;
            let mut cmd = make(first, last);
            cmd.stdin(Stdio::null()).stderr(Stdio::null());
            let start = Instant::now();
            let out = cmd.output().expect("spawn");
            let took = start.elapsed();
            let text = String::from_utf8_lossy(&out.stdout);
            let key = text
                .split_whitespace()
                .skip_while(|w| *w != "expand")
                .nth(1)
                .map(str::to_string);
            (took, key)
        })
        .collect()
}

struct Phase {
    times: Vec<Duration>,
    keys: Vec<Option<String>>,
    wall: Duration,
}

fn phase(load: Load, make: &(dyn Fn(usize, usize) -> Command + Sync)) -> Phase {
    let start = Instant::now();
    let results: Vec<Vec<(Duration, Option<String>)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..load.writers)
            .map(|w| s.spawn(move || writer(load, w, make)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("writer"))
            .collect()
    });
    let wall = start.elapsed();
    let (times, keys) = results.into_iter().flatten().unzip();
    Phase { times, keys, wall }
}

fn quantile(v: &[Duration], q: f64) -> Duration {
    let mut v = v.to_vec();
    v.sort();
    v[((v.len() - 1) as f64 * q).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn ctx_run(
    home: &Path,
    store: Option<&str>,
    namespace: &str,
    first: usize,
    last: usize,
) -> Command {
    let mut c = Command::new(CTX);
    c.args(["run", "--digest", "--", "seq"])
        .arg(first.to_string())
        .arg(last.to_string())
        .env("CTX_HOME", home)
        .env("CTX_NAMESPACE", namespace)
        .env_remove("CTX_BUDGET")
        .env_remove("CTX_STORE_MAX_BYTES")
        .env_remove("CTX_STORE_MIN_AGE");
    match store {
        Some(url) => c.env("CTX_STORE", url),
        None => c.env_remove("CTX_STORE"),
    };
    c
}

/// Records in the store as `ctx store stats` counts them.
fn records(home: &Path, store: Option<&str>, namespace: &str) -> u64 {
    let mut c = Command::new(CTX);
    c.args(["store", "stats", "--format", "json"])
        .env("CTX_HOME", home)
        .env("CTX_NAMESPACE", namespace)
        .env("CTX_STORE_TIMEOUT", "30s");
    match store {
        Some(url) => c.env("CTX_STORE", url),
        None => c.env_remove("CTX_STORE"),
    };
    let out = c.output().expect("stats");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    v["records"].as_u64().unwrap_or(0)
}

fn report(
    name: &str,
    load: Load,
    p: &Phase,
    baseline: Duration,
    stored: Option<u64>,
    over: Option<Duration>,
) {
    let total = load.writers * load.runs;
    let mut keys: Vec<&String> = p.keys.iter().flatten().collect();
    let named = keys.len();
    keys.sort();
    keys.dedup();
    let added: Vec<Duration> = p.times.iter().map(|t| t.saturating_sub(baseline)).collect();
    println!(
        "{name:<22} p50 {:>6.1} ms  p99 {:>6.1} ms  added p50 {:>6.1} ms  p99 {:>6.1} ms  {:>6.0} runs/s  archived {named}/{total}, distinct {}{}",
        ms(quantile(&p.times, 0.5)),
        ms(quantile(&p.times, 0.99)),
        ms(quantile(&added, 0.5)),
        ms(quantile(&added, 0.99)),
        total as f64 / p.wall.as_secs_f64(),
        keys.len(),
        stored.map_or(String::new(), |n| format!(", {n} records in the store")),
    );
    if let Some(sqlite) = over {
        let p50 = quantile(&p.times, 0.5);
        println!(
            "{:<22} p50 {:+.1} ms over SQLite's",
            "",
            ms(p50) - ms(sqlite)
        );
    }
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let load = Load {
        writers: args.first().copied().unwrap_or(8),
        runs: args.get(1).copied().unwrap_or(1000),
        lines: args.get(2).copied().unwrap_or(2000),
    };
    println!(
        "{} writers × {} runs of `ctx run --digest -- seq` ({} lines each)",
        load.writers, load.runs, load.lines
    );
    let namespace = format!("bench-{}", std::process::id());

    let bare = phase(load, &|a, b| {
        let mut c = Command::new("seq");
        c.arg(a.to_string()).arg(b.to_string());
        c
    });
    let baseline = quantile(&bare.times, 0.5);
    report("bare seq (baseline)", load, &bare, baseline, None, None);

    let home = tempfile::tempdir().expect("home");
    let sqlite = phase(load, &|a, b| ctx_run(home.path(), None, &namespace, a, b));
    let n = records(home.path(), None, &namespace);
    report("ctx run, SQLite", load, &sqlite, baseline, Some(n), None);
    let sqlite_p50 = quantile(&sqlite.times, 0.5);

    let Some(url) = std::env::var("CTX_TEST_POSTGRES_URL")
        .ok()
        .filter(|u| !u.is_empty())
    else {
        println!("CTX_TEST_POSTGRES_URL is not set: PostgreSQL skipped");
        return;
    };
    let sep = if url.contains('?') { '&' } else { '?' };
    for (name, mode) in [
        ("ctx run, PG plain", "disable"),
        ("ctx run, PG TLS", "require"),
    ] {
        let home = tempfile::tempdir().expect("home");
        let ns = format!("{namespace}-{mode}");
        let store = format!("{url}{sep}sslmode={mode}");
        let p = phase(load, &|a, b| ctx_run(home.path(), Some(&store), &ns, a, b));
        let n = records(home.path(), Some(&store), &ns);
        report(name, load, &p, baseline, Some(n), Some(sqlite_p50));
    }
}
