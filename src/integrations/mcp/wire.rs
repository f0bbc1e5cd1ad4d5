//! The JSON-RPC 2.0 line layer in front of the MCP service. Every line
//! the client sends is checked here before rmcp sees it, so that each
//! request gets exactly one reply whatever it holds, as JSON-RPC 2.0
//! says, where the SDK alone would stay silent (a line that is not JSON,
//! a line too long) or end the session (a notification before
//! `initialize`):
//!
//! | line | reply |
//! |---|---|
//! | not JSON | `-32700` parse error, `"id": null` |
//! | longer than `MAX_LINE_BYTES` | `-32600`, `"id": null` (the rest of the line is skipped unread) |
//! | JSON but not a JSON-RPC 2.0 message (no `"jsonrpc": "2.0"`, an id that is neither a string nor an integer, a batch) | `-32600`, with its id when it has a usable one |
//! | a request of `initialize`, `tools/list` or `tools/call` with params of the wrong shape | `-32602`, with its id |
//! | an unknown method | `-32601` (rmcp's), with its id |
//! | a request other than `initialize` or `ping` before `initialize` | one error reply with its id (rmcp's) |
//! | a notification or a response before `initialize` | dropped (nothing answers a notification) |
//!
//! Lines that pass go to rmcp unchanged. Replies from here and from rmcp
//! reach stdout through one writer, a whole line at a time.

use std::io;

use rmcp::model::{CallToolRequestParams, InitializeRequestParams, PaginatedRequestParams};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The longest line read: far past any tool call's arguments (an argv, a
/// path, a grep pattern), and a bound on what one line can cost.
pub const MAX_LINE_BYTES: usize = 4 << 20;

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const INVALID_PARAMS: i64 = -32602;

/// What to do with one line from the client.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// Give it to rmcp, as it came; `initialize` says the session starts.
    Forward { initialize: bool },
    /// Answer it here with this reply (a JSON-RPC error object).
    Reply(Value),
    /// Nothing to do (a notification or response rmcp must not see).
    Drop,
}

fn error(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The line's verdict; `initialized` says whether `initialize` went
/// through already.
pub fn check(line: &[u8], initialized: bool) -> Verdict {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Drop;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return Verdict::Reply(error(Value::Null, PARSE_ERROR, format!("Parse error: {e}")));
        }
    };
    let Value::Object(message) = value else {
        let what = if value.is_array() {
            "a batch (MCP sends one message a line)"
        } else {
            "not an object"
        };
        return Verdict::Reply(error(
            Value::Null,
            INVALID_REQUEST,
            format!("Invalid Request: {what}"),
        ));
    };
    let id = message.get("id");
    let usable_id = match id {
        None => None,
        Some(v @ Value::String(_)) => Some(v.clone()),
        Some(v @ Value::Number(n)) if n.is_i64() || n.is_u64() => Some(v.clone()),
        Some(_) => {
            return Verdict::Reply(error(
                Value::Null,
                INVALID_REQUEST,
                "Invalid Request: id must be a string or an integer".into(),
            ));
        }
    };
    let invalid = |why: &str| {
        Verdict::Reply(error(
            usable_id.clone().unwrap_or(Value::Null),
            INVALID_REQUEST,
            format!("Invalid Request: {why}"),
        ))
    };
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid("\"jsonrpc\" must be \"2.0\"");
    }
    let method = match message.get("method") {
        None => None,
        Some(Value::String(m)) => Some(m.as_str()),
        Some(_) => return invalid("\"method\" must be a string"),
    };
    let params = message.get("params");
    if params.is_some_and(|p| !p.is_object() && !p.is_array()) {
        return invalid("\"params\" must be an object or an array");
    }
    let Some(method) = method else {
        // A response to a request of ours (rmcp sends none before
        // initialize), or something with neither method nor result.
        if usable_id.is_none() || !(message.contains_key("result") || message.contains_key("error"))
        {
            return invalid("neither a request, a notification nor a response");
        }
        return if initialized {
            Verdict::Forward { initialize: false }
        } else {
            Verdict::Drop
        };
    };
    let Some(id) = usable_id else {
        // A notification: nothing replies to it, and before initialize it
        // would end rmcp's handshake.
        return if initialized {
            Verdict::Forward { initialize: false }
        } else {
            Verdict::Drop
        };
    };
    if let Some(why) = bad_params(method, params) {
        return Verdict::Reply(error(
            id,
            INVALID_PARAMS,
            format!("Invalid params for {method}: {why}"),
        ));
    }
    Verdict::Forward {
        initialize: method == "initialize",
    }
}

