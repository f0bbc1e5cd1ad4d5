//! The bounded views `ctx expand` prints: a zoom, never a flood.
//!
//! A view prints at most `LINE_CAP` lines and about `BYTE_CAP` bytes (cut
//! at a line boundary; a single line is never cut, so the first line
//! always prints whole), then exactly one marker naming the command that
//! prints exactly the lines left out. Lines are the archived bytes as they
//! were, so `--lines` outputs concatenate to the original.

use regex::bytes::Regex;

use super::{ArchiveKey, Reader, StoreError};
use crate::artifact::Stream;
use crate::normalize;
use crate::words::{CTX_PREFIX, count, shell_quote};

/// Lines a capped view prints at most.
pub const LINE_CAP: usize = 300;
/// Bytes a capped view prints at most, cut at a line boundary.
pub const BYTE_CAP: usize = 64 << 10;

/// `A-B`, `A`, `A-`: 1-based, inclusive; `u64::MAX` stands for "the end".
pub fn parse_range(s: &str) -> Result<(u64, u64), String> {
    let bad = || format!("--lines {s}: expected A-B, A or A- (1-based line numbers)");
    let num = |t: &str| t.trim().parse::<u64>().ok().filter(|&n| n >= 1);
    let (a, b) = match s.split_once('-') {
        None => {
            let a = num(s).ok_or_else(bad)?;
            (a, a)
        }
        Some((a, "")) => (num(a).ok_or_else(bad)?, u64::MAX),
        Some((a, b)) => (num(a).ok_or_else(bad)?, num(b).ok_or_else(bad)?),
    };
    if a > b {
        return Err(format!("--lines {s}: the range runs backwards"));
    }
    Ok((a, b))
}

/// A bounded view of one record (or one stream of it).
pub struct Zoom {
    /// Named in the marker.
    pub key: ArchiveKey,
    /// The stream viewed, named in the marker; `None` for the interleaved view.
    pub stream: Option<Stream>,
    /// The regex, its source as typed (for the marker), and the context width.
    pub grep: Option<(Regex, String, usize)>,
    /// `--count`: a grep view reads on past its page to say how many
    /// result lines it left out. Without it the view stops at the first
    /// line that does not fit, so a first page costs what it prints, not
    /// what the record holds.
    pub count: bool,
}

impl Zoom {
    /// The one marker of a capped view: how many lines are left and the
    /// command that prints exactly those.
    pub fn marker(&self, left: u64, from: u64, to: u64) -> String {
        let noun = if left == 1 { "line" } else { "lines" };
        format!(
            "{CTX_PREFIX} … {} more {noun}: {} --lines {from}-{to}\n",
            count(left as usize),
            self.command()
        )
    }

    /// The marker of a grep view that stopped at its page without
    /// counting the rest: where the rest starts, and how to count it.
    pub fn uncounted_marker(&self, from: u64, to: u64) -> String {
        format!(
            "{CTX_PREFIX} … more lines from line {from} (--count counts them): {} --lines {from}-{to}\n",
            self.command()
        )
    }

    /// The `ctx expand` command of this view, without its `--lines`.
    fn command(&self) -> String {
        let mut cmd = format!("ctx expand {}", self.key.short());
        if let Some((_, source, context)) = &self.grep {
            cmd.push_str(&format!(" --grep {}", shell_quote(source)));
            if *context > 0 {
                cmd.push_str(&format!(" --context {context}"));
            }
            if self.count {
                cmd.push_str(" --count");
            }
        }
        if let Some(stream) = self.stream {
            cmd.push_str(&format!(" --stream {}", stream.name()));
        }
        cmd
    }

    /// Lines `first..=last`, capped.
    pub fn lines_view(
        &self,
        reader: &mut Reader,
        first: u64,
        last: u64,
    ) -> Result<Vec<u8>, StoreError> {
        let mut out = Vec::new();
        if first > last {
            return Ok(out);
        }
        let mut n = first;
        for (shown, line) in reader
            .lines_from(first)?
            .take((last - first + 1) as usize)
            .enumerate()
        {
            let line = line?;
            if !room(shown, out.len(), line.len()) {
                break;
            }
            out.extend_from_slice(&line);
            n += 1;
        }
        if n <= last {
            out.extend_from_slice(self.marker(last - n + 1, n, last).as_bytes());
        }
        Ok(out)
    }

