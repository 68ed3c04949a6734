//! Calling tools: the agent path ([`Registry::invoke`] and its streaming,
//! recorded and concurrent forms), the direct path
//! ([`Registry::call_json`]), and what the invoke module asks of a
//! registry ([`Catalog`]).

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use serde_json::Value;

use super::{Registry, versions};
use crate::context::{CallParts, ToolContext};
use crate::events::ToolCallStream;
use crate::events::record::ToolCallRecord;
use crate::invoke::Catalog;
use crate::invoke::policy::Settings;
use crate::spec::error::{ToolError, ToolErrorKind};
use crate::spec::result::{ToolResult, ToolUse};
use crate::spec::tool_spec::ToolSpec;
use crate::tool::{Tool, ToolRef};

impl Registry {
    /// Runs one tool use and returns its result: the agent path.
    ///
    /// This never panics and never fails: an unknown tool, invalid
    /// arguments, an `Err` from the tool and a panic inside it all become an
    /// error [`ToolResult`] whose text tells the model what went wrong. The
    /// registry is unaffected by a panicking tool and keeps serving.
    ///
    /// The registry's limits and policies apply: the tool's
    /// [scopes](ToolSpec::scopes) against the context's caller, the tool's
    /// time limit, cancellation through the context's token, the
    /// [`enabled_when`](crate::RegistryBuilder::enabled_when) predicate, approval
    /// for tools that need it, and [`ErrorDetail`](crate::registry::ErrorDetail).
    /// Each ends the call with an error result of its own
    /// [kind](crate::spec::ToolErrorKind). Every call runs in a `tool_call`
    /// tracing span (fields `tool`, `tool_use_id`, `status`, `duration_ms`).
    /// To watch a call as it runs, use [`stream`](Self::stream); for its
    /// record, [`invoke_recorded`](Self::invoke_recorded).
    ///
    /// The returned future owns what it needs (it borrows neither the
    /// registry nor `ctx`), so it can be spawned as it is.
    pub fn invoke(
        &self,
        tool_use: ToolUse,
        ctx: &ToolContext,
    ) -> impl Future<Output = ToolResult> + Send + 'static + use<> {
        crate::invoke::call(self, tool_use, ctx, None)
    }

    /// Calls the tool named `name` directly and returns its plain value: the
    /// direct path. Errors, including an unknown name, are returned as `Err`;
    /// a panic inside the tool is caught and returned as an `Err` too. The
    /// tool's [scopes](ToolSpec::scopes) are checked against the context's
    /// caller as on the agent path; its other policies are not applied.
    pub async fn call_json(
        &self,
        name: &str,
        input: Value,
        ctx: &ToolContext,
    ) -> Result<Value, ToolError> {
        crate::invoke::call_json(self, name, input, ctx).await
    }

    /// Runs one tool use and reads it as it runs: a stream of the progress,
    /// trace entries and partial outputs the tool reports, ending with its
    /// result (see [`ToolCallStream`]). Everything [`invoke`](Self::invoke)
    /// guarantees holds: the result is always there, errors included.
    ///
    /// ```
    /// use tool_runtime::{tool, Registry, ToolContext, ToolEvent, ToolUse};
    /// use futures_util::StreamExt;
    /// use serde_json::json;
    ///
    /// /// Counts to three, slowly.
    /// #[tool]
    /// fn count() -> impl tool_runtime::events::Stream<Item = u32> {
    ///     tool_runtime::stream! {
    ///         for i in 1..=3 {
    ///             tokio::task::yield_now().await;
    ///             yield i;
    ///         }
    ///     }
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let registry = Registry::builder().tool(CountTool).build().unwrap();
    /// let mut events = registry.stream(ToolUse::new("1", "count", json!({})), &ToolContext::new());
    /// let mut seen = Vec::new();
    /// while let Some(event) = events.next().await {
    ///     match event {
    ///         ToolEvent::Partial { value } => seen.push(value),
    ///         ToolEvent::Result(result) => assert_eq!(result.text_content(), "3"),
    ///         _ => {}
    ///     }
    /// }
    /// assert_eq!(seen, [json!(1), json!(2), json!(3)]);
    /// assert_eq!(events.record().status.as_str(), "completed");
    /// # });
    /// ```
    pub fn stream(&self, tool_use: ToolUse, ctx: &ToolContext) -> ToolCallStream {
        crate::invoke::stream(self, tool_use, ctx)
    }

    /// Runs one tool use like [`invoke`](Self::invoke) and also returns its
    /// [`ToolCallRecord`]: status, last progress, trace, times and result.
    pub async fn invoke_recorded(
        &self,
        tool_use: ToolUse,
        ctx: &ToolContext,
    ) -> (ToolResult, ToolCallRecord) {
        crate::invoke::invoke_recorded(self, tool_use, ctx).await
    }

    /// Runs several tool uses concurrently and returns their results in the
    /// order of `tool_uses`.
    ///
    /// At most [`concurrency_limit`](crate::RegistryBuilder::concurrency_limit)
    /// calls run at once; a finished call frees its slot at once, so a slow
    /// call holds up only itself, and a failing one spoils only its own
    /// result. The calls share the caller's task (use `blocking` tools for
    /// CPU-heavy sync work). Each call has every guarantee of
    /// [`invoke`](Self::invoke).
    ///
    /// A call of a [sequential](Self::is_sequential) tool is a barrier: the
    /// calls before it in `tool_uses` finish first, it runs alone, and the
    /// calls after it start once it has finished.
    pub async fn invoke_all(
        &self,
        tool_uses: impl IntoIterator<Item = ToolUse>,
        ctx: &ToolContext,
    ) -> Vec<ToolResult> {
        crate::invoke::sequence::invoke_all(self, tool_uses, ctx).await
    }

    /// Whether a call of the tool with the name or alias `name` is a
    /// barrier among calls made together: its spec says `sequential`
    /// (`#[tool(sequential)]`, `DynamicToolBuilder::sequential` (feature `dynamic`)),
    /// or it is annotated destructive and the registry was built with
    /// [`sequential_destructive(true)`](crate::RegistryBuilder::sequential_destructive).
    /// [`invoke_all`](Self::invoke_all) and the MCP server of `tool-mcp`
    /// run such a call alone. False for a name no tool has.
    pub fn is_sequential(&self, name: &str) -> bool {
        self.resolve(name).is_some_and(|tool| {
            crate::invoke::sequence::is_sequential(
                tool.spec(),
                self.settings.sequential_destructive,
            )
        })
    }

    /// Whether a model calling with `ctx` may see the tool: inside the
    /// allowlist (by name or alias), callable by the caller on `ctx` (its
    /// scopes), and enabled for `ctx`. A panicking
    /// [`enabled_when`](crate::RegistryBuilder::enabled_when) predicate hides it.
    fn offered(&self, spec: &ToolSpec, ctx: &ToolContext) -> bool {
        let allowed = self.allowlist.as_ref().is_none_or(|allow| {
            allow.allows(&spec.name) || spec.aliases.iter().any(|alias| allow.allows(alias))
        });
        allowed
            && crate::context::caller::may_call(ctx, spec)
            && self.settings.enabled.as_ref().is_none_or(|enabled| {
                std::panic::catch_unwind(AssertUnwindSafe(|| enabled(spec, ctx))).unwrap_or(false)
            })
    }
}

