//! MCP's tasks extension (`io.modelcontextprotocol/tasks`): a call the
//! server runs as a task is answered at once with the task
//! (`CreateTaskResult`), and the client reads it later by its id.
//!
//! The server speaks the extension when it has [`Tasks`]
//! ([`McpServer::with_tasks`]), and uses it for a request that declares it:
//! in its `_meta`'s client capabilities (`extensions`), or, in a session of
//! an earlier revision, in the capabilities the client gave `initialize`.
//! A tool says whether its calls may run as tasks
//! ([`TaskSupport`](tool_runtime::spec::TaskSupport)):
//!
//! | the tool | the request declares the extension | it does not |
//! | --- | --- | --- |
//! | forbids tasks (the default) | the result, in the request | the same |
//! | allows tasks | a task | the result, in the request |
//! | requires tasks | a task | `-32021`, naming the extension |
//!
//! `tasks/get` gives the task with what its status carries (the
//! `CallToolResult` of a completed task, the JSON-RPC error of a failed
//! one, the requests of one that waits for input), `tasks/cancel` asks for
//! its cancellation and `tasks/update` brings the client's answers to its
//! requests: both answer with an empty result. A request of these methods
//! that does not declare the extension gets `-32021`; an unknown task id,
//! `-32602`.
//!
//! A task is its call's owner's ([`ToolContext::owner`](tool_runtime::ToolContext::owner)):
//! the caller an access token showed, whatever session or process it
//! calls from, else the session of an anonymous client; a request of no
//! one (anonymous, without a session) makes tasks of no one. Only the
//! owner gets, updates or cancels it: for anyone else, its id is unknown
//! (`-32602`, the same answer as for an id never given out).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};
use tool_runtime::context::{ClientRequests, Owner};
use tool_runtime::{ToolContext, ToolError, spec::TaskSupport};
use tool_tasks::{Task, TaskError, TaskInput, TaskStatus, TaskStoreError, Tasks};

use super::output::Outbox;
use super::revision::{
    self, Era, META_CAPABILITIES, MISSING_CAPABILITY, RequestMeta, TASKS_EXTENSION,
};
use super::session::{Session, lock};
use super::wire::{self, Call, INTERNAL_ERROR, Id, METHOD_NOT_FOUND, RpcError, kind};
use super::{McpServer, peer};

/// The extension's name, in capabilities.
const EXTENSION: &str = TASKS_EXTENSION;

/// How the server serves one `tools/call`.
enum Mode {
    /// In the request, as any call.
    InRequest,
    /// As a task.
    Task(Tasks),
    /// Not at all: the error to answer with.
    Refused(RpcError),
}

/// How a call that runs as a task starts.
pub(super) struct TaskStart {
    tasks: Tasks,
    /// The client's capabilities, for the tool's requests during the task.
    capabilities: Map<String, Value>,
    /// Whether the call is of the stateless revision.
    stateless: bool,
    /// The answers the call brought, by request key, for the tool's first
    /// requests.
    answers: HashMap<String, Value>,
}

/// Whether client `capabilities` declare the extension.
fn declared_in(capabilities: Option<&Map<String, Value>>) -> bool {
    capabilities
        .and_then(|capabilities| capabilities.get("extensions"))
        .and_then(Value::as_object)
        .is_some_and(|extensions| extensions.contains_key(EXTENSION))
}

/// Whether a request's `meta` declares the extension in its client
/// capabilities.
fn declared_in_meta(meta: Option<&Map<String, Value>>) -> bool {
    declared_in(
        meta.and_then(|meta| meta.get(META_CAPABILITIES))
            .and_then(Value::as_object),
    )
}

/// `-32021`: the request needs the extension, which it did not declare.
fn missing_extension(what: &str) -> RpcError {
    RpcError::new(
        MISSING_CAPABILITY,
        format!(
            "Missing required client capability: {what} needs the extension {EXTENSION} \
             (declare it under `extensions` in {META_CAPABILITIES})"
        ),
    )
    .with_data(json!({"requiredCapabilities": {"extensions": {EXTENSION: {}}}}))
}

