//! The ledger after many runs, run on demand:
//!
//!     cargo bench --bench ledger
//!
//! Records 10,000 runs the way `ctx run` does (one journal line each,
//! folded into `ledger.db` by a run whenever the journal passes 256 KiB),
//! then measures the bytes on disk per run and the wall time of the built
//! `ctx gain` (first call, which folds the rest of the journal and counts
//! its digests; then steady state, exact and `--estimate`), beside
//! `ctx --version` in the same run as the process start-up baseline.
//! Results are recorded in docs/ledger.md and docs/performance.md.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ctx::artifact::{Artifact, Exit};
use ctx::ledger::{self, journal};
use ctx::pipeline::{Delivery, Output};
use ctx::profiles::{Match, MatchedBy};
use ctx::store::ArchiveKey;

mod support;
use support::median;

const CTX: &str = env!("CARGO_BIN_EXE_ctx");
const RUNS: usize = 10_000;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// CPU time (user + system) of the children waited for so far.
fn children_cpu() -> Duration {
    // SAFETY: getrusage writes into the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// Wall time and CPU time of one `ctx` invocation.
fn time(home: &Path, args: &[&str]) -> (Duration, Duration) {
    let cpu = children_cpu();
    let start = Instant::now();
    let out = Command::new(CTX)
        .args(args)
        .env("CTX_HOME", home)
        .env_remove("CTX_NO_LEDGER")
        .stdin(Stdio::null())
        .output()
        .expect("run ctx");
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (took, children_cpu() - cpu)
}

fn disk_bytes(home: &Path) -> u64 {
    std::fs::read_dir(home)
        .expect("list home")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("ledger"))
        .map(|e| e.metadata().map_or(0, |m| m.len()))
        .sum()
}

fn main() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    let commands: Vec<Vec<String>> = (0..40)
        .map(|i| {
            [
                "cargo test -q",
                "pytest -x tests/",
                "go test ./...",
                "make build",
                "npx jest",
            ][i % 5]
                .split(' ')
                .map(String::from)
                .chain([format!("--seed={i}")])
                .collect()
        })
        .collect();
    let now = ledger::now_ms();
    let start = Instant::now();
    for i in 0..RUNS {
        let argv = commands[(i * 7) % commands.len()].clone();
        let artifact = Artifact::from_stdout(b"out\n".to_vec(), Exit::Code((i % 2) as i32), argv);
        // A digest of about 2 KB, as a failing test run's is; a third of
        // the runs repeat an output already archived.
        let digest = format!("pytest: FAILED · {i} failed · exit 1\n").repeat(50);
        let key = ArchiveKey(*blake3::hash(&((i * 2 / 3) as u64).to_le_bytes()).as_bytes());
        let delivery = Delivery {
            output: Output::Digest(digest.into_bytes()),
            profile: "pytest/v1",
            matched: Match {
                by: MatchedBy::Command,
                reason: "argv".into(),
            },
            key: Some(key),
            raw_tokens: 20_000 + i,
            delivered_tokens: 600,
            rejection: None,
            trace: None,
            compared: false,
            delta: None,
        };
        let at = now - (RUNS - i) as i64 * 60_000;
        ledger::journal_run(h, journal::RunEntry::new(&artifact, &delivery, at));
    }
    let record_time = start.elapsed();
    let before_gain = disk_bytes(h);
    let (first, first_cpu) = time(h, &["gain"]);
    let after_gain = disk_bytes(h);
    let mut runs: [(Vec<Duration>, Vec<Duration>); 3] = Default::default();
    let cases: [&[&str]; 3] = [
        &["--version"],
        &["gain"],
        &["gain", "--estimate", "--format", "json"],
    ];
    for _ in 0..11 {
        for (case, (wall, cpu)) in cases.iter().zip(runs.iter_mut()) {
            let (w, c) = time(h, case);
            wall.push(w);
            cpu.push(c);
        }
    }
    println!("## ledger after {RUNS} runs");
    println!(
        "- recording: {:.1} µs per run (journal line; a fold every 256 KiB of journal)",
        record_time.as_secs_f64() * 1e6 / RUNS as f64
    );
    println!(
        "- on disk before the first gain: {before_gain} bytes, {} bytes per run",
        before_gain / RUNS as u64
    );
    println!(
        "- on disk after it: {after_gain} bytes, {} bytes per run",
        after_gain / RUNS as u64
    );
    println!(
        "- first `ctx gain` (folds the journal's rest, counts its digests): {:.1} ms wall, {:.1} ms CPU",
        ms(first),
        ms(first_cpu)
    );
    let [(base_wall, base_cpu), rest @ ..] = runs;
    let (bw, bc) = (median(base_wall), median(base_cpu));
    println!(
        "- `ctx --version` (baseline): {:.1} ms wall, {:.1} ms CPU",
        ms(bw),
        ms(bc)
    );
    for (case, (wall, cpu)) in cases[1..].iter().zip(rest) {
        let (w, c) = (median(wall), median(cpu));
        println!(
            "- `ctx {}`: {:.1} ms wall ({:.1} over the baseline), {:.1} ms CPU ({:.1} over), medians of 11",
            case.join(" "),
            ms(w),
            ms(w.saturating_sub(bw)),
            ms(c),
            ms(c.saturating_sub(bc))
        );
    }
}
