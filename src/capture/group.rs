//! The child in a process group of its own, so that every stop request
//! reaches it exactly once (docs/capture.md, "Signals").
//!
//! An agent stops a command by signalling the process group of the shell
//! it started (`killpg`), or ctx alone. In ctx's group the child would get
//! a group signal twice: once from the kernel, once forwarded by ctx, and
//! many tools read a second ^C as "abort now, skip the cleanup". In a group
//! of its own only ctx gets it, and ctx forwards it once, to that whole
//! group, as the group signal would have reached the command's own
//! children. A terminal's job control needs the opposite (a child outside
//! the foreground group cannot read the terminal, and ^C reaches it from
//! the kernel), so under one the child stays in ctx's group.
//!
//! A group of its own must still die with ctx's: a SIGKILL sent to ctx's
//! group (which ctx cannot catch) would kill the bare command and all its
//! children. A **keeper** does it: a forked copy of ctx that leads the new
//! group, does nothing, and is told of ctx's death by the kernel
//! (`PR_SET_PDEATHSIG`), whereupon it SIGKILLs the group. When ctx ends
//! normally it kills the keeper first, so the command's background
//! children live on, as without ctx. The keeper runs only
//! async-signal-safe code (ctx may have threads when it forks).

use std::io;

use nix::unistd::Pid;

/// Whether the child gets a group of its own: ctx runs on its main thread
/// (the kernel's death notice follows the thread that forked) and no
/// terminal's job control is involved: no controlling terminal, or ctx is
/// not in its foreground group.
pub fn separate() -> bool {
    // SAFETY: plain system calls without memory arguments.
    let (tid, pid) = unsafe { (libc::gettid(), libc::getpid()) };
    if tid != pid {
        return false;
    }
    // SAFETY: a NUL-terminated path; the descriptor is closed below.
    let fd = unsafe {
        libc::open(
            c"/dev/tty".as_ptr(),
            libc::O_RDONLY | libc::O_NOCTTY | libc::O_CLOEXEC | libc::O_NONBLOCK,
        )
    };
    if fd < 0 {
        return true;
    }
    // SAFETY: fd is open; tcgetpgrp and getpgrp take no memory.
    let (foreground, own) = unsafe { (libc::tcgetpgrp(fd), libc::getpgrp()) };
    // SAFETY: fd was opened above and is not used after.
    unsafe { libc::close(fd) };
    foreground != own
}

/// The leader of the child's group; dropping it (ctx is done with the
/// child) ends it without touching the group.
pub struct Keeper {
    pid: Pid,
}

/// The real-time signal the kernel sends the keeper when ctx dies: one no
/// program sends to a group by habit.
fn death_notice() -> libc::c_int {
    libc::SIGRTMIN() + 3
}

impl Keeper {
    /// Forks the keeper, leader of a new group. Must be called before the
    /// child's pipes exist, so that the keeper holds none of them.
    pub fn start() -> io::Result<Keeper> {
        let notice = death_notice();
        // SAFETY: getpid takes no memory.
        let parent = unsafe { libc::getpid() };
        // SAFETY: the child runs only async-signal-safe calls (`keep`).
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            // SAFETY: in the forked child; never returns.
            unsafe { keep(parent, notice) }
        }
        // Also from this side, so that the group exists before the child
        // joins it, whichever process runs first.
        // SAFETY: setpgid on our own child.
        unsafe { libc::setpgid(pid, pid) };
        Ok(Keeper {
            pid: Pid::from_raw(pid),
        })
    }

    /// The group the child joins.
    pub fn group(&self) -> Pid {
        self.pid
    }
}

impl Drop for Keeper {
    fn drop(&mut self) {
        let _ = nix::sys::signal::kill(self.pid, nix::sys::signal::Signal::SIGKILL);
        let mut status = 0;
        // SAFETY: waitpid writes one int through a valid pointer.
        while unsafe { libc::waitpid(self.pid.as_raw(), &mut status, 0) } < 0
            && nix::errno::Errno::last() == nix::errno::Errno::EINTR
        {}
    }
}

/// Sends `signal` to the child's group when it has one, else to the child.
pub fn forward(child: Pid, group: Option<Pid>, signal: nix::sys::signal::Signal) {
    let target = group.map_or(child, |g| Pid::from_raw(-g.as_raw()));
    // The child may already be a zombie; that is not an error.
    let _ = nix::sys::signal::kill(target, signal);
}

/// On ctx's death: the whole group goes, as it would have with ctx's.
extern "C" fn on_parent_death(_: libc::c_int) {
    // SAFETY: async-signal-safe calls only.
    unsafe {
        libc::killpg(0, libc::SIGKILL);
        libc::_exit(0);
    }
}

/// The keeper's life: lead the group, ignore the signals forwarded to it,
/// wait for the kernel's notice of ctx's death.
///
/// # Safety
/// Must run in the child of a `fork`.
unsafe fn keep(parent: libc::pid_t, notice: libc::c_int) -> ! {
    // SAFETY: async-signal-safe system calls on stack memory.
    unsafe {
        libc::setpgid(0, 0);
        for signal in [
            libc::SIGINT,
            libc::SIGTERM,
            libc::SIGHUP,
            libc::SIGQUIT,
            libc::SIGPIPE,
            libc::SIGUSR1,
            libc::SIGUSR2,
            libc::SIGALRM,
            libc::SIGTSTP,
            libc::SIGTTIN,
            libc::SIGTTOU,
        ] {
            libc::signal(signal, libc::SIG_IGN);
        }
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_parent_death as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(notice, &action, std::ptr::null_mut());
        let mut only_notice: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut only_notice);
        libc::sigdelset(&mut only_notice, notice);
        libc::sigprocmask(libc::SIG_SETMASK, &only_notice, std::ptr::null_mut());
        libc::prctl(libc::PR_SET_PDEATHSIG, notice);
        if libc::getppid() != parent {
            // ctx died before the notice was armed.
            on_parent_death(notice);
        }
        loop {
            libc::pause();
        }
    }
}
