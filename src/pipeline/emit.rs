//! Writing what the pipeline delivered: a digest to stdout, or the raw
//! streams replayed to where they came from, in the order they arrived.
//! A reader that went away (EPIPE) is not an error: the command's exit
//! status is what matters, and it is reported regardless.

use std::io::{self, Write};
use std::os::fd::BorrowedFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::stat::{SFlag, fstat};

use crate::artifact::{Artifact, Segment, Stream};

/// Where raw output goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawTo {
    /// Each stream to its own descriptor (`ctx run`).
    Split,
    /// Everything to stdout (`ctx pipe`, `ctx digest`).
    Stdout,
}

/// Set when a write to stdout met a reader that went away.
static READER_GONE: AtomicBool = AtomicBool::new(false);

/// True once a write to ctx's stdout failed because its reader went away
/// (EPIPE): `ctx pipe` then ends the way a bare filter would, by SIGPIPE.
pub fn reader_gone() -> bool {
    READER_GONE.load(Ordering::Relaxed)
}

fn watch(result: io::Result<()>) {
    if result.is_err_and(|e| e.kind() == io::ErrorKind::BrokenPipe) {
        READER_GONE.store(true, Ordering::Relaxed);
    }
}

/// What reaches the reader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// The raw output, unchanged.
    Raw,
    /// A digest.
    Digest(Vec<u8>),
}

/// Writes the output; ctx's note (if any) goes to stderr last.
pub fn write(artifact: &Artifact, output: &Output, note: Option<String>, raw_to: RawTo) {
    let stdout = io::stdout();
    let stderr = io::stderr();
    let mut out = stdout.lock();
    let mut err = stderr.lock();
    watch(match output {
        Output::Digest(bytes) => out.write_all(bytes),
        Output::Raw => write_raw(artifact, raw_to, &mut out, &mut err),
    });
    watch(out.flush());
    if let Some(note) = note {
        let _ = writeln!(err, "{note}");
    }
}

/// `ctx run --keep-tail|--keep-head`: what went past the agent's pipe on
/// stderr first, then the kept lines with the digest on stdout; ctx's
/// note last.
pub fn write_kept(stdout: &[u8], stderr: &[u8], note: Option<String>) {
    let _ = io::stderr().lock().write_all(stderr);
    let mut out = io::stdout().lock();
    watch(out.write_all(stdout));
    watch(out.flush());
    drop(out);
    if let Some(note) = note {
        let _ = writeln!(io::stderr().lock(), "{note}");
    }
}

/// The raw output, now, to the real descriptors (the fallback after a
/// fault: errors are ignored as in `write`).
pub fn write_raw_now(artifact: &Artifact, raw_to: RawTo) {
    let stdout = io::stdout();
    let stderr = io::stderr();
    let mut out = stdout.lock();
    let mut err = stderr.lock();
    watch(write_raw(artifact, raw_to, &mut out, &mut err));
    watch(out.flush());
}

/// Lines of ctx's own written beside the output (CI annotations): on
/// stdout after what went there, or on stderr.
pub fn beside(bytes: &[u8], on_stdout: bool) {
    if on_stdout {
        let mut out = io::stdout().lock();
        watch(out.write_all(bytes));
        watch(out.flush());
    } else {
        let _ = io::stdout().flush();
        let _ = io::stderr().lock().write_all(bytes);
    }
}

/// One ctx note on stderr, after stdout is flushed.
/// The text delivery written to stderr, beside a document on stdout that
/// could not hold it (a refused `--format sarif|junit`).
pub fn write_aside(artifact: &Artifact, output: &Output) {
    let _ = io::stdout().flush();
    let stderr = io::stderr();
    let mut err = stderr.lock();
    let _ = match output {
        Output::Digest(bytes) => err.write_all(bytes),
        Output::Raw => {
            let mut also = io::stderr();
            write_raw(artifact, RawTo::Stdout, &mut err, &mut also)
        }
    };
    let _ = err.flush();
}

pub fn note(line: &str) {
    let _ = io::stdout().flush();
    let _ = writeln!(io::stderr().lock(), "{line}");
}

/// Replays the artifact's segments, each to its stream.
pub fn write_raw(
    artifact: &Artifact,
    raw_to: RawTo,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<()> {
    replay(artifact.bytes(), artifact.segments(), raw_to, out, err)
}

/// Replays `bytes`, cut into `segments` (as an `Artifact` holds them), each
/// segment to its stream.
pub fn replay(
    bytes: &[u8],
    segments: &[Segment],
    raw_to: RawTo,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<()> {
    let mut at = 0usize;
    for segment in segments {
        let range = at..at + segment.len as usize;
        at = range.end;
        match (raw_to, segment.stream) {
            (RawTo::Split, Stream::Stderr) => {
                out.flush()?;
                err.write_all(&bytes[range])?;
                err.flush()?;
            }
            _ => out.write_all(&bytes[range])?,
        }
    }
    Ok(())
}

/// A writer to a descriptor that gives up at a deadline instead of
/// blocking past it (a reader that stopped reading must not keep ctx
/// alive after it was asked to stop). It waits for room with `poll` and
/// writes at most one page at a time, which a pipe with room never blocks
/// on. Counts what it wrote.
pub struct Deadline<'a> {
    fd: BorrowedFd<'a>,
    until: Instant,
    /// The most one write passes on: a page for a pipe or socket, more for
    /// a file, which never makes a writer wait for a reader.
    chunk: usize,
    pub written: u64,
}

impl<'a> Deadline<'a> {
    pub fn new(fd: BorrowedFd<'a>, until: Instant) -> Deadline<'a> {
        let file = fstat(fd).is_ok_and(|st| {
            SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT == SFlag::S_IFREG
        });
        Deadline {
            fd,
            until,
            chunk: if file { FILE_CHUNK } else { PAGE },
            written: 0,
        }
    }
}

impl Write for Deadline<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        let ms = u16::try_from(left.as_millis()).unwrap_or(u16::MAX);
        let mut fds = [PollFd::new(self.fd, PollFlags::POLLOUT)];
        match poll(&mut fds, PollTimeout::from(ms)) {
            Ok(0) => return Err(io::ErrorKind::TimedOut.into()),
            Ok(_) => {}
            Err(Errno::EINTR) => return Err(io::ErrorKind::Interrupted.into()),
            Err(e) => return Err(e.into()),
        }
        let n = nix::unistd::write(self.fd, &buf[..buf.len().min(self.chunk)])?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// What one write is sure to fit in a pipe that has room: a pipe reports
/// room (POLLOUT) once a page is free.
const PAGE: usize = 4096;

/// One write to a regular file.
const FILE_CHUNK: usize = 1 << 20;
