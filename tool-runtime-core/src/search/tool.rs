//! [`SearchTool`]: the `search_tools` tool a model calls to find tools.

use serde_json::{Map, Value, json};

use super::ToolIndex;
use crate::context::ToolContext;
use crate::spec::error::{ArgError, ArgErrorKind, ToolError};
use crate::spec::result::ToolResult;
use crate::spec::tool_spec::ToolSpec;
use crate::tool::{Tool, ToolFuture};

/// How many tools a search returns when the model gives no `limit`.
const DEFAULT_LIMIT: usize = 5;
/// The most tools one search returns.
const MAX_LIMIT: usize = 50;

/// The parameters `search_tools` takes.
const PARAMETERS: [&str; 3] = ["query", "limit", "include_definitions"];

/// A tool that searches other tools:
/// `search_tools(query: string, limit?: integer, include_definitions?: boolean)`.
///
/// It returns `{"tools": [{"name", "description"}, ...]}`, best match
/// first (at most `limit`, 5 by default, 50 at most), or, with
/// `include_definitions`, each tool's full definition in the MCP shape
/// ([`providers::mcp::tool`](crate::providers::mcp::tool): `name`,
/// `description`, `inputSchema`, ...). When nothing matches, the list is
/// empty and a `hint` says to try other words. A call never finds a tool
/// the caller on its context lacks a [scope](crate::ToolSpec::scopes) of,
/// as such a tool is not offered to it either.
///
/// [`RegistryBuilder::tool_search`](crate::RegistryBuilder::tool_search)
/// (or deferring tools) adds one over the registry's tools; make one
/// yourself for tools held elsewhere. The tools it finds are the caller's
/// to call: an agent adds the found definitions to its next request (see
/// [`found_names`] and
/// [`Registry::render_loaded`](crate::Registry::render_loaded)).
///
/// ```
/// use serde_json::json;
/// use tool_runtime::search::SearchTool;
/// use tool_runtime::{Tool, ToolContext, ToolSpec};
/// use futures_util::FutureExt;
///
/// let specs = [
///     ToolSpec::new("refund_payment", "Refunds a card payment, fully or in part.", json!({})),
///     ToolSpec::new("get_weather", "Current weather for a city.", json!({})),
/// ];
/// let search = SearchTool::new(&specs);
/// let ctx = ToolContext::new();
/// let found = search
///     .call_json(&json!({"query": "give the customer their money back, refund"}), &ctx)
///     .now_or_never()
///     .unwrap()
///     .unwrap();
/// assert_eq!(found["tools"][0]["name"], "refund_payment");
///
/// let error = search.call(&json!({"qeury": "x"}), &ctx).now_or_never().unwrap().unwrap_err();
/// assert_eq!(
///     error.message(),
///     r#"invalid arguments for search_tools: query: missing required field; qeury: unknown field, did you mean "query"?"#
/// );
/// ```
#[derive(Debug, Clone)]
pub struct SearchTool {
    spec: ToolSpec,
    index: ToolIndex,
    /// The searched tools' specs, in the index's order.
    specs: Vec<ToolSpec>,
    /// Whether any of them needs scopes: calls then read their caller.
    scoped: bool,
}

impl SearchTool {
    /// The tool's name, `search_tools`.
    pub const NAME: &'static str = "search_tools";

