//! Agent integration: what each agent needs to reach ctx (`ctx init`), and
//! Claude Code's PreToolUse hook protocol (`ctx hook claude`).
//! docs/agents.md has the configurations and the protocol's sources.

pub mod claude;
pub mod codex_env;
pub mod mcp;
pub mod repository;
mod splice;

use std::path::Path;

/// The agents `ctx init` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agent {
    ClaudeCode,
    Codex,
    Gemini,
    Cursor,
    OpenCode,
    Aider,
    Copilot,
}

pub const NAMES: &[&str] = &[
    "claude-code",
    "codex",
    "gemini",
    "cursor",
    "opencode",
    "aider",
    "copilot",
];

impl Agent {
    pub fn parse(name: &str) -> Option<Agent> {
        Some(match name {
            "claude-code" | "claude" => Agent::ClaudeCode,
            "codex" => Agent::Codex,
            "gemini" | "gemini-cli" => Agent::Gemini,
            "cursor" => Agent::Cursor,
            "opencode" => Agent::OpenCode,
            "aider" => Agent::Aider,
            "copilot" | "copilot-cli" => Agent::Copilot,
            _ => return None,
        })
    }

    pub fn title(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code",
            Agent::Codex => "Codex CLI",
            Agent::Gemini => "Gemini CLI",
            Agent::Cursor => "Cursor",
            Agent::OpenCode => "OpenCode",
            Agent::Aider => "Aider",
            Agent::Copilot => "GitHub Copilot CLI",
        }
    }

    /// The name `ctx init` takes: the one of [`NAMES`] that parses to it.
    pub fn init_name(self) -> &'static str {
        NAMES
            .iter()
            .copied()
            .find(|n| Agent::parse(n) == Some(self))
            .unwrap_or_default()
    }

    /// The command that starts the agent, for the PATH line.
    fn launcher(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Cursor => "cursor",
            Agent::OpenCode => "opencode",
            Agent::Aider => "aider",
            Agent::Copilot => "copilot",
        }
    }
}

/// The configuration to print: how to put the shims on the agent's PATH,
/// and for Claude Code the hook that `--write` installs.
pub fn instructions(agent: Agent, shim_dir: &Path) -> String {
    let dir = shim_dir.display();
    let mut text = format!(
        "# {title}: put ctx's shims first on the PATH the agent's commands see.\n\
         ctx shims install\n\
         export PATH=\"{dir}:$PATH\"   # in the shell that starts {launcher}\n\
         # or for one session: PATH=\"{dir}:$PATH\" {launcher}\n",
        title = agent.title(),
        launcher = agent.launcher(),
    );
    match agent {
        Agent::ClaudeCode | Agent::Codex => text.push_str(&format!(
            "# The shims digest only for an identified agent: `ctx init {} --write`\n\
             # sets CTX_AGENT for the commands {} runs (docs/shims.md).\n",
            agent.init_name(),
            agent.title()
        )),
        _ => text.push_str(&format!(
            "# The shims digest only for an identified agent: {} is recognised by its\n\
             # process; a wrapper around it can set CTX_AGENT=NAME for the shells it\n\
             # starts, never in its own environment (docs/shims.md).\n",
            agent.title()
        )),
    }
    if agent == Agent::Cursor {
        text.push_str(
            "# Cursor's agent terminal inherits the editor's environment: start\n\
             # Cursor from that shell (or set PATH in your shell profile).\n",
        );
    }
    if agent == Agent::ClaudeCode {
        text.push_str(&format!(
            "# And/or a PreToolUse hook that rewrites build and test commands to\n\
             # `ctx run -- CMD` (`ctx init claude-code --write` adds it to {}):\n{}\n\
             # The hook keeps your permissions: it reads the allow/ask/deny rules of\n\
             # the managed, project (.claude/settings.local.json, .claude/settings.json)\n\
             # and user settings, and answers for the original command what Claude\n\
             # Code would have: `allow` if your rules allow it (every part of a\n\
             # compound command), `ask` where Claude Code would have asked, and no\n\
             # rewrite at all for a denied command. `ctx hook claude --allow` lets\n\
             # unlisted rewritten commands run without a prompt.\n",
            claude::SETTINGS_HINT,
            claude::hook_entry_pretty()
        ));
    }
    text
}

/// The agent-facing note for AGENTS.md / CLAUDE.md (at most 60 words).
pub const NOTE: &str = "Build and test output may arrive as a ctx digest: failures in full, \
passing noise summarized. Lines starting with [ctx] are ctx's own. Anything omitted is archived: \
run the `ctx expand HASH` command the digest names (add --item ID, --lines A-B or --grep RE to \
zoom). Exit statuses are unchanged.";
