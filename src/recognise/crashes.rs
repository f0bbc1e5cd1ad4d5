//! Crashes with their cause chains: a program (or a test) that died on an
//! uncaught exception or a panic.
//!
//! - Python: `Traceback (most recent call last):`, its frames, the
//!   exception line; chains joined by `During handling of the above
//!   exception, another exception occurred:` and `The above exception was
//!   the direct cause of the following exception:` are one crash, read at
//!   the last traceback (the exception that ended the program);
//! - Java and the JVM languages: `Exception in thread "main" x.Y: msg`
//!   (or the bare exception line) over `\tat pkg.Cls.m(File.java:N)`,
//!   `Caused by: …`, `... N more`; Node: `TypeError: msg` (or `Uncaught
//!   …`) over `    at f (path:line:col)`;
//! - Rust: `thread 'NAME' panicked at path:line:col:` (the message on the
//!   next line; before 1.73 `panicked at 'msg', path:line:col`);
//! - Go: `panic: msg` with the goroutine that panicked, and the runtime's
//!   `fatal error: …` (deadlocks, concurrent map writes).
//!
//! The identity is what died and where in the user's code: the exception
//! class at the innermost user frame, the panic's location.

use std::sync::LazyLock;

use regex::Regex;

use crate::artifact::Span;
use crate::evidence::{EvidenceItem, ItemKind, Severity};

use super::Dialect;
use super::page::{clip, compile, item};

fn crash(identity: &str, n: usize, summary: &str, block: Span) -> EvidenceItem {
    let mut c = item(ItemKind::Crash, Severity::Error, clip(identity, 240), n);
    c.summary = Some(clip(summary.trim(), 200).to_string());
    c.block = Some(block);
    c
}

/// How far a traceback or a stack is followed.
const STACK_REACH: usize = 400;

const CHAINED: &[&str] = &[
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
];

pub(super) static PYTHON: Dialect = Dialect {
    words: &["Traceback (most recent call last)"],
    located: false,
    read: |page, n| {
        static FRAME: LazyLock<Regex> =
            LazyLock::new(|| compile(r#"^\s+File "(?P<file>[^"]+)", line (?P<line>\d+)"#));
        static RAISED: LazyLock<Regex> =
            LazyLock::new(|| compile(r"^(?P<class>[A-Za-z_][\w.]*)(?::\s?(?P<msg>.*))?$"));
        let text = page.text(n);
        if !text
            .trim_start()
            .starts_with("Traceback (most recent call last)")
        {
            return Vec::new();
        }
        let indent = text.len() - text.trim_start().len();
        let mut frame: Option<String> = None;
        for m in page.after(n, STACK_REACH) {
            let line = page.text(m);
            let own = line.len() - line.trim_start().len();
            if line.trim().is_empty() || own > indent {
                if let Some(f) = FRAME.captures(&line) {
                    frame = Some(format!("{}:{}", &f["file"], &f["line"]));
                }
                continue;
            }
            let Some(c) = RAISED.captures(line.trim_start()) else {
                return Vec::new();
            };
            // A traceback another one follows as its consequence is read there.
            let next = page
                .after(m, 3)
                .map(|k| page.text(k))
                .find(|t| !t.trim().is_empty());
            if next.is_some_and(|t| CHAINED.contains(&t.trim())) {
                return Vec::new();
            }
            let class = &c["class"];
            let identity = match &frame {
                Some(at) => format!("{class} at {at}"),
                None => line.trim().to_string(),
            };
            return vec![crash(&identity, m, &line, Span::new(n, m))];
        }
        Vec::new()
    },
};

/// Frames no user wrote: the runtime's, the test framework's, a
/// dependency's. The first other frame is where the user looks.
const FOREIGN_FRAMES: &[&str] = &[
    "node:internal",
    "node_modules",
    "(native)",
    "java.base/",
    "jdk.internal.",
    "java.lang.reflect.",
    "sun.reflect.",
    "org.junit.",
    "org.apache.maven.",
];

pub(super) static THROWN: Dialect = Dialect {
    words: &["Exception", "Error", "Throwable", "Rejection"],
    located: false,
    read: |page, n| {
        static RAISED: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r#"^(?:Exception in thread "[^"]*" |Uncaught )?(?P<class>(?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$][\w$]*(?:Exception|Error|Throwable|Rejection)[\w$]*)(?: \[\w+\])?(?::\s*(?P<msg>.*))?$"#,
            )
        });
        static FRAME: LazyLock<Regex> = LazyLock::new(|| compile(r"^\s+at (?P<frame>.+)$"));
        // Cheapest test first: an exception without a stack is prose.
        if !page.text(n + 1).trim_start().starts_with("at ") {
            return Vec::new();
        }
        let text = page.text(n);
        let Some(c) = RAISED.captures(text.trim_start()) else {
            return Vec::new();
        };
        let mut first_user: Option<String> = None;
        let mut cause: Option<String> = None;
        let mut end = n;
        for m in page.after(n, STACK_REACH) {
            let line = page.text(m);
            let t = line.trim_start();
            if let Some(f) = FRAME.captures(&line) {
                let frame = f["frame"].trim();
                let foreign =
                    frame == "<anonymous>" || FOREIGN_FRAMES.iter().any(|x| frame.contains(x));
                if first_user.is_none() && !foreign {
                    first_user = Some(frame.to_string());
                }
            } else if let Some(by) = t.strip_prefix("Caused by: ") {
                cause = Some(by.split(':').next().unwrap_or(by).to_string());
            } else if !(t.starts_with("... ") && t.ends_with(" more")
                || t.starts_with("Suppressed: "))
            {
                break;
            }
            end = m;
        }
        let class = &c["class"];
        let identity = match &first_user {
            Some(at) => format!("{class} at {at}"),
            None => text.trim().to_string(),
        };
        let mut item = crash(&identity, n, &text, Span::new(n, end));
        if let Some(cause) = cause {
            item.fields.insert("cause".to_string(), cause);
        }
        vec![item]
    },
};

