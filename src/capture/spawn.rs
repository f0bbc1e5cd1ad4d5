//! Starting the child with `posix_spawn`, not `std::process::Command`,
//! because the child's start state must be exact and std cannot give it:
//! - std passes on the spawning thread's signal mask, which blocks the
//!   forwarded signals at this point; the child must get ctx's original
//!   mask (`POSIX_SPAWN_SETSIGMASK`). Fixing that with `pre_exec` forces a
//!   `fork` and std's `execvp`, whose glibc fallback feeds any ENOEXEC file
//!   to `/bin/sh`, binaries included (bash says 126 for those).
//! - SIGPIPE, ignored by Rust's runtime, goes back to its default
//!   (`POSIX_SPAWN_SETSIGDEF`), as it was for ctx's own parent; so does
//!   SIGXFSZ, which ctx ignores while capturing, when it was default.
//! - `posix_spawn` of an exact path does no PATH search and no script
//!   fallback, so `resolve` alone decides what runs.
//!
//! - Where no terminal's job control is involved (no controlling terminal,
//!   or ctx is not in its foreground group: an agent's or a CI job's
//!   command), the child gets a process group of its own, so that a signal
//!   sent to ctx's group (an agent's ^C or TERM to the group) reaches the
//!   child once, forwarded by ctx, and not twice (`group.rs`: the group's
//!   keeper makes it die with ctx's, as the bare command would). Under a
//!   terminal's job control the child stays in ctx's group.
//!
//! The wait status is read raw: nix's `WaitStatus` cannot represent a death
//! by a real-time signal.

use std::ffi::{CString, OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::ExitStatus;

use nix::errno::Errno;
use nix::fcntl::OFlag;
use nix::spawn::{PosixSpawnAttr, PosixSpawnFileActions, PosixSpawnFlags, posix_spawn};
use nix::sys::signal::{SigSet, Signal};
use nix::unistd::{Pid, pipe2};

use super::CaptureError;
use super::resolve::{self, LaunchError};

/// A running child: its pid and the read ends of its output pipes.
pub struct Child {
    pub pid: Pid,
    /// The process group of its own the child runs in (`group.rs`):
    /// signals are forwarded to that group.
    pub group: Option<Pid>,
    pub stdout: Option<File>,
    pub stderr: Option<File>,
}

impl Child {
    /// The child's status if it has ended (reaping it), else `None`.
    pub fn try_wait(&self) -> io::Result<Option<ExitStatus>> {
        let mut status = 0;
        loop {
            // SAFETY: waitpid writes one int through a valid pointer.
            let r = unsafe { libc::waitpid(self.pid.as_raw(), &mut status, libc::WNOHANG) };
            match r {
                0 => return Ok(None),
                r if r > 0 => return Ok(Some(ExitStatus::from_raw(status))),
                _ if Errno::last() == Errno::EINTR => continue,
                _ => return Err(io::Error::last_os_error()),
            }
        }
    }
}

/// Starts `program` as `argv0 args…`, stdin inherited, stdout and stderr
/// on fresh pipes, with signal mask `mask`. `xfsz_default`: SIGXFSZ, which
/// ctx ignores while it captures, goes back to its default action.
pub fn spawn(
    program: &Path,
    argv0: &OsStr,
    args: &[OsString],
    mask: &SigSet,
    xfsz_default: bool,
    pipes: super::Pipes,
    group: Option<Pid>,
) -> Result<Child, CaptureError> {
    let mut defaults = SigSet::empty();
    defaults.add(Signal::SIGPIPE);
    if xfsz_default {
        defaults.add(Signal::SIGXFSZ);
    }
    let launch =
        |program: &Path, argv: &[CString]| start(program, argv, mask, &defaults, pipes, group);
    let mut argv = vec![c_string(argv0)?];
    for a in args {
        argv.push(c_string(a)?);
    }
    match launch(program, &argv)? {
        Ok(child) => Ok(child),
        Err(Errno::ENOEXEC) if !resolve::looks_binary(program) => {
            // A text file without `#!`: a shell runs it as a script.
            let mut script = vec![c"sh".to_owned(), c_string(program.as_os_str())?];
            script.extend(argv.into_iter().skip(1));
            let shell = Path::new(resolve::SCRIPT_SHELL);
            launch(shell, &script)?.map_err(|e| LaunchError::from_exec(program, e).into())
        }
        Err(errno) => Err(LaunchError::from_exec(program, errno).into()),
    }
}

/// One `posix_spawn`: the outer error is ctx's own failure, the inner one
/// the exec's.
fn start(
    program: &Path,
    argv: &[CString],
    mask: &SigSet,
    defaults: &SigSet,
    pipes: super::Pipes,
    group: Option<Pid>,
) -> Result<Result<Child, Errno>, CaptureError> {
    let (out_r, out_w) = pipe()?;
    let (err_r, err_w) = match pipes {
        super::Pipes::Separate => {
            let (r, w) = pipe()?;
            (Some(r), Some(w))
        }
        super::Pipes::Merged => (None, None),
    };
    let err_fd = err_w.as_ref().map_or(out_w.as_raw_fd(), |w| w.as_raw_fd());
    let mut actions = PosixSpawnFileActions::init().map_err(io::Error::from)?;
    actions
        .add_dup2(out_w.as_raw_fd(), libc::STDOUT_FILENO)
        .and_then(|()| actions.add_dup2(err_fd, libc::STDERR_FILENO))
        .map_err(io::Error::from)?;
    let mut attr = PosixSpawnAttr::init().map_err(io::Error::from)?;
    let mut flags =
        PosixSpawnFlags::POSIX_SPAWN_SETSIGMASK | PosixSpawnFlags::POSIX_SPAWN_SETSIGDEF;
    if let Some(group) = group {
        flags |= PosixSpawnFlags::POSIX_SPAWN_SETPGROUP;
        attr.set_pgroup(group).map_err(io::Error::from)?;
    }
    attr.set_flags(flags)
        .and_then(|()| attr.set_sigmask(mask))
        .and_then(|()| attr.set_sigdefault(defaults))
        .map_err(io::Error::from)?;
    let env = environment();
    let spawned = posix_spawn(program, &actions, &attr, argv, &env);
    // The child holds its own copies; ctx must not, or the pipes never
    // reach end of file.
    drop((out_w, err_w));
    Ok(spawned.map(|pid| Child {
        pid,
        group,
        stdout: Some(File::from(out_r)),
        stderr: err_r.map(File::from),
    }))
}

/// A pipe whose ends are not inherited by anything but the child's dup2.
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    pipe2(OFlag::O_CLOEXEC).map_err(io::Error::from)
}

fn environment() -> Vec<CString> {
    std::env::vars_os()
        .filter_map(|(key, value)| {
            let mut entry = key.as_bytes().to_vec();
            entry.push(b'=');
            entry.extend_from_slice(value.as_bytes());
            CString::new(entry).ok()
        })
        .collect()
}

fn c_string(s: &OsStr) -> Result<CString, CaptureError> {
    CString::new(s.as_bytes()).map_err(|_| {
        LaunchError::Os(
            s.to_string_lossy().into_owned(),
            "argument contains a NUL byte".into(),
        )
        .into()
    })
}
