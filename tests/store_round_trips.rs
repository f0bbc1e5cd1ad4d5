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
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

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
}

impl Proxy {
    fn start(upstream: String) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let flights = Arc::new(Mutex::new(Flights::default()));
        let counted = flights.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
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
            }
        });
        Proxy { port, flights }
    }

    fn take(&self) -> usize {
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
        let Some(url) = std::env::var("CTX_TEST_POSTGRES_URL")
            .ok()
            .filter(|u| !u.is_empty())
        else {
            eprintln!("SKIPPED {test}: CTX_TEST_POSTGRES_URL is not set (README.md, Tests)");
            return None;
        };
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
    let out = Command::new(env!("CARGO_BIN_EXE_ctx"))
        .args(["run", "--digest", "--", "seq"])
        .arg(first.to_string())
        .arg(last.to_string())
        .env("CTX_HOME", home)
        .env("CTX_STORE", url)
        .env("CTX_STORE_TIMEOUT", "20s")
        .env_remove("CTX_NAMESPACE")
        .env_remove("CTX_BUDGET")
        .stdin(Stdio::null())
        .output()
        .expect("ctx");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
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
/// why in its one note (the output goes out raw, complete).
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
    assert_eq!(out, seq(7, 3006), "not the raw output");
    let notes: Vec<&str> = err.lines().filter(|l| l.starts_with("[ctx]")).collect();
    assert_eq!(notes.len(), 1, "{err}");
    assert!(notes[0].contains("newer than this ctx"), "{notes:?}");
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
