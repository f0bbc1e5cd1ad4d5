//! `ctx mcp` driven over stdio by a real MCP client (rmcp's client side)
//! spawning the built binary: initialize, the tool list and what it costs,
//! each tool, bad arguments, an unknown tool, a failing command, a large
//! output zoomed back with ctx_expand, a timeout. One more test speaks raw
//! JSON-RPC lines to check that stdout carries nothing but protocol.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

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
    // The README and docs/mcp.md state this count: it is the one measured.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (doc, says) in [
        ("README.md", format!("the tool list costs {tokens} tokens")),
        ("docs/mcp.md", format!("**{tokens} o200k tokens**")),
    ] {
        let text = std::fs::read_to_string(root.join(doc)).expect("doc");
        assert!(text.contains(&says), "{doc} should say `{says}`");
    }
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
    // The reason once, not again from the error's source.
    assert_eq!(
        text(&missing).matches("No such file or directory").count(),
        1,
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

/// A process is gone, or a zombie waiting for a parent that is not ours.
fn ended(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => {
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().next())
                == Some("Z")
        }
    }
}

fn pids(path: &Path) -> Vec<i32> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// A shell that records its pid and a background child's in `pids`
/// (renamed in place whole), then waits.
fn recorded(pids: &Path) -> String {
    let tmp = pids.with_extension("tmp");
    format!(
        "echo $$ > {t}; sleep 300 & echo $! >> {t}; mv {t} {p}; echo started; wait",
        t = tmp.display(),
        p = pids.display()
    )
}

/// The official Python SDK (`pip install mcp`) as the client: initialize,
/// list, call, cancel a running call (the SDK sends
/// `notifications/cancelled`), call again. Skipped with a note where the
/// SDK is not installed (.ci/run installs it).
#[test]
fn the_python_sdk_client_initializes_calls_and_cancels() {
    let sdk = Command::new("python3")
        .args(["-c", "import mcp"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !sdk.is_ok_and(|s| s.success()) {
        println!("SKIPPED: the MCP Python SDK is not installed (pip install mcp)");
        return;
    }
    let home = TempDir::new().expect("tempdir");
    let work = TempDir::new().expect("tempdir");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mcp_sdk_client.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_ctx"))
        .arg(work.path())
        .env("CTX_HOME", home.path())
        .env_remove("CTX_SESSION")
        .stdin(Stdio::null())
        .output()
        .expect("python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_str(stdout.trim()).expect("the client's JSON");
    assert_eq!(seen["server"], "ctx");
    assert_eq!(seen["tools"], json!(["ctx_run", "ctx_expand", "ctx_read"]));
    assert_eq!(seen["call"]["text"], "from-sdk\n[ctx] exit 4");
    assert_eq!(seen["call"]["exit"], 4);
    assert_eq!(seen["cancel"]["pids"], 2, "{seen}");
    let ended_after = seen["cancel"]["ended_after"].as_f64();
    assert!(
        ended_after.is_some_and(|s| s < 3.0),
        "the cancelled command and its background child still ran 10 s later: {seen}"
    );
    assert_eq!(seen["after"], "still-serving\n[ctx] exit 0");
}

/// A raw session: send lines, read one reply per request id.
struct Raw {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    replies: std::sync::mpsc::Receiver<Value>,
}

impl Raw {
    fn start(home: &Path) -> Raw {
        let mut child = support::ctx_cmd(home, &["mcp"])
            .env_remove("CTX_SESSION")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn ctx mcp");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout");
        let (tx, replies) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let message: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line}"));
                if tx.send(message).is_err() {
                    break;
                }
            }
        });
        Raw {
            child,
            stdin,
            replies,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("open");
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    fn next(&self) -> Value {
        self.replies
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("a reply within 20 s")
    }

    fn initialize(&mut self) {
        self.send(r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#);
        assert_eq!(self.next()["id"], "init");
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }

    fn close(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "ctx mcp still running 20 s after stdin closed"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

fn code(reply: &Value) -> Value {
    reply["error"]["code"].clone()
}

/// JSON-RPC 2.0: every request one reply, with the error code the
/// specification names, before and after `initialize`; a notification
/// none; a line too long an error reply, not silence.
#[test]
fn every_line_gets_the_reply_json_rpc_names() {
    let home = TempDir::new().expect("tempdir");
    let mut raw = Raw::start(home.path());
    raw.send("this is not json");
    let r = raw.next();
    assert_eq!(
        (code(&r), r.get("id").cloned()),
        (json!(-32700), Some(Value::Null)),
        "{r}"
    );
    // Before initialize: a notification is not answered (and does not end
    // the session), a ping is, another request gets one error.
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    raw.send(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    let r = raw.next();
    assert_eq!(
        (r["id"].clone(), r["result"].clone()),
        (json!(1), json!({})),
        "{r}"
    );
    raw.send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#);
    let r = raw.next();
    assert_eq!(r["id"], 2, "{r}");
    assert!(r.get("error").is_some() || r.get("result").is_some(), "{r}");
    raw.initialize();
    let cases: [(&str, i64, Value); 6] = [
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{}}}"#,
            -32602,
            json!(3),
        ),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":7}"#,
            -32600,
            json!(4),
        ),
        (
            r#"{"jsonrpc":"1.0","id":"five","method":"ping"}"#,
            -32600,
            json!("five"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"no/such/method"}"#,
            -32601,
            json!(6),
        ),
        (
            r#"[{"jsonrpc":"2.0","id":7,"method":"ping"}]"#,
            -32600,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#,
            -32600,
            Value::Null,
        ),
    ];
    for (line, want, id) in cases {
        raw.send(line);
        let r = raw.next();
        assert_eq!(
            (code(&r), r["id"].clone()),
            (json!(want), id),
            "{line}: {r}"
        );
    }
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":8,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(ctx::mcp::wire::MAX_LINE_BYTES)
    );
    raw.send(&long);
    let r = raw.next();
    assert_eq!(
        (code(&r), r["id"].clone()),
        (json!(-32600), Value::Null),
        "{r}"
    );
    // Still serving, one reply per request: the next reply is this ping's.
    raw.send(r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#);
    assert_eq!(raw.next()["id"], 9);
    assert!(raw.close().success());
}

