//! `ctx init` and `ctx hook claude`: the settings file round trip (write
//! in place keeping the file's key order and formatting, idempotent
//! rewrite, uninstall byte-identical), and the hook's answers to payloads
//! shaped like Claude Code's (tests/data/claude-hook/README.md) under the
//! permission rules of the settings files Claude Code reads.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn ctx(args: &[&str], home: &Path) -> Output {
    ctx_in(args, home, None, home)
}

/// `ctx ARGS` run in `dir`, with HOME at `home` and Claude Code's
/// `CLAUDE_CONFIG_DIR` only when given (never the caller's).
fn ctx_in(args: &[&str], home: &Path, config_dir: Option<&Path>, dir: &Path) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ctx"));
    command
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("CTX_HOME", home.join("ctx"))
        .env_remove("CLAUDE_CONFIG_DIR");
    if let Some(config_dir) = config_dir {
        command.env("CLAUDE_CONFIG_DIR", config_dir);
    }
    command.stdin(Stdio::null()).output().expect("ctx")
}

/// `--write` without `--settings` changes the user file the hook reads
/// its rules from: `$CLAUDE_CONFIG_DIR/settings.json` when it is set.
#[test]
fn write_goes_to_claude_config_dir() {
    let home = tempfile::tempdir().expect("tempdir");
    let config = home.path().join("claude-config");
    let out = ctx_in(
        &["init", "claude-code", "--write"],
        home.path(),
        Some(&config),
        home.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = fs::read_to_string(config.join("settings.json")).expect("written there");
    assert!(written.contains("ctx hook claude"), "{written}");
    assert!(!home.path().join(".claude").exists());
    let out = ctx_in(
        &["init", "claude-code", "--uninstall"],
        home.path(),
        Some(&config),
        home.path(),
    );
    assert!(out.status.success());
    assert!(!config.join("settings.json").exists());
    // Unset, it is ~/.claude/settings.json.
    let out = ctx_in(
        &["init", "claude-code", "--write"],
        home.path(),
        None,
        home.path(),
    );
    assert!(out.status.success());
    assert!(home.path().join(".claude/settings.json").is_file());
}

/// A project's MCP file goes to the repository's root, wherever in it
/// `ctx init --mcp --write` runs; outside a repository, to the current
/// folder.
#[test]
fn mcp_write_goes_to_the_repository_root() {
    let home = tempfile::tempdir().expect("tempdir");
    let repo = home.path().join("repo");
    let deep = repo.join("src/deep");
    fs::create_dir_all(&deep).expect("mkdir");
    fs::create_dir_all(repo.join(".git")).expect("mkdir");
    for (agent, name) in [
        ("claude-code", ".mcp.json"),
        ("cursor", ".cursor/mcp.json"),
        ("opencode", "opencode.json"),
    ] {
        let out = ctx_in(
            &["init", agent, "--mcp", "--write"],
            home.path(),
            None,
            &deep,
        );
        assert!(
            out.status.success(),
            "{agent}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(repo.join(name).is_file(), "{agent}: no {name} at the root");
        assert!(
            !deep.join(name).exists(),
            "{agent}: {name} in the subfolder"
        );
        // The printed form names the same file.
        let out = ctx_in(&["init", agent, "--mcp"], home.path(), None, &deep);
        let shown = String::from_utf8_lossy(&out.stdout);
        assert!(
            shown.contains(&repo.join(name).display().to_string()),
            "{shown}"
        );
    }
    let loose = home.path().join("loose");
    fs::create_dir_all(&loose).expect("mkdir");
    if loose.ancestors().any(|d| d.join(".git").exists()) {
        eprintln!("skipped the outside-a-repository half: the temp folder is in one");
        return;
    }
    let out = ctx_in(
        &["init", "claude-code", "--mcp", "--write"],
        home.path(),
        None,
        &loose,
    );
    assert!(out.status.success());
    assert!(loose.join(".mcp.json").is_file());
}

const ORIGINAL: &str = "{\n    \"model\": \"opus\",\n  \"permissions\": {\"allow\": [\"Bash(pytest:*)\"]},\n  \"hooks\": {\"PostToolUse\": []}\n}\n";

#[test]
fn write_then_uninstall_restores_the_file_byte_for_byte() {
    let home = tempfile::tempdir().expect("tempdir");
    let file = home.path().join(".claude/settings.json");
    fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
    fs::write(&file, ORIGINAL).expect("write");

    let out = ctx(&["init", "claude-code", "--write"], home.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = fs::read(&file).expect("read");
    let value: Value = serde_json::from_slice(&written).expect("json");
    assert_eq!(
        value["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "ctx hook claude"
    );
    assert_eq!(value["hooks"]["PreToolUse"][0]["matcher"], "Bash");
    assert_eq!(value["model"], "opus", "the person's settings are kept");

    // Idempotent: a second --write changes nothing.
    assert!(
        ctx(&["init", "claude-code", "--write"], home.path())
            .status
            .success()
    );
    assert_eq!(fs::read(&file).expect("read"), written);

    assert!(
        ctx(&["init", "claude-code", "--uninstall"], home.path())
            .status
            .success()
    );
    assert_eq!(fs::read_to_string(&file).expect("read"), ORIGINAL);
    assert!(
        !home
            .path()
            .join(".claude/settings.json.ctx-backup")
            .exists()
    );
}

#[test]
fn a_file_ctx_created_is_removed_again() {
    let home = tempfile::tempdir().expect("tempdir");
    let file = home.path().join(".claude/settings.json");
    assert!(
        ctx(&["init", "claude-code", "--write"], home.path())
            .status
            .success()
    );
    assert!(file.exists());
    assert!(
        ctx(&["init", "claude-code", "--uninstall"], home.path())
            .status
            .success()
    );
    assert!(!file.exists());
}

#[test]
fn every_agent_prints_its_setup_and_a_short_note() {
    let home = tempfile::tempdir().expect("tempdir");
    for agent in [
        "claude-code",
        "codex",
        "gemini",
        "cursor",
        "opencode",
        "aider",
        "copilot",
    ] {
        let out = ctx(&["init", agent], home.path());
        assert!(out.status.success(), "{agent}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("export PATH="), "{agent}: {text}");
        let note = text.lines().last().expect("note");
        assert!(note.contains("ctx expand"), "{agent}: {note}");
        assert!(
            note.split_whitespace().count() <= 60,
            "{agent}: note too long"
        );
        assert!(!text.to_lowercase().contains("never use"), "{agent}");
    }
    let out = ctx(&["init", "claude-code"], home.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\"PreToolUse\""));
    // It says how the hook treats the person's permission rules.
    assert!(text.contains("allow/ask/deny rules"), "{text}");
    assert!(text.contains("denied command"), "{text}");
    assert!(!ctx(&["init", "nobody"], home.path()).status.success());
}

/// Managed settings live at a fixed system path that tests cannot
/// replace; where an administrator installed some, the hook's answers
/// depend on them and the permission tests cannot hold.
fn managed_settings_present() -> bool {
    let present = [
        "/etc/claude-code",
        "/Library/Application Support/ClaudeCode",
    ]
    .iter()
    .any(|d| Path::new(d).exists());
    if present {
        eprintln!("skipped: this machine has Claude Code managed settings");
    }
    present
}

/// `ctx hook claude` as Claude Code runs it: with `CLAUDE_PROJECT_DIR`
/// set (here to an empty project).
fn hook(payload: &[u8], extra: &[&str]) -> Output {
    let home = tempfile::tempdir().expect("tempdir");
    let project = home.path().join("project");
    fs::create_dir_all(&project).expect("mkdir");
    hook_in(payload, extra, home.path(), Some(&project))
}

/// `ctx hook claude` with HOME at `home` and, if given, Claude Code's
/// `CLAUDE_PROJECT_DIR`.
fn hook_in(payload: &[u8], extra: &[&str], home: &Path, project: Option<&Path>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ctx"));
    command
        .env("HOME", home)
        .env("CTX_HOME", home.join("ctx"))
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CLAUDE_PROJECT_DIR");
    if let Some(project) = project {
        command.env("CLAUDE_PROJECT_DIR", project);
    }
    let mut child = command
        .args(["hook", "claude"])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ctx hook");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(payload)
        .expect("payload");
    child.wait_with_output().expect("wait")
}

#[test]
fn the_hook_answers_documented_payloads() {
    if managed_settings_present() {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/claude-hook");
    let mut seen = 0;
    for entry in fs::read_dir(&dir).expect("payloads") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        seen += 1;
        let payload = fs::read(&path).expect("payload");
        let expected = fs::read_to_string(path.with_extension("expected")).expect("expected");
        let out = hook(&payload, &[]);
        assert_eq!(out.status.code(), Some(0), "{}", path.display());
        if expected.trim() == "-" {
            assert!(
                out.stdout.is_empty(),
                "{}: {}",
                path.display(),
                String::from_utf8_lossy(&out.stdout)
            );
            continue;
        }
        let answer: Value = serde_json::from_slice(&out.stdout).expect("JSON answer");
        let specific = &answer["hookSpecificOutput"];
        assert_eq!(specific["hookEventName"], "PreToolUse");
        assert_eq!(
            specific["updatedInput"]["command"],
            expected.trim(),
            "{}",
            path.display()
        );
        let sent: Value = serde_json::from_slice(&payload).expect("json");
        // The rest of tool_input goes back as it came.
        assert_eq!(
            specific["updatedInput"]["description"],
            sent["tool_input"]["description"]
        );
        let decision = specific["permissionDecision"].as_str().expect("decision");
        assert_ne!(decision, "deny");
        let want = if sent["permission_mode"] == "bypassPermissions" {
            "allow"
        } else {
            "ask"
        };
        assert_eq!(decision, want, "{}", path.display());
    }
    assert!(seen >= 4);
}

#[test]
fn the_hook_never_blocks_on_bad_input() {
    for payload in [&b""[..], b"not json", b"[]", b"{\"tool_name\": \"Bash\"}"] {
        let out = hook(payload, &["--allow"]);
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stdout.is_empty());
    }
    let out = hook(
        br#"{"tool_name":"Bash","tool_input":{"command":"cargo build"}}"#,
        &["--allow"],
    );
    let answer: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "allow");
}

/// The decision the hook prints for `command` run in `cwd`, with no
/// `CLAUDE_PROJECT_DIR`; `None` for no output.
fn decision_in(command: &str, mode: &str, home: &Path, cwd: &Path) -> Option<String> {
    let payload = serde_json::json!({
        "session_id": "s",
        "cwd": cwd,
        "permission_mode": mode,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "d"},
    });
    let out = hook_in(payload.to_string().as_bytes(), &[], home, None);
    assert_eq!(out.status.code(), Some(0));
    if out.stdout.is_empty() {
        return None;
    }
    let answer: Value = serde_json::from_slice(&out.stdout).expect("json");
    answer["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .map(String::from)
}

/// A payload whose `cwd` is a subfolder of the project, with no
/// `CLAUDE_PROJECT_DIR`: the project's rules are found by walking up to
/// the nearest `.claude/` (no further than the repository's root), and
/// where no project can be found the hook never answers `allow`.
#[test]
fn the_hook_finds_the_project_above_a_subfolder_cwd() {
    if managed_settings_present() {
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    let write = |path: &Path, text: &str| {
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(path, text).expect("write");
    };
    // The user allows pytest everywhere; the project denies it.
    write(
        &home.path().join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(pytest:*)", "Bash(cargo test:*)"]}}"#,
    );
    let repo = home.path().join("repo");
    fs::create_dir_all(repo.join(".git")).expect("mkdir");
    write(
        &repo.join(".claude/settings.local.json"),
        r#"{"permissions": {"deny": ["Bash(pytest:*)"]}}"#,
    );
    let sub = repo.join("src/deep");
    fs::create_dir_all(&sub).expect("mkdir");
    let h = home.path();
    assert_eq!(decision_in("pytest -x", "default", h, &sub), None);
    assert_eq!(decision_in("pytest -x", "default", h, &repo), None);
    assert_eq!(
        decision_in("cargo test", "default", h, &sub).as_deref(),
        Some("allow")
    );

    // A package's own .claude/ nearer to cwd does not lift the
    // repository's deny; its ask rules count.
    let pkg = repo.join("packages/web");
    write(
        &pkg.join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(pytest:*)"], "ask": ["Bash(cargo test:*)"]}}"#,
    );
    assert_eq!(decision_in("pytest", "default", h, &pkg), None);
    assert_eq!(
        decision_in("cargo test", "default", h, &pkg.join("src")).as_deref(),
        Some("ask")
    );

    // No repository and no .claude/ up to home: the project is unknown,
    // so its rules are, and the hook gives no answer (never `allow`).
    let loose = h.join("scratch/sub");
    fs::create_dir_all(&loose).expect("mkdir");
    for mode in ["default", "bypassPermissions", "acceptEdits"] {
        assert_eq!(decision_in("pytest", mode, h, &loose), None, "{mode}");
        assert_eq!(decision_in("cargo test", mode, h, &loose), None, "{mode}");
    }
    assert_eq!(
        decision_in("pytest", "default", h, Path::new("/nonexistent/x")),
        None
    );
}

/// The decision the hook prints for `command`, or `None` for no output.
fn decision_for(
    command: &str,
    mode: &str,
    home: &Path,
    project: &Path,
    cwd_only: bool,
) -> Option<String> {
    let payload = serde_json::json!({
        "session_id": "s",
        "cwd": project,
        "permission_mode": mode,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "d"},
    });
    let env_project = (!cwd_only).then_some(project);
    let out = hook_in(payload.to_string().as_bytes(), &[], home, env_project);
    assert_eq!(out.status.code(), Some(0));
    if out.stdout.is_empty() {
        return None;
    }
    let answer: Value = serde_json::from_slice(&out.stdout).expect("json");
    let specific = &answer["hookSpecificOutput"];
    assert_ne!(specific["updatedInput"]["command"], command, "rewritten");
    specific["permissionDecision"].as_str().map(String::from)
}

#[test]
fn the_hook_mirrors_the_permission_rules_of_every_settings_file() {
    if managed_settings_present() {
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    let project = home.path().join("project");
    let write = |path: &Path, text: &str| {
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(path, text).expect("write");
    };
    write(
        &home.path().join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(pytest:*)", "Bash(npm run test:*)"]}}"#,
    );
    write(
        &project.join(".claude/settings.json"),
        r#"{"permissions": {"deny": ["Bash(make deploy:*)", "Bash(cargo test --release:*)"]}}"#,
    );
    write(
        &project.join(".claude/settings.local.json"),
        r#"{"permissions": {"ask": ["Bash(go test:*)"], "allow": ["Bash(cargo test:*)"]}}"#,
    );
    let cases: &[(&str, &str, Option<&str>)] = &[
        // Allowed as typed: no prompt.
        ("pytest -x", "default", Some("allow")),
        ("npm run test", "default", Some("allow")),
        ("cargo test", "default", Some("allow")),
        ("cd sub && pytest", "default", Some("allow")),
        ("timeout 600 pytest", "default", Some("allow")),
        // Every part of a compound command must be allowed.
        ("pytest && cargo test", "default", Some("allow")),
        ("pytest && tsc --noEmit", "default", Some("ask")),
        // Not covered: Claude Code would ask, so does ctx.
        ("tsc --noEmit", "default", Some("ask")),
        ("tsc --noEmit", "acceptEdits", Some("ask")),
        ("tsc --noEmit", "bypassPermissions", Some("allow")),
        // Modes that never ask: the command runs as typed.
        ("tsc --noEmit", "dontAsk", None),
        ("pytest", "dontAsk", Some("allow")),
        // An ask rule asks, even where everything else is allowed.
        ("go test ./...", "default", Some("ask")),
        ("go test ./...", "bypassPermissions", Some("ask")),
        // Denied: left alone, so Claude Code refuses it as before.
        ("cargo test --release", "default", None),
        ("cargo test --release", "bypassPermissions", None),
        ("pytest && cargo test --release", "default", None),
        ("make deploy", "default", None),
    ];
    for cwd_only in [false, true] {
        for (command, mode, want) in cases {
            let got = decision_for(command, mode, home.path(), &project, cwd_only);
            assert_eq!(
                got.as_deref(),
                *want,
                "{command:?} in {mode} (project from {})",
                if cwd_only {
                    "cwd"
                } else {
                    "CLAUDE_PROJECT_DIR"
                }
            );
        }
    }
    // A settings file that cannot be read may hold a deny rule: hands off.
    write(&project.join(".claude/settings.json"), "{ not json");
    assert_eq!(
        decision_for("pytest", "default", home.path(), &project, false),
        None
    );
}

/// Writes `original`, runs `--write`, and returns the new text.
fn written(original: &str) -> (tempfile::TempDir, String) {
    let home = tempfile::tempdir().expect("tempdir");
    let file = home.path().join(".claude/settings.json");
    fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
    fs::write(&file, original).expect("write");
    let out = ctx(&["init", "claude-code", "--write"], home.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = fs::read_to_string(&file).expect("read");
    (home, text)
}

#[test]
fn write_keeps_the_files_key_order_and_formatting() {
    let entry =
        r#"{"hooks": [{"command": "ctx hook claude", "type": "command"}], "matcher": "Bash"}"#;
    // Mixed 4- and 2-space indentation, keys out of order, inline objects.
    let (_home, text) = written(ORIGINAL);
    assert_eq!(
        text,
        format!(
            "{{\n    \"model\": \"opus\",\n  \"permissions\": {{\"allow\": [\"Bash(pytest:*)\"]}},\n  \"hooks\": {{\"PostToolUse\": [], \"PreToolUse\": [{entry}]}},\n    \"env\": {{\n        \"CTX_AGENT\": \"claude-code\"\n    }}\n}}\n"
        )
    );
    // No hooks yet, 4-space indentation, keys in reverse order.
    let original = "{\n    \"zeta\": 1,\n    \"alpha\": {\n        \"x\": true\n    }\n}\n";
    let (_home, text) = written(original);
    let added = "    \"hooks\": {\n        \"PreToolUse\": [\n            {\n                \"hooks\": [\n                    {\n                        \"command\": \"ctx hook claude\",\n                        \"type\": \"command\"\n                    }\n                ],\n                \"matcher\": \"Bash\"\n            }\n        ]\n    },\n    \"env\": {\n        \"CTX_AGENT\": \"claude-code\"\n    }\n";
    assert_eq!(
        text,
        format!(
            "{{\n    \"zeta\": 1,\n    \"alpha\": {{\n        \"x\": true\n    }},\n{added}}}\n"
        )
    );
    // Another PreToolUse hook already there, 2-space indentation, no
    // trailing newline: ours goes after it.
    let original = "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Edit\", \"hooks\": []}\n    ]\n  }\n}";
    let (_home, text) = written(original);
    assert!(
        text.starts_with("{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Edit\", \"hooks\": []},\n      {\n        \"hooks\": ["),
        "{text}"
    );
    assert!(
        text.ends_with("\n    ]\n  },\n  \"env\": {\n    \"CTX_AGENT\": \"claude-code\"\n  }\n}"),
        "{text}"
    );
    // One line, no spaces.
    let (_home, text) = written("{\"model\":\"opus\"}");
    assert_eq!(
        text,
        "{\"model\":\"opus\",\"hooks\":{\"PreToolUse\":[{\"hooks\":[{\"command\":\"ctx hook claude\",\"type\":\"command\"}],\"matcher\":\"Bash\"}]},\"env\":{\"CTX_AGENT\":\"claude-code\"}}"
    );
    // The agent's own CTX_AGENT is kept as it is, and added to an env
    // that already exists.
    let (_home, text) = written("{\"env\":{\"CTX_AGENT\":\"mine\"}}");
    assert!(text.contains("\"env\":{\"CTX_AGENT\":\"mine\"}"), "{text}");
    let (_home, text) = written("{\"env\":{\"A\":\"1\"}}");
    assert!(
        text.contains("\"env\":{\"A\":\"1\",\"CTX_AGENT\":\"claude-code\"}"),
        "{text}"
    );
}

#[test]
fn uninstall_after_an_edit_removes_only_the_hook_in_place() {
    let (home, text) = written(ORIGINAL);
    let file = home.path().join(".claude/settings.json");
    // The person changes something while the hook is installed.
    fs::write(&file, text.replace("opus", "sonnet")).expect("edit");
    let out = ctx(&["init", "claude-code", "--uninstall"], home.path());
    assert!(out.status.success());
    assert_eq!(
        fs::read_to_string(&file).expect("read"),
        ORIGINAL.replace("opus", "sonnet")
    );
}

#[test]
fn the_hook_reads_user_rules_from_claude_config_dir() {
    if managed_settings_present() {
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    let config = home.path().join("claude-config");
    fs::create_dir_all(&config).expect("mkdir");
    fs::write(
        config.join("settings.json"),
        r#"{"permissions": {"allow": ["Bash(pytest:*)"]}}"#,
    )
    .expect("write");
    // A repository of its own: the project is known, and holds no rules.
    let repo = home.path().join("repo");
    fs::create_dir_all(repo.join(".git")).expect("mkdir");
    let payload = serde_json::json!({
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "permission_mode": "default",
        "cwd": repo,
        "tool_input": {"command": "pytest"},
    })
    .to_string();
    let run = |config_dir: Option<&Path>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_ctx"));
        command
            .env("HOME", home.path())
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("CLAUDE_CONFIG_DIR");
        if let Some(dir) = config_dir {
            command.env("CLAUDE_CONFIG_DIR", dir);
        }
        let mut child = command
            .args(["hook", "claude"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("ctx hook");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(payload.as_bytes())
            .expect("payload");
        let out = child.wait_with_output().expect("wait");
        let answer: Value = serde_json::from_slice(&out.stdout).expect("json");
        answer["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .map(String::from)
    };
    assert_eq!(run(Some(&config)).as_deref(), Some("allow"));
    // Without it, ~/.claude/settings.json (absent here) is the user file.
    assert_eq!(run(None).as_deref(), Some("ask"));
}

/// `ctx init AGENT --mcp --write FILE` for the agents that take an MCP
/// server: merged into the file the person has (their content and layout
/// kept), created when missing, and a second run changes nothing.
#[test]
fn mcp_entries_merge_into_each_agents_file() {
    let home = tempfile::tempdir().expect("tempdir");
    let json_before = "{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"docs\": {\"command\": \"docs-mcp\"}\n  }\n}\n";
    let opencode_before =
        "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"model\": \"x/y\"\n}\n";
    let codex_before =
        "# my settings\nmodel = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"  # kept\n";
    let cases = [
        ("claude-code", ".mcp.json", json_before),
        ("cursor", ".cursor/mcp.json", json_before),
        ("gemini", ".gemini/settings.json", json_before),
        ("opencode", "opencode.json", opencode_before),
        ("codex", ".codex/config.toml", codex_before),
    ];
    for (agent, name, before) in cases {
        let file = home.path().join(name);
        fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        fs::write(&file, before).expect("write");
        let settings = file.to_str().expect("utf-8 path");
        let args = ["init", agent, "--mcp", "--write", "--settings", settings];
        let out = ctx(&args, home.path());
        assert!(
            out.status.success(),
            "{agent}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let written = fs::read_to_string(&file).expect("read");
        if agent == "codex" {
            assert!(written.starts_with(codex_before), "{agent}: {written}");
            let value: toml::Table = toml::from_str(&written).expect("toml");
            assert_eq!(value["mcp_servers"]["ctx"]["args"][0].as_str(), Some("mcp"));
            assert_eq!(
                value["mcp_servers"]["docs"]["command"].as_str(),
                Some("docs-mcp")
            );
        } else {
            let value: Value = serde_json::from_str(&written).expect("json");
            let original: Value = serde_json::from_str(before).expect("json");
            for (key, kept) in original.as_object().expect("object") {
                if key != "mcpServers" {
                    assert_eq!(&value[key], kept, "{agent}: {written}");
                }
            }
            if agent == "opencode" {
                let entry = &value["mcp"]["ctx"];
                assert_eq!(entry["type"], "local", "{written}");
                assert_eq!(entry["command"][1], "mcp", "{written}");
            } else {
                assert_eq!(value["mcpServers"]["ctx"]["args"][0], "mcp", "{written}");
                assert_eq!(
                    value["mcpServers"]["docs"]["command"], "docs-mcp",
                    "{written}"
                );
                // The person's lines are still there as they wrote them.
                assert!(
                    written.contains("    \"docs\": {\"command\": \"docs-mcp\"}"),
                    "{written}"
                );
            }
        }
        // Idempotent: the second run leaves the bytes alone.
        assert!(ctx(&args, home.path()).status.success());
        assert_eq!(fs::read_to_string(&file).expect("read"), written, "{agent}");

        // A missing file is created, folder included.
        let fresh = home.path().join("fresh").join(agent).join(name);
        let fresh_arg = fresh.to_str().expect("utf-8 path");
        let out = ctx(
            &["init", agent, "--mcp", "--write", "--settings", fresh_arg],
            home.path(),
        );
        assert!(
            out.status.success(),
            "{agent}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(fs::read_to_string(&fresh).expect("created").contains("mcp"));
    }
}

/// A file ctx cannot merge into safely is never rewritten: JSON with
/// comments, or a `ctx` server the person set up differently.
#[test]
fn mcp_write_never_clobbers_what_it_cannot_merge() {
    let home = tempfile::tempdir().expect("tempdir");
    let cases = [
        (
            "cursor",
            "mcp.json",
            "{\n  // my servers\n  \"mcpServers\": {}\n}\n",
            "not plain JSON",
        ),
        (
            "claude-code",
            ".mcp.json",
            "{\"mcpServers\": {\"ctx\": {\"command\": \"ctx\", \"args\": [\"mcp\", \"--timeout\", \"60\"]}}}",
            "set up differently",
        ),
        (
            "codex",
            "config.toml",
            "[mcp_servers.ctx]\ncommand = \"other\"\n",
            "set up differently",
        ),
    ];
    for (agent, name, before, why) in cases {
        let file = home.path().join(agent).join(name);
        fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        fs::write(&file, before).expect("write");
        let settings = file.to_str().expect("utf-8 path");
        let out = ctx(
            &["init", agent, "--mcp", "--write", "--settings", settings],
            home.path(),
        );
        assert_eq!(out.status.code(), Some(1), "{agent}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains(why), "{agent}: {said}");
        assert!(said.contains("Add this entry by hand"), "{agent}: {said}");
        assert_eq!(fs::read_to_string(&file).expect("read"), before, "{agent}");
    }
}

#[test]
fn mcp_entry_is_printed_for_agents_that_take_one() {
    let home = tempfile::tempdir().expect("tempdir");
    let out = ctx(&["init", "codex", "--mcp"], home.path());
    assert!(out.status.success());
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("[mcp_servers.ctx]"), "{shown}");
    assert!(shown.contains("args = [\"mcp\"]"), "{shown}");
    assert!(shown.contains("codex mcp add ctx -- "), "{shown}");
    let out = ctx(&["init", "aider", "--mcp"], home.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("takes no MCP server entry"));
}

/// `--write` sets `CTX_AGENT` where each agent's configuration sets the
/// environment of the commands it runs (the shims' identification rule),
/// and `--uninstall` takes it out again.
#[test]
fn write_sets_ctx_agent_for_the_agents_commands() {
    let home = tempfile::tempdir().expect("tempdir");
    let out = Command::new(env!("CARGO_BIN_EXE_ctx"))
        .args(["init", "codex", "--write"])
        .env("HOME", home.path())
        .env_remove("CODEX_HOME")
        .stdin(Stdio::null())
        .output()
        .expect("ctx");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = home.path().join(".codex/config.toml");
    let value: toml::Table =
        toml::from_str(&fs::read_to_string(&file).expect("config.toml")).expect("toml");
    assert_eq!(
        value["shell_environment_policy"]["set"]["CTX_AGENT"].as_str(),
        Some("codex")
    );
    let out = ctx(&["init", "codex", "--uninstall"], home.path());
    assert!(out.status.success());
    assert_eq!(fs::read_to_string(&file).expect("config.toml").trim(), "");
    // Claude Code: the settings' env, beside the hook.
    let out = ctx(&["init", "claude-code", "--write"], home.path());
    assert!(out.status.success());
    let settings: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(home.path().join(".claude/settings.json")).expect("settings"),
    )
    .expect("json");
    assert_eq!(settings["env"]["CTX_AGENT"], "claude-code");
    // Agents recognised by their process have nothing to write.
    let out = ctx(&["init", "gemini", "--write"], home.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("recognised by its process"));
}