    /// Matching lines (and their context) within `first..=last`, capped.
    /// Context comes from matches anywhere in the record, so the marker's
    /// `--lines` continuation prints exactly the lines left out. The scan
    /// stops at the first result line past the cap unless `count` asks
    /// for the number left.
    pub fn grep_view(
        &self,
        reader: &mut Reader,
        first: u64,
        last: u64,
    ) -> Result<Vec<u8>, StoreError> {
        let Some((re, _, context)) = &self.grep else {
            return Ok(Vec::new());
        };
        let c = *context as u64;
        let mut out = Vec::new();
        if first > last {
            return Ok(out);
        }
        let scan_from = first.saturating_sub(c).max(1);
        let scan_to = last.saturating_add(c);
        let mut behind: std::collections::VecDeque<(u64, Vec<u8>)> = Default::default();
        let mut ahead = 0u64; // context lines still owed after the last match
        let mut last_shown: Option<u64> = None;
        let mut shown = 0usize;
        // Result lines past the cap (a Cell: the loop reads it while
        // `emit` holds it), and the first of them.
        let left = std::cell::Cell::new(0u64);
        let mut resume = 0u64;
        let mut emit = |n: u64, line: Vec<u8>, is_match: bool, out: &mut Vec<u8>| {
            if n < first || n > last {
                return;
            }
            if left.get() > 0 || !room(shown, out.len(), line.len()) {
                if left.get() == 0 {
                    resume = n;
                }
                left.set(left.get() + 1);
                return;
            }
            if c > 0 && last_shown.is_some_and(|p| p + 1 < n) {
                out.extend_from_slice(b"--\n");
            }
            out.extend_from_slice(format!("{n}{}", if is_match { ':' } else { '-' }).as_bytes());
            out.extend_from_slice(&line);
            if !line.ends_with(b"\n") {
                out.push(b'\n');
            }
            shown += 1;
            last_shown = Some(n);
        };
        for (n, line) in (scan_from..=scan_to).zip(reader.lines_from(scan_from)?) {
            if left.get() > 0 && !self.count {
                break;
            }
            let line = line?;
            if matches(re, &line) {
                for (m, l) in behind.drain(..) {
                    emit(m, l, false, &mut out);
                }
                emit(n, line, true, &mut out);
                ahead = c;
            } else if ahead > 0 {
                ahead -= 1;
                emit(n, line, false, &mut out);
            } else if c > 0 {
                if behind.len() as u64 == c {
                    behind.pop_front();
                }
                behind.push_back((n, line));
            }
        }
        let left = left.get();
        if left > 0 {
            let marker = if self.count {
                self.marker(left, resume, last)
            } else {
                self.uncounted_marker(resume, last)
            };
            out.extend_from_slice(marker.as_bytes());
        }
        Ok(out)
    }
}

/// Whether one more line of `len` bytes fits a view that has printed
/// `shown` lines and `bytes` bytes (the first line always fits).
/// Whether a capped view that has printed `shown` lines (`bytes` bytes)
/// still prints a line of `len` bytes. The renderer's footer uses the same
/// rule to say how many lines `ctx expand H` prints.
pub fn room(shown: usize, bytes: usize, len: usize) -> bool {
    shown == 0 || (shown < LINE_CAP && bytes + len <= BYTE_CAP)
}

