//! Runs that broke before pytest's report ended: an `INTERNALERROR>`
//! traceback (pytest or a plugin hook raised), a usage or configuration
//! error, an interpreter crash (faulthandler's `Fatal Python error`). Each
//! is one census item of kind "suite not run", so the run reads ERROR
//! whatever its summary line says, and its decisive lines stay.

use std::sync::LazyLock;

use regex::Regex;

use super::{class_of, is_library};
use crate::artifact::Span;
use crate::evidence::{EvidenceItem, ItemKind, Location, Severity};
use crate::profiles::testrun;

/// `INTERNALERROR> …`: pytest itself (or a plugin hook) raised.
static INTERNAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^INTERNALERROR> ?(.*)$").expect("static pattern"));
/// A Python traceback frame: `File "path", line N, in fn` (faulthandler
/// prints it without the comma).
static PY_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^\s*File "([^"]+)", line (\d+),? in "#).expect("static pattern")
});
/// A usage or configuration error: `ERROR: usage: …`, `ERROR: file or
/// directory not found: x`, and argparse's `pytest: error: …` after it.
static USAGE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^ERROR: (.+)$").expect("static pattern"));
static ARGPARSE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[\w.-]+: error: (.+)$").expect("static pattern"));
/// The interpreter died (faulthandler): `Fatal Python error: Segmentation
/// fault`, on stderr, so it may share a line with stdout's progress dots.
static FATAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"Fatal Python error: (.+)$").expect("static pattern"));

/// How the run ended when it did not end in its summary: the runner broke.
pub(super) struct Breakdown {
    /// `INTERNALERROR`, `usage error`, `Fatal Python error`.
    identity: &'static str,
    /// The decisive line (the exception, the argparse message, the fatal error).
    headline: usize,
    summary: String,
    first: usize,
    last: usize,
    /// (file, line, source line) of the frames, innermost last.
    frames: Vec<(String, u32, usize)>,
}

/// Reads one line as part of a breakdown (INTERNALERROR, usage error,
/// interpreter crash); true when the line belonged to one.
pub(super) fn breakdown(
    found: &mut Vec<Breakdown>,
    n: usize,
    text: &str,
    cwd: Option<&str>,
    in_session: bool,
) -> bool {
    let open = |found: &mut Vec<Breakdown>, identity: &'static str, summary: &str| {
        found.push(Breakdown {
            identity,
            headline: n,
            summary: summary.to_string(),
            first: n,
            last: n,
            frames: Vec::new(),
        });
    };
    if let Some(c) = INTERNAL.captures(text) {
        let body = &c[1];
        let current = found
            .last_mut()
            .filter(|b| b.identity == "INTERNALERROR" && b.last + 1 == n);
        let Some(b) = current else {
            open(found, "INTERNALERROR", body);
            return true;
        };
        b.last = n;
        if let Some(f) = PY_FRAME.captures(body) {
            if let Ok(line) = f[2].parse() {
                b.frames.push((testrun::relative(&f[1], cwd), line, n));
            }
        } else if !body.starts_with(char::is_whitespace) && !body.starts_with("Traceback ") {
            // The exception line; a chained traceback's last one wins.
            b.headline = n;
            b.summary = body.to_string();
        }
        return true;
    }
    if text.contains("Fatal Python error: ")
        && let Some(c) = FATAL.captures(text)
    {
        open(found, "Fatal Python error", &c[1]);
        return true;
    }
    if let Some(b) = found
        .last_mut()
        .filter(|b| b.identity == "Fatal Python error" && b.last + 1 == n)
    {
        // faulthandler's thread dump: `Current thread …`, frames, blank lines.
        if let Some(f) = PY_FRAME.captures(text) {
            if let Ok(line) = f[2].parse() {
                b.frames.push((testrun::relative(&f[1], cwd), line, n));
            }
            b.last = n;
            return true;
        }
        if text.is_empty() || text.starts_with("Current thread") || text.starts_with("Thread ") {
            b.last = n;
            return true;
        }
    }
    if !in_session {
        return false;
    }
    if let Some(c) = USAGE.captures(text) {
        open(found, "usage error", &c[1]);
        return true;
    }
    if let Some(c) = ARGPARSE.captures(text)
        && let Some(b) = found
            .last_mut()
            .filter(|b| b.identity == "usage error" && b.last + 1 == n)
    {
        // argparse's own message says what was wrong; `usage: …` does not.
        b.headline = n;
        b.summary = c[1].to_string();
        b.last = n;
        return true;
    }
    false
}

impl Breakdown {
    pub(super) fn item(&self) -> EvidenceItem {
        let mut it = EvidenceItem::new(ItemKind::SuiteNotRun, Severity::Error, self.identity);
        it.headline = Some(Span::line(self.headline));
        it.block = Some(Span::new(self.first, self.last.max(self.headline)));
        it.summary = Some(self.summary.clone());
        it.class = Some(match self.identity {
            "INTERNALERROR" => class_of(&self.summary),
            other => other.to_string(),
        });
        // The innermost frame the reader can fix: the last one of a
        // traceback, the first one of faulthandler's (most recent first).
        let mut fixable = self.frames.iter().filter(|f| !is_library(&f.0));
        let frame = if self.identity == "Fatal Python error" {
            fixable.next()
        } else {
            fixable.next_back()
        };
        let mut lines = vec![self.headline];
        if let Some((file, line, n)) = frame {
            it.location = Some(Location {
                file: file.clone(),
                line: Some(*line),
                column: None,
            });
            lines.push(*n);
            if self.identity == "INTERNALERROR" {
                // The source line under the frame.
                lines.push(n + 1);
            }
        } else {
            it.location = Some(Location {
                file: "pytest".into(),
                line: None,
                column: None,
            });
        }
        if self.identity == "usage error" && self.first != self.headline {
            lines.push(self.first);
        }
        it.detail = testrun::spans(&lines, 10);
        it
    }
}
