//! Calls as tasks, with MCP's tasks extension (`io.modelcontextprotocol/tasks`):
//! a `tools/call` the server answers at once with a task, whose result the
//! client reads later by the task's id.
//!
//! Each request of the extension declares it in its own `_meta` (the
//! client's capabilities), in either era, so the client's plain
//! [`call`](McpClient::call)s stay calls answered in the request.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CancelTaskParams, CancelTaskRequest, ClientCapabilities, ClientRequest,
    DetailedTask, GetTaskParams, GetTaskRequest, JsonObject, RequestMetaObject, ServerResult,
    TaskPayload, UpdateTaskParams, UpdateTaskRequest,
};
use rmcp::service::{PeerRequestOptions, ServiceError};
use serde_json::{Map, Value};
use tokio::time::Instant;
use tool_runtime::{ToolContext, ToolOutput};
use tool_tasks::TaskStatus;

use super::connection::Live;
use super::error::untrusted;
use super::listing::{self, Failure};
use super::{McpClient, McpClientError, McpClientErrorKind, convert};

/// The tasks extension's name, as a client and a server declare it in
/// their capabilities (`extensions`).
pub const TASKS_EXTENSION: &str = rmcp::model::TASKS_EXTENSION_ID;

/// The shortest wait between two reads of a task, whatever the server
/// suggests.
const MIN_POLL: Duration = Duration::from_millis(10);
/// The longest wait between two reads of a task, whatever the server
/// suggests.
const MAX_POLL: Duration = Duration::from_secs(30);
/// The wait between two reads of a task when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_secs(1);

/// A task on an MCP server, as the server last described it
/// ([`McpClient::get_task`]). The server's words (`status_message`, an
/// error's message) are escaped and cut short.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct McpTask {
    /// The task's id, which every later request about it names.
    pub id: String,
    /// Where the task is in its life.
    pub status: TaskStatus,
    /// Why the task is where it is, in the server's words (a running
    /// tool's last progress message, say).
    pub status_message: Option<String>,
    /// When the server made the task, in ISO 8601 as the server wrote it.
    pub created_at: String,
    /// When the task last changed, in ISO 8601 as the server wrote it.
    pub last_updated_at: String,
    /// How long after it was made the server may forget the task; `None`
    /// when it keeps it as long as it likes.
    pub ttl: Option<Duration>,
    /// How often the server suggests reading the task; `None` when it does
    /// not say.
    pub poll_interval: Option<Duration>,
    /// A completed task's result, as [`McpClient::call`] gives one (a tool's
    /// `isError: true` is an error result).
    pub result: Option<ToolOutput>,
    /// A failed task's JSON-RPC error.
    pub error: Option<McpTaskError>,
    /// The requests of a task that waits for input (`input_required`), by
    /// key, as the server sent them (`{"method": "elicitation/create",
    /// "params": {...}}`); answer them with [`McpClient::update_task`].
    pub input_requests: Map<String, Value>,
}

/// The JSON-RPC error a failed task carries: why the call produced no
/// result (the tool panicked, the server failed, its process stopped).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpTaskError {
    /// The JSON-RPC error code (`-32603` for an internal error).
    pub code: i64,
    /// Its message, escaped and cut short.
    pub message: String,
}

/// What [`McpClient::call_as_task`] came back with: the server decides,
/// call by call, whether a call becomes a task.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum McpTaskCall {
    /// A task, as the server made it (usually `working`): read it with
    /// [`McpClient::get_task`], [`McpClient::wait_task`] or
    /// [`McpClient::task_result`] by its id. Boxed: a task is larger than
    /// a result.
    Task(Box<McpTask>),
    /// The call's result, answered in the request (a tool whose calls do
    /// not run as tasks, say).
    Done(ToolOutput),
}

impl McpTask {
    /// A task as the server described it, without what its status carries
    /// (the task just made, in a `tools/call` answer).
    fn from_wire(task: rmcp::model::Task) -> Self {
        let rmcp::model::Task {
            task_id,
            status,
            status_message,
            created_at,
            last_updated_at,
            ttl_ms,
            poll_interval_ms,
            ..
        } = task;
        McpTask {
            id: task_id,
            status: status_of(status),
            status_message: status_message.map(|message| untrusted(&message, 500)),
            created_at: untrusted(&created_at, 64),
            last_updated_at: untrusted(&last_updated_at, 64),
            ttl: ttl_ms.map(Duration::from_millis),
            poll_interval: poll_interval_ms.map(Duration::from_millis),
            result: None,
            error: None,
            input_requests: Map::new(),
        }
    }

