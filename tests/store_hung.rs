//! A shared store that stops answering (its postmaster and backends
//! SIGSTOPped: `statement_timeout` cannot act, the kernel still accepts
//! connections) before or during a run, directly and behind PgBouncer,
//! costs the run at most its client-side deadline (`CTX_STORE_TIMEOUT`),
//! keeps the command's status, prints the normal digest with one note
//! that the record is on this machine only, and `ctx expand` finds that
//! copy. Once the server answers again, the record reaches it (the next
//! run, or `ctx store sync`) and another machine can expand it.
//!
//! Each test starts a cluster of its own (`.ci/postgres.sh start`; the
//! others keep using theirs); they run when `CTX_TEST_POSTGRES_URL` is set
//! (the pooler ones when `CTX_TEST_PGBOUNCER_URL` is), and say `SKIPPED`
//! otherwise.

use std::path::Path;
use std::time::{Duration, Instant};

mod support;

use support::cluster::Cluster;

/// What a hung server may cost a run with `CTX_STORE_TIMEOUT=300ms`.
const BOUND: Duration = Duration::from_secs(5);

const SCRIPT_OUTPUT: &str = "seq 1 20000; echo 'error: it broke' >&2; exit 3";

fn expected_output() -> String {
    let mut s: String = (1..=20000).map(|i| format!("{i}\n")).collect();
    s.push_str("error: it broke\n");
    s
}

/// `ctx ARGS` against `url` with a 300 ms deadline: (code, stdout,
/// stderr, how long it took). A run that hangs fails the test.
fn ctx(url: &str, home: &Path, args: &[&str]) -> (Option<i32>, String, String, Duration) {
    let mut cmd = support::ctx_cmd(home, args);
    cmd.env("CTX_STORE", url).env("CTX_STORE_TIMEOUT", "300ms");
    let started = Instant::now();
    let (code, out, err) = support::output_within(cmd, Duration::from_secs(60));
    (code, out, err, started.elapsed())
}

fn key_of(stdout: &str) -> Option<String> {
    stdout
        .split_whitespace()
        .skip_while(|w| *w != "expand")
        .nth(1)
        .map(|k| k.trim_end_matches(';').to_string())
}

/// A run whose server is hung: bounded, status kept, the normal digest
/// and exactly one note saying the record stayed on this machine. The
/// digest's key.
fn assert_kept_locally(url: &str, home: &Path, script: &str) -> String {
    let (code, out, err, took) = ctx(url, home, &["run", "--digest", "--", "sh", "-c", script]);
    assert!(took < BOUND, "the run took {took:?}\n{err}");
    assert_eq!(code, Some(3), "the command's status\n{out}\n{err}");
    let key = key_of(&out).unwrap_or_else(|| panic!("no digest:\n{out}\n{err}"));
    assert!(
        out.len() < 4096,
        "the normal digest, not the raw output:\n{out}"
    );
    assert!(out.contains("error: it broke"), "{out}");
    let notes: Vec<&str> = err.lines().filter(|l| l.starts_with("[ctx]")).collect();
    assert_eq!(notes.len(), 1, "one note: {err}");
    assert!(notes[0].contains("on this machine only"), "{err}");
    key
}

/// `ctx expand KEY --all` prints the whole output within the bound.
fn assert_expands(url: &str, home: &Path, key: &str) {
    let (code, out, err, took) = ctx(url, home, &["expand", key, "--all"]);
    assert!(took < BOUND, "expand took {took:?}\n{err}");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out, expected_output());
}

fn cluster(test: &str, pooled: bool) -> Option<Cluster> {
    support::server_env(test, &["CTX_TEST_POSTGRES_URL"])?;
    if pooled {
        support::server_env(test, &["CTX_TEST_PGBOUNCER_URL"])?;
    }
    let mut c = Cluster::start(&[]);
    if pooled {
        c.with_pooler();
    }
    Some(c)
}

/// The URL ctx uses: the pooler's when there is one.
fn store_url(c: &Cluster) -> String {
    c.pooler_url().unwrap_or(&c.url).to_string()
}

/// A first run on a live server creates the schema (and, behind a
/// pooler, its server connections).
fn warm_up(url: &str, home: &Path) {
    let (code, _, err, _) = ctx(url, home, &["run", "--digest", "--", "seq", "1", "5000"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("[ctx]"), "the live server took it: {err}");
}

fn hung_before_the_run(test: &str, pooled: bool) {
    let Some(c) = cluster(test, pooled) else {
        return;
    };
    let url = store_url(&c);
    let home = tempfile::tempdir().expect("home");
    warm_up(&url, home.path());
    let frozen = c.freeze();
    let key = assert_kept_locally(&url, home.path(), SCRIPT_OUTPUT);
    // The server is still hung: this machine's copy.
    assert_expands(&url, home.path(), &key);
    drop(frozen);

    // Another machine does not know it until it is sent.
    let elsewhere = tempfile::tempdir().expect("home");
    let (code, _, err, _) = ctx(&url, elsewhere.path(), &["expand", &key]);
    assert_eq!(code, Some(1), "unknown on the server yet: {err}");
    let (code, out, err, _) = ctx(&url, home.path(), &["store", "sync"]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("sent 1 record"), "{out}");
    // Idempotent: nothing left to send.
    let (code, out, err, _) = ctx(&url, home.path(), &["store", "sync"]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("nothing to send"), "{out}");
    assert_expands(&url, elsewhere.path(), &key);
}

fn hung_during_the_run(test: &str, pooled: bool) {
    let Some(c) = cluster(test, pooled) else {
        return;
    };
    let url = store_url(&c);
    let home = tempfile::tempdir().expect("home");
    warm_up(&url, home.path());
    // The connection made while the command runs is up by the time the
    // command stops the server.
    let script = format!("sleep 0.5; {}; {SCRIPT_OUTPUT}", c.freeze_script());
    let key = {
        let _resume_even_on_failure = Frozen(&c);
        assert_kept_locally(&url, home.path(), &script)
    };
    // The next run that reaches the server sends it.
    let (code, _, err, _) = ctx(
        &url,
        home.path(),
        &["run", "--digest", "--", "seq", "7", "9000"],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("[ctx]"), "{err}");
    let elsewhere = tempfile::tempdir().expect("home");
    assert_expands(&url, elsewhere.path(), &key);
}

/// Resumes the server when dropped (it was stopped by the command).
struct Frozen<'a>(&'a Cluster);

