//! A server's tools as registry tools: [`DynamicTool`]s that call the
//! server.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

use tool_runtime::__private::quote;
use tool_runtime::{Tool, ToolContext, dynamic::DynamicTool};

use super::convert::{unwrap_result, wrapped_result_schema};
use super::error::untrusted;
use super::{McpClient, McpTool};

/// A tool of a server's list that is not offered, and why: its schema is
/// over the [`McpLimits`](super::McpLimits), its name becomes the same as
/// another's once made a registry name (`x.y` and `x_y` both become
/// `x_y`: neither is offered, so that neither name silently calls the
/// other tool), or the registry cannot take it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LeftOut {
    /// The tool's name on the server, as the server gave it: escape it
    /// ([`tool_runtime::__private::quote::name`]) to show it.
    pub tool: String,
    /// Why, naming the limit or the other tools (their names escaped).
    pub reason: String,
}

/// `tool `NAME` is left out: REASON`, the name escaped and cut short.
impl fmt::Display for LeftOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tool `{}` is left out: {}",
            quote::name(&self.tool),
            self.reason
        )
    }
}

/// What [`McpClient::import`] makes of a server's tools.
#[derive(Debug)]
#[non_exhaustive]
pub struct Import {
    /// The tools, as registry tools, in the server's order.
    pub tools: Vec<DynamicTool>,
    /// The tools of the server's list that are not among them, and why.
    pub left_out: Vec<LeftOut>,
}

/// How [`McpClient::tools`] names and picks the tools it makes.
///
/// ```
/// use tool_mcp::client::ImportOptions;
///
/// let options = ImportOptions::new()
///     .with_prefix("everything_")             // `echo` becomes `everything_echo`
///     .with_rename("get-sum", "add_numbers")  // this one is named outright
///     .with_alias("echo", "say")              // `everything_echo` also answers to `say`
///     .with_only(["echo", "get-sum"]);        // and no other tool is imported
/// assert_eq!(options.name_for("echo"), "everything_echo");
/// assert_eq!(options.name_for("get-sum"), "add_numbers");
/// assert_eq!(options.name_for("what.is/this"), "everything_what_is_this");
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ImportOptions {
    /// Put before every remote name that is not renamed (`everything_`,
    /// say), to keep several servers' tools apart.
    pub prefix: String,
    /// Registry names for remote tools, by remote name: used as they are,
    /// without the prefix.
    pub renames: BTreeMap<String, String>,
    /// Other names a tool answers to, by remote name.
    pub aliases: BTreeMap<String, Vec<String>>,
    /// When set, only these remote tools are imported.
    pub only: Option<BTreeSet<String>>,
}

impl ImportOptions {
    /// No prefix, no renames, no aliases, every tool.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`prefix`](Self::prefix).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Names the remote tool `remote` `name` in the registry (no prefix).
    pub fn with_rename(mut self, remote: impl Into<String>, name: impl Into<String>) -> Self {
        self.renames.insert(remote.into(), name.into());
        self
    }

    /// Lets the remote tool `remote` also answer to `alias`.
    pub fn with_alias(mut self, remote: impl Into<String>, alias: impl Into<String>) -> Self {
        self.aliases
            .entry(remote.into())
            .or_default()
            .push(alias.into());
        self
    }

    /// Imports only these remote tools.
    pub fn with_only<I, S>(mut self, remote: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.only = Some(remote.into_iter().map(Into::into).collect());
        self
    }

    /// The registry name of the remote tool `remote`: its rename, else the
    /// prefix and the remote name. Characters a tool name cannot hold
    /// (anything but letters, digits, `_` and `-`) become `_`, and the
    /// name is cut to 64 characters.
    pub fn name_for(&self, remote: &str) -> String {
        let name = match self.renames.get(remote) {
            Some(name) => name.clone(),
            None => format!("{}{remote}", self.prefix),
        };
        name.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .take(64)
            .collect()
    }

    /// Whether the remote tool `remote` is imported.
    pub fn includes(&self, remote: &str) -> bool {
        self.only.as_ref().is_none_or(|only| only.contains(remote))
    }
}

