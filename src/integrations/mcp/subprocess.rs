//! One tool call runs one ctx process: the same binary as the server,
//! with the argv calls.rs built, stdin closed (the server's stdin is the
//! protocol), and stdout and stderr on one pipe so that the text comes
//! back in the order ctx wrote it. Nothing it prints is lost: the output
//! is read to its end, and a call that runs over its time is stopped the
//! way `ctx run` expects (SIGTERM, which it forwards to the command and
//! then digests what was captured), SIGKILL only after a grace period.
//!
//! The process leads its own process group, so a call the client cancels
//! (its future dropped) takes the command with it.

use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use nix::fcntl::OFlag;
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;
use tokio::time::{Instant, sleep_until};

use super::calls::Invocation;

/// How long a stopped call has to finish after SIGTERM (ctx digests what
/// the command printed) before SIGKILL.
const GRACE: Duration = Duration::from_secs(5);

/// How long output may still arrive after ctx exited: a process that
/// outlived ctx and holds the pipe (a daemon started by a command run
/// in place) must not hold the call.
const DRAIN: Duration = Duration::from_secs(2);

/// The most output one call keeps (`ctx expand --all` of a huge record):
/// the rest is read and counted, not kept.
pub const KEEP_BYTES: usize = 32 << 20;

/// How a call ended.
#[derive(Debug)]
pub struct Finished {
    /// stdout and stderr as ctx wrote them, at most `KEEP_BYTES`.
    pub output: Vec<u8>,
    /// Bytes read past `KEEP_BYTES`.
    pub dropped: u64,
    pub status: ExitStatus,
    /// The call ran over its time and was stopped.
    pub timed_out: bool,
}

impl Finished {
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }

    pub fn signal(&self) -> Option<i32> {
        self.status.signal()
    }
}

/// Kills the process group when the call is abandoned before its process
/// was reaped.
struct Group {
    pid: Pid,
    armed: bool,
}

impl Drop for Group {
    fn drop(&mut self) {
        if self.armed {
            let _ = killpg(self.pid, Signal::SIGKILL);
        }
    }
}

/// Runs `program` (ctx) as `invocation` says and collects what it prints.
pub async fn run(program: &Path, invocation: &Invocation) -> io::Result<Finished> {
    let (read_end, write_end) = nix::unistd::pipe2(OFlag::O_CLOEXEC)?;
    let stderr_end = write_end.try_clone()?;
    let mut command = tokio::process::Command::new(program);
    command
        .args(&invocation.argv)
        .stdin(Stdio::null())
        .stdout(Stdio::from(write_end))
        .stderr(Stdio::from(stderr_end))
        .process_group(0);
    if let Some(dir) = &invocation.cwd {
        command.current_dir(dir);
    }
    let mut child = command.spawn()?;
    // The command holds the parent's copies of the write end: dropped, so
    // that the pipe ends when ctx and its children close theirs.
    drop(command);
    let pid = child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .map(Pid::from_raw)
        .ok_or_else(|| io::Error::other("the ctx process has no pid"))?;
    let mut group = Group { pid, armed: true };
    let mut reader = pipe::Receiver::from_owned_fd(read_end)?;

    let mut output = Vec::new();
    let mut dropped = 0u64;
    let mut chunk = vec![0u8; 64 << 10];
    let mut eof = false;
    let mut status = None;
    let mut timed_out = false;
    let mut killed = false;
    let mut deadline = Instant::now() + invocation.timeout;
    loop {
        if eof && status.is_some() {
            break;
        }
        tokio::select! {
            read = reader.read(&mut chunk), if !eof => match read {
                Ok(0) => eof = true,
                Ok(n) => {
                    let room = KEEP_BYTES.saturating_sub(output.len()).min(n);
                    output.extend_from_slice(&chunk[..room]);
                    dropped += (n - room) as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            },
            waited = child.wait(), if status.is_none() => {
                status = Some(waited?);
                group.armed = false;
                deadline = Instant::now() + DRAIN;
            },
            () = sleep_until(deadline) => {
                if status.is_some() {
                    // ctx is gone; whatever still holds the pipe is not
                    // this call's output.
                    break;
                }
                if !timed_out {
                    timed_out = true;
                    let _ = kill(pid, Signal::SIGTERM);
                    deadline = Instant::now() + GRACE;
                } else if !killed {
                    killed = true;
                    let _ = killpg(pid, Signal::SIGKILL);
                    deadline = Instant::now() + GRACE;
                } else {
                    return Err(io::Error::other("the ctx process did not end after SIGKILL"));
                }
            },
        }
    }
    let status = status.ok_or_else(|| io::Error::other("the ctx process was not reaped"))?;
    Ok(Finished {
        output,
        dropped,
        status,
        timed_out,
    })
}
