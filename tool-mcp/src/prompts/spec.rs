//! What a prompt says of itself: its name, description and arguments.

use std::borrow::Cow;

use serde_json::{Map, Value};

/// One argument of a prompt: what `prompts/list` gives of it, and the
/// values `completion/complete` offers for it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ArgumentSpec {
    /// Its name.
    pub name: Cow<'static, str>,
    /// A title for people.
    pub title: Option<Cow<'static, str>>,
    /// What it is.
    pub description: Option<Cow<'static, str>>,
    /// Whether `prompts/get` must give it.
    pub required: bool,
    /// The values completion offers (those starting with what the client
    /// typed), unless the prompt completes its arguments itself.
    pub completions: Vec<Cow<'static, str>>,
}

impl ArgumentSpec {
    /// An argument `prompts/get` must give.
    pub fn required(name: impl Into<Cow<'static, str>>) -> Self {
        Self::new(name.into(), true)
    }

    /// An argument `prompts/get` may give.
    pub fn optional(name: impl Into<Cow<'static, str>>) -> Self {
        Self::new(name.into(), false)
    }

    fn new(name: Cow<'static, str>, required: bool) -> Self {
        Self {
            name,
            title: None,
            description: None,
            required,
            completions: Vec::new(),
        }
    }

    /// With a title for people.
    pub fn with_title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// With a description.
    pub fn with_description(mut self, description: impl Into<Cow<'static, str>>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// With the values completion offers.
    pub fn with_completions<S: Into<Cow<'static, str>>>(
        mut self,
        values: impl IntoIterator<Item = S>,
    ) -> Self {
        self.completions = values.into_iter().map(Into::into).collect();
        self
    }
}

/// A prompt's description: what `prompts/list` gives of it.
///
/// ```
/// use tool_mcp::prompts::{ArgumentSpec, PromptSpec};
///
/// let spec = PromptSpec::new("review")
///     .with_description("Review code")
///     .with_argument(ArgumentSpec::required("code").with_description("The code"));
/// assert_eq!(spec.arguments.len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PromptSpec {
    /// Its name, unique in the server.
    pub name: Cow<'static, str>,
    /// A title for people.
    pub title: Option<Cow<'static, str>>,
    /// What it is for.
    pub description: Option<Cow<'static, str>>,
    /// Its arguments, in order.
    pub arguments: Vec<ArgumentSpec>,
    /// The `_meta` of its list entry.
    pub meta: Option<Map<String, Value>>,
}

impl PromptSpec {
    /// A prompt named `name`, without arguments.
    pub fn new(name: impl Into<Cow<'static, str>>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            meta: None,
        }
    }

    /// With a title for people.
    pub fn with_title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// With a description.
    pub fn with_description(mut self, description: impl Into<Cow<'static, str>>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// With one more argument.
    pub fn with_argument(mut self, argument: ArgumentSpec) -> Self {
        self.arguments.push(argument);
        self
    }

    /// With the `_meta` of its list entry.
    pub fn with_meta(mut self, meta: Map<String, Value>) -> Self {
        self.meta = Some(meta);
        self
    }

    /// Its argument named `name`.
    pub fn argument(&self, name: &str) -> Option<&ArgumentSpec> {
        self.arguments.iter().find(|argument| argument.name == name)
    }

    /// Its list entry in MCP's shape.
    pub(crate) fn to_json(&self) -> Value {
        let mut entry = Map::new();
        entry.insert("name".into(), self.name.as_ref().into());
        let text = |entry: &mut Map<String, Value>, key: &str, value: &Option<Cow<'_, str>>| {
            if let Some(value) = value {
                entry.insert(key.into(), value.as_ref().into());
            }
        };
        text(&mut entry, "title", &self.title);
        text(&mut entry, "description", &self.description);
        if !self.arguments.is_empty() {
            let arguments = self
                .arguments
                .iter()
                .map(|argument| {
                    let mut out = Map::new();
                    out.insert("name".into(), argument.name.as_ref().into());
                    text(&mut out, "title", &argument.title);
                    text(&mut out, "description", &argument.description);
                    out.insert("required".into(), argument.required.into());
                    Value::Object(out)
                })
                .collect();
            entry.insert("arguments".into(), Value::Array(arguments));
        }
        if let Some(meta) = &self.meta {
            entry.insert("_meta".into(), Value::Object(meta.clone()));
        }
        Value::Object(entry)
    }
}
