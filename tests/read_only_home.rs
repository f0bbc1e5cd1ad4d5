//! A home that cannot be written (a read-only mount, a CI cache restored
//! read-only) still serves: `ctx expand`, `ctx gain`, `ctx store stats`
//! and `ctx explain` read it; a writing verb says in one line that it
//! cannot write; `ctx run` runs the command and shows its output with its
//! exit status. Nothing in the home changes.
//!
//! Read-only is made with `chmod a-w` for an ordinary user. Root writes
//! through any mode, so as root each ctx runs in a private mount namespace
//! (`unshare -m`) where the home is bind-mounted read-only; where that is
//! not allowed the test says why and passes.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use support::{ctx_cmd, pipe, text};

mod support;

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// How the home is made read-only for the commands under test.
enum ReadOnly {
    /// `chmod a-w` on every folder and file (not root).
    Modes,
    /// A read-only bind mount in a private mount namespace (root).
    Mount,
}

/// Runs `script` with the home bind-mounted read-only on itself, in a
/// mount namespace of its own (nothing outside sees the mount).
fn in_read_only_mount(home: &Path) -> Command {
    let mut c = Command::new("unshare");
    c.args([
        "-m",
        "sh",
        "-c",
        r#"mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" "$0" && exec "$@""#,
    ])
    .arg(home);
    c
}

fn make_read_only(home: &Path) -> Option<ReadOnly> {
    if !is_root() {
        chmod_tree(home, false);
        return Some(ReadOnly::Modes);
    }
    // Root: can this machine give a process a read-only view of the home?
    let probe = in_read_only_mount(home)
        .args(["touch", &home.join("probe").display().to_string()])
        .stderr(Stdio::null())
        .status();
    let refused = matches!(probe, Ok(s) if !s.success());
    let mounted = in_read_only_mount(home)
        .arg("true")
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if refused && mounted && !home.join("probe").exists() {
        Some(ReadOnly::Mount)
    } else {
        eprintln!(
            "SKIPPED: running as root, and no read-only bind mount could be made \
             (`unshare -m` + `mount -o remount,bind,ro` refused): chmod does not stop root"
        );
        None
    }
}

fn chmod_tree(dir: &Path, writable: bool) {
    for entry in fs::read_dir(dir).expect("read_dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            chmod_tree(&path, writable);
        } else {
            let mode = if writable { 0o600 } else { 0o400 };
            fs::set_permissions(&path, fs::Permissions::from_mode(mode)).expect("chmod");
        }
    }
    let mode = if writable { 0o700 } else { 0o500 };
    fs::set_permissions(dir, fs::Permissions::from_mode(mode)).expect("chmod");
}

/// `ctx ARGS` against `home`, read-only as `how` says.
fn ctx_ro(how: &ReadOnly, home: &Path, args: &[&str]) -> Output {
    let ctx = env!("CARGO_BIN_EXE_ctx");
    let mut c = match how {
        ReadOnly::Modes => ctx_cmd(home, args),
        ReadOnly::Mount => {
            // The same environment as ctx_cmd, with the mount around it.
            let envs: Vec<_> = ctx_cmd(home, args)
                .get_envs()
                .map(|(k, v)| (k.to_owned(), v.map(|v| v.to_owned())))
                .collect();
            let mut wrapped = in_read_only_mount(home);
            wrapped.arg(ctx).args(args);
            for (k, v) in envs {
                match v {
                    Some(v) => wrapped.env(k, v),
                    None => wrapped.env_remove(k),
                };
            }
            wrapped
        }
    };
    c.env("HOME", home)
        .stdin(Stdio::null())
        .output()
        .expect("ctx")
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).expect("read_dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path.strip_prefix(dir).expect("under").display().to_string();
                files.insert(name, fs::read(&path).expect("read"));
            }
        }
    }
    files
}

/// The hash a digest names in its `ctx expand HASH` footer.
fn hash_in(stderr_or_stdout: &str) -> String {
    let at = stderr_or_stdout
        .find("ctx expand ")
        .expect("an expand address")
        + "ctx expand ".len();
    stderr_or_stdout[at..at + 12].to_string()
}

