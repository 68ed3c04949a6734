//! The tool list as the server serves it: a registry's tools rendered once
//! in MCP's `tools/list` shape for each state of the registry, marked with
//! `execution.taskSupport` for the revisions that have it, and without the
//! tools whose header parameters break MCP's rules, which the server
//! neither lists nor runs. A tool that has an app's view has its link
//! (`_meta.ui`, [`crate::apps`]) merged into the `_meta` the runtime gives
//! it.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde_json::{Map, Value};
use tool_runtime::providers;
use tool_runtime::{Registry, ToolContext, ToolSpec};

use crate::apps::{AppLinks, Link};
use crate::headers;
use crate::resources::Resources;

/// The revisions whose tool definitions say whether a tool's calls may run
/// as tasks (`execution.taskSupport`): 2025-11-25, whose tasks are part of
/// the protocol. The stateless revision has them as an extension, where
/// the server decides call by call, and no such field.
const TASK_SUPPORT_REVISIONS: [&str; 1] = ["2025-11-25"];

/// A registry's tools in the `tools/list` shape.
pub(super) struct Listed {
    pub(super) registry: Arc<Registry>,
    /// The stamp of the app links the list was rendered with (0: none,
    /// never a stamp of links).
    pub(super) links: u64,
    /// Each tool in MCP's shape, in name order.
    pub(super) json: Vec<Value>,
    /// The same with `execution.taskSupport` on the tools whose calls may
    /// run as tasks; `None` when no tool's may.
    marked: Option<Vec<Value>>,
    /// The tools not served, by name, each with why: those whose header
    /// parameters break MCP's rules ([`headers::refusal`]).
    refused: HashMap<String, String>,
}

impl Listed {
    /// The list of `registry`'s tools, with `links`' views; `resources`
    /// (those the server serves) to warn of a view that is not served.
    pub(super) fn of(
        registry: Arc<Registry>,
        links: &AppLinks,
        resources: Option<&Resources>,
    ) -> Self {
        let (links, stamp) = links.snapshot();
        let views = views(&registry, &links, resources);
        let json: Vec<Value> = registry
            .specs()
            .map(|spec| with_view(mcp_tool(spec), views.get(&*spec.name)))
            .collect();
        let marked = registry
            .specs()
            .any(|spec| spec.task_support.allows_tasks())
            .then(|| {
                registry
                    .specs()
                    .zip(&json)
                    .map(|(spec, tool)| with_task_support(spec, tool.clone()))
                    .collect()
            });
        let refused = registry
            .specs()
            .filter_map(|spec| {
                let reason = headers::refusal(spec.input_schema())?;
                tracing::warn!(tool = %spec.name, "not serving the tool over MCP: {reason}");
                Some((spec.name.to_string(), reason))
            })
            .collect();
        Listed {
            registry,
            links: stamp,
            json,
            marked,
            refused,
        }
    }

    /// Nothing rendered yet: the stamp of no links, so that the first
    /// listing renders the list.
    pub(super) fn pending(registry: Arc<Registry>) -> Self {
        Listed {
            registry,
            links: 0,
            json: Vec::new(),
            marked: None,
            refused: HashMap::new(),
        }
    }

    /// Why the tool `name` (or alias) is not served, when it is not.
    pub(super) fn refusal(&self, name: &str) -> Option<&str> {
        if self.refused.is_empty() {
            return None;
        }
        let tool = self.registry.resolve(name)?;
        self.refused.get(&*tool.spec().name).map(String::as_str)
    }

    /// The tools as `revision` lists them: with `execution.taskSupport` in
    /// the revisions that have it, when the server serves tasks
    /// (`serves_tasks`); as they are otherwise, or when the revision is not
    /// known.
    pub(super) fn rendered_for(&self, revision: Option<&str>, serves_tasks: bool) -> &[Value] {
        let marks = serves_tasks && revision.is_some_and(|r| TASK_SUPPORT_REVISIONS.contains(&r));
        match &self.marked {
            Some(marked) if marks => marked,
            _ => &self.json,
        }
    }

    /// Those of `tools` (the registry's tools in some shape, in name order)
    /// offered in `context`: those its
    /// [`enabled_when`](tool_runtime::RegistryBuilder::enabled_when)
    /// predicates allow, and that are not [`refused`](Self::refused).
    pub(super) fn offered<'a, T>(&'a self, tools: &'a [T], context: &ToolContext) -> Vec<&'a T> {
        let enabled: std::collections::HashSet<&str> = self
            .registry
            .specs_for(context)
            .map(|spec| &*spec.name)
            .collect();
        self.registry
            .specs()
            .zip(tools)
            .filter(|(spec, _)| {
                enabled.contains(&*spec.name) && !self.refused.contains_key(&*spec.name)
            })
            .map(|(_, tool)| tool)
            .collect()
    }
}

/// One `tools/list` entry: [`providers::mcp::tool`], with an empty object
/// schema for a hand-written tool whose input schema is not an object.
fn mcp_tool(spec: &ToolSpec) -> Value {
    let mut tool = providers::mcp::tool(spec);
    if !spec.input_schema().is_object() {
        tracing::warn!(
            tool = %spec.name,
            "listing a tool with an empty input schema: its input schema is not an object"
        );
        let mut schema = Map::new();
        schema.insert("type".into(), "object".into());
        tool["inputSchema"] = Value::Object(schema);
    }
    tool
}

/// The view of each of `registry`'s tools that has one, by tool name:
/// `_meta.ui` of its list entry. A link to a tool the registry does not
/// have is left out, with a warning when it was made at run time (a
/// `#[tool(ui)]` tool of the program may be left out of a registry on
/// purpose); so is a link to a view the server does not serve, with a
/// warning.
fn views(
    registry: &Registry,
    links: &BTreeMap<String, Link>,
    resources: Option<&Resources>,
) -> HashMap<String, Value> {
    let mut views = HashMap::new();
    for (name, link) in links {
        let Some(tool) = registry.resolve(name) else {
            if link.linked {
                tracing::debug!(tool = %name, "the tool of an app link is not in the registry");
            } else {
                tracing::warn!(
                    tool = %name,
                    view = %link.ui.resource_uri,
                    "the tool linked to an app's view is not in the registry served"
                );
            }
            continue;
        };
        let uri = &link.ui.resource_uri;
        if !resources.is_some_and(|resources| resources.resolves(uri)) {
            tracing::warn!(
                tool = %name,
                view = %uri,
                "the tool's app view is not among the resources served (McpServer::with_resources)"
            );
        }
        views.insert(tool.spec().name.to_string(), link.ui.to_json());
    }
    views
}

/// `tool` with `_meta.ui` when it has a view, beside the `_meta` it has.
fn with_view(mut tool: Value, view: Option<&Value>) -> Value {
    let (Some(view), Some(fields)) = (view, tool.as_object_mut()) else {
        return tool;
    };
    let meta = fields
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(meta) = meta.as_object_mut() {
        meta.insert("ui".into(), view.clone());
    }
    tool
}

/// `tool` with `execution: {"taskSupport": ...}` when `spec`'s calls may
/// run as tasks (`"optional"`, or `"required"` for a tool that runs only as
/// a task); a tool whose calls may not is left as it is, which says
/// `"forbidden"`.
fn with_task_support(spec: &ToolSpec, mut tool: Value) -> Value {
    if spec.task_support.allows_tasks()
        && let Some(fields) = tool.as_object_mut()
    {
        let support = spec.task_support.as_str();
        fields.insert(
            "execution".into(),
            serde_json::json!({"taskSupport": support}),
        );
    }
    tool
}
