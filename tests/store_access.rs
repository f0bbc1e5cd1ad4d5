//! Reaching the shared store as teams configure it: TLS with libpq's
//! `sslmode` meanings, credentials from `PG*` variables and the password
//! file, and `ctx store copy` between backends.
//!
//! The server tests need the throw-away cluster `.ci/postgres.sh` starts
//! (`CTX_TEST_POSTGRES_*`: a URL, a role that must give a password, and
//! the CA that signed the server's certificate for `localhost` only);
//! without it they say SKIPPED and pass. The copy between SQLite files
//! needs no server.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Output, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

use ctx::artifact::{Artifact, Exit, Segment, Stream};
use ctx::store::sqlite::{Options, SqliteStore};
use ctx::store::{ArchiveKey, Store};
use support::{ctx_cmd, server_env as server, text};

/// A namespace no other test uses.
fn namespace(test: &str) -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    format!(
        "access-{test}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// `ctx ARGS` against the store `url` in a fresh home, with extra
/// environment.
fn ctx_at(url: &str, home: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = ctx_cmd(home, args);
    cmd.env("CTX_STORE", url)
        .env("CTX_STORE_TIMEOUT", "20s")
        .env("CTX_NAMESPACE", namespace("run"))
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run ctx")
}

fn tls_line(out: &Output) -> String {
    text(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("tls").map(|t| t.trim().to_string()))
        .unwrap_or_default()
}

fn with_query(url: &str, query: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{query}")
}

#[test]
fn sslmode_means_what_it_means_in_libpq() {
    let Some(v) = server(
        "sslmode",
        &["CTX_TEST_POSTGRES_URL", "CTX_TEST_POSTGRES_TLS_ROOT"],
    ) else {
        return;
    };
    let (url, root) = (&v[0], &v[1]);
    // The certificate names `localhost`, not the address.
    let by_name = url.replace("127.0.0.1", "localhost");
    let home = tempfile::tempdir().expect("home");
    let stats = |url: String| ctx_at(&url, home.path(), &["store", "stats"], &[]);

    let out = stats(with_query(
        &by_name,
        &format!("sslmode=verify-full&sslrootcert={root}"),
    ));
    assert!(tls_line(&out).starts_with("TLSv"), "{}", text(&out.stderr));

    // verify-full compares the host with the certificate: refused.
    let out = stats(with_query(
        url,
        &format!("sslmode=verify-full&sslrootcert={root}"),
    ));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("only valid for"),
        "{}",
        text(&out.stderr)
    );

    // verify-ca checks the chain only.
    let out = stats(with_query(
        url,
        &format!("sslmode=verify-ca&sslrootcert={root}"),
    ));
    assert!(tls_line(&out).starts_with("TLSv"), "{}", text(&out.stderr));

    // A certificate no trusted root signed: refused, never plain text.
    let out = stats(with_query(
        &by_name,
        "sslmode=verify-full&sslrootcert=system",
    ));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));

    // require encrypts without checking; disable does not encrypt.
    let out = stats(with_query(url, "sslmode=require"));
    assert!(tls_line(&out).starts_with("TLSv"), "{}", text(&out.stderr));
    let out = stats(with_query(url, "sslmode=disable"));
    assert_eq!(tls_line(&out), "off", "{}", text(&out.stderr));

    // An unknown mode is an error, not a silent downgrade.
    let out = stats(with_query(url, "sslmode=verify"));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("sslmode=verify"));
}

const SCRIPT: &str = "seq 1 5000 | sed 's/^/row /'; echo boom >&2; exit 4";

