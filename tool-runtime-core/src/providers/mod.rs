//! One tool definition, every LLM provider: tool definitions rendered in
//! each provider's request shape, tool calls parsed from each provider's
//! response shape, and results rendered back as each provider's message.
//!
//! | [`Provider`] | name | tool definitions ([`Registry::render`](crate::Registry::render)) | calls parsed from | one result rendered as |
//! | --- | --- | --- | --- | --- |
//! | [`OpenAiChat`](Provider::OpenAiChat) | `openai` | Chat Completions `tools` array | `choices[0].message.tool_calls` | a `{"role": "tool"}` message |
//! | [`OpenAiStrict`](Provider::OpenAiStrict) | `openai-strict` | the same, every tool strict | as `openai` | as `openai` |
//! | [`OpenAiResponses`](Provider::OpenAiResponses) | `responses` | Responses API `tools` array | `output[]` `function_call` items | a `function_call_output` item |
//! | [`Anthropic`](Provider::Anthropic) | `anthropic` | Messages API `tools` array | `content[]` `tool_use` blocks | a `tool_result` block |
//! | [`Bedrock`](Provider::Bedrock) | `bedrock` | Converse `toolConfig` (Strands `TOOL_SPEC`s) | `output.message.content[].toolUse` | a `toolResult` block |
//! | [`Gemini`](Provider::Gemini) | `gemini` | one `tools` entry: `{"functionDeclarations": [...]}` | `candidates[0].content.parts[].functionCall` | a `functionResponse` part |
//! | [`Mcp`](Provider::Mcp) | `mcp` | the `tools/list` result | `tools/call` requests | a `CallToolResult` |
//! | [`Xml`](Provider::Xml) | `xml` | a `<tools>` block for a system prompt (a JSON string) | `<tool_call>` elements in text ([`xml::parse_tool_calls`]) | a `<tool_result>` element |
//!
//! Each provider's module has the functions behind the table, with the
//! details of its shapes: [`openai`], [`anthropic`], [`bedrock`],
//! [`gemini`], [`mcp`], [`xml`]. Strict mode is in [`crate::schema::strict`]. A
//! prompt that lists tools in prose takes [`text`]'s rendering, which is
//! no provider's.
//!
//! ```
//! use serde_json::json;
//! use tool_runtime::providers::{self, Provider};
//! use tool_runtime::{tool, Registry, ToolContext};
//!
//! /// Adds two numbers.
//! #[tool]
//! fn add(
//!     /// The first number
//!     a: i64,
//!     /// The second number
//!     #[tool(default = 1)]
//!     b: i64,
//! ) -> i64 {
//!     a + b
//! }
//!
//! let registry = Registry::builder().tool(AddTool).build().unwrap();
//!
//! // The `tools` of an Anthropic Messages request.
//! let tools = registry.render(Provider::Anthropic);
//! assert_eq!(tools[0]["name"], "add");
//! assert_eq!(tools[0]["input_schema"]["required"], json!(["a"]));
//!
//! // The same tool for OpenAI with strict mode: `b` is required but nullable.
//! let tools = registry.render("openai-strict".parse().unwrap());
//! assert_eq!(tools[0]["function"]["strict"], true);
//! assert_eq!(tools[0]["function"]["parameters"]["required"], json!(["a", "b"]));
//!
//! // A response with a tool call, run, and answered.
//! let response = json!({"content": [
//!     {"type": "text", "text": "Adding."},
//!     {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 2}}
//! ]});
//! let calls = providers::parse_tool_calls(Provider::Anthropic, &response).unwrap();
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let result = registry.invoke(calls[0].clone(), &ToolContext::new()).await;
//! let block = registry.render_result(Provider::Anthropic, &calls[0], &result);
//! assert_eq!(
//!     block,
//!     json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "3"}]})
//! );
//! # });
//! ```

pub mod anthropic;
pub mod bedrock;
pub mod gemini;
pub mod mcp;
pub mod openai;
pub mod text;
pub mod xml;

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::spec::result::{ToolResult, ToolUse};
use crate::spec::tool_spec::ToolSpec;