    /// A task as `tasks/get` describes it, with what its status carries;
    /// or why that cannot be read.
    fn detailed(detailed: DetailedTask) -> Result<Self, String> {
        let DetailedTask { task, payload, .. } = detailed;
        let mut read = McpTask::from_wire(task);
        match payload {
            TaskPayload::Completed { result } => {
                let result = serde_json::from_value(Value::Object(result)).map_err(|error| {
                    format!(
                        "the result of task {} is not a tool result: {error}",
                        read.id
                    )
                })?;
                read.result = Some(convert::to_output(result));
            }
            TaskPayload::Failed { error } => {
                let message = error.get("message").and_then(Value::as_str).unwrap_or("");
                read.error = Some(McpTaskError {
                    code: error.get("code").and_then(Value::as_i64).unwrap_or(-32603),
                    message: untrusted(message, 500),
                });
            }
            TaskPayload::InputRequired { input_requests } => {
                for (key, request) in input_requests {
                    let request = serde_json::to_value(request).unwrap_or(Value::Null);
                    read.input_requests.insert(key, request);
                }
            }
            _ => {}
        }
        Ok(read)
    }

    /// Whether the task has ended, or waits for the client's input: what
    /// [`McpClient::wait_task`] waits for.
    fn settled(&self) -> bool {
        self.status.is_terminal() || self.status == TaskStatus::InputRequired
    }

    /// How long to wait before reading the task again: what the server
    /// suggests, within 10 ms and 30 s; 1 s when it does not say.
    fn next_poll(&self) -> Duration {
        self.poll_interval
            .unwrap_or(DEFAULT_POLL)
            .clamp(MIN_POLL, MAX_POLL)
    }
}

/// The runtime's name for the server's status; a status this client does
/// not know counts as failed.
fn status_of(status: rmcp::model::TaskStatus) -> TaskStatus {
    use rmcp::model::TaskStatus as Wire;
    match status {
        Wire::Working => TaskStatus::Working,
        Wire::InputRequired => TaskStatus::InputRequired,
        Wire::Completed => TaskStatus::Completed,
        Wire::Cancelled => TaskStatus::Cancelled,
        _ => TaskStatus::Failed,
    }
}

/// The `_meta` of a request that declares the tasks extension.
fn declaring_tasks() -> RequestMetaObject {
    let mut capabilities = ClientCapabilities::default();
    capabilities.extensions = Some([(TASKS_EXTENSION.to_owned(), JsonObject::new())].into());
    let mut meta = RequestMetaObject::new();
    meta.set_client_capabilities(capabilities);
    meta
}

impl McpClient {
    /// Calls the tool `tool` with `arguments` (a JSON object, or `null`)
    /// as a task: the request declares MCP's tasks extension, and a server
    /// that makes a task of the call answers at once with it
    /// ([`McpTaskCall::Task`]); one that answers in the request gives the
    /// result ([`McpTaskCall::Done`], as [`call`](Self::call) would).
    ///
    /// Fails with [`McpClientErrorKind::Protocol`] when the server does not
    /// declare the extension in its capabilities, or answers with a
    /// JSON-RPC error (a tool it does not have, say), and as
    /// [`call`](Self::call) does when the server is away, slow (the answer
    /// that makes the task is bounded by
    /// [`call_timeout`](super::McpClientOptions::call_timeout)) or sends
    /// too much.
    pub async fn call_as_task(
        &self,
        tool: &str,
        arguments: Value,
    ) -> Result<McpTaskCall, McpClientError> {
        let params = self.call_params(tool, arguments)?;
        let (live, deadline) = self.task_connection(&ToolContext::new()).await?;
        let serves_tasks = live
            .peer
            .peer_info()
            .is_some_and(|info| info.capabilities.supports_tasks());
        if !serves_tasks {
            return Err(self.error(
                McpClientErrorKind::Protocol,
                format!(
                    "serves no tasks: its capabilities do not name the extension \
                     {TASKS_EXTENSION}"
                ),
            ));
        }
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let what = format!(
            "the call to `{}` as a task",
            tool_runtime::__private::quote::name(tool)
        );
        match self.task_request(&live, request, deadline, &what).await? {
            ServerResult::CreateTaskResult(created) => Ok(McpTaskCall::Task(Box::new(
                McpTask::from_wire(created.task),
            ))),
            ServerResult::CallToolResult(result) => {
                Ok(McpTaskCall::Done(convert::to_output(result)))
            }
            _ => Err(self.error(
                McpClientErrorKind::Protocol,
                format!("{what} failed: the answer is neither a task nor a tool result"),
            )),
        }
    }

