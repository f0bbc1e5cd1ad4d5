//! A file too large to hold in memory (over `STREAM_BYTES`), read by
//! lines without ever holding it whole: one pass counts its lines and
//! notes where the last ones start, then only the lines the view shows
//! are read again. Memory stays a few MiB plus the view itself, whatever
//! the file's size (a 1 GB log, a 100 MB line).
//!
//! Such a file gets no syntax tree (a parse would cost more than any
//! outline saves): `auto`, `outline` and `signatures` give the
//! line-precision view, `lines:A-B` and `full` the lines asked for,
//! `symbol:` and `section:` say why not and name the read that works.
//! A line longer than `LINE_BYTES` in the line-precision view is clipped,
//! with a `[ctx]` line naming its size and the read that shows it whole
//! (`lines:N-N`, which never clips: the reader asked for that line).

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};

use super::content::{self, Content};
use super::error::ReadError;
use super::mode::Mode;
use super::{Request, TAIL_LINES, view};

/// Larger files are read by lines, never loaded whole.
pub const STREAM_BYTES: u64 = 8 << 20;

/// The most of one line a line-precision view shows.
pub const LINE_BYTES: usize = 4 << 10;

const CHUNK: usize = 1 << 20;

/// One line as a walk hands it over: its kept bytes (its newline
/// included when it is kept whole), its length without the newline, and
/// its anchor hash when asked for.
pub struct Line<'a> {
    pub number: usize,
    pub bytes: &'a [u8],
    pub len: u64,
    pub clipped: bool,
    pub hash: Option<String>,
}

/// Where lines start: the count, the start of one chosen line, the
/// starts of the last few.
struct Index {
    total: usize,
    start_of: Option<u64>,
    last_starts: VecDeque<u64>,
}

fn io_error(req: &Request, reason: io::Error) -> ReadError {
    ReadError::Io {
        path: req.path.clone(),
        reason,
    }
}

/// The view `req` asks for of the large file `file` (`size` bytes).
pub fn view(req: &Request, mut file: File, size: u64) -> Result<Vec<u8>, ReadError> {
    let err = |e| io_error(req, e);
    let mut head = vec![0u8; content::SNIFF_LEN];
    let n = read_full(&mut file, &mut head).map_err(err)?;
    head.truncate(n);
    if let Some(Content::Binary { kind, bytes }) = content::sniff_large(&head, size) {
        return Ok(view::described(
            &req.shown,
            &format!("binary {kind}"),
            bytes,
        ));
    }
    let shown = req.shown.as_str();
    match &req.mode {
        Mode::Full => {
            if !req.anchors {
                // The view is the file: read once, into the view itself.
                let mut out = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
                file.seek(SeekFrom::Start(0)).map_err(err)?;
                file.read_to_end(&mut out).map_err(err)?;
                return Ok(out);
            }
            let mut out = Vec::new();
            walk(&mut file, 0, 1, usize::MAX, None, true, &mut |l| {
                view::line(&mut out, l.number, l.bytes, l.hash.as_deref(), false)
            })
            .map_err(err)?;
            Ok(out)
        }
        Mode::Lines(from, to) => {
            let index = index(&mut file, *from, 0).map_err(err)?;
            if *from > index.total {
                return Err(ReadError::PastEnd {
                    path: shown.to_string(),
                    lines: index.total,
                    asked: *from,
                });
            }
            let to = (*to).min(index.total);
            let mut out = Vec::new();
            let start = index.start_of.unwrap_or(0);
            walk(&mut file, start, *from, to, None, req.anchors, &mut |l| {
                view::line(&mut out, l.number, l.bytes, l.hash.as_deref(), false)
            })
            .map_err(err)?;
            view::slice_footer(&mut out, shown, "", *from, to, index.total);
            Ok(out)
        }
        Mode::Symbol(_) | Mode::Section(_) => Err(ReadError::Unsupported(format!(
            "{shown} is {}, too large for the syntax tree {} needs; read it by lines: {}",
            crate::words::counted(size as usize, "bytes"),
            req.mode,
            view::command(shown, &Mode::Lines(1, 200))
        ))),
        Mode::Auto | Mode::Outline | Mode::Signatures => line_precision(req, &mut file, size),
    }
}

