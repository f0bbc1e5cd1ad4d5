//! `ctx read PATH [--mode M] [--anchors] [--verify A:HASH…] [--fresh]`
//! (docs/read.md).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;

use crate::read::{self, Mode, Request, anchors::Anchor};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The file to read.
    pub path: PathBuf,
    /// full | outline | signatures | auto | lines:A-B | symbol:NAME | section:HEADING
    #[arg(long, default_value = "auto", value_parser = parse_mode)]
    pub mode: Mode,
    /// Prefix each line with its number and a short hash of its content.
    #[arg(long)]
    pub anchors: bool,
    /// Check anchored lines (LINE:HASH, as --anchors prints them) against
    /// the file now; exit 1 when any changed.
    #[arg(long, num_args = 1.., value_name = "LINE:HASH", value_parser = parse_anchor)]
    pub verify: Vec<Anchor>,
    /// Print the view even if this session read it before, unchanged.
    #[arg(long)]
    pub fresh: bool,
    /// The agent session the read belongs to (default: $CTX_SESSION).
    #[arg(long, env = "CTX_SESSION", hide_env_values = true)]
    pub session: Option<String>,
    /// The session an agent's hook found (`ctx hook claude` adds it to
    /// each `ctx read`): used only when neither --session nor CTX_SESSION
    /// names one.
    #[arg(long, hide = true, value_name = "ID")]
    pub agent_session: Option<String>,
}

fn parse_mode(s: &str) -> Result<Mode, String> {
    s.parse().map_err(|e: read::ReadError| e.to_string())
}

fn parse_anchor(s: &str) -> Result<Anchor, String> {
    s.parse().map_err(|e: read::ReadError| e.to_string())
}

pub fn execute(args: Args) -> Result<i32> {
    let shown = args.path.display().to_string();
    let mut stdout = std::io::stdout().lock();
    if !args.verify.is_empty() {
        let (report, drifted) = read::verify(&args.path, &shown, &args.verify)?;
        stdout.write_all(&report)?;
        return Ok(i32::from(drifted));
    }
    // This process ends right after printing the view.
    read::outline::leak_trees_until_exit();
    let reading = read::read(&Request {
        path: args.path,
        shown,
        mode: args.mode,
        anchors: args.anchors,
        fresh: args.fresh,
        session: args
            .session
            .filter(|s| !s.is_empty())
            .or(args.agent_session),
        home: None,
    })?;
    if let Some(note) = reading.note {
        eprintln!("ctx: {note}");
    }
    stdout.write_all(&reading.bytes)?;
    stdout.flush()?;
    Ok(0)
}