impl McpServer {
    /// Serves MCP's tasks extension with `tasks`: calls of the tools that
    /// allow it ([`TaskSupport`]) from clients that declare the extension
    /// run as tasks kept in `tasks`' store, read with `tasks/get`,
    /// cancelled with `tasks/cancel` and given input with `tasks/update`.
    ///
    /// The limits and lifetimes are `tasks`'
    /// [`TaskOptions`](tool_tasks::TaskOptions): how many run at once
    /// (64 by default; a call beyond that is refused, `-32603`), how long a
    /// task is kept (one hour) and how often a client should poll (one
    /// second). The server's clones (one per HTTP session) share them.
    ///
    /// A task is its owner's: the caller an access token showed (see
    /// [`Owner::of_caller`]), whatever session or server process it calls
    /// from, else the session of an anonymous client (under a random key).
    /// Only its owner gets, updates or cancels it; to anyone else its id is
    /// unknown (`-32602`), as one never given out is. The owner is kept
    /// with the task in the store, so a store several processes share
    /// (`RedisTaskStore`) keeps tasks apart across them too.
    ///
    /// Each owner's tasks are its own share of the store: the
    /// [`MemoryTaskStore`](tool_tasks::MemoryTaskStore) and the
    /// `RedisTaskStore` keep 1,000 of one owner's by default (the memory
    /// store 10,000 in all), and an owner past its share drops its own
    /// oldest ended tasks, never another's (`-32603`,
    /// `data.maxTasksPerOwner`, when all of them still run). A request of
    /// no one (anonymous, without a session: the stateless revision, or a
    /// stateless server) makes tasks of no one, which count against the
    /// store's total only, and which any such request reads by id.
    pub fn with_tasks(mut self, tasks: Tasks) -> Self {
        self.tasks = Some(tasks);
        self
    }

    /// The tasks the server keeps, when it speaks the tasks extension.
    pub fn tasks(&self) -> Option<&Tasks> {
        self.tasks.as_ref()
    }

    /// How a call of tool `name` is served, the request declaring the
    /// extension or not (`declared`).
    fn call_mode(&self, name: &str, declared: bool) -> Mode {
        let support = self
            .registry
            .snapshot()
            .resolve(name)
            .map_or(TaskSupport::Forbidden, |tool| tool.spec().task_support);
        match (support, &self.tasks) {
            (TaskSupport::Forbidden, _) => Mode::InRequest,
            (_, Some(tasks)) if declared => Mode::Task(tasks.clone()),
            (TaskSupport::Optional, _) => Mode::InRequest,
            (TaskSupport::Required | TaskSupport::AfterInput, Some(_)) => {
                Mode::Refused(missing_extension("this tool runs only as a task, and"))
            }
            (TaskSupport::Required | TaskSupport::AfterInput, None) => {
                Mode::Refused(RpcError::new(
                    INTERNAL_ERROR,
                    format!(
                        "the tool {} runs only as a task, and this server serves no tasks",
                        tool_runtime::__private::quote::name(name)
                    ),
                ))
            }
        }
    }
}

impl<O: Outbox> Session<O> {
    /// Whether a request of a session's revision with `meta` declares the
    /// extension: in its `_meta`, or in the session's capabilities.
    fn session_declares_tasks(&self, meta: Option<&Map<String, Value>>) -> bool {
        declared_in_meta(meta) || declared_in(lock(&self.client).as_ref())
    }

