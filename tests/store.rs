//! The CCR store: retention, maintenance verbs, faults and concurrency,
//! through the library API and the built binary (`ctx pipe` archives,
//! `ctx expand` reads back), each in a fresh `CTX_HOME`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use ctx::artifact::{Artifact, Exit};
use ctx::store::sqlite::{Options, SqliteStore};
use ctx::store::{ArchiveKey, Retention, Store, StoreError};
use tempfile::TempDir;

const HOUR_MS: i64 = 3_600_000;
/// No test may wait this long for the binary: past it, it hangs.
const HANG: Duration = Duration::from_secs(120);

fn home() -> TempDir {
    tempfile::tempdir().expect("tempdir")
}

fn open_with(home: &Path, retention: Retention) -> SqliteStore {
    let options = Options {
        retention,
        ..Options::default()
    };
    SqliteStore::open(&home.join("store.db"), options).expect("open store")
}

fn open(home: &Path) -> SqliteStore {
    open_with(home, Retention::default())
}

fn art(bytes: &[u8]) -> Artifact {
    Artifact::from_stdout(bytes.to_vec(), Exit::Code(0), vec!["gen".into()])
}

use support::ctx_cmd;

mod support;

fn ctx(home: &Path, args: &[&str]) -> Output {
    ctx_cmd(home, args).output().expect("run ctx")
}

/// Waits for a child, failing the test (instead of hanging it) past
/// `HANG`. Its output is drained meanwhile, so a child printing a lot
/// never blocks on a full pipe.
fn wait(child: Child) -> Output {
    let pid = child.id().to_string();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(HANG) {
        Ok(out) => out.expect("output"),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid]).status();
            panic!("ctx hung for {HANG:?}");
        }
    }
}