    /// The task `id` as the server describes it now (`tasks/get`): its
    /// status, and what that carries (the result of a completed task, the
    /// error of a failed one, the requests of one that waits for input).
    ///
    /// Fails with [`McpClientErrorKind::Protocol`] for a task the server
    /// does not know (never made, or forgotten), within
    /// [`call_timeout`](super::McpClientOptions::call_timeout).
    pub async fn get_task(&self, id: &str) -> Result<McpTask, McpClientError> {
        let (live, deadline) = self.task_connection(&ToolContext::new()).await?;
        let request = ClientRequest::GetTaskRequest(GetTaskRequest::new(GetTaskParams::new(id)));
        let what = format!("reading task {}", untrusted(id, 64));
        match self.task_request(&live, request, deadline, &what).await? {
            ServerResult::GetTaskResult(got) => McpTask::detailed(got.task)
                .map_err(|message| self.error(McpClientErrorKind::Protocol, message)),
            _ => Err(self.error(
                McpClientErrorKind::Protocol,
                format!("{what} failed: the answer is not a task"),
            )),
        }
    }

    /// Reads the task `id` until it has ended or waits for input, and
    /// returns it as it then stands. Between two reads it waits as long as
    /// the server suggests (`pollIntervalMs`), but at least 10 ms and at
    /// most 30 s (1 s when the server does not say).
    ///
    /// There is no overall time limit (a task may run for hours): cancel
    /// `ctx` to stop waiting, which fails with
    /// [`McpClientErrorKind::Cancelled`] and leaves the task running (see
    /// [`cancel_task`](Self::cancel_task)).
    pub async fn wait_task(&self, id: &str, ctx: &ToolContext) -> Result<McpTask, McpClientError> {
        loop {
            let task = tokio::select! {
                task = self.get_task(id) => task?,
                () = ctx.cancelled() => return Err(self.stopped_waiting(id)),
            };
            if task.settled() {
                return Ok(task);
            }
            tokio::select! {
                () = tokio::time::sleep(task.next_poll()) => {}
                () = ctx.cancelled() => return Err(self.stopped_waiting(id)),
            }
        }
    }

