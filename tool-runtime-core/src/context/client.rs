//! Asking the client that made the call: a completion from its model
//! (sampling) or typed input from its user (elicitation).
//!
//! A tool asks through its context ([`ToolContext::sample`],
//! [`ToolContext::elicit_with_schema`], and `tool_runtime::context::Elicit`'s
//! `elicit` for a Rust type); whoever serves the call answers through a
//! [`ClientRequests`] it put in the context. The MCP server of `tool-mcp`
//! does, sending `sampling/createMessage` and `elicitation/create` to a
//! client that declared those capabilities. Anywhere else, and with a
//! client that cannot answer, the tool gets a
//! [`ClientUnavailable`](crate::spec::ToolErrorKind::ClientUnavailable) error it
//! can pass on with `?`, which the model reads as the call's error result.
//!
//! ```
//! use tool_runtime::{context::Elicit, context::Elicitation, ToolContext, ToolError, tool};
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Confirm {
//!     /// Type the branch name to confirm
//!     branch: String,
//! }
//!
//! /// Summarise a text with the client's model.
//! #[tool]
//! async fn summarise(ctx: &ToolContext, text: String) -> Result<String, ToolError> {
//!     let prompt = format!("Summarise in one sentence:\n{text}");
//!     let answer = ctx.sample(prompt).await?;
//!     Ok(answer.text().unwrap_or_default().to_owned())
//! }
//!
//! /// Delete a branch once the user confirms it.
//! #[tool]
//! async fn delete_branch(ctx: &ToolContext, branch: String) -> Result<String, ToolError> {
//!     match ctx.elicit::<Confirm>(format!("Delete {branch}?")).await? {
//!         Elicitation::Accepted(Confirm { branch: typed }) if typed == branch => {
//!             Ok(format!("deleted {branch}"))
//!         }
//!         Elicitation::Accepted(_) => Err(ToolError::new("the names differ; nothing deleted")),
//!         Elicitation::Declined | Elicitation::Cancelled => Ok("kept".to_owned()),
//!     }
//! }
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! # use tool_runtime::{Registry, spec::ToolErrorKind, ToolUse};
//! let registry = Registry::builder().tool(SummariseTool).build().unwrap();
//! // Called outside MCP: there is no client to ask.
//! let call = ToolUse::new("1", "summarise", serde_json::json!({"text": "..."}));
//! let result = registry.invoke(call, &ToolContext::new()).await;
//! assert_eq!(result.error_kind, Some(ToolErrorKind::ClientUnavailable));
//! # }
//! ```

use std::future::Future;
use std::pin::Pin;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::spec::content::Content;
use crate::spec::error::{ToolError, ToolErrorKind};

/// The future a [`ClientRequests`] method returns.
pub type ClientFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, ToolError>> + Send + 'a>>;

/// What answers a tool's requests to the client that made the call; the MCP
/// server puts one in each call's context ([`ToolContext::with_client`]).
///
/// An implementation returns a
/// [`ClientUnavailable`](ToolErrorKind::ClientUnavailable) error for a
/// request the client cannot answer (it lacks the capability), and a
/// [`Failed`](ToolErrorKind::Failed) error when the client answered with an
/// error.
///
/// [`ToolContext::with_client`]: crate::ToolContext::with_client
pub trait ClientRequests: Send + Sync + 'static {
    /// Asks the client's model for a completion.
    fn sample(&self, request: SamplingRequest) -> ClientFuture<'_, SamplingResponse>;

    /// Asks the client's user for input matching `request.requested_schema`.
    fn elicit(&self, request: ElicitationRequest) -> ClientFuture<'_, Elicitation<Value>>;

    /// Asks the client for its roots: the directories and files it lets
    /// the server work in (`roots/list` over MCP). Without an
    /// implementation, a [`ClientUnavailable`](ToolErrorKind::ClientUnavailable)
    /// error.
    fn roots(&self) -> ClientFuture<'_, Vec<Root>> {
        Box::pin(async { Err(no_client("roots")) })
    }
}

/// A root the client offers: a directory or file the server may work in.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Root {
    /// Its URI (`file://...`).
    pub uri: String,
    /// A name to show for it, when the client gives one.
    pub name: Option<String>,
}

impl Root {
    /// The root at `uri`, unnamed.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: None,
        }
    }

    /// The same root with a name to show.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}

/// Who wrote a message of a sampling conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The model.
    Assistant,
}

/// One message of a [`SamplingRequest`].
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingMessage {
    /// Who wrote it.
    pub role: Role,
    /// What it says: text, or an image or audio clip.
    pub content: Content,
}

/// A request for a completion from the client's model
/// (`sampling/createMessage`): `SamplingRequest::new("prompt").max_tokens(100)`.
///
/// A string converts into a request with that one user message.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SamplingRequest {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// A system prompt, if the tool wants one.
    pub system_prompt: Option<String>,
    /// The most tokens the completion may have.
    pub max_tokens: u32,
    /// The sampling temperature, if the tool wants one.
    pub temperature: Option<f64>,
    /// Sequences that end the completion.
    pub stop_sequences: Vec<String>,
    /// Names of models the tool would prefer, best first (`modelPreferences.hints`).
    pub model_hints: Vec<String>,
    /// A name for the request, unique within the call: where a server asks
    /// by returning the request in a result (MCP's 2026-07-28 revision,
    /// `inputRequests`), the key it goes by. Without one the server numbers
    /// the call's requests.
    pub name: Option<String>,
}

impl SamplingRequest {
    /// The most tokens a completion may have unless the tool says otherwise.
    pub const DEFAULT_MAX_TOKENS: u32 = 1000;

