//! The `prompts` section: prompts whose messages are templates of their
//! arguments.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde_json::Value;
use tool_manifest::{Location, Node, Section, SectionReader};
use tool_runtime::ToolContext;

use super::fields::{Fields, Spanned};
use crate::prompts::{
    ArgumentSpec, GetPrompt, Prompt, PromptArguments, PromptError, PromptMessage, PromptSpec,
};

/// The `prompts` section of a registry file: a list of prompts, each a
/// `name` with its `messages`, templates in which `{argument}` is the
/// value of one of its `arguments` (`{{` and `}}` are braces); with an
/// optional `title` and `description`. An argument has a `name`, and
/// optionally a `title`, a `description`, `required: true`, and
/// `complete`, the values completion offers for it. An optional argument
/// not given is empty in the messages.
///
/// ```
/// use tool_manifest::Manifest;
/// use tool_mcp::sections::PromptsSection;
///
/// let text = "prompts:\n  - name: review\n    arguments: [{name: code, required: true}]\n    \
///             messages:\n      - {role: user, text: \"Review {code} in {language}\"}\n";
/// let manifest = Manifest::parse_with("tools.yaml", text, &[&PromptsSection]).unwrap();
/// assert_eq!(
///     manifest.problems()[0].to_string(),
///     "5:28: prompt \"review\": the message names `{language}`, which is not among its \
///      arguments (code)"
/// );
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct PromptsSection;

/// One entry of a `prompts` section, as written.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PromptEntry {
    /// Its name, its description and its arguments (with the values
    /// completion offers).
    pub spec: PromptSpec,
    /// Its messages, in order.
    pub messages: Vec<MessageEntry>,
    /// Where the entry starts.
    pub location: Location,
}

/// One message of a [`PromptEntry`]: who says it, and its text's template.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MessageEntry {
    /// `user` or `assistant`: whether the assistant says it.
    pub assistant: bool,
    /// Its text as written, `{argument}` standing for an argument's value.
    pub text: String,
    parts: Vec<Part>,
}

/// A piece of a message's template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Argument(String),
}

const KEYS: &[&str] = &["name", "title", "description", "arguments", "messages"];
const ARGUMENT_KEYS: &[&str] = &["name", "title", "description", "required", "complete"];
const MESSAGE_KEYS: &[&str] = &["role", "text"];

impl Section for PromptsSection {
    type Entries = Vec<PromptEntry>;

    fn key(&self) -> &'static str {
        "prompts"
    }

    fn description(&self) -> &'static str {
        "a `prompts` list"
    }

    fn schema(&self) -> Value {
        tool_manifest::section_schema::<Vec<PromptForm>>()
    }

    fn read(&self, node: Node<'_>, reader: &mut SectionReader<'_>) -> Vec<PromptEntry> {
        let Some(items) = node.items() else {
            reader.problem(
                Some(node.location()),
                "`prompts` must be a list of prompts, each a `name` with its `messages`",
            );
            return Vec::new();
        };
        let mut entries: Vec<PromptEntry> = Vec::new();
        for item in items {
            let Some(entry) = read_entry(item, reader) else {
                continue;
            };
            if let Some(first) = entries.iter().find(|e| e.spec.name == entry.spec.name) {
                reader.problem(
                    Some(entry.location),
                    format!(
                        "prompt \"{}\" is at line {} already: give each prompt its own name",
                        entry.spec.name, first.location.line
                    ),
                );
                continue;
            }
            entries.push(entry);
        }
        entries
    }
}

/// One prompt, when it is well formed (its mistakes reported).
fn read_entry(node: Node<'_>, reader: &mut SectionReader<'_>) -> Option<PromptEntry> {
    let what = match node.get("name").and_then(Node::as_text) {
        Some(name) => format!("prompt \"{}\"", name.escape_debug()),
        None => "a prompt".to_owned(),
    };
    let fields = Fields::read(node, &what, KEYS, reader)?;
    let name = fields.required_text("name", reader, "the name clients get it by")?;
    let mut spec = PromptSpec::new(name.text);
    if let Some(title) = fields.text("title", reader) {
        spec = spec.with_title(title.text);
    }
    if let Some(description) = fields.text("description", reader) {
        spec = spec.with_description(description.text);
    }
    let arguments = read_arguments(&fields, reader)?;
    let messages = read_messages(&fields, &arguments, reader)?;
    for argument in arguments {
        spec = spec.with_argument(argument);
    }
    Some(PromptEntry {
        spec,
        messages,
        location: fields.at,
    })
}

