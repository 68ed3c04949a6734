//! A neighbour crate: it offers every built-in tool in a registry of its
//! own, which must not leak into the binary's.

use tool_runtime::Registry;

/// A registry of every built-in tool.
pub fn everything() -> Registry {
    Registry::builder()
        .tools(tool_builtin::ALL)
        .build()
        .expect("the built-in tools form a registry")
}
