//! `CTX_AGENT` for the commands Codex CLI runs: its `config.toml` table
//! `[shell_environment_policy]` takes a `set` of variables added to the
//! environment of every command it starts, not to its own, which is what
//! the shims' identification rule asks of a harness (docs/shims.md).
//! `--write` adds `CTX_AGENT = "codex"` there in place (comments and order
//! kept, by `toml_edit`); `--uninstall` takes out only that value.

use std::io;
use std::path::{Path, PathBuf};

use crate::shim::audience::AGENT_VARIABLE;

/// The value `--write` gives `CTX_AGENT`; `--uninstall` removes only this.
pub const AGENT_NAME: &str = "codex";

const POLICY: &str = "shell_environment_policy";

#[derive(Debug, thiserror::Error)]
pub enum CodexEnvError {
    #[error("{0}: {1}")]
    Io(PathBuf, io::Error),
    #[error("{0}: {1}")]
    Invalid(PathBuf, String),
}

/// What `write` / `uninstall` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Written,
    AlreadyThere,
    /// `CTX_AGENT` is set there to another value: left alone.
    SetOtherwise,
    Removed,
    NothingToRemove,
}

fn read(file: &Path) -> Result<Option<String>, CodexEnvError> {
    match crate::bounded::read(file, crate::bounded::SETTINGS_BYTES) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| CodexEnvError::Invalid(file.to_path_buf(), "not UTF-8".into())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CodexEnvError::Io(file.to_path_buf(), e)),
    }
}

fn parse(file: &Path, text: &str) -> Result<toml_edit::DocumentMut, CodexEnvError> {
    text.parse()
        .map_err(|e| CodexEnvError::Invalid(file.to_path_buf(), format!("not TOML ({e})")))
}

fn save(file: &Path, text: &str) -> Result<(), CodexEnvError> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| CodexEnvError::Io(dir.to_path_buf(), e))?;
    }
    std::fs::write(file, text).map_err(|e| CodexEnvError::Io(file.to_path_buf(), e))
}

/// Adds `CTX_AGENT = "codex"` to `[shell_environment_policy] set`.
pub fn write(file: &Path) -> Result<Outcome, CodexEnvError> {
    let text = read(file)?.unwrap_or_default();
    let mut doc = parse(file, &text)?;
    let invalid = |what: &str| CodexEnvError::Invalid(file.to_path_buf(), what.into());
    let policy = doc
        .entry(POLICY)
        .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()))
        .as_table_like_mut()
        .ok_or_else(|| invalid("shell_environment_policy is not a table"))?;
    let set = policy
        .entry("set")
        .or_insert_with(|| toml_edit::value(toml_edit::InlineTable::new()))
        .as_table_like_mut()
        .ok_or_else(|| invalid("shell_environment_policy.set is not a table"))?;
    match set.get(AGENT_VARIABLE).and_then(|v| v.as_str()) {
        Some(AGENT_NAME) => return Ok(Outcome::AlreadyThere),
        Some(_) => return Ok(Outcome::SetOtherwise),
        None => {}
    }
    set.insert(AGENT_VARIABLE, toml_edit::value(AGENT_NAME));
    save(file, &doc.to_string())?;
    Ok(Outcome::Written)
}

/// Removes `CTX_AGENT = "codex"`, and the tables that leaves empty.
pub fn uninstall(file: &Path) -> Result<Outcome, CodexEnvError> {
    let Some(text) = read(file)? else {
        return Ok(Outcome::NothingToRemove);
    };
    let mut doc = parse(file, &text)?;
    let Some(policy) = doc.get_mut(POLICY).and_then(|p| p.as_table_like_mut()) else {
        return Ok(Outcome::NothingToRemove);
    };
    let Some(set) = policy.get_mut("set").and_then(|s| s.as_table_like_mut()) else {
        return Ok(Outcome::NothingToRemove);
    };
    if set.get(AGENT_VARIABLE).and_then(|v| v.as_str()) != Some(AGENT_NAME) {
        return Ok(Outcome::NothingToRemove);
    }
    set.remove(AGENT_VARIABLE);
    if set.is_empty() {
        policy.remove("set");
    }
    if policy.is_empty() {
        doc.remove(POLICY);
    }
    save(file, &doc.to_string())?;
    Ok(Outcome::Removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_and_removes_only_its_variable_keeping_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        let original = "# mine\nmodel = \"o3\"\n\n[shell_environment_policy]\ninherit = \"core\"\n";
        std::fs::write(&file, original).unwrap();
        assert_eq!(write(&file).unwrap(), Outcome::Written);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.starts_with("# mine\nmodel = \"o3\"\n"), "{text}");
        let value: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(
            value["shell_environment_policy"]["set"]["CTX_AGENT"].as_str(),
            Some("codex")
        );
        assert_eq!(
            value["shell_environment_policy"]["inherit"].as_str(),
            Some("core")
        );
        assert_eq!(write(&file).unwrap(), Outcome::AlreadyThere);
        assert_eq!(uninstall(&file).unwrap(), Outcome::Removed);
        let back: toml::Table = toml::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(back, toml::from_str::<toml::Table>(original).unwrap());
        assert_eq!(uninstall(&file).unwrap(), Outcome::NothingToRemove);
    }

    #[test]
    fn a_value_of_the_persons_own_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(
            &file,
            "[shell_environment_policy]\nset = { CTX_AGENT = \"x\" }\n",
        )
        .unwrap();
        assert_eq!(write(&file).unwrap(), Outcome::SetOtherwise);
        assert_eq!(uninstall(&file).unwrap(), Outcome::NothingToRemove);
        // A file that is not there is created.
        let new = dir.path().join("sub/config.toml");
        assert_eq!(write(&new).unwrap(), Outcome::Written);
        let value: toml::Table = toml::from_str(&std::fs::read_to_string(&new).unwrap()).unwrap();
        assert_eq!(
            value["shell_environment_policy"]["set"]["CTX_AGENT"].as_str(),
            Some("codex")
        );
        // Not TOML: an error, the file untouched.
        std::fs::write(&file, "not = = toml").unwrap();
        assert!(write(&file).is_err());
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "not = = toml");
    }
}
