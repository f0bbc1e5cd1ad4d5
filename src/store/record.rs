//! What a record is and how its key is computed.
//!
//! # Canonical encoding (version 1)
//!
//! The key is `blake3(E)` where `E` is, byte for byte:
//!
//! ```text
//! "ctx-ccr-v1\0"                      11 bytes, a domain tag
//! blake3(interleaved bytes)           32 bytes
//! segment count                       u64 little-endian
//! per segment: stream tag, length     u8 (1 stdout, 2 stderr), u64 LE
//! exit kind, exit value               u8 (0 code, 1 signal, 2 unknown), i32 LE (0 when unknown)
//! ```
//!
//! Segments are first made canonical: empty ones dropped, neighbours from
//! the same stream merged. How a capture happened to cut its reads is an
//! accident of timing, not part of the output; the order in which the two
//! streams interleaved is. The lengths add up to the byte count, so the
//! bytes and the segment list together determine each stream exactly,
//! and every field has a fixed width or a count before it, so no two
//! different records encode alike. Hashing the bytes separately lets a
//! writer hash them as they stream in, before it knows the segment list.
//! argv, cwd, label and family are deliberately not part of the key: the
//! same output from two commands is one record (the first one's metadata).

use crate::artifact::{Artifact, Exit, Segment, Stream};

use super::ArchiveKey;
use super::StoreError;

const DOMAIN: &[u8; 11] = b"ctx-ccr-v1\0";

/// The segments with empty ones dropped and same-stream neighbours merged.
pub fn canonical_segments(segments: &[Segment]) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::with_capacity(segments.len());
    for s in segments.iter().filter(|s| s.len > 0) {
        match out.last_mut() {
            Some(last) if last.stream == s.stream => last.len += s.len,
            _ => out.push(*s),
        }
    }
    out
}

/// The key of `bytes` with these (canonical) segments and exit status.
pub fn key_of(bytes: &[u8], segments: &[Segment], exit: Exit) -> ArchiveKey {
    key_from_hash(blake3::hash(bytes).as_bytes(), segments, exit)
}

/// The key from blake3 of the bytes (hashed as they streamed in).
pub fn key_from_hash(bytes_hash: &[u8; 32], segments: &[Segment], exit: Exit) -> ArchiveKey {
    let mut h = blake3::Hasher::new();
    h.update(DOMAIN);
    h.update(bytes_hash);
    h.update(&(segments.len() as u64).to_le_bytes());
    for s in segments {
        h.update(&[stream_tag(s.stream)]);
        h.update(&s.len.to_le_bytes());
    }
    let (kind, value) = exit_parts(exit);
    h.update(&[kind]);
    h.update(&value.to_le_bytes());
    ArchiveKey(*h.finalize().as_bytes())
}

/// The key the store files `artifact` under.
pub fn key_of_artifact(artifact: &Artifact) -> ArchiveKey {
    key_of(
        artifact.bytes(),
        &canonical_segments(artifact.segments()),
        artifact.exit,
    )
}

fn stream_tag(s: Stream) -> u8 {
    match s {
        Stream::Stdout => 1,
        Stream::Stderr => 2,
    }
}

/// `Exit` as the two integers the encoding and the schema use.
pub fn exit_parts(exit: Exit) -> (u8, i32) {
    match exit {
        Exit::Code(c) => (0, c),
        Exit::Signal(s) => (1, s),
        Exit::Unknown => (2, 0),
    }
}

pub fn exit_from_parts(kind: i64, value: i64) -> Result<Exit, StoreError> {
    let value = i32::try_from(value).map_err(|_| corrupt("exit value out of range"))?;
    match kind {
        0 => Ok(Exit::Code(value)),
        1 => Ok(Exit::Signal(value)),
        2 => Ok(Exit::Unknown),
        _ => Err(corrupt("unknown exit kind")),
    }
}

/// The segment list as stored: per segment a stream tag and a u64 LE length.
pub fn encode_segments(segments: &[Segment]) -> Vec<u8> {
    let mut out = Vec::with_capacity(segments.len() * 9);
    for s in segments {
        out.push(stream_tag(s.stream));
        out.extend_from_slice(&s.len.to_le_bytes());
    }
    out
}

pub fn decode_segments(bytes: &[u8]) -> Result<Vec<Segment>, StoreError> {
    if !bytes.len().is_multiple_of(9) {
        return Err(corrupt("segment list has a torn entry"));
    }
    bytes
        .chunks_exact(9)
        .map(|e| {
            let stream = match e[0] {
                1 => Stream::Stdout,
                2 => Stream::Stderr,
                _ => return Err(corrupt("unknown stream tag")),
            };
            let mut len = [0u8; 8];
            len.copy_from_slice(&e[1..]);
            Ok(Segment {
                stream,
                len: u64::from_le_bytes(len),
            })
        })
        .collect()
}