/// The first and last lines, each clipped at `LINE_BYTES`, and the exact
/// read of what lies between.
fn line_precision(req: &Request, file: &mut File, size: u64) -> Result<Vec<u8>, ReadError> {
    let err = |e| io_error(req, e);
    let shown = req.shown.as_str();
    let index = index(file, 0, TAIL_LINES).map_err(err)?;
    let total = index.total;
    let mut out = Vec::new();
    let why = format!(
        "{} (over {} MiB: no syntax tree, not loaded whole)",
        crate::words::counted(size as usize, "bytes"),
        STREAM_BYTES >> 20
    );
    view::note(
        &mut out,
        &view::header(shown, &why, total, "precision: lines"),
    );
    let head = super::HEAD_LINES;
    let emit = |out: &mut Vec<u8>, l: &Line| {
        view::line(out, l.number, l.bytes, l.hash.as_deref(), l.clipped);
        if l.clipped {
            view::clipped(out, shown, l.number, l.len, l.bytes.len());
        }
    };
    if total <= head + TAIL_LINES {
        walk(file, 0, 1, total, Some(LINE_BYTES), req.anchors, &mut |l| {
            emit(&mut out, l)
        })
        .map_err(err)?;
    } else {
        walk(file, 0, 1, head, Some(LINE_BYTES), req.anchors, &mut |l| {
            emit(&mut out, l)
        })
        .map_err(err)?;
        let (from, to) = (head + 1, total - TAIL_LINES);
        view::note(
            &mut out,
            &format!(
                "… {} omitted: {}",
                crate::words::counted(to - from + 1, "lines"),
                view::command(shown, &Mode::Lines(from, to))
            ),
        );
        let start = index.last_starts.front().copied().unwrap_or(0);
        let first = total + 1 - index.last_starts.len();
        walk(
            file,
            start,
            first,
            total,
            Some(LINE_BYTES),
            req.anchors,
            &mut |l| emit(&mut out, l),
        )
        .map_err(err)?;
    }
    view::note(
        &mut out,
        &format!("whole file: {}", view::command(shown, &Mode::Full)),
    );
    Ok(out)
}

fn read_full(file: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// One pass over the file: its line count, where line `start_of` starts
/// (0: none asked), and where each of the last `keep_last` lines starts.
fn index(file: &mut File, start_of: usize, keep_last: usize) -> io::Result<Index> {
    file.seek(SeekFrom::Start(0))?;
    let mut buf = vec![0u8; CHUNK];
    let mut offset = 0u64;
    let mut newlines = 0usize;
    let mut last_byte = None;
    let mut start = if start_of == 1 { Some(0) } else { None };
    let mut last_starts: VecDeque<u64> = VecDeque::with_capacity(keep_last + 1);
    if keep_last > 0 {
        last_starts.push_back(0);
    }
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        for at in memchr::memchr_iter(b'\n', &buf[..n]) {
            newlines += 1;
            let next = offset + at as u64 + 1;
            // The line after this newline, numbered newlines + 1.
            if newlines + 1 == start_of {
                start = Some(next);
            }
            if keep_last > 0 {
                if last_starts.len() > keep_last {
                    last_starts.pop_front();
                }
                last_starts.push_back(next);
            }
        }
        offset += n as u64;
        last_byte = Some(buf[n - 1]);
    }
    let total = newlines + usize::from(last_byte.is_some_and(|b| b != b'\n'));
    // A start at the very end (after the last newline) is no line.
    if last_starts.back() == Some(&offset) {
        last_starts.pop_back();
    }
    while last_starts.len() > keep_last {
        last_starts.pop_front();
    }
    if start == Some(offset) {
        start = None;
    }
    Ok(Index {
        total,
        start_of: start,
        last_starts,
    })
}

/// Reads lines `first..=last` starting at byte `start` (where line
/// `first` starts), handing each to `emit`: kept whole, or at most
/// `clip` bytes of it (cut at a character boundary).
fn walk(
    file: &mut File,
    start: u64,
    first: usize,
    last: usize,
    clip: Option<usize>,
    anchored: bool,
    emit: &mut dyn FnMut(&Line),
) -> io::Result<()> {
    file.seek(SeekFrom::Start(start))?;
    let mut buf = vec![0u8; CHUNK];
    let mut number = first;
    let mut kept: Vec<u8> = Vec::new();
    let mut len = 0u64;
    let mut hasher = blake3::Hasher::new();
    let mut pending_cr = false;
    let room = |kept: &Vec<u8>| clip.map_or(usize::MAX, |c| c.saturating_sub(kept.len()));
    'read: loop {
        if number > last {
            break;
        }
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let mut rest = &buf[..n];
        while !rest.is_empty() {
            let (body, newline) = match memchr::memchr(b'\n', rest) {
                Some(at) => (&rest[..at], true),
                None => (rest, false),
            };
            let take = body.len().min(room(&kept));
            kept.extend_from_slice(&body[..take]);
            len += body.len() as u64;
            if anchored {
                feed(&mut hasher, &mut pending_cr, body);
            }
            rest = &rest[body.len() + usize::from(newline)..];
            if newline {
                finish(
                    &mut kept, len, number, clip, newline, anchored, &hasher, emit,
                );
                number += 1;
                kept.clear();
                len = 0;
                hasher.reset();
                pending_cr = false;
                if number > last {
                    break 'read;
                }
            }
        }
    }
    if number <= last && len > 0 {
        finish(&mut kept, len, number, clip, false, anchored, &hasher, emit);
    }
    Ok(())
}

