//! The shared store under a build farm's load, run on demand:
//!
//!     eval "$(bash .ci/postgres.sh start)"
//!     cargo bench --bench store_shared [-- WRITERS RUNS LINES]
//!
//! WRITERS (default 8) threads each run RUNS (default 1,000) `ctx run
//! --digest -- seq A B` of LINES (default 2,000) lines, every output
//! different, so every run archives a new record. Each output runs under
//! every variant in turn (interleaved, so that all variants see the same
//! load on a shared machine): the bare `seq` (the baseline), the local
//! SQLite store, and the PostgreSQL server named by `CTX_TEST_POSTGRES_URL`
//! in plain text (`sslmode=disable`) and over TLS (`sslmode=require`);
//! with `CTX_BENCH_BEFORE=LABEL=PATH[,LABEL=PATH…]`, the PostgreSQL
//! variants also run with those older ctx binaries; with
//! `CTX_TEST_PGBOUNCER_URL` (`.ci/pgbouncer.sh start`: PgBouncer in
//! transaction pooling mode in front of that server), a variant through
//! the pooler in plain text too; and the local fallback, against a server
//! that refuses the connection and one that never answers (the deadline,
//! `CTX_STORE_TIMEOUT`, 300 ms by default). Reports per run the wall time's p50/p99, the
//! added time over the baseline's median, runs per second, and checks
//! that every run was archived exactly once (keys from the digests;
//! records counted in the store); then the cost of ctx's connection to
//! the server by itself, the floor under any PostgreSQL run. Results are
//! recorded in docs/performance.md.

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

/// One way of running the load: the bare command, or `ctx run` on one
/// store with one binary.
struct Variant<'a> {
    name: String,
    make: Box<dyn Fn(usize, usize) -> Command + Sync + 'a>,
}

/// One thread's runs, every variant in turn for each output (starting
/// with a different variant each time), so that all variants see the
/// same load on a shared machine: for each variant, the wall time of each
/// run and the key each digest named.
fn writer(load: Load, w: usize, variants: &[Variant]) -> Vec<Vec<Run>> {
    let n = variants.len();
    let mut out: Vec<Vec<Run>> = vec![Vec::new(); n];
    for r in 0..load.runs {
        let first = w * 1_000_000_000 + r * 10 * load.lines + 1;
        let last = first + load.lines - 1;
        for k in 0..n {
            let v = (r + w + k) % n;
            let mut cmd = (variants[v].make)(first, last);
            cmd.stdin(Stdio::null()).stderr(Stdio::null());
            let start = Instant::now();
            let result = cmd.output().expect("spawn");
            let took = start.elapsed();
            let text = String::from_utf8_lossy(&result.stdout);
            let key = text
                .split_whitespace()
                .skip_while(|w| *w != "expand")
                .nth(1)
                .map(str::to_string);
            out[v].push((took, key));
        }
    }
    out
}

/// One run: its wall time and the key its digest named.
type Run = (Duration, Option<String>);

struct Phase {
    times: Vec<Duration>,
    keys: Vec<Option<String>>,
}

