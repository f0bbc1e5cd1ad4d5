//! Reading a stored record back by line or by byte range, decompressing
//! only the chunks a request touches. Works the same over a stored record
//! and over bytes already in memory (one stream reassembled for
//! `--stream`), so every zoom has one implementation.

use std::rc::Rc;

use super::StoreError;
use super::chunks::{self, ChunkInfo};
use super::record::corrupt;

type Fetch<'a> = Box<dyn FnMut(usize) -> Result<Vec<u8>, StoreError> + 'a>;

pub struct Reader<'a> {
    dir: Vec<ChunkInfo>,
    len: u64,
    line_count: u64,
    fetch: Fetch<'a>,
    /// The last chunk decompressed: line walks touch the same chunk many
    /// times in a row.
    cache: Option<(usize, Rc<Vec<u8>>)>,
}

impl<'a> Reader<'a> {
    /// A reader over a chunk directory; `fetch(i)` returns chunk `i`'s
    /// original bytes. The directory is checked for gaps before use.
    pub fn new(dir: Vec<ChunkInfo>, line_count: u64, fetch: Fetch<'a>) -> Result<Self, StoreError> {
        let mut at = 0;
        let mut lines = 0;
        for c in &dir {
            if c.offset != at || c.lines_before != lines || c.len == 0 {
                return Err(corrupt("chunk index has a gap"));
            }
            at = c.end();
            lines += c.newlines;
        }
        if line_count < lines || line_count > lines + 1 {
            return Err(corrupt("line count disagrees with the chunk index"));
        }
        Ok(Reader {
            dir,
            len: at,
            line_count,
            fetch,
            cache: None,
        })
    }

    /// A reader over bytes in memory (one chunk holding everything).
    pub fn from_bytes(bytes: Vec<u8>) -> Reader<'static> {
        let newlines = memchr::memchr_iter(b'\n', &bytes).count() as u64;
        let line_count = chunks::line_count(newlines, bytes.last().copied());
        let dir = if bytes.is_empty() {
            Vec::new()
        } else {
            vec![ChunkInfo {
                offset: 0,
                len: bytes.len() as u64,
                lines_before: 0,
                newlines,
            }]
        };
        let bytes = Rc::new(bytes);
        Reader {
            dir,
            len: bytes.len() as u64,
            line_count,
            fetch: Box::new(|_| Err(corrupt("in-memory reader has one chunk"))),
            cache: Some((0, bytes)),
        }
    }

    pub fn line_count(&self) -> u64 {
        self.line_count
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn chunk(&mut self, i: usize) -> Result<Rc<Vec<u8>>, StoreError> {
        if let Some((at, data)) = &self.cache
            && *at == i
        {
            return Ok(Rc::clone(data));
        }
        let data = (self.fetch)(i)?;
        if data.len() as u64 != self.dir[i].len {
            return Err(corrupt("chunk has the wrong length"));
        }
        let data = Rc::new(data);
        self.cache = Some((i, Rc::clone(&data)));
        Ok(data)
    }

    /// The chunk holding byte `pos` (`pos < len`).
    fn chunk_at(&self, pos: u64) -> usize {
        self.dir.partition_point(|c| c.end() <= pos)
    }

    /// The offset just after the `k`th newline (1-based); 0 for `k == 0`.
    fn after_newline(&mut self, k: u64) -> Result<u64, StoreError> {
        if k == 0 {
            return Ok(0);
        }
        let i = self
            .dir
            .partition_point(|c| c.lines_before + c.newlines < k);
        let Some(info) = self.dir.get(i).copied() else {
            return Err(corrupt("newline past the end of the index"));
        };
        let data = self.chunk(i)?;
        let nth = (k - info.lines_before - 1) as usize;
        match memchr::memchr_iter(b'\n', &data).nth(nth) {
            Some(p) => Ok(info.offset + p as u64 + 1),
            None => Err(corrupt("chunk holds fewer newlines than indexed")),
        }
    }

    /// Where line `n` (1-based, `1..=line_count`) starts.
    pub fn line_start(&mut self, n: u64) -> Result<u64, StoreError> {
        self.after_newline(n.saturating_sub(1))
    }

    /// Where line `n` ends, its `\n` included.
    pub fn line_end(&mut self, n: u64) -> Result<u64, StoreError> {
        if n >= self.line_count {
            Ok(self.len)
        } else {
            self.after_newline(n)
        }
    }

    /// Hands `sink` the bytes `start..end` in order, a chunk's worth at a
    /// time; stops early when `sink` returns false.
    pub fn copy_range(
        &mut self,
        start: u64,
        end: u64,
        sink: &mut dyn FnMut(&[u8]) -> bool,
    ) -> Result<(), StoreError> {
        let end = end.min(self.len);
        let mut pos = start;
        while pos < end {
            let i = self.chunk_at(pos);
            let info = self.dir[i];
            let data = self.chunk(i)?;
            let from = (pos - info.offset) as usize;
            let to = (end.min(info.end()) - info.offset) as usize;
            if !sink(&data[from..to]) {
                return Ok(());
            }
            pos = info.offset + to as u64;
        }
        Ok(())
    }

    /// Lines from line `first` on, each with its `\n` when it has one.
    pub fn lines_from(&mut self, first: u64) -> Result<Lines<'_, 'a>, StoreError> {
        let pos = if first > self.line_count {
            self.len
        } else {
            self.line_start(first.max(1))?
        };
        Ok(Lines { reader: self, pos })
    }
}

