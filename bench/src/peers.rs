//! The benchmarked tool written with other Rust tool libraries' macros.
//!
//! - [`mcp`]: `rmcp`'s `#[tool]` / `#[tool_router]`, called through its
//!   `ToolRouter` in process.
//! - [`rig`]: `rig-core`'s `#[rig_tool]`, called through its JSON-string
//!   entry point `ErasedTool::execute`.

/// The tool as an `rmcp` server method.
pub mod mcp {
    use std::borrow::Cow;

    use rmcp::handler::server::router::tool::ToolRouter;
    use rmcp::handler::server::tool::ToolCallContext;
    use rmcp::handler::server::wrapper::Parameters;
    use rmcp::model::{CallToolRequestParams, CallToolResponse, JsonObject, NumberOrString};
    use rmcp::service::{RequestContext, RunningService, serve_directly};
    use rmcp::{ErrorData, RoleServer, tool, tool_router};
    use schemars::JsonSchema;
    use serde::Deserialize;
    use serde_json::Value;

    use crate::{Mode, search_body};

    /// The arguments: rmcp takes one `Parameters<T>` per tool.
    #[derive(Debug, Deserialize, JsonSchema)]
    pub struct SearchArgs {
        /// Words to look for
        pub query: String,
        /// Most results to return
        pub limit: u32,
        /// How words are matched
        pub mode: Mode,
    }

    /// A server with the one tool.
    #[derive(Debug, Clone)]
    pub struct SearchServer;

    #[tool_router(server_handler, vis = "pub")]
    impl SearchServer {
        /// Searches the catalogue.
        #[tool]
        fn search(&self, Parameters(args): Parameters<SearchArgs>) -> String {
            search_body(&args.query, args.limit, args.mode)
        }
    }

    /// What a call through rmcp needs: the server, its router (built once,
    /// as a server that keeps it in a field would), and a request context.
    ///
    /// A request context holds a `Peer`, which rmcp only creates for a
    /// running service, so the harness starts one over an in-memory duplex
    /// pipe that no message ever crosses; the calls go straight to
    /// `ToolRouter::call`, skipping JSON-RPC framing and the transport.
    pub struct Harness {
        server: SearchServer,
        router: ToolRouter<SearchServer>,
        request_context: RequestContext<RoleServer>,
        _service: RunningService<RoleServer, SearchServer>,
        _client_end: tokio::io::DuplexStream,
    }

    impl Default for Harness {
        fn default() -> Self {
            Self::new()
        }
    }

    impl Harness {
        /// Starts the service; must run inside a tokio runtime.
        pub fn new() -> Self {
            let (server_end, client_end) = tokio::io::duplex(4096);
            let service = serve_directly::<RoleServer, _, _, _, _>(SearchServer, server_end, None);
            let request_context =
                RequestContext::new(NumberOrString::Number(1), service.peer().clone());
            Self {
                server: SearchServer,
                router: SearchServer::tool_router(),
                request_context,
                _service: service,
                _client_end: client_end,
            }
        }

        /// The request parameters for `search` with `arguments`.
        pub fn params(arguments: &Value) -> CallToolRequestParams {
            let mut params = CallToolRequestParams::new(Cow::Borrowed("search"));
            params.arguments = arguments.as_object().cloned();
            params
        }

        /// The arguments object of a `tools/call` request, parsed from text:
        /// what rmcp's server reads before it reaches the router.
        pub fn parse_params(text: &str) -> CallToolRequestParams {
            serde_json::from_str(text).expect("valid tools/call params")
        }

        /// Calls the tool through the router.
        pub async fn call(
            &self,
            params: CallToolRequestParams,
        ) -> Result<CallToolResponse, ErrorData> {
            let context = ToolCallContext::new(&self.server, params, self.request_context.clone());
            self.router.call(context).await
        }

        /// The text of a successful response, or why there is none.
        pub fn text(response: &Result<CallToolResponse, ErrorData>) -> Result<String, String> {
            match response {
                Ok(CallToolResponse::Complete(result)) => {
                    let text: Vec<&str> = result
                        .content
                        .iter()
                        .filter_map(|content| content.as_text().map(|t| t.text.as_str()))
                        .collect();
                    if result.is_error == Some(true) {
                        Err(text.join("\n"))
                    } else {
                        Ok(text.join("\n"))
                    }
                }
                Ok(_) => Err("an incomplete response".to_owned()),
                Err(error) => Err(error.message.to_string()),
            }
        }
    }

    /// A `tools/call` params object around `args`, as JSON text.
    pub fn params_json(args: &str) -> String {
        format!(r#"{{"name":"search","arguments":{args}}}"#)
    }

    /// `args` as the JSON object rmcp takes.
    pub fn object(args: &str) -> JsonObject {
        serde_json::from_str(args).expect("a JSON object")
    }
}

/// The tool as a `rig-core` tool.
pub mod rig {
    use rig_core::rig_tool;
    use rig_core::tool::{ErasedTool, ToolContext, ToolExecutionError, ToolResult};

    use crate::{Mode, search_body};

    /// Searches the catalogue.
    #[rig_tool]
    pub fn search(
        /// Words to look for
        query: String,
        /// Most results to return
        limit: u32,
        /// How words are matched
        mode: Mode,
    ) -> Result<String, ToolExecutionError> {
        Ok(search_body(&query, limit, mode))
    }

    /// Calls the tool the way rig's dispatch does: JSON text in, a
    /// `ToolResult` out.
    pub async fn execute(args: String, context: &mut ToolContext) -> ToolResult {
        ErasedTool::execute(&Search, args, context).await
    }
}
