//! `ctx hook claude [--allow]`: Claude Code's PreToolUse hook. Reads the
//! hook's JSON payload on stdin (that is the protocol: this verb is not a
//! shim and runs no command), prints the answer, always exits 0: a hook
//! that fails must not block the agent, and ctx never denies a command.
//! The answer mirrors the permission Claude Code would have given the
//! original command (src/integrations/agents/claude/permissions.rs).

use std::io::Read;

use crate::agents::claude::{self, Unlisted};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The agent: only `claude` today.
    #[arg(value_parser = ["claude"])]
    pub agent: String,
    /// Let rewritten commands that no allow rule covers run without a
    /// permission prompt (default: what Claude Code would do for the
    /// original command; deny and ask rules are always respected).
    #[arg(long)]
    pub allow: bool,
}

pub fn execute(args: Args) -> anyhow::Result<i32> {
    let mut payload = String::new();
    if std::io::stdin().read_to_string(&mut payload).is_err() {
        return Ok(0);
    }
    let unlisted = if args.allow {
        Unlisted::Allow
    } else {
        Unlisted::Mirror
    };
    if let Some(answer) = claude::answer(&payload, unlisted) {
        println!("{answer}");
    }
    Ok(0)
}
