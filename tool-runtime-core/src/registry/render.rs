//! Rendering for a provider: the tool definitions (cached per provider,
//! with deferred tools when there are any) and the results of calls.

use serde_json::Value;

use super::Registry;
use crate::providers::Offer;
use crate::providers::Provider;
use crate::search::SearchTool;
use crate::spec::result::{ToolResult, ToolUse};
use crate::spec::tool_spec::ToolSpec;

impl Registry {
    /// Every tool's definition as the value `provider`'s request takes (see
    /// [`render_tools`](crate::providers::render_tools)), in name order.
    ///
    /// A registry that defers tools renders what to offer instead (see
    /// [`render_offered_tools`](crate::providers::render_offered_tools)):
    /// for Anthropic and the OpenAI Responses API, the provider's tool
    /// search and every tool, deferred ones flagged; for the others, the
    /// tools not deferred and `search_tools`.
    ///
    /// Rendered on first use for each provider and cached: an agent loop
    /// that sends the tools with every request pays for the schema
    /// conversions once. For OpenAI, tools are strict when marked
    /// `#[tool(strict)]` or when the registry was built with
    /// [`strict(true)`](crate::RegistryBuilder::strict).
    pub fn render(&self, provider: Provider) -> &Value {
        self.renderings.get_or_render(provider, || {
            if self.search.is_some() || self.deferral.is_set() {
                let tools = self.specs().map(|spec| (spec, self.offer(spec)));
                return crate::providers::render_offered_tools_with(provider, tools, self.strict);
            }
            crate::providers::render_tools_with(provider, self.specs(), self.strict)
        })
    }

    /// Whether the tool named `name` is deferred: left out of each request
    /// until a search finds it (see [`RegistryBuilder::defer`](crate::RegistryBuilder::defer)).
    pub fn is_deferred(&self, name: &str) -> bool {
        self.deferral.defers(name) && self.contains(name)
    }

    /// The specs of the tools offered with every request where the
    /// provider has no tool search of its own: every tool not deferred,
    /// `search_tools` included, in name order. Without deferral, every
    /// tool.
    pub fn offered_specs(&self) -> impl Iterator<Item = &ToolSpec> + '_ {
        self.specs()
            .filter(move |spec| !self.deferral.defers(&spec.name))
    }

    /// The registry's `search_tools`, when it has one
    /// ([`RegistryBuilder::tool_search`](crate::RegistryBuilder::tool_search), or tools deferred).
    pub fn search_tool(&self) -> Option<&SearchTool> {
        self.search.as_deref()
    }

    /// How the tool with this spec is offered.
    fn offer(&self, spec: &ToolSpec) -> Offer {
        if self.search.is_some() && spec.name == SearchTool::NAME {
            Offer::Search
        } else if self.deferral.defers(&spec.name) {
            Offer::Deferred
        } else {
            Offer::Always
        }
    }

    /// The tool definitions for a request that also carries the deferred
    /// tools named in `loaded` (those `search_tools` found: see
    /// [`search::found_names`](crate::search::found_names)), in name
    /// order; names of other tools, or of none, are passed over.
    ///
    /// For a provider [with tool search of its
    /// own](Provider::has_tool_search) this is [`render`](Self::render)'s
    /// value: the provider loads what its search finds. Not cached.
    pub fn render_loaded<S: AsRef<str>>(
        &self,
        provider: Provider,
        loaded: impl IntoIterator<Item = S>,
    ) -> Value {
        if provider.has_tool_search() || !self.deferral.is_set() {
            return self.render(provider).clone();
        }
        let loaded: Vec<S> = loaded.into_iter().collect();
        let specs = self.specs().filter(|spec| {
            !self.deferral.defers(&spec.name)
                || loaded.iter().any(|name| name.as_ref() == spec.name)
        });
        crate::providers::render_tools_with(provider, specs, self.strict)
    }

    /// The `<tools>` block for a system prompt, as [`Provider::Xml`]
    /// renders it.
    pub fn render_xml(&self) -> &str {
        self.render(Provider::Xml).as_str().unwrap_or_default()
    }

    /// Every tool as plain text for a prompt that lists tools in prose
    /// (see [`providers::text`](crate::providers::text)), in name order:
    /// those the XML rendering offers, so a registry that defers tools
    /// lists those not deferred and `search_tools`. Not cached.
    pub fn render_text(&self) -> String {
        if self.search.is_some() || self.deferral.is_set() {
            return crate::providers::text::render_tools(self.offered_specs());
        }
        crate::providers::text::render_tools(self.specs())
    }

    /// The tool calls written as `<tool_call>` elements in a plain-text
    /// answer (see [`providers::xml::parse_tool_calls`](crate::providers::xml::parse_tool_calls)),
    /// each tool with a formatter of its own reading the calls of it.
    pub fn parse_xml_calls(
        &self,
        text: &str,
    ) -> Result<Vec<ToolUse>, crate::providers::ProviderError> {
        crate::providers::xml::parse_tool_calls(text, self.specs())
    }

    /// The result of `call` as `provider`'s message, with the called tool's
    /// spec looked up by name (see [`render_result`](crate::providers::render_result)).
    pub fn render_result(&self, provider: Provider, call: &ToolUse, result: &ToolResult) -> Value {
        let spec = self.resolve(&call.name).map(|tool| tool.spec());
        crate::providers::render_result(provider, call, result, spec)
    }

    /// The results of several calls as what `provider` expects next in the
    /// conversation (see [`render_results`](crate::providers::render_results)).
    pub fn render_results<'a>(
        &self,
        provider: Provider,
        outcomes: impl IntoIterator<Item = (&'a ToolUse, &'a ToolResult)>,
    ) -> Value {
        crate::providers::render_results(
            provider,
            outcomes.into_iter().map(|(call, result)| {
                let spec = self.resolve(&call.name).map(|tool| tool.spec());
                (call, result, spec)
            }),
        )
    }
}
