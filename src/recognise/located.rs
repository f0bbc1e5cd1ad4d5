//! Located diagnostics: a file, a line (often a column), a severity or a
//! code, and a message, in the dialects most tools print.
//!
//! - `path:line:col: severity: message` — gcc, clang, go vet's and
//!   shellcheck's gcc format, javac (`File.java:12: error: …`, no column),
//!   rustc `--error-format=short`; a trailing `[-Wflag]` / `[SC2086]` is the
//!   code;
//! - `path:line:col: CODE message` — flake8, pycodestyle, ruff's concise
//!   format, pylint's default (`C0103: … (invalid-name)`);
//! - `path:line: [C0103(invalid-name), obj] message` — pylint's parseable;
//! - `path(line,col): error CODE: message` — tsc's plain format, MSBuild,
//!   the C# compiler;
//! - `path:line:col - error TS2322: message` — tsc's pretty format;
//! - `error[E0308]: message` over `--> path:line:col` — the rustc family,
//!   and ruff's full format (`E401 [*] message`, `invalid-syntax: …`);
//! - `path:line:col: message [Error/rule]` — eslint's unix format, and
//!   `path: line N, col M, Error - message (rule)`, its compact one;
//! - `In path line N:` over `^-- SC2086 (warning): message` — shellcheck's
//!   tty format (the column is the caret's);
//! - a file's name over `  5:3  error  message  rule` — eslint's stylish;
//! - `[ERROR] /path/File.java:[57,8] message` — Maven's compiler plugin;
//! - `✘ [ERROR] message` over `path:line:col:` — esbuild;
//! - `path.go:line:col: message` — the Go compiler and go vet (`vet: `
//!   before a package that does not type check), with staticcheck's
//!   `(SA5009)` code at the end.
//!
//! The identity is where the reader goes: `path:line:col`, with the code
//! when the tool prints one (two codes at one place are two fixes).

use std::sync::LazyLock;

use regex::{Captures, Regex};

use crate::evidence::{EvidenceItem, ItemKind, Severity};

use super::Dialect;
use super::page::{compile, item, location, place};

/// A path as tools print it before `:line`: no spaces, no colons, not a
/// line a diff adds or removes (`+src/a.c:3:5: error:` quotes one).
const FILE: &str = r"[^\s:(\[+-][^\s:(]*";

/// One located diagnostic from the captures named `file`, `line`, `col`,
/// `sev`, `code` and `msg` (any may be missing but `file`).
fn diagnostic(c: &Captures, n: usize, severity: Severity) -> Option<EvidenceItem> {
    let file = c.name("file")?.as_str();
    // `10:00:00: error` is a timestamp, not a file.
    if file.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let loc = location(
        file,
        c.name("line").map(|m| m.as_str()),
        c.name("col").map(|m| m.as_str()),
    );
    let code = c.name("code").map(|m| m.as_str().to_string());
    let identity = match &code {
        Some(code) => format!("{} {code}", place(&loc)),
        None => place(&loc),
    };
    let mut d = item(ItemKind::Diagnostic, severity, identity, n);
    d.class = code;
    d.summary = c.name("msg").map(|m| m.as_str().trim().to_string());
    d.location = Some(loc);
    Some(d)
}

fn severity_word(word: &str) -> Severity {
    if word.eq_ignore_ascii_case("warning") || word.eq_ignore_ascii_case("note") {
        Severity::Warning
    } else {
        Severity::Error
    }
}

pub(super) static GNU: Dialect = Dialect {
    words: &[],
    located: true,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            compile(&format!(
                r"^(?P<file>{FILE}):(?P<line>\d+):(?:(?P<col>\d+):)?\s*(?P<sev>(?i:fatal error|error|warning|note))(?:\[(?P<code>[^\]]+)\])?:\s*(?P<msg>.*?)(?:\s+\[(?P<flag>-W[\w=-]+|SC\d+)\])?$"
            ))
        });
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        // A compiler's note belongs to the error above it; shellcheck's
        // (`[SC2086]`) is a finding of its own.
        let sc = c.name("flag").is_some_and(|f| f.as_str().starts_with("SC"));
        if c["sev"].eq_ignore_ascii_case("note") && !sc {
            return Vec::new();
        }
        let severity = severity_word(&c["sev"]);
        let mut d = diagnostic(&c, n, severity);
        if let (Some(d), Some(flag)) = (d.as_mut(), c.name("flag")) {
            d.class = Some(flag.as_str().to_string());
            d.identity = format!("{} {}", d.identity, flag.as_str());
        }
        d.into_iter().collect()
    },
};