/// Runs every variant under the load; one `Phase` per variant.
fn phases(load: Load, variants: &[Variant]) -> Vec<Phase> {
    let results: Vec<Vec<Vec<Run>>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..load.writers)
            .map(|w| s.spawn(move || writer(load, w, variants)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("writer"))
            .collect()
    });
    (0..variants.len())
        .map(|v| {
            let (times, keys) = results
                .iter()
                .flat_map(|per_writer| per_writer[v].iter().cloned())
                .unzip();
            Phase { times, keys }
        })
        .collect()
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
    ctx: &Path,
    home: &Path,
    store: Option<&str>,
    namespace: &str,
    first: usize,
    last: usize,
) -> Command {
    let mut c = Command::new(ctx);
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
    writers: usize,
    p: &Phase,
    baseline: Duration,
    stored: Option<u64>,
    over: Option<Duration>,
) {
    let total = p.times.len();
    // Interleaved, a variant has no wall time of its own: its rate is
    // what `writers` back-to-back runs of its mean length give.
    let mean = p.times.iter().sum::<Duration>().as_secs_f64() / total.max(1) as f64;
    let rate = writers as f64 / mean;
    let mut keys: Vec<&String> = p.keys.iter().flatten().collect();
    let named = keys.len();
    keys.sort();
    keys.dedup();
    let added: Vec<Duration> = p.times.iter().map(|t| t.saturating_sub(baseline)).collect();
    println!(
        "{name:<26} p50 {:>6.1} ms  p99 {:>6.1} ms  added p50 {:>6.1} ms  p99 {:>6.1} ms  {rate:>5.0} runs/s  archived {named}/{total}, distinct {}{}",
        ms(quantile(&p.times, 0.5)),
        ms(quantile(&p.times, 0.99)),
        ms(quantile(&added, 0.5)),
        ms(quantile(&added, 0.99)),
        keys.len(),
        stored.map_or(String::new(), |n| format!(", {n} records in the store")),
    );
    if let Some(sqlite) = over {
        let p50 = quantile(&p.times, 0.5);
        println!(
            "{:<26} p50 {:+.1} ms over SQLite's (×{:.2})",
            "",
            ms(p50) - ms(sqlite),
            ms(p50) / ms(sqlite)
        );
    }
}

