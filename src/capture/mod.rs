//! Ingest for `ctx run`: the child process, its two streams and their order,
//! signals, and the exit status ctx must reproduce.
//!
//! - `resolve`: finding the program as a shell does; 127/126 and their
//!   messages; exec in place for the live terminal path.
//! - `signals`: SIGINT/SIGTERM/SIGHUP/SIGQUIT forwarded through a signalfd.
//! - `group`: the child in a process group of its own (outside a
//!   terminal's job control), so each stop request reaches it once.
//! - `streams`: the poll loop that records both streams in arrival order.
//! - `exit`: dying the way the child died.
//! - `watched`: an input read while watching that ctx's reader is there.
//! - `spill`: the spill chain every ingest keeps its bytes in (memory, then
//!   an unlinked file, then fallbacks), whatever fails (or passed through).
//!
//! stdin is never touched: the child inherits ctx's descriptor 0 as it is
//! (invariant 2). docs/capture.md has the whole story and the limits.

pub mod exit;
mod group;
pub mod resolve;
mod signals;
mod spawn;
pub mod spill;
mod streams;
pub mod watched;

use std::ffi::OsString;
use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;

pub use exit::exit_like;
pub use resolve::{LaunchError, exec, exec_program, resolve};
pub use signals::FORWARDED;

use crate::artifact::{Artifact, Bytes, Exit, Segment};

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
    /// No place could keep the output (`spill`): it went to ctx's stdout
    /// and stderr as it arrived, undigested.
    PassedThrough {
        exit: Exit,
        /// Why, in one line for ctx's note.
        why: String,
    },
}

/// What a capture cut short holds.
pub struct CutShort {
    /// Both streams in arrival order, as in an `Artifact`.
    pub bytes: Bytes,
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
            Captured::PassedThrough { exit, .. } => *exit,
        }
    }
}

/// Runs `argv` to completion and returns what it wrote and how it ended.
/// The output is kept in the spill chain: past the spill threshold it
/// lives in an unlinked file, mapped for the pipeline, so ctx's memory
/// does not grow with it.
pub fn run(argv: &[OsString]) -> Result<Captured, CaptureError> {
    run_with(argv, Pipes::Separate)
}

/// How the child's stdout and stderr reach ctx.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pipes {
    /// One pipe each: the artifact knows which stream wrote each byte.
    #[default]
    Separate,
    /// One pipe for both, as `CMD 2>&1 | …` gives: every byte in the exact
    /// order the command wrote it, all of it counted as stdout.
    Merged,
}

/// `run`, with the child's streams on the pipes `pipes` says.
pub fn run_with(argv: &[OsString], pipes: Pipes) -> Result<Captured, CaptureError> {
    let Some(cmd) = argv.first() else {
        return Err(LaunchError::NotFound(String::new()).into());
    };
    let program = resolve(cmd)?;
    run_program_with(&program, argv, pipes)
}

/// `run` for a program already found (a shim resolves past itself);
/// `argv[0]` is still what the child sees as its name.
pub fn run_program(program: &Path, argv: &[OsString]) -> Result<Captured, CaptureError> {
    run_program_with(program, argv, Pipes::Separate)
}

fn run_program_with(
    program: &Path,
    argv: &[OsString],
    pipes: Pipes,
) -> Result<Captured, CaptureError> {
    let Some(cmd) = argv.first() else {
        return Err(LaunchError::NotFound(String::new()).into());
    };
    // A spill write past a file-size limit (`ulimit -f`) would raise
    // SIGXFSZ and kill ctx with the output half-kept; ignored, the write
    // fails with EFBIG and the spill moves on. The child gets the
    // disposition ctx was given.
    let xfsz_was_default = ignore_xfsz();
    // Before any pipe exists, so that the keeper holds none; a keeper that
    // cannot be forked leaves the child in ctx's group.
    let keeper = group::separate()
        .then(group::Keeper::start)
        .and_then(Result::ok);
    let forwarder = signals::Forwarder::install().map_err(io::Error::from)?;
    let child = spawn::spawn(
        program,
        cmd,
        &argv[1..],
        &forwarder.previous_mask(),
        xfsz_was_default,
        pipes,
        keeper.as_ref().map(group::Keeper::group),
    )?;
    let collected = streams::collect(child, &forwarder, spill::Keeper::standard())?;
    // The child has ended: its background children live on, as bare.
    drop(keeper);
    drop(forwarder);

    let exit = match (collected.status.code(), collected.status.signal()) {
        (Some(code), _) => Exit::Code(code),
        (None, Some(signal)) => Exit::Signal(signal),
        // Only stopped or continued processes have neither, and those are
        // never reported as ended.
        (None, None) => Exit::Unknown,
    };
    if let Some(why) = collected.passed_through {
        return Ok(Captured::PassedThrough { exit, why });
    }
    let segments = collected.segments;
    let bytes = match collected.kept.finish() {
        Ok(bytes) => bytes,
        Err(spill::Unmapped { keeper, error }) => {
            // Kept but not readable as one slice: replayed as it was
            // captured, never lost.
            streams::replay_to_own(&keeper, &segments);
            return Ok(Captured::PassedThrough {
                exit,
                why: format!("mapping the spill file: {error}"),
            });
        }
    };
    if collected.stopped_by.is_some() || collected.reader_gone {
        return Ok(Captured::CutShort(CutShort {
            bytes,
            segments,
            exit,
            stopped_by: collected.stopped_by.map(|s| s as i32),
            reader_gone: collected.reader_gone,
        }));
    }
    let argv = argv
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut artifact = Artifact::from_bytes(bytes, segments, exit, argv);
    artifact.truncated = collected.cut_short;
    artifact.cwd = std::env::current_dir()
        .ok()
        .map(|d| d.to_string_lossy().into_owned());
    Ok(Captured::Complete(artifact))
}

/// Ignores SIGXFSZ in ctx; true when it had its default action before.
fn ignore_xfsz() -> bool {
    use nix::sys::signal::{SigHandler, Signal, signal};
    // SAFETY: SIG_IGN installs no handler.
    let previous = unsafe { signal(Signal::SIGXFSZ, SigHandler::SigIgn) };
    matches!(previous, Ok(SigHandler::SigDfl))
}
