//! Commands ctx cannot start: 127 and 126 with a shell's words, and the
//! cases a shell still runs.

use super::*;

#[test]
fn launch_failures_use_the_shells_status_and_words() {
    let env = Env::new();
    let plain = env.path("plain");
    fs::write(&plain, "echo hi\n").expect("write");
    fs::set_permissions(&plain, fs::Permissions::from_mode(0o644)).expect("chmod");
    let garbage = env.path("garbage");
    fs::write(&garbage, b"\x7fELF\0\0\0\0not really\n").expect("write");
    fs::set_permissions(&garbage, fs::Permissions::from_mode(0o755)).expect("chmod");
    let (plain, garbage) = (plain.display().to_string(), garbage.display().to_string());
    let dir = env.scratch.path().display().to_string();
    let cases: [(&str, i32, String); 5] = [
        (
            "ctx-no-such-command-x",
            127,
            "ctx-no-such-command-x: command not found".into(),
        ),
        (
            "./no-such-file",
            127,
            "./no-such-file: No such file or directory".into(),
        ),
        (&plain, 126, format!("{plain}: Permission denied")),
        (&dir, 126, format!("{dir}: Is a directory")),
        (
            &garbage,
            126,
            format!("{garbage}: cannot execute binary file: Exec format error"),
        ),
    ];
    for (cmd, status, message) in cases {
        let out = env
            .ctx_run(&[cmd])
            .stdin(Stdio::null())
            .output()
            .expect("ctx runs");
        assert_eq!(out.status.code(), Some(status), "{cmd}: {out:?}");
        assert_eq!(text(&out.stderr), format!("ctx: {message}\n"), "{cmd}");
        assert_eq!(text(&out.stdout), "", "{cmd}");
    }
}

#[test]
fn path_search_reports_a_non_executable_match_as_permission_denied() {
    let env = Env::new();
    let found = env.path("tool");
    fs::write(&found, "echo hi\n").expect("write");
    let out = env
        .ctx_run(&["tool"])
        .env("PATH", env.scratch.path())
        .stdin(Stdio::null())
        .output()
        .expect("ctx runs");
    assert_eq!(out.status.code(), Some(126), "{out:?}");
    assert_eq!(
        text(&out.stderr),
        format!("ctx: {}: Permission denied\n", found.display())
    );
}

#[test]
fn a_script_without_shebang_runs_with_sh() {
    let env = Env::new();
    let script = env.path("script");
    fs::write(&script, "echo \"ran $1\"; exit 3\n").expect("write");
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).expect("chmod");
    let out = env
        .ctx_run(&["./script", "arg"])
        .stdin(Stdio::null())
        .output()
        .expect("ctx runs");
    assert_eq!(text(&out.stdout), "ran arg\n");
    assert_eq!(out.status.code(), Some(3), "{out:?}");
}

#[test]
fn an_unknown_family_costs_neither_the_command_nor_its_status() {
    let env = Env::new();
    let out = env
        .ctx(&[
            "run",
            "--as",
            "no-such-family",
            "--",
            "sh",
            "-c",
            "touch ran; exit 4",
        ])
        .stdin(Stdio::null())
        .output()
        .expect("ctx runs");
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    assert!(text(&out.stderr).contains("no-such-family"), "{out:?}");
    assert!(
        Path::new(&env.path("ran")).exists(),
        "the command did not run"
    );
}
