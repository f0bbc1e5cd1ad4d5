//! `ctx mcp` driven over stdio by a real MCP client (rmcp's client side)
//! spawning the built binary: initialize, the tool list and what it costs,
//! each tool, bad arguments, an unknown tool, a failing command, a large
//! output zoomed back with ctx_expand, a timeout. One more test speaks raw
//! JSON-RPC lines to check that stdout carries nothing but protocol.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use tempfile::TempDir;

type Client = RunningService<RoleClient, ()>;

async fn connect(home: &Path) -> Client {
    connect_with(home, None).await
}

async fn connect_with(home: &Path, session: Option<&str>) -> Client {
    let mut command = support::ctx_cmd(home, &["mcp"]);
    command.stderr(Stdio::null()).env_remove("CTX_SESSION");
    if let Some(session) = session {
        command.env("CTX_SESSION", session);
    }
    let transport =
        TokioChildProcess::new(tokio::process::Command::from(command)).expect("spawn ctx mcp");
    ().serve(transport).await.expect("initialize")
}

async fn call(
    client: &Client,
    tool: &str,
    arguments: Value,
) -> Result<CallToolResult, ServiceError> {
    let arguments: JsonObject = arguments.as_object().cloned().expect("an object");
    client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(arguments))
        .await
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("")
}

fn failed(result: &CallToolResult) -> bool {
    result.is_error == Some(true)
}

fn meta(result: &CallToolResult, key: &str) -> Value {
    result
        .meta
        .as_ref()
        .and_then(|m| m.0.get(key).cloned())
        .unwrap_or(Value::Null)
}

