//! What a server asks the client while one of its tools runs: elicitation
//! (`elicitation/create`). The
//! questions go to the caller, through the call's context
//! ([`ToolContext::client`](tool_runtime::ToolContext::client)): the user of
//! a program, or, for a proxy, the client that called it.
//!
//! A server asks in one of two ways. In the `initialize` era it sends a
//! request on the response stream of the call (the handler in `shared.rs`
//! finds the call by the stream the request came on); in revision
//! 2026-07-28 it answers the call with an `input_required` result, and the
//! client calls again with the answers (`connection.rs`). Both come here
//! as a method and its parameters, and leave as the result's JSON.

use std::sync::Arc;

use serde_json::{Value, json};
use tool_runtime::context::{ClientRequests, Elicitation, ElicitationRequest};

use super::error::untrusted;

/// How many times one call may come back `input_required` before the
/// client gives up on it (a server that asks forever).
pub(crate) const MAX_INPUT_ROUNDS: usize = 16;

/// The answer of `client` (the caller's, if any) to the server's request
/// `method` with `params`, as the result's JSON; or why there is none, to
/// show the caller.
pub(crate) async fn answer(
    client: Option<&Arc<dyn ClientRequests>>,
    method: &str,
    params: Value,
) -> Result<Value, String> {
    let unavailable = || {
        format!(
            "the server asked `{}`, which this call cannot answer: the caller \
             offers no client to ask",
            untrusted(method, 64)
        )
    };
    match method {
        "elicitation/create" => {
            let client = client.ok_or_else(unavailable)?;
            let request = elicitation(params)?;
            let answer = client
                .elicit(request)
                .await
                .map_err(|error| format!("the caller could not answer: {error}"))?;
            Ok(match answer {
                Elicitation::Accepted(content) => json!({"action": "accept", "content": content}),
                other => json!({"action": other.action()}),
            })
        }
        other => Err(format!(
            "the server asked `{}`, which this client does not forward \
             (it forwards elicitation)",
            untrusted(other, 64)
        )),
    }
}

/// The elicitation a form `elicitation/create` asks for; a URL
/// elicitation (the user sent to a page) is refused.
fn elicitation(params: Value) -> Result<ElicitationRequest, String> {
    let Value::Object(mut params) = params else {
        return Err("the server's elicitation request has no parameters".to_owned());
    };
    if params.get("mode").and_then(Value::as_str).unwrap_or("form") != "form" {
        return Err("the server asked for a URL elicitation, which is not forwarded".to_owned());
    }
    let message = match params.remove("message") {
        Some(Value::String(message)) => message,
        _ => return Err("the server's elicitation request has no message".to_owned()),
    };
    let schema = params
        .remove("requestedSchema")
        .filter(Value::is_object)
        .ok_or("the server's elicitation request has no schema")?;
    Ok(ElicitationRequest::new(message, schema))
}
