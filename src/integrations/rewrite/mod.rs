//! `ctx rewrite`: turns a shell line into the same line with each command
//! worth digesting run through `ctx run --`, for agents that prefer a
//! rewrite hook to PATH shims. docs/rewrite.md has the rules:
//!
//! - the line splits on `&&`, `||`, `;` and newlines; each pipeline is
//!   decided on its own; a line bash would reject is left alone;
//! - in a pipeline only the last stage is eligible: `pytest | tail` stays
//!   raw because tail reads pytest's bytes, and `cat f | pytest` is still
//!   pytest's output;
//! - environment assignments, `time` and `!` stay in front; wrappers
//!   (`uv run`, `docker exec C`, `timeout 5`, …) go inside `ctx run`, and
//!   the decision looks through them at the command they wrap
//!   (policy.rs: builds, checks and tests, diffs and searches, never
//!   `cargo run` or `npm start`);
//! - a stage whose stdout is redirected (or follows `exec >f`), a watcher,
//!   a server or an interactive session is left as it is; backticks,
//!   `$( )`, heredocs, subshells, function definitions, compound commands
//!   and `eval` leave the whole line alone.

pub mod lexer;
mod policy;

use crate::command::wrappers;
use crate::shim::longrun;
use lexer::{Stage, Word};

/// What `ctx run` is spelled as in a rewritten line.
pub const PREFIX: &str = "ctx run -- ";

/// First words that make a line unattestable as a whole.
const OPAQUE: &[&str] = &[
    "eval", "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case",
    "esac", "function", "select", "{", "}", "coproc", "alias", "builtin", "trap",
];

/// The rewritten line, or `None` when nothing in it is rewritten.
pub fn rewrite(line: &str) -> Option<String> {
    let pipelines = lexer::lex(line).ok()?;
    let mut inserts: Vec<usize> = Vec::new();
    // `exec >log` sends the rest of the line's output to the file.
    let mut stdout_gone = false;
    for pipeline in &pipelines {
        for stage in pipeline {
            let first = stage.words.first().map(|w| w.value.as_str());
            if first.is_some_and(|w| OPAQUE.contains(&w))
                || stage.words.iter().any(|w| w.value == "eval")
            {
                return None;
            }
            if matches!(first, Some("source" | ".")) && !harmless_source(&stage.words) {
                return None;
            }
            if first == Some("exec") {
                if stage.words.len() > 1 {
                    return None;
                }
                stdout_gone |= stage.stdout_redirected;
            }
        }
        if stdout_gone {
            continue;
        }
        // A last stage after a `|` reads the stage before it.
        let reads_pipe = pipeline.len() > 1;
        if let Some(at) = pipeline.last().and_then(|s| eligible(s, reads_pipe)) {
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

/// `source .venv/bin/activate`, `. ~/.cargo/env`, `source .env`: files
/// that set up the environment rather than redefine commands. Any other
/// sourced file could define a function named like the command after it.
fn harmless_source(words: &[Word]) -> bool {
    let Some(file) = words.get(1) else {
        return false;
    };
    let base = crate::command::basename(&file.value);
    base == "activate"
        || base.starts_with(".env")
        || file.value.ends_with(".cargo/env")
        || base == "nvm.sh"
}

/// The words of the simple command a stage runs: without the `!`,
/// `time [-p]` and `A=1` prefixes that stay in front of `ctx run`.
pub fn command_words(stage: &Stage) -> &[Word] {
    let words = &stage.words;
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
    &words[i..]
}

/// Where to insert `ctx run -- ` in this stage, if it is to be rewritten.
fn eligible(stage: &Stage, reads_pipe: bool) -> Option<usize> {
    if stage.stdout_redirected {
        return None;
    }
    // The person turned ctx off for this command.
    if stage
        .words
        .iter()
        .take_while(|w| is_assignment(w))
        .any(|w| w.value.starts_with("CTX_DISABLE="))
    {
        return None;
    }
    let words = command_words(stage);
    let start = words.first()?.start;
    let values: Vec<String> = words.iter().map(|w| w.value.clone()).collect();
    let core = wrappers::unwrap(&values)?;
    if !words[..core].iter().all(|w| w.literal) || wrappers::interactive(&values[..core]) {
        return None;
    }
    let core_words = &words[core..];
    let core_values = &values[core..];
    if core_values
        .first()
        .is_some_and(|w| w == "ctx" || w.ends_with("/ctx"))
    {
        return None;
    }
    if longrun::long_running(core_values).is_some() || longrun::long_running(&values).is_some() {
        return None;
    }
    if crate::command::secrets::prints_secrets(&values).is_some() {
        return None;
    }
    policy::rewritable(core_words, reads_pipe).then_some(start)
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
