//! Calls made together, some of them sequential ([`Registry::invoke_all`](crate::Registry::invoke_all)):
//! a call of a tool whose spec says `sequential` (or, with
//! [`RegistryBuilder::sequential_destructive`](crate::RegistryBuilder::sequential_destructive),
//! one annotated destructive) is a barrier. The calls before it in the list
//! finish first, it runs alone, and the calls after it start once it has
//! finished; between barriers, calls run at once, within the registry's
//! concurrency limit.

use std::future::Future;

use super::{Catalog, poll};
use crate::context::ToolContext;
use crate::spec::result::{ToolResult, ToolUse};
use crate::spec::tool_spec::ToolSpec;

/// Several calls at once, results in order; see [`Registry::invoke_all`](crate::Registry::invoke_all).
pub(crate) async fn invoke_all(
    registry: &impl Catalog,
    tool_uses: impl IntoIterator<Item = ToolUse>,
    ctx: &ToolContext,
) -> Vec<ToolResult> {
    let limit = registry.settings().concurrency_limit.unwrap_or(usize::MAX);
    let mut barriers = false;
    let calls: Vec<_> = tool_uses
        .into_iter()
        .map(|tool_use| {
            let barrier = registry.sequential(&tool_use.name);
            barriers |= barrier;
            (super::call(registry, tool_use, ctx, None), barrier)
        })
        .collect();
    if !barriers {
        let calls = calls.into_iter().map(|(call, _)| call).collect();
        return poll::join_limited(calls, limit).await;
    }
    in_stretches(calls, limit).await
}

/// Whether a call of the tool with `spec` is a barrier among calls made
/// together: its spec says so, or it is annotated destructive and the
/// registry makes such tools sequential (`destructive`).
pub(crate) fn is_sequential(spec: &ToolSpec, destructive: bool) -> bool {
    spec.sequential || (destructive && spec.annotations.destructive == Some(true))
}

/// Runs `calls` in order of the list, those marked as barriers alone: the
/// unmarked calls between two barriers at most `limit` at a time, each
/// barrier once every call before it has finished. The outputs come in the
/// order of `calls`.
async fn in_stretches<F: Future>(calls: Vec<(F, bool)>, limit: usize) -> Vec<F::Output> {
    let mut outputs = Vec::with_capacity(calls.len());
    let mut stretch = Vec::new();
    for (call, barrier) in calls {
        if barrier {
            outputs.extend(poll::join_limited(std::mem::take(&mut stretch), limit).await);
            outputs.push(call.await);
        } else {
            stretch.push(call);
        }
    }
    outputs.extend(poll::join_limited(stretch, limit).await);
    outputs
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;

    #[tokio::test]
    async fn a_barrier_waits_for_the_calls_before_it_and_holds_those_after() {
        let log = RefCell::new(Vec::new());
        let call = |name: &'static str| {
            let log = &log;
            async move {
                log.borrow_mut().push(format!("{name} start"));
                tokio::task::yield_now().await;
                log.borrow_mut().push(format!("{name} end"));
                name
            }
        };
        let calls = vec![
            (call("a"), false),
            (call("b"), false),
            (call("s"), true),
            (call("c"), false),
        ];
        assert_eq!(in_stretches(calls, 8).await, ["a", "b", "s", "c"]);
        assert_eq!(
            log.into_inner(),
            [
                "a start", "b start", "a end", "b end", "s start", "s end", "c start", "c end"
            ]
        );
    }
}
