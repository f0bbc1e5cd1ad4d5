//! `ctx init` and `ctx hook claude`: the settings file round trip (write,
//! idempotent rewrite, uninstall byte-identical) and the hook's answers to
//! payloads shaped like Claude Code's (tests/data/claude-hook/README.md).

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn ctx(args: &[&str], home: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ctx"))
        .args(args)
        .env("HOME", home)
        .env("CTX_HOME", home.join("ctx"))
        .stdin(Stdio::null())
        .output()
        .expect("ctx")
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
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"PreToolUse\""));
    assert!(!ctx(&["init", "nobody"], home.path()).status.success());
}

fn hook(payload: &[u8], extra: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ctx"))
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
