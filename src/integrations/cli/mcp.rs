//! `ctx mcp [--timeout SECS]`: serve ctx's tools to an agent over MCP
//! (stdio). `ctx init AGENT --mcp` prints or writes the agent's entry.

use std::time::Duration;

use anyhow::Context;

use crate::mcp;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// ctx_run's timeout when a call gives none: the command is then
    /// stopped (SIGTERM, SIGKILL 5 s later) and what it printed digested.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = 600,
        value_parser = clap::value_parser!(u64).range(1..=mcp::MAX_TIMEOUT_SECS)
    )]
    pub timeout: u64,
}

pub fn execute(args: Args) -> anyhow::Result<i32> {
    let program = std::env::current_exe().context("finding the ctx binary")?;
    mcp::serve(program, Duration::from_secs(args.timeout))?;
    Ok(0)
}