/// An iterator over raw lines, reading chunks as it goes.
pub struct Lines<'r, 'a> {
    reader: &'r mut Reader<'a>,
    pos: u64,
}

impl Iterator for Lines<'_, '_> {
    type Item = Result<Vec<u8>, StoreError>;

    fn next(&mut self) -> Option<Self::Item> {
        let len = self.reader.len;
        if self.pos >= len {
            return None;
        }
        let mut line = Vec::new();
        while self.pos < len {
            let i = self.reader.chunk_at(self.pos);
            let info = self.reader.dir[i];
            let data = match self.reader.chunk(i) {
                Ok(d) => d,
                Err(e) => {
                    self.pos = len;
                    return Some(Err(e));
                }
            };
            let from = (self.pos - info.offset) as usize;
            match memchr::memchr(b'\n', &data[from..]) {
                Some(j) => {
                    line.extend_from_slice(&data[from..from + j + 1]);
                    self.pos += j as u64 + 1;
                    return Some(Ok(line));
                }
                None => {
                    line.extend_from_slice(&data[from..]);
                    self.pos = info.end();
                }
            }
        }
        Some(Ok(line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artifact::{Artifact, Exit};
    use crate::store::chunks::encode;

    /// A reader over `bytes` cut into chunks of `size` bytes (tiny chunks
    /// put line boundaries everywhere relative to chunk boundaries).
    fn chunked(bytes: &[u8], size: usize) -> Reader<'static> {
        let mut dir = Vec::new();
        let mut parts = Vec::new();
        let mut lines = 0;
        for (i, part) in bytes.chunks(size).enumerate() {
            let newlines = memchr::memchr_iter(b'\n', part).count() as u64;
            dir.push(ChunkInfo {
                offset: (i * size) as u64,
                len: part.len() as u64,
                lines_before: lines,
                newlines,
            });
            lines += newlines;
            parts.push(part.to_vec());
        }
        let count = chunks::line_count(lines, bytes.last().copied());
        Reader::new(dir, count, Box::new(move |i| Ok(parts[i].clone()))).expect("valid index")
    }

    fn check_against_artifact(bytes: &[u8]) {
        let art = Artifact::from_stdout(bytes.to_vec(), Exit::Unknown, vec![]);
        for size in [1, 2, 3, 7, 64] {
            let mut r = chunked(bytes, size);
            assert_eq!(r.line_count() as usize, art.line_count(), "{bytes:?}");
            let all: Vec<Vec<u8>> = r
                .lines_from(1)
                .expect("it")
                .map(|l| l.expect("line"))
                .collect();
            assert_eq!(all.len(), art.line_count());
            for (i, line) in all.iter().enumerate() {
                let body = line.strip_suffix(b"\n").unwrap_or(line);
                assert_eq!(body, art.line(i + 1));
            }
            assert_eq!(all.concat(), bytes);
            for a in 1..=art.line_count() as u64 {
                for b in a..=art.line_count() as u64 {
                    let (s, e) = (r.line_start(a).expect("s"), r.line_end(b).expect("e"));
                    let mut got = Vec::new();
                    r.copy_range(s, e, &mut |p| {
                        got.extend_from_slice(p);
                        true
                    })
                    .expect("copy");
                    assert_eq!(got, all[a as usize - 1..b as usize].concat());
                    let from: Vec<u8> = r
                        .lines_from(a)
                        .expect("it")
                        .next()
                        .expect("one")
                        .expect("ok");
                    assert_eq!(from, all[a as usize - 1]);
                }
            }
        }
    }

    #[test]
    fn lines_match_the_artifact() {
        for case in [
            &b""[..],
            b"a",
            b"a\n",
            b"\n",
            b"\n\n",
            b"a\n\nb",
            b"one\r\ntwo\r\n",
            b"x\0y\n\xff\xfe\nz",
            b"long line without end",
        ] {
            check_against_artifact(case);
        }
    }

    #[test]
    fn in_memory_reader_is_one_chunk() {
        let mut r = Reader::from_bytes(b"a\nb\nc".to_vec());
        assert_eq!(r.line_count(), 3);
        let l: Vec<_> = r
            .lines_from(2)
            .expect("it")
            .map(|l| l.expect("ok"))
            .collect();
        assert_eq!(l, vec![b"b\n".to_vec(), b"c".to_vec()]);
        assert!(r.lines_from(4).expect("it").next().is_none());
    }

    #[test]
    fn gaps_in_the_index_are_refused() {
        let c = encode(b"abc\n");
        let mut dir: Vec<ChunkInfo> = c.iter().map(|c| c.info).collect();
        dir[0].offset = 1;
        assert!(Reader::new(dir, 1, Box::new(|_| Ok(Vec::new()))).is_err());
    }
}
