//! Commands that print secrets by design pass through unchanged and leave
//! nothing behind: through `ctx run` (even with `--digest`), through a
//! shim, and `ctx rewrite` leaves them alone. Each test runs the built
//! binary, then checks the store holds no record and no file under the
//! home holds the secret's bytes (store, ledger, journal, last runs).

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use ctx::store::Store;
use ctx::store::sqlite::{Options, SqliteStore};
use tempfile::TempDir;

#[path = "shims/agent.rs"]
mod agent;

/// A secret long enough that any output holding it would be digested,
/// archived and recorded.
fn secret() -> String {
    let mut s = String::from("ctx-test-secret-");
    for i in 0..2000 {
        s.push_str(&format!("{i:04x}"));
    }
    s
}

/// Output as big as a real digest's input: the secret on many lines.
fn secrets_file(secret: &str) -> String {
    (0..400).map(|i| format!("KEY_{i}={secret}\n")).collect()
}

fn run(home: &Path, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ctx"));
    cmd.args(args)
        .env("CTX_HOME", home)
        .current_dir(dir)
        .stdin(Stdio::null());
    for var in ["CTX_BUDGET", "CTX_NO_LEDGER", "CTX_DISABLE", "CTX_CONFIG"] {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("ctx runs")
}

/// No record in the store, and the secret in no file under `home`.
fn nothing_kept(home: &Path, secret: &str) {
    let db = home.join("store.db");
    if db.exists() {
        let stats = SqliteStore::open(&db, Options::default())
            .expect("open store")
            .stats()
            .expect("stats");
        assert_eq!(stats.records, 0, "the store holds a record: {stats:?}");
    }
    let needle = &secret.as_bytes()[..64];
    let mut stack = vec![home.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).expect("read home").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(bytes) = fs::read(&path) {
                assert!(
                    !bytes.windows(needle.len()).any(|w| w == needle),
                    "{} holds the secret",
                    path.display()
                );
            }
        }
    }
}

/// The control: the same bytes from an ordinary command are archived,
/// so the checks above can fail.
#[test]
fn an_ordinary_command_with_the_same_output_is_archived() {
    let (home, dir) = (TempDir::new().expect("tmp"), TempDir::new().expect("tmp"));
    let secret = secret();
    fs::write(dir.path().join("notes.txt"), secrets_file(&secret)).expect("write");
    let out = run(
        home.path(),
        dir.path(),
        &["run", "--digest", "--", "cat", "notes.txt"],
        &[],
    );
    assert!(out.status.success());
    let stats = SqliteStore::open(&home.path().join("store.db"), Options::default())
        .expect("open store")
        .stats()
        .expect("stats");
    assert_eq!(stats.records, 1);
}

#[test]
fn ctx_run_passes_secret_printing_commands_through_and_keeps_nothing() {
    let secret = secret();
    let file = secrets_file(&secret);
    let cases: &[(&[&str], String)] = &[
        (&["printenv", "CTX_TEST_SECRET"], format!("{secret}\n")),
        (&["cat", ".env"], file.clone()),
        (&["cat", ".env.local"], file.clone()),
        (
            &["timeout", "30", "cat", "config/.env.production"],
            file.clone(),
        ),
        (&["env", "CI=1", "cat", "deploy.pem"], file.clone()),
    ];
    for (command, want) in cases {
        let (home, dir) = (TempDir::new().expect("tmp"), TempDir::new().expect("tmp"));
        fs::create_dir(dir.path().join("config")).expect("mkdir");
        for name in [".env", ".env.local", "config/.env.production", "deploy.pem"] {
            fs::write(dir.path().join(name), &file).expect("write");
        }
        for digest in [&["run", "--"][..], &["run", "--digest", "--"][..]] {
            let mut args = digest.to_vec();
            args.extend_from_slice(command);
            let out = run(
                home.path(),
                dir.path(),
                &args,
                &[("CTX_TEST_SECRET", &secret)],
            );
            assert_eq!(out.status.code(), Some(0), "{command:?}");
            assert!(
                out.stdout == want.as_bytes(),
                "{command:?}: the output must pass through unchanged"
            );
            nothing_kept(home.path(), &secret);
        }
    }
}

#[test]
fn env_alone_passes_through_and_keeps_nothing() {
    let (home, dir) = (TempDir::new().expect("tmp"), TempDir::new().expect("tmp"));
    let secret = secret();
    let out = run(
        home.path(),
        dir.path(),
        &["run", "--digest", "--", "env"],
        &[("CTX_TEST_SECRET", &secret)],
    );
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("CTX_TEST_SECRET={secret}")),
        "env's output must pass through whole"
    );
    assert!(!stdout.contains("[ctx]"), "no digest of env: {stdout}");
    nothing_kept(home.path(), &secret);
}

#[test]
fn a_shim_passes_secret_printing_commands_through_and_keeps_nothing() {
    if !agent::on_path("cat") || !agent::on_path("printenv") {
        return;
    }
    let agent = agent::Agent::empty();
    agent.install(&["cat", "printenv"]);
    let secret = secret();
    fs::write(agent.dir("work/.env"), secrets_file(&secret)).expect("write");
    fs::write(agent.dir("work/notes.txt"), secrets_file(&secret)).expect("write");
    // The control: through the shim, an ordinary file is digested.
    let notes = agent.bash("CTX_FORCE=1 cat notes.txt");
    assert!(
        notes.stdout != agent.bare("cat notes.txt").stdout,
        "the cat shim digests ordinary output"
    );
    let _ = fs::remove_dir_all(agent.dir("home"));
    fs::create_dir(agent.dir("home")).expect("mkdir");
    for cmd in [
        "CTX_FORCE=1 cat .env",
        "cat .env",
        "CTX_FORCE=1 CTX_TEST_SECRET=$(head -n 1 .env) printenv CTX_TEST_SECRET",
    ] {
        let out = agent.bash(cmd);
        let raw = agent.bare(cmd);
        assert!(out.status.success(), "{cmd}");
        assert!(out.stdout == raw.stdout, "{cmd}: passes through unchanged");
        nothing_kept(&agent.dir("home"), &secret);
    }
}

#[test]
fn rewrite_leaves_secret_printing_commands_alone() {
    let (home, dir) = (TempDir::new().expect("tmp"), TempDir::new().expect("tmp"));
    for line in [
        "env",
        "printenv",
        "cat .env",
        "timeout 5 cat .env.local",
        "aws configure get aws_secret_access_key",
        "gh auth token",
        "kubectl get secret db -o yaml",
        "kubectl get secrets -o json",
        "vault read secret/db",
    ] {
        let out = run(home.path(), dir.path(), &["rewrite", line], &[]);
        assert_eq!(out.status.code(), Some(1), "{line}: left unchanged");
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim_end(), line);
    }
    // And in a chain, the other commands still are.
    let out = run(
        home.path(),
        dir.path(),
        &["rewrite", "cat .env && cargo test"],
        &[],
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim_end(),
        "cat .env && ctx run -- cargo test"
    );
}
