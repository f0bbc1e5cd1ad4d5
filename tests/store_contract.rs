//! The store contract: one suite, run unchanged against every backend —
//! SQLite in a temporary directory, and PostgreSQL on the real server
//! `CTX_TEST_POSTGRES_URL` names (`.ci/run` starts a throw-away cluster
//! and sets it; without it the PostgreSQL half says it is skipped).
//! Each PostgreSQL test works in a namespace of its own, so tests share
//! one server without seeing each other.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use ctx::artifact::{Artifact, Exit, Segment, Stream};
use ctx::store::chunks::CHUNK_TARGET;
use ctx::store::postgres::{PgOptions, PgStore};
use ctx::store::sqlite::{Options, SqliteStore};
use ctx::store::{AnyStore, Reader, Retention, Store, StoreError};
use tempfile::TempDir;

mod support;

const HOUR: Duration = Duration::from_secs(3600);

/// One backend under test: how to open it, age it and damage it.
trait Backend {
    fn name(&self) -> &'static str;
    /// A new connection/handle to the same store.
    fn open(&self, retention: Retention) -> AnyStore;
    /// Moves this handle's clock `by` forward.
    fn age(&self, store: &AnyStore, by: Duration);
    /// Breaks the checksum of the record's first chunk behind ctx's back.
    fn damage(&self, hex: &str);
    /// Points a `ctx` command at this store.
    fn env(&self, cmd: &mut Command);
}

struct Sqlite {
    dir: TempDir,
}

impl Sqlite {
    fn new() -> Sqlite {
        Sqlite {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }
    fn path(&self) -> std::path::PathBuf {
        self.dir.path().join("store.db")
    }
}

impl Backend for Sqlite {
    fn name(&self) -> &'static str {
        "sqlite"
    }
    fn open(&self, retention: Retention) -> AnyStore {
        let options = Options {
            retention,
            ..Options::default()
        };
        AnyStore::Sqlite(SqliteStore::open(&self.path(), options).expect("open sqlite"))
    }
    fn age(&self, store: &AnyStore, by: Duration) {
        let AnyStore::Sqlite(s) = store else {
            panic!("not sqlite")
        };
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock")
            .as_millis() as i64;
        s.set_now(Some(now + by.as_millis() as i64));
    }
    fn damage(&self, hex: &str) {
        let c = rusqlite::Connection::open(self.path()).expect("open");
        let n = c
            .execute(
                "UPDATE chunks SET sum = x'00' WHERE seq = 0
                 AND record = (SELECT id FROM records WHERE hex = ?1)",
                [hex],
            )
            .expect("damage");
        assert_eq!(n, 1);
    }
    fn env(&self, cmd: &mut Command) {
        cmd.env("CTX_HOME", self.dir.path()).env_remove("CTX_STORE");
    }
}

struct Postgres {
    url: String,
    namespace: String,
    home: TempDir,
}

