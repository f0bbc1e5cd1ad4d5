//! The agent's own truncation: `CMD 2>&1 | tail -50`, `CMD | head -100`.
//!
//! An agent keeps a command's output short by piping it into `tail` or
//! `head`, and so loses the failures at the other end. A build, check or
//! test command whose whole output goes into one final `tail -N` or
//! `head -N` (nothing after it) becomes `ctx run --keep-tail N -- CMD`
//! (`--keep-head N`): the same lines, byte for byte, with the digest's
//! census beside them. Any other consumer (`| grep`, `| wc`, `| xargs`,
//! `| tee`, `| sort`), a follow (`tail -f`), a count from the start
//! (`tail -n +N`), all-but-N (`head -n -N`), a byte count (`-c`), a file
//! operand, or more than one stage after the command: left alone, since
//! that reader needs the raw bytes.

use super::lexer::Stage;
use crate::format::End;

/// `tail -N`, `tail -n N`, `tail -nN`, `tail --lines=N`, `tail --lines N`
/// (and the same of `head`): which end, and N.
pub fn truncation(stage: &Stage) -> Option<(End, usize)> {
    if stage.redirected || !stage.words.iter().all(|w| w.literal) {
        return None;
    }
    let words: Vec<&str> = stage.words.iter().map(|w| w.value.as_str()).collect();
    let (name, args) = words.split_first()?;
    let end = match *name {
        "tail" => End::Tail,
        "head" => End::Head,
        _ => return None,
    };
    let count = match args {
        [] => "10",
        [one] => one
            .strip_prefix("--lines=")
            .or_else(|| one.strip_prefix("-n").filter(|n| !n.is_empty()))
            .or_else(|| one.strip_prefix('-'))?,
        [flag, n] if *flag == "-n" || *flag == "--lines" => n,
        _ => return None,
    };
    // Digits only: `+N` (from line N), `-N` after `-n` (all but the last
    // N) and suffixes (`1K`) are other requests.
    if count.is_empty() || !count.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((end, count.parse().ok()?))
}

/// Commands whose output a typed family digests without a census of
/// failures (diffs, searches): `git log -p | head` asks for exactly those
/// bytes, and there is no failure for the kept lines to lose.
pub fn keeps_failures(program: &str) -> bool {
    !matches!(program, "git" | "grep" | "egrep" | "fgrep" | "rg")
}