#[tokio::test]
async fn initializes_and_lists_three_tools_under_300_tokens() {
    let home = TempDir::new().expect("tempdir");
    let client = connect(home.path()).await;
    let info = client.peer_info().expect("server info");
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("ctx")
    );
    assert!(info.capabilities.tools.is_some());

    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["ctx_run", "ctx_expand", "ctx_read"]);
    // What the agent pays for: the list as it travels, in o200k tokens.
    let listed = serde_json::to_string(&tools).expect("json");
    let tokens = ctx::tokens::try_exact(listed.as_bytes()).expect("exact counter");
    println!("tool list: {tokens} o200k tokens, {} bytes", listed.len());
    assert!(
        tokens < 300,
        "the tool list costs {tokens} tokens: {listed}"
    );
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn a_failing_command_is_a_result_with_its_status() {
    let home = TempDir::new().expect("tempdir");
    let client = connect(home.path()).await;
    let result = call(
        &client,
        "ctx_run",
        json!({"argv": ["sh", "-c", "echo out; echo err >&2; exit 3"]}),
    )
    .await
    .expect("a result, not an MCP error");
    assert!(!failed(&result), "{result:?}");
    let shown = text(&result);
    assert!(
        shown.contains("out\n") && shown.contains("err\n"),
        "{shown}"
    );
    assert!(shown.ends_with("[ctx] exit 3"), "{shown}");
    assert_eq!(meta(&result, "ctx/exit"), json!(3));

    let missing = call(
        &client,
        "ctx_run",
        json!({"argv": ["no-such-command-ctx-mcp"]}),
    )
    .await
    .expect("a result");
    assert!(!failed(&missing));
    assert_eq!(meta(&missing, "ctx/exit"), json!(127), "{}", text(&missing));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn runs_in_the_given_directory_without_a_shell() {
    let home = TempDir::new().expect("tempdir");
    let dir = TempDir::new().expect("tempdir");
    let client = connect(home.path()).await;
    let result = call(
        &client,
        "ctx_run",
        json!({"argv": ["sh", "-c", "pwd; printf '%s\\n' \"$0\"", "$(echo not expanded)"], "cwd": dir.path()}),
    )
    .await
    .expect("result");
    let shown = text(&result);
    let real = dir.path().canonicalize().expect("canonical");
    assert!(shown.contains(&*real.to_string_lossy()), "{shown}");
    assert!(shown.contains("$(echo not expanded)"), "{shown}");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn a_large_output_is_digested_then_zoomed_with_ctx_expand() {
    let home = TempDir::new().expect("tempdir");
    let client = connect(home.path()).await;
    let result = call(&client, "ctx_run", json!({"argv": ["seq", "1", "20000"]}))
        .await
        .expect("result");
    let digest = text(&result);
    assert!(
        digest.len() < 20_000,
        "not digested: {} bytes",
        digest.len()
    );
    assert!(digest.ends_with("[ctx] exit 0"), "{digest}");
    let hash = digest
        .lines()
        .find_map(|l| l.split("ctx expand ").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the digest names its archive key")
        .to_string();
    assert_eq!(hash.len(), 12, "{hash}");

    let zoom = call(
        &client,
        "ctx_expand",
        json!({"hash": hash, "lines": "19998-20000"}),
    )
    .await
    .expect("result");
    assert!(!failed(&zoom), "{zoom:?}");
    let lines = text(&zoom);
    for n in ["19998", "19999", "20000"] {
        assert!(lines.contains(n), "{lines}");
    }
    assert!(!lines.contains("19997"), "{lines}");

    let grep = call(
        &client,
        "ctx_expand",
        json!({"hash": hash, "grep": "^1234[05]$"}),
    )
    .await
    .expect("result");
    let found = text(&grep);
    assert!(
        found.contains("12340") && found.contains("12345"),
        "{found}"
    );
    assert!(!found.contains("12341"), "{found}");

    // ctx expand's own rule on zooms that do not go together comes back
    // as the tool's error, in its words.
    let both = call(
        &client,
        "ctx_expand",
        json!({"hash": hash, "lines": "1-2", "item": "x"}),
    )
    .await
    .expect("result");
    assert!(failed(&both));
    assert!(
        text(&both).contains("cannot be used with"),
        "{}",
        text(&both)
    );
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn bad_arguments_are_tool_errors_the_agent_can_read() {
    let home = TempDir::new().expect("tempdir");
    let client = connect(home.path()).await;
    let cases = [
        ("ctx_run", json!({}), "ctx_run: missing field `argv`"),
        (
            "ctx_run",
            json!({"argv": "make test"}),
            "ctx_run: invalid type: string",
        ),
        ("ctx_run", json!({"argv": []}), "ctx_run: argv is empty"),
        (
            "ctx_run",
            json!({"argv": ["true"], "cwd": "/no/such/dir"}),
            "is not a directory",
        ),
        (
            "ctx_run",
            json!({"argv": ["true"], "timeout": 0}),
            "at least 1 second",
        ),
        (
            "ctx_expand",
            json!({"lines": "1-2"}),
            "ctx_expand: missing field `hash`",
        ),
        ("ctx_expand", json!({"hash": "zz"}), "ctx_expand: "),
        (
            "ctx_expand",
            json!({"hash": "abcdef123456"}),
            "no record abcdef123456",
        ),
        (
            "ctx_expand",
            json!({"hash": "abcdef", "stream": "all"}),
            "unknown variant `all`",
        ),
        (
            "ctx_read",
            json!({"mode": "outline"}),
            "ctx_read: missing field `path`",
        ),
        ("ctx_read", json!({"path": ""}), "ctx_read: path is empty"),
    ];
    for (tool, arguments, want) in cases {
        let result = call(&client, tool, arguments.clone())
            .await
            .unwrap_or_else(|e| {
                panic!("{tool} {arguments}: an MCP error instead of a tool error: {e}")
            });
        assert!(failed(&result), "{tool} {arguments}: {result:?}");
        let said = text(&result);
        assert!(said.contains(want), "{tool} {arguments}: {said}");
    }
    // The server is still there after all of them.
    assert_eq!(client.list_all_tools().await.expect("tools").len(), 3);
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn an_unknown_tool_is_a_protocol_error() {
    let home = TempDir::new().expect("tempdir");
    let client = connect(home.path()).await;
    let err = call(&client, "ctx_nope", json!({}))
        .await
        .expect_err("no such tool");
    let ServiceError::McpError(data) = err else {
        panic!("not an MCP error: {err}");
    };
    assert_eq!(data.code.0, -32602);
    assert!(
        data.message.contains("unknown tool \"ctx_nope\""),
        "{}",
        data.message
    );
    assert!(
        data.message.contains("ctx_run, ctx_expand, ctx_read"),
        "{}",
        data.message
    );
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn a_command_over_its_timeout_is_stopped_and_its_output_kept() {
    let home = TempDir::new().expect("tempdir");
    let client = connect(home.path()).await;
    let result = call(
        &client,
        "ctx_run",
        json!({"argv": ["sh", "-c", "echo started; sleep 30"], "timeout": 1}),
    )
    .await
    .expect("result");
    assert!(!failed(&result), "{result:?}");
    let shown = text(&result);
    assert!(shown.contains("started"), "{shown}");
    assert!(shown.contains("[ctx] timed out after 1 s"), "{shown}");
    assert_eq!(meta(&result, "ctx/timed_out"), json!(true));
    assert_eq!(meta(&result, "ctx/signal"), json!(15), "{shown}");
    client.cancel().await.expect("close");
}

/// One server is one agent session: its calls share a `CTX_SESSION` (for
/// ctx read's re-read stubs), the agent's own when it set one.
#[tokio::test]
async fn calls_share_the_servers_session() {
    let home = TempDir::new().expect("tempdir");
    let show = json!({"argv": ["sh", "-c", "echo session=$CTX_SESSION"]});
    let client = connect(home.path()).await;
    let first = text(
        &call(&client, "ctx_run", show.clone())
            .await
            .expect("result"),
    );
    let second = text(
        &call(&client, "ctx_run", show.clone())
            .await
            .expect("result"),
    );
    assert!(first.starts_with("session=mcp-"), "{first}");
    assert_eq!(first, second);
    client.cancel().await.expect("close");

    let client = connect_with(home.path(), Some("agent-7")).await;
    let given = text(&call(&client, "ctx_run", show).await.expect("result"));
    assert!(given.starts_with("session=agent-7\n"), "{given}");
    client.cancel().await.expect("close");
}

/// Whether this ctx has the `read` verb (it is built on another branch).
fn has_read_verb(home: &Path) -> bool {
    support::ctx_cmd(home, &["read", "--help"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[tokio::test]
async fn ctx_read_serves_the_read_verb_or_says_it_is_missing() {
    let home = TempDir::new().expect("tempdir");
    let dir = TempDir::new().expect("tempdir");
    let file = dir.path().join("notes.md");
    std::fs::write(&file, "# Title\n\nfirst line\n").expect("write");
    let client = connect(home.path()).await;
    let result = call(&client, "ctx_read", json!({"path": file, "mode": "full"}))
        .await
        .expect("a result");
    if !has_read_verb(home.path()) {
        println!("skipped the ctx_read views: this ctx has no `read` verb yet");
        assert!(failed(&result));
        assert!(
            text(&result).contains("has no `read` verb"),
            "{}",
            text(&result)
        );
        client.cancel().await.expect("close");
        return;
    }
    assert!(!failed(&result), "{}", text(&result));
    assert!(text(&result).contains("first line"), "{}", text(&result));
    let missing = call(
        &client,
        "ctx_read",
        json!({"path": dir.path().join("absent.rs"), "fresh": true}),
    )
    .await
    .expect("a result");
    assert!(failed(&missing), "{}", text(&missing));
    assert!(
        text(&missing).starts_with("ctx_read: "),
        "{}",
        text(&missing)
    );
    client.cancel().await.expect("close");
}

/// `ctx_read`'s `verify`: anchors taken from an anchored read through
/// the server, checked back through it; a drifted line is a result that
/// names it (not a tool error: drift is the answer asked for), a
/// malformed anchor is a tool error.
#[tokio::test]
async fn ctx_read_verifies_anchors_through_the_server() {
    let home = TempDir::new().expect("tempdir");
    let dir = TempDir::new().expect("tempdir");
    let file = dir.path().join("t.txt");
    std::fs::write(&file, "alpha\nbeta\ngamma\n").expect("write");
    let client = connect(home.path()).await;
    let anchored = call(
        &client,
        "ctx_read",
        json!({"path": file, "mode": "full", "anchors": true}),
    )
    .await
    .expect("a result");
    assert!(!failed(&anchored), "{}", text(&anchored));
    let anchors: Vec<String> = text(&anchored)
        .lines()
        .filter_map(|l| l.split_once('|').map(|(a, _)| a.to_string()))
        .collect();
    assert_eq!(anchors.len(), 3, "{}", text(&anchored));
    let verify = json!({"path": file, "verify": anchors.join(" ")});

    let same = call(&client, "ctx_read", verify.clone())
        .await
        .expect("a result");
    assert!(!failed(&same), "{}", text(&same));
    assert!(
        text(&same).contains("all 3 anchors unchanged"),
        "{}",
        text(&same)
    );

    std::fs::write(&file, "alpha\nBETA\ngamma\n").expect("write");
    let drift = call(&client, "ctx_read", verify).await.expect("a result");
    assert!(!failed(&drift), "{}", text(&drift));
    let report = text(&drift);
    assert!(
        report.contains(&format!("{} changed", anchors[1])),
        "{report}"
    );
    assert!(report.contains("1 of 3 anchors changed"), "{report}");
    assert_eq!(meta(&drift, "ctx/drifted"), json!(true), "{report}");

    let bad = call(
        &client,
        "ctx_read",
        json!({"path": file, "verify": "2:xyz"}),
    )
    .await
    .expect("a result");
    assert!(failed(&bad), "{}", text(&bad));
    assert!(text(&bad).starts_with("ctx_read: "), "{}", text(&bad));
    client.cancel().await.expect("close");
}

/// Raw JSON-RPC, no SDK on the client side: every line the server prints
/// on stdout is a JSON-RPC 2.0 message, also after a line that is not
/// JSON and a call whose command writes to both streams.
#[test]
fn stdout_carries_only_protocol_messages() {
    let home = TempDir::new().expect("tempdir");
    let mut child = support::ctx_cmd(home.path(), &["mcp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ctx mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let lines = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "ctx_run", "arguments": {"argv": ["sh", "-c", "echo to-stdout; echo to-stderr >&2"]}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "no/such/method"}),
    ];
    for line in &lines[..2] {
        writeln!(stdin, "{line}").expect("write");
    }
    writeln!(stdin, "this is not json").expect("write");
    for line in &lines[2..] {
        writeln!(stdin, "{line}").expect("write");
    }
    let stdout = child.stdout.take().expect("stdout");
    let mut seen = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.expect("utf-8 line");
        let message: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
        if let Some(id) = message.get("id").and_then(Value::as_i64) {
            seen.push(id);
            if id == 2 {
                let text = message["result"]["content"][0]["text"]
                    .as_str()
                    .unwrap_or_default();
                assert!(
                    text.contains("to-stdout") && text.contains("to-stderr"),
                    "{line}"
                );
            }
        }
        if seen.contains(&2) && seen.contains(&3) {
            break;
        }
    }
    drop(stdin);
    let status = child.wait().expect("wait");
    assert!(seen.contains(&2) && seen.contains(&3), "answers: {seen:?}");
    assert!(
        status.success(),
        "ctx mcp ended with {status} when stdin closed"
    );
}