/// A run archives through a verified TLS connection, and the record comes
/// back through another.
#[test]
fn a_run_archives_and_expands_over_verified_tls() {
    let Some(v) = server(
        "tls_run",
        &["CTX_TEST_POSTGRES_URL", "CTX_TEST_POSTGRES_TLS_ROOT"],
    ) else {
        return;
    };
    let url = with_query(
        &v[0].replace("127.0.0.1", "localhost"),
        &format!("sslmode=verify-full&sslrootcert={}", v[1]),
    );
    let home = tempfile::tempdir().expect("home");
    let ns = namespace("tls_run");
    let env = [("CTX_NAMESPACE", ns.as_str())];
    let out = ctx_at(
        &url,
        home.path(),
        &["run", "--digest", "--", "sh", "-c", SCRIPT],
        &env,
    );
    assert_eq!(out.status.code(), Some(4));
    let stdout = text(&out.stdout);
    let key = stdout
        .split_whitespace()
        .skip_while(|w| *w != "expand")
        .nth(1)
        .expect("an expand command in the digest")
        .to_string();
    let back = ctx_at(&url, home.path(), &["expand", &key, "--all"], &env);
    assert_eq!(back.status.code(), Some(0), "{}", text(&back.stderr));
    assert!(text(&back.stdout).contains("row 4999\n"));
    assert!(text(&back.stdout).contains("boom\n"));
}

