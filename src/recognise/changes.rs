//! Formatters' would-change lists: every file a formatter in check mode
//! would rewrite, or could not read.
//!
//! - `would reformat path` and `error: cannot format path: …` — black,
//!   `ruff format --check`;
//! - `[warn] path` — `prettier --check` (its closing `[warn] Code style
//!   issues …` is a summary, not a file);
//! - `unformatted: File would be reformatted` over `--> path:line:col` —
//!   `ruff format --check` in its full output format;
//! - `Diff in path at line N:` / `Diff in path:N:` — `cargo fmt --check`.
//!
//! `gofmt -l` prints bare paths, which nothing tells from any other list
//! without the command: the typed format_check family reads it by name.
//!
//! The identity is the file: the reader reformats files, not hunks.

use std::sync::LazyLock;

use regex::Regex;

use crate::evidence::{EvidenceItem, ItemKind, Location, Severity};

use super::Dialect;
use super::page::{compile, item};

/// The class format_check gives the same facts, so `--code` filters alike.
const WOULD_REFORMAT: &str = "would reformat";
const CANNOT_FORMAT: &str = "cannot format";

fn file(path: &str, class: &str, n: usize, summary: Option<&str>) -> EvidenceItem {
    let mut f = item(ItemKind::Diagnostic, Severity::Error, path, n);
    f.class = Some(class.to_string());
    f.summary = summary.map(str::to_string);
    f.location = Some(Location {
        file: path.to_string(),
        line: None,
        column: None,
    });
    f
}

pub(super) static BLACK: Dialect = Dialect {
    words: &["would reformat ", "cannot format ", "unformatted: "],
    located: false,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r"^(?:would reformat (?P<would>.+)|error: cannot format (?P<cannot>.+?): (?P<why>.*))$",
            )
        });
        static ARROW: LazyLock<Regex> =
            LazyLock::new(|| compile(r"^\s*--> (?P<path>\S+?):\d+:\d+$"));
        let text = page.text(n);
        if text.starts_with("unformatted: ") {
            return match ARROW.captures(&page.text(n + 1)) {
                Some(c) => vec![file(&c["path"], WOULD_REFORMAT, n, None)],
                None => Vec::new(),
            };
        }
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        if let Some(p) = c.name("would") {
            return vec![file(p.as_str().trim(), WOULD_REFORMAT, n, None)];
        }
        match (c.name("cannot"), c.name("why")) {
            (Some(p), why) => vec![file(p.as_str(), CANNOT_FORMAT, n, why.map(|m| m.as_str()))],
            _ => Vec::new(),
        }
    },
};

pub(super) static PRETTIER: Dialect = Dialect {
    words: &["[warn] "],
    located: false,
    read: |page, n| {
        static RE: LazyLock<Regex> =
            LazyLock::new(|| compile(r"^\[warn\] (?P<path>[^\s]+\.[\w]+)$"));
        let text = page.text(n);
        match RE.captures(&text) {
            Some(c) => vec![file(&c["path"], WOULD_REFORMAT, n, None)],
            None => Vec::new(),
        }
    },
};

pub(super) static CARGO_FMT: Dialect = Dialect {
    words: &["Diff in "],
    located: false,
    read: |page, n| {
        static RE: LazyLock<Regex> =
            LazyLock::new(|| compile(r"^Diff in (?P<path>\S+?)(?: at line \d+|:\d+):?$"));
        let text = page.text(n);
        match RE.captures(&text) {
            Some(c) => vec![file(&c["path"], WOULD_REFORMAT, n, None)],
            None => Vec::new(),
        }
    },
};
