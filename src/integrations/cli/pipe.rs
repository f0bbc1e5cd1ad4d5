//! `CMD | ctx pipe`: digest standard input.

use std::os::fd::AsFd;

use nix::sys::signal::{self, SigHandler, Signal};

use crate::artifact::{Artifact, Exit};
use crate::capture::spill::{self, Ingested, Place};
use crate::capture::watched::Watched;
use crate::emit;

/// Arguments of `ctx pipe`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Read the input as this family instead of sniffing its content.
    #[arg(long = "as", value_name = "FAMILY")]
    pub family: Option<String>,
    /// What to call this input in the digest header and the ledger.
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    #[arg(
        long,
        value_name = "TOKENS",
        help = super::budget::SHORT_HELP
    )]
    pub budget: Option<usize>,
    #[command(flatten)]
    pub output: super::format::FormatArgs,
    #[command(flatten)]
    pub ci: super::ci::CiArgs,
}

/// How much input stays in memory before it is spilled.
pub use crate::capture::spill::SPILL_BYTES;

pub fn execute(args: Args) -> anyhow::Result<i32> {
    // A typo passes the input on raw rather than losing it.
    if let Some(family) = args.family.as_deref()
        && crate::profiles::by_family(family).is_none()
    {
        return Ok(super::usage::pipe_raw(&super::usage::unknown_family(
            family,
        )));
    }
    if let Err(e) = super::ci::check_shape(args.output.format, args.family.as_deref()) {
        return Ok(super::usage::pipe_raw(&format!("{e:#}")));
    }
    let mut artifact = match ingest_stdin() {
        Ingest::Kept(artifact) => artifact,
        Ingest::Done(status) => return Ok(status),
        Ingest::Failed(e) => return Err(anyhow::Error::new(e).context("reading standard input")),
    };
    artifact.label = args.label;
    artifact.family = args.family;
    let formatting = super::ci::formatting(&args.output, &args.ci);
    let shaped = crate::deliver::ingested(&artifact, args.budget, &formatting);
    match ended() {
        0 if !shaped => Ok(super::EXIT_CTX_ERROR),
        status => Ok(status),
    }
}

/// What reading standard input came to.
pub enum Ingest {
    /// Kept whole, for the pipeline.
    Kept(Artifact),
    /// Nothing more to do but end with this status: the input passed
    /// through raw (noted), or ctx's reader went away.
    Done(i32),
    /// The input could not be read (what was read went out raw).
    Failed(std::io::Error),
}

/// Reads standard input into the spill chain, watching that the reader
/// of stdout is still there (`capture::watched`).
pub fn ingest_stdin() -> Ingest {
    // Under a file-size limit (`ulimit -f`) a write past it raises SIGXFSZ,
    // which would kill ctx with the input half-consumed. Ignored, the write
    // fails with EFBIG and the spill moves on. `ctx pipe` and `ctx digest` start no child
    // that could inherit the disposition.
    // SAFETY: SIG_IGN installs no handler.
    let _ = unsafe { signal::signal(Signal::SIGXFSZ, SigHandler::SigIgn) };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let ingested = {
        let mut input = Watched::new(stdin.lock(), stdin.as_fd(), stdout.as_fd());
        let mut out = stdout.lock();
        spill::read_input(&mut input, &mut out, spill::spill_at(), &Place::fallbacks())
    };
    match ingested {
        Ok(Ingested::Kept(artifact)) => Ingest::Kept(artifact),
        Ok(Ingested::PassedThrough(why)) => {
            eprintln!("[ctx] the input could not be kept ({why}); passed through raw");
            Ingest::Done(0)
        }
        // The reader left: nothing more can reach it.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ingest::Done(reader_left()),
        Err(e) => Ingest::Failed(e),
    }
}

/// The status to end with after the delivery: 0, or death by SIGPIPE when
/// the reader left while the digest or raw output was written.
pub fn ended() -> i32 {
    if emit::reader_gone() {
        reader_left()
    } else {
        0
    }
}

/// Ends ctx the way a filter whose reader left ends: killed by SIGPIPE,
/// which a shell reports as 141 (what the writer in the bare pipeline,
/// `seq 1 10000000 | head -1`, gets). Returns only if that cannot happen.
pub fn reader_left() -> i32 {
    crate::capture::exit_like(Exit::Signal(libc::SIGPIPE))
}

/// Rejects an unknown `--as` before any input is read.
pub fn check_family(family: Option<&str>) -> anyhow::Result<()> {
    if let Some(name) = family
        && crate::profiles::by_family(name).is_none()
    {
        anyhow::bail!("no profile for family {name:?} (`ctx profiles` lists them)");
    }
    Ok(())
}
