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

/// A chunk ready to be written: its index entry, its stored bytes, and
/// the checksum of its original bytes (verified on every read).
pub struct EncodedChunk {
    pub info: ChunkInfo,
    pub codec: Codec,
    pub data: Vec<u8>,
    pub sum: Checksum,
}

/// blake3 of a chunk's original bytes. blake3 rather than a CRC: the
/// record's key is blake3 already, it runs at memory speed, and a chunk
/// that passes is the chunk that was written, not merely one with the
/// same CRC.
pub type Checksum = [u8; 32];

pub fn checksum(raw: &[u8]) -> Checksum {
    *blake3::hash(raw).as_bytes()
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
    let mut enc = Encoder::default();
    let mut out = enc.push(bytes);
    out.extend(enc.finish().chunks);
    out
}

/// What an `Encoder` knows once every byte has gone through it.
pub struct Finished {
    /// The chunks not yet handed out by `push`.
    pub chunks: Vec<EncodedChunk>,
    /// blake3 of all the bytes (the record key hashes this); zeros from an
    /// encoder made `without_hash`.
    pub bytes_hash: [u8; 32],
    pub len: u64,
    pub newlines: u64,
    pub last: Option<u8>,
}

/// Chunks bytes as they arrive: cuts, counts newlines, compresses and
/// hashes while reading, holding at most one chunk window of original
/// bytes. Cuts exactly where `cut_points` would over the whole input.
pub struct Encoder {
    pending: Vec<u8>,
    offset: u64,
    lines_before: u64,
    /// None when the caller hashed the bytes already (`without_hash`).
    hasher: Option<blake3::Hasher>,
    last: Option<u8>,
}

impl Default for Encoder {
    fn default() -> Self {
        Encoder {
            pending: Vec::new(),
            offset: 0,
            lines_before: 0,
            hasher: Some(blake3::Hasher::new()),
            last: None,
        }
    }
}

impl Encoder {
    /// An encoder for bytes whose blake3 the caller has already: `finish`
    /// then reports zeros for `bytes_hash` (hashing twice costs as much as
    /// the chunk checksums).
    pub fn without_hash() -> Encoder {
        Encoder {
            hasher: None,
            ..Encoder::default()
        }
    }

    /// Takes the next bytes; returns the chunks they completed.
    pub fn push(&mut self, mut bytes: &[u8]) -> Vec<EncodedChunk> {
        let mut out = Vec::new();
        if let Some(&b) = bytes.last() {
            self.last = Some(b);
        }
        if let Some(h) = &mut self.hasher {
            h.update(bytes);
        }
        while !bytes.is_empty() {
            // A cut needs one byte past the window: the last chunk of an
            // input ends at the input's end, wherever that is.
            let room = CHUNK_TARGET + 1 - self.pending.len();
            let take = room.min(bytes.len());
            self.pending.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.pending.len() > CHUNK_TARGET {
                let window = &self.pending[CHUNK_TARGET - NEWLINE_WINDOW..CHUNK_TARGET];
                let end = match memchr::memrchr(b'\n', window) {
                    Some(i) => CHUNK_TARGET - NEWLINE_WINDOW + i + 1,
                    None => CHUNK_TARGET,
                };
                out.push(self.seal(end));
            }
        }
        out
    }

    /// The last chunk and the totals.
    pub fn finish(mut self) -> Finished {
        let mut chunks = Vec::new();
        if !self.pending.is_empty() {
            let end = self.pending.len();
            chunks.push(self.seal(end));
        }
        Finished {
            chunks,
            bytes_hash: self.hasher.map_or([0; 32], |h| *h.finalize().as_bytes()),
            len: self.offset,
            newlines: self.lines_before,
            last: self.last,
        }
    }

