//! Tools that ask mid-call, in the stateless revision 2026-07-28, which
//! has no requests from server to client: multi round-trip requests.
//!
//! A call runs in a round. When its tool asks the client something
//! (`ctx.sample`, `ctx.elicit`, `ctx.roots`) that the round has no answer
//! for, the request is noted and the tool stops there; the call is then
//! answered with an `input_required` result listing every request noted
//! (those a tool makes at once, with `join!`, come together), keyed by the
//! request's name or a number, and an encrypted `requestState`
//! ([`state`]). The client retries the call with its
//! answers (`inputResponses`) and the state, and the tool runs again from
//! the start: its requests made before are answered at once from the
//! state, and the next unanswered one ends the round. So the code before a
//! request runs once per round, and the same tool serves both eras.
//! A `prompts/get` and a `resources/read` run in rounds too
//! ([`in_round`]): their state is bound to the method and the prompt's
//! name (with its arguments) or the URI, so no state moves between a
//! prompt, a resource and a tool.
//!
//! A state is its call's owner's (the caller an access token showed): a
//! retry by anyone else is refused as a state the server never issued.
//! An answer counts only as the answer to a request the state says the
//! last round made: answers to other keys are ignored, and answers that
//! come without a state (there is no request they could answer) are not
//! read: the call runs as a first one and the tool asks again, so a
//! client cannot answer what it was not asked. A server may take them
//! ([`McpServer::with_unsolicited_answers`]): then an answer sent without
//! a state, under the key a request of the tool's gets, is that request's
//! answer when it has the shape of its result (for an elicitation, the
//! accepted input fits the schema asked for); a request it does not fit,
//! or that has none, is asked as usual. A state given is read as above,
//! whatever the setting.
//! An answer is matched to the request it was given for by key and by a
//! digest of the request: a tool that asks something else on a later run
//! is asked again. A request needing a capability the request's `_meta`
//! does not declare fails in the tool with `ClientUnavailable`; a call
//! that ends with that error is answered `-32021` (missing required client
//! capability), naming the capabilities.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};
use tool_runtime::{
    ToolContext, ToolError,
    context::{CancellationToken, Owner},
    spec::ToolErrorKind,
};

use super::output::Outbox;
use super::peer;
use super::revision::{self, RequestMeta};
use super::session::{CallNotify, Session, lock};
use super::state::{self, Answer, State};
use super::wire::{self, Call, Id, RpcError, kind, quoted};
use super::{CallError, Called, McpServer};

impl McpServer {
    /// Whether the server takes the client's answers (`inputResponses`)
    /// that come without a `requestState` (revision 2026-07-28); off by
    /// default.
    ///
    /// Off, an answer counts only through the state of the
    /// `input_required` result that asked its question: a client answers
    /// only what it was asked. On, a call may also carry its answers from
    /// the start, as a server without state keys them: an answer under the
    /// key a request of the tool's gets (the request's name, else its
    /// kind and number) answers that request when it has the shape of its
    /// result (an elicitation's `accept` with input that fits the schema
    /// asked for, `decline` or `cancel`; a sampling result; a list of
    /// roots); answers to no request are ignored, and a request without a
    /// fitting answer is asked with `input_required` as usual. A
    /// `requestState` given is checked as always (its owner, its call, its
    /// lifetime), and its answers are read as with the setting off.
    ///
    /// The trade-off: a client may then answer a tool's question before
    /// it is asked. That is fine when the client is the only one who would
    /// answer anyway, but it skips the round in which a person sees the
    /// question: leave it off where a tool relies on elicitation as a
    /// person's confirmation.
    pub fn with_unsolicited_answers(mut self, take: bool) -> Self {
        self.unsolicited_answers = take;
        self
    }
}

/// One run of a call of the stateless revision.
struct Round {
    /// The client's capabilities, from the request's `_meta`.
    capabilities: Map<String, Value>,
    /// The answers the client gave, by request key.
    answers: HashMap<String, Answer>,
    /// The answers the client gave without a state, by request key, when
    /// the server takes them: each is used only for the request of its key
    /// that it fits.
    unsolicited: Map<String, Value>,
    /// The tool called, and the digest of its arguments.
    tool: String,
    arguments: String,
    /// Whose the call is: its state is sealed for it.
    owner: Option<Owner>,
    /// The answers the run used, by key, each bound to its request.
    used: Mutex<BTreeMap<String, Answer>>,
    /// The requests the run made that have no answer yet.
    asked: Mutex<Vec<Asked>>,
    /// The keys given out in this run, and how many requests it made.
    keys: Mutex<HashSet<String>>,
    count: AtomicUsize,
    /// The capabilities the run needed and the request did not declare.
    missing: Mutex<BTreeSet<&'static str>>,
    /// Stops the run once it waits for an answer it does not have.
    stop: CancellationToken,
}