pub(super) static RUST_PANIC: Dialect = Dialect {
    words: &["panicked at"],
    located: false,
    read: |page, n| {
        static RE: LazyLock<Regex> = LazyLock::new(|| {
            compile(
                r"^\s*thread '(?P<thread>[^']*)'(?: \(\d+\))? panicked at (?:'(?P<old>.*)', )?(?P<at>[^\s']+:\d+:\d+):?$",
            )
        });
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        let message = match c.name("old") {
            Some(old) => old.as_str().to_string(),
            None => page.text(n + 1).into_owned(),
        };
        let identity = format!("thread '{}' panicked at {}", &c["thread"], &c["at"]);
        let end = if c.name("old").is_some() {
            n
        } else {
            (n + 1).min(page.count())
        };
        vec![crash(&identity, n, &message, Span::new(n, end))]
    },
};

pub(super) static GO_PANIC: Dialect = Dialect {
    words: &["panic: ", "fatal error: "],
    located: false,
    read: |page, n| {
        static RE: LazyLock<Regex> =
            LazyLock::new(|| compile(r"^(?P<what>panic|fatal error): (?P<msg>.+)$"));
        static AT: LazyLock<Regex> =
            LazyLock::new(|| compile(r"^\t(?P<file>\S+\.go):(?P<line>\d+)"));
        let text = page.text(n);
        let Some(c) = RE.captures(&text) else {
            return Vec::new();
        };
        // The frames of the goroutine that panicked, past the runtime's.
        let mut at: Option<String> = None;
        let mut end = n;
        for m in page.after(n, STACK_REACH) {
            let line = page.text(m);
            if line.starts_with("exit status") {
                break;
            }
            end = m;
            if let Some(f) = AT.captures(&line) {
                let file = &f["file"];
                if !file.contains("/runtime/") && !file.contains("/src/testing/") {
                    at = Some(format!("{file}:{}", &f["line"]));
                    break;
                }
            }
        }
        let identity = match at {
            Some(at) => format!("{} at {at}", &c["what"]),
            None => format!("{}: {}", &c["what"], clip(&c["msg"], 120)),
        };
        vec![crash(&identity, n, &c["msg"], Span::new(n, end))]
    },
};

/// Attaches each crash that follows a test verdict closely (the assertion
/// a runner prints under the failing test) to that test as its detail:
/// one failure, not a failure and a crash.
pub(super) fn fold_into_tests(items: &mut Vec<EvidenceItem>) {
    let mut out: Vec<EvidenceItem> = Vec::with_capacity(items.len());
    for it in items.drain(..) {
        let follows_test = it.kind == ItemKind::Crash
            && out.last().is_some_and(|prev| {
                matches!(prev.kind, ItemKind::FailingTest | ItemKind::TestError)
                    && match (prev.headline, it.block.or(it.headline)) {
                        (Some(p), Some(c)) => c.first > p.first && c.first <= p.last + 12,
                        _ => false,
                    }
            });
        match (follows_test, out.last_mut()) {
            (true, Some(prev)) => prev.detail.extend(it.headline),
            _ => out.push(it),
        }
    }
    *items = out;
}
