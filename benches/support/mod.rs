//! What the benchmarks share: the median of repeated timings, and a
//! child's peak memory as the kernel counts it.
//!
//! Each benchmark compiles this module on its own and uses a subset.
#![allow(dead_code)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The middle value (the upper one of an even count).
pub fn median<T: Ord + Copy>(mut v: Vec<T>) -> T {
    v.sort();
    v[v.len() / 2]
}

/// Runs `cmd` to the end, output discarded; (peak RSS in bytes, wall time).
pub fn measure(cmd: Command) -> (u64, Duration) {
    let (_, usage, wall) = reaped(cmd);
    (usage.ru_maxrss as u64 * 1024, wall)
}

/// Runs `cmd` to the end, output discarded; (wait status, the child's
/// own resource usage as the kernel counts it, wall time).
// The child is reaped by `wait4`, which std's `wait` cannot replace: it
// alone reports the child's own resource usage.
#[allow(clippy::zombie_processes)]
pub fn reaped(mut cmd: Command) -> (i32, libc::rusage, Duration) {
    let start = Instant::now();
    let child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child with valid out-pointers.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert!(pid > 0, "wait4 failed");
    (status, usage, start.elapsed())
}