/// A request of the tool's, for the `input_required` result.
struct Asked {
    key: String,
    method: &'static str,
    params: Value,
    digest: String,
}

impl<O: Outbox> Session<O> {
    /// Runs a call of the stateless revision: one round, answered with its
    /// result, an `input_required` result, or an error.
    pub(super) async fn run_stateless_call(
        &self,
        mut call: Call,
        meta: RequestMeta,
        cancelled: &CancellationToken,
    ) {
        let server = &self.server;
        let stop = cancelled.child_token();
        let base = self.base_context(&call.id);
        let owner = base.owner().cloned();
        let round = match Round::start(server, &call, meta.capabilities, stop.clone(), owner) {
            Ok(round) => Arc::new(round),
            Err(error) => return self.answer(error.line(&call.id), &call.id).await,
        };
        let progress_token = call.progress_token();
        let tool_use = call.tool_use();
        let context = base.with_client(Arc::new(peer::Client(RoundClient(Arc::clone(&round)))));
        let notify = CallNotify {
            session: self,
            request: &call.id,
            log_level: meta.log_level,
        };
        let outcome = server
            .run_call(tool_use, progress_token.as_ref(), &context, &stop, &notify)
            .await;
        if !cancelled.is_cancelled() {
            let line = round.answer(server, &call.id, &outcome);
            self.answer(line, &call.id).await;
        }
    }
}

/// Runs `work` in `context` as one round of request `call` (a
/// `prompts/get` or a `resources/read` of the stateless revision, named
/// for its method and subject) with the client's `capabilities`: its
/// requests to the client are answered from the round, or end it with an
/// `input_required` result; a failure for want of a capability the
/// request did not declare is `-32021`.
pub(super) async fn in_round<F>(
    server: &McpServer,
    call: &Call,
    capabilities: Map<String, Value>,
    context: ToolContext,
    work: F,
) -> Result<Value, RpcError>
where
    F: AsyncFnOnce(ToolContext) -> Result<Value, RpcError>,
{
    let stop = CancellationToken::new();
    let owner = context.owner().cloned();
    let round = Arc::new(Round::start(
        server,
        call,
        capabilities,
        stop.clone(),
        owner,
    )?);
    let context = context.with_client(Arc::new(peer::Client(RoundClient(Arc::clone(&round)))));
    let outcome = tokio::select! {
        outcome = work(context) => Some(outcome),
        () = stop.cancelled() => None,
    };
    let asked = std::mem::take(&mut *lock(&round.asked));
    if !asked.is_empty() {
        return round.input_required(server, asked);
    }
    let missing = lock(&round.missing);
    match outcome {
        Some(Err(_)) if !missing.is_empty() => {
            Err(revision::missing_capabilities(missing.iter().copied()))
        }
        Some(outcome) => outcome,
        None => Err(RpcError::new(
            wire::INTERNAL_ERROR,
            "the request stopped without asking the client anything",
        )),
    }
}

/// The answers the retry `call` of `owner` carries (its `inputResponses`
/// to the requests its `requestState` holds, checked as a round's are), by
/// request key: for a tool that becomes a task once it has its input
/// ([`TaskSupport::AfterInput`](tool_runtime::spec::TaskSupport::AfterInput)),
/// whose task starts with them.
pub(super) fn answers_of(
    server: &McpServer,
    call: &Call,
    owner: Option<&Owner>,
) -> Result<HashMap<String, Value>, RpcError> {
    let owner = owner.cloned();
    let round = Round::start(server, call, Map::new(), CancellationToken::new(), owner)?;
    Ok(round
        .answers
        .into_iter()
        .map(|(key, answer)| (key, answer.value))
        .collect())
}

impl Round {
    /// The round of `call` of `owner`: the answers its `requestState`
    /// holds and those of its `inputResponses` to the requests the state
    /// says were made, or the error to answer with when they cannot be
    /// read or the state is refused. Answers that come without a state are
    /// kept aside when the server takes them, else not read.
    fn start(
        server: &McpServer,
        call: &Call,
        capabilities: Map<String, Value>,
        stop: CancellationToken,
        owner: Option<Owner>,
    ) -> Result<Self, RpcError> {
        let arguments = arguments_digest(call.arguments.as_ref());
        let responses = responses(call.input_responses.as_ref())?;
        let state = request_state(server, call, &arguments, owner.as_ref())?;
        // Answers bind through the state that says what was asked: without
        // one they answer nothing, and the tool asks again, unless the
        // server takes answers given unasked.
        let (answers, unsolicited) = match state {
            Some(state) => (state_answers(state, responses), Map::new()),
            None if server.unsolicited_answers => {
                (HashMap::new(), responses.cloned().unwrap_or_default())
            }
            None => (HashMap::new(), Map::new()),
        };
        Ok(Round {
            capabilities,
            answers,
            unsolicited,
            tool: call.name.clone(),
            arguments,
            owner,
            used: Mutex::new(BTreeMap::new()),
            asked: Mutex::new(Vec::new()),
            keys: Mutex::new(HashSet::new()),
            count: AtomicUsize::new(0),
            missing: Mutex::new(BTreeSet::new()),
            stop,
        })
    }

