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
    #[command(flatten)]
    pub keep: KeepArgs,
    /// The command and its arguments.
    #[arg(
        value_name = "CMD",
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    pub command: Vec<OsString>,
}

/// What an agent's `CMD 2>&1 | tail -N` becomes (docs/rewrite.md, "The
/// agent's own truncation"): the same last lines, and the digest's census
/// above them.
#[derive(clap::Args, Debug, Default, Clone, PartialEq, Eq)]
pub struct KeepArgs {
    /// Print exactly the last N lines `CMD 2>&1 | tail -N` would print, byte
    /// for byte, after the digest (whose census names what they leave out).
    #[arg(long, value_name = "N", conflicts_with = "keep_head")]
    pub keep_tail: Option<usize>,
    /// Print exactly the first N lines `CMD 2>&1 | head -N` would print,
    /// byte for byte, before the digest. The command still runs to its end.
    #[arg(long, value_name = "N")]
    pub keep_head: Option<usize>,
    /// The streams the kept lines come from: `both` (`2>&1 |`, in the
    /// order the command wrote them) or `stdout` (`|` alone: stderr is
    /// written whole to ctx's stderr first, as it went past the pipe).
    #[arg(long, value_enum, value_name = "STREAMS", default_value = "both")]
    pub keep_streams: crate::format::KeptStreams,
    /// Exit 0 whatever the command's status, as `CMD | tail` does in a
    /// shell without `pipefail`; the status is still in the digest header.
    #[arg(long)]
    pub exit_zero: bool,
}

impl KeepArgs {
    pub fn keep(&self) -> Option<crate::format::Keep> {
        use crate::format::{End, Keep};
        let (end, lines) = match (self.keep_tail, self.keep_head) {
            (Some(n), _) => (End::Tail, n),
            (None, Some(n)) => (End::Head, n),
            (None, None) => return None,
        };
        Some(Keep {
            end,
            lines,
            streams: self.keep_streams,
        })
    }
}

pub fn execute(args: Args) -> anyhow::Result<i32> {
    // Checked before anything runs: a typo must neither cost a second run
    // nor the command (docs/invariants.md, usage errors).
    if let Some(family) = &args.family
        && profiles::by_family(family).is_none()
    {
        return Ok(super::usage::run_raw(
            &super::usage::unknown_family(family),
            &args.command,
        ));
    }
    if let Some((message, command)) = super::usage::unknown_run_flag(&args.command) {
        return Ok(super::usage::run_raw(&message, &command));
    }
    if let Err(e) = super::ci::check_shape(args.output.format, args.family.as_deref()) {
        return Ok(super::usage::run_raw(&format!("{e:#}"), &args.command));
    }
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
    let keep = args.keep.keep();
    if keep.is_some() && args.output.format != crate::format::Format::Text {
        return Ok(super::usage::run_raw(
            "--keep-tail and --keep-head print text; they take no --format",
            &args.command,
        ));
    }
    // Kept lines are what the agent's own pipe would have printed: they go
    // out wherever stdout leads, as `| tail` output would.
    let digest = args.digest
        || keep.is_some()
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
    // `2>&1 |` gave the pipe both streams in the order they were
    // written; one pipe for both keeps that order exactly.
    let pipes = match keep.map(|k| k.streams) {
        Some(crate::format::KeptStreams::Both) => capture::Pipes::Merged,
        _ => capture::Pipes::Separate,
    };
    let captured = match capture::run_with(&args.command, pipes) {
        Ok(captured) => captured,
        Err(CaptureError::Launch(failure)) => {
            eprintln!("ctx: {failure}");
            return Ok(failure.status());
        }
        Err(e) => return Err(e.into()),
    };
    let mut formatting = super::ci::formatting(&args.output, &args.ci);
    formatting.keep = keep;
    // Kept lines are compared with nothing: a re-run delta would replace
    // the digest the lines sit beside.
    let delta = !args.no_delta && keep.is_none();
    let exit = crate::deliver::captured(
        captured,
        args.family,
        args.label,
        args.budget,
        delta,
        &formatting,
    );
    if args.keep.exit_zero {
        return Ok(0);
    }
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
