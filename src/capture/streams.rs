//! The capture loop: one `poll` over the child's stdout pipe, its stderr
//! pipe and the signal descriptor. Bytes are appended in the order the
//! reads return them, and each read is recorded as a segment of its
//! stream, merged with the previous one when the stream did not change.
//!
//! The loop ends when both pipes are at end of file and the child has been
//! reaped, as a shell's `$(…)` does: a background process that keeps the
//! pipes open keeps ctx reading. The child is reaped as soon as SIGCHLD says
//! it ended, and from then on nothing is forwarded, so a signal can never
//! reach a process that reused its pid; a stop request then ends the wait
//! for the background holders instead.

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::AsFd;
use std::process::ExitStatus;

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

use super::signals::{Event, Forwarder};
use super::spawn::Child;
use crate::artifact::{Segment, Stream};

/// A pipe's read size: Linux's default pipe capacity, so one read usually
/// empties the pipe.
const CHUNK: usize = 64 * 1024;

/// What the loop collected.
pub struct Collected {
    pub bytes: Vec<u8>,
    pub segments: Vec<Segment>,
    pub status: ExitStatus,
    /// ctx stopped reading before end of file (see `collect`).
    pub cut_short: bool,
}

/// Reads both streams to end of file and waits for the child, forwarding
/// signals all the while.
pub fn collect(mut child: Child, signals: &Forwarder) -> io::Result<Collected> {
    let pid = child.pid;
    let mut stdout: Option<File> = child.stdout.take();
    let mut stderr: Option<File> = child.stderr.take();
    let mut collected = Collected {
        bytes: Vec::new(),
        segments: Vec::new(),
        status: ExitStatus::default(),
        cut_short: false,
    };
    let mut status: Option<ExitStatus> = None;
    let mut buf = vec![0u8; CHUNK];
    loop {
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
        let (signalled, out_ready, err_ready) = wait_ready(signals, &stdout, &stderr)?;
        if signalled {
            for event in signals.pending().map_err(io::Error::from)? {
                match event {
                    Event::ChildChanged if status.is_none() => status = child.try_wait()?,
                    Event::Forward {
                        signal,
                        from_terminal,
                    } if status.is_none() => Forwarder::forward(pid, signal, from_terminal),
                    // The child is gone and only a background process holds
                    // the pipes: a request to stop ends the wait for it, and
                    // what it might still write is cut off.
                    Event::Forward { .. } if stdout.is_some() || stderr.is_some() => {
                        stdout = None;
                        stderr = None;
                        collected.cut_short = true;
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

/// Blocks until something is ready; says which of (signals, stdout,
/// stderr) can be read without blocking.
fn wait_ready(
    signals: &Forwarder,
    stdout: &Option<File>,
    stderr: &Option<File>,
) -> io::Result<(bool, bool, bool)> {
    let mut fds = vec![PollFd::new(signals.as_fd(), PollFlags::POLLIN)];
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
    Ok((ready(Some(0)), ready(out_at), ready(err_at)))
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
    collected.bytes.extend_from_slice(&buf[..n]);
    match collected.segments.last_mut() {
        Some(last) if last.stream == stream => last.len += n as u64,
        _ => collected.segments.push(Segment {
            stream,
            len: n as u64,
        }),
    }
    Ok(())
}