    /// Whether `call` of `era` runs as a task (and how), or is refused:
    /// whether its request declares the extension is read from the
    /// request's `_meta` (and, in a session, from the session's
    /// capabilities). `None` runs it in the request.
    pub(super) fn task_start(&self, call: &Call, era: &Era) -> Result<Option<TaskStart>, RpcError> {
        let declared = match era {
            Era::Session => self.session_declares_tasks(call.meta.as_ref()),
            Era::Stateless(meta) => declared_in(Some(&meta.capabilities)),
        };
        let tasks = match self.server.call_mode(&call.name, declared) {
            Mode::InRequest => return Ok(None),
            Mode::Refused(error) => return Err(error),
            Mode::Task(tasks) => tasks,
        };
        let stateless = matches!(era, Era::Stateless(_));
        let after_input = self
            .server
            .registry
            .snapshot()
            .resolve(&call.name)
            .is_some_and(|tool| tool.spec().task_support == TaskSupport::AfterInput);
        // A tool that takes its input first, in the stateless revision: a
        // call without answers is a round of the request; the retry that
        // brings them, with the state that says what they answer, becomes
        // the task, with them. Answers without a state answer nothing.
        let answers = if after_input && stateless {
            if call.request_state.as_ref().is_none_or(Value::is_null) {
                return Ok(None);
            }
            let context = self.base_context(&call.id);
            super::mrtr::answers_of(&self.server, call, context.owner())?
        } else {
            HashMap::new()
        };
        Ok(Some(TaskStart {
            tasks,
            capabilities: self.capabilities_of(call, era),
            stateless,
            answers,
        }))
    }

    /// The client's capabilities for `call` of `era`: the request's, or
    /// the session's.
    fn capabilities_of(&self, call: &Call, era: &Era) -> Map<String, Value> {
        match era {
            Era::Stateless(meta) => meta.capabilities.clone(),
            Era::Session => call
                .meta
                .as_ref()
                .and_then(|meta| meta.get(META_CAPABILITIES))
                .and_then(Value::as_object)
                .or(lock(&self.client).as_ref())
                .cloned()
                .unwrap_or_default(),
        }
    }

    /// A request of the extension's `method` in a session's revision.
    pub(super) async fn session_tasks_request(
        &self,
        id: &Id,
        method: &str,
        params: Option<Map<String, Value>>,
    ) {
        let declared = self.session_declares_tasks(revision::meta_of(params.as_ref()));
        self.tasks_request(id, method, params, declared, false)
            .await;
    }

    /// A request of the extension's `method` in the stateless revision.
    pub(super) async fn stateless_tasks_request(
        &self,
        id: &Id,
        method: &str,
        params: Option<Map<String, Value>>,
        meta: &RequestMeta,
    ) {
        let declared = declared_in(Some(&meta.capabilities));
        self.tasks_request(id, method, params, declared, true).await;
    }

    /// Starts `call` as a task in `tasks` and answers with the task as
    /// created (`stateless`: with the stateless revision's `_meta`).
    ///
    /// The task is the call's owner's: its caller's, else the session's.
    /// The tool's requests to the client wait in the task
    /// (`input_required`, its `inputRequests`) for the client's
    /// `tasks/update`, each needing its capability among `capabilities`.
    pub(super) async fn create_task(self: &Arc<Self>, mut call: Call, start: TaskStart) {
        let TaskStart {
            tasks,
            capabilities,
            stateless,
            answers,
            ..
        } = start;
        let server = &self.server;
        let context = self.base_context(&call.id);
        let slot = match TaskSlot::take(self, &context) {
            Ok(slot) => slot,
            Err(error) => return self.answer(error.line(&call.id), &call.id).await,
        };
        let tasks = tasks.for_owner(context.owner());
        let registry = server.registry.snapshot();
        // The client lives as long as the task's call: the places it holds
        // are freed when the call ends (or at once if no task is made).
        let client = |input| {
            let client: Arc<dyn ClientRequests> = Arc::new(peer::Client(TaskClient {
                input,
                capabilities,
                answers: std::sync::Mutex::new(answers),
                _slot: slot,
            }));
            Some(client)
        };
        let started = tasks
            .start_with_client(&registry, call.tool_use(), &context, client)
            .await;
        let line = match started {
            Ok(task) => {
                let mut result = envelope(&task);
                result.insert("resultType".into(), "task".into());
                wire::result_line(&call.id, finish(server, result, stateless))
            }
            Err(error) => not_started(&error, context.caller().is_some()).line(&call.id),
        };
        self.answer(line, &call.id).await;
    }

