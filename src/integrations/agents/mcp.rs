//! The MCP server entry for the agents that take one (`ctx init AGENT
//! --mcp`): where each agent reads it, what it looks like, and adding it
//! to that file without disturbing anything else in it.
//!
//! Writing merges: the entry is added to the file's text in place (JSON:
//! splice.rs; TOML: toml_edit), every other byte stays, and the result is
//! parsed again and must hold exactly the old content plus the entry. A
//! file ctx cannot edit that way (JSON with comments, a `ctx` server that
//! is already there but different) is left untouched, with the entry to
//! add by hand. Running it twice changes nothing the second time.

use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::Agent;
use super::splice::{self, Style};

/// The name the entry has in every agent's server list.
pub const SERVER_NAME: &str = "ctx";

/// Codex's per-call limit for MCP tools is 60 s unless the entry says
/// otherwise; ctx_run's default timeout is 600 s, plus the grace to stop.
const CODEX_TOOL_TIMEOUT_SECS: i64 = 660;

/// How each agent's file holds MCP servers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// `{"mcpServers": {"ctx": {"command": …, "args": ["mcp"]}}}`
    /// (Claude Code with `"type": "stdio"`, Cursor, Gemini CLI).
    McpServers { typed: bool },
    /// OpenCode: `{"mcp": {"ctx": {"type": "local", "command": […], "enabled": true}}}`.
    OpenCode,
    /// Codex: `[mcp_servers.ctx]` in config.toml.
    CodexToml,
}

fn shape(agent: Agent) -> Option<Shape> {
    Some(match agent {
        Agent::ClaudeCode => Shape::McpServers { typed: true },
        Agent::Cursor | Agent::Gemini => Shape::McpServers { typed: false },
        Agent::OpenCode => Shape::OpenCode,
        Agent::Codex => Shape::CodexToml,
        Agent::Aider | Agent::Copilot => return None,
    })
}

/// True for the agents that take an MCP server entry.
pub fn supported(agent: Agent) -> bool {
    shape(agent).is_some()
}

/// The file `--write` changes by default: the project's for Claude Code
/// (`.mcp.json`), Cursor (`.cursor/mcp.json`) and OpenCode
/// (`opencode.json`), the user's for Codex (`$CODEX_HOME/config.toml`,
/// `~/.codex/config.toml`) and Gemini CLI (`~/.gemini/settings.json`).
pub fn default_file(agent: Agent, project: &Path) -> Option<PathBuf> {
    let home = dirs::home_dir();
    Some(match agent {
        Agent::ClaudeCode => project.join(".mcp.json"),
        Agent::Cursor => project.join(".cursor").join("mcp.json"),
        Agent::OpenCode => project.join("opencode.json"),
        Agent::Gemini => home?.join(".gemini").join("settings.json"),
        Agent::Codex => match std::env::var_os("CODEX_HOME").filter(|h| !h.is_empty()) {
            Some(codex_home) => PathBuf::from(codex_home).join("config.toml"),
            None => home?.join(".codex").join("config.toml"),
        },
        Agent::Aider | Agent::Copilot => return None,
    })
}

/// How to name ctx in the entry: `ctx` when that is what PATH finds,
/// else this binary's full path (an agent starts the server with its own
/// PATH, and a bare name that finds nothing, or another ctx, would fail).
pub fn program(ctx: &Path) -> String {
    let on_path = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("ctx"))
            .find(|candidate| candidate.is_file())
    });
    match on_path {
        Some(found) if crate::shim::locate::is_ctx(&found, ctx) => "ctx".into(),
        _ => ctx.display().to_string(),
    }
}

/// The entry's value in a JSON file.
fn json_entry(shape: Shape, program: &str) -> Value {
    match shape {
        Shape::McpServers { typed: true } => {
            json!({"type": "stdio", "command": program, "args": ["mcp"]})
        }
        Shape::OpenCode => json!({"type": "local", "command": [program, "mcp"], "enabled": true}),
        Shape::McpServers { typed: false } | Shape::CodexToml => {
            json!({"command": program, "args": ["mcp"]})
        }
    }
}

fn container_key(shape: Shape) -> &'static str {
    match shape {
        Shape::OpenCode => "mcp",
        Shape::McpServers { .. } | Shape::CodexToml => "mcpServers",
    }
}

fn codex_table(program: &str) -> toml_edit::Table {
    let mut table = toml_edit::Table::new();
    table.insert("command", toml_edit::value(program));
    let mut args = toml_edit::Array::new();
    args.push("mcp");
    table.insert("args", toml_edit::value(args));
    table.insert(
        "tool_timeout_sec",
        toml_edit::value(CODEX_TOOL_TIMEOUT_SECS),
    );
    table
}

