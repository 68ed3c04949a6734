//! Policies a registry applies to every call on the agent path: which
//! tools are enabled, which need approval, time limits, and how much of an
//! unexpected failure the model may read.
//!
//! They are set on the [`RegistryBuilder`](crate::RegistryBuilder):
//! [`approver`](crate::RegistryBuilder::approver),
//! [`require_approval`](crate::RegistryBuilder::require_approval),
//! [`enabled_when`](crate::RegistryBuilder::enabled_when),
//! [`default_timeout`](crate::RegistryBuilder::default_timeout) and
//! [`error_detail`](crate::RegistryBuilder::error_detail). The approver
//! itself is in the context's module, since a call can bring its own
//! ([`ToolContext::with_approver`](crate::ToolContext::with_approver)).

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use crate::context::approval::{Approval, ApprovalRequest, Approver};
use crate::context::{ToolContext, TypeMap};
use crate::spec::error::{ToolError, ToolErrorKind};
use crate::spec::tool_spec::ToolSpec;

/// How much the model reads of a panic or an internal error.
///
/// Whatever the setting, the text names the tool and the kind of failure,
/// the full text is logged through `tracing`, and an error's
/// [detail](crate::ToolError::with_detail) is only ever logged.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ErrorDetail {
    /// The model reads the panic message or the internal error's text:
    /// `tool parse_csv panicked: index out of bounds`. Handy while
    /// developing; the default.
    #[default]
    Full,
    /// The model reads only that the tool failed and how:
    /// `tool parse_csv panicked; the details were logged`.
    Redacted,
}

/// Whether a tool is offered and callable in a given context.
pub(crate) type EnabledFn = dyn Fn(&ToolSpec, &ToolContext) -> bool + Send + Sync;

/// Whether a tool needs approval, beyond its own spec.
pub(crate) type RequireApprovalFn = dyn Fn(&ToolSpec) -> bool + Send + Sync;

/// A registry's limits and policies.
#[derive(Default, Clone)]
pub(crate) struct Settings {
    pub(crate) state: Arc<TypeMap>,
    pub(crate) default_timeout: Option<Duration>,
    pub(crate) concurrency_limit: Option<usize>,
    pub(crate) approver: Option<Approver>,
    pub(crate) require_approval: Option<Arc<RequireApprovalFn>>,
    pub(crate) enabled: Option<Arc<EnabledFn>>,
    pub(crate) error_detail: ErrorDetail,
    /// Whether tools annotated destructive are sequential
    /// (`RegistryBuilder::sequential_destructive`).
    pub(crate) sequential_destructive: bool,
    /// The registry's result limit, for tools without one of their own.
    pub(crate) result_limit: Option<crate::spec::limit::ResultLimit>,
    /// How a limit in tokens counts them (`RegistryBuilder::token_counter`).
    pub(crate) token_counter: crate::spec::limit::Counter,
    /// Where full results cut to their limit are kept.
    pub(crate) results: Arc<super::store::ResultStore>,
    /// Whether the registry offers `read_result`, which markers then name.
    pub(crate) read_result: bool,
}

impl Settings {
    /// Whether a call of the tool with `spec` has anything to check or
    /// limit: a policy hook, approval, a time limit, a blocking thread.
    /// Most calls have none and take the direct path.
    pub(super) fn govern(&self, spec: &ToolSpec) -> bool {
        self.governs_every_call() || Self::governs_tool(spec)
    }

    /// Whether the tool's own spec asks for approval, a time limit, a
    /// blocking thread, its own formatting of results or a result limit.
    pub(crate) fn governs_tool(spec: &ToolSpec) -> bool {
        spec.needs_approval
            || spec.timeout.is_some()
            || spec.blocking
            || spec.formatter.is_some()
            || spec.result_limit.is_some()
    }

    /// Whether a policy hook, a default time limit or a result limit
    /// applies to every call.
    pub(crate) fn governs_every_call(&self) -> bool {
        self.enabled.is_some()
            || self.require_approval.is_some()
            || self.default_timeout.is_some()
            || self.result_limit.is_some()
    }
}

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings")
            .field("state", &self.state.len())
            .field("default_timeout", &self.default_timeout)
            .field("concurrency_limit", &self.concurrency_limit)
            .field("approver", &self.approver.is_some())
            .field("require_approval", &self.require_approval.is_some())
            .field("enabled", &self.enabled.is_some())
            .field("error_detail", &self.error_detail)
            .field("result_limit", &self.result_limit)
            .field("read_result", &self.read_result)
            .finish()
    }
}

/// Asks the call's approver, else the registry's; no approver refuses.
pub(super) async fn approve(
    settings: &Settings,
    spec: &ToolSpec,
    ctx: &ToolContext,
) -> Result<(), ToolError> {
    let name = &*spec.name;
    let Some(approver) = ctx.approver().or(settings.approver.as_ref()).cloned() else {
        return Err(ToolError::with_kind(
            ToolErrorKind::NotApproved,
            format!(
                "the call to {name} needs approval and no approver is configured, so it was not run"
            ),
        ));
    };
    let request = ApprovalRequest {
        tool_use_id: ctx.tool_use_id().unwrap_or_default().to_owned(),
        spec: spec.clone(),
        input: ctx.input().clone(),
        context: ctx.clone(),
    };
    // Cancellation first, then the approver's answer.
    let mut cancelled = std::pin::pin!(ctx.cancelled());
    let mut decision = std::pin::pin!(approver.decide(request));
    let decision = std::future::poll_fn(|cx| {
        if cancelled.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        decision.as_mut().poll(cx).map(Some)
    })
    .await;
    let Some(decision) = decision else {
        return Err(super::cancelled(name));
    };
    match decision {
        Approval::Approve => {
            crate::trace::debug!("call approved");
            Ok(())
        }
        Approval::Reject(reason) => {
            crate::trace::debug!(reason = %reason, "call rejected");
            Err(ToolError::with_kind(
                ToolErrorKind::NotApproved,
                format!("the call to {name} was rejected: {reason}"),
            ))
        }
    }
}