/// An LLM provider's tool-calling format.
///
/// Its [`Display`](fmt::Display) and [`FromStr`] names are `openai`,
/// `openai-strict`, `responses`, `anthropic`, `bedrock`, `gemini`, `mcp`
/// and `xml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Provider {
    /// OpenAI Chat Completions (`openai`). Tools marked strict, or all tools
    /// of a strict registry, are rendered in strict mode.
    OpenAiChat,
    /// OpenAI Chat Completions with every tool in strict mode
    /// (`openai-strict`); a tool whose schema cannot be strict is rendered
    /// with `"strict": false`.
    OpenAiStrict,
    /// The OpenAI Responses API (`responses`).
    OpenAiResponses,
    /// The Anthropic Messages API (`anthropic`).
    Anthropic,
    /// Amazon Bedrock Converse, and the Strands `TOOL_SPEC` (`bedrock`).
    Bedrock,
    /// Google Gemini `generateContent` (`gemini`).
    Gemini,
    /// The Model Context Protocol, 2025-06-18 (`mcp`).
    Mcp,
    /// Plain text with XML tags, for models without native tool calling
    /// (`xml`).
    Xml,
}

impl Provider {
    /// Every provider, in the order of the enum.
    pub const ALL: [Provider; 8] = [
        Provider::OpenAiChat,
        Provider::OpenAiStrict,
        Provider::OpenAiResponses,
        Provider::Anthropic,
        Provider::Bedrock,
        Provider::Gemini,
        Provider::Mcp,
        Provider::Xml,
    ];

    /// The provider's name, as [`FromStr`] reads it.
    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAiChat => "openai",
            Provider::OpenAiStrict => "openai-strict",
            Provider::OpenAiResponses => "responses",
            Provider::Anthropic => "anthropic",
            Provider::Bedrock => "bedrock",
            Provider::Gemini => "gemini",
            Provider::Mcp => "mcp",
            Provider::Xml => "xml",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Provider {
    type Err = UnknownProvider;

    /// Reads a provider name, ignoring ASCII case.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Provider::ALL
            .into_iter()
            .find(|provider| provider.name().eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| UnknownProvider {
                name: name.to_owned(),
            })
    }
}

/// A provider name [`Provider::from_str`] does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownProvider {
    /// The name given.
    pub name: String,
}

impl fmt::Display for UnknownProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Provider::ALL.iter().map(|p| p.name()).collect();
        write!(
            f,
            "unknown provider {:?}; expected one of {}",
            self.name,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownProvider {}

/// A provider response (or request) that is not in the shape its provider
/// documents: a missing id or name, arguments that are not valid JSON, a
/// value of the wrong type.
///
/// Its `Display` text is `provider: pointer: message`, for example
/// `openai: /choices/0/message/tool_calls/0/function/arguments: not valid
/// JSON (EOF while parsing a string at line 1 column 13): "{\"city\": \"Par"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderError {
    /// Whose format was being read.
    pub provider: Provider,
    /// The JSON pointer (RFC 6901) of the problem within the value parsed;
    /// empty for the value as a whole.
    pub pointer: String,
    /// What is wrong: what was expected and what came.
    pub message: String,
}

impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        write!(f, "{}: {pointer}: {}", self.provider, self.message)
    }
}

impl std::error::Error for ProviderError {}

/// The description a JSON rendering gives the tool with `spec`: what its
/// formatter writes for [`DescriptionFormat::Json`](crate::format::DescriptionFormat::Json),
/// else the spec's own.
pub(crate) fn description(spec: &ToolSpec) -> std::borrow::Cow<'_, str> {
    let format = crate::spec::tool_spec::format::DescriptionFormat::Json;
    match crate::spec::tool_spec::format::written_description(spec, format) {
        Some(text) => std::borrow::Cow::Owned(text),
        None => std::borrow::Cow::Borrowed(&spec.description),
    }
}

/// One tool's definition in `provider`'s request shape.
///
/// For [`Provider::Xml`] this is a JSON string holding the `<tool>`
/// element. For OpenAI, a tool is strict when its spec says so
/// (`#[tool(strict)]`) or the provider is [`Provider::OpenAiStrict`].
pub fn render_tool(provider: Provider, spec: &ToolSpec) -> Value {
    render_tool_with(provider, spec, false)
}

