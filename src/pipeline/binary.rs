//! Output that is not text: `head -c 1G /dev/zero | ctx pipe`, a binary
//! written to a pipe, a core dump. Read as lines it is a wall of U+FFFD or
//! one "empty" line, both untrue (invariant 9), and costly to read. It is
//! described instead: its size, its NUL bytes and their runs, the bytes
//! that are not UTF-8, with the address that gives the bytes back; and it
//! is counted in `ctx gain` as what it is: nothing an agent would have read
//! as tokens, so nothing saved.
//!
//! The test is on the first MiB, like git's and grep's (which look for a
//! NUL in the first few KB), but stricter: text with a stray NUL (a test
//! printing `b"\0"`) stays text and keeps every failure it reports. Only
//! output whose sample is at least 30 % NUL, non-UTF-8 or control bytes is
//! binary.

use crate::archive::Archive;
use crate::artifact::Artifact;
use crate::delivery::{BINARY_PROFILE, Delivery, Output};
use crate::guard::Rejection;
use crate::profiles::{Match, MatchedBy};
use crate::tokens;
use crate::words::{CTX_PREFIX, count, counted};

/// How much of the output the test looks at.
const SAMPLE: usize = 1 << 20;

/// The share of the sample (in percent) that must be binary bytes.
const BINARY_PERCENT: usize = 30;

/// What the description says about the bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    pub bytes: usize,
    pub nul: usize,
    pub nul_runs: usize,
    pub longest_nul_run: usize,
    /// Bytes in sequences that are not UTF-8.
    pub not_utf8: usize,
}

/// The shape of `bytes` when they are binary, `None` for text.
pub fn shape(bytes: &[u8]) -> Option<Shape> {
    let sample = &bytes[..bytes.len().min(SAMPLE)];
    if sample.is_empty() {
        return None;
    }
    let control = sample
        .iter()
        .filter(|&&b| (b < 0x20 && !b"\t\n\r\x0c\x08\x1b".contains(&b)) || b == 0x7f)
        .count();
    if (control + not_utf8(sample)) * 100 < sample.len() * BINARY_PERCENT {
        return None;
    }
    let (mut nul, mut runs, mut longest, mut run) = (0, 0, 0, 0);
    for &b in bytes {
        if b == 0 {
            nul += 1;
            run += 1;
            if run == 1 {
                runs += 1;
            }
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    Some(Shape {
        bytes: bytes.len(),
        nul,
        nul_runs: runs,
        longest_nul_run: longest,
        not_utf8: not_utf8(bytes),
    })
}

fn not_utf8(bytes: &[u8]) -> usize {
    bytes.utf8_chunks().map(|c| c.invalid().len()).sum()
}

/// The description, archived: the delivery for binary output.
pub fn deliver(artifact: &Artifact, archive: &dyn Archive, shape: &Shape) -> Delivery {
    let mut delivery = Delivery {
        output: Output::Raw,
        profile: BINARY_PROFILE,
        matched: Match {
            by: MatchedBy::Content,
            reason: format!(
                "{} of the first MiB are NUL, control or not UTF-8",
                if shape.bytes < SAMPLE {
                    "most"
                } else {
                    "30 % or more"
                }
            ),
        },
        key: None,
        raw_tokens: 0,
        delivered_tokens: 0,
        rejection: None,
        trace: None,
        compared: false,
        delta: None,
    };
    let key = match archive.put(artifact) {
        Ok(key) => key,
        Err(e) => {
            delivery.rejection = Some(Rejection::NotArchived(e.to_string()));
            return delivery;
        }
    };
    let text = describe(&artifact.display_command(), artifact, shape, &key.short());
    delivery.delivered_tokens = tokens::estimate(text.as_bytes());
    // Nothing an agent reads as tokens was left out: nothing saved.
    delivery.raw_tokens = delivery.delivered_tokens;
    delivery.key = Some(key);
    delivery.output = Output::Digest(text.into_bytes());
    delivery
}

/// The lines of the description (pure: tested below).
fn describe(command: &str, artifact: &Artifact, shape: &Shape, key: &str) -> String {
    let mut parts = vec![format!("binary output, {}", counted(shape.bytes, "bytes"))];
    if shape.nul > 0 {
        parts.push(format!(
            "{} NUL in {} (longest {})",
            count(shape.nul),
            counted(shape.nul_runs, "runs"),
            count(shape.longest_nul_run)
        ));
    }
    if shape.not_utf8 > 0 {
        parts.push(format!("{} not UTF-8", counted(shape.not_utf8, "bytes")));
    }
    parts.extend(artifact.exit.describe());
    format!(
        "{CTX_PREFIX} {}: {}\n{CTX_PREFIX} not shown as text; the bytes: ctx expand {key} --all > FILE\n",
        crate::render::clip(command, 80),
        parts.join(" · ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_and_random_bytes_are_binary_text_with_a_stray_nul_is_not() {
        let zeros = vec![0u8; 10_000];
        let s = shape(&zeros).expect("binary");
        assert_eq!((s.nul, s.nul_runs, s.longest_nul_run), (10_000, 1, 10_000));
        let mut text = b"FAILED tests/test_x.py::test_a - assert 1 == 2\n".repeat(100);
        text.extend_from_slice(b"got b'\\x00': \0\n");
        assert_eq!(shape(&text), None);
        assert_eq!(shape("é ü ß ✓ — 日本語\n".repeat(50).as_bytes()), None);
        assert_eq!(shape(b"\x1b[31mred\x1b[0m\n"), None);
        let noise: Vec<u8> = (0..4096u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let s = shape(&noise).expect("binary");
        assert!(s.not_utf8 > 1000, "{s:?}");
        assert_eq!(shape(b""), None);
    }

    #[test]
    fn the_description_counts_what_is_there() {
        let artifact = Artifact::from_stdout(
            b"ab\0\0\0cd\0".to_vec(),
            crate::artifact::Exit::Unknown,
            vec![],
        );
        let s = Shape {
            bytes: 8,
            nul: 4,
            nul_runs: 2,
            longest_nul_run: 3,
            not_utf8: 0,
        };
        let text = describe("input", &artifact, &s, "0123456789ab");
        assert_eq!(
            text,
            "[ctx] input: binary output, 8 bytes · 4 NUL in 2 runs (longest 3)\n\
             [ctx] not shown as text; the bytes: ctx expand 0123456789ab --all > FILE\n"
        );
    }
}
