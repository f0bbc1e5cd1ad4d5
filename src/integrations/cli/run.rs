//! `ctx run [--digest] [--as FAMILY] [--budget N] [--label NAME] [--format F] -- CMD…`
//!
//! A person at a terminal sees the command live: with stdout a terminal and
//! no `--digest`, ctx execs the command in place, so colours, progress bars
//! and the exit status are the command's own by construction. Otherwise
//! ctx captures, digests, and ends the way the command ended.

use std::ffi::OsString;
use std::io::{self, IsTerminal};
use std::path::Path;

use crate::capture::{self, CaptureError};
use crate::classify::UnknownFamily;
use crate::profiles;

/// Arguments of `ctx run`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Digest even when stdout is a terminal or leads somewhere other than
    /// the agent (`| head`, `> f`, `$( )`): normally the command then runs
    /// in place, undigested.
    #[arg(long)]
    pub digest: bool,
    /// Read the output as this family instead of classifying it.
    #[arg(long = "as", value_name = "FAMILY")]
    pub family: Option<String>,
    #[arg(
        long,
        value_name = "TOKENS",
        help = super::budget::SHORT_HELP
    )]
    pub budget: Option<usize>,
    /// A name for this run in digests and the ledger, instead of its argv.
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    /// No re-run delta: the full digest even when the same command ran
    /// recently (docs/deltas.md).
    #[arg(long)]
    pub no_delta: bool,
    #[command(flatten)]
    pub output: super::format::FormatArgs,
    #[command(flatten)]
    pub ci: super::ci::CiArgs,
    /// The command and its arguments.
    #[arg(
        value_name = "CMD",
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub command: Vec<OsString>,
}

pub fn execute(args: Args) -> anyhow::Result<i32> {
    // Checked before anything runs: a typo must not cost a second run.
    if let Some(family) = &args.family
        && profiles::by_family(family).is_none()
    {
        return Err(UnknownFamily(family.clone()).into());
    }
    super::ci::check_shape(args.output.format, args.family.as_deref())?;
    // A command that prints secrets by design runs as if ctx were not
    // there, even under --digest: its output is never captured, digested,
    // archived or recorded (docs/secrets.md).
    let words: Vec<String> = args
        .command
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let secret = crate::command::secrets::prints_secrets(&words).is_some();
    // A shape other than text is asked for by name, for a reader that
    // parses it (`| jq`): it digests wherever stdout leads, as --digest;
    // so do annotations and a summary asked for by name (those that follow
    // GITHUB_ACTIONS alone leave `CMD | tee log` raw).
    let digest = args.digest
        || args.output.format != crate::format::Format::Text
        || args.ci.annotate == super::ci::Annotate::Github
        || args.ci.summary;
    if secret || (!digest && (io::stdout().is_terminal() || downstream().is_some())) {
        let failure = capture::exec(&args.command);
        eprintln!("ctx: {failure}");
        return Ok(failure.status());
    }

    // The archive's server connection is made while the command runs.
    crate::store::early::connect();
    let captured = match capture::run(&args.command) {
        Ok(captured) => captured,
        Err(CaptureError::Launch(failure)) => {
            eprintln!("ctx: {failure}");
            return Ok(failure.status());
        }
        Err(e) => return Err(e.into()),
    };
    let exit = crate::deliver::captured(
        captured,
        args.family,
        args.label,
        args.budget,
        !args.no_delta,
        &super::ci::formatting(&args.output, &args.ci),
    );
    Ok(capture::exit_like(exit))
}

/// Why ctx's stdout positively does not reach the agent (invariant 7, the
/// shims' rule: `ctx run -- CMD | head`, `> f`, `$( )`, or an outer ctx
/// already capturing), or `None`. Such output must be the raw bytes, and
/// exec is the one way to give the reader (and the command) exactly what
/// it would have had without ctx: `seq 1 10000000 | head -1` then dies of
/// SIGPIPE at once, as bare.
fn downstream() -> Option<String> {
    let ctx = crate::shim::locate::ctx_binary().ok()?;
    let proc_root = Path::new("/proc");
    let own = std::fs::read_link(proc_root.join("self/fd/1")).ok()?;
    let me = crate::shim::procfs::Process::read(proc_root, std::process::id())?;
    crate::shim::audience::elsewhere(proc_root, &own.to_string_lossy(), &ctx, &me)
}
