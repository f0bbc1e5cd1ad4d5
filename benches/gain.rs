//! `ctx gain` after 10,000 runs whose outputs are in the archive, run on
//! demand:
//!
//!     cargo bench --bench gain
//!
//! Fills a home through the library, as 10,000 runs would leave it: each
//! run's output archived (`Store::put`; a third of the runs repeat an
//! output archived before) and its row journaled (`ledger::journal_run`,
//! which folds the journal into `ledger.db` whenever it passes 256 KiB,
//! as runs do). Then times the built `ctx gain`: the first call, and
//! later calls interleaved with `ctx --version` (the process start-up
//! baseline). `benches/ledger.rs` measures the same without an archive.
//! Results are recorded in docs/performance.md.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ctx::artifact::{Artifact, Exit};
use ctx::ledger::{self, journal};
use ctx::pipeline::{Delivery, Output};
use ctx::profiles::{Match, MatchedBy};
use ctx::store::Store;
use ctx::store::sqlite::{Options, SqliteStore};

mod support;
use support::median;

const CTX: &str = env!("CARGO_BIN_EXE_ctx");
const RUNS: usize = 10_000;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn time(home: &Path, args: &[&str]) -> (Duration, String) {
    let start = Instant::now();
    let out = Command::new(CTX)
        .args(args)
        .env("CTX_HOME", home)
        .env_remove("CTX_NO_LEDGER")
        .env_remove("CTX_STORE")
        .stdin(Stdio::null())
        .output()
        .expect("run ctx");
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (took, String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A test run's output of about 6 KB, different for each `seed`.
fn output(seed: usize) -> Vec<u8> {
    let mut s = String::new();
    for t in 0..60 {
        s.push_str(&format!(
            "tests/test_module_{}.py::test_case_{t} {}\n",
            seed % 97,
            if (t + seed).is_multiple_of(13) {
                "FAILED"
            } else {
                "PASSED"
            }
        ));
    }
    s.push_str(&format!(
        "E   AssertionError: expected {seed} got {}\n",
        seed + 1
    ));
    s.push_str(&"    at frame in src/lib.py line 42\n".repeat(40));
    s.push_str(&format!("== {} failed, 55 passed in 1.{seed:03}s ==\n", 5));
    s.into_bytes()
}

fn main() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    let store = SqliteStore::open(&h.join("store.db"), Options::default()).expect("store");
    let now = ledger::now_ms();
    let start = Instant::now();
    for i in 0..RUNS {
        let seed = i * 2 / 3;
        let argv: Vec<String> = ["pytest", "-x", "tests/"]
            .iter()
            .map(|s| s.to_string())
            .chain([format!("-k=case{}", i % 40)])
            .collect();
        let artifact = Artifact::from_stdout(output(seed), Exit::Code(1), argv);
        let key = store.put(&artifact).expect("put");
        let digest = format!("pytest: FAILED · {seed} failed · exit 1\n").repeat(20);
        let delivery = Delivery {
            output: Output::Digest(digest.into_bytes()),
            profile: "pytest/v1",
            matched: Match {
                by: MatchedBy::Command,
                reason: "argv".into(),
            },
            key: Some(key),
            raw_tokens: ctx::tokens::estimate(artifact.bytes()),
            delivered_tokens: 250,
            rejection: None,
            trace: None,
            compared: false,
            delta: None,
        };
        let at = now - (RUNS - i) as i64 * 60_000;
        ledger::journal_run(h, journal::RunEntry::new(&artifact, &delivery, at));
    }
    drop(store);
    println!("## ctx gain after {RUNS} archived runs");
    println!(
        "- filling the home: {:.1} s (a put and a journal line per run)",
        start.elapsed().as_secs_f64()
    );
    let (first, report) = time(h, &["gain"]);
    println!("- first `ctx gain`: {:.1} ms", ms(first));
    let exact = report
        .lines()
        .find(|l| l.starts_with("exact:"))
        .unwrap_or("")
        .to_string();
    println!("  its last line: {exact}");
    let cases: [&[&str]; 3] = [
        &["--version"],
        &["gain"],
        &["gain", "--estimate", "--format", "json"],
    ];
    let mut walls: [Vec<Duration>; 3] = Default::default();
    for _ in 0..11 {
        for (case, wall) in cases.iter().zip(walls.iter_mut()) {
            wall.push(time(h, case).0);
        }
    }
    let [base, rest @ ..] = walls;
    let base = median(base);
    println!("- `ctx --version` (baseline): {:.1} ms", ms(base));
    for (case, wall) in cases[1..].iter().zip(rest) {
        let w = median(wall);
        println!(
            "- later `ctx {}`: {:.1} ms ({:.1} over the baseline), median of 11",
            case.join(" "),
            ms(w),
            ms(w.saturating_sub(base))
        );
    }
    let (_, report) = time(h, &["gain"]);
    let exact = report
        .lines()
        .find(|l| l.starts_with("exact:"))
        .unwrap_or("");
    println!("  after them: {exact}");
}
