//! Originals are stored in compressed chunks, each with its place in the
//! line index, so that a line range is read by decompressing only the
//! chunks it touches.
//!
//! A chunk is about `CHUNK_TARGET` bytes of the interleaved view, cut just
//! after a newline when one lies in the last quarter of that window (so a
//! line seldom straddles two chunks), else cut exactly at the target (a
//! 50 MB line still makes 1 MiB chunks). Each chunk records its byte
//! offset, its length, the newlines before it and the newlines in it: line
//! `n` starts right after the `(n-1)`th newline, which a binary search over
//! `lines_before` locates without touching any data.

use super::StoreError;
use super::record::corrupt;

/// Bytes of original per chunk, before compression.
pub const CHUNK_TARGET: usize = 1 << 20;
/// How far back from the target a newline may be to cut there instead.
const NEWLINE_WINDOW: usize = CHUNK_TARGET / 4;

/// How a chunk's bytes are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    /// As they were: lz4 did not make them smaller.
    Raw = 0,
    /// lz4 block format, no size prefix (the raw length is in the index).
    Lz4 = 1,
}

impl Codec {
    pub fn from_i64(v: i64) -> Result<Codec, StoreError> {
        match v {
            0 => Ok(Codec::Raw),
            1 => Ok(Codec::Lz4),
            _ => Err(corrupt("unknown chunk codec")),
        }
    }
}

/// One chunk's place in the record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkInfo {
    /// Byte offset of the chunk in the interleaved view.
    pub offset: u64,
    /// Bytes of original in the chunk.
    pub len: u64,
    /// Newlines in the record before this chunk.
    pub lines_before: u64,
    /// Newlines in this chunk.
    pub newlines: u64,
}

impl ChunkInfo {
    pub fn end(&self) -> u64 {
        self.offset + self.len
    }
}

/// A chunk ready to be written: its index entry and its stored bytes.
pub struct EncodedChunk {
    pub info: ChunkInfo,
    pub codec: Codec,
    pub data: Vec<u8>,
}

/// Where the chunks of `bytes` end (exclusive offsets; none for empty input).
pub fn cut_points(bytes: &[u8]) -> Vec<usize> {
    let mut cuts = Vec::with_capacity(bytes.len() / CHUNK_TARGET + 1);
    let mut start = 0;
    while start < bytes.len() {
        let hard = (start + CHUNK_TARGET).min(bytes.len());
        let end = if hard == bytes.len() {
            hard
        } else {
            let window = &bytes[hard - NEWLINE_WINDOW..hard];
            match memchr::memrchr(b'\n', window) {
                Some(i) => hard - NEWLINE_WINDOW + i + 1,
                None => hard,
            }
        };
        cuts.push(end);
        start = end;
    }
    cuts
}

/// Splits, indexes and compresses a record's interleaved bytes.
pub fn encode(bytes: &[u8]) -> Vec<EncodedChunk> {
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut lines_before = 0u64;
    for end in cut_points(bytes) {
        let raw = &bytes[start..end];
        let newlines = memchr::memchr_iter(b'\n', raw).count() as u64;
        let packed = lz4_flex::block::compress(raw);
        // Incompressible output (binary, already compressed) is kept as is
        // rather than paying lz4's expansion and a pointless decode.
        let (codec, data) = if packed.len() < raw.len() - raw.len() / 16 {
            (Codec::Lz4, packed)
        } else {
            (Codec::Raw, raw.to_vec())
        };
        out.push(EncodedChunk {
            info: ChunkInfo {
                offset: start as u64,
                len: raw.len() as u64,
                lines_before,
                newlines,
            },
            codec,
            data,
        });
        lines_before += newlines;
        start = end;
    }
    out
}

/// The original bytes of a stored chunk, checked against its index entry.
pub fn decode(info: &ChunkInfo, codec: Codec, data: Vec<u8>) -> Result<Vec<u8>, StoreError> {
    let raw = match codec {
        Codec::Raw => data,
        Codec::Lz4 => lz4_flex::block::decompress(&data, info.len as usize).map_err(|e| {
            corrupt(&format!(
                "chunk at byte {} does not decompress: {e}",
                info.offset
            ))
        })?,
    };
    if raw.len() as u64 != info.len {
        return Err(corrupt(&format!(
            "chunk at byte {} has the wrong length",
            info.offset
        )));
    }
    Ok(raw)
}

/// Lines in a record with `newlines` newlines whose last
/// byte is `last` — the `Artifact` rule: a final line without `\n` counts,
/// a trailing `\n` opens no line.
pub fn line_count(newlines: u64, last: Option<u8>) -> u64 {
    match last {
        None => 0,
        Some(b'\n') => newlines,
        Some(_) => newlines + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_prefer_a_near_newline() {
        let mut bytes = vec![b'x'; CHUNK_TARGET - 10];
        bytes.push(b'\n');
        bytes.extend(vec![b'y'; CHUNK_TARGET]);
        let cuts = cut_points(&bytes);
        assert_eq!(cuts[0], CHUNK_TARGET - 9);
        assert_eq!(*cuts.last().unwrap_or(&0), bytes.len());
    }

    #[test]
    fn cuts_without_newline_are_exact() {
        let bytes = vec![b'z'; CHUNK_TARGET * 2 + 5];
        assert_eq!(
            cut_points(&bytes),
            vec![CHUNK_TARGET, CHUNK_TARGET * 2, CHUNK_TARGET * 2 + 5]
        );
        assert!(cut_points(b"").is_empty());
    }

    #[test]
    fn encode_decode_round_trip() {
        let mut bytes = Vec::new();
        for i in 0..200_000 {
            bytes.extend_from_slice(format!("line {i} of a log\n").as_bytes());
        }
        let chunks = encode(&bytes);
        assert!(chunks.len() > 1);
        let mut back = Vec::new();
        let mut newlines = 0;
        for c in chunks {
            assert_eq!(c.info.offset as usize, back.len());
            assert_eq!(c.info.lines_before, newlines);
            newlines += c.info.newlines;
            assert_eq!(c.codec, Codec::Lz4);
            back.extend(decode(&c.info, c.codec, c.data).unwrap_or_default());
        }
        assert_eq!(back, bytes);
        assert_eq!(newlines, 200_000);
    }

    #[test]
    fn incompressible_is_raw_and_tampering_is_caught() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let bytes: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let c = encode(&bytes).remove(0);
        assert_eq!(c.codec, Codec::Raw);
        let short = ChunkInfo { len: 1, ..c.info };
        assert!(decode(&short, c.codec, c.data).is_err());
        assert!(decode(&c.info, Codec::Lz4, vec![0xff; 3]).is_err());
    }

    #[test]
    fn line_counts_follow_the_artifact_rule() {
        assert_eq!(line_count(0, None), 0);
        assert_eq!(line_count(0, Some(b'a')), 1);
        assert_eq!(line_count(1, Some(b'\n')), 1);
        assert_eq!(line_count(2, Some(b'\n')), 2);
        assert_eq!(line_count(1, Some(b'c')), 2);
    }
}
