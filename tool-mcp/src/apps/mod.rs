//! MCP Apps (the `io.modelcontextprotocol/ui` extension): interactive HTML
//! views a host shows in a sandboxed iframe beside a tool's result, which
//! may call the server's tools back through the host.
//!
//! Two parts, served by an [`McpServer`](crate::server::McpServer):
//!
//! - the view, an [`App`]: a resource at a `ui://` URI whose contents are
//!   HTML of the media type [`MIME_TYPE`], with what the view may reach
//!   ([`Csp`], [`Permission`]) in `_meta.ui` of its read contents and of
//!   its `resources/list` entry. Serve it as any resource:
//!   [`ResourcesBuilder::resource`](crate::resources::ResourcesBuilder::resource)
//!   and [`McpServer::with_resources`](crate::server::McpServer::with_resources);
//! - the tools it belongs to: `_meta.ui = {resourceUri, visibility?}` on
//!   their `tools/list` entries, from `#[tool(ui = "ui://...")]`
//!   ([`AppLinks::global`]) or [`AppLinks`] given at run time
//!   ([`McpServer::with_app_links`](crate::server::McpServer::with_app_links)),
//!   merged with the `_meta` a tool has already (its version,
//!   its deprecation). [`Visibility`] says whether the model, the view or
//!   both may call a tool (`#[tool(ui = "ui://...", visibility = "app")]`
//!   for a tool only the view calls, `"model"` for one only the model
//!   calls); the host enforces it.
//!
//! ```
//! use tool_mcp::apps::{App, AppLinks, Csp, ToolUi, Visibility};
//! use tool_mcp::resources::Resources;
//! use tool_mcp::server::McpServer;
//! use tool_runtime::Registry;
//!
//! let view = App::builder("ui://counter/view", "<!doctype html><p>0</p>")
//!     .title("Counter")
//!     .csp(Csp::new().connect_domains(["https://api.example.com"]))
//!     .prefers_border(true)
//!     .build()?;
//! let links = AppLinks::from_iter([
//!     ("counter_show", ToolUi::new("ui://counter/view")?),
//!     ("counter_add", ToolUi::new("ui://counter/view")?.with_visibility(Visibility::App)),
//! ]);
//! let server = McpServer::new(Registry::global().clone())
//!     .with_resources(Resources::builder().resource(view).build().unwrap())
//!     .with_app_links(links);
//! # let _ = server;
//! # Ok::<(), tool_mcp::apps::AppError>(())
//! ```
//!
//! The host, not the server, decides what the view may do: the server
//! lists every tool to every client and runs every call it may run, so a
//! tool an app calls must check its arguments as any tool does, and must
//! return content a model can read too (hosts without apps show that).

mod csp;
mod links;

use std::fmt;

use futures_util::future::BoxFuture;
use serde_json::{Map, Value};

use crate::resources::{CacheHint, Contents, ReadRequest, Resource, ResourceError, ResourceSpec};

pub use csp::{Csp, Permission};
#[doc(hidden)]
pub use links::AppLinkRegistration;
pub(crate) use links::Link;
pub use links::{AppLinks, ToolUi, Visibility};

/// The media type of a view's HTML: `text/html;profile=mcp-app`, exactly.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The extension's id, in capabilities: `io.modelcontextprotocol/ui`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/ui";

/// The scheme of a view's URI.
const SCHEME: &str = "ui://";

/// Why a view or a link was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AppError {
    /// The URI is not `ui://...`.
    NotUi(String),
    /// An origin of the [`Csp`] is not `scheme://host[:port]`.
    InvalidOrigin {
        /// The list it is in (`connectDomains`, ...).
        list: &'static str,
        /// The origin as given.
        origin: String,
        /// What is wrong with it.
        reason: &'static str,
    },
}

impl fmt::Display for AppError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AppError::NotUi(uri) => write!(
                f,
                "an app's view is at a ui:// URI, such as ui://counter/view; `{uri}` is not one"
            ),
            AppError::InvalidOrigin {
                list,
                origin,
                reason,
            } => write!(
                f,
                "`{origin}` in the CSP's {list} is not an origin ({reason}): write \
                 scheme://host or scheme://host:port, with `*.` before the host for every \
                 subdomain, as in https://*.example.com"
            ),
        }
    }
}

impl std::error::Error for AppError {}

/// Refuses a view URI that is not `ui://` and something.
fn check_uri(uri: &str) -> Result<(), AppError> {
    match uri.strip_prefix(SCHEME) {
        Some(rest) if !rest.is_empty() => Ok(()),
        _ => Err(AppError::NotUi(uri.to_owned())),
    }
}

