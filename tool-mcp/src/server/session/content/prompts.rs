//! `prompts/list` and `prompts/get`.

use serde_json::{Map, Value, json};
use tool_runtime::ToolContext;

use super::string_param;
use crate::prompts::{PromptArguments, PromptError};
use crate::server::McpServer;
use crate::server::wire::{self, INTERNAL_ERROR, RpcError};

/// `prompts/list`: every prompt, in name order.
pub(super) fn list(server: &McpServer) -> Value {
    let prompts: Vec<Value> = server
        .prompts
        .iter()
        .flat_map(|prompts| prompts.list())
        .map(|prompt| prompt.spec().to_json())
        .collect();
    json!({"prompts": prompts})
}

/// `-32602` for an unknown prompt `name`.
pub(super) fn unknown(name: &str) -> RpcError {
    RpcError::invalid_params(format!("Prompt not found: {}", wire::quoted(name)))
        .with_data(json!({"name": wire::cut(name)}))
}

/// The JSON-RPC error for `error`.
fn prompt_error(error: PromptError) -> RpcError {
    let message = error.to_string();
    match error {
        PromptError::MissingArgument(name) => {
            RpcError::invalid_params(message).with_data(json!({"argument": wire::cut(&name)}))
        }
        PromptError::InvalidArgument { name, reason } => RpcError::invalid_params(message)
            .with_data(json!({"argument": wire::cut(&name), "reason": reason})),
        _ => RpcError::new(INTERNAL_ERROR, message),
    }
}

/// The `arguments` of `method` (an object of strings), read.
pub(super) fn arguments(
    method: &str,
    params: Option<&Map<String, Value>>,
    key: &str,
) -> Result<PromptArguments, RpcError> {
    let Some(given) = params.and_then(|params| params.get(key)) else {
        return Ok(PromptArguments::new());
    };
    let given = match given {
        Value::Null => return Ok(PromptArguments::new()),
        Value::Object(given) => given,
        _ => {
            return Err(RpcError::invalid_params(format!(
                "invalid params for {method}: `{key}` must be an object of strings"
            )));
        }
    };
    given
        .iter()
        .map(|(name, value)| match value {
            Value::String(value) => Ok((name.clone(), value.clone())),
            _ => Err(RpcError::invalid_params(format!(
                "invalid params for {method}: argument {} must be a string",
                wire::quoted(name)
            ))
            .with_data(json!({"argument": wire::cut(name)}))),
        })
        .collect()
}

/// `prompts/get`: the prompt's messages for the arguments given.
pub(super) async fn get(
    server: &McpServer,
    params: Option<&Map<String, Value>>,
    context: ToolContext,
) -> Result<Value, RpcError> {
    let name = string_param("prompts/get", params, "name")?;
    let arguments = arguments("prompts/get", params, "arguments")?;
    let prompt = server
        .prompts
        .as_ref()
        .and_then(|prompts| prompts.get(name))
        .ok_or_else(|| unknown(name))?;
    let missing = prompt
        .spec()
        .arguments
        .iter()
        .find(|argument| argument.required && arguments.get(&argument.name).is_none());
    if let Some(argument) = missing {
        return Err(prompt_error(PromptError::MissingArgument(
            argument.name.clone().into_owned(),
        )));
    }
    let got = prompt.get(arguments, context).await.map_err(prompt_error)?;
    Ok(got.to_json())
}

/// The JSON-RPC error for `error`, completing.
pub(super) fn completion_error(error: PromptError) -> RpcError {
    prompt_error(error)
}
