//! A [`LiveRegistry`] that follows a server's tool list.

use std::collections::BTreeSet;
use std::sync::Arc;

use tokio::task::JoinHandle;
use tool_runtime::{Tool, registry::LiveRegistry, registry::RegistryError};

use super::{ImportOptions, McpClient};

impl McpClient {
    /// Imports the server's tools into `live` (as [`tools`](Self::tools)
    /// makes them) and keeps them in step with the server: when its tool
    /// list changes (`notifications/tools/list_changed`, or a restart that
    /// brings other tools), the tools it added are replaced, those it no
    /// longer has removed, in one change of the registry, which
    /// [`LiveRegistry::subscribe`]rs (an MCP server serving `live`, say)
    /// see.
    ///
    /// The first import happens before this returns, and fails when the
    /// registry refuses it (an alias that collides, say). A tool whose name
    /// the registry already has (a local tool, another server's) is left
    /// out, never replaced, with a warning (`tracing`); a prefix avoids
    /// that. Later refusals are logged and leave the registry as it was. The returned task runs until the
    /// client is closed; abort it to stop following the server (the tools
    /// stay). It holds a clone of the client.
    ///
    /// ```no_run
    /// use tool_mcp::client::{ImportOptions, McpClient, McpServerConfig};
    /// use tool_runtime::{registry::LiveRegistry, Registry};
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let live = LiveRegistry::new(Registry::builder().build()?);
    /// let everything = McpClient::connect(
    ///     "everything",
    ///     McpServerConfig::stdio("npx", ["-y", "@modelcontextprotocol/server-everything"]),
    /// )
    /// .await?;
    /// let following = everything.sync_into(live.clone(), ImportOptions::new().with_prefix("everything_"))?;
    /// assert!(live.snapshot().contains("everything_echo"));
    /// // ... serve `live`; later:
    /// following.abort();
    /// # Ok(())
    /// # }
    /// ```
    pub fn sync_into(
        &self,
        live: LiveRegistry,
        options: ImportOptions,
    ) -> Result<JoinHandle<()>, RegistryError> {
        let mut watch = self.watch_tools();
        watch.borrow_and_update();
        let mut imported = self.import_into(&live, &options, &BTreeSet::new())?;
        let client = self.clone();
        Ok(tokio::spawn(async move {
            while watch.changed().await.is_ok() {
                match client.import_into(&live, &options, &imported) {
                    Ok(now) => imported = now,
                    Err(error) => tracing::warn!(
                        server = %client.name(),
                        %error,
                        "the MCP server's new tools could not be put in the registry"
                    ),
                }
            }
        }))
    }

    /// Puts the current tools in `live`, removing those of `before` that
    /// are gone; the names imported.
    fn import_into(
        &self,
        live: &LiveRegistry,
        options: &ImportOptions,
        before: &BTreeSet<String>,
    ) -> Result<BTreeSet<String>, RegistryError> {
        // A new name that the registry already has (a local tool, or
        // another server's) is not taken over: that tool stays, and this
        // one is left out, with a warning.
        let current = live.snapshot();
        let tools: Vec<_> = self
            .tools(options)
            .into_iter()
            .filter(|tool| {
                let name = &*tool.spec().name;
                let taken = !before.contains(name) && current.resolve(name).is_some();
                if taken {
                    tracing::warn!(
                        server = %self.name(),
                        tool = name,
                        "the registry already has a tool of this name; the server's is left out (give the server a prefix)"
                    );
                }
                !taken
            })
            .collect();
        let names: BTreeSet<String> = tools
            .iter()
            .map(|tool| tool.spec().name.to_string())
            .collect();
        let removed: Vec<&str> = before.difference(&names).map(String::as_str).collect();
        let added = tools
            .into_iter()
            .map(|tool| Arc::new(tool) as Arc<dyn Tool>);
        live.update(added, &removed)?;
        tracing::debug!(
            server = %self.name(),
            tools = names.len(),
            removed = removed.len(),
            "the MCP server's tools are in the registry"
        );
        Ok(names)
    }
}