fn render_tool_with(provider: Provider, spec: &ToolSpec, strict_registry: bool) -> Value {
    let strict = spec.strict || strict_registry;
    match provider {
        Provider::OpenAiChat => openai::chat_tool(spec, strict),
        Provider::OpenAiStrict => openai::chat_tool(spec, true),
        Provider::OpenAiResponses => openai::responses_tool(spec, strict),
        Provider::Anthropic => anthropic::tool(spec),
        Provider::Bedrock => bedrock::tool_spec(spec),
        Provider::Gemini => gemini::function_declaration(spec),
        Provider::Mcp => mcp::tool(spec),
        Provider::Xml => Value::String(xml::render_tool(spec)),
    }
}

/// The tool definitions of `specs` as the value `provider`'s request takes.
///
/// OpenAI (both APIs) and Anthropic: the `tools` array. Bedrock: the
/// Converse `toolConfig` object, `{"tools": [{"toolSpec": ...}]}`. Gemini:
/// one entry of the `tools` array, `{"functionDeclarations": [...]}`. MCP:
/// the `tools/list` result, `{"tools": [...]}`. XML: a JSON string with the
/// `<tools>` block.
pub fn render_tools<'a>(
    provider: Provider,
    specs: impl IntoIterator<Item = &'a ToolSpec>,
) -> Value {
    render_tools_with(provider, specs, false)
}

pub(crate) fn render_tools_with<'a>(
    provider: Provider,
    specs: impl IntoIterator<Item = &'a ToolSpec>,
    strict_registry: bool,
) -> Value {
    if provider == Provider::Xml {
        return Value::String(xml::render_tools(specs));
    }
    let tools: Vec<Value> = specs
        .into_iter()
        .map(|spec| render_tool_with(provider, spec, strict_registry))
        .collect();
    match provider {
        Provider::Bedrock | Provider::Mcp => {
            Value::Object(Map::from_iter([("tools".to_owned(), Value::Array(tools))]))
        }
        Provider::Gemini => Value::Object(Map::from_iter([(
            "functionDeclarations".to_owned(),
            Value::Array(tools),
        )])),
        _ => Value::Array(tools),
    }
}

/// How a tool is offered to the model when a registry defers some of its
/// tools (see [`render_offered_tools`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Offer {
    /// Sent with every request.
    Always,
    /// Found by a search first: sent with the provider's deferred-loading
    /// flag where it has tool search of its own, left out elsewhere.
    Deferred,
    /// The registry's own search tool (`search_tools`): sent where the
    /// provider has no tool search of its own, replaced by the provider's
    /// where it has.
    Search,
}

impl Provider {
    /// Whether the provider documents a tool search of its own, which
    /// loads deferred tools' definitions when the model finds them:
    /// Anthropic's tool search tool and the OpenAI Responses API's
    /// `tool_search`. Chat Completions, Bedrock Converse, Gemini, MCP and
    /// XML prompts have none; for them a registry offers `search_tools`.
    pub fn has_tool_search(self) -> bool {
        matches!(self, Provider::Anthropic | Provider::OpenAiResponses)
    }
}

/// The tool definitions of `tools` as [`render_tools`] gives them, for a
/// registry that defers some tools.
///
/// Where the provider [has tool search](Provider::has_tool_search) and a
/// tool is [deferred](Offer::Deferred), the provider's search tool comes
/// first (Anthropic: [`anthropic::tool_search_tool`] with BM25; Responses:
/// [`openai::responses_tool_search`]), then every tool in the order given,
/// deferred ones flagged `"defer_loading": true`; [`Offer::Search`] tools
/// are left out. Elsewhere the [`Offer::Always`] and [`Offer::Search`]
/// tools are rendered as by [`render_tools`] and the deferred ones left
/// out.
///
/// ```
/// use serde_json::json;
/// use tool_runtime::providers::{render_offered_tools, Offer, Provider};
/// use tool_runtime::ToolSpec;
///
/// let lookup = ToolSpec::new("lookup", "Looks an order up.", json!({"type": "object"}));
/// let refund = ToolSpec::new("refund", "Refunds an order.", json!({"type": "object"}));
/// let search = ToolSpec::new("search_tools", "Searches tools.", json!({"type": "object"}));
/// let tools = [(&lookup, Offer::Always), (&refund, Offer::Deferred), (&search, Offer::Search)];
///
/// let anthropic = render_offered_tools(Provider::Anthropic, tools);
/// assert_eq!(anthropic[0]["type"], "tool_search_tool_bm25_20251119");
/// assert_eq!(anthropic[2]["name"], "refund");
/// assert_eq!(anthropic[2]["defer_loading"], true);
/// assert_eq!(anthropic.as_array().unwrap().len(), 3);
///
/// let gemini = render_offered_tools(Provider::Gemini, tools);
/// let names: Vec<&str> = gemini["functionDeclarations"]
///     .as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
/// assert_eq!(names, ["lookup", "search_tools"]);
/// ```
pub fn render_offered_tools<'a>(
    provider: Provider,
    tools: impl IntoIterator<Item = (&'a ToolSpec, Offer)>,
) -> Value {
    render_offered_tools_with(provider, tools, false)
}

