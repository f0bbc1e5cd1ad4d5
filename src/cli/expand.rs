//! `ctx expand HASH`: bring back archived output, whole or zoomed.
//!
//! Output is bounded (a zoom, never a flood): at most `LINE_CAP` lines and
//! about `BYTE_CAP` bytes (a single line is never cut, so the first line
//! always prints whole), then exactly one marker naming the command that
//! prints the rest. Lines are the archived bytes as they were, so
//! `--lines` outputs concatenate to the original. `--all` is the one
//! uncapped view. Expand writes straight to stdout: its output is never
//! digested or archived again.

use std::io::{self, Write};

use regex::bytes::Regex;

use crate::artifact::Stream;
use crate::plan::shell_quote;
use crate::render::{CTX_PREFIX, count};
use crate::store::{self, ArchiveKey, Reader, RecordMeta, Store, StoreError, key};
use crate::{ledger, normalize, tokens};

/// Lines a capped view prints at most.
pub const LINE_CAP: usize = 300;
/// Bytes a capped view prints at most, cut at a line boundary.
pub const BYTE_CAP: usize = 64 << 10;

const EXIT_NOT_FOUND: i32 = 1;
const EXIT_USAGE: i32 = super::EXIT_CTX_ERROR;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamArg {
    Both,
    Stdout,
    Stderr,
}

/// Arguments of `ctx expand`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The record's hash as a digest names it (12 hex), or any unique prefix of 6 or more.
    #[arg(value_name = "HASH")]
    pub hash: String,
    /// Lines A-B (1-based, inclusive); `A` alone is one line, `A-` runs to the end.
    #[arg(long, value_name = "A-B")]
    pub lines: Option<String>,
    /// Only lines matching RE, numbered like `grep -n` (N: match, N- context).
    #[arg(long, value_name = "RE")]
    pub grep: Option<String>,
    /// Lines of context around each --grep match.
    #[arg(long, short = 'C', value_name = "N", requires = "grep")]
    pub context: Option<usize>,
    /// both: the interleaved view; stdout or stderr: that stream alone, numbered on its own.
    #[arg(long, value_enum, default_value_t = StreamArg::Both)]
    pub stream: StreamArg,
    /// The whole record (or stream) byte for byte, with no cap.
    #[arg(long, conflicts_with_all = ["lines", "grep", "item", "items"])]
    pub all: bool,
    /// One census item by identity (needs a profile census).
    #[arg(long, value_name = "ID")]
    pub item: Option<String>,
    /// The whole census (needs a profile census).
    #[arg(long, conflicts_with = "item")]
    pub items: bool,
}

pub fn execute(args: Args) -> anyhow::Result<i32> {
    if args.item.is_some() || args.items {
        eprintln!(
            "ctx: --item and --items need a profile census, which this record's profile does not provide yet"
        );
        return Ok(EXIT_USAGE);
    }
    let prefix = match key::parse_prefix(&args.hash) {
        Ok(p) => p,
        Err(why) => return usage(&why),
    };
    let range = match args.lines.as_deref().map(parse_range).transpose() {
        Ok(r) => r,
        Err(why) => return usage(&why),
    };
    let grep = match args.grep.as_deref().map(Regex::new).transpose() {
        Ok(g) => g,
        Err(e) => return usage(&format!("--grep: {e}")),
    };
    let Some(store) = store::open_existing()? else {
        eprintln!("ctx: no record {prefix} (unknown or evicted)");
        return Ok(EXIT_NOT_FOUND);
    };
    let key = match store.resolve(&prefix) {
        Ok(k) => k,
        Err(StoreError::NotFound(_)) => {
            eprintln!("ctx: no record {prefix} (unknown or evicted)");
            return Ok(EXIT_NOT_FOUND);
        }
        Err(StoreError::Ambiguous { prefix, candidates }) => {
            eprintln!(
                "ctx: {prefix} is ambiguous; it starts {} records:",
                candidates.len()
            );
            for c in &candidates {
                eprintln!("  {}  {}  {}", c.key.short(), when(c.used_ms), c.command);
            }
            eprintln!("ctx: give more digits of the hash");
            return Ok(EXIT_USAGE);
        }
        Err(e) => return Err(e.into()),
    };
    let meta = match store.meta(&key) {
        Ok(m) => m,
        Err(StoreError::NotFound(_)) => {
            eprintln!("ctx: no record {prefix} (unknown or evicted)");
            return Ok(EXIT_NOT_FOUND);
        }
        Err(e) => return Err(e.into()),
    };
    let mut reader = view(&store, &meta, args.stream)?;
    let zoom = Zoom {
        key,
        stream: args.stream,
        grep: grep.map(|re| (re, args.grep.unwrap_or_default(), args.context.unwrap_or(0))),
    };

    let stdout = io::stdout();
    let mut out = stdout.lock();
    let printed_tokens = if args.all {
        let mut tokens = 0;
        let mut failed = None;
        reader.copy_range(0, reader.len(), &mut |bytes| {
            tokens += tokens::estimate(bytes);
            out.write_all(bytes).map_err(|e| failed = Some(e)).is_ok()
        })?;
        finish(out.flush().err().or(failed))?;
        tokens
    } else {
        let total = reader.line_count();
        let (first, last) = match range {
            None => (1, total),
            Some((a, b)) => (a, b.min(total)),
        };
        if range.is_some() && first > total {
            return usage(&format!(
                "line {first} is past the end: record {} has {} lines",
                key.short(),
                count(total as usize)
            ));
        }
        let bytes = match &zoom.grep {
            Some(_) => zoom.grep_view(&mut reader, first, last)?,
            None => zoom.lines_view(&mut reader, first, last)?,
        };
        finish(out.write_all(&bytes).and_then(|()| out.flush()).err())?;
        tokens::estimate(&bytes)
    };
    let _ = store.touch(&key);
    ledger::record_expand(&key, printed_tokens);
    Ok(0)
}

