//! `ctx init AGENT [--write | --uninstall] [--settings FILE]`: prints how
//! AGENT reaches ctx; `--write` applies what can be applied (Claude Code's
//! hook) after backing up the file, `--uninstall` undoes it.

use std::path::PathBuf;

use anyhow::{Context, bail};

use crate::agents::{self, Agent, claude};
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
    /// The settings file to change (Claude Code: ~/.claude/settings.json).
    #[arg(long, value_name = "FILE")]
    pub settings: Option<PathBuf>,
}

pub fn execute(args: Args) -> anyhow::Result<i32> {
    let Some(agent) = Agent::parse(&args.agent) else {
        bail!(
            "unknown agent {:?} (one of: {})",
            args.agent,
            agents::NAMES.join(", ")
        );
    };
    if !args.write && !args.uninstall {
        let dir = install::default_dir().context("finding the data directory")?;
        print!("{}", agents::instructions(agent, &dir));
        println!("\n# A note for AGENTS.md / CLAUDE.md, if you want one (not written anywhere):");
        println!("{}", agents::NOTE);
        return Ok(0);
    }
    if agent != Agent::ClaudeCode {
        eprintln!(
            "ctx init {}: nothing to write: {} needs only the shims on its PATH (see `ctx init {}`)",
            args.agent,
            agent.title(),
            args.agent
        );
        return Ok(1);
    }
    let file = match args.settings {
        Some(file) => file,
        None => claude::default_settings().context("no home directory")?,
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
                "added the PreToolUse hook to {shown} (backup: {})",
                b.display()
            )
        }
        claude::Outcome::Written { backup: None } => {
            eprintln!("created {shown} with the PreToolUse hook")
        }
        claude::Outcome::AlreadyThere => eprintln!("{shown} already has the hook"),
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