impl Drop for Frozen<'_> {
    fn drop(&mut self) {
        self.0.thaw();
    }
}

#[test]
fn a_server_hung_before_the_run_costs_one_deadline() {
    hung_before_the_run("hung_before", false);
}

#[test]
fn a_server_hung_during_the_run_costs_one_deadline() {
    hung_during_the_run("hung_during", false);
}

#[test]
fn behind_pgbouncer_a_server_hung_before_the_run_costs_one_deadline() {
    hung_before_the_run("hung_before_pooled", true);
}

#[test]
fn behind_pgbouncer_a_server_hung_during_the_run_costs_one_deadline() {
    hung_during_the_run("hung_during_pooled", true);
}

/// `ctx expand` of a record the hung server holds and this machine does
/// not: bounded, and "unreachable", not "unknown" or "evicted".
#[test]
fn expand_against_a_hung_server_says_unreachable() {
    let Some(c) = cluster("expand_unreachable", false) else {
        return;
    };
    let url = store_url(&c);
    let writer = tempfile::tempdir().expect("home");
    let (code, out, err, _) = ctx(
        &url,
        writer.path(),
        &["run", "--digest", "--", "seq", "1", "8000"],
    );
    assert_eq!(code, Some(0), "{err}");
    let key = key_of(&out).expect("a digest");
    let reader = tempfile::tempdir().expect("home");
    let _frozen = c.freeze();
    let (code, out, err, took) = ctx(&url, reader.path(), &["expand", &key]);
    assert!(took < BOUND, "expand took {took:?}\n{err}");
    assert_eq!(code, Some(2), "{out}\n{err}");
    assert!(err.contains("unreachable"), "{err}");
    assert!(
        !err.contains("no record") && !err.contains("evicted"),
        "{err}"
    );
}

/// A server that stops answering in the middle of `ctx expand --all`
/// (the record is many chunks, each read by its own statement): the
/// expand ends within the deadline with the bytes already printed a
/// prefix of the output, exit 2 and "unreachable", never a hang and never
/// a byte that is not the output's.
#[test]
fn expand_hung_in_the_middle_of_a_record_ends_at_the_deadline() {
    use std::io::Read;
    use std::process::Stdio;

    let Some(c) = cluster("expand_hung_midway", false) else {
        return;
    };
    let url = store_url(&c);
    let writer = tempfile::tempdir().expect("home");
    // About 12 MB of hex: a dozen chunks of about 1 MiB.
    let original = writer.path().join("out.txt");
    let made = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "head -c 4000000 /dev/urandom | od -An -tx1 > '{}'",
            original.display()
        ))
        .status()
        .expect("sh");
    assert!(made.success());
    let original = std::fs::read(&original).expect("output");
    let shown = writer.path().join("out.txt").display().to_string();
    let (code, out, err, _) = ctx(
        &url,
        writer.path(),
        &["run", "--digest", "--", "cat", &shown],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("[ctx]"), "the live server took it: {err}");
    let key = key_of(&out).expect("a digest");

    // Another machine, with no copy of its own, expands it; the reader
    // takes 64 KiB, so ctx waits on the pipe with most chunks unread.
    let reader = tempfile::tempdir().expect("home");
    let mut cmd = support::ctx_cmd(reader.path(), &["expand", &key, "--all"]);
    cmd.env("CTX_STORE", &url)
        .env("CTX_STORE_TIMEOUT", "300ms")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("ctx expand");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let mut got = vec![0u8; 64 << 10];
    stdout.read_exact(&mut got).expect("the first bytes");
    let frozen = c.freeze();
    let stopped = Instant::now();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut rest = Vec::new();
        let _ = stdout.read_to_end(&mut rest);
        let _ = tx.send(rest);
    });
    let rest = match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(rest) => rest,
        Err(_) => {
            let _ = child.kill();
            drop(frozen);
            panic!("ctx expand hung on a stopped server");
        }
    };
    let status = child.wait().expect("wait");
    let took = stopped.elapsed();
    drop(frozen);
    let err = err_reader.join().expect("stderr");
    got.extend(rest);
    assert!(took < BOUND, "expand took {took:?} after the stop\n{err}");
    assert!(
        got.len() < original.len(),
        "the server was stopped with most chunks unread ({} of {} bytes printed)",
        got.len(),
        original.len()
    );
    assert_eq!(&original[..got.len()], &got[..], "a prefix of the output");
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(err.contains("unreachable"), "{err}");
}
