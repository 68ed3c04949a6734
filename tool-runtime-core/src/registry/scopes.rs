//! Scopes a builder adds to tools by name
//! ([`RegistryBuilder::require_scopes`](super::RegistryBuilder::require_scopes),
//! a registry file's `scopes:`): each such tool is held with a spec of its
//! own that needs them besides its own.

use std::borrow::Cow;

use serde_json::Value;

use crate::context::ToolContext;
use crate::spec::args::Checked;
use crate::spec::tool_spec::ToolSpec;
use crate::tool::{Tool, ToolFuture, ToolRef};

/// The scopes added to the tools of one name.
pub(super) type Added = (String, Vec<Cow<'static, str>>);

/// `tool` as the registry holds it: with the scopes `added` gives its name
/// joined to its own (each once, its own first), or as it is when none are
/// added or it has them all.
pub(super) fn add(tool: ToolRef, added: &[Added]) -> ToolRef {
    let spec = tool.spec();
    let mut scopes: Vec<Cow<'static, str>> = spec.scopes.to_vec();
    for (_, more) in added.iter().filter(|(name, _)| *name == spec.name) {
        for scope in more {
            if !scopes.contains(scope) {
                scopes.push(scope.clone());
            }
        }
    }
    if scopes.len() == spec.scopes.len() {
        return tool;
    }
    let mut spec = spec.clone();
    spec.scopes = Cow::Owned(scopes);
    ToolRef::Shared(std::sync::Arc::new(Scoped { tool, spec }))
}

/// A tool with the scopes a builder added: its own spec, the same calls.
struct Scoped {
    tool: ToolRef,
    spec: ToolSpec,
}

impl Tool for Scoped {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn takes_context(&self) -> bool {
        self.tool.takes_context()
    }

    fn call<'a>(&'a self, input: &'a Value, ctx: &'a ToolContext) -> ToolFuture<'a> {
        self.tool.call(input, ctx)
    }

    fn call_checked<'a>(&'a self, input: Checked<'a>, ctx: &'a ToolContext) -> ToolFuture<'a> {
        self.tool.call_checked(input, ctx)
    }

    fn call_str<'a>(&'a self, input: &'a str, ctx: &'a ToolContext) -> ToolFuture<'a> {
        self.tool.call_str(input, ctx)
    }

    fn call_json<'a>(&'a self, input: &'a Value, ctx: &'a ToolContext) -> ToolFuture<'a, Value> {
        self.tool.call_json(input, ctx)
    }
}
