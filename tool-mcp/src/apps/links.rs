//! Which tools show which view: a tool's [`ToolUi`] (`_meta.ui` of its
//! `tools/list` entry), kept by tool name in [`AppLinks`], which the server
//! merges into its tool list. `#[tool(ui = "ui://...")]` links a tool at
//! link time ([`AppLinkRegistration`], collected by [`AppLinks::global`]).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Map, Value, json};
use tokio::sync::watch;
use tool_runtime::__private::inventory;

use super::AppError;

/// Who may call a tool that has a view: the model, the view (through the
/// host), or both. The host enforces it (the server lists every tool and
/// runs every call): it hides a tool the model may not call from the
/// model, and refuses a view's call of a tool the view may not call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Visibility {
    /// Both (`["model", "app"]`, what a tool is unless it says otherwise;
    /// not written on the wire).
    #[default]
    ModelAndApp,
    /// The view only (`["app"]`): a tool for the view's buttons, hidden
    /// from the model.
    App,
    /// The model only (`["model"]`): the view shows its results, and may
    /// not call it.
    Model,
}

impl Visibility {
    /// `_meta.ui.visibility`, or `None` for the default.
    fn to_json(self) -> Option<Value> {
        match self {
            Visibility::ModelAndApp => None,
            Visibility::App => Some(json!(["app"])),
            Visibility::Model => Some(json!(["model"])),
        }
    }
}

/// A tool's link to its view: the `ui://` resource that shows its results,
/// and who may call the tool.
///
/// ```
/// use tool_mcp::apps::{ToolUi, Visibility};
///
/// let ui = ToolUi::new("ui://counter/view")?.with_visibility(Visibility::App);
/// assert_eq!(ui.resource_uri, "ui://counter/view");
/// assert!(ToolUi::new("https://example.com/view").is_err());
/// # Ok::<(), tool_mcp::apps::AppError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolUi {
    /// The view's URI (`resourceUri`), `ui://...`.
    pub resource_uri: String,
    /// Who may call the tool.
    pub visibility: Visibility,
}

impl ToolUi {
    /// A link to the view at `resource_uri`, callable by the model and the
    /// view; refused unless the URI is `ui://...`.
    pub fn new(resource_uri: impl Into<String>) -> Result<Self, AppError> {
        let resource_uri = resource_uri.into();
        super::check_uri(&resource_uri)?;
        Ok(Self {
            resource_uri,
            visibility: Visibility::ModelAndApp,
        })
    }

    /// With who may call the tool.
    pub fn with_visibility(mut self, visibility: Visibility) -> Self {
        self.visibility = visibility;
        self
    }

    /// `_meta.ui` of the tool's list entry.
    pub(crate) fn to_json(&self) -> Value {
        let mut ui = Map::new();
        ui.insert("resourceUri".into(), self.resource_uri.clone().into());
        if let Some(visibility) = self.visibility.to_json() {
            ui.insert("visibility".into(), visibility);
        }
        Value::Object(ui)
    }
}

/// One link and where it was made.
#[derive(Debug, Clone)]
pub(crate) struct Link {
    /// The link.
    pub(crate) ui: ToolUi,
    /// Whether `#[tool(ui)]` made it: the tool is linked into the program,
    /// so a server of a registry without it is no mistake.
    pub(crate) linked: bool,
}

/// The tools that have a view, by tool name: a cheap-clone handle whose
/// clones share the links, so the program may change them while a server
/// runs (its next tool list has the change).
///
/// A server uses [`AppLinks::global`] (every `#[tool(ui = "...")]` of the
/// program) unless given others with
/// [`McpServer::with_app_links`](crate::server::McpServer::with_app_links).
///
/// ```
/// use tool_mcp::apps::{AppLinks, ToolUi, Visibility};
///
/// let links = AppLinks::from_iter([
///     ("counter_show", ToolUi::new("ui://counter/view")?),
///     ("counter_add", ToolUi::new("ui://counter/view")?.with_visibility(Visibility::App)),
/// ]);
/// assert_eq!(links.get("counter_add").unwrap().visibility, Visibility::App);
/// links.remove("counter_add");
/// assert!(links.get("counter_add").is_none());
/// # Ok::<(), tool_mcp::apps::AppError>(())
/// ```
#[derive(Clone)]
pub struct AppLinks {
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    links: Mutex<BTreeMap<String, Link>>,
    /// Changes with every change of the links; unique among all
    /// collections, so that a server given other links sees a change too.
    stamp: AtomicU64,
    /// Counts the changes of the links, for the sessions that tell their
    /// clients the tool list changed.
    changes: watch::Sender<u64>,
}

