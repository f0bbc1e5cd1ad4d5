//! The settings files Claude Code takes permission rules from, and their
//! rules pooled into one `Rules` (docs/agents.md, "Permissions").
//!
//! Precedence, highest first: managed (the administrator's
//! managed-settings.json and its managed-settings.d/ drop-ins), local
//! (`<project>/.claude/settings.local.json`), project
//! (`<project>/.claude/settings.json`), user
//! (`$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`).
//! For permission rules the order does not change the outcome: every
//! file's rules are pooled and evaluated deny, ask, allow; the one
//! exception is a managed `allowManagedPermissionRulesOnly: true`, which
//! leaves only the managed allow and ask rules.
//!
//! The project is `$CLAUDE_PROJECT_DIR` (Claude Code sets it for hooks),
//! else found from the payload's `cwd` (project.rs); the deny and ask
//! rules of any other `.claude/` enclosing `cwd` count too.

use std::io;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::permissions::Rules;
use super::project::Project;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Managed,
    Local,
    Project,
    /// Another `.claude/` enclosing the payload's `cwd`: its deny and ask
    /// rules only (project.rs).
    Enclosing,
    User,
}

/// The settings files to read, highest precedence first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sources {
    pub files: Vec<(Scope, PathBuf)>,
}

/// A settings file that exists but cannot be read as JSON: its rules are
/// unknown, so the hook leaves the command alone.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {why}")]
pub struct Unreadable {
    pub path: PathBuf,
    pub why: String,
}

/// Where the administrator's managed settings live on this system.
fn managed_dir() -> PathBuf {
    if cfg!(target_os = "macos") {
        PathBuf::from("/Library/Application Support/ClaudeCode")
    } else {
        PathBuf::from("/etc/claude-code")
    }
}

impl Sources {
    /// The files Claude Code reads for a session in `project`.
    pub fn for_project(project: &Project) -> Sources {
        let user = user_dir();
        let mut sources = Sources::with(&managed_dir(), Some(&project.dir), user.as_deref());
        for dir in &project.enclosing {
            let dir = dir.join(".claude");
            sources
                .files
                .push((Scope::Enclosing, dir.join("settings.local.json")));
            sources
                .files
                .push((Scope::Enclosing, dir.join("settings.json")));
        }
        sources
    }

    /// The files under an explicit managed dir, project and user dir.
    pub fn with(managed: &Path, project: Option<&Path>, user_dir: Option<&Path>) -> Sources {
        let mut files = vec![(Scope::Managed, managed.join("managed-settings.json"))];
        // Drop-ins apply in name order, each over the last.
        if let Ok(entries) = std::fs::read_dir(managed.join("managed-settings.d")) {
            let mut dropins: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "json"))
                .collect();
            dropins.sort();
            files.extend(dropins.into_iter().rev().map(|p| (Scope::Managed, p)));
        }
        if let Some(project) = project {
            let dir = project.join(".claude");
            files.push((Scope::Local, dir.join("settings.local.json")));
            files.push((Scope::Project, dir.join("settings.json")));
        }
        if let Some(user) = user_dir {
            files.push((Scope::User, user.join("settings.json")));
        }
        Sources { files }
    }

    /// Every file's Bash rules, pooled. Missing files count as empty.
    pub fn rules(&self) -> Result<Rules, Unreadable> {
        let mut read = Vec::new();
        for (scope, path) in &self.files {
            if let Some(value) = read_json(path)? {
                read.push((*scope, value));
            }
        }
        let managed_only = read.iter().any(|(scope, v)| {
            *scope == Scope::Managed
                && v.get("allowManagedPermissionRulesOnly") == Some(&Value::Bool(true))
        });
        let mut rules = Rules::default();
        for (scope, value) in &read {
            if *scope == Scope::Enclosing && !managed_only {
                // Narrowing only: a rule here may deny or ask, never allow.
                let mut other = Rules::default();
                other.add(value);
                rules.deny.extend(other.deny);
                rules.ask.extend(other.ask);
            } else if managed_only && *scope != Scope::Managed {
                // Only the deny rules still count: leaving a command alone
                // is always safe.
                let mut other = Rules::default();
                other.add(value);
                rules.deny.extend(other.deny);
            } else {
                rules.add(value);
            }
        }
        Ok(rules)
    }
}

/// Claude Code's user folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub fn user_dir() -> Option<PathBuf> {
    std::env::var_os("CLAUDE_CONFIG_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| dirs::home_dir().map(|h| h.join(".claude")))
}

/// The user's settings file: `$CLAUDE_CONFIG_DIR/settings.json`, else
/// `~/.claude/settings.json`, the file the hook reads its user rules from
/// and `ctx init claude-code --write` adds the hook to.
pub fn user_settings() -> Option<PathBuf> {
    user_dir().map(|d| d.join("settings.json"))
}

fn read_json(path: &Path) -> Result<Option<Value>, Unreadable> {
    let unreadable = |why: String| Unreadable {
        path: path.to_path_buf(),
        why,
    };
    let bytes = match crate::bounded::read(path, crate::bounded::SETTINGS_BYTES) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.kind() == io::ErrorKind::NotADirectory => return Ok(None),
        Err(e) => return Err(unreadable(e.to_string())),
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| unreadable(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::claude::permissions::Verdict;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    #[test]
    fn pooled_from_every_scope() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (managed, project, user) = (
            tmp.path().join("managed"),
            tmp.path().join("project"),
            tmp.path().join("user"),
        );
        write(
            &user.join("settings.json"),
            r#"{"permissions":{"allow":["Bash(pytest:*)"]}}"#,
        );
        write(
            &project.join(".claude/settings.json"),
            r#"{"permissions":{"ask":["Bash(cargo publish:*)"]}}"#,
        );
        write(
            &project.join(".claude/settings.local.json"),
            r#"{"permissions":{"allow":["Bash(cargo test:*)"]}}"#,
        );
        write(
            &managed.join("managed-settings.d/10-ops.json"),
            r#"{"permissions":{"deny":["Bash(make deploy:*)"]}}"#,
        );
        let sources = Sources::with(&managed, Some(&project), Some(&user));
        let rules = sources.rules().expect("rules");
        assert_eq!(rules.verdict("pytest && cargo test"), Verdict::Allow);
        assert_eq!(rules.verdict("cargo publish"), Verdict::Ask);
        assert_eq!(rules.verdict("make deploy"), Verdict::Deny);

        write(
            &managed.join("managed-settings.json"),
            r#"{"allowManagedPermissionRulesOnly": true}"#,
        );
        let rules = sources.rules().expect("rules");
        assert_eq!(rules.verdict("pytest"), Verdict::Unlisted);
        assert_eq!(rules.verdict("make deploy"), Verdict::Deny);

        write(&user.join("settings.json"), "{ not json");
        assert!(sources.rules().is_err());
    }
}
