//! Listings of files only — `git ls-files`, `rg --files`, `fd`, `find
//! -type f` — are listings, not empty searches or plain text: the digest
//! names every folder the paths pass through, with its count, or declares
//! the ones it leaves out by parent. Real tools on a real tree.

use std::process::{Command, Stdio};

const CTX: &str = env!("CARGO_BIN_EXE_ctx");

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for d in 1..=46 {
        let sub = dir.path().join(format!("pkg{d:02}")).join("src");
        std::fs::create_dir_all(&sub).expect("mkdir");
        for f in 1..=8 {
            std::fs::write(sub.join(format!("mod{f}.py")), "x = 1\n").expect("write");
        }
    }
    dir
}

fn digest(dir: &std::path::Path, argv: &[&str]) -> String {
    let out = Command::new(CTX)
        .args(["run", "--digest", "--"])
        .args(argv)
        .current_dir(dir)
        .env("CTX_HOME", dir.join(".ctx-home"))
        .stdin(Stdio::null())
        .output()
        .expect("ctx run");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn assert_every_folder_named(digest: &str, prefix: &str) {
    for d in 1..=46 {
        let folder = format!("{prefix}pkg{d:02}/src ×8");
        assert!(digest.contains(&folder), "{folder} not named:\n{digest}");
    }
}

#[test]
fn find_of_files_names_every_folder() {
    let dir = tree();
    let shown = digest(dir.path(), &["find", ".", "-type", "f", "-name", "*.py"]);
    assert_every_folder_named(&shown, "./");
}

#[test]
fn git_ls_files_is_a_listing() {
    if Command::new("git").arg("--version").output().is_err() {
        eprintln!("skipped: no git");
        return;
    }
    let dir = tree();
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .output()
            .expect("git")
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q", "."]);
    git(&["add", "pkg*"]);
    let shown = digest(dir.path(), &["git", "ls-files"]);
    assert!(
        shown.starts_with("git ls-files: OK · 368 entries"),
        "{shown}"
    );
    assert_every_folder_named(&shown, "");
}

/// A file name holding an escape sequence or a byte that is not UTF-8 is
/// shown escaped, never stripped into another name (`escred.txt`) or
/// turned into U+FFFD.
#[test]
fn odd_names_are_shown_escaped_never_rewritten() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..300 {
        std::fs::write(dir.path().join(format!("file{i:03}.txt")), "").expect("write");
    }
    for name in [&b"esc\x1b[31mred.txt"[..], b"bad\xffname.txt"] {
        std::fs::write(dir.path().join(std::ffi::OsStr::from_bytes(name)), "").expect("write");
    }
    for argv in [&["ls", "-1"][..], &["find", "."][..]] {
        let shown = digest(dir.path(), argv);
        // ls sorts them first, into the digest's head; find's order is the
        // folder's, where they may be among the lines left out.
        if argv[0] == "ls" {
            assert!(shown.contains("esc\\x1b[31mred.txt"), "{argv:?}:\n{shown}");
            assert!(shown.contains("bad\\xffname.txt"), "{argv:?}:\n{shown}");
        }
        assert!(!shown.contains("escred.txt"), "{argv:?}:\n{shown}");
        assert!(!shown.contains('\u{fffd}'), "{argv:?}:\n{shown}");
    }
}

/// The same names in a search's digest (`grep -rn`, `git grep -n`): every
/// matching file is named as it exists, escaped, and its `--item` address
/// brings back its matches.
#[test]
fn odd_names_in_a_search_are_shown_escaped_never_rewritten() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let lines: String = (1..=30)
        .map(|k| format!("needle {k} with some text to make the match long\n"))
        .collect();
    // Few enough files for each one's first match and `--item` marker to
    // fit the budget.
    for i in 0..12 {
        std::fs::write(dir.path().join(format!("f{i:02}.txt")), &lines).expect("write");
    }
    for name in [&b"esc\x1b[31mred.txt"[..], b"bad\xffname.txt"] {
        std::fs::write(dir.path().join(std::ffi::OsStr::from_bytes(name)), &lines).expect("write");
    }
    let mut searches = vec![vec!["grep", "-rn", "needle", "."]];
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if git(&["init", "-q", "."]) && git(&["add", "."]) {
        // git quotes such names itself ("esc\033[31mred.txt"), unless told
        // not to.
        searches.push(vec![
            "git",
            "-c",
            "core.quotePath=false",
            "grep",
            "-n",
            "needle",
        ]);
    }
    for argv in searches {
        let shown = digest(dir.path(), &argv);
        // git writes control bytes in C quotes itself (quotePath governs
        // only bytes past ASCII): shown as git printed it.
        let esc = if argv[0] == "git" {
            "\"esc\\033[31mred.txt\""
        } else {
            "esc\\x1b[31mred.txt"
        };
        assert!(shown.contains(esc), "{argv:?}:\n{shown}");
        assert!(shown.contains("bad\\xffname.txt"), "{argv:?}:\n{shown}");
        assert!(!shown.contains("escred.txt"), "{argv:?}:\n{shown}");
        assert!(!shown.contains('\u{fffd}'), "{argv:?}:\n{shown}");
        let expand = shown
            .lines()
            .find(|l| l.contains("--item") && l.contains(esc))
            .and_then(|l| l.split("ctx expand ").nth(1))
            .unwrap_or_else(|| panic!("no --item for the name:\n{shown}"));
        let key = expand.split_whitespace().next().expect("key");
        let item = expand
            .split_once("--item ")
            .map(|(_, i)| i.trim_matches('\''))
            .expect("item");
        let out = Command::new(CTX)
            .args(["expand", key, "--item", item])
            .current_dir(dir.path())
            .env("CTX_HOME", dir.path().join(".ctx-home"))
            .output()
            .expect("ctx expand");
        assert!(out.status.success(), "{item}: {out:?}");
        assert_eq!(
            out.stdout
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .count(),
            30
        );
    }
}
