//! Reads of a 100 MB record, run on demand:
//!
//!     cargo bench --bench store_reads
//!
//! Archives a 100 MB log through the library (`Store::put`, as a run
//! does), closes the store, then times the built `ctx` against a baseline
//! measured in the same loop, each pair interleaved so that the machine's
//! load falls on both alike:
//!
//! - `ctx expand H --lines A-B` (100 lines from a random place) against
//!   `/bin/true`: the cost of a read over process start;
//! - `ctx expand H --grep RE` (the first page: 300 result lines) against
//!   `grep -m300 RE` on the same bytes in a file, for a pattern on one
//!   line in 100 and for one on every line;
//! - whether a read wrote the store: the store's files (length, mtime)
//!   before and after all of it.
//!
//! Results are recorded in docs/performance.md.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use ctx::artifact::{Artifact, Exit};
use ctx::store::Store;
use ctx::store::sqlite::{Options, SqliteStore};

mod support;
use support::median;

const CTX: &str = env!("CARGO_BIN_EXE_ctx");
const ROUNDS: usize = 31;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn time_once(cmd: &mut Command) -> Duration {
    let start = Instant::now();
    let status = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("spawn");
    let took = start.elapsed();
    assert!(status.code().is_some(), "{cmd:?} was killed");
    took
}

/// About `mb` MB of a service log: one line in 100 an ERROR.
fn log(mb: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(mb << 20);
    let mut i = 0u64;
    while out.len() < mb << 20 {
        let line = if i % 100 == 42 {
            format!(
                "2026-11-30T12:{:02}:{:02}.{:03}Z ERROR worker-{} request {i:x} failed: upstream timeout after {} ms\n",
                (i / 60_000) % 60,
                (i / 1000) % 60,
                i % 1000,
                i % 16,
                i % 5000
            )
        } else {
            format!(
                "2026-11-30T12:{:02}:{:02}.{:03}Z INFO worker-{} request {i:x} served /api/v1/items/{} in {} ms\n",
                (i / 60_000) % 60,
                (i / 1000) % 60,
                i % 1000,
                i % 16,
                i % 977,
                i % 300
            )
        };
        out.extend_from_slice(line.as_bytes());
        i += 1;
    }
    out
}

/// (length, mtime) of the store's three files.
fn files(home: &Path) -> Vec<Option<(u64, SystemTime)>> {
    ["store.db", "store.db-wal", "store.db-shm"]
        .iter()
        .map(|n| {
            std::fs::metadata(home.join(n))
                .ok()
                .map(|m| (m.len(), m.modified().expect("mtime")))
        })
        .collect()
}

/// Medians of `ROUNDS` interleaved runs of `ours` and `base`.
fn pair(
    mut ours: impl FnMut(usize) -> Command,
    mut base: impl FnMut(usize) -> Command,
) -> (Duration, Duration) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for i in 0..ROUNDS {
        a.push(time_once(&mut ours(i)));
        b.push(time_once(&mut base(i)));
    }
    (median(a), median(b))
}

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("home");
    std::fs::create_dir(&home).expect("home");
    let bytes = log(100);
    let raw = dir.path().join("raw.log");
    std::fs::write(&raw, &bytes).expect("raw copy");
    let lines = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    let key = {
        let store = SqliteStore::open(&home.join("store.db"), Options::default()).expect("store");
        let artifact = Artifact::from_stdout(bytes, Exit::Code(1), vec!["service".into()]);
        store.put(&artifact).expect("put")
    };
    let short = key.short();
    let expand = |args: Vec<String>| {
        let mut c = Command::new(CTX);
        c.env("CTX_HOME", &home)
            .env("CTX_NO_LEDGER", "1")
            .env_remove("CTX_STORE")
            .arg("expand")
            .arg(&short)
            .args(args);
        c
    };
    // One read first, so that every timed one finds the same state.
    time_once(&mut expand(vec!["--lines".into(), "1".into()]));
    let before = files(&home);

    println!("## reads of a 100 MB record ({lines} lines), medians of {ROUNDS} interleaved runs");
    let (ours, base) = pair(
        |i| {
            let first = 1 + (i as u64 * 67_369) % (lines - 100);
            expand(vec!["--lines".into(), format!("{first}-{}", first + 99)])
        },
        |_| Command::new("/bin/true"),
    );
    println!(
        "- `ctx expand H --lines A-B` (100 lines, random place): {:.2} ms; `/bin/true` {:.2} ms; over it {:.2} ms",
        ms(ours),
        ms(base),
        ms(ours.saturating_sub(base))
    );
    for (what, re) in [("one line in 100", "ERROR"), ("every line", "INFO|ERROR")] {
        let (ours, base) = pair(
            |_| expand(vec!["--grep".into(), re.into()]),
            |_| {
                let mut c = Command::new("grep");
                c.args(["-n", "-m300", "-E", re]).arg(&raw);
                c
            },
        );
        println!(
            "- `ctx expand H --grep '{re}'` (first page, matches on {what}): {:.2} ms; `grep -n -m300` {:.2} ms; ×{:.2}",
            ms(ours),
            ms(base),
            ours.as_secs_f64() / base.as_secs_f64()
        );
    }
    let (ours, base) = pair(
        |_| expand(vec!["--grep".into(), "ERROR".into(), "--count".into()]),
        |_| {
            let mut c = Command::new("grep");
            c.args(["-c", "ERROR"]).arg(&raw);
            c
        },
    );
    println!(
        "- `ctx expand H --grep ERROR --count` (reads all 100 MB): {:.2} ms; `grep -c` {:.2} ms; ×{:.2}",
        ms(ours),
        ms(base),
        ours.as_secs_f64() / base.as_secs_f64()
    );
    let after = files(&home);
    println!(
        "- store files (db, -wal, -shm: length, mtime) unchanged by all of these: {}",
        if before == after { "yes" } else { "NO" }
    );
}