/// Why the params of a method ctx serves do not fit it.
fn bad_params(method: &str, params: Option<&Value>) -> Option<String> {
    fn fits<T: serde::de::DeserializeOwned>(params: Option<&Value>) -> Option<String> {
        let value = params.cloned().unwrap_or(Value::Null);
        serde_json::from_value::<T>(value)
            .err()
            .map(|e| e.to_string())
    }
    match method {
        "initialize" => fits::<InitializeRequestParams>(params),
        "tools/call" => fits::<CallToolRequestParams>(params),
        "tools/list" => fits::<Option<PaginatedRequestParams>>(params),
        _ => None,
    }
}

/// A line as read: whole, or too long (its start dropped, the rest of it
/// skipped).
enum Read {
    Line(Vec<u8>),
    TooLong,
    End,
}

/// Reads one line of at most `max` bytes without ever holding more.
async fn read_line<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    max: usize,
) -> io::Result<Read> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            return Ok(match (too_long, line.is_empty()) {
                (true, _) => Read::TooLong,
                (false, true) => Read::End,
                (false, false) => Read::Line(line),
            });
        }
        let (take, done) = match memchr::memchr(b'\n', buf) {
            Some(at) => (at + 1, true),
            None => (buf.len(), false),
        };
        if !too_long {
            if line.len() + take > max + 1 {
                too_long = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(&buf[..take]);
            }
        }
        reader.consume(take);
        if done {
            return Ok(if too_long {
                Read::TooLong
            } else {
                Read::Line(line)
            });
        }
    }
}

/// Copies `client`'s lines to `to_service` as `check` allows, sending
/// its own replies to `replies`. Returns at the end of the client's input
/// with whether `initialize` went through.
pub async fn pump<R, W>(
    client: R,
    mut to_service: W,
    replies: mpsc::UnboundedSender<Vec<u8>>,
) -> io::Result<bool>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::with_capacity(64 << 10, client);
    let mut initialized = false;
    loop {
        let verdict = match read_line(&mut reader, MAX_LINE_BYTES).await? {
            Read::End => break,
            Read::TooLong => Verdict::Reply(error(
                Value::Null,
                INVALID_REQUEST,
                format!(
                    "Invalid Request: a line over {} MiB, skipped",
                    MAX_LINE_BYTES >> 20
                ),
            )),
            Read::Line(line) => match check(&line, initialized) {
                Verdict::Forward { initialize } => {
                    let mut line = line;
                    if !line.ends_with(b"\n") {
                        line.push(b'\n');
                    }
                    if to_service.write_all(&line).await.is_err() {
                        // The service ended; nothing more to serve.
                        break;
                    }
                    to_service.flush().await?;
                    initialized |= initialize;
                    continue;
                }
                other => other,
            },
        };
        if let Verdict::Reply(reply) = verdict {
            let mut line = reply.to_string().into_bytes();
            line.push(b'\n');
            if replies.send(line).is_err() {
                break;
            }
        }
    }
    Ok(initialized)
}

