//! `completion/complete`: the values of a prompt's argument or a URI
//! template's variable.

use serde_json::{Map, Value, json};
use tool_runtime::ToolContext;

use super::{prompts, resources, string_param};
use crate::completion::{CompleteRequest, Completion};
use crate::resources::ResourceUri;
use crate::server::McpServer;
use crate::server::wire::{INTERNAL_ERROR, RpcError};

/// `completion/complete`: `{completion: {values, total?, hasMore?}}`.
pub(super) async fn complete(
    server: &McpServer,
    params: Option<&Map<String, Value>>,
    context: ToolContext,
) -> Result<Value, RpcError> {
    const METHOD: &str = "completion/complete";
    let object = |key: &str| {
        params
            .and_then(|params| params.get(key))
            .and_then(Value::as_object)
            .ok_or_else(|| {
                RpcError::invalid_params(format!(
                    "invalid params for {METHOD}: `{key}` must be an object"
                ))
            })
    };
    let reference = object("ref")?;
    let argument = object("argument")?;
    let name = string_param(METHOD, Some(argument), "name")?;
    let value = string_param(METHOD, Some(argument), "value")?;
    let given = params
        .and_then(|params| params.get("context"))
        .and_then(Value::as_object);
    let mut request = CompleteRequest::new(name, value, context);
    request.context = prompts::arguments(METHOD, given, "arguments")?
        .iter()
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect();
    let completion = match string_param(METHOD, Some(reference), "type")? {
        "ref/prompt" => {
            let name = string_param(METHOD, Some(reference), "name")?;
            let prompt = server
                .prompts
                .as_ref()
                .and_then(|prompts| prompts.get(name))
                .ok_or_else(|| prompts::unknown(name))?;
            prompt
                .complete(request)
                .await
                .map_err(prompts::completion_error)?
        }
        "ref/resource" => {
            let uri = string_param(METHOD, Some(reference), "uri")?;
            let resource = server
                .resources
                .as_ref()
                .and_then(|resources| resources.get(uri))
                .ok_or_else(|| resources::not_found(uri))?;
            match resource.spec().uri {
                ResourceUri::Fixed(_) => Completion::none(),
                ResourceUri::Template(_) => resource
                    .complete(request)
                    .await
                    .map_err(|error| RpcError::new(INTERNAL_ERROR, error.to_string()))?,
            }
        }
        other => {
            return Err(RpcError::invalid_params(format!(
                "invalid params for {METHOD}: `ref.type` is \"ref/prompt\" or \"ref/resource\", \
                 not {}",
                super::quoted(other)
            )));
        }
    };
    Ok(json!({"completion": completion.to_json()}))
}