    /// A request of the extension's `method`: `declared` when the request
    /// (or the session) declares the extension.
    async fn tasks_request(
        &self,
        id: &Id,
        method: &str,
        params: Option<Map<String, Value>>,
        declared: bool,
        stateless: bool,
    ) {
        // Only the owner of a task reads it: the request's caller, else
        // its session.
        let context = self.base_context(id);
        let owner = context.owner();
        let line = match self
            .tasks_answer(method, params, declared, stateless, owner)
            .await
        {
            Ok(result) => wire::result_line(id, result),
            Err(error) => error.line(id),
        };
        self.answer(line, id).await;
    }

    async fn tasks_answer(
        &self,
        method: &str,
        params: Option<Map<String, Value>>,
        declared: bool,
        stateless: bool,
        owner: Option<&Owner>,
    ) -> Result<Value, RpcError> {
        let server = &self.server;
        let Some(tasks) = &server.tasks else {
            return Err(RpcError::new(
                METHOD_NOT_FOUND,
                format!(
                    "method not found: {} (this server serves no tasks)",
                    wire::quoted(method)
                ),
            ));
        };
        if !declared {
            return Err(missing_extension(method));
        }
        let params = params.unwrap_or_default();
        let task_id = match params.get("taskId") {
            Some(Value::String(task_id)) => task_id.as_str(),
            Some(other) => {
                return Err(RpcError::invalid_params(format!(
                    "invalid params for {method}: `taskId` must be a string, not {}",
                    kind(other)
                )));
            }
            None => {
                return Err(RpcError::invalid_params(format!(
                    "invalid params for {method}: `taskId` is missing"
                )));
            }
        };
        let tasks = tasks.clone().for_owner(owner);
        let task = tasks
            .get(task_id)
            .await
            .map_err(|error| {
                RpcError::new(INTERNAL_ERROR, format!("the task store failed: {error}"))
            })?
            .ok_or_else(|| {
                RpcError::invalid_params(format!(
                    "Failed to retrieve task: no task {} (never made, forgotten after its time \
                     to live, or dropped, once ended, to make room for newer tasks)",
                    wire::quoted(&wire::cut(task_id))
                ))
            })?;
        let result = match method {
            "tasks/get" => detailed(server, &task),
            "tasks/cancel" => {
                tasks.cancel(task_id).await.map_err(|error| {
                    RpcError::new(INTERNAL_ERROR, format!("the task store failed: {error}"))
                })?;
                Map::new()
            }
            _ => {
                let responses = match params.get("inputResponses") {
                    None | Some(Value::Null) => Map::new(),
                    Some(Value::Object(responses)) => responses.clone(),
                    Some(other) => {
                        return Err(RpcError::invalid_params(format!(
                            "invalid params for tasks/update: `inputResponses` must be an \
                             object of the client's results by request key, not {}",
                            kind(other)
                        )));
                    }
                };
                tasks.respond(task_id, responses).await.map_err(|error| {
                    RpcError::new(INTERNAL_ERROR, format!("the task store failed: {error}"))
                })?;
                Map::new()
            }
        };
        let mut result = finish(server, result, stateless);
        result["resultType"] = "complete".into();
        Ok(result)
    }
}

/// How a task's call asks its client ([`peer::Ask`]): each request waits
/// in the task, in MCP's shape (`method` and `params`), for the client's
/// answer through `tasks/update`.
struct TaskClient {
    input: TaskInput,
    /// The client's capabilities, as the request that made the task gave
    /// them.
    capabilities: Map<String, Value>,
    /// Answers the call that made the task brought, by request key, taken
    /// by the tool's first requests.
    answers: std::sync::Mutex<HashMap<String, Value>>,
    /// The task's places among its session's and its caller's.
    _slot: TaskSlot,
}