    /// A request with one user message, `prompt`.
    pub fn new(prompt: impl Into<String>) -> Self {
        Self {
            messages: vec![SamplingMessage {
                role: Role::User,
                content: Content::Text(prompt.into()),
            }],
            system_prompt: None,
            max_tokens: Self::DEFAULT_MAX_TOKENS,
            temperature: None,
            stop_sequences: Vec::new(),
            model_hints: Vec::new(),
            name: None,
        }
    }

    /// The same request with a name, unique within the call (see
    /// [`name`](Self::name)).
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The same request with a message added at the end.
    pub fn message(mut self, role: Role, content: impl Into<Content>) -> Self {
        self.messages.push(SamplingMessage {
            role,
            content: content.into(),
        });
        self
    }

    /// The same request with a system prompt.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// The same request with a limit on the completion's tokens.
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    /// The same request with a sampling temperature.
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// The same request with a model the tool would prefer.
    pub fn model_hint(mut self, name: impl Into<String>) -> Self {
        self.model_hints.push(name.into());
        self
    }
}

impl From<String> for SamplingRequest {
    fn from(prompt: String) -> Self {
        Self::new(prompt)
    }
}

impl From<&str> for SamplingRequest {
    fn from(prompt: &str) -> Self {
        Self::new(prompt)
    }
}

/// The client's completion.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SamplingResponse {
    /// Who wrote it (normally the model).
    pub role: Role,
    /// What it says.
    pub content: Content,
    /// The model that wrote it, as the client names it.
    pub model: String,
    /// Why it stopped (`endTurn`, `maxTokens`, ...), when the client says.
    pub stop_reason: Option<String>,
}

impl SamplingResponse {
    /// A response from `model` holding `content`, written by the assistant.
    pub fn new(model: impl Into<String>, content: impl Into<Content>) -> Self {
        Self {
            role: Role::Assistant,
            content: content.into(),
            model: model.into(),
            stop_reason: None,
        }
    }

    /// The text, when the completion is text.
    pub fn text(&self) -> Option<&str> {
        self.content.as_text()
    }
}

/// A request for input from the client's user (`elicitation/create`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ElicitationRequest {
    /// What to ask the user.
    pub message: String,
    /// The JSON Schema of the answer: an object whose properties are
    /// strings, numbers, integers, booleans or enumerations, as MCP allows.
    pub requested_schema: Value,
    /// A name for the request, unique within the call: where a server asks
    /// by returning the request in a result (MCP's 2026-07-28 revision,
    /// `inputRequests`), the key it goes by. Without one the server numbers
    /// the call's requests.
    pub name: Option<String>,
}

impl ElicitationRequest {
    /// A request showing `message` and asking for input matching `schema`.
    pub fn new(message: impl Into<String>, requested_schema: Value) -> Self {
        Self {
            message: message.into(),
            requested_schema,
            name: None,
        }
    }

    /// The same request with a name, unique within the call (see
    /// [`name`](Self::name)).
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}

/// The user's answer to an elicitation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Elicitation<T> {
    /// The user answered; here is what they gave.
    Accepted(T),
    /// The user said no.
    Declined,
    /// The user dismissed the request without choosing.
    Cancelled,
}

impl<T> Elicitation<T> {
    /// The answer, when the user gave one.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicitation::Accepted(value) => Some(value),
            Elicitation::Declined | Elicitation::Cancelled => None,
        }
    }

    /// The action's name as MCP spells it: `accept`, `decline` or `cancel`.
    pub fn action(&self) -> &'static str {
        match self {
            Elicitation::Accepted(_) => "accept",
            Elicitation::Declined => "decline",
            Elicitation::Cancelled => "cancel",
        }
    }
}

/// The error of a request made where no client can answer it.
pub(crate) fn no_client(what: &str) -> ToolError {
    ToolError::with_kind(
        ToolErrorKind::ClientUnavailable,
        format!(
            "{what} is not available: this call did not come through a client that can answer it \
             (an MCP client that declares the capability)"
        ),
    )
}

/// A type's schema as an elicitation asks for it: the type's object schema
/// with optional fields given as their plain type (MCP's requested schemas
/// have no `null` type) and no `$schema` keyword.
pub(crate) fn elicitation_schema(mut schema: Value) -> Value {
    if let Value::Object(root) = &mut schema {
        root.shift_remove("$schema");
        if let Some(Value::Object(properties)) = root.get_mut("properties") {
            for property in properties.values_mut() {
                if let Some(Value::Array(types)) = property.get_mut("type") {
                    types.retain(|t| t != "null");
                    if types.len() == 1 {
                        let only = types.remove(0);
                        property["type"] = only;
                    }
                }
            }
        }
    }
    schema
}

/// The most characters of a decoding problem an error repeats.
const MAX_PROBLEM: usize = 200;

/// An accepted answer read as `T`; an error names the field that does not
/// fit and what was wrong with it.
pub(crate) fn read_answer<T: DeserializeOwned>(
    answer: Elicitation<Value>,
) -> Result<Elicitation<T>, ToolError> {
    Ok(match answer {
        Elicitation::Accepted(value) => {
            Elicitation::Accepted(serde_path_to_error::deserialize(value).map_err(|error| {
                // The problem quotes what the user typed: escaped, and cut
                // short, as every message quoting input is.
                let problem = crate::quote::escape(&error.inner().to_string());
                let mut shown: String = problem.chars().take(MAX_PROBLEM).collect();
                if shown.len() < problem.len() {
                    shown.push('…');
                }
                ToolError::new(format!(
                    "the user's answer does not match the requested schema: {}: {shown}",
                    crate::quote::name(&error.path().to_string()),
                ))
            })?)
        }
        Elicitation::Declined => Elicitation::Declined,
        Elicitation::Cancelled => Elicitation::Cancelled,
    })
}
