//! The form of the `http_tools` and `openapi` sections, for their JSON
//! Schemas: each doc comment is a description. Entries are read from the
//! YAML with their places (`super`), not through these types.
#![allow(
    dead_code,
    reason = "forms for the schema: entries are read from the YAML"
)]

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde_json::{Map, Value};

use crate::http::HttpConfig;

/// The JSON Schema of the `http_tools` section.
pub(super) fn http_tools() -> Value {
    tool_manifest::section_schema::<HttpToolsForm>()
}

/// The JSON Schema of the `openapi` section.
pub(super) fn openapi() -> Value {
    tool_manifest::section_schema::<OpenApiForm>()
}

/// Tools that make one HTTP request each.
#[derive(JsonSchema)]
struct HttpToolsForm(Vec<HttpToolForm>);

/// A tool that makes one HTTP request to the host of its URL, and nowhere
/// else.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
struct HttpToolForm {
    /// The tool's name.
    #[schemars(regex(pattern = r"^[a-zA-Z0-9_-]{1,64}$"))]
    name: String,
    /// What the tool does, for the model.
    description: String,
    /// A human-readable title.
    title: Option<String>,
    /// The HTTP method.
    #[schemars(default = "default_method")]
    method: Method,
    /// The URL template, such as https://api.example.com/items/{id}: {name}
    /// placeholders in the path are filled with the parameters' values,
    /// percent-encoded.
    url: String,
    /// The arguments: a list of `name: {type, description, required,
    /// default, enum, items}`, or a JSON Schema of an object.
    parameters: Option<ParametersForm>,
    /// Query parameters: name to a template ("{limit}", "${API_KEY}",
    /// text), or a list of parameter names sent under their own names.
    query: Option<QueryForm>,
    /// Request headers: name to a template; ${VAR} takes a value from the
    /// environment, which is never shown in errors.
    headers: Option<BTreeMap<String, TemplateForm>>,
    /// The JSON body: any JSON value in which a string "{name}" is the
    /// argument's value, and other strings are templates.
    body: Option<Value>,
    #[schemars(flatten)]
    limits: LimitsForm,
}

/// An HTTP method, in capitals or not.
#[derive(JsonSchema, serde::Serialize)]
enum Method {
    #[serde(rename = "GET")]
    Get,
    #[serde(rename = "POST")]
    Post,
    #[serde(rename = "PUT")]
    Put,
    #[serde(rename = "PATCH")]
    Patch,
    #[serde(rename = "DELETE")]
    Delete,
    #[serde(rename = "get")]
    GetLower,
    #[serde(rename = "post")]
    PostLower,
    #[serde(rename = "put")]
    PutLower,
    #[serde(rename = "patch")]
    PatchLower,
    #[serde(rename = "delete")]
    DeleteLower,
}

fn default_method() -> Method {
    Method::Get
}

/// An HTTP tool's arguments.
#[derive(JsonSchema)]
#[schemars(untagged)]
enum ParametersForm {
    /// A list of `name: {type, description, required, default, enum,
    /// items}`, or `name: type`.
    List(Vec<ParameterItemForm>),
    /// A JSON Schema describing an object.
    Schema(Map<String, Value>),
}

/// One parameter: its name to what it is.
#[derive(JsonSchema)]
#[schemars(extend("minProperties" = 1, "maxProperties" = 1))]
struct ParameterItemForm(BTreeMap<String, ParameterForm>);

/// One of an HTTP tool's parameters: its type alone, or `{type,
/// description, required, default, enum, items}`.
#[derive(JsonSchema)]
#[schemars(untagged)]
enum ParameterForm {
    /// The parameter's type alone.
    Type(ParameterType),
    /// The parameter in full.
    Full(ParameterSpecForm),
}

/// A parameter in full.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
struct ParameterSpecForm {
    /// The JSON type.
    #[serde(rename = "type")]
    #[schemars(default = "default_type")]
    kind: ParameterType,
    /// What the model should give.
    description: Option<String>,
    /// Whether the model must give it.
    #[schemars(default)]
    required: bool,
    /// The value used when the model gives none.
    default: Option<Value>,
    /// The values allowed.
    #[serde(rename = "enum")]
    allowed: Option<Vec<Value>>,
    /// The type of the items of an `array`.
    #[schemars(default = "default_type")]
    items: ParameterType,
}

