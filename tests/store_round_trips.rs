//! How many times a `ctx run` archiving to PostgreSQL waits for the
//! server. Each wait is a network round trip that every command pays, so
//! the count is part of the store's contract, measured exactly (never by
//! the clock): a proxy between ctx and the real server counts the
//! client's flights — a flight is what the client sends before it next
//! hears from the server.
//!
//! Runs against the server `CTX_TEST_POSTGRES_URL` names (`.ci/run`
//! starts a throw-away cluster); skipped, visibly, without one.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

mod support;

/// Who sent last on the connection, and how many flights the client
/// began (a client send after silence or after a server send).
#[derive(Default)]
struct Flights {
    client_last: Option<bool>,
    client_flights: usize,
}

/// A TCP proxy on 127.0.0.1 that forwards to `upstream` and counts every
/// connection's client flights.
struct Proxy {
    port: u16,
    flights: Arc<Mutex<Flights>>,
    connections: Arc<AtomicUsize>,
    /// Connections both sides have closed.
    closed: Arc<AtomicUsize>,
    /// A file created when the first connection arrives.
    connected_flag: PathBuf,
    _dir: tempfile::TempDir,
}

impl Proxy {
    fn start(upstream: String) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let flights = Arc::new(Mutex::new(Flights::default()));
        let counted = flights.clone();
        let connections = Arc::new(AtomicUsize::new(0));
        let accepted = connections.clone();
        let closed = Arc::new(AtomicUsize::new(0));
        let ended = closed.clone();
        let dir = tempfile::tempdir().expect("dir");
        let connected_flag = dir.path().join("connected");
        let flag = connected_flag.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                accepted.fetch_add(1, Ordering::SeqCst);
                let _ = std::fs::write(&flag, b"");
                let Ok(server) = TcpStream::connect(&upstream) else {
                    continue;
                };
                // One connection at a time: each run is one client.
                if let Ok(mut f) = counted.lock() {
                    f.client_last = None;
                }
                let (c2, s2) = (
                    client.try_clone().expect("clone"),
                    server.try_clone().expect("clone"),
                );
                let up = {
                    let counted = counted.clone();
                    std::thread::spawn(move || pump(client, server, &counted, true))
                };
                pump(s2, c2, &counted, false);
                let _ = up.join();
                ended.fetch_add(1, Ordering::SeqCst);
            }
        });
        Proxy {
            port,
            flights,
            connections,
            closed,
            connected_flag,
            _dir: dir,
        }
    }

    /// The client flights since the last call, once every connection
    /// so far has ended (its last flight, the goodbye, counted).
    fn take(&self) -> usize {
        for _ in 0..1000 {
            if self.closed.load(Ordering::SeqCst) == self.connections.load(Ordering::SeqCst) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let mut f = self.flights.lock().expect("flights");
        std::mem::take(&mut f.client_flights)
    }
}

