//! A `CTX_HOME` someone else prepared: planted symbolic links, a home that
//! is itself a link, a home others can write to or that another user owns.
//! ctx must never follow, create, overwrite or chmod anything outside what
//! it owns alone; it refuses with one `[ctx]` note and prints the raw
//! output (invariant 8).

use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::Path;
use std::process::Output;

use tempfile::TempDir;

/// Names ctx keeps in its home (the databases, their SQLite side files,
/// the ledger's journal).
const HOME_FILES: &[&str] = &[
    "store.db",
    "store.db-wal",
    "store.db-shm",
    "ledger.db",
    "ledger.db-wal",
    "ledger.journal",
];

const NOBODY: u32 = 65534;

use support::{ctx_cmd, pipe, text};

mod support;

fn notes(stderr: &[u8]) -> Vec<String> {
    text(stderr)
        .lines()
        .filter(|l| l.starts_with("[ctx]"))
        .map(String::from)
        .collect()
}

/// A log far over any digest budget: a digest of it must omit, so the
/// store is opened.
fn big_log() -> Vec<u8> {
    (1..=20_000)
        .map(|i| format!("hostile line {i}: item {} of the batch\n", i * 7919 % 10007))
        .collect::<String>()
        .into_bytes()
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// The raw input back, exit 0, exactly one `[ctx]` note naming `why`.
fn assert_refused(out: &Output, input: &[u8], why: &str) {
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        out.stdout == input,
        "raw output expected, got {} bytes: {}",
        out.stdout.len(),
        text(&out.stderr)
    );
    let notes = notes(&out.stderr);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains(why), "{:?} should say {why:?}", notes[0]);
}

/// A file outside the home, with content and a mode a victim would mind.
struct Victim {
    _dir: TempDir,
    path: std::path::PathBuf,
}

impl Victim {
    fn new() -> Victim {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("precious");
        std::fs::write(&path, b"do not touch\n").expect("write victim");
        std::fs::set_permissions(&path, PermissionsExt::from_mode(0o644)).expect("chmod");
        Victim { _dir: dir, path }
    }

    fn assert_untouched(&self, name: &str) {
        let meta = std::fs::metadata(&self.path).expect("victim still there");
        assert_eq!(
            std::fs::read(&self.path).expect("read victim"),
            b"do not touch\n",
            "{name}: the link's target was written"
        );
        assert_eq!(meta.mode() & 0o7777, 0o644, "{name}: target chmodded");
    }
}

#[test]
fn planted_links_in_the_home_are_never_followed() {
    let input = big_log();
    for name in HOME_FILES {
        let home = tempfile::tempdir().expect("home");
        let victim = Victim::new();
        symlink(&victim.path, home.path().join(name)).expect("plant link");
        let out = pipe(home.path(), &input);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stderr));
        if name.starts_with("store.db") {
            assert_refused(&out, &input, "symbolic link");
        }
        // `ctx gain` folds the journal into the ledger: it too must refuse.
        let gain = ctx_cmd(home.path(), &["gain"]).output().expect("ctx gain");
        assert_ne!(gain.status.code(), Some(101), "{name}: gain panicked");
        victim.assert_untouched(name);
        let link = std::fs::symlink_metadata(home.path().join(name)).expect("link kept");
        assert!(link.file_type().is_symlink(), "{name}: link replaced");
    }
}

#[test]
fn dangling_planted_links_create_nothing() {
    let input = big_log();
    for name in HOME_FILES {
        let home = tempfile::tempdir().expect("home");
        let elsewhere = tempfile::tempdir().expect("elsewhere");
        let target = elsewhere.path().join("created-by-ctx");
        symlink(&target, home.path().join(name)).expect("plant link");
        let out = pipe(home.path(), &input);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stderr));
        let _ = ctx_cmd(home.path(), &["gain"]).output().expect("ctx gain");
        assert!(!target.exists(), "{name}: ctx created the link's target");
    }
}