pub(crate) fn render_offered_tools_with<'a>(
    provider: Provider,
    tools: impl IntoIterator<Item = (&'a ToolSpec, Offer)>,
    strict_registry: bool,
) -> Value {
    let tools: Vec<(&ToolSpec, Offer)> = tools.into_iter().collect();
    let deferred = tools.iter().any(|(_, offer)| *offer == Offer::Deferred);
    if !(provider.has_tool_search() && deferred) {
        let offered = tools
            .iter()
            .filter(|(_, offer)| *offer != Offer::Deferred)
            .map(|(spec, _)| *spec);
        return render_tools_with(provider, offered, strict_registry);
    }
    let search = match provider {
        Provider::Anthropic => anthropic::tool_search_tool(anthropic::ToolSearch::Bm25),
        _ => openai::responses_tool_search(),
    };
    let mut out = vec![search];
    for (spec, offer) in tools {
        let strict = spec.strict || strict_registry;
        out.push(match (offer, provider) {
            (Offer::Search, _) => continue,
            (Offer::Always, _) => render_tool_with(provider, spec, strict_registry),
            (Offer::Deferred, Provider::Anthropic) => anthropic::deferred_tool(spec),
            (Offer::Deferred, _) => openai::responses_deferred_tool(spec, strict),
        });
    }
    Value::Array(out)
}

/// The tool calls in a response from `provider`, in order.
///
/// Each provider's function documents which parts of a response it accepts
/// (the whole response body, a message, or the list of calls):
/// [`openai::parse_chat_calls`], [`openai::parse_responses_calls`],
/// [`anthropic::parse_tool_uses`], [`bedrock::parse_tool_uses`],
/// [`gemini::parse_function_calls`], [`mcp::parse_tool_calls`]. A response
/// without tool calls gives an empty list.
///
/// [`Provider::Xml`] always gives an error here, whatever `body` is: a
/// plain-text answer's `<tool_call>` elements are read with the tools'
/// specs, since a tool with a [formatter](crate::format::ToolFormat) reads calls
/// written in a form of its own, which no reading without its spec
/// understands. [`Registry::parse_xml_calls`](crate::Registry::parse_xml_calls)
/// reads them with the registry's tools (or [`xml::parse_tool_calls`], with
/// the specs given), and the error says so.
pub fn parse_tool_calls(provider: Provider, body: &Value) -> Result<Vec<ToolUse>, ProviderError> {
    match provider {
        Provider::OpenAiChat | Provider::OpenAiStrict => openai::parse_chat_calls(body),
        Provider::OpenAiResponses => openai::parse_responses_calls(body),
        Provider::Anthropic => anthropic::parse_tool_uses(body),
        Provider::Bedrock => bedrock::parse_tool_uses(body),
        Provider::Gemini => gemini::parse_function_calls(body),
        Provider::Mcp => mcp::parse_tool_calls(body),
        Provider::Xml => Err(ProviderError {
            provider,
            pointer: String::new(),
            message: "the <tool_call> elements of a plain-text answer are read with the tools' \
                      specs: use Registry::parse_xml_calls, or providers::xml::parse_tool_calls \
                      with the specs"
                .into(),
        }),
    }
}