/// Copies `from` into `to` until either side closes, noting who spoke.
fn pump(mut from: TcpStream, mut to: TcpStream, flights: &Mutex<Flights>, from_client: bool) {
    let mut buf = [0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if let Ok(mut f) = flights.lock() {
            if from_client && f.client_last != Some(true) {
                f.client_flights += 1;
            }
            f.client_last = Some(from_client);
        }
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}

/// The server's URL, its `host:port`, and the same URL through `port`,
/// in a schema of this test's own (so the first run finds no tables).
struct Server {
    url: String,
    upstream: String,
    schema: String,
}

impl Server {
    fn new(test: &str) -> Option<Server> {
        let url = support::server_env(test, &["CTX_TEST_POSTGRES_URL"])?.remove(0);
        let rest = url.split_once("://").map_or("", |(_, r)| r);
        let authority = rest.split(['/', '?']).next().unwrap_or("");
        let upstream = authority.rsplit('@').next().unwrap_or("").to_string();
        if !upstream.contains(':') {
            eprintln!("SKIPPED {test}: CTX_TEST_POSTGRES_URL names no host:port");
            return None;
        }
        static N: AtomicU64 = AtomicU64::new(0);
        let schema = format!(
            "trips_{test}_{}_{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        );
        let mut c = ::postgres::Client::connect(&url, ::postgres::NoTls).expect("connect");
        c.batch_execute(&format!("CREATE SCHEMA \"{schema}\""))
            .expect("schema");
        Some(Server {
            url,
            upstream,
            schema,
        })
    }

    /// The URL of this test's schema, through `proxy` when given.
    fn store_url(&self, proxy: Option<&Proxy>) -> String {
        let mut url = self.url.clone();
        if let Some(p) = proxy {
            url = url.replacen(&self.upstream, &format!("127.0.0.1:{}", p.port), 1);
        }
        let sep = if url.contains('?') { '&' } else { '?' };
        format!(
            "{url}{sep}sslmode=disable&options=-csearch_path%3D{}",
            self.schema
        )
    }

    fn sql(&self, statements: &str) {
        let mut c = ::postgres::Client::connect(&self.url, ::postgres::NoTls).expect("connect");
        c.batch_execute(&format!(
            "SET search_path = \"{}\"; {statements}; RESET search_path",
            self.schema
        ))
        .expect("sql");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(mut c) = ::postgres::Client::connect(&self.url, ::postgres::NoTls) {
            let _ = c.batch_execute(&format!("DROP SCHEMA \"{}\" CASCADE", self.schema));
        }
    }
}

/// `ctx run --digest -- seq FIRST LAST` against `url`: (stdout, stderr).
fn run_seq(url: &str, home: &std::path::Path, first: u64, last: u64) -> (String, String) {
    run_sh(url, home, &format!("seq {first} {last}"))
}

/// `ctx run --digest -- sh -c SCRIPT` against `url`: (stdout, stderr).
/// Fails after a minute: a run must never hang.
fn run_sh(url: &str, home: &std::path::Path, script: &str) -> (String, String) {
    let mut cmd = support::ctx_cmd(home, &["run", "--digest", "--", "sh", "-c", script]);
    cmd.env("CTX_STORE", url).env("CTX_STORE_TIMEOUT", "20s");
    let (_, out, err) = support::output_within(cmd, std::time::Duration::from_secs(60));
    (out, err)
}

/// The key the digest names after `ctx expand`.
fn key_of(stdout: &str) -> Option<String> {
    stdout
        .split_whitespace()
        .skip_while(|w| *w != "expand")
        .nth(1)
        .map(|k| k.trim_end_matches(';').to_string())
}

fn expand_all(url: &str, home: &std::path::Path, key: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_ctx"))
        .args(["expand", key, "--all"])
        .env("CTX_HOME", home)
        .env("CTX_STORE", url)
        .env("CTX_STORE_TIMEOUT", "20s")
        .env_remove("CTX_NAMESPACE")
        .stdin(Stdio::null())
        .output()
        .expect("ctx expand");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn seq(first: u64, last: u64) -> String {
    (first..=last).map(|i| format!("{i}\n")).collect()
}

/// On a server whose schema is current, a run's archive is the start-up
/// exchange and one statement: two flights that wait for an answer, and
/// the goodbye. The first run on an empty schema migrates it (more
/// flights, once); a repeated output refreshes its record in the same
/// one statement.
#[test]
fn a_run_on_a_current_schema_archives_in_one_round_trip() {
    let Some(server) = Server::new("current") else {
        return;
    };
    let proxy = Proxy::start(server.upstream.clone());
    let home = tempfile::tempdir().expect("home");
    let through = server.store_url(Some(&proxy));
    let direct = server.store_url(None);

    let (out, err) = run_seq(&through, home.path(), 1, 3000);
    let first = key_of(&out).unwrap_or_else(|| panic!("not archived: {out}\n{err}"));
    proxy.take();

    let (out, err) = run_seq(&through, home.path(), 5, 3004);
    let second = key_of(&out).unwrap_or_else(|| panic!("not archived: {out}\n{err}"));
    assert_eq!(proxy.take(), 3, "start-up, the archive, goodbye");
    assert_eq!(expand_all(&direct, home.path(), &second), seq(5, 3004));

    // The same output again: the record is refreshed, not rewritten.
    let (out, _) = run_seq(&through, home.path(), 5, 3004);
    assert_eq!(key_of(&out).as_deref(), Some(second.as_str()));
    assert_eq!(proxy.take(), 3, "start-up, the refresh, goodbye");
    assert_eq!(expand_all(&direct, home.path(), &first), seq(1, 3000));
}

/// The one-statement archive still checks the schema: a server whose
/// schema is newer than this ctx gets nothing written, and the run says
/// why in its one note (the record is kept on this machine, the digest
/// printed as usual).
#[test]
fn a_run_against_a_newer_schema_writes_nothing_and_says_so() {
    let Some(server) = Server::new("newer") else {
        return;
    };
    let home = tempfile::tempdir().expect("home");
    let url = server.store_url(None);
    let (out, _) = run_seq(&url, home.path(), 1, 3000);
    assert!(key_of(&out).is_some(), "{out}");
    server.sql("UPDATE ctx_schema SET version = 999");

    let (out, err) = run_seq(&url, home.path(), 7, 3006);
    assert!(key_of(&out).is_some(), "the digest: {out}");
    let notes: Vec<&str> = err.lines().filter(|l| l.starts_with("[ctx]")).collect();
    assert_eq!(notes.len(), 1, "{err}");
    assert!(notes[0].contains("newer than this ctx"), "{notes:?}");
    assert!(notes[0].contains("on this machine only"), "{notes:?}");
    let mut c = ::postgres::Client::connect(&server.url, ::postgres::NoTls).expect("connect");
    let n: i64 = c
        .query_one(
            &format!("SELECT count(*) FROM \"{}\".ctx_records", server.schema),
            &[],
        )
        .expect("count")
        .get(0);
    assert_eq!(n, 1, "a record was written under a newer schema");
}

/// The archive's connection is made while the command runs, not after
/// it: here the command itself waits (up to 10 s) for the server to see
/// a connection before it prints, and says so if none came.
#[test]
fn the_connection_is_made_while_the_command_runs() {
    let Some(server) = Server::new("early") else {
        return;
    };
    let proxy = Proxy::start(server.upstream.clone());
    let home = tempfile::tempdir().expect("home");
    let through = server.store_url(Some(&proxy));
    let flag = proxy.connected_flag.display().to_string();
    let script = format!(
        "i=0; while [ ! -e '{flag}' ]; do i=$((i+1)); \
         if [ $i -gt 1000 ]; then echo no connection while running; break; fi; \
         sleep 0.01; done; seq 1 3000"
    );
    let (out, err) = run_sh(&through, home.path(), &script);
    assert!(!out.contains("no connection"), "{out}");
    let key = key_of(&out).unwrap_or_else(|| panic!("not archived: {out}\n{err}"));
    assert_eq!(proxy.connections.load(Ordering::SeqCst), 1);
    let direct = server.store_url(None);
    assert_eq!(expand_all(&direct, home.path(), &key), seq(1, 3000));
}

/// A command that outlasts the hold (1 s) does not keep an idle
/// connection open on the server meanwhile: the early one is closed and
/// the put connects again when the command ends.
#[test]
fn a_long_command_does_not_hold_a_connection() {
    let Some(server) = Server::new("long") else {
        return;
    };
    let proxy = Proxy::start(server.upstream.clone());
    let home = tempfile::tempdir().expect("home");
    let through = server.store_url(Some(&proxy));
    let (out, err) = run_sh(&through, home.path(), "sleep 3; seq 1 3000");
    let key = key_of(&out).unwrap_or_else(|| panic!("not archived: {out}\n{err}"));
    assert_eq!(proxy.connections.load(Ordering::SeqCst), 2);
    let direct = server.store_url(None);
    assert_eq!(expand_all(&direct, home.path(), &key), seq(1, 3000));
}
