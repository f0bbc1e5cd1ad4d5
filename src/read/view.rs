//! The words of every `ctx read` view. Pure: data in, bytes out; it never
//! parses (the outline, the lookups and the policy of what to show are
//! decided before it is called).
//!
//! A view's own lines start with `[ctx]` or, in an outline, with a line
//! span (`L12-40`); the file's lines appear as they are, or prefixed
//! with `N:hash|` when anchored.

use crate::words::{CTX_PREFIX, count, counted, shell_quote};

use super::anchors;
use super::mode::Mode;
use super::outline::{Decl, ErrorRegion};

/// `ctx read PATH --mode MODE`, quoted for a POSIX shell.
pub fn command(shown: &str, mode: &Mode) -> String {
    format!(
        "ctx read {} --mode {}",
        shell_quote(shown),
        shell_quote(&mode.to_string())
    )
}

/// The file's lines `from..=to` (1-based) of `src`, as they are or anchored.
pub fn lines(
    out: &mut Vec<u8>,
    src: &[u8],
    starts: &[usize],
    from: usize,
    to: usize,
    anchored: bool,
) {
    let end_of = |n: usize| starts.get(n).copied().unwrap_or(src.len());
    if !anchored {
        out.extend_from_slice(&src[starts[from - 1]..end_of(to)]);
    } else {
        for n in from..=to {
            let line = &src[starts[n - 1]..end_of(n)];
            out.extend_from_slice(format!("{n}:{}|", anchors::hash(line)).as_bytes());
            out.extend_from_slice(line);
        }
    }
    if !out.is_empty() && !out.ends_with(b"\n") {
        out.push(b'\n');
    }
}

/// A `[ctx]` line.
pub fn note(out: &mut Vec<u8>, text: &str) {
    out.extend_from_slice(CTX_PREFIX.as_bytes());
    out.push(b' ');
    out.extend_from_slice(text.as_bytes());
    out.push(b'\n');
}

/// The header of an outline or a line-precision view.
pub fn header(shown: &str, what: &str, total_lines: usize, view: &str) -> String {
    format!(
        "{shown} · {what} · {} · {view}",
        counted(total_lines, "lines")
    )
}

/// One outline line per declaration, indented by nesting.
pub fn outline(out: &mut Vec<u8>, decls: &[&Decl]) {
    for d in decls {
        let span = if d.start_line == d.end_line {
            format!("L{}", d.start_line)
        } else {
            format!("L{}-{}", d.start_line, d.end_line)
        };
        let mut line = format!("{}{span} {}", "  ".repeat(d.depth), d.signature);
        if d.has_body && d.role == super::languages::Role::Leaf && d.lines() > 1 {
            line.push_str(&format!(" (+{})", counted(d.lines() - 1, "lines")));
        }
        line.push('\n');
        out.extend_from_slice(line.as_bytes());
    }
}

/// The syntax errors of an outline, the first ten by line.
pub fn errors(out: &mut Vec<u8>, errors: &[ErrorRegion]) {
    if errors.is_empty() {
        return;
    }
    const SHOWN: usize = 10;
    let mut parts: Vec<String> = errors
        .iter()
        .take(SHOWN)
        .map(|e| {
            let span = if e.start_line == e.end_line {
                format!("L{}", e.start_line)
            } else {
                format!("L{}-{}", e.start_line, e.end_line)
            };
            match &e.missing {
                Some(token) => format!("{span} missing {token:?}"),
                None => format!("{span} unparsed"),
            }
        })
        .collect();
    if errors.len() > SHOWN {
        parts.push(format!("and {} more", count(errors.len() - SHOWN)));
    }
    note(
        out,
        &format!(
            "syntax errors in {}: {} (the outline around them is the parser's best reading)",
            counted(errors.len(), "regions"),
            parts.join(", ")
        ),
    );
}

/// The closing lines of an outline: how many declarations, the exact read
/// of one of them, and of the whole file.
pub fn outline_footer(
    out: &mut Vec<u8>,
    shown: &str,
    listed: usize,
    example: Option<&Mode>,
    total_lines: usize,
) {
    let mut text = format!("{} listed", counted(listed, "declarations"));
    if let Some(mode) = example {
        text.push_str(&format!(" · one in full: {}", command(shown, mode)));
    }
    note(out, &text);
    note(
        out,
        &format!(
            "whole file ({}): {}",
            counted(total_lines, "lines"),
            command(shown, &Mode::Full)
        ),
    );
}

/// The closing line of a slice (`lines:`, `symbol:`, `section:`).
pub fn slice_footer(
    out: &mut Vec<u8>,
    shown: &str,
    what: &str,
    from: usize,
    to: usize,
    total_lines: usize,
) {
    note(
        out,
        &format!(
            "{what}lines {from}-{to} of {} · whole file: {}",
            count(total_lines),
            command(shown, &Mode::Full)
        ),
    );
}

