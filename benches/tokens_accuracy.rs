//! How good and how fast `tokens::estimate` is, against tiktoken-rs's
//! o200k_base (`tokens::exact`), run on demand:
//!
//!     cargo bench --bench tokens_accuracy             # summary
//!     cargo bench --bench tokens_accuracy -- --files  # and every file
//!
//! Accuracy: every `fixtures/<family>/<case>/{stdout,stderr}` and every
//! sample of `testing::synthetic`, as (estimate − exact) / exact. Speed: the
//! o200k encoder's build time (the start-up the hot path must not pay) and
//! the estimator's throughput over 100 MB inputs, as wall time and as this
//! thread's CPU time (the machines are shared: CPU time is the steadier).
//! Results are recorded in docs/tokens.md.

use std::path::{Path, PathBuf};
use std::time::Instant;

use ctx::tokens;

struct Case {
    name: String,
    bytes: Vec<u8>,
}

fn fixtures(root: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            if path.is_dir() {
                stack.push(path);
            } else if matches!(
                path.file_name().and_then(|n| n.to_str()),
                Some("stdout" | "stderr")
            ) && let Ok(bytes) = std::fs::read(&path)
                && !bytes.is_empty()
            {
                let name = path
                    .strip_prefix(root)
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                out.push(Case { name, bytes });
            }
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

struct Stats {
    n: usize,
    median: f64,
    p5: f64,
    p95: f64,
    min: (f64, String),
    max: (f64, String),
    pooled: f64,
}

/// Statistics over cases of at least `floor` exact tokens.
fn stats(rows: &[(String, usize, usize)], floor: usize) -> Option<Stats> {
    let mut errs: Vec<(f64, String)> = rows
        .iter()
        .filter(|(_, exact, _)| *exact >= floor)
        .map(|(name, exact, est)| ((*est as f64 - *exact as f64) / *exact as f64, name.clone()))
        .collect();
    if errs.is_empty() {
        return None;
    }
    errs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let n = errs.len();
    let (exact, est) = rows
        .iter()
        .filter(|(_, exact, _)| *exact >= floor)
        .fold((0usize, 0usize), |(x, e), (_, exact, est)| {
            (x + exact, e + est)
        });
    Some(Stats {
        n,
        median: errs[n / 2].0,
        p5: errs[n / 20].0,
        p95: errs[n - 1 - n / 20].0,
        min: errs[0].clone(),
        max: errs[n - 1].clone(),
        pooled: (est as f64 - exact as f64) / exact as f64,
    })
}

fn report(label: &str, rows: &[(String, usize, usize)]) {
    for floor in [1, 50] {
        if let Some(s) = stats(rows, floor) {
            println!(
                "{label:<10} files≥{floor:<3} n={:<4} median {:+.1}%  p5 {:+.1}%  p95 {:+.1}%  \
                 worst low {:+.1}% ({})  worst high {:+.1}% ({})  pooled {:+.1}%",
                s.n,
                s.median * 100.0,
                s.p5 * 100.0,
                s.p95 * 100.0,
                s.min.0 * 100.0,
                s.min.1,
                s.max.0 * 100.0,
                s.max.1,
                s.pooled * 100.0,
            );
        }
    }
}

fn main() {
    let per_file = std::env::args().any(|a| a == "--files");

    // The start-up the hot path avoids: the first exact count builds o200k.
    let t = Instant::now();
    let built = tokens::try_exact(b"warm up").is_some();
    println!(
        "o200k_base build (tiktoken-rs, first exact count): {:.1} ms{}",
        t.elapsed().as_secs_f64() * 1000.0,
        if built { "" } else { " (FAILED)" }
    );
    let t = Instant::now();
    let _ = tokens::estimate(b"warm up");
    println!(
        "estimator first call: {:.1} µs",
        t.elapsed().as_secs_f64() * 1e6
    );

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let fixture_cases = fixtures(&root);
    let synthetic: Vec<Case> = ctx::testing::synthetic::corpus()
        .into_iter()
        .map(|s| Case {
            name: format!("synthetic/{}", s.name),
            bytes: s.bytes,
        })
        .collect();

    let mut exact_secs = 0.0;
    let mut exact_bytes = 0usize;
    let mut measure = |cases: &[Case]| -> Vec<(String, usize, usize)> {
        cases
            .iter()
            .map(|c| {
                let t = Instant::now();
                let exact = tokens::exact(&c.bytes);
                exact_secs += t.elapsed().as_secs_f64();
                exact_bytes += c.bytes.len();
                (c.name.clone(), exact, tokens::estimate(&c.bytes))
            })
            .collect()
    };
    let fixture_rows = measure(&fixture_cases);
    let synthetic_rows = measure(&synthetic);
    if per_file {
        println!(
            "\n{:<60} {:>8} {:>8} {:>8}",
            "file", "exact", "estimate", "error"
        );
        for (name, exact, est) in fixture_rows.iter().chain(&synthetic_rows) {
            let err = (*est as f64 - *exact as f64) / (*exact).max(1) as f64;
            println!("{name:<60} {exact:>8} {est:>8} {:>+7.1}%", err * 100.0);
        }
    }
    println!("\naccuracy, (estimate − exact) / exact:");
    report("fixtures", &fixture_rows);
    report("synthetic", &synthetic_rows);
    println!(
        "exact counting (tiktoken-rs): {:.1} MB/s",
        exact_bytes as f64 / exact_secs.max(1e-9) / 1e6
    );

    println!("\nestimator throughput over 100 MB (best of 3):");
    let mut inputs: Vec<(String, Vec<u8>)> = vec![(
        "fixtures".into(),
        fixture_cases
            .iter()
            .flat_map(|c| c.bytes.iter().copied())
            .collect(),
    )];
    inputs.extend(synthetic.iter().map(|c| (c.name.clone(), c.bytes.clone())));
    for (name, sample) in inputs {
        if sample.is_empty() {
            continue;
        }
        let mut buf = Vec::with_capacity(101 << 20);
        while buf.len() < 100 << 20 {
            buf.extend_from_slice(&sample);
        }
        let (mut wall, mut cpu) = (f64::MAX, f64::MAX);
        for _ in 0..3 {
            let (t, c) = (Instant::now(), thread_cpu_seconds());
            std::hint::black_box(tokens::estimate(std::hint::black_box(&buf)));
            cpu = cpu.min(thread_cpu_seconds() - c);
            wall = wall.min(t.elapsed().as_secs_f64());
        }
        let mb = buf.len() as f64 / 1e6;
        println!(
            "{name:<24} {:>6.0} MB/s CPU  {:>6.0} MB/s wall",
            mb / cpu,
            mb / wall
        );
    }
}