pub(super) static CODE_FIRST: Dialect = Dialect {
    words: &[],
    located: true,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            compile(&format!(
                r"^(?P<file>{FILE}):(?P<line>\d+):(?:(?P<col>\d+):)? (?P<code>[A-Z]{{1,4}}\d{{1,5}}):? (?:\[\*\] )?(?P<msg>.+)$"
            ))
        });
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        // E and F are errors in flake8's and pylint's letters alike.
        let severity = match c["code"].as_bytes()[0] {
            b'E' | b'F' => Severity::Error,
            _ => Severity::Warning,
        };
        diagnostic(&c, n, severity).into_iter().collect()
    },
};

pub(super) static PYLINT_BRACKETS: Dialect = Dialect {
    words: &[],
    located: true,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            compile(&format!(
                r"^(?P<file>{FILE}):(?P<line>\d+): \[(?P<code>[A-Z]\d{{4}})(?:\([\w-]+\))?(?:, [^\]]*)?\] (?P<msg>.+)$"
            ))
        });
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        let severity = match c["code"].as_bytes()[0] {
            b'E' | b'F' => Severity::Error,
            _ => Severity::Warning,
        };
        diagnostic(&c, n, severity).into_iter().collect()
    },
};

pub(super) static MSBUILD: Dialect = Dialect {
    words: &[],
    located: true,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            compile(&format!(
                r"^(?P<file>{FILE})\((?P<line>\d+)(?:,(?P<col>\d+))?\):\s*(?P<sev>(?i:fatal error|error|warning))\s*(?P<code>[A-Z]+\d+)?\s*:\s*(?P<msg>.*?)(?:\s+\[[^\]]+\])?$"
            ))
        });
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        let severity = severity_word(&c["sev"]);
        diagnostic(&c, n, severity).into_iter().collect()
    },
};

pub(super) static TSC_PRETTY: Dialect = Dialect {
    words: &[" - error ", " - warning "],
    located: true,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            compile(&format!(
                r"^(?P<file>{FILE}):(?P<line>\d+):(?P<col>\d+) - (?P<sev>error|warning) (?P<code>[A-Z]+\d+): (?P<msg>.*)$"
            ))
        });
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        let severity = severity_word(&c["sev"]);
        diagnostic(&c, n, severity).into_iter().collect()
    },
};

pub(super) static RUSTC_ARROW: Dialect = Dialect {
    words: &["--> "],
    located: false,
    read: |page, n| {
        static ARROW: LazyLock<Regex> = LazyLock::new(|| {
            compile(&format!(
                r"^\s*--> (?P<file>{FILE}):(?P<line>\d+):(?P<col>\d+)$"
            ))
        });
        static HEAD: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r"^(?:(?P<sev>error|warning)(?:\[(?P<code>[^\]]+)\])?: |(?P<rule>[A-Z]+\d+) (?:\[\*\] )?|(?P<syntax>[a-z]+(?:-[a-z]+)+): )(?P<msg>.+)$",
            )
        });
        let text = page.text(n);
        let Some(c) = ARROW.captures(&text) else {
            return Vec::new();
        };
        // The header is the line right above (or two above, past a
        // wrapped message): any other `-->` is a note's or a help's.
        for h in (n.saturating_sub(3)..n).rev().filter(|&h| h > 0) {
            let head = page.text(h);
            let Some(hc) = HEAD.captures(&head) else {
                continue;
            };
            if hc["msg"].ends_with(" emitted") {
                return Vec::new();
            }
            let severity = hc
                .name("sev")
                .map_or(Severity::Error, |s| severity_word(s.as_str()));
            let Some(mut d) = diagnostic(&c, h, severity) else {
                return Vec::new();
            };
            if let Some(code) = hc.name("code").or(hc.name("rule")).or(hc.name("syntax")) {
                d.identity = format!("{} {}", d.identity, code.as_str());
                d.class = Some(code.as_str().to_string());
            }
            d.summary = Some(hc["msg"].to_string());
            d.detail = vec![crate::artifact::Span::line(n)];
            return vec![d];
        }
        Vec::new()
    },
};

pub(super) static MAVEN: Dialect = Dialect {
    words: &["[ERROR] ", "[WARNING] "],
    located: false,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r"^\[(?P<sev>ERROR|WARNING)\] (?P<file>[^\s:]*(?::\\)?[^\s:]+):\[(?P<line>\d+),(?P<col>\d+)\] (?P<msg>.*)$",
            )
        });
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        let severity = severity_word(&c["sev"]);
        diagnostic(&c, n, severity).into_iter().collect()
    },
};

pub(super) static ESBUILD: Dialect = Dialect {
    words: &["✘ [ERROR]", "▲ [WARNING]"],
    located: false,
    read: |page, n| {
        static HEAD: LazyLock<Regex> = LazyLock::new(|| {
            compile(r"^\s*[✘▲] \[(?P<sev>ERROR|WARNING)\] (?P<msg>.+?)(?: \[[\w-]+\])?$")
        });
        static AT: LazyLock<Regex> = LazyLock::new(|| {
            compile(&format!(
                r"^\s+(?P<file>{FILE}):(?P<line>\d+):(?P<col>\d+):$"
            ))
        });
        let text = page.text(n);
        let Some(h) = HEAD.captures(&text) else {
            return Vec::new();
        };
        for m in page.after(n, 4) {
            let at = page.text(m);
            if let Some(c) = AT.captures(&at)
                && let Some(mut d) = diagnostic(&c, n, severity_word(&h["sev"]))
            {
                d.summary = Some(h["msg"].to_string());
                return vec![d];
            }
        }
        Vec::new()
    },
};