/// The floor under any PostgreSQL run: what ctx's own connection costs
/// by itself (TCP, TLS, start-up, the server's new backend, goodbye),
/// in this process, one at a time, `n` times: p50 and p99.
fn connection_floor(url: &str, n: usize) -> (Duration, Duration) {
    use ctx::store::postgres::{PgOptions, PgStore};
    let options = PgOptions {
        retention: ctx::store::Retention::default(),
        timeout: Duration::from_secs(5),
        namespace: String::new(),
    };
    let times: Vec<Duration> = (0..n)
        .map(|_| {
            let start = Instant::now();
            let store = PgStore::connect(url, options.clone()).expect("connect");
            drop(store);
            start.elapsed()
        })
        .collect();
    (quantile(&times, 0.5), quantile(&times, 0.99))
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
        "{} writers × {} runs of `ctx run --digest -- seq` ({} lines each), every variant interleaved",
        load.writers, load.runs, load.lines
    );
    let namespace = format!("bench-{}", std::process::id());
    let ctx = Path::new(CTX);
    // Older builds to compare with, measured in the same run:
    // `LABEL=PATH` (or just `PATH`, labelled `before`), comma-separated.
    let before: Vec<(String, std::path::PathBuf)> = std::env::var("CTX_BENCH_BEFORE")
        .unwrap_or_default()
        .split(',')
        .filter(|b| !b.is_empty())
        .map(|b| match b.split_once('=') {
            Some((label, path)) => (label.to_string(), path.into()),
            None => ("before".to_string(), b.into()),
        })
        .collect();
    let url = std::env::var("CTX_TEST_POSTGRES_URL")
        .ok()
        .filter(|u| !u.is_empty());
    if url.is_none() {
        println!("CTX_TEST_POSTGRES_URL is not set: PostgreSQL skipped");
    }

    let sqlite_home = tempfile::tempdir().expect("home");
    // (name, binary, home, store URL, namespace) of each `ctx run` variant.
    let mut runs: Vec<(String, &Path, tempfile::TempDir, Option<String>, String)> = vec![(
        "ctx run, SQLite".into(),
        ctx,
        sqlite_home,
        None,
        namespace.clone(),
    )];
    if let Some(url) = &url {
        let sep = if url.contains('?') { '&' } else { '?' };
        for (label, mode) in [("PG plain", "disable"), ("PG TLS", "require")] {
            let store = format!("{url}{sep}sslmode={mode}");
            for (i, (which, path)) in before.iter().enumerate() {
                runs.push((
                    format!("ctx run, {label} ({which})"),
                    path.as_path(),
                    tempfile::tempdir().expect("home"),
                    Some(store.clone()),
                    format!("{namespace}-{mode}-before{i}"),
                ));
            }
            runs.push((
                format!("ctx run, {label}"),
                ctx,
                tempfile::tempdir().expect("home"),
                Some(store),
                format!("{namespace}-{mode}"),
            ));
        }
    }
    // The local fallback (docs/store.md): a server that refuses the
    // connection (a closed port: the fallback's own cost), and one that
    // accepts it and never answers (a silent listener: the deadline's
    // cost on top). Each run's record goes into its home's SQLite store
    // and outbox.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let silent_port = silent.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for c in silent.incoming().flatten() {
            held.push(c);
        }
    });
    let closed_port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    if url.is_some() {
        for (label, port) in [("refused", closed_port), ("hung", silent_port)] {
            runs.push((
                format!("ctx run, PG {label} (fallback)"),
                ctx,
                tempfile::tempdir().expect("home"),
                Some(format!(
                    "postgres://ctx@127.0.0.1:{port}/postgres?sslmode=disable"
                )),
                format!("{namespace}-{label}"),
            ));
        }
    }
    let pooler = std::env::var("CTX_TEST_PGBOUNCER_URL")
        .ok()
        .filter(|u| !u.is_empty());
    if let Some(url) = &pooler {
        let sep = if url.contains('?') { '&' } else { '?' };
        runs.push((
            "ctx run, PgBouncer plain".into(),
            ctx,
            tempfile::tempdir().expect("home"),
            Some(format!("{url}{sep}sslmode=disable")),
            format!("{namespace}-pooled"),
        ));
    }
    let mut variants = vec![Variant {
        name: "bare seq (baseline)".into(),
        make: Box::new(|a, b| {
            let mut c = Command::new("seq");
            c.arg(a.to_string()).arg(b.to_string());
            c
        }),
    }];
    for (name, bin, home, store, ns) in &runs {
        let home = home.path();
        variants.push(Variant {
            name: name.clone(),
            make: Box::new(move |a, b| ctx_run(bin, home, store.as_deref(), ns, a, b)),
        });
    }
    let results = phases(load, &variants);
    let baseline = quantile(&results[0].times, 0.5);
    report(
        &variants[0].name,
        load.writers,
        &results[0],
        baseline,
        None,
        None,
    );
    let sqlite_p50 = quantile(&results[1].times, 0.5);
    for (i, (name, _, home, store, ns)) in runs.iter().enumerate() {
        // A fallback's records are in its home's own store.
        let counted_in = store.as_deref().filter(|_| !name.ends_with("(fallback)"));
        let n = records(home.path(), counted_in, ns);
        let over = store.as_ref().map(|_| sqlite_p50);
        report(name, load.writers, &results[i + 1], baseline, Some(n), over);
    }

    if let Some(url) = &url {
        let sep = if url.contains('?') { '&' } else { '?' };
        for (label, mode) in [("plain", "disable"), ("TLS", "require")] {
            let (p50, p99) = connection_floor(&format!("{url}{sep}sslmode={mode}"), 200);
            println!(
                "connection alone, {label:<5}      p50 {:>6.2} ms  p99 {:>6.2} ms  (in process, one at a time, 200 times)",
                ms(p50),
                ms(p99)
            );
        }
    }
    if let Some(url) = &pooler {
        let sep = if url.contains('?') { '&' } else { '?' };
        let (p50, p99) = connection_floor(&format!("{url}{sep}sslmode=disable"), 200);
        println!(
            "connection alone, PgBouncer  p50 {:>6.2} ms  p99 {:>6.2} ms  (in process, one at a time, 200 times)",
            ms(p50),
            ms(p99)
        );
    }
}
