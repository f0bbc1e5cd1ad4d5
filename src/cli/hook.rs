//! `ctx hook claude [--allow]`: Claude Code's PreToolUse hook. Reads the
//! hook's JSON payload on stdin (that is the protocol: this verb is not a
//! shim and runs no command), prints the answer, always exits 0: a hook
//! that fails must not block the agent, and ctx never denies a command.

use std::io::Read;

use crate::agents::claude::{self, Decision};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The agent: only `claude` today.
    #[arg(value_parser = ["claude"])]
    pub agent: String,
    /// Let rewritten commands run without a permission prompt (default:
    /// Claude Code asks, showing the rewritten command).
    #[arg(long)]
    pub allow: bool,
}

pub fn execute(args: Args) -> anyhow::Result<i32> {
    let mut payload = String::new();
    if std::io::stdin().read_to_string(&mut payload).is_err() {
        return Ok(0);
    }
    let decision = if args.allow {
        Decision::Allow
    } else {
        Decision::Ask
    };
    if let Some(answer) = claude::answer(&payload, decision) {
        println!("{answer}");
    }
    Ok(0)
}
