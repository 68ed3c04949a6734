//! rig: a registry's tools as rig tools (feature `rig`, rig-core 0.44).
//!
//! [`tools`] gives one rig-core `DynamicTool` per tool of the registry, the
//! form rig takes tools in whose names and schemas are known at run time:
//! hand them to an agent with `AgentBuilder::dynamic_tools` (rig-agent),
//! or gather them in a `ToolSet` with `ToolSet::from_dynamic_tools`. rig
//! then offers them to the model and runs the model's calls; each call goes
//! through [`Registry::invoke`](tool_runtime::Registry::invoke) with the
//! context given to [`tools`].
//!
//! A call that fails is returned to rig as a `ToolExecutionError` whose
//! model-visible text is tool-runtime's: every argument problem at once
//! (`invalid arguments for weather: days: ...; unit: ...`), a panic
//! (`tool flaky panicked: ...`), a time limit (`tool slow timed out after
//! 50ms and was stopped`). Its kind follows tool-runtime's: invalid
//! arguments are `InvalidArgs`, an unknown tool `NotFound`, a time limit
//! `Timeout`, a cancellation `Cancelled`, a call refused by the registry's
//! policies `PermissionDenied`, anything else `Other`. A result that is one
//! JSON value goes back as rig JSON output, anything else as its text.
//!
//! A tool the registry renders strict comes with tool-runtime's strict
//! schema; rig's `ToolDefinition` has no strict flag, so tell rig's
//! Responses model to send tools strict (`with_strict_tools`) where the
//! provider should enforce it. Calls run as rig schedules them, each under
//! its tool's time limit and the registry's policies; the registry's
//! concurrency limit applies to [`Registry::invoke_all`] only, which rig
//! does not use.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rig_core::message::ToolName;
use rig_core::tool::{DynamicTool, ToolErrorKind as RigErrorKind, ToolExecutionError, ToolOutput};
use tool_runtime::{Content, Registry, ToolContext, ToolResult, ToolUse, spec::ToolErrorKind};

use crate::calls;

/// The registry's tools as rig `DynamicTool`s, in name order; each call
/// runs through the registry with `ctx` (its state, approver and
/// cancellation token).
///
/// rig does not pass a call's id to a tool, so each call gets one of its
/// own, `rig-call-N`, for the registry's records and tracing spans.
pub fn tools(registry: &Registry, ctx: &ToolContext) -> Vec<DynamicTool> {
    let shared = Arc::new(registry.clone());
    let counter = Arc::new(AtomicU64::new(0));
    calls::definitions(registry)
        .into_iter()
        .filter_map(|tool| {
            let name = ToolName::new(tool.name.clone()).ok()?;
            let registry = Arc::clone(&shared);
            let counter = Arc::clone(&counter);
            let ctx = ctx.clone();
            let tool_name = tool.name;
            Some(DynamicTool::new(
                name,
                tool.description,
                tool.parameters,
                move |arguments| {
                    let id = format!("rig-call-{}", counter.fetch_add(1, Ordering::Relaxed) + 1);
                    // The future owns what it needs: it borrows neither the
                    // registry nor the context.
                    let call =
                        registry.invoke(ToolUse::new(id, tool_name.clone(), arguments), &ctx);
                    Box::pin(async move { output(call.await) })
                },
            ))
        })
        .collect()
}

/// A result as rig takes it from a tool.
fn output(result: ToolResult) -> Result<ToolOutput, ToolExecutionError> {
    if result.is_error() {
        let kind = match result.error_kind {
            Some(ToolErrorKind::InvalidArguments) => RigErrorKind::InvalidArgs,
            Some(ToolErrorKind::UnknownTool) => RigErrorKind::NotFound,
            Some(ToolErrorKind::TimedOut) => RigErrorKind::Timeout,
            Some(ToolErrorKind::Cancelled) => RigErrorKind::Cancelled,
            Some(
                ToolErrorKind::NotAllowed
                | ToolErrorKind::NotApproved
                | ToolErrorKind::Disabled
                | ToolErrorKind::InsufficientScope,
            ) => RigErrorKind::PermissionDenied,
            _ => RigErrorKind::Other,
        };
        // An error made with `new` shows the model its message as it is.
        return Err(ToolExecutionError::new(kind, result.text_content()));
    }
    match result.content.as_slice() {
        [Content::Json(value)] => Ok(ToolOutput::json(value.clone())),
        _ => Ok(ToolOutput::text(result.text_content())),
    }
}
