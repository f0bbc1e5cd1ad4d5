//! `CMD | ctx pipe`: digest standard input.

use std::io::{Read, Write};

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
    #[arg(
        long,
        value_name = "TOKENS",
        help = super::budget::SHORT_HELP
    )]
    pub budget: Option<usize>,
}

pub fn execute(args: Args) -> anyhow::Result<i32> {
    check_family(args.family.as_deref())?;
    let mut artifact = read_stdin().context("reading standard input")?;
    artifact.label = args.label;
    artifact.family = args.family;
    deliver(&artifact, args.budget)?;
    Ok(0)
}

/// Inputs up to this size are read into memory; a larger one is spilled to
/// an unlinked temporary file and mapped, so ctx's own memory stays bounded
/// (a read buffer and the line index) however much is piped in.
pub const SPILL_BYTES: usize = 64 << 20;

/// Standard input to EOF, with no size cap.
fn read_stdin() -> std::io::Result<Artifact> {
    let mut stdin = std::io::stdin().lock();
    let mut bytes = Vec::new();
    let mut block = vec![0u8; 1 << 20];
    loop {
        let n = match stdin.read(&mut block) {
            Ok(0) => return Ok(Artifact::from_stdout(bytes, Exit::Unknown, Vec::new())),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        bytes.extend_from_slice(&block[..n]);
        if bytes.len() > SPILL_BYTES {
            break;
        }
    }
    let mut file = tempfile::tempfile()?;
    file.write_all(&bytes)?;
    drop(bytes);
    std::io::copy(&mut stdin, &mut file)?;
    file.flush()?;
    Artifact::from_stdout_file(&file, Exit::Unknown, Vec::new())
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
    pipeline::run(artifact, &sinks, &Options::configured(budget))?;
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
