//! Approval before a tool runs: the [`Approver`] that decides, what it is
//! asked ([`ApprovalRequest`]) and its answer ([`Approval`]).
//!
//! An approver is set on the registry
//! ([`RegistryBuilder::approver`](crate::RegistryBuilder::approver)) or comes
//! with the call, on the context
//! ([`ToolContext::with_approver`](crate::ToolContext::with_approver)).

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures_core::future::BoxFuture;
use serde_json::Value;

use crate::context::ToolContext;
use crate::spec::tool_spec::ToolSpec;

/// An approver's decision on one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Run the tool.
    Approve,
    /// Do not run it; the reason is what the model reads, in an error
    /// result of kind [`NotApproved`](crate::spec::ToolErrorKind::NotApproved).
    Reject(String),
}

impl Approval {
    /// A rejection with the reason the model will read.
    pub fn reject(reason: impl Into<String>) -> Self {
        Approval::Reject(reason.into())
    }

    /// Whether this approves the call.
    pub fn is_approved(&self) -> bool {
        matches!(self, Approval::Approve)
    }
}

/// A call waiting for approval: what an [`Approver`] decides on.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ApprovalRequest {
    /// The tool use id.
    pub tool_use_id: String,
    /// The spec of the tool the model wants to run.
    pub spec: ToolSpec,
    /// The arguments the model gave, as sent (not yet validated).
    pub input: Value,
    /// The context of the call (its invocation state, extensions, ...).
    pub context: ToolContext,
}

impl ApprovalRequest {
    /// The name of the tool the model wants to run.
    pub fn tool(&self) -> &str {
        &self.spec.name
    }
}

type ApproveFn = dyn Fn(ApprovalRequest) -> BoxFuture<'static, Approval> + Send + Sync;

/// Decides whether a call that needs approval may run: a human in the
/// loop, a rule engine, a test double.
///
/// A tool needs approval when its spec says so (`#[tool(needs_approval)]`)
/// or the registry's [`require_approval`](crate::RegistryBuilder::require_approval)
/// predicate says so. Before such a tool runs, the approver on the call's
/// context ([`ToolContext::with_approver`]) is asked, else the registry's
/// ([`RegistryBuilder::approver`](crate::RegistryBuilder::approver)). With
/// neither, the call is refused: a tool that needs approval never runs
/// silently.
///
/// ```
/// use tool_runtime::{tool, context::Approval, context::Approver, Registry, ToolContext, spec::ToolErrorKind, ToolUse};
/// use serde_json::json;
///
/// /// Deletes a file.
/// #[tool(needs_approval)]
/// fn delete_file(path: String) -> String {
///     format!("deleted {path}")
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let registry = Registry::builder()
///     .tool(DeleteFileTool)
///     .approver(Approver::new(|request| {
///         if request.input["path"].as_str().is_some_and(|p| p.starts_with("/tmp/")) {
///             Approval::Approve
///         } else {
///             Approval::reject("only files under /tmp/ may be deleted")
///         }
///     }))
///     .build()
///     .unwrap();
/// let ctx = ToolContext::new();
///
/// let ok = registry.invoke(ToolUse::new("1", "delete_file", json!({"path": "/tmp/x"})), &ctx).await;
/// assert_eq!(ok.text_content(), "deleted /tmp/x");
///
/// let no = registry.invoke(ToolUse::new("2", "delete_file", json!({"path": "/etc/passwd"})), &ctx).await;
/// assert_eq!(no.error_kind, Some(ToolErrorKind::NotApproved));
/// assert_eq!(
///     no.text_content(),
///     "the call to delete_file was rejected: only files under /tmp/ may be deleted"
/// );
/// # });
/// ```
#[derive(Clone)]
pub struct Approver {
    decide: Arc<ApproveFn>,
}

impl Approver {
    /// An approver that decides at once.
    pub fn new(decide: impl Fn(&ApprovalRequest) -> Approval + Send + Sync + 'static) -> Self {
        Self {
            decide: Arc::new(move |request: ApprovalRequest| {
                let approval = decide(&request);
                Box::pin(async move { approval })
            }),
        }
    }

    /// An approver that takes its time: asks a person, a service, ...
    /// The call waits for it (cancelling the call's context stops the
    /// wait); the tool's timeout does not count the wait.
    pub fn new_async<F, Fut>(decide: F) -> Self
    where
        F: Fn(ApprovalRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Approval> + Send + 'static,
    {
        Self {
            decide: Arc::new(move |request| Box::pin(decide(request))),
        }
    }

    /// Asks for a decision on `request`.
    pub fn decide(&self, request: ApprovalRequest) -> impl Future<Output = Approval> + Send {
        (self.decide)(request)
    }
}

impl fmt::Debug for Approver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Approver")
    }
}