    /// The answer to the round's call `id`: `input_required` when the tool
    /// waits for answers, `-32021` when it failed for want of a capability
    /// the request did not declare, else its outcome, marked complete.
    fn answer(&self, server: &McpServer, id: &Id, outcome: &Result<Called, CallError>) -> Vec<u8> {
        let asked = std::mem::take(&mut *lock(&self.asked));
        if !asked.is_empty() {
            return match self.input_required(server, asked) {
                Ok(result) => wire::result_line(id, result),
                Err(error) => error.line(id),
            };
        }
        let missing = lock(&self.missing);
        match outcome {
            Ok(called)
                if !missing.is_empty()
                    && called.result.error_kind == Some(ToolErrorKind::ClientUnavailable) =>
            {
                revision::missing_capabilities(missing.iter().copied()).line(id)
            }
            Ok(called) => {
                let mut result = called.to_json();
                revision::complete(server, &mut result);
                wire::result_line(id, result)
            }
            Err(error) => wire::error_line(id, error.code(), error.message(), error.data()),
        }
    }

    /// The `input_required` result for the requests `asked`, with the
    /// state of the next round; the error to answer with when the state
    /// cannot be sealed (the operating system gave no random nonce).
    fn input_required(&self, server: &McpServer, asked: Vec<Asked>) -> Result<Value, RpcError> {
        let mut requests = Map::new();
        let mut digests = BTreeMap::new();
        for request in asked {
            requests.insert(
                request.key.clone(),
                json!({"method": request.method, "params": request.params}),
            );
            digests.insert(request.key, request.digest);
        }
        let state = State {
            tool: self.tool.clone(),
            arguments: self.arguments.clone(),
            expires: state::expiry(server.limits.state_ttl),
            answers: std::mem::take(&mut *lock(&self.used)),
            asked: digests,
        };
        Ok(json!({
            "resultType": "input_required",
            "inputRequests": requests,
            "requestState": server.state_key().seal(&state, self.owner.as_ref())?,
            "_meta": revision::result_meta(server, None),
        }))
    }

    /// The key of the run's next request: its name when it has one not
    /// given out yet, else its kind and number.
    fn key(&self, name: Option<String>, kind: &str) -> String {
        let number = self.count.fetch_add(1, Ordering::Relaxed) + 1;
        let mut keys = lock(&self.keys);
        let key = match name {
            Some(name) if !keys.contains(&name) => name,
            Some(name) => format!("{name}-{number}"),
            None => format!("{kind}-{number}"),
        };
        keys.insert(key.clone());
        key
    }

    /// The client's answer to request `method` with `params`, needing the
    /// capability `capability`: from the round's answers, or an answer
    /// given without a state that fits it; else the request is noted, the
    /// round stops, and this never returns.
    async fn ask(
        &self,
        capability: &'static str,
        method: &'static str,
        name: Option<String>,
        params: Value,
    ) -> Result<Value, ToolError> {
        if !self.capabilities.contains_key(capability) {
            lock(&self.missing).insert(capability);
            return Err(peer::unavailable(capability));
        }
        let digest = request_digest(method, &params);
        let key = self.key(name, capability);
        if let Some(answer) = self.answers.get(&key)
            && answer.request == digest
        {
            let value = answer.value.clone();
            lock(&self.used).insert(key, answer.clone());
            return Ok(value);
        }
        if let Some(value) = self.unsolicited.get(&key)
            && fits(method, &params, value)
        {
            let answer = Answer {
                request: digest,
                value: value.clone(),
            };
            lock(&self.used).insert(key, answer);
            return Ok(value.clone());
        }
        lock(&self.asked).push(Asked {
            key,
            method,
            params,
            digest,
        });
        self.stop.cancel();
        std::future::pending().await
    }
}

/// The state `call` presents, opened for `owner` and checked against the
/// call (its tool and the digest of its `arguments`); none when it brings
/// none.
fn request_state(
    server: &McpServer,
    call: &Call,
    arguments: &str,
    owner: Option<&Owner>,
) -> Result<Option<State>, RpcError> {
    match &call.request_state {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => {
            let state = server.state_key().open(text, owner)?;
            state.check(&call.name, arguments)?;
            Ok(Some(state))
        }
        Some(other) => Err(RpcError::invalid_params(format!(
            "invalid params for tools/call: requestState must be the string the server gave, \
             not {}",
            kind(other)
        ))),
    }
}