/// Feeds a line's bytes to its hash, holding back a final `\r`: the
/// anchor hash leaves out the line ending, `\r\n` included.
fn feed(hasher: &mut blake3::Hasher, pending_cr: &mut bool, body: &[u8]) {
    if body.is_empty() {
        return;
    }
    if *pending_cr {
        hasher.update(b"\r");
    }
    match body.strip_suffix(b"\r") {
        Some(before) => {
            hasher.update(before);
            *pending_cr = true;
        }
        None => {
            hasher.update(body);
            *pending_cr = false;
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn finish(
    kept: &mut Vec<u8>,
    len: u64,
    number: usize,
    clip: Option<usize>,
    newline: bool,
    anchored: bool,
    hasher: &blake3::Hasher,
    emit: &mut dyn FnMut(&Line),
) {
    let clipped = clip.is_some_and(|c| len > c as u64);
    if clipped {
        // Not half a character: an incomplete sequence at the cut goes.
        let keep = view::char_prefix(kept, kept.len()).len();
        kept.truncate(keep);
    } else if newline {
        kept.push(b'\n');
    }
    let hash = anchored.then(|| hasher.finalize().to_hex()[..super::anchors::HASH_HEX].to_string());
    emit(&Line {
        number,
        bytes: kept,
        len,
        clipped,
        hash,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(
        text: &[u8],
        from: usize,
        to: usize,
        clip: Option<usize>,
    ) -> Vec<(usize, Vec<u8>, bool)> {
        let mut file = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut file, text).unwrap();
        let index = index(&mut file, from, 0).unwrap();
        let mut got = Vec::new();
        walk(
            &mut file,
            index.start_of.unwrap_or(0),
            from,
            to,
            clip,
            true,
            &mut |l| {
                let hash = l.hash.clone().unwrap();
                // The streamed hash is the anchor hash of the whole line.
                got.push((l.number, l.bytes.to_vec(), l.clipped));
                let _ = hash;
            },
        )
        .unwrap();
        got
    }

    #[test]
    fn the_index_counts_lines_as_the_loaded_reader_does() {
        for text in [&b""[..], b"a", b"a\n", b"a\nb", b"a\nb\n", b"\n\n", b"\n"] {
            let mut file = tempfile::tempfile().unwrap();
            std::io::Write::write_all(&mut file, text).unwrap();
            let want = if text.is_empty() {
                0
            } else {
                super::super::outline::line_starts(text).len()
            };
            assert_eq!(index(&mut file, 0, 3).unwrap().total, want, "{text:?}");
        }
    }

    #[test]
    fn a_walk_gives_the_lines_asked_for_and_clips_long_ones() {
        let text = b"one\ntwo\r\nthree\nfour";
        let got = lines_of(text, 2, 4, None);
        assert_eq!(
            got,
            vec![
                (2, b"two\r\n".to_vec(), false),
                (3, b"three\n".to_vec(), false),
                (4, b"four".to_vec(), false)
            ]
        );
        let got = lines_of("ééééé\n".as_bytes(), 1, 1, Some(5));
        assert_eq!(got, vec![(1, "éé".as_bytes().to_vec(), true)]);
    }

    #[test]
    fn streamed_hashes_are_the_anchor_hashes() {
        let text = b"alpha\r\nbeta\n\ngamma\r";
        let mut file = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut file, text).unwrap();
        let mut hashes = Vec::new();
        walk(&mut file, 0, 1, 10, Some(2), true, &mut |l| {
            hashes.push(l.hash.clone().unwrap())
        })
        .unwrap();
        let want: Vec<String> = [&b"alpha\r\n"[..], b"beta\n", b"\n", b"gamma\r"]
            .iter()
            .map(|l| super::super::anchors::hash(l))
            .collect();
        assert_eq!(hashes, want);
    }
}