/// The error answering a call whose task was not started for `error`; the
/// owner's share named as a caller's (`by_caller`) or a session's.
fn not_started(error: &TaskError, by_caller: bool) -> RpcError {
    match error {
        TaskError::TooMany { limit } => RpcError::new(
            INTERNAL_ERROR,
            format!(
                "server busy: {limit} tasks run already, the server's limit; send the call \
                 again once one has ended"
            ),
        )
        .with_data(json!({"maxRunningTasks": limit})),
        TaskError::Store(TaskStoreError::OwnerFull { limit }) => {
            let whose = if by_caller { "caller" } else { "session" };
            RpcError::new(
                INTERNAL_ERROR,
                format!(
                    "server busy: the task store keeps {limit} tasks of this {whose}, its \
                     share (maxTasksPerOwner), and all of them run; send the call again once \
                     one has ended"
                ),
            )
            .with_data(json!({"maxTasksPerOwner": limit}))
        }
        error => RpcError::new(INTERNAL_ERROR, format!("the task was not created: {error}")),
    }
}

/// How many tasks each caller's calls run now in this process, by the
/// caller's owner key: shared by the server's clones.
#[derive(Default)]
pub(super) struct CallerTasks(Mutex<HashMap<Owner, usize>>);

/// A task's places among those its session runs, and among those its
/// caller runs when a token showed one; freed when dropped.
struct TaskSlot {
    session: Arc<std::sync::atomic::AtomicUsize>,
    caller: Option<(Arc<CallerTasks>, Owner)>,
}

impl TaskSlot {
    /// Places for a task of `session`'s call with `context`: under the
    /// session's limit, and, for a caller who names itself, under the
    /// caller's (the same number, counted over every session and request
    /// of the caller's in this process); else the error to answer with.
    fn take<O: Outbox>(session: &Session<O>, context: &ToolContext) -> Result<Self, RpcError> {
        use std::sync::atomic::Ordering;
        let limit = session.server.limits.max_session_tasks;
        let count = &session.tasks.running;
        if count.fetch_add(1, Ordering::AcqRel) >= limit {
            count.fetch_sub(1, Ordering::AcqRel);
            return Err(busy(limit, "session", "maxTasksPerSession"));
        }
        let mut slot = TaskSlot {
            session: Arc::clone(count),
            caller: None,
        };
        if let Some(owner) = context.caller().and_then(Owner::of_caller) {
            let callers = &session.server.caller_tasks;
            let mut running = lock(&callers.0);
            let count = running.entry(owner.clone()).or_default();
            if *count >= limit {
                return Err(busy(limit, "caller", "maxTasksPerCaller"));
            }
            *count += 1;
            slot.caller = Some((Arc::clone(callers), owner));
        }
        Ok(slot)
    }
}

/// `-32603` for a call beyond `limit` tasks running of one `whose`, the
/// limit named `name` in its data.
fn busy(limit: usize, whose: &str, name: &str) -> RpcError {
    RpcError::new(
        INTERNAL_ERROR,
        format!(
            "server busy: this {whose} runs {limit} tasks already, its limit ({name}); send \
             the call again once one has ended"
        ),
    )
    .with_data(json!({ name: limit }))
}

impl Drop for TaskSlot {
    fn drop(&mut self) {
        self.session
            .fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
        if let Some((callers, owner)) = &self.caller {
            let mut running = lock(&callers.0);
            if let Some(count) = running.get_mut(owner) {
                *count -= 1;
                if *count == 0 {
                    running.remove(owner);
                }
            }
        }
    }
}

