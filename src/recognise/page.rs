//! The artifact as the recognisers read it: each line's visible text
//! (escapes removed, carriage-return overwrites applied), and the one
//! constructor of an item, so every dialect fills spans the same way.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};

use regex::Regex;

use crate::artifact::{Artifact, Span};
use crate::evidence::{EvidenceItem, ItemKind, Location, Severity};
use crate::normalize;

/// A line longer than this is never read as a report (a minified bundle,
/// a base64 blob): no tool writes a failure that long on one line.
const LONGEST: usize = 4096;

pub struct Page<'a> {
    artifact: &'a Artifact,
    /// The last `heading_above` answer: (asked at, heading line).
    heading: Cell<Option<(usize, usize)>>,
    /// The last line's visible text: every dialect a line's words name
    /// asks for it (five for each located line), and removing escapes
    /// once per line, not once per dialect, is a tenth of the layer's time
    /// on a build of a million warnings.
    last: RefCell<Option<(usize, Cow<'a, str>)>>,
}

impl<'a> Page<'a> {
    pub fn new(artifact: &'a Artifact) -> Self {
        Page {
            artifact,
            heading: Cell::new(None),
            last: RefCell::new(None),
        }
    }

    /// The nearest line above `n` that opens without indentation and is
    /// not empty: the heading a block of indented lines sits under (a
    /// file's name over eslint's `  5:3  error …` lines). Asked in line
    /// order, the walk back stops where the last answer was found, so the
    /// whole page costs one pass.
    pub fn heading_above(&self, n: usize) -> Option<usize> {
        let mut m = n;
        while m > 1 {
            m -= 1;
            if let Some((asked, heading)) = self.heading.get()
                && asked == m
            {
                self.heading.set(Some((n, heading)));
                return Some(heading);
            }
            let raw = self.artifact.line(m);
            if raw.first().is_some_and(|b| !b.is_ascii_whitespace()) {
                self.heading.set(Some((n, m)));
                return Some(m);
            }
            if raw.is_empty() {
                // An empty line between blocks ends the block.
                return None;
            }
        }
        None
    }

    pub fn artifact(&self) -> &'a Artifact {
        self.artifact
    }

    pub fn count(&self) -> usize {
        self.artifact.line_count()
    }

    /// Line `n`'s visible text; empty past the end and for overlong lines.
    pub fn text(&self, n: usize) -> Cow<'a, str> {
        if n == 0 || n > self.count() {
            return Cow::Borrowed("");
        }
        if let Some((m, text)) = self.last.borrow().as_ref()
            && *m == n
        {
            return text.clone();
        }
        let raw = self.artifact.line(n);
        if raw.len() > LONGEST {
            return Cow::Borrowed("");
        }
        let text = normalize::line(raw);
        *self.last.borrow_mut() = Some((n, text.clone()));
        text
    }

    /// The line numbers after `n`, up to `limit` of them.
    pub fn after(&self, n: usize, limit: usize) -> impl Iterator<Item = usize> {
        (n + 1)..=(n + limit).min(self.count())
    }
}

/// A dialect's pattern, compiled on first use (each sits in a `LazyLock`
/// beside its dialect). The patterns are literals of the source, and the
/// tests read every dialect, so one that does not compile fails there.
pub fn compile(pattern: &str) -> Regex {
    Regex::new(pattern).expect("static patterns compile")
}

/// An item named by line `n`, with an identity and a summary.
pub fn item(
    kind: ItemKind,
    severity: Severity,
    identity: impl Into<String>,
    n: usize,
) -> EvidenceItem {
    let mut item = EvidenceItem::new(kind, severity, identity);
    item.headline = Some(Span::line(n));
    item
}

/// A location from its parts as a tool printed them.
pub fn location(file: &str, line: Option<&str>, column: Option<&str>) -> Location {
    Location {
        file: file.to_string(),
        line: line.and_then(|l| l.parse().ok()),
        column: column.and_then(|c| c.parse().ok()),
    }
}

/// `file:line[:col]`, the way the reader types it.
pub fn place(loc: &Location) -> String {
    let mut s = loc.file.clone();
    if let Some(l) = loc.line {
        s.push_str(&format!(":{l}"));
        if let Some(c) = loc.column {
            s.push_str(&format!(":{c}"));
        }
    }
    s
}

/// `s` cut to `max` characters, at a character boundary.
pub fn clip(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}
