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
        let finished = match subprocess::run(&self.program, &env, &invocation).await {
            Ok(finished) => finished,
            Err(e) => return Ok(tool_error(self.launch_failure(name, &e))),
        };
        Ok(match name {
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
        format!(
            "{tool}: could not start {} ({e}); if ctx was reinstalled, restart the MCP server",
            self.program.display()
        )
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
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.call(&request.name, request.arguments)
            .await
            .map(CallToolResponse::from)
    }
}
