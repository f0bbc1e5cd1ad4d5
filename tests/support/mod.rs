//! What the store and home integration tests share: the built ctx, run
//! against a private home with none of the caller's own settings.
//!
//! Each test binary compiles this module on its own and uses a subset.
#![allow(dead_code)]

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
