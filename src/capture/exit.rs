//! Ending ctx the way the child ended (invariant 1): the same exit code, or
//! death by the same signal, so that the parent's wait status is the one it
//! would have seen without ctx.

use std::io::Write;

use nix::sys::resource::{Resource, getrlimit, setrlimit};

use crate::artifact::Exit;

/// Signals whose default action is not to terminate: a child cannot have
/// died of them, and raising one would stop ctx or do nothing.
const NON_TERMINATING: [i32; 8] = [
    libc::SIGCHLD,
    libc::SIGCONT,
    libc::SIGURG,
    libc::SIGWINCH,
    libc::SIGSTOP,
    libc::SIGTSTP,
    libc::SIGTTIN,
    libc::SIGTTOU,
];

/// Signals whose default action dumps core.
const DUMPS_CORE: [i32; 10] = [
    libc::SIGQUIT,
    libc::SIGILL,
    libc::SIGTRAP,
    libc::SIGABRT,
    libc::SIGBUS,
    libc::SIGFPE,
    libc::SIGSEGV,
    libc::SIGXCPU,
    libc::SIGXFSZ,
    libc::SIGSYS,
];

/// The status for `std::process::exit` after ctx's output is written. For
/// a child killed by a signal this does not return: ctx dies by the same
/// signal. It returns 128+N only where that cannot happen.
pub fn exit_like(exit: Exit) -> i32 {
    match exit {
        Exit::Code(code) => code,
        Exit::Signal(signal) => {
            let _ = std::io::stdout().flush();
            let _ = std::io::stderr().flush();
            die_by(signal);
            128 + signal
        }
        Exit::Unknown => 0,
    }
}

/// Raises `signal` on ctx with its default action. Returns if ctx survives.
fn die_by(signal: i32) {
    if NON_TERMINATING.contains(&signal) || !(1..=libc::SIGRTMAX()).contains(&signal) {
        return;
    }
    if DUMPS_CORE.contains(&signal) {
        // The child already dumped its core (if its limits allowed it). A
        // core of ctx would be a second, misleading file: it holds ctx's
        // memory, not the crashed program's, and costs disk and time. So
        // the parent sees the same signal without the core-dumped flag.
        let hard = getrlimit(Resource::RLIMIT_CORE).map_or(0, |(_, hard)| hard);
        let _ = setrlimit(Resource::RLIMIT_CORE, 0, hard);
    }
    // nix's `Signal` cannot name the real-time signals (SIGRTMIN..), which
    // can kill a child too, so this one step uses libc with plain numbers.
    // SAFETY: SIG_DFL installs no handler; the sigset is initialised by
    // sigemptyset before use; raise() on the calling thread is sound.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, signal);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(signal);
    }
}