/// `CMD | ctx pipe` with `input` on stdin.
fn pipe(home: &Path, input: &[u8], env: &[(&str, &str)]) -> Output {
    let mut cmd = ctx_cmd(home, &["pipe"]);
    cmd.envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn ctx pipe");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = wait(child);
    let _ = writer.join();
    out
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn ctx_notes(stderr: &[u8]) -> Vec<String> {
    text(stderr)
        .lines()
        .filter(|l| l.starts_with("[ctx]"))
        .map(String::from)
        .collect()
}

/// The key a digest's footer names.
fn footer_key(digest: &[u8]) -> Option<String> {
    let t = text(digest);
    let at = t.rfind("ctx expand ")?;
    Some(
        t[at + 11..]
            .chars()
            .take_while(|c| c.is_ascii_hexdigit())
            .collect(),
    )
}

/// A log far over any digest budget.
fn big_log(tag: &str, lines: usize) -> Vec<u8> {
    (1..=lines)
        .map(|i| {
            format!(
                "{tag} line {i}: processing item {} of the batch\n",
                i * 7919 % 10007
            )
        })
        .collect::<String>()
        .into_bytes()
}

/// Lines lz4 cannot shrink much: a digest of them still needs `n` bytes
/// of store.
fn incompressible(n: usize) -> Vec<u8> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ (n as u64).wrapping_mul(0x2545_f491_4f6c_dd1d);
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

// ---------------------------------------------------------------- retention

#[test]
fn young_records_are_never_evicted_and_the_new_one_is_refused() {
    let a = art(&incompressible(100_000));
    let size_a = {
        let scratch = home();
        let probe = open(scratch.path());
        probe.put(&a).expect("put");
        probe.stats().expect("stats").stored_bytes
    };
    let h = home();

    let policy = Retention {
        max_bytes: size_a + size_a / 2,
        min_age: Duration::from_secs(3600),
    };
    let s = open_with(h.path(), policy);
    let t0 = 1_000 * HOUR_MS;
    s.set_now(Some(t0));
    let ka = s.put(&a).expect("first record fits");
    let b = art(&incompressible(100_001));
    s.set_now(Some(t0 + HOUR_MS - 1));
    match s.put(&b) {
        Err(StoreError::Full { .. }) => {}
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert!(s.meta(&ka).is_ok(), "the young record survived the refusal");
    assert_eq!(s.stats().expect("stats").records, 1);

    // Past the minimum age the old record makes room.
    s.set_now(Some(t0 + HOUR_MS));
    let kb = s.put(&b).expect("room made");
    assert!(matches!(s.meta(&ka), Err(StoreError::NotFound(_))));
    assert!(s.meta(&kb).is_ok());

    // A record larger than the whole cap is refused outright.
    assert!(matches!(
        s.put(&art(&incompressible(400_000))),
        Err(StoreError::Full { .. })
    ));
}

#[test]
fn same_output_twice_is_one_record_and_refreshes_it() {
    let h = home();
    let s = open(h.path());
    s.set_now(Some(10 * HOUR_MS));
    let k1 = s.put(&art(b"same\n")).expect("put");
    s.set_now(Some(20 * HOUR_MS));
    let mut other_argv = art(b"same\n");
    other_argv.argv = vec!["other".into()];
    let k2 = s.put(&other_argv).expect("put again");
    assert_eq!(k1, k2);
    let meta = s.meta(&k1).expect("meta");
    assert_eq!(
        (meta.created_ms, meta.used_ms),
        (10 * HOUR_MS, 20 * HOUR_MS)
    );
    assert_eq!(
        meta.argv,
        vec!["gen".to_string()],
        "first archiving's metadata kept"
    );
    assert_eq!(s.stats().expect("stats").records, 1);
}

#[test]
fn gc_evicts_least_recently_used_first_and_spares_the_young() {
    let h = home();
    let s = open(h.path());
    let t0 = 1_000 * HOUR_MS;
    let mut keys = Vec::new();
    for (i, at) in [0, 1, 2, 40].iter().enumerate() {
        s.set_now(Some(t0 + at * HOUR_MS));
        keys.push(s.put(&art(&incompressible(50_000 + i))).expect("put"));
    }
    // Record 0 is used again at +3h: now 1 is the least recently used.
    s.set_now(Some(t0 + 3 * HOUR_MS));
    s.put(&art(&incompressible(50_000))).expect("refresh");
    let one = s.meta(&keys[0]).expect("meta").stored_bytes;
    s.set_now(Some(t0 + 41 * HOUR_MS));
    let report = s
        .gc(Retention {
            max_bytes: 2 * one + one / 2,
            min_age: Duration::from_secs(24 * 3600),
        })
        .expect("gc");
    let evicted: Vec<ArchiveKey> = report.evicted.iter().map(|e| e.key).collect();
    assert_eq!(evicted, vec![keys[1], keys[2]]);
    assert_eq!(report.records_left, 2);
    // Nothing else is old enough: a cap of zero evicts only record 0.
    let report = s
        .gc(Retention {
            max_bytes: 0,
            min_age: Duration::from_secs(24 * 3600),
        })
        .expect("gc");
    assert_eq!(
        report.evicted.iter().map(|e| e.key).collect::<Vec<_>>(),
        vec![keys[0]]
    );
    assert!(s.meta(&keys[3]).is_ok(), "the young record stays");
}

/// Backdates every record's use by `hours` (the binary runs on the real
/// clock; retention needs old records).
fn backdate(home: &Path, hex: Option<&str>, hours: i64) {
    let c = rusqlite::Connection::open(home.join("store.db")).expect("open");
    let shift = hours * HOUR_MS;
    match hex {
        Some(h) => c.execute(
            "UPDATE records SET used_ms = used_ms - ?1, created_ms = created_ms - ?1 WHERE hex LIKE ?2 || '%'",
            rusqlite::params![shift, h],
        ),
        None => c.execute(
            "UPDATE records SET used_ms = used_ms - ?1, created_ms = created_ms - ?1",
            [shift],
        ),
    }
    .expect("backdate");
}

#[test]
fn store_verbs_stats_gc_purge() {
    let h = home();
    let old = open(h.path())
        .put(&art(&big_log("old", 3000)))
        .expect("put");
    let young = open(h.path())
        .put(&art(&big_log("young", 3000)))
        .expect("put");
    backdate(h.path(), Some(&old.hex()), 48);

    let stats = ctx(h.path(), &["store", "stats", "--format", "json"]);
    assert_eq!(stats.status.code(), Some(0), "{}", text(&stats.stderr));
    let v: serde_json::Value = serde_json::from_slice(&stats.stdout).expect("json");
    assert_eq!(v["records"], 2);
    assert!(v["raw_bytes"].as_u64() > v["stored_bytes"].as_u64());
    assert_eq!(v["max_bytes"], 2u64 << 30);
    assert_eq!(v["min_age_secs"], 86400);
    let text_stats = text(&ctx(h.path(), &["store", "stats"]).stdout);
    assert!(text_stats.contains("records       2"), "{text_stats}");

    let gc = ctx(h.path(), &["store", "gc", "--max-bytes", "1"]);
    assert_eq!(gc.status.code(), Some(0));
    let out = text(&gc.stdout);
    assert!(out.contains(&format!("evicted {}", old.short())), "{out}");
    assert!(!out.contains(&young.short()), "{out}");
    assert!(out.contains("younger than the minimum age"), "{out}");
    assert_eq!(
        ctx(h.path(), &["expand", &old.short()]).status.code(),
        Some(1)
    );
    assert_eq!(
        ctx(h.path(), &["expand", &young.short(), "--lines", "1"])
            .status
            .code(),
        Some(0)
    );

    let kept = open(h.path()).put(&art(b"another\n")).expect("put");
    backdate(h.path(), Some(&young.hex()), 3);
    let purge = ctx(h.path(), &["store", "purge", "--older-than", "2h"]);
    assert!(
        text(&purge.stdout).starts_with("purged 1 record ("),
        "{}",
        text(&purge.stdout)
    );
    assert!(open(h.path()).meta(&kept).is_ok());
    let purge = ctx(h.path(), &["store", "purge"]);
    assert!(
        text(&purge.stdout).starts_with("purged 1 record ("),
        "{}",
        text(&purge.stdout)
    );
    assert_eq!(open(h.path()).stats().expect("stats").records, 0);
    assert_eq!(
        ctx(h.path(), &["store", "gc", "--max-bytes", "nonsense"])
            .status
            .code(),
        Some(2)
    );
}

// ------------------------------------------------------------ the hot path

#[test]
fn output_that_fits_never_opens_the_store() {
    let h = home();
    let out = pipe(h.path(), b"small\n", &[]);
    assert_eq!(
        (out.status.code(), out.stdout.as_slice()),
        (Some(0), &b"small\n"[..])
    );
    assert!(!h.path().join("store.db").exists());
}

#[test]
fn a_digest_names_a_record_that_expands_to_the_input() {
    let h = home();
    let input = big_log("pipe", 20_000);
    let out = pipe(h.path(), &input, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let key = footer_key(&out.stdout).expect("a footer");
    assert_eq!(key.len(), 12);
    let back = ctx(h.path(), &["expand", &key, "--all"]);
    assert!(back.stdout == input);
    let mode = |p: PathBuf| {
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(p).expect("meta").permissions())
            & 0o777
    };
    assert_eq!(mode(h.path().to_path_buf()), 0o700);
    for f in ["store.db", "store.db-wal", "store.db-shm"] {
        let p = h.path().join(f);
        if p.exists() {
            assert_eq!(mode(p), 0o600, "{f}");
        }
    }
}

// ------------------------------------------------------------------ faults

/// A command that must not fail: exit 0, the raw input back unchanged,
/// exactly one `[ctx]` note.
fn assert_fail_open(out: &Output, input: &[u8], why: &str) {
    assert_eq!(out.status.code(), Some(0), "{why}: {}", text(&out.stderr));
    assert!(
        out.stdout == input,
        "{why}: raw output expected, got {} bytes",
        out.stdout.len()
    );
    let notes = ctx_notes(&out.stderr);
    assert_eq!(notes.len(), 1, "{why}: {notes:?}");
}

/// A tmpfs mounted for one test, unmounted when dropped (before the
/// temporary directory holding its mount point goes).
struct Mount {
    point: PathBuf,
    _parent: TempDir,
}

impl Mount {
    fn tmpfs(options: &str) -> Result<Mount, String> {
        let dir = home();
        let point = dir.path().join("mnt");
        std::fs::create_dir(&point).map_err(|e| e.to_string())?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs"])
            .arg(&point)
            .stderr(Stdio::null())
            .status()
            .map_err(|e| e.to_string())?;
        if !ok.success() {
            return Err("`mount -t tmpfs` is not permitted here".into());
        }
        Ok(Mount {
            point,
            _parent: dir,
        })
    }

    fn remount(&self, options: &str) -> bool {
        Command::new("mount")
            .args(["-o", options])
            .arg(&self.point)
            .status()
            .is_ok_and(|s| s.success())
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.point).status();
    }
}

#[test]
fn read_only_home_fails_open() {
    let input = big_log("ro", 20_000);
    let is_root = text(&Command::new("id").arg("-u").output().expect("id").stdout).trim() == "0";
    if is_root {
        // Permission bits do not stop root: a read-only mount does.
        let m = match Mount::tmpfs("size=4m,mode=0700") {
            Ok(m) => m,
            Err(why) => {
                eprintln!("skipped: {why}");
                return;
            }
        };
        assert!(m.remount("remount,ro"), "remount read-only");
        let out = pipe(&m.point, &input, &[]);
        assert_fail_open(&out, &input, "read-only mount");
    } else {
        let h = home();
        let dir = h.path().join("ro");
        std::fs::create_dir(&dir).expect("mkdir");
        std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o500))
            .expect("chmod");
        let out = pipe(&dir, &input, &[]);
        assert_fail_open(&out, &input, "read-only directory");
    }
}

