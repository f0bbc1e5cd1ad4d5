//! The captured run: both streams' bytes in the order they arrived, the exit
//! status, and the line index every later stage addresses.
//!
//! Line numbers are 1-based over the *interleaved* view (what a reader of a
//! terminal would have seen). A line ends at `\n`; a final line without a
//! newline still counts; a trailing `\n` does not open an extra line. The
//! store indexes its records with the same rule, so a `Span` printed in a
//! digest is a valid `ctx expand H --lines A-B` range.

use serde::{Deserialize, Serialize};

use crate::line_index::{self, LineIndex};
use crate::mapped::MappedBytes;

/// Bytes a pass over a mapped input scans before releasing them.
pub const SCAN_WINDOW: usize = 4 << 20;

/// Which output stream a byte came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stream {
    Stdout,
    Stderr,
}

impl Stream {
    pub fn name(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }
}

/// A run of consecutive bytes from one stream, in arrival order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Segment {
    pub stream: Stream,
    pub len: u64,
}

/// How the producing command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "kind", content = "value")]
pub enum Exit {
    /// Exited normally with this status (0–255).
    Code(i32),
    /// Killed by this signal number.
    Signal(i32),
    /// Not known: input came through a pipe or a saved file.
    Unknown,
}

impl Exit {
    /// True only when the command is known to have failed.
    pub fn is_failure(self) -> bool {
        matches!(self, Exit::Code(c) if c != 0) || matches!(self, Exit::Signal(_))
    }

    /// The text used in digest headers: `exit 1`, `signal 9`, or nothing.
    pub fn describe(self) -> Option<String> {
        match self {
            Exit::Code(c) => Some(format!("exit {c}")),
            Exit::Signal(s) => Some(format!("killed by signal {s}")),
            Exit::Unknown => None,
        }
    }
}

/// An inclusive, 1-based range of lines of the interleaved view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Span {
    pub first: usize,
    pub last: usize,
}

impl Span {
    pub fn new(first: usize, last: usize) -> Self {
        debug_assert!(first >= 1 && first <= last);
        Span { first, last }
    }
    pub fn line(n: usize) -> Self {
        Span { first: n, last: n }
    }
    pub fn len(&self) -> usize {
        self.last + 1 - self.first
    }
    pub fn is_empty(&self) -> bool {
        false
    }
    pub fn contains(&self, n: usize) -> bool {
        self.first <= n && n <= self.last
    }
}

/// A set of spans asked "does any hold line `n`?" in O(log n): the spans
/// sorted by start, each carrying the furthest end reached so far, so a
/// lookup is one binary search however the spans overlap or nest. The
/// census guard asks it of a plan's raw blocks, the evidence layer of a
/// typed family's items.
#[derive(Clone, Debug, Default)]
pub struct SpanSet {
    reach: Vec<(usize, usize)>,
}

impl SpanSet {
    pub fn holds(&self, n: usize) -> bool {
        let before = self.reach.partition_point(|&(first, _)| first <= n);
        before > 0 && self.reach[before - 1].1 >= n
    }
}

impl FromIterator<Span> for SpanSet {
    fn from_iter<I: IntoIterator<Item = Span>>(spans: I) -> Self {
        let mut reach: Vec<(usize, usize)> = spans.into_iter().map(|s| (s.first, s.last)).collect();
        reach.sort_unstable();
        let mut furthest = 0;
        for span in &mut reach {
            furthest = furthest.max(span.1);
            span.1 = furthest;
        }
        SpanSet { reach }
    }
}

/// Where an artifact's bytes live: in memory, or (a large output or
/// input, past the spill threshold) in a private temporary file mapped
/// read-only, so the process's own memory stays bounded whatever the size.
pub enum Bytes {
    Owned(Vec<u8>),
    Mapped(MappedBytes),
}

impl Bytes {
    pub fn as_slice(&self) -> &[u8] {
        match self {
            Bytes::Owned(v) => v,
            Bytes::Mapped(m) => m.as_slice(),
        }
    }

    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Tells a mapping that `range` was scanned (see [`Artifact::release`]).
    pub fn release(&self, range: std::ops::Range<usize>) {
        if let Bytes::Mapped(m) = self {
            m.release(range);
        }
    }
}

impl Clone for Bytes {
    fn clone(&self) -> Self {
        match self {
            Bytes::Owned(v) => Bytes::Owned(v.clone()),
            // The file never changes: clones share the mapping.
            Bytes::Mapped(m) => Bytes::Mapped(m.clone()),
        }
    }
}

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} bytes", self.as_slice().len())
    }
}