impl Postgres {
    /// `None` (with a visible note) when no server is configured.
    fn new(test: &str) -> Option<Postgres> {
        let url = support::server_env(test, &["CTX_TEST_POSTGRES_URL"])?.remove(0);
        static N: AtomicU64 = AtomicU64::new(0);
        let namespace = format!(
            "test-{test}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        );
        Some(Postgres {
            url,
            namespace,
            home: tempfile::tempdir().expect("tempdir"),
        })
    }
    /// The server's URL with one more connection parameter (`k=v`).
    fn url_with(&self, param: &str) -> String {
        let sep = if self.url.contains('?') { '&' } else { '?' };
        format!("{}{sep}{param}", self.url)
    }
    /// A schema of this test's own, and the URL whose connections work in
    /// it (`search_path`), so other tests keep the real one.
    fn private_schema(&self) -> (String, String) {
        let schema = self.namespace.replace('-', "_");
        let url = self.url_with(&format!("options=-csearch_path%3D{schema}"));
        (schema, url)
    }
    fn options(&self, retention: Retention) -> PgOptions {
        PgOptions {
            retention,
            // Generous: the CI machine is shared; the default is 300 ms.
            timeout: Duration::from_secs(20),
            namespace: self.namespace.clone(),
        }
    }
}

impl Backend for Postgres {
    fn name(&self) -> &'static str {
        "postgres"
    }
    fn open(&self, retention: Retention) -> AnyStore {
        AnyStore::Postgres(
            PgStore::open(&self.url, self.options(retention)).expect("open postgres"),
        )
    }
    fn age(&self, store: &AnyStore, by: Duration) {
        let AnyStore::Postgres(p) = store else {
            panic!("not postgres")
        };
        p.shift_clock(by);
    }
    fn damage(&self, hex: &str) {
        let mut c = ::postgres::Client::connect(&self.url, ::postgres::NoTls).expect("connect");
        let n = c
            .execute(
                "UPDATE ctx_chunks SET sum = '\\x00'::bytea WHERE seq = 0 AND record =
                 (SELECT id FROM ctx_records WHERE namespace = $1 AND hex = $2)",
                &[&self.namespace.as_str(), &hex],
            )
            .expect("damage");
        assert_eq!(n, 1);
    }
    fn env(&self, cmd: &mut Command) {
        cmd.env("CTX_HOME", self.home.path())
            .env("CTX_STORE", &self.url)
            .env("CTX_NAMESPACE", &self.namespace)
            .env("CTX_STORE_TIMEOUT", "20s");
    }
}

fn retention(max_bytes: u64) -> Retention {
    Retention {
        max_bytes,
        ..Retention::default()
    }
}

fn numbered(n: usize) -> Vec<u8> {
    (1..=n)
        .map(|i| format!("line {i} of the output\n"))
        .collect::<String>()
        .into_bytes()
}

fn artifact(bytes: Vec<u8>) -> Artifact {
    Artifact::from_stdout(bytes, Exit::Code(0), vec!["gen".into(), "out".into()])
}

/// Bytes lz4 cannot shrink, so sizes under the cap are predictable.
fn noise(n: usize, seed: u64) -> Vec<u8> {
    let mut x = 0x2545_f491_4f6c_dd1d_u64 ^ seed;
    (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if i % 80 == 79 {
                b'\n'
            } else {
                b'!' + (x % 90) as u8
            }
        })
        .collect()
}

