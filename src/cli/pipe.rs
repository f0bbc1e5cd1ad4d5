//! `CMD | ctx pipe`: digest standard input.

use std::io::Read;

use anyhow::Context;

use crate::artifact::{Artifact, Exit};
use crate::emit::RawTo;
use crate::pipeline::{self, Options, Sinks};

/// Arguments of `ctx pipe`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Read the input as this family instead of sniffing its content.
    #[arg(long = "as", value_name = "FAMILY")]
    pub family: Option<String>,
    /// What to call this input in the digest header and the ledger.
    #[arg(long, value_name = "NAME")]
    pub label: Option<String>,
    /// Tokens the digest should fit in (default: the family contract's ceiling).
    #[arg(long, env = "CTX_BUDGET", value_name = "TOKENS")]
    pub budget: Option<usize>,
}

pub fn execute(args: Args) -> anyhow::Result<i32> {
    check_family(args.family.as_deref())?;
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .context("reading standard input")?;
    let mut artifact = Artifact::from_stdout(bytes, Exit::Unknown, Vec::new());
    artifact.label = args.label;
    artifact.family = args.family;
    deliver(&artifact, args.budget)?;
    Ok(0)
}

/// Runs the pipeline on an ingested artifact with the default archive and
/// ledger, writing raw output (when it goes raw) to stdout.
pub fn deliver(artifact: &Artifact, budget: Option<usize>) -> anyhow::Result<()> {
    let archive = crate::archive::open_default();
    let ledger = crate::ledger::open_default();
    let sinks = Sinks {
        archive: &*archive,
        ledger: &*ledger,
        raw_to: RawTo::Stdout,
    };
    pipeline::run(artifact, &sinks, &Options { budget })?;
    Ok(())
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
