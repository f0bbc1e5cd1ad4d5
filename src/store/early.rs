//! The archive's server connection, made while the command runs.
//!
//! A run that archives to PostgreSQL opens a connection of its own: TCP,
//! TLS, the start-up exchange and a new backend on the server cost a few
//! milliseconds, after the command, on every run, more than the put itself
//! (one statement). Made on a thread when the command starts, the
//! connection is ready by the time the output is digested, so the run
//! pays only its put.
//!
//! A connection made early is held for at most `HOLD`: a command that
//! runs longer gets its connection when it ends, as before (a few
//! milliseconds are nothing beside its own run), and a server never sees
//! a build farm's long builds each holding an idle connection. A run that
//! archives nothing (a small output) costs the server one short-lived
//! connection.

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use nix::sys::signal::{SigSet, SigmaskHow, pthread_sigmask};

use super::StoreError;
use super::backend::{self, AnyStore, Choice};
use super::postgres::PgOptions;

/// How long a connection made early waits for the put to take it.
pub const HOLD: Duration = Duration::from_secs(1);

// One per process, never moved in a loop (as `AnyStore` itself).
#[allow(clippy::large_enum_variant)]
enum Slot {
    Connecting,
    Ready(Result<AnyStore, StoreError>),
    /// Taken by the put, or closed unclaimed after `HOLD`.
    Gone,
}

type Shared = Arc<(Mutex<Slot>, Condvar)>;

/// The connection being made, and how long the put waits for it at most.
static EARLY: Mutex<Option<(Shared, Duration)>> = Mutex::new(None);

/// Starts connecting to the archive's store on a thread, when that store
/// is a server (a SQLite file opens in well under a millisecond: nothing
/// to gain). Never fails and never waits: a server that is down or slow
/// costs the thread, not the command.
pub fn connect() {
    if !matches!(backend::choice(), Ok(Choice::Postgres(_))) {
        return;
    }
    // The connect timeout bounds the thread's work; the margin covers
    // reading credentials and setting up TLS.
    let bound = PgOptions::from_env().0.timeout * 2 + Duration::from_millis(100);
    let shared: Shared = Arc::new((Mutex::new(Slot::Connecting), Condvar::new()));
    let mine = shared.clone();
    // The capture takes its child's signals (SIGCHLD, the ones it
    // forwards) from a signalfd, which sees only signals every thread
    // blocks: a thread that did not block them could take SIGCHLD and
    // the capture would wait forever. A thread starts with its creator's
    // mask, so it is created with every signal blocked, and the main
    // thread's mask restored after.
    let mut previous = SigSet::empty();
    if pthread_sigmask(
        SigmaskHow::SIG_BLOCK,
        Some(&SigSet::all()),
        Some(&mut previous),
    )
    .is_err()
    {
        return;
    }
    let spawned = std::thread::Builder::new()
        .name("ctx-store-early".into())
        .spawn(move || hold(&mine, AnyStore::open_to_archive()));
    let _ = pthread_sigmask(SigmaskHow::SIG_SETMASK, Some(&previous), None);
    if spawned.is_ok() {
        *EARLY.lock().unwrap_or_else(PoisonError::into_inner) = Some((shared, bound));
    }
}

/// Offers `opened` to the put for `HOLD`, then closes an unclaimed
/// connection. A failure is kept: the put reports it without trying
/// again (a broken store stays broken for this run).
fn hold(shared: &Shared, opened: Result<AnyStore, StoreError>) {
    let (lock, ready) = &**shared;
    let keep_error = opened.is_err();
    let mut slot = lock.lock().unwrap_or_else(PoisonError::into_inner);
    *slot = Slot::Ready(opened);
    ready.notify_all();
    if keep_error {
        return;
    }
    let deadline = Instant::now() + HOLD;
    while matches!(*slot, Slot::Ready(_)) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            let unclaimed = std::mem::replace(&mut *slot, Slot::Gone);
            drop(slot);
            drop(unclaimed);
            return;
        }
        slot = ready
            .wait_timeout(slot, left)
            .unwrap_or_else(PoisonError::into_inner)
            .0;
    }
}

/// The store connected early, waiting for a connection still being made
/// (its own connect timeout bounds that); `None` when none was started or
/// it was closed unclaimed.
pub fn take() -> Option<Result<AnyStore, StoreError>> {
    let (shared, bound) = EARLY
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take()?;
    let (lock, ready) = &*shared;
    let deadline = Instant::now() + bound;
    let mut slot = lock.lock().unwrap_or_else(PoisonError::into_inner);
    while matches!(*slot, Slot::Connecting) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            *slot = Slot::Gone;
            return Some(Err(StoreError::Unavailable(format!(
                "the server did not answer within {}",
                humantime::format_duration(bound)
            ))));
        }
        slot = ready
            .wait_timeout(slot, left)
            .unwrap_or_else(PoisonError::into_inner)
            .0;
    }
    let taken = match std::mem::replace(&mut *slot, Slot::Gone) {
        Slot::Ready(opened) => Some(opened),
        _ => None,
    };
    ready.notify_all();
    taken
}