/// The entry as it would stand alone in the agent's file, for printing.
pub fn snippet(agent: Agent, program: &str) -> Option<String> {
    let shape = shape(agent)?;
    Some(match shape {
        Shape::CodexToml => {
            let mut doc = toml_edit::DocumentMut::new();
            let mut servers = toml_edit::Table::new();
            servers.set_implicit(true);
            servers.insert(SERVER_NAME, toml_edit::Item::Table(codex_table(program)));
            doc.insert("mcp_servers", toml_edit::Item::Table(servers));
            doc.to_string()
        }
        _ => {
            let mut servers = serde_json::Map::new();
            servers.insert(SERVER_NAME.into(), json_entry(shape, program));
            let mut root = serde_json::Map::new();
            if shape == Shape::OpenCode {
                root.insert("$schema".into(), json!("https://opencode.ai/config.json"));
            }
            root.insert(container_key(shape).into(), Value::Object(servers));
            let mut text = serde_json::to_string_pretty(&Value::Object(root)).unwrap_or_default();
            text.push('\n');
            text
        }
    })
}

/// The agent's own command that adds the entry, where it has one.
pub fn add_command(agent: Agent, program: &str) -> Option<String> {
    let program = crate::words::shell_quote(program);
    match agent {
        Agent::ClaudeCode => Some(format!(
            "claude mcp add --scope user {SERVER_NAME} -- {program} mcp"
        )),
        Agent::Codex => Some(format!("codex mcp add {SERVER_NAME} -- {program} mcp")),
        Agent::Gemini => Some(format!(
            "gemini mcp add --scope user {SERVER_NAME} {program} mcp"
        )),
        _ => None,
    }
}

#[derive(Debug, thiserror::Error)]
pub enum McpConfigError {
    #[error("{0}: {1}")]
    Io(PathBuf, io::Error),
    #[error("{agent} takes no MCP server entry")]
    Unsupported { agent: &'static str },
    /// The file could not be merged into safely; it was not touched.
    #[error("{file}: {why}; it was left as it is. Add this entry by hand:\n{snippet}")]
    Refused {
        file: PathBuf,
        why: String,
        snippet: String,
    },
}

/// What `write` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Created,
    Added,
    AlreadyThere,
}

/// Adds ctx's entry to `file` (created, with its folder, when missing).
pub fn write(agent: Agent, file: &Path, program: &str) -> Result<Outcome, McpConfigError> {
    let Some(shape) = shape(agent) else {
        return Err(McpConfigError::Unsupported {
            agent: agent.title(),
        });
    };
    let refuse = |why: String| McpConfigError::Refused {
        file: file.to_path_buf(),
        why,
        snippet: snippet(agent, program).unwrap_or_default(),
    };
    let existing = match crate::bounded::read(file, crate::bounded::SETTINGS_BYTES) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(McpConfigError::Io(file.to_path_buf(), e)),
    };
    let text = match &existing {
        None => snippet(agent, program).unwrap_or_default(),
        Some(bytes) => {
            let Ok(text) = std::str::from_utf8(bytes) else {
                return Err(refuse("not UTF-8 text".into()));
            };
            let merged = match shape {
                Shape::CodexToml => merge_toml(text, program),
                _ => merge_json(text, shape, program),
            };
            match merged.map_err(refuse)? {
                None => return Ok(Outcome::AlreadyThere),
                Some(merged) => merged,
            }
        }
    };
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| McpConfigError::Io(dir.to_path_buf(), e))?;
    }
    replace(file, text.as_bytes()).map_err(|e| McpConfigError::Io(file.to_path_buf(), e))?;
    Ok(if existing.is_some() {
        Outcome::Added
    } else {
        Outcome::Created
    })
}

/// Writes `file` whole or not at all: a temporary file beside it, then a
/// rename, keeping the old file's permissions.
fn replace(file: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let dir = file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    temp.write_all(bytes)?;
    if let Ok(meta) = std::fs::metadata(file) {
        temp.as_file().set_permissions(meta.permissions())?;
    }
    temp.persist(file).map_err(|e| e.error)?;
    Ok(())
}

/// The JSON text with the entry added, `None` when it is already there,
/// or why it cannot be merged.
fn merge_json(text: &str, shape: Shape, program: &str) -> Result<Option<String>, String> {
    let entry = json_entry(shape, program);
    let key = container_key(shape);
    if text.trim().is_empty() {
        let mut servers = serde_json::Map::new();
        servers.insert(SERVER_NAME.into(), entry);
        let value = json!({ key: Value::Object(servers) });
        let mut out = serde_json::to_string_pretty(&value).unwrap_or_default();
        out.push('\n');
        return Ok(Some(out));
    }
    let mut want: Value = serde_json::from_str(text)
        .map_err(|e| format!("not plain JSON ({e}): comments or trailing commas?"))?;
    let Some(root) = want.as_object_mut() else {
        return Err("the top level is not a JSON object".into());
    };
    let servers = root.entry(key).or_insert_with(|| json!({}));
    let Some(servers) = servers.as_object_mut() else {
        return Err(format!("\"{key}\" is not an object"));
    };
    if let Some(present) = servers.get(SERVER_NAME) {
        if *present == entry {
            return Ok(None);
        }
        return Err(format!(
            "it already has an MCP server named \"{SERVER_NAME}\", set up differently"
        ));
    }
    servers.insert(SERVER_NAME.into(), entry.clone());
    let tree = splice::parse(text).ok_or("its layout could not be read")?;
    let style = Style::of(text, &tree);
    let out = match tree.member(key) {
        None => {
            let fresh = json!({ SERVER_NAME: entry });
            splice::insert_member(text, &tree, key, &fresh, &style)
        }
        Some(servers) => splice::insert_member(text, &servers.value, SERVER_NAME, &entry, &style),
    };
    match serde_json::from_str::<Value>(&out) {
        Ok(merged) if merged == want => Ok(Some(out)),
        _ => Err("the entry could not be added in place".into()),
    }
}