/// The result of `call` as `provider`'s message (or message part).
///
/// `spec` is the called tool's spec, when known: MCP needs it to add
/// `structuredContent` for tools with an output schema. Gemini takes the
/// tool's name from `call`; the other providers only need the call's id,
/// which `result` carries too.
pub fn render_result(
    provider: Provider,
    call: &ToolUse,
    result: &ToolResult,
    spec: Option<&ToolSpec>,
) -> Value {
    match provider {
        Provider::OpenAiChat | Provider::OpenAiStrict => openai::chat_tool_message(result),
        Provider::OpenAiResponses => openai::responses_output(result),
        Provider::Anthropic => anthropic::tool_result(result),
        Provider::Bedrock => bedrock::tool_result(result),
        Provider::Gemini => gemini::function_response(call, result),
        Provider::Mcp => mcp::call_tool_result(result, spec),
        Provider::Xml => Value::String(xml::render_result(call, result)),
    }
}

/// The results of several calls, as what `provider` expects next in the
/// conversation.
///
/// OpenAI Chat: an array of `tool` messages. Responses: an array of
/// `function_call_output` items. Anthropic: one `user` message with every
/// `tool_result` block. Bedrock: one `user` message with every `toolResult`
/// block. Gemini: one `user` content with every `functionResponse` part.
/// MCP: an array of `CallToolResult`s (each goes in its own JSON-RPC
/// response; see [`mcp::response`]). XML: a string with every
/// `<tool_result>`.
pub fn render_results<'a>(
    provider: Provider,
    outcomes: impl IntoIterator<Item = (&'a ToolUse, &'a ToolResult, Option<&'a ToolSpec>)>,
) -> Value {
    let items: Vec<Value> = outcomes
        .into_iter()
        .map(|(call, result, spec)| render_result(provider, call, result, spec))
        .collect();
    let message = |key: &str, items: Vec<Value>| {
        Value::Object(Map::from_iter([
            ("role".to_owned(), Value::from("user")),
            (key.to_owned(), Value::Array(items)),
        ]))
    };
    match provider {
        Provider::Anthropic | Provider::Bedrock => message("content", items),
        Provider::Gemini => message("parts", items),
        Provider::Xml => Value::String(
            items
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        _ => Value::Array(items),
    }
}

/// A registry's rendered tool definitions, one slot per provider, filled on
/// first use. A registry never changes after it is built, so a rendering
/// stays valid; clones of a registry share it.
#[derive(Default)]
pub(crate) struct Renderings {
    slots: [OnceLock<Value>; Provider::ALL.len()],
}

impl Renderings {
    /// The rendering for `provider`, made with `render` the first time.
    pub(crate) fn get_or_render(
        &self,
        provider: Provider,
        render: impl FnOnce() -> Value,
    ) -> &Value {
        self.slots[provider.index()].get_or_init(render)
    }
}

impl fmt::Debug for Renderings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rendered: Vec<&str> = Provider::ALL
            .iter()
            .filter(|provider| self.slots[provider.index()].get().is_some())
            .map(|provider| provider.name())
            .collect();
        f.debug_struct("Renderings")
            .field("rendered", &rendered)
            .finish()
    }
}

/// A position in a provider's JSON, for parsing with errors that point at
/// the problem.
#[derive(Clone)]
struct At<'a> {
    value: &'a Value,
    pointer: String,
    provider: Provider,
}

impl<'a> At<'a> {
    fn root(provider: Provider, value: &'a Value) -> Self {
        Self {
            value,
            pointer: String::new(),
            provider,
        }
    }

    fn error(&self, message: impl Into<String>) -> ProviderError {
        ProviderError {
            provider: self.provider,
            pointer: self.pointer.clone(),
            message: message.into(),
        }
    }

    fn child(&self, token: &str, value: &'a Value) -> At<'a> {
        At {
            value,
            pointer: crate::schema::strict::push_pointer(&self.pointer, token),
            provider: self.provider,
        }
    }

    /// The member `key`, if this is an object that has it (and it is not
    /// `null`).
    fn get(&self, key: &str) -> Option<At<'a>> {
        match self.value.get(key) {
            None | Some(Value::Null) => None,
            Some(value) => Some(self.child(key, value)),
        }
    }