    /// A search over `specs` (cheap to clone: a `#[tool]`'s spec borrows
    /// static data, a run-time spec shares its schema).
    pub fn new<'a>(specs: impl IntoIterator<Item = &'a ToolSpec>) -> Self {
        let specs: Vec<ToolSpec> = specs.into_iter().cloned().collect();
        let index = ToolIndex::new(&specs);
        let mut spec = ToolSpec::new(
            Self::NAME,
            "Searches the tools available beyond those listed, by what they do. Give a few \
             keywords or a short description of the task; the best matching tools come back \
             with their names and descriptions, and with their full definitions when \
             include_definitions is true. Then call a tool found by its name.",
            json!({
                "type": "object",
                "properties": {
                    "query": {
                        "type": "string",
                        "description": "What the tool should do, in a few words (e.g. \"refund a payment\")"
                    },
                    "limit": {
                        "type": "integer",
                        "description": "How many tools to return, 1 to 50",
                        "minimum": 1,
                        "maximum": MAX_LIMIT,
                        "default": DEFAULT_LIMIT
                    },
                    "include_definitions": {
                        "type": "boolean",
                        "description": "Whether to return each tool's full definition, its input schema included",
                        "default": false
                    }
                },
                "required": ["query"],
                "additionalProperties": false
            }),
        );
        spec.title = Some("Search tools".into());
        spec.annotations.read_only = Some(true);
        spec.annotations.idempotent = Some(true);
        spec.annotations.open_world = Some(false);
        let scoped = specs.iter().any(|spec| !spec.scopes.is_empty());
        SearchTool {
            spec,
            index,
            specs,
            scoped,
        }
    }

    /// The index the tool searches.
    pub fn index(&self) -> &ToolIndex {
        &self.index
    }

    /// The specs of the tools it searches, in the order given.
    pub fn searched(&self) -> &[ToolSpec] {
        &self.specs
    }

    /// What a call with these arguments returns: the `limit` best tools for
    /// `query`, as described [above](SearchTool).
    pub fn search(&self, query: &str, limit: usize, include_definitions: bool) -> Value {
        self.search_for(query, limit, include_definitions, ToolContext::unused())
    }

    /// [`search`](Self::search) for a call in `ctx`: without the tools its
    /// caller lacks a scope of.
    fn search_for(
        &self,
        query: &str,
        limit: usize,
        include_definitions: bool,
        ctx: &ToolContext,
    ) -> Value {
        let limit = limit.min(MAX_LIMIT);
        let hidden = self.scoped && ctx.caller().is_some();
        // Ranked among the visible tools only, when some are hidden.
        let ranked = self
            .index
            .ranked(query, if hidden { self.specs.len() } else { limit });
        let tools: Vec<Value> = ranked
            .into_iter()
            .filter(|(position, _)| {
                !hidden || crate::context::caller::may_call(ctx, &self.specs[*position])
            })
            .take(limit)
            .map(|(position, _)| {
                let spec = &self.specs[position];
                if include_definitions {
                    crate::providers::mcp::tool(spec)
                } else {
                    json!({"name": spec.name, "description": spec.description})
                }
            })
            .collect();
        let mut out = Map::new();
        if tools.is_empty() {
            out.insert(
                "hint".into(),
                "No tool matched. Try other words: what the tool acts on, or what it does.".into(),
            );
        }
        out.insert("tools".into(), Value::Array(tools));
        Value::Object(out)
    }

    /// Reads the call's arguments, reporting every problem at once.
    fn arguments(&self, input: &Value) -> Result<(String, usize, bool), ToolError> {
        let empty = Map::new();
        let object = match input {
            Value::Null => &empty,
            Value::Object(object) => object,
            other => {
                return Err(self.invalid(vec![ArgError {
                    field: String::new(),
                    kind: ArgErrorKind::NotAnObject,
                    message: format!(
                        "the arguments must be a JSON object, got {}",
                        crate::providers::describe_value(other)
                    ),
                }]));
            }
        };
        let mut problems = Vec::new();
        let mut problem = |field: &str, kind, message: String| {
            problems.push(ArgError {
                field: crate::quote::name(field),
                kind,
                message,
            });
        };
        let mut query = None;
        match object.get("query") {
            None | Some(Value::Null) => problem(
                "query",
                ArgErrorKind::Missing,
                "missing required field".into(),
            ),
            Some(Value::String(text)) if text.trim().is_empty() => problem(
                "query",
                ArgErrorKind::InvalidValue,
                "expected a few words saying what the tool should do, got an empty string".into(),
            ),
            Some(Value::String(text)) => query = Some(text.clone()),
            Some(other) => problem(
                "query",
                ArgErrorKind::WrongType,
                format!("expected a string, got {}", crate::quote::value(other)),
            ),
        }
        let mut limit = DEFAULT_LIMIT;
        match object.get("limit") {
            None | Some(Value::Null) => {}
            Some(value) => match value.as_u64() {
                Some(n) if (1..=MAX_LIMIT as u64).contains(&n) => limit = n as usize,
                Some(_) => problem(
                    "limit",
                    ArgErrorKind::InvalidValue,
                    format!(
                        "expected an integer from 1 to {MAX_LIMIT}, got {}",
                        crate::quote::value(value)
                    ),
                ),
                None => problem(
                    "limit",
                    if value.is_number() {
                        ArgErrorKind::InvalidValue
                    } else {
                        ArgErrorKind::WrongType
                    },
                    format!(
                        "expected an integer from 1 to {MAX_LIMIT}, got {}",
                        crate::quote::value(value)
                    ),
                ),
            },
        }
        let mut include_definitions = false;
        match object.get("include_definitions") {
            None | Some(Value::Null) => {}
            Some(Value::Bool(b)) => include_definitions = *b,
            Some(other) => problem(
                "include_definitions",
                ArgErrorKind::WrongType,
                format!("expected a boolean, got {}", crate::quote::value(other)),
            ),
        }
        for key in object
            .keys()
            .filter(|key| !PARAMETERS.contains(&key.as_str()))
        {
            let message = match crate::names::closest(key, PARAMETERS.into_iter()) {
                Some(close) => format!("unknown field, did you mean \"{close}\"?"),
                None => format!("unknown field; expected {}", PARAMETERS.join(", ")),
            };
            problem(key, ArgErrorKind::Unknown, message);
        }
        match query {
            Some(query) if problems.is_empty() => Ok((query, limit, include_definitions)),
            _ => Err(self.invalid(problems)),
        }
    }

    fn invalid(&self, problems: Vec<ArgError>) -> ToolError {
        ToolError::invalid_arguments(Self::NAME, problems)
    }
}

