//! Many large writers at once, with `ctx store gc` and `ctx store stats`
//! running beside them: every record is archived. A writer gives up only
//! when nobody has committed anything for the busy timeout (a stuck lock),
//! never merely because a queue of other writers was long; and no writer
//! holds the lock for longer than one short batch.
//!
//! The busy timeout is lowered so that the queue is much longer than it:
//! with a fixed total budget per put, most writers fell out.

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

mod support;

const WRITERS: usize = 24;
const BUSY_TIMEOUT: &str = "1500ms";

fn ctx_cmd(home: &Path, args: &[&str]) -> Command {
    let mut c = support::ctx_cmd(home, args);
    c.env("CTX_STORE_BUSY_TIMEOUT", BUSY_TIMEOUT);
    c
}

/// About `n` bytes of lines lz4 cannot shrink: every writer stores several
/// batches' worth.
fn noise(seed: u64, n: usize) -> Vec<u8> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ seed.wrapping_mul(0x2545_f491_4f6c_dd1d);
    let mut out = Vec::with_capacity(n + 80);
    while out.len() < n {
        for _ in 0..60 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            out.push(
                b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/"
                    [(x % 64) as usize],
            );
        }
        out.push(b'\n');
    }
    out
}

fn spawn_pipe(home: &Path, input: Vec<u8>) -> (Child, std::thread::JoinHandle<()>) {
    let mut child = ctx_cmd(home, &["pipe"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ctx pipe");
    let mut stdin = child.stdin.take().expect("stdin");
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    (child, feeder)
}

#[test]
fn a_crowd_of_large_writers_is_archived_whole_while_gc_runs() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path().to_path_buf();
    let inputs: Vec<Vec<u8>> = (0..WRITERS).map(|i| noise(i as u64, 4 << 20)).collect();

    let stop = Arc::new(AtomicBool::new(false));
    let maintenance = {
        let (stop, h) = (Arc::clone(&stop), h.clone());
        std::thread::spawn(move || {
            let mut rounds = 0;
            while !stop.load(Ordering::Relaxed) {
                for verb in [&["store", "gc"][..], &["store", "stats"], &["gain"]] {
                    let _ = ctx_cmd(&h, verb).output();
                }
                rounds += 1;
            }
            rounds
        })
    };

    let running: Vec<_> = inputs
        .iter()
        .map(|input| spawn_pipe(&h, input.clone()))
        .collect();
    let mut failures = Vec::new();
    let mut keys = Vec::new();
    for (i, (child, feeder)) in running.into_iter().enumerate() {
        let out = child.wait_with_output().expect("wait");
        let _ = feeder.join();
        let digest = String::from_utf8_lossy(&out.stdout).into_owned();
        match digest.rfind("ctx expand ") {
            Some(at) => keys.push((
                i,
                digest[at + 11..]
                    .chars()
                    .take_while(|c| c.is_ascii_hexdigit())
                    .collect::<String>(),
            )),
            None => failures.push(format!(
                "writer {i}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )),
        }
    }
    stop.store(true, Ordering::Relaxed);
    let rounds = maintenance.join().expect("maintenance thread");
    assert!(
        failures.is_empty(),
        "{} of {WRITERS} not archived (gc ran {rounds} rounds):\n{}",
        failures.len(),
        failures.join("\n")
    );

    let stats = ctx_cmd(&h, &["store", "stats", "--format", "json"])
        .output()
        .expect("stats");
    let v: serde_json::Value = serde_json::from_slice(&stats.stdout).expect("json");
    assert_eq!(v["records"].as_u64(), Some(WRITERS as u64), "{v}");
    // Whole, and no pending rows or chunks left behind.
    let check = ctx_cmd(&h, &["store", "check"]).output().expect("check");
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    let db = rusqlite::Connection::open(h.join("store.db")).expect("open");
    let orphans: i64 = db
        .query_row("SELECT count(*) FROM records WHERE pending = 1", [], |r| {
            r.get(0)
        })
        .expect("count");
    assert_eq!(orphans, 0);
    for (i, key) in keys.iter().take(3) {
        let back = ctx_cmd(&h, &["expand", key, "--all"])
            .output()
            .expect("expand");
        assert!(back.stdout == inputs[*i], "writer {i}: bytes differ");
    }
}