/// The next stamp of any collection of links: from 1 (0 is the stamp of
/// a list rendered with none).
fn next_stamp() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl AppLinks {
    /// No links.
    pub fn new() -> Self {
        let links = Self {
            shared: Arc::default(),
        };
        links.changed();
        links
    }

    /// Every `#[tool(ui = "...")]` linked into this program: built at the
    /// first call, and shared by every later one, so what is
    /// [inserted](Self::insert) in it stays.
    pub fn global() -> &'static AppLinks {
        static GLOBAL: OnceLock<AppLinks> = OnceLock::new();
        GLOBAL.get_or_init(|| {
            let links = AppLinks::new();
            {
                let mut map = links.lock();
                for registration in inventory::iter::<AppLinkRegistration> {
                    let ui = ToolUi {
                        resource_uri: registration.resource_uri.to_owned(),
                        visibility: registration.visibility,
                    };
                    map.insert(registration.tool.to_owned(), Link { ui, linked: true });
                }
            }
            links
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Link>> {
        self.shared.links.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn changed(&self) {
        self.shared.stamp.store(next_stamp(), Ordering::Relaxed);
        self.shared.changes.send_modify(|count| *count += 1);
    }

    /// Links the tool `tool` to its view; the link it had before, if any.
    pub fn insert(&self, tool: impl Into<String>, ui: ToolUi) -> Option<ToolUi> {
        let link = Link { ui, linked: false };
        let before = self.lock().insert(tool.into(), link);
        self.changed();
        before.map(|link| link.ui)
    }

    /// Takes out the link of the tool `tool`; the link, if it had one.
    pub fn remove(&self, tool: &str) -> Option<ToolUi> {
        let before = self.lock().remove(tool);
        if before.is_some() {
            self.changed();
        }
        before.map(|link| link.ui)
    }

    /// The link of the tool `tool`.
    pub fn get(&self, tool: &str) -> Option<ToolUi> {
        self.lock().get(tool).map(|link| link.ui.clone())
    }

    /// Every link, by tool name.
    pub fn list(&self) -> Vec<(String, ToolUi)> {
        self.lock()
            .iter()
            .map(|(tool, link)| (tool.clone(), link.ui.clone()))
            .collect()
    }

    /// The links as they are now, and the stamp of that state.
    pub(crate) fn snapshot(&self) -> (BTreeMap<String, Link>, u64) {
        let links = self.lock();
        (links.clone(), self.stamp())
    }

    /// Changes with every change of the links.
    pub(crate) fn stamp(&self) -> u64 {
        self.shared.stamp.load(Ordering::Relaxed)
    }

    /// Changes with each [`insert`](Self::insert) and
    /// [`remove`](Self::remove): what tells a server's sessions that its
    /// tool list changed, as a change of its registry does.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.shared.changes.subscribe()
    }
}

impl Default for AppLinks {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: Into<String>> FromIterator<(S, ToolUi)> for AppLinks {
    fn from_iter<I: IntoIterator<Item = (S, ToolUi)>>(links: I) -> Self {
        let collection = AppLinks::new();
        for (tool, ui) in links {
            collection.insert(tool, ui);
        }
        collection
    }
}

impl std::fmt::Debug for AppLinks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.lock().iter().map(|(tool, link)| (tool, &link.ui)))
            .finish()
    }
}

/// The link-time registration `#[tool(ui = "...")]` emits.
#[doc(hidden)]
pub struct AppLinkRegistration {
    tool: &'static str,
    resource_uri: &'static str,
    visibility: Visibility,
}

impl AppLinkRegistration {
    /// The link of the tool `tool` to the view at `resource_uri` (which the
    /// macro has checked is `ui://...`).
    pub const fn new(
        tool: &'static str,
        resource_uri: &'static str,
        visibility: Visibility,
    ) -> Self {
        Self {
            tool,
            resource_uri,
            visibility,
        }
    }
}

inventory::collect!(AppLinkRegistration);
