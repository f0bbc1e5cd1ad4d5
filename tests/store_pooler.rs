//! The shared store behind PgBouncer in transaction pooling mode: each
//! transaction may run on a different server connection, so ctx must not
//! rely on session state (start-up options, `SET`, session advisory
//! locks, prepared statements kept across transactions).
//!
//! Runs against the pooler `CTX_TEST_PGBOUNCER_URL` names
//! (`.ci/pgbouncer.sh start` puts one in front of the throw-away server
//! of `.ci/postgres.sh`); skipped, visibly, without one. Each test keeps
//! to a namespace of its own.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

mod support;

/// The pooler's URL and a namespace of this test's own.
struct Pooler {
    url: String,
    namespace: String,
}

impl Pooler {
    fn new(test: &str) -> Option<Pooler> {
        let url = support::server_env(test, &["CTX_TEST_PGBOUNCER_URL"])?.remove(0);
        static N: AtomicU64 = AtomicU64::new(0);
        let namespace = format!(
            "pooler_{test}_{}_{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        );
        Some(Pooler { url, namespace })
    }

    /// `ctx ARGS` through the pooler: (exit code, stdout, stderr). Fails
    /// after a minute: nothing may hang behind a pooler either.
    fn ctx(&self, home: &Path, timeout: &str, args: &[&str]) -> (Option<i32>, String, String) {
        let mut cmd = support::ctx_cmd(home, args);
        cmd.env("CTX_STORE", &self.url)
            .env("CTX_STORE_TIMEOUT", timeout)
            .env("CTX_NAMESPACE", &self.namespace);
        support::output_within(cmd, Duration::from_secs(60))
    }

    /// `ctx run --digest -- sh -c SCRIPT`: the key its digest names.
    fn run(&self, home: &Path, script: &str) -> String {
        let (code, out, err) =
            self.ctx(home, "20s", &["run", "--digest", "--", "sh", "-c", script]);
        assert_eq!(code, Some(0), "{out}\n{err}");
        assert!(!err.contains("store unavailable"), "{err}");
        key_of(&out).unwrap_or_else(|| panic!("no key in the digest:\n{out}\n{err}"))
    }

    fn expand(&self, home: &Path, key: &str, zoom: &[&str]) -> String {
        let mut args = vec!["expand", key];
        args.extend_from_slice(zoom);
        let (code, out, err) = self.ctx(home, "20s", &args);
        assert_eq!(code, Some(0), "expand {zoom:?}: {out}\n{err}");
        out
    }
}

fn key_of(stdout: &str) -> Option<String> {
    stdout
        .split_whitespace()
        .skip_while(|w| *w != "expand")
        .nth(1)
        .map(|k| k.trim_end_matches(';').to_string())
}

/// A JSON array of `n` objects, as a script that prints it.
fn json_script(n: usize, tag: &str) -> (String, String) {
    let items: Vec<String> = (0..n)
        .map(|i| format!("{{\"id\": {i}, \"name\": \"{tag}{i}\"}}"))
        .collect();
    let text = format!("[\n{}\n]\n", items.join(",\n"));
    (format!("cat <<'EOF'\n{text}EOF"), text)
}

#[test]
fn runs_archive_and_every_zoom_reads_back_through_a_pooler() {
    let Some(p) = Pooler::new("zooms") else {
        return;
    };
    let home = tempfile::tempdir().expect("home");
    let (script, text) = json_script(400, "item");
    let key = p.run(home.path(), &script);
    assert_eq!(p.expand(home.path(), &key, &["--all"]), text);
    assert_eq!(
        p.expand(home.path(), &key, &["--lines", "2-3"]),
        "{\"id\": 0, \"name\": \"item0\"},\n{\"id\": 1, \"name\": \"item1\"},\n"
    );
    let item = p.expand(home.path(), &key, &["--item", "/310"]);
    assert!(item.contains("\"item310\""), "{item}");
    assert!(!item.contains("\"item311\""), "{item}");
}

/// Many processes at once share few server connections: a statement
/// prepared on one must never be looked for on another, and the same
/// output archived twice at once is one record.
#[test]
fn concurrent_runs_through_a_pooler_keep_every_record() {
    let Some(p) = Pooler::new("crowd") else {
        return;
    };
    let home = tempfile::tempdir().expect("home");
    let keys: Vec<(String, String)> = std::thread::scope(|s| {
        let runs: Vec<_> = (0..12)
            .map(|i| {
                let (p, home) = (&p, home.path());
                s.spawn(move || {
                    // Two writers per output: six records.
                    let (script, text) = json_script(300 + i % 6, "crowd");
                    (p.run(home, &script), text)
                })
            })
            .collect();
        runs.into_iter().map(|r| r.join().expect("run")).collect()
    });
    for (key, text) in &keys {
        assert_eq!(&p.expand(home.path(), key, &["--all"]), text);
    }
    let (_, stats, err) = p.ctx(home.path(), "20s", &["store", "stats"]);
    assert!(
        stats
            .lines()
            .any(|l| l.split_whitespace().eq(["records", "6"])),
        "{stats}\n{err}"
    );
}

#[test]
fn maintenance_commands_work_through_a_pooler() {
    let Some(p) = Pooler::new("maintenance") else {
        return;
    };
    let home = tempfile::tempdir().expect("home");
    let (code, out, err) = p.ctx(home.path(), "20s", &["store", "migrate"]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    for i in 0..3 {
        p.run(home.path(), &format!("seq {i} 2000"));
    }
    let (code, stats, err) = p.ctx(home.path(), "20s", &["store", "stats"]);
    assert_eq!(code, Some(0), "{stats}\n{err}");
    assert!(
        stats
            .lines()
            .any(|l| l.split_whitespace().eq(["records", "3"])),
        "{stats}"
    );
    let (code, gc, err) = p.ctx(home.path(), "20s", &["store", "gc"]);
    assert_eq!(code, Some(0), "{gc}\n{err}");
    assert!(gc.contains("evicted 0 records"), "{gc}");
    let (code, purge, err) = p.ctx(home.path(), "20s", &["store", "purge"]);
    assert_eq!(code, Some(0), "{purge}\n{err}");
    assert!(purge.contains("purged 3 records"), "{purge}");
    let (_, stats, _) = p.ctx(home.path(), "20s", &["store", "stats"]);
    assert!(
        stats
            .lines()
            .any(|l| l.split_whitespace().eq(["records", "0"])),
        "{stats}"
    );
}

/// The statement and lock timeouts survive pooling (they cannot ride on
/// the session): a purge that meets a locked table gives up after the
/// short timeout instead of waiting for the lock.
#[test]
fn timeouts_bound_statements_through_a_pooler() {
    let Some(p) = Pooler::new("timeouts") else {
        return;
    };
    let Some(direct) = support::server_env("timeouts", &["CTX_TEST_POSTGRES_URL"]) else {
        return;
    };
    let direct = direct[0].as_str();
    let home = tempfile::tempdir().expect("home");
    p.run(home.path(), "seq 1 5000");
    let mut holder = ::postgres::Client::connect(direct, ::postgres::NoTls).expect("connect");
    let mut tx = holder.transaction().expect("begin");
    tx.batch_execute("LOCK TABLE ctx_records IN ACCESS EXCLUSIVE MODE")
        .expect("lock");
    // Without a bound the purge would wait for the lock until
    // `output_within` kills it and fails the test.
    let (code, out, err) = p.ctx(home.path(), "300ms", &["store", "purge"]);
    tx.rollback().expect("unlock");
    assert_ne!(code, Some(0), "{out}\n{err}");
    assert!(
        err.contains("did not answer in time") || err.contains("lock timeout"),
        "{err}"
    );
}
