//! What a finished ctx process becomes for the agent. `ctx_run` always
//! answers with a result, whatever the command's status: the output (the
//! digest, or the raw output when that is smaller) and a last `[ctx]`
//! line with the status, which `_meta` also carries as numbers
//! (`ctx/exit`, `ctx/signal`, `ctx/timed_out`). A failing command is a
//! result like any other; only ctx_expand and ctx_read turn ctx's own
//! refusal (no such record, no such file) into a tool error.

use rmcp::model::{CallToolResult, ContentBlock, MetaObject};
use serde_json::json;

use super::calls::VIEW_TIMEOUT;
use super::subprocess::{Finished, KEEP_BYTES};
use crate::words::{CTX_PREFIX as PREFIX, counted};

/// ctx's word for the status a command ended with.
fn status_line(finished: &Finished, timeout_secs: u64) -> String {
    let status = match (finished.code(), finished.signal()) {
        (Some(code), _) => format!("exit {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}{}", signal_name(signal)),
        (None, None) => "ended with an unknown status".into(),
    };
    if finished.timed_out {
        format!("{PREFIX} timed out after {timeout_secs} s and was stopped · {status}")
    } else {
        format!("{PREFIX} {status}")
    }
}

fn signal_name(signal: i32) -> String {
    nix::sys::signal::Signal::try_from(signal)
        .map(|s| format!(" ({})", s.as_str()))
        .unwrap_or_default()
}

/// The text of the output, with a `[ctx]` line for what was not kept.
fn text(finished: &Finished) -> String {
    let mut text = String::from_utf8_lossy(&finished.output).into_owned();
    if finished.dropped > 0 {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!(
            "{PREFIX} output cut at {} MiB: {} not shown; ask for a narrower view\n",
            KEEP_BYTES >> 20,
            counted(finished.dropped as usize, "more bytes")
        ));
    }
    text
}

/// `ctx_run`'s result: never an error, whatever the command did.
pub fn run(finished: &Finished, timeout_secs: u64) -> CallToolResult {
    let mut body = text(finished);
    if !body.is_empty() && !body.ends_with('\n') {
        body.push('\n');
    }
    body.push_str(&status_line(finished, timeout_secs));
    let mut meta = MetaObject::new();
    meta.0.insert("ctx/exit".into(), json!(finished.code()));
    meta.0.insert("ctx/signal".into(), json!(finished.signal()));
    meta.0
        .insert("ctx/timed_out".into(), json!(finished.timed_out));
    let mut result = CallToolResult::success(vec![ContentBlock::text(body)]);
    result.meta = Some(meta);
    result
}

/// A call the client cancelled: what it printed before it was killed,
/// and a last line saying so. rmcp does not send it (MCP: a cancelled
/// request gets no reply); it is the call's result all the same, for a
/// transport that would.
pub fn cancelled(tool: &str, finished: &Finished) -> CallToolResult {
    let mut body = text(finished);
    if !body.is_empty() && !body.ends_with('\n') {
        body.push('\n');
    }
    body.push_str(&format!(
        "{PREFIX} {tool} cancelled by the client: the command and its process group were killed"
    ));
    let mut meta = MetaObject::new();
    meta.0.insert("ctx/cancelled".into(), json!(true));
    meta.0.insert("ctx/signal".into(), json!(finished.signal()));
    let mut result = CallToolResult::error(vec![ContentBlock::text(body)]);
    result.meta = Some(meta);
    result
}

/// Why a view (`ctx expand`, `ctx read`) could not be shown, or None when
/// it was.
pub fn refusal(tool: &str, finished: &Finished) -> Option<String> {
    if finished.timed_out {
        return Some(format!(
            "{tool}: timed out after {} s",
            VIEW_TIMEOUT.as_secs()
        ));
    }
    if finished.status.success() {
        return None;
    }
    let said = condensed(&String::from_utf8_lossy(&finished.output));
    let status = status_line(finished, 0);
    let status = status.trim_start_matches(PREFIX).trim();
    Some(if said.is_empty() {
        format!("{tool}: ctx ended with {status} and said nothing")
    } else {
        format!("{tool}: {said}")
    })
}

/// A view's output as a result (an empty view says so: some clients
/// drop an empty text).
pub fn view(finished: &Finished) -> CallToolResult {
    let mut body = text(finished);
    if body.is_empty() {
        body = format!("{PREFIX} nothing to show\n");
    }
    CallToolResult::success(vec![ContentBlock::text(body)])
}

/// `ctx read --verify`'s report as a result, `ctx/drifted` in `_meta`:
/// exit 0 (every anchor holds) and exit 1 (some drifted) are both the
/// answer asked for. None for any other status (a malformed anchor, no
/// such file), which is a refusal.
pub fn verified(finished: &Finished) -> Option<CallToolResult> {
    let drifted = match finished.code() {
        Some(0) => false,
        Some(1) => true,
        _ => return None,
    };
    let mut result = view(finished);
    let mut meta = MetaObject::new();
    meta.0.insert("ctx/drifted".into(), json!(drifted));
    result.meta = Some(meta);
    Some(result)
}

/// ctx's error text without what only a terminal user needs: clap's
/// usage and help pointers, blank lines, the `ctx: ` and `error: `
/// prefixes.
pub fn condensed(said: &str) -> String {
    let kept: Vec<&str> = said
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more information")
        })
        .map(|l| l.strip_prefix("error: ").unwrap_or(l))
        .map(|l| l.strip_prefix("ctx: ").unwrap_or(l))
        .collect();
    let joined = kept.join("; ");
    match joined.char_indices().nth(MESSAGE_CHARS) {
        Some((cut, _)) => format!("{}…", &joined[..cut]),
        None => joined,
    }
}

/// The most of ctx's error text a refusal repeats: ctx's messages are one
/// or two lines; more is a message quoting back something huge.
const MESSAGE_CHARS: usize = 2000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_usage_is_left_out_of_a_refusal() {
        let said = "error: the argument '--item <ID>' cannot be used with '--lines <A-B>'\n\n\
                    Usage: ctx expand --item <ID> <HASH>\n\nFor more information, try '--help'.\n";
        assert_eq!(
            condensed(said),
            "the argument '--item <ID>' cannot be used with '--lines <A-B>'"
        );
        assert_eq!(
            condensed("ctx: no record abcdef (never archived here)\n"),
            "no record abcdef (never archived here)"
        );
    }
}
