//! A server's tools as registry tools: [`DynamicTool`]s that call the
//! server.

use std::collections::{BTreeMap, BTreeSet};

use tool_runtime::{DynamicTool, ToolContext};

use super::{McpClient, McpTool};

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
    /// naming the server.
    ///
    /// A tool whose schema the registry cannot use is left out, with a
    /// warning logged (`tracing`). The tools hold a clone of the client, so
    /// the connection stays up while a registry holds them.
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
        self.cached_tools()
            .iter()
            .filter(|tool| options.includes(&tool.name))
            .filter_map(|tool| self.dynamic_tool(tool, options))
            .collect()
    }

    /// One remote tool as a [`DynamicTool`], or `None` (logged) when the
    /// registry cannot take it.
    pub(crate) fn dynamic_tool(
        &self,
        tool: &McpTool,
        options: &ImportOptions,
    ) -> Option<DynamicTool> {
        let name = options.name_for(&tool.name);
        let description = if tool.description.is_empty() {
            tool.title.clone().unwrap_or_else(|| {
                format!(
                    "The tool `{}` of the MCP server `{}`.",
                    tool.name,
                    self.name()
                )
            })
        } else {
            tool.description.clone()
        };
        let client = self.clone();
        let remote = tool.name.clone();
        let mut builder =
            DynamicTool::builder(name.clone(), description, tool.input_schema.clone())
                .annotations(tool.annotations)
                .async_handler(move |args, ctx: ToolContext| {
                    let client = client.clone();
                    let remote = remote.clone();
                    async move {
                        client
                            .call(&remote, args, &ctx)
                            .await
                            .map_err(|error| error.to_tool_error())
                    }
                });
        if let Some(title) = &tool.title {
            builder = builder.title(title.clone());
        }
        if let Some(schema) = &tool.output_schema {
            builder = builder.output_schema(schema.clone());
        }
        for alias in options.aliases.get(&tool.name).into_iter().flatten() {
            builder = builder.alias(alias.clone());
        }
        match builder.build() {
            Ok(tool) => Some(tool),
            Err(error) => {
                tracing::warn!(
                    server = %self.name(),
                    tool = %tool.name,
                    %error,
                    "an MCP server's tool is left out of the registry"
                );
                None
            }
        }
    }
}
