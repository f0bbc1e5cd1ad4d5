//! A read never writes: `ctx expand` of every kind, `ctx store stats`
//! and the archive lookups of `ctx gain` leave the store's database and
//! its `-wal`/`-shm` files exactly as they were (length, mtime and
//! contents), and a read of a store that does not exist creates nothing.
//! The last use a read refreshes is noted beside the store and folded in
//! by the next writer that needs it (src/store/sqlite/touches.rs).

use std::path::Path;
use std::process::Output;
use std::time::SystemTime;

use ctx::artifact::{Artifact, Exit, Segment, Stream};
use ctx::store::sqlite::{Options, SqliteStore};
use ctx::store::{ArchiveKey, Retention, Store};

mod support;
use support::ctx_cmd;

const HOUR_MS: i64 = 3_600_000;

fn open(home: &Path) -> SqliteStore {
    SqliteStore::open(&home.join("store.db"), Options::default()).expect("open store")
}

fn ctx(home: &Path, args: &[&str]) -> Output {
    ctx_cmd(home, args)
        .env("CTX_NO_LEDGER", "1")
        .output()
        .expect("run ctx")
}

/// Length, mtime and blake3 of each of the store's files (None: absent).
type Snapshot = Vec<(String, Option<(u64, SystemTime, [u8; 32])>)>;

fn snapshot(home: &Path) -> Snapshot {
    ["store.db", "store.db-wal", "store.db-shm"]
        .iter()
        .map(|name| {
            let path = home.join(name);
            let state = std::fs::metadata(&path).ok().map(|m| {
                let bytes = std::fs::read(&path).expect("read");
                (
                    m.len(),
                    m.modified().expect("mtime"),
                    *blake3::hash(&bytes).as_bytes(),
                )
            });
            (name.to_string(), state)
        })
        .collect()
}

/// A record of both streams over several chunks, with lines a grep finds.
fn mixed_record() -> Artifact {
    let mut bytes = Vec::new();
    let mut segments = Vec::new();
    for i in 0..40_000 {
        let (line, stream) = if i % 100 == 7 {
            (format!("error: step {i} failed\n"), Stream::Stderr)
        } else {
            (format!("ok {i} {}\n", "x".repeat(i % 90)), Stream::Stdout)
        };
        segments.push(Segment {
            stream,
            len: line.len() as u64,
        });
        bytes.extend_from_slice(line.as_bytes());
    }
    Artifact::new(bytes, segments, Exit::Code(1), vec!["make".into()])
}

/// A home with one record, every connection to it closed.
fn home_with_record() -> (tempfile::TempDir, ArchiveKey) {
    let home = tempfile::tempdir().expect("tempdir");
    let key = open(home.path()).put(&mixed_record()).expect("put");
    (home, key)
}

#[test]
fn expand_of_every_kind_leaves_the_store_files_as_they_were() {
    let (home, key) = home_with_record();
    let h = home.path();
    let short = key.short();
    let kinds: &[&[&str]] = &[
        &[],
        &["--lines", "100-200"],
        &["--lines", "39000-"],
        &["--grep", "^error"],
        &["--grep", "^error", "--context", "2", "--count"],
        &["--grep", "step 3", "--lines", "300-900"],
        &["--stream", "stderr"],
        &["--stream", "stdout", "--lines", "5-9"],
        &["--all"],
        &["--items"],
        &["--details"],
        &["--item", "nothing-by-this-name"],
    ];
    let before = snapshot(h);
    assert!(
        before.iter().all(|(_, s)| s.is_some()),
        "the store has its side files: {before:?}"
    );
    for kind in kinds {
        let mut args = vec!["expand", short.as_str()];
        args.extend_from_slice(kind);
        let out = ctx(h, &args);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            snapshot(h),
            before,
            "ctx {args:?} changed the store's files"
        );
    }
    let out = ctx(h, &["store", "stats"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        snapshot(h),
        before,
        "ctx store stats changed the store's files"
    );
    // Each expand noted its use beside the store instead.
    assert!(h.join("store.db-touched").exists());
}