    /// The member `key`, which must be present.
    fn field(&self, key: &str) -> Result<At<'a>, ProviderError> {
        self.object()?;
        self.get(key).ok_or_else(|| {
            let missing = self.child(key, &Value::Null);
            missing.error(format!("missing {key:?}"))
        })
    }

    fn object(&self) -> Result<&'a Map<String, Value>, ProviderError> {
        self.value.as_object().ok_or_else(|| {
            self.error(format!(
                "expected an object, got {}",
                describe_value(self.value)
            ))
        })
    }

    fn string(&self) -> Result<&'a str, ProviderError> {
        self.value.as_str().ok_or_else(|| {
            self.error(format!(
                "expected a string, got {}",
                describe_value(self.value)
            ))
        })
    }

    /// A non-empty string (an id or a name).
    fn name(&self) -> Result<&'a str, ProviderError> {
        let text = self.string()?;
        if text.is_empty() {
            return Err(self.error("expected a non-empty string, got \"\""));
        }
        Ok(text)
    }

    fn array(&self) -> Result<Vec<At<'a>>, ProviderError> {
        let items = self.value.as_array().ok_or_else(|| {
            self.error(format!(
                "expected an array, got {}",
                describe_value(self.value)
            ))
        })?;
        Ok(items
            .iter()
            .enumerate()
            .map(|(i, item)| self.child(&i.to_string(), item))
            .collect())
    }

    /// Tool arguments given as a JSON object.
    fn arguments_object(&self) -> Result<Value, ProviderError> {
        self.object()?;
        Ok(self.value.clone())
    }

    /// Tool arguments given as a string of JSON text holding an object. An
    /// empty string is an empty object (a call to a tool without
    /// parameters).
    fn arguments_text(&self) -> Result<Value, ProviderError> {
        let text = self.string()?;
        if text.trim().is_empty() {
            return Ok(Value::Object(Map::new()));
        }
        let value: Value = serde_json::from_str(text).map_err(|error| {
            self.error(format!("not valid JSON ({error}): {}", preview_text(text)))
        })?;
        if !value.is_object() {
            return Err(self.error(format!(
                "the arguments must be a JSON object, got {}",
                describe_value(&value)
            )));
        }
        Ok(value)
    }
}

/// A short description of a JSON value for a message about malformed JSON:
/// its kind, and for a scalar the value itself (a string quoted and cut
/// after 60 characters).
///
/// [`ProviderError`]s word what they found with it (`expected an object,
/// got a string ("abc")`); a program that checks JSON of its own, such as
/// arguments typed on a command line, words its messages alike.
///
/// ```
/// use serde_json::json;
/// use tool_runtime::providers::describe_value;
///
/// assert_eq!(describe_value(&json!([1, 2])), "an array");
/// assert_eq!(describe_value(&json!(true)), "a boolean (true)");
/// assert_eq!(describe_value(&json!("abc")), r#"a string ("abc")"#);
/// ```
pub fn describe_value(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("a boolean ({b})"),
        Value::Number(n) => format!("a number ({n})"),
        Value::String(s) => format!("a string ({})", preview_text(s)),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// A string quoted for a message, cut after 60 characters.
fn preview_text(text: &str) -> String {
    const MAX: usize = 60;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{:?}...", &text[..cut]),
        None => format!("{text:?}"),
    }
}

/// The short format name of an image type the providers accept in a tool
/// result (PNG, JPEG, GIF, WebP), as Bedrock names it.
fn image_format(mime_type: &str) -> Option<&'static str> {
    match mime_type {
        "image/png" => Some("png"),
        "image/jpeg" | "image/jpg" => Some("jpeg"),
        "image/gif" => Some("gif"),
        "image/webp" => Some("webp"),
        _ => None,
    }
}

/// A `data:` URL for base64 data.
fn data_url(mime_type: &str, base64: &str) -> String {
    format!("data:{mime_type};base64,{base64}")
}

/// The content of a result as one JSON value: nothing is `null`, one block
/// is its value (text as a JSON string), several are an array.
fn result_value(result: &ToolResult) -> Value {
    match result.content.as_slice() {
        [] => Value::Null,
        [only] => only.clone().into_value(),
        many => Value::Array(many.iter().cloned().map(|c| c.into_value()).collect()),
    }
}
