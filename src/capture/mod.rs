//! Ingest for `ctx run`: the child process, its two streams and their order,
//! signals, and the exit status ctx must reproduce.
//!
//! - `resolve`: finding the program as a shell does; 127/126 and their
//!   messages; exec in place for the live terminal path.
//! - `signals`: SIGINT/SIGTERM/SIGHUP/SIGQUIT forwarded through a signalfd.
//! - `streams`: the poll loop that records both streams in arrival order.
//! - `exit`: dying the way the child died.
//! - `spill`: `ctx pipe`'s input, kept whatever fails (or passed through).
//!
//! stdin is never touched: the child inherits ctx's descriptor 0 as it is
//! (invariant 2). docs/capture.md has the whole story and the limits.

pub mod exit;
pub mod resolve;
mod signals;
mod spawn;
pub mod spill;
mod streams;

use std::ffi::OsString;
use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;

pub use exit::exit_like;
pub use resolve::{LaunchError, exec, exec_program, resolve};
pub use signals::FORWARDED;

use crate::artifact::{Artifact, Exit, Segment};

/// Why a capture did not produce an artifact.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// The command could not be started; the child never ran.
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// ctx itself failed while the child ran.
    #[error("capturing the command's output: {0}")]
    Io(#[from] io::Error),
}

/// A finished capture.
pub enum Captured {
    /// The whole run: the pipeline may digest it.
    Complete(Artifact),
    /// Cut short by a stop request or a reader that left: to be replayed,
    /// never digested (so never indexed: that alone costs time ctx was
    /// asked not to take).
    CutShort(CutShort),
}

/// What a capture cut short holds.
pub struct CutShort {
    /// Both streams in arrival order, as in an `Artifact`.
    pub bytes: Vec<u8>,
    pub segments: Vec<Segment>,
    pub exit: Exit,
    /// The stop request (SIGINT/SIGTERM/SIGHUP/SIGQUIT) that reached ctx.
    pub stopped_by: Option<i32>,
    /// The reader of ctx's stdout went away: nothing more goes to stdout,
    /// and the child met the broken pipe itself.
    pub reader_gone: bool,
}

impl Captured {
    /// How the command ended.
    pub fn exit(&self) -> Exit {
        match self {
            Captured::Complete(artifact) => artifact.exit,
            Captured::CutShort(cut) => cut.exit,
        }
    }
}

/// Runs `argv` to completion and returns what it wrote and how it ended.
/// Memory grows with the output: there is no cap.
pub fn run(argv: &[OsString]) -> Result<Captured, CaptureError> {
    let Some(cmd) = argv.first() else {
        return Err(LaunchError::NotFound(String::new()).into());
    };
    let program = resolve(cmd)?;
    run_program(&program, argv)
}

/// `run` for a program already found (a shim resolves past itself);
/// `argv[0]` is still what the child sees as its name.
pub fn run_program(program: &Path, argv: &[OsString]) -> Result<Captured, CaptureError> {
    let Some(cmd) = argv.first() else {
        return Err(LaunchError::NotFound(String::new()).into());
    };
    let forwarder = signals::Forwarder::install().map_err(io::Error::from)?;
    let child = spawn::spawn(program, cmd, &argv[1..], &forwarder.previous_mask())?;
    let collected = streams::collect(child, &forwarder)?;
    drop(forwarder);

    let exit = match (collected.status.code(), collected.status.signal()) {
        (Some(code), _) => Exit::Code(code),
        (None, Some(signal)) => Exit::Signal(signal),
        // Only stopped or continued processes have neither, and those are
        // never reported as ended.
        (None, None) => Exit::Unknown,
    };
    if collected.stopped_by.is_some() || collected.reader_gone {
        return Ok(Captured::CutShort(CutShort {
            bytes: collected.bytes,
            segments: collected.segments,
            exit,
            stopped_by: collected.stopped_by.map(|s| s as i32),
            reader_gone: collected.reader_gone,
        }));
    }
    let argv = argv
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut artifact = Artifact::new(collected.bytes, collected.segments, exit, argv);
    artifact.truncated = collected.cut_short;
    artifact.cwd = std::env::current_dir()
        .ok()
        .map(|d| d.to_string_lossy().into_owned());
    Ok(Captured::Complete(artifact))
}