/// The registry is what the agent path calls tools from.
impl Catalog for Registry {
    #[inline]
    fn settings(&self) -> &Arc<Settings> {
        &self.settings
    }

    #[inline]
    fn resolve(&self, name: &str) -> Option<&dyn Tool> {
        Registry::resolve(self, name)
    }

    /// The tool with the name or alias `name`, as a handle a call can own,
    /// and whether a call of it needs nothing of its own: no context, no
    /// policy, no limit. (Found by position: tools are often zero-sized, so
    /// their addresses cannot tell them apart.)
    #[inline]
    fn tool_for_call(&self, name: &str) -> Option<(ToolRef, bool)> {
        let Some(i) = self.position(name) else {
            // A version called as `name@version`: always given a context.
            return versions::versioned(self, name).map(|tool| (tool.clone(), false));
        };
        let plain = self.plain[i] && !self.settings.governs_every_call();
        Some((self.tools[i].clone(), plain))
    }

    /// The context of one call: the caller's, narrowed to the tool use, with
    /// the tool's configuration and where its reports go.
    #[inline]
    fn call_context(
        &self,
        ctx: &ToolContext,
        id: String,
        tool: &dyn Tool,
        input: Value,
        sink: Option<Arc<crate::events::CallSink>>,
    ) -> ToolContext {
        let spec = tool.spec();
        let config = match spec.config {
            Some(_) => self.configs.get(&*spec.name).cloned(),
            None => None,
        };
        ctx.for_call(CallParts {
            id,
            name: spec.name.clone(),
            input,
            config,
            sink,
            registry_state: Some(&self.settings.state),
        })
    }

    fn sequential(&self, name: &str) -> bool {
        Registry::is_sequential(self, name)
    }

    /// The error for a call to a name no tool has, or one outside the
    /// allowlist. Its suggestions and list name only the tools the caller
    /// may see: allowed, and enabled for `ctx`. Built only on that path.
    fn unknown_tool(&self, name: &str, ctx: &ToolContext) -> ToolError {
        const SHOWN: usize = 20;
        let offered: Vec<&str> = self
            .tools
            .iter()
            .map(|tool| tool.spec())
            .filter(|spec| self.offered(spec, ctx))
            .map(|spec| &*spec.name)
            .collect();
        let listed = |more: bool| {
            let mut list = offered[..offered.len().min(SHOWN)].join(", ");
            if more && offered.len() > SHOWN {
                list.push_str(&format!(" and {} more", offered.len() - SHOWN));
            }
            list
        };
        // The name came from the model: quoted back escaped and cut short.
        let shown = crate::quote::name(name);
        if self
            .allowlist
            .as_ref()
            .is_some_and(|allow| !allow.allows(name))
        {
            return ToolError::with_kind(
                ToolErrorKind::NotAllowed,
                format!(
                    "tool \"{shown}\" is not allowed here; the tools you may call are: {}",
                    listed(false)
                ),
            );
        }
        if let Some(error) = versions::unavailable(self, name) {
            return error;
        }
        let mut message = format!("unknown tool \"{shown}\"");
        // A name longer than any tool's is no typo of one, and comparing
        // it would take time in proportion to its length.
        let close = (name.len() <= crate::quote::MAX_NAME)
            .then(|| crate::names::closest(name, offered.iter().copied()))
            .flatten();
        if let Some(close) = close {
            message.push_str(&format!("; did you mean \"{close}\"?"));
        }
        if offered.is_empty() {
            message.push_str("; no tools are available");
        } else {
            message.push_str(&format!("; available tools: {}", listed(true)));
        }
        ToolError::with_kind(ToolErrorKind::UnknownTool, message)
    }
}