/// A home with one archived pipe and one digested run in it, left as ctx
/// leaves it (`checkpointed`: its WAL folded in and the side files gone,
/// as a cache restored from an archive has it).
fn populated_home(checkpointed: bool) -> (tempfile::TempDir, String) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("ctx");
    let log: String = (1..=20_000)
        .map(|i| format!("entry {i} of the run\n"))
        .collect();
    let out = pipe(&home, log.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let hash = hash_in(&text(&out.stdout));
    let out = ctx_cmd(
        &home,
        &["run", "--digest", "--", "sh", "-c", "seq 1 4000; exit 3"],
    )
    .env("HOME", tmp.path())
    .stdin(Stdio::null())
    .output()
    .expect("ctx run");
    assert_eq!(out.status.code(), Some(3));
    if checkpointed {
        let db = home.join("store.db");
        let c = rusqlite::Connection::open(&db).expect("open");
        c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .expect("checkpoint");
        drop(c);
        for side in ["store.db-wal", "store.db-shm"] {
            let _ = fs::remove_file(home.join(side));
        }
    }
    (tmp, hash)
}

fn one_line(stderr: &[u8]) -> String {
    let said = text(stderr);
    assert_eq!(said.trim_end().lines().count(), 1, "one line: {said}");
    said
}

#[test]
fn a_read_only_home_is_read_and_writes_say_they_cannot() {
    for checkpointed in [false, true] {
        let (tmp, hash) = populated_home(checkpointed);
        let home = tmp.path().join("ctx");
        let before = snapshot(&home);
        let Some(how) = make_read_only(&home) else {
            return;
        };
        let case = if checkpointed {
            "checkpointed"
        } else {
            "with its WAL"
        };

        let out = ctx_ro(&how, &home, &["expand", &hash, "--lines", "1-3"]);
        assert_eq!(out.status.code(), Some(0), "{case}: {}", text(&out.stderr));
        assert_eq!(
            text(&out.stdout),
            "entry 1 of the run\nentry 2 of the run\nentry 3 of the run\n"
        );

        let out = ctx_ro(&how, &home, &["store", "stats"]);
        assert_eq!(out.status.code(), Some(0), "{case}: {}", text(&out.stderr));
        assert!(
            text(&out.stdout).contains("records       2"),
            "{case}: {}",
            text(&out.stdout)
        );

        let out = ctx_ro(&how, &home, &["explain", &hash]);
        assert_eq!(out.status.code(), Some(0), "{case}: {}", text(&out.stderr));
        assert!(text(&out.stdout).contains(&format!("record {hash}")));

        let out = ctx_ro(&how, &home, &["gain", "--estimate"]);
        assert_eq!(out.status.code(), Some(0), "{case}: {}", text(&out.stderr));
        assert!(
            text(&out.stdout).contains("runs 2"),
            "{case}: {}",
            text(&out.stdout)
        );

        // A writing verb: one line saying it cannot write.
        let out = ctx_ro(&how, &home, &["store", "gc"]);
        assert_ne!(out.status.code(), Some(0), "{case}");
        let said = one_line(&out.stderr);
        assert!(
            said.contains("cannot write") && said.contains("read-only"),
            "{said}"
        );

        // A run: the command's whole output and its status.
        let out = ctx_ro(
            &how,
            &home,
            &["run", "--digest", "--", "sh", "-c", "seq 1 4000; exit 3"],
        );
        assert_eq!(out.status.code(), Some(3), "{case}: {}", text(&out.stderr));
        let want: String = (1..=4000).map(|i| format!("{i}\n")).collect();
        assert_eq!(text(&out.stdout), want, "{case}");
        let said = one_line(&out.stderr);
        assert!(said.contains("could not be archived"), "{said}");

        if matches!(how, ReadOnly::Modes) {
            chmod_tree(&home, true);
        }
        assert!(snapshot(&home) == before, "{case}: the home changed");
    }
}
