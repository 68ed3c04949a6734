//! The server as rmcp's [`ServerHandler`](rmcp::ServerHandler), for the
//! streamable HTTP transport, which is rmcp's: the `initialize` answer,
//! `tools/list`, `tools/call` and `logging/setLevel` in rmcp's types, and
//! a session's notifications through rmcp's peer.

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RoleServer};
use serde_json::Value;
use tool_runtime::{LogLevel, ToolSpec, ToolUse, providers};

use super::{CallError, Called, McpServer, Notify, WATCH_IDLE};

impl McpServer {
    /// The `CallToolResult` for one `tools/call` rmcp hands over, or the
    /// JSON-RPC error for a tool the registry does not have.
    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let meta = serde_json::to_value(&context.meta).ok();
        let id = serde_json::to_value(&context.id).unwrap_or_default();
        let span = super::call_span(&id, &request.name, meta.as_ref().and_then(Value::as_object));
        let tool_use = tool_use(&context.id, request);
        let progress_token = context
            .meta
            .get_progress_token()
            .and_then(|token| serde_json::to_value(token).ok());
        let call_context = self.peer_context(&context.peer).clone();
        let notify = PeerNotify {
            peer: &context.peer,
            log_level: self.log_level(),
        };
        let run = self.run_call(
            tool_use,
            progress_token.as_ref(),
            &call_context,
            &context.ct,
            &notify,
        );
        let outcome = tracing::Instrument::instrument(run, span).await;
        to_rmcp(outcome)
    }

    /// The context of this session's calls, with `peer` answering the
    /// tools' requests to the client.
    pub(super) fn peer_context(&self, peer: &Peer<RoleServer>) -> &tool_runtime::ToolContext {
        self.session_context(|| Arc::new(super::peer::PeerClient { peer: peer.clone() }))
    }
}

/// A call's outcome in rmcp's types.
pub(super) fn to_rmcp(outcome: Result<Called, CallError>) -> Result<CallToolResult, ErrorData> {
    match outcome {
        Ok(called) => Ok(call_tool_result(&called)),
        Err(error) => Err(ErrorData::new(
            rmcp::model::ErrorCode(error.code() as i32),
            error.message().to_owned(),
            error.data(),
        )),
    }
}

/// The runtime's tool use for call `id` of `tools/call`: the call's id as
/// the tool use's, its arguments (none is an empty object).
pub(super) fn tool_use(id: &rmcp::model::RequestId, params: CallToolRequestParams) -> ToolUse {
    let input = Value::Object(params.arguments.unwrap_or_default());
    ToolUse::new(id.to_string(), params.name, input)
}

/// Notifications through rmcp's peer of the session.
pub(super) struct PeerNotify<'a> {
    pub(super) peer: &'a Peer<RoleServer>,
    /// The least severe log message the session's client wants.
    pub(super) log_level: LogLevel,
}

impl Notify for PeerNotify<'_> {
    async fn progress(&self, token: &Value, progress: f64, message: String) {
        let Ok(token) = serde_json::from_value::<ProgressToken>(token.clone()) else {
            return;
        };
        let params = ProgressNotificationParam::new(token, progress)
            .with_total(1.0)
            .with_message(message);
        if let Err(error) = self.peer.notify_progress(params).await {
            tracing::debug!(%error, "a progress notification could not be sent");
        }
    }

    fn wants(&self, level: LogLevel) -> bool {
        level as u8 >= self.log_level as u8
    }

    async fn log(&self, level: LogLevel, logger: &str, message: String) {
        super::logging::send(self.peer, level, logger, message).await;
    }
}

/// One `tools/list` entry, the [`providers::mcp::tool`] shape as rmcp's
/// type, made from the spec directly (not through JSON: the server then
/// links no deserializer for it).
pub(super) fn to_mcp_tool(spec: &ToolSpec) -> Tool {
    let input_schema = match spec.input_schema() {
        Value::Object(schema) => schema.clone(),
        // Only a hand-written tool with a non-object schema gets here (and
        // is warned of where the list is rendered as JSON).
        _ => {
            let mut schema = serde_json::Map::new();
            schema.insert("type".into(), "object".into());
            schema
        }
    };
    let mut tool = Tool::new(
        spec.name.to_string(),
        spec.description.to_string(),
        Arc::new(input_schema),
    );
    if let Some(Value::Object(schema)) = providers::mcp::output_schema(spec) {
        tool = tool.with_raw_output_schema(Arc::new(schema));
    }
    let hints = &spec.annotations;
    if spec.title.is_some()
        || hints.read_only.is_some()
        || hints.destructive.is_some()
        || hints.idempotent.is_some()
        || hints.open_world.is_some()
    {
        let mut annotations = ToolAnnotations::new();
        annotations.title = spec.title.as_deref().map(str::to_owned);
        annotations.read_only_hint = hints.read_only;
        annotations.destructive_hint = hints.destructive;
        annotations.idempotent_hint = hints.idempotent;
        annotations.open_world_hint = hints.open_world;
        tool = tool.with_annotations(annotations);
    }
    if let Some(title) = &spec.title {
        tool = tool.with_title(title.to_string());
    }
    tool
}

/// The [`providers::mcp::call_tool_result`] shape as rmcp's type, made
/// directly.
fn call_tool_result(called: &Called) -> CallToolResult {
    let result = &called.result;
    let content = result.content.iter().map(crate::content::to_mcp).collect();
    let mut answer = if result.is_error() {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    answer.structured_content = providers::mcp::structured_content(result, called.spec());
    answer
}

impl rmcp::ServerHandler for McpServer {
    #[allow(deprecated)] // `enable_logging`: see the `logging` module
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        let implementation = Implementation::new(
            self.implementation.name.clone(),
            self.implementation.version.clone(),
        );
        let config = ServerConfig::new(capabilities).with_server_info(implementation);
        match &self.instructions {
            Some(instructions) => config.with_instructions(instructions.clone()),
            None => config,
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let listed = self.listed();
        let tools = listed.offered(&listed.rmcp, &self.context);
        Ok(ListToolsResult::with_all_items(
            tools.into_iter().cloned().collect(),
        ))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let listed = self.listed();
        let tool = listed.registry.resolve(name)?;
        let name = &*tool.spec().name;
        listed.rmcp.iter().find(|tool| tool.name == name).cloned()
    }

    #[allow(deprecated)] // see the `logging` module
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.set_log_level(super::logging::runtime_level(request.level));
        Ok(())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // The transport may now run this session's calls.
        let registered = self.http_sessions.as_ref().and_then(|sessions| {
            sessions.register(&context.extensions, self.same_session(), &context.peer)
        });
        // Tell this client of every change to the tools, until it is gone.
        let mut changes = self.registry.subscribe();
        let peer = context.peer;
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    changed = changes.changed() => {
                        if changed.is_err() || peer.notify_tool_list_changed().await.is_err() {
                            break;
                        }
                    }
                    () = tokio::time::sleep(WATCH_IDLE) => {
                        if peer.is_transport_closed() {
                            break;
                        }
                    }
                }
            }
            if let Some(registered) = registered {
                registered.remove();
            }
        });
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.call(request, context)
            .await
            .map(CallToolResponse::from)
    }
}
