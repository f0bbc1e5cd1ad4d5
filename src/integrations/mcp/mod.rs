//! `ctx mcp`: an MCP server over stdio (the official Rust SDK, `rmcp`)
//! with three tools, `ctx_run`, `ctx_expand` and `ctx_read` (tools.rs).
//! Each call runs this same ctx binary as a subprocess with an argv built
//! from the typed arguments (calls.rs, subprocess.rs), so the server
//! shares no state with the verbs and a fault in one call cannot take the
//! server down. docs/mcp.md has the tools, results and errors.
//!
//! Every line from the client goes through `wire` first, which answers
//! what is not a well-formed JSON-RPC 2.0 message itself (JSON-RPC's
//! rule: every request one reply) and passes the rest to rmcp.
//!
//! stdout is the protocol's alone: before serving, the server keeps a
//! private copy of its stdout for the transport and points descriptor 1
//! at stderr, so a stray print anywhere in the process lands in the log,
//! never in the middle of a JSON-RPC message.

mod calls;
mod reply;
mod server;
mod subprocess;
pub mod tools;
pub mod wire;

use std::io;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::PathBuf;
use std::time::Duration;

use rmcp::ServiceExt;

pub use calls::MAX_TIMEOUT_SECS;
pub use server::CtxServer;

/// Why the server could not start or stopped on a fault.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("setting up stdio: {0}")]
    Stdio(#[from] nix::Error),
    #[error("{0}")]
    Io(#[from] io::Error),
    #[error("MCP: {0}")]
    Protocol(String),
}

/// Serves MCP on stdin/stdout until the client closes stdin.
pub fn serve(program: PathBuf, run_timeout: Duration) -> Result<(), ServeError> {
    let protocol_out = reserve_stdout()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let handler = CtxServer {
        program,
        run_timeout,
        session: own_session(),
    };
    runtime.block_on(async move {
        let output = tokio::fs::File::from_std(std::fs::File::from(protocol_out));
        let (service_in, to_service) = tokio::io::duplex(64 << 10);
        let (service_out, from_service) = tokio::io::duplex(64 << 10);
        let (replies, replies_rx) = tokio::sync::mpsc::unbounded_channel();
        let writer = tokio::spawn(wire::write(from_service, replies_rx, output));
        let service = tokio::spawn(async move {
            let running = handler
                .serve((service_in, service_out))
                .await
                .map_err(|e| ServeError::Protocol(e.to_string()))?;
            running
                .waiting()
                .await
                .map_err(|e| ServeError::Protocol(e.to_string()))?;
            Ok::<(), ServeError>(())
        });
        let initialized = wire::pump(tokio::io::stdin(), to_service, replies).await?;
        // The client's input ended (to_service is dropped: rmcp sees the
        // end too). Before initialize there is no session to end.
        let served = if initialized {
            match service.await {
                Ok(result) => result,
                Err(e) => Err(ServeError::Protocol(e.to_string())),
            }
        } else {
            service.abort();
            Ok(())
        };
        if let Ok(written) = writer.await {
            written?;
        }
        served
    })
}

/// A session name for this server's calls, unless the agent set
/// `CTX_SESSION` itself: unique to this process and its start.
fn own_session() -> Option<String> {
    if std::env::var_os("CTX_SESSION").is_some_and(|s| !s.is_empty()) {
        return None;
    }
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    Some(format!("mcp-{}-{started}", std::process::id()))
}

/// A copy of stdout for the protocol (close-on-exec: no command a call
/// runs inherits it); descriptor 1 then points at stderr.
fn reserve_stdout() -> Result<OwnedFd, nix::Error> {
    use nix::fcntl::{FcntlArg, fcntl};
    let raw = fcntl(io::stdout(), FcntlArg::F_DUPFD_CLOEXEC(3))?;
    // SAFETY: F_DUPFD_CLOEXEC returned a new descriptor that nothing else owns.
    let protocol = unsafe { OwnedFd::from_raw_fd(raw) };
    nix::unistd::dup2_stdout(io::stderr())?;
    Ok(protocol)
}
