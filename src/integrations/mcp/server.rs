//! The MCP side: initialize, `tools/list`, `tools/call`. Each call is
//! checked (calls.rs), run as its own ctx process (subprocess.rs) and
//! answered (reply.rs). Errors follow the MCP rule: an unknown tool is a
//! JSON-RPC error (-32602, the request cannot be routed); arguments the
//! agent got wrong and views ctx refused are tool results with `isError`
//! and a message the agent can act on. Nothing here panics on input.

use std::path::PathBuf;
use std::time::Duration;

use rmcp::ErrorData as McpError;
use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};

use super::calls::{self, BadArguments};
use super::{reply, subprocess, tools};

/// The server: which ctx binary serves the calls, `ctx_run`'s default
/// timeout, and the session the calls belong to.
#[derive(Clone, Debug)]
pub struct CtxServer {
    pub program: PathBuf,
    pub run_timeout: Duration,
    /// `CTX_SESSION` for the calls when the server was started without
    /// one: one server process serves one agent session, so `ctx read`'s
    /// re-read stubs work across its calls.
    pub session: Option<String>,
}

impl CtxServer {
    async fn call(
        &self,
        name: &str,
        arguments: Option<rmcp::model::JsonObject>,
        cancel: impl std::future::Future<Output = ()>,
    ) -> Result<CallToolResult, McpError> {
        let checked = match name {
            tools::RUN => calls::run(arguments, self.run_timeout),
            tools::EXPAND => calls::expand(arguments),
            tools::READ => calls::read(arguments),
            other => {
                return Err(McpError::invalid_params(
                    format!(
                        "unknown tool {other:?}: ctx mcp offers {}",
                        tools::NAMES.join(", ")
                    ),
                    None,
                ));
            }
        };
        let invocation = match checked {
            Ok(invocation) => invocation,
            Err(BadArguments { tool, why }) => return Ok(tool_error(format!("{tool}: {why}"))),
        };
        let env: Vec<(&str, &str)> = self
            .session
            .as_deref()
            .map(|session| ("CTX_SESSION", session))
            .into_iter()
            .collect();
        let finished = match subprocess::run(&self.program, &env, &invocation, cancel).await {
            Ok(finished) => finished,
            Err(e) => return Ok(tool_error(self.launch_failure(name, &e))),
        };
        Ok(match name {
            _ if finished.cancelled => reply::cancelled(name, &finished),
            tools::RUN => reply::run(&finished, invocation.timeout.as_secs()),
            tools::READ if read_is_missing(&finished) => tool_error(format!(
                "{name}: this ctx binary ({}) has no `read` verb; a ctx with `ctx read` serves this tool",
                self.program.display()
            )),
            tools::READ if invocation.verifies && !finished.timed_out => reply::verified(&finished)
                .unwrap_or_else(|| tool_error(reply::refusal(name, &finished).unwrap_or_default())),
            _ => match reply::refusal(name, &finished) {
                Some(why) => tool_error(why),
                None => reply::view(&finished),
            },
        })
    }

    fn launch_failure(&self, tool: &str, e: &std::io::Error) -> String {
        match e.raw_os_error() {
            // The kernel's limit on a command line (ARG_MAX, or 128 KiB for
            // one argument): the call's arguments, not the binary.
            Some(libc::E2BIG) => format!(
                "{tool}: the command line is too long for this system (E2BIG: the arguments \
                 and environment are over the kernel's limit, or one argument is over 128 KiB); \
                 pass less at once, a long list through a file"
            ),
            Some(libc::ENOENT | libc::ENOEXEC | libc::EACCES | libc::ETXTBSY) => format!(
                "{tool}: could not start {} ({e}); if ctx was reinstalled, restart the MCP server",
                self.program.display()
            ),
            _ => format!("{tool}: could not start {} ({e})", self.program.display()),
        }
    }
}

/// `ctx read` answered the way clap answers a verb it does not know.
fn read_is_missing(finished: &subprocess::Finished) -> bool {
    finished.code() == Some(crate::deliver::EXIT_CTX_ERROR)
        && String::from_utf8_lossy(&finished.output).contains("unrecognized subcommand 'read'")
}

fn tool_error(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

impl ServerHandler for CtxServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("ctx", env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools::list()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // `notifications/cancelled` for this request, or the session's end.
        let cancel = context.ct.cancelled_owned();
        self.call(&request.name, request.arguments, cancel)
            .await
            .map(CallToolResponse::from)
    }
}