/// A line matches when RE finds its raw bytes, or its visible text when
/// escapes and carriage returns hide the words from the raw form.
fn matches(re: &Regex, line: &[u8]) -> bool {
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    if re.is_match(body) {
        return true;
    }
    body.iter().any(|&b| b == 0x1b || b == b'\r' || b == 0x9b)
        && re.is_match(normalize::line(body).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse() {
        assert_eq!(parse_range("3-7"), Ok((3, 7)));
        assert_eq!(parse_range("5"), Ok((5, 5)));
        assert_eq!(parse_range("5-"), Ok((5, u64::MAX)));
        assert!(parse_range("0-3").is_err());
        assert!(parse_range("7-3").is_err());
        assert!(parse_range("a-b").is_err());
        assert!(parse_range("-3").is_err());
    }

    fn zoom(grep: Option<(&str, usize)>) -> Zoom {
        Zoom {
            key: ArchiveKey([0xab; 32]),
            stream: None,
            grep: grep.map(|(re, c)| (Regex::new(re).expect("re"), re.to_string(), c)),
            count: false,
        }
    }

    fn numbered(n: usize) -> Vec<u8> {
        (1..=n)
            .map(|i| format!("line {i}\n"))
            .collect::<String>()
            .into_bytes()
    }

    #[test]
    fn cap_marker_names_the_rest() {
        let mut r = Reader::from_bytes(numbered(1000));
        let out = zoom(None).lines_view(&mut r, 1, 1000).expect("view");
        let text = String::from_utf8(out).expect("utf8");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), LINE_CAP + 1);
        assert_eq!(lines[LINE_CAP - 1], "line 300");
        assert_eq!(
            lines[LINE_CAP],
            "[ctx] … 700 more lines: ctx expand abababababab --lines 301-1000"
        );
    }

    /// Line numbers a grep view printed, and the range its marker names.
    fn shown(view: &str) -> (Vec<u64>, Option<(u64, u64)>) {
        let mut numbers = Vec::new();
        let mut next = None;
        for l in view.lines() {
            if l.starts_with("[ctx]") {
                next = l.rsplit(' ').next().and_then(|r| parse_range(r).ok());
            } else if l != "--" {
                let digits: String = l.chars().take_while(|c| c.is_ascii_digit()).collect();
                numbers.push(digits.parse().unwrap_or(0));
            }
        }
        (numbers, next)
    }

    /// Follows a grep view's markers from the first page to the end:
    /// the line numbers printed, and how many pages it took.
    fn follow(z: &Zoom, r: &mut Reader, total: u64) -> (String, Vec<u64>, usize) {
        let first = String::from_utf8(z.grep_view(r, 1, total).expect("v")).expect("utf8");
        let (mut all, mut next) = shown(&first);
        let mut hops = 0;
        while let Some((a, b)) = next {
            let view = String::from_utf8(z.grep_view(r, a, b).expect("v")).expect("utf8");
            let (numbers, more) = shown(&view);
            assert_eq!(numbers.first(), Some(&a));
            all.extend(numbers);
            next = more;
            hops += 1;
        }
        (first, all, hops)
    }

    #[test]
    fn grep_continuations_print_exactly_the_rest() {
        let expected: Vec<u64> = (1..=2000u64).filter(|n| matches!(n % 10, 4..=6)).collect();
        let mut r = Reader::from_bytes(numbered(2000));
        let mut z = zoom(Some(("5$", 1)));
        z.count = true;
        let (first, all, hops) = follow(&z, &mut r, 2000);
        assert!(first.starts_with("4-line 4\n5:line 5\n6-line 6\n--\n14-line 14\n15:line 15\n"));
        let marker = first.lines().last().unwrap_or_default();
        assert!(
            marker.starts_with(
                "[ctx] … 300 more lines: ctx expand abababababab --grep '5$' --context 1 \
                 --count --lines "
            ),
            "{marker}"
        );
        assert_eq!(hops, 1);
        assert_eq!(all, expected);

        // Uncounted (the default), the page is the same and its marker
        // names where the rest starts; following it still prints every
        // result line exactly once.
        let z = zoom(Some(("5$", 1)));
        let (uncounted, all, hops) = follow(&z, &mut r, 2000);
        assert_eq!(
            uncounted.lines().count(),
            first.lines().count(),
            "{uncounted}"
        );
        let marker = uncounted.lines().last().unwrap_or_default();
        assert_eq!(
            marker,
            "[ctx] … more lines from line 1004 (--count counts them): ctx expand abababababab \
             --grep '5$' --context 1 --lines 1004-2000"
        );
        assert_eq!(hops, 1);
        assert_eq!(all, expected);
    }

    #[test]
    fn an_uncounted_grep_page_stops_reading_at_its_end() {
        // Chunks past the page are never fetched: the fetch fails on them.
        let bytes = numbered(10_000);
        let size = 4096;
        let mut dir = Vec::new();
        let mut parts = Vec::new();
        let mut lines = 0;
        for (i, part) in bytes.chunks(size).enumerate() {
            let newlines = memchr::memchr_iter(b'\n', part).count() as u64;
            dir.push(crate::store::chunks::ChunkInfo {
                offset: (i * size) as u64,
                len: part.len() as u64,
                lines_before: lines,
                newlines,
            });
            lines += newlines;
            parts.push(part.to_vec());
        }
        let fetched = std::cell::Cell::new(0usize);
        let mut r = Reader::new(
            dir,
            10_000,
            Box::new(|i| {
                fetched.set(fetched.get().max(i + 1));
                Ok(parts[i].clone())
            }),
        )
        .expect("reader");
        let z = zoom(Some(("line", 0)));
        let view = String::from_utf8(z.grep_view(&mut r, 1, 10_000).expect("v")).expect("utf8");
        assert_eq!(view.lines().count(), LINE_CAP + 1);
        assert!(
            fetched.get() <= 2,
            "{} chunks read for one page",
            fetched.get()
        );
    }
}
