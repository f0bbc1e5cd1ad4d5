//! The command line explains itself: every verb and every flag has help
//! text, and the budget help says what budget is used.

use clap::CommandFactory;
use ctx::cli::Cli;

fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
    for arg in cmd.get_arguments() {
        let id = arg.get_id().as_str();
        if id == "help" || id == "version" {
            continue;
        }
        if arg.get_help().is_none() && arg.get_long_help().is_none() {
            missing.push(format!("{path} {id}"));
        }
    }
    for sub in cmd.get_subcommands() {
        let sub_path = format!("{path} {}", sub.get_name());
        if sub.get_about().is_none() && sub.get_long_about().is_none() {
            missing.push(format!("{sub_path} (no about)"));
        }
        walk(sub, &sub_path, missing);
    }
}

#[test]
fn every_verb_and_flag_has_help() {
    let cmd = Cli::command();
    let mut missing = Vec::new();
    walk(&cmd, "ctx", &mut missing);
    assert!(missing.is_empty(), "without help text: {missing:#?}");
}

fn ctx(home: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_ctx"))
        .args(args)
        .env("CTX_HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env_remove("CTX_STORE")
        .env_remove("CTX_STORE_MIN_AGE")
        .env_remove("CTX_STORE_MAX_BYTES")
        .env_remove("CTX_BUDGET")
        .output()
        .expect("run ctx")
}

/// Each column of `ctx profiles` starts at the same offset on every row.
#[test]
fn profiles_columns_are_aligned() {
    let home = tempfile::tempdir().unwrap();
    let out = ctx(home.path(), &["profiles"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert!(rows.len() > 10, "{text}");
    // Where the order number ends, the contract (a filter's file, for a
    // declarative filter) and the state begin.
    let starts = |needle: &str| -> Vec<usize> {
        rows.iter()
            .map(|r| {
                let r2 = r.chars().collect::<String>();
                r2.find(needle)
                    .or_else(|| {
                        (needle == "contracts/")
                            .then(|| r2.find(" filters/").map(|b| b + 1))
                            .flatten()
                    })
                    .map(|b| r[..b].chars().count())
            })
            .map(|c| c.unwrap_or(usize::MAX))
            .collect()
    };
    for needle in [". ", "contracts/", "["] {
        let s = starts(needle);
        assert!(
            s.iter().all(|&c| c == s[0]),
            "{needle:?} at {s:?} in\n{text}"
        );
    }
    // The commands column: the first word after the state's `]`.
    let commands: Vec<usize> = rows
        .iter()
        .map(|r| {
            let end = r.rfind(']').unwrap() + 1;
            let pad = r[end..].len() - r[end..].trim_start().len();
            r[..end + pad].chars().count()
        })
        .collect();
    assert!(
        commands.iter().all(|&c| c == commands[0]),
        "{commands:?} in\n{text}"
    );
}

#[test]
fn store_stats_says_durations_in_words() {
    let home = tempfile::tempdir().unwrap();
    let out = ctx(home.path(), &["store", "stats"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("min age       1 day"), "{text}");
}

/// The budget help names what is used when no budget is given: each
/// family contract's target, the floor, and the share of the raw output.
#[test]
fn budget_help_states_the_budget_used() {
    let home = tempfile::tempdir().unwrap();
    let pytest = ctx::contract::for_family("pytest").unwrap();
    let text = ctx::contract::for_family("text").unwrap();
    for verb in ["pipe", "digest", "run"] {
        let out = ctx(home.path(), &[verb, "--help"]);
        let help = String::from_utf8(out.stdout).unwrap().replace('\n', " ");
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        // Families sharing a target are listed together: `… for tap, pytest, …`.
        let pytest_target = regex::Regex::new(&format!(
            r"{} tokens for ([a-z_]+, )*pytest,",
            ctx::render::count(pytest.rendering.target())
        ))
        .unwrap();
        assert!(
            pytest_target.is_match(&help),
            "ctx {verb} --help lacks pytest's target:\n{help}"
        );
        for needle in [
            format!("{}%", ctx::plan::MAX_SHARE_PERCENT),
            "floor".to_string(),
            "CTX_BUDGET".to_string(),
            "config.toml".to_string(),
        ] {
            assert!(
                help.contains(&needle),
                "ctx {verb} --help lacks {needle:?}:\n{help}"
            );
        }
        // Families sharing a target are listed together: `… for search, text`.
        let text_target = regex::Regex::new(&format!(
            r"{} tokens for ([a-z_]+, )*text\b",
            ctx::render::count(text.rendering.target())
        ))
        .unwrap();
        assert!(
            text_target.is_match(&help),
            "ctx {verb} --help lacks text's target:\n{help}"
        );
        assert!(!help.contains("contract's ceiling"), "{help}");
    }
}

/// ctx's own verbs end like `cat` when their reader has gone (`ctx
/// profiles | head -1`): killed by SIGPIPE, as a shell expects of a
/// filter, never a panic message about a broken pipe.
#[test]
fn own_output_to_a_reader_that_left_ends_quietly() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    let home = tempfile::tempdir().expect("home");
    for args in [
        &["profiles"][..],
        &["completions", "bash"],
        &["filters", "list"],
        &["config"],
    ] {
        // The reader has left before ctx starts: a pipe whose read end is
        // already closed (dropping a piped stdout after spawning would race
        // with a ctx fast enough to fit its whole output in the pipe).
        let (reader, writer) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).expect("pipe");
        drop(reader);
        let child = Command::new(env!("CARGO_BIN_EXE_ctx"))
            .args(args)
            .env("CTX_HOME", home.path())
            .stdin(Stdio::null())
            .stdout(Stdio::from(writer))
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn ctx");
        let out = child.wait_with_output().expect("wait");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "ctx {args:?}: {err}");
        assert_eq!(
            out.status.signal(),
            Some(13),
            "ctx {args:?}: {:?} {err}",
            out.status
        );
    }
}

/// A reason is said once: `cannot read F: No such file or directory`, not
/// the same words again from the error's source.
#[test]
fn a_missing_file_is_reported_once() {
    let home = tempfile::tempdir().unwrap();
    let missing = home.path().join("nowhere.rs");
    let out = ctx(home.path(), &["read", missing.to_str().unwrap()]);
    assert_ne!(out.status.code(), Some(0));
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        said.matches("No such file or directory").count(),
        1,
        "{said}"
    );
}

