//! `CMD | ctx pipe`: digest standard input.

use nix::sys::signal::{self, SigHandler, Signal};

use crate::capture::spill::{self, Ingested, Place};

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
}

/// How much input stays in memory before it is spilled.
pub use crate::capture::spill::SPILL_BYTES;

pub fn execute(args: Args) -> anyhow::Result<i32> {
    check_family(args.family.as_deref())?;
    // Under a file-size limit (`ulimit -f`) a write past it raises SIGXFSZ,
    // which would kill ctx with the input half-consumed. Ignored, the write
    // fails with EFBIG and the spill moves on. `ctx pipe` starts no child
    // that could inherit the disposition.
    // SAFETY: SIG_IGN installs no handler.
    let _ = unsafe { signal::signal(Signal::SIGXFSZ, SigHandler::SigIgn) };
    let ingested = {
        let mut stdin = std::io::stdin().lock();
        let mut stdout = std::io::stdout().lock();
        spill::read_input(
            &mut stdin,
            &mut stdout,
            spill::spill_at(),
            &Place::fallbacks(),
        )
    };
    let mut artifact = match ingested {
        Ok(Ingested::Kept(artifact)) => artifact,
        Ok(Ingested::PassedThrough(why)) => {
            eprintln!("[ctx] the input could not be kept ({why}); passed through raw");
            return Ok(0);
        }
        // What was read is out already; only a broken output or input is left.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(0),
        Err(e) => return Err(anyhow::Error::new(e).context("reading standard input")),
    };
    artifact.label = args.label;
    artifact.family = args.family;
    crate::deliver::ingested(&artifact, args.budget);
    Ok(0)
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
