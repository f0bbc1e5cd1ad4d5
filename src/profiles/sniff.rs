//! What the content detectors of the everyday families share: the whole
//! lines of a sniffed head, a profile's own reading of them, and the
//! command a saved log no longer names.
//!
//! `cmd | ctx pipe` and `ctx digest saved.log` carry no argv, so a family
//! that reads its output by the flags that produced it (`ls -l`, `grep -c`,
//! `rg --heading`) must tell the flags from the shape. A detector claims a
//! head only when that shape holds over several lines and the profile,
//! reading the head as the command the shape names, leaves no line of it
//! unread: a misroute is worse than text/v1, which loses nothing.

use crate::artifact::{Artifact, Exit};

use super::{Profile, SNIFF_BYTES};

/// The complete lines of a sniffed head, blank ends dropped. The head is
/// cut at a KiB, so its last line may be partial: it is dropped unless the
/// head ends with a newline (the output was shorter than the cut, or the
/// cut fell on a line end).
pub(crate) fn lines(head: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = head.split('\n').collect();
    if lines.last().is_some_and(|l| !l.is_empty()) && lines.len() > 1 {
        lines.pop();
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    lines
}

/// Whether `profile`, reading `lines` as the output of `argv`, parses at
/// least `items` census items and leaves no line unmatched.
pub(crate) fn reads_whole(
    profile: &dyn Profile,
    lines: &[&str],
    argv: &[&str],
    items: u64,
) -> bool {
    let mut bytes = lines.join("\n").into_bytes();
    bytes.push(b'\n');
    let argv = argv.iter().map(|w| w.to_string()).collect();
    let artifact = Artifact::from_stdout(bytes, Exit::Unknown, argv);
    let (_, receipt) = profile.extract(&artifact);
    receipt.items_parsed >= items && receipt.lines_unmatched == 0
}

/// The head of an artifact as classification sniffs it: its first KiB,
/// normalized line by line. An extractor given no argv reads its shape
/// from here, as its detector did.
pub(crate) fn head(artifact: &Artifact) -> String {
    let bytes = artifact.bytes();
    bytes[..bytes.len().min(SNIFF_BYTES)]
        .split(|&b| b == b'\n')
        .map(crate::normalize::line)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The command an artifact states: its argv, else the `--label` of
/// `ctx pipe --label 'git log'` split as a shell would (never the saved
/// file's name `ctx digest` labels its input with).
pub fn stated_argv(artifact: &Artifact) -> Vec<String> {
    if !artifact.argv.is_empty() || artifact.label_is_file {
        return artifact.argv.clone();
    }
    artifact
        .label
        .as_deref()
        .and_then(|l| shell_words::split(l).ok())
        .unwrap_or_default()
}

/// Whether at least `min` of `lines` satisfy `shape` and every one does.
pub(crate) fn all_of(lines: &[&str], min: usize, shape: impl Fn(&str) -> bool) -> bool {
    lines.len() >= min && lines.iter().all(|l| shape(l))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_last_line_is_dropped() {
        assert_eq!(lines("a\nb\nc"), ["a", "b"]);
        assert_eq!(lines("a\nb\nc\n"), ["a", "b", "c"]);
        assert_eq!(lines("a\nb\n\n\n"), ["a", "b"]);
        assert_eq!(lines("one"), ["one"]);
    }
}