/// The answers of a round: those the verified `state` holds, and the
/// client's `responses` to the requests the state says the last round
/// made, each bound to its request; answers to any other key are ignored.
fn state_answers(state: State, responses: Option<&Map<String, Value>>) -> HashMap<String, Answer> {
    let mut answers: HashMap<String, Answer> = state.answers.into_iter().collect();
    for (key, request) in state.asked {
        if let Some(value) = responses.and_then(|responses| responses.get(&key)) {
            let answer = Answer {
                request,
                value: value.clone(),
            };
            answers.insert(key, answer);
        }
    }
    answers
}

/// Whether `answer` has the shape of the result of request `method` with
/// `params`: an answer given without a state is used only then.
fn fits(method: &str, params: &Value, answer: &Value) -> bool {
    match method {
        "elicitation/create" => match answer.get("action").and_then(Value::as_str) {
            Some("accept") => answer
                .get("content")
                .and_then(Value::as_object)
                .is_some_and(|content| fits_schema(&params["requestedSchema"], content)),
            Some("decline" | "cancel") => true,
            _ => false,
        },
        "sampling/createMessage" => {
            answer.get("model").is_some_and(Value::is_string)
                && matches!(
                    answer.get("role").and_then(Value::as_str),
                    Some("user" | "assistant")
                )
                && answer
                    .get("content")
                    .is_some_and(|content| content.is_object() || content.is_array())
        }
        "roots/list" => answer.get("roots").is_some_and(Value::is_array),
        _ => false,
    }
}

/// Whether an elicitation's accepted `content` fits the form `schema`
/// asked for: each property it requires is there, and each it declares
/// holds a value of the declared type (one of its `enum` values, if any).
fn fits_schema(schema: &Value, content: &Map<String, Value>) -> bool {
    let required = schema["required"].as_array().into_iter().flatten();
    let declared = schema["properties"].as_object();
    required
        .filter_map(Value::as_str)
        .all(|name| content.contains_key(name))
        && content.iter().all(|(name, value)| {
            declared
                .and_then(|properties| properties.get(name))
                .is_none_or(|property| fits_property(property, value))
        })
}

/// Whether `value` fits one property of a form: its `type` and `enum`
/// (the items' for a list of choices).
fn fits_property(property: &Value, value: &Value) -> bool {
    let typed = match property["type"].as_str() {
        Some("string") => value.is_string(),
        Some("number") => value.is_number(),
        Some("integer") => value.as_f64().is_some_and(|number| number.fract() == 0.0),
        Some("boolean") => value.is_boolean(),
        Some("array") => value.as_array().is_some_and(|items| {
            items
                .iter()
                .all(|item| fits_property(&property["items"], item))
        }),
        _ => true,
    };
    let listed = match property["enum"].as_array() {
        Some(choices) => choices.contains(value),
        None => true,
    };
    typed && listed
}

/// The `inputResponses` of a retry: an object whose values are objects
/// (the client's results), or the error to answer with.
fn responses(responses: Option<&Value>) -> Result<Option<&Map<String, Value>>, RpcError> {
    let responses = match responses {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(responses)) => responses,
        Some(other) => {
            return Err(RpcError::invalid_params(format!(
                "invalid params for tools/call: inputResponses must be an object of the \
                 client's results by request key, not {}",
                kind(other)
            )));
        }
    };
    if let Some((key, value)) = responses.iter().find(|(_, value)| !value.is_object()) {
        return Err(RpcError::invalid_params(format!(
            "invalid params for tools/call: inputResponses[{}] must be an object (the client's \
             result for that request), not {}",
            quoted(key),
            kind(value)
        )));
    }
    Ok(Some(responses))
}

/// The digest of a call's arguments (none is an empty object).
fn arguments_digest(arguments: Option<&Map<String, Value>>) -> String {
    let text = match arguments {
        Some(arguments) => serde_json::to_vec(arguments).unwrap_or_default(),
        None => b"{}".to_vec(),
    };
    state::digest(&[&text])
}

/// The digest of a request: its method and parameters.
fn request_digest(method: &str, params: &Value) -> String {
    let text = serde_json::to_vec(params).unwrap_or_default();
    state::digest(&[method.as_bytes(), &text])
}

/// How a round asks its client ([`peer::Ask`]): its tool's requests are
/// answered from the round, or noted for the `input_required` result.
struct RoundClient(Arc<Round>);

impl peer::Ask for RoundClient {
    async fn ask(&self, request: peer::Request) -> Result<Value, ToolError> {
        let peer::Request {
            capability,
            method,
            name,
            params,
        } = request;
        self.0.ask(capability, method, name, params).await
    }
}
