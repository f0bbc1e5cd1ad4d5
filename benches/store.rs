//! Store benchmarks on the library, run on demand:
//!
//!     cargo bench --bench store
//!
//! What the hot path pays (open, a small put, a repeat put), what a big
//! record costs to archive, and how long a `--lines` zoom on a 100 MB
//! record takes without process start-up. Medians over repetitions; the
//! machines are shared and noisy. Results are recorded in docs/store.md.

use std::path::Path;
use std::time::{Duration, Instant};

use ctx::artifact::{Artifact, Exit};
use ctx::store::sqlite::{Options, SqliteStore};
use ctx::store::{self, Store};

mod support;
use support::median;

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn open(dir: &Path) -> SqliteStore {
    SqliteStore::open(&dir.join("store.db"), Options::default()).expect("open")
}

fn small(i: usize) -> Artifact {
    let text: String = (0..40).map(|l| format!("run {i} line {l}: ok\n")).collect();
    Artifact::from_stdout(text.into_bytes(), Exit::Code(0), vec!["bench".into()])
}

fn log(mb: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(mb * 1_000_000 + 100);
    let mut i = 0u64;
    while out.len() < mb * 1_000_000 {
        out.extend_from_slice(
            format!(
                "2026-11-29T12:00:{:02}Z INFO  worker {}: processed batch {i} in {} ms\n",
                i % 60,
                i % 16,
                i % 997
            )
            .as_bytes(),
        );
        i += 1;
    }
    out
}

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    open(d).put(&small(0)).expect("create");

    // Each iteration is what one ctx process does: open, put, close.
    let (mut opens, mut puts, mut repeats) = (Vec::new(), Vec::new(), Vec::new());
    for i in 1..=300 {
        let t = Instant::now();
        let s = open(d);
        opens.push(t.elapsed());
        let t = Instant::now();
        s.put(&small(i)).expect("put");
        puts.push(t.elapsed());
        let t = Instant::now();
        s.put(&small(i)).expect("put again");
        repeats.push(t.elapsed());
    }
    println!("## hot path (median of 300)");
    println!("- open: {:.0} µs", us(median(opens)));
    println!("- put, 40-line record: {:.0} µs", us(median(puts)));
    println!("- put, same output again: {:.0} µs", us(median(repeats)));

    let bytes = log(100);
    let artifact = Artifact::from_stdout(bytes.clone(), Exit::Code(0), vec!["big".into()]);
    let s = open(d);
    let t = Instant::now();
    let key = s.put(&artifact).expect("put 100 MB");
    let took = t.elapsed();
    let meta = s.meta(&key).expect("meta");
    println!("## a 100 MB log");
    println!(
        "- put: {:.0} ms = {:.0} MB/s; stored {:.1} MB ({:.1}× smaller)",
        took.as_secs_f64() * 1e3,
        bytes.len() as f64 / 1e6 / took.as_secs_f64(),
        meta.stored_bytes as f64 / 1e6,
        meta.raw_bytes as f64 / meta.stored_bytes as f64
    );
    let mut zooms = Vec::new();
    for i in 0..41u64 {
        let first = 1 + (i * 67_369) % (meta.line_count - 200);
        let t = Instant::now();
        let s = open(d);
        let meta = s.meta(&key).expect("meta");
        let mut r = store::reader(&s, &meta).expect("reader");
        let n = r.lines_from(first).expect("lines").take(100).count();
        zooms.push(t.elapsed());
        assert_eq!(n, 100);
    }
    println!(
        "- 100 lines from a random place (open + read): {:.2} ms (median of 41)",
        median(zooms).as_secs_f64() * 1e3
    );
    let t = Instant::now();
    let loaded = s.load(&key).expect("load");
    println!(
        "- load as Artifact: {:.0} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    assert!(loaded.bytes() == bytes.as_slice());
}
