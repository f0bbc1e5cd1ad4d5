//! Claude Code: the PreToolUse hook (`ctx hook claude`) and its entry in
//! settings.json (`ctx init claude-code --write` / `--uninstall`).
//!
//! The protocol (docs/agents.md cites its sources): the hook gets one JSON
//! object on stdin with `hook_event_name`, `tool_name`, `tool_input`
//! (`command` for Bash), `permission_mode`, `cwd`, … and may print
//! `{"hookSpecificOutput": {"hookEventName": "PreToolUse",
//! "permissionDecision": …, "permissionDecisionReason": …,
//! "updatedInput": {…}}}`. ctx only rewrites a command worth digesting,
//! answers with the decision Claude Code would have made for the original
//! command (permissions.rs, sources.rs), never denies one, and prints
//! nothing for anything else. It also hands the payload's `session_id` to
//! every `ctx read` in the command (session.rs), for re-read stubs.

pub mod permissions;
pub mod project;
pub mod session;
mod settings;
pub mod sources;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use permissions::{Rules, Verdict};
pub use settings::{Outcome, SettingsError, uninstall, write};
use sources::Sources;

/// The command Claude Code runs for the hook.
pub const HOOK_COMMAND: &str = "ctx hook claude";
pub const SETTINGS_HINT: &str = "$CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json";

/// What the hook does for a rewritten command that no allow rule covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unlisted {
    /// What Claude Code would do: ask, in the modes where it asks.
    Mirror,
    /// Let it run without a prompt (`ctx hook claude --allow`: the person
    /// chose to let every rewritten command through).
    Allow,
}

/// The hook's answer to one payload, reading the permission rules of the
/// settings files Claude Code reads; `None` to let the call through
/// untouched.
pub fn answer(payload: &str, unlisted: Unlisted) -> Option<Value> {
    let parsed: Value = serde_json::from_str(payload).ok()?;
    let env_dir = std::env::var_os("CLAUDE_PROJECT_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from);
    let cwd = parsed.get("cwd").and_then(Value::as_str).map(Path::new);
    // The settings files are read only for a command ctx would rewrite.
    // A project that cannot be found may hold a deny rule ctx cannot see:
    // no rules, so no answer, and Claude Code decides on the command as
    // typed. Never `allow` on a guess.
    let rules = || {
        let home = dirs::home_dir();
        let project = project::locate(env_dir.as_deref(), cwd, home.as_deref())?;
        Sources::for_project(&project).rules().ok()
    };
    answer_with(&parsed, rules, unlisted)
}

/// `answer` with the rules from `rules` (`None`: unknown, so hands off):
/// `None` for another tool or event, plan mode, a command ctx leaves
/// alone, a command a deny rule covers, and a mode where Claude Code would
/// not have asked.
pub fn answer_with(
    payload: &Value,
    rules: impl FnOnce() -> Option<Rules>,
    unlisted: Unlisted,
) -> Option<Value> {
    if payload
        .get("hook_event_name")
        .and_then(Value::as_str)
        .is_some_and(|e| e != "PreToolUse")
    {
        return None;
    }
    if payload.get("tool_name").and_then(Value::as_str) != Some("Bash") {
        return None;
    }
    let mode = payload.get("permission_mode").and_then(Value::as_str);
    if mode == Some("plan") {
        return None;
    }
    let input = payload.get("tool_input")?.as_object()?;
    let command = input.get("command")?.as_str()?;
    let digested = crate::rewrite::rewrite(command);
    let session = payload
        .get("session_id")
        .and_then(Value::as_str)
        .and_then(|id| session::with_session(digested.as_deref().unwrap_or(command), id));
    let reason = match (&digested, &session) {
        (Some(_), _) => "ctx: output digested (ctx run); `ctx expand` brings back anything omitted",
        (None, Some(_)) => "ctx: ctx read told the agent's session, for its re-read stubs",
        (None, None) => return None,
    };
    let rewritten = session.or(digested)?;
    let rules = rules()?;
    let (before, after) = (rules.verdict(command), rules.verdict(&rewritten));
    let decision = match (before, after) {
        // Denied stays denied: Claude Code refuses the original command.
        (Verdict::Deny, _) | (_, Verdict::Deny) => return None,
        (Verdict::Ask, _) | (_, Verdict::Ask) => "ask",
        // Allowed as typed, or the rewritten form was allowed ("don't ask
        // again" on an earlier prompt).
        (Verdict::Allow, _) | (_, Verdict::Allow) => "allow",
        (Verdict::Unlisted, Verdict::Unlisted) => match (mode, unlisted) {
            (Some("bypassPermissions"), _) | (_, Unlisted::Allow) => "allow",
            (None | Some("default" | "acceptEdits"), Unlisted::Mirror) => "ask",
            // dontAsk refuses what no rule allows; auto mode lets its own
            // classifier decide. Neither would have asked the person, so
            // ctx does not either: the command runs as it was typed.
            _ => return None,
        },
    };
    let mut updated = input.clone();
    updated.insert("command".into(), Value::String(rewritten));
    Some(json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
            "updatedInput": Value::Object(updated),
        }
    }))
}

