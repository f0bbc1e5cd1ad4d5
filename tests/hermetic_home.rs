//! The suite is hermetic: ctx's files follow HOME when nothing else names
//! a home, so a test that points HOME (or CTX_HOME) at a temporary folder
//! writes nowhere else. Here the everyday verbs run with HOME at an empty
//! folder, every XDG_* variable and CTX_HOME unset: everything they write
//! lands under that folder's `.local/share/ctx`, and the real home's ctx
//! folder is not where they went.

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn ctx(home: &Path, cwd: &Path, args: &[&str], input: Option<&[u8]>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ctx"));
    c.args(args).current_dir(cwd).env("HOME", home);
    for var in [
        "CTX_HOME",
        "CTX_CONFIG",
        "CTX_SESSION",
        "CTX_STORE",
        "CTX_NO_LEDGER",
        "XDG_DATA_HOME",
        "XDG_CONFIG_HOME",
        "XDG_STATE_HOME",
        "XDG_CACHE_HOME",
        "XDG_RUNTIME_DIR",
    ] {
        c.env_remove(var);
    }
    let mut child = c
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ctx");
    if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
        use std::io::Write;
        stdin.write_all(bytes).expect("stdin");
    }
    child.wait_with_output().expect("wait")
}

/// Every path under `dir`, relative.
fn tree(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            found.push(path.strip_prefix(dir).expect("under").display().to_string());
            if path.is_dir() && !path.is_symlink() {
                stack.push(path);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn the_everyday_verbs_write_only_under_home() {
    let home = tempfile::tempdir().expect("tempdir");
    let work = tempfile::tempdir().expect("tempdir");
    let source: String = (1..=400)
        .map(|i| format!("pub fn item_{i}() -> u32 {{ {i} }}\n"))
        .collect();
    fs::write(work.path().join("lib.rs"), source).expect("write");
    let (h, w) = (home.path(), work.path());

    let log: String = (1..=20_000).map(|i| format!("line {i}\n")).collect();
    let out = ctx(h, w, &["pipe"], Some(log.as_bytes()));
    assert_eq!(out.status.code(), Some(0));
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    let at = printed.find("ctx expand ").expect("archived") + "ctx expand ".len();
    let hash = &printed[at..at + 12];

    let out = ctx(
        h,
        w,
        &["run", "--digest", "--", "sh", "-c", "seq 1 3000; exit 2"],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    let out = ctx(h, w, &["read", "lib.rs"], None);
    assert_eq!(out.status.code(), Some(0));
    let out = ctx(h, w, &["read", "lib.rs"], None).status;
    assert_eq!(out.code(), Some(0));
    let out = ctx(h, w, &["expand", hash, "--lines", "1-2"], None);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "line 1\nline 2\n");
    let out = ctx(h, w, &["gain", "--estimate"], None);
    assert_eq!(out.status.code(), Some(0));

    // Everything ctx wrote is under HOME's data folder.
    let written = tree(h);
    assert!(
        written.iter().any(|p| p == ".local/share/ctx/store.db"),
        "{written:?}"
    );
    for path in &written {
        assert!(
            ".local/share/ctx".starts_with(path.as_str()) || path.starts_with(".local/share/ctx/"),
            "ctx wrote {path} outside its data folder"
        );
    }
    assert!(
        tree(w) == ["lib.rs"],
        "the working folder changed: {:?}",
        tree(w)
    );
}
