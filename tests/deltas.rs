//! Re-run deltas through the built binary: the same failing command run
//! again under one `CTX_HOME`, its output replayed from real pytest
//! fixtures (`fixtures/pytest/*`), then changed; and every condition under
//! which no delta is made (docs/deltas.md).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use tempfile::TempDir;

/// A fresh CTX_HOME and a project directory whose `out` file the command
/// replays, so that the command line stays the same while its output
/// changes.
struct Project {
    home: TempDir,
    dir: TempDir,
}

const SCRIPT: &str = "cat out; exit 1";

fn fixture(case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/pytest")
        .join(case)
        .join("stdout")
}

impl Project {
    fn new() -> Project {
        Project {
            home: TempDir::new().expect("tempdir"),
            dir: TempDir::new().expect("tempdir"),
        }
    }

    /// `ctx run --digest [FLAGS] -- sh -c SCRIPT` with `out` = the case's
    /// output.
    fn run_with(&self, case: &str, flags: &[&str], env: &[(&str, &str)]) -> String {
        std::fs::copy(fixture(case), self.dir.path().join("out")).expect("fixture");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ctx"));
        cmd.env("CTX_HOME", self.home.path())
            .env_remove("CTX_BUDGET")
            .env_remove("CTX_DELTA")
            .env_remove("CTX_DELTA_HORIZON")
            .env_remove("CTX_NO_LEDGER")
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .args(["run", "--digest"])
            .args(flags)
            .args(["--", "sh", "-c", SCRIPT]);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out: Output = cmd.output().expect("ctx runs");
        assert_eq!(out.status.code(), Some(1), "exit status kept: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn run(&self, case: &str) -> String {
        self.run_with(case, &[], &[])
    }
}

/// The age in the delta line is the one volatile part of a digest: it is
/// replaced before any comparison of whole texts.
fn normalized(digest: &str) -> String {
    let age = regex::Regex::new(r"\d+ (s|min|h \d+ min)( ago)").expect("pattern");
    age.replace_all(digest, "AGE$2").into_owned()
}

fn delta_line(digest: &str) -> Option<String> {
    digest
        .lines()
        .nth(1)
        .filter(|l| l.starts_with("[ctx] since the last run") || l.starts_with("[ctx] same "))
        .map(normalized)
}

/// Every census identity of pytest's short summary is named in the digest:
/// as pytest printed it, or in the compact census (the file once, the test
/// under it, parametrized cases grouped under their test).
fn assert_census_complete(case: &str, digest: &str) {
    let raw = std::fs::read_to_string(fixture(case)).expect("fixture");
    for line in raw.lines() {
        let Some(rest) = line
            .strip_prefix("FAILED ")
            .or_else(|| line.strip_prefix("ERROR "))
        else {
            continue;
        };
        if digest.contains(line) {
            continue;
        }
        let id = rest.split(" - ").next().unwrap_or(rest);
        let (file, test) = id.split_once("::").unwrap_or((id, ""));
        let (name, param) = match test.split_once('[') {
            Some((name, param)) => (name, param.strip_suffix(']').unwrap_or(param)),
            None => (test, ""),
        };
        assert!(
            digest.contains(file) && digest.contains(name) && digest.contains(param),
            "{case}: {id:?} missing from\n{digest}"
        );
    }
}

fn key_of(digest: &str) -> String {
    let footer = digest.lines().last().expect("a footer");
    footer.rsplit(' ').next().expect("a key").to_string()
}

#[test]
fn the_same_failures_again_are_named_without_their_detail() {
    let p = Project::new();
    let first = p.run("default");
    assert!(
        first.contains("[ctx] --- "),
        "first run has detail:\n{first}"
    );
    assert_eq!(delta_line(&first), None, "no delta on a first run");
    let prev = key_of(&first);

    let second = p.run("default");
    assert_eq!(
        delta_line(&second).as_deref(),
        Some(format!(
            "[ctx] same 15 failures as the last run (AGE ago), detail as before: ctx expand {prev} --details"
        ))
        .as_deref()
    );
    // Identities only: no census line repeats a failure's message.
    assert!(!second.contains("KeyError"), "{second}");
    assert!(
        !second.contains("[ctx] --- "),
        "no detail repeated:\n{second}"
    );
    assert!(second.len() < first.len());
    assert_census_complete("default", &second);
    assert!(
        second.starts_with("pytest: FAILED · 12 failed"),
        "header first"
    );
}

#[test]
fn fixed_still_and_new_add_up() {
    let p = Project::new();
    let prev = key_of(&p.run("default"));

    // 15 failures, then the 4 of tests/test_params.py only: 11 fixed.
    let fewer = p.run("param-ids");
    assert_eq!(
        delta_line(&fewer).as_deref(),
        Some("[ctx] since the last run AGE ago: 11 fixed, 4 still failing, 0 new")
    );
    assert!(fewer.contains("\n[ctx] fixed:\n  tests/test_inventory.py: test_restock_new_sku, "));
    assert!(fewer.contains(&format!(
        "\n[ctx] … 1 more fixed: ctx expand {prev} --items\n"
    )));
    assert_census_complete("param-ids", &fewer);

    // `ctx explain` names the run the delta compared with.
    let explain = Command::new(env!("CARGO_BIN_EXE_ctx"))
        .env("CTX_HOME", p.home.path())
        .args(["explain", &key_of(&fewer)])
        .output()
        .expect("ctx explain");
    let explain = String::from_utf8_lossy(&explain.stdout);
    assert!(
        explain.contains(&format!(
            "re-run delta: last delivered against the run of ctx expand {prev} ("
        )),
        "{explain}"
    );

    // Back to all 15, with room for detail: 11 new, in full; the 4 still
    // failing by identity, their earlier detail one command away.
    let prev = key_of(&fewer);
    let more = p.run_with("default", &["--budget", "2500"], &[]);
    assert_eq!(
        delta_line(&more).as_deref(),
        Some("[ctx] since the last run AGE ago: 0 fixed, 4 still failing, 11 new")
    );
    assert!(more.contains(&format!("detail as before: ctx expand {prev} --details")));
    assert!(more.contains("[ctx] --- tests/test_inventory.py::test_restock_new_sku"));
    assert!(
        !more.contains("[ctx] --- tests/test_params.py::"),
        "still-failing detail deferred:\n{more}"
    );
    assert_census_complete("default", &more);

    // Each step's digest, the age normalized (docs/deltas.md).
    insta::assert_snapshot!("fewer_failures", normalized(&fewer));
    insta::assert_snapshot!("more_failures", normalized(&more));
}

#[test]
fn no_delta_when_turned_off_or_not_comparable() {
    let p = Project::new();
    p.run("default");
    let off = p.run_with("default", &["--no-delta"], &[]);
    assert_eq!(delta_line(&off), None, "--no-delta:\n{off}");
    let off = p.run_with("default", &[], &[("CTX_DELTA", "0")]);
    assert_eq!(delta_line(&off), None, "CTX_DELTA=0:\n{off}");
    let old = p.run_with("default", &[], &[("CTX_DELTA_HORIZON", "0s")]);
    assert_eq!(delta_line(&old), None, "past the horizon:\n{old}");
    // Off or not, each run was remembered: the next one compares.
    assert!(delta_line(&p.run("default")).is_some());
}

#[test]
fn another_exit_status_or_directory_is_another_run() {
    let p = Project::new();
    p.run("default");
    // The same output ending with exit 2 (pytest: interrupted) is not
    // compared with a run that ended with 1.
    std::fs::copy(fixture("default"), p.dir.path().join("out")).expect("fixture");
    let out = Command::new(env!("CARGO_BIN_EXE_ctx"))
        .env("CTX_HOME", p.home.path())
        .current_dir(p.dir.path())
        .stdin(Stdio::null())
        .args(["run", "--digest", "--", "sh", "-c", "cat out; exit 2"])
        .output()
        .expect("ctx runs");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(delta_line(&String::from_utf8_lossy(&out.stdout)), None);

    let elsewhere = Project {
        home: TempDir::new().expect("tempdir"),
        dir: TempDir::new().expect("tempdir"),
    };
    // Same home, another directory: no previous run there.
    let other = Project {
        home: p.home,
        dir: elsewhere.dir,
    };
    assert_eq!(delta_line(&other.run("default")), None);
}

#[test]
fn a_broken_or_foreign_last_run_gives_the_normal_digest() {
    let p = Project::new();
    let normal = p.run("default");
    let dir = p.home.path().join("last-runs");
    let files: Vec<_> = std::fs::read_dir(&dir)
        .expect("last-runs kept")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(files.len(), 1);
    std::fs::write(&files[0], b"{\"at_ms\": \"not a number\"").expect("write");
    assert_eq!(p.run("default"), normal, "broken file: normal digest");
    // A ledger directory that is not a directory at all.
    std::fs::remove_dir_all(&dir).expect("remove");
    std::fs::write(&dir, b"not a directory").expect("write");
    assert_eq!(p.run("default"), normal, "unusable folder: normal digest");
}

#[test]
fn a_purged_store_forgets_the_last_runs() {
    let p = Project::new();
    p.run("default");
    let out = Command::new(env!("CARGO_BIN_EXE_ctx"))
        .env("CTX_HOME", p.home.path())
        .args(["store", "purge"])
        .output()
        .expect("ctx store purge");
    assert!(out.status.success(), "{out:?}");
    let second = p.run("default");
    assert_eq!(
        delta_line(&second),
        None,
        "no pointer to a purged record:\n{second}"
    );
    assert!(delta_line(&p.run("default")).is_some(), "remembered again");
}

#[test]
fn another_command_line_or_profile_version_is_not_compared() {
    let p = Project::new();
    let normal = p.run("default");
    // The same output from another command line: another key.
    std::fs::copy(fixture("default"), p.dir.path().join("out")).expect("fixture");
    let out = Command::new(env!("CARGO_BIN_EXE_ctx"))
        .env("CTX_HOME", p.home.path())
        .env_remove("CTX_DELTA")
        .current_dir(p.dir.path())
        .stdin(Stdio::null())
        .args(["run", "--digest", "--", "sh", "-c", "cat ./out; exit 1"])
        .output()
        .expect("ctx runs");
    assert_eq!(delta_line(&String::from_utf8_lossy(&out.stdout)), None);

    // A last run read by another version of the profile.
    let p = Project::new();
    p.run("default");
    let dir = p.home.path().join("last-runs");
    let version = regex::Regex::new(r#""pytest/v\d+""#).expect("pattern");
    for file in std::fs::read_dir(&dir).expect("last-runs kept").flatten() {
        let text = std::fs::read_to_string(file.path()).expect("read");
        assert!(text.contains("\"pytest/v"), "{text}");
        let older = version.replace(&text, "\"pytest/v0\"").into_owned();
        std::fs::write(file.path(), older).expect("write");
    }
    let again = p.run("default");
    assert_eq!(delta_line(&again), None, "{again}");
    assert_eq!(again, normal, "the normal digest");
}