/// The prompt's arguments, in order (`None` after a mistake).
fn read_arguments(
    fields: &Fields<'_>,
    reader: &mut SectionReader<'_>,
) -> Option<Vec<ArgumentSpec>> {
    let Some((at, node)) = fields.get("arguments") else {
        return Some(Vec::new());
    };
    let Some(items) = node.items() else {
        reader.problem(
            Some(at),
            format!(
                "`arguments` of {} is a list of arguments, each with a `name`",
                fields.what
            ),
        );
        return None;
    };
    let mut arguments: Vec<ArgumentSpec> = Vec::new();
    let mut well_formed = true;
    for item in items {
        let what = format!("an argument of {}", fields.what);
        let argument = Fields::read(item, &what, ARGUMENT_KEYS, reader)
            .and_then(|argument| read_argument(&argument, &arguments, reader));
        match argument {
            Some(argument) => arguments.push(argument),
            None => well_formed = false,
        }
    }
    well_formed.then_some(arguments)
}

/// One argument, its name not among `before`'s.
fn read_argument(
    fields: &Fields<'_>,
    before: &[ArgumentSpec],
    reader: &mut SectionReader<'_>,
) -> Option<ArgumentSpec> {
    let name = fields.required_text("name", reader, "the name its value is given by")?;
    if !is_argument_name(&name.text) {
        reader.problem(
            Some(name.value),
            format!(
                "{}: an argument's name is letters, digits, `_`, `-` or `.`, not \"{}\"",
                fields.what,
                name.text.escape_debug()
            ),
        );
        return None;
    }
    if before.iter().any(|argument| argument.name == name.text) {
        reader.problem(
            Some(name.value),
            format!("{} has the argument `{}` twice", fields.what, name.text),
        );
        return None;
    }
    let mut argument = if fields.flag("required", reader) {
        ArgumentSpec::required(name.text)
    } else {
        ArgumentSpec::optional(name.text)
    };
    if let Some(title) = fields.text("title", reader) {
        argument = argument.with_title(title.text);
    }
    if let Some(description) = fields.text("description", reader) {
        argument = argument.with_description(description.text);
    }
    Some(argument.with_completions(fields.texts("complete", reader)))
}

/// The prompt's messages, each naming only `arguments`.
fn read_messages(
    fields: &Fields<'_>,
    arguments: &[ArgumentSpec],
    reader: &mut SectionReader<'_>,
) -> Option<Vec<MessageEntry>> {
    let hint = "a list of messages, each a `role` (user or assistant) and a `text`";
    if !fields.has("messages") {
        reader.problem(
            Some(fields.at),
            format!("{} needs `messages`: {hint}", fields.what),
        );
        return None;
    }
    let (at, node) = fields.get("messages")?;
    let Some(items) = node.items() else {
        reader.problem(Some(at), format!("`messages` of {} is {hint}", fields.what));
        return None;
    };
    let mut messages = Vec::new();
    let mut well_formed = true;
    for item in items {
        let what = format!("a message of {}", fields.what);
        let message = Fields::read(item, &what, MESSAGE_KEYS, reader)
            .and_then(|message| read_message(&message, &fields.what, arguments, reader));
        match message {
            Some(message) => messages.push(message),
            None => well_formed = false,
        }
    }
    if well_formed && messages.is_empty() {
        reader.problem(
            Some(at),
            format!("{} has no messages: give {hint}", fields.what),
        );
        return None;
    }
    well_formed.then_some(messages)
}

/// One message, its template checked against `arguments`.
fn read_message(
    fields: &Fields<'_>,
    prompt: &str,
    arguments: &[ArgumentSpec],
    reader: &mut SectionReader<'_>,
) -> Option<MessageEntry> {
    let role = fields.required_text("role", reader, "`user` or `assistant`")?;
    let assistant = match role.text.as_str() {
        "user" => false,
        "assistant" => true,
        other => {
            reader.problem(
                Some(role.value),
                format!(
                    "`role` of {} is `user` or `assistant`, not \"{}\"",
                    fields.what,
                    other.escape_debug()
                ),
            );
            return None;
        }
    };
    let text = fields.required_text("text", reader, "the message, `{argument}` for a value")?;
    let parts = parse_template(&text, prompt, arguments, reader)?;
    Some(MessageEntry {
        assistant,
        text: text.text,
        parts,
    })
}