#[test]
fn full_disk_fails_open_and_the_store_survives() {
    let m = match Mount::tmpfs("size=1m,mode=0700") {
        Ok(m) => m,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let input = incompressible(3 << 20);
    let out = pipe(&m.point, &input, &[]);
    assert_fail_open(&out, &input, "full disk");
    // The failed write was rolled back and left a usable store behind
    // (the WAL's space is reused).
    let small = big_log("after", 2000);
    let out = pipe(&m.point, &small, &[]);
    assert_eq!(out.status.code(), Some(0));
    let key = footer_key(&out.stdout).expect("archived after the failure");
    assert!(ctx(&m.point, &["expand", &key, "--all"]).stdout == small);
}

#[test]
fn corrupt_database_fails_open_and_purge_starts_over() {
    let h = home();
    let mut junk = Vec::new();
    let mut x = 12345u32;
    for _ in 0..16384 {
        x = x.wrapping_mul(1103515245).wrapping_add(12345);
        junk.push((x >> 16) as u8);
    }
    std::fs::write(h.path().join("store.db"), &junk).expect("write junk");
    let input = big_log("corrupt", 20_000);
    let out = pipe(h.path(), &input, &[]);
    assert_fail_open(&out, &input, "corrupt store.db");
    assert!(
        ctx_notes(&out.stderr)[0].contains("purge"),
        "the note says how to recover"
    );

    let expand = ctx(h.path(), &["expand", "abcdef"]);
    assert_eq!(expand.status.code(), Some(2));
    assert!(
        text(&expand.stderr).contains("store damaged"),
        "{}",
        text(&expand.stderr)
    );
    assert_eq!(ctx(h.path(), &["store", "stats"]).status.code(), Some(2));

    let purge = ctx(h.path(), &["store", "purge"]);
    assert_eq!(purge.status.code(), Some(0), "{}", text(&purge.stderr));
    let out = pipe(h.path(), &input, &[]);
    let key = footer_key(&out.stdout).expect("archived again");
    assert!(ctx(h.path(), &["expand", &key, "--all"]).stdout == input);
}

#[test]
fn locked_database_fails_open_within_the_busy_timeout() {
    let h = home();
    open(h.path()).put(&art(b"make the store\n")).expect("put");
    let locker = rusqlite::Connection::open(h.path().join("store.db")).expect("open");
    locker.execute_batch("BEGIN EXCLUSIVE").expect("lock");
    let input = big_log("locked", 20_000);
    let start = Instant::now();
    let out = pipe(h.path(), &input, &[("CTX_STORE_BUSY_TIMEOUT", "300ms")]);
    let waited = start.elapsed();
    assert_fail_open(&out, &input, "locked store");
    assert!(
        ctx_notes(&out.stderr)[0].contains("locked"),
        "{:?}",
        ctx_notes(&out.stderr)
    );
    eprintln!("locked store: ctx pipe took {waited:?} with a 300ms busy timeout");
    // Reads are not blocked by a writer's lock (WAL).
    locker.execute_batch("COMMIT").expect("unlock");
    let out = pipe(h.path(), &input, &[]);
    assert!(
        footer_key(&out.stdout).is_some(),
        "archives again once unlocked"
    );
}

// ------------------------------------------------------------- concurrency

#[test]
fn thirty_two_concurrent_pipes_lose_nothing() {
    let h = home();
    let inputs: Vec<Vec<u8>> = (0..32)
        .map(|i| big_log(&format!("proc{i}"), 4000))
        .collect();
    let children: Vec<(Child, std::thread::JoinHandle<()>)> = inputs
        .iter()
        .map(|input| {
            let mut child = ctx_cmd(h.path(), &["pipe"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn");
            let mut stdin = child.stdin.take().expect("stdin");
            let input = input.clone();
            let writer = std::thread::spawn(move || {
                let _ = stdin.write_all(&input);
            });
            (child, writer)
        })
        .collect();
    let outputs: Vec<Output> = children
        .into_iter()
        .map(|(child, writer)| {
            let out = wait(child);
            let _ = writer.join();
            out
        })
        .collect();
    for (i, (out, input)) in outputs.iter().zip(&inputs).enumerate() {
        assert_eq!(
            out.status.code(),
            Some(0),
            "pipe {i}: {}",
            text(&out.stderr)
        );
        assert!(
            ctx_notes(&out.stderr).is_empty(),
            "pipe {i}: {}",
            text(&out.stderr)
        );
        let key = footer_key(&out.stdout).unwrap_or_else(|| panic!("pipe {i} archived nothing"));
        let back = ctx(h.path(), &["expand", &key, "--all"]);
        assert!(back.stdout == *input, "pipe {i}: record differs");
    }
    assert_eq!(open(h.path()).stats().expect("stats").records, 32);
}

#[test]
fn thirty_two_threads_with_their_own_connections() {
    let h = home();
    let path = h.path().to_path_buf();
    let threads: Vec<_> = (0..32)
        .map(|i| {
            let path = path.clone();
            std::thread::spawn(move || {
                let s = open(&path);
                let a = art(&big_log(&format!("thread{i}"), 500 + i));
                (s.put(&a).expect("put"), a)
            })
        })
        .collect();
    let s = open(&path);
    for t in threads {
        let (key, a) = t.join().expect("thread");
        assert_eq!(s.load(&key).expect("load").bytes(), a.bytes());
    }
}

/// A name and how to make line `i` of that shape of output.
type Shape = (&'static str, fn(usize) -> Vec<u8>);

#[test]
fn piped_round_trips_are_byte_identical() {
    let h = home();
    let shapes: [Shape; 4] = [
        ("crlf", (|i| format!("row {i}\r\n").into_bytes())),
        (
            "invalid utf-8",
            (|i| [&b"bad \xff\xfe "[..], i.to_string().as_bytes(), b"\n"].concat()),
        ),
        ("nul bytes", (|i| format!("nul\0{i}\0\n").into_bytes())),
        (
            "ansi",
            (|i| format!("\x1b[31merror\x1b[0m {i}\n").into_bytes()),
        ),
    ];
    for (name, line) in shapes {
        let mut input: Vec<u8> = (0..20_000).flat_map(line).collect();
        input.extend_from_slice(b"last line without newline");
        let out = pipe(h.path(), &input, &[]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stderr));
        let key = footer_key(&out.stdout).unwrap_or_else(|| panic!("{name}: not digested"));
        let back = ctx(h.path(), &["expand", &key, "--all"]);
        assert!(back.stdout == input, "{name}: differs");
        let last = ctx(h.path(), &["expand", &key, "--lines", "20001"]);
        assert_eq!(last.stdout, b"last line without newline", "{name}");
    }
}

#[test]
fn a_newer_schema_is_refused_not_misread() {
    let h = home();
    open(h.path()).put(&art(b"x\n")).expect("put");
    let c = rusqlite::Connection::open(h.path().join("store.db")).expect("open");
    c.execute_batch("PRAGMA user_version = 99").expect("bump");
    drop(c);
    match SqliteStore::open(&h.path().join("store.db"), Options::default()) {
        Err(StoreError::Unavailable(why)) => assert!(why.contains("newer"), "{why}"),
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("opened a newer schema"),
    }
    let input = big_log("newer", 20_000);
    assert_fail_open(&pipe(h.path(), &input, &[]), &input, "newer schema");
}

#[test]
fn purge_gives_the_space_back() {
    let h = home();
    open(h.path())
        .put(&art(&incompressible(3 << 20)))
        .expect("put");
    let before = open(h.path()).stats().expect("stats").file_bytes;
    assert!(before > 3 << 20, "{before}");
    let out = ctx(h.path(), &["store", "purge"]);
    assert_eq!(out.status.code(), Some(0));
    let after = open(h.path()).stats().expect("stats").file_bytes;
    assert!(after < 1 << 20, "{before} → {after}");
}