#[test]
fn the_last_use_a_read_notes_reaches_retention() {
    let (home, key) = home_with_record();
    let h = home.path();
    let other = open(h)
        .put(&Artifact::from_stdout(
            b"another output\n".repeat(1000),
            Exit::Code(0),
            vec!["gen".into()],
        ))
        .expect("put");
    // Both were last used 48 hours ago; then `key` is expanded now.
    let c = rusqlite::Connection::open(h.join("store.db")).expect("open");
    c.execute(
        "UPDATE records SET used_ms = used_ms - ?1, created_ms = created_ms - ?1",
        [48 * HOUR_MS],
    )
    .expect("backdate");
    drop(c);
    let out = ctx(h, &["expand", &key.short(), "--lines", "1-3"]);
    assert_eq!(out.status.code(), Some(0));
    // A collection that must evict one of the two takes the one nobody read.
    let report = open(h)
        .gc(Retention {
            max_bytes: open(h).meta(&key).expect("meta").stored_bytes,
            min_age: std::time::Duration::from_secs(24 * 3600),
        })
        .expect("gc");
    let evicted: Vec<_> = report.evicted.iter().map(|e| e.key).collect();
    assert_eq!(evicted, vec![other]);
    let meta = open(h).meta(&key).expect("kept");
    let now = ctx::ledger::now_ms();
    assert!(
        now - meta.used_ms < HOUR_MS,
        "the expand's use was folded in"
    );
    assert!(!h.join("store.db-touched").exists(), "and its note taken");
}

#[test]
fn a_read_beside_an_open_writer_still_reads() {
    let (home, key) = home_with_record();
    let h = home.path();
    // A writer with the store open (its WAL index live, a commit in it).
    let writer = open(h);
    writer
        .put(&Artifact::from_stdout(
            b"fresh\n".to_vec(),
            Exit::Code(0),
            vec![],
        ))
        .expect("put");
    let out = ctx(h, &["expand", &key.short(), "--lines", "8"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "error: step 7 failed\n"
    );
    drop(writer);
}

#[test]
fn reads_of_a_store_that_does_not_exist_create_nothing() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path().join("never-used");
    for args in [
        &["expand", "abcdef123456"][..],
        &["expand", "abcdef123456", "--grep", "x"],
        &["store", "stats"],
        &["gain"],
    ] {
        let out = ctx_cmd(&h, args).output().expect("run ctx");
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!h.join("store.db").exists(), "{args:?} created the store");
    }
    let out = ctx_cmd(&h, &["expand", "abcdef123456"])
        .output()
        .expect("run");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "ctx: no record abcdef123456 (never archived here, or removed over 30 days ago)\n"
    );
}

/// With strace installed: an expand calls neither fsync nor fdatasync.
#[test]
fn expand_never_syncs() {
    let strace_works = std::process::Command::new("strace")
        .args(["-f", "-o", "/dev/null", "true"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !strace_works {
        eprintln!("strace is not available: skipped");
        return;
    }
    let (home, key) = home_with_record();
    let h = home.path();
    let trace = h.join("trace");
    let out = std::process::Command::new("strace")
        .arg("-f")
        .arg("-e")
        .arg("trace=fsync,fdatasync,sync_file_range")
        .arg("-o")
        .arg(&trace)
        .arg(env!("CARGO_BIN_EXE_ctx"))
        .args(["expand", &key.short(), "--lines", "100-120"])
        .env("CTX_HOME", h)
        .env_remove("CTX_STORE")
        .output()
        .expect("strace ctx");
    assert_eq!(out.status.code(), Some(0));
    let calls = std::fs::read_to_string(&trace).expect("trace");
    let syncs: Vec<_> = calls.lines().filter(|l| l.contains("sync")).collect();
    assert!(syncs.is_empty(), "{syncs:?}");
}
