//! What `prompts/get` gives: the prompt's messages.

use serde_json::{Value, json};
use tool_runtime::Content;
use tool_runtime::context::Role;

/// One message of a prompt: who says it, and what (text, an image, audio,
/// an embedded resource or a link to one).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What it says.
    pub content: Content,
}

impl PromptMessage {
    /// A message of the user's.
    pub fn user(content: impl Into<Content>) -> Self {
        Self {
            role: Role::User,
            content: content.into(),
        }
    }

    /// A message of the model's.
    pub fn assistant(content: impl Into<Content>) -> Self {
        Self {
            role: Role::Assistant,
            content: content.into(),
        }
    }

    /// In MCP's shape: `{role, content}`, the content a content block.
    pub(crate) fn to_json(&self) -> Value {
        json!({
            "role": self.role,
            "content": tool_runtime::providers::mcp::content_block(&self.content),
        })
    }
}

/// A prompt as `prompts/get` gives it: its messages, and a description.
///
/// A text (`String`, `&str`), one message or a list of them converts into
/// one; text becomes one message of the user's.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct GetPrompt {
    /// A description of this rendering of the prompt.
    pub description: Option<String>,
    /// Its messages, in order.
    pub messages: Vec<PromptMessage>,
}

impl GetPrompt {
    /// A prompt of `messages`.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        Self {
            description: None,
            messages,
        }
    }

    /// With a description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// In MCP's shape: `{description?, messages}`.
    pub(crate) fn to_json(&self) -> Value {
        let messages: Vec<Value> = self.messages.iter().map(PromptMessage::to_json).collect();
        let mut result = json!({"messages": messages});
        if let Some(description) = &self.description {
            result["description"] = description.as_str().into();
        }
        result
    }
}

impl From<Vec<PromptMessage>> for GetPrompt {
    fn from(messages: Vec<PromptMessage>) -> Self {
        Self::new(messages)
    }
}

impl From<PromptMessage> for GetPrompt {
    fn from(message: PromptMessage) -> Self {
        Self::new(vec![message])
    }
}

impl From<String> for GetPrompt {
    fn from(text: String) -> Self {
        PromptMessage::user(text).into()
    }
}

impl From<&str> for GetPrompt {
    fn from(text: &str) -> Self {
        PromptMessage::user(text).into()
    }
}