    /// Encodes `pending[..end]` as the next chunk and keeps the rest.
    fn seal(&mut self, end: usize) -> EncodedChunk {
        let chunk = encode_one(&self.pending[..end], self.offset, self.lines_before);
        self.pending.drain(..end);
        self.offset += chunk.info.len;
        self.lines_before += chunk.info.newlines;
        chunk
    }
}

fn encode_one(raw: &[u8], offset: u64, lines_before: u64) -> EncodedChunk {
    let newlines = memchr::memchr_iter(b'\n', raw).count() as u64;
    let packed = lz4_flex::block::compress(raw);
    // Incompressible output (binary, already compressed) is kept as is
    // rather than paying lz4's expansion and a pointless decode.
    let (codec, data) = if packed.len() < raw.len() - raw.len() / 16 {
        (Codec::Lz4, packed)
    } else {
        (Codec::Raw, raw.to_vec())
    };
    EncodedChunk {
        info: ChunkInfo {
            offset,
            len: raw.len() as u64,
            lines_before,
            newlines,
        },
        codec,
        data,
        sum: checksum(raw),
    }
}

/// The original bytes of a stored chunk, checked against its index entry
/// and, when it has one (chunks written before schema v2 do not), its
/// checksum.
pub fn decode(
    info: &ChunkInfo,
    codec: Codec,
    data: Vec<u8>,
    sum: Option<&[u8]>,
) -> Result<Vec<u8>, StoreError> {
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
    if let Some(sum) = sum
        && sum != checksum(&raw)
    {
        return Err(corrupt(&format!(
            "chunk at byte {} does not match its checksum",
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
            back.extend(decode(&c.info, c.codec, c.data, Some(&c.sum)).unwrap_or_default());
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
        assert!(decode(&short, c.codec, c.data.clone(), None).is_err());
        assert!(decode(&c.info, Codec::Lz4, vec![0xff; 3], None).is_err());
        let mut flipped = c.data.clone();
        flipped[100] ^= 1;
        // Without a checksum a flipped raw byte reads back unnoticed;
        // with one it cannot.
        assert!(decode(&c.info, c.codec, flipped.clone(), None).is_ok());
        assert!(decode(&c.info, c.codec, flipped, Some(&c.sum)).is_err());
        assert!(decode(&c.info, c.codec, c.data, Some(&c.sum)).is_ok());
    }

    #[test]
    fn streaming_cuts_where_the_whole_input_cuts() {
        let mut bytes = Vec::new();
        let mut i = 0u64;
        while bytes.len() < 3 * CHUNK_TARGET + 12_345 {
            // Lines of varied length, with a newline-free stretch in the
            // middle that forces an exact cut.
            if (CHUNK_TARGET..CHUNK_TARGET * 2).contains(&bytes.len()) {
                bytes.push(b'x');
            } else {
                bytes.extend_from_slice(
                    format!("{} {i}\n", "y".repeat((i % 97) as usize)).as_bytes(),
                );
            }
            i += 1;
        }
        let whole: Vec<(ChunkInfo, Checksum)> = encode(&bytes)
            .into_iter()
            .map(|c| (c.info, c.sum))
            .collect();
        assert_eq!(
            whole
                .iter()
                .map(|(c, _)| c.end() as usize)
                .collect::<Vec<_>>(),
            cut_points(&bytes)
        );
        for step in [13usize, 4096, 1 << 20, 3 << 20, 8 << 20] {
            let mut enc = Encoder::default();
            let mut got = Vec::new();
            for part in bytes.chunks(step) {
                got.extend(enc.push(part).into_iter().map(|c| (c.info, c.sum)));
            }
            let fin = enc.finish();
            got.extend(fin.chunks.into_iter().map(|c| (c.info, c.sum)));
            assert_eq!(got, whole, "step {step}");
            assert_eq!(fin.bytes_hash, *blake3::hash(&bytes).as_bytes());
            assert_eq!(fin.len, bytes.len() as u64);
            assert_eq!(fin.last, bytes.last().copied());
        }
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
