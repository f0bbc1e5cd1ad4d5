//! `ctx run --keep-tail N` / `--keep-head N`: what the agent's own
//! `CMD 2>&1 | tail -N` (or `| head -N`) would have printed, byte for byte,
//! with the digest beside it. The digest's census names every failure the
//! kept lines leave out; the kept lines are the command's own bytes, never
//! normalized, so a script or a person reading "the last 50 lines" reads
//! exactly those.
//!
//! Pure: the bytes for stdout and for stderr are computed here and written
//! by `emit`.

use crate::artifact::{Artifact, Stream};
use crate::format::{End, Keep, KeptStreams};
use crate::pipeline::Output;
use crate::words::CTX_PREFIX;

/// Where the last `n` lines of `bytes` start, as `tail -n N` counts
/// them: a last line without a newline is a line.
pub fn tail_start(bytes: &[u8], n: usize) -> usize {
    if n == 0 {
        return bytes.len();
    }
    let end = match bytes.last() {
        Some(b'\n') => bytes.len() - 1,
        _ => bytes.len(),
    };
    memchr::memrchr_iter(b'\n', &bytes[..end])
        .nth(n - 1)
        .map_or(0, |at| at + 1)
}

/// Where the first `n` lines of `bytes` end, as `head -n N` counts them.
pub fn head_end(bytes: &[u8], n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    memchr::memchr_iter(b'\n', bytes)
        .nth(n - 1)
        .map_or(bytes.len(), |at| at + 1)
}

/// What goes to stdout and to stderr.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Kept {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// The kept lines and, when they leave anything out, the digest beside
/// them: above the last lines (`tail`), below the first (`head`).
pub fn compose(artifact: &Artifact, output: &Output, keep: Keep) -> Kept {
    let mut kept = Kept::default();
    // What went through the agent's pipe, and what went past it.
    let piped: Vec<u8> = match keep.streams {
        KeptStreams::Both => artifact.bytes().to_vec(),
        KeptStreams::Stdout => {
            let mut piped = Vec::new();
            for (stream, range) in artifact.segment_ranges() {
                let bytes = &artifact.bytes()[range];
                match stream {
                    Stream::Stdout => piped.extend_from_slice(bytes),
                    Stream::Stderr => kept.stderr.extend_from_slice(bytes),
                }
            }
            piped
        }
    };
    let range = match keep.end {
        End::Tail => tail_start(&piped, keep.lines)..piped.len(),
        End::Head => 0..head_end(&piped, keep.lines),
    };
    let lines = &piped[range.clone()];
    // Lines that hold all the pipe carried need no digest beside them.
    let digest = match output {
        Output::Digest(bytes) if range.len() < piped.len() => Some(bytes.as_slice()),
        _ => None,
    };
    let Some(digest) = digest else {
        kept.stdout = lines.to_vec();
        return kept;
    };
    let n = keep.lines;
    match keep.end {
        End::Tail => {
            kept.stdout.extend_from_slice(digest);
            kept.stdout.extend_from_slice(
                format!(
                    "{CTX_PREFIX} --- the last {}, as `tail -{n}` prints {}:\n",
                    lines_said(n),
                    them(n)
                )
                .as_bytes(),
            );
            kept.stdout.extend_from_slice(lines);
        }
        End::Head => {
            kept.stdout.extend_from_slice(lines);
            if !lines.ends_with(b"\n") && !lines.is_empty() {
                // `head` printed no newline here; ctx's lines start on
                // their own.
                kept.stdout.push(b'\n');
            }
            kept.stdout.extend_from_slice(
                format!(
                    "{CTX_PREFIX} --- the first {} above, as `head -{n}` prints {}; the digest:\n",
                    match n {
                        1 => "line is".to_string(),
                        n => format!("{n} lines are"),
                    },
                    them(n)
                )
                .as_bytes(),
            );
            kept.stdout.extend_from_slice(digest);
        }
    }
    kept
}

/// `line` for one kept line, `20 lines` for more: `the last line`.
fn lines_said(n: usize) -> String {
    match n {
        1 => "line".into(),
        n => format!("{n} lines"),
    }
}

/// The pronoun for the kept lines: `prints it`, `prints them`.
fn them(n: usize) -> &'static str {
    if n == 1 { "it" } else { "them" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::Exit;

    /// What coreutils prints, for every small input and N (checked
    /// against the real `tail` and `head` in tests/keep_lines.rs).
    #[test]
    fn ends_are_counted_as_tail_and_head_count_them() {
        assert_eq!(tail_start(b"a\nb\nc\n", 2), 2);
        assert_eq!(tail_start(b"a\nb\nc", 2), 2);
        assert_eq!(tail_start(b"a\nb\nc\n", 5), 0);
        assert_eq!(tail_start(b"a\n\n\n", 1), 3);
        assert_eq!(tail_start(b"", 3), 0);
        assert_eq!(tail_start(b"abc", 0), 3);
        assert_eq!(head_end(b"a\nb\nc\n", 2), 4);
        assert_eq!(head_end(b"a\nb", 5), 3);
        assert_eq!(head_end(b"a\nb", 0), 0);
    }

    #[test]
    fn the_digest_sits_above_a_tail_and_below_a_head() {
        let mut out = String::new();
        for i in 1..=100 {
            out += &format!("line {i}\n");
        }
        let art = Artifact::from_stdout(out.clone().into_bytes(), Exit::Code(1), vec![]);
        let digest = Output::Digest(b"run: FAILED\n[ctx] full output\n".to_vec());
        let tail = Keep {
            end: End::Tail,
            lines: 3,
            streams: KeptStreams::Both,
        };
        let kept = compose(&art, &digest, tail);
        let text = String::from_utf8(kept.stdout).unwrap();
        assert!(text.starts_with("run: FAILED\n"), "{text}");
        assert!(text.ends_with("[ctx] --- the last 3 lines, as `tail -3` prints them:\nline 98\nline 99\nline 100\n"), "{text}");

        let head = Keep {
            end: End::Head,
            ..tail
        };
        let kept = compose(&art, &digest, head);
        let text = String::from_utf8(kept.stdout).unwrap();
        assert!(
            text.starts_with("line 1\nline 2\nline 3\n[ctx] --- the first 3 lines"),
            "{text}"
        );
        assert!(text.ends_with("[ctx] full output\n"), "{text}");

        // Lines that hold the whole output are printed alone.
        let all = Keep { lines: 500, ..tail };
        assert_eq!(compose(&art, &digest, all).stdout, out.as_bytes());
        assert_eq!(
            compose(&art, &Output::Raw, tail).stdout,
            b"line 98\nline 99\nline 100\n"
        );
    }
}
