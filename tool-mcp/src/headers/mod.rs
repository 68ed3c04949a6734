//! Header parameters (MCP revision 2026-07-28, streamable HTTP): the
//! properties of a tool's input schema whose values a client also sends as
//! HTTP headers, `Mcp-Param-{name}`, so that a load balancer or gateway can
//! route on them without reading the body.
//!
//! A tool declares one with `#[tool(header)]` or `#[tool(header =
//! "Region")]`, or with MCP's `x-mcp-header` keyword in a `DynamicTool`'s
//! schema; `tool-runtime` keeps the declaration as data
//! ([`ParamSpec::header`](tool_runtime::spec::ParamSpec::header) and the keyword
//! in the rendered schema). This module is what MCP makes of it, for both
//! sides of the transport:
//!
//! ```json
//! {"type": "object",
//!  "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
//!  "required": ["region"]}
//! ```
//!
//! **The declaration's rules**, which [`header_params`] checks:
//!
//! - the name is not empty and is an HTTP token (RFC 9110's `tchar`:
//!   letters, digits and ``!#$%&'*+-.^_`|~``), so no spaces, control
//!   characters or delimiters;
//! - no two names of one schema are equal ignoring case;
//! - the property's `type` is `"string"`, `"integer"` or `"boolean"`:
//!   not `"number"`, not an object or array, not a list of types;
//! - the property is reached from the root through `properties` alone:
//!   not under `items`, `anyOf`/`oneOf`/`allOf`/`not`,
//!   `if`/`then`/`else`, `additionalProperties`, `$defs` or a `$ref`.
//!
//! `#[tool(header)]` holds a declaration to them at compile time. A client
//! over HTTP leaves out a tool that breaks them; one over stdio may ignore
//! the keyword. [`McpServer`](crate::server::McpServer) leaves such a tool
//! out of `tools/list` and refuses its calls, logging why, and the client's
//! `McpClient::tools` (feature `client`) leaves such a remote tool out,
//! with the reason.
//!
//! **The value.** A header's value is the argument's text
//! ([`value_text`]): a string as it is, an integer in decimal, a boolean as
//! `true` or `false`. A value that is not plain visible ASCII (non-ASCII,
//! control characters, spaces at either end, or text that looks like the
//! wrapper itself) is sent as `=?base64?{Base64 of its UTF-8}?=`
//! ([`encode_value`]), which the server decodes before comparing
//! ([`decode_value`]); the wrapper's Base64 must be canonical, with its
//! padding.
//!
//! **What the server checks** ([`check_headers`]): the server must reject a
//! call whose headers disagree with its arguments, so that a balancer
//! routing on the header and the tool acting on the body cannot be told
//! different things:
//!
//! | in the arguments | header | the call |
//! | --- | --- | --- |
//! | a string, integer or boolean | present, equal once decoded | goes on |
//! | a string, integer or boolean | present, different | refused |
//! | a string, integer or boolean | absent | refused |
//! | absent or `null` | absent | goes on |
//! | absent or `null` | present | goes on (the header is not looked at), unless its value is not a valid header value |
//! | anything else (an object, a list) | either | goes on: checking the arguments reports it |
//!
//! Refused means HTTP `400 Bad Request` ([`HTTP_STATUS`]) with the
//! JSON-RPC error `-32020` ([`HEADER_MISMATCH`]),
//! [`HeaderMismatch::json_rpc_error`]. Integers compare as numbers (`42.0`
//! is `42`), everything else as text, case and all. Header names are
//! compared ignoring case. The server's streamable HTTP transport checks
//! every `tools/call` of revision 2026-07-28 before running it; over stdio
//! there are no headers and nothing to check.
//!
//! ```
//! use serde_json::json;
//! use tool_mcp::headers;
//!
//! let schema = json!({"type": "object", "properties": {
//!     "region": {"type": "string", "x-mcp-header": "Region"},
//!     "query": {"type": "string"}
//! }});
//! let found = headers::header_params(&schema).unwrap();
//! assert_eq!(found[0].path, ["region"]);
//! assert_eq!(found[0].name, "Region");
//!
//! let bad = json!({"type": "object", "properties": {
//!     "ratio": {"type": "number", "x-mcp-header": "Ratio"}
//! }});
//! let problems = headers::header_params(&bad).unwrap_err();
//! assert_eq!(
//!     problems[0].to_string(),
//!     "/properties/ratio: x-mcp-header is on a \"number\"; MCP allows it on a \
//!      string, integer or boolean property only"
//! );
//! ```

mod check;
mod rules;
mod values;

pub use check::{HeaderMismatch, MismatchKind, check_headers};
pub(crate) use rules::refusal;
pub use rules::{HeaderParam, HeaderProblem, Path, for_each, header_params, is_token};
pub use values::{InvalidValue, decode_value, encode_value, value_text};

/// The keyword that marks a header parameter:
/// [`ParamSpec::HEADER_KEYWORD`](tool_runtime::spec::ParamSpec::HEADER_KEYWORD),
/// `x-mcp-header`.
pub const KEYWORD: &str = tool_runtime::spec::ParamSpec::HEADER_KEYWORD;

/// The prefix of a header parameter's HTTP header: `Mcp-Param-Region` for
/// `x-mcp-header: "Region"`.
pub const HEADER_PREFIX: &str = "Mcp-Param-";

/// The JSON-RPC error code of a call whose headers disagree with its body
/// (`HeaderMismatch`), answered with HTTP status [`HTTP_STATUS`].
pub const HEADER_MISMATCH: i64 = -32020;

/// The HTTP status of a `HeaderMismatch` answer: 400 Bad Request.
pub const HTTP_STATUS: u16 = 400;

/// The largest integer MCP lets an integer header carry, 2^53 - 1 (and its
/// negation the smallest).
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;
