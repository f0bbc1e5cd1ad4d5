//! The capture loop: one `poll` over the child's stdout pipe, its stderr
//! pipe and the signal descriptor. Bytes are appended in the order the
//! reads return them, and each read is recorded as a segment of its
//! stream, merged with the previous one when the stream did not change.
//!
//! The loop ends when both pipes are at end of file and the child has been
//! reaped, as a shell's `$(…)` does: a background process that keeps the
//! pipes open keeps ctx reading. The child is reaped as soon as SIGCHLD says
//! it ended, and from then on nothing is forwarded, so a signal can never
//! reach a process that reused its pid.
//!
//! Two events end the capture early, so that ctx behaves like the bare
//! command would have:
//! - A stop request (SIGINT, SIGTERM, SIGHUP, SIGQUIT) reaching ctx: it is
//!   forwarded, the child decides how to end, and once it is reaped ctx
//!   takes what the pipes hold right now and stops reading. Background
//!   processes still holding the pipes no longer keep ctx alive.
//! - The reader of ctx's own stdout going away (a pipe or socket reporting
//!   an error or hang-up): ctx closes its end of the child's stdout pipe, so
//!   the child's next write meets the broken pipe (SIGPIPE, or EPIPE where
//!   it ignores that) exactly as it would have without ctx in between.
//!
//! The bytes go into the spill chain `ctx pipe` uses (`spill::Keeper`):
//! memory up to the spill threshold, then an unlinked file, so a large
//! output costs ctx a read buffer, not its size. When no place can keep
//! them, what was kept is replayed to ctx's stdout and stderr in arrival
//! order and every later read goes straight out as it arrives: the output
//! is passed through undigested, never lost.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::process::ExitStatus;

use nix::errno::Errno;
use nix::fcntl::{FcntlArg, OFlag, fcntl};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::signal::Signal;

use super::signals::{Event, Forwarder};
use super::spawn::Child;
use super::spill::{GaveUp, Keeper};
use super::watched::reader_can_leave;
use crate::artifact::{Segment, Stream};

/// A pipe's read size: Linux's default pipe capacity, so one read usually
/// empties the pipe.
const CHUNK: usize = 64 * 1024;

/// What the loop collected.
pub struct Collected {
    /// Both streams' bytes in arrival order.
    pub kept: Keeper,
    pub segments: Vec<Segment>,
    /// Every byte read, kept or passed through.
    pub read: u64,
    /// No place could keep the output: from then on it went to ctx's own
    /// stdout and stderr as it arrived. Why the places failed.
    pub passed_through: Option<String>,
    pub status: ExitStatus,
    /// ctx stopped reading before end of file (see `collect`).
    pub cut_short: bool,
    /// The stop request that reached ctx, if one did.
    pub stopped_by: Option<Signal>,
    /// The reader of ctx's stdout went away during the capture.
    pub reader_gone: bool,
}

/// The most a stop request's last look into the pipes takes: a background
/// process writing without pause must not keep ctx reading.
const LAST_LOOK: usize = 16 << 20;

