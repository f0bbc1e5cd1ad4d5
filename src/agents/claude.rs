//! Claude Code: the PreToolUse hook (`ctx hook claude`) and its entry in
//! settings.json (`ctx init claude-code --write` / `--uninstall`).
//!
//! The protocol (docs/agents.md cites its sources): the hook gets one JSON
//! object on stdin with `hook_event_name`, `tool_name`, `tool_input`
//! (`command` for Bash), `permission_mode`, … and may print
//! `{"hookSpecificOutput": {"hookEventName": "PreToolUse",
//! "permissionDecision": …, "permissionDecisionReason": …,
//! "updatedInput": {…}}}`. ctx only ever rewrites a command it knows; it
//! never denies one, and prints nothing for anything else.

use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The command Claude Code runs for the hook.
pub const HOOK_COMMAND: &str = "ctx hook claude";
pub const SETTINGS_HINT: &str = "~/.claude/settings.json";

/// How the hook answers for a rewritten command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// The person sees the rewritten command and approves it: ctx never
    /// grants a permission the original command did not have.
    Ask,
    /// Run without a prompt (opt-in: the person chose to let ctx-rewritten
    /// commands through).
    Allow,
}

/// The hook's answer to one payload, or `None` to let the call through
/// untouched (not Bash, nothing to rewrite, plan mode, unreadable input).
pub fn answer(payload: &str, decision: Decision) -> Option<Value> {
    let payload: Value = serde_json::from_str(payload).ok()?;
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
    let rewritten = crate::rewrite::rewrite(command)?;
    let mut updated = input.clone();
    updated.insert("command".into(), Value::String(rewritten));
    // Where every command is allowed anyway, allowing this one grants nothing.
    let decision = if mode == Some("bypassPermissions") {
        Decision::Allow
    } else {
        decision
    };
    let decision = match decision {
        Decision::Ask => "ask",
        Decision::Allow => "allow",
    };
    Some(json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": "ctx: output digested (ctx run); `ctx expand` brings back anything omitted",
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

/// The default settings file: `$HOME/.claude/settings.json`.
pub fn default_settings() -> Option<PathBuf> {
    dirs::home_dir().map(|h| h.join(".claude").join("settings.json"))
}

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("{0}: {1}")]
    Io(PathBuf, io::Error),
    #[error("{0}: not a JSON object: {1}")]
    NotJson(PathBuf, String),
}

/// What `write` / `uninstall` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Written {
        backup: Option<PathBuf>,
    },
    AlreadyThere,
    Restored,
    /// Our entry removed, but the file changed since: the backup is kept.
    Removed {
        backup_kept: Option<PathBuf>,
    },
    NothingToRemove,
}

fn backup_of(file: &Path) -> PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(".ctx-backup");
    file.with_file_name(name)
}

/// Marks that there was no settings file before ctx wrote one.
fn absent_marker(file: &Path) -> PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(".ctx-absent");
    file.with_file_name(name)
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> SettingsError + '_ {
    move |e| SettingsError::Io(path.to_path_buf(), e)
}

fn read_settings(file: &Path) -> Result<Option<(Vec<u8>, Value)>, SettingsError> {
    let bytes = match std::fs::read(file) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(SettingsError::Io(file.to_path_buf(), e)),
    };
    let value: Value = if bytes.iter().all(u8::is_ascii_whitespace) {
        json!({})
    } else {
        serde_json::from_slice(&bytes)
            .map_err(|e| SettingsError::NotJson(file.to_path_buf(), e.to_string()))?
    };
    if !value.is_object() {
        return Err(SettingsError::NotJson(
            file.to_path_buf(),
            "top level is not an object".into(),
        ));
    }
    Ok(Some((bytes, value)))
}

fn is_ours(entry: &Value) -> bool {
    entry
        .get("hooks")
        .and_then(Value::as_array)
        .is_some_and(|hooks| {
            hooks
                .iter()
                .any(|h| h.get("command").and_then(Value::as_str) == Some(HOOK_COMMAND))
        })
}

/// Adds the hook to `file` after backing it up; idempotent.
pub fn write(file: &Path) -> Result<Outcome, SettingsError> {
    let existing = read_settings(file)?;
    let mut value = existing
        .as_ref()
        .map_or_else(|| json!({}), |(_, v)| v.clone());
    let pre = value
        .as_object_mut()
        .expect("checked object")
        .entry("hooks")
        .or_insert_with(|| json!({}));
    let Some(pre) = pre.as_object_mut() else {
        return Err(SettingsError::NotJson(
            file.to_path_buf(),
            "\"hooks\" is not an object".into(),
        ));
    };
    let list = pre.entry("PreToolUse").or_insert_with(|| json!([]));
    let Some(list) = list.as_array_mut() else {
        return Err(SettingsError::NotJson(
            file.to_path_buf(),
            "\"hooks.PreToolUse\" is not a list".into(),
        ));
    };
    if list.iter().any(is_ours) {
        return Ok(Outcome::AlreadyThere);
    }
    list.push(hook_entry());
    let backup = match &existing {
        Some((bytes, _)) => {
            let backup = backup_of(file);
            std::fs::write(&backup, bytes).map_err(io_err(&backup))?;
            Some(backup)
        }
        None => {
            if let Some(dir) = file.parent() {
                std::fs::create_dir_all(dir).map_err(io_err(dir))?;
            }
            let marker = absent_marker(file);
            std::fs::write(&marker, b"").map_err(io_err(&marker))?;
            None
        }
    };
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    std::fs::write(file, text).map_err(io_err(file))?;
    Ok(Outcome::Written { backup })
}

/// Removes the hook: restores the backup byte for byte when nothing else
/// changed since `write`, else removes only ctx's entry.
pub fn uninstall(file: &Path) -> Result<Outcome, SettingsError> {
    let Some((_, mut value)) = read_settings(file)? else {
        return Ok(Outcome::NothingToRemove);
    };
    let mut found = false;
    if let Some(hooks) = value.get_mut("hooks").and_then(Value::as_object_mut) {
        if let Some(list) = hooks.get_mut("PreToolUse").and_then(Value::as_array_mut) {
            let before = list.len();
            list.retain(|e| !is_ours(e));
            found = list.len() != before;
            if list.is_empty() {
                hooks.remove("PreToolUse");
            }
        }
        if hooks.is_empty() {
            value
                .as_object_mut()
                .expect("checked object")
                .remove("hooks");
        }
    }
    if !found {
        return Ok(Outcome::NothingToRemove);
    }
    let (backup, marker) = (backup_of(file), absent_marker(file));
    if marker.exists() && value.as_object().is_some_and(|o| o.is_empty()) {
        std::fs::remove_file(file).map_err(io_err(file))?;
        std::fs::remove_file(&marker).map_err(io_err(&marker))?;
        return Ok(Outcome::Restored);
    }
    if let Ok(Some((_, original))) = read_settings(&backup)
        && original == value
    {
        std::fs::rename(&backup, file).map_err(io_err(file))?;
        return Ok(Outcome::Restored);
    }
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    std::fs::write(file, text).map_err(io_err(file))?;
    Ok(Outcome::Removed {
        backup_kept: backup.exists().then_some(backup),
    })
}