/// Writes whole lines to `out`: rmcp's output (`service`) and this
/// layer's replies, never one inside the other. Ends when both are done.
pub async fn write<S, O>(
    service: S,
    mut replies: mpsc::UnboundedReceiver<Vec<u8>>,
    mut out: O,
) -> io::Result<()>
where
    S: AsyncRead + Unpin,
    O: AsyncWrite + Unpin,
{
    let mut service = BufReader::new(service);
    let mut service_open = true;
    let mut replies_open = true;
    let mut line = Vec::new();
    while service_open || replies_open {
        tokio::select! {
            read = service.read_until(b'\n', &mut line), if service_open => {
                if read? == 0 {
                    service_open = false;
                } else {
                    out.write_all(&line).await?;
                    out.flush().await?;
                }
                line.clear();
            }
            reply = replies.recv(), if replies_open => match reply {
                Some(reply) => {
                    out.write_all(&reply).await?;
                    out.flush().await?;
                }
                None => replies_open = false,
            },
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(line: &str, initialized: bool) -> Value {
        match check(line.as_bytes(), initialized) {
            Verdict::Reply(v) => v,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn lines_that_are_not_json_rpc_get_the_errors_json_rpc_names() {
        let r = reply("this is not json", true);
        assert_eq!(r["error"]["code"], PARSE_ERROR);
        assert_eq!(r["id"], Value::Null);
        assert!(r.as_object().unwrap().contains_key("id"));
        let r = reply("[1, 2]", true);
        assert_eq!(r["error"]["code"], INVALID_REQUEST);
        let r = reply(r#"{"jsonrpc": "1.0", "id": 7, "method": "ping"}"#, true);
        assert_eq!(
            (r["error"]["code"].clone(), r["id"].clone()),
            (json!(INVALID_REQUEST), json!(7))
        );
        let r = reply(
            r#"{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}"#,
            true,
        );
        assert_eq!(
            (r["error"]["code"].clone(), r["id"].clone()),
            (json!(INVALID_REQUEST), Value::Null)
        );
        let r = reply(r#"{"jsonrpc": "2.0", "id": "x", "method": 3}"#, true);
        assert_eq!(r["id"], "x");
        let r = reply(
            r#"{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": 5}"#,
            true,
        );
        assert_eq!(
            (r["error"]["code"].clone(), r["id"].clone()),
            (json!(INVALID_REQUEST), json!(2))
        );
    }

    #[test]
    fn bad_params_of_a_served_method_are_invalid_params_with_the_id() {
        let r = reply(
            r#"{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"arguments": {}}}"#,
            true,
        );
        assert_eq!(
            (r["error"]["code"].clone(), r["id"].clone()),
            (json!(INVALID_PARAMS), json!(4))
        );
        let r = reply(
            r#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 3}}"#,
            false,
        );
        assert_eq!(
            (r["error"]["code"].clone(), r["id"].clone()),
            (json!(INVALID_PARAMS), json!(1))
        );
    }

    #[test]
    fn good_messages_pass_and_early_notifications_are_dropped() {
        let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        assert_eq!(
            check(init.as_bytes(), false),
            Verdict::Forward { initialize: true }
        );
        let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert_eq!(check(note.as_bytes(), false), Verdict::Drop);
        assert_eq!(
            check(note.as_bytes(), true),
            Verdict::Forward { initialize: false }
        );
        let call = r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"ctx_run","arguments":{"argv":["true"]}}}"#;
        assert_eq!(
            check(call.as_bytes(), true),
            Verdict::Forward { initialize: false }
        );
        let unknown = r#"{"jsonrpc":"2.0","id":3,"method":"no/such"}"#;
        assert_eq!(
            check(unknown.as_bytes(), true),
            Verdict::Forward { initialize: false }
        );
        assert_eq!(check(b"\n", true), Verdict::Drop);
    }

    #[tokio::test]
    async fn a_line_over_the_limit_is_skipped_with_a_reply_and_the_next_is_read() {
        let mut input = vec![b'x'; MAX_LINE_BYTES + 10];
        input.push(b'\n');
        input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\n");
        let (tx, mut rx) = mpsc::unbounded_channel();
        let mut forwarded = Vec::new();
        let initialized = pump(&input[..], &mut forwarded, tx).await.expect("pump");
        assert!(!initialized);
        let reply: Value = serde_json::from_slice(&rx.recv().await.expect("a reply")).unwrap();
        assert_eq!(reply["error"]["code"], INVALID_REQUEST);
        assert_eq!(
            forwarded,
            b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\n"
        );
    }
}