fn ctx(b: &dyn Backend, args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ctx"));
    cmd.args(args)
        .stdin(Stdio::null())
        .env_remove("CTX_BUDGET")
        .env_remove("CTX_STORE_MAX_BYTES")
        .env_remove("CTX_STORE_MIN_AGE");
    b.env(&mut cmd);
    cmd.output().expect("run ctx")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

// ---- the contract ----

fn empty_store(b: &dyn Backend) {
    let s = b.open(Retention::default());
    let stats = s.stats().expect("stats");
    assert_eq!((stats.records, stats.raw_bytes), (0, 0), "{}", b.name());
    assert!(s.keys().expect("keys").is_empty());
    assert!(matches!(s.resolve("abcdef"), Err(StoreError::NotFound(_))));
}

fn insert_and_fetch(b: &dyn Backend) {
    let s = b.open(Retention::default());
    let bytes = b"out 1\nerr 1\nout 2\n".to_vec();
    let segs = vec![
        Segment {
            stream: Stream::Stdout,
            len: 6,
        },
        Segment {
            stream: Stream::Stderr,
            len: 6,
        },
        Segment {
            stream: Stream::Stdout,
            len: 6,
        },
    ];
    let mut art = Artifact::new(bytes.clone(), segs, Exit::Code(2), vec!["make".into()]);
    art.label = Some("build".into());
    let key = s.put(&art).expect("put");
    assert_eq!(s.put(&art).expect("again"), key, "{}: same key", b.name());
    assert_eq!(
        s.stats().expect("stats").records,
        1,
        "{}: one row",
        b.name()
    );
    assert_eq!(s.resolve(&key.hex()[..8]).expect("resolve"), key);
    let back = s.load(&key).expect("load");
    assert_eq!(back.bytes(), &bytes[..]);
    assert_eq!(back.exit, Exit::Code(2));
    assert_eq!(back.label.as_deref(), Some("build"));
    let err =
        ctx::store::stream_bytes(&s, &s.meta(&key).expect("meta"), Stream::Stderr).expect("stderr");
    assert_eq!(err, b"err 1\n");
    assert_eq!(s.keys().expect("keys"), vec![key]);
}

/// Lines deep in a record of several chunks come from one chunk read.
fn zooms_read_only_the_chunks_they_need(b: &dyn Backend) {
    let s = b.open(Retention::default());
    let bytes = numbered(300_000);
    assert!(bytes.len() > 3 * CHUNK_TARGET);
    let key = s.put(&artifact(bytes.clone())).expect("put");
    let meta = s.meta(&key).expect("meta");
    let index = s.chunk_index(&meta).expect("index");
    assert!(index.len() >= 4, "{}: {} chunks", b.name(), index.len());
    let reads = std::cell::Cell::new(0usize);
    let mut r = Reader::new(
        index,
        meta.line_count,
        Box::new(|seq| {
            reads.set(reads.get() + 1);
            s.chunk(&meta, seq)
        }),
    )
    .expect("reader");
    let start = r.line_start(250_000).expect("start");
    let end = r.line_end(250_002).expect("end");
    let mut got = Vec::new();
    r.copy_range(start, end, &mut |x| {
        got.extend_from_slice(x);
        true
    })
    .expect("copy");
    drop(r);
    assert_eq!(
        text(&got),
        "line 250000 of the output\nline 250001 of the output\nline 250002 of the output\n"
    );
    assert!(
        reads.get() <= 2,
        "{}: {} chunk reads",
        b.name(),
        reads.get()
    );

    // The same zooms through the binary.
    let short = key.short();
    let out = ctx(b, &["expand", &short, "--lines", "250000-250001"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "line 250000 of the output\nline 250001 of the output\n"
    );
    let out = ctx(b, &["expand", &short, "--grep", "^line 123456 "]);
    assert!(text(&out.stdout).contains("line 123456 of the output"));
    let out = ctx(b, &["expand", &short, "--all"]);
    assert_eq!(out.stdout, bytes, "{}: --all", b.name());
}

/// 16 writers archive the same new output at the same moment: one
/// record, and every writer succeeds with its key.
fn concurrent_first_insert(b: &(dyn Backend + Sync)) {
    let bytes = numbered(20_000);
    let barrier = std::sync::Barrier::new(16);
    let keys: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..16)
            .map(|_| {
                scope.spawn(|| {
                    let s = b.open(Retention::default());
                    barrier.wait();
                    s.put(&artifact(bytes.clone()))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("thread"))
            .collect()
    });
    let first = keys[0].clone().expect("put");
    for k in &keys {
        assert_eq!(k.as_ref().expect("every writer succeeds"), &first);
    }
    let s = b.open(Retention::default());
    assert_eq!(s.stats().expect("stats").records, 1, "{}", b.name());
    assert_eq!(s.load(&first).expect("load").bytes(), &bytes[..]);
}

/// GC evicts least recently used records older than the minimum age
/// until the store fits; younger ones stay whatever the cap.
fn gc_under_the_cap_respects_the_minimum_age(b: &dyn Backend) {
    let s = b.open(Retention::default());
    let keys: Vec<_> = (0..3)
        .map(|i| s.put(&artifact(noise(100_000, i))).expect("put"))
        .collect();
    let tight = Retention {
        max_bytes: 150_000,
        min_age: HOUR,
    };
    let report = s.gc(tight).expect("gc young");
    assert!(
        report.evicted.is_empty(),
        "{}: evicted young records",
        b.name()
    );
    assert_eq!(report.records_left, 3);

    b.age(&s, 2 * HOUR);
    // The newest is used again "now": the two others are the LRU.
    s.touch(&keys[2]).expect("touch");
    let report = s.gc(tight).expect("gc old");
    let evicted: Vec<_> = report.evicted.iter().map(|e| e.key).collect();
    assert_eq!(evicted.len(), 2, "{}: {evicted:?}", b.name());
    assert!(!evicted.contains(&keys[2]));
    assert_eq!(report.records_left, 1);
    assert!(report.bytes_left <= tight.max_bytes);
    // Evicted reads as evicted, not as a key never seen.
    match s.resolve(&keys[0].hex()) {
        Err(StoreError::Gone { key, why, .. }) => {
            assert_eq!(key, keys[0]);
            assert!(why.contains("evicted"), "{why}");
        }
        other => panic!("{}: {other:?}", b.name()),
    }
}

/// Unknown, evicted and purged keys are three different answers, through
/// the store and through `ctx expand`.
fn evicted_purged_and_unknown_keys_are_told_apart(b: &dyn Backend) {
    let s = b.open(Retention::default());
    let old = s.put(&artifact(noise(50_000, 7))).expect("put");
    b.age(&s, 100 * HOUR);
    let kept = s.put(&artifact(noise(50_000, 8))).expect("put");
    let report = s.gc(retention(60_000)).expect("gc");
    assert_eq!(
        report.evicted.iter().map(|e| e.key).collect::<Vec<_>>(),
        vec![old],
        "{}",
        b.name()
    );
    assert!(matches!(
        s.resolve(&old.short()),
        Err(StoreError::Gone { .. })
    ));
    let never = "0123456789abcdef0123456789abcdef";
    assert!(
        matches!(s.resolve(never), Err(StoreError::NotFound(_))),
        "{}",
        b.name()
    );
    s.purge(None).expect("purge");
    match s.resolve(&kept.hex()) {
        Err(StoreError::Gone { why, .. }) => assert_eq!(why, "purged"),
        other => panic!("{}: {other:?}", b.name()),
    }
    // A record archived again after its eviction is simply there.
    assert_eq!(s.put(&artifact(noise(50_000, 7))).expect("again"), old);
    assert_eq!(s.resolve(&old.short()).expect("resolves"), old);
    s.purge(None).expect("purge");

    let out = ctx(b, &["expand", &old.short()]);
    assert_ne!(out.status.code(), Some(0));
    let err = text(&out.stderr);
    assert!(err.contains("was purged"), "{}: {err}", b.name());
    let out = ctx(b, &["expand", never]);
    assert!(
        text(&out.stderr).contains("never archived here"),
        "{}: {}",
        b.name(),
        text(&out.stderr)
    );
}

/// A put that cannot fit without evicting young records is refused.
fn a_full_store_refuses_and_keeps_young_records(b: &dyn Backend) {
    let s = b.open(retention(250_000));
    let first = s.put(&artifact(noise(100_000, 1))).expect("first");
    let second = s.put(&artifact(noise(100_000, 2))).expect("second");
    let third = s.put(&artifact(noise(100_000, 3)));
    assert!(
        matches!(third, Err(StoreError::Full { .. })),
        "{}: {third:?}",
        b.name()
    );
    assert!(s.meta(&first).is_ok() && s.meta(&second).is_ok());
    // Once they are old enough, the oldest makes room.
    b.age(&s, 2 * Retention::default().min_age);
    s.put(&artifact(noise(100_000, 3)))
        .expect("third once aged");
    assert!(matches!(s.meta(&first), Err(StoreError::NotFound(_))));
}

/// A damaged chunk is reported, never returned; quarantined, it reads
/// as damaged (not unknown) until the same output is archived again.
fn a_corrupt_row_is_damage_not_output(b: &dyn Backend) {
    let s = b.open(Retention::default());
    let art = artifact(numbered(1000));
    let key = s.put(&art).expect("put");
    b.damage(&key.hex());
    let err = s.load(&key).expect_err("damaged");
    assert!(
        matches!(err, StoreError::Damaged { .. }),
        "{}: {err:?}",
        b.name()
    );
    let out = ctx(b, &["expand", &key.short(), "--all"]);
    assert_ne!(out.status.code(), Some(0), "{}", b.name());
    assert!(!text(&out.stdout).contains("line 500 of"));
    s.quarantine(&key, "test").expect("quarantine");
    assert!(matches!(
        s.resolve(&key.hex()),
        Err(StoreError::Damaged { .. })
    ));
    assert_eq!(s.put(&art).expect("again"), key);
    assert_eq!(s.load(&key).expect("whole").bytes(), art.bytes());
}

fn purge_empties_the_store(b: &dyn Backend) {
    let s = b.open(Retention::default());
    s.put(&artifact(numbered(10))).expect("put");
    s.put(&artifact(numbered(20))).expect("put");
    assert_eq!(s.purge(Some(HOUR)).expect("purge old").records, 0);
    assert_eq!(s.purge(None).expect("purge").records, 2, "{}", b.name());
    assert_eq!(s.stats().expect("stats").records, 0);
}

macro_rules! contract {
    ($($test:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[test]
                fn $test() {
                    super::$test(&super::Sqlite::new());
                }
            )*
        }
        mod postgres {
            $(
                #[test]
                fn $test() {
                    if let Some(b) = super::Postgres::new(stringify!($test)) {
                        super::$test(&b);
                    }
                }
            )*
        }
    };
}

contract!(
    empty_store,
    insert_and_fetch,
    zooms_read_only_the_chunks_they_need,
    concurrent_first_insert,
    gc_under_the_cap_respects_the_minimum_age,
    evicted_purged_and_unknown_keys_are_told_apart,
    a_full_store_refuses_and_keeps_young_records,
    a_corrupt_row_is_damage_not_output,
    purge_empties_the_store,
);

// ---- PostgreSQL only ----

/// Two teams on one server: neither reads, resolves, counts nor evicts
/// the other's records.
#[test]
fn a_namespace_never_sees_another() {
    let (Some(a), Some(other)) = (Postgres::new("namespace_a"), Postgres::new("namespace_b"))
    else {
        return;
    };
    let sa = a.open(Retention::default());
    let sb = other.open(Retention::default());
    let key = sa.put(&artifact(numbered(100))).expect("put");
    assert!(matches!(
        sb.resolve(&key.hex()),
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(sb.meta(&key), Err(StoreError::NotFound(_))));
    assert_eq!(sb.stats().expect("stats").records, 0);
    assert_eq!(sb.purge(None).expect("purge").records, 0);
    other.age(&sb, 100 * HOUR);
    assert!(sb.gc(retention(0)).expect("gc").evicted.is_empty());
    assert!(sa.load(&key).is_ok());
    // Stats name the machine and user that wrote each record.
    let out = ctx(&a, &["store", "stats"]);
    assert!(
        text(&out.stdout).contains("written by"),
        "{}",
        text(&out.stdout)
    );
}

/// The size cap reads running totals (schema v3) instead of summing the
/// namespace: they must equal the records' own sums after puts, repeated
/// and concurrent puts of one record, an eviction and a purge.
#[test]
fn the_running_totals_match_the_records() {
    let Some(pg) = Postgres::new("running_totals") else {
        return;
    };
    let mut c = ::postgres::Client::connect(&pg.url, ::postgres::NoTls).expect("connect");
    let mut check = |when: &str| {
        let real = c
            .query_one(
                "SELECT count(*), coalesce(sum(stored_bytes), 0)::bigint FROM ctx_records
                 WHERE namespace = $1",
                &[&pg.namespace.as_str()],
            )
            .expect("records");
        let kept = c
            .query_one(
                "SELECT coalesce(sum(records), 0)::bigint, coalesce(sum(stored_bytes), 0)::bigint
                 FROM ctx_usage WHERE namespace = $1",
                &[&pg.namespace.as_str()],
            )
            .expect("usage");
        let (real, kept): ((i64, i64), (i64, i64)) =
            ((real.get(0), real.get(1)), (kept.get(0), kept.get(1)));
        assert_eq!(kept, real, "{when}");
        real
    };
    let s = pg.open(Retention::default());
    for i in 0..20 {
        s.put(&artifact(noise(20_000, i))).expect("put");
    }
    assert_eq!(check("after 20 puts").0, 20);
    s.put(&artifact(noise(20_000, 3))).expect("repeat");
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                pg.open(Retention::default())
                    .put(&artifact(noise(20_000, 99)))
                    .expect("concurrent put");
            });
        }
    });
    assert_eq!(check("after a repeat and 4 racing writers").0, 21);
    pg.age(&s, 100 * HOUR);
    let report = s.gc(retention(100_000)).expect("gc");
    assert!(!report.evicted.is_empty());
    assert_eq!(check("after gc").0 as u64, report.records_left);
    s.purge(None).expect("purge");
    assert_eq!(check("after purge"), (0, 0));
}

