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
