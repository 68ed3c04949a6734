//! Log messages from tools to the client over the HTTP transport, in
//! rmcp's types: `logging/setLevel` and `notifications/message`.
//!
//! rmcp marks MCP's logging deprecated (a newer protocol draft replaces
//! it), yet today's clients and the conformance suite use it; this module
//! holds every use of those types, so the allowance stays here.
#![allow(deprecated)]

use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::{Peer, RoleServer};
use serde_json::Value;
use tool_runtime::LogLevel;

/// Sends one log message of tool `tool` to the client.
pub(super) async fn send(peer: &Peer<RoleServer>, level: LogLevel, tool: &str, message: String) {
    if let Err(error) = peer
        .notify_logging_message(params(level, tool, message))
        .await
    {
        tracing::debug!(%error, "a log message could not be sent");
    }
}

fn params(level: LogLevel, tool: &str, message: String) -> LoggingMessageNotificationParam {
    LoggingMessageNotificationParam::new(mcp_level(level), Value::String(message))
        .with_logger(tool.to_owned())
}

/// MCP's name for a log level.
fn mcp_level(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        LogLevel::Emergency => LoggingLevel::Emergency,
    }
}

/// The runtime's name for an MCP log level.
pub(super) fn runtime_level(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        LoggingLevel::Emergency => LogLevel::Emergency,
    }
}