#[test]
fn a_home_that_is_a_link_is_refused() {
    let input = big_log();
    let parent = tempfile::tempdir().expect("parent");
    let real = parent.path().join("real");
    std::fs::create_dir(&real).expect("mkdir");
    std::fs::set_permissions(&real, PermissionsExt::from_mode(0o700)).expect("chmod");
    let link = parent.path().join("home");
    symlink(&real, &link).expect("link home");
    let out = pipe(&link, &input);
    assert_refused(&out, &input, "symbolic link");
    let left: Vec<_> = std::fs::read_dir(&real).expect("read real").collect();
    assert!(left.is_empty(), "files written through the link: {left:?}");
}

#[test]
fn a_home_others_can_write_to_is_refused_and_left_as_it_is() {
    let input = big_log();
    for mode in [0o770, 0o777, 0o1777] {
        let parent = tempfile::tempdir().expect("parent");
        let shared = parent.path().join("shared");
        std::fs::create_dir(&shared).expect("mkdir");
        std::fs::set_permissions(&shared, PermissionsExt::from_mode(mode)).expect("chmod");
        let out = pipe(&shared, &input);
        assert_refused(&out, &input, "writable by");
        let meta = std::fs::metadata(&shared).expect("stat");
        assert_eq!(
            meta.mode() & 0o7777,
            mode,
            "a shared directory was chmodded"
        );
        let left: Vec<_> = std::fs::read_dir(&shared).expect("read").collect();
        assert!(left.is_empty(), "mode {mode:o}: files written: {left:?}");
    }
}

#[test]
fn a_home_another_user_owns_is_refused_and_left_as_it_is() {
    if !is_root() {
        eprintln!("skipped: only root can give a directory to another user");
        return;
    }
    let input = big_log();
    let parent = tempfile::tempdir().expect("parent");
    let theirs = parent.path().join("theirs");
    std::fs::create_dir(&theirs).expect("mkdir");
    std::fs::set_permissions(&theirs, PermissionsExt::from_mode(0o755)).expect("chmod");
    std::os::unix::fs::chown(&theirs, Some(NOBODY), Some(NOBODY)).expect("chown");
    let out = pipe(&theirs, &input);
    assert_refused(&out, &input, "owned by");
    let meta = std::fs::metadata(&theirs).expect("stat");
    assert_eq!(
        meta.mode() & 0o7777,
        0o755,
        "another user's directory chmodded"
    );
    assert_eq!(meta.uid(), NOBODY);
    let left: Vec<_> = std::fs::read_dir(&theirs).expect("read").collect();
    assert!(left.is_empty(), "files written: {left:?}");
}

#[test]
fn a_file_another_user_owns_in_the_home_is_refused() {
    if !is_root() {
        eprintln!("skipped: only root can give a file to another user");
        return;
    }
    let input = big_log();
    let home = tempfile::tempdir().expect("home");
    let db = home.path().join("store.db");
    std::fs::write(&db, b"").expect("create");
    std::fs::set_permissions(&db, PermissionsExt::from_mode(0o644)).expect("chmod");
    std::os::unix::fs::chown(&db, Some(NOBODY), Some(NOBODY)).expect("chown");
    let out = pipe(home.path(), &input);
    assert_refused(&out, &input, "owned by");
    let meta = std::fs::metadata(&db).expect("stat");
    assert_eq!(meta.mode() & 0o7777, 0o644, "another user's file chmodded");
    assert_eq!(meta.len(), 0, "another user's file written");
}

#[test]
fn loose_files_of_our_own_are_tightened() {
    let input = big_log();
    let home = tempfile::tempdir().expect("home");
    std::fs::set_permissions(home.path(), PermissionsExt::from_mode(0o755)).expect("chmod");
    let journal = home.path().join("ledger.journal");
    std::fs::write(&journal, b"").expect("create journal");
    std::fs::set_permissions(&journal, PermissionsExt::from_mode(0o644)).expect("chmod");
    let out = pipe(home.path(), &input);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(notes(&out.stderr).is_empty(), "{}", text(&out.stderr));
    assert!(out.stdout.len() < input.len(), "a digest expected");
    let mode = |p: &Path| std::fs::metadata(p).expect("stat").mode() & 0o777;
    assert_eq!(
        mode(home.path()),
        0o700,
        "our own readable home is tightened"
    );
    assert_eq!(mode(&journal), 0o600, "ledger.journal tightened");
    assert_eq!(mode(&home.path().join("store.db")), 0o600);
}
