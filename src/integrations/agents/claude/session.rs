//! The agent's session for `ctx read`'s re-read stubs. Claude Code gives
//! a hook the conversation's `session_id` but sets no variable that the
//! Bash tool's commands inherit, so the hook writes it into each `ctx read`
//! the agent runs: `ctx read --agent-session=ID PATH`. ctx read takes it
//! below `--session` and `CTX_SESSION` (docs/read.md), so a session the
//! person chose still wins.

use crate::rewrite::{command_words, lexer};

/// The flag the hook adds after `read`.
pub const FLAG: &str = "--agent-session";

/// The longest session id the hook passes on (Claude Code's are UUIDs).
const MAX_ID: usize = 128;

/// `line` with `--agent-session=ID` added to every `ctx read` in it, or
/// `None` when there is none, the line is one ctx cannot read, or the id
/// is not a plain token (it is pasted into a shell line unquoted, so
/// only letters, digits, `-`, `_` and `.` are let through).
pub fn with_session(line: &str, id: &str) -> Option<String> {
    if id.is_empty()
        || id.len() > MAX_ID
        || !id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    {
        return None;
    }
    let pipelines = lexer::lex(line).ok()?;
    let mut inserts = Vec::new();
    for stage in pipelines.iter().flatten() {
        let words = command_words(stage);
        let [program, verb, rest @ ..] = words else {
            continue;
        };
        let is_ctx = program.literal
            && (program.value == "ctx" || program.value.ends_with("/ctx"))
            && verb.literal
            && verb.value == "read";
        // A read that names its own session keeps it.
        let named = rest
            .iter()
            .any(|w| w.value == "--session" || w.value.starts_with("--session="));
        if is_ctx && !named {
            inserts.push(verb.end);
        }
    }
    if inserts.is_empty() {
        return None;
    }
    let flag = format!(" {FLAG}={id}");
    let mut out = String::with_capacity(line.len() + inserts.len() * flag.len());
    let mut from = 0;
    for at in inserts {
        out.push_str(&line[from..at]);
        out.push_str(&flag);
        from = at;
    }
    out.push_str(&line[from..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ctx_read_gets_the_session_and_nothing_else_does() {
        let id = "0b6a-41f2_x.1";
        let cases = [
            (
                "ctx read src/x.rs --mode outline",
                Some("ctx read --agent-session=0b6a-41f2_x.1 src/x.rs --mode outline"),
            ),
            (
                "cd app && CTX_DISABLE=0 /usr/local/bin/ctx read 'a b.rs' | head",
                Some(
                    "cd app && CTX_DISABLE=0 /usr/local/bin/ctx read --agent-session=0b6a-41f2_x.1 'a b.rs' | head",
                ),
            ),
            (
                "ctx read a.rs; ctx read b.rs",
                Some(
                    "ctx read --agent-session=0b6a-41f2_x.1 a.rs; ctx read --agent-session=0b6a-41f2_x.1 b.rs",
                ),
            ),
            ("ctx read --session mine a.rs", None),
            ("ctx read --session=mine a.rs", None),
            ("ctx run -- cargo test", None),
            ("echo ctx read a.rs", None),
            ("cat a.rs", None),
            ("ctx read $(pwd)/a.rs `x`", None),
            ("ctx read 'unclosed", None),
        ];
        for (line, want) in cases {
            assert_eq!(with_session(line, id).as_deref(), want, "{line}");
        }
    }

    #[test]
    fn an_id_that_is_not_a_plain_token_is_not_pasted_into_the_line() {
        for id in [
            "",
            "a b",
            "x;rm -rf /",
            "$(id)",
            "a'b",
            &"7".repeat(MAX_ID + 1),
        ] {
            assert_eq!(with_session("ctx read a.rs", id), None, "{id:?}");
        }
    }
}