impl Tool for SearchTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    /// Only when a tool it searches needs scopes: then a call reads its
    /// caller.
    fn takes_context(&self) -> bool {
        self.scoped
    }

    fn call<'a>(&'a self, input: &'a Value, ctx: &'a ToolContext) -> ToolFuture<'a> {
        ToolFuture::ready(
            self.arguments(input)
                .map(|(query, limit, include)| self.search_for(&query, limit, include, ctx).into()),
        )
    }
}

/// The names of the tools a `search_tools` call found, best first: what an
/// agent loads into its next request (see
/// [`Registry::render_loaded`](crate::Registry::render_loaded)). Empty for
/// an error result or any other tool's result.
pub fn found_names(result: &ToolResult) -> Vec<String> {
    if result.is_error() {
        return Vec::new();
    }
    let Ok(value) = serde_json::from_str::<Value>(&result.text_content()) else {
        return Vec::new();
    };
    value["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use futures_util::FutureExt;

    use super::*;

    fn tool() -> SearchTool {
        let specs = [
            ToolSpec::new(
                "create_invoice",
                "Creates an invoice.",
                json!({"type": "object"}),
            ),
            ToolSpec::new("send_email", "Sends an email.", json!({"type": "object"})),
        ];
        SearchTool::new(&specs)
    }

    fn call(input: Value) -> Result<Value, ToolError> {
        tool()
            .call_json(&input, &ToolContext::new())
            .now_or_never()
            .expect("a search finishes at once")
    }

    #[test]
    fn finds_names_and_definitions() {
        let plain = call(json!({"query": "invoice"})).unwrap();
        assert_eq!(
            plain,
            json!({"tools": [{"name": "create_invoice", "description": "Creates an invoice."}]})
        );
        let full =
            call(json!({"query": "email", "include_definitions": true, "limit": null})).unwrap();
        assert_eq!(full["tools"][0]["inputSchema"], json!({"type": "object"}));
        let none = call(json!({"query": "weather"})).unwrap();
        assert_eq!(none["tools"], json!([]));
        assert!(none["hint"].is_string());
    }

    #[test]
    fn every_bad_argument_is_named() {
        let error = call(json!({"query": 3, "limit": 0, "include_definitions": "yes", "x": 1}))
            .unwrap_err();
        let fields: Vec<&str> = error
            .argument_errors()
            .iter()
            .map(|e| e.field.as_str())
            .collect();
        assert_eq!(fields, ["query", "limit", "include_definitions", "x"]);
        assert_eq!(
            error.argument_errors()[1].message,
            "expected an integer from 1 to 50, got 0"
        );
        let error = call(json!({"query": "  "})).unwrap_err();
        assert_eq!(error.argument_errors()[0].kind, ArgErrorKind::InvalidValue);
        let error = call(json!({"query": "a", "limit": 2.5})).unwrap_err();
        assert_eq!(error.argument_errors()[0].field, "limit");
        let error = call(json!(["query"])).unwrap_err();
        assert_eq!(error.argument_errors()[0].kind, ArgErrorKind::NotAnObject);
        let error = call(Value::Null).unwrap_err();
        assert_eq!(error.argument_errors()[0].kind, ArgErrorKind::Missing);
    }

    #[test]
    fn found_names_reads_a_result() {
        let output = tool().search("invoice email", 5, false);
        let result = ToolResult::success("1", vec![output.to_string().into()]);
        assert_eq!(found_names(&result), ["create_invoice", "send_email"]);
        let error = ToolResult::error("2", "no");
        assert!(found_names(&error).is_empty());
    }
}