/// The pieces of a message's text: `{name}` an argument of `arguments`,
/// `{{` and `}}` braces.
fn parse_template(
    text: &Spanned,
    prompt: &str,
    arguments: &[ArgumentSpec],
    reader: &mut SectionReader<'_>,
) -> Option<Vec<Part>> {
    let mut parts = Vec::new();
    let mut literal = String::new();
    let mut rest = text.text.as_str();
    let mut problem =
        |message: String| reader.problem(Some(text.value), format!("{prompt}: {message}"));
    while let Some(at) = rest.find(['{', '}']) {
        literal.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix("{{").or_else(|| tail.strip_prefix("}}")) {
            literal.push_str(&tail[..1]);
            rest = after;
            continue;
        }
        let closed = tail.strip_prefix('{').and_then(|open| open.split_once('}'));
        let Some((name, after)) = closed else {
            problem(format!(
                "a lone `{}` in the message: `{{argument}}` is an argument's value, `{{{{` and \
                 `}}}}` are braces",
                &tail[..1]
            ));
            return None;
        };
        if !arguments.iter().any(|argument| argument.name == name) {
            let names: Vec<&str> = arguments.iter().map(|a| a.name.as_ref()).collect();
            problem(format!(
                "the message names `{{{name}}}`, which is not among its arguments ({})",
                if names.is_empty() {
                    "it has none".to_owned()
                } else {
                    names.join(", ")
                }
            ));
            return None;
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(std::mem::take(&mut literal)));
        }
        parts.push(Part::Argument(name.to_owned()));
        rest = after;
    }
    literal.push_str(rest);
    if !literal.is_empty() {
        parts.push(Part::Literal(literal));
    }
    Some(parts)
}

/// Whether `name` may name an argument (and so be written `{name}`).
fn is_argument_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

impl MessageEntry {
    /// The message's text with `arguments`' values (an argument not given
    /// is empty).
    pub fn render(&self, arguments: &PromptArguments) -> String {
        self.parts
            .iter()
            .map(|part| match part {
                Part::Literal(text) => text.as_str(),
                Part::Argument(name) => arguments.get(name).unwrap_or_default(),
            })
            .collect()
    }
}

impl PromptEntry {
    /// The prompt the entry describes.
    pub(super) fn to_prompt(&self) -> Arc<dyn Prompt> {
        Arc::new(TemplatePrompt(self.clone()))
    }
}

/// A prompt of the section: its messages made from their templates.
struct TemplatePrompt(PromptEntry);

impl Prompt for TemplatePrompt {
    fn spec(&self) -> &PromptSpec {
        &self.0.spec
    }

    fn get(
        &self,
        arguments: PromptArguments,
        _ctx: ToolContext,
    ) -> BoxFuture<'_, Result<GetPrompt, PromptError>> {
        let messages = self
            .0
            .messages
            .iter()
            .map(|message| {
                let text = message.render(&arguments);
                if message.assistant {
                    PromptMessage::assistant(text)
                } else {
                    PromptMessage::user(text)
                }
            })
            .collect();
        let mut got = GetPrompt::new(messages);
        if let Some(description) = &self.0.spec.description {
            got = got.with_description(description.as_ref());
        }
        Box::pin(async move { Ok(got) })
    }
}

// The section's form, for its schema: each doc comment is a description.

/// A prompt: messages made from the arguments a client gives.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[allow(
    dead_code,
    reason = "a form for the schema: entries are read from the YAML"
)]
struct PromptForm {
    /// The name clients get it by.
    name: String,
    /// A title for people.
    title: Option<String>,
    /// What it is for.
    description: Option<String>,
    /// Its arguments.
    arguments: Option<Vec<ArgumentForm>>,
    /// Its messages, in order.
    #[schemars(length(min = 1))]
    messages: Vec<MessageForm>,
}

/// An argument of a prompt.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[allow(
    dead_code,
    reason = "a form for the schema: entries are read from the YAML"
)]
struct ArgumentForm {
    /// Its name: letters, digits, _, - or . (written {name} in a message).
    #[schemars(regex(pattern = r"^[\p{L}\p{N}_.-]+$"))]
    name: String,
    /// A title for people.
    title: Option<String>,
    /// What it is.
    description: Option<String>,
    /// Whether a client must give it (default: false).
    required: Option<bool>,
    /// The values completion offers for it.
    complete: Option<Vec<String>>,
}

/// A message of a prompt.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
#[allow(
    dead_code,
    reason = "a form for the schema: entries are read from the YAML"
)]
struct MessageForm {
    /// Who says it.
    role: RoleForm,
    /// Its text: {argument} is an argument's value, {{ and }} are braces.
    text: String,
}

/// Who says a message.
#[derive(JsonSchema)]
#[schemars(rename_all = "lowercase")]
#[allow(
    dead_code,
    reason = "a form for the schema: entries are read from the YAML"
)]
enum RoleForm {
    User,
    Assistant,
}
