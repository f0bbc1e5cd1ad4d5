//! `ctx rewrite`: turns a shell line into the same line with each command
//! worth digesting run through `ctx run --`, for agents that prefer a
//! rewrite hook to PATH shims. docs/rewrite.md has the rules:
//!
//! - the line splits on `&&`, `||`, `;` and newlines; each pipeline is
//!   decided on its own; a line bash would reject is left alone;
//! - in a pipeline only the last stage is eligible: `pytest | tail` stays
//!   raw because tail reads pytest's bytes, and `cat f | pytest` is still
//!   pytest's output;
//! - a builtin or reserved word in command position (`command -v x`,
//!   `cd`, `export`, `type`, …) is the shell's own: that stage is left as
//!   written (builtins.rs);
//! - environment assignments, `time` and `!` stay in front; wrappers
//!   (`uv run`, `docker exec C`, `timeout 5`, …) go inside `ctx run`, and
//!   the decision looks through them at the command they wrap
//!   (policy.rs: builds, checks and tests, diffs and searches, never
//!   `cargo run` or `npm start`);
//! - a stage whose stdout is redirected (or follows `exec >f`), a watcher,
//!   a server or an interactive session is left as it is; backticks,
//!   `$( )`, heredocs, subshells, function definitions, compound commands
//!   and `eval` leave the whole line alone.

pub mod builtins;
pub mod lexer;
mod policy;
mod truncation;

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
    // Each edit replaces `line[start..end]` with its text (an insert when
    // the range is empty); in line order, never overlapping.
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    // `exec >log` sends the rest of the line's output to the file.
    let mut stdout_gone = false;
    // `set -o pipefail` earlier on the line: a pipeline's status is then
    // its command's, not tail's.
    let mut pipefail = false;
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
        if let Some(edit) = kept_truncation(line, pipeline, pipefail) {
            edits.push(edit);
        } else {
            // A last stage after a `|` reads the stage before it.
            let reads_pipe = pipeline.len() > 1;
            if let Some(at) = pipeline.last().and_then(|s| eligible(s, reads_pipe)) {
                edits.push((at, at, PREFIX.to_string()));
            }
        }
        if let Some(on) = pipeline.first().and_then(sets_pipefail) {
            pipefail = on;
        }
    }
    if edits.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(line.len() + edits.len() * PREFIX.len());
    let mut from = 0;
    for (start, end, text) in edits {
        out.push_str(&line[from..start]);
        out.push_str(&text);
        from = end;
    }
    out.push_str(&line[from..]);
    Some(out)
}

/// `CMD [2>&1] | tail -N` (or `head -N`) for a build, check or test CMD:
/// the edit that makes it `ctx run --keep-tail N … -- CMD [2>&1]`
/// (truncation.rs). The exit status stays the one the agent's shell gives
/// the pipeline: tail's 0, unless `pipefail` was set earlier on the line.
fn kept_truncation(
    line: &str,
    pipeline: &[Stage],
    pipefail: bool,
) -> Option<(usize, usize, String)> {
    let [command, cut] = pipeline else {
        return None;
    };
    let (end, n) = truncation::truncation(cut)?;
    let at = eligible(command, false)?;
    let words = command_words(command);
    let values: Vec<String> = words.iter().map(|w| w.value.clone()).collect();
    let core = wrappers::unwrap(&values)?;
    if !truncation::keeps_failures(crate::command::basename(values.get(core)?)) {
        return None;
    }
    let mut flags = match end {
        crate::format::End::Tail => format!("ctx run --keep-tail {n}"),
        crate::format::End::Head => format!("ctx run --keep-head {n}"),
    };
    if !command.stderr_to_stdout {
        flags.push_str(" --keep-streams stdout");
    }
    if !pipefail {
        flags.push_str(" --exit-zero");
    }
    flags.push_str(" -- ");
    // The command's text stays as typed (`2>&1` included, which now
    // applies to ctx's own notes); the pipe and the truncation go.
    let text = format!("{flags}{}", &line[at..command.text_end(line)]);
    Some((at, cut.text_end(line), text))
}

/// `set -o pipefail` (or `-eo pipefail`, `-euo pipefail`): `Some(true)`;
/// `set +o pipefail`: `Some(false)`; anything else: `None`.
fn sets_pipefail(stage: &Stage) -> Option<bool> {
    let words: Vec<&str> = stage.words.iter().map(|w| w.value.as_str()).collect();
    if words.first() != Some(&"set") || !words.contains(&"pipefail") {
        return None;
    }
    let at = words.iter().position(|w| *w == "pipefail")?;
    let option = words.get(at.checked_sub(1)?)?;
    if option.starts_with('+') {
        Some(false)
    } else if option.starts_with('-') && option.ends_with('o') {
        Some(true)
    } else {
        None
    }
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
/// `!` and `time` are reserved words only before any assignment: in
/// `A=1 time pytest` bash runs the program `time`.
pub fn command_words(stage: &Stage) -> &[Word] {
    let words = &stage.words;
    let mut i = 0;
    let mut assigned = false;
    while let Some(w) = words.get(i) {
        match w.value.as_str() {
            "!" if !assigned => i += 1,
            "time" if !assigned => {
                i += 1;
                while words.get(i).is_some_and(|w| w.value.starts_with('-')) {
                    i += 1;
                }
            }
            _ if is_assignment(w) => {
                assigned = true;
                i += 1;
            }
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
    // `ctx run -- command -v pytest` would look for a program named
    // `command`: a word bash runs itself is never put into an argv.
    if words
        .first()
        .is_some_and(|w| builtins::is_shell_own(&w.value))
    {
        return None;
    }
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