/// A parameter's JSON type.
#[derive(JsonSchema, serde::Serialize)]
#[serde(rename_all = "lowercase")]
enum ParameterType {
    String,
    Integer,
    Number,
    Boolean,
    Array,
    Object,
}

fn default_type() -> ParameterType {
    ParameterType::String
}

/// Query parameters.
#[derive(JsonSchema)]
#[schemars(untagged)]
enum QueryForm {
    /// Name to a template ("{limit}", "${API_KEY}", text).
    Templates(BTreeMap<String, TemplateForm>),
    /// Parameter names, each sent under its own name.
    Names(Vec<String>),
}

/// A template: text with {name} placeholders and ${VAR} values, or a
/// number or a boolean written as is.
#[derive(JsonSchema)]
#[schemars(untagged)]
enum TemplateForm {
    /// Text.
    Text(String),
    /// A number.
    Number(f64),
    /// A boolean.
    Flag(bool),
}

/// OpenAPI documents, by name, whose operations become tools.
#[derive(JsonSchema)]
#[schemars(extend("propertyNames" = {"pattern": "^[a-zA-Z0-9_-]{1,64}$"}))]
struct OpenApiForm(BTreeMap<String, OpenApiEntryForm>);

/// An OpenAPI 3.0 or 3.1 document whose operations become tools.
#[derive(JsonSchema)]
#[schemars(deny_unknown_fields)]
struct OpenApiEntryForm {
    /// The document: a path (relative to this file) or an http(s) URL,
    /// JSON or YAML.
    document: String,
    /// The URL the operations' paths are put after, and the only origin
    /// their requests (and credentials) go to. Required for a document read
    /// from a file; for a document fetched from a URL, the default is that
    /// URL's origin with the path of the document's first server.
    base_url: Option<String>,
    /// Origins (scheme, host and optional port, such as
    /// https://api.example.com:8443) other than its own that a document
    /// fetched from a URL may name in its first `servers` entry; without
    /// it, such a server is refused.
    allowed_origins: Option<Vec<String>>,
    /// Only the operations with these operationIds or tags.
    include: Option<Vec<String>>,
    /// Not the operations with these operationIds or tags.
    exclude: Option<Vec<String>>,
    /// A prefix for the tools' names.
    prefix: Option<String>,
    /// Credentials by security scheme name (of
    /// components.securitySchemes), such as ${PETSTORE_KEY}.
    auth: Option<BTreeMap<String, String>>,
    /// Headers sent with every call; ${VAR} takes a value from the
    /// environment.
    headers: Option<BTreeMap<String, TemplateForm>>,
    #[schemars(flatten)]
    limits: LimitsForm,
}

/// The guards of one HTTP tool (or of an OpenAPI document's tools): time
/// limits, sizes and redirects.
#[derive(JsonSchema)]
struct LimitsForm {
    /// The time limit of one call, redirects and reading the body
    /// included, in milliseconds.
    #[schemars(range(min = 1), default = "limits::timeout_ms")]
    timeout_ms: u64,
    /// The time limit for opening each connection, in milliseconds.
    #[schemars(range(min = 1), default = "limits::connect_timeout_ms")]
    connect_timeout_ms: u64,
    /// The most bytes of a response body read.
    #[schemars(range(min = 1), default = "limits::max_response_bytes")]
    max_response_bytes: u64,
    /// The largest request body sent, in bytes.
    #[schemars(default = "limits::max_request_bytes")]
    max_request_bytes: u64,
    /// How many redirects one call follows, each to the tool's own host
    /// only.
    #[schemars(range(max = 20), default = "limits::max_redirects")]
    max_redirects: u32,
}

/// The limits' defaults: `http_request`'s.
mod limits {
    use super::HttpConfig;

    pub(super) fn timeout_ms() -> u64 {
        HttpConfig::default().timeout_ms
    }

    pub(super) fn connect_timeout_ms() -> u64 {
        HttpConfig::default().connect_timeout_ms
    }

    pub(super) fn max_response_bytes() -> u64 {
        HttpConfig::default().max_response_bytes
    }

    pub(super) fn max_request_bytes() -> u64 {
        HttpConfig::default().max_request_bytes
    }

    pub(super) fn max_redirects() -> u32 {
        HttpConfig::default().max_redirects
    }
}