pub(super) static SHELLCHECK_TTY: Dialect = Dialect {
    words: &[" SC"],
    located: false,
    read: |page, n| {
        static MARK: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r"^(?P<pad>\s*)\^[-^]*\s(?P<code>SC\d+) \((?P<sev>error|warning|info|style)\): (?P<msg>.+)$",
            )
        });
        static IN: LazyLock<Regex> =
            LazyLock::new(|| compile(r"^In (?P<file>.+) line (?P<line>\d+):$"));
        let text = page.text(n);
        let Some(c) = MARK.captures(&text) else {
            return Vec::new();
        };
        let Some(heading) = (n.saturating_sub(12)..n)
            .rev()
            .find(|&h| IN.is_match(&page.text(h)))
        else {
            return Vec::new();
        };
        let head = page.text(heading);
        let Some(h) = IN.captures(&head) else {
            return Vec::new();
        };
        let column = (c["pad"].chars().count() + 1).to_string();
        let loc = location(&h["file"], Some(&h["line"]), Some(&column));
        let severity = if &c["sev"] == "error" {
            Severity::Error
        } else {
            Severity::Warning
        };
        let mut d = item(
            ItemKind::Diagnostic,
            severity,
            format!("{} {}", place(&loc), &c["code"]),
            n,
        );
        d.class = Some(c["code"].to_string());
        d.summary = Some(c["msg"].to_string());
        d.location = Some(loc);
        vec![d]
    },
};

pub(super) static ESLINT_STYLISH: Dialect = Dialect {
    words: &["  error  ", "  warning  "],
    located: false,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r"^\s+(?P<line>\d+):(?P<col>\d+)\s+(?P<sev>error|warning)\s+(?P<msg>.+?)(?:\s{2,}(?P<code>[\w/@.-]+))?$",
            )
        });
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        let Some(heading) = page.heading_above(n) else {
            return Vec::new();
        };
        let file = page.text(heading);
        let file = file.trim_end();
        if file.contains(' ') && !file.starts_with('/') {
            return Vec::new();
        }
        let loc = location(file, Some(&c["line"]), Some(&c["col"]));
        let code = c.name("code").map(|m| m.as_str().to_string());
        let identity = match &code {
            Some(code) => format!("{} {code}", place(&loc)),
            None => place(&loc),
        };
        let mut d = item(ItemKind::Diagnostic, severity_word(&c["sev"]), identity, n);
        d.class = code;
        d.summary = Some(c["msg"].to_string());
        d.location = Some(loc);
        vec![d]
    },
};

pub(super) static GO: Dialect = Dialect {
    words: &[".go:"],
    located: true,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            compile(&format!(
                r"^(?P<vet>vet: )?(?P<file>{FILE}\.go):(?P<line>\d+):(?P<col>\d+): (?P<msg>.+?)(?: \((?P<code>(?:SA|S|ST|QF|U)\d{{4}}|compile)\))?$"
            ))
        });
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        let mut d = diagnostic(&c, n, Severity::Error);
        // go vet's `vet: ` marks a package that does not type check, as
        // staticcheck's `(compile)` does.
        if let Some(d) = d
            .as_mut()
            .filter(|d| d.class.is_none() && c.name("vet").is_some())
        {
            d.class = Some("compile".to_string());
            d.identity = format!("{} compile", d.identity);
        }
        d.into_iter().collect()
    },
};

pub(super) static ESLINT_UNIX: Dialect = Dialect {
    words: &["[Error/", "[Warning/", ", col "],
    located: false,
    read: |page, n| {
        static UNIX: LazyLock<Regex> = LazyLock::new(|| {
            compile(&format!(
                r"^(?P<file>{FILE}):(?P<line>\d+):(?P<col>\d+): (?P<msg>.+) \[(?P<sev>Error|Warning)/(?P<code>[\w/@.-]+)\]$"
            ))
        });
        static COMPACT: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r"^(?P<file>\S+): line (?P<line>\d+), col (?P<col>\d+), (?P<sev>Error|Warning) - (?P<msg>.+?)(?: \((?P<code>[\w/@.-]+)\))?$",
            )
        });
        let text = page.text(n);
        let Some(c) = UNIX.captures(&text).or_else(|| COMPACT.captures(&text)) else {
            return Vec::new();
        };
        diagnostic(&c, n, severity_word(&c["sev"]))
            .into_iter()
            .collect()
    },
};