fn usage(why: &str) -> anyhow::Result<i32> {
    eprintln!("ctx: {why}");
    Ok(EXIT_USAGE)
}

/// A reader that went away (`| head`) is not ctx's failure.
fn finish(err: Option<io::Error>) -> anyhow::Result<()> {
    match err {
        Some(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

fn when(ms: i64) -> String {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms.max(0) as u64);
    humantime::format_rfc3339_seconds(t).to_string()
}

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

/// The bytes a stream view reads: the interleaved record, or one stream
/// reassembled (only when the record really mixes both).
fn view<'s>(
    store: &'s dyn Store,
    meta: &RecordMeta,
    stream: StreamArg,
) -> Result<Reader<'s>, StoreError> {
    let wanted = match stream {
        StreamArg::Both => return store::reader(store, meta),
        StreamArg::Stdout => Stream::Stdout,
        StreamArg::Stderr => Stream::Stderr,
    };
    if !meta.has_stream(wanted) {
        return Ok(Reader::from_bytes(Vec::new()));
    }
    if meta.segments.iter().all(|s| s.stream == wanted) {
        return store::reader(store, meta);
    }
    Ok(Reader::from_bytes(store::stream_bytes(
        store, meta, wanted,
    )?))
}

struct Zoom {
    key: ArchiveKey,
    stream: StreamArg,
    /// The regex, its source as typed, and the context width.
    grep: Option<(Regex, String, usize)>,
}

impl Zoom {
    /// The one marker of a capped view: how many lines are left and the
    /// command that prints exactly those.
    fn marker(&self, left: u64, from: u64, to: u64) -> String {
        let mut cmd = format!("ctx expand {}", self.key.short());
        if let Some((_, source, context)) = &self.grep {
            cmd.push_str(&format!(" --grep {}", shell_quote(source)));
            if *context > 0 {
                cmd.push_str(&format!(" --context {context}"));
            }
        }
        match self.stream {
            StreamArg::Both => {}
            StreamArg::Stdout => cmd.push_str(" --stream stdout"),
            StreamArg::Stderr => cmd.push_str(" --stream stderr"),
        }
        let noun = if left == 1 { "line" } else { "lines" };
        format!(
            "{CTX_PREFIX} … {} more {noun}: {cmd} --lines {from}-{to}\n",
            count(left as usize)
        )
    }

    /// Lines `first..=last`, capped.
    fn lines_view(
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
    /// `--lines` continuation prints exactly the lines left out.
    fn grep_view(&self, reader: &mut Reader, first: u64, last: u64) -> Result<Vec<u8>, StoreError> {
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
        let mut left = 0u64; // result lines past the cap
        let mut resume = 0u64; // first of them
        let mut emit = |n: u64, line: Vec<u8>, is_match: bool, out: &mut Vec<u8>| {
            if n < first || n > last {
                return;
            }
            if left > 0 || !room(shown, out.len(), line.len()) {
                if left == 0 {
                    resume = n;
                }
                left += 1;
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
        if left > 0 {
            out.extend_from_slice(self.marker(left, resume, last).as_bytes());
        }
        Ok(out)
    }
}

/// Whether one more line of `len` bytes fits a view that has printed
/// `shown` lines and `bytes` bytes (the first line always fits).
fn room(shown: usize, bytes: usize, len: usize) -> bool {
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
            stream: StreamArg::Both,
            grep: grep.map(|(re, c)| (Regex::new(re).expect("re"), re.to_string(), c)),
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

    #[test]
    fn grep_continuations_print_exactly_the_rest() {
        let bytes = numbered(2000);
        let z = zoom(Some(("5$", 1)));
        let mut r = Reader::from_bytes(bytes);
        let first = String::from_utf8(z.grep_view(&mut r, 1, 2000).expect("v")).expect("utf8");
        assert!(first.starts_with("4-line 4\n5:line 5\n6-line 6\n--\n14-line 14\n15:line 15\n"));
        let marker = first.lines().last().unwrap_or_default();
        assert!(
            marker.starts_with(
                "[ctx] … 300 more lines: ctx expand abababababab --grep '5$' --context 1 --lines "
            ),
            "{marker}"
        );
        let (mut all, mut next) = shown(&first);
        let mut hops = 0;
        while let Some((a, b)) = next {
            let view = String::from_utf8(z.grep_view(&mut r, a, b).expect("v")).expect("utf8");
            let (numbers, more) = shown(&view);
            assert_eq!(numbers.first(), Some(&a));
            all.extend(numbers);
            next = more;
            hops += 1;
        }
        assert_eq!(hops, 1);
        let expected: Vec<u64> = (1..=2000u64).filter(|n| matches!(n % 10, 4..=6)).collect();
        assert_eq!(all, expected);
    }
}