impl McpClient {
    /// The server's tools (as last listed) as registry tools, named by
    /// `options`: each a [`DynamicTool`] with the remote tool's description,
    /// title, input and output schemas and annotations, whose calls go to
    /// the server through [`call`](McpClient::call) (the registry validates
    /// the arguments against the schema first). Errors become error results
    /// naming the server. A tool whose output schema wraps a scalar as
    /// `{"result": x}` (as MCP servers must) gives `x` as its result, and
    /// declares `x`'s schema.
    ///
    /// The tools [`import`](Self::import) leaves out are left out here too,
    /// each with a warning logged (`tracing`). The tools hold a clone of
    /// the client, so the connection stays up while a registry holds them.
    ///
    /// ```no_run
    /// use serde_json::json;
    /// use tool_mcp::client::{ImportOptions, McpClient, McpServerConfig};
    /// use tool_runtime::{Registry, ToolContext, ToolUse};
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let config = McpServerConfig::stdio("npx", ["-y", "@modelcontextprotocol/server-everything"]);
    /// let everything = McpClient::connect("everything", config).await?;
    /// let mut builder = Registry::builder();
    /// for tool in everything.tools(&ImportOptions::new().with_prefix("everything_")) {
    ///     builder = builder.tool(tool);
    /// }
    /// let registry = builder.build()?;
    /// let call = ToolUse::new("t1", "everything_echo", json!({"message": "hi"}));
    /// let result = registry.invoke(call, &ToolContext::new()).await;
    /// assert_eq!(result.text_content(), "Echo: hi");
    /// # Ok(())
    /// # }
    /// ```
    pub fn tools(&self, options: &ImportOptions) -> Vec<DynamicTool> {
        let import = self.import(options);
        for left_out in &import.left_out {
            tracing::warn!(server = %self.name(), "{left_out}");
        }
        import.tools
    }

    /// The server's tools (as last listed) as registry tools, as
    /// [`tools`](Self::tools) makes them, and those of its list left out,
    /// with why ([`LeftOut`]): a schema over the limits, a name that
    /// becomes another's registry name (both are left out), a tool the
    /// registry cannot take. Only the tools `options` includes are
    /// considered.
    pub fn import(&self, options: &ImportOptions) -> Import {
        let listed = self.cached_tools();
        let mut left_out: Vec<LeftOut> = self
            .left_out()
            .iter()
            .filter(|left_out| options.includes(&left_out.tool))
            .cloned()
            .collect();
        let named: Vec<(String, &McpTool)> = listed
            .iter()
            .filter(|tool| options.includes(&tool.name))
            .map(|tool| (options.name_for(&tool.name), tool))
            .collect();
        let mut alike: HashMap<&str, Vec<&str>> = HashMap::new();
        for (name, tool) in &named {
            alike.entry(name).or_default().push(&tool.name);
        }
        let mut tools = Vec::new();
        for (name, tool) in &named {
            let group = &alike[name.as_str()];
            if group.len() > 1 {
                let names: Vec<String> = group
                    .iter()
                    .map(|remote| format!("`{}`", quote::name(remote)))
                    .collect();
                let (all, none) = match group.len() {
                    2 => ("both", "neither is"),
                    _ => ("all", "none of them is"),
                };
                left_out.push(LeftOut {
                    tool: tool.name.clone(),
                    reason: format!(
                        "the tools {} would {all} be named `{name}` here; {none} offered",
                        names.join(" and ")
                    ),
                });
                continue;
            }
            match self.dynamic_tool(name, tool, options) {
                Ok(tool) => tools.push(tool),
                Err(reason) => left_out.push(LeftOut {
                    tool: tool.name.clone(),
                    reason,
                }),
            }
        }
        Import { tools, left_out }
    }

    /// One remote tool as a [`DynamicTool`] named `name`, or why the
    /// registry cannot take it.
    fn dynamic_tool(
        &self,
        name: &str,
        tool: &McpTool,
        options: &ImportOptions,
    ) -> Result<DynamicTool, String> {
        let description = if tool.description.is_empty() {
            tool.title.clone().unwrap_or_else(|| {
                format!(
                    "The tool `{}` of the MCP server `{}`.",
                    quote::name(&tool.name),
                    self.name()
                )
            })
        } else {
            tool.description.clone()
        };
        let wrapped = tool.output_schema.as_ref().and_then(wrapped_result_schema);
        let unwrap = wrapped.is_some();
        let client = self.clone();
        let remote = tool.name.clone();
        let mut builder =
            DynamicTool::builder(name.to_owned(), description, tool.input_schema.clone())
                .annotations(tool.annotations)
                .async_handler(move |args, ctx: ToolContext| {
                    let client = client.clone();
                    let remote = remote.clone();
                    async move {
                        let output = client
                            .call(&remote, args, &ctx)
                            .await
                            .map_err(|error| error.to_tool_error())?;
                        Ok(if unwrap {
                            unwrap_result(output)
                        } else {
                            output
                        })
                    }
                });
        if let Some(title) = &tool.title {
            builder = builder.title(title.clone());
        }
        if let Some(schema) = wrapped.or_else(|| tool.output_schema.clone()) {
            builder = builder.output_schema(schema);
        }
        for alias in options.aliases.get(&tool.name).into_iter().flatten() {
            builder = builder.alias(alias.clone());
        }
        let cannot = |why: &str| format!("the registry cannot take it: {}", untrusted(why, 300));
        let built = builder
            .build()
            .map_err(|error| cannot(&error.to_string()))?;
        // A tool whose header parameters break MCP's rules cannot be called
        // over HTTP as MCP asks, nor served again over MCP.
        match crate::headers::refusal(built.spec().input_schema()) {
            Some(reason) => Err(untrusted(&reason, 300)),
            None => Ok(built),
        }
    }
}
