//! The hook's entry in a Claude Code settings file, and the `CTX_AGENT`
//! its tool shells are started with (`env`, which Claude Code applies to
//! the commands it runs; docs/shims.md): `--write` adds both,
//! `--uninstall` takes them out. Both edit the text in place (splice.rs), so
//! the person's key order and formatting stay as they were; the result is
//! parsed again and must equal the intended value, or the file is written
//! pretty-printed instead.

use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{HOOK_COMMAND, hook_entry};
use crate::shim::audience::AGENT_VARIABLE;

/// The value `--write` gives `CTX_AGENT`; `--uninstall` removes only this.
pub const AGENT_NAME: &str = "claude-code";
use crate::agents::splice::{self, Style};

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
    let bytes = match crate::bounded::read(file, crate::bounded::SETTINGS_BYTES) {
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

/// Adds the hook and `env.CTX_AGENT` to `file` after backing it up;
/// idempotent. A `CTX_AGENT` already set to another value is left alone.
pub fn write(file: &Path) -> Result<Outcome, SettingsError> {
    let existing = read_settings(file)?;
    let mut value = existing
        .as_ref()
        .map_or_else(|| json!({}), |(_, v)| v.clone());
    let root = value.as_object_mut().expect("checked object");
    let not = |what: &str| SettingsError::NotJson(file.to_path_buf(), what.into());
    let pre = root.entry("hooks").or_insert_with(|| json!({}));
    let pre = pre
        .as_object_mut()
        .ok_or_else(|| not("\"hooks\" is not an object"))?;
    let list = pre.entry("PreToolUse").or_insert_with(|| json!([]));
    let list = list
        .as_array_mut()
        .ok_or_else(|| not("\"hooks.PreToolUse\" is not a list"))?;
    let needs_hook = !list.iter().any(is_ours);
    if needs_hook {
        list.push(hook_entry());
    }
    let env = root.entry("env").or_insert_with(|| json!({}));
    let env = env
        .as_object_mut()
        .ok_or_else(|| not("\"env\" is not an object"))?;
    let needs_env = !env.contains_key(AGENT_VARIABLE);
    if needs_env {
        env.insert(AGENT_VARIABLE.into(), json!(AGENT_NAME));
    }
    if !needs_hook && !needs_env {
        return Ok(Outcome::AlreadyThere);
    }
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
    let text = match &existing {
        Some((bytes, _)) => spliced_write(bytes, &value).unwrap_or_else(|| pretty(&value)),
        None => pretty(&value),
    };
    std::fs::write(file, text).map_err(io_err(file))?;
    Ok(Outcome::Written { backup })
}

fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// The original text with the hook entry and `env.CTX_AGENT` added in
/// place, if that gives exactly `want`.
fn spliced_write(bytes: &[u8], want: &Value) -> Option<String> {
    let text = std::str::from_utf8(bytes).ok()?;
    let with_hook = spliced_hook(text)?;
    let out = spliced_env(&with_hook)?;
    same(&out, want).then_some(out)
}

/// `text` with the hook entry added, when it lacks one.
fn spliced_hook(text: &str) -> Option<String> {
    let root = splice::parse(text)?;
    let style = Style::of(text, &root);
    let has_hook = serde_json::from_str::<Value>(text)
        .ok()?
        .pointer("/hooks/PreToolUse")
        .and_then(Value::as_array)
        .is_some_and(|l| l.iter().any(is_ours));
    if has_hook {
        return Some(text.to_string());
    }
    Some(match root.member("hooks") {
        None => {
            let hooks = json!({ "PreToolUse": [hook_entry()] });
            splice::insert_member(text, &root, "hooks", &hooks, &style)
        }
        Some(hooks) => match hooks.value.member("PreToolUse") {
            None => splice::insert_member(
                text,
                &hooks.value,
                "PreToolUse",
                &json!([hook_entry()]),
                &style,
            ),
            Some(list) => splice::append_element(text, &list.value, &hook_entry(), &style),
        },
    })
}

/// `text` with `env.CTX_AGENT` added, when `env` lacks it.
fn spliced_env(text: &str) -> Option<String> {
    let root = splice::parse(text)?;
    let style = Style::of(text, &root);
    Some(match root.member("env") {
        None => splice::insert_member(
            text,
            &root,
            "env",
            &json!({ AGENT_VARIABLE: AGENT_NAME }),
            &style,
        ),
        Some(env) if env.value.member(AGENT_VARIABLE).is_some() => text.to_string(),
        Some(env) => {
            splice::insert_member(text, &env.value, AGENT_VARIABLE, &json!(AGENT_NAME), &style)
        }
    })
}

/// Removes `env.CTX_AGENT` when it is ours, and `env` when that empties it.
fn remove_agent_variable(value: &mut Value) -> bool {
    let Some(root) = value.as_object_mut() else {
        return false;
    };
    let Some(env) = root.get_mut("env").and_then(Value::as_object_mut) else {
        return false;
    };
    if env.get(AGENT_VARIABLE).and_then(Value::as_str) != Some(AGENT_NAME) {
        return false;
    }
    env.remove(AGENT_VARIABLE);
    if env.is_empty() {
        root.remove("env");
    }
    true
}

fn same(text: &str, want: &Value) -> bool {
    serde_json::from_str::<Value>(text).is_ok_and(|v| &v == want)
}

/// The original text with ctx's entries (and the containers they leave
/// empty) removed in place, if that gives exactly `want`.
fn spliced_uninstall(bytes: &[u8], want: &Value) -> Option<String> {
    let mut text = std::str::from_utf8(bytes).ok()?.to_string();
    // One entry at a time, from the last, re-reading the spans each time.
    loop {
        let root = splice::parse(&text)?;
        let Some(list) = root
            .member("hooks")
            .and_then(|h| h.value.member("PreToolUse"))
            .map(|l| &l.value)
        else {
            break;
        };
        let splice::Kind::Array(items) = &list.kind else {
            return None;
        };
        let values: Vec<Value> = items
            .iter()
            .map(|n| serde_json::from_str(&text[n.start..n.end]).unwrap_or(Value::Null))
            .collect();
        let Some(k) = values.iter().rposition(is_ours) else {
            break;
        };
        text = splice::remove_element(&text, list, k);
    }
    let root = splice::parse(&text)?;
    if let Some(env) = root.member("env")
        && let Some(var) = env.value.member(AGENT_VARIABLE)
        && serde_json::from_str::<Value>(&text[var.value.start..var.value.end]).ok()
            == Some(json!(AGENT_NAME))
    {
        text = splice::remove_member(&text, &env.value, AGENT_VARIABLE);
        let root = splice::parse(&text)?;
        if let Some(env) = root.member("env")
            && matches!(&env.value.kind, splice::Kind::Object(m) if m.is_empty())
        {
            text = splice::remove_member(&text, &root, "env");
        }
    }
    let root = splice::parse(&text)?;
    if let Some(hooks) = root.member("hooks") {
        let empty = |n: &splice::Node| match &n.kind {
            splice::Kind::Array(items) => items.is_empty(),
            splice::Kind::Object(members) => members.is_empty(),
            splice::Kind::Scalar => false,
        };
        if hooks
            .value
            .member("PreToolUse")
            .is_some_and(|l| empty(&l.value))
        {
            text = splice::remove_member(&text, &hooks.value, "PreToolUse");
            let root = splice::parse(&text)?;
            if root.member("hooks").is_some_and(|h| empty(&h.value)) {
                text = splice::remove_member(&text, &root, "hooks");
            }
        }
    }
    same(&text, want).then_some(text)
}

/// Removes the hook: restores the backup byte for byte when nothing else
/// changed since `write`, else removes only ctx's entry.
pub fn uninstall(file: &Path) -> Result<Outcome, SettingsError> {
    let Some((bytes, mut value)) = read_settings(file)? else {
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
    let found = remove_agent_variable(&mut value) | found;
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
    let text = spliced_uninstall(&bytes, &value).unwrap_or_else(|| pretty(&value));
    std::fs::write(file, text).map_err(io_err(file))?;
    Ok(Outcome::Removed {
        backup_kept: backup.exists().then_some(backup),
    })
}
