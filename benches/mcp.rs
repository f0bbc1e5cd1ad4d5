//! What a tool call through `ctx mcp` costs over running ctx directly, run
//! on demand:
//!
//!     cargo bench --bench mcp            # 100 rounds
//!     cargo bench --bench mcp -- 300     # more rounds
//!
//! Interleaved round after round, in one private `CTX_HOME`:
//!
//! - direct: `ctx run --digest -- true`, spawned and read to the end, what
//!   an agent's shell tool pays for the same command;
//! - mcp: `ctx_run {"argv": ["true"]}` over one long-lived `ctx mcp`
//!   session (rmcp's client): the JSON-RPC round trip, the server's
//!   subprocess (the same `ctx run --digest`) and the reply;
//! - mcp, large: `ctx_run` of `seq 1 20000` (a digest with an archive key),
//!   beside `ctx run --digest -- seq 1 20000` direct;
//! - read: `ctx_read` of `src/read/mod.rs` as an outline, `fresh` (the
//!   server's calls share a session, which would answer a re-read with a
//!   stub), beside `ctx read --fresh` direct in a session of its own.
//!
//! Reported: each case's median wall time and the median of the per-round
//! difference (mcp − direct), the overhead a call adds. Wall-clock on a
//! shared machine is noisy; the differences are taken within each round.

mod support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, JsonObject};
use rmcp::transport::TokioChildProcess;
use serde_json::json;

const CTX: &str = env!("CARGO_BIN_EXE_ctx");

fn direct(home: &std::path::Path, argv: &[&str]) -> Duration {
    let start = Instant::now();
    let out = Command::new(CTX)
        .args(["run", "--digest", "--"])
        .args(argv)
        .env("CTX_HOME", home)
        .stdin(Stdio::null())
        .output()
        .expect("ctx run");
    assert!(out.status.success());
    start.elapsed()
}

fn direct_read(home: &std::path::Path, file: &str) -> Duration {
    let start = Instant::now();
    let out = Command::new(CTX)
        .args(["read", file, "--mode", "outline", "--fresh"])
        .env("CTX_HOME", home)
        .env("CTX_SESSION", "bench-direct")
        .stdin(Stdio::null())
        .output()
        .expect("ctx read");
    assert!(out.status.success());
    start.elapsed()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn signed_ms(a: Duration, b: Duration) -> f64 {
    ms(a) - ms(b)
}

fn main() {
    let rounds: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(100);
    let home = tempfile::tempdir().expect("tempdir");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    // The child process registers with the runtime's reactor as it is
    // spawned: outside the runtime, spawning panics.
    let _entered = runtime.enter();
    let mut command = tokio::process::Command::new(CTX);
    command.arg("mcp").env("CTX_HOME", home.path());
    let transport = TokioChildProcess::new(command).expect("spawn ctx mcp");
    let client = runtime.block_on(().serve(transport)).expect("initialize");
    let call = |argv: serde_json::Value| {
        let arguments: JsonObject = json!({ "argv": argv })
            .as_object()
            .cloned()
            .expect("object");
        let start = Instant::now();
        let result = runtime
            .block_on(
                client.call_tool(CallToolRequestParams::new("ctx_run").with_arguments(arguments)),
            )
            .expect("ctx_run");
        assert_ne!(result.is_error, Some(true));
        start.elapsed()
    };

    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/src/read/mod.rs");
    let read = || {
        let arguments: JsonObject = json!({"path": file, "mode": "outline", "fresh": true})
            .as_object()
            .cloned()
            .expect("object");
        let start = Instant::now();
        let result = runtime
            .block_on(
                client.call_tool(CallToolRequestParams::new("ctx_read").with_arguments(arguments)),
            )
            .expect("ctx_read");
        assert_ne!(result.is_error, Some(true));
        start.elapsed()
    };
    let (mut d_read, mut m_read, mut o_read) = (Vec::new(), Vec::new(), Vec::new());
    let small = ["true"];
    let large = ["seq", "1", "20000"];
    for _ in 0..5 {
        direct(home.path(), &small);
        call(json!(small));
    }
    let (mut d_small, mut m_small, mut o_small) = (Vec::new(), Vec::new(), Vec::new());
    let (mut d_large, mut m_large, mut o_large) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        // Alternate which goes first, so neither always runs on a warm cache.
        let (d, m) = if round % 2 == 0 {
            let d = direct(home.path(), &small);
            (d, call(json!(small)))
        } else {
            let m = call(json!(small));
            (direct(home.path(), &small), m)
        };
        d_small.push(d);
        m_small.push(m);
        o_small.push((signed_ms(m, d) * 1000.0) as i64);
        let (d, m) = (direct(home.path(), &large), call(json!(large)));
        d_large.push(d);
        m_large.push(m);
        o_large.push((signed_ms(m, d) * 1000.0) as i64);
        let (d, m) = (direct_read(home.path(), file), read());
        d_read.push(d);
        m_read.push(m);
        o_read.push((signed_ms(m, d) * 1000.0) as i64);
    }
    let _ = runtime.block_on(client.cancel());
    println!("{rounds} rounds, medians:");
    println!(
        "  true          direct {:7.2} ms   mcp {:7.2} ms   overhead {:+7.2} ms",
        ms(support::median(d_small)),
        ms(support::median(m_small)),
        support::median(o_small) as f64 / 1000.0
    );
    println!(
        "  seq 1 20000   direct {:7.2} ms   mcp {:7.2} ms   overhead {:+7.2} ms",
        ms(support::median(d_large)),
        ms(support::median(m_large)),
        support::median(o_large) as f64 / 1000.0
    );
    println!(
        "  read outline  direct {:7.2} ms   mcp {:7.2} ms   overhead {:+7.2} ms",
        ms(support::median(d_read)),
        ms(support::median(m_read)),
        support::median(o_read) as f64 / 1000.0
    );
}
