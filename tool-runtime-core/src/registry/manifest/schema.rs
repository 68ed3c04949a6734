//! The JSON Schema of a registry file, assembled from its sections'
//! schemas; published as `docs/registry-file.schema.json`.

use serde_json::{Value, json};

use super::{http_tools, mcp_servers, openapi, tools};

/// The JSON Schema of a registry file.
pub fn schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://tool-runtime.invalid/registry-file.schema.json",
        "title": "Tool registry file",
        "description": "Which linked #[tool]s to enable, their aliases and their configuration; the MCP servers whose tools are offered too; tools that are HTTP requests, declared one by one or generated from OpenAPI documents.",
        "type": "object",
        "properties": {
            "$schema": {"type": "string", "description": "The schema this file follows, for editors."},
            "mcp_servers": mcp_servers::schema(),
            "http_tools": http_tools::schema(),
            "openapi": openapi::schema(),
            "tools": tools::schema()
        },
        "anyOf": [
            {"required": ["tools"]},
            {"required": ["mcp_servers"]},
            {"required": ["http_tools"]},
            {"required": ["openapi"]}
        ],
        "additionalProperties": false
    })
}