#[test]
fn closing_stdin_before_initialize_exits_0() {
    let home = TempDir::new().expect("tempdir");
    let raw = Raw::start(home.path());
    assert!(raw.close().success(), "nothing sent");
    let mut raw = Raw::start(home.path());
    raw.send("garbage");
    assert_eq!(code(&raw.next()), json!(-32700));
    assert!(raw.close().success(), "after a line that is not JSON");
}

/// `notifications/cancelled` for a running call: the command and its
/// background child end at once (SIGKILL to the call's process group);
/// MCP's rule is that a cancelled request gets no reply, and the server
/// goes on serving.
#[test]
fn a_cancelled_call_ends_its_whole_process_group_at_once() {
    let home = TempDir::new().expect("tempdir");
    let work = TempDir::new().expect("tempdir");
    let file = work.path().join("pids");
    let mut raw = Raw::start(home.path());
    raw.initialize();
    let call = json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {
        "name": "ctx_run", "arguments": {"argv": ["sh", "-c", recorded(&file)]}}});
    raw.send(&call.to_string());
    let started = std::time::Instant::now();
    while pids(&file).len() < 2 {
        assert!(
            started.elapsed().as_secs() < 20,
            "the command never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let running = pids(&file);
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10,"reason":"test"}}"#);
    let cancelled = std::time::Instant::now();
    while !running.iter().all(|&p| ended(p)) {
        assert!(
            cancelled.elapsed().as_secs() < 3,
            "still running 3 s after the cancel: {running:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    raw.send(r#"{"jsonrpc":"2.0","id":11,"method":"ping"}"#);
    assert_eq!(raw.next()["id"], 11, "no reply for the cancelled call");
    assert!(raw.close().success());
}

/// A call over its timeout: SIGTERM to the whole group (ctx digests),
/// then what is left is killed; the background child does not outlive
/// the call, and what ctx printed is in the result.
#[tokio::test]
async fn a_timeout_ends_the_commands_background_children_too() {
    let home = TempDir::new().expect("tempdir");
    let work = TempDir::new().expect("tempdir");
    let file = work.path().join("pids");
    let client = connect(home.path()).await;
    let result = call(
        &client,
        "ctx_run",
        json!({"argv": ["sh", "-c", recorded(&file)], "timeout": 1}),
    )
    .await
    .expect("result");
    let shown = text(&result);
    assert!(shown.contains("started"), "{shown}");
    assert_eq!(meta(&result, "ctx/timed_out"), json!(true));
    let running = pids(&file);
    assert_eq!(running.len(), 2, "{shown}");
    let after = std::time::Instant::now();
    while !running.iter().all(|&p| ended(p)) {
        assert!(
            after.elapsed().as_secs() < 3,
            "a process of the call outlived it: {running:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    client.cancel().await.expect("close");
}

/// A command line over the kernel's limit is reported as that, not as a
/// binary that went missing.
#[tokio::test]
async fn an_argv_over_the_kernels_limit_is_reported_as_e2big() {
    let home = TempDir::new().expect("tempdir");
    let client = connect(home.path()).await;
    let mut argv = vec![json!("echo")];
    argv.extend((0..40).map(|_| json!("a".repeat(100 << 10))));
    let result = call(&client, "ctx_run", json!({ "argv": argv }))
        .await
        .expect("a result");
    assert!(failed(&result), "{result:?}");
    let shown = text(&result);
    assert!(shown.contains("E2BIG"), "{shown}");
    assert!(!shown.contains("reinstalled"), "{shown}");
    client.cancel().await.expect("close");
}
