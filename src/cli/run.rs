//! `ctx run [--digest] [--as FAMILY] [--budget N] [--label NAME] -- CMD…`
//!
//! A person at a terminal sees the command live: with stdout a terminal and
//! no `--digest`, ctx execs the command in place, so colours, progress bars
//! and the exit status are the command's own by construction. Otherwise
//! ctx captures, digests, and ends the way the command ended.

use std::ffi::OsString;
use std::io::{self, IsTerminal, Write};
use std::panic::{self, AssertUnwindSafe};

use crate::artifact::Artifact;
use crate::capture::{self, CaptureError};
use crate::classify::UnknownFamily;
use crate::emit::{self, RawTo};
use crate::pipeline::{self, Options, Sinks};
use crate::{archive, ledger, profiles};

/// Arguments of `ctx run`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Digest even when stdout is a terminal (normally the command then
    /// runs live, undigested).
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
    if io::stdout().is_terminal() && !args.digest {
        let failure = capture::exec(&args.command);
        eprintln!("ctx: {failure}");
        return Ok(failure.status());
    }

    let mut artifact = match capture::run(&args.command) {
        Ok(artifact) => artifact,
        Err(CaptureError::Launch(failure)) => {
            eprintln!("ctx: {failure}");
            return Ok(failure.status());
        }
        Err(e) => return Err(e.into()),
    };
    artifact.family = args.family;
    artifact.label = args.label;
    deliver(&artifact, args.budget);
    Ok(capture::exit_like(artifact.exit))
}

/// Digests and prints. Whatever goes wrong in here, the caller still ends
/// with the command's status (invariant 8).
pub(crate) fn deliver(artifact: &Artifact, budget: Option<usize>) {
    let archive = archive::open_default();
    let ledger = ledger::open_default();
    let sinks = Sinks {
        archive: &*archive,
        ledger: &*ledger,
        raw_to: RawTo::Split,
    };
    let options = Options::configured(budget);
    match panic::catch_unwind(AssertUnwindSafe(|| {
        pipeline::run(artifact, &sinks, &options)
    })) {
        Ok(Ok(_delivery)) => {}
        Ok(Err(unknown)) => {
            // Nothing was printed yet: the family was refused up front.
            let _ = emit::write_raw(
                artifact,
                RawTo::Split,
                &mut io::stdout().lock(),
                &mut io::stderr().lock(),
            );
            let _ = io::stdout().flush();
            eprintln!("[ctx] {unknown}; output not shortened");
        }
        // The panic message is already on stderr; whether the output went
        // out before it is the pipeline's to guarantee.
        Err(_) => eprintln!("[ctx] internal error while digesting; exit status kept"),
    }
}