/// What the store keeps besides the bytes, and what `ctx expand` and
/// `ctx store` show about a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordMeta {
    pub key: ArchiveKey,
    pub argv: Vec<String>,
    pub cwd: Option<String>,
    pub label: Option<String>,
    pub family: Option<String>,
    pub exit: Exit,
    pub truncated: bool,
    /// Canonical segments (see the module doc).
    pub segments: Vec<Segment>,
    pub raw_bytes: u64,
    /// Compressed bytes plus a fixed allowance for the row itself: what
    /// the size cap counts.
    pub stored_bytes: u64,
    /// Lines of the interleaved view, counted as `Artifact` counts them.
    pub line_count: u64,
    /// Unix milliseconds: first archived, and last archived or read.
    pub created_ms: i64,
    pub used_ms: i64,
    /// Every chunk carries a checksum (records written before schema v2
    /// have none: only the whole-record check against the key covers them).
    pub checksummed: bool,
}

impl RecordMeta {
    /// What to call the record in listings.
    pub fn command(&self) -> String {
        match &self.label {
            Some(label) => label.clone(),
            None => self.argv.join(" "),
        }
    }

    /// True when both streams have bytes (a single-stream view then needs
    /// reassembly; otherwise it is the interleaved view itself).
    pub fn has_stream(&self, stream: Stream) -> bool {
        self.segments.iter().any(|s| s.stream == stream)
    }
}

/// Row overhead the size cap charges each record on top of its chunks.
pub const ROW_ALLOWANCE: u64 = 256;

/// A record that does not check out (which one is filled in by the
/// caller that knows, see `StoreError::of_record`).
pub fn corrupt(why: &str) -> StoreError {
    StoreError::Damaged {
        key: None,
        why: why.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(stream: Stream, len: u64) -> Segment {
        Segment { stream, len }
    }

    #[test]
    fn segments_are_canonical() {
        let raw = [
            seg(Stream::Stdout, 2),
            seg(Stream::Stdout, 0),
            seg(Stream::Stdout, 3),
            seg(Stream::Stderr, 0),
            seg(Stream::Stderr, 1),
            seg(Stream::Stdout, 4),
        ];
        assert_eq!(
            canonical_segments(&raw),
            vec![
                seg(Stream::Stdout, 5),
                seg(Stream::Stderr, 1),
                seg(Stream::Stdout, 4)
            ]
        );
    }

    #[test]
    fn key_depends_on_streams_bytes_and_exit_only() {
        let a = Artifact::new(
            b"ab".to_vec(),
            vec![seg(Stream::Stdout, 1), seg(Stream::Stdout, 1)],
            Exit::Code(0),
            vec!["x".into()],
        );
        let b = Artifact::from_stdout(b"ab".to_vec(), Exit::Code(0), vec!["y".into()]);
        assert_eq!(key_of_artifact(&a), key_of_artifact(&b));
        let c = Artifact::new(
            b"ab".to_vec(),
            vec![seg(Stream::Stdout, 1), seg(Stream::Stderr, 1)],
            Exit::Code(0),
            vec![],
        );
        assert_ne!(key_of_artifact(&a), key_of_artifact(&c));
        let d = Artifact::from_stdout(b"ab".to_vec(), Exit::Code(1), vec![]);
        assert_ne!(key_of_artifact(&b), key_of_artifact(&d));
        let e = Artifact::from_stdout(b"ab".to_vec(), Exit::Signal(0), vec![]);
        assert_ne!(key_of_artifact(&d), key_of_artifact(&e));
        let f = Artifact::from_stdout(b"ab".to_vec(), Exit::Unknown, vec![]);
        assert_ne!(key_of_artifact(&b), key_of_artifact(&f));
    }

    #[test]
    fn key_is_pinned() {
        // The encoding is a format: changing it orphans every stored key.
        let a = Artifact::from_stdout(b"hello\n".to_vec(), Exit::Code(0), vec![]);
        let mut e = Vec::new();
        e.extend_from_slice(b"ctx-ccr-v1\0");
        e.extend_from_slice(blake3::hash(b"hello\n").as_bytes());
        e.extend_from_slice(&1u64.to_le_bytes());
        e.push(1);
        e.extend_from_slice(&6u64.to_le_bytes());
        e.push(0);
        e.extend_from_slice(&0i32.to_le_bytes());
        assert_eq!(key_of_artifact(&a).0, *blake3::hash(&e).as_bytes());
    }

    #[test]
    fn segment_list_round_trips() {
        let s = vec![seg(Stream::Stderr, 7), seg(Stream::Stdout, u64::MAX)];
        assert_eq!(decode_segments(&encode_segments(&s)).ok(), Some(s));
        assert!(decode_segments(&[1, 2, 3]).is_err());
        assert!(decode_segments(&[9; 9]).is_err());
    }
}