/// A view: HTML served at a `ui://` URI as a resource, listed in
/// `resources/list` and read with its `_meta.ui` (see the [module](self)).
/// Its reads may be cached as [`CacheHint::STATIC`].
#[derive(Debug, Clone)]
pub struct App {
    spec: ResourceSpec,
    html: String,
    /// `_meta` of the read contents (and of the list entry).
    meta: Map<String, Value>,
}

impl App {
    /// A builder of the view at `uri` (`ui://...`) whose document is `html`.
    pub fn builder(uri: impl Into<String>, html: impl Into<String>) -> AppBuilder {
        AppBuilder {
            uri: uri.into(),
            html: html.into(),
            name: None,
            title: None,
            description: None,
            csp: Csp::new(),
            permissions: Vec::new(),
            prefers_border: None,
            domain: None,
        }
    }

    /// Its HTML.
    pub fn html(&self) -> &str {
        &self.html
    }

    /// Its `_meta.ui`: `csp`, and `permissions`, `domain` and
    /// `prefersBorder` when given.
    pub fn ui_meta(&self) -> &Value {
        &self.meta["ui"]
    }
}

impl Resource for App {
    fn spec(&self) -> &ResourceSpec {
        &self.spec
    }

    fn read(&self, request: ReadRequest) -> BoxFuture<'_, Result<Vec<Contents>, ResourceError>> {
        let contents =
            Contents::text(request.uri, MIME_TYPE, self.html.clone()).with_meta(self.meta.clone());
        Box::pin(async move { Ok(vec![contents]) })
    }
}

/// Builds an [`App`] (see [`App::builder`]).
#[derive(Debug, Clone)]
pub struct AppBuilder {
    uri: String,
    html: String,
    name: Option<String>,
    title: Option<String>,
    description: Option<String>,
    csp: Csp,
    permissions: Vec<Permission>,
    prefers_border: Option<bool>,
    domain: Option<String>,
}

impl AppBuilder {
    /// Its name in `resources/list` (default: its URI).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// A title for people.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// What the view shows.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// What the view may reach (`_meta.ui.csp`); nothing beyond itself
    /// unless given.
    pub fn csp(mut self, csp: Csp) -> Self {
        self.csp = csp;
        self
    }

    /// Asks for a browser capability (`_meta.ui.permissions`); repeatable.
    pub fn permission(mut self, permission: Permission) -> Self {
        if !self.permissions.contains(&permission) {
            self.permissions.push(permission);
        }
        self
    }

    /// Whether the view wants the host to draw a border and background
    /// around it (`_meta.ui.prefersBorder`); the host decides unless given.
    pub fn prefers_border(mut self, prefers: bool) -> Self {
        self.prefers_border = Some(prefers);
        self
    }

    /// The dedicated origin the view asks the host to give its sandbox
    /// (`_meta.ui.domain`), in the form the host documents.
    pub fn domain(mut self, domain: impl Into<String>) -> Self {
        self.domain = Some(domain.into());
        self
    }

    /// The view; refused when its URI is not `ui://...` or an origin of its
    /// CSP is not `scheme://host[:port]` (the error names it).
    pub fn build(self) -> Result<App, AppError> {
        check_uri(&self.uri)?;
        if let Some((list, origin, reason)) = self.csp.invalid() {
            return Err(AppError::InvalidOrigin {
                list,
                origin: origin.to_owned(),
                reason,
            });
        }
        let mut ui = Map::new();
        ui.insert("csp".into(), self.csp.to_json());
        if !self.permissions.is_empty() {
            let granted = self
                .permissions
                .iter()
                .map(|permission| (permission.as_str().to_owned(), Value::Object(Map::new())))
                .collect();
            ui.insert("permissions".into(), Value::Object(granted));
        }
        if let Some(domain) = self.domain {
            ui.insert("domain".into(), domain.into());
        }
        if let Some(prefers) = self.prefers_border {
            ui.insert("prefersBorder".into(), prefers.into());
        }
        let mut meta = Map::new();
        meta.insert("ui".into(), Value::Object(ui));
        let name = self.name.unwrap_or_else(|| self.uri.clone());
        let mut spec = ResourceSpec::fixed(self.uri, name)
            .with_mime_type(MIME_TYPE)
            .with_cache(CacheHint::STATIC)
            .with_meta(meta.clone());
        spec.title = self.title.map(Into::into);
        spec.description = self.description.map(Into::into);
        spec.size = Some(self.html.len() as u64);
        Ok(App {
            spec,
            html: self.html,
            meta,
        })
    }
}