/// A server at schema v2 that already holds records migrates to v3 with
/// totals that count them (the migration's backfill).
#[test]
fn the_v3_migration_counts_the_records_already_there() {
    let Some(pg) = Postgres::new("usage_backfill") else {
        return;
    };
    let mut c = ::postgres::Client::connect(&pg.url, ::postgres::NoTls).expect("connect");
    let (schema, url) = pg.private_schema();
    c.batch_execute(&format!("CREATE SCHEMA \"{schema}\""))
        .expect("schema");
    let s = PgStore::open(&url, pg.options(Retention::default())).expect("open");
    for i in 0..5 {
        s.put(&artifact(noise(10_000, i))).expect("put");
    }
    drop(s);
    // Back to what a v2 server looks like: no totals, version 2.
    c.batch_execute(&format!(
        "SET search_path = \"{schema}\";
         DROP TRIGGER ctx_usage_track ON ctx_records; DROP FUNCTION ctx_usage_track();
         DROP TABLE ctx_usage; UPDATE ctx_schema SET version = 2; RESET search_path;"
    ))
    .expect("downgrade");
    let s = PgStore::open(&url, pg.options(Retention::default())).expect("migrate");
    s.put(&artifact(noise(10_000, 5))).expect("put after");
    let row = c
        .query_one(
            &format!(
                "SELECT (SELECT sum(records) FROM \"{schema}\".ctx_usage)::bigint,
                        (SELECT count(*) FROM \"{schema}\".ctx_records)::bigint,
                        (SELECT sum(stored_bytes) FROM \"{schema}\".ctx_usage)::bigint,
                        (SELECT sum(stored_bytes) FROM \"{schema}\".ctx_records)::bigint"
            ),
            &[],
        )
        .expect("totals");
    let (kept, real): (i64, i64) = (row.get(0), row.get(1));
    assert_eq!((kept, real), (6, 6));
    assert_eq!(row.get::<_, i64>(2), row.get::<_, i64>(3));
    drop(s);
    c.batch_execute(&format!("DROP SCHEMA \"{schema}\" CASCADE"))
        .expect("clean");
}

/// A server whose schema is newer than this ctx is refused, with a
/// message that says so.
#[test]
fn a_newer_schema_on_the_server_is_refused() {
    let Some(pg) = Postgres::new("newer_schema") else {
        return;
    };
    drop(pg.open(Retention::default()));
    let mut c = ::postgres::Client::connect(&pg.url, ::postgres::NoTls).expect("connect");
    let (schema, url) = pg.private_schema();
    c.batch_execute(&format!(
        "CREATE SCHEMA \"{schema}\"; CREATE TABLE \"{schema}\".ctx_schema (version integer);
         INSERT INTO \"{schema}\".ctx_schema VALUES (999);"
    ))
    .expect("plant");
    let err = PgStore::open(&url, pg.options(Retention::default()))
        .err()
        .expect("refused");
    assert!(err.to_string().contains("newer than this ctx"), "{err}");
    c.batch_execute(&format!("DROP SCHEMA \"{schema}\" CASCADE"))
        .expect("clean");
}

// ---- fail open, no server needed ----

const SCRIPT: &str = "i=0; while [ $i -lt 3000 ]; do echo \"line $i of the output\"; i=$((i+1)); done; echo oops >&2; exit 3";

fn raw_stdout() -> String {
    (0..3000)
        .map(|i| format!("line {i} of the output\n"))
        .collect()
}

/// Runs `ctx run --digest` against `url`; fails if it has not finished
/// in a minute: a dead server must never hang a command.
fn run_against(url: &str, home: &Path) -> (Option<i32>, String, String) {
    let mut cmd = support::ctx_cmd(home, &["run", "--digest", "--", "sh", "-c", SCRIPT]);
    cmd.env("CTX_STORE", url);
    support::output_within(cmd, Duration::from_secs(60))
}

/// The server did not take the record: the normal digest, the status,
/// one note saying the record is on this machine only, and the record
/// in the local store, byte for byte.
fn assert_kept_locally_with_one_note(home: &Path, code: Option<i32>, out: &str, err: &str) {
    assert_eq!(code, Some(3), "{err}");
    assert_ne!(out, raw_stdout(), "the raw output instead of the digest");
    let key = out
        .split_whitespace()
        .skip_while(|w| *w != "expand")
        .nth(1)
        .map(|k| k.trim_end_matches(';').to_string())
        .unwrap_or_else(|| panic!("no digest: {out}\n{err}"));
    let notes: Vec<&str> = err.lines().filter(|l| l.starts_with("[ctx]")).collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("on this machine only"), "{notes:?}");
    let mut cmd = support::ctx_cmd(home, &["expand", &key, "--all", "--stream", "stdout"]);
    cmd.env("CTX_STORE", "sqlite");
    let (code, local, err) = support::output_within(cmd, Duration::from_secs(60));
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(local, raw_stdout(), "the local copy");
}

#[test]
fn a_refused_connection_keeps_the_record_locally_and_the_status() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let home = tempfile::tempdir().expect("tempdir");
    let url = format!("postgres://ctx:secret-pw@127.0.0.1:{port}/ctx");
    let (code, out, err) = run_against(&url, home.path());
    assert_kept_locally_with_one_note(home.path(), code, &out, &err);
    assert!(!err.contains("secret-pw"), "the password leaked: {err}");
}

/// A server that accepts the connection and never answers costs the
/// connect timeout, not the command.
#[test]
fn a_silent_server_keeps_the_record_locally_after_the_timeout() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let home = tempfile::tempdir().expect("tempdir");
    let (code, out, err) =
        run_against(&format!("postgres://ctx@127.0.0.1:{port}/ctx"), home.path());
    drop(listener);
    assert_kept_locally_with_one_note(home.path(), code, &out, &err);
}