/// Reads both streams to end of file and waits for the child, forwarding
/// signals all the while.
pub fn collect(mut child: Child, signals: &Forwarder, kept: Keeper) -> io::Result<Collected> {
    let pid = child.pid;
    let group = child.group;
    let mut stdout: Option<File> = child.stdout.take();
    let mut stderr: Option<File> = child.stderr.take();
    let mut collected = Collected {
        kept,
        segments: Vec::new(),
        read: 0,
        passed_through: None,
        status: ExitStatus::default(),
        cut_short: false,
        stopped_by: None,
        reader_gone: false,
    };
    let mut status: Option<ExitStatus> = None;
    let mut buf = vec![0u8; CHUNK];
    // Watched for an error or hang-up only (no events asked): a pipe or a
    // socket whose reader is gone. A file or a terminal never reports it.
    let own_stdout = io::stdout();
    let mut watch = reader_can_leave(own_stdout.as_fd()).then(|| own_stdout.as_fd());
    loop {
        if status.is_some()
            && collected.stopped_by.is_some()
            && (stdout.is_some() || stderr.is_some())
        {
            // The child ended after a stop request: what it wrote is in the
            // pipes now; whatever holds them after it is not waited for.
            last_look(&mut stdout, Stream::Stdout, &mut buf, &mut collected)?;
            last_look(&mut stderr, Stream::Stderr, &mut buf, &mut collected)?;
            collected.cut_short |= stdout.is_some() || stderr.is_some();
            stdout = None;
            stderr = None;
        }
        if stdout.is_none() && stderr.is_none() {
            // SIGCHLD is not queued per child and may have been consumed
            // before the pipes closed: ask directly before waiting on it.
            if status.is_none() {
                status = child.try_wait()?;
            }
            if let Some(status) = status {
                collected.status = status;
                return Ok(collected);
            }
        }
        let ready = wait_ready(signals, &stdout, &stderr, watch)?;
        if ready.reader_gone {
            // Dropping the read end is what the child would have met.
            watch = None;
            collected.reader_gone = true;
            if stdout.take().is_some() {
                collected.cut_short = true;
            }
        }
        let (signalled, out_ready, err_ready) = (ready.signals, ready.stdout, ready.stderr);
        if signalled {
            for event in signals.pending().map_err(io::Error::from)? {
                match event {
                    Event::ChildChanged if status.is_none() => status = child.try_wait()?,
                    Event::Forward {
                        signal,
                        from_terminal,
                    } => {
                        collected.stopped_by.get_or_insert(signal);
                        if status.is_none() {
                            // A terminal's ^C reached the child's group
                            // too, unless that group is its own.
                            if group.is_some() || !from_terminal {
                                super::group::forward(pid, group, signal);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        if out_ready {
            drain(&mut stdout, Stream::Stdout, &mut buf, &mut collected)?;
        }
        if err_ready {
            drain(&mut stderr, Stream::Stderr, &mut buf, &mut collected)?;
        }
    }
}

/// What one wake-up found.
struct Ready {
    signals: bool,
    stdout: bool,
    stderr: bool,
    reader_gone: bool,
}

/// Blocks until something is ready; says which of the signals, the two
/// pipes can be read without blocking, and whether ctx's reader left.
fn wait_ready(
    signals: &Forwarder,
    stdout: &Option<File>,
    stderr: &Option<File>,
    watch: Option<BorrowedFd>,
) -> io::Result<Ready> {
    let mut fds = vec![PollFd::new(signals.as_fd(), PollFlags::POLLIN)];
    let watch_at = watch.map(|fd| {
        fds.push(PollFd::new(fd, PollFlags::empty()));
        fds.len() - 1
    });
    let out_at = stdout.as_ref().map(|p| {
        fds.push(PollFd::new(p.as_fd(), PollFlags::POLLIN));
        fds.len() - 1
    });
    let err_at = stderr.as_ref().map(|p| {
        fds.push(PollFd::new(p.as_fd(), PollFlags::POLLIN));
        fds.len() - 1
    });
    loop {
        match poll(&mut fds, PollTimeout::NONE) {
            Ok(_) => break,
            Err(Errno::EINTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    // POLLHUP and POLLERR count as ready: the read then sees end of file.
    let ready = |at: Option<usize>| {
        at.and_then(|i| fds[i].revents())
            .is_some_and(|r| !r.is_empty())
    };
    Ok(Ready {
        signals: ready(Some(0)),
        stdout: ready(out_at),
        stderr: ready(err_at),
        reader_gone: ready(watch_at),
    })
}

/// Reads what `pipe` holds right now, without waiting for more (at most
/// [`LAST_LOOK`] bytes), then closes it.
fn last_look(
    pipe: &mut Option<File>,
    stream: Stream,
    buf: &mut [u8],
    collected: &mut Collected,
) -> io::Result<()> {
    let Some(file) = pipe.as_ref() else {
        return Ok(());
    };
    let flags = OFlag::from_bits_truncate(fcntl(file, FcntlArg::F_GETFL)?);
    fcntl(file, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK))?;
    let start = collected.read;
    while pipe.is_some() && collected.read - start < LAST_LOOK as u64 {
        match drain(pipe, stream, buf, collected) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(e) => return Err(e),
        }
    }
    *pipe = None;
    Ok(())
}

/// One read from a ready pipe; end of file closes it.
fn drain<R: Read>(
    pipe: &mut Option<R>,
    stream: Stream,
    buf: &mut [u8],
    collected: &mut Collected,
) -> io::Result<()> {
    let Some(reader) = pipe.as_mut() else {
        return Ok(());
    };
    let n = loop {
        match reader.read(buf) {
            Ok(n) => break n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    };
    if n == 0 {
        *pipe = None;
        return Ok(());
    }
    collected.read += n as u64;
    if collected.passed_through.is_some() {
        if live(stream, &buf[..n]).is_err() && stream == Stream::Stdout {
            // The reader left: the child meets the broken pipe itself.
            *pipe = None;
            collected.reader_gone = true;
        }
        return Ok(());
    }
    let (kept, gave_up) = match collected.kept.append(&buf[..n]) {
        Ok(()) => (n, false),
        Err(GaveUp { kept }) => (kept, true),
    };
    if kept > 0 {
        match collected.segments.last_mut() {
            Some(last) if last.stream == stream => last.len += kept as u64,
            _ => collected.segments.push(Segment {
                stream,
                len: kept as u64,
            }),
        }
    }
    if gave_up {
        collected.passed_through = Some(collected.kept.failures());
        // What was kept goes out first, in arrival order; ctx's stdout may
        // have no reader, so a failed write there is not the end of stderr.
        let _ = replay_kept(&collected.kept, &collected.segments);
        collected.kept = Keeper::new(0, Vec::new());
        collected.segments.clear();
        if live(stream, &buf[kept..n]).is_err() && stream == Stream::Stdout {
            *pipe = None;
            collected.reader_gone = true;
        }
    }
    Ok(())
}

/// Writes `bytes` of `stream` to ctx's own descriptor of that stream.
fn live(stream: Stream, bytes: &[u8]) -> io::Result<()> {
    match stream {
        Stream::Stdout => {
            let mut out = io::stdout().lock();
            out.write_all(bytes)?;
            out.flush()
        }
        Stream::Stderr => io::stderr().lock().write_all(bytes),
    }
}

/// Writes what `kept` holds to ctx's own stdout and stderr, each segment
/// to its stream, in order; failures are not the end of the other stream.
pub fn replay_to_own(kept: &Keeper, segments: &[Segment]) {
    let _ = replay_kept(kept, segments);
}

/// Writes what `kept` holds, each segment to its own stream, in order.
fn replay_kept(kept: &Keeper, segments: &[Segment]) -> io::Result<()> {
    let mut segments = segments.iter().copied();
    let mut current = segments.next();
    let mut failed = None;
    kept.for_each_block(|mut block| {
        while !block.is_empty() {
            let Some(segment) = current.as_mut() else {
                return Ok(());
            };
            let take = block.len().min(segment.len as usize);
            if let Err(e) = live(segment.stream, &block[..take]) {
                failed.get_or_insert(e);
            }
            block = &block[take..];
            segment.len -= take as u64;
            if segment.len == 0 {
                current = segments.next();
            }
        }
        Ok(())
    })?;
    failed.map_or(Ok(()), Err)
}