/// The TOML text with `[mcp_servers.ctx]` added, `None` when it is already
/// there, or why it cannot be merged.
fn merge_toml(text: &str, program: &str) -> Result<Option<String>, String> {
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e| format!("not TOML ({e})"))?;
    let before: toml::Table = toml::from_str(text).map_err(|e| format!("not TOML ({e})"))?;
    let servers = doc.entry("mcp_servers").or_insert_with(|| {
        let mut table = toml_edit::Table::new();
        table.set_implicit(true);
        toml_edit::Item::Table(table)
    });
    let Some(servers) = servers.as_table_like_mut() else {
        return Err("mcp_servers is not a table".into());
    };
    let wanted = codex_table(program);
    if let Some(present) = servers.get(SERVER_NAME) {
        let same = present.as_table_like().is_some_and(|t| {
            t.get("command").and_then(|c| c.as_str()) == Some(program)
                && t.get("args")
                    .and_then(|a| a.as_array())
                    .is_some_and(|a| a.iter().map(|v| v.as_str()).eq([Some("mcp")]))
        });
        if same {
            return Ok(None);
        }
        return Err(format!(
            "it already has an MCP server named \"{SERVER_NAME}\", set up differently"
        ));
    }
    servers.insert(SERVER_NAME, toml_edit::Item::Table(wanted));
    let out = doc.to_string();
    // Everything that was there is still there, and the entry was added.
    let after: toml::Table = toml::from_str(&out).map_err(|e| format!("merge failed ({e})"))?;
    let kept = before
        .iter()
        .all(|(k, v)| match (k.as_str(), after.get(k)) {
            ("mcp_servers", Some(toml::Value::Table(now))) => v
                .as_table()
                .is_some_and(|old| old.iter().all(|(name, s)| now.get(name) == Some(s))),
            (_, now) => now == Some(v),
        });
    let added = after
        .get("mcp_servers")
        .and_then(|s| s.get(SERVER_NAME))
        .and_then(|e| e.get("command"))
        .and_then(toml::Value::as_str)
        == Some(program);
    if kept && added {
        Ok(Some(out))
    } else {
        Err("the entry could not be added in place".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_merge_keeps_the_file_and_is_idempotent() {
        let text = "{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  }\n}\n";
        let shape = Shape::McpServers { typed: false };
        let out = merge_json(text, shape, "ctx")
            .expect("merge")
            .expect("added");
        assert!(out.starts_with("{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"},\n"), "{out}");
        let value: Value = serde_json::from_str(&out).expect("json");
        assert_eq!(
            value["mcpServers"]["ctx"],
            json!({"command": "ctx", "args": ["mcp"]})
        );
        assert_eq!(merge_json(&out, shape, "ctx").expect("again"), None);
        let err = merge_json(&out, shape, "/opt/ctx").expect_err("different");
        assert!(err.contains("set up differently"), "{err}");
        assert!(merge_json("{// c\n}", shape, "ctx").is_err());
        assert!(merge_json("[]", shape, "ctx").is_err());
    }

    #[test]
    fn opencode_entry_is_a_local_command_list() {
        let out = merge_json(
            "{\"$schema\": \"https://opencode.ai/config.json\"}",
            Shape::OpenCode,
            "ctx",
        )
        .expect("merge")
        .expect("added");
        let value: Value = serde_json::from_str(&out).expect("json");
        assert_eq!(
            value["mcp"]["ctx"],
            json!({"type": "local", "command": ["ctx", "mcp"], "enabled": true})
        );
    }

    #[test]
    fn toml_merge_keeps_comments_and_tables() {
        let text = "# mine\nmodel = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\" # keep\n";
        let out = merge_toml(text, "ctx").expect("merge").expect("added");
        assert!(out.starts_with(text), "{out}");
        assert!(
            out.contains("[mcp_servers.ctx]\ncommand = \"ctx\"\nargs = [\"mcp\"]\n"),
            "{out}"
        );
        assert_eq!(merge_toml(&out, "ctx").expect("again"), None);
        assert!(merge_toml(&out, "/opt/ctx").is_err());
        assert!(merge_toml("mcp_servers = 3\n", "ctx").is_err());
        assert!(merge_toml("not = = toml", "ctx").is_err());
    }
}