impl peer::Ask for TaskClient {
    /// The client's answer to `request`: one the call that made the task
    /// brought under its key, else the answer to the request waiting in
    /// the task.
    async fn ask(&self, request: peer::Request) -> Result<Value, ToolError> {
        let capability = request.capability;
        if !self.capabilities.contains_key(capability) {
            return Err(peer::unavailable(capability));
        }
        let key = self.input.key(request.name.as_deref(), capability);
        if let Some(answer) = lock(&self.answers).remove(&key) {
            return Ok(answer);
        }
        let asked = json!({"method": request.method, "params": request.params});
        self.input
            .ask(&key, asked)
            .await
            .map_err(|error| peer::failed(capability, error))
    }
}

/// The fields every shape of a task has: `taskId`, `status`,
/// `statusMessage`, `createdAt`, `lastUpdatedAt`, `ttlMs` and
/// `pollIntervalMs`.
fn envelope(task: &Task) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert("taskId".into(), task.id.clone().into());
    fields.insert("status".into(), task.status.as_str().into());
    if let Some(message) = &task.status_message {
        fields.insert("statusMessage".into(), message.clone().into());
    }
    fields.insert("createdAt".into(), iso8601(task.created_at_ms).into());
    fields.insert("lastUpdatedAt".into(), iso8601(task.updated_at_ms).into());
    fields.insert("ttlMs".into(), task.ttl_ms.map_or(Value::Null, Value::from));
    fields.insert("pollIntervalMs".into(), task.poll_interval_ms.into());
    fields
}

/// The `tasks/get` shape of `task`: its envelope and what its status
/// carries.
fn detailed(server: &McpServer, task: &Task) -> Map<String, Value> {
    let mut fields = envelope(task);
    match task.status {
        TaskStatus::Completed => {
            let registry = server.registry.snapshot();
            let spec = registry.resolve(&task.record.tool).map(|tool| tool.spec());
            let result = match task.result() {
                Some(result) => tool_runtime::providers::mcp::call_tool_result(result, spec),
                None => json!({"content": [], "isError": false}),
            };
            fields.insert("result".into(), result);
        }
        TaskStatus::Failed => {
            let message = task
                .status_message
                .clone()
                .or_else(|| task.result().map(tool_runtime::ToolResult::text_content))
                .unwrap_or_else(|| "the task failed".to_owned());
            fields.insert(
                "error".into(),
                json!({"code": INTERNAL_ERROR, "message": message}),
            );
        }
        TaskStatus::InputRequired => {
            let requests = task.input_requests.clone().into_iter().collect();
            fields.insert("inputRequests".into(), Value::Object(requests));
        }
        TaskStatus::Working | TaskStatus::Cancelled => {}
    }
    fields
}

/// `result` as a result of its era: with the server's `_meta` in the
/// stateless revision.
fn finish(server: &McpServer, mut result: Map<String, Value>, stateless: bool) -> Value {
    if stateless {
        result.insert(
            "_meta".into(),
            Value::Object(revision::result_meta(server, None)),
        );
    }
    Value::Object(result)
}

/// Milliseconds since the Unix epoch as an ISO 8601 time in UTC, to the
/// millisecond: `2026-07-28T10:30:00.000Z`.
pub(super) fn iso8601(ms: u64) -> String {
    let seconds = ms / 1000;
    let days = i64::try_from(seconds / 86_400).unwrap_or(i64::MAX / 2);
    let of_day = seconds % 86_400;
    let (year, month, day) = civil(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60,
        ms % 1000
    )
}

/// The proleptic Gregorian date `days` days after 1970-01-01: counted in
/// eras of 400 years (146,097 days), years starting on 1 March so that
/// the leap day ends one.
fn civil(days: i64) -> (i64, u32, u32) {
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = u32::try_from(day_of_year - (153 * month_index + 2) / 5 + 1).unwrap_or(1);
    let month = u32::try_from(if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    })
    .unwrap_or(1);
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::iso8601;

    #[test]
    fn times_are_iso_8601() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso8601(1_785_234_600_123), "2026-07-28T10:30:00.123Z");
    }
}