/// Everything ingest knows about a run. Read-only after capture.
#[derive(Clone, Debug)]
pub struct Artifact {
    pub argv: Vec<String>,
    pub cwd: Option<String>,
    /// A name given with `--label` (pipe/digest) to stand in for argv.
    pub label: Option<String>,
    /// The label is the saved file `ctx digest` read, not a name the user
    /// gave: the ledger groups such runs by family, since `in.log` says
    /// nothing of what the file held.
    pub label_is_file: bool,
    /// The family named with `--as` at ingest; classification obeys it.
    pub family: Option<String>,
    pub exit: Exit,
    /// The producer's output was cut before ctx saw it (a size cap upstream,
    /// a CI log's "truncated" notice). Profiles must not claim completeness.
    pub truncated: bool,
    bytes: Bytes,
    segments: Vec<Segment>,
    line_starts: LineIndex,
}

impl Artifact {
    /// Builds an artifact from bytes already in arrival order. The segment
    /// lengths must add up to `bytes.len()`; a single-stream input passes
    /// one segment (or none for empty input).
    pub fn new(bytes: Vec<u8>, segments: Vec<Segment>, exit: Exit, argv: Vec<String>) -> Self {
        debug_assert_eq!(
            segments.iter().map(|s| s.len).sum::<u64>(),
            bytes.len() as u64
        );
        let line_starts = LineIndex::of(&bytes);
        Artifact {
            argv,
            cwd: None,
            label: None,
            label_is_file: false,
            family: None,
            exit,
            truncated: false,
            bytes: Bytes::Owned(bytes),
            segments,
            line_starts,
        }
    }

    /// Builds an artifact from bytes held by ingest (in memory or
    /// mapped), in arrival order; `segments` as for [`Artifact::new`].
    pub fn from_bytes(bytes: Bytes, segments: Vec<Segment>, exit: Exit, argv: Vec<String>) -> Self {
        debug_assert_eq!(
            segments.iter().map(|s| s.len).sum::<u64>(),
            bytes.len() as u64
        );
        // Indexed a window at a time, each released once scanned: the
        // index is built without a mapped input becoming resident.
        let mut index = line_index::Builder::new(bytes.len());
        let mut at = 0;
        for window in bytes.as_slice().chunks(SCAN_WINDOW) {
            index.push(window);
            bytes.release(at..at + window.len());
            at += window.len();
        }
        let line_starts = index.finish();
        Artifact {
            argv,
            cwd: None,
            label: None,
            label_is_file: false,
            family: None,
            exit,
            truncated: false,
            bytes,
            segments,
            line_starts,
        }
    }

    /// The segments of a single-stream input of `len` bytes: one, or none
    /// when it is empty.
    pub fn stdout_segments(len: usize) -> Vec<Segment> {
        if len == 0 {
            Vec::new()
        } else {
            vec![Segment {
                stream: Stream::Stdout,
                len: len as u64,
            }]
        }
    }

    /// This artifact as a profile's view of `original` (`Profile::view`):
    /// its own bytes, `original`'s directory, label, family and truncation.
    pub fn viewing(mut self, original: &Artifact) -> Artifact {
        self.cwd = original.cwd.clone();
        self.label = original.label.clone();
        self.label_is_file = original.label_is_file;
        self.family = original.family.clone();
        self.truncated = original.truncated;
        self
    }

    /// One stream's bytes as the whole input (pipe and digest modes).
    pub fn from_stdout(bytes: Vec<u8>, exit: Exit, argv: Vec<String>) -> Self {
        let segments = if bytes.is_empty() {
            Vec::new()
        } else {
            vec![Segment {
                stream: Stream::Stdout,
                len: bytes.len() as u64,
            }]
        };
        Artifact::new(bytes, segments, exit, argv)
    }

