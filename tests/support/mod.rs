//! What the store and home integration tests share: the built ctx, run
//! against a private home with none of the caller's own settings.
//!
//! Each test binary compiles this module on its own and uses a subset.
#![allow(dead_code)]

pub mod cluster;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// `ctx ARGS` with `CTX_HOME=home`. The store's location and limits, the
/// budget, the ledger switch and the config file come from the test alone:
/// a developer's environment or `~/.config/ctx/config.toml` must not change
/// what a test sees.
pub fn ctx_cmd(home: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ctx"));
    c.args(args).env("CTX_HOME", home);
    for var in [
        "CTX_STORE",
        "CTX_STORE_TIMEOUT",
        "CTX_NAMESPACE",
        "CTX_BUDGET",
        "CTX_NO_LEDGER",
        "CTX_STORE_MAX_BYTES",
        "CTX_STORE_MIN_AGE",
        "CTX_STORE_BUSY_TIMEOUT",
        "CTX_CONFIG",
        "XDG_CONFIG_HOME",
        // GitHub Actions' variables turn on annotations (docs/ci.md).
        "GITHUB_ACTIONS",
        "GITHUB_WORKSPACE",
        "GITHUB_STEP_SUMMARY",
        // libpq's variables: the shared store reads them too.
        "PGHOST",
        "PGPORT",
        "PGUSER",
        "PGPASSWORD",
        "PGDATABASE",
        "PGSSLMODE",
        "PGSSLROOTCERT",
        "PGPASSFILE",
    ] {
        c.env_remove(var);
    }
    c
}

/// `CMD | ctx pipe` with `input` on stdin (written from a thread, so a
/// large input never blocks on a full pipe).
pub fn pipe(home: &Path, input: &[u8]) -> Output {
    let mut child = ctx_cmd(home, &["pipe"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ctx pipe");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait ctx pipe");
    let _ = writer.join();
    out
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs `cmd` (stdin closed, both streams read on threads so neither pipe
/// fills) and returns its exit code and output; kills it and fails the
/// test after `limit`, because a run that hangs is the defect under test.
pub fn output_within(
    mut cmd: Command,
    limit: std::time::Duration,
) -> (Option<i32>, String, String) {
    use std::io::Read;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ctx");
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("ctx hung: {:?}", cmd.get_args().collect::<Vec<_>>());
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    (
        status.code(),
        reader.join().expect("stdout"),
        err_reader.join().expect("stderr"),
    )
}

/// The test servers' variables (`.ci/run` starts PostgreSQL;
/// `.ci/pgbouncer.sh` the pooler), or `None` with a
/// visible `SKIPPED` note when any is unset or empty.
pub fn server_env(test: &str, names: &[&str]) -> Option<Vec<String>> {
    let found: Option<Vec<String>> = names
        .iter()
        .map(|n| std::env::var(n).ok().filter(|v| !v.is_empty()))
        .collect();
    if found.is_none() {
        eprintln!(
            "SKIPPED {test}: {names:?} not set (`bash .ci/run` starts PostgreSQL, \
             `.ci/pgbouncer.sh start` PgBouncer)"
        );
    }
    found
}