/// The settings.json fragment the hook needs.
pub fn hook_entry() -> Value {
    json!({
        "matcher": "Bash",
        "hooks": [{ "type": "command", "command": HOOK_COMMAND }]
    })
}

pub fn hook_entry_pretty() -> String {
    let fragment = json!({ "hooks": { "PreToolUse": [hook_entry()] } });
    serde_json::to_string_pretty(&fragment).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(command: &str, mode: &str) -> Value {
        json!({
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "permission_mode": mode,
            "tool_input": {"command": command, "description": "d"},
        })
    }

    fn decision(rules: &Rules, command: &str, mode: &str) -> Option<String> {
        answer_with(
            &payload(command, mode),
            || Some(rules.clone()),
            Unlisted::Mirror,
        )
        .map(|a| {
            a["hookSpecificOutput"]["permissionDecision"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
    }

    fn rules(allow: &[&str], ask: &[&str], deny: &[&str]) -> Rules {
        let mut r = Rules::default();
        r.add(&json!({"permissions": {"allow": allow, "ask": ask, "deny": deny}}));
        r
    }

    #[test]
    fn ctx_read_gets_the_payloads_session_and_keeps_its_permission() {
        let r = rules(&["Bash(ctx read:*)"], &[], &[]);
        let mut p = payload("ctx read src/x.rs", "default");
        p["session_id"] = json!("abc-123");
        let a = answer_with(&p, || Some(r.clone()), Unlisted::Mirror).expect("an answer");
        let out = &a["hookSpecificOutput"];
        assert_eq!(
            out["updatedInput"]["command"],
            "ctx read --agent-session=abc-123 src/x.rs"
        );
        assert_eq!(out["permissionDecision"], "allow");
        // Rewritten for digesting and told the session, in one line.
        p["tool_input"]["command"] = json!("cargo test && ctx read a.rs");
        let a = answer_with(&p, || Some(r.clone()), Unlisted::Mirror).expect("an answer");
        assert_eq!(
            a["hookSpecificOutput"]["updatedInput"]["command"],
            "ctx run -- cargo test && ctx read --agent-session=abc-123 a.rs"
        );
        // No session in the payload: a ctx read is left alone.
        let p = payload("ctx read src/x.rs", "default");
        assert!(answer_with(&p, || Some(r.clone()), Unlisted::Mirror).is_none());
    }

    #[test]
    fn mirrors_the_original_commands_permission() {
        let r = rules(
            &["Bash(pytest:*)", "Bash(ctx run -- cargo test:*)"],
            &["Bash(npm test:*)"],
            &["Bash(make:*)"],
        );
        let cases = [
            ("pytest -x", "default", Some("allow")),
            ("cd app && pytest", "default", Some("allow")),
            ("cargo test", "default", Some("allow")),
            ("go test ./...", "default", Some("ask")),
            ("go test ./...", "acceptEdits", Some("ask")),
            ("go test ./...", "bypassPermissions", Some("allow")),
            ("go test ./...", "dontAsk", None),
            ("go test ./...", "auto", None),
            ("npm test", "default", Some("ask")),
            ("npm test", "bypassPermissions", Some("ask")),
            ("make test", "default", None),
            ("make test", "bypassPermissions", None),
            ("pytest && make", "default", None),
            ("pytest && go test ./...", "default", Some("ask")),
            ("pytest", "plan", None),
        ];
        for (command, mode, want) in cases {
            assert_eq!(
                decision(&r, command, mode).as_deref(),
                want,
                "{command} in {mode}"
            );
        }
    }
}