    /// The interleaved bytes, exactly as captured.
    pub fn bytes(&self) -> &[u8] {
        self.bytes.as_slice()
    }

    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// The segments with their byte ranges into `bytes()`.
    pub fn segment_ranges(&self) -> impl Iterator<Item = (Stream, std::ops::Range<usize>)> + '_ {
        let mut at = 0usize;
        self.segments.iter().map(move |s| {
            let start = at;
            at += s.len as usize;
            (s.stream, start..at)
        })
    }

    /// One stream's bytes, reassembled from its segments.
    pub fn stream_bytes(&self, stream: Stream) -> Vec<u8> {
        let mut out = Vec::new();
        for (s, range) in self.segment_ranges() {
            if s == stream {
                out.extend_from_slice(&self.bytes()[range]);
            }
        }
        out
    }

    /// Tells a mapped input that `range` was scanned and need not stay
    /// resident (it reads back the same when touched again); nothing for
    /// bytes in memory. For passes over the whole input.
    pub fn release(&self, range: std::ops::Range<usize>) {
        self.bytes.release(range);
    }

    /// Calls `f` with every line in order (1-based number, bytes without
    /// `\n`, as [`Artifact::line`] gives them). A mapped input is released
    /// behind the scan a window at a time, so a pass over every line keeps
    /// a bounded part of the input resident whatever its size.
    pub fn for_each_line(&self, mut f: impl FnMut(usize, &[u8])) {
        let mut released = 0;
        for n in 1..=self.line_count() {
            f(n, self.line(n));
            if let Some(next) = self.line_start(n + 1)
                && next - released >= SCAN_WINDOW
            {
                self.release(released..next);
                released = next;
            }
        }
        self.release(released..self.bytes().len());
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// Line `n` (1-based) without its `\n`; empty for out-of-range numbers.
    pub fn line(&self, n: usize) -> &[u8] {
        if n == 0 || n > self.line_starts.len() {
            return &[];
        }
        let Some(start) = self.line_starts.get(n - 1) else {
            return &[];
        };
        let end = match self.line_starts.get(n) {
            Some(next) => next - 1,
            None => {
                let len = self.bytes().len();
                if len > start && self.bytes()[len - 1] == b'\n' {
                    len - 1
                } else {
                    len
                }
            }
        };
        &self.bytes()[start..end]
    }

    /// The byte offset where line `n` (1-based) starts.
    pub fn line_start(&self, n: usize) -> Option<usize> {
        n.checked_sub(1).and_then(|i| self.line_starts.get(i))
    }

    /// The line (1-based) that holds byte `offset`.
    pub fn line_at(&self, offset: usize) -> usize {
        self.line_starts.starting_at_or_before(offset).max(1)
    }

    /// The stream line `n` started on.
    pub fn stream_of_line(&self, n: usize) -> Stream {
        let Some(offset) = self.line_start(n) else {
            return Stream::Stdout;
        };
        for (stream, range) in self.segment_ranges() {
            if range.contains(&offset) {
                return stream;
            }
        }
        Stream::Stdout
    }

    /// What to call this run in headers and the ledger.
    /// The label, else argv, else `output` (piped input with neither).
    pub fn display_command(&self) -> String {
        if let Some(label) = &self.label {
            return label.clone();
        }
        if self.argv.is_empty() {
            return "output".to_string();
        }
        // Quoted as a shell would need it, so `grep -rn 'fn ' src` reads
        // back as the command that ran, not `grep -rn fn  src`.
        shell_words::join(&self.argv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        // Overlapping, nested and out-of-order spans: a binary search over
        // the running reach answers as a walk over every span would.
        #[test]
        fn span_set_holds_what_some_span_contains(
            spans in proptest::collection::vec((1usize..60, 0usize..12), 0..12),
            n in 0usize..80,
        ) {
            let spans: Vec<Span> = spans.into_iter().map(|(f, l)| Span::new(f, f + l)).collect();
            let set: SpanSet = spans.iter().copied().collect();
            proptest::prop_assert_eq!(set.holds(n), spans.iter().any(|s| s.contains(n)));
        }
    }

    fn art(s: &str) -> Artifact {
        Artifact::from_stdout(s.as_bytes().to_vec(), Exit::Unknown, vec![])
    }

    #[test]
    fn line_rules() {
        assert_eq!(art("").line_count(), 0);
        assert_eq!(art("a").line_count(), 1);
        assert_eq!(art("a\n").line_count(), 1);
        assert_eq!(art("a\n\n").line_count(), 2);
        let a = art("one\ntwo\nthree");
        assert_eq!(a.line_count(), 3);
        assert_eq!(a.line(1), b"one");
        assert_eq!(a.line(3), b"three");
        assert_eq!(a.line(4), b"");
        let b = art("x\n\n");
        assert_eq!(b.line(2), b"");
        let c = art("ab\ncd\n\nef");
        let at: Vec<usize> = (0..c.bytes().len()).map(|o| c.line_at(o)).collect();
        assert_eq!(at, vec![1, 1, 1, 2, 2, 2, 3, 4, 4]);
    }

    #[test]
    fn for_each_line_yields_what_line_gives() {
        for text in ["", "a", "a\n", "a\n\n", "one\ntwo\nthree", "x\r\n\ny\n"] {
            let a = art(text);
            let mut seen = Vec::new();
            a.for_each_line(|n, line| seen.push((n, line.to_vec())));
            let want: Vec<(usize, Vec<u8>)> = (1..=a.line_count())
                .map(|n| (n, a.line(n).to_vec()))
                .collect();
            assert_eq!(seen, want, "{text:?}");
        }
    }

    #[test]
    fn streams_reassemble() {
        let a = Artifact::new(
            b"out1\nerr1\nout2\n".to_vec(),
            vec![
                Segment {
                    stream: Stream::Stdout,
                    len: 5,
                },
                Segment {
                    stream: Stream::Stderr,
                    len: 5,
                },
                Segment {
                    stream: Stream::Stdout,
                    len: 5,
                },
            ],
            Exit::Code(1),
            vec!["x".into()],
        );
        assert_eq!(a.stream_bytes(Stream::Stdout), b"out1\nout2\n");
        assert_eq!(a.stream_bytes(Stream::Stderr), b"err1\n");
        assert_eq!(a.stream_of_line(2), Stream::Stderr);
        assert_eq!(a.stream_of_line(3), Stream::Stdout);
    }
}