    /// The result of the task `id`, once it has ended: reads it as
    /// [`wait_task`](Self::wait_task) does (the extension carries the
    /// result in the task itself, where revision 2025-11-25 had
    /// `tasks/result`).
    ///
    /// A completed task gives its result (an error result when the tool
    /// said `isError: true`); a failed one fails with
    /// [`McpClientErrorKind::Protocol`] and the server's error, a cancelled
    /// one with [`McpClientErrorKind::Cancelled`], and one that waits for
    /// the client's input with [`McpClientErrorKind::InputRequired`]
    /// (answer with [`update_task`](Self::update_task), then ask again).
    pub async fn task_result(
        &self,
        id: &str,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, McpClientError> {
        let task = self.wait_task(id, ctx).await?;
        let id = untrusted(&task.id, 64);
        match (task.status, task.result, task.error) {
            (TaskStatus::Completed, Some(result), _) => Ok(result),
            (TaskStatus::Cancelled, ..) => Err(self.error(
                McpClientErrorKind::Cancelled,
                format!("task {id} was cancelled"),
            )),
            (TaskStatus::InputRequired, ..) => {
                let keys: Vec<&str> = task.input_requests.keys().map(String::as_str).collect();
                Err(self.error(
                    McpClientErrorKind::InputRequired,
                    format!(
                        "task {id} waits for input: answer its requests {} with `update_task`",
                        untrusted(&keys.join(", "), 200)
                    ),
                ))
            }
            (_, _, Some(error)) => Err(self.error(
                McpClientErrorKind::Protocol,
                format!("task {id} failed: {} ({})", error.message, error.code),
            )),
            _ => Err(self.error(
                McpClientErrorKind::Protocol,
                format!("task {id} failed, and the server does not say why"),
            )),
        }
    }

    /// Answers requests the task `id` waits on (`tasks/update`), by the
    /// keys of its [`input_requests`](McpTask::input_requests): each
    /// answer is what the client would have answered the request with (an
    /// elicitation's `{"action": "accept", "content": {...}}`, say). The
    /// server ignores answers to keys that do not wait; the task goes on
    /// once every request is answered.
    pub async fn update_task(
        &self,
        id: &str,
        responses: Map<String, Value>,
    ) -> Result<(), McpClientError> {
        let (live, deadline) = self.task_connection(&ToolContext::new()).await?;
        let params = UpdateTaskParams::new(id, responses.into_iter().collect());
        let request = ClientRequest::UpdateTaskRequest(UpdateTaskRequest::new(params));
        let what = format!("answering task {}", untrusted(id, 64));
        self.acknowledged(&live, request, deadline, &what).await
    }

    /// Asks the server to cancel the task `id` (`tasks/cancel`); the
    /// acknowledgement comes at once, and the task reads `cancelled` once
    /// the server has stopped it (unless it ended first).
    pub async fn cancel_task(&self, id: &str) -> Result<(), McpClientError> {
        let (live, deadline) = self.task_connection(&ToolContext::new()).await?;
        let params = CancelTaskParams::new(id);
        let request = ClientRequest::CancelTaskRequest(CancelTaskRequest::new(params));
        let what = format!("cancelling task {}", untrusted(id, 64));
        self.acknowledged(&live, request, deadline, &what).await
    }

    /// The connection for a request about tasks, and the request's
    /// deadline.
    async fn task_connection(
        &self,
        ctx: &ToolContext,
    ) -> Result<(Arc<Live>, Instant), McpClientError> {
        let deadline = Instant::now() + self.inner.options.call_timeout;
        Ok((self.live(ctx, deadline).await?, deadline))
    }

    /// Sends `request` (about `what`), which expects an empty
    /// acknowledgement.
    async fn acknowledged(
        &self,
        live: &Arc<Live>,
        request: ClientRequest,
        deadline: Instant,
        what: &str,
    ) -> Result<(), McpClientError> {
        match self.task_request(live, request, deadline, what).await? {
            ServerResult::TaskAckResult(_) | ServerResult::EmptyResult(_) => Ok(()),
            _ => Err(self.error(
                McpClientErrorKind::Protocol,
                format!("{what} failed: the answer is not an acknowledgement"),
            )),
        }
    }

    /// Sends `request` (about `what`) declaring the tasks extension, and
    /// waits for its answer until `deadline`.
    async fn task_request(
        &self,
        live: &Arc<Live>,
        request: ClientRequest,
        deadline: Instant,
        what: &str,
    ) -> Result<ServerResult, McpClientError> {
        let options = PeerRequestOptions::no_options().with_meta(declaring_tasks());
        let handle = match live.peer.send_request_with_option(request, options).await {
            Ok(handle) => handle,
            Err(error) => {
                live.check_health(self.name());
                let message = untrusted(&error.to_string(), 500);
                return Err(self.error(
                    McpClientErrorKind::Closed,
                    format!("{what} failed: {message}"),
                ));
            }
        };
        let id = handle.id.clone();
        let error = match tokio::time::timeout_at(deadline, handle.await_response()).await {
            Ok(Ok(result)) => return Ok(result),
            Ok(Err(error)) => error,
            Err(_) => {
                live.check_health(self.name());
                return Err(self.error(
                    McpClientErrorKind::TimedOut,
                    format!(
                        "{what}: no answer within {:?}",
                        self.inner.options.call_timeout
                    ),
                ));
            }
        };
        let failure = listing::failure(&self.inner.shared, Some(&id), &error, "its answer");
        Err(match (failure, error) {
            (Failure::Limit(message), _) => self.error(
                McpClientErrorKind::Limit,
                format!("{what} failed: {message}"),
            ),
            (Failure::Failed(message), ServiceError::McpError(_)) => self.error(
                McpClientErrorKind::Protocol,
                format!("{what} failed: {message}"),
            ),
            (Failure::Failed(message), _) => {
                live.check_health(self.name());
                self.error(
                    McpClientErrorKind::Closed,
                    format!("{what} failed: {message}"),
                )
            }
        })
    }

    /// The error of a wait for task `id` that its caller cancelled.
    fn stopped_waiting(&self, id: &str) -> McpClientError {
        self.error(
            McpClientErrorKind::Cancelled,
            format!(
                "stopped waiting for task {}; it runs on until it ends or is cancelled",
                untrusted(id, 64)
            ),
        )
    }
}
