//! Forwarding the signals that ask a command to stop (SIGINT, SIGTERM,
//! SIGHUP, SIGQUIT) from ctx to the child, through a signalfd.
//!
//! Why a signalfd rather than handlers (signal-hook, a self-pipe): a
//! blocked signal read from a descriptor changes no disposition, so a
//! signal ctx was started with ignored (`nohup`, a background job) stays
//! ignored in the child exactly as it would without ctx, since only
//! ignored dispositions survive execve. The descriptor also sits in the
//! same `poll` as the child's pipes, so there is no handler, no
//! async-signal-safety question and no second thread. SIGCHLD is taken the
//! same way, so the loop learns that the child ended without polling.
//!
//! The child must not inherit the blocked set: `spawn` hands it ctx's
//! original mask instead.

use std::os::fd::{AsFd, BorrowedFd};

use nix::errno::Errno;
use nix::sys::signal::{self, SigHandler, SigSet, SigmaskHow, Signal};
use nix::sys::signalfd::{SfdFlags, SignalFd};

/// The signals ctx passes on to the child.
pub const FORWARDED: [Signal; 4] = [
    Signal::SIGINT,
    Signal::SIGTERM,
    Signal::SIGHUP,
    Signal::SIGQUIT,
];

/// What one signal read from the descriptor means for the capture loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The child changed state: time to try reaping it.
    ChildChanged,
    /// A signal to pass on (`group::forward`), unless the kernel already
    /// sent it to the whole foreground process group, child included: a
    /// terminal's ^C or ^\ sent again would be a double ^C, which many
    /// tools read as "abort now, skip the cleanup".
    Forward { signal: Signal, from_terminal: bool },
}

/// Holds the forwarded signals and SIGCHLD blocked while the child runs;
/// dropping it discards what is still pending and restores ctx's mask.
pub struct Forwarder {
    fd: SignalFd,
    previous_mask: SigSet,
}

impl Forwarder {
    /// Blocks the signals and opens the descriptor. Must run before the
    /// child is spawned (so no signal slips between spawn and poll) and
    /// while ctx has a single thread (the mask is per thread).
    pub fn install() -> Result<Forwarder, Errno> {
        // An inherited SIG_IGN for SIGCHLD makes the kernel reap children
        // on its own, and the exit status would be lost.
        // SAFETY: SIG_DFL installs no handler.
        unsafe { signal::signal(Signal::SIGCHLD, SigHandler::SigDfl) }?;
        let mut set = SigSet::empty();
        for s in FORWARDED {
            set.add(s);
        }
        set.add(Signal::SIGCHLD);
        let mut previous_mask = SigSet::empty();
        signal::sigprocmask(SigmaskHow::SIG_BLOCK, Some(&set), Some(&mut previous_mask))?;
        let fd = SignalFd::with_flags(&set, SfdFlags::SFD_NONBLOCK | SfdFlags::SFD_CLOEXEC)
            .inspect_err(|_| {
                let _ = signal::sigprocmask(SigmaskHow::SIG_SETMASK, Some(&previous_mask), None);
            })?;
        Ok(Forwarder { fd, previous_mask })
    }

    /// ctx's mask from before `install`: what the child must start with.
    pub fn previous_mask(&self) -> SigSet {
        self.previous_mask
    }

    /// Every signal pending right now, in the order the kernel gives them.
    pub fn pending(&self) -> Result<Vec<Event>, Errno> {
        let mut events = Vec::new();
        while let Some(info) = self.fd.read_signal()? {
            let Ok(signal) = Signal::try_from(info.ssi_signo as i32) else {
                continue;
            };
            events.push(if signal == Signal::SIGCHLD {
                Event::ChildChanged
            } else {
                Event::Forward {
                    signal,
                    from_terminal: info.ssi_code == libc::SI_KERNEL,
                }
            });
        }
        Ok(events)
    }
}

impl AsFd for Forwarder {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl Drop for Forwarder {
    fn drop(&mut self) {
        // Signals that arrived while the child ran were meant for it and
        // have been handled; left pending, they would kill ctx on unblock
        // before it prints the captured output.
        let _ = self.pending();
        let _ = signal::sigprocmask(SigmaskHow::SIG_SETMASK, Some(&self.previous_mask), None);
    }
}