#[test]
fn the_password_comes_from_pgpassword_or_the_password_file() {
    let Some(v) = server(
        "credentials",
        &["CTX_TEST_POSTGRES_PW_URL", "CTX_TEST_POSTGRES_PW"],
    ) else {
        return;
    };
    let (url, password) = (&v[0], &v[1]);
    let home = tempfile::tempdir().expect("home");
    let stats = |env: &[(&str, &str)]| ctx_at(url, home.path(), &["store", "stats"], env);

    // No password anywhere: refused.
    let out = stats(&[("PGPASSFILE", "/nonexistent/pgpass")]);
    assert_eq!(out.status.code(), Some(2));

    let out = stats(&[("PGPASSWORD", password)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("pgpass");
    std::fs::write(&file, format!("127.0.0.1:*:ctx_pw:ctx_pw:{password}\n")).expect("write");
    let file_name = file.display().to_string();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let out = stats(&[("PGPASSFILE", &file_name)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    // Readable by others: not used, and the failure says why.
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let out = stats(&[("PGPASSFILE", &file_name)]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("chmod 0600"), "{err}");
    assert!(
        !err.contains(password.as_str()),
        "the password leaked: {err}"
    );
}

#[test]
fn an_empty_url_takes_everything_from_the_environment() {
    let Some(v) = server(
        "pg_env",
        &["CTX_TEST_POSTGRES_PW_URL", "CTX_TEST_POSTGRES_PW"],
    ) else {
        return;
    };
    let port = v[0]
        .rsplit(':')
        .next()
        .and_then(|p| p.split('/').next())
        .expect("port")
        .to_string();
    let home = tempfile::tempdir().expect("home");
    let out = ctx_at(
        "postgres://",
        home.path(),
        &["store", "stats"],
        &[
            ("PGHOST", "127.0.0.1"),
            ("PGPORT", &port),
            ("PGUSER", "ctx_pw"),
            ("PGDATABASE", "ctx_pw"),
            ("PGPASSWORD", &v[1]),
            ("PGSSLMODE", "disable"),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(tls_line(&out), "off");
}

fn numbered(from: usize, n: usize) -> Artifact {
    let bytes: Vec<u8> = (from..from + n)
        .flat_map(|i| format!("copied line {i}\n").into_bytes())
        .collect();
    let len = bytes.len() as u64;
    Artifact::new(
        bytes,
        vec![Segment {
            stream: Stream::Stdout,
            len,
        }],
        Exit::Code(0),
        vec!["seq".into()],
    )
}

/// Three records in a SQLite file at `path`; returns their keys.
fn three_records(path: &Path) -> Vec<ArchiveKey> {
    let s = SqliteStore::open(path, Options::default()).expect("open");
    (0..3)
        .map(|i| s.put(&numbered(i * 1000, 2000 + i)).expect("put"))
        .collect()
}

#[test]
fn copy_between_sqlite_files_keeps_every_key_and_is_idempotent() {
    let dir = tempfile::tempdir().expect("dir");
    let (a, b) = (dir.path().join("a.db"), dir.path().join("b.db"));
    let keys = three_records(&a);
    let from = format!("sqlite:{}", a.display());
    let to = format!("sqlite:{}", b.display());
    let home = tempfile::tempdir().expect("home");
    let copy = || {
        ctx_cmd(
            home.path(),
            &["store", "copy", "--from", &from, "--to", &to],
        )
        .stdin(Stdio::null())
        .output()
        .expect("copy")
    };
    let out = copy();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("3 copied"),
        "{}",
        text(&out.stdout)
    );

    let dest = SqliteStore::open(&b, Options::default()).expect("open b");
    let source = SqliteStore::open(&a, Options::default()).expect("open a");
    for key in &keys {
        assert_eq!(
            dest.load(key).expect("copied").bytes(),
            source.load(key).expect("source").bytes()
        );
    }
    let out = copy();
    assert!(
        text(&out.stdout).contains("0 copied") && text(&out.stdout).contains("3 already there"),
        "{}",
        text(&out.stdout)
    );

    // The same store on both sides is refused, not a no-op.
    let out = ctx_cmd(
        home.path(),
        &["store", "copy", "--from", &from, "--to", &from],
    )
    .stdin(Stdio::null())
    .output()
    .expect("copy");
    assert_ne!(out.status.code(), Some(0));
}

#[test]
fn copy_from_sqlite_to_postgres_then_expand_there() {
    let Some(v) = server("copy_pg", &["CTX_TEST_POSTGRES_URL"]) else {
        return;
    };
    let dir = tempfile::tempdir().expect("dir");
    let a = dir.path().join("a.db");
    let keys = three_records(&a);
    let home = tempfile::tempdir().expect("home");
    let ns = namespace("copy_pg");
    let env = [("CTX_NAMESPACE", ns.as_str())];
    let out = ctx_at(
        &v[0],
        home.path(),
        &[
            "store",
            "copy",
            "--from",
            &format!("sqlite:{}", a.display()),
            "--to",
            &v[0],
        ],
        &env,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("3 copied"),
        "{}",
        text(&out.stdout)
    );
    let back = ctx_at(
        &v[0],
        home.path(),
        &["expand", &keys[1].hex(), "--all"],
        &env,
    );
    assert_eq!(back.status.code(), Some(0), "{}", text(&back.stderr));
    assert_eq!(back.stdout, numbered(1000, 2001).bytes());
}

/// A password with unencoded `/`, `?` and `#`, and a URL repeating
/// `password=`, never show: not in the run's note, `ctx store stats`,
/// `ctx config`, nor the ledger's journal. The `ctx` role is trusted by
/// the test server, so these URLs connect whatever their passwords; a
/// closed port makes the run's note (and, with no room on this machine
/// either, the journal's rejection) name the URL.
#[test]
fn passwords_are_masked_everywhere() {
    let Some(v) = server("masked", &["CTX_TEST_POSTGRES_URL"]) else {
        return;
    };
    let url = &v[0];
    let hostport = url
        .trim_start_matches("postgres://ctx@")
        .split('/')
        .next()
        .expect("host:port")
        .to_string();
    let secrets = ["s3/cr?t#pw", "pw-first-9f3", "pw-second-7a1"];
    let live = [
        format!(
            "postgres://ctx:{}@{hostport}/postgres?sslmode=disable",
            secrets[0]
        ),
        format!(
            "postgres://ctx@{hostport}/postgres?password={}&sslmode=disable&password={}",
            secrets[1], secrets[2]
        ),
    ];
    // A port nothing listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let dead = [
        format!("postgres://ctx:{}@127.0.0.1:{closed}/postgres", secrets[0]),
        format!(
            "postgres://ctx@127.0.0.1:{closed}/postgres?password={}&password={}",
            secrets[1], secrets[2]
        ),
    ];
    let mut seen = String::new();
    for u in &live {
        let home = tempfile::tempdir().expect("home");
        let stats = ctx_at(u, home.path(), &["store", "stats"], &[]);
        assert_eq!(stats.status.code(), Some(0), "{}", text(&stats.stderr));
        assert!(
            text(&stats.stdout).contains("***"),
            "{}",
            text(&stats.stdout)
        );
        let config = ctx_at(u, home.path(), &["config"], &[]);
        assert!(
            text(&config.stdout).contains("***"),
            "{}",
            text(&config.stdout)
        );
        for out in [&stats, &config] {
            seen.push_str(&text(&out.stdout));
            seen.push_str(&text(&out.stderr));
        }
    }
    for u in &dead {
        let home = tempfile::tempdir().expect("home");
        let run = ctx_at(
            u,
            home.path(),
            &["run", "--digest", "--", "seq", "1", "20000"],
            &[],
        );
        assert!(text(&run.stderr).contains("***"), "{}", text(&run.stderr));
        // No room on this machine either: the run goes raw and the
        // journal keeps why, the URL in it.
        let full = ctx_at(
            u,
            home.path(),
            &["run", "--digest", "--", "seq", "3", "20000"],
            &[("CTX_STORE_MAX_BYTES", "1k")],
        );
        assert!(text(&full.stderr).contains("***"), "{}", text(&full.stderr));
        let stats = ctx_at(u, home.path(), &["store", "stats"], &[]);
        assert_eq!(stats.status.code(), Some(2));
        assert!(
            text(&stats.stderr).contains("***"),
            "{}",
            text(&stats.stderr)
        );
        let journal = std::fs::read_to_string(home.path().join("ledger.journal"))
            .expect("the runs are journaled");
        assert!(journal.contains("***"), "{journal}");
        seen.push_str(&journal);
        for out in [&run, &full, &stats] {
            seen.push_str(&text(&out.stdout));
            seen.push_str(&text(&out.stderr));
        }
    }
    for s in secrets {
        assert!(!seen.contains(s), "{s} shown:\n{seen}");
    }
    // Nor any piece of the first one cut at its delimiters.
    for piece in ["s3/cr", "cr?t", "t#pw"] {
        assert!(!seen.contains(piece), "{piece} shown:\n{seen}");
    }
}

/// `verify-ca` and `verify-full` with `sslrootcert` naming the server's
/// own self-signed certificate connect, as with libpq (a verifier that
/// wants a chain answers `CaUsedAsEndEntity`); `verify-full` still checks
/// the name, and another self-signed certificate is refused.
#[test]
fn a_self_signed_server_certificate_named_as_root_is_trusted() {
    if server("self_signed", &["CTX_TEST_POSTGRES_URL"]).is_none() {
        return;
    }
    let cluster = support::cluster::Cluster::start(&[("CTX_PG_SELF_SIGNED", "1")]);
    let Some(root) = cluster.tls_root.clone() else {
        eprintln!("SKIPPED self_signed: the server has no TLS (openssl missing)");
        return;
    };
    let home = tempfile::tempdir().expect("home");
    let stats = |url: String| ctx_at(&url, home.path(), &["store", "stats"], &[]);
    let by_name = cluster.url.replace("127.0.0.1", "localhost");
    for (url, mode) in [
        (&cluster.url, "verify-ca"),
        (&by_name, "verify-ca"),
        (&by_name, "verify-full"),
    ] {
        let out = stats(with_query(
            url,
            &format!("sslmode={mode}&sslrootcert={root}"),
        ));
        assert_eq!(out.status.code(), Some(0), "{mode}: {}", text(&out.stderr));
        assert!(tls_line(&out).starts_with("TLSv"), "{}", text(&out.stdout));
    }
    // The certificate names localhost only.
    let out = stats(with_query(
        &cluster.url,
        &format!("sslmode=verify-full&sslrootcert={root}"),
    ));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    // Another certificate is not this server's (the shared test server's
    // CA, when it has one).
    if let Ok(other_root) = std::env::var("CTX_TEST_POSTGRES_TLS_ROOT") {
        let out = stats(with_query(
            &by_name,
            &format!("sslmode=verify-ca&sslrootcert={other_root}"),
        ));
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    }
}
