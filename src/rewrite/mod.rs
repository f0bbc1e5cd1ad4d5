//! `ctx rewrite`: turns a shell line into the same line with each command
//! ctx knows run through `ctx run --`, for agents that prefer a rewrite
//! hook to PATH shims. docs/shims.md (section "ctx rewrite") has the rules:
//!
//! - the line splits on `&&`, `||`, `;` and newlines; each pipeline is
//!   decided on its own;
//! - in a pipeline only the last stage is eligible, and only when it is a
//!   known command: `pytest | tail` stays raw because tail reads pytest's
//!   bytes, and `cat f | pytest` is still pytest's output;
//! - environment assignments, `time` and `!` stay in front; wrappers
//!   (`uv run`, `docker exec C`, `timeout 5`, …) go inside `ctx run`, and
//!   classification looks through them at the command they wrap;
//! - a stage whose stdout is redirected, a watcher or a server is left as
//!   it is; backticks, `$( )`, heredocs, subshells, function definitions,
//!   compound commands and `eval` leave the whole line alone.

pub mod lexer;
mod wrappers;

use crate::profiles;
use crate::shim::longrun;
use lexer::{Stage, Word};

/// What `ctx run` is spelled as in a rewritten line.
pub const PREFIX: &str = "ctx run -- ";

/// First words that make a line unattestable as a whole.
const OPAQUE: &[&str] = &[
    "eval", "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case",
    "esac", "function", "select", "{", "}", "coproc", "source", ".", "alias",
];

/// The rewritten line, or `None` when nothing in it is rewritten.
pub fn rewrite(line: &str) -> Option<String> {
    rewrite_with(line, &known_command)
}

/// `rewrite` with an explicit notion of which commands ctx knows.
pub fn rewrite_with(line: &str, known: &dyn Fn(&[String]) -> bool) -> Option<String> {
    let pipelines = lexer::lex(line).ok()?;
    let mut inserts: Vec<usize> = Vec::new();
    for pipeline in &pipelines {
        for stage in pipeline {
            if stage
                .words
                .first()
                .is_some_and(|w| OPAQUE.contains(&w.value.as_str()))
            {
                return None;
            }
            if stage.words.iter().any(|w| w.value == "eval") {
                return None;
            }
        }
        let Some(last) = pipeline.last() else {
            continue;
        };
        if let Some(at) = eligible(last, known) {
            inserts.push(at);
        }
    }
    if inserts.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(line.len() + inserts.len() * PREFIX.len());
    let mut from = 0;
    for at in inserts {
        out.push_str(&line[from..at]);
        out.push_str(PREFIX);
        from = at;
    }
    out.push_str(&line[from..]);
    Some(out)
}

/// Where to insert `ctx run -- ` in this stage, if it is to be rewritten.
fn eligible(stage: &Stage, known: &dyn Fn(&[String]) -> bool) -> Option<usize> {
    if stage.stdout_redirected {
        return None;
    }
    let words = &stage.words;
    // Shell-level prefixes stay outside ctx: `!`, `time [-p]`, `A=1`.
    let mut i = 0;
    while let Some(w) = words.get(i) {
        match w.value.as_str() {
            "!" => i += 1,
            "time" => {
                i += 1;
                while words.get(i).is_some_and(|w| w.value.starts_with('-')) {
                    i += 1;
                }
            }
            _ if is_assignment(w) => i += 1,
            _ => break,
        }
    }
    let start = words.get(i)?.start;
    let values: Vec<String> = words[i..].iter().map(|w| w.value.clone()).collect();
    let core = wrappers::unwrap(&values)?;
    let core = &values[core..];
    if core
        .first()
        .is_some_and(|w| w == "ctx" || w.ends_with("/ctx"))
    {
        return None;
    }
    if longrun::long_running(core).is_some() || longrun::long_running(&values).is_some() {
        return None;
    }
    known(core).then_some(start)
}

fn is_assignment(word: &Word) -> bool {
    let Some((name, _)) = word.value.split_once('=') else {
        return false;
    };
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// True when a profile serves this command (`Profile::commands()`):
/// single names match argv[0]'s basename; `python -m pytest`-style entries
/// match the leading words, any `python3.x` counting as `python`.
pub fn known_command(argv: &[String]) -> bool {
    let Some(first) = argv.first() else {
        return false;
    };
    let base = first.rsplit('/').next().unwrap_or(first);
    let base = match base.strip_prefix("python") {
        Some(v) if v.chars().all(|c| c.is_ascii_digit() || c == '.') => "python",
        _ => base,
    };
    profiles::registry()
        .iter()
        .flat_map(|p| p.commands().iter())
        .any(|entry| {
            let mut parts = entry.split_whitespace();
            parts.next() == Some(base)
                && parts
                    .enumerate()
                    .all(|(k, part)| argv.get(k + 1).is_some_and(|a| a == part))
        })
}
