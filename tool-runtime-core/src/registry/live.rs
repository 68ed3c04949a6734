//! [`LiveRegistry`]: a registry whose tools change while it serves calls
//! (feature `live`); each change builds the registry with tools added and
//! removed (`changes.rs`).

use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;
use tokio::sync::watch;

use super::changes::with_changes;
use super::{Registry, RegistryError};
use crate::tool::{Tool, ToolRef};

/// A registry whose tools can be added, removed and replaced while it
/// serves calls.
///
/// Each change builds a new [`Registry`] from the current one (the same
/// settings, allowlist, strictness and aliases) and swaps it in whole; a
/// change that would make an invalid registry (two tools with one name, an
/// alias that collides, a schema strict mode cannot take) is refused and
/// changes nothing. Reading is lock-free: a call loads the current
/// registry (an `arc-swap` snapshot), and a call already running finishes
/// with the tool it started with, even if that tool has since been removed
/// or replaced. Changes are made one at a time, and each one is announced
/// to [`subscribe`](Self::subscribe)rs (the MCP server sends
/// `notifications/tools/list_changed` on each).
///
/// Clones share the same tools: hand one to the server and keep one to
/// change them.
///
/// A live registry has no call methods of its own: what only it does is
/// change, count and announce changes. Everything else is the registry's:
/// [`snapshot`](Self::snapshot) gives the registry as it is now, on which
/// any [`Registry`] method is called (`invoke`, `stream`, `invoke_all`,
/// `call_json`, the lookups and the renderings), and several calls on one
/// snapshot see one set of tools.
///
/// ```
/// use serde_json::json;
/// use tool_runtime::{tool, registry::LiveRegistry, Registry, ToolContext, ToolUse};
///
/// /// Says hi.
/// #[tool]
/// fn say_hi() -> &'static str {
///     "hi"
/// }
///
/// /// Says bye.
/// #[tool]
/// fn say_bye() -> &'static str {
///     "bye"
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let live = LiveRegistry::new(Registry::builder().tool(SayHiTool).build().unwrap());
/// let mut changes = live.subscribe();
///
/// live.insert(SayByeTool).unwrap();
/// assert!(changes.has_changed().unwrap());
/// assert_eq!(live.snapshot().names().collect::<Vec<_>>(), ["say_bye", "say_hi"]);
///
/// let ctx = ToolContext::new();
/// let result = live.snapshot().invoke(ToolUse::new("1", "say_bye", json!({})), &ctx).await;
/// assert_eq!(result.text_content(), "bye");
///
/// let before = live.snapshot();
/// assert!(live.remove("say_hi"));
/// assert!(live.snapshot().invoke(ToolUse::new("2", "say_hi", json!({})), &ctx).await.is_error());
/// // A snapshot taken before keeps its tools.
/// assert_eq!(before.invoke(ToolUse::new("3", "say_hi", json!({})), &ctx).await.text_content(), "hi");
/// # });
/// ```
#[derive(Clone)]
pub struct LiveRegistry {
    shared: Arc<Shared>,
}

struct Shared {
    current: ArcSwap<Registry>,
    /// Held while a change is made, so two changes never build from the
    /// same registry and one of them is lost.
    writer: Mutex<()>,
    /// The number of changes made so far.
    changes: watch::Sender<u64>,
}

impl LiveRegistry {
    /// Serves `registry`'s tools, ready to change them.
    pub fn new(registry: Registry) -> Self {
        LiveRegistry {
            shared: Arc::new(Shared {
                current: ArcSwap::from_pointee(registry),
                writer: Mutex::new(()),
                changes: watch::Sender::new(0),
            }),
        }
    }

    /// The registry as it is now, to call, list or render: loaded without
    /// a lock (an `arc-swap` load). It does not change: a later change
    /// makes a new registry and leaves this one as it was, so a call made
    /// on it runs with the tools it holds.
    pub fn snapshot(&self) -> Arc<Registry> {
        self.shared.current.load_full()
    }

    /// How many changes have been made.
    pub fn version(&self) -> u64 {
        *self.shared.changes.borrow()
    }

    /// A receiver that sees every change: its value is the number of
    /// changes made, and [`changed`](watch::Receiver::changed) wakes on the
    /// next one.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.shared.changes.subscribe()
    }

    /// Adds `tool`, or replaces the tool of the same name.
    pub fn insert<T: Tool>(&self, tool: T) -> Result<(), RegistryError> {
        self.change(vec![ToolRef::new(tool)], &[])
    }

    /// Adds a shared tool, or replaces the tool of the same name.
    pub fn insert_shared(&self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        self.change(vec![ToolRef::Shared(tool)], &[])
    }

    /// Removes the tool named `name` and says whether there was one.
    pub fn remove(&self, name: &str) -> bool {
        let _writing = self.lock();
        let current = self.shared.current.load_full();
        if !current.contains(name) {
            return false;
        }
        match with_changes(&current, Vec::new(), &[name]) {
            Ok(next) => {
                self.publish(next);
                true
            }
            // Removing a tool cannot make a registry invalid.
            Err(_) => false,
        }
    }

    /// Adds or replaces the tools in `added` and removes those named in
    /// `removed`, as one change: callers and subscribers see all of it or
    /// none of it.
    pub fn update(
        &self,
        added: impl IntoIterator<Item = Arc<dyn Tool>>,
        removed: &[&str],
    ) -> Result<(), RegistryError> {
        self.change(added.into_iter().map(ToolRef::Shared).collect(), removed)
    }

    /// Serves `registry` instead, whole.
    pub fn replace(&self, registry: Registry) {
        let _writing = self.lock();
        self.publish(registry);
    }

    fn change(&self, added: Vec<ToolRef>, removed: &[&str]) -> Result<(), RegistryError> {
        let _writing = self.lock();
        let next = with_changes(&self.shared.current.load(), added, removed)?;
        self.publish(next);
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ()> {
        // The lock guards no data: a writer that panicked left nothing half
        // done, since the registry is swapped in whole.
        self.shared
            .writer
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn publish(&self, next: Registry) {
        self.shared.current.store(Arc::new(next));
        self.shared.changes.send_modify(|version| *version += 1);
    }
}

impl From<Registry> for LiveRegistry {
    fn from(registry: Registry) -> Self {
        LiveRegistry::new(registry)
    }
}

impl std::fmt::Debug for LiveRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let current = self.shared.current.load();
        f.debug_struct("LiveRegistry")
            .field("version", &self.version())
            .field("tools", &current.names().collect::<Vec<_>>())
            .finish()
    }
}