/// A line-precision view: the first and last lines, each clipped at
/// `clip` bytes, and the exact read of the lines between.
#[allow(clippy::too_many_arguments)]
pub fn head_tail(
    out: &mut Vec<u8>,
    shown: &str,
    src: &[u8],
    starts: &[usize],
    head: usize,
    tail: usize,
    anchored: bool,
    clip: usize,
) {
    let total = starts.len();
    let clipped_lines = |out: &mut Vec<u8>, from: usize, to: usize| {
        for n in from..=to {
            let end = starts.get(n).copied().unwrap_or(src.len());
            let whole = &src[starts[n - 1]..end];
            let body = whole.strip_suffix(b"\n").unwrap_or(whole);
            let hash = anchored.then(|| anchors::hash(whole));
            if body.len() > clip {
                let kept = char_prefix(body, clip);
                line(out, n, kept, hash.as_deref(), true);
                clipped(out, shown, n, body.len() as u64, kept.len());
            } else {
                line(out, n, whole, hash.as_deref(), false);
            }
        }
    };
    if total <= head + tail {
        clipped_lines(out, 1, total);
        return;
    }
    clipped_lines(out, 1, head);
    let (from, to) = (head + 1, total - tail);
    note(
        out,
        &format!(
            "… {} omitted: {}",
            counted(to - from + 1, "lines"),
            command(shown, &Mode::Lines(from, to))
        ),
    );
    clipped_lines(out, to + 1, total);
}

/// At most `n` bytes of `bytes`, not ending inside a UTF-8 character.
pub fn char_prefix(bytes: &[u8], n: usize) -> &[u8] {
    let kept = &bytes[..n.min(bytes.len())];
    match std::str::from_utf8(kept) {
        Err(e) if e.error_len().is_none() => &kept[..e.valid_up_to()],
        _ => kept,
    }
}

/// One line of the file, as it is or anchored (`N:hash|`), ending in a
/// newline; a clipped line ends in `…`.
pub fn line(out: &mut Vec<u8>, number: usize, bytes: &[u8], hash: Option<&str>, clipped: bool) {
    if let Some(hash) = hash {
        out.extend_from_slice(format!("{number}:{hash}|").as_bytes());
    }
    out.extend_from_slice(bytes);
    if clipped {
        out.extend_from_slice("…".as_bytes());
    }
    if !out.ends_with(b"\n") {
        out.push(b'\n');
    }
}

/// The `[ctx]` line after a clipped line: how long it is and the read
/// that shows it whole.
pub fn clipped(out: &mut Vec<u8>, shown: &str, number: usize, len: u64, kept: usize) {
    note(
        out,
        &format!(
            "line {number} is {}, the first {} shown · whole line: {}",
            counted(len as usize, "bytes"),
            count(kept),
            command(shown, &Mode::Lines(number, number))
        ),
    );
}

/// A file that is not shown as text: what it is and how big.
pub fn described(shown: &str, what: &str, bytes: u64) -> Vec<u8> {
    let mut out = Vec::new();
    note(
        &mut out,
        &format!(
            "{shown} · {what} · {} · not text, not shown",
            counted(bytes as usize, "bytes")
        ),
    );
    out
}

/// A candidate list for a name that fits several declarations.
pub fn candidates(shown: &str, query: &str, decls: &[&Decl]) -> String {
    let mut text = format!(
        "{shown}: {query:?} names {} declarations; read one by its lines:",
        decls.len()
    );
    for d in decls {
        text.push_str(&format!(
            "\n  {} ({}): {}",
            d.qualified(),
            d.signature,
            command(shown, &Mode::Lines(d.start_line, d.end_line))
        ));
    }
    text
}

/// The one line a re-read of an unchanged view prints.
pub fn stub(shown: &str, earlier: &str, view_lines: usize) -> Vec<u8> {
    let mut out = Vec::new();
    note(
        &mut out,
        &format!(
            "{shown} unchanged since {earlier}: same {} as then, not repeated · again in full: add --fresh",
            counted(view_lines, "lines")
        ),
    );
    out
}

/// A changed view as a diff against the one read before.
pub fn changed(shown: &str, earlier: &str, diff: &str, added: usize, removed: usize) -> Vec<u8> {
    let mut out = Vec::new();
    note(
        &mut out,
        &format!(
            "{shown} changed since {earlier}: +{} −{} · the diff below is against that read · whole view: add --fresh",
            count(added),
            count(removed)
        ),
    );
    out.extend_from_slice(diff.as_bytes());
    if !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    out
}