/// `ctx expand` tells an unreachable server (after its retries) from a
/// key the store does not have.
#[test]
fn expand_tells_unreachable_from_unknown() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let home = tempfile::tempdir().expect("tempdir");
    let out = Command::new(env!("CARGO_BIN_EXE_ctx"))
        .args(["expand", "abcdef012345"])
        .env("CTX_HOME", home.path())
        .env("CTX_STORE", format!("postgres://ctx@127.0.0.1:{port}/ctx"))
        .stdin(Stdio::null())
        .output()
        .expect("run ctx");
    assert_ne!(out.status.code(), Some(0));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("unreachable"),
        "{}",
        text(&out.stderr)
    );
    let Some(pg) = Postgres::new("expand_unknown") else {
        return;
    };
    drop(pg.open(Retention::default()));
    let out = ctx(&pg, &["expand", "abcdef012345"]);
    assert_ne!(out.status.code(), Some(0));
    let err = text(&out.stderr);
    assert!(
        err.contains("no record") && !err.contains("unavailable"),
        "{err}"
    );
}

/// The server drops the connection mid-run (a restart, a failover): the
/// next operation fails as unavailable, promptly, and a new connection
/// (the next command) works again with the records intact.
#[test]
fn a_dropped_connection_is_unavailable_then_recovers() {
    let Some(pg) = Postgres::new("dropped") else {
        return;
    };
    let app = pg.namespace.clone();
    let url = pg.url_with(&format!("application_name={app}"));
    let store = PgStore::open(&url, pg.options(Retention::default())).expect("open");
    let key = store.put(&artifact(numbered(100))).expect("put");
    let mut admin = ::postgres::Client::connect(&pg.url, ::postgres::NoTls).expect("connect");
    let killed = admin
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
            &[&app],
        )
        .expect("terminate");
    assert_eq!(killed.len(), 1);
    let err = store
        .put(&artifact(numbered(200)))
        .expect_err("the connection is gone");
    assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
    let again = PgStore::open(&url, pg.options(Retention::default())).expect("reopen");
    assert_eq!(again.load(&key).expect("load").bytes(), &numbered(100)[..]);
}
