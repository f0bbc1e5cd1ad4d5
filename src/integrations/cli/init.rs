//! `ctx init AGENT [--mcp] [--write | --uninstall] [--settings FILE]`:
//! prints how AGENT reaches ctx; `--write` applies what can be applied
//! (Claude Code's hook and `CTX_AGENT`, Codex's `CTX_AGENT`) after backing
//! up the file or editing it in place, `--uninstall` undoes it. With `--mcp`, the agent's MCP server entry for `ctx mcp` instead:
//! printed, or with `--write` merged into the agent's file.

use std::path::PathBuf;

use anyhow::{Context, bail};

use crate::agents::{self, Agent, claude, codex_env, mcp};
use crate::shim::install;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// claude-code, codex, gemini, cursor, opencode, aider or copilot.
    pub agent: String,
    /// Apply the configuration: the hook is added to the settings file in
    /// place, keeping its key order and formatting (after a backup).
    #[arg(long, conflicts_with = "uninstall")]
    pub write: bool,
    /// Undo `--write`: the original file comes back byte for byte.
    #[arg(long)]
    pub uninstall: bool,
    /// The settings file to change (Claude Code:
    /// $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json;
    /// with --mcp, the agent's MCP file, a project's at the repository's
    /// root: docs/mcp.md lists them).
    #[arg(long, value_name = "FILE")]
    pub settings: Option<PathBuf>,
    /// The MCP server entry (`ctx mcp`) for Claude Code, Codex, Cursor,
    /// Gemini CLI or OpenCode, instead of the shims and hook.
    #[arg(long, conflicts_with = "uninstall")]
    pub mcp: bool,
}

pub fn execute(args: Args) -> anyhow::Result<i32> {
    let Some(agent) = Agent::parse(&args.agent) else {
        bail!(
            "unknown agent {:?} (one of: {})",
            args.agent,
            agents::NAMES.join(", ")
        );
    };
    if args.mcp {
        return mcp_entry(agent, &args);
    }
    if !args.write && !args.uninstall {
        let dir = install::default_dir().context("finding the data directory")?;
        print!("{}", agents::instructions(agent, &dir));
        if mcp::supported(agent) {
            println!(
                "\n# Or over MCP (`ctx mcp`: tools ctx_run, ctx_expand, ctx_read): `ctx init {} --mcp`",
                args.agent
            );
        }
        println!("\n# A note for AGENTS.md / CLAUDE.md, if you want one (not written anywhere):");
        println!("{}", agents::NOTE);
        return Ok(0);
    }
    if agent == Agent::Codex {
        return codex_env(&args);
    }
    if agent != Agent::ClaudeCode {
        eprintln!(
            "ctx init {}: nothing to write: {} needs only the shims on its PATH, and is recognised by its process (see `ctx init {}`)",
            args.agent,
            agent.title(),
            args.agent
        );
        return Ok(1);
    }
    let file = match args.settings {
        Some(file) => file,
        // Where the hook reads the user's rules: CLAUDE_CONFIG_DIR first.
        None => claude::sources::user_settings().context("no home directory")?,
    };
    let outcome = if args.write {
        claude::write(&file)?
    } else {
        claude::uninstall(&file)?
    };
    let shown = file.display();
    match outcome {
        claude::Outcome::Written { backup: Some(b) } => {
            eprintln!(
                "added the PreToolUse hook and env CTX_AGENT to {shown} (backup: {})",
                b.display()
            )
        }
        claude::Outcome::Written { backup: None } => {
            eprintln!("created {shown} with the PreToolUse hook and env CTX_AGENT")
        }
        claude::Outcome::AlreadyThere => {
            eprintln!("{shown} already has the hook and env CTX_AGENT")
        }
        claude::Outcome::Restored => eprintln!("restored {shown} as it was before `ctx init`"),
        claude::Outcome::Removed { backup_kept } => eprintln!(
            "removed the hook from {shown}; it had changed since, so the backup stays{}",
            backup_kept
                .map(|b| format!(" at {}", b.display()))
                .unwrap_or_default()
        ),
        claude::Outcome::NothingToRemove => eprintln!("{shown} has no ctx hook"),
    }
    Ok(0)
}

/// `ctx init codex --write | --uninstall [--settings FILE]`: `CTX_AGENT`
/// in Codex's shell environment policy.
fn codex_env(args: &Args) -> anyhow::Result<i32> {
    let file = match &args.settings {
        Some(file) => file.clone(),
        None => mcp::default_file(Agent::Codex, std::path::Path::new("."))
            .context("no home directory")?,
    };
    let shown = file.display();
    let outcome = if args.write {
        codex_env::write(&file)?
    } else {
        codex_env::uninstall(&file)?
    };
    match outcome {
        codex_env::Outcome::Written => {
            eprintln!("set CTX_AGENT = \"codex\" in [shell_environment_policy] of {shown}")
        }
        codex_env::Outcome::AlreadyThere => eprintln!("{shown} already sets CTX_AGENT"),
        codex_env::Outcome::SetOtherwise => {
            eprintln!("{shown} sets CTX_AGENT to a value of its own: left as it is")
        }
        codex_env::Outcome::Removed => eprintln!("removed CTX_AGENT from {shown}"),
        codex_env::Outcome::NothingToRemove => eprintln!("{shown} has no CTX_AGENT of ctx's"),
    }
    Ok(0)
}

/// `ctx init AGENT --mcp [--write] [--settings FILE]`.
fn mcp_entry(agent: Agent, args: &Args) -> anyhow::Result<i32> {
    if !mcp::supported(agent) {
        eprintln!(
            "ctx init {}: {} takes no MCP server entry (see `ctx init {}`)",
            args.agent,
            agent.title(),
            args.agent
        );
        return Ok(1);
    }
    let ctx = crate::shim::locate::ctx_binary().context("finding the ctx binary")?;
    let program = mcp::program(&ctx);
    // A project's MCP file sits at the repository's root, wherever in it
    // the person runs `ctx init`; outside a repository, here.
    let here = std::env::current_dir().context("reading the current directory")?;
    let project = agents::repository::root(&here).unwrap_or(&here);
    let file = match &args.settings {
        Some(file) => file.clone(),
        None => mcp::default_file(agent, project).context("no home directory")?,
    };
    if !args.write {
        println!(
            "# {}: ctx's MCP server (tools ctx_run, ctx_expand, ctx_read).",
            agent.title()
        );
        println!(
            "# `ctx init {} --mcp --write` merges it into {}:",
            args.agent,
            file.display()
        );
        print!("{}", mcp::snippet(agent, &program).unwrap_or_default());
        if let Some(command) = mcp::add_command(agent, &program) {
            println!("# or let {} add it: {command}", agent.title());
        }
        return Ok(0);
    }
    let shown = file.display();
    let outcome = match mcp::write(agent, &file, &program) {
        Ok(outcome) => outcome,
        // The entry to add by hand is part of the message: not cut short.
        Err(refused @ mcp::McpConfigError::Refused { .. }) => {
            eprintln!("ctx: {refused}");
            return Ok(1);
        }
        Err(e) => return Err(e.into()),
    };
    match outcome {
        mcp::Outcome::Created => eprintln!("created {shown} with ctx's MCP server"),
        mcp::Outcome::Added => eprintln!("added ctx's MCP server to {shown}"),
        mcp::Outcome::AlreadyThere => eprintln!("{shown} already has ctx's MCP server"),
    }
    Ok(0)
}