/// Lines ctx writes around kept lines and whole outputs agree with a count
/// of one: `the last line`, `1 line, within the budget`, never `1 lines`.
#[test]
fn one_line_is_said_as_one_line() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let home = tempfile::tempdir().unwrap();
    let log = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/cargo_build/build-flood-one-error/stderr"
    );
    let tail = ctx(home.path(), &["run", "--keep-tail", "1", "--", "cat", log]);
    let tail = String::from_utf8_lossy(&tail.stdout);
    assert!(
        tail.contains("--- the last line, as `tail -1` prints it:"),
        "{tail}"
    );
    let head = ctx(home.path(), &["run", "--keep-head", "1", "--", "cat", log]);
    let head = String::from_utf8_lossy(&head.stdout);
    assert!(
        head.contains("--- the first line is above, as `head -1` prints it; the digest:"),
        "{head}"
    );
    let mut pipe = Command::new(env!("CARGO_BIN_EXE_ctx"))
        .args(["pipe", "--format", "markdown"])
        .env("CTX_HOME", home.path())
        .env_remove("CTX_STORE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    pipe.stdin.take().unwrap().write_all(b"hi\n").unwrap();
    let md = pipe.wait_with_output().unwrap();
    let md = String::from_utf8_lossy(&md.stdout);
    assert!(md.contains("1 line, within the budget"), "{md}");
}

/// `ctx store check` of one record says `checked 1 record`.
#[test]
fn store_check_of_one_record_agrees() {
    let home = tempfile::tempdir().unwrap();
    let log = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/cargo_build/build-flood-one-error/stderr"
    );
    let digest = ctx(home.path(), &["digest", log]);
    assert!(digest.status.success());
    let check = ctx(home.path(), &["store", "check"]);
    let said = String::from_utf8_lossy(&check.stdout);
    assert!(said.starts_with("checked 1 record ("), "{said}");
}
