//! One tool call runs one ctx process: the same binary as the server,
//! with the argv calls.rs built, stdin closed (the server's stdin is the
//! protocol), and stdout and stderr on one pipe so that the text comes
//! back in the order ctx wrote it. Nothing it prints is lost: the output
//! is read to its end, and a call that runs over its time is stopped the
//! way `ctx run` expects (SIGTERM, which it forwards to the command and
//! then digests what was captured), SIGKILL only after a grace period.
//!
//! The process leads its own process group, and the group is what is
//! stopped, a grandchild in the background included:
//!
//! - a call the client cancels (`notifications/cancelled`): SIGKILL at
//!   once to every process of the group but ctx, which sees its command
//!   killed and prints the digest of what it captured up to then;
//! - a call over its time: SIGTERM to the whole group (ctx forwards it and
//!   digests), after the grace period SIGKILL to the command's side as
//!   above, after another SIGKILL to ctx too;
//! - once ctx has ended after either, SIGKILL to whatever is left of the
//!   group, so nothing the call started outlives it.
//!
//! What ctx printed before it ended is kept in the result.

use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use nix::fcntl::OFlag;
use nix::sys::signal::{Signal, killpg};
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
    /// The client cancelled the call and it was killed.
    pub cancelled: bool,
}

impl Finished {
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }

    pub fn signal(&self) -> Option<i32> {
        self.status.signal()
    }
}

/// How far the stopping of a call has gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    Running,
    /// SIGTERM to the whole group (ctx forwards it and digests).
    Termed,
    /// SIGKILL to every process of the group but ctx, which then digests
    /// what the command printed up to then.
    CommandKilled,
    /// SIGKILL to ctx too.
    AllKilled,
}

/// SIGKILL to every process in the group `pgid` except its leader (ctx):
/// the command and every process it started end at once, and ctx, seeing
/// its command killed, prints the digest of what it captured. Repeated
/// while new members appear (a fork racing the kill).
fn kill_command(pgid: Pid) {
    for _ in 0..8 {
        let members = group_members(pgid);
        if members.is_empty() {
            return;
        }
        for member in members {
            let _ = nix::sys::signal::kill(member, Signal::SIGKILL);
        }
    }
}

/// The live processes of group `pgid` other than its leader, from /proc,
/// and of the group ctx gave its command (led by ctx's keeper, a child of
/// ctx that leads a group of its own: capture/group.rs).
fn group_members(pgid: Pid) -> Vec<Pid> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let processes: Vec<(i32, i32, i32)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|p| {
            // `pid (comm) state ppid pgrp …`; comm may hold spaces or
            // parentheses, so the fields are read after the last `)`.
            let stat = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
            let rest = stat.rsplit_once(')')?.1;
            let mut fields = rest.split_whitespace();
            let state = fields.next()?;
            let ppid: i32 = fields.next()?.parse().ok()?;
            let pgrp: i32 = fields.next()?.parse().ok()?;
            (state != "Z").then_some((p, ppid, pgrp))
        })
        .collect();
    let leader = pgid.as_raw();
    let kept: Vec<i32> = processes
        .iter()
        .filter(|&&(p, ppid, pgrp)| ppid == leader && pgrp == p)
        .map(|&(p, _, _)| p)
        .collect();
    processes
        .iter()
        .filter(|&&(p, _, pgrp)| p != leader && (pgrp == leader || kept.contains(&pgrp)))
        .map(|&(p, _, _)| Pid::from_raw(p))
        .collect()
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

/// Runs `program` (ctx) as `invocation` says, with `env` added to the
/// server's environment, and collects what it prints.
pub async fn run(
    program: &Path,
    env: &[(&str, &str)],
    invocation: &Invocation,
    cancel: impl std::future::Future<Output = ()>,
) -> io::Result<Finished> {
    let (read_end, write_end) = nix::unistd::pipe2(OFlag::O_CLOEXEC)?;
    let stderr_end = write_end.try_clone()?;
    let mut command = tokio::process::Command::new(program);
    command
        .args(&invocation.argv)
        .stdin(Stdio::null())
        .stdout(Stdio::from(write_end))
        .stderr(Stdio::from(stderr_end))
        .process_group(0);
    command.envs(env.iter().copied());
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
    let mut cancelled = false;
    let mut stage = Stage::Running;
    let mut deadline = Instant::now() + invocation.timeout;
    let mut cancel = std::pin::pin!(cancel);
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
                if stage != Stage::Running {
                    // Stopped: what is left of the group (a grandchild that
                    // ignored SIGTERM) goes too.
                    let _ = killpg(pid, Signal::SIGKILL);
                }
                deadline = Instant::now() + DRAIN;
            },
            () = &mut cancel, if !cancelled && status.is_none() => {
                cancelled = true;
                if stage < Stage::CommandKilled {
                    kill_command(pid);
                    stage = Stage::CommandKilled;
                    deadline = Instant::now() + GRACE;
                }
            },
            () = sleep_until(deadline) => {
                if status.is_some() {
                    // ctx is gone; whatever still holds the pipe is not
                    // this call's output.
                    break;
                }
                stage = match stage {
                    Stage::Running => {
                        timed_out = true;
                        let _ = killpg(pid, Signal::SIGTERM);
                        Stage::Termed
                    }
                    Stage::Termed => {
                        kill_command(pid);
                        Stage::CommandKilled
                    }
                    Stage::CommandKilled => {
                        let _ = killpg(pid, Signal::SIGKILL);
                        Stage::AllKilled
                    }
                    Stage::AllKilled => {
                        return Err(io::Error::other("the ctx process did not end after SIGKILL"));
                    }
                };
                deadline = Instant::now() + GRACE;
            },
        }
    }
    let status = status.ok_or_else(|| io::Error::other("the ctx process was not reaped"))?;
    Ok(Finished {
        output,
        dropped,
        status,
        timed_out,
        cancelled,
    })
}
